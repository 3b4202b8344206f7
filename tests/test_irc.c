/*
 * test_irc.c - the IRC adapter's pure parts: parsing and cleaning server
 * lines, splitting text into lines the server relays within 512 bytes
 * (UTF-8, formatting, never CR/LF/NUL), the token bucket and the queue on
 * the loop's virtual clock, CAP lists and SASL PLAIN chunks, ISUPPORT,
 * NAMES entries, identities, where a renamed person's private lines go,
 * SHA-256 and certificate fingerprints, and the
 * configuration errors of init() word for word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "adapter.h"
#include "irc/fingerprint.h"
#include "irc/irc_int.h"
#include "irc/proto.h"
#include "irc/queue.h"
#include "loop.h"
#include "text.h"

extern const struct adapter_impl irc_adapter;

/* The stub core: config.c (linked) looks adapters up here. */
const struct adapter_impl *const adapter_registry[] = {
	&irc_adapter,
	NULL,
};

const struct adapter_impl *
adapter_find(const char *name)
{
	return strcmp(name, "irc") == 0 ? &irc_adapter : NULL;
}

/* Parsing. */

static void
test_parse(void **state)
{
	char line[] = "@time=x;account=a :nick!u@h PRIVMSG #c :hello  there";
	char bare[] = "PING :abc";
	char empty[] = ":prefix.only   ";
	char many[] = "005 me A B C D E F G H I J K L M N O :rest here";
	struct irc_msg m;

	(void)state;
	assert_int_equal(irc_parse(line, &m), 0);
	assert_string_equal(m.prefix, "nick!u@h");
	assert_string_equal(m.command, "PRIVMSG");
	assert_int_equal(m.nparams, 2);
	assert_string_equal(m.params[0], "#c");
	assert_string_equal(m.params[1], "hello  there");
	assert_int_equal(irc_parse(bare, &m), 0);
	assert_null(m.prefix);
	assert_string_equal(m.params[0], "abc");
	assert_int_equal(irc_parse(empty, &m), -1);
	/* The fifteenth parameter is the rest of the line. */
	assert_int_equal(irc_parse(many, &m), 0);
	assert_int_equal(m.nparams, 15);
	assert_string_equal(m.params[14], "N O :rest here");
}

static size_t
relay(const char *in, char *out)
{
	return irc_relay_line(in, strlen(in), out, 2 * IRC_LINE_MAX);
}

/* account-tag values are found among other tags and unescaped. */
static void
test_tag_value(void **state)
{
	char out[64];

	(void)state;
#define TAG(line, key) irc_tag_value(line, strlen(line), key, out, \
    sizeof(out))
	assert_int_equal(TAG("@account=alice :a!u@h PRIVMSG #c :x", "account"),
	    1);
	assert_string_equal(out, "alice");
	assert_int_equal(TAG("@time=2024-01-01T00:00:00Z;account=bob;msgid=1 "
	    ":b!u@h PRIVMSG #c :x", "account"), 1);
	assert_string_equal(out, "bob");
	assert_int_equal(TAG("@time=1;acc=x;account=a\\sb\\:c\\\\d "
	    ":b!u@h PRIVMSG #c :x", "account"), 1);
	assert_string_equal(out, "a b;c\\d");
	/* A prefix of another key, a tag without a value, none at all. */
	assert_int_equal(TAG("@accounts=x :b!u@h PRIVMSG #c :x", "account"),
	    0);
	assert_int_equal(TAG("@account :b!u@h PRIVMSG #c :x", "account"), 0);
	assert_int_equal(TAG("@account= :b!u@h PRIVMSG #c :x", "account"), 0);
	assert_int_equal(TAG(":b!u@h PRIVMSG #c :account=x", "account"), 0);
	assert_int_equal(TAG("@x=1 :b!u@h PRIVMSG #c :@account=x", "account"),
	    0);
	/* CR or LF never come out; a value too long is refused. */
	assert_int_equal(TAG("@account=a\\rb :b!u@h PRIVMSG #c :x", "account"),
	    0);
	assert_int_equal(irc_tag_value("@account=abcdef", 15, "account", out,
	    4), 0);
	assert_int_equal(irc_tag_value("@account=abc", 12, "account", out,
	    4), 1);
	assert_string_equal(out, "abc");
#undef TAG
}

static void
test_relay_line(void **state)
{
	char out[2 * IRC_LINE_MAX], in[2000];
	size_t n;

	(void)state;
	/* Canonical: tags gone, single spaces, the last parameter after :. */
	n = relay("@a=b :n!u@h  PRIVMSG   #c   hi\r", out);
	assert_string_equal(out, ":n!u@h PRIVMSG #c :hi\r\n");
	assert_int_equal(n, strlen(out));
	relay(":srv 001 me :Welcome", out);
	assert_string_equal(out, ":srv 001 me :Welcome\r\n");
	/* What libircclient 1.9 mishandles is dropped. */
	assert_int_equal(relay(":srv 376", out), 0);
	assert_int_equal(relay(":srv 0012 me :x", out), 0);
	assert_int_equal(relay(":n!u@h PRIVMSG #c", out), 0);
	assert_int_equal(relay(":n!u@h PRIVMSG #c :", out), 0);
	assert_int_equal(relay(":n!u@h NOTICE me :\001", out), 0);
	assert_int_equal(relay(":n!u@h PRIVMSG me :\001DCC SEND x 1 2 3\001",
	    out), 0);
	assert_int_equal(relay(":prefix", out), 0);
	assert_int_equal(relay("", out), 0);
	assert_int_not_equal(relay(":n!u@h PRIVMSG me :\001VERSION\001", out),
	    0);
	/* NUL and stray CR never reach libircclient. */
	n = irc_relay_line(":n!u@h PRIVMSG #c :a\0b\rc", 24, out, sizeof(out));
	assert_string_equal(out, ":n!u@h PRIVMSG #c :abc\r\n");
	assert_int_equal(n, strlen(out));
	/* Long lines are cut to 510 bytes, not inside a character. */
	strcpy(in, ":n!u@h PRIVMSG #c :");
	for (size_t i = strlen(in); i < 1000; i += 2)
		memcpy(in + i, "\xc3\xa4", 2);
	in[1000] = '\0';
	n = relay(in, out);
	assert_true(n <= IRC_LINE_MAX);
	assert_memory_equal(out + n - 2, "\r\n", 2);
	/* The text starts at an odd offset (19): two-byte characters end
	 * at even offsets, so the cut (before CR LF) is at one. */
	assert_int_equal((n - 2 - 19) % 2, 0);
}

/*
 * Regression (fuzz_irc): a "command" that is not letters or three digits
 * was relayed, so "@x @y" went on as a line that starts with tags and
 * ": :x Y" as one whose prefix is "x".
 */
static void
test_relay_not_a_command(void **state)
{
	char out[2 * IRC_LINE_MAX];

	(void)state;
	assert_int_equal(relay("@ @", out), 0);
	assert_int_equal(relay("@a=b @c PRIVMSG #c :hi", out), 0);
	assert_int_equal(relay(": :x PRIVMSG #c :hi", out), 0);
	assert_int_equal(relay(":n!u@h PRIV-MSG #c :hi", out), 0);
	assert_int_equal(relay(":n!u@h PRIVMSG1 #c :hi", out), 0);
	/* Real commands, in any case, still pass. */
	assert_int_not_equal(relay(":n!u@h privmsg #c :hi", out), 0);
	assert_string_equal(out, ":n!u@h privmsg #c :hi\r\n");
	assert_int_not_equal(relay("@t=1 :n!u@h TAGMSG #c", out), 0);
	assert_string_equal(out, ":n!u@h TAGMSG :#c\r\n");
}

static void
test_casecmp(void **state)
{
	(void)state;
	assert_int_equal(irc_casecmp(IRC_CASEMAP_RFC1459, "Nick[a]~",
	    "nick{A}^"), 0);
	assert_int_not_equal(irc_casecmp(IRC_CASEMAP_ASCII, "a[", "a{"), 0);
	assert_int_equal(irc_casecmp(IRC_CASEMAP_ASCII, "ABC", "abc"), 0);
	assert_int_not_equal(irc_casecmp(IRC_CASEMAP_STRICT, "~", "^"), 0);
	assert_int_equal(irc_casecmp(IRC_CASEMAP_STRICT, "\\", "|"), 0);
}

static void
test_isupport(void **state)
{
	char line[] = ":srv 005 me CHANTYPES=#+ PREFIX=(qaohv)~&@%+ WHOX "
	    "CASEMAPPING=ascii NETWORK=Test :are supported";
	char neg[] = ":srv 005 me -WHOX :are supported";
	struct irc_isupport is;
	struct irc_msg m;

	(void)state;
	irc_isupport_init(&is);
	assert_true(irc_is_channel(&is, "#a"));
	assert_true(irc_is_channel(&is, "&a"));
	assert_false(irc_is_channel(&is, "nick"));
	assert_int_equal(is.casemap, IRC_CASEMAP_RFC1459);
	assert_int_equal(irc_parse(line, &m), 0);
	irc_isupport_apply(&is, &m);
	assert_string_equal(is.chantypes, "#+");
	assert_string_equal(is.prefixes, "~&@%+");
	assert_int_equal(is.whox, 1);
	assert_int_equal(is.casemap, IRC_CASEMAP_ASCII);
	assert_string_equal(is.network, "Test");
	assert_false(irc_is_channel(&is, "&a"));
	assert_true(irc_is_channel(&is, "+a"));
	assert_int_equal(irc_parse(neg, &m), 0);
	irc_isupport_apply(&is, &m);
	assert_int_equal(is.whox, 0);
}

static void
test_masks_and_names(void **state)
{
	struct irc_isupport is;
	char nick[32], user[32], host[64];

	(void)state;
	assert_int_equal(irc_mask_split("alice!~al@example.org", nick,
	    sizeof(nick), user, sizeof(user), host, sizeof(host)), 0);
	assert_string_equal(nick, "alice");
	assert_string_equal(user, "~al");
	assert_string_equal(host, "example.org");
	assert_int_equal(irc_mask_split("irc.server.net", nick, sizeof(nick),
	    user, sizeof(user), host, sizeof(host)), 0);
	assert_string_equal(nick, "irc.server.net");
	assert_string_equal(user, "");
	assert_string_equal(host, "");
	assert_int_equal(irc_mask_split("!u@h", nick, sizeof(nick), user,
	    sizeof(user), host, sizeof(host)), -1);
	assert_int_equal(irc_mask_split("n!u@a-very-long-host-name-that-does-"
	    "not-fit-in-sixty-four-bytes-of-room.example.org", nick,
	    sizeof(nick), user, sizeof(user), host, sizeof(host)), -1);
	irc_isupport_init(&is);
	snprintf(is.prefixes, sizeof(is.prefixes), "~&@%%+");
	/* multi-prefix and userhost-in-names. */
	assert_int_equal(irc_names_entry(&is, "@+bob!b@h.net", nick,
	    sizeof(nick), user, sizeof(user), host, sizeof(host)), 0);
	assert_string_equal(nick, "bob");
	assert_string_equal(user, "b");
	assert_string_equal(host, "h.net");
	assert_int_equal(irc_names_entry(&is, "~carol", nick, sizeof(nick),
	    user, sizeof(user), host, sizeof(host)), 0);
	assert_string_equal(nick, "carol");
	assert_string_equal(host, "");
}

static void
test_identity(void **state)
{
	const enum irc_casemap R = IRC_CASEMAP_RFC1459;
	char id[128];

	(void)state;
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", "~al", "h",
	    "Alice"), 0);
	assert_string_equal(id, "account:Alice");
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", "~al", "h",
	    NULL), 0);
	assert_string_equal(id, "alice!~al@h");
	/* "*" (extended-join, ACCOUNT) and "0" (WHOX) mean no account. */
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", "~al", "h",
	    "*"), 0);
	assert_string_equal(id, "alice!~al@h");
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", "~al", "h",
	    "0"), 0);
	assert_string_equal(id, "alice!~al@h");
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", NULL, "h",
	    NULL), -1);
	assert_int_equal(irc_identity(id, sizeof(id), R, "alice", "", "h", "*"),
	    -1);
	assert_int_equal(irc_identity(id, 8, R, "alice", "~al", "h", NULL), -1);
	/*
	 * The nick in one case, as the server folds it (its CASEMAPPING);
	 * the user name, host and account as they are.  Under ascii, "Bob["
	 * and "bob{" are two nicks, and the id names the one it is.
	 */
	assert_int_equal(irc_identity(id, sizeof(id), R, "Bob[X]~", "~Bob", "H",
	    NULL), 0);
	assert_string_equal(id, "bob{x}^!~Bob@H");
	assert_int_equal(irc_identity(id, sizeof(id), IRC_CASEMAP_STRICT,
	    "Bob[X]~", "~Bob", "H", NULL), 0);
	assert_string_equal(id, "bob{x}~!~Bob@H");
	assert_int_equal(irc_identity(id, sizeof(id), IRC_CASEMAP_ASCII,
	    "Bob[X]~", "~Bob", "H", NULL), 0);
	assert_string_equal(id, "bob[x]~!~Bob@H");
	assert_int_equal(irc_identity(id, sizeof(id), R, "Bob", "~al", "h",
	    "BobAcct"), 0);
	assert_string_equal(id, "account:BobAcct");
	snprintf(id, sizeof(id), "BoB!~bob@Host");
	irc_identity_fold(id, R);
	assert_string_equal(id, "bob!~bob@Host");
	snprintf(id, sizeof(id), "account:BoB");
	irc_identity_fold(id, R);
	assert_string_equal(id, "account:BoB");
	assert_false(irc_account_known(NULL));
	assert_true(irc_account_known("bob"));
}

static void
test_strip_codes(void **state)
{
	char s[] = "\x02" "bold\x02 \x03" "04,12red\x03 \x03" "7x \x1d" "it"
	    "\x0f \x04" "FF0000hex \x03,5comma";

	(void)state;
	irc_strip_codes(s);
	assert_string_equal(s, "bold red x it hex ,5comma");
}

/* Splitting. */

struct lines {
	char v[256][IRC_LINE_MAX + 1];
	size_t len[256];
	int n;
};

static void
collect(const char *line, size_t len, void *arg)
{
	struct lines *l = arg;

	assert_true(l->n < 256);
	assert_int_equal(strlen(line), len);
	memcpy(l->v[l->n], line, len + 1);
	l->len[l->n++] = len;
}

/* 1 when s (n bytes) is valid UTF-8. */
static int
utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 :
		    c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;

		if (len == 0 || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

static void
check_lines(const struct lines *l, size_t max)
{
	for (int i = 0; i < l->n; i++) {
		assert_true(l->len[i] <= max);
		assert_true(l->len[i] > 0);
		assert_null(memchr(l->v[i], '\r', l->len[i]));
		assert_null(memchr(l->v[i], '\n', l->len[i]));
		assert_null(memchr(l->v[i], '\001', l->len[i]));
		assert_true(utf8_valid(l->v[i], l->len[i]));
	}
}

static void
test_split_lines(void **state)
{
	static struct lines l;
	const char text[] = "first\n\nsecond\r\n  \nthird\001";

	(void)state;
	memset(&l, 0, sizeof(l));
	/* '\n' separates lines; empty and blank ones are not sent. */
	assert_int_equal(irc_split(text, sizeof(text) - 1, 400, collect, &l),
	    3);
	assert_string_equal(l.v[0], "first");
	assert_string_equal(l.v[1], "second");
	assert_string_equal(l.v[2], "third");
	check_lines(&l, 400);
	/* A NUL inside the text is dropped, not an end. */
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split("a\0b", 3, 400, collect, &l), 1);
	assert_string_equal(l.v[0], "ab");
	assert_int_equal(irc_split("x", 1, 3, collect, &l), -1);
}

static void
test_split_words_and_limit(void **state)
{
	static struct lines l;
	char text[3000], joined[3000];
	size_t len = 0, max = 100;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (int i = 0; len < 2000; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "%sword%d", i > 0 ? " " : "", i);
	assert_true(irc_split(text, len, max, collect, &l) > 10);
	check_lines(&l, max);
	/* Cut at spaces: joining with one space gives the text back. */
	joined[0] = '\0';
	for (int i = 0; i < l.n; i++) {
		assert_true(l.v[i][0] != ' ');
		assert_true(l.len[i] >= max / 2);
		if (i > 0)
			strcat(joined, " ");
		strcat(joined, l.v[i]);
	}
	assert_string_equal(joined, text);
}

static void
test_split_utf8(void **state)
{
	static struct lines l;
	char text[2000];
	size_t len = 0;

	(void)state;
	/* Three- and four-byte characters without spaces, an odd limit. */
	while (len < 1500) {
		memcpy(text + len, "\xe2\x99\xa0\xf0\x9f\x82\xa1", 7);
		len += 7;
	}
	memset(&l, 0, sizeof(l));
	assert_true(irc_split(text, len, 101, collect, &l) > 10);
	check_lines(&l, 101);
	{
		size_t total = 0;

		for (int i = 0; i < l.n; i++)
			total += l.len[i];
		assert_int_equal(total, len);
	}
}

static void
test_split_formatting(void **state)
{
	static struct lines l;
	char text[1000];
	size_t len;

	(void)state;
	/* Bold and a colour carry over; a colour code is never cut. */
	len = (size_t)snprintf(text, sizeof(text), "\x02\x03" "04");
	memset(text + len, 'x', 300);
	len += 300;
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split(text, len, 100, collect, &l), 4);
	check_lines(&l, 100);
	for (int i = 1; i < l.n; i++)
		assert_memory_equal(l.v[i], "\x02\x03" "04x", 5);
	/* A boundary right inside "\x03" "12": the code moves whole. */
	memset(text, 'y', 8);
	memcpy(text + 8, "\x03" "12z", 4);
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split(text, 12, 10, collect, &l), 2);
	assert_string_equal(l.v[0], "yyyyyyyy");
	assert_string_equal(l.v[1], "\x03" "12z");
	/* A digit after a carried one-digit colour stays text. */
	len = (size_t)snprintf(text, sizeof(text), "\x03" "4aaaaaaaa 5");
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split(text, len, 11, collect, &l), 2);
	assert_string_equal(l.v[1], "\x03" "045");
	/* A dropped CR must not glue a digit to a bare colour code, nor
	 * a comma to a carried one. */
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split("\x03\r1", 3, 10, collect, &l), 1);
	assert_string_equal(l.v[0], "\x03\x02\x02" "1");
	len = (size_t)snprintf(text, sizeof(text), "\x03" "4aaaaaaaa ,5");
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split(text, len, 11, collect, &l), 2);
	assert_string_equal(l.v[1], "\x03" "04\x02\x02,5");
	/* Reset ends the carry. */
	len = (size_t)snprintf(text, sizeof(text), "\x02" "ab\x0f"
	    "cdefghijklmnop");
	memset(&l, 0, sizeof(l));
	assert_int_equal(irc_split(text, len, 10, collect, &l), 2);
	assert_int_not_equal(l.v[1][0], '\x02');
}

/* Random texts: every line fits, is valid UTF-8, and nothing is lost. */
static void
test_split_random(void **state)
{
	static const char *const pieces[] = {
		"a", "b", " ", "  ", "\n", "\xc3\xa4", "\xe2\x99\xa5",
		"\xf0\x9f\x82\xa1", "\x02", "\x03" "04", "\x03" "12,01",
		"\x0f", "\x1d", "\x03", "\r", "1", "\x01",
	};
	static struct lines l;
	uint64_t seed = 42;
	char text[4000], visible[4000], got[8000];

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t len = 0, vlen = 0, glen = 0, max;

		while (len < 3000) {
			const char *p;

			seed = seed * 6364136223846793005ULL +
			    1442695040888963407ULL;
			p = pieces[(seed >> 33) % (sizeof(pieces) /
			    sizeof(pieces[0]))];
			memcpy(text + len, p, strlen(p));
			len += strlen(p);
		}
		max = 20 + (size_t)(seed >> 40) % 480;
		memset(&l, 0, sizeof(l));
		assert_true(irc_split(text, len, max, collect, &l) >= 0);
		check_lines(&l, max);
		/* Visible characters (no spaces, codes or controls) survive. */
		memcpy(visible, text, len);
		visible[len] = '\0';
		irc_strip_codes(visible);
		for (size_t i = 0; visible[i] != '\0'; i++)
			if ((unsigned char)visible[i] > ' ')
				visible[vlen++] = visible[i];
		visible[vlen] = '\0';
		for (int i = 0; i < l.n; i++) {
			char line[IRC_LINE_MAX + 1];

			memcpy(line, l.v[i], l.len[i] + 1);
			irc_strip_codes(line);
			for (size_t k = 0; line[k] != '\0'; k++)
				if ((unsigned char)line[k] > ' ')
					got[glen++] = line[k];
		}
		got[glen] = '\0';
		assert_string_equal(got, visible);
	}
}

/* The whole line the server relays stays within 512 bytes. */
static void
test_split_relayed_line(void **state)
{
	static struct lines l;
	const char *mask = "stichbot!~stichbot@some.long.host.example.org";
	size_t overhead = irc_overhead(mask, "PRIVMSG", "#wizards");
	char text[5000];

	(void)state;
	assert_int_equal(overhead, strlen(":") + strlen(mask) +
	    strlen(" PRIVMSG #wizards :\r\n"));
	memset(text, 'w', sizeof(text));
	memset(&l, 0, sizeof(l));
	assert_true(irc_split(text, sizeof(text), IRC_LINE_MAX - overhead,
	    collect, &l) > 0);
	for (int i = 0; i < l.n; i++)
		assert_true(overhead + l.len[i] <= IRC_LINE_MAX);
	assert_int_equal(overhead + l.len[0], IRC_LINE_MAX);
}

/* The queue. */

struct sent {
	char lines[256][64];
	uint64_t at[256];
	int n;
	int busy;                /* answer busy this many times */
	struct loop *loop;
	/* The gate's verdict for lines whose ident is "hold" or "drop". */
	int hold, drop;
	int gated;               /* lines shown to the gate */
	uint64_t done[64];
	int dropped[64];
	int ndone;
};

static int
record_send(const char *line, void *arg)
{
	struct sent *s = arg;

	if (s->busy > 0) {
		s->busy--;
		return 1;
	}
	assert_true(s->n < 256);
	snprintf(s->lines[s->n], sizeof(s->lines[0]), "%s", line);
	s->at[s->n++] = loop_now(s->loop);
	return 0;
}

static int
record_gate(const char *line, const char *ident, uint64_t queued, void *arg)
{
	struct sent *s = arg;

	(void)line;
	(void)queued;
	s->gated++;
	if (ident != NULL && strcmp(ident, "hold") == 0 && s->hold)
		return IRC_GATE_WAIT;
	if (ident != NULL && strcmp(ident, "drop") == 0 && s->drop)
		return IRC_GATE_DROP;
	return IRC_GATE_GO;
}

static void
record_done(uint64_t id, int dropped, void *arg)
{
	struct sent *s = arg;

	assert_true(s->ndone < 64);
	s->done[s->ndone] = id;
	s->dropped[s->ndone++] = dropped;
}

/* A queue on loop whose lines s records (s is cleared first). */
static struct irc_queue *
recorded_queue(struct loop *loop, struct sent *s, int burst, int interval_ms)
{
	struct irc_queue_ops ops = { record_send, record_gate, record_done,
		NULL, s };

	memset(s, 0, sizeof(*s));
	s->loop = loop;
	return irc_queue_create(loop, burst, interval_ms, &ops);
}

/* Queues a one-line reply (no id, no gate) to flow. */
static int
push(struct irc_queue *q, const char *flow, const char *line)
{
	const char *lines[1] = { line };

	return irc_queue_push_message(q, flow, NULL, 0, 0, 0, lines, 1);
}

/* Queues a one-line table message (an outbox id, no gate) to flow. */
static int
push_table(struct irc_queue *q, const char *flow, const char *line)
{
	static uint64_t id = 1000;
	const char *lines[1] = { line };

	return irc_queue_push_message(q, flow, NULL, 0, id++, 0, lines, 1);
}

static void
test_queue_pace(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	uint64_t t0 = loop_now(loop);
	char line[32];

	(void)state;
	q = recorded_queue(loop, &s, 4, 2000);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "PRIVMSG #c :%d", i);
		assert_int_equal(push_table(q, "#c", line), 0);
	}
	/* Nothing leaves before the queue runs (registration). */
	assert_int_equal(s.n, 0);
	assert_int_equal(irc_queue_depth(q), 10);
	irc_queue_run(q, 1);
	assert_int_equal(s.n, 4);
	/* Sent and not yet known written: still pending. */
	assert_int_equal(irc_queue_depth(q), 10);
	irc_queue_written(q);
	assert_int_equal(irc_queue_depth(q), 6);
	loop_advance(loop, 1999);
	assert_int_equal(s.n, 4);
	loop_advance(loop, 1);
	assert_int_equal(s.n, 5);
	loop_advance(loop, 20000);
	assert_int_equal(s.n, 10);
	for (int i = 4; i < 10; i++)
		assert_int_equal(s.at[i] - t0, (uint64_t)(i - 3) * 2000);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "PRIVMSG #c :%d", i);
		assert_string_equal(s.lines[i], line);
	}
	irc_queue_written(q);
	assert_int_equal(irc_queue_depth(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

static void
test_queue_priority(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;

	(void)state;
	q = recorded_queue(loop, &s, 1, 1000);
	push(q, "#c", "c1");
	push(q, "#c", "c2");
	irc_queue_push(q, IRC_CLASS_LOW, "ctcp");
	irc_queue_push(q, IRC_CLASS_BACKGROUND, "WHO #c");
	push(q, "#c", "p1");
	irc_queue_push(q, IRC_CLASS_CONTROL, "JOIN #c");
	irc_queue_run(q, 1);
	loop_advance(loop, 10000);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.lines[0], "JOIN #c");
	/* A table's private lines never overtake its channel lines. */
	assert_string_equal(s.lines[1], "c1");
	assert_string_equal(s.lines[2], "c2");
	assert_string_equal(s.lines[3], "p1");
	/* WHOs (one per joined channel) wait for the games' lines. */
	assert_string_equal(s.lines[4], "WHO #c");
	assert_string_equal(s.lines[5], "ctcp");
	/* CTCP replies: a few wait, more are dropped. */
	irc_queue_run(q, 0);
	for (int i = 0; i < IRC_QUEUE_LOW_MAX; i++)
		assert_int_equal(irc_queue_push(q, IRC_CLASS_LOW, "v"), 0);
	assert_int_equal(irc_queue_push(q, IRC_CLASS_LOW, "v"), -1);
	irc_queue_clear(q, IRC_CLASS_LOW);
	irc_queue_written(q);
	assert_int_equal(irc_queue_depth(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * A channel's replies (answers that changed nothing) never hold its
 * table back, and wait while the table has lines waiting that were
 * queued before them: the channel reads the table's news (after a
 * restart, its lines said again) before the answers queued after it.
 */
static void
test_queue_channel_replies(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	char line[32];

	(void)state;
	q = recorded_queue(loop, &s, 1, 1000);
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "t%d", i);
		assert_int_equal(push_table(q, "#c", line), 0);
	}
	push(q, IRC_REPLIES_PREFIX "#c", "r0");
	push(q, IRC_REPLIES_PREFIX "#c", "r1");
	push(q, "bob!b@h", "p0");
	irc_queue_run(q, 1);
	loop_advance(loop, 20000);
	assert_int_equal(s.n, 9);
	/* A person's reply takes its turn after IRC_TABLE_SHARE lines. */
	assert_string_equal(s.lines[IRC_TABLE_SHARE], "p0");
	/* The channel's replies after all of its table's lines. */
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "t%d", i);
		assert_string_equal(s.lines[i + (i >= IRC_TABLE_SHARE)], line);
	}
	assert_string_equal(s.lines[7], "r0");
	assert_string_equal(s.lines[8], "r1");
	irc_queue_written(q);
	irc_queue_destroy(q);

	/*
	 * But only for those queued before them: a table that kept making
	 * lines (computers at a slow pace) held every answer back until it
	 * fell silent, and the answers came out stale.
	 */
	q = recorded_queue(loop, &s, 1, 1000);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "t%d", i);
		if (i == 6)
			push(q, IRC_REPLIES_PREFIX "#c", "r0");
		assert_int_equal(push_table(q, "#c", line), 0);
	}
	irc_queue_run(q, 1);
	loop_advance(loop, 20000);
	assert_int_equal(s.n, 11);
	/* After t0 to t5, before the lines queued after it. */
	for (int i = 0; i < 11; i++) {
		snprintf(line, sizeof(line), "t%d", i - (i > 6));
		assert_string_equal(s.lines[i], i == 6 ? "r0" : line);
	}
	irc_queue_written(q);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Issue 15.7: one busy table (or one chatty person) delayed every other
 * table's lines by its whole backlog.  Tables (flows with outbox ids)
 * take turns line by line: a table line queued behind another table's
 * backlog of 100 leaves within a round of the tables (plus at most one
 * reply); replies take turns among themselves and get the turn after
 * IRC_TABLE_SHARE table lines; each flow's lines stay in order.
 */
static void
test_queue_round_robin(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	char line[32];
	const char *one[1] = { line };
	int next_a = 0, next_b = 0, next_c = 0, first_b = -1, last_b = -1;
	int last_c = -1, run = 0, longest = 0;

	(void)state;
	q = recorded_queue(loop, &s, 1, 100);
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "a%d", i);
		assert_int_equal(irc_queue_push_message(q, "#busy", NULL, 0,
		    (uint64_t)(i + 1), 0, one, 1), 0);
	}
	irc_queue_run(q, 1);
	loop_advance(loop, 1000);
	assert_int_equal(s.n, 11);
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "b%d", i);
		assert_int_equal(irc_queue_push_message(q, "#quiet", NULL, 0,
		    (uint64_t)(200 + i), 0, one, 1), 0);
		snprintf(line, sizeof(line), "c%d", i);
		push(q, "alice!a@h", line);
	}
	loop_advance(loop, 100 * 40);
	assert_int_equal(s.n, 51);
	for (int i = 0; i < s.n; i++) {
		int k;

		if (sscanf(s.lines[i], "a%d", &k) == 1) {
			assert_int_equal(k, next_a++);
			if (i >= 11 && next_c < 3 && ++run > longest)
				longest = run;
		} else if (sscanf(s.lines[i], "b%d", &k) == 1) {
			assert_int_equal(k, next_b++);
			if (first_b < 0)
				first_b = i;
			last_b = i;
			if (next_c < 3 && ++run > longest)
				longest = run;
		} else if (sscanf(s.lines[i], "c%d", &k) == 1) {
			assert_int_equal(k, next_c++);
			last_c = i;
			run = 0;
		}
	}
	assert_int_equal(next_b, 3);
	assert_int_equal(next_c, 3);
	/* Two tables: every other table line, a reply in between at most. */
	assert_true(first_b <= 11 + 2);
	assert_true(last_b <= 11 + 3 * 2 + 2);
	/* Replies: one after at most IRC_TABLE_SHARE table lines. */
	assert_true(longest <= IRC_TABLE_SHARE);
	assert_true(last_c <= 11 + 3 * (IRC_TABLE_SHARE + 1));
	assert_int_equal(irc_queue_flow_depth(q, "#busy"), 100 - next_a);
	assert_true(irc_queue_flow_depth(q, "#busy") >= IRC_FLOW_BUSY);
	assert_int_equal(irc_queue_flow_depth(q, "#quiet"), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Twenty people's replies wait, per_person each; a message (id,
 * expires_in ms from now; 0: none) queued after them leaves next or after
 * one reply, and every reply still leaves: none is dropped.
 */
static void
leaves_before_crowd(struct loop *loop, int per_person, uint64_t id,
    uint64_t expires_in, const char *line)
{
	struct sent s;
	struct irc_queue *q = recorded_queue(loop, &s, 1, 100);
	char text[32], flow[32];
	const char *one[1] = { line };

	for (int p = 0; p < 20; p++) {
		snprintf(flow, sizeof(flow), "p%d!u@h", p);
		for (int i = 0; i < per_person; i++) {
			snprintf(text, sizeof(text), "NOTICE p%d :help %d", p, i);
			push(q, flow, text);
		}
	}
	irc_queue_run(q, 1);
	loop_advance(loop, 500);
	assert_int_equal(s.n, 6);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, id,
	    expires_in != 0 ? loop_now(loop) + expires_in : 0, one, 1), 0);
	loop_advance(loop, 200);
	assert_int_equal(s.n, 8);
	assert_true(strcmp(s.lines[6], line) == 0 ||
	    strcmp(s.lines[7], line) == 0);
	loop_advance(loop, 100 * 20 * (uint64_t)per_person);
	assert_int_equal(s.n, 20 * per_person + 1);
	irc_queue_destroy(q);
}

/*
 * Twenty people's replies wait, 10 each: a table's line queued after
 * them leaves next (or after one reply), not after 200; so does a turn's
 * reminder (it expires), untracked as it is.
 */
static void
test_queue_tables_first(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	char flow[32];
	const char *one[1] = { "PRIVMSG #t :your move" };

	(void)state;
	leaves_before_crowd(loop, 10, 7, 0, one[0]);
	leaves_before_crowd(loop, 1, 0, 5000, "NOTICE ann :60 seconds left");
	/*
	 * With a burst, replies leave one token for the tables: a move
	 * queued behind a crowd leaves at once, and the crowd keeps its
	 * rate.
	 */
	q = recorded_queue(loop, &s, 5, 100);
	irc_queue_run(q, 1);
	for (int i = 0; i < 40; i++) {
		snprintf(flow, sizeof(flow), "p%d!u@h", i % 20);
		push(q, flow, "NOTICE p :help");
	}
	assert_int_equal(s.n, 4);
	loop_advance(loop, 1000);
	assert_int_equal(s.n, 14);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 8, 0, one, 1),
	    0);
	assert_int_equal(s.n, 15);
	assert_string_equal(s.lines[14], one[0]);
	loop_advance(loop, 100 * 30);
	assert_int_equal(s.n, 41);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * The bot stops: the stored messages that have not begun to leave are
 * dropped without being reported (the next start says them), a message
 * begun is finished, replies that have not begun go too (behind the
 * withheld news they would speak of a game the channel has not heard
 * yet, and after the goodbye of one that stopped), and what comes next
 * (the goodbye) leaves at once.
 */
static void
test_queue_withhold(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	const char *two[2] = { "PRIVMSG #t :begun 1", "PRIVMSG #t :begun 2" };

	(void)state;
	q = recorded_queue(loop, &s, 1, 1000);
	irc_queue_run(q, 1);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 5, 0, two, 2),
	    0);
	assert_int_equal(s.n, 1);
	assert_int_equal(push_table(q, "#t", "PRIVMSG #t :stored 1"), 0);
	assert_int_equal(push(q, "#t", "PRIVMSG #t :a reply"), 0);
	assert_int_equal(push_table(q, "#u", "PRIVMSG #u :stored 2"), 0);
	assert_int_equal(push_table(q, "#t", "PRIVMSG #t :stored 3"), 0);
	/* Four waiting, one in flight. */
	assert_int_equal(irc_queue_depth(q), 6);
	assert_int_equal(push(q, IRC_REPLIES_PREFIX "#t",
	    "PRIVMSG #t :an answer"), 0);
	assert_int_equal(irc_queue_withhold(q), 3);
	assert_int_equal(irc_queue_depth(q), 2);
	assert_int_equal(push(q, "#t", "PRIVMSG #t :goodbye"), 0);
	loop_advance(loop, 5000);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.lines[1], "PRIVMSG #t :begun 2");
	assert_string_equal(s.lines[2], "PRIVMSG #t :goodbye");
	irc_queue_written(q);
	/* Only the message begun is reported; the others are the store's. */
	assert_int_equal(s.ndone, 1);
	assert_true(s.done[0] == 5 && s.dropped[0] == 0);
	assert_int_equal(irc_queue_withhold(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * A message that expires (the turn timer's reminder) is dropped when its
 * time has passed before it could begin to leave, and when the
 * connection is lost (irc_queue_expire(UINT64_MAX)); one that begun is
 * finished, and one in time leaves as any other.
 */
static void
test_queue_expire(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	uint64_t t0 = loop_now(loop);
	const char *late[1] = { "PRIVMSG alice :60 seconds left" };
	const char *soon[1] = { "PRIVMSG bob :60 seconds left" };
	const char *two[2] = { "PRIVMSG cy :part 1", "PRIVMSG cy :part 2" };
	const char *lost[1] = { "PRIVMSG dee :60 seconds left" };

	(void)state;
	q = recorded_queue(loop, &s, 1, 1000);
	irc_queue_run(q, 1);
	/* Three table lines ahead of alice's reminder, one a second. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(push_table(q, "#t", "PRIVMSG #t :move"), 0);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 0,
	    t0 + 1500, late, 1), 0);
	assert_int_equal(push(q, "#t", "PRIVMSG #t :after"), 0);
	/* The first move is in flight. */
	assert_int_equal(irc_queue_depth(q), 5);
	loop_advance(loop, 5000);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.lines[2], "PRIVMSG #t :move");
	assert_string_equal(s.lines[3], "PRIVMSG #t :after");
	irc_queue_written(q);
	assert_int_equal(irc_queue_depth(q), 0);

	/* In time: it leaves. */
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 0,
	    loop_now(loop) + 10000, soon, 1), 0);
	loop_advance(loop, 1000);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.lines[4], soon[0]);

	/* Begun before its time: its second line follows after it. */
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 0,
	    loop_now(loop) + 500, two, 2), 0);
	loop_advance(loop, 3000);
	assert_int_equal(s.n, 7);
	assert_string_equal(s.lines[6], "PRIVMSG cy :part 2");

	/* The connection is lost: it goes, the reply stays. */
	irc_queue_run(q, 0);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 0, 0,
	    loop_now(loop) + 60000, lost, 1), 0);
	assert_int_equal(push(q, "#t", "PRIVMSG #t :a reply"), 0);
	assert_int_equal(irc_queue_expire(q, UINT64_MAX), 1);
	assert_int_equal(irc_queue_expire(q, UINT64_MAX), 0);
	irc_queue_run(q, 1);
	loop_advance(loop, 3000);
	assert_int_equal(s.n, 8);
	assert_string_equal(s.lines[7], "PRIVMSG #t :a reply");
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * A gate holds a message (the same person's later lines wait behind it;
 * lines of the flow for others pass a private line whose holder is being
 * verified, other flows go on) or drops a message (the rest of it,
 * reported done as dropped; the flow's next message is asked again).
 */
static void
test_queue_gate(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	const char *hand[2] = { "PRIVMSG alice :hand 1", "PRIVMSG alice :h2" };
	const char *later[1] = { "PRIVMSG alice :later" };
	const char *chan[1] = { "PRIVMSG #t :after the hand" };
	const char *other[1] = { "PRIVMSG #u :another table" };

	(void)state;
	q = recorded_queue(loop, &s, 10, 100);
	s.hold = 1;
	irc_queue_run(q, 1);
	assert_int_equal(irc_queue_push_message(q, "#t", "hold", 1, 7, 0, hand,
	    2), 0);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 1, 8, 0, chan, 1),
	    0);
	assert_int_equal(irc_queue_push_message(q, "#t", "hold", 1, 12, 0,
	    later, 1), 0);
	assert_int_equal(irc_queue_push_message(q, "#u", NULL, 1, 9, 0, other, 1),
	    0);
	loop_advance(loop, 500);
	/* The channel line passed alice's hand; her lines wait, in order. */
	assert_int_equal(s.n, 2);
	assert_string_equal(s.lines[0], "PRIVMSG #t :after the hand");
	assert_string_equal(s.lines[1], "PRIVMSG #u :another table");
	assert_int_equal(irc_queue_depth(q), 5);
	assert_int_equal(irc_queue_flow_depth(q, "#t"), 3);
	/* Known written: the ids are done. */
	irc_queue_written(q);
	assert_int_equal(s.ndone, 2);
	assert_true(s.done[0] == 8 && s.dropped[0] == 0);
	assert_true(s.done[1] == 9 && s.dropped[1] == 0);
	/* The holder is verified: her lines go on, in order. */
	s.hold = 0;
	irc_queue_flush(q);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.lines[2], "PRIVMSG alice :hand 1");
	assert_string_equal(s.lines[3], "PRIVMSG alice :h2");
	assert_string_equal(s.lines[4], "PRIVMSG alice :later");
	assert_int_equal(s.ndone, 2);
	irc_queue_written(q);
	assert_int_equal(s.ndone, 4);
	assert_true(s.done[2] == 7 && s.done[3] == 12);
	/* Someone else holds the nick: the message is dropped, reported. */
	s.drop = 1;
	assert_int_equal(irc_queue_push_message(q, "#t", "drop", 1, 10, 0, hand,
	    2), 0);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 1, 11, 0, chan, 1),
	    0);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.lines[5], "PRIVMSG #t :after the hand");
	assert_int_equal(s.ndone, 5);
	assert_true(s.done[4] == 10 && s.dropped[4] == 1);
	irc_queue_written(q);
	assert_int_equal(s.ndone, 6);
	/* Behind a held message, one for another nick's stranger too. */
	s.hold = 1;
	assert_int_equal(irc_queue_push_message(q, "#t", "hold", 1, 13, 0, hand,
	    2), 0);
	assert_int_equal(irc_queue_push_message(q, "#t", "drop", 1, 14, 0, hand,
	    2), 0);
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 1, 15, 0, chan, 1),
	    0);
	assert_int_equal(s.n, 7);
	assert_string_equal(s.lines[6], "PRIVMSG #t :after the hand");
	assert_int_equal(s.ndone, 7);
	assert_true(s.done[6] == 14 && s.dropped[6] == 1);
	s.hold = 0;
	irc_queue_flush(q);
	assert_int_equal(s.n, 9);
	assert_string_equal(s.lines[7], "PRIVMSG alice :hand 1");
	irc_queue_written(q);
	assert_int_equal(s.ndone, 9);
	assert_int_equal(irc_queue_depth(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Lines handed on but not known written go back to the front of their
 * flows when the connection is lost, in order, and are sent again; ids
 * are reported once, after the last line is written.  Tracked messages
 * are never refused; replies are, past their flow's limit.
 */
static void
test_queue_requeue_and_limits(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	const char *three[3] = { "x1", "x2", "x3" };
	int refused = 0;

	(void)state;
	q = recorded_queue(loop, &s, 2, 1000);
	irc_queue_push_message(q, "#t", NULL, 0, 5, 0, three, 3);
	push(q, "#t", "y");
	irc_queue_run(q, 1);
	assert_int_equal(s.n, 2);
	irc_queue_run(q, 0);
	irc_queue_requeue(q);
	assert_int_equal(irc_queue_inflight(q), 0);
	assert_int_equal(irc_queue_depth(q), 4);
	assert_int_equal(s.ndone, 0);
	loop_advance(loop, 10000);
	irc_queue_run(q, 1);
	loop_advance(loop, 10000);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.lines[2], "x1");
	assert_string_equal(s.lines[3], "x2");
	assert_string_equal(s.lines[4], "x3");
	assert_string_equal(s.lines[5], "y");
	irc_queue_written(q);
	assert_int_equal(s.ndone, 1);
	assert_true(s.done[0] == 5 && s.dropped[0] == 0);
	/* Limits. */
	irc_queue_run(q, 0);
	for (int i = 0; i < IRC_FLOW_UNTRACKED_MAX + 5; i++)
		refused += push(q, "bob!b@h", "reply") != 0;
	assert_int_equal(refused, 5);
	for (int i = 0; i < 10; i++)
		assert_int_equal(irc_queue_push_message(q, "bob!b@h", NULL, 0,
		    (uint64_t)(100 + i), 0, three, 1), 0);
	assert_int_equal(irc_queue_flow_depth(q, "bob!b@h"),
	    IRC_FLOW_UNTRACKED_MAX + 10);
	/* An empty message has left at once. */
	irc_queue_push_message(q, "#t", NULL, 0, 42, 0, three, 0);
	assert_true(s.ndone == 2 && s.done[1] == 42);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Regression: a WHO for each of 500 joined channels went out at the
 * bucket's pace; ngircd holds a client back a second per WHO, so the
 * games' lines behind them waited minutes.  Background lines leave one
 * per IRC_BACKGROUND_GAP_MS, and only when nothing else waits.
 */
static void
test_queue_background(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	uint64_t t0 = loop_now(loop);

	(void)state;
	q = recorded_queue(loop, &s, 4, 100);
	irc_queue_run(q, 1);
	for (int i = 0; i < 5; i++)
		irc_queue_push(q, IRC_CLASS_BACKGROUND, "WHO #c");
	assert_int_equal(s.n, 1);
	loop_advance(loop, 500);
	push(q, "#c", "c");
	assert_int_equal(s.n, 2);
	assert_string_equal(s.lines[1], "c");
	loop_advance(loop, 10000);
	assert_int_equal(s.n, 6);
	for (int i = 2; i < 6; i++) {
		assert_string_equal(s.lines[i], "WHO #c");
		assert_int_equal(s.at[i] - t0,
		    (uint64_t)(i - 1) * IRC_BACKGROUND_GAP_MS);
	}
	irc_queue_written(q);
	assert_int_equal(irc_queue_depth(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Issue 14: a line written to the socket is not yet a line the server
 * has; a SIGKILL lost lines still in kernel buffers.  With ping(), lines
 * are confirmed only by the PONG of a PING sent after them: one PING per
 * event (after its lines), at most one outstanding, one per
 * IRC_PING_BATCH lines under a backlog, each taking a token of the
 * bucket; unconfirmed lines go again after a reconnect, once.
 */
static void
test_queue_ping(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue_ops ops = { record_send, record_gate, record_done,
		record_send, &s };
	struct irc_queue *q;
	const char *two[2] = { "PRIVMSG #t :a", "PRIVMSG #t :b" };
	const char *one[1] = { "PRIVMSG #t :c" };
	int pings = 0, lines = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.loop = loop;
	q = irc_queue_create(loop, 5, 100, &ops);
	irc_queue_run(q, 1);
	/* Two messages of one event: one PING after both, once it ends. */
	irc_queue_push_message(q, "#t", NULL, 0, 1, 0, two, 2);
	irc_queue_push_message(q, "#t", NULL, 0, 2, 0, one, 1);
	assert_int_equal(s.n, 3);
	loop_advance(loop, 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.lines[3], "PING :" IRC_PING_PREFIX "1");
	assert_true(irc_queue_ping_since(q) != 0);
	/* Written is not confirmed. */
	assert_int_equal(s.ndone, 0);
	assert_int_equal(irc_queue_depth(q), 3);
	/* A line after the PING waits for the next one. */
	irc_queue_push_message(q, "#t", NULL, 0, 3, 0, one, 1);
	loop_advance(loop, 0);
	assert_int_equal(s.n, 5);
	/* Someone else's token, or an old one, confirms nothing. */
	assert_int_equal(irc_queue_pong(q, "stichbot"), 0);
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "2"), 0);
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "1x"), 0);
	assert_int_equal(s.ndone, 0);
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "1"), 1);
	assert_int_equal(s.ndone, 2);
	assert_true(s.done[0] == 1 && s.done[1] == 2 && !s.dropped[0]);
	/*
	 * The line sent meanwhile gets its own PING after the event, once
	 * the bucket (5 tokens, all taken) has two again: the last one is
	 * kept for the next move.
	 */
	loop_advance(loop, 199);
	assert_int_equal(s.n, 5);
	loop_advance(loop, 1);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.lines[5], "PING :" IRC_PING_PREFIX "2");
	/* The connection drops: the line goes again, and so does a PING. */
	irc_queue_run(q, 0);
	irc_queue_requeue(q);
	assert_int_equal(irc_queue_ping_since(q), 0);
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "2"), 0);
	irc_queue_run(q, 1);
	loop_advance(loop, 1000);
	assert_int_equal(s.n, 8);
	assert_string_equal(s.lines[6], "PRIVMSG #t :c");
	assert_string_equal(s.lines[7], "PING :" IRC_PING_PREFIX "3");
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "3"), 1);
	assert_true(s.ndone == 3 && s.done[2] == 3);
	assert_int_equal(irc_queue_depth(q), 0);
	/*
	 * A backlog of 60 lines, PONGs at once: a PING after every
	 * IRC_PING_BATCH lines, each taking a token, and nothing else.
	 */
	s.n = 0;
	for (int i = 0; i < 60; i++)
		irc_queue_push_message(q, "#t", NULL, 0, (uint64_t)(100 + i), 0,
		    one, 1);
	for (int step = 0; step < 200 && s.n < 256; step++) {
		loop_advance(loop, 100);
		for (int i = 0; i < s.n; i++)
			if (strncmp(s.lines[i], "PING :", 6) == 0)
				irc_queue_pong(q, s.lines[i] + 6);
		if (irc_queue_depth(q) == 0)
			break;
	}
	for (int i = 0; i < s.n; i++) {
		if (strncmp(s.lines[i], "PING :", 6) == 0)
			pings++;
		else
			lines++;
	}
	assert_int_equal(lines, 60);
	assert_int_equal(pings, 60 / IRC_PING_BATCH);
	/* Every line and PING took a token: 5 at once, then one per 100. */
	assert_true(s.at[s.n - 1] - s.at[0] >= (uint64_t)(s.n - 5) * 100);
	assert_int_equal(s.ndone, 63);
	assert_int_equal(irc_queue_depth(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * A clean stop: the lines in flight get a PING at once, outside the
 * bucket and past an outstanding PING, and its PONG confirms them all
 * (before, the stop closed the connection with them unconfirmed, and the
 * next start said them again).
 */
static void
test_queue_ping_last(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue_ops ops = { record_send, record_gate, record_done,
		record_send, &s };
	struct irc_queue *q;
	const char *one[1] = { "PRIVMSG #t :a" };

	(void)state;
	memset(&s, 0, sizeof(s));
	s.loop = loop;
	q = irc_queue_create(loop, 2, 1000, &ops);
	irc_queue_run(q, 1);
	/* Nothing in flight: no PING is needed. */
	assert_int_equal(irc_queue_ping_last(q), 0);
	assert_int_equal(s.n, 0);
	/* Two lines take the bucket; the event's PING waits for a token. */
	for (uint64_t id = 1; id <= 3; id++)
		irc_queue_push_message(q, "#t", NULL, 0, id, 0, one, 1);
	loop_advance(loop, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(irc_queue_ping_since(q), 0);
	assert_int_equal(irc_queue_ping_last(q), 1);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.lines[2], "PING :" IRC_PING_PREFIX "1");
	/* Already followed by a PING: none more. */
	assert_int_equal(irc_queue_ping_last(q), 1);
	assert_int_equal(s.n, 3);
	/* The third line leaves; the stop's PING follows it too. */
	loop_advance(loop, 1000);
	assert_int_equal(s.n, 4);
	assert_int_equal(irc_queue_ping_last(q), 1);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.lines[4], "PING :" IRC_PING_PREFIX "2");
	/* The older PONG is not the one awaited; the newer confirms all. */
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "1"), 0);
	assert_int_equal(s.ndone, 0);
	assert_int_equal(irc_queue_pong(q, IRC_PING_PREFIX "2"), 1);
	assert_int_equal(s.ndone, 3);
	assert_true(s.done[0] == 1 && s.done[1] == 2 && s.done[2] == 3);
	assert_int_equal(irc_queue_depth(q), 0);
	assert_int_equal(irc_queue_ping_last(q), 0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/* Queues a gated private line to a nick. */
static void
push_private(struct irc_queue *q, const char *line)
{
	const char *lines[1] = { line };

	assert_int_equal(irc_queue_push_message(q, "#t", "alice!a@h", 1, 0, 0,
	    lines, 1), 0);
}

/*
 * Private lines of tables still on their way to a nick: a stranger who
 * takes that nick now may have been handed them (logged by the adapter).
 */
static void
test_queue_inflight_to(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	const char *hand[2] = { "PRIVMSG bob :hand", "NOTICE Bob :prompt" };
	const char *chan[1] = { "PRIVMSG bob" };

	(void)state;
	q = recorded_queue(loop, &s, 10, 100);
	irc_queue_run(q, 1);
	assert_int_equal(irc_queue_push_message(q, "#t", "bob!b@h", 1, 5, 0, hand,
	    2), 0);
	/* A reply is not kept once handed on; a channel line is no target. */
	push_private(q, "PRIVMSG bob :reply");
	assert_int_equal(irc_queue_push_message(q, "#t", NULL, 1, 6, 0, chan, 1),
	    0);
	assert_int_equal(s.n, 4);
	assert_int_equal(irc_queue_inflight_to(q, IRC_CASEMAP_RFC1459, "BOB"),
	    2);
	assert_int_equal(irc_queue_inflight_to(q, IRC_CASEMAP_RFC1459, "bobz"),
	    0);
	irc_queue_written(q);
	assert_int_equal(irc_queue_inflight_to(q, IRC_CASEMAP_RFC1459, "bob"),
	    0);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Regression: bob renamed to bobz while the core dealt to bob!~bob@h, and a
 * stranger took "bob" at once; the hand was withheld (the nick's holder was
 * not bob) and never reached bobz.  The trail of renames says where a
 * person went, and never leads to someone else.
 */
static void
test_rename_trail(void **state)
{
	struct irc irc;
	struct irc_chan *c;
	struct irc_user *bobz, *mallory;

	(void)state;
	memset(&irc, 0, sizeof(irc));
	irc.network = "t";
	irc.is.casemap = IRC_CASEMAP_RFC1459;
	c = irc_chan_get(&irc, "#t");
	bobz = irc_user_get(&irc, "bobz");
	irc_set_field(&bobz->user, "~bob");
	irc_set_field(&bobz->host, "h");
	irc_chan_add(c, bobz);
	mallory = irc_user_get(&irc, "bob");
	irc_set_field(&mallory->user, "~mallory");
	irc_set_field(&mallory->host, "h");
	irc_chan_add(c, mallory);
	/* Before any rename: the nick as named. */
	assert_string_equal(irc_rename_follow(&irc, "bob", "~bob", "h"), "bob");
	irc_rename_note(&irc, "bob", "~bob", "h", "bobz");
	assert_string_equal(irc_rename_follow(&irc, "BOB", "~bob", "h"),
	    "bobz");
	/* The stranger's own lines stay hers; another user name too. */
	assert_string_equal(irc_rename_follow(&irc, "bob", "~mallory", "h"),
	    "bob");
	assert_string_equal(irc_rename_follow(&irc, "bob", "~bob", "other"),
	    "bob");
	/* A trail of renames, followed to its end. */
	irc_rename_note(&irc, "bobz", "~bob", "h", "bobby");
	irc_set_field(&bobz->nick, "bobby");
	assert_string_equal(irc_rename_follow(&irc, "bob", "~bob", "h"),
	    "bobby");
	/* The stranger leaves; bob takes his first nick back: no loop. */
	irc_chan_remove(&irc, c, mallory);
	irc_rename_note(&irc, "bobby", "~bob", "h", "bob");
	irc_set_field(&bobz->nick, "bob");
	assert_string_equal(irc_rename_follow(&irc, "bob", "~bob", "h"), "bob");
	assert_string_equal(irc_rename_follow(&irc, "bobz", "~bob", "h"),
	    "bob");
	/* Unknown user or host: nothing remembered. */
	irc_rename_note(&irc, "carol", NULL, "h", "carol2");
	assert_string_equal(irc_rename_follow(&irc, "carol", "~carol", "h"),
	    "carol");
	/* Old trails make room for new ones. */
	for (int i = 0; i < RENAMES_MAX + 5; i++) {
		char old[16], now[16];

		snprintf(old, sizeof(old), "n%d", i);
		snprintf(now, sizeof(now), "m%d", i);
		irc_rename_note(&irc, old, "~x", "h", now);
	}
	assert_int_equal(irc.nrenames, RENAMES_MAX);
	assert_string_equal(irc_rename_follow(&irc, "n4", "~x", "h"), "n4");
	assert_string_equal(irc_rename_follow(&irc, "n5", "~x", "h"), "m5");
	irc_chan_drop(&irc, c);
	assert_int_equal(irc.nusers, 0);
	free(irc.users);
	free(irc.chans);
}

/*
 * Regression: lines waiting for a nick that changed went to the old nick
 * ("No such nick"), and a player's turn prompt was lost.
 */
static void
test_queue_retarget(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;

	(void)state;
	q = recorded_queue(loop, &s, 10, 100);
	push_private(q, "PRIVMSG carol :your hand");
	push_private(q, "NOTICE Carol :psst");
	push_private(q, "PRIVMSG carolyn :not her");
	push_private(q, "PRIVMSG carol");
	push(q, "#t", "PRIVMSG #carol :a channel");
	/* Two-byte characters: the cut keeps each whole. */
	push_private(q, "PRIVMSG carol :\xc3\xa9\xc3\xa9");
	assert_int_equal(irc_queue_retarget(q, IRC_CASEMAP_RFC1459, "CAROL",
	    "carol2", 35), 3);
	push_private(q, "PRIVMSG carol2 :last");
	assert_int_equal(irc_queue_depth(q), 7);
	irc_queue_run(q, 1);
	loop_advance(loop, 2000);
	assert_int_equal(s.n, 7);
	assert_string_equal(s.lines[0], "PRIVMSG carol2 :your hand");
	assert_string_equal(s.lines[1], "NOTICE carol2 :psst");
	assert_string_equal(s.lines[2], "PRIVMSG carolyn :not her");
	assert_string_equal(s.lines[3], "PRIVMSG carol");
	assert_string_equal(s.lines[4], "PRIVMSG #carol :a channel");
	assert_string_equal(s.lines[5], "PRIVMSG carol2 :\xc3\xa9\xc3\xa9");
	assert_string_equal(s.lines[6], "PRIVMSG carol2 :last");
	/* A longer nick: the end of a line that no longer fits is cut. */
	irc_queue_run(q, 0);
	s.n = 0;
	push_private(q, "PRIVMSG carol2 :\xc3\xa9\xc3\xa9");
	push_private(q, "PRIVMSG carol2 :ok");
	assert_int_equal(irc_queue_retarget(q, IRC_CASEMAP_RFC1459, "carol2",
	    "carol_with_a_long_nick", 35), 2);
	irc_queue_run(q, 1);
	loop_advance(loop, 2000);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.lines[0],
	    "PRIVMSG carol_with_a_long_nick :\xc3\xa9");
	assert_string_equal(s.lines[1], "PRIVMSG carol_with_a_long_nick :ok");
	irc_queue_destroy(q);
	loop_destroy(loop);
}

static void
test_queue_busy(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;

	(void)state;
	q = recorded_queue(loop, &s, 2, 1000);
	s.busy = 3;
	irc_queue_run(q, 1);
	push_table(q, "#c", "a");
	push_table(q, "#c", "b");
	/* Busy: the line stays first and its token comes back. */
	assert_int_equal(s.n, 0);
	assert_int_equal(irc_queue_depth(q), 2);
	loop_advance(loop, 200);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.lines[0], "a");
	assert_string_equal(s.lines[1], "b");
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Issue 16.3: the default pace follows the server's software (RPL_MYINFO)
 * and changing it keeps the tokens already spent.
 */
static void
test_queue_pace_for_server(void **state)
{
	struct loop *loop = loop_create(1);
	struct sent s;
	struct irc_queue *q;
	int burst, interval;

	(void)state;
	irc_pace_for_server("ngircd-26.1", &burst, &interval);
	assert_true(burst == 5 && interval == 400);
	irc_pace_for_server("solanum-1.0-dev", &burst, &interval);
	assert_true(burst == 5 && interval == 500);
	irc_pace_for_server("u2.10.12.19", &burst, &interval);
	assert_true(burst == IRC_PACE_BURST &&
	    interval == IRC_PACE_INTERVAL_MS);
	irc_pace_for_server(NULL, &burst, &interval);
	assert_int_equal(interval, IRC_PACE_INTERVAL_MS);
	q = recorded_queue(loop, &s, 4, 2000);
	irc_queue_run(q, 1);
	for (int i = 0; i < 10; i++)
		push_table(q, "#c", "x");
	assert_int_equal(s.n, 4);
	/* No new burst: the next line comes after the new interval. */
	irc_queue_set_pace(q, 5, 400);
	assert_int_equal(s.n, 4);
	loop_advance(loop, 400);
	assert_int_equal(s.n, 5);
	loop_advance(loop, 400 * 5);
	assert_int_equal(s.n, 10);
	irc_queue_destroy(q);
	loop_destroy(loop);
}

/*
 * Issue 16.5: Sticheln's brown (mIRC 05) and red (04) were both red in
 * irssi.  irssi and WeeChat show mIRC colours as the terminal's 16, in
 * this order (black, red, green, yellow, blue, magenta, cyan, white, then
 * the bright ones; irssi's formats.c and WeeChat's irc-color.c agree);
 * the six colours must fall on six different hues, none of them grey.
 */
static void
test_irc_palette_hues(void **state)
{
	static const int terminal[16] = {
		15, 0, 4, 2, 9, 1, 5, 3, 11, 10, 6, 14, 12, 13, 8, 7,
	};
	const char *letters = "rygbnp";
	int seen[8] = { 0 };

	(void)state;
	for (const char *l = letters; *l != '\0'; l++) {
		struct text t, out;
		const char *s, *c;
		char code[2] = { *l, '\0' };
		int n, hue;

		text_init(&t);
		text_init(&out);
		text_card(&t, *l, code);
		text_render(&t, TEXT_FORMAT_IRC, &out);
		s = text_str(&out);
		assert_non_null(c = strchr(s, '\x03'));
		assert_true(c[1] >= '0' && c[1] <= '9' && c[2] >= '0' &&
		    c[2] <= '9');
		n = (c[1] - '0') * 10 + (c[2] - '0');
		assert_true(n < 16);
		hue = terminal[n] % 8;
		/* Not black, white or grey, and not another colour's hue. */
		assert_true(hue != 0 && hue != 7);
		assert_int_equal(seen[hue], 0);
		seen[hue] = 1;
		text_finish(&t);
		text_finish(&out);
	}
}

/* Capabilities and SASL. */

static void
test_caps(void **state)
{
	const char *offered = "account-notify away-notify extended-join "
	    "multi-prefix sasl=PLAIN,EXTERNAL server-time";
	const char *const wanted[] = {
		"multi-prefix", "chghost", "account-notify", NULL,
	};
	const char *pos = "-multi-prefix ~sasl=PLAIN draft/x", *value;
	char name[32], req[128];
	size_t vlen;
	int removed;

	(void)state;
	assert_int_equal(irc_cap_next(&pos, name, sizeof(name), &value, &vlen,
	    &removed), 1);
	assert_string_equal(name, "multi-prefix");
	assert_int_equal(removed, 1);
	assert_int_equal(irc_cap_next(&pos, name, sizeof(name), &value, &vlen,
	    &removed), 1);
	assert_string_equal(name, "sasl");
	assert_int_equal(removed, 0);
	assert_int_equal(vlen, 5);
	assert_memory_equal(value, "PLAIN", 5);
	assert_int_equal(irc_cap_next(&pos, name, sizeof(name), &value, &vlen,
	    &removed), 1);
	assert_string_equal(name, "draft/x");
	assert_null(value);
	assert_int_equal(irc_cap_next(&pos, name, sizeof(name), &value, &vlen,
	    &removed), 0);
	assert_true(irc_cap_find(offered, "sasl", &value, &vlen));
	assert_false(irc_cap_find(offered, "chghost", NULL, NULL));
	assert_false(irc_cap_find(offered, "multi", NULL, NULL));
	assert_int_equal(irc_cap_request(offered, wanted, req, sizeof(req)), 2);
	assert_string_equal(req, "multi-prefix account-notify");
	assert_int_equal(irc_cap_request("foo", wanted, req, sizeof(req)), 0);
	assert_string_equal(req, "");
	assert_true(irc_cap_sasl_plain(offered));
	assert_true(irc_cap_sasl_plain("sasl"));
	assert_true(irc_cap_sasl_plain("sasl=EXTERNAL,plain"));
	assert_false(irc_cap_sasl_plain("sasl=EXTERNAL,SCRAM-SHA-256"));
	assert_false(irc_cap_sasl_plain("multi-prefix"));
}

struct chunks {
	char v[8][401];
	int n;
};

static void
collect_chunk(const char *arg, void *ctx)
{
	struct chunks *c = ctx;

	assert_true(c->n < 8);
	assert_true(strlen(arg) <= 400);
	snprintf(c->v[c->n++], sizeof(c->v[0]), "%s", arg);
}

static void
test_sasl_plain(void **state)
{
	struct chunks c;
	unsigned char raw[1200];
	char password[700];
	long n;

	(void)state;
	/* The IRCv3 specification's example. */
	memset(&c, 0, sizeof(c));
	assert_int_equal(irc_sasl_plain("jilles", "sesame", collect_chunk, &c),
	    1);
	assert_string_equal(c.v[0], "amlsbGVzAGppbGxlcwBzZXNhbWU=");
	/* 300 raw bytes are exactly 400 base64 bytes: a "+" follows. */
	memset(password, 'p', sizeof(password));
	password[300 - 2 * 4 - 2] = '\0';
	memset(&c, 0, sizeof(c));
	assert_int_equal(irc_sasl_plain("user", password, collect_chunk, &c),
	    2);
	assert_int_equal(strlen(c.v[0]), 400);
	assert_string_equal(c.v[1], "+");
	/* One byte more: a second, short chunk and no "+". */
	password[300 - 2 * 4 - 2] = 'p';
	password[300 - 2 * 4 - 1] = '\0';
	memset(&c, 0, sizeof(c));
	assert_int_equal(irc_sasl_plain("user", password, collect_chunk, &c),
	    2);
	assert_int_equal(strlen(c.v[0]), 400);
	assert_int_equal(strlen(c.v[1]), 4);
	/* 600 raw bytes: two full chunks and a "+"; they decode back. */
	memset(password, 'q', sizeof(password));
	password[600 - 2 * 4 - 2] = '\0';
	memset(&c, 0, sizeof(c));
	assert_int_equal(irc_sasl_plain("user", password, collect_chunk, &c),
	    3);
	assert_string_equal(c.v[2], "+");
	{
		char joined[801];

		snprintf(joined, sizeof(joined), "%s%s", c.v[0], c.v[1]);
		n = irc_base64_decode(joined, strlen(joined), raw, sizeof(raw));
		assert_int_equal(n, 600);
		assert_memory_equal(raw, "user\0user\0qqq", 13);
	}
}

static void
test_base64(void **state)
{
	unsigned char out[16];
	char enc[32];

	(void)state;
	irc_base64_encode((const unsigned char *)"", 0, enc);
	assert_string_equal(enc, "");
	irc_base64_encode((const unsigned char *)"f", 1, enc);
	assert_string_equal(enc, "Zg==");
	irc_base64_encode((const unsigned char *)"foob", 4, enc);
	assert_string_equal(enc, "Zm9vYg==");
	irc_base64_encode((const unsigned char *)"foobar", 6, enc);
	assert_string_equal(enc, "Zm9vYmFy");
	assert_int_equal(irc_base64_decode("Zm9v\nYmFy", 9, out, sizeof(out)),
	    6);
	assert_memory_equal(out, "foobar", 6);
	assert_int_equal(irc_base64_decode("Zg==", 4, out, sizeof(out)), 1);
	assert_int_equal(irc_base64_decode("Zg=a", 4, out, sizeof(out)), -1);
	assert_int_equal(irc_base64_decode("Z!==", 4, out, sizeof(out)), -1);
	assert_int_equal(irc_base64_decode("Zm9vYmFy", 8, out, 3), -1);
}

/* SHA-256 and fingerprints. */

static void
hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void
test_sha256(void **state)
{
	unsigned char d[32];
	char h[65];
	static char million[1000000];

	(void)state;
	irc_sha256("", 0, d);
	hex(d, 32, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	irc_sha256("abc", 3, d);
	hex(d, 32, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	irc_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, d);
	hex(d, 32, h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	irc_sha256(million, sizeof(million), d);
	hex(d, 32, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
}

/* A throwaway certificate and `openssl x509 -fingerprint -sha256`. */
static const char test_pem[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBfjCCASOgAwIBAgIUZxqrNowqI5iM8qmUqR06CkKUX4cwCgYIKoZIzj0EAwIw\n"
    "EzERMA8GA1UEAwwIaXJjLnRlc3QwIBcNMjYxMTIxMjEyMjM1WhgPMjEyNjEwMjgy\n"
    "MTIyMzVaMBMxETAPBgNVBAMMCGlyYy50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0D\n"
    "AQcDQgAEpkIEKi6Ykx0dA3M7GDezyJ98lBSLETY8MRz+ylATy9wLwWSUq29lt1tB\n"
    "BWm3SR+bgfUSVoGFTyo3Hz9YZvFN06NTMFEwHQYDVR0OBBYEFLJIPsSHZvX45b5a\n"
    "HxlgBSLTMt6UMB8GA1UdIwQYMBaAFLJIPsSHZvX45b5aHxlgBSLTMt6UMA8GA1Ud\n"
    "EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAO3GRVfXzAefdrEtoVJCGB5O\n"
    "Q9UBOFBIF8h5FDO01zxVAiEAqubspae3uwa50ZpTY+EVpn1O1Y7Bgx9WjIYKcxBM\n"
    "R3Y=\n"
    "-----END CERTIFICATE-----\n";
static const char test_fp[] = "F7:15:40:8E:31:3A:F8:25:94:CD:E9:E3:36:CF:"
    "5C:04:F3:AE:CB:6E:26:FB:19:A6:82:67:97:0A:DA:69:30:DF";

static void
test_fingerprints(void **state)
{
	unsigned char a[32], b[32];
	char text[96];

	(void)state;
	assert_int_equal(irc_pem_fingerprint(test_pem, a), 0);
	irc_fingerprint_format(a, text);
	assert_string_equal(text, test_fp);
	assert_int_equal(irc_fingerprint_parse(test_fp, b), 0);
	assert_memory_equal(a, b, 32);
	/* Without colons, lower case. */
	assert_int_equal(irc_fingerprint_parse(
	    "f715408e313af82594cde9e336cf5c04f3aecb6e26fb19a68267970ada6930df",
	    b), 0);
	assert_memory_equal(a, b, 32);
	assert_int_equal(irc_fingerprint_parse("F7:15", b), -1);
	assert_int_equal(irc_fingerprint_parse(
	    "g715408e313af82594cde9e336cf5c04f3aecb6e26fb19a68267970ada6930df",
	    b), -1);
	assert_int_equal(irc_fingerprint_parse(
	    "f715408e313af82594cde9e336cf5c04f3aecb6e26fb19a68267970ada6930df"
	    "00", b), -1);
	assert_int_equal(irc_pem_fingerprint("no certificate", a), -1);
}

/* Configuration errors, word for word. */

static char secret_file[64], long_file[64];

static int
try_init(const char *json, char *err, size_t errlen)
{
	struct adapter adapter;
	json_error_t jerr;
	json_t *config = json_loads(json, 0, &jerr);
	int rc;

	assert_non_null(config);
	memset(&adapter, 0, sizeof(adapter));
	adapter.impl = &irc_adapter;
	adapter.network = "libera";
	err[0] = '\0';
	rc = irc_adapter.init(&adapter, config, "networks[1]", err, errlen);
	/* init() connects to nothing and needs no bot (check-config). */
	if (rc == 0) {
		assert_non_null(adapter.priv);
		assert_int_equal(irc_adapter.queue_depth(&adapter), 0);
	} else {
		assert_null(adapter.priv);
	}
	irc_adapter.finish(&adapter);
	assert_null(adapter.priv);
	json_decref(config);
	return rc;
}

static void
expect_error(const char *json, const char *message)
{
	char err[512];

	assert_int_equal(try_init(json, err, sizeof(err)), -1);
	assert_string_equal(err, message);
}

static void
test_config_ok(void **state)
{
	char err[512], json[1024];

	(void)state;
	assert_int_equal(try_init("{\"name\": \"libera\", \"type\": \"irc\", "
	    "\"host\": \"irc.libera.chat\", \"nick\": \"stichbot\", "
	    "\"admins\": [\"account:me\"], \"channels\": [{\"name\": "
	    "\"#wizard\"}], \"defaults\": {}}", err, sizeof(err)), 0);
	snprintf(json, sizeof(json), "{\"host\": \"::1\", \"port\": 6697, "
	    "\"tls\": true, \"tls_verify\": true, \"tls_fingerprint\": "
	    "\"%s\", \"nick\": \"bot\", \"alt_nicks\": [\"bot_\", "
	    "\"b[o]t\"], \"username\": \"cards\", \"realname\": "
	    "\"Card games\", \"server_password_file\": \"%s\", \"sasl\": "
	    "{\"username\": \"acct\", \"password_file\": \"%s\"}, "
	    "\"nickserv_password_file\": \"%s\", \"private_messages\": "
	    "\"notice\", \"flood\": {\"burst\": 20, \"interval_ms\": 100}, "
	    "\"join_on_invite\": true, \"ping_timeout\": 600, "
	    "\"reconnect\": {\"min\": 5, \"max\": 5}}", test_fp, secret_file,
	    secret_file, secret_file);
	assert_int_equal(try_init(json, err, sizeof(err)), 0);
}

static void
test_config_errors(void **state)
{
	char json[512];

	(void)state;
	expect_error("[]", "networks[1]: expected an object");
	expect_error("{\"nick\": \"bot\"}", "networks[1].host: missing");
	expect_error("{\"host\": \"irc.x\"}", "networks[1].nick: missing");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"prot\": 1}",
	    "networks[1].prot: unknown key");
	expect_error("{\"host\": \"irc x\", \"nick\": \"bot\"}",
	    "networks[1].host: expected a host name or address");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"port\": 0}",
	    "networks[1].port: expected an integer 1-65535");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"tls\": 1}",
	    "networks[1].tls: expected true or false");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"tls_fingerprint\": \"AB:CD\"}",
	    "networks[1].tls_fingerprint: expected a SHA-256 fingerprint: 64 "
	    "hexadecimal digits, colons allowed");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"tls\": false, "
	    "\"tls_verify\": false}",
	    "networks[1].tls_verify: needs \"tls\": true");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"tls_ca_file\": \"/nonexistent/ca.pem\"}",
	    "networks[1].tls_ca_file: cannot read /nonexistent/ca.pem: No "
	    "such file or directory");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"9bot\"}",
	    "networks[1].nick: expected an IRC nickname (letters, digits, "
	    "-[]\\`_^{|}, not starting with a digit or -)");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"alt_nicks\": "
	    "[\"bot_\", \"b t\"]}",
	    "networks[1].alt_nicks[1]: expected an IRC nickname");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"alt_nicks\": "
	    "\"bot_\"}",
	    "networks[1].alt_nicks: expected an array of strings");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"username\": "
	    "\"a b\"}",
	    "networks[1].username: expected one word without '@' or ':' (at "
	    "most 32 bytes)");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"private_messages\": \"query\"}",
	    "networks[1].private_messages: expected one of \"privmsg\", "
	    "\"notice\"");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"flood\": "
	    "{\"burst\": 0}}", "networks[1].flood.burst: expected an integer "
	    "1-20");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"flood\": "
	    "{\"interval_ms\": 50}}", "networks[1].flood.interval_ms: expected "
	    "an integer 100-10000");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"flood\": "
	    "{\"rate\": 1}}", "networks[1].flood.rate: unknown key");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"flood\": 4}",
	    "networks[1].flood: expected an object");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"ping_timeout\": 10}", "networks[1].ping_timeout: expected an "
	    "integer 30-600");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"reconnect\": "
	    "{\"min\": 10, \"max\": 5}}", "networks[1].reconnect.max: expected "
	    "an integer 10-86400");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"join_on_invite\": \"yes\"}", "networks[1].join_on_invite: "
	    "expected true or false");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"sasl\": "
	    "{\"username\": \"acct\"}}",
	    "networks[1].sasl.password_file: missing");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", \"sasl\": "
	    "{\"password_file\": \"/x\"}}", "networks[1].sasl.username: "
	    "missing");
	expect_error("{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"nickserv_password_file\": \"/nonexistent/pw\"}",
	    "networks[1].nickserv_password_file: cannot read /nonexistent/pw: "
	    "No such file or directory");
	snprintf(json, sizeof(json), "{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"sasl\": {\"username\": \"acct\", \"password_file\": "
	    "\"%s\"}}", long_file);
	expect_error(json, "networks[1].sasl.password_file: the account name "
	    "twice and the password are longer than 600 bytes");
	snprintf(json, sizeof(json), "{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"nickserv_password_file\": \"%s\"}", long_file);
	expect_error(json, "networks[1].nickserv_password_file: the password "
	    "is longer than 400 bytes");
	/* A secret's content never appears in an error. */
	snprintf(json, sizeof(json), "{\"host\": \"irc.x\", \"nick\": \"bot\", "
	    "\"server_password_file\": \"%s\", \"port\": 99999}", secret_file);
	expect_error(json, "networks[1].port: expected an integer 1-65535");
}

static int
setup(void **state)
{
	FILE *f;

	(void)state;
	snprintf(secret_file, sizeof(secret_file), "/tmp/irc-test-%d.pw",
	    (int)getpid());
	if ((f = fopen(secret_file, "w")) == NULL)
		return -1;
	fputs("hunter2\n", f);
	fclose(f);
	snprintf(long_file, sizeof(long_file), "/tmp/irc-test-%d.long",
	    (int)getpid());
	if ((f = fopen(long_file, "w")) == NULL)
		return -1;
	for (int i = 0; i < 600; i++)
		fputc('p', f);
	fclose(f);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(secret_file);
	unlink(long_file);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_tag_value),
		cmocka_unit_test(test_relay_line),
		cmocka_unit_test(test_relay_not_a_command),
		cmocka_unit_test(test_casecmp),
		cmocka_unit_test(test_isupport),
		cmocka_unit_test(test_masks_and_names),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_strip_codes),
		cmocka_unit_test(test_split_lines),
		cmocka_unit_test(test_split_words_and_limit),
		cmocka_unit_test(test_split_utf8),
		cmocka_unit_test(test_split_formatting),
		cmocka_unit_test(test_split_random),
		cmocka_unit_test(test_split_relayed_line),
		cmocka_unit_test(test_queue_pace),
		cmocka_unit_test(test_queue_priority),
		cmocka_unit_test(test_queue_channel_replies),
		cmocka_unit_test(test_queue_round_robin),
		cmocka_unit_test(test_queue_tables_first),
		cmocka_unit_test(test_irc_palette_hues),
		cmocka_unit_test(test_queue_pace_for_server),
		cmocka_unit_test(test_queue_withhold),
		cmocka_unit_test(test_queue_expire),
		cmocka_unit_test(test_queue_gate),
		cmocka_unit_test(test_queue_requeue_and_limits),
		cmocka_unit_test(test_queue_retarget),
		cmocka_unit_test(test_rename_trail),
		cmocka_unit_test(test_queue_inflight_to),
		cmocka_unit_test(test_queue_background),
		cmocka_unit_test(test_queue_ping),
		cmocka_unit_test(test_queue_ping_last),
		cmocka_unit_test(test_queue_busy),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_sasl_plain),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_fingerprints),
		cmocka_unit_test(test_config_ok),
		cmocka_unit_test(test_config_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

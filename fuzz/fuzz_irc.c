/*
 * fuzz_irc.c - libFuzzer target: the pure parts of the IRC adapter
 * (adapters/irc/proto.h) on arbitrary bytes.
 *
 * The first byte picks the line length given to irc_split() and a few
 * buffer sizes; the rest is read as what a server sends (lines split at
 * '\n', as the adapter's relay does) and, whole, as text the bot sends.
 * Checked, besides memory safety:
 *   - irc_parse(): a command without spaces, at most 15 parameters, only
 *     the last one empty, holding spaces or starting with ':', every
 *     pointer inside the line;
 *   - irc_tag_value(): a value found is non-empty, fits its buffer and
 *     holds no CR or LF;
 *   - irc_relay_line(): the line ends in CR LF and holds no other CR, LF
 *     or NUL, never overflows its buffer, reads back as the message it was
 *     given (when it needed no cut) and is its own relay (a fixed point);
 *   - ISUPPORT, NAMES entries, masks and identities: fields stay
 *     terminated inside their buffers, and the parts of a mask put back
 *     together give the mask;
 *   - irc_strip_codes() leaves no formatting code; irc_casecmp() is a
 *     consistent order; capability lists are iterated to their end with
 *     names that fit, and what irc_cap_next() lists irc_cap_find() finds;
 *   - base64 round-trips, SASL PLAIN chunks are at most 400 bytes and
 *     decode to the credentials;
 *   - irc_split(): every line fits max (512 bytes with what the server
 *     adds around it) and holds no CR, LF, NUL or \x01 and some visible
 *     text; read as an IRC client reads them (codes applied, not shown),
 *     the lines show the input's text, each character in the same
 *     formatting, with only spaces dropped where a line was broken; lines
 *     are valid UTF-8 when the input is;
 *   - the token bucket never gives more than its burst plus one line per
 *     interval, and bucket_wait() tells when the next token is there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "bucket.h"
#include "irc/proto.h"

/* Lines longer than this are not parsed one by one (the relay skips them). */
#define MAX_LINE 4096

/* ------------------------------------------------------------------ */
/* Helpers. */

/* A NUL-terminated copy of n bytes in a buffer of exactly n + 1 bytes. */
static char *
dup_bytes(const char *s, size_t n)
{
	char *copy = malloc(n + 1);

	CHECK(copy != NULL);
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

/* Whether s[0..n) is valid UTF-8 (RFC 3629: no overlongs, surrogates). */
static int
utf8_valid(const unsigned char *s, size_t n)
{
	unsigned cp;

	for (size_t i = 0, len; i < n; i += len)
		if ((len = fuzz_utf8_char(s + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ------------------------------------------------------------------ */
/* Server lines. */

/* The checks every parsed message passes; line..end is the buffer. */
static void
check_msg(const struct irc_msg *m, const char *line, const char *end)
{
	CHECK(m->nparams >= 0 && m->nparams <= IRC_PARAMS_MAX);
	CHECK(m->command >= line && m->command < end);
	CHECK(m->command[0] != '\0');
	CHECK(strchr(m->command, ' ') == NULL);
	if (m->prefix != NULL) {
		CHECK(m->prefix >= line && m->prefix < end);
		CHECK(strchr(m->prefix, ' ') == NULL);
	}
	for (int k = 0; k < m->nparams; k++) {
		CHECK(m->params[k] >= line && m->params[k] <= end);
		if (k == m->nparams - 1)
			continue;
		/* Middle parameters: one non-empty word, not a trailing one. */
		CHECK(m->params[k][0] != '\0' && m->params[k][0] != ':');
		CHECK(strchr(m->params[k], ' ') == NULL);
	}
	for (int k = m->nparams; k < IRC_PARAMS_MAX; k++)
		CHECK(m->params[k] == NULL);
}

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL || *a == '\0') && (b == NULL || *b == '\0');
	return strcmp(a, b) == 0;
}

static int
same_msg(const struct irc_msg *a, const struct irc_msg *b)
{
	if (!same_str(a->prefix, b->prefix) ||
	    strcmp(a->command, b->command) != 0 || a->nparams != b->nparams)
		return 0;
	for (int k = 0; k < a->nparams; k++)
		if (strcmp(a->params[k], b->params[k]) != 0)
			return 0;
	return 1;
}

/*
 * The line as the relay reads it before parsing: tags, CR and NUL gone.
 * Returns its length (the buffer holds n + 1 bytes).
 */
static size_t
clean_line(const char *line, size_t len, char *out)
{
	size_t i = 0, n = 0;

	if (len > 0 && line[0] == '@')
		while (i < len && line[i] != ' ')
			i++;
	for (; i < len; i++)
		if (line[i] != '\r' && line[i] != '\0')
			out[n++] = line[i];
	out[n] = '\0';
	return n;
}

static void
check_relay(const char *line, size_t len, size_t small)
{
	char out[IRC_LINE_MAX * 2], again[IRC_LINE_MAX * 2];
	char *cleaned, *copy, *tiny;
	struct irc_msg in, got;
	size_t n, n2, clen;

	/* A tag value is a clean string inside its buffer (account-tag). */
	tiny = malloc(small);
	CHECK(tiny != NULL);
	if (irc_tag_value(line, len, "account", tiny, small) == 1) {
		n = strlen(tiny);
		CHECK(n > 0 && n < small);
		CHECK(strpbrk(tiny, "\r\n") == NULL);
	}
	free(tiny);
	n = irc_relay_line(line, len, out, sizeof(out));
	/* A short buffer is never overrun (ASan watches the exact size). */
	tiny = malloc(small);
	CHECK(tiny != NULL);
	n2 = irc_relay_line(line, len, tiny, small);
	CHECK(n2 < small || n2 == 0);
	if (n2 > 0)
		CHECK(n2 == n && memcmp(tiny, out, n + 1) == 0);
	free(tiny);
	if (n == 0)
		return;
	CHECK(n < sizeof(out) && out[n] == '\0' && strlen(out) == n);
	CHECK(n >= 3 && out[n - 2] == '\r' && out[n - 1] == '\n');
	/* The cut keeps 510 bytes; canonical form adds at most a ':'. */
	CHECK(n - 2 <= IRC_LINE_MAX - 1);
	CHECK(memchr(out, '\r', n - 2) == NULL);
	CHECK(memchr(out, '\n', n - 2) == NULL);
	/* Tags are gone: a line never starts with one. */
	CHECK(out[0] != '@');

	copy = dup_bytes(out, n - 2);
	CHECK(irc_parse(copy, &got) == 0);
	check_msg(&got, copy, copy + n - 2);
	cleaned = malloc(len + 1);
	CHECK(cleaned != NULL);
	clen = clean_line(line, len, cleaned);
	if (clen <= IRC_LINE_MAX - 2) {
		/* Nothing was cut: the relayed line means the same. */
		CHECK(irc_parse(cleaned, &in) == 0);
		CHECK(same_msg(&in, &got));
	}
	free(cleaned);
	/* Canonical form is a fixed point (when it needs no cut). */
	if (n - 2 <= IRC_LINE_MAX - 2) {
		size_t m = irc_relay_line(out, n - 2, again, sizeof(again));

		CHECK(m == n && memcmp(again, out, n) == 0);
	}
	free(copy);
}

static void
check_isupport(const struct irc_isupport *is)
{
	CHECK(memchr(is->chantypes, '\0', sizeof(is->chantypes)) != NULL);
	CHECK(memchr(is->prefixes, '\0', sizeof(is->prefixes)) != NULL);
	CHECK(memchr(is->network, '\0', sizeof(is->network)) != NULL);
	CHECK(is->casemap == IRC_CASEMAP_RFC1459 ||
	    is->casemap == IRC_CASEMAP_STRICT ||
	    is->casemap == IRC_CASEMAP_ASCII);
	CHECK(is->whox == 0 || is->whox == 1);
}

/* A split mask put back together is the mask. */
static void
check_mask(const char *mask, size_t buflen)
{
	char *nick = malloc(buflen), *user = malloc(buflen);
	char *host = malloc(buflen);

	CHECK(nick != NULL && user != NULL && host != NULL);
	if (irc_mask_split(mask, nick, buflen, user, buflen, host,
	    buflen) == 0) {
		const char *rest = mask + strlen(nick);

		CHECK(nick[0] != '\0' && strchr(nick, '!') == NULL);
		CHECK(strncmp(mask, nick, strlen(nick)) == 0);
		CHECK(strchr(user, '@') == NULL);
		if (*rest == '!') {
			rest++;
			CHECK(strncmp(rest, user, strlen(user)) == 0);
			rest += strlen(user);
		} else {
			CHECK(user[0] == '\0');
		}
		if (*rest == '@') {
			rest++;
			CHECK(strcmp(rest, host) == 0);
			rest += strlen(host);
		} else {
			CHECK(host[0] == '\0');
		}
		CHECK(*rest == '\0');
	}
	free(nick);
	free(user);
	free(host);
}

static void
check_names(const struct irc_isupport *is, const char *list)
{
	char *copy = dup_bytes(list, strlen(list)), *save = NULL;

	for (char *entry = strtok_r(copy, " ", &save); entry != NULL;
	    entry = strtok_r(NULL, " ", &save)) {
		char nick[64], user[32], host[128];
		const char *rest = entry;

		while (*rest != '\0' && strchr(is->prefixes, *rest) != NULL)
			rest++;
		if (irc_names_entry(is, entry, nick, sizeof(nick), user,
		    sizeof(user), host, sizeof(host)) == 0) {
			CHECK(nick[0] != '\0');
			CHECK(strchr(is->prefixes, nick[0]) == NULL ||
			    nick[0] == '\0');
			CHECK(strncmp(rest, nick, strlen(nick)) == 0);
		}
	}
	free(copy);
}

static void
check_identity(enum irc_casemap map, const char *nick, const char *user,
    const char *host, const char *account)
{
	char out[64];
	int rc = irc_identity(out, sizeof(out), map, nick, user, host,
	    account);

	CHECK(memchr(out, '\0', sizeof(out)) != NULL);
	if (rc != 0) {
		CHECK(out[0] == '\0');
		return;
	}
	if (irc_account_known(account)) {
		CHECK(strncmp(out, "account:", 8) == 0);
		CHECK(strcmp(out + 8, account) == 0);
	} else {
		char whole[64];

		/* The nick in one case, as the server folds it. */
		snprintf(whole, sizeof(whole), "%s!%s@%s", nick, user, host);
		irc_identity_fold(whole, map);
		CHECK(strcmp(out, whole) == 0);
		CHECK(nick[0] != '\0' && user[0] != '\0' && host[0] != '\0');
	}
}

static void
check_strip(const char *s)
{
	char *copy = dup_bytes(s, strlen(s));
	size_t before = strlen(copy);

	irc_strip_codes(copy);
	CHECK(strlen(copy) <= before);
	for (const char *p = copy; *p != '\0'; p++)
		CHECK(strchr("\x02\x03\x04\x0f\x11\x16\x1d\x1e\x1f", *p) ==
		    NULL);
	free(copy);
}

static int
sign(int v)
{
	return (v > 0) - (v < 0);
}

static void
check_casecmp(const char *a, const char *b)
{
	static const enum irc_casemap maps[] = {
		IRC_CASEMAP_RFC1459, IRC_CASEMAP_STRICT, IRC_CASEMAP_ASCII,
	};

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		CHECK(irc_casecmp(maps[i], a, a) == 0);
		CHECK(sign(irc_casecmp(maps[i], a, b)) ==
		    -sign(irc_casecmp(maps[i], b, a)));
	}
	/* Equal in ASCII means equal in the wider mappings. */
	if (irc_casecmp(IRC_CASEMAP_ASCII, a, b) == 0) {
		CHECK(irc_casecmp(IRC_CASEMAP_STRICT, a, b) == 0);
		CHECK(irc_casecmp(IRC_CASEMAP_RFC1459, a, b) == 0);
	}
	if (irc_casecmp(IRC_CASEMAP_STRICT, a, b) == 0)
		CHECK(irc_casecmp(IRC_CASEMAP_RFC1459, a, b) == 0);
}

static const char *const wanted[] = {
	"sasl", "multi-prefix", "extended-join", "account-notify",
	"userhost-in-names", "away-notify", "chghost", "cap-notify", NULL,
};

static void
check_caps(const char *list, size_t namelen)
{
	const char *pos = list, *value;
	char *name = malloc(namelen), full[128], *req;
	size_t vlen, len = strlen(list), reqlen = 1 + namelen % 64;
	int removed, steps = 0, n, words;

	CHECK(name != NULL);
	while (irc_cap_next(&pos, name, namelen, &value, &vlen, &removed)) {
		CHECK(++steps <= (int)len + 1);
		CHECK(pos > list && pos <= list + len);
		CHECK(strlen(name) < namelen);
		CHECK(removed == 0 || removed == 1);
		if (value != NULL) {
			CHECK(value >= list && value + vlen <= list + len);
			CHECK(memchr(value, ' ', vlen) == NULL);
		}
	}
	CHECK(*pos == '\0');
	free(name);
	/* What the iteration lists (in full, not removed) is found. */
	pos = list;
	while (irc_cap_next(&pos, full, sizeof(full), &value, &vlen,
	    &removed)) {
		if (!removed && strlen(full) + 1 < sizeof(full))
			CHECK(irc_cap_find(list, full, NULL, NULL) == 1);
	}
	(void)irc_cap_sasl_plain(list);
	/* A request names wanted capabilities the list offers, and fits. */
	req = malloc(reqlen);
	CHECK(req != NULL);
	n = irc_cap_request(list, wanted, req, reqlen);
	CHECK(strlen(req) < reqlen);
	words = 0;
	{
		char *copy = dup_bytes(req, strlen(req)), *save = NULL;

		for (char *w = strtok_r(copy, " ", &save); w != NULL;
		    w = strtok_r(NULL, " ", &save)) {
			int known = 0;

			for (int i = 0; wanted[i] != NULL; i++)
				known |= strcmp(wanted[i], w) == 0;
			CHECK(known);
			CHECK(irc_cap_find(list, w, NULL, NULL) == 1);
			words++;
		}
		free(copy);
	}
	CHECK(n == words);
	free(req);
}

static void
check_base64(const char *s, size_t n)
{
	char *enc = malloc(4 * ((n + 2) / 3) + 1);
	unsigned char *dec = malloc(n + 1), *half = malloc(n / 2 + 1);
	long got;

	CHECK(enc != NULL && dec != NULL && half != NULL);
	irc_base64_encode((const unsigned char *)s, n, enc);
	CHECK(strlen(enc) == 4 * ((n + 2) / 3));
	got = irc_base64_decode(enc, strlen(enc), dec, n);
	CHECK(got == (long)n && memcmp(dec, s, n) == 0);
	/* Arbitrary input never overruns a short buffer. */
	got = irc_base64_decode(s, n, half, n / 2);
	CHECK(got >= -1 && got <= (long)(n / 2));
	free(enc);
	free(dec);
	free(half);
}

struct sasl_ctx {
	char *all;
	size_t len;
	int count;
	int last400;         /* the previous chunk was 400 bytes long */
	int plus;            /* the final "+" was seen */
};

static void
sasl_chunk(const char *arg, void *arg_ctx)
{
	struct sasl_ctx *c = arg_ctx;
	size_t n = strlen(arg);

	CHECK(!c->plus);
	CHECK(n <= 400 && n > 0);
	if (strcmp(arg, "+") == 0 && c->last400) {
		c->plus = 1;
		c->count++;
		return;
	}
	/* Only the last chunk may be shorter than 400 bytes. */
	CHECK(c->count == 0 || c->last400);
	memcpy(c->all + c->len, arg, n);
	c->len += n;
	c->all[c->len] = '\0';
	c->last400 = n == 400;
	c->count++;
}

static void
check_sasl(const char *user, const char *password)
{
	size_t ulen = strlen(user), plen = strlen(password);
	size_t raw = 2 * ulen + 2 + plen;
	struct sasl_ctx c;
	unsigned char *dec;
	int n;

	memset(&c, 0, sizeof(c));
	c.all = malloc(4 * ((raw + 2) / 3) + 1);
	dec = malloc(raw + 1);
	CHECK(c.all != NULL && dec != NULL);
	n = irc_sasl_plain(user, password, sasl_chunk, &c);
	CHECK(n == c.count);
	CHECK(c.plus == c.last400);
	CHECK(irc_base64_decode(c.all, c.len, dec, raw) == (long)raw);
	CHECK(memcmp(dec, user, ulen) == 0 && dec[ulen] == '\0');
	CHECK(memcmp(dec + ulen + 1, user, ulen) == 0);
	CHECK(dec[2 * ulen + 1] == '\0');
	CHECK(memcmp(dec + 2 * ulen + 2, password, plen) == 0);
	free(c.all);
	free(dec);
}

/* Everything a server line goes through. */
static void
check_server_line(const char *line, size_t len, unsigned sel,
    struct irc_isupport *is)
{
	char *copy = dup_bytes(line, len);
	size_t slen = strlen(copy);
	struct irc_msg m;

	check_relay(line, len, 1 + sel % 600);
	check_strip(copy);
	check_base64(line, len);
	if (irc_parse(copy, &m) != 0) {
		free(copy);
		return;
	}
	check_msg(&m, copy, copy + slen);
	irc_isupport_apply(is, &m);
	check_isupport(is);
	if (m.prefix != NULL) {
		char nick[32], user[16], host[64];

		check_mask(m.prefix, 1 + sel % 40);
		check_mask(m.prefix, MAX_LINE + 1);
		if (irc_mask_split(m.prefix, nick, sizeof(nick), user,
		    sizeof(user), host, sizeof(host)) == 0)
			check_identity(is->casemap, nick, user, host,
			    m.nparams > 0 ?
			    m.params[0] : NULL);
		check_identity(is->casemap, m.prefix, m.command,
		    m.nparams > 0 ?
		    m.params[0] : "", m.nparams > 1 ? m.params[1] : NULL);
	}
	for (int k = 0; k < m.nparams; k++) {
		(void)irc_is_channel(is, m.params[k]);
		check_names(is, m.params[k]);
		check_caps(m.params[k], 1 + sel % 70);
		if (k > 0)
			check_casecmp(m.params[k - 1], m.params[k]);
	}
	check_casecmp(m.command, m.prefix != NULL ? m.prefix : "");
	check_sasl(m.command, m.nparams > 0 ? m.params[m.nparams - 1] : "");
	free(copy);
}

/* ------------------------------------------------------------------ */
/* Outgoing text: irc_split(). */

/* Formatting as an IRC client applies it. */
struct fmt {
	int bold, italic, underline, reverse, fg, bg;
};

/* One character (byte) shown, with its formatting. */
struct shown {
	unsigned char c;
	struct fmt f;
};

struct reading {
	struct shown *v;
	size_t n, cap;
};

static void
shown_add(struct reading *r, unsigned char c, const struct fmt *f)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		CHECK(r->v != NULL);
	}
	r->v[r->n].c = c;
	r->v[r->n].f = *f;
	r->n++;
}

/*
 * Reads s as a client does: codes change the formatting and are not
 * shown; CR, NUL and \x01 (which irc_split drops) end a colour code's
 * digits and are not shown either.
 */
static void
read_irc(const char *s, size_t n, struct reading *r)
{
	struct fmt f = { 0, 0, 0, 0, -1, -1 };

	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '\r': case '\0': case '\x01':
			break;
		case '\x02':
			f.bold = !f.bold;
			break;
		case '\x1d':
			f.italic = !f.italic;
			break;
		case '\x1f':
			f.underline = !f.underline;
			break;
		case '\x16':
			f.reverse = !f.reverse;
			break;
		case '\x0f':
			f = (struct fmt){ 0, 0, 0, 0, -1, -1 };
			break;
		case '\x03': {
			size_t d = 0;
			int v = 0;

			while (d < 2 && i + 1 < n && is_digit(s[i + 1]))
				v = v * 10 + (s[++i] - '0'), d++;
			if (d == 0) {
				f.fg = f.bg = -1;
				break;
			}
			f.fg = v;
			if (i + 2 < n && s[i + 1] == ',' && is_digit(s[i + 2])) {
				i++;
				v = 0;
				d = 0;
				while (d < 2 && i + 1 < n && is_digit(s[i + 1]))
					v = v * 10 + (s[++i] - '0'), d++;
				f.bg = v;
			}
			break;
		}
		default:
			shown_add(r, (unsigned char)s[i], &f);
			break;
		}
	}
}

static int
fmt_equal(const struct fmt *a, const struct fmt *b)
{
	return a->bold == b->bold && a->italic == b->italic &&
	    a->underline == b->underline && a->reverse == b->reverse &&
	    a->fg == b->fg && a->bg == b->bg;
}

struct split_out {
	char **lines;
	size_t *lens;
	int n, cap;
	size_t max;
};

static void
split_cb(const char *line, size_t len, void *arg)
{
	struct split_out *o = arg;

	CHECK(len == strlen(line));
	CHECK(len <= o->max);
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 16;
		o->lines = realloc(o->lines, (size_t)o->cap * sizeof(char *));
		o->lens = realloc(o->lens, (size_t)o->cap * sizeof(size_t));
		CHECK(o->lines != NULL && o->lens != NULL);
	}
	o->lines[o->n] = dup_bytes(line, len);
	o->lens[o->n] = len;
	o->n++;
}

static int
has_visible(const struct reading *r, size_t from)
{
	for (size_t i = from; i < r->n; i++)
		if (r->v[i].c != ' ')
			return 1;
	return 0;
}

static void
check_split(const char *text, size_t len, size_t max)
{
	struct split_out o;
	size_t start = 0;
	int rc, next = 0, valid = utf8_valid((const unsigned char *)text, len);
	/* Below this the carried codes may not fit before a long token. */
	int exact_fmt = max >= 18;

	memset(&o, 0, sizeof(o));
	o.max = max;
	rc = irc_split(text, len, max, split_cb, &o);
	if (rc < 0) {
		/* Only a line too short for one token and its codes fails. */
		CHECK(max < 16);
		goto out;
	}
	CHECK(rc == o.n);
	for (int k = 0; k < o.n; k++) {
		struct reading r = { NULL, 0, 0 };

		for (size_t i = 0; i < o.lens[k]; i++)
			CHECK(o.lines[k][i] != '\r' && o.lines[k][i] != '\n' &&
			    o.lines[k][i] != '\0' && o.lines[k][i] != '\x01');
		if (valid)
			CHECK(utf8_valid((const unsigned char *)o.lines[k],
			    o.lens[k]));
		read_irc(o.lines[k], o.lens[k], &r);
		CHECK(has_visible(&r, 0));
		free(r.v);
	}
	/* Each source line's text, in order, with spaces dropped at breaks. */
	for (size_t i = 0; i <= len; i++) {
		struct reading want = { NULL, 0, 0 };
		size_t pos = 0;

		if (i < len && text[i] != '\n')
			continue;
		read_irc(text + start, i - start, &want);
		start = i + 1;
		while (has_visible(&want, pos)) {
			struct reading got = { NULL, 0, 0 };
			size_t lead = 0, spaces = 0;

			CHECK(next < o.n);
			read_irc(o.lines[next], o.lens[next], &got);
			next++;
			while (lead < got.n && got.v[lead].c == ' ')
				lead++;
			while (pos + spaces < want.n &&
			    want.v[pos + spaces].c == ' ')
				spaces++;
			CHECK(lead <= spaces);
			pos += spaces - lead;
			for (size_t g = 0; g < got.n; g++, pos++) {
				CHECK(pos < want.n);
				CHECK(got.v[g].c == want.v[pos].c);
				if (exact_fmt && got.v[g].c != ' ')
					CHECK(fmt_equal(&got.v[g].f,
					    &want.v[pos].f));
			}
			free(got.v);
		}
		free(want.v);
	}
	CHECK(next == o.n);
out:
	for (int k = 0; k < o.n; k++)
		free(o.lines[k]);
	free(o.lines);
	free(o.lens);
}

/* ------------------------------------------------------------------ */
/* The token bucket. */

static void
check_bucket(const uint8_t *data, size_t size)
{
	struct bucket b;
	int burst, interval, taken = 0;
	uint64_t start = 1000, now = start;

	if (size < 2)
		return;
	burst = 1 + data[0] % 10;
	interval = 1 + data[1] * 20;
	bucket_init(&b, burst, interval, now);
	for (size_t i = 2; i < size; i++) {
		uint64_t wait;

		now += (uint64_t)(data[i] % 64) * (uint64_t)(data[i] / 64 + 1) *
		    (uint64_t)interval / 16;
		wait = bucket_wait(&b, now);
		CHECK(wait <= (uint64_t)interval);
		if (wait == 0) {
			CHECK(bucket_take(&b, now) == 1);
			taken++;
			if (data[i] & 1) {
				bucket_refund(&b);
				taken--;
			}
		} else {
			/* Asked on a copy: asking moves the bucket's clock. */
			struct bucket later = b;

			CHECK(bucket_take(&b, now) == 0);
			CHECK(bucket_wait(&later, now + wait - 1) == 1);
			CHECK(bucket_wait(&later, now + wait) == 0);
		}
		CHECK((uint64_t)taken <= (uint64_t)burst +
		    (now - start) / (uint64_t)interval);
	}
}

/* ------------------------------------------------------------------ */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len = size - 1, start = 0, max;
	struct irc_isupport is;
	unsigned sel;

	if (size < 1)
		return 0;
	sel = data[0];
	/* Server lines, split as the relay splits what it reads. */
	irc_isupport_init(&is);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (i - start <= MAX_LINE)
			check_server_line(text + start, i - start, sel, &is);
		start = i + 1;
	}
	/* Outgoing text: tiny lengths, or what the adapter really uses. */
	if (sel < 16) {
		max = 4 + sel;
	} else {
		/* Targets as long as the adapter allows: 16 bytes left. */
		static const char mask[] = "stichbot!~stichbot@host.example.org";
		char target[IRC_LINE_MAX];
		size_t room = IRC_LINE_MAX - 16 - irc_overhead(mask, "PRIVMSG",
		    "");
		size_t tlen = (sel - 16) * 2 + 1;

		if (tlen > room)
			tlen = room;
		memset(target, 'c', tlen);
		target[0] = '#';
		target[tlen] = '\0';
		max = IRC_LINE_MAX - irc_overhead(mask, "PRIVMSG", target);
		CHECK(max >= 16);
	}
	check_split(text, len, max);
	check_split(text, len, IRC_LINE_MAX);
	check_bucket(data, size);
	return 0;
}

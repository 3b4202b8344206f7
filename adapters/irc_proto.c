/*
 * irc_proto.c - the pure parts of the IRC adapter (see irc_proto.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bucket.h"
#include "irc_proto.h"
#include "log.h"
#include "loop.h"

/* How long a line waits when libircclient's buffer is full. */
#define IRC_QUEUE_RETRY_MS 50
/* How often lines held by a gate are tried again, at the latest. */
#define IRC_QUEUE_GATE_RETRY_MS 1000

int
irc_parse(char *line, struct irc_msg *msg)
{
	char *p = line;

	memset(msg, 0, sizeof(*msg));
	if (*p == '@')
		while (*p != '\0' && *p != ' ')
			p++;
	while (*p == ' ')
		p++;
	if (*p == ':') {
		msg->prefix = ++p;
		while (*p != '\0' && *p != ' ')
			p++;
		if (*p != '\0')
			*p++ = '\0';
		while (*p == ' ')
			p++;
	}
	if (*p == '\0')
		return -1;
	msg->command = p;
	while (*p != '\0' && *p != ' ')
		p++;
	if (*p != '\0')
		*p++ = '\0';
	while (msg->nparams < IRC_PARAMS_MAX) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		/* The fifteenth parameter is the rest, with ':' or not. */
		if (*p == ':' || msg->nparams == IRC_PARAMS_MAX - 1) {
			if (*p == ':')
				p++;
			msg->params[msg->nparams++] = p;
			break;
		}
		msg->params[msg->nparams++] = p;
		while (*p != '\0' && *p != ' ')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return 0;
}

/* Appends s to out at *len unless it would overflow; -1 then. */
static int
append(char *out, size_t outlen, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= outlen)
		return -1;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return 0;
}

/* Backs up from a cut at n so that it does not split a UTF-8 sequence. */
static size_t
utf8_cut(const char *s, size_t n)
{
	size_t back = 0;

	while (back < 3 && n > back &&
	    ((unsigned char)s[n - back] & 0xc0) == 0x80)
		back++;
	return ((unsigned char)s[n - back] & 0xc0) == 0x80 ? n : n - back;
}

int
irc_tag_value(const char *line, size_t len, const char *key, char *out,
    size_t outlen)
{
	size_t keylen = strlen(key), i = 1;

	if (len == 0 || line[0] != '@' || outlen == 0)
		return 0;
	while (i < len && line[i] != ' ') {
		size_t start = i, o = 0;

		while (i < len && line[i] != ';' && line[i] != ' ' &&
		    line[i] != '=')
			i++;
		if (i - start != keylen || memcmp(line + start, key,
		    keylen) != 0 || i >= len || line[i] != '=') {
			while (i < len && line[i] != ';' && line[i] != ' ')
				i++;
			if (i < len && line[i] == ';')
				i++;
			continue;
		}
		/* The value, unescaped as the message-tags spec says. */
		for (i++; i < len && line[i] != ';' && line[i] != ' '; i++) {
			char c = line[i];

			if (c == '\\') {
				if (++i >= len || line[i] == ';' ||
				    line[i] == ' ')
					break;
				c = line[i] == ':' ? ';' : line[i] == 's' ?
				    ' ' : line[i] == 'r' ? '\r' :
				    line[i] == 'n' ? '\n' : line[i];
			}
			if (c == '\r' || c == '\n' || c == '\0' ||
			    o + 1 >= outlen)
				return 0;
			out[o++] = c;
		}
		out[o] = '\0';
		return o > 0;
	}
	return 0;
}

size_t
irc_relay_line(const char *line, size_t len, char *out, size_t outlen)
{
	char buf[IRC_LINE_MAX * 2];
	struct irc_msg m;
	const char *cmd, *text;
	size_t i = 0, n = 0, olen = 0;

	/* Tags: nothing we request makes the server send them. */
	if (len > 0 && line[0] == '@') {
		while (i < len && line[i] != ' ')
			i++;
	}
	for (; i < len && n < sizeof(buf) - 1; i++)
		if (line[i] != '\r' && line[i] != '\0')
			buf[n++] = line[i];
	if (n > IRC_LINE_MAX - 2)
		n = utf8_cut(buf, IRC_LINE_MAX - 2);
	buf[n] = '\0';
	if (irc_parse(buf, &m) != 0)
		return 0;
	cmd = m.command;
	if (isdigit((unsigned char)cmd[0])) {
		/* libircclient reads any three digits as a numeric. */
		if (strlen(cmd) != 3 || !isdigit((unsigned char)cmd[1]) ||
		    !isdigit((unsigned char)cmd[2]) || m.nparams == 0)
			return 0;
	} else if (strspn(cmd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz") != strlen(cmd)) {
		/*
		 * Not a command (RFC 1459 2.3.1: letters or three digits):
		 * "@x" would read as tags, ":x" as a prefix once rebuilt.
		 */
		return 0;
	} else if (strcasecmp(cmd, "PRIVMSG") == 0 ||
	    strcasecmp(cmd, "NOTICE") == 0) {
		if (m.nparams < 2 || m.params[0][0] == '\0')
			return 0;
		text = m.params[1];
		if (text[0] == '\0' || strcmp(text, "\x01") == 0)
			return 0;
		if (strncasecmp(text, "\x01" "DCC ", 5) == 0)
			return 0;
	}
	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (m.prefix != NULL && m.prefix[0] != '\0' &&
	    (append(out, outlen, &olen, ":") != 0 ||
	    append(out, outlen, &olen, m.prefix) != 0 ||
	    append(out, outlen, &olen, " ") != 0))
		return 0;
	if (append(out, outlen, &olen, cmd) != 0)
		return 0;
	for (int k = 0; k < m.nparams; k++) {
		if (append(out, outlen, &olen, k == m.nparams - 1 ? " :" :
		    " ") != 0 || append(out, outlen, &olen, m.params[k]) != 0)
			return 0;
	}
	if (append(out, outlen, &olen, "\r\n") != 0)
		return 0;
	return olen;
}

static int
casefold(enum irc_casemap map, unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c + ('a' - 'A');
	if (map == IRC_CASEMAP_ASCII)
		return c;
	switch (c) {
	case '[':
		return '{';
	case ']':
		return '}';
	case '\\':
		return '|';
	case '~':
		return map == IRC_CASEMAP_RFC1459 ? '^' : c;
	default:
		return c;
	}
}

int
irc_casecmp(enum irc_casemap map, const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	for (;; p++, q++) {
		int x = casefold(map, *p), y = casefold(map, *q);

		if (x != y)
			return x - y;
		if (x == '\0')
			return 0;
	}
}

void
irc_isupport_init(struct irc_isupport *is)
{
	memset(is, 0, sizeof(*is));
	snprintf(is->chantypes, sizeof(is->chantypes), "#&");
	snprintf(is->prefixes, sizeof(is->prefixes), "@+");
	is->casemap = IRC_CASEMAP_RFC1459;
}

/* Copies value (vlen bytes) into out, cut to fit. */
static void
copy_value(char *out, size_t outlen, const char *value, size_t vlen)
{
	if (vlen >= outlen)
		vlen = outlen - 1;
	memcpy(out, value, vlen);
	out[vlen] = '\0';
}

void
irc_isupport_apply(struct irc_isupport *is, const struct irc_msg *msg)
{
	for (int i = 1; i < msg->nparams - 1; i++) {
		const char *tok = msg->params[i], *eq, *value;
		size_t klen, vlen;
		int negated = tok[0] == '-';

		if (negated)
			tok++;
		eq = strchr(tok, '=');
		klen = eq != NULL ? (size_t)(eq - tok) : strlen(tok);
		value = eq != NULL ? eq + 1 : "";
		vlen = strlen(value);
#define KEY(k) (klen == sizeof(k) - 1 && strncmp(tok, k, klen) == 0)
		if (KEY("CHANTYPES")) {
			if (negated)
				snprintf(is->chantypes, sizeof(is->chantypes),
				    "#&");
			else
				copy_value(is->chantypes,
				    sizeof(is->chantypes), value, vlen);
		} else if (KEY("PREFIX")) {
			const char *close = memchr(value, ')', vlen);

			if (negated) {
				snprintf(is->prefixes, sizeof(is->prefixes),
				    "@+");
			} else if (vlen == 0) {
				is->prefixes[0] = '\0';
			} else if (close != NULL) {
				copy_value(is->prefixes, sizeof(is->prefixes),
				    close + 1, vlen - (size_t)(close + 1 -
				    value));
			}
		} else if (KEY("WHOX")) {
			is->whox = !negated;
		} else if (KEY("MONITOR")) {
			is->monitor = !negated;
		} else if (KEY("CASEMAPPING")) {
			if (!negated && strcmp(value, "ascii") == 0)
				is->casemap = IRC_CASEMAP_ASCII;
			else if (!negated && strcmp(value,
			    "strict-rfc1459") == 0)
				is->casemap = IRC_CASEMAP_STRICT;
			else
				is->casemap = IRC_CASEMAP_RFC1459;
		} else if (KEY("NETWORK")) {
			if (negated)
				is->network[0] = '\0';
			else
				copy_value(is->network, sizeof(is->network),
				    value, vlen);
		}
#undef KEY
	}
}

int
irc_is_channel(const struct irc_isupport *is, const char *target)
{
	return target[0] != '\0' && strchr(is->chantypes, target[0]) != NULL;
}

/* Copies n bytes of s into out; -1 when they do not fit. */
static int
copy_part(char *out, size_t outlen, const char *s, size_t n)
{
	if (n >= outlen)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int
irc_mask_split(const char *mask, char *nick, size_t nicklen, char *user,
    size_t userlen, char *host, size_t hostlen)
{
	const char *bang = strchr(mask, '!');
	const char *at = strchr(bang != NULL ? bang : mask, '@');
	const char *nick_end = bang != NULL ? bang : at != NULL ? at :
	    mask + strlen(mask);

	if (nick_end == mask)
		return -1;
	if (copy_part(nick, nicklen, mask, (size_t)(nick_end - mask)) != 0)
		return -1;
	if (bang != NULL) {
		const char *user_end = at != NULL ? at : bang + strlen(bang);

		if (copy_part(user, userlen, bang + 1,
		    (size_t)(user_end - bang - 1)) != 0)
			return -1;
	} else if (copy_part(user, userlen, "", 0) != 0) {
		return -1;
	}
	return copy_part(host, hostlen, at != NULL ? at + 1 : "",
	    at != NULL ? strlen(at + 1) : 0);
}

int
irc_names_entry(const struct irc_isupport *is, const char *entry,
    char *nick, size_t nicklen, char *user, size_t userlen, char *host,
    size_t hostlen)
{
	while (*entry != '\0' && strchr(is->prefixes, *entry) != NULL)
		entry++;
	return irc_mask_split(entry, nick, nicklen, user, userlen, host,
	    hostlen);
}

int
irc_account_known(const char *account)
{
	return account != NULL && account[0] != '\0' &&
	    strcmp(account, "*") != 0 && strcmp(account, "0") != 0;
}

int
irc_identity(char *out, size_t outlen, const char *nick, const char *user,
    const char *host, const char *account)
{
	int n;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	if (irc_account_known(account))
		n = snprintf(out, outlen, "account:%s", account);
	else if (nick != NULL && nick[0] != '\0' && user != NULL &&
	    user[0] != '\0' && host != NULL && host[0] != '\0')
		n = snprintf(out, outlen, "%s!%s@%s", nick, user, host);
	else
		return -1;
	if (n < 0 || (size_t)n >= outlen) {
		out[0] = '\0';
		return -1;
	}
	return 0;
}

/* The length of a colour code's digits after \x03 at s: [N[N]][,N[N]]. */
static size_t
colour_digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < 2 && i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i > 0 && i + 1 < n && s[i] == ',' &&
	    isdigit((unsigned char)s[i + 1])) {
		size_t j = i + 1;

		while (j < i + 3 && j < n && isdigit((unsigned char)s[j]))
			j++;
		i = j;
	}
	return i;
}

/* The same for a hexadecimal colour after \x04: [RRGGBB][,RRGGBB]. */
static size_t
hex_colour_digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < 6 && i < n && isxdigit((unsigned char)s[i]))
		i++;
	if (i != 6)
		return 0;
	if (i + 1 < n && s[i] == ',') {
		size_t j = i + 1;

		while (j < i + 7 && j < n && isxdigit((unsigned char)s[j]))
			j++;
		if (j == i + 7)
			i = j;
	}
	return i;
}

void
irc_strip_codes(char *s)
{
	char *w = s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '\x02': case '\x0f': case '\x11': case '\x16':
		case '\x1d': case '\x1e': case '\x1f':
			break;
		case '\x03':
			i += colour_digits(s + i + 1, n - i - 1);
			break;
		case '\x04':
			i += hex_colour_digits(s + i + 1, n - i - 1);
			break;
		default:
			*w++ = s[i];
			break;
		}
	}
	*w = '\0';
}

/* Formatting in effect at a point of a line. */
struct fmt {
	int bold, italic, underline, reverse;
	int fg, bg;              /* mIRC colour numbers; -1: none */
};

static int
is_format(char c)
{
	return c == '\x02' || c == '\x03' || c == '\x0f' || c == '\x16' ||
	    c == '\x1d' || c == '\x1f';
}

/* Writes the codes that bring a fresh line to f; returns their length. */
static size_t
fmt_codes(const struct fmt *f, char *out)
{
	size_t n = 0;

	if (f->bold)
		out[n++] = '\x02';
	if (f->italic)
		out[n++] = '\x1d';
	if (f->underline)
		out[n++] = '\x1f';
	if (f->reverse)
		out[n++] = '\x16';
	if (f->fg >= 0) {
		/* Two digits, so a digit that follows is never read as ours. */
		out[n++] = '\x03';
		out[n++] = (char)('0' + f->fg / 10 % 10);
		out[n++] = (char)('0' + f->fg % 10);
		if (f->bg >= 0) {
			out[n++] = ',';
			out[n++] = (char)('0' + f->bg / 10 % 10);
			out[n++] = (char)('0' + f->bg % 10);
		}
	}
	return n;
}

static int
parse_number(const char *s, size_t n, size_t *used)
{
	int v = 0;
	size_t i = 0;

	while (i < n && i < 2 && isdigit((unsigned char)s[i]))
		v = v * 10 + (s[i++] - '0');
	*used = i;
	return v;
}

static void
fmt_apply(struct fmt *f, const char *tok, size_t n)
{
	size_t used;

	switch (tok[0]) {
	case '\x02':
		f->bold = !f->bold;
		break;
	case '\x1d':
		f->italic = !f->italic;
		break;
	case '\x1f':
		f->underline = !f->underline;
		break;
	case '\x16':
		f->reverse = !f->reverse;
		break;
	case '\x0f':
		*f = (struct fmt){ 0, 0, 0, 0, -1, -1 };
		break;
	case '\x03':
		if (n == 1) {
			f->fg = f->bg = -1;
			break;
		}
		f->fg = parse_number(tok + 1, n - 1, &used);
		if (1 + used < n && tok[1 + used] == ',')
			f->bg = parse_number(tok + 2 + used, n - 2 - used,
			    &used);
		break;
	default:
		break;
	}
}

/* The length of the token at s: a colour code, a UTF-8 character, a byte. */
static size_t
token_length(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len;

	if (c == '\x03')
		return 1 + colour_digits(s + 1, n - 1);
	if (c < 0xc0)
		return 1;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : 1;
	if (len > n)
		return 1;
	for (size_t i = 1; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 1;
	return len;
}

/*
 * 1 when c, written right after the colour code at code (n bytes), would
 * be read as part of it: a digit while a number has room, a comma after a
 * foreground without a background.
 */
static int
colour_extends(const char *code, size_t n, char c)
{
	size_t fg = 0, bg = 0, i = 1;
	int comma = 0;

	while (i < n && isdigit((unsigned char)code[i]))
		fg++, i++;
	if (i < n && code[i] == ',') {
		comma = 1;
		i++;
		while (i < n && isdigit((unsigned char)code[i]))
			bg++, i++;
	}
	if (isdigit((unsigned char)c))
		return comma ? bg < 2 : fg < 2;
	return c == ',' && fg > 0 && !comma;
}

struct split {
	char chunk[IRC_LINE_MAX + 32];
	void (*fn)(const char *, size_t, void *);
	void *arg;
	int count;
};

static void
emit(struct split *sp, size_t len)
{
	sp->chunk[len] = '\0';
	sp->fn(sp->chunk, len, sp->arg);
	sp->count++;
}

/* Splits one source line (no '\n'); -1 when max cannot hold a token. */
static int
split_line(struct split *sp, const char *s, size_t n, size_t max)
{
	struct fmt st = { 0, 0, 0, 0, -1, -1 }, st_space = st;
	size_t i = 0, clen, prefix, space_at = 0, after_space = 0, extra;
	size_t colour_at = 0;
	int visible = 0, visible_space = 0, after_colour = 0;

	clen = prefix = fmt_codes(&st, sp->chunk);
	while (i < n) {
		size_t tl = token_length(s + i, n - i);
		char c = s[i];

		if (c == '\r' || c == '\0' || c == '\x01') {
			i += tl;
			continue;
		}
		/*
		 * A digit or comma right after a colour code (a carried one,
		 * or one a dropped byte used to end) would join the code: an
		 * empty bold pair keeps them apart, as text.c does.
		 */
		extra = after_colour && colour_extends(sp->chunk + colour_at,
		    clen - colour_at, c) ? 2 : 0;
		if (clen + extra + tl > max) {
			if (space_at > 0 && space_at >= max / 2) {
				/* Break at the space; what follows goes on. */
				if (visible_space)
					emit(sp, space_at);
				st = st_space;
				i = after_space;
			} else if (clen == prefix) {
				/* Not even one token fits after the codes. */
				if (prefix == 0)
					return -1;
				clen = prefix = 0;
				after_colour = 0;
				continue;
			} else if (visible) {
				emit(sp, clen);
			}
			clen = prefix = fmt_codes(&st, sp->chunk);
			/* The carried colour, if any, ends the codes. */
			after_colour = st.fg >= 0;
			colour_at = after_colour ? clen - (st.bg >= 0 ? 6 : 3) :
			    0;
			space_at = 0;
			visible = 0;
			while (i < n && s[i] == ' ')
				i++;
			continue;
		}
		if (extra > 0) {
			memcpy(sp->chunk + clen, "\x02\x02", 2);
			clen += 2;
		}
		if (c == ' ' && visible) {
			space_at = clen;
			st_space = st;
			after_space = i + 1;
			visible_space = visible;
		}
		memcpy(sp->chunk + clen, s + i, tl);
		clen += tl;
		after_colour = c == '\x03';
		colour_at = clen - tl;
		fmt_apply(&st, s + i, tl);
		if (!is_format(c) && c != ' ')
			visible = 1;
		i += tl;
	}
	if (visible)
		emit(sp, clen);
	return 0;
}

int
irc_split(const char *text, size_t len, size_t max,
    void (*fn)(const char *line, size_t len, void *arg), void *arg)
{
	struct split sp;
	size_t start = 0;

	if (max > IRC_LINE_MAX)
		max = IRC_LINE_MAX;
	if (max < 4)
		return -1;
	sp.fn = fn;
	sp.arg = arg;
	sp.count = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (split_line(&sp, text + start, i - start, max) != 0)
			return -1;
		start = i + 1;
	}
	return sp.count;
}

size_t
irc_overhead(const char *mask, const char *command, const char *target)
{
	return 1 + strlen(mask) + 1 + strlen(command) + 1 + strlen(target) +
	    2 + 2;
}

/*
 * A queued line.  Lines of a flow belong to messages: msg numbers them,
 * and the last line of a message carries its id.  ident (private lines)
 * points into the same allocation, after the line.
 */
struct qline {
	struct qline *next;
	struct qflow *flow;      /* NULL: a line of a class */
	uint64_t id;             /* on a message's last line; 0 elsewhere */
	uint64_t msg;
	uint64_t at;             /* when its message was queued */
	const char *ident;
	int gated, last;
	int tracked;             /* its message has an id */
	uint64_t batch;          /* in flight: the PING after it; 0 none yet */
	char line[];
};

/* The lines of one table or one person, in order. */
struct qflow {
	char *name;
	struct qline *head, *tail;
	size_t count;            /* waiting */
	size_t untracked;        /* waiting lines of messages without an id */
	size_t inflight;         /* handed on, not yet known written */
	int warned;              /* dropped replies logged */
};

struct irc_queue {
	struct loop *loop;
	struct bucket bucket;
	struct irc_queue_ops ops;
	struct qline *head[IRC_CLASSES], *tail[IRC_CLASSES];
	size_t count[IRC_CLASSES];
	struct qflow **flows;
	int nflows, flows_cap;
	int rr;                  /* the table flow served last */
	int rr_reply;            /* the reply flow served last */
	int table_run;           /* table lines in a row while replies wait */
	int spare;               /* the bucket holds a token beyond this one */
	int reserved;            /* a reply waited for the table's token */
	/* Lines handed to send() and not yet known written, oldest first. */
	struct qline *fly_head, *fly_tail;
	size_t nfly;
	size_t unpinged;         /* of those, lines no PING follows yet */
	uint64_t ping_token;     /* the outstanding PING's; 0 none */
	uint64_t ping_at;        /* when it was sent */
	uint64_t next_token;
	int ping_soon;           /* a PING waits: 1 the event's end, 2 over */
	size_t total;            /* waiting, every class and flow */
	size_t untracked;        /* waiting flow lines without an id */
	uint64_t next_msg;
	int running;
	int flushing;            /* flush() is on the stack */
	int warned;              /* "queue full" logged since it last emptied */
	uint64_t background_at;  /* when a background line may leave next */
	uint64_t timer;
};

struct irc_queue *
irc_queue_create(struct loop *loop, int burst, int interval_ms,
    const struct irc_queue_ops *ops)
{
	struct irc_queue *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->loop = loop;
	bucket_init(&q->bucket, burst, interval_ms, loop_now(loop));
	q->ops = *ops;
	q->rr = q->rr_reply = -1;
	return q;
}

void
irc_queue_clear(struct irc_queue *q, enum irc_class cls)
{
	while (q->head[cls] != NULL) {
		struct qline *l = q->head[cls];

		q->head[cls] = l->next;
		free(l);
	}
	q->tail[cls] = NULL;
	q->total -= q->count[cls];
	q->count[cls] = 0;
}

static void
flow_free(struct qflow *f)
{
	while (f->head != NULL) {
		struct qline *l = f->head;

		f->head = l->next;
		free(l);
	}
	free(f->name);
	free(f);
}

void
irc_queue_destroy(struct irc_queue *q)
{
	if (q == NULL)
		return;
	loop_cancel(q->loop, q->timer);
	for (int c = 0; c < IRC_CLASSES; c++)
		irc_queue_clear(q, (enum irc_class)c);
	while (q->fly_head != NULL) {
		struct qline *l = q->fly_head;

		q->fly_head = l->next;
		free(l);
	}
	for (int i = 0; i < q->nflows; i++)
		flow_free(q->flows[i]);
	free(q->flows);
	free(q);
}

static void
queue_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc_queue *q = arg;

	(void)loop;
	(void)id;
	q->timer = 0;
	/* The event that armed a PING is over. */
	if (q->ping_soon)
		q->ping_soon = 2;
	irc_queue_flush(q);
}

static void
queue_arm(struct irc_queue *q, uint64_t delay)
{
	loop_cancel(q->loop, q->timer);
	q->timer = loop_timer(q->loop, delay, queue_timer, q);
}

static struct qline *
line_new(const char *line, const char *ident)
{
	size_t n = strlen(line), m = ident != NULL ? strlen(ident) + 1 : 0;
	struct qline *l = malloc(sizeof(*l) + n + 1 + m);

	if (l == NULL)
		return NULL;
	memset(l, 0, sizeof(*l));
	memcpy(l->line, line, n + 1);
	if (ident != NULL) {
		memcpy(l->line + n + 1, ident, m);
		l->ident = l->line + n + 1;
	}
	return l;
}

int
irc_queue_push(struct irc_queue *q, enum irc_class cls, const char *line)
{
	struct qline *l;

	if (cls == IRC_CLASS_LOW && q->count[cls] >= IRC_QUEUE_LOW_MAX)
		return -1;
	if (q->total >= IRC_QUEUE_MAX && cls != IRC_CLASS_CONTROL) {
		if (!q->warned)
			log_warn("irc: %zu lines wait to be sent; dropping "
			    "new ones", q->total);
		q->warned = 1;
		return -1;
	}
	if ((l = line_new(line, NULL)) == NULL)
		return -1;
	if (q->tail[cls] != NULL)
		q->tail[cls]->next = l;
	else
		q->head[cls] = l;
	q->tail[cls] = l;
	q->count[cls]++;
	q->total++;
	irc_queue_flush(q);
	return 0;
}

static struct qflow *
flow_find(const struct irc_queue *q, const char *name)
{
	for (int i = 0; i < q->nflows; i++)
		if (strcmp(q->flows[i]->name, name) == 0)
			return q->flows[i];
	return NULL;
}

static struct qflow *
flow_get(struct irc_queue *q, const char *name)
{
	struct qflow *f = flow_find(q, name);

	if (f != NULL)
		return f;
	if (q->nflows == q->flows_cap) {
		int cap = q->flows_cap > 0 ? q->flows_cap * 2 : 16;
		struct qflow **p = realloc(q->flows, (size_t)cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		q->flows = p;
		q->flows_cap = cap;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if ((f->name = strdup(name)) == NULL) {
		free(f);
		return NULL;
	}
	q->flows[q->nflows++] = f;
	return f;
}

/*
 * Forgets flows with nothing waiting and nothing in flight, keeping the
 * others in their order so that the round keeps its place.
 */
static void
flows_compact(struct irc_queue *q)
{
	int j = 0;

	/* A flush on the stack walks the flows. */
	if (q->flushing)
		return;
	for (int i = 0; i < q->nflows; i++) {
		struct qflow *f = q->flows[i];

		if (f->count == 0 && f->inflight == 0) {
			if (i <= q->rr)
				q->rr--;
			if (i <= q->rr_reply)
				q->rr_reply--;
			flow_free(f);
			continue;
		}
		q->flows[j++] = f;
	}
	q->nflows = j;
	if (q->rr >= q->nflows)
		q->rr = q->nflows - 1;
	if (q->rr_reply >= q->nflows)
		q->rr_reply = q->nflows - 1;
}

int
irc_queue_push_message(struct irc_queue *q, const char *flow,
    const char *ident, int gated, uint64_t id, const char *const *lines,
    int n)
{
	struct qline *first = NULL, *last = NULL;
	struct qflow *f;
	uint64_t msg = ++q->next_msg;

	if (n <= 0) {
		/* Nothing to send: the message has left at once. */
		if (id != 0 && q->ops.done != NULL)
			q->ops.done(id, 0, q->ops.arg);
		return 0;
	}
	if ((f = flow_get(q, flow)) == NULL)
		return -1;
	/* Replies (no id) are refused past their limits; tracked never. */
	if (id == 0 && (f->untracked + (size_t)n > IRC_FLOW_UNTRACKED_MAX ||
	    q->untracked + (size_t)n > IRC_QUEUE_MAX)) {
		/* Logged once until the flow drains, not once a reply. */
		if (!f->warned)
			log_warn("irc: %zu lines wait for %s (%zu in all); "
			    "dropping replies there", f->count, flow,
			    q->total);
		f->warned = 1;
		flows_compact(q);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct qline *l = line_new(lines[i], ident);

		if (l == NULL) {
			while (first != NULL) {
				l = first;
				first = l->next;
				free(l);
			}
			flows_compact(q);
			return -1;
		}
		l->flow = f;
		l->msg = msg;
		l->at = loop_now(q->loop);
		l->gated = gated;
		l->tracked = id != 0;
		if (last != NULL)
			last->next = l;
		else
			first = l;
		last = l;
	}
	last->last = 1;
	last->id = id;
	if (f->tail != NULL)
		f->tail->next = first;
	else
		f->head = first;
	f->tail = last;
	f->count += (size_t)n;
	q->total += (size_t)n;
	if (id == 0) {
		f->untracked += (size_t)n;
		q->untracked += (size_t)n;
	}
	irc_queue_flush(q);
	return 0;
}

void
irc_queue_run(struct irc_queue *q, int running)
{
	q->running = running;
	if (running) {
		irc_queue_flush(q);
	} else {
		loop_cancel(q->loop, q->timer);
		q->timer = 0;
	}
}

/* Takes l, the head of its flow or class, out of the queue. */
static void
queue_pop(struct irc_queue *q, int cls, struct qline *l)
{
	struct qflow *f = l->flow;

	if (f != NULL) {
		f->head = l->next;
		if (f->head == NULL)
			f->tail = NULL;
		f->count--;
		if (!l->tracked) {
			f->untracked--;
			q->untracked--;
		}
	} else {
		q->head[cls] = l->next;
		if (q->head[cls] == NULL)
			q->tail[cls] = NULL;
		q->count[cls]--;
	}
	q->total--;
	l->next = NULL;
}

/* Puts l back at the head of its flow or class (a busy send). */
static void
queue_unpop(struct irc_queue *q, int cls, struct qline *l)
{
	struct qflow *f = l->flow;

	if (f != NULL) {
		l->next = f->head;
		f->head = l;
		if (f->tail == NULL)
			f->tail = l;
		f->count++;
		if (!l->tracked) {
			f->untracked++;
			q->untracked++;
		}
	} else {
		l->next = q->head[cls];
		q->head[cls] = l;
		if (q->tail[cls] == NULL)
			q->tail[cls] = l;
		q->count[cls]++;
	}
	q->total++;
}

/*
 * Drops the rest of the message at the head of f (its holder may not have
 * it, or its channel is gone) and reports its id as done.
 */
static void
drop_message(struct irc_queue *q, struct qflow *f)
{
	uint64_t msg = f->head->msg;

	while (f->head != NULL && f->head->msg == msg) {
		struct qline *l = f->head;

		queue_pop(q, -1, l);
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 1, q->ops.arg);
		free(l);
	}
}

/* A table's flow: it holds lines of messages with an outbox id. */
static int
flow_is_table(const struct qflow *f)
{
	return f->count > f->untracked;
}

static int
replies_waiting(const struct irc_queue *q)
{
	for (int i = 0; i < q->nflows; i++)
		if (q->flows[i]->head != NULL && !flow_is_table(q->flows[i]))
			return 1;
	return 0;
}

/*
 * The next line of the table flows (tables 1) or the reply flows (0),
 * round-robin from the one after the flow of that kind served last (*rr):
 * each flow with a line that may leave gives one, so a flow with a long
 * backlog delays another of its kind by at most one line per other flow
 * in each round.  A flow whose head waits for its gate (a holder being
 * verified, a channel not joined yet) is passed over, and its later lines
 * wait behind it: a flow's lines never overtake each other.
 */
static struct qline *
pick_kind(struct irc_queue *q, int tables, int *rr)
{
	int n = q->nflows;

	for (int k = 1; k <= n; k++) {
		int i = ((*rr + k) % n + n) % n;
		struct qflow *f = q->flows[i];

		while (f->head != NULL && flow_is_table(f) == tables) {
			struct qline *l = f->head;
			int g = IRC_GATE_GO;

			if (l->gated && q->ops.gate != NULL)
				g = q->ops.gate(l->line, l->ident, l->at,
				    q->ops.arg);
			if (g == IRC_GATE_DROP) {
				drop_message(q, f);
				continue;
			}
			if (g == IRC_GATE_WAIT)
				break;
			*rr = i;
			queue_pop(q, -1, l);
			return l;
		}
	}
	return NULL;
}

/*
 * Tables first: their lines are the games (moves, hands, prompts), a
 * reply is one person's (help, a refusal).  While both wait, a reply
 * flow gets the turn after IRC_TABLE_SHARE table lines in a row, so
 * replies keep at least 1 line in IRC_TABLE_SHARE + 1 and a crowd of
 * them delays a table's next line by at most one line.  Otherwise a
 * reply leaves only while the bucket keeps a token for the next table
 * line (with a burst of 2 or more): a move then finds one at once
 * instead of waiting an interval behind the crowd, and the replies lose
 * no rate, only one token of burst.
 */
static struct qline *
pick_flow(struct irc_queue *q)
{
	struct qline *l;

	q->reserved = 0;
	if (q->table_run >= IRC_TABLE_SHARE &&
	    (l = pick_kind(q, 0, &q->rr_reply)) != NULL) {
		q->table_run = 0;
		return l;
	}
	if ((l = pick_kind(q, 1, &q->rr)) != NULL) {
		q->table_run = replies_waiting(q) ? q->table_run + 1 : 0;
		return l;
	}
	q->table_run = 0;
	if (!q->spare) {
		q->reserved = replies_waiting(q);
		return NULL;
	}
	return pick_kind(q, 0, &q->rr_reply);
}

/* The next line to send and its class (-1: a flow's), or NULL. */
static struct qline *
queue_next(struct irc_queue *q, int *cls, uint64_t now)
{
	struct qline *l;

	*cls = IRC_CLASS_CONTROL;
	if ((l = q->head[IRC_CLASS_CONTROL]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = -1;
	if ((l = pick_flow(q)) != NULL)
		return l;
	/* A gate may have asked for a verification. */
	*cls = IRC_CLASS_CONTROL;
	if ((l = q->head[IRC_CLASS_CONTROL]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = IRC_CLASS_BACKGROUND;
	if ((l = q->head[*cls]) != NULL && now >= q->background_at) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = IRC_CLASS_LOW;
	if ((l = q->head[*cls]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	return NULL;
}

/* Lines that wait but cannot leave yet: a gate, or the background gap. */
static void
queue_blocked(struct irc_queue *q, uint64_t now)
{
	if (q->head[IRC_CLASS_BACKGROUND] != NULL && q->background_at > now &&
	    q->count[IRC_CLASS_BACKGROUND] == q->total)
		queue_arm(q, q->background_at - now);
	else if (q->total > 0)
		queue_arm(q, IRC_QUEUE_GATE_RETRY_MS);
}

/*
 * A PING may follow the lines in flight: none is outstanding, some lines
 * have none after them, and either nothing else may leave now (idle) or
 * a whole batch waits.
 */
static int
ping_due(const struct irc_queue *q, int idle)
{
	return q->ops.ping != NULL && q->running && q->ping_token == 0 &&
	    q->unpinged > 0 && (idle || q->unpinged >= IRC_PING_BATCH);
}

/*
 * Sends the PING after the lines in flight, with a token taken by the
 * caller: 0 sent, 1 busy, -1 failed (the lines wait for the next one).
 */
static int
ping_send(struct irc_queue *q, uint64_t now)
{
	char line[64];
	uint64_t token = ++q->next_token;
	int rc;

	snprintf(line, sizeof(line), "PING :%s%llu", IRC_PING_PREFIX,
	    (unsigned long long)token);
	if ((rc = q->ops.ping(line, q->ops.arg)) != 0)
		return rc;
	for (struct qline *l = q->fly_head; l != NULL; l = l->next)
		if (l->batch == 0)
			l->batch = token;
	q->unpinged = 0;
	q->ping_token = token;
	q->ping_at = now;
	q->ping_soon = 0;
	return 0;
}

/*
 * Nothing else may leave now.  A PING due waits for the end of the
 * current event (the lines it causes share it), then takes a token, but
 * like a reply not the bucket's last one (with a burst of 2 or more): the
 * next move must not wait an interval for a confirmation.  Returns 1 when
 * it armed the queue's timer.
 */
static int
ping_idle(struct irc_queue *q, uint64_t now)
{
	if (!ping_due(q, 1))
		return 0;
	if (q->ping_soon != 2) {
		q->ping_soon = 1;
		queue_arm(q, 0);
		return 1;
	}
	if (!bucket_take(&q->bucket, now)) {
		queue_arm(q, bucket_wait(&q->bucket, now));
		return 1;
	}
	if (q->bucket.cap >= 2 * q->bucket.interval &&
	    q->bucket.credit < q->bucket.interval) {
		bucket_refund(&q->bucket);
		queue_arm(q, 2 * q->bucket.interval - q->bucket.credit);
		return 1;
	}
	if (ping_send(q, now) != 0) {
		bucket_refund(&q->bucket);
		queue_arm(q, IRC_QUEUE_RETRY_MS);
		return 1;
	}
	return 0;
}

void
irc_queue_flush(struct irc_queue *q)
{
	/* A send that pushes a line must not recurse into sending. */
	if (q->flushing)
		return;
	q->flushing = 1;
	while (q->running && q->total > 0) {
		uint64_t now = loop_now(q->loop);
		struct qline *l;
		int cls, rc;

		if (!bucket_take(&q->bucket, now)) {
			queue_arm(q, bucket_wait(&q->bucket, now));
			break;
		}
		/* A whole batch is out: its PING takes this token. */
		if (ping_due(q, 0)) {
			if (ping_send(q, now) == 0)
				continue;
			bucket_refund(&q->bucket);
			queue_arm(q, IRC_QUEUE_RETRY_MS);
			break;
		}
		/* Is there a token beyond this one (replies keep one)? */
		q->spare = q->bucket.cap < 2 * q->bucket.interval ||
		    q->bucket.credit >= q->bucket.interval;
		if ((l = queue_next(q, &cls, now)) == NULL) {
			bucket_refund(&q->bucket);
			if (ping_idle(q, now))
				break;
			if (q->reserved)
				/* A reply leaves once a second token is in. */
				queue_arm(q, 2 * q->bucket.interval -
				    q->bucket.credit);
			else
				queue_blocked(q, now);
			break;
		}
		rc = q->ops.send(l->line, q->ops.arg);
		if (rc == 1) {
			bucket_refund(&q->bucket);
			queue_unpop(q, cls, l);
			queue_arm(q, IRC_QUEUE_RETRY_MS);
			break;
		}
		if (cls == IRC_CLASS_BACKGROUND)
			q->background_at = now + IRC_BACKGROUND_GAP_MS;
		if (rc == 0 && l->flow != NULL && l->tracked) {
			/*
			 * Kept until the server is known to have it.  A reply
			 * is not kept (nor confirmed, nor worth a PING): it
			 * is said at most once, like the class lines.
			 */
			l->flow->inflight++;
			l->batch = 0;
			q->unpinged++;
			if (q->fly_tail != NULL)
				q->fly_tail->next = l;
			else
				q->fly_head = l;
			q->fly_tail = l;
			q->nfly++;
			continue;
		}
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 1, q->ops.arg);
		free(l);
	}
	if (q->total == 0) {
		q->warned = 0;
		ping_idle(q, loop_now(q->loop));
	}
	q->flushing = 0;
	flows_compact(q);
}

/* done() for the lines in flight up to batch (0: all of them). */
static void
fly_confirm(struct irc_queue *q, uint64_t batch)
{
	while (q->fly_head != NULL && (batch == 0 ||
	    (q->fly_head->batch != 0 && q->fly_head->batch <= batch))) {
		struct qline *l = q->fly_head;

		q->fly_head = l->next;
		q->nfly--;
		if (l->batch == 0 && q->unpinged > 0)
			q->unpinged--;
		l->flow->inflight--;
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 0, q->ops.arg);
		free(l);
	}
	if (q->fly_head == NULL)
		q->fly_tail = NULL;
	flows_compact(q);
}

void
irc_queue_written(struct irc_queue *q)
{
	fly_confirm(q, 0);
	q->ping_token = 0;
}

int
irc_queue_pong(struct irc_queue *q, const char *token)
{
	char *end;
	unsigned long long t;

	if (q->ping_token == 0 || strncmp(token, IRC_PING_PREFIX,
	    strlen(IRC_PING_PREFIX)) != 0)
		return 0;
	token += strlen(IRC_PING_PREFIX);
	errno = 0;
	t = strtoull(token, &end, 10);
	if (errno != 0 || end == token || *end != '\0' || t != q->ping_token)
		return 0;
	q->ping_token = 0;
	fly_confirm(q, t);
	/* The lines handed on since may have their PING now. */
	irc_queue_flush(q);
	return 1;
}

uint64_t
irc_queue_ping_since(const struct irc_queue *q)
{
	return q->ping_token != 0 ? q->ping_at : 0;
}

size_t
irc_queue_inflight(const struct irc_queue *q)
{
	return q->nfly;
}

void
irc_queue_requeue(struct irc_queue *q)
{
	struct qline **all;
	size_t n = 0;

	/* A PING of this connection will never be answered. */
	q->unpinged = 0;
	q->ping_token = 0;
	q->ping_soon = 0;
	if (q->nfly == 0)
		return;
	if ((all = calloc(q->nfly, sizeof(*all))) == NULL) {
		/* No memory to keep their order: they count as written. */
		irc_queue_written(q);
		return;
	}
	for (struct qline *l = q->fly_head; l != NULL; l = l->next)
		all[n++] = l;
	q->fly_head = q->fly_tail = NULL;
	q->nfly = 0;
	/* Newest first to the front: the oldest ends up first. */
	while (n > 0) {
		struct qline *l = all[--n];

		l->flow->inflight--;
		queue_unpop(q, -1, l);
	}
	free(all);
}

int
irc_queue_retarget(struct irc_queue *q, enum irc_casemap map,
    const char *old, const char *now, size_t max)
{
	size_t nowlen = strlen(now);
	int changed = 0;

	for (int i = 0; i < q->nflows; i++) {
		struct qflow *f = q->flows[i];
		struct qline *prev = NULL;

		for (struct qline *l = f->head; l != NULL;
		    prev = l, l = l->next) {
			const char *cmd = l->line, *target, *rest;
			char nick[IRC_LINE_MAX];
			size_t cmdlen, tlen, restlen, len, ilen;
			struct qline *n;

			if (l->ident == NULL)
				continue;
			cmdlen = strcspn(cmd, " ");
			if (!((cmdlen == 7 &&
			    strncmp(cmd, "PRIVMSG", 7) == 0) ||
			    (cmdlen == 6 && strncmp(cmd, "NOTICE", 6) == 0)) ||
			    cmd[cmdlen] != ' ')
				continue;
			target = cmd + cmdlen + 1;
			tlen = strcspn(target, " ");
			if (tlen >= sizeof(nick))
				continue;
			memcpy(nick, target, tlen);
			nick[tlen] = '\0';
			if (irc_casecmp(map, nick, old) != 0)
				continue;
			rest = target + tlen;
			if (strncmp(rest, " :", 2) != 0)
				continue;
			restlen = strlen(rest);
			len = cmdlen + 1 + nowlen + restlen;
			if (len > max && max > cmdlen + 1 + nowlen + 2)
				restlen = utf8_cut(rest, max - cmdlen - 1 -
				    nowlen);
			else if (len > max)
				continue;
			ilen = strlen(l->ident) + 1;
			if ((n = malloc(sizeof(*n) + cmdlen + 1 + nowlen +
			    restlen + 1 + ilen)) == NULL)
				continue;
			*n = *l;
			len = 0;
			memcpy(n->line, cmd, cmdlen + 1);
			len += cmdlen + 1;
			memcpy(n->line + len, now, nowlen);
			len += nowlen;
			memcpy(n->line + len, rest, restlen);
			len += restlen;
			n->line[len] = '\0';
			memcpy(n->line + len + 1, l->ident, ilen);
			n->ident = n->line + len + 1;
			if (prev != NULL)
				prev->next = n;
			else
				f->head = n;
			if (f->tail == l)
				f->tail = n;
			free(l);
			l = n;
			changed++;
		}
	}
	return changed;
}

size_t
irc_queue_depth(const struct irc_queue *q)
{
	return q->total + q->nfly;
}

size_t
irc_queue_flows_waiting(const struct irc_queue *q)
{
	size_t n = q->total;

	for (int c = 0; c < IRC_CLASSES; c++)
		n -= q->count[c];
	return n;
}

size_t
irc_queue_flow_depth(const struct irc_queue *q, const char *flow)
{
	const struct qflow *f = flow_find(q, flow);

	return f != NULL ? f->count : 0;
}

void
irc_queue_set_pace(struct irc_queue *q, int burst, int interval_ms)
{
	uint64_t now = loop_now(q->loop), tokens;

	/* The tokens left now stay left: no second burst. */
	bucket_wait(&q->bucket, now);
	tokens = q->bucket.credit / q->bucket.interval;
	bucket_init(&q->bucket, burst, interval_ms, now);
	if (tokens * q->bucket.interval < q->bucket.credit)
		q->bucket.credit = tokens * q->bucket.interval;
	if (!q->flushing && q->running)
		irc_queue_flush(q);
}

/*
 * Server software by the version it names in RPL_MYINFO (004), and the
 * pace each lets an ordinary client hold without holding it back:
 *
 * - ngIRCd: measured with bench/bench_irc_pace.py on its defaults: about
 *   three lines a second pass unheld, more build up a lag; 2.5 a second
 *   after a burst of 5 keeps a margin.
 * - ircd-hybrid and its descendants (ratbox, charybdis, solanum: EFnet,
 *   OFTC, Libera.Chat): flood_recalc() lets a client's lines be parsed at
 *   MAX_FLOOD (5) a second after a burst; 2 a second stays far below, so
 *   the server's receive queue never grows towards "Excess Flood".
 * - Everything else (ircu, IRCnet's ircd, UnrealIRCd, InspIRCd, unknown):
 *   RFC 1459 section 8.10, one line per 2 s beyond a 10 s allowance (a
 *   burst of 4 with room to spare), which the others also meet.
 */
void
irc_pace_for_server(const char *version, int *burst, int *interval_ms)
{
	static const struct {
		const char *name;
		int burst, interval_ms;
	} known[] = {
		{ "ngircd", 5, 400 },
		{ "hybrid", 5, 500 },
		{ "ratbox", 5, 500 },
		{ "charybdis", 5, 500 },
		{ "solanum", 5, 500 },
	};
	char lower[128];
	size_t i;

	for (i = 0; version != NULL && version[i] != '\0' &&
	    i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)version[i]);
	lower[i] = '\0';
	*burst = IRC_PACE_BURST;
	*interval_ms = IRC_PACE_INTERVAL_MS;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strstr(lower, known[i].name) != NULL) {
			*burst = known[i].burst;
			*interval_ms = known[i].interval_ms;
			return;
		}
	}
}

int
irc_queue_take(struct irc_queue *q)
{
	return bucket_take(&q->bucket, loop_now(q->loop));
}

int
irc_cap_next(const char **pos, char *name, size_t namelen,
    const char **value, size_t *vlen, int *removed)
{
	const char *p = *pos, *start;
	size_t n;

	while (*p == ' ')
		p++;
	if (*p == '\0') {
		*pos = p;
		return 0;
	}
	*removed = 0;
	if (*p == '-') {
		*removed = 1;
		p++;
	}
	/* Modifiers of the CAP 3.1 draft. */
	while (*p == '~' || *p == '=')
		p++;
	start = p;
	while (*p != '\0' && *p != ' ' && *p != '=')
		p++;
	n = (size_t)(p - start);
	if (n >= namelen)
		n = namelen - 1;
	memcpy(name, start, n);
	name[n] = '\0';
	*value = NULL;
	*vlen = 0;
	if (*p == '=') {
		*value = ++p;
		while (*p != '\0' && *p != ' ')
			p++;
		*vlen = (size_t)(p - *value);
	}
	*pos = p;
	return 1;
}

int
irc_cap_find(const char *list, const char *name, const char **value,
    size_t *vlen)
{
	const char *pos = list, *v;
	char cap[128];
	size_t n;
	int removed;

	while (irc_cap_next(&pos, cap, sizeof(cap), &v, &n, &removed)) {
		if (!removed && strcmp(cap, name) == 0) {
			if (value != NULL)
				*value = v;
			if (vlen != NULL)
				*vlen = n;
			return 1;
		}
	}
	return 0;
}

int
irc_cap_request(const char *offered, const char *const *wanted,
    char *out, size_t outlen)
{
	size_t len = 0;
	int count = 0;

	if (outlen > 0)
		out[0] = '\0';
	for (size_t i = 0; wanted[i] != NULL; i++) {
		if (!irc_cap_find(offered, wanted[i], NULL, NULL))
			continue;
		if ((count > 0 && append(out, outlen, &len, " ") != 0) ||
		    append(out, outlen, &len, wanted[i]) != 0)
			break;
		count++;
	}
	return count;
}

int
irc_cap_sasl_plain(const char *offered)
{
	const char *value;
	size_t vlen, start = 0;

	if (!irc_cap_find(offered, "sasl", &value, &vlen))
		return 0;
	if (value == NULL || vlen == 0)
		return 1;
	for (size_t i = 0; i <= vlen; i++) {
		if (i < vlen && value[i] != ',')
			continue;
		if (i - start == 5 && strncasecmp(value + start, "PLAIN",
		    5) == 0)
			return 1;
		start = i + 1;
	}
	return 0;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
irc_base64_encode(const unsigned char *in, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		unsigned long v = (unsigned long)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned long)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[o] = '\0';
}

long
irc_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t outlen)
{
	unsigned long v = 0;
	size_t o = 0;
	int bits = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		const char *p;
		char c = in[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		/* Nothing but whitespace may follow the padding. */
		if (pad > 0 || c == '\0' || (p = strchr(b64, c)) == NULL)
			return -1;
		v = (v << 6 | (unsigned long)(p - b64)) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= outlen)
				return -1;
			out[o++] = (unsigned char)(v >> bits & 0xff);
		}
	}
	if (pad > 2 || bits >= 6)
		return -1;
	return (long)o;
}

int
irc_sasl_plain(const char *user, const char *password,
    void (*fn)(const char *arg, void *ctx), void *ctx)
{
	size_t ulen = strlen(user), plen = strlen(password);
	size_t rawlen = ulen + 1 + ulen + 1 + plen, enclen, off = 0;
	unsigned char *raw;
	char *enc, chunk[401];
	int count = 0;

	raw = malloc(rawlen);
	enc = malloc(4 * ((rawlen + 2) / 3) + 1);
	if (raw == NULL || enc == NULL) {
		free(raw);
		free(enc);
		return -1;
	}
	/* authzid and authcid are both the account. */
	memcpy(raw, user, ulen);
	raw[ulen] = '\0';
	memcpy(raw + ulen + 1, user, ulen);
	raw[2 * ulen + 1] = '\0';
	memcpy(raw + 2 * ulen + 2, password, plen);
	irc_base64_encode(raw, rawlen, enc);
	enclen = strlen(enc);
	explicit_bzero(raw, rawlen);
	free(raw);
	do {
		size_t n = enclen - off > 400 ? 400 : enclen - off;

		memcpy(chunk, enc + off, n);
		chunk[n] = '\0';
		fn(chunk, ctx);
		count++;
		off += n;
		if (n == 400 && off == enclen) {
			fn("+", ctx);
			count++;
		}
	} while (off < enclen);
	explicit_bzero(chunk, sizeof(chunk));
	explicit_bzero(enc, enclen);
	free(enc);
	return count;
}

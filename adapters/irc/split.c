/*
 * split.c - outgoing text as IRC lines (see proto.h): mIRC formatting
 * stripped from what people say, and the bot's rendered text split into
 * lines that fit the 512-byte limit at UTF-8 boundaries, with their
 * formatting carried over to each continuation.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "proto.h"

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

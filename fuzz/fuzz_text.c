/*
 * fuzz_text.c - libFuzzer target: structured text (bot/text.h) built from
 * arbitrary user strings and rendered for every medium.
 *
 * The input is split at NUL bytes into segments.  Each segment is checked
 * as a user string on its own:
 *   - text_sanitize() gives valid UTF-8 without control characters (C0, DEL,
 *     C1, bidirectional overrides), reads a tab or line break between words
 *     as a space, keeps valid clean input unchanged, and is idempotent;
 *   - text_user() alone renders to exactly that string in plain, IRC and
 *     ANSI, and to that string HTML-escaped (no raw '<', '>', '"', '\'').
 * The segments are also read as a program (the first byte picks a builder
 * call, the rest is its argument: user text, or a choice among our own
 * words and card colours) that builds one text mixing marks and user text.
 * Its renderings must show what the plain rendering shows:
 *   - IRC never holds CR or NUL; '\n' appears exactly where our own words
 *     put one (the adapter sends one message per line); stripping mIRC
 *     codes the way a client reads them gives the plain text, so user text
 *     can never change or swallow formatting;
 *   - HTML holds '<' only as one of the tags our marks produce, a raw
 *     newline only inside <pre>, and reads back (tags dropped, <br> as a
 *     newline, entities decoded) as the plain text;
 *   - ANSI holds only SGR escapes and reads back as the plain text;
 *   - every rendering is valid UTF-8.
 * Finally the whole input is rendered as our own words with arbitrary
 * (possibly broken) marks, which must not crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_check.h"
#include "text.h"

/* Our own words: ASCII, some with what HTML escapes or IRC reads as codes. */
static const char *const words[] = {
	"Round 1", " plays ", ": ", "\n", "a < b & c > \"d\" 'e'", "3",
	",", ",12", "12", " ", "x", "#", "",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* Colour letters: every valid one, "none", and two unknown ones. */
static const char colours[] = "rygbnpwj0x";

/* Whether s[0..n) is valid UTF-8, by jansson's independent reading. */
static int
utf8_valid(const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	int valid = j != NULL;

	json_decref(j);
	return valid;
}

/* The length of the UTF-8 sequence starting at s (s is valid UTF-8). */
static size_t
seq_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xe0)
		return 2;
	if (s[0] < 0xf0)
		return 3;
	return 4;
}

/*
 * Whether valid UTF-8 s holds a control character (C0, DEL, C1, bidi) or
 * an invisible mark: what text_char_length() drops.
 */
static int
has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0') {
		size_t n = seq_len(p);

		if (*p < 0x20 || *p == 0x7f)
			return 1;
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			return 1;
		/* Bidirectional embeddings, overrides and isolates. */
		if (n == 3 && p[0] == 0xe2 && ((p[1] == 0x80 &&
		    p[2] >= 0xaa && p[2] <= 0xae) || (p[1] == 0x81 &&
		    p[2] >= 0xa6 && p[2] <= 0xa9)))
			return 1;
		/* Marks that show nothing: U+200B, U+2060..U+2064, U+FEFF. */
		if (n == 3 && ((p[0] == 0xe2 && ((p[1] == 0x80 &&
		    p[2] == 0x8b) || (p[1] == 0x81 && p[2] >= 0xa0 &&
		    p[2] <= 0xa4))) || (p[0] == 0xef && p[1] == 0xbb &&
		    p[2] == 0xbf)))
			return 1;
		p += n;
	}
	return 0;
}

static char *
render(const struct text *t, enum text_format format, size_t *len)
{
	struct text out;
	char *s;

	text_init(&out);
	text_render(t, format, &out);
	*len = out.len;
	s = malloc(out.len + 1);
	CHECK(s != NULL);
	memcpy(s, text_str(&out), out.len + 1);
	text_finish(&out);
	return s;
}

/* Decodes the entities the HTML renderer writes; NULL for anything else. */
static const char *
entity(const char *s, size_t *used)
{
	static const struct { const char *name; const char *ch; } ents[] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
		{ "&quot;", "\"" }, { "&#39;", "'" },
	};

	for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
		size_t n = strlen(ents[i].name);

		if (strncmp(s, ents[i].name, n) == 0) {
			*used = n;
			return ents[i].ch;
		}
	}
	return NULL;
}

/* Whether the tag at s (from '<' to '>') is one our marks produce. */
static int
known_tag(const char *s, size_t n)
{
	static const char *const fixed[] = {
		"<b>", "</b>", "<pre>", "</pre>", "<br>", "</font>", "</a>",
	};
	static const char font[] = "<font data-mx-bg-color=\"#";
	static const char font_end[] = "\" data-mx-color=\"#ffffff\">";
	static const char link[] = "<a href=\"https://matrix.to/#/";

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (n == strlen(fixed[i]) && memcmp(s, fixed[i], n) == 0)
			return 1;
	if (n == strlen(font) + 6 + strlen(font_end) &&
	    memcmp(s, font, strlen(font)) == 0) {
		for (size_t i = strlen(font); i < strlen(font) + 6; i++)
			if (strchr("0123456789abcdef", s[i]) == NULL)
				return 0;
		return memcmp(s + strlen(font) + 6, font_end,
		    strlen(font_end)) == 0;
	}
	if (n > strlen(link) + 1 && memcmp(s, link, strlen(link)) == 0) {
		/* The id inside the attribute is escaped. */
		for (size_t i = strlen(link); i < n - 2; i++)
			if (s[i] == '"' || s[i] == '<' || s[i] == '\'')
				return 0;
		return memcmp(s + n - 2, "\">", 2) == 0;
	}
	return 0;
}

/* What a Matrix client shows of html, as text; checks tags and escapes. */
static char *
html_text(const char *html, size_t len)
{
	char *out = malloc(len + 1);
	size_t o = 0;
	int pre = 0;

	CHECK(out != NULL);
	for (size_t i = 0; i < len; ) {
		if (html[i] == '<') {
			const char *end = memchr(html + i, '>', len - i);
			size_t n;

			CHECK(end != NULL);
			n = (size_t)(end - (html + i)) + 1;
			CHECK(known_tag(html + i, n));
			if (n == 4 && memcmp(html + i, "<br>", 4) == 0)
				out[o++] = '\n';
			else if (n == 5 && memcmp(html + i, "<pre>", 5) == 0)
				pre = 1;
			else if (n == 6 && memcmp(html + i, "</pre>", 6) == 0)
				pre = 0;
			i += n;
		} else if (html[i] == '&') {
			size_t used;
			const char *ch = entity(html + i, &used);

			CHECK(ch != NULL);
			out[o++] = ch[0];
			i += used;
		} else {
			/* Outside <pre> a raw newline would be lost. */
			CHECK(html[i] != '\n' || pre);
			CHECK(html[i] != '>' && html[i] != '"' &&
			    html[i] != '\'');
			out[o++] = html[i++];
		}
	}
	out[o] = '\0';
	return out;
}

/* What an IRC client shows of irc: mIRC formatting codes removed. */
static char *
irc_text(const char *irc, size_t len)
{
	char *out = malloc(len + 1);
	size_t o = 0;

	CHECK(out != NULL);
	for (size_t i = 0; i < len; ) {
		unsigned char c = (unsigned char)irc[i++];
		int digits = 0;

		switch (c) {
		case 0x02: case 0x0f: case 0x11: case 0x16: case 0x1d:
		case 0x1e: case 0x1f:
			break;
		case 0x03:
			/* Up to two digits, then ",N" or ",NN" after one. */
			while (digits < 2 && i < len && irc[i] >= '0' &&
			    irc[i] <= '9')
				i++, digits++;
			if (digits > 0 && i + 1 < len && irc[i] == ',' &&
			    irc[i + 1] >= '0' && irc[i + 1] <= '9') {
				i += 2;
				if (i < len && irc[i] >= '0' && irc[i] <= '9')
					i++;
			}
			break;
		default:
			/* Nothing else of the C0 range but the line break. */
			CHECK(c >= 0x20 || c == '\n');
			out[o++] = (char)c;
			break;
		}
	}
	out[o] = '\0';
	return out;
}

/* What a terminal shows of ansi: SGR escapes removed. */
static char *
ansi_text(const char *ansi, size_t len)
{
	char *out = malloc(len + 1);
	size_t o = 0;

	CHECK(out != NULL);
	for (size_t i = 0; i < len; ) {
		if (ansi[i] == '\033') {
			CHECK(i + 1 < len && ansi[i + 1] == '[');
			i += 2;
			while (i < len && ((ansi[i] >= '0' && ansi[i] <= '9') ||
			    ansi[i] == ';'))
				i++;
			CHECK(i < len && ansi[i] == 'm');
			i++;
		} else {
			out[o++] = ansi[i++];
		}
	}
	out[o] = '\0';
	return out;
}

/*
 * s with each tab and line break (CR, LF, VT, FF, NEL, U+2028, U+2029)
 * read as a space, as text_user() reads them between words; malloc'd.
 */
static char *
breaks_as_spaces(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) + 1), *o = out;

	CHECK(out != NULL);
	while (*p != '\0') {
		size_t n = *p == '\t' || *p == '\r' || *p == '\n' ||
		    *p == '\v' || *p == '\f' ? 1 :
		    p[0] == 0xc2 && p[1] == 0x85 ? 2 :
		    p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 ||
		    p[2] == 0xa9) ? 3 : 0;

		if (n > 0) {
			*o++ = ' ';
			p += n;
		} else {
			*o++ = (char)*p++;
		}
	}
	*o = '\0';
	return out;
}

/* A user string on its own: text_sanitize() and text_user() renderings. */
static void
check_user(const char *s)
{
	char *clean = text_sanitize(s), *again, *r, *shown, *spaced;
	const char *p;
	struct text t;
	size_t len;

	CHECK(clean != NULL);
	CHECK(utf8_valid(clean, strlen(clean)));
	CHECK(!has_control(clean));
	/*
	 * Only whole characters are dropped, and a line break reads as a
	 * space: clean is a subsequence of s so read.
	 */
	spaced = breaks_as_spaces(s);
	p = spaced;
	for (const char *q = clean; *q != '\0'; q++) {
		p = strchr(p, *q);
		CHECK(p != NULL);
		p++;
	}
	if (utf8_valid(s, strlen(s)) && !has_control(s) &&
	    strcmp(spaced, s) == 0)
		CHECK(strcmp(clean, s) == 0);
	free(spaced);
	again = text_sanitize(clean);
	CHECK(strcmp(again, clean) == 0);
	free(again);

	text_init(&t);
	text_user(&t, s);
	CHECK(strcmp(text_str(&t), clean) == 0);
	for (int f = TEXT_FORMAT_PLAIN; f <= TEXT_FORMAT_ANSI; f++) {
		r = render(&t, (enum text_format)f, &len);
		CHECK(strlen(r) == len);
		if (f == TEXT_FORMAT_HTML) {
			CHECK(strpbrk(r, "<>\"'") == NULL);
			shown = html_text(r, len);
			CHECK(strcmp(shown, clean) == 0);
			free(shown);
		} else {
			CHECK(strcmp(r, clean) == 0);
		}
		free(r);
	}
	text_finish(&t);
	free(clean);
}

/* A mention: the user id before the first '|' of arg, the name after. */
static void
add_mention(struct text *t, const char *arg)
{
	const char *bar = strchr(arg, '|');
	char *id;

	if (bar == NULL) {
		text_mention(t, arg, arg);
		return;
	}
	id = strndup(arg, (size_t)(bar - arg));
	CHECK(id != NULL);
	text_mention(t, id, bar + 1);
	free(id);
}

/* Adds one builder call to t; returns the '\n' count our words added. */
static int
add_op(struct text *t, const char *seg)
{
	unsigned char op = (unsigned char)seg[0];
	const char *arg = seg[0] != '\0' ? seg + 1 : seg;
	const char *word = words[(unsigned char)arg[0] % NWORDS];
	char colour = colours[(unsigned char)arg[0] % (sizeof(colours) - 1)];
	char mark[2];

	/* 'H' (72) picks 0, so seeds read "Huser text", "IA" and so on. */
	switch (op % 9) {
	case 0:
		text_user(t, arg);
		return 0;
	case 1:
		text_add(t, word);
		return strchr(word, '\n') != NULL;
	case 2:
		/* Bold words are names and titles: never a line break. */
		text_bold(t, strchr(word, '\n') == NULL ? word : "Ann");
		return 0;
	case 3:
		text_card(t, colour, arg[0] != '\0' ? words[(unsigned char)
		    arg[1] % NWORDS] : "r7");
		return arg[0] != '\0' &&
		    strchr(words[(unsigned char)arg[1] % NWORDS], '\n') != NULL;
	case 4:
		add_mention(t, arg);
		return 0;
	case 5:
		text_pre_begin(t);
		return 0;
	case 6:
		text_pre_end(t);
		return 0;
	case 7:
		/* A bare mark, balanced or not; mentions stay whole. */
		mark[0] = "\x02\x0f\x1c"[(unsigned char)arg[0] % 3];
		text_addn(t, mark, 1);
		return 0;
	default:
		/* A colour left open, ended by a later TEXT_PLAIN or not. */
		mark[0] = TEXT_COLOR;
		mark[1] = colour;
		text_addn(t, mark, 2);
		return 0;
	}
}

/* Prints s with control bytes escaped, for a failure report. */
static void
dump(const char *label, const char *s)
{
	fprintf(stderr, "%s: \"", label);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	fprintf(stderr, "\"\n");
}

/* What a medium shows must be the plain rendering; says how it is not. */
static void
check_shown(const char *medium, const char *rendered, const char *shown,
    const char *plain)
{
	if (strcmp(shown, plain) == 0)
		return;
	fprintf(stderr, "%s rendering does not show the plain text\n", medium);
	dump("rendered", rendered);
	dump("shown", shown);
	dump("plain", plain);
	abort();
}

static void
check_program(const char **segs, size_t nsegs)
{
	struct text t;
	char *plain, *r, *shown;
	size_t plain_len, len;
	int newlines = 0, count;

	text_init(&t);
	for (size_t i = 0; i < nsegs; i++)
		newlines += add_op(&t, segs[i]);

	plain = render(&t, TEXT_FORMAT_PLAIN, &plain_len);
	CHECK(strlen(plain) == plain_len);
	CHECK(utf8_valid(plain, plain_len));
	for (const char *p = plain; *p != '\0'; p++)
		CHECK((unsigned char)*p >= 0x20 || *p == '\n');

	r = render(&t, TEXT_FORMAT_IRC, &len);
	CHECK(strlen(r) == len);
	CHECK(strchr(r, '\r') == NULL);
	CHECK(utf8_valid(r, len));
	count = 0;
	for (const char *p = r; *p != '\0'; p++)
		count += *p == '\n';
	CHECK(count == newlines);
	shown = irc_text(r, len);
	check_shown("IRC", r, shown, plain);
	free(shown);
	free(r);

	r = render(&t, TEXT_FORMAT_HTML, &len);
	CHECK(strlen(r) == len);
	CHECK(utf8_valid(r, len));
	shown = html_text(r, len);
	check_shown("HTML", r, shown, plain);
	free(shown);
	free(r);

	r = render(&t, TEXT_FORMAT_ANSI, &len);
	CHECK(strlen(r) == len);
	CHECK(utf8_valid(r, len));
	shown = ansi_text(r, len);
	check_shown("ANSI", r, shown, plain);
	free(shown);
	free(r);

	free(plain);
	text_finish(&t);
}

/* The whole input as our own words: broken marks must not crash. */
static void
check_raw(const uint8_t *data, size_t size)
{
	struct text t, out;

	text_init(&t);
	text_init(&out);
	text_addn(&t, (const char *)data, size);
	for (int f = TEXT_FORMAT_PLAIN; f <= TEXT_FORMAT_ANSI; f++) {
		text_render(&t, (enum text_format)f, &out);
		CHECK(out.len == 0 || out.buf[out.len] == '\0');
	}
	text_finish(&out);
	text_finish(&t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Programs longer than this are cut; long ones find nothing new. */
	enum { MAX_SEGS = 64 };
	const char *segs[MAX_SEGS];
	size_t nsegs = 0;
	char *copy = malloc(size + 1);

	CHECK(copy != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (size_t i = 0; i <= size; ) {
		const char *seg = copy + i;

		check_user(seg);
		if (nsegs < MAX_SEGS)
			segs[nsegs++] = seg;
		i += strlen(seg) + 1;
	}
	check_program(segs, nsegs);
	check_raw(data, size);
	free(copy);
	return 0;
}

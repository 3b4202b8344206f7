/*
 * text.c - building and rendering structured messages (see text.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "xmalloc.h"

void
text_init(struct text *t)
{
	t->buf = NULL;
	t->len = t->cap = 0;
}

void
text_finish(struct text *t)
{
	free(t->buf);
	text_init(t);
}

void
text_clear(struct text *t)
{
	t->len = 0;
	if (t->buf != NULL)
		t->buf[0] = '\0';
}

const char *
text_str(const struct text *t)
{
	return t->buf != NULL ? t->buf : "";
}

static void
reserve(struct text *t, size_t more)
{
	size_t need = t->len + more + 1;
	size_t cap;

	if (need <= t->cap)
		return;
	/* Most lines are a few hundred bytes: one allocation, not four. */
	cap = t->cap > 0 ? t->cap : 256;
	while (cap < need)
		cap *= 2;
	t->buf = xrealloc(t->buf, cap);
	t->cap = cap;
}

void
text_addn(struct text *t, const char *s, size_t n)
{
	reserve(t, n);
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void
text_add(struct text *t, const char *s)
{
	text_addn(t, s, strlen(s));
}

static void
add_char(struct text *t, char c)
{
	text_addn(t, &c, 1);
}

void
text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vprintf(t, fmt, ap);
	va_end(ap);
}

void
text_vprintf(struct text *t, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n >= 0) {
		reserve(t, (size_t)n);
		vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, again);
		t->len += (size_t)n;
	}
	va_end(again);
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t
utf8_length(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

size_t
text_code_point(const char *s, unsigned int *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = utf8_length(p);

	if (k == 0)
		return 0;
	*cp = k == 1 ? p[0] : p[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++)
		*cp = *cp << 6 | (p[i] & 0x3f);
	return k;
}

size_t
text_char_length(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = utf8_length(p);

	if (n == 1 && (p[0] < 0x20 || p[0] == 0x7f))
		return 0;
	/* C1 controls (U+0080..U+009F) are invisible too. */
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
		return 0;
	/*
	 * So are the bidirectional embeddings, overrides and isolates
	 * (U+202A..U+202E, U+2066..U+2069), and they would turn the rest of
	 * the bot's line around: a name could make "Bob has bid" read
	 * backwards, or disguise what follows it.
	 */
	if (n == 3 && p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa &&
	    p[2] <= 0xae) || (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
		return 0;
	/*
	 * And what shows nothing and marks nothing: the zero-width space
	 * (U+200B), the word joiner and invisible operators (U+2060..U+2064)
	 * and the byte order mark (U+FEFF), which would make "!sta<ZWSP>tus"
	 * an unknown command or two equal names differ.  The joiners and
	 * the direction marks (U+200C..U+200F) stay: scripts, emoji and
	 * right-to-left names need them.
	 */
	if (n == 3 && ((p[0] == 0xe2 && ((p[1] == 0x80 && p[2] == 0x8b) ||
	    (p[1] == 0x81 && p[2] >= 0xa0 && p[2] <= 0xa4))) ||
	    (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)))
		return 0;
	return n;
}

/*
 * The length of the tab or line break s starts with (CR, LF, VT, FF,
 * U+0085 NEL, U+2028, U+2029), or 0.
 */
static size_t
line_break_length(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (p[0] == '\t' || p[0] == '\r' || p[0] == '\n' || p[0] == '\v' ||
	    p[0] == '\f')
		return 1;
	if (p[0] == 0xc2 && p[1] == 0x85)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

void
text_user(struct text *t, const char *s)
{
	int gap = 0;

	while (*s != '\0') {
		size_t n = line_break_length(s);

		/*
		 * "Line1\nLine2" reads as two words, not "Line1Line2": a
		 * line break between words is a space.
		 */
		if (n > 0) {
			gap = t->len > 0 && t->buf[t->len - 1] != ' ';
			s += n;
			continue;
		}
		n = text_char_length(s);
		if (n == 0) {
			s++;
			continue;
		}
		if (gap && *s != ' ')
			text_addn(t, " ", 1);
		gap = 0;
		text_addn(t, s, n);
		s += n;
	}
}

void
text_command_line(struct text *t, const char *s)
{
	int broken = 0;

	while (*s != '\0') {
		size_t n = line_break_length(s);

		if (n > 0) {
			/*
			 * A tab, or a line break (Matrix messages may hold
			 * several lines), parts words: "!option rounds=1" and
			 * "5" on the next line are not "rounds=15".
			 */
			text_addn(t, " ", 1);
			s += n;
			broken = 0;
			continue;
		}
		if ((n = text_char_length(s)) > 0) {
			text_addn(t, s, n);
			s += n;
			broken = 0;
			continue;
		}
		if ((n = utf8_length((const unsigned char *)s)) == 0) {
			/* One mark for a run of bytes that are no UTF-8. */
			if (!broken)
				text_add(t, "\xef\xbf\xbd");
			broken = 1;
			s++;
			continue;
		}
		/* A control character, valid but invisible: skipped whole. */
		s += n;
		broken = 0;
	}
}

char *
text_sanitize(const char *s)
{
	struct text t;

	text_init(&t);
	text_user(&t, s);
	return t.buf != NULL ? t.buf : xstrdup("");
}

void
text_bold(struct text *t, const char *s)
{
	/* Bold words are mostly names, so they are sanitised like user text. */
	add_char(t, TEXT_BOLD);
	text_user(t, s);
	add_char(t, TEXT_BOLD);
}

void
text_card(struct text *t, char color, const char *code)
{
	add_char(t, TEXT_COLOR);
	add_char(t, color);
	text_add(t, code);
	add_char(t, TEXT_PLAIN);
}

void
text_mention(struct text *t, const char *user_id, const char *name)
{
	add_char(t, TEXT_MENTION);
	text_user(t, user_id);
	add_char(t, TEXT_SEP);
	text_user(t, name);
	add_char(t, TEXT_MENTION);
}

void
text_pre_begin(struct text *t)
{
	add_char(t, TEXT_PRE);
}

void
text_pre_end(struct text *t)
{
	add_char(t, TEXT_PRE);
}

void
text_table_begin(struct text *t)
{
	add_char(t, TEXT_TABLE);
}

void
text_table_cell(struct text *t)
{
	add_char(t, TEXT_CELL);
}

void
text_table_row(struct text *t)
{
	add_char(t, '\n');
}

void
text_table_end(struct text *t)
{
	add_char(t, TEXT_TABLE);
}

/*
 * The columns a code point takes in a terminal: 2 for the East Asian wide
 * and full-width ranges (CJK, kana, hangul, full-width forms, emoji), 0
 * for combining marks and zero-width characters, 1 otherwise.  A short
 * range list rather than wcwidth(), which depends on the locale the bot
 * happens to run in.
 */
static int
code_point_columns(unsigned int cp)
{
	static const struct { unsigned int from, to; } wide[] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
		{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
	}, zero[] = {
		{ 0x0300, 0x036f }, { 0x200b, 0x200f }, { 0xfe00, 0xfe0f },
	};

	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i].from && cp <= zero[i].to)
			return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i].from && cp <= wide[i].to)
			return 2;
	return 1;
}

/*
 * The length of the character at s (at most n bytes) and its columns in
 * *cols; a byte that starts no valid character counts as one column.
 */
static size_t
char_columns(const char *s, size_t n, int *cols)
{
	unsigned int cp = 0;
	size_t k = n > 0 ? text_code_point(s, &cp) : 0;

	if (k == 0 || k > n) {
		*cols = 1;
		return 1;
	}
	*cols = code_point_columns(cp);
	return k;
}

size_t
text_columns(const char *s, size_t n)
{
	size_t cols = 0;
	int c;

	for (size_t i = 0; i < n; ) {
		i += char_columns(s + i, n - i, &c);
		cols += (size_t)c;
	}
	return cols;
}

void
text_append(struct text *t, const struct text *other)
{
	text_addn(t, text_str(other), other->len);
}

/*
 * Colours per medium, indexed by the colour letter.  On IRC the six
 * Sticheln colours (and Wizard's four suits among them) must stay apart
 * where most players see them: irssi and WeeChat map the 16 mIRC colours
 * onto the terminal's 16, which have only six hues (red, yellow, green,
 * cyan, blue, magenta) in a dark and a bright shade each, and the two
 * shades of a hue look alike in many themes.  So each colour takes its
 * own hue: red 04 (bright red), yellow 07 (orange; the terminal's dark
 * yellow, as 08 vanishes on white), green 03, blue 12 (light blue: the
 * terminal's bright blue, readable on black and white), purple 13 (pink:
 * bright magenta), and brown 10 (teal: cyan), since brown's own 05 is
 * the terminal's dark red, a shade of red 04 in irssi and WeeChat.
 *
 * In HTML (Matrix) no text colour can be read well on both a white and
 * Element's dark background (#15191e): the best one reaches 4.2:1 on
 * both, short of WCAG's 4.5:1.  So a card is a tile: white text on the
 * suit's colour (data-mx-bg-color, data-mx-color), which carries its own
 * background.  Each colour gives the white text at least 4.5:1 and the
 * tile at least 3:1 against both themes (tests/test_matrix.c checks).
 */
struct palette {
	char letter;
	const char *irc;         /* mIRC colour number, readable on dark and light */
	const char *html;        /* the tile behind white text */
	const char *ansi;
};

static const struct palette palettes[] = {
	{ 'r', "04", "#d32f2f", "\033[31m" },
	{ 'y', "07", "#ad5f00", "\033[33m" },
	{ 'g', "03", "#2e7d32", "\033[32m" },
	{ 'b', "12", "#1a6fc4", "\033[34m" },
	{ 'n', "10", "#8a6552", "\033[38;5;130m" },
	{ 'p', "13", "#a040c0", "\033[35m" },
	{ 'w', NULL, NULL, "\033[1m" },
	{ 'j', "14", "#707070", "\033[90m" },
};

static const struct palette *
palette_for(char letter)
{
	for (size_t i = 0; i < sizeof(palettes) / sizeof(palettes[0]); i++)
		if (palettes[i].letter == letter)
			return &palettes[i];
	return NULL;
}

static void
html_escape(struct text *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': text_add(out, "&amp;"); break;
		case '<': text_add(out, "&lt;"); break;
		case '>': text_add(out, "&gt;"); break;
		case '"': text_add(out, "&quot;"); break;
		case '\'': text_add(out, "&#39;"); break;
		case '\n': text_add(out, "<br>"); break;
		default: add_char(out, s[i]); break;
		}
	}
}

/*
 * Appends s to IRC output.  A digit or a comma right after a colour code
 * would be read as part of the code (a colour number or a background) and
 * vanish, so an empty bold pair keeps them apart.
 */
static void
irc_addn(struct text *out, int *after_colour, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (*after_colour && ((s[0] >= '0' && s[0] <= '9') || s[0] == ','))
		text_add(out, "\x02\x02");
	*after_colour = 0;
	text_addn(out, s, n);
}

static void render_table(const char *, size_t, enum text_format,
    struct text *);

/* Where a rendering stands: what is open in the output so far. */
struct render {
	enum text_format format;
	struct text *out;
	int bold, pre, colour_open;
	int after_colour;        /* IRC output ends with a colour code */
	const struct palette *colour;
};

static void
render_bold(struct render *r)
{
	r->bold = !r->bold;
	r->after_colour = 0;
	if (r->format == TEXT_FORMAT_IRC)
		add_char(r->out, '\x02');
	else if (r->format == TEXT_FORMAT_HTML)
		text_add(r->out, r->bold ? "<b>" : "</b>");
	else if (r->format == TEXT_FORMAT_ANSI)
		text_add(r->out, r->bold ? "\033[1m" : "\033[22m");
}

/* Opens the colour of mark (a card's colour letter). */
static void
render_colour(struct render *r, char mark)
{
	const struct palette *colour = palette_for(mark);

	r->colour = colour;
	r->colour_open = 0;
	if (colour == NULL)
		return;
	if (r->format == TEXT_FORMAT_IRC) {
		if (colour->irc != NULL) {
			add_char(r->out, '\x03');
			text_add(r->out, colour->irc);
			r->after_colour = 1;
		} else {
			add_char(r->out, '\x02');
		}
		r->colour_open = 1;
	} else if (r->format == TEXT_FORMAT_HTML) {
		if (colour->html != NULL)
			text_printf(r->out, "<font data-mx-bg-color=\"%s\" "
			    "data-mx-color=\"#ffffff\">", colour->html);
		else
			text_add(r->out, "<b>");
		r->colour_open = 1;
	} else if (r->format == TEXT_FORMAT_ANSI) {
		text_add(r->out, colour->ansi);
		r->colour_open = 1;
	}
}

/* Closes an open colour (TEXT_PLAIN). */
static void
render_plain(struct render *r)
{
	if (r->colour_open) {
		if (r->format == TEXT_FORMAT_IRC) {
			add_char(r->out, r->colour->irc != NULL ?
			    '\x03' : '\x02');
			r->after_colour = r->colour->irc != NULL;
		} else if (r->format == TEXT_FORMAT_HTML)
			text_add(r->out, r->colour->html != NULL ?
			    "</font>" : "</b>");
		else if (r->format == TEXT_FORMAT_ANSI)
			text_add(r->out, r->bold ? "\033[0m\033[1m" :
			    "\033[0m");
	}
	r->colour = NULL;
	r->colour_open = 0;
}

/*
 * The table that starts at s[i] (a TEXT_TABLE mark); returns the index
 * of the last byte it used.
 */
static size_t
render_table_at(struct render *r, const char *s, size_t len, size_t i)
{
	const char *end = memchr(s + i + 1, TEXT_TABLE, len - i - 1);
	size_t n = end != NULL ? (size_t)(end - s - i - 1) : len - i - 1;

	render_table(s + i + 1, n, r->format, r->out);
	i += n + 1;
	/* A table is a block of its own in HTML: no line break after it. */
	if (r->format == TEXT_FORMAT_HTML && i + 1 < len && s[i + 1] == '\n')
		i++;
	/* A bare colour end may now close the output. */
	r->after_colour = r->format == TEXT_FORMAT_IRC && r->out->len > 0 &&
	    r->out->buf[r->out->len - 1] == '\x03';
	return i;
}

/*
 * The mention that starts at s[i] (id, TEXT_SEP, name, TEXT_MENTION);
 * returns the index of its last byte (len when it is cut off).
 */
static size_t
render_mention(struct render *r, const char *s, size_t len, size_t i)
{
	const char *end = memchr(s + i + 1, TEXT_MENTION, len - i - 1);
	const char *sep = memchr(s + i + 1, TEXT_SEP, len - i - 1);
	const char *id = s + i + 1;
	struct text *out = r->out;

	if (end == NULL || sep == NULL || sep > end)
		return len;
	if (r->format == TEXT_FORMAT_HTML) {
		text_add(out, "<a href=\"https://matrix.to/#/");
		html_escape(out, id, (size_t)(sep - id));
		text_add(out, "\">");
		html_escape(out, sep + 1, (size_t)(end - sep - 1));
		text_add(out, "</a>");
	} else if (r->format == TEXT_FORMAT_ANSI) {
		text_add(out, "\033[1m");
		text_addn(out, sep + 1, (size_t)(end - sep - 1));
		text_add(out, r->bold ? "" : "\033[22m");
	} else if (r->format == TEXT_FORMAT_IRC) {
		irc_addn(out, &r->after_colour, sep + 1,
		    (size_t)(end - sep - 1));
	} else {
		text_addn(out, sep + 1, (size_t)(end - sep - 1));
	}
	return (size_t)(end - s);
}

/* An ordinary byte s[i]. */
static void
render_char(struct render *r, const char *s, size_t len, size_t i)
{
	char c = s[i];

	if (r->format == TEXT_FORMAT_HTML) {
		/*
		 * Inside <pre> a newline is a newline; before a table, which
		 * starts a block, it is none.
		 */
		if (c == '\n' && r->pre)
			add_char(r->out, '\n');
		else if (c != '\n' || i + 1 >= len || s[i + 1] != TEXT_TABLE)
			html_escape(r->out, &c, 1);
	} else if (r->format == TEXT_FORMAT_IRC) {
		irc_addn(r->out, &r->after_colour, &c, 1);
	} else {
		add_char(r->out, c);
	}
}

/* Closes what a cut text left open. */
static void
render_close(struct render *r)
{
	if (r->format == TEXT_FORMAT_HTML) {
		if (r->colour_open)
			text_add(r->out, r->colour->html != NULL ? "</font>" :
			    "</b>");
		if (r->bold)
			text_add(r->out, "</b>");
		if (r->pre)
			text_add(r->out, "</pre>");
	} else if (r->format == TEXT_FORMAT_ANSI &&
	    (r->bold || r->colour_open)) {
		text_add(r->out, "\033[0m");
	} else if (r->format == TEXT_FORMAT_IRC &&
	    (r->bold || r->colour_open)) {
		add_char(r->out, '\x0f');
	}
}

/* Renders the marked text s of len bytes for a medium, appending to out. */
static void
render_span(const char *s, size_t len, enum text_format format,
    struct text *out)
{
	struct render r = { .format = format, .out = out };

	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case TEXT_BOLD:
			render_bold(&r);
			break;
		case TEXT_COLOR:
			/* A mark cut off from its letter opens no colour. */
			render_colour(&r, i + 1 < len ? s[++i] : '\0');
			break;
		case TEXT_PLAIN:
			render_plain(&r);
			break;
		case TEXT_PRE:
			r.pre = !r.pre;
			if (format == TEXT_FORMAT_HTML)
				text_add(out, r.pre ? "<pre>" : "</pre>");
			break;
		case TEXT_TABLE:
			i = render_table_at(&r, s, len, i);
			break;
		case TEXT_CELL:
			/* Outside a table a cell mark means nothing. */
			break;
		case TEXT_MENTION:
			i = render_mention(&r, s, len, i);
			break;
		default:
			render_char(&r, s, len, i);
			break;
		}
	}
	render_close(&r);
}

/* One cell of a table, in place in the marked text. */
struct cell {
	const char *s;
	size_t len;
};

/*
 * Splits a table's marked text into rows and cells: *cells gets nrows *
 * ncols cells, row by row, a missing cell empty.
 */
static void
table_cells(const char *s, size_t len, struct cell **cells, size_t *nrows,
    size_t *ncols)
{
	size_t rows = 1, cols = 1, n = 1, r = 0, c = 0, from = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			rows++;
			n = 1;
		} else if (s[i] == TEXT_CELL && ++n > cols) {
			cols = n;
		}
	}
	*cells = xcalloc(rows * cols, sizeof(**cells));
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n' && s[i] != TEXT_CELL)
			continue;
		(*cells)[r * cols + c].s = s + from;
		(*cells)[r * cols + c].len = i - from;
		from = i + 1;
		if (i < len && s[i] == TEXT_CELL) {
			c++;
		} else {
			r++;
			c = 0;
		}
	}
	*nrows = rows;
	*ncols = cols;
}

/* A table as HTML: a header row of <th>, then rows of <td>. */
static void
render_table_html(const struct cell *cells, size_t nrows, size_t ncols,
    struct text *out)
{
	text_add(out, "<table><thead><tr>");
	for (size_t r = 0; r < nrows; r++) {
		const char *tag = r == 0 ? "th" : "td";

		if (r == 1)
			text_add(out, "</tr></thead><tbody><tr>");
		else if (r > 1)
			text_add(out, "</tr><tr>");
		for (size_t c = 0; c < ncols; c++) {
			const struct cell *cell = &cells[r * ncols + c];

			text_printf(out, "<%s>", tag);
			render_span(cell->s, cell->len, TEXT_FORMAT_HTML, out);
			text_printf(out, "</%s>", tag);
		}
	}
	text_add(out, nrows > 1 ? "</tr></tbody></table>" :
	    "</tr></thead></table>");
}

/* Appends n spaces. */
static void
add_spaces(struct text *out, size_t n)
{
	while (n-- > 0)
		add_char(out, ' ');
}

/*
 * A cell for a text medium into shown, and its columns.  On IRC a cell
 * wider than TEXT_CELL_MAX_IRC is cut there, plain: there the names are
 * nicks that a network may let run to 30 characters or more, and a sheet
 * of six such columns would pass the width of most chat windows (a row
 * wraps and the columns no longer line up) and, with a long channel
 * name, the 512 bytes of an IRC line (a row is split).  Elsewhere a cell
 * shows whole.
 */
static size_t
render_cell(const struct cell *cell, enum text_format format,
    struct text *shown)
{
	struct text plain;
	size_t cols, used = 0, i = 0;
	int c;

	text_init(&plain);
	render_span(cell->s, cell->len, TEXT_FORMAT_PLAIN, &plain);
	cols = text_columns(text_str(&plain), plain.len);
	text_clear(shown);
	if (format != TEXT_FORMAT_IRC || cols <= TEXT_CELL_MAX_IRC) {
		render_span(cell->s, cell->len, format, shown);
		text_finish(&plain);
		return cols;
	}
	while (i < plain.len) {
		size_t k = char_columns(plain.buf + i, plain.len - i, &c);

		if (used + (size_t)c > TEXT_CELL_MAX_IRC)
			break;
		i += k;
		used += (size_t)c;
	}
	text_addn(shown, text_str(&plain), i);
	text_finish(&plain);
	return used;
}

/*
 * A table for a text medium: columns two spaces apart, each as wide as
 * its widest cell; the first column (the rows' labels) aligned to the
 * left, the others (numbers) to the right.  A terminal shows the header
 * in bold.
 */
static void
render_table_text(const struct cell *cells, size_t nrows, size_t ncols,
    enum text_format format, struct text *out)
{
	size_t *widths = xcalloc(ncols, sizeof(*widths));
	struct text shown;

	text_init(&shown);
	for (size_t i = 0; i < nrows * ncols; i++) {
		size_t cols = render_cell(&cells[i], format, &shown);

		if (cols > widths[i % ncols])
			widths[i % ncols] = cols;
	}
	for (size_t r = 0; r < nrows; r++) {
		size_t start;

		if (r > 0)
			add_char(out, '\n');
		start = out->len;
		for (size_t c = 0; c < ncols; c++) {
			size_t cols = render_cell(&cells[r * ncols + c],
			    format, &shown);
			size_t pad = widths[c] - cols;

			if (c > 0)
				add_spaces(out, 2 + pad);
			if (r == 0 && format == TEXT_FORMAT_ANSI)
				text_add(out, "\033[1m");
			text_append(out, &shown);
			if (r == 0 && format == TEXT_FORMAT_ANSI)
				text_add(out, "\033[22m");
			if (c == 0)
				add_spaces(out, pad);
		}
		/* Empty cells at the end of a row leave no trailing spaces. */
		while (out->len > start && out->buf[out->len - 1] == ' ')
			out->buf[--out->len] = '\0';
	}
	text_finish(&shown);
	free(widths);
}

static void
render_table(const char *s, size_t len, enum text_format format,
    struct text *out)
{
	struct cell *cells;
	size_t nrows, ncols;

	if (len == 0)
		return;
	table_cells(s, len, &cells, &nrows, &ncols);
	if (format == TEXT_FORMAT_HTML)
		render_table_html(cells, nrows, ncols, out);
	else
		render_table_text(cells, nrows, ncols, format, out);
	free(cells);
}

void
text_render(const struct text *t, enum text_format format, struct text *out)
{
	text_clear(out);
	render_span(text_str(t), t->len, format, out);
}

const char *
text_quote(char *out, const char *s)
{
	size_t len = 0;
	int chars = 0;

	/* A character begins at every byte that is not a continuation. */
	while (s[len] != '\0') {
		if (((unsigned char)s[len] & 0xc0) != 0x80 &&
		    chars++ == TEXT_QUOTE_CHARS)
			break;
		/* Bytes of a broken sequence count, but never overflow out. */
		if (len == TEXT_QUOTE_CHARS * 4)
			break;
		len++;
	}
	memcpy(out, s, len);
	if (s[len] != '\0') {
		memcpy(out + len, "…", sizeof("…"));
		return out;
	}
	out[len] = '\0';
	return out;
}

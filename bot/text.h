/*
 * text.h - structured messages, built once and rendered by each adapter.
 *
 * A text is UTF-8 with in-band marks made of control bytes that user text
 * can never carry (text_user() strips every control byte):
 *
 *   TEXT_BOLD         toggles bold
 *   TEXT_COLOR c      starts a card colour: r y g b n p, w (Wizard),
 *                     j (Jester), or 0 for none; ends at TEXT_PLAIN
 *   TEXT_PLAIN        ends a colour
 *   TEXT_PRE ... TEXT_PRE   a monospace block (score sheets)
 *   TEXT_MENTION id TEXT_SEP name TEXT_MENTION   a mention of a user
 *   TEXT_TABLE rows TEXT_TABLE   a table: '\n' between rows, TEXT_CELL
 *                     between the cells of a row; the first row is the
 *                     header, the first column labels its row
 *
 * '\n' separates lines.  Renderers turn marks into mIRC codes (IRC), HTML
 * (Matrix), ANSI escapes (a terminal) or nothing (plain text).  A table is
 * laid out by the renderer, which alone knows how wide a cell shows: text
 * media align its columns with spaces (the first column to the left, the
 * others, mostly numbers, to the right), HTML makes it a <table>.
 */
#ifndef STICHBOT_TEXT_H
#define STICHBOT_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#define TEXT_BOLD '\x02'
#define TEXT_COLOR '\x03'
#define TEXT_PLAIN '\x0f'
#define TEXT_PRE '\x1c'
#define TEXT_MENTION '\x1e'
#define TEXT_SEP '\x1f'
#define TEXT_TABLE '\x1d'
#define TEXT_CELL '\x1a'

/*
 * The widest a table cell shows on IRC, in columns; a longer cell is cut
 * (see text.c).
 */
#define TEXT_CELL_MAX_IRC 14

struct text {
	char *buf;
	size_t len, cap;
};

enum text_format {
	TEXT_FORMAT_PLAIN,
	TEXT_FORMAT_IRC,
	TEXT_FORMAT_HTML,
	TEXT_FORMAT_ANSI,
};

void text_init(struct text *t);
void text_finish(struct text *t);
void text_clear(struct text *t);
/* The text so far, NUL-terminated (never NULL). */
const char *text_str(const struct text *t);

/* Our own words, marks allowed (never user input). */
void text_add(struct text *t, const char *s);
void text_addn(struct text *t, const char *s, size_t n);
void text_printf(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void text_vprintf(struct text *t, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/*
 * Text that came from a user (names, arguments): control bytes and invalid
 * UTF-8 are dropped, so nothing a user types can forge a mark, a line
 * break or a protocol command.
 */
void text_user(struct text *t, const char *s);
/*
 * A command line as the bot reads it: what text_user() drops, but a tab
 * or a line break read as a space and each broken UTF-8 sequence as
 * U+FFFD, so that "!st<BEL>atus" is !status, "!game wiz<LF>ard" is two
 * words, not "wizard", and a refusal quotes what cannot be read as
 * "\xef\xbf\xbd", not as nothing.
 */
void text_command_line(struct text *t, const char *s);
/*
 * The length of the valid UTF-8 character at s, its code point in *cp;
 * 0 (and *cp unchanged) when s starts none, also at the end.
 */
size_t text_code_point(const char *s, unsigned int *cp);
/*
 * The length of the character at s when it is valid UTF-8 and not a
 * control character (C0, DEL, C1); 0 otherwise (also at the end).
 */
size_t text_char_length(const char *s);
void text_bold(struct text *t, const char *s);
/* A card code coloured by its suit letter (see above). */
void text_card(struct text *t, char color, const char *code);
void text_mention(struct text *t, const char *user_id, const char *name);
void text_pre_begin(struct text *t);
void text_pre_end(struct text *t);
/*
 * A table: text_table_begin(), the header's cells with text_table_cell()
 * between them, text_table_row() before each further row, and
 * text_table_end().  Rows may have fewer cells than the widest; the
 * missing ones show empty.
 */
void text_table_begin(struct text *t);
void text_table_cell(struct text *t);
void text_table_row(struct text *t);
void text_table_end(struct text *t);
/* How many terminal columns s (UTF-8 without marks) takes. */
size_t text_columns(const char *s, size_t n);
/* Appends another text with its marks. */
void text_append(struct text *t, const struct text *other);

/* Renders t for a medium into out (cleared first). */
void text_render(const struct text *t, enum text_format format,
    struct text *out);

/*
 * What a user typed, as a reply quotes it ("Unknown command \"yyy…\""):
 * at most TEXT_QUOTE_CHARS characters, so that a long line typed is not
 * said back in full.  Every reply that quotes a user's argument goes
 * through text_quote(): it copies s into out, cut after the limit on a
 * UTF-8 character boundary and followed by "…", and returns out.  The
 * copy is still user text (sanitise it: i18n's "s" and "b").
 */
#define TEXT_QUOTE_CHARS 24
#define TEXT_QUOTE_SIZE (TEXT_QUOTE_CHARS * 4 + sizeof("…"))
const char *text_quote(char *out, const char *s);

/* Strips control bytes and invalid UTF-8 from s into a new string. */
char *text_sanitize(const char *s);

#endif

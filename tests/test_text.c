/*
 * test_text.c - structured text: user text can never forge marks, line
 * breaks or protocol bytes; each renderer turns marks into its medium's
 * codes and escapes what it must (HTML for Matrix).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "text.h"

static char *
render(const struct text *t, enum text_format format)
{
	struct text out;
	char *s;

	text_init(&out);
	text_render(t, format, &out);
	s = strdup(text_str(&out));
	text_finish(&out);
	return s;
}

static void
test_user_text_is_sanitized(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_user(&t, "evil\r\nPRIVMSG #x :hi\x02\x03" "04\x1e" "a\x1f" "b\x7f");
	assert_null(strchr(text_str(&t), '\r'));
	assert_null(strchr(text_str(&t), '\n'));
	assert_null(strchr(text_str(&t), TEXT_MENTION));
	/* A line break between words is a space. */
	assert_string_equal(text_str(&t), "evil PRIVMSG #x :hi04ab");
	text_clear(&t);
	/* Invalid UTF-8 and C1 controls go; valid multibyte stays. */
	text_user(&t, "\xe5\xa5\xbd\xff\xc0\xaf ok \xc2\x85x \xf0\x9f\x83\x8f");
	assert_string_equal(text_str(&t), "\xe5\xa5\xbd ok x \xf0\x9f\x83\x8f");
	text_clear(&t);
	/*
	 * Bidirectional overrides, embeddings and isolates go (RLO, LRE,
	 * PDF, RLI, PDI); marks (RLM) and right-to-left letters stay.
	 */
	text_user(&t, "\xe2\x80\xae" "Bob\xe2\x80\xaa" "x\xe2\x80\xac"
	    "\xe2\x81\xa7" "y\xe2\x81\xa9" "\xe2\x80\x8f\xd7\x90");
	assert_string_equal(text_str(&t), "Bobxy\xe2\x80\x8f\xd7\x90");
	text_finish(&t);
	s = text_sanitize("a\0b");
	assert_string_equal(s, "a");
	free(s);
}

/* A command line: what cannot show goes, what cannot be read is marked. */
static void
test_command_line(void **unused)
{
	struct text t;

	(void)unused;
	text_init(&t);
	text_command_line(&t, "!st\x07""atus\tnow");
	assert_string_equal(text_str(&t), "!status now");
	text_clear(&t);
	/* One mark per run of broken bytes; C1 and bidi controls go whole. */
	text_command_line(&t, "a\xff\xfe b\xc2\x81\xe2\x80\xae""c\xc3");
	assert_string_equal(text_str(&t), "a\xef\xbf\xbd bc\xef\xbf\xbd");
	text_clear(&t);
	/* Line breaks part words: a second line is not glued to the first. */
	text_command_line(&t, "!option rounds=1\n5\r\nx\vy\fz\xc2\x85"
	    "" "a\xe2\x80\xa8""b\xe2\x80\xa9""c");
	assert_string_equal(text_str(&t), "!option rounds=1 5  x y z a b c");
	text_clear(&t);
	/*
	 * What shows nothing and marks nothing goes: the zero-width space,
	 * the word joiner, the byte order mark; joiners and marks stay.
	 */
	text_command_line(&t, "!sta\xe2\x80\x8btus \xef\xbb\xbf"
	    "a\xe2\x81\xa0""b\xe2\x80\x8e""c\xe2\x80\x8d""d");
	assert_string_equal(text_str(&t),
	    "!status ab\xe2\x80\x8e""c\xe2\x80\x8d""d");
	text_finish(&t);
}

static void
test_irc_rendering(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_bold(&t, "Ann");
	text_add(&t, " plays ");
	text_card(&t, 'r', "r7");
	text_add(&t, " ");
	text_card(&t, 'w', "W");
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\x02" "Ann\x02 plays \x03" "04r7\x03 \x02W\x02");
	free(s);
	s = render(&t, TEXT_FORMAT_PLAIN);
	assert_string_equal(s, "Ann plays r7 W");
	free(s);
	text_finish(&t);
}

static void
test_html_rendering_escapes(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_mention(&t, "@bob:example.org", "<b>Bob</b>");
	text_add(&t, ": ");
	text_user(&t, "<script>&\"'");
	text_card(&t, 'g', "g12");
	text_add(&t, "\n");
	text_pre_begin(&t);
	text_add(&t, "a  b\nc  d");
	text_pre_end(&t);
	s = render(&t, TEXT_FORMAT_HTML);
	assert_string_equal(s,
	    "<a href=\"https://matrix.to/#/@bob:example.org\">&lt;b&gt;Bob"
	    "&lt;/b&gt;</a>: &lt;script&gt;&amp;&quot;&#39;"
	    "<font data-mx-bg-color=\"#2e7d32\" data-mx-color=\"#ffffff\">"
	    "g12</font><br><pre>a  b\nc  d</pre>");
	free(s);
	s = render(&t, TEXT_FORMAT_PLAIN);
	assert_string_equal(s, "<b>Bob</b>: <script>&\"'g12\na  b\nc  d");
	free(s);
	text_finish(&t);
}

static void
test_ansi_rendering(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_card(&t, 'b', "b3");
	text_bold(&t, "x");
	s = render(&t, TEXT_FORMAT_ANSI);
	assert_string_equal(s, "\033[34mb3\033[0m\033[1mx\033[22m");
	free(s);
	text_finish(&t);
}

static void
test_cut_text_is_closed(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_add(&t, "\x02" "bold \x03r");
	s = render(&t, TEXT_FORMAT_HTML);
	assert_string_equal(s, "<b>bold <font data-mx-bg-color=\"#d32f2f\" "
	    "data-mx-color=\"#ffffff\"></font></b>");
	free(s);
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\x02" "bold \x03" "04\x0f");
	free(s);
	text_finish(&t);
}

/*
 * Found by fuzz/fuzz_text: mIRC reads up to two digits and ",N" after a
 * colour code, so text after a card that starts with a digit or a comma
 * must not touch the code, or it vanishes into it.
 */
static void
test_irc_digits_after_colour(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_card(&t, 'r', "r7");
	text_user(&t, "5 tricks");
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\x03" "04r7\x03\x02\x02" "5 tricks");
	free(s);
	text_clear(&t);
	text_add(&t, "\x03r");
	text_user(&t, ",3");
	text_add(&t, "\x0f");
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\x03" "04\x02\x02,3\x03");
	free(s);
	text_clear(&t);
	/* Other text after a colour stays as it was. */
	text_card(&t, 'r', "r7");
	text_add(&t, " 5");
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\x03" "04r7\x03 5");
	free(s);
	text_finish(&t);
}

/* A small score sheet: a long name, one with HTML's specials, a wide one. */
static void
sheet(struct text *t)
{
	text_table_begin(t);
	text_add(t, "Round");
	text_table_cell(t);
	text_user(t, "@alice.wonderland:example.org");
	text_table_cell(t);
	text_user(t, "<b&o>\x02\r\n");
	text_table_cell(t);
	text_user(t, "\xe5\xa4\xaa\xe9\x83\x8e");       /* 太郎, 4 columns */
	text_table_row(t);
	text_add(t, "1");
	text_table_cell(t);
	text_add(t, "1/1 +30");
	text_table_cell(t);
	text_add(t, "0/1 -10");
	text_table_cell(t);
	text_add(t, "0/0 +20");
	text_table_row(t);
	text_add(t, "Total");
	text_table_cell(t);
	text_add(t, "30");
	text_table_cell(t);
	text_add(t, "-10");
	text_table_cell(t);
	text_add(t, "20");
	text_table_end(t);
	text_add(t, "\nLegend");
}

static void
test_table_plain_aligns_whole_names(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_add(&t, "Scores:\n");
	sheet(&t);
	s = render(&t, TEXT_FORMAT_PLAIN);
	/* The wide name takes 4 columns, so the 7-column cells pad it by 3. */
	assert_string_equal(s, "Scores:\n"
	    "Round  @alice.wonderland:example.org    <b&o>     "
	    "\xe5\xa4\xaa\xe9\x83\x8e\n"
	    "1                            1/1 +30  0/1 -10  0/0 +20\n"
	    "Total                             30      -10       20\n"
	    "Legend");
	free(s);
	text_finish(&t);
}

static void
test_table_irc_cuts_long_names(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	sheet(&t);
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s,
	    "Round  @alice.wonderl    <b&o>     \xe5\xa4\xaa\xe9\x83\x8e\n"
	    "1             1/1 +30  0/1 -10  0/0 +20\n"
	    "Total              30      -10       20\n"
	    "Legend");
	free(s);
	text_clear(&t);
	/* A cut never splits a wide character: 7 of them take 14 columns. */
	text_table_begin(&t);
	for (int i = 0; i < 8; i++)
		text_add(&t, "\xe5\xa4\xaa");
	text_table_cell(&t);
	text_add(&t, "x");
	text_table_end(&t);
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "\xe5\xa4\xaa\xe5\xa4\xaa\xe5\xa4\xaa"
	    "\xe5\xa4\xaa\xe5\xa4\xaa\xe5\xa4\xaa\xe5\xa4\xaa  x");
	free(s);
	text_finish(&t);
}

static void
test_table_html(void **unused)
{
	struct text t;
	char *s;

	text_init(&t);
	text_add(&t, "Scores:\n");
	sheet(&t);
	s = render(&t, TEXT_FORMAT_HTML);
	/* Whole names, escaped; no <br> around the block. */
	assert_string_equal(s, "Scores:<table><thead><tr><th>Round</th>"
	    "<th>@alice.wonderland:example.org</th><th>&lt;b&amp;o&gt;</th>"
	    "<th>\xe5\xa4\xaa\xe9\x83\x8e</th></tr></thead><tbody>"
	    "<tr><td>1</td><td>1/1 +30</td><td>0/1 -10</td><td>0/0 +20</td>"
	    "</tr><tr><td>Total</td><td>30</td><td>-10</td><td>20</td>"
	    "</tr></tbody></table>Legend");
	free(s);
	text_finish(&t);
}

static void
test_table_marks_in_cells(void **unused)
{
	struct text t;
	char *s;

	/*
	 * A short row, coloured cells: padding counts only what shows, and
	 * the missing cell leaves no trailing spaces.
	 */
	text_init(&t);
	text_table_begin(&t);
	text_add(&t, "a");
	text_table_cell(&t);
	text_add(&t, "b");
	text_table_cell(&t);
	text_add(&t, "c");
	text_table_row(&t);
	text_card(&t, 'r', "r10");
	text_table_cell(&t);
	text_bold(&t, "xy");
	text_table_end(&t);
	s = render(&t, TEXT_FORMAT_IRC);
	assert_string_equal(s, "a     b  c\n\x03" "04r10\x03  \x02xy\x02");
	free(s);
	s = render(&t, TEXT_FORMAT_ANSI);
	assert_string_equal(s, "\033[1ma\033[22m     \033[1mb\033[22m  "
	    "\033[1mc\033[22m\n\033[31mr10\033[0m  \033[1mxy\033[22m");
	free(s);
	s = render(&t, TEXT_FORMAT_HTML);
	assert_string_equal(s, "<table><thead><tr><th>a</th><th>b</th>"
	    "<th>c</th></tr></thead><tbody><tr><td><font data-mx-bg-color="
	    "\"#d32f2f\" data-mx-color=\"#ffffff\">r10</font></td><td><b>xy"
	    "</b></td><td></td></tr></tbody></table>");
	free(s);
	/* A table cut before its end mark still shows, closed. */
	text_clear(&t);
	text_table_begin(&t);
	text_add(&t, "h");
	s = render(&t, TEXT_FORMAT_HTML);
	assert_string_equal(s, "<table><thead><tr><th>h</th></tr></thead>"
	    "</table>");
	free(s);
	/* A cell mark outside a table shows nothing. */
	text_clear(&t);
	text_add(&t, "a");
	text_table_cell(&t);
	text_add(&t, "b");
	s = render(&t, TEXT_FORMAT_PLAIN);
	assert_string_equal(s, "ab");
	free(s);
	text_finish(&t);
}

static void
test_text_columns(void **unused)
{
	assert_int_equal(text_columns("abc", 3), 3);
	/* あい: wide; é as e and a combining accent: one column. */
	assert_int_equal(text_columns("\xe3\x81\x82\xe3\x81\x84", 6), 4);
	assert_int_equal(text_columns("e\xcc\x81", 3), 1);
	/* A broken byte counts as one. */
	assert_int_equal(text_columns("\xff" "a", 2), 2);
}

/*
 * What a reply quotes of a user's words: short ones whole, long ones cut
 * to TEXT_QUOTE_CHARS characters (never inside a UTF-8 character) and
 * "…", however long or broken the input.
 */
static void
test_quote(void **unused)
{
	char out[TEXT_QUOTE_SIZE], in[1024];
	const char *kana = "あいうえおかきくけこさしすせそたちつてとなにぬねの";

	(void)unused;
	assert_string_equal(text_quote(out, ""), "");
	assert_string_equal(text_quote(out, "r5"), "r5");
	memset(in, 'x', 24);
	in[24] = '\0';
	assert_string_equal(text_quote(out, in), in);
	memset(in, 'x', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	text_quote(out, in);
	assert_int_equal(strlen(out), 24 + strlen("…"));
	assert_string_equal(out + 24, "…");
	/* 25 kana of three bytes each: 24 of them, then the ellipsis. */
	text_quote(out, kana);
	assert_int_equal(strlen(out), 24 * 3 + strlen("…"));
	assert_memory_equal(out, kana, 24 * 3);
	/* Continuation bytes alone never overflow the buffer. */
	memset(in, '\x80', sizeof(in) - 1);
	text_quote(out, in);
	assert_true(strlen(out) < sizeof(out));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_text_is_sanitized),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_irc_rendering),
		cmocka_unit_test(test_html_rendering_escapes),
		cmocka_unit_test(test_ansi_rendering),
		cmocka_unit_test(test_cut_text_is_closed),
		cmocka_unit_test(test_irc_digits_after_colour),
		cmocka_unit_test(test_table_plain_aligns_whole_names),
		cmocka_unit_test(test_table_irc_cuts_long_names),
		cmocka_unit_test(test_table_html),
		cmocka_unit_test(test_table_marks_in_cells),
		cmocka_unit_test(test_text_columns),
		cmocka_unit_test(test_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

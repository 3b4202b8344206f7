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
	assert_string_equal(text_str(&t), "evilPRIVMSG #x :hi04ab");
	text_clear(&t);
	/* Invalid UTF-8 and C1 controls go; valid multibyte stays. */
	text_user(&t, "\xe5\xa5\xbd\xff\xc0\xaf ok \xc2\x85x \xf0\x9f\x83\x8f");
	assert_string_equal(text_str(&t), "\xe5\xa5\xbd ok x \xf0\x9f\x83\x8f");
	text_finish(&t);
	s = text_sanitize("a\0b");
	assert_string_equal(s, "a");
	free(s);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_text_is_sanitized),
		cmocka_unit_test(test_irc_rendering),
		cmocka_unit_test(test_html_rendering_escapes),
		cmocka_unit_test(test_ansi_rendering),
		cmocka_unit_test(test_cut_text_is_closed),
		cmocka_unit_test(test_irc_digits_after_colour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

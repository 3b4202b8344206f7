/*
 * test_log.c - the log (bot/log.c): one line per call whatever it quotes,
 * and the secrets it was told of never written, even when a caller passes
 * text that quotes them (a server echoing a request in its error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"

static char captured[2048];

static void
capture(enum log_level level, const char *line, void *arg)
{
	(void)level;
	(void)arg;
	snprintf(captured, sizeof(captured), "%s", line);
}

static void
test_one_line(void **state)
{
	(void)state;
	log_capture(capture, NULL);
	log_warn("first\nsecond\rthird");
	assert_string_equal(captured, "first second third");
	log_capture(NULL, NULL);
}

static void
test_secrets_hidden(void **state)
{
	(void)state;
	log_capture(capture, NULL);
	log_secret("syt_SECRETTOKEN123");
	log_secret("MatrixPW_SECRET9");
	log_warn("matrix m: logging in failed (HTTP 400 M_UNKNOWN: echo: "
	    "Bearer %s {\"password\":\"%s\"} again %s)", "syt_SECRETTOKEN123",
	    "MatrixPW_SECRET9", "syt_SECRETTOKEN123");
	assert_null(strstr(captured, "SECRET"));
	assert_string_equal(captured, "matrix m: logging in failed (HTTP 400 "
	    "M_UNKNOWN: echo: Bearer [secret] {\"password\":\"[secret]\"} "
	    "again [secret])");
	/* A short secret becomes stars; one of under 4 bytes is ignored. */
	log_secret("abcde");
	log_secret("xy");
	log_info("abcde xy");
	assert_string_equal(captured, "***** xy");
	log_capture(NULL, NULL);
}

static void
test_secrets_kept(void **state)
{
	char secret[32];

	(void)state;
	log_capture(capture, NULL);
	/* Giving the same one again takes no slot; the oldest go last. */
	for (int i = 0; i < LOG_SECRETS; i++)
		log_secret("the-newest-secret");
	for (int i = 0; i < LOG_SECRETS - 1; i++) {
		snprintf(secret, sizeof(secret), "filler-secret-%d", i);
		log_secret(secret);
	}
	log_info("the-newest-secret filler-secret-0");
	assert_string_equal(captured, "[secret] [secret]");
	log_capture(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_line),
		cmocka_unit_test(test_secrets_hidden),
		cmocka_unit_test(test_secrets_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_xmalloc.c - allocation that cannot fail (bot/xmalloc.c): copies and
 * formats are exact, and a request that cannot be met ends the process
 * with SIGABRT after one log line naming the size, rather than returning
 * NULL to a caller that no longer checks.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "xmalloc.h"

/* Arrays grow by doubling, keep their items, and never shrink. */
static void
test_array_grow(void **state)
{
	int *items = NULL, cap = 0;

	(void)state;
	xarray_grow((void **)&items, &cap, 1, sizeof(*items));
	assert_non_null(items);
	assert_int_equal(cap, 8);
	for (int i = 0; i < 8; i++)
		items[i] = i;
	xarray_grow((void **)&items, &cap, 9, sizeof(*items));
	assert_int_equal(cap, 16);
	xarray_grow((void **)&items, &cap, 100, sizeof(*items));
	assert_int_equal(cap, 128);
	for (int i = 0; i < 8; i++)
		assert_int_equal(items[i], i);
	xarray_grow((void **)&items, &cap, 3, sizeof(*items));
	assert_int_equal(cap, 128);
	free(items);
}

/* Several strings in one block: copies, NULLs kept, one free for all. */
static void
test_strdupv(void **state)
{
	const char *in[3] = { "libera", "#cards", NULL };
	const char *more[4] = { "a", "", "bcd", "e" };
	char *out[4];

	(void)state;
	xstrdupv(out, in, 3);
	assert_string_equal(out[0], "libera");
	assert_string_equal(out[1], "#cards");
	assert_null(out[2]);
	assert_ptr_not_equal(out[0], in[0]);
	assert_ptr_equal(out[1], out[0] + 7);
	free(out[0]);
	xstrdupv(out, more, 4);
	for (int i = 0; i < 4; i++)
		assert_string_equal(out[i], more[i]);
	free(out[0]);
}

static void
test_copies(void **state)
{
	char *s, *t;
	int *v;

	(void)state;
	s = xstrdup("stichbot");
	assert_string_equal(s, "stichbot");
	free(s);
	s = xstrdup("");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(xasprintf(&t, "%s %d", "seat", 42), 7);
	assert_string_equal(t, "seat 42");
	free(t);
	/* Longer than the first try's buffer: formatted a second time. */
	assert_int_equal(xasprintf(&t, "%0300d|%s", 7, "end"), 304);
	assert_int_equal(strlen(t), 304);
	assert_string_equal(t + 299, "7|end");
	free(t);
	v = xcalloc(4, sizeof(*v));
	for (int i = 0; i < 4; i++)
		assert_int_equal(v[i], 0);
	v = xreallocarray(v, 1000, sizeof(*v));
	v[999] = 7;
	assert_int_equal(v[999], 7);
	free(v);
	/* Zero bytes is still a pointer that free() takes. */
	free(xmalloc(0));
	free(xcalloc(0, 8));
}

/* The child's end of the pipe its log lines go to. */
static int child_fd = -1;

static void
to_pipe(enum log_level level, const char *line, void *arg)
{
	(void)arg;
	if (level == LOG_LEVEL_ERROR && write(child_fd, line,
	    strlen(line)) < 0)
		_exit(3);
}

/*
 * Runs fn in a child and returns the signal that ended it (0: none); the
 * child's error log lines come back in line through a pipe.
 */
static int
dies_of(void (*fn)(void), char *line, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		child_fd = fds[1];
		log_capture(to_pipe, NULL);
		fn();
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], line, len - 1);
	line[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void
overflow(void)
{
	(void)xreallocarray(NULL, SIZE_MAX / 2, 4);
}

#ifndef __SANITIZE_ADDRESS__
static void
too_much(void)
{
	(void)xmalloc(SIZE_MAX - 4096);
}
#endif

static void
test_fatal(void **state)
{
	char line[256];

	(void)state;
	assert_int_equal(dies_of(overflow, line, sizeof(line)), SIGABRT);
	assert_non_null(strstr(line, "out of memory"));
	assert_non_null(strstr(line, "overflow"));
#ifndef __SANITIZE_ADDRESS__
	/* AddressSanitizer reports a request this large itself and exits. */
	assert_int_equal(dies_of(too_much, line, sizeof(line)), SIGABRT);
	assert_non_null(strstr(line, "out of memory: malloc"));
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_strdupv),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_fatal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

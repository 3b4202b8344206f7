/*
 * test_loop.c - the event loop: timers in due order (ties in creation
 * order), cancellation (also of stale ids whose slot was reused), timers
 * set from timer callbacks, fd readiness, hooks, and the virtual clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"

struct log {
	int order[64];
	int n;
};

static void
record(struct loop *loop, uint64_t id, void *arg)
{
	struct log *log = arg;

	(void)loop;
	(void)id;
	log->order[log->n++] = (int)(loop_now(loop) % 100000);
}

static struct log tagged;

static void
tag(struct loop *loop, uint64_t id, void *arg)
{
	(void)loop;
	(void)id;
	tagged.order[tagged.n++] = (int)(intptr_t)arg;
}

static void
test_timers_fire_in_order(void **unused)
{
	struct loop *loop = loop_create(1);

	memset(&tagged, 0, sizeof(tagged));
	loop_timer(loop, 300, tag, (void *)3);
	loop_timer(loop, 100, tag, (void *)1);
	loop_timer(loop, 200, tag, (void *)2);
	loop_timer(loop, 100, tag, (void *)11);   /* same time: after 1 */
	loop_advance(loop, 99);
	assert_int_equal(tagged.n, 0);
	loop_advance(loop, 1);
	assert_int_equal(tagged.n, 2);
	assert_int_equal(tagged.order[0], 1);
	assert_int_equal(tagged.order[1], 11);
	loop_advance(loop, 1000);
	assert_int_equal(tagged.n, 4);
	assert_int_equal(tagged.order[2], 2);
	assert_int_equal(tagged.order[3], 3);
	loop_destroy(loop);
}

static void
test_cancel_and_stale_ids(void **unused)
{
	struct loop *loop = loop_create(1);
	uint64_t a, b, c;

	memset(&tagged, 0, sizeof(tagged));
	a = loop_timer(loop, 100, tag, (void *)1);
	b = loop_timer(loop, 200, tag, (void *)2);
	assert_int_equal(loop_timer_left(loop, a), 100);
	loop_cancel(loop, a);
	assert_int_equal(loop_timer_left(loop, a), -1);
	/* The freed slot is reused; the stale id must not cancel it. */
	c = loop_timer(loop, 50, tag, (void *)3);
	assert_true(c != a);
	loop_cancel(loop, a);
	loop_cancel(loop, 0);
	loop_cancel(loop, 12345678);
	loop_advance(loop, 1000);
	assert_int_equal(tagged.n, 2);
	assert_int_equal(tagged.order[0], 3);
	assert_int_equal(tagged.order[1], 2);
	/* Fired timers cannot be cancelled or queried. */
	loop_cancel(loop, b);
	assert_int_equal(loop_timer_left(loop, b), -1);
	loop_destroy(loop);
}

static void
rearm(struct loop *loop, uint64_t id, void *arg)
{
	struct log *log = arg;

	record(loop, id, arg);
	if (log->n < 5)
		loop_timer(loop, 10, rearm, arg);
}

static void
test_timer_set_from_a_timer(void **unused)
{
	struct loop *loop = loop_create(1);
	struct log log = { { 0 }, 0 };

	loop_timer(loop, 10, rearm, &log);
	loop_advance(loop, 100);
	assert_int_equal(log.n, 5);
	/* Each fired at its own due time, 10 ms apart. */
	for (int i = 1; i < 5; i++)
		assert_int_equal(log.order[i] - log.order[i - 1], 10);
	loop_destroy(loop);
}

static void
test_many_timers_heap(void **unused)
{
	struct loop *loop = loop_create(1);
	uint64_t ids[2000];
	struct log log = { { 0 }, 0 };

	/* Cancel most of 2000 timers in a scrambled order; 50 remain. */
	for (int i = 0; i < 2000; i++)
		ids[i] = loop_timer(loop, (uint64_t)((i * 7919) % 2000) + 1,
		    record, &log);
	for (int i = 0; i < 2000; i++)
		if (i % 40 != 0)
			loop_cancel(loop, ids[(i * 13) % 2000]);
	loop_advance(loop, 5000);
	assert_int_equal(log.n, 50);
	for (int i = 1; i < log.n; i++)
		assert_true(log.order[i] >= log.order[i - 1]);
	loop_destroy(loop);
}

static int fd_events;

static void
on_fd(struct loop *loop, int fd, int events, void *arg)
{
	char buf[16];

	(void)arg;
	fd_events |= events;
	if (read(fd, buf, sizeof(buf)) <= 0)
		loop_unwatch(loop, fd);
	loop_stop(loop);
}

static int hook_calls;

static int
hook(struct loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	hook_calls++;
	return 5;
}

static void
test_fd_readiness_and_hooks(void **unused)
{
	struct loop *loop = loop_create(0);
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(loop_watch(loop, fds[0], LOOP_READ, on_fd, NULL), 0);
	assert_int_equal(loop_hook(loop, hook, NULL), 0);
	/* Nothing to read: the hook limits the wait to 5 ms. */
	assert_int_equal(loop_run_once(loop, 1000), 0);
	assert_int_equal(fd_events, 0);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(loop_run(loop), 0);
	assert_true(fd_events & LOOP_READ);
	assert_true(loop_stopped(loop));
	loop_unhook(loop, hook, NULL);
	loop_unwatch(loop, fds[0]);
	assert_int_equal(loop_run_once(loop, 0), 0);
	assert_int_equal(hook_calls, 2);
	close(fds[0]);
	close(fds[1]);
	loop_destroy(loop);
}

static void
test_real_clock_timer(void **unused)
{
	struct loop *loop = loop_create(0);
	struct log log = { { 0 }, 0 };
	uint64_t start = loop_now(loop);

	loop_timer(loop, 20, record, &log);
	while (log.n == 0)
		assert_int_equal(loop_run_once(loop, -1), 0);
	assert_true(loop_now(loop) - start >= 20);
	loop_destroy(loop);
}

/* Retry delays: doubling, capped, half of each picked at random. */
static void
test_backoff(void **unused)
{
	uint64_t prev = 0;

	assert_int_equal(loop_backoff(0, 1000, 60000, 0), 500);
	assert_int_equal(loop_backoff(0, 1000, 60000, 500), 1000);
	assert_int_equal(loop_backoff(0, 1000, 60000, 501), 500);
	assert_int_equal(loop_backoff(3, 1000, 60000, 0), 4000);
	assert_int_equal(loop_backoff(3, 1000, 60000, 4000), 8000);
	/* Capped at max however many attempts. */
	assert_int_equal(loop_backoff(40, 1000, 60000, 30000), 60000);
	assert_int_equal(loop_backoff(1000, 1000, 60000, 0), 30000);
	for (unsigned i = 0; i < 12; i++) {
		for (uint64_t r = 0; r < 100; r++) {
			uint64_t d = loop_backoff(i, 500, 30000, r * 7919);

			assert_true(d >= 250 && d <= 30000);
		}
		/* The shortest possible delay never shrinks. */
		assert_true(loop_backoff(i, 500, 30000, 0) >= prev);
		prev = loop_backoff(i, 500, 30000, 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_fire_in_order),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_cancel_and_stale_ids),
		cmocka_unit_test(test_timer_set_from_a_timer),
		cmocka_unit_test(test_many_timers_heap),
		cmocka_unit_test(test_fd_readiness_and_hooks),
		cmocka_unit_test(test_real_clock_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

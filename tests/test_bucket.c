/*
 * test_bucket.c - token buckets (bot/bucket.c): one bucket's arithmetic,
 * and the keyed set that limits each person's commands: separate books
 * per key and per scope, one first refusal, and forgetting people whose
 * buckets refilled so the set stays as small as the recent crowd.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "bucket.h"

static void
test_bucket(void **state)
{
	struct bucket b;

	(void)state;
	bucket_init(&b, 4, 2000, 1000);
	assert_true(bucket_full(&b, 1000));
	for (int i = 0; i < 4; i++)
		assert_int_equal(bucket_take(&b, 1000), 1);
	assert_int_equal(bucket_take(&b, 1000), 0);
	assert_false(bucket_full(&b, 1000));
	assert_int_equal(bucket_wait(&b, 1000), 2000);
	assert_int_equal(bucket_wait(&b, 2500), 500);
	assert_int_equal(bucket_take(&b, 2999), 0);
	assert_int_equal(bucket_take(&b, 3000), 1);
	bucket_refund(&b);
	assert_int_equal(bucket_take(&b, 3000), 1);
	/* Credit never exceeds the burst. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(bucket_take(&b, 100000), 1);
	assert_int_equal(bucket_take(&b, 100000), 0);
	assert_true(bucket_full(&b, 100000 + 4 * 2000));
	/* A clock that goes back earns nothing and loses nothing. */
	assert_int_equal(bucket_wait(&b, 50), 0);
}

/* A burst passes, then the first refusal is told apart from the rest. */
static void
test_buckets_verdicts(void **state)
{
	struct buckets *set = buckets_create(3, 1000);
	int scope;

	(void)state;
	assert_non_null(set);
	for (int i = 0; i < 3; i++)
		assert_int_equal(buckets_take(set, &scope, "ann", 0),
		    BUCKET_PASS);
	assert_int_equal(buckets_take(set, &scope, "ann", 0),
	    BUCKET_REFUSE_FIRST);
	for (int i = 0; i < 200; i++)
		assert_int_equal(buckets_take(set, &scope, "ann", 10),
		    BUCKET_REFUSE);
	/* A token earned back passes, and a later refusal is "first" again. */
	assert_int_equal(buckets_take(set, &scope, "ann", 1000), BUCKET_PASS);
	assert_int_equal(buckets_take(set, &scope, "ann", 1001),
	    BUCKET_REFUSE_FIRST);
	assert_int_equal(buckets_count(set), 1);
	buckets_destroy(set);
}

/* Each key, and the same key on another network, has its own bucket. */
static void
test_buckets_keys(void **state)
{
	struct buckets *set = buckets_create(1, 1000);
	int libera, oftc;

	(void)state;
	assert_int_equal(buckets_take(set, &libera, "ann", 0), BUCKET_PASS);
	assert_int_equal(buckets_take(set, &libera, "ann", 0),
	    BUCKET_REFUSE_FIRST);
	assert_int_equal(buckets_take(set, &libera, "ben", 0), BUCKET_PASS);
	assert_int_equal(buckets_take(set, &oftc, "ann", 0), BUCKET_PASS);
	/* A key that is a prefix of another is another key. */
	assert_int_equal(buckets_take(set, &libera, "an", 0), BUCKET_PASS);
	assert_int_equal(buckets_count(set), 4);
	buckets_destroy(set);
}

/*
 * 10,000 people, one command each, 100 ms apart: a bucket that gave one
 * token refills in 1 s, so about 10 people are live at any time.  The set
 * drops refilled buckets before it grows, so it stays at a 32-slot table
 * (at most half full) instead of growing to 10,000.
 */
static void
test_buckets_forget(void **state)
{
	struct buckets *set = buckets_create(2, 1000);
	char key[32];
	size_t most = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "user%d", i);
		assert_int_equal(buckets_take(set, set, key,
		    (uint64_t)i * 100), BUCKET_PASS);
		if (buckets_count(set) > most)
			most = buckets_count(set);
	}
	assert_true(most <= 16);
	/* Someone forgotten starts again with a full bucket. */
	assert_int_equal(buckets_take(set, set, "user0", 2000000),
	    BUCKET_PASS);
	assert_int_equal(buckets_take(set, set, "user0", 2000000),
	    BUCKET_PASS);
	assert_int_equal(buckets_take(set, set, "user0", 2000000),
	    BUCKET_REFUSE_FIRST);
	buckets_destroy(set);
	buckets_destroy(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_buckets_verdicts),
		cmocka_unit_test(test_buckets_keys),
		cmocka_unit_test(test_buckets_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_rng.c - the documented generator: fixed outputs for fixed seeds (so
 * a logged seed keeps reproducing the same shuffle), uniformity of
 * rng_below and of shuffles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"

static void
test_known_outputs(void **unused)
{
	struct rng rng;

	/*
	 * splitmix64(0) gives the well-known first output
	 * 0xe220a8397b1dcdaf; xoshiro256** seeded from it must keep giving
	 * these values forever, or stored seeds stop reproducing deals.
	 */
	rng_seed(&rng, 0);
	assert_true(rng.s[0] == UINT64_C(0xe220a8397b1dcdaf));
	assert_true(rng_next(&rng) == UINT64_C(0x99ec5f36cb75f2b4));
	assert_true(rng_next(&rng) == UINT64_C(0xbf6e1f784956452a));
	rng_seed(&rng, 42);
	{
		uint8_t items[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
		static const uint8_t expect[10] = { 9, 1, 4, 2, 8, 7, 6, 5, 3, 0 };

		rng_shuffle(&rng, items, 10);
		assert_memory_equal(items, expect, 10);
	}
}

static void
test_below_is_uniform_and_in_range(void **unused)
{
	struct rng rng;
	int counts[7] = { 0 };

	rng_seed(&rng, 1);
	for (int i = 0; i < 70000; i++) {
		uint32_t v = rng_below(&rng, 7);

		assert_true(v < 7);
		counts[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(counts[i] > 9500 && counts[i] < 10500);
	assert_int_equal(rng_below(&rng, 1), 0);
}

static void
test_shuffle_is_a_uniform_permutation(void **unused)
{
	struct rng rng;
	int first[5] = { 0 };

	rng_seed(&rng, 3);
	for (int i = 0; i < 50000; i++) {
		uint8_t items[5] = { 0, 1, 2, 3, 4 };
		int seen = 0;

		rng_shuffle(&rng, items, 5);
		for (int k = 0; k < 5; k++)
			seen |= 1 << items[k];
		assert_int_equal(seen, 31);
		first[items[0]]++;
	}
	for (int i = 0; i < 5; i++)
		assert_true(first[i] > 9400 && first[i] < 10600);
}

static void
test_same_seed_same_sequence(void **unused)
{
	struct rng a, b;

	rng_seed(&a, 123456789);
	rng_seed(&b, 123456789);
	for (int i = 0; i < 1000; i++)
		assert_true(rng_next(&a) == rng_next(&b));
	rng_seed(&b, 123456788);
	assert_false(rng_next(&a) == rng_next(&b));
}

/*
 * The tail of a shuffle is its first steps: the items it draws are where
 * the whole shuffle leaves them, after k draws instead of n - 1, and k of
 * n - 1 or more is the whole shuffle.
 */
static void
test_shuffle_tail_is_the_first_steps(void **unused)
{
	for (size_t k = 0; k <= 61; k++) {
		struct rng whole, tail, next;
		uint8_t a[60], b[60];

		for (int i = 0; i < 60; i++)
			a[i] = b[i] = (uint8_t)i;
		rng_seed(&whole, 11 + k);
		rng_seed(&tail, 11 + k);
		rng_shuffle(&whole, a, 60);
		rng_shuffle_tail(&tail, b, 60, k);
		if (k >= 59) {
			assert_memory_equal(a, b, 60);
			assert_memory_equal(&whole, &tail, sizeof(whole));
			continue;
		}
		assert_memory_equal(a + 60 - k, b + 60 - k, k);
		/* k draws: the generator is where k calls leave it. */
		rng_seed(&next, 11 + k);
		for (size_t i = 0; i < k; i++)
			(void)rng_below(&next, (uint32_t)(60 - i));
		assert_memory_equal(&next, &tail, sizeof(next));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_outputs),
		cmocka_unit_test(test_below_is_uniform_and_in_range),
		cmocka_unit_test(test_shuffle_is_a_uniform_permutation),
		cmocka_unit_test(test_same_seed_same_sequence),
		cmocka_unit_test(test_shuffle_tail_is_the_first_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * rng.c - xoshiro256** seeded by splitmix64; see rng.h for the exact
 * definition every shuffle relies on.
 */
#include "rng.h"

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void
rng_seed(struct rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

void
rng_shuffle(struct rng *rng, uint8_t *items, size_t n)
{
	rng_shuffle_tail(rng, items, n, n);
}

/*
 * The generator is copied into a local for the loop: items are bytes,
 * which may alias anything, so through the pointer every swap would make
 * the compiler store and reload all four state words.
 */
void
rng_shuffle_tail(struct rng *rng, uint8_t *items, size_t n, size_t k)
{
	struct rng local = *rng;
	size_t stop = k < n ? n - k : 0;

	for (size_t i = n; i > 1 && i > stop; i--) {
		size_t j = rng_below(&local, (uint32_t)i);
		uint8_t t = items[i - 1];

		items[i - 1] = items[j];
		items[j] = t;
	}
	*rng = local;
}

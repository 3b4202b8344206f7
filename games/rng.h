/*
 * rng.h - the seeded pseudo-random generator behind every shuffle.
 *
 * The algorithm is fixed and documented so that a seed written in a log or a
 * record reproduces a shuffle exactly, on any machine:
 *
 *   - state: xoshiro256** (Blackman and Vigna, 2018), four 64-bit words;
 *   - seeding: the 64-bit seed is expanded by splitmix64, whose successive
 *     outputs become the four state words;
 *   - rng_below(n): Lemire's multiply-and-reject method: x = the top 32
 *     bits of the next output, m = x * n; while the low 32 bits of m are
 *     below 2^32 mod n, draw again; the result is m >> 32 (unbiased);
 *   - rng_shuffle(): Fisher-Yates from the top, i = n-1 down to 1, swapping
 *     element i with element rng_below(i+1);
 *   - rng_shuffle_tail(): the first k steps of the same (i = n-1 down to
 *     n-k, never below 1), for a deal that needs only k cards.
 */
#ifndef STICHBOT_RNG_H
#define STICHBOT_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *rng, uint64_t seed);
void rng_shuffle(struct rng *rng, uint8_t *items, size_t n);
/*
 * The first k steps of rng_shuffle(): items[n-1], items[n-2] ...
 * items[n-k] are then k items drawn without replacement, in the order
 * drawn, for k draws instead of n - 1.  With k >= n - 1 it is
 * rng_shuffle().
 */
void rng_shuffle_tail(struct rng *rng, uint8_t *items, size_t n, size_t k);

/*
 * The two hot functions are inline: simulations call them for every card
 * played.
 */
static inline uint64_t
rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t
rng_next(struct rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* A uniform integer in [0, n); n must be at least 1. */
static inline uint32_t
rng_below(struct rng *rng, uint32_t n)
{
	/*
	 * Lemire's method: the high 32 bits of a 32x32 product are uniform
	 * once the few values that would bias them are rejected.  We use the
	 * top 32 bits of the 64-bit output, which are the strongest.
	 */
	uint64_t m = (rng_next(rng) >> 32) * (uint64_t)n;
	uint32_t low = (uint32_t)m;

	if (low < n) {
		uint32_t threshold = -n % n;

		while (low < threshold) {
			m = (rng_next(rng) >> 32) * (uint64_t)n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif

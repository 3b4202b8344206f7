/*
 * bits.h - bit counting and selection for the card masks.
 *
 * Baseline x86-64 has neither a popcount nor a bit-deposit instruction, so
 * each function has a portable form and uses the instruction only when the
 * compiler may (a build with -march=native or -march=x86-64-v3 defines
 * __POPCNT__ and __BMI2__).  GCC's fallback for __builtin_popcountll is a
 * slow library call, hence the classic SWAR sum.  PDEP is microcoded and
 * slow on AMD before Zen 3, so builds for those cores keep the loop.
 */
#ifndef STICHBOT_BITS_H
#define STICHBOT_BITS_H

#include <stdint.h>

#if defined(__BMI2__) && defined(__x86_64__) && \
    !defined(__znver1__) && !defined(__znver2__)
#include <immintrin.h>
#define BITS_PDEP 1
#endif

static inline int
bits_count64(uint64_t x)
{
#if defined(__POPCNT__)
	return __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) +
	    ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

static inline int
bits_lowest64(uint64_t x)
{
	return __builtin_ctzll(x);
}

/*
 * The number of the k-th lowest set bit of x (k counts from 0); k must be
 * below bits_count64(x).  Callers picking a random legal move use it.
 */
static inline int
bits_select64(uint64_t x, int k)
{
#if defined(BITS_PDEP)
	return __builtin_ctzll(_pdep_u64(UINT64_C(1) << k, x));
#else
	/* Moves are few (a hand, or the bids up to it): clearing is cheap. */
	while (k-- > 0)
		x &= x - 1;
	return __builtin_ctzll(x);
#endif
}

#endif

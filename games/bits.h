/*
 * bits.h - bit counting for the card masks.  Baseline x86-64 has no
 * popcount instruction, and GCC's fallback is a slow library call, so
 * without -mpopcnt we count with the classic SWAR sum instead.
 */
#ifndef STICHBOT_BITS_H
#define STICHBOT_BITS_H

#include <stdint.h>

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

#endif

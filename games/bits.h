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
 *
 * The portable form has no branch: a loop that clears k bits exits after a
 * random number of steps, and that mispredicted exit cost more than all
 * of these instructions.  It finds the byte by the bytes' running bit
 * counts, then the bit in that byte the same way, each byte holding one
 * bit: all the counts stay below 128, so one subtraction compares eight
 * of them with k + 1 at once (a byte keeps its top bit when it is at
 * least k + 1).
 */
static inline int
bits_select64(uint64_t x, int k)
{
#if defined(BITS_PDEP)
	return __builtin_ctzll(_pdep_u64(UINT64_C(1) << k, x));
#else
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t tops = UINT64_C(0x8080808080808080);
	uint64_t c, sums, byte, bits, over;
	int b, r;

	c = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	c = (c & UINT64_C(0x3333333333333333)) +
	    ((c >> 2) & UINT64_C(0x3333333333333333));
	c = (c + (c >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	/* Byte i: the bits set in bytes 0 to i. */
	sums = c * ones;
	over = ((sums | tops) - ones * (uint64_t)(k + 1)) & tops;
	b = __builtin_ctzll(over) & ~7;
	/* What the bytes below byte b hold, taken off k. */
	r = k - (int)(((sums << 8) >> b) & 0xff);
	byte = (x >> b) & 0xff;
	/* Byte i: bit i of byte, as 0x80 or 0; then the running counts. */
	bits = (((byte * ones) & UINT64_C(0x8040201008040201)) +
	    UINT64_C(0x7f7f7f7f7f7f7f7f)) & tops;
	sums = (bits >> 7) * ones;
	over = ((sums | tops) - ones * (uint64_t)(r + 1)) & tops;
	return b + (__builtin_ctzll(over) >> 3);
#endif
}

/*
 * The same two chosen when the program runs, for code that is built for
 * baseline x86-64 but spends its time counting and selecting bits (a
 * random legal move is a count, then a select).  A function marked
 * BITS_HW_TARGET is compiled for POPCNT, BMI1 and BMI2 and may use
 * bits_count64_hw() and bits_select64_hw(); it must only be called when
 * bits_hw_usable() says the processor has them.  Elsewhere (another
 * architecture, a compiler without the attributes) BITS_HW is not
 * defined and callers keep the portable forms.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BITS_HW 1
#define BITS_HW_TARGET __attribute__((target("popcnt,bmi,bmi2")))

BITS_HW_TARGET static inline int
bits_count64_hw(uint64_t x)
{
	return __builtin_popcountll(x);
}

BITS_HW_TARGET static inline int
bits_select64_hw(uint64_t x, int k)
{
	return __builtin_ctzll(_pdep_u64(UINT64_C(1) << k, x));
}

/*
 * Whether the processor has POPCNT and a fast PDEP: AMD's family 17h
 * (Zen 1 and 2) runs PDEP in microcode, far slower than the portable
 * select.
 */
static inline int
bits_hw_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt") &&
	    __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h");
}
#endif

#endif

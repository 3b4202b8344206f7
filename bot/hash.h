/*
 * hash.h - the one string hash of the bot's indexes (channels by network
 * and name, where people sit, each person's command allowance): FNV-1a
 * over the key, started from the scope's address so that the same name on
 * two networks lands apart, with the high bits folded in because the
 * tables take the low bits (their sizes are powers of two).
 */
#ifndef STICHBOT_HASH_H
#define STICHBOT_HASH_H

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

/* fold: hash ASCII letters as lower case (IRC channel names). */
static inline size_t
hash_scoped(const void *scope, const char *key, int fold)
{
	uint64_t h = 14695981039346656037ULL ^ (uint64_t)(uintptr_t)scope;

	for (const char *p = key; *p != '\0'; p++) {
		h ^= (unsigned char)(fold ? tolower((unsigned char)*p) : *p);
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

#endif

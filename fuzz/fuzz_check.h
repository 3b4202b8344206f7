/*
 * fuzz_check.h - what every fuzz target shares: the libFuzzer entry point's
 * prototype and CHECK(), which aborts (a crash libFuzzer records) when an
 * invariant is broken.
 */
#ifndef STICHBOT_FUZZ_CHECK_H
#define STICHBOT_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Says which invariant broke before aborting, so a crash log tells why. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

#endif

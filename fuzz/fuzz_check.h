/*
 * fuzz_check.h - what every fuzz target shares: the libFuzzer entry point's
 * prototype, CHECK(), which aborts (a crash libFuzzer records) when an
 * invariant is broken, and a UTF-8 decoder for the invariants on text.
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

/*
 * The length of the UTF-8 character at s, of at most n bytes, with its
 * code point in *cp; 0 when it is not valid RFC 3629 UTF-8 (overlong
 * forms, surrogates, past U+10FFFF).  An oracle of the fuzzers' own,
 * apart from the code they check.
 */
static inline size_t
fuzz_utf8_char(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t len;

	if (n == 0)
		return 0;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, *cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, *cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, *cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[k] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

#endif

/*
 * array.h - growing a malloc'd array, the one helper every module that
 * keeps a list needs.
 */
#ifndef STICHBOT_ARRAY_H
#define STICHBOT_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Makes room for need items of size bytes in *items (capacity *cap),
 * doubling; returns 0, or -1 with *items untouched when memory runs out.
 */
static inline int
array_grow(void **items, int *cap, int need, size_t size)
{
	void *p;
	int n;

	if (need <= *cap)
		return 0;
	n = *cap > 0 ? *cap * 2 : 8;
	while (n < need)
		n *= 2;
	p = realloc(*items, (size_t)n * size);
	if (p == NULL)
		return -1;
	*items = p;
	*cap = n;
	return 0;
}

#endif

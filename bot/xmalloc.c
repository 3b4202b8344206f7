/*
 * xmalloc.c - allocation that logs and aborts when memory runs out (see
 * xmalloc.h for why).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xmalloc.h"

/*
 * Logs through log.h and aborts: abort() rather than exit() so that no
 * atexit handler or stdio flush runs on a heap in an unknown state, and a
 * core dump shows where the memory went.
 */
static void __attribute__((noreturn))
xfatal(const char *what, size_t nmemb, size_t size)
{
	log_error("out of memory: %s of %zu x %zu bytes failed", what, nmemb,
	    size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p;

	/* malloc(0) may return NULL legitimately; ask for one byte. */
	if ((p = malloc(size != 0 ? size : 1)) == NULL)
		xfatal("malloc", 1, size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		xfatal("calloc", nmemb, size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p;

	if ((p = realloc(ptr, size != 0 ? size : 1)) == NULL)
		xfatal("realloc", 1, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		xfatal("reallocarray (overflow)", nmemb, size);
	return xrealloc(ptr, nmemb * size);
}

char *
xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

void
xarray_grow(void **items, int *cap, int need, size_t size)
{
	int n;

	if (need <= *cap)
		return;
	n = *cap > 0 ? *cap * 2 : 8;
	while (n < need)
		n *= 2;
	*items = xreallocarray(*items, (size_t)n, size);
	*cap = n;
}

void
xstrdupv(char **out, const char *const *in, int n)
{
	size_t len = 0, at = 0;
	char *block;

	for (int i = 0; i < n; i++)
		if (in[i] != NULL)
			len += strlen(in[i]) + 1;
	block = xmalloc(len > 0 ? len : 1);
	for (int i = 0; i < n; i++) {
		size_t l;

		if (in[i] == NULL) {
			out[i] = NULL;
			continue;
		}
		l = strlen(in[i]) + 1;
		out[i] = memcpy(block + at, in[i], l);
		at += l;
	}
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	char first[128];
	int len;

	/* Most strings fit the first try; longer ones are formatted again. */
	va_start(ap, fmt);
	len = vsnprintf(first, sizeof(first), fmt, ap);
	va_end(ap);
	if (len < 0) {
		/* Only a bad format gets here: a programming error. */
		log_error("xasprintf: cannot format a string");
		abort();
	}
	*ret = xmalloc((size_t)len + 1);
	if ((size_t)len < sizeof(first)) {
		memcpy(*ret, first, (size_t)len + 1);
		return len;
	}
	va_start(ap, fmt);
	(void)vsnprintf(*ret, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return len;
}

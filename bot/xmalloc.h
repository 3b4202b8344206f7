/*
 * xmalloc.h - memory allocation that cannot fail, as OpenSMTPD's xmalloc.c.
 *
 * stichbot handles running out of memory one way: it logs the size that
 * could not be had and aborts.  A daemon that cannot allocate cannot keep
 * its promises (store every move before it is announced, answer every
 * command), and the code that tries to carry on after a failed malloc is
 * the least tested code there is.  Failing fast lets systemd restart the
 * service (Restart=on-failure); unfinished games are restored from the
 * store and the outbox sends again what was not yet sent, so nothing a
 * player was told is lost.
 *
 * Callers therefore never check these for NULL.  Memory that jansson or
 * SQLite allocate themselves is outside this rule: their NULL returns
 * also mean "invalid input", and the callers check them as such.
 */
#ifndef STICHBOT_XMALLOC_H
#define STICHBOT_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* realloc() of nmemb * size bytes, refusing (fatally) an overflow. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
/*
 * Makes room for need items of size bytes in *items (capacity *cap),
 * doubling: games/array.h's array_grow(), which the pure engines use with
 * a -1 to check, made fatal like everything here.
 */
void xarray_grow(void **items, int *cap, int need, size_t size);
/*
 * Copies the n strings of in (NULL ones stay NULL) into one allocation,
 * setting out[i] to each copy: a message's network, target and flow cost
 * one allocation, not three.  The block is out[0]'s (in[0] must not be
 * NULL): free(out[0]) frees them all.
 */
void xstrdupv(char **out, const char *const *in, int n);
/* Formats into a new string in *ret; returns its length. */
int xasprintf(char **ret, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

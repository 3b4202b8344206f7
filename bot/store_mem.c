/*
 * store_mem.c - SQLite's small allocations served from freed blocks of
 * the same size, the work SQLite's lookaside does where it is built in.
 *
 * Debian builds SQLite with SQLITE_OMIT_LOOKASIDE, so every statement step
 * asks the heap for its cursors and records and gives them back a moment
 * later: about 35 malloc()/free() pairs for each move the bot stores.
 * Here blocks of up to STORE_MEM_SMALL bytes are rounded up to a multiple
 * of STORE_MEM_STEP and, when freed, kept on a free list of their size
 * (at most STORE_MEM_KEEP bytes in all) for the next request of that size.
 * Larger blocks go straight to the heap.
 *
 * Every block carries its capacity in a header of STORE_MEM_HEADER bytes,
 * which also keeps the block 16-byte aligned, so xSize() needs no lookup.
 * The process is single-threaded (one loop), and SQLite serialises its
 * own calls of these functions besides; nothing here is thread-local.
 *
 * Under AddressSanitizer the heap's own functions are used instead, so that
 * the sanitizer still sees every block SQLite uses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_int.h"

#define STORE_MEM_STEP 32
#define STORE_MEM_SMALL 1024
#define STORE_MEM_CLASSES (STORE_MEM_SMALL / STORE_MEM_STEP)
#define STORE_MEM_KEEP (1024 * 1024)
#define STORE_MEM_HEADER 16

#if defined(__SANITIZE_ADDRESS__)
#define STORE_MEM_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STORE_MEM_PLAIN 1
#endif
#endif

/* A freed block on its size's list (the header's first bytes). */
struct free_block {
	struct free_block *next;
};

static struct free_block *free_lists[STORE_MEM_CLASSES];
static size_t kept;

/* The capacity a request of n bytes gets. */
static size_t
mem_capacity(size_t n)
{
	if (n == 0)
		n = 1;
	if (n > STORE_MEM_SMALL)
		return (n + 15) & ~(size_t)15;
	return (n + STORE_MEM_STEP - 1) / STORE_MEM_STEP * STORE_MEM_STEP;
}

static size_t *
mem_header(void *p)
{
	return (size_t *)(void *)((char *)p - STORE_MEM_HEADER);
}

static void *
mem_malloc(int n)
{
	size_t cap;
	char *block;

	if (n < 0)
		return NULL;
	cap = mem_capacity((size_t)n);
	if (cap <= STORE_MEM_SMALL) {
		struct free_block **list = &free_lists[cap / STORE_MEM_STEP - 1];

		if (*list != NULL) {
			block = (char *)*list;
			*list = (*list)->next;
			kept -= cap;
			*(size_t *)(void *)block = cap;
			return block + STORE_MEM_HEADER;
		}
	}
	if ((block = malloc(STORE_MEM_HEADER + cap)) == NULL)
		return NULL;
	*(size_t *)(void *)block = cap;
	return block + STORE_MEM_HEADER;
}

static void
mem_free(void *p)
{
	size_t cap;
	char *block;

	if (p == NULL)
		return;
	block = (char *)p - STORE_MEM_HEADER;
	cap = *mem_header(p);
	if (cap <= STORE_MEM_SMALL && kept + cap <= STORE_MEM_KEEP) {
		struct free_block **list = &free_lists[cap / STORE_MEM_STEP - 1];
		struct free_block *f = (struct free_block *)(void *)block;

		f->next = *list;
		*list = f;
		kept += cap;
		return;
	}
	free(block);
}

static int
mem_size(void *p)
{
	return p != NULL ? (int)*mem_header(p) : 0;
}

static void *
mem_realloc(void *p, int n)
{
	void *q;

	if (p == NULL)
		return mem_malloc(n);
	if (n >= 0 && (size_t)n <= *mem_header(p))
		return p;
	if ((q = mem_malloc(n)) == NULL)
		return NULL;
	memcpy(q, p, *mem_header(p));
	mem_free(p);
	return q;
}

static int
mem_roundup(int n)
{
	return n < 0 ? n : (int)mem_capacity((size_t)n);
}

static int
mem_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

/* Gives the kept blocks back to the heap (sqlite3_shutdown()). */
static void
mem_shutdown(void *unused)
{
	(void)unused;
	for (int i = 0; i < STORE_MEM_CLASSES; i++) {
		while (free_lists[i] != NULL) {
			struct free_block *f = free_lists[i];

			free_lists[i] = f->next;
			free(f);
		}
	}
	kept = 0;
}

const sqlite3_mem_methods store_mem_methods = {
	.xMalloc = mem_malloc,
	.xFree = mem_free,
	.xRealloc = mem_realloc,
	.xSize = mem_size,
	.xRoundup = mem_roundup,
	.xInit = mem_init,
	.xShutdown = mem_shutdown,
	.pAppData = NULL,
};

size_t
store_mem_kept(void)
{
	return kept;
}

void
store_mem_install(void)
{
#ifndef STORE_MEM_PLAIN
	static int installed;

	if (installed)
		return;
	installed = 1;
	/*
	 * Refused (SQLITE_MISUSE) once SQLite is initialised: then it keeps
	 * the heap's functions, which is only slower.
	 */
	(void)sqlite3_config(SQLITE_CONFIG_MALLOC, &store_mem_methods);
#endif
}

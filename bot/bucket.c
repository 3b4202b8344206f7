/*
 * bucket.c - token buckets, single and keyed by person (see bucket.h).
 *
 * The keyed set is an open-addressing hash table (linear probing, a power
 * of two, at most half full).  It never deletes single entries, which
 * would need tombstones; instead, when it is about to grow it first
 * rebuilds itself without the buckets that have refilled (they are as
 * good as absent), and grows only if that did not free enough room.  So
 * memory follows the number of people active within one refill time.
 */
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "xmalloc.h"
#include "hash.h"

void
bucket_init(struct bucket *b, int burst, int interval_ms, uint64_t now)
{
	b->interval = (uint64_t)(interval_ms > 0 ? interval_ms : 1);
	b->cap = (uint64_t)(burst > 0 ? burst : 1) * b->interval;
	b->credit = b->cap;
	b->last = now;
}

static void
bucket_refill(struct bucket *b, uint64_t now)
{
	if (now <= b->last)
		return;
	b->credit += now - b->last;
	if (b->credit > b->cap)
		b->credit = b->cap;
	b->last = now;
}

int
bucket_take(struct bucket *b, uint64_t now)
{
	bucket_refill(b, now);
	if (b->credit < b->interval)
		return 0;
	b->credit -= b->interval;
	return 1;
}

void
bucket_refund(struct bucket *b)
{
	b->credit += b->interval;
	if (b->credit > b->cap)
		b->credit = b->cap;
}

uint64_t
bucket_wait(struct bucket *b, uint64_t now)
{
	bucket_refill(b, now);
	return b->credit >= b->interval ? 0 : b->interval - b->credit;
}

int
bucket_full(struct bucket *b, uint64_t now)
{
	bucket_refill(b, now);
	return b->credit == b->cap;
}

struct keyed {
	const void *scope;
	struct bucket bucket;
	int refused;             /* refused since the last pass */
	char key[];
};

struct buckets {
	struct keyed **slots;
	size_t cap, count;
	int burst, interval_ms;
};

struct buckets *
buckets_create(int burst, int interval_ms)
{
	struct buckets *set = xcalloc(1, sizeof(*set));

	set->burst = burst > 0 ? burst : 1;
	set->interval_ms = interval_ms > 0 ? interval_ms : 1;
	return set;
}

void
buckets_destroy(struct buckets *set)
{
	if (set == NULL)
		return;
	for (size_t i = 0; i < set->cap; i++)
		free(set->slots[i]);
	free(set->slots);
	free(set);
}

static struct keyed **
keyed_slot(struct keyed **slots, size_t cap, const void *scope,
    const char *key)
{
	size_t i = hash_scoped(scope, key, 0) & (cap - 1);

	while (slots[i] != NULL && (slots[i]->scope != scope ||
	    strcmp(slots[i]->key, key) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/*
 * Makes room for one more entry: drops the refilled buckets, then doubles
 * the table if it would still be more than half full.  -1: out of memory.
 */
static int
buckets_room(struct buckets *set, uint64_t now)
{
	struct keyed **slots;
	size_t cap = set->cap > 0 ? set->cap : 16, live = 0;

	if ((set->count + 1) * 2 <= set->cap)
		return 0;
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i] != NULL &&
		    !bucket_full(&set->slots[i]->bucket, now))
			live++;
	while ((live + 1) * 2 > cap)
		cap *= 2;
	slots = xcalloc(cap, sizeof(*slots));
	for (size_t i = 0; i < set->cap; i++) {
		struct keyed *k = set->slots[i];

		if (k == NULL)
			continue;
		if (bucket_full(&k->bucket, now)) {
			free(k);
			continue;
		}
		*keyed_slot(slots, cap, k->scope, k->key) = k;
	}
	free(set->slots);
	set->slots = slots;
	set->cap = cap;
	set->count = live;
	return 0;
}

enum bucket_verdict
buckets_take(struct buckets *set, const void *scope, const char *key,
    uint64_t now)
{
	struct keyed **slot, *k;
	size_t len = strlen(key);

	if (set->cap == 0 || (*(slot = keyed_slot(set->slots, set->cap, scope,
	    key))) == NULL) {
		if (buckets_room(set, now) != 0)
			return BUCKET_PASS;
		k = xmalloc(sizeof(*k) + len + 1);
		k->scope = scope;
		k->refused = 0;
		bucket_init(&k->bucket, set->burst, set->interval_ms, now);
		memcpy(k->key, key, len + 1);
		*keyed_slot(set->slots, set->cap, scope, key) = k;
		set->count++;
	} else {
		k = *slot;
	}
	if (bucket_take(&k->bucket, now)) {
		k->refused = 0;
		return BUCKET_PASS;
	}
	if (k->refused)
		return BUCKET_REFUSE;
	k->refused = 1;
	return BUCKET_REFUSE_FIRST;
}

size_t
buckets_count(const struct buckets *set)
{
	return set->count;
}

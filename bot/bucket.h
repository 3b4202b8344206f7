/*
 * bucket.h - token buckets: a burst of events at once, then one per
 * interval.  One mechanism for both directions of flood control: the IRC
 * adapter paces what it sends with one bucket per connection, and the bot
 * core limits the commands each person may send with a set of buckets
 * keyed by network and user id.
 *
 * Times are the event loop's milliseconds (loop_now); nothing here reads
 * a clock, so tests drive buckets with any times they like.
 */
#ifndef STICHBOT_BUCKET_H
#define STICHBOT_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/*
 * A bucket holds burst tokens and earns one back per interval ms.  Credit
 * is kept in ms, so refilling is exact whatever the times of the calls.
 */
struct bucket {
	uint64_t credit;         /* ms of events earned, at most cap */
	uint64_t cap;            /* burst * interval */
	uint64_t interval;
	uint64_t last;           /* when credit was last brought up to date */
};

/* A full bucket: burst >= 1, interval_ms >= 1. */
void bucket_init(struct bucket *b, int burst, int interval_ms, uint64_t now);
/* Takes one token: 1, or 0 when none is left (the bucket is unchanged). */
int bucket_take(struct bucket *b, uint64_t now);
/* Gives back a token taken for an event that did not happen. */
void bucket_refund(struct bucket *b);
/* Milliseconds until a token is there (0: now). */
uint64_t bucket_wait(struct bucket *b, uint64_t now);
/* 1 when the bucket has refilled completely (it is as good as new). */
int bucket_full(struct bucket *b, uint64_t now);

/*
 * A set of buckets by key (a network and a user id), all with the same
 * burst and interval.  A key's bucket is made on its first event and
 * forgotten once it has refilled, so the set holds only the people who
 * sent something recently, however many come and go.
 */
struct buckets;

enum bucket_verdict {
	BUCKET_PASS,             /* a token was there */
	BUCKET_REFUSE_FIRST,     /* none: the first refusal since the last pass */
	BUCKET_REFUSE,           /* none, and the key was already refused */
};

/* NULL when out of memory.  burst >= 1, interval_ms >= 1. */
struct buckets *buckets_create(int burst, int interval_ms);
void buckets_destroy(struct buckets *set);
/*
 * Takes a token from the bucket of (scope, key): scope is any pointer
 * that tells keys of different networks apart.  When memory runs out the
 * event passes: a limit that cannot keep its books must not lock people
 * out.
 */
enum bucket_verdict buckets_take(struct buckets *set, const void *scope,
    const char *key, uint64_t now);
/* How many keys the set holds (for tests and the admin status). */
size_t buckets_count(const struct buckets *set);

#endif

/*
 * loop.c - see loop.h.
 *
 * Timers live in slots; a binary min-heap of slot numbers orders them by
 * due time (ties by creation order, so timers set for the same moment fire
 * in the order they were set).  A timer id is the slot number plus the
 * slot's generation in the high 32 bits, so a stale id never cancels a
 * newer timer that reuses the slot, and cancelling is O(log n): bots with
 * thousands of tables cancel and re-arm turn timers all the time.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loop.h"
#include "xmalloc.h"

struct watch {
	int fd;
	int events;
	loop_fd_fn fn;
	void *arg;
};

struct timer {
	uint64_t due;
	uint64_t seq;            /* creation order, for ties */
	loop_timer_fn fn;
	void *arg;
	uint32_t generation;
	int heap_pos;            /* -1 while the slot is free */
};

struct hook {
	loop_hook_fn fn;
	void *arg;
};

struct loop {
	int virtual_clock;
	uint64_t virtual_now;
	int stopped;
	struct watch *watches;
	int nwatches, watches_cap;
	struct timer *slots;
	int nslots, slots_cap;
	int *free_slots;
	int nfree, free_cap;
	int *heap;               /* slot numbers */
	int nheap, heap_cap;
	uint64_t seq;
	struct hook *hooks;
	int nhooks, hooks_cap;
	struct pollfd *pollfds;
	int pollfds_cap;
};

struct loop *
loop_create(int virtual_clock)
{
	struct loop *loop = xcalloc(1, sizeof(*loop));

	loop->virtual_clock = virtual_clock;
	loop->virtual_now = 1000;
	return loop;
}

void
loop_destroy(struct loop *loop)
{
	if (loop == NULL)
		return;
	free(loop->watches);
	free(loop->heap);
	free(loop->slots);
	free(loop->free_slots);
	free(loop->hooks);
	free(loop->pollfds);
	free(loop);
}

uint64_t
loop_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
loop_now(const struct loop *loop)
{
	if (loop->virtual_clock)
		return loop->virtual_now;
	return loop_clock_ms();
}

int64_t
loop_time(const struct loop *loop)
{
	if (loop->virtual_clock)
		return LOOP_VIRTUAL_EPOCH + (int64_t)(loop->virtual_now / 1000);
	return (int64_t)time(NULL);
}

int
loop_watch(struct loop *loop, int fd, int events, loop_fd_fn fn, void *arg)
{
	for (int i = 0; i < loop->nwatches; i++) {
		if (loop->watches[i].fd == fd) {
			loop->watches[i] = (struct watch){ fd, events, fn, arg };
			return 0;
		}
	}
	xarray_grow((void **)&loop->watches, &loop->watches_cap,
	    loop->nwatches + 1, sizeof(struct watch));
	loop->watches[loop->nwatches++] = (struct watch){ fd, events, fn, arg };
	return 0;
}

void
loop_unwatch(struct loop *loop, int fd)
{
	for (int i = 0; i < loop->nwatches; i++) {
		if (loop->watches[i].fd == fd) {
			loop->watches[i] = loop->watches[--loop->nwatches];
			return;
		}
	}
}

static int
timer_before(const struct loop *loop, int a, int b)
{
	const struct timer *ta = &loop->slots[a], *tb = &loop->slots[b];

	return ta->due < tb->due || (ta->due == tb->due && ta->seq < tb->seq);
}

static void
heap_set(struct loop *loop, int pos, int slot)
{
	loop->heap[pos] = slot;
	loop->slots[slot].heap_pos = pos;
}

static void
heap_up(struct loop *loop, int pos)
{
	int slot = loop->heap[pos];

	while (pos > 0) {
		int parent = (pos - 1) / 2;

		if (!timer_before(loop, slot, loop->heap[parent]))
			break;
		heap_set(loop, pos, loop->heap[parent]);
		pos = parent;
	}
	heap_set(loop, pos, slot);
}

static void
heap_down(struct loop *loop, int pos)
{
	int slot = loop->heap[pos];

	for (;;) {
		int child = 2 * pos + 1;

		if (child >= loop->nheap)
			break;
		if (child + 1 < loop->nheap &&
		    timer_before(loop, loop->heap[child + 1],
		    loop->heap[child]))
			child++;
		if (!timer_before(loop, loop->heap[child], slot))
			break;
		heap_set(loop, pos, loop->heap[child]);
		pos = child;
	}
	heap_set(loop, pos, slot);
}

/* Takes the timer at heap position pos out and frees its slot. */
static void
heap_remove(struct loop *loop, int pos)
{
	int slot = loop->heap[pos];
	int last = loop->heap[--loop->nheap];

	loop->slots[slot].heap_pos = -1;
	loop->slots[slot].generation++;
	loop->free_slots[loop->nfree++] = slot;
	if (pos == loop->nheap)
		return;
	heap_set(loop, pos, last);
	heap_up(loop, pos);
	heap_down(loop, loop->slots[last].heap_pos);
}

uint64_t
loop_timer(struct loop *loop, uint64_t delay, loop_timer_fn fn, void *arg)
{
	struct timer *t;
	int slot;

	if (loop->nfree > 0) {
		slot = loop->free_slots[--loop->nfree];
	} else {
		xarray_grow((void **)&loop->slots, &loop->slots_cap,
		    loop->nslots + 1, sizeof(struct timer));
		xarray_grow((void **)&loop->free_slots, &loop->free_cap,
		    loop->nslots + 1, sizeof(int));
		xarray_grow((void **)&loop->heap, &loop->heap_cap,
		    loop->nslots + 1, sizeof(int));
		slot = loop->nslots++;
		loop->slots[slot].generation = 1;
	}
	t = &loop->slots[slot];
	t->due = loop_now(loop) + delay;
	t->seq = loop->seq++;
	t->fn = fn;
	t->arg = arg;
	loop->heap[loop->nheap] = slot;
	t->heap_pos = loop->nheap++;
	heap_up(loop, t->heap_pos);
	return (uint64_t)t->generation << 32 | (uint32_t)slot;
}

/* The slot of a pending timer id, or -1. */
static int
pending_slot(const struct loop *loop, uint64_t id)
{
	uint32_t slot = (uint32_t)id;

	if (id == 0 || slot >= (uint32_t)loop->nslots)
		return -1;
	if (loop->slots[slot].generation != (uint32_t)(id >> 32) ||
	    loop->slots[slot].heap_pos < 0)
		return -1;
	return (int)slot;
}

void
loop_cancel(struct loop *loop, uint64_t id)
{
	int slot = pending_slot(loop, id);

	if (slot >= 0)
		heap_remove(loop, loop->slots[slot].heap_pos);
}

int64_t
loop_timer_left(const struct loop *loop, uint64_t id)
{
	int slot = pending_slot(loop, id);
	uint64_t now = loop_now(loop);

	if (slot < 0)
		return -1;
	return loop->slots[slot].due > now ?
	    (int64_t)(loop->slots[slot].due - now) : 0;
}

int
loop_hook(struct loop *loop, loop_hook_fn fn, void *arg)
{
	xarray_grow((void **)&loop->hooks, &loop->hooks_cap, loop->nhooks + 1,
	    sizeof(struct hook));
	loop->hooks[loop->nhooks++] = (struct hook){ fn, arg };
	return 0;
}

void
loop_unhook(struct loop *loop, loop_hook_fn fn, void *arg)
{
	for (int i = 0; i < loop->nhooks; i++) {
		if (loop->hooks[i].fn == fn && loop->hooks[i].arg == arg) {
			memmove(&loop->hooks[i], &loop->hooks[i + 1],
			    (size_t)(loop->nhooks - i - 1) *
			    sizeof(struct hook));
			loop->nhooks--;
			return;
		}
	}
}

/* Fires every timer due at or before now, earliest first. */
static void
fire_timers(struct loop *loop, uint64_t now)
{
	while (loop->nheap > 0 && loop->slots[loop->heap[0]].due <= now) {
		struct timer t = loop->slots[loop->heap[0]];
		uint64_t id = (uint64_t)t.generation << 32 |
		    (uint32_t)loop->heap[0];

		/* Free the slot first: the callback may set new timers. */
		heap_remove(loop, 0);
		t.fn(loop, id, t.arg);
	}
}

int
loop_run_once(struct loop *loop, int timeout)
{
	int n, wait = timeout;

	for (int i = 0; i < loop->nhooks; i++) {
		int limit = loop->hooks[i].fn(loop, loop->hooks[i].arg);

		if (limit >= 0 && (wait < 0 || limit < wait))
			wait = limit;
	}
	/* A hook (or a callback before it) may have ended the loop. */
	if (loop->stopped)
		return 0;
	if (loop->nheap > 0 && !loop->virtual_clock) {
		uint64_t now = loop_now(loop);
		uint64_t due = loop->slots[loop->heap[0]].due;
		int64_t until = due > now ? (int64_t)(due - now) : 0;

		if (wait < 0 || until < wait)
			wait = (int)until;
	}
	xarray_grow((void **)&loop->pollfds, &loop->pollfds_cap, loop->nwatches,
	    sizeof(struct pollfd));
	for (int i = 0; i < loop->nwatches; i++) {
		loop->pollfds[i].fd = loop->watches[i].fd;
		loop->pollfds[i].events =
		    (short)(((loop->watches[i].events & LOOP_READ) ? POLLIN : 0) |
		    ((loop->watches[i].events & LOOP_WRITE) ? POLLOUT : 0));
		loop->pollfds[i].revents = 0;
	}
	n = poll(loop->pollfds, (nfds_t)loop->nwatches, wait);
	if (n < 0 && errno != EINTR)
		return -1;
	if (n > 0) {
		/*
		 * Callbacks may add or remove watches; dispatch from a copy of
		 * what was polled and look each fd up again before calling.
		 */
		int count = loop->nwatches;
		struct pollfd *ready = xreallocarray(NULL, (size_t)count,
		    sizeof(*ready));

		memcpy(ready, loop->pollfds, (size_t)count * sizeof(*ready));
		for (int i = 0; i < count; i++) {
			int events = 0;

			if (ready[i].revents & (POLLIN | POLLHUP | POLLERR))
				events |= LOOP_READ;
			if (ready[i].revents & (POLLOUT | POLLERR))
				events |= LOOP_WRITE;
			if (events == 0)
				continue;
			for (int j = 0; j < loop->nwatches; j++) {
				struct watch w = loop->watches[j];

				if (w.fd == ready[i].fd) {
					w.fn(loop, w.fd, events, w.arg);
					break;
				}
			}
		}
		free(ready);
	}
	if (!loop->virtual_clock)
		fire_timers(loop, loop_now(loop));
	return 0;
}

int
loop_run(struct loop *loop)
{
	loop->stopped = 0;
	while (!loop->stopped)
		if (loop_run_once(loop, -1) != 0)
			return -1;
	return 0;
}

void
loop_stop(struct loop *loop)
{
	loop->stopped = 1;
}

int
loop_stopped(const struct loop *loop)
{
	return loop->stopped;
}

void
loop_advance(struct loop *loop, uint64_t ms)
{
	uint64_t end = loop->virtual_now + ms;

	/* Step from timer to timer so each sees its own due time as now. */
	while (loop->nheap > 0 && loop->slots[loop->heap[0]].due <= end) {
		uint64_t due = loop->slots[loop->heap[0]].due;

		if (due > loop->virtual_now)
			loop->virtual_now = due;
		fire_timers(loop, loop->virtual_now);
	}
	loop->virtual_now = end;
}

uint64_t
loop_backoff(unsigned attempt, uint64_t base, uint64_t max, uint64_t rnd)
{
	uint64_t d = base > 0 ? base : 1;

	for (unsigned i = 0; i < attempt && d < max; i++)
		d *= 2;
	if (d > max)
		d = max;
	return d - d / 2 + rnd % (d / 2 + 1);
}

/*
 * loop.h - the single-threaded event loop, in the manner of early Redis's
 * ae.c: file descriptors watched with poll(), one-shot timers, and hooks
 * that run before the loop sleeps (where libircclient and libcurl's multi
 * interface report the descriptors they want this time round).
 *
 * A loop may run on a virtual clock (tests): time then only moves when
 * loop_advance() is called, and timers fire in order as it passes them.
 */
#ifndef STICHBOT_LOOP_H
#define STICHBOT_LOOP_H

#include <stdint.h>

#define LOOP_READ 1
#define LOOP_WRITE 2

struct loop;

typedef void (*loop_fd_fn)(struct loop *loop, int fd, int events, void *arg);
typedef void (*loop_timer_fn)(struct loop *loop, uint64_t id, void *arg);
/* Returns the longest the loop may sleep in ms (-1: no limit). */
typedef int (*loop_hook_fn)(struct loop *loop, void *arg);

/* virtual: 1 for a clock that only loop_advance() moves. */
struct loop *loop_create(int virtual_clock);
void loop_destroy(struct loop *loop);

/* Milliseconds on the loop's monotonic (or virtual) clock. */
uint64_t loop_now(const struct loop *loop);
/*
 * Milliseconds on CLOCK_MONOTONIC, whatever a loop's clock says: for code
 * that has no loop (the store), or must not follow a virtual one.
 */
uint64_t loop_clock_ms(void);
/*
 * Unix time in seconds, for deadlines that must outlive the process; a
 * virtual clock counts from LOOP_VIRTUAL_EPOCH as loop_advance() moves.
 */
int64_t loop_time(const struct loop *loop);
#define LOOP_VIRTUAL_EPOCH INT64_C(1767225600)   /* 2026-01-01 */

/* Watches fd for events (LOOP_READ | LOOP_WRITE); replaces a previous watch. */
int loop_watch(struct loop *loop, int fd, int events, loop_fd_fn fn, void *arg);
void loop_unwatch(struct loop *loop, int fd);

/* Calls fn once, delay ms from now.  Returns a timer id (never 0). */
uint64_t loop_timer(struct loop *loop, uint64_t delay, loop_timer_fn fn,
    void *arg);
/* Cancels a timer; unknown or fired ids (and 0) are ignored. */
void loop_cancel(struct loop *loop, uint64_t id);
/* Milliseconds until timer id fires, or -1 when it is not pending. */
int64_t loop_timer_left(const struct loop *loop, uint64_t id);

/* Adds a hook called before every wait. */
int loop_hook(struct loop *loop, loop_hook_fn fn, void *arg);
void loop_unhook(struct loop *loop, loop_hook_fn fn, void *arg);

/* Runs until loop_stop(); returns 0, or -1 when poll() fails for good. */
int loop_run(struct loop *loop);
/* Waits at most timeout ms (-1: as long as needed) and dispatches once. */
int loop_run_once(struct loop *loop, int timeout);
void loop_stop(struct loop *loop);
int loop_stopped(const struct loop *loop);

/*
 * The delay before retry number attempt (0 for the first retry) of
 * something that failed: base doubled per attempt up to max, then "equal
 * jitter": half of it fixed and the other half picked by rnd, so that many
 * clients do not retry in step.  Both adapters' reconnects and retries.
 */
uint64_t loop_backoff(unsigned attempt, uint64_t base, uint64_t max,
    uint64_t rnd);

/* Virtual clock: moves time forward by ms, firing due timers in order. */
void loop_advance(struct loop *loop, uint64_t ms);

#endif

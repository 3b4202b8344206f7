/*
 * medium.h - the one place the core calls an adapter (as OpenSMTPD's
 * table.c wraps its table backends).
 *
 * Optional operations are checked for NULL here, with their defaults.
 * Sends and parts are queued in order and handed to the adapter from the
 * loop a moment later, never while the adapter is inside one of its own
 * callbacks (a line someone said, a reconnect): the core never re-enters
 * an adapter, so adapters need no guard against it.  A part queued after
 * a message to the same channel leaves after that message.
 */
#ifndef STICHBOT_MEDIUM_H
#define STICHBOT_MEDIUM_H

#include <stddef.h>
#include <stdint.h>

#include "adapter.h"
#include "text.h"

struct loop;
struct medium;

/*
 * What the queue needs from the bot: the adapter of a network by name
 * (NULL when it is gone), and what to do with a tracked message the
 * adapter took (reports_sent 0: taken counts as sent).
 */
struct medium_listener {
	struct adapter *(*adapter)(void *data, const char *network);
	void (*taken)(void *data, uint64_t id);
	void *data;
};

struct medium *medium_create(struct loop *loop,
    const struct medium_listener *listener);
/* Drops what is still queued; NULL is fine. */
void medium_destroy(struct medium *medium);

/*
 * Queues a message (text and info copied; info->id 0 for an untracked
 * one).
 */
void medium_send(struct medium *medium, const char *network,
    const char *target, int private_, const struct text *text,
    const struct send_info *info);
/* Queues leaving channel, after what was queued before. */
void medium_part(struct medium *medium, const char *network,
    const char *channel);
/*
 * Queues the adapter's withhold() (adapter.h), after what was queued
 * before: the bot stops, and its goodbyes go next.
 */
void medium_withhold(struct medium *medium, const char *network);
/* Hands everything queued to the adapters now (the loop does it soon). */
void medium_flush(struct medium *medium);
/* Operations queued and not yet handed to an adapter. */
size_t medium_pending(const struct medium *medium);

/*
 * The messages of flow on adapter's network not sent yet: queued here
 * and held by the adapter (its optional flow_waiting(), 0 without).
 */
size_t medium_flow_waiting(const struct medium *medium,
    struct adapter *adapter, const char *flow);

/* The optional operations of struct adapter_impl, with their defaults. */
int medium_busy(struct adapter *adapter, const char *flow);
const char *medium_self_name(struct adapter *adapter);
void medium_canonical_id(struct adapter *adapter, char *user_id);
void medium_channel_title(struct adapter *adapter, const char *channel,
    char *out, size_t outlen);
const char *medium_reader(struct adapter *adapter, const char *channel);
int medium_channel_admin(struct adapter *adapter, const char *channel,
    const char *user_id);
size_t medium_queue_depth(const struct adapter *adapter);

#endif

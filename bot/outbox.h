/*
 * outbox.h - what the bot says is committed with what it changed.
 *
 * The core handles each event (a line someone said, a timer, a restart)
 * inside one store batch: outbox_enter() opens it, every message the
 * event makes the bot say is captured by outbox_send(), and
 * outbox_leave() commits the batch.  When the event changed something
 * people must hear about (store_batch_changes() > 0), its messages become
 * outbox rows of the same transaction and go to the adapters with their
 * row ids; the adapters report them sent (adapter_sent) and the rows are
 * forgotten.  After a crash, outbox_load() hands the rows never reported
 * sent to the adapters again, first, in order.  An event that changed
 * nothing (help, a refusal) sends its messages untracked.
 *
 * If the commit fails, nothing the event caused is said: outbox_leave()
 * returns -1 and names the flows (tables) the event spoke for, so that
 * the core can rebuild them from the store, which is the truth.
 *
 * The outbox belongs to the bot; it never keeps a caller's pointers.
 */
#ifndef STICHBOT_OUTBOX_H
#define STICHBOT_OUTBOX_H

#include <stdint.h>

#include "adapter.h"
#include "text.h"

struct bot;
struct store;
struct outbox;

/*
 * send(arg, network, target, private, text, info) hands one message to
 * the adapter of network (info: its row id, flow and expiry, borrowed);
 * it returns -1 when there is no such network any more (the message is
 * then forgotten).
 */
typedef int (*outbox_send_fn)(void *arg, const char *network,
    const char *target, int private_, const struct text *text,
    const struct send_info *info);

struct outbox *outbox_create(struct store *store, outbox_send_fn send,
    void *arg);
/* Rolls back an open batch; NULL is fine. */
void outbox_destroy(struct outbox *outbox);

/* Opens the event's batch (nested calls only count). */
void outbox_enter(struct outbox *outbox);
/*
 * Closes the batch opened by the matching outbox_enter().  The outermost
 * one commits and sends what was captured; 0, or -1 when the commit
 * failed (nothing was sent).  Either way outbox_flow_name(outbox, i)
 * then names the flows the event spoke for, for i below
 * outbox_flow_count(), and outbox_last_stored() says whether it stored
 * a change.
 */
int outbox_leave(struct outbox *outbox);
int outbox_flow_count(const struct outbox *outbox);
int outbox_last_stored(const struct outbox *outbox);
const char *outbox_flow_network(const struct outbox *outbox, int i);
const char *outbox_flow_name(const struct outbox *outbox, int i);
/* 1 while a batch is open. */
int outbox_inside(const struct outbox *outbox);

/*
 * A message: captured inside a batch, sent at once (untracked) outside.
 * flow is the table's channel for every line a table causes, or NULL.
 */
void outbox_send(struct outbox *outbox, const char *network,
    const char *target, int private_, const char *flow,
    const struct text *text);
/*
 * As outbox_send(), for a message of no use after the loop time expires
 * (struct send_info): it is never stored, even when its event changes
 * something, so a restart does not say it late.
 */
void outbox_send_until(struct outbox *outbox, const char *network,
    const char *target, int private_, const char *flow,
    const struct text *text, uint64_t expires);

/*
 * While on, a private message identical (network, target, text) to one
 * that outbox_load() sent again at this start is not sent a second time;
 * each of those matches once.  A game resumed after a restart sends
 * everyone their hand, and a hand the last run committed and perhaps
 * never said is already on its way again.
 */
void outbox_skip_resent(struct outbox *outbox, int on);

/* An adapter reported message id sent: the row goes with the next write. */
void outbox_sent(struct outbox *outbox, uint64_t id);

/*
 * What a flow's readers have not seen: the newest tracked message of flow
 * on network handed to an adapter and not reported sent, or 0 when there
 * is none; and whether every one of them up to mark has been reported
 * since.  A table starts a turn's clock when its prompt has been said,
 * not when it was stored (a slow IRC pace may hold it for seconds).
 */
uint64_t outbox_flow_unsent(const struct outbox *outbox, const char *network,
    const char *flow);
int outbox_flow_sent(const struct outbox *outbox, const char *network,
    const char *flow, uint64_t mark);

/* Sends the rows a previous run left unsent; returns how many, or -1. */
int outbox_load(struct outbox *outbox);

#endif

/*
 * medium.c - the core's calls into adapters: the queue of sends and parts
 * handed over from the loop, and the optional operations with their
 * defaults (see medium.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "medium.h"
#include "xmalloc.h"

enum op_kind {
	OP_SEND,
	OP_PART,
	OP_WITHHOLD,
};

struct op {
	enum op_kind kind;
	char *network;
	char *target;            /* a channel, or a user for a private send */
	int private_;
	char *flow;              /* may be NULL */
	struct text text;
	uint64_t id;
	uint64_t expires;        /* struct send_info */
};

struct medium {
	struct loop *loop;
	struct medium_listener listener;
	struct op *ops;
	size_t nops, cap;
	uint64_t timer;          /* the flush armed; 0: none */
};

static void
op_finish(struct op *op)
{
	free(op->network);      /* with target and flow: xstrdupv() */
	text_finish(&op->text);
}

struct medium *
medium_create(struct loop *loop, const struct medium_listener *listener)
{
	struct medium *medium = xcalloc(1, sizeof(*medium));

	medium->loop = loop;
	medium->listener = *listener;
	return medium;
}

void
medium_destroy(struct medium *medium)
{
	if (medium == NULL)
		return;
	loop_cancel(medium->loop, medium->timer);
	for (size_t i = 0; i < medium->nops; i++)
		op_finish(&medium->ops[i]);
	free(medium->ops);
	free(medium);
}

static void
flush_cb(struct loop *loop, uint64_t id, void *arg)
{
	struct medium *medium = arg;

	(void)loop;
	(void)id;
	medium->timer = 0;
	medium_flush(medium);
}

/* A new slot at the end of the queue, the flush armed. */
static struct op *
op_push(struct medium *medium, enum op_kind kind, const char *network,
    const char *target, const char *flow)
{
	const char *in[3] = { network, target, flow };
	char *out[3];
	struct op *op;

	if (medium->nops == medium->cap) {
		size_t cap = medium->cap > 0 ? medium->cap * 2 : 16;

		medium->ops = xreallocarray(medium->ops, cap,
		    sizeof(*medium->ops));
		medium->cap = cap;
	}
	op = &medium->ops[medium->nops];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	text_init(&op->text);
	xstrdupv(out, in, 3);
	op->network = out[0];
	op->target = out[1];
	op->flow = out[2];
	medium->nops++;
	if (medium->timer == 0)
		medium->timer = loop_timer(medium->loop, 0, flush_cb, medium);
	return op;
}

void
medium_send(struct medium *medium, const char *network, const char *target,
    int private_, const struct text *text, const struct send_info *info)
{
	struct op *op = op_push(medium, OP_SEND, network, target, info->flow);

	op->private_ = private_;
	op->id = info->id;
	op->expires = info->expires;
	text_append(&op->text, text);
}

void
medium_part(struct medium *medium, const char *network, const char *channel)
{
	(void)op_push(medium, OP_PART, network, channel, NULL);
}

void
medium_withhold(struct medium *medium, const char *network)
{
	(void)op_push(medium, OP_WITHHOLD, network, NULL, NULL);
}

/* Hands one queued operation to its network's adapter. */
static void
op_run(struct medium *medium, struct op *op)
{
	struct adapter *adapter = medium->listener.adapter(
	    medium->listener.data, op->network);
	struct send_info info = {
		.id = op->id, .flow = op->flow, .expires = op->expires,
	};
	int rc;

	if (adapter == NULL) {
		if (op->kind != OP_WITHHOLD)
			log_warn("%s: no longer running; %s to %s is dropped",
			    op->network, op->kind == OP_PART ? "a part" :
			    "a message", op->target);
		return;
	}
	if (op->kind == OP_PART) {
		adapter->impl->part(adapter, op->target);
		return;
	}
	if (op->kind == OP_WITHHOLD) {
		size_t n = adapter->impl->withhold != NULL ?
		    adapter->impl->withhold(adapter) : 0;

		if (n > 0)
			log_info("%s: %zu stored messages not sent yet are "
			    "said after the next start", op->network, n);
		return;
	}
	rc = op->private_ ?
	    adapter->impl->send_private(adapter, op->target, &op->text,
	    &info) :
	    adapter->impl->send_channel(adapter, op->target, &op->text,
	    &info);
	/* Taken is as good as sent where the medium says no more. */
	if (rc == 0 && op->id != 0 && !adapter->impl->reports_sent)
		medium->listener.taken(medium->listener.data, op->id);
}

void
medium_flush(struct medium *medium)
{
	/*
	 * The queue is taken first: what an adapter's send makes the core
	 * queue (it should not, but) waits for the next flush.
	 */
	struct op *ops = medium->ops;
	size_t n = medium->nops;

	medium->ops = NULL;
	medium->nops = medium->cap = 0;
	loop_cancel(medium->loop, medium->timer);
	medium->timer = 0;
	for (size_t i = 0; i < n; i++) {
		op_run(medium, &ops[i]);
		op_finish(&ops[i]);
	}
	free(ops);
}

size_t
medium_pending(const struct medium *medium)
{
	return medium->nops;
}

size_t
medium_flow_waiting(const struct medium *medium, struct adapter *adapter,
    const char *flow)
{
	size_t n = 0;

	for (size_t i = 0; i < medium->nops; i++) {
		const struct op *op = &medium->ops[i];

		n += op->kind == OP_SEND && op->flow != NULL &&
		    strcmp(op->flow, flow) == 0 &&
		    strcmp(op->network, adapter->network) == 0;
	}
	if (adapter->impl->flow_waiting != NULL)
		n += adapter->impl->flow_waiting(adapter, flow);
	return n;
}

int
medium_busy(struct adapter *adapter, const char *flow)
{
	return adapter->impl->busy != NULL &&
	    adapter->impl->busy(adapter, flow) == 1;
}

const char *
medium_self_name(struct adapter *adapter)
{
	return adapter->impl->self_name != NULL ?
	    adapter->impl->self_name(adapter) : NULL;
}

void
medium_canonical_id(struct adapter *adapter, char *user_id)
{
	if (adapter->impl->canonical_id != NULL)
		adapter->impl->canonical_id(adapter, user_id);
}

void
medium_channel_title(struct adapter *adapter, const char *channel,
    char *out, size_t outlen)
{
	if (outlen == 0)
		return;
	out[0] = '\0';
	if (adapter->impl->channel_title != NULL)
		adapter->impl->channel_title(adapter, channel, out, outlen);
	if (out[0] == '\0')
		snprintf(out, outlen, "%s", channel);
}

const char *
medium_reader(struct adapter *adapter, const char *channel)
{
	return adapter->impl->reader != NULL ?
	    adapter->impl->reader(adapter, channel) : NULL;
}

int
medium_channel_admin(struct adapter *adapter, const char *channel,
    const char *user_id)
{
	return adapter->impl->channel_admin != NULL &&
	    adapter->impl->channel_admin(adapter, channel, user_id) == 1;
}

size_t
medium_queue_depth(const struct adapter *adapter)
{
	return adapter->impl->queue_depth != NULL ?
	    adapter->impl->queue_depth(adapter) : 0;
}

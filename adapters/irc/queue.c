/*
 * queue.c - the outgoing queue (see queue.h): control lines first, then
 * the flows of tables and people round-robin, then background and low
 * lines, paced by a bucket; lines with an outbox id stay in flight until
 * the server's PONG confirms them, and go again after a reconnect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "log.h"
#include "loop.h"
#include "queue.h"
#include "queue_int.h"
#include "xmalloc.h"

struct irc_queue *
irc_queue_create(struct loop *loop, int burst, int interval_ms,
    const struct irc_queue_ops *ops)
{
	struct irc_queue *q = xcalloc(1, sizeof(*q));

	q->loop = loop;
	bucket_init(&q->bucket, burst, interval_ms, loop_now(loop));
	q->ops = *ops;
	q->rr = q->rr_reply = -1;
	return q;
}

void
irc_queue_clear(struct irc_queue *q, enum irc_class cls)
{
	while (q->head[cls] != NULL) {
		struct qline *l = q->head[cls];

		q->head[cls] = l->next;
		free(l);
	}
	q->tail[cls] = NULL;
	q->total -= q->count[cls];
	q->count[cls] = 0;
}

static void
flow_free(struct qflow *f)
{
	while (f->head != NULL) {
		struct qline *l = f->head;

		f->head = l->next;
		free(l);
	}
	free(f->name);
	free(f);
}

void
irc_queue_destroy(struct irc_queue *q)
{
	if (q == NULL)
		return;
	loop_cancel(q->loop, q->timer);
	for (int c = 0; c < IRC_CLASSES; c++)
		irc_queue_clear(q, (enum irc_class)c);
	while (q->fly_head != NULL) {
		struct qline *l = q->fly_head;

		q->fly_head = l->next;
		free(l);
	}
	for (int i = 0; i < q->nflows; i++)
		flow_free(q->flows[i]);
	free(q->flows);
	free(q);
}

static void
queue_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc_queue *q = arg;

	(void)loop;
	(void)id;
	q->timer = 0;
	/* The event that armed a PING is over. */
	if (q->ping_soon)
		q->ping_soon = 2;
	irc_queue_flush(q);
}

static void
queue_arm(struct irc_queue *q, uint64_t delay)
{
	loop_cancel(q->loop, q->timer);
	q->timer = loop_timer(q->loop, delay, queue_timer, q);
}

static struct qline *
line_new(const char *line, const char *ident)
{
	size_t n = strlen(line), m = ident != NULL ? strlen(ident) + 1 : 0;
	struct qline *l = xmalloc(sizeof(*l) + n + 1 + m);

	memset(l, 0, sizeof(*l));
	memcpy(l->line, line, n + 1);
	if (ident != NULL) {
		memcpy(l->line + n + 1, ident, m);
		l->ident = l->line + n + 1;
	}
	return l;
}

int
irc_queue_push(struct irc_queue *q, enum irc_class cls, const char *line)
{
	struct qline *l;

	if (cls == IRC_CLASS_LOW && q->count[cls] >= IRC_QUEUE_LOW_MAX)
		return -1;
	if (q->total >= IRC_QUEUE_MAX && cls != IRC_CLASS_CONTROL) {
		if (!q->warned)
			log_warn("irc: %zu lines wait to be sent; dropping "
			    "new ones", q->total);
		q->warned = 1;
		return -1;
	}
	l = line_new(line, NULL);
	if (q->tail[cls] != NULL)
		q->tail[cls]->next = l;
	else
		q->head[cls] = l;
	q->tail[cls] = l;
	q->count[cls]++;
	q->total++;
	irc_queue_flush(q);
	return 0;
}

static struct qflow *
flow_find(const struct irc_queue *q, const char *name)
{
	for (int i = 0; i < q->nflows; i++)
		if (strcmp(q->flows[i]->name, name) == 0)
			return q->flows[i];
	return NULL;
}

static struct qflow *
flow_get(struct irc_queue *q, const char *name)
{
	struct qflow *f = flow_find(q, name);

	if (f != NULL)
		return f;
	xarray_grow((void **)&q->flows, &q->flows_cap, q->nflows + 1, sizeof(*q->flows));
	f = xcalloc(1, sizeof(*f));
	f->name = xstrdup(name);
	q->flows[q->nflows++] = f;
	return f;
}

/*
 * Forgets flows with nothing waiting and nothing in flight, keeping the
 * others in their order so that the round keeps its place.
 */
static void
flows_compact(struct irc_queue *q)
{
	int j = 0;

	/* A flush on the stack walks the flows. */
	if (q->flushing)
		return;
	for (int i = 0; i < q->nflows; i++) {
		struct qflow *f = q->flows[i];

		if (f->count == 0 && f->inflight == 0) {
			if (i <= q->rr)
				q->rr--;
			if (i <= q->rr_reply)
				q->rr_reply--;
			flow_free(f);
			continue;
		}
		q->flows[j++] = f;
	}
	q->nflows = j;
	if (q->rr >= q->nflows)
		q->rr = q->nflows - 1;
	if (q->rr_reply >= q->nflows)
		q->rr_reply = q->nflows - 1;
}

uint64_t
irc_queue_mark(struct irc_queue *q)
{
	/* Marks and messages count together: a message's number is its mark. */
	return ++q->next_msg;
}

int
irc_queue_push_message(struct irc_queue *q, const char *flow,
    const char *ident, int gated, uint64_t id, uint64_t expires,
    const char *const *lines, int n)
{
	struct qline *first = NULL, *last = NULL;
	struct qflow *f;
	uint64_t msg = ++q->next_msg;

	if (n <= 0) {
		/* Nothing to send: the message has left at once. */
		if (id != 0 && q->ops.done != NULL)
			q->ops.done(id, 0, q->ops.arg);
		return 0;
	}
	f = flow_get(q, flow);
	/* Replies (no id) are refused past their limits; tracked never. */
	if (id == 0 && (f->untracked + (size_t)n > IRC_FLOW_UNTRACKED_MAX ||
	    q->untracked + (size_t)n > IRC_QUEUE_MAX)) {
		/* Logged once until the flow drains, not once a reply. */
		if (!f->warned)
			log_warn("irc: %zu lines wait for %s (%zu in all); "
			    "dropping replies there", f->count, flow,
			    q->total);
		f->warned = 1;
		flows_compact(q);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct qline *l = line_new(lines[i], ident);

		l->flow = f;
		l->msg = msg;
		l->gated = gated;
		l->tracked = id != 0;
		l->expires = expires;
		if (last != NULL)
			last->next = l;
		else
			first = l;
		last = l;
	}
	first->first = 1;
	last->last = 1;
	last->id = id;
	if (f->tail != NULL)
		f->tail->next = first;
	else
		f->head = first;
	f->tail = last;
	f->count += (size_t)n;
	q->total += (size_t)n;
	if (id == 0) {
		f->untracked += (size_t)n;
		q->untracked += (size_t)n;
	}
	if (expires != 0) {
		f->expiring += (size_t)n;
		q->expiring += (size_t)n;
	}
	irc_queue_flush(q);
	return 0;
}

void
irc_queue_run(struct irc_queue *q, int running)
{
	q->running = running;
	if (running) {
		irc_queue_flush(q);
	} else {
		loop_cancel(q->loop, q->timer);
		q->timer = 0;
	}
}

/* Takes l, which follows prev (NULL: the head), out of its flow. */
static void
flow_unlink(struct irc_queue *q, struct qline *prev, struct qline *l)
{
	struct qflow *f = l->flow;

	if (prev == NULL)
		f->head = l->next;
	else
		prev->next = l->next;
	if (f->tail == l)
		f->tail = prev;
	f->count--;
	if (!l->tracked) {
		f->untracked--;
		q->untracked--;
	}
	if (l->expires != 0) {
		f->expiring--;
		q->expiring--;
	}
	q->total--;
	l->next = NULL;
}

/* Takes l, the head of its flow, out of the queue. */
static void
flow_pop(struct irc_queue *q, struct qline *l)
{
	flow_unlink(q, NULL, l);
}

/* Takes l, the head of its flow or class, out of the queue. */
static void
queue_pop(struct irc_queue *q, int cls, struct qline *l)
{
	if (l->flow != NULL) {
		flow_pop(q, l);
		return;
	}
	q->head[cls] = l->next;
	if (q->head[cls] == NULL)
		q->tail[cls] = NULL;
	q->count[cls]--;
	q->total--;
	l->next = NULL;
}

/* Puts l back at the head of its flow or class (a busy send). */
static void
queue_unpop(struct irc_queue *q, int cls, struct qline *l)
{
	struct qflow *f = l->flow;

	if (f != NULL) {
		l->next = f->head;
		f->head = l;
		if (f->tail == NULL)
			f->tail = l;
		f->count++;
		if (!l->tracked) {
			f->untracked++;
			q->untracked++;
		}
		if (l->expires != 0) {
			f->expiring++;
			q->expiring++;
		}
	} else {
		l->next = q->head[cls];
		q->head[cls] = l;
		if (q->tail[cls] == NULL)
			q->tail[cls] = l;
		q->count[cls]++;
	}
	q->total++;
}

/*
 * Drops the rest of the message at the head of f (its holder may not have
 * it, or its channel is gone) and reports its id as done.
 */
static void
drop_message(struct irc_queue *q, struct qflow *f)
{
	uint64_t msg = f->head->msg;

	while (f->head != NULL && f->head->msg == msg) {
		struct qline *l = f->head;

		flow_pop(q, l);
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 1, q->ops.arg);
		free(l);
	}
}

size_t
irc_queue_withhold(struct irc_queue *q)
{
	size_t n = 0;

	for (int i = 0; i < q->nflows; i++) {
		struct qflow *f = q->flows[i];
		struct qline *prev = NULL, *l = f->head;

		/* A message begun is finished: its rest would come alone. */
		while (l != NULL && !l->first) {
			prev = l;
			l = l->next;
		}
		while (l != NULL) {
			struct qline *next = l->next;

			flow_unlink(q, prev, l);
			n += l->last && l->tracked;
			free(l);
			l = next;
		}
	}
	flows_compact(q);
	return n;
}

/*
 * Drops the message whose first line l follows prev in f (someone else
 * holds its nick, or it expired) and reports its id as done.
 */
static void
drop_after(struct irc_queue *q, struct qline *prev, struct qline *l)
{
	uint64_t msg = l->msg;

	while (l != NULL && l->msg == msg) {
		struct qline *next = l->next;

		flow_unlink(q, prev, l);
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 1, q->ops.arg);
		free(l);
		l = next;
	}
}

size_t
irc_queue_expire(struct irc_queue *q, uint64_t now)
{
	size_t n = 0;

	for (int i = 0; q->expiring > 0 && i < q->nflows; i++) {
		struct qflow *f = q->flows[i];
		struct qline *prev = NULL, *l = f->head;

		while (l != NULL) {
			if (l->first && l->expires != 0 && l->expires <= now) {
				drop_after(q, prev, l);
				n++;
				l = prev != NULL ? prev->next : f->head;
			} else {
				prev = l;
				l = l->next;
			}
		}
	}
	return n;
}

/* Distinct people whose private lines one scan of a flow passes over. */
#define OVERTAKE_HELD 8

/*
 * The head of f is a private line that waits for its gate (its holder is
 * being verified, which on a server that charges for WHO takes seconds): a
 * later message of f may leave before it, so that a table's channel lines
 * and other people's private lines do not wait behind one person's
 * verification.  Each held person's lines keep their order, and nothing
 * overtakes a channel line that waits (the bot is not in the channel).
 * Returns the line taken out of f, or NULL.
 */
static struct qline *
overtake(struct irc_queue *q, struct qflow *f)
{
	const char *held[OVERTAKE_HELD];
	struct qline *prev = NULL, *l = f->head;
	int nheld = 0, g, i;

	while (l != NULL) {
		uint64_t msg = l->msg;

		for (i = 0; i < nheld && l->ident != NULL; i++)
			if (strcmp(held[i], l->ident) == 0)
				break;
		if (l->ident != NULL && i < nheld)
			g = IRC_GATE_WAIT;
		else if (l->gated && q->ops.gate != NULL)
			g = q->ops.gate(l->line, l->ident, l->msg, q->ops.arg);
		else
			g = IRC_GATE_GO;
		if (g == IRC_GATE_GO) {
			flow_unlink(q, prev, l);
			return l;
		}
		if (g == IRC_GATE_DROP && prev != NULL) {
			drop_after(q, prev, l);
			l = prev->next;
			continue;
		}
		if (g == IRC_GATE_DROP || l->ident == NULL)
			return NULL;
		if (i == nheld) {
			if (nheld == OVERTAKE_HELD)
				return NULL;
			held[nheld++] = l->ident;
		}
		while (l != NULL && l->msg == msg) {
			prev = l;
			l = l->next;
		}
	}
	return NULL;
}

/*
 * A table's flow: it holds lines of messages with an outbox id, or of
 * messages that expire (a turn's reminder: of no use once late, so not
 * one to wait behind people's questions).
 */
static int
flow_is_table(const struct qflow *f)
{
	return f->count + f->expiring > f->untracked;
}

/*
 * A channel's flow of replies while its table's flow holds a line queued
 * before the reply: the channel reads the news it asked after first.  A
 * line of the table queued after the reply does not hold it (before, a
 * table that kept making lines, computers at a slow pace, held every
 * answer back for minutes, and they came out stale, even after the
 * goodbye).  Messages are numbered in the order they were queued.
 */
static int
behind_its_table(const struct irc_queue *q, const struct qflow *f)
{
	size_t n = sizeof(IRC_REPLIES_PREFIX) - 1;
	const struct qflow *table;

	return strncmp(f->name, IRC_REPLIES_PREFIX, n) == 0 &&
	    f->head != NULL && (table = flow_find(q, f->name + n)) != NULL &&
	    table->head != NULL && table->head->msg < f->head->msg;
}

static int
replies_waiting(const struct irc_queue *q)
{
	for (int i = 0; i < q->nflows; i++)
		if (q->flows[i]->head != NULL && !flow_is_table(q->flows[i]))
			return 1;
	return 0;
}

/*
 * The next line of the table flows (tables 1) or the reply flows (0),
 * round-robin from the one after the flow of that kind served last (*rr):
 * each flow with a line that may leave gives one, so a flow with a long
 * backlog delays another of its kind by at most one line per other flow
 * in each round.  A flow whose head waits for its gate (a holder being
 * verified, a channel not joined yet) is passed over, and its later lines
 * wait behind it, except that lines for others may pass a private line
 * whose holder is being verified (overtake()).
 */
static struct qline *
pick_kind(struct irc_queue *q, int tables, int *rr)
{
	int n = q->nflows;

	for (int k = 1; k <= n; k++) {
		int i = ((*rr + k) % n + n) % n;
		struct qflow *f = q->flows[i];

		if (!tables && behind_its_table(q, f))
			continue;
		while (f->head != NULL && flow_is_table(f) == tables) {
			struct qline *l = f->head;
			int g = IRC_GATE_GO;

			if (l->gated && q->ops.gate != NULL)
				g = q->ops.gate(l->line, l->ident, l->msg,
				    q->ops.arg);
			if (g == IRC_GATE_DROP) {
				drop_message(q, f);
				continue;
			}
			if (g == IRC_GATE_WAIT && l->ident != NULL &&
			    (l = overtake(q, f)) != NULL) {
				*rr = i;
				return l;
			}
			if (g == IRC_GATE_WAIT)
				break;
			*rr = i;
			flow_pop(q, l);
			return l;
		}
	}
	return NULL;
}

/*
 * Tables first: their lines are the games (moves, hands, prompts), a
 * reply is one person's (help, a refusal).  While both wait, a reply
 * flow gets the turn after IRC_TABLE_SHARE table lines in a row, so
 * replies keep at least 1 line in IRC_TABLE_SHARE + 1 and a crowd of
 * them delays a table's next line by at most one line.  Otherwise a
 * reply leaves only while the bucket keeps a token for the next table
 * line (with a burst of 2 or more): a move then finds one at once
 * instead of waiting an interval behind the crowd, and the replies lose
 * no rate, only one token of burst.
 */
static struct qline *
pick_flow(struct irc_queue *q)
{
	struct qline *l;

	q->reserved = 0;
	if (q->table_run >= IRC_TABLE_SHARE &&
	    (l = pick_kind(q, 0, &q->rr_reply)) != NULL) {
		q->table_run = 0;
		return l;
	}
	/* A full window waits for a PONG (see IRC_FLY_MAX). */
	if ((q->ops.ping == NULL || q->nfly < IRC_FLY_MAX) &&
	    (l = pick_kind(q, 1, &q->rr)) != NULL) {
		q->table_run = replies_waiting(q) ? q->table_run + 1 : 0;
		return l;
	}
	q->table_run = 0;
	if (!q->spare) {
		q->reserved = replies_waiting(q);
		return NULL;
	}
	return pick_kind(q, 0, &q->rr_reply);
}

/* The next line to send and its class (-1: a flow's), or NULL. */
static struct qline *
queue_next(struct irc_queue *q, int *cls, uint64_t now)
{
	struct qline *l;

	*cls = IRC_CLASS_CONTROL;
	if ((l = q->head[IRC_CLASS_CONTROL]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = -1;
	if ((l = pick_flow(q)) != NULL)
		return l;
	/* A gate may have asked for a verification. */
	*cls = IRC_CLASS_CONTROL;
	if ((l = q->head[IRC_CLASS_CONTROL]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = IRC_CLASS_BACKGROUND;
	if ((l = q->head[*cls]) != NULL && now >= q->background_at) {
		queue_pop(q, *cls, l);
		return l;
	}
	*cls = IRC_CLASS_LOW;
	if ((l = q->head[*cls]) != NULL) {
		queue_pop(q, *cls, l);
		return l;
	}
	return NULL;
}

/* Lines that wait but cannot leave yet: a gate, or the background gap. */
static void
queue_blocked(struct irc_queue *q, uint64_t now)
{
	if (q->head[IRC_CLASS_BACKGROUND] != NULL && q->background_at > now &&
	    q->count[IRC_CLASS_BACKGROUND] == q->total)
		queue_arm(q, q->background_at - now);
	else if (q->total > 0)
		queue_arm(q, IRC_QUEUE_GATE_RETRY_MS);
}

/*
 * A PING may follow the lines in flight: none is outstanding, some lines
 * have none after them, and either nothing else may leave now (idle) or
 * a whole batch waits.
 */
static int
ping_due(const struct irc_queue *q, int idle)
{
	return q->ops.ping != NULL && q->running && q->ping_token == 0 &&
	    q->unpinged > 0 && (idle || q->unpinged >= IRC_PING_BATCH);
}

/*
 * Sends the PING after the lines in flight, with a token taken by the
 * caller: 0 sent, 1 busy, -1 failed (the lines wait for the next one).
 */
static int
ping_send(struct irc_queue *q, uint64_t now)
{
	char line[64];
	uint64_t token = ++q->next_token;
	int rc;

	snprintf(line, sizeof(line), "PING :%s%llu", IRC_PING_PREFIX,
	    (unsigned long long)token);
	if ((rc = q->ops.ping(line, q->ops.arg)) != 0)
		return rc;
	for (struct qline *l = q->fly_head; l != NULL; l = l->next)
		if (l->batch == 0)
			l->batch = token;
	q->unpinged = 0;
	q->ping_token = token;
	q->ping_at = now;
	q->ping_soon = 0;
	return 0;
}

/*
 * Nothing else may leave now.  A PING due waits for the end of the
 * current event (the lines it causes share it), then takes a token, but
 * like a reply not the bucket's last one (with a burst of 2 or more): the
 * next move must not wait an interval for a confirmation.  Returns 1 when
 * it armed the queue's timer.
 */
static int
ping_idle(struct irc_queue *q, uint64_t now)
{
	if (!ping_due(q, 1))
		return 0;
	if (q->ping_soon != 2) {
		q->ping_soon = 1;
		queue_arm(q, 0);
		return 1;
	}
	if (!bucket_take(&q->bucket, now)) {
		queue_arm(q, bucket_wait(&q->bucket, now));
		return 1;
	}
	if (q->bucket.cap >= 2 * q->bucket.interval &&
	    q->bucket.credit < q->bucket.interval) {
		bucket_refund(&q->bucket);
		queue_arm(q, 2 * q->bucket.interval - q->bucket.credit);
		return 1;
	}
	if (ping_send(q, now) != 0) {
		bucket_refund(&q->bucket);
		queue_arm(q, IRC_QUEUE_RETRY_MS);
		return 1;
	}
	return 0;
}

void
irc_queue_flush(struct irc_queue *q)
{
	/* A send that pushes a line must not recurse into sending. */
	if (q->flushing)
		return;
	q->flushing = 1;
	/* A message of no use any more does not take a token. */
	if (q->expiring > 0) {
		size_t n = irc_queue_expire(q, loop_now(q->loop));

		if (n > 0)
			log_info("irc: %zu messages could not leave in time "
			    "and are dropped", n);
	}
	while (q->running && q->total > 0) {
		uint64_t now = loop_now(q->loop);
		struct qline *l;
		int cls, rc;

		if (!bucket_take(&q->bucket, now)) {
			queue_arm(q, bucket_wait(&q->bucket, now));
			break;
		}
		/* A whole batch is out: its PING takes this token. */
		if (ping_due(q, 0)) {
			if (ping_send(q, now) == 0)
				continue;
			bucket_refund(&q->bucket);
			queue_arm(q, IRC_QUEUE_RETRY_MS);
			break;
		}
		/* Is there a token beyond this one (replies keep one)? */
		q->spare = q->bucket.cap < 2 * q->bucket.interval ||
		    q->bucket.credit >= q->bucket.interval;
		if ((l = queue_next(q, &cls, now)) == NULL) {
			bucket_refund(&q->bucket);
			if (ping_idle(q, now))
				break;
			if (q->reserved)
				/* A reply leaves once a second token is in. */
				queue_arm(q, 2 * q->bucket.interval -
				    q->bucket.credit);
			else
				queue_blocked(q, now);
			break;
		}
		rc = q->ops.send(l->line, q->ops.arg);
		if (rc == 1) {
			bucket_refund(&q->bucket);
			queue_unpop(q, cls, l);
			queue_arm(q, IRC_QUEUE_RETRY_MS);
			break;
		}
		if (cls == IRC_CLASS_BACKGROUND)
			q->background_at = now + IRC_BACKGROUND_GAP_MS;
		if (rc == 0 && l->flow != NULL && l->tracked) {
			/*
			 * Kept until the server is known to have it.  A reply
			 * is not kept (nor confirmed, nor worth a PING): it
			 * is said at most once, like the class lines.
			 */
			l->flow->inflight++;
			l->batch = 0;
			q->unpinged++;
			if (q->fly_tail != NULL)
				q->fly_tail->next = l;
			else
				q->fly_head = l;
			q->fly_tail = l;
			q->nfly++;
			continue;
		}
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 1, q->ops.arg);
		free(l);
	}
	if (q->total == 0) {
		q->warned = 0;
		ping_idle(q, loop_now(q->loop));
	}
	q->flushing = 0;
	flows_compact(q);
}

/* done() for the lines in flight up to batch (0: all of them). */
static void
fly_confirm(struct irc_queue *q, uint64_t batch)
{
	while (q->fly_head != NULL && (batch == 0 ||
	    (q->fly_head->batch != 0 && q->fly_head->batch <= batch))) {
		struct qline *l = q->fly_head;

		q->fly_head = l->next;
		q->nfly--;
		if (l->batch == 0 && q->unpinged > 0)
			q->unpinged--;
		l->flow->inflight--;
		if (l->last && l->id != 0 && q->ops.done != NULL)
			q->ops.done(l->id, 0, q->ops.arg);
		free(l);
	}
	if (q->fly_head == NULL)
		q->fly_tail = NULL;
	flows_compact(q);
}

int
irc_queue_ping_last(struct irc_queue *q)
{
	if (q->ops.ping == NULL || q->nfly == 0)
		return 0;
	/* The outstanding PING already follows every line in flight. */
	if (q->unpinged == 0 && q->ping_token != 0)
		return 1;
	/*
	 * Outside the bucket, and past an outstanding PING: the server
	 * answers in order, so the newest PONG confirms the older batches
	 * too (irc_queue_pong() then takes only the newest token).
	 */
	return ping_send(q, loop_now(q->loop)) == 0 ? 1 : -1;
}

void
irc_queue_written(struct irc_queue *q)
{
	fly_confirm(q, 0);
	q->ping_token = 0;
}

int
irc_queue_pong(struct irc_queue *q, const char *token)
{
	char *end;
	unsigned long long t;

	if (q->ping_token == 0 || strncmp(token, IRC_PING_PREFIX,
	    strlen(IRC_PING_PREFIX)) != 0)
		return 0;
	token += strlen(IRC_PING_PREFIX);
	errno = 0;
	t = strtoull(token, &end, 10);
	if (errno != 0 || end == token || *end != '\0' || t != q->ping_token)
		return 0;
	q->ping_token = 0;
	fly_confirm(q, t);
	/* The lines handed on since may have their PING now. */
	irc_queue_flush(q);
	return 1;
}

uint64_t
irc_queue_ping_since(const struct irc_queue *q)
{
	return q->ping_token != 0 ? q->ping_at : 0;
}

size_t
irc_queue_inflight(const struct irc_queue *q)
{
	return q->nfly;
}

void
irc_queue_requeue(struct irc_queue *q)
{
	struct qline **all;
	size_t n = 0;

	/* A PING of this connection will never be answered. */
	q->unpinged = 0;
	q->ping_token = 0;
	q->ping_soon = 0;
	if (q->nfly == 0)
		return;
	all = xcalloc(q->nfly, sizeof(*all));
	for (struct qline *l = q->fly_head; l != NULL; l = l->next)
		all[n++] = l;
	q->fly_head = q->fly_tail = NULL;
	q->nfly = 0;
	/* Newest first to the front: the oldest ends up first. */
	while (n > 0) {
		struct qline *l = all[--n];

		l->flow->inflight--;
		queue_unpop(q, -1, l);
	}
	free(all);
}

size_t
irc_queue_depth(const struct irc_queue *q)
{
	return q->total + q->nfly;
}

size_t
irc_queue_flows_waiting(const struct irc_queue *q)
{
	size_t n = q->total;

	for (int c = 0; c < IRC_CLASSES; c++)
		n -= q->count[c];
	return n;
}

size_t
irc_queue_flow_depth(const struct irc_queue *q, const char *flow)
{
	const struct qflow *f = flow_find(q, flow);

	return f != NULL ? f->count : 0;
}

void
irc_queue_set_pace(struct irc_queue *q, int burst, int interval_ms)
{
	uint64_t now = loop_now(q->loop), tokens;

	/* The tokens left now stay left: no second burst. */
	bucket_wait(&q->bucket, now);
	tokens = q->bucket.credit / q->bucket.interval;
	bucket_init(&q->bucket, burst, interval_ms, now);
	if (tokens * q->bucket.interval < q->bucket.credit)
		q->bucket.credit = tokens * q->bucket.interval;
	if (!q->flushing && q->running)
		irc_queue_flush(q);
}

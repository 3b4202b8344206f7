/*
 * queue.c - the Matrix adapter's messages waiting to be sent
 * (matrix_int.h): queues of them, the transaction id each gets, the order
 * of a table's messages across queues (its flow), and the reports to the
 * core of those that can never be sent.
 */
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"

void
mx_queue_push(struct mx_queue *q, struct mx_msg *msg)
{
	msg->next = NULL;
	if (q->tail != NULL)
		q->tail->next = msg;
	else
		q->head = msg;
	q->tail = msg;
	q->n++;
}

struct mx_msg *
mx_queue_pop(struct mx_queue *q)
{
	struct mx_msg *msg = q->head;

	if (msg == NULL)
		return NULL;
	q->head = msg->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->n--;
	return msg;
}

void
mx_queue_clear(struct mx_queue *q)
{
	struct mx_msg *msg;

	while ((msg = mx_queue_pop(q)) != NULL)
		mx_msg_free(msg);
}

/* Appends every message of from to to, keeping their order. */
void
mx_queue_move(struct mx_queue *to, struct mx_queue *from)
{
	struct mx_msg *msg;

	while ((msg = mx_queue_pop(from)) != NULL)
		mx_queue_push(to, msg);
}

/* Moves every message of a and b to out, oldest (seq) first. */
static void
queue_merge(struct mx_queue *out, struct mx_queue *a, struct mx_queue *b)
{
	while (a->head != NULL || b->head != NULL) {
		struct mx_queue *q = a->head == NULL ? b :
		    b->head == NULL ? a :
		    b->head->seq < a->head->seq ? b : a;

		mx_queue_push(out, mx_queue_pop(q));
	}
}

void
mx_queue_merge(struct mx_queue *to, struct mx_queue *from)
{
	struct mx_queue out = { 0 };

	queue_merge(&out, to, from);
	*to = out;
}

void
mx_room_take(struct mx_room *room, struct mx_queue *from)
{
	struct mx_queue *to = &room->queue, out = { 0 };

	/* The message on its way stays first: it may have arrived. */
	if (room->sending != NULL && to->head != NULL)
		mx_queue_push(&out, mx_queue_pop(to));
	queue_merge(&out, to, from);
	*to = out;
}

/*
 * A message for text; info (may be NULL) is the core's, private_to the
 * recipient of a private line (NULL in a room).  A tracked message's
 * transaction id comes from its outbox row, so that the row sent again
 * after a restart is the same transaction; others get one per process.
 * NULL when jansson refuses the text (not UTF-8, see json.h).
 */
struct mx_msg *
mx_msg_new(struct matrix *m, const struct text *text,
    const struct send_info *info, const char *private_to)
{
	struct mx_msg *msg = xcalloc(1, sizeof(*msg));

	if ((msg->content = mx_line_content(text, private_to)) == NULL) {
		mx_msg_free(msg);
		return NULL;
	}
	if (info != NULL && info->flow != NULL)
		msg->flow = xstrdup(info->flow);
	msg->seq = ++m->msg_seq;
	if (info != NULL)
		msg->expires = info->expires;
	if (info != NULL && info->id != 0) {
		msg->id = info->id;
		mx_txn_id_outbox(msg->txn, sizeof(msg->txn), m->txn_prefix,
		    info->id);
	} else {
		mx_txn_id(msg->txn, sizeof(msg->txn), m->epoch,
		    ++m->txn_counter);
	}
	return msg;
}

void
mx_msg_free(struct mx_msg *msg)
{
	if (msg == NULL)
		return;
	json_decref(msg->content);
	free(msg->flow);
	free(msg);
}

static void
on_report_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;
	/* Taken over: the core may drop more while it hears of these. */
	uint64_t *ids = m->dropped;
	size_t n = m->ndropped;

	(void)loop;
	(void)id;
	m->report_timer = 0;
	m->dropped = NULL;
	m->ndropped = m->dropped_cap = 0;
	for (size_t i = 0; i < n; i++)
		if (m->adapter->listener != NULL)
			adapter_sent(m->adapter, ids[i]);
	free(ids);
}

/* Tells the core that outbox row id (0: none) has left or never will. */
void
mx_sent_report(struct matrix *m, uint64_t id)
{
	if (id != 0 && m->adapter->listener != NULL)
		adapter_sent(m->adapter, id);
}

/*
 * A tracked message can never be sent (its room is gone, its recipient
 * unreachable): the core forgets its outbox row, from the loop, since
 * this may run inside one of the core's calls (part, send).
 */
void
mx_msg_dropped(struct matrix *m, const struct mx_msg *msg, const char *where)
{
	size_t cap = m->dropped_cap;
	uint64_t *grown;

	if (msg->id == 0)
		return;
	if (where != NULL)
		log_warn("matrix %s: message %llu for %s can never be sent; "
		    "dropped", mx_net(m), (unsigned long long)msg->id, where);
	if (m->ndropped == cap) {
		cap = cap != 0 ? cap * 2 : 16;
		grown = xreallocarray(m->dropped, cap, sizeof(*grown));
		m->dropped = grown;
		m->dropped_cap = cap;
	}
	m->dropped[m->ndropped++] = msg->id;
	if (m->report_timer == 0 && m->loop != NULL)
		m->report_timer = loop_timer(m->loop, 0, on_report_timer, m);
}

/* Drops every message of q for good (see mx_msg_dropped). */
void
mx_queue_drop(struct matrix *m, struct mx_queue *q, const char *where)
{
	struct mx_msg *msg;

	if (q->n > 0 && where != NULL)
		log_warn("matrix %s: dropping %d messages for %s", mx_net(m),
		    q->n, where);
	while ((msg = mx_queue_pop(q)) != NULL) {
		mx_msg_dropped(m, msg, where);
		mx_msg_free(msg);
	}
}

/* Withheld at a stop: a tracked message (its row is said next start). */
static int
withheld(const struct mx_msg *msg, uint64_t now)
{
	(void)now;
	return msg->id != 0;
}

int
mx_msg_expired(const struct mx_msg *msg, uint64_t now)
{
	return msg->expires != 0 && msg->expires <= now;
}

/*
 * Drops the messages of q that goes() picks, except keep (one whose
 * sending began: the homeserver may have it), without telling the core.
 * Returns how many.
 */
static size_t
queue_drop_if(struct mx_queue *q, const struct mx_msg *keep,
    int (*goes)(const struct mx_msg *, uint64_t), uint64_t now)
{
	struct mx_msg **link = &q->head, *msg;
	size_t n = 0;

	q->tail = NULL;
	while ((msg = *link) != NULL) {
		if (msg != keep && goes(msg, now)) {
			*link = msg->next;
			mx_msg_free(msg);
			q->n--;
			n++;
			continue;
		}
		q->tail = msg;
		link = &msg->next;
	}
	return n;
}

/*
 * queue_drop_if() over every queue.  A room's head stays when it is on
 * its way, or with retried also when its sending began and waits for a
 * retry (the homeserver may have it).
 */
static size_t
drop_everywhere(struct matrix *m, int (*goes)(const struct mx_msg *,
    uint64_t), uint64_t now, int retried)
{
	size_t n = 0;

	for (struct mx_room *r = m->rooms; r != NULL; r = r->next) {
		int begun = r->sending != NULL || (retried &&
		    (r->send_timer != 0 || r->send_attempt > 0));

		n += queue_drop_if(&r->queue, begun ? r->queue.head : NULL,
		    goes, now);
	}
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		n += queue_drop_if(&j->queue, NULL, goes, now);
	for (struct mx_dm *d = m->dms; d != NULL; d = d->next)
		n += queue_drop_if(&d->queue, NULL, goes, now);
	return n;
}

size_t
mx_withhold(struct matrix *m)
{
	size_t n = drop_everywhere(m, withheld, 0, 1);

	/*
	 * What stays (replies, the goodbyes next) goes on at once, each
	 * room in its own order: a table's goodbye does not wait for its
	 * message begun in another room, which may be failing for good (a
	 * player's direct room refusing the bot's lines).
	 */
	m->withheld = 1;
	mx_rooms_kick(m);
	return n;
}

size_t
mx_queue_expire(struct mx_queue *q, uint64_t now)
{
	return queue_drop_if(q, NULL, mx_msg_expired, now);
}

size_t
mx_expire(struct matrix *m, uint64_t now)
{
	return drop_everywhere(m, mx_msg_expired, now, 0);
}

/* Messages of flow older than seq waiting in q. */
static int
queue_count(const struct mx_queue *q, const char *flow, uint64_t seq)
{
	int n = 0;

	for (const struct mx_msg *msg = q->head; msg != NULL; msg = msg->next)
		if (msg->seq < seq && msg->flow != NULL &&
		    strcmp(msg->flow, flow) == 0)
			n++;
	return n;
}

/*
 * Messages of flow older than seq waiting anywhere but in skip (NULL:
 * nowhere skipped): in rooms, direct rooms being opened and rooms being
 * joined.
 */
static int
flow_count(const struct matrix *m, const struct mx_room *skip,
    const char *flow, uint64_t seq)
{
	int n = 0;

	for (const struct mx_room *r = m->rooms; r != NULL; r = r->next)
		if (r != skip)
			n += queue_count(&r->queue, flow, seq);
	for (const struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		n += queue_count(&dm->queue, flow, seq);
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		n += queue_count(&j->queue, flow, seq);
	return n;
}

/* Messages of flow (a table) waiting to be sent. */
int
mx_flow_count(const struct matrix *m, const char *flow)
{
	return flow_count(m, NULL, flow, UINT64_MAX);
}

/*
 * Causal order per table (issue 16): each room sends in order, but rooms
 * send side by side, so a table's message waits while an older one of the
 * same table (its flow) has not reached the homeserver from another room,
 * a direct room being opened, or a room being joined.  A table's private
 * lines then never overtake its room's lines, nor the reverse.  The
 * oldest message waiting is never held, so everything goes out.
 */
int
mx_flow_held(const struct matrix *m, const struct mx_room *room,
    const struct mx_msg *msg)
{
	return msg->flow != NULL && !m->withheld &&
	    flow_count(m, room, msg->flow, msg->seq) > 0;
}

/*
 * The room's head is held by its table's order: moves to the head the
 * first message behind it that is not (another table's, or a reply), and
 * returns it; NULL when every one waits.  One room (a player's direct
 * room) carries the private lines of several tables: a table whose room
 * cannot be sent to for a while must not hold back the others.
 */
struct mx_msg *
mx_queue_unheld(const struct matrix *m, struct mx_queue *q)
{
	struct mx_msg *prev = q->head, *msg;

	for (msg = prev != NULL ? prev->next : NULL; msg != NULL;
	    prev = msg, msg = msg->next) {
		/* Counted in every queue, this one too: its own order. */
		if (msg->flow != NULL &&
		    flow_count(m, NULL, msg->flow, msg->seq) > 0)
			continue;
		prev->next = msg->next;
		if (q->tail == msg)
			q->tail = prev;
		msg->next = q->head;
		q->head = msg;
		return msg;
	}
	return NULL;
}

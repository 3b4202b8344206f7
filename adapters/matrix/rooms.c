/*
 * rooms.c - the Matrix adapter's rooms (matrix_int.h): the queue of
 * messages per room, sent one at a time and in order under fixed
 * transaction ids; the members and state the bot knows of each room; the
 * m.direct account data; direct rooms found or opened per player; and
 * the joins of channels and accepted invites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapter.h"
#include "array.h"
#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"
#include "store.h"

static void room_kick(struct mx_room *room);
static void members_fetch(struct mx_room *room);
static void direct_kick(struct matrix *m);

/* Queues */

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

static struct mx_msg *
queue_pop(struct mx_queue *q)
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
static void
sent_report(struct matrix *m, uint64_t id)
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
	log_warn("matrix %s: message %llu for %s can never be sent; dropped",
	    mx_net(m), (unsigned long long)msg->id, where);
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

	if (q->n > 0)
		log_warn("matrix %s: dropping %d messages for %s", mx_net(m),
		    q->n, where);
	while ((msg = queue_pop(q)) != NULL) {
		mx_msg_dropped(m, msg, where);
		mx_msg_free(msg);
	}
}

static void
queue_clear(struct mx_queue *q)
{
	struct mx_msg *msg;

	while ((msg = queue_pop(q)) != NULL)
		mx_msg_free(msg);
}

/* Appends every message of from to to, keeping their order. */
static void
queue_move(struct mx_queue *to, struct mx_queue *from)
{
	struct mx_msg *msg;

	while ((msg = queue_pop(from)) != NULL)
		mx_queue_push(to, msg);
}

/*
 * A message for text; info (may be NULL) is the core's, private_to the
 * recipient of a private line (NULL in a room).  A tracked message's
 * transaction id comes from its outbox row, so that the row sent again
 * after a restart is the same transaction; others get one per process.
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

/* Rooms */

struct mx_room *
mx_room_find(struct matrix *m, const char *id)
{
	for (struct mx_room *r = m->rooms; r != NULL; r = r->next)
		if (strcmp(r->id, id) == 0)
			return r;
	return NULL;
}

struct mx_room *
mx_room_get(struct matrix *m, const char *id)
{
	struct mx_room *r = mx_room_find(m, id);

	if (r != NULL)
		return r;
	r = xcalloc(1, sizeof(*r));
	r->id = xstrdup(id);
	r->m = m;
	r->next = m->rooms;
	m->rooms = r;
	return r;
}

void
mx_room_free(struct mx_room *r)
{
	struct matrix *m = r->m;

	mx_http_cancel(m->http, r->sending);
	mx_http_cancel(m->http, r->leaving);
	mx_http_cancel(m->http, r->members);
	free(r->alias);
	free(r->name);
	loop_cancel(m->loop, r->send_timer);
	queue_clear(&r->queue);
	for (int i = 0; i < r->npeople; i++) {
		free(r->people[i].user_id);
		free(r->people[i].name);
	}
	free(r->people);
	json_decref(r->power);
	json_decref(r->warned);
	free(r->id);
	free(r);
}

/* Forgets a room: its queue is dropped (it can no longer be sent to). */
void
mx_room_forget(struct matrix *m, struct mx_room *room)
{
	struct mx_room **p;

	mx_queue_drop(m, &room->queue, room->id);
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->room_id != NULL && strcmp(j->room_id, room->id) == 0)
			j->done = 0;
	for (p = &m->rooms; *p != NULL; p = &(*p)->next) {
		if (*p == room) {
			*p = room->next;
			break;
		}
	}
	mx_room_free(room);
	/* Rooms that held a later message of a table behind it go on. */
	mx_rooms_kick(m);
}

struct mx_person *
mx_person_find(const struct mx_room *room, const char *user_id)
{
	for (int i = 0; i < room->npeople; i++)
		if (strcmp(room->people[i].user_id, user_id) == 0)
			return &room->people[i];
	return NULL;
}

static int
person_state(const struct mx_room *room, const char *user_id)
{
	const struct mx_person *p = mx_person_find(room, user_id);

	return p != NULL ? p->state : MX_OUT;
}

void
mx_person_set(struct mx_room *room, const char *user_id, int state,
    const char *name)
{
	struct mx_person *p = mx_person_find(room, user_id);
	char *copy = NULL;

	if (name != NULL)
		copy = xstrdup(name);
	if (p == NULL) {
		if (array_grow((void **)&room->people, &room->people_cap,
		    room->npeople + 1, sizeof(*p)) != 0) {
			free(copy);
			return;
		}
		room->people[room->npeople].user_id = xstrdup(user_id);
		p = &room->people[room->npeople++];
		p->name = NULL;
	}
	p->state = state;
	/* A member event without a name keeps the one we knew. */
	if (copy != NULL || state == MX_OUT) {
		free(p->name);
		p->name = copy;
	}
}

int
mx_room_joined_count(const struct mx_room *room)
{
	int n = 0;

	for (int i = 0; i < room->npeople; i++)
		if (room->people[i].state == MX_JOINED)
			n++;
	return n;
}

/* The core's channel record of a room, or NULL. */
static struct mx_join *
channel_of_room(struct matrix *m, const char *room_id)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->core && j->room_id != NULL &&
		    strcmp(j->room_id, room_id) == 0)
			return j;
	return NULL;
}

/* The name the core knows a room by: its join() name, or the room id. */
const char *
mx_room_label(struct matrix *m, const struct mx_room *room)
{
	struct mx_join *j = channel_of_room(m, room->id);

	return j != NULL ? j->name : room->id;
}

/* A message from sender in room is private (see the header comment). */
int
mx_room_is_private(struct matrix *m, const struct mx_room *room,
    const char *sender)
{
	if (mx_direct_has(m->direct, sender, room->id))
		return 1;
	if (channel_of_room(m, room->id) != NULL)
		return 0;
	return mx_room_joined_count(room) == 2 &&
	    person_state(room, sender) == MX_JOINED;
}

/* The room a channel name stands for (alias or id), or NULL. */
struct mx_room *
mx_room_of_channel(struct matrix *m, const char *channel)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->core && strcmp(j->name, channel) == 0 &&
		    j->room_id != NULL)
			return mx_room_find(m, j->room_id);
	return mx_room_find(m, channel);
}

/* Sending */

static void
on_send_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct mx_room *room = arg;

	(void)loop;
	(void)id;
	room->send_timer = 0;
	room_kick(room);
}

static void
on_sent(const struct mx_response *res, void *arg)
{
	struct mx_room *room = arg;
	struct matrix *m = room->m;
	char why[256];
	uint64_t delay;

	room->sending = NULL;
	if (mx_ok(res)) {
		struct mx_msg *msg = queue_pop(&room->queue);
		uint64_t id = msg->id;
		int flowed = msg->flow != NULL;

		room->send_attempt = 0;
		mx_msg_free(msg);
		if (room->parting && room->queue.n == 0)
			mx_room_leave(room);
		else
			room_kick(room);
		/* Rooms holding a later message of this table may go on. */
		if (flowed)
			mx_rooms_kick(m);
		/*
		 * The homeserver has it: the core may forget its row.  Last,
		 * since the core may part (free) the room meanwhile.
		 */
		sent_report(m, id);
		return;
	}
	mx_describe(res, why, sizeof(why));
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return;
	}
	if (!mx_transient(res)) {
		struct mx_msg *msg = queue_pop(&room->queue);
		uint64_t id = msg->id;

		log_error("matrix %s: %s refused a message: %s", mx_net(m),
		    room->id, why);
		mx_msg_free(msg);
		room_kick(room);
		mx_rooms_kick(m);
		/* It can never be sent: the core forgets its row. */
		sent_report(m, id);
		return;
	}
	delay = mx_retry_delay(m, res, &room->send_attempt, MX_SEND_RETRY_BASE,
	    MX_SEND_RETRY_MAX);
	log_warn("matrix %s: sending to %s failed (%s); retrying in %llu ms",
	    mx_net(m), room->id, why, (unsigned long long)delay);
	room->send_timer = loop_timer(m->loop, delay, on_send_timer, room);
}

/* Whether q holds a message of flow older than seq. */
static int
queue_has_older(const struct mx_queue *q, const char *flow, uint64_t seq)
{
	for (const struct mx_msg *msg = q->head; msg != NULL; msg = msg->next)
		if (msg->seq < seq && msg->flow != NULL &&
		    strcmp(msg->flow, flow) == 0)
			return 1;
	return 0;
}

/*
 * Causal order per table (issue 16): each room sends in order, but rooms
 * send side by side, so a table's message waits while an older one of the
 * same table (its flow) has not reached the homeserver from another room,
 * a direct room being opened, or a room being joined.  A table's private
 * lines then never overtake its room's lines, nor the reverse.  The
 * oldest message waiting is never held, so everything goes out.
 */
static int
flow_held(struct matrix *m, const struct mx_room *room,
    const struct mx_msg *msg)
{
	if (msg->flow == NULL)
		return 0;
	for (const struct mx_room *r = m->rooms; r != NULL; r = r->next)
		if (r != room && queue_has_older(&r->queue, msg->flow, msg->seq))
			return 1;
	for (const struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		if (queue_has_older(&dm->queue, msg->flow, msg->seq))
			return 1;
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (queue_has_older(&j->queue, msg->flow, msg->seq))
			return 1;
	return 0;
}

/* Sends the room's next message unless one is on its way. */
static void
room_kick(struct mx_room *room)
{
	struct matrix *m = room->m;
	struct mx_msg *msg = room->queue.head;

	if (msg == NULL || m->token == NULL || m->http == NULL ||
	    room->sending != NULL || room->send_timer != 0 ||
	    room->leaving != NULL || flow_held(m, room, msg))
		return;
	mx_url(&m->url, m->cfg.homeserver,
	    MX_API "/rooms/%s/send/m.room.message/%s", room->id, msg->txn);
	room->sending = mx_http_request(m->http, "PUT", text_str(&m->url),
	    m->token, msg->content, MX_REQUEST_TIMEOUT, on_sent, room);
	if (room->sending == NULL)
		room->send_timer = loop_timer(m->loop, MX_RETRY_MAX,
		    on_send_timer, room);
}

void
mx_room_push(struct mx_room *room, struct mx_msg *msg)
{
	mx_queue_push(&room->queue, msg);
	room_kick(room);
}

static void
on_left_room(const struct mx_response *res, void *arg)
{
	struct mx_room *room = arg;
	struct matrix *m = room->m;
	char why[256];

	room->leaving = NULL;
	if (!mx_ok(res)) {
		mx_describe(res, why, sizeof(why));
		log_warn("matrix %s: leaving %s failed: %s", mx_net(m),
		    room->id, why);
	}
	mx_room_forget(m, room);
}

void
mx_room_leave(struct mx_room *room)
{
	struct matrix *m = room->m;

	room->parting = 0;
	if (m->token == NULL || m->http == NULL) {
		mx_room_forget(m, room);
		return;
	}
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/leave", room->id);
	room->leaving = mx_http_request(m->http, "POST", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_left_room, room);
	if (room->leaving == NULL)
		mx_room_forget(m, room);
}

/* Starts the sends that wait only for their turn (not for a backoff). */
void
mx_rooms_kick(struct matrix *m)
{
	for (struct mx_room *r = m->rooms; r != NULL; r = r->next)
		room_kick(r);
}

/*
 * Starts every send, join, direct room and m.direct write that waits,
 * cutting short the backoff of those that failed.
 */
void
mx_kick_all(struct matrix *m)
{
	struct mx_dm *dm, *next;

	for (struct mx_room *r = m->rooms; r != NULL; r = r->next) {
		loop_cancel(m->loop, r->send_timer);
		r->send_timer = 0;
		room_kick(r);
	}
	for (struct mx_join *j = m->joins; j != NULL; j = j->next) {
		if (j->done || j->failed || j->req != NULL)
			continue;
		loop_cancel(m->loop, j->timer);
		j->timer = 0;
		mx_join_start(j);
	}
	for (dm = m->dms; dm != NULL; dm = next) {
		next = dm->next;
		if (dm->req != NULL)
			continue;
		loop_cancel(m->loop, dm->timer);
		dm->timer = 0;
		mx_dm_start(dm);
	}
	loop_cancel(m->loop, m->direct_timer);
	m->direct_timer = 0;
	direct_kick(m);
}

/* m.direct */

/* Adds every user -> room of from to to. */
void
mx_direct_merge(json_t *to, const json_t *from)
{
	const char *user;
	json_t *rooms, *room;
	size_t i;

	json_object_foreach((json_t *)from, user, rooms)
		json_array_foreach(rooms, i, room)
			if (json_is_string(room))
				mx_direct_add(to, user,
				    json_string_value(room));
}

static void
on_direct_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;

	(void)loop;
	(void)id;
	m->direct_timer = 0;
	direct_kick(m);
}

/* A write of m.direct failed: its additions wait for the next try. */
static void
direct_failed(struct matrix *m, const struct mx_response *res)
{
	char why[256];
	uint64_t delay;

	json_decref(m->direct_put);
	m->direct_put = NULL;
	mx_direct_merge(m->direct_pending, m->direct_inflight);
	json_decref(m->direct_inflight);
	m->direct_inflight = NULL;
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return;
	}
	mx_describe(res, why, sizeof(why));
	delay = mx_retry_delay(m, res, &m->direct_attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot update m.direct (%s); retrying in %llu ms",
	    mx_net(m), why, (unsigned long long)delay);
	m->direct_timer = loop_timer(m->loop, delay, on_direct_timer, m);
}

static void
on_direct_put(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;

	m->direct_req = NULL;
	if (!mx_ok(res)) {
		direct_failed(m, res);
		return;
	}
	mx_direct_merge(m->direct, m->direct_put);
	json_decref(m->direct_put);
	json_decref(m->direct_inflight);
	m->direct_put = m->direct_inflight = NULL;
	m->direct_attempt = 0;
	direct_kick(m);
}

static void
on_direct_get(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	json_t *content;

	m->direct_req = NULL;
	if (mx_ok(res) && json_is_object(res->body))
		content = json_deep_copy(res->body);
	else if (res->status == 404)
		content = json_object();
	else {
		direct_failed(m, res);
		return;
	}
	if (content == NULL) {
		direct_failed(m, res);
		return;
	}
	/* Merge into what is there now, so other clients' entries stay. */
	mx_direct_merge(content, m->direct_inflight);
	m->direct_put = content;
	mx_url(&m->url, m->cfg.homeserver,
	    MX_API "/user/%s/account_data/m.direct", m->cfg.user_id);
	m->direct_req = mx_http_request(m->http, "PUT", text_str(&m->url),
	    m->token, content, MX_REQUEST_TIMEOUT, on_direct_put, m);
	if (m->direct_req == NULL)
		direct_failed(m, NULL);
}

/* Writes pending m.direct additions: read, merge, write. */
static void
direct_kick(struct matrix *m)
{
	if (m->direct_req != NULL || m->direct_timer != 0 ||
	    m->direct_inflight != NULL || m->token == NULL ||
	    m->http == NULL || json_object_size(m->direct_pending) == 0)
		return;
	m->direct_inflight = m->direct_pending;
	if ((m->direct_pending = json_object()) == NULL) {
		m->direct_pending = m->direct_inflight;
		m->direct_inflight = NULL;
		return;
	}
	mx_url(&m->url, m->cfg.homeserver,
	    MX_API "/user/%s/account_data/m.direct", m->cfg.user_id);
	m->direct_req = mx_http_request(m->http, "GET", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_direct_get, m);
	if (m->direct_req == NULL)
		direct_failed(m, NULL);
}

static void
direct_record(struct matrix *m, const char *user_id, const char *room_id)
{
	mx_direct_add(m->direct, user_id, room_id);
	mx_direct_add(m->direct_pending, user_id, room_id);
	direct_kick(m);
}

/* Direct rooms */

/*
 * A direct room the player opened with the bot without its being in the
 * bot's m.direct (an invite accepted while m.direct could not be written,
 * or before the bot kept it): flagged is_direct, not a channel, clear,
 * and holding exactly the bot and user_id.  Recorded in m.direct once
 * found, so that it is the one used from then on.
 */
static struct mx_room *
dm_room_opened(struct matrix *m, const char *user_id)
{
	for (struct mx_room *room = m->rooms; room != NULL;
	    room = room->next) {
		if (!room->is_direct || !room->joined || room->encrypted ||
		    room->parting || room->leaving != NULL ||
		    channel_of_room(m, room->id) != NULL ||
		    mx_room_joined_count(room) != 2 ||
		    person_state(room, user_id) != MX_JOINED ||
		    person_state(room, m->cfg.user_id) != MX_JOINED)
			continue;
		log_info("matrix %s: using the direct room %s that %s opened",
		    mx_net(m), room->id, user_id);
		direct_record(m, user_id, room->id);
		return room;
	}
	return NULL;
}

/* A usable direct room with user_id: listed, joined, clear, they are in. */
struct mx_room *
mx_dm_room_for(struct matrix *m, const char *user_id)
{
	const json_t *rooms = json_object_get(m->direct, user_id);

	/* The newest first: older ones may be encrypted or abandoned. */
	for (size_t i = json_array_size(rooms); i-- > 0;) {
		const char *id = json_string_value(json_array_get(rooms, i));
		struct mx_room *room = id != NULL ? mx_room_find(m, id) : NULL;
		int state;

		if (room == NULL || !room->joined || room->encrypted ||
		    room->parting || room->leaving != NULL)
			continue;
		state = person_state(room, user_id);
		if (state == MX_JOINED || state == MX_PENDING)
			return room;
	}
	return dm_room_opened(m, user_id);
}

struct mx_dm *
mx_dm_find(struct matrix *m, const char *user_id)
{
	for (struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		if (strcmp(dm->user_id, user_id) == 0)
			return dm;
	return NULL;
}

void
mx_dm_free(struct mx_dm *dm)
{
	struct matrix *m = dm->m;
	struct mx_dm **p;

	for (p = &m->dms; *p != NULL; p = &(*p)->next) {
		if (*p == dm) {
			*p = dm->next;
			break;
		}
	}
	mx_http_cancel(m->http, dm->req);
	loop_cancel(m->loop, dm->timer);
	queue_clear(&dm->queue);
	free(dm->user_id);
	free(dm);
}

static struct mx_dm *
dm_new(struct matrix *m, const char *user_id)
{
	struct mx_dm *dm = xcalloc(1, sizeof(*dm));

	dm->user_id = xstrdup(user_id);
	dm->m = m;
	dm->next = m->dms;
	m->dms = dm;
	return dm;
}

static void
on_dm_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct mx_dm *dm = arg;

	(void)loop;
	(void)id;
	dm->timer = 0;
	mx_dm_start(dm);
}

static void
on_dm_created(const struct mx_response *res, void *arg)
{
	struct mx_dm *dm = arg;
	struct matrix *m = dm->m;
	const char *room_id = json_string_value(json_object_get(res->body,
	    "room_id"));
	struct mx_room *room;
	char why[256];
	uint64_t delay;

	dm->req = NULL;
	if (mx_ok(res) && room_id != NULL &&
	    (room = mx_room_get(m, room_id)) != NULL) {
		log_info("matrix %s: opened direct room %s with %s", mx_net(m),
		    room_id, dm->user_id);
		room->joined = 1;
		mx_person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (person_state(room, dm->user_id) != MX_JOINED)
			mx_person_set(room, dm->user_id, MX_PENDING, NULL);
		direct_record(m, dm->user_id, room_id);
		queue_move(&room->queue, &dm->queue);
		mx_dm_free(dm);
		room_kick(room);
		return;
	}
	mx_describe(res, why, sizeof(why));
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return;
	}
	if (mx_ok(res) || !mx_transient(res)) {
		log_error("matrix %s: cannot open a direct room with %s (%s)",
		    mx_net(m), dm->user_id, why);
		mx_queue_drop(m, &dm->queue, dm->user_id);
		mx_dm_free(dm);
		mx_rooms_kick(m);
		return;
	}
	delay = mx_retry_delay(m, res, &dm->attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot open a direct room with %s (%s); retrying "
	    "in %llu ms", mx_net(m), dm->user_id, why,
	    (unsigned long long)delay);
	dm->timer = loop_timer(m->loop, delay, on_dm_timer, dm);
}

/*
 * Finds a direct room for dm's user, or creates one (once the first /sync
 * told us which rooms exist).  Messages move there in order.
 */
void
mx_dm_start(struct mx_dm *dm)
{
	struct matrix *m = dm->m;
	struct mx_room *room;
	json_t *body;

	if (!m->synced || m->token == NULL || m->http == NULL ||
	    dm->req != NULL || dm->timer != 0)
		return;
	if ((room = mx_dm_room_for(m, dm->user_id)) != NULL) {
		queue_move(&room->queue, &dm->queue);
		mx_dm_free(dm);
		room_kick(room);
		return;
	}
	body = json_pack("{s:s, s:b, s:[s]}", "preset", "trusted_private_chat",
	    "is_direct", 1, "invite", dm->user_id);
	mx_url(&m->url, m->cfg.homeserver, MX_API "/createRoom");
	if (body != NULL)
		dm->req = mx_http_request(m->http, "POST", text_str(&m->url),
		    m->token, body, MX_REQUEST_TIMEOUT, on_dm_created, dm);
	json_decref(body);
	if (dm->req == NULL)
		dm->timer = loop_timer(m->loop, MX_RETRY_MAX, on_dm_timer, dm);
}

/* Queues msg (owned) for user_id's direct room; NULL: just open one. */
int
mx_dm_send(struct matrix *m, const char *user_id, struct mx_msg *msg)
{
	struct mx_dm *dm = mx_dm_find(m, user_id);
	struct mx_room *room;

	if (dm == NULL && m->synced &&
	    (room = mx_dm_room_for(m, user_id)) != NULL) {
		if (msg != NULL)
			mx_room_push(room, msg);
		return 0;
	}
	if (dm == NULL && (dm = dm_new(m, user_id)) == NULL) {
		log_error("matrix %s: out of memory", mx_net(m));
		if (msg != NULL)
			mx_msg_dropped(m, msg, user_id);
		mx_msg_free(msg);
		return -1;
	}
	if (msg != NULL)
		mx_queue_push(&dm->queue, msg);
	mx_dm_start(dm);
	return 0;
}

/* Joins */

struct mx_join *
mx_join_find(struct matrix *m, const char *name)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (strcmp(j->name, name) == 0)
			return j;
	return NULL;
}

void
mx_join_free(struct mx_join *j)
{
	struct matrix *m = j->m;
	struct mx_join **p;

	for (p = &m->joins; *p != NULL; p = &(*p)->next) {
		if (*p == j) {
			*p = j->next;
			break;
		}
	}
	mx_http_cancel(m->http, j->req);
	loop_cancel(m->loop, j->timer);
	queue_clear(&j->queue);
	free(j->name);
	free(j->room_id);
	free(j->inviter);
	free(j);
}

struct mx_join *
mx_join_new(struct matrix *m, const char *name, int core)
{
	struct mx_join *j = xcalloc(1, sizeof(*j));

	j->name = xstrdup(name);
	j->m = m;
	j->core = core;
	j->next = m->joins;
	m->joins = j;
	return j;
}

static void
on_join_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct mx_join *j = arg;

	(void)loop;
	(void)id;
	j->timer = 0;
	mx_join_start(j);
}

static void
on_joined(const struct mx_response *res, void *arg)
{
	struct mx_join *j = arg;
	struct matrix *m = j->m;
	const char *room_id = json_string_value(json_object_get(res->body,
	    "room_id"));
	struct mx_room *room;
	char why[256], *copy;
	uint64_t delay;

	j->req = NULL;
	if (mx_ok(res) && room_id != NULL &&
	    (room = mx_room_get(m, room_id)) != NULL) {
		copy = xstrdup(room_id);
		free(j->room_id);
		j->room_id = copy;
		log_info("matrix %s: joined %s (%s)", mx_net(m), j->name,
		    room_id);
		room->joined = 1;
		mx_person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (!j->core && j->is_direct)
			room->is_direct = 1;
		members_fetch(room);
		j->done = 1;
		j->attempt = 0;
		queue_move(&room->queue, &j->queue);
		if (!j->core) {
			if (j->is_direct && j->inviter != NULL)
				direct_record(m, j->inviter, room_id);
			mx_join_free(j);
		}
		room_kick(room);
		mx_sync_release(m);
		return;
	}
	mx_describe(res, why, sizeof(why));
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return;
	}
	if (mx_ok(res) || !mx_transient(res)) {
		log_error("matrix %s: cannot join %s: %s", mx_net(m), j->name,
		    why);
		mx_queue_drop(m, &j->queue, j->name);
		if (!j->core)
			mx_join_free(j);
		else
			j->failed = 1;
		mx_rooms_kick(m);
		mx_sync_release(m);
		return;
	}
	delay = mx_retry_delay(m, res, &j->attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot join %s (%s); retrying in %llu ms",
	    mx_net(m), j->name, why, (unsigned long long)delay);
	j->timer = loop_timer(m->loop, delay, on_join_timer, j);
	/* Not joined, the room cannot have news for us meanwhile. */
	mx_sync_release(m);
}

static void
on_members(const struct mx_response *res, void *arg)
{
	struct mx_room *room = arg;
	struct matrix *m = room->m;
	const json_t *joined = json_object_get(res->body, "joined");
	const char *user_id;
	const json_t *info;
	char why[256];
	int n = 0;

	room->members = NULL;
	if (!mx_ok(res) || !json_is_object(joined)) {
		/* Names still come with the members' next events. */
		mx_describe(res, why, sizeof(why));
		log_info("matrix %s: cannot read the members of %s: %s",
		    mx_net(m), room->id, why);
		return;
	}
	/*
	 * What /sync told us is as new or newer: only people it has not
	 * mentioned yet are added, and only missing names filled in.
	 */
	json_object_foreach((json_t *)joined, user_id, info) {
		const char *name = json_string_value(json_object_get(info,
		    "display_name"));
		struct mx_person *p = mx_person_find(room, user_id);

		if (!mx_user_id_valid(user_id))
			continue;
		if (p == NULL)
			mx_person_set(room, user_id, MX_JOINED, name);
		else if (p->name == NULL && p->state == MX_JOINED &&
		    name != NULL)
			mx_person_set(room, user_id, MX_JOINED, name);
		else
			continue;
		n++;
	}
	log_debug("matrix %s: %d members of %s learnt from joined_members",
	    mx_net(m), n, room->id);
}

/*
 * Asks for the room's members and their display names right after the
 * bot joined: people already there are then known by name before they
 * do anything (a server that lazy-loads members sends their state only
 * with their next event).
 */
static void
members_fetch(struct mx_room *room)
{
	struct matrix *m = room->m;

	if (room->members != NULL || m->token == NULL || m->http == NULL)
		return;
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/joined_members",
	    room->id);
	room->members = mx_http_request(m->http, "GET", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_members, room);
}

void
mx_join_start(struct mx_join *j)
{
	struct matrix *m = j->m;

	if (m->token == NULL || m->http == NULL || j->req != NULL ||
	    j->timer != 0)
		return;
	mx_url(&m->url, m->cfg.homeserver, MX_API "/join/%s", j->name);
	j->req = mx_http_request(m->http, "POST", text_str(&m->url), m->token,
	    NULL, MX_REQUEST_TIMEOUT, on_joined, j);
	if (j->req == NULL)
		j->timer = loop_timer(m->loop, MX_RETRY_MAX, on_join_timer, j);
}

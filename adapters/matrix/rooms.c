/*
 * rooms.c - the Matrix adapter's rooms (matrix_int.h): the rooms the bot
 * knows, the names the core knows them by, and their queues of messages,
 * sent one at a time and in order under fixed transaction ids; leaving a
 * room; a channel's room that shuts the bot out (a kick, a ban, power
 * levels that leave it silent) keeps what the table said there until the
 * bot may speak again.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"

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
	free(r->creator);
	loop_cancel(m->loop, r->send_timer);
	mx_queue_clear(&r->queue);
	for (int i = 0; i < r->npeople; i++) {
		free(r->people[i].user_id);
		free(r->people[i].name);
		free(r->people[i].look);
	}
	free(r->people);
	json_decref(r->power);
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

/* The core's channel record of a room, or NULL. */
struct mx_join *
mx_channel_of_room(struct matrix *m, const char *room_id)
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
	struct mx_join *j = mx_channel_of_room(m, room->id);

	return j != NULL ? j->name : room->id;
}

/* A message from sender in room is private (see the header comment). */
int
mx_room_is_private(struct matrix *m, const struct mx_room *room,
    const char *sender)
{
	if (mx_direct_has(m->direct, sender, room->id))
		return 1;
	if (mx_channel_of_room(m, room->id) != NULL)
		return 0;
	return mx_room_joined_count(room) == 2 &&
	    mx_person_state(room, sender) == MX_JOINED;
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
	mx_room_kick(room);
}

/*
 * A channel's room refused its head with 403: the bot may not speak there
 * (the room's power levels), or has just been removed (the /sync saying
 * so comes next, mx_room_shut_out()).  The table's messages are not lost:
 * the queue waits, and the head is tried again slowly, and at once when
 * the power levels change.  Meanwhile the table's clock waits for them
 * (flow_waiting()), so nobody is timed out for lines nobody could read.
 */
static void
room_refuses(struct mx_room *room, const struct mx_response *res,
    const char *why)
{
	struct matrix *m = room->m;
	uint64_t delay;

	if (!room->shut)
		room->send_attempt = 0;
	delay = mx_retry_delay(m, res, &room->send_attempt, MX_SHUT_RETRY_BASE,
	    MX_SHUT_RETRY_MAX);
	if (!room->shut)
		log_error("matrix %s: %s refuses the bot's messages (%s); its "
		    "%d waiting there are kept until the bot may speak "
		    "(asked again in %llu s, or when its power levels "
		    "change)", mx_net(m), room->id, why, room->queue.n,
		    (unsigned long long)(delay / 1000));
	room->shut = 1;
	room->send_timer = loop_timer(m->loop, delay, on_send_timer, room);
}

void
mx_room_retry_now(struct mx_room *room)
{
	if (!room->shut || room->sending != NULL)
		return;
	loop_cancel(room->m->loop, room->send_timer);
	room->send_timer = 0;
	room->send_attempt = 0;
	mx_room_kick(room);
}

/* Moves room's queue, the message on its way first, into j's. */
static void
room_hand_over(struct matrix *m, struct mx_room *room, struct mx_join *j)
{
	mx_http_cancel(m->http, room->sending);
	room->sending = NULL;
	loop_cancel(m->loop, room->send_timer);
	room->send_timer = 0;
	room->send_attempt = 0;
	room->shut = 0;
	mx_queue_merge(&j->queue, &room->queue);
}

void
mx_room_shut_out(struct matrix *m, struct mx_room *room, struct mx_join *j)
{
	j->failed = 1;
	/* A restart does not undo a moderator's kick. */
	j->shut_recorded = 1;
	mx_record_set(m, "shut_out", j->name, room->id);
	if (room->queue.n == 0 && j->queue.n == 0)
		return;
	log_warn("matrix %s: %d messages for %s wait until the bot is invited "
	    "back", mx_net(m), room->queue.n + j->queue.n, j->name);
	room_hand_over(m, room, j);
}

void
mx_room_follow(struct matrix *m, struct mx_room *room, const char *next)
{
	struct mx_join *j = mx_channel_of_room(m, room->id);

	if (j == NULL || next[0] != '!' || strcmp(next, room->id) == 0)
		return;
	log_info("matrix %s: %s was upgraded to %s; the table of %s follows "
	    "it", mx_net(m), room->id, next, j->name);
	/* Remembered: after a restart the bot goes to next at once. */
	mx_record_set(m, "upgraded", room->id, next);
	room_hand_over(m, room, j);
	/* A join of the old room on its way would bring the table back. */
	mx_http_cancel(m->http, j->req);
	j->req = NULL;
	free(j->left_behind);
	j->left_behind = xstrdup(room->id);
	free(j->room_id);
	j->room_id = xstrdup(next);
	free(j->target);
	j->target = xstrdup(next);
	j->done = 0;
	j->failed = 0;
	j->attempt = 0;
	loop_cancel(m->loop, j->timer);
	j->timer = 0;
	mx_join_start(j);
}

static void
on_sent(const struct mx_response *res, void *arg)
{
	struct mx_room *room = arg;
	struct matrix *m = room->m;
	struct mx_msg *msg;
	char why[256];
	uint64_t delay, id;

	room->sending = NULL;
	if (mx_ok(res)) {
		int flowed;

		msg = mx_queue_pop(&room->queue);
		id = msg->id;
		flowed = msg->flow != NULL;
		room->send_attempt = 0;
		mx_msg_free(msg);
		if (room->shut) {
			room->shut = 0;
			log_info("matrix %s: %s takes the bot's messages again",
			    mx_net(m), room->id);
		}
		if (room->parting && room->queue.n == 0)
			mx_room_leave(room);
		else
			mx_room_kick(room);
		/* Rooms holding a later message of this table may go on. */
		if (flowed)
			mx_rooms_kick(m);
		/*
		 * The homeserver has it: the core may forget its row.  Last,
		 * since the core may part (free) the room meanwhile.
		 */
		mx_sent_report(m, id);
		return;
	}
	switch (mx_failed(m, res, why, sizeof(why))) {
	case MX_RELOGIN:
		return;
	case MX_REFUSED:
		if (res->status == 403 &&
		    mx_channel_of_room(m, room->id) != NULL) {
			room_refuses(room, res, why);
			return;
		}
		msg = mx_queue_pop(&room->queue);
		id = msg->id;
		log_error("matrix %s: %s refused a message: %s", mx_net(m),
		    room->id, why);
		mx_msg_free(msg);
		mx_room_kick(room);
		mx_rooms_kick(m);
		/* It can never be sent: the core forgets its row. */
		mx_sent_report(m, id);
		return;
	case MX_RETRY:
		break;
	}
	delay = mx_retry_delay(m, res, &room->send_attempt, MX_SEND_RETRY_BASE,
	    MX_SEND_RETRY_MAX);
	log_warn("matrix %s: sending to %s failed (%s); retrying in %llu ms",
	    mx_net(m), room->id, why, (unsigned long long)delay);
	room->send_timer = loop_timer(m->loop, delay, on_send_timer, room);
}

/* Sends the room's next message unless one is on its way. */
void
mx_room_kick(struct mx_room *room)
{
	struct matrix *m = room->m;
	struct mx_msg *msg = room->queue.head;
	uint64_t now;
	size_t n;

	if (msg == NULL || m->token == NULL || m->http == NULL ||
	    room->sending != NULL || room->send_timer != 0 ||
	    room->leaving != NULL)
		return;
	/*
	 * A message of no use any more is not sent; the table's messages
	 * it held back elsewhere may go on.  The retries counted were the
	 * head's.
	 */
	now = loop_now(m->loop);
	if (mx_msg_expired(msg, now))
		room->send_attempt = 0;
	if ((n = mx_queue_expire(&room->queue, now)) > 0) {
		log_info("matrix %s: %zu messages to %s could not leave in "
		    "time and are dropped", mx_net(m), n, room->id);
		mx_rooms_kick(m);
		return;
	}
	/* A head not begun may let another table's message go first. */
	if (mx_flow_held(m, room, msg) &&
	    (msg = mx_queue_unheld(m, &room->queue)) == NULL)
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
	mx_room_kick(room);
}

/* Starts the sends that wait only for their turn (not for a backoff). */
void
mx_rooms_kick(struct matrix *m)
{
	for (struct mx_room *r = m->rooms; r != NULL; r = r->next)
		mx_room_kick(r);
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

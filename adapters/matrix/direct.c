/*
 * direct.c - the Matrix adapter's direct rooms (matrix_int.h): the
 * m.direct account data, merged with what other clients write there, and
 * a direct room found or opened per player for private lines.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"

/* How long a direct room may wait for the state of one just joined. */
#define MX_DM_SETTLE_MS 5000
#define MX_DM_SETTLE_STEP_MS 200

/*
 * A player whose direct rooms were rejected or left this many times in a
 * row gets no new room until they say something: the first refusal
 * brings one new room with their hand (the game room hears why), and a
 * client that rejects every invitation is not sent one for each private
 * line.
 */
#define MX_REFUSALS_MAX 2

/* m.direct */

/* Adds every user -> room of from to to (both borrowed; to is changed). */
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
	mx_direct_kick(m);
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
	/* Refused or not, the additions are tried again. */
	if (mx_failed(m, res, why, sizeof(why)) == MX_RELOGIN)
		return;
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
	mx_direct_kick(m);
}

static void
on_direct_get(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	json_t *content;

	m->direct_req = NULL;
	if (mx_ok(res) && json_is_object(res->body))
		content = mx_json(json_deep_copy(res->body));
	else if (res->status == 404)
		content = mx_json(json_object());
	else {
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
void
mx_direct_kick(struct matrix *m)
{
	if (m->direct_req != NULL || m->direct_timer != 0 ||
	    m->direct_inflight != NULL || m->token == NULL ||
	    m->http == NULL || json_object_size(m->direct_pending) == 0)
		return;
	m->direct_inflight = m->direct_pending;
	m->direct_pending = mx_json(json_object());
	mx_url(&m->url, m->cfg.homeserver,
	    MX_API "/user/%s/account_data/m.direct", m->cfg.user_id);
	m->direct_req = mx_http_request(m->http, "GET", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_direct_get, m);
	if (m->direct_req == NULL)
		direct_failed(m, NULL);
}

void
mx_direct_record(struct matrix *m, const char *user_id, const char *room_id)
{
	mx_direct_add(m->direct, user_id, room_id);
	mx_direct_add(m->direct_pending, user_id, room_id);
	mx_direct_kick(m);
}

/* Direct rooms */

/* How many direct rooms in a row user_id rejected or left. */
static int
refusals(const struct matrix *m, const char *user_id)
{
	return (int)json_integer_value(json_object_get(m->refusers, user_id));
}

/*
 * Sets how many rooms in a row user_id refused (0: none), stored with
 * the /sync response being handled.
 */
static void
refusals_set(struct matrix *m, const char *user_id, int n)
{
	if (n == refusals(m, user_id))
		return;
	if (n > 0)
		mx_json_rc(json_object_set_new(m->refusers, user_id,
		    mx_json(json_integer(n))));
	else
		(void)json_object_del(m->refusers, user_id);
	mx_kv_defer_json(m, m->key_refusers, m->refusers,
	    "who refuses direct rooms");
}

void
mx_dm_heard(struct matrix *m, const char *user_id, int joined)
{
	int n = refusals(m, user_id);

	/* Speaking to the bot earns one room more; coming in, a clean slate. */
	if (joined)
		refusals_set(m, user_id, 0);
	else if (n >= MX_REFUSALS_MAX)
		refusals_set(m, user_id, MX_REFUSALS_MAX - 1);
}

/* Whether the bot created room. */
static int
dm_ours(const struct matrix *m, const struct mx_room *room)
{
	return room->creator != NULL &&
	    strcmp(room->creator, m->cfg.user_id) == 0;
}

/*
 * Whether only its members can ever read room, as far as the bot knows:
 * the bot or user_id created it (nobody else holds its power levels),
 * only an invitation lets people in, and its history is not readable
 * from outside.  A room anyone may join (a "public" room flagged
 * is_direct that a stranger made, invited a player to and left) would
 * let them come back and read every hand said there.
 */
static int
dm_closed(const struct matrix *m, const struct mx_room *room,
    const char *user_id)
{
	return (dm_ours(m, room) || (room->creator != NULL &&
	    strcmp(room->creator, user_id) == 0)) &&
	    room->invite_only == 1 && !room->world_readable;
}

/* Whether the bot is in room, which is clear and not being left. */
static int
dm_room_usable(const struct mx_room *room)
{
	return room->joined && !room->encrypted && !room->parting &&
	    room->leaving == NULL;
}

/* Whether nobody but the bot and user_id is in room or invited to it. */
static int
dm_nobody_else(const struct matrix *m, const struct mx_room *room,
    const char *user_id)
{
	for (int i = 0; i < room->npeople; i++) {
		const struct mx_person *p = &room->people[i];

		if (p->state != MX_OUT && strcmp(p->user_id, user_id) != 0 &&
		    strcmp(p->user_id, m->cfg.user_id) != 0)
			return 0;
	}
	return 1;
}

/*
 * Whether room holds only the bot and user_id: the bot is in it, it is
 * clear (not encrypted, not being left), user_id is in it or invited,
 * and nobody else is in it or invited.
 */
static int
dm_two_of_us(const struct matrix *m, const struct mx_room *room,
    const char *user_id)
{
	int state = mx_person_state(room, user_id);

	if (!dm_room_usable(room) || (state != MX_JOINED &&
	    state != MX_PENDING))
		return 0;
	return dm_nobody_else(m, room, user_id);
}

/*
 * Whether room is private to the bot and user_id: only the two of them
 * (dm_two_of_us()) and closed (dm_closed()).  A direct room that someone
 * else was let into, or that was opened up, has become a group room, and
 * a player's lines never go there (see mx_dm_shared()).
 */
static int
dm_private_to(const struct matrix *m, const struct mx_room *room,
    const char *user_id)
{
	return dm_two_of_us(m, room, user_id) && dm_closed(m, room, user_id);
}

/*
 * Whether a room of user_id's may do once its state is known: just joined
 * (their invitation accepted), the /sync with its creator, join rule and
 * members has not come yet, and nobody else is known to be in it.
 */
static int
dm_settling(struct matrix *m, const struct mx_room *room,
    const char *user_id)
{
	if (!dm_room_usable(room) ||
	    mx_channel_of_room(m, room->id) != NULL ||
	    !mx_direct_has(m->direct, user_id, room->id) ||
	    (room->creator != NULL && room->invite_only != 0 &&
	    mx_person_find(room, user_id) != NULL))
		return 0;
	return dm_nobody_else(m, room, user_id);
}

/*
 * Whether user_id invited us to a direct room that we are joining, or
 * joined and do not know well enough yet (dm_settling()).
 */
static int
dm_invited(struct matrix *m, const char *user_id)
{
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (!j->core && !j->done && !j->failed && j->is_direct &&
		    j->inviter != NULL && strcmp(j->inviter, user_id) == 0)
			return 1;
	for (const struct mx_room *room = m->rooms; room != NULL;
	    room = room->next)
		if (dm_settling(m, room, user_id))
			return 1;
	return 0;
}

/*
 * A direct room with user_id that is not in the bot's m.direct: flagged
 * is_direct, not a channel, clear, and holding exactly the bot and
 * user_id.  Either the player opened it (an invite accepted while
 * m.direct could not be written, or before the bot kept it), or the bot
 * did and never heard the answer to its createRoom (killed or timed out
 * meanwhile), and the player is in it or still invited.  Adopting the
 * latter, rather than opening another room, leaves the player no
 * invitation that leads nowhere.  Recorded in m.direct once found, so
 * that it is the one used from then on.
 */
static struct mx_room *
dm_room_opened(struct matrix *m, const char *user_id)
{
	for (struct mx_room *room = m->rooms; room != NULL;
	    room = room->next) {
		int state = mx_person_state(room, user_id);

		if (!room->is_direct || !dm_private_to(m, room, user_id) ||
		    mx_channel_of_room(m, room->id) != NULL ||
		    (state != MX_JOINED && !dm_ours(m, room)))
			continue;
		log_info("matrix %s: using the direct room %s that %s opened",
		    mx_net(m), room->id, dm_ours(m, room) ? "the bot" :
		    user_id);
		mx_direct_record(m, user_id, room->id);
		return room;
	}
	return NULL;
}

/*
 * A usable direct room with user_id: listed in m.direct (or opened by
 * them) and private to the two (dm_private_to()).
 */
struct mx_room *
mx_dm_room_for(struct matrix *m, const char *user_id)
{
	const json_t *rooms = json_object_get(m->direct, user_id);

	/* The newest first: older ones may be encrypted or abandoned. */
	for (size_t i = json_array_size(rooms); i-- > 0;) {
		const char *id = json_string_value(json_array_get(rooms, i));
		struct mx_room *room = id != NULL ? mx_room_find(m, id) : NULL;

		if (room != NULL && dm_private_to(m, room, user_id))
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
	mx_queue_clear(&dm->queue);
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
	if (mx_ok(res) && room_id != NULL) {
		room = mx_room_get(m, room_id);
		log_info("matrix %s: opened direct room %s with %s", mx_net(m),
		    room_id, dm->user_id);
		room->joined = 1;
		/* As created below (private_chat: invitations only). */
		free(room->creator);
		room->creator = xstrdup(m->cfg.user_id);
		room->invite_only = 1;
		mx_person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (mx_person_state(room, dm->user_id) != MX_JOINED)
			mx_person_set(room, dm->user_id, MX_PENDING, NULL);
		mx_direct_record(m, dm->user_id, room_id);
		mx_room_take(room, &dm->queue);
		mx_dm_free(dm);
		mx_room_kick(room);
		return;
	}
	switch (mx_failed(m, res, why, sizeof(why))) {
	case MX_RELOGIN:
		return;
	case MX_REFUSED:
		log_error("matrix %s: cannot open a direct room with %s (%s)",
		    mx_net(m), dm->user_id, why);
		mx_queue_drop(m, &dm->queue, dm->user_id);
		mx_dm_free(dm);
		mx_rooms_kick(m);
		return;
	case MX_RETRY:
		break;
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
		mx_room_take(room, &dm->queue);
		mx_dm_free(dm);
		mx_room_kick(room);
		return;
	}
	/*
	 * A room the player just opened with us is not known closed until
	 * a /sync brings its state: wait for that a while rather than open
	 * a second room.
	 */
	if (dm_invited(m, dm->user_id)) {
		uint64_t now = loop_now(m->loop);

		if (dm->settling_since == 0)
			dm->settling_since = now;
		if (now - dm->settling_since < MX_DM_SETTLE_MS) {
			dm->timer = loop_timer(m->loop, MX_DM_SETTLE_STEP_MS,
			    on_dm_timer, dm);
			return;
		}
	}
	/*
	 * Someone who refused the rooms before this one, again and again,
	 * is not invited once more for every private line: those lines
	 * go nowhere until the player says something.
	 */
	if (refusals(m, dm->user_id) >= MX_REFUSALS_MAX) {
		log_info("matrix %s: %s refused %d direct rooms in a row; no new "
		    "one until they say something (%d lines dropped)",
		    mx_net(m), dm->user_id, refusals(m, dm->user_id),
		    dm->queue.n);
		mx_queue_drop(m, &dm->queue, NULL);
		mx_dm_free(dm);
		return;
	}
	/*
	 * Nobody else may ever read the room: the player is invited at a
	 * power level that cannot invite anyone (private_chat, inviting at
	 * 100, which only the bot has), and someone let in all the same (a
	 * server admin) sees nothing from before their invite.  The user id
	 * was checked (mx_user_id_valid): UTF-8.
	 */
	body = mx_json(json_pack("{s:s, s:b, s:[s], s:{s:i}, s:[{s:s, s:s, "
	    "s:{s:s}}]}", "preset", "private_chat", "is_direct", 1, "invite",
	    dm->user_id, "power_level_content_override", "invite", 100,
	    "initial_state", "type", "m.room.history_visibility", "state_key",
	    "", "content", "history_visibility", "invited"));
	mx_url(&m->url, m->cfg.homeserver, MX_API "/createRoom");
	dm->req = mx_http_request_once(m->http, "POST", text_str(&m->url),
	    m->token, body, MX_REQUEST_TIMEOUT, on_dm_created, dm);
	json_decref(body);
	if (dm->req == NULL)
		dm->timer = loop_timer(m->loop, MX_RETRY_MAX, on_dm_timer, dm);
}

/* Queues msg (owned) for user_id's direct room; NULL: just open one. */
void
mx_dm_send(struct matrix *m, const char *user_id, struct mx_msg *msg)
{
	struct mx_dm *dm = mx_dm_find(m, user_id);
	struct mx_room *room;

	if (dm == NULL && m->synced &&
	    (room = mx_dm_room_for(m, user_id)) != NULL) {
		if (msg != NULL)
			mx_room_push(room, msg);
		return;
	}
	if (dm == NULL)
		dm = dm_new(m, user_id);
	if (msg != NULL)
		mx_queue_push(&dm->queue, msg);
	mx_dm_start(dm);
}

/*
 * Someone besides its player is now in room or invited to it: if it is a
 * player's direct room, it is not private any more.  What waits there for
 * the player goes to another direct room (one being sent is stopped; it
 * may have arrived), the room is told why, and the bot leaves it once
 * that is said.
 */
void
mx_dm_shared(struct matrix *m, struct mx_room *room)
{
	const char *owner = NULL;
	struct mx_queue waiting = { 0 };
	struct mx_dm *dm;
	struct mx_msg *msg;
	struct text t;
	int others = 0;

	/* A configured room stays, whatever m.direct says about it. */
	if (!room->joined || room->parting || room->leaving != NULL ||
	    mx_channel_of_room(m, room->id) != NULL)
		return;
	for (int i = 0; i < room->npeople; i++) {
		const struct mx_person *p = &room->people[i];

		if (p->state == MX_OUT ||
		    strcmp(p->user_id, m->cfg.user_id) == 0)
			continue;
		others++;
		if (owner == NULL && mx_direct_has(m->direct, p->user_id,
		    room->id))
			owner = p->user_id;
	}
	/* Opened up: anyone may join, or read it from outside. */
	if (owner == NULL || (others < 2 && room->invite_only != -1 &&
	    !room->world_readable))
		return;
	log_warn("matrix %s: %s %s, the direct room of %s; leaving it and "
	    "sending %d waiting messages to another room", mx_net(m),
	    others >= 2 ? "someone else is in" : "anyone may now read",
	    room->id, owner, room->queue.n);
	if (room->sending != NULL) {
		mx_http_cancel(m->http, room->sending);
		room->sending = NULL;
	}
	loop_cancel(m->loop, room->send_timer);
	room->send_timer = 0;
	room->send_attempt = 0;
	if ((dm = mx_dm_find(m, owner)) == NULL)
		dm = dm_new(m, owner);
	/* They were queued before anything dm holds: they go first. */
	mx_queue_move(&waiting, &room->queue);
	mx_queue_move(&waiting, &dm->queue);
	mx_queue_move(&dm->queue, &waiting);
	text_init(&t);
	/*
	 * Not "now": a stranger may have made the room shared from the
	 * start (is_direct, with a player in it).
	 */
	text_add(&t, others >= 2 ? "Someone else is in or invited to this "
	    "room, so I am leaving it: your cards and private messages come "
	    "in a direct room of your own." : "Others may read this room, so "
	    "I am leaving it: your cards and private messages come in a "
	    "direct room of your own.");
	if ((msg = mx_msg_new(m, &t, NULL, NULL)) != NULL) {
		/* Said once per room, even by a restart killed before leaving. */
		mx_txn_id_notice(msg->txn, sizeof(msg->txn), m->txn_prefix,
		    others >= 2 ? "shared" : "opened", room->id);
		mx_queue_push(&room->queue, msg);
	}
	text_finish(&t);
	room->parting = 1;
	mx_room_kick(room);
	/* With nothing waiting, the next private line opens the new room. */
	if (dm->queue.n == 0 && dm->req == NULL && dm->timer == 0)
		mx_dm_free(dm);
	else
		mx_dm_start(dm);
}

static void
on_lost_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;
	/* Taken over: the core may cause more while it hears of these. */
	json_t *lost = m->lost;
	json_t *user_id;
	size_t i;

	(void)loop;
	(void)id;
	m->lost_timer = 0;
	m->lost = NULL;
	json_array_foreach(lost, i, user_id) {
		struct user who = { 0 };

		who.id = json_string_value(user_id);
		who.name = who.id;
		adapter_private_lost(m->adapter, &who);
	}
	json_decref(lost);
	/* Back from a start or an outage: the tables resume now (sync.c). */
	if (m->up_after_lost) {
		m->up_after_lost = 0;
		mx_outage_end(m);
	}
}

/*
 * user_id left their direct room, or rejected the invitation to it: what
 * was said there may never have been read.  What still waits for them
 * goes to another direct room, the bot leaves this one, and the core
 * hears of it from the loop (adapter_private_lost), never inside the
 * handling of a /sync, so that it sends again what the player needs.
 * The next private line opens a new room: one per room left at most.
 */
void
mx_dm_left(struct matrix *m, struct mx_room *room, const char *user_id)
{
	struct mx_dm *dm;
	size_t i;
	json_t *v;

	if (!room->joined || room->parting || room->leaving != NULL ||
	    mx_channel_of_room(m, room->id) != NULL ||
	    !mx_direct_has(m->direct, user_id, room->id))
		return;
	log_info("matrix %s: %s left or rejected the direct room %s; leaving "
	    "it (%d messages waiting go to another room)", mx_net(m), user_id,
	    room->id, room->queue.n);
	refusals_set(m, user_id, refusals(m, user_id) + 1);
	if (room->sending != NULL) {
		mx_http_cancel(m->http, room->sending);
		room->sending = NULL;
	}
	loop_cancel(m->loop, room->send_timer);
	room->send_timer = 0;
	if (room->queue.n > 0) {
		struct mx_queue waiting = { 0 };

		if ((dm = mx_dm_find(m, user_id)) == NULL)
			dm = dm_new(m, user_id);
		mx_queue_move(&waiting, &room->queue);
		mx_queue_move(&waiting, &dm->queue);
		mx_queue_move(&dm->queue, &waiting);
		mx_dm_start(dm);
	}
	mx_room_leave(room);
	/*
	 * The room offered after a refusal was refused too: nothing more is
	 * offered, so the game room is not asked to accept an invitation
	 * that is not there (the player was told once, and !hand works).
	 */
	if (m->adapter->listener == NULL || m->loop == NULL ||
	    refusals(m, user_id) >= MX_REFUSALS_MAX)
		return;
	if (m->lost == NULL)
		m->lost = mx_json(json_array());
	json_array_foreach(m->lost, i, v)
		if (strcmp(json_string_value(v), user_id) == 0)
			return;
	mx_json_rc(json_array_append_new(m->lost,
	    mx_json(json_string(user_id))));
	if (m->lost_timer == 0)
		m->lost_timer = loop_timer(m->loop, 0, on_lost_timer, m);
}

/*
 * matrix.c - the Matrix adapter: the bot as a Matrix account, over the
 * client-server API v3 with libcurl (matrix_http.c) on the bot's loop.
 *
 * For admins:
 *
 * - Login.  With password_file the bot logs in with m.login.password and
 *   keeps its device id in the store, so a restart reuses the device (set
 *   device_id to choose it); with access_token_file it uses the token as
 *   given (checked with /account/whoami).  Tokens and passwords are never
 *   logged.
 * - Rooms.  Configured channels may be room ids (!id:server) or aliases
 *   (#name:server); the bot joins them at start.  It accepts invites only
 *   from users matching invites.allow_users (globs, e.g. "@*:example.org")
 *   or from servers in invites.allow_servers: by default from nobody.  When
 *   kicked or banned it forgets the room and does not come back by itself.
 *   Room moderators (power level 50 or more) count as table admins there.
 *   A message for an alias not joined yet (a restored game says it
 *   resumes before the adapter has started) waits for the join.
 * - Direct messages.  Hands and prompts go to a direct room per player:
 *   one listed for the player in the bot's m.direct account data if the
 *   player is still in it (or invited), otherwise a new unencrypted room
 *   (preset trusted_private_chat) to which the player is invited; it is
 *   recorded in m.direct, merged with what other clients wrote there.  A
 *   message in a room that is direct for its sender, or in a two-person
 *   room that is not a configured channel, counts as private.
 * - Encryption.  The bot has no end-to-end encryption and cannot read
 *   encrypted rooms.  When a player writes in one, the bot says so once in
 *   that room, logs it, and opens an unencrypted direct room with them.
 *   Do not enable encryption in game rooms.
 * - Delivery.  Only messages newer than the bot's first start are acted
 *   on, and in a room joined later only those said after the bot was
 *   invited or joined (the history a server shows on joining is not).
 *   The /sync position is stored only once every event before it was
 *   handed to the bot, and the id of each event handed to the core since
 *   is stored in the same transaction as the core's handling of it
 *   (store_kv_defer), so a restart neither replays nor loses a command,
 *   even after a SIGKILL between the core's commit and its return; a /sync
 *   that comes back before the joins of channels named by alias waits
 *   for them, so its messages name the right channel.  A /sync whose
 *   room timeline was cut (more than MX_TIMELINE_LIMIT events since the
 *   bot's position: a long absence, a busy room) waits too, while the
 *   messages left out are fetched with /messages, at most MX_GAP_PAGES
 *   pages per room; if that fails they are skipped with a warning.  Duplicate
 *   events are recognised by event id.  Messages are sent as m.notice with
 *   HTML, one at a time per room and in order, each with a transaction id
 *   kept across retries so a retry never posts twice; rate limits
 *   (M_LIMIT_EXCEEDED) are honoured and other failures retried with
 *   backoff.  Messages still queued get a few seconds at shutdown.
 * - Outages.  A failed /sync is retried quietly with backoff and jitter;
 *   only when the homeserver has not answered for outage_ms does the core
 *   hear "disconnected", and "connected" once it answers again.
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
#include "matrix_http.h"
#include "matrix_proto.h"
#include "rng.h"
#include "store.h"

/* Retry delays, in ms. */
#define MX_RETRY_BASE 1000
#define MX_RETRY_MAX 60000
#define MX_SEND_RETRY_BASE 500
#define MX_SEND_RETRY_MAX 30000
/*
 * A failed /sync (or login step) is retried soon and quietly: one lost
 * request is no outage.  The delay doubles up to a cap short enough that
 * the bot hears again within seconds of the homeserver coming back.
 */
#define MX_SYNC_RETRY_BASE 500
#define MX_SYNC_RETRY_MAX 15000
/* Delay after a refused login: a wrong password will not fix itself soon. */
#define MX_LOGIN_REFUSED_MAX 300000
/* How long a request other than /sync may take. */
#define MX_REQUEST_TIMEOUT 30000
/* How long stop() waits for queued messages to go out. */
#define MX_FLUSH_MS 3000
/* Messages per room timeline a /sync may return before it is cut. */
#define MX_TIMELINE_LIMIT 100
/* The most /messages pages fetched for one cut timeline. */
#define MX_GAP_PAGES 10
/* The power level from which a room member is a room admin. */
#define MX_ADMIN_LEVEL 50

/*
 * A flow (a table, see struct send_info) with more messages than this
 * waiting is busy: the core then holds back instead of piling up more.
 */
#define MX_BUSY_MAX 40

/* One message waiting to be sent. */
struct mx_msg {
	struct mx_msg *next;
	char txn[96];             /* fixed at queueing, kept across retries */
	json_t *content;          /* owned */
	uint64_t id;              /* the core's outbox row; 0: untracked */
	char *flow;               /* owned: its table's channel, or NULL */
};

struct mx_queue {
	struct mx_msg *head, *tail;
	int n;
};

enum { MX_OUT, MX_JOINED, MX_PENDING };

/* A room member as the room's state says. */
struct mx_person {
	char *user_id;
	char *name;               /* display name, or NULL */
	int state;                /* MX_OUT, MX_JOINED, MX_PENDING (invited) */
};

struct matrix;

struct mx_room {
	struct matrix *m;
	struct mx_room *next;
	char *id;
	int joined;               /* the bot is a member */
	int seen_joined;          /* a /sync showed the bot joined here */
	int encrypted;            /* m.room.encryption seen */
	struct mx_person *people;
	int npeople, people_cap;
	json_t *power;            /* owned: m.room.power_levels content */
	json_t *warned;           /* owned: users told about encryption */
	struct mx_queue queue;    /* the head is the message being sent */
	struct mx_request *sending;
	uint64_t send_timer;
	unsigned send_attempt;
	int parting;              /* leave once the queue is empty */
	struct mx_request *leaving;
	struct mx_request *members;  /* GET joined_members after our join */
	char *alias;              /* m.room.canonical_alias, or NULL */
	char *name;               /* m.room.name, or NULL */
	int is_direct;            /* a member event here said is_direct */
};

/*
 * A room to join: a channel the core asked for (core), or a room we were
 * invited to.  A channel's record stays after joining: it maps the name
 * the core uses (maybe an alias) to the room id.
 */
struct mx_join {
	struct matrix *m;
	struct mx_join *next;
	char *name;               /* as given: "!id:server", "#alias:server" */
	char *room_id;            /* once known */
	int core;
	int done;                 /* joined */
	int failed;               /* refused for good */
	char *inviter;            /* invites: who invited */
	int is_direct;            /* invites: flagged as a direct room */
	struct mx_queue queue;    /* sends before the room id is known */
	struct mx_request *req;
	uint64_t timer;
	unsigned attempt;
};

/* A direct room being looked for or created for a user. */
struct mx_dm {
	struct matrix *m;
	struct mx_dm *next;
	char *user_id;
	struct mx_queue queue;
	struct mx_request *req;
	uint64_t timer;
	unsigned attempt;
};

enum mx_phase { MX_STOPPED, MX_LOGIN, MX_FILTER, MX_DIRECT, MX_SYNC };

/*
 * A room whose timeline a /sync cut short ("limited"): what was said
 * between our last position and the timeline's start is fetched with
 * /messages, newest first, page by page, before the response is handled.
 */
struct mx_gap {
	struct mx_gap *next;
	char *room_id;
	char *from;               /* where the next page starts */
	json_t *events;           /* owned: fetched so far, newest first */
	int pages;
	int done;                 /* 1 complete; -1 given up (still cut) */
};

struct matrix {
	struct adapter *adapter;
	struct mx_config cfg;
	struct loop *loop;
	struct store *store;
	struct mx_http *http;
	struct rng rng;
	enum mx_phase phase;
	int stopping;             /* stop() is flushing the queues */
	char *token;              /* secret: the access token in use */
	char *device_id;
	char *filter_id;
	char *since;              /* the stored next_batch, or NULL */
	int full_state;           /* the next /sync asks for full state */
	int synced;               /* a /sync was handled: room state known */
	int up;                   /* what bot_on_connected() last said */
	uint64_t outage_timer;    /* running while /sync fails: at its end
	                           * the bot counts as disconnected */
	struct mx_request *req;   /* the login, filter, m.direct or sync */
	json_t *held;             /* owned: a /sync response waiting for joins
	                           * or for the gaps in its timelines */
	struct mx_gap *gaps;      /* timelines of held being filled in */
	uint64_t timer;           /* retry of that step */
	unsigned attempt;
	json_t *direct;           /* owned: m.direct as we know it */
	json_t *direct_pending;   /* owned: additions not yet written */
	json_t *direct_inflight;  /* owned: additions being written */
	json_t *direct_put;       /* owned: the content being PUT */
	struct mx_request *direct_req;
	uint64_t direct_timer;
	unsigned direct_attempt;
	json_t *handled;          /* owned: ids handled since `since` */
	struct mx_seen seen;
	struct mx_room *rooms;
	struct mx_join *joins;
	struct mx_dm *dms;
	uint64_t epoch, txn_counter;
	char txn_prefix[40];      /* random per store: see mx_txn_id_outbox */
	uint64_t *dropped;        /* outbox ids that can never be sent, */
	size_t ndropped, dropped_cap; /* reported by report_timer */
	uint64_t report_timer;
	char key_since[192], key_device[192], key_handled[192];
	char key_txn[192];
	struct text url;          /* scratch for building URLs */
};

static void mx_login(struct matrix *m);
static void mx_sync(struct matrix *m);
static void room_kick(struct mx_room *room);
static void join_start(struct mx_join *j);
static void members_fetch(struct mx_room *room);
static void dm_start(struct mx_dm *dm);
static void direct_kick(struct matrix *m);
static void mx_relogin(struct matrix *m);
static void sync_apply(struct matrix *m, const json_t *body,
    const struct mx_response *res);
static void sync_release(struct matrix *m);
static void gaps_free(struct matrix *m);

static const char *
net(const struct matrix *m)
{
	return m->adapter->network != NULL ? m->adapter->network : "matrix";
}

static uint64_t
mx_rand(struct matrix *m)
{
	return rng_next(&m->rng);
}

static int
mx_ok(const struct mx_response *res)
{
	return res->status >= 200 && res->status < 300;
}

/* Worth retrying: no answer, a server error, or a rate limit. */
static int
mx_transient(const struct mx_response *res)
{
	return res->status == 0 || res->status >= 500 || res->status == 429 ||
	    (res->errcode != NULL && strcmp(res->errcode,
	    "M_LIMIT_EXCEEDED") == 0);
}

static int
mx_token_refused(const struct mx_response *res)
{
	return res->status == 401 && res->errcode != NULL &&
	    strcmp(res->errcode, "M_UNKNOWN_TOKEN") == 0;
}

/* A short description of a failed response for the log (no secrets). */
static void
mx_describe(const struct mx_response *res, char *out, size_t outlen)
{
	const char *error = json_string_value(json_object_get(res->body,
	    "error"));

	if (res->status == 0)
		snprintf(out, outlen, "%s", res->error != NULL ? res->error :
		    "no answer");
	else
		snprintf(out, outlen, "HTTP %ld %s%s%s", res->status,
		    res->errcode != NULL ? res->errcode : "",
		    error != NULL ? ": " : "", error != NULL ? error : "");
}

/* The delay before the next retry: the server's word for rate limits. */
static uint64_t
mx_retry_delay(struct matrix *m, const struct mx_response *res,
    unsigned *attempt, uint64_t base, uint64_t max)
{
	uint64_t d;

	if (res != NULL && res->retry_after_ms >= 0 &&
	    (res->status == 429 || (res->errcode != NULL &&
	    strcmp(res->errcode, "M_LIMIT_EXCEEDED") == 0)))
		return (uint64_t)res->retry_after_ms;
	d = mx_backoff(*attempt, base, max, mx_rand(m));
	if (*attempt < 30)
		(*attempt)++;
	return d;
}

static void kick_all(struct matrix *m);

/*
 * Reports a change of connection to the core.  Back up, every retry that
 * waits for its backoff goes at once: the server answers again.
 */
static void
mx_set_up(struct matrix *m, int up)
{
	if (m->up == up)
		return;
	m->up = up;
	log_info("matrix %s: %s", net(m), up ? "connected" : "disconnected");
	if (up)
		kick_all(m);
	if (m->adapter->bot != NULL)
		bot_on_connected(m->adapter->bot, m->adapter, up);
}

static void
on_outage(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;

	(void)loop;
	(void)id;
	m->outage_timer = 0;
	log_warn("matrix %s: the homeserver has not answered for %d s",
	    net(m), m->cfg.outage_ms / 1000);
	mx_set_up(m, 0);
}

/*
 * A step of the /sync loop failed.  The core hears of it only when the
 * failures last outage_ms: telling every table "disconnected" and then
 * "back online" for one lost request would stop turn timers and repeat
 * prompts for nothing.
 */
static void
outage_begin(struct matrix *m)
{
	if (m->up && m->outage_timer == 0)
		m->outage_timer = loop_timer(m->loop,
		    (uint64_t)m->cfg.outage_ms, on_outage, m);
}

/* /sync answered: the homeserver is there (again). */
static void
outage_end(struct matrix *m)
{
	loop_cancel(m->loop, m->outage_timer);
	m->outage_timer = 0;
	mx_set_up(m, 1);
}

/*
 * Stores a value with whatever else is deferred (the events handled
 * lately), so that the sync position and the handled ids never disagree.
 */
static void
mx_kv_set(struct matrix *m, const char *key, const char *value)
{
	if (m->store != NULL && (store_kv_defer(m->store, key, value) != 0 ||
	    store_kv_flush(m->store) != 0))
		log_error("matrix %s: cannot store %s", net(m), key);
}

/* Queues */

static void
queue_push(struct mx_queue *q, struct mx_msg *msg)
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

static void
msg_free(struct mx_msg *msg)
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
		if (m->adapter->bot != NULL)
			bot_on_sent(m->adapter->bot, m->adapter, ids[i]);
	free(ids);
}

/* Tells the core that outbox row id (0: none) has left or never will. */
static void
sent_report(struct matrix *m, uint64_t id)
{
	if (id != 0 && m->adapter->bot != NULL)
		bot_on_sent(m->adapter->bot, m->adapter, id);
}

/*
 * A tracked message can never be sent (its room is gone, its recipient
 * unreachable): the core forgets its outbox row, from the loop, since
 * this may run inside one of the core's calls (part, send).
 */
static void
msg_dropped(struct matrix *m, const struct mx_msg *msg, const char *where)
{
	size_t cap = m->dropped_cap;
	uint64_t *grown;

	if (msg->id == 0)
		return;
	log_warn("matrix %s: message %llu for %s can never be sent; dropped",
	    net(m), (unsigned long long)msg->id, where);
	if (m->ndropped == cap) {
		cap = cap != 0 ? cap * 2 : 16;
		if ((grown = realloc(m->dropped, cap * sizeof(*grown))) ==
		    NULL) {
			log_error("matrix %s: out of memory", net(m));
			return;
		}
		m->dropped = grown;
		m->dropped_cap = cap;
	}
	m->dropped[m->ndropped++] = msg->id;
	if (m->report_timer == 0 && m->loop != NULL)
		m->report_timer = loop_timer(m->loop, 0, on_report_timer, m);
}

/* Drops every message of q for good (see msg_dropped). */
static void
queue_drop(struct matrix *m, struct mx_queue *q, const char *where)
{
	struct mx_msg *msg;

	if (q->n > 0)
		log_warn("matrix %s: dropping %d messages for %s", net(m),
		    q->n, where);
	while ((msg = queue_pop(q)) != NULL) {
		msg_dropped(m, msg, where);
		msg_free(msg);
	}
}

static void
queue_clear(struct mx_queue *q)
{
	struct mx_msg *msg;

	while ((msg = queue_pop(q)) != NULL)
		msg_free(msg);
}

/* Appends every message of from to to, keeping their order. */
static void
queue_move(struct mx_queue *to, struct mx_queue *from)
{
	struct mx_msg *msg;

	while ((msg = queue_pop(from)) != NULL)
		queue_push(to, msg);
}

/*
 * A message for text; info (may be NULL) is the core's, private_to the
 * recipient of a private line (NULL in a room).  A tracked message's
 * transaction id comes from its outbox row, so that the row sent again
 * after a restart is the same transaction; others get one per process.
 */
static struct mx_msg *
msg_new(struct matrix *m, const struct text *text,
    const struct send_info *info, const char *private_to)
{
	struct mx_msg *msg = calloc(1, sizeof(*msg));

	if (msg == NULL)
		return NULL;
	if ((msg->content = mx_line_content(text, private_to)) == NULL ||
	    (info != NULL && info->flow != NULL &&
	    (msg->flow = strdup(info->flow)) == NULL)) {
		msg_free(msg);
		return NULL;
	}
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

static struct mx_room *
room_find(struct matrix *m, const char *id)
{
	for (struct mx_room *r = m->rooms; r != NULL; r = r->next)
		if (strcmp(r->id, id) == 0)
			return r;
	return NULL;
}

static struct mx_room *
room_get(struct matrix *m, const char *id)
{
	struct mx_room *r = room_find(m, id);

	if (r != NULL)
		return r;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->id = strdup(id)) == NULL) {
		free(r);
		log_error("matrix %s: out of memory", net(m));
		return NULL;
	}
	r->m = m;
	r->next = m->rooms;
	m->rooms = r;
	return r;
}

static void
room_free(struct mx_room *r)
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
static void
room_forget(struct matrix *m, struct mx_room *room)
{
	struct mx_room **p;

	queue_drop(m, &room->queue, room->id);
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->room_id != NULL && strcmp(j->room_id, room->id) == 0)
			j->done = 0;
	for (p = &m->rooms; *p != NULL; p = &(*p)->next) {
		if (*p == room) {
			*p = room->next;
			break;
		}
	}
	room_free(room);
}

static struct mx_person *
person_find(const struct mx_room *room, const char *user_id)
{
	for (int i = 0; i < room->npeople; i++)
		if (strcmp(room->people[i].user_id, user_id) == 0)
			return &room->people[i];
	return NULL;
}

static int
person_state(const struct mx_room *room, const char *user_id)
{
	const struct mx_person *p = person_find(room, user_id);

	return p != NULL ? p->state : MX_OUT;
}

static void
person_set(struct mx_room *room, const char *user_id, int state,
    const char *name)
{
	struct mx_person *p = person_find(room, user_id);
	char *copy = NULL;

	if (name != NULL && (copy = strdup(name)) == NULL)
		return;
	if (p == NULL) {
		if (array_grow((void **)&room->people, &room->people_cap,
		    room->npeople + 1, sizeof(*p)) != 0 ||
		    (room->people[room->npeople].user_id =
		    strdup(user_id)) == NULL) {
			free(copy);
			return;
		}
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

static int
room_joined_count(const struct mx_room *room)
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
static const char *
room_label(struct matrix *m, const struct mx_room *room)
{
	struct mx_join *j = channel_of_room(m, room->id);

	return j != NULL ? j->name : room->id;
}

/* A message from sender in room is private (see the header comment). */
static int
room_is_private(struct matrix *m, const struct mx_room *room,
    const char *sender)
{
	if (mx_direct_has(m->direct, sender, room->id))
		return 1;
	if (channel_of_room(m, room->id) != NULL)
		return 0;
	return room_joined_count(room) == 2 &&
	    person_state(room, sender) == MX_JOINED;
}

/* The room a channel name stands for (alias or id), or NULL. */
static struct mx_room *
room_of_channel(struct matrix *m, const char *channel)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->core && strcmp(j->name, channel) == 0 &&
		    j->room_id != NULL)
			return room_find(m, j->room_id);
	return room_find(m, channel);
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

static void room_leave(struct mx_room *room);

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

		room->send_attempt = 0;
		msg_free(msg);
		if (room->parting && room->queue.n == 0)
			room_leave(room);
		else
			room_kick(room);
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

		log_error("matrix %s: %s refused a message: %s", net(m),
		    room->id, why);
		msg_free(msg);
		room_kick(room);
		/* It can never be sent: the core forgets its row. */
		sent_report(m, id);
		return;
	}
	delay = mx_retry_delay(m, res, &room->send_attempt, MX_SEND_RETRY_BASE,
	    MX_SEND_RETRY_MAX);
	log_warn("matrix %s: sending to %s failed (%s); retrying in %llu ms",
	    net(m), room->id, why, (unsigned long long)delay);
	room->send_timer = loop_timer(m->loop, delay, on_send_timer, room);
}

/* Sends the room's next message unless one is on its way. */
static void
room_kick(struct mx_room *room)
{
	struct matrix *m = room->m;
	struct mx_msg *msg = room->queue.head;

	if (msg == NULL || m->token == NULL || m->http == NULL ||
	    room->sending != NULL || room->send_timer != 0 ||
	    room->leaving != NULL)
		return;
	mx_url(&m->url, m->cfg.homeserver,
	    MX_API "/rooms/%s/send/m.room.message/%s", room->id, msg->txn);
	room->sending = mx_http_request(m->http, "PUT", text_str(&m->url),
	    m->token, msg->content, MX_REQUEST_TIMEOUT, on_sent, room);
	if (room->sending == NULL)
		room->send_timer = loop_timer(m->loop, MX_RETRY_MAX,
		    on_send_timer, room);
}

static void
room_push(struct mx_room *room, struct mx_msg *msg)
{
	queue_push(&room->queue, msg);
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
		log_warn("matrix %s: leaving %s failed: %s", net(m), room->id,
		    why);
	}
	room_forget(m, room);
}

static void
room_leave(struct mx_room *room)
{
	struct matrix *m = room->m;

	room->parting = 0;
	if (m->token == NULL || m->http == NULL) {
		room_forget(m, room);
		return;
	}
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/leave", room->id);
	room->leaving = mx_http_request(m->http, "POST", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_left_room, room);
	if (room->leaving == NULL)
		room_forget(m, room);
}

/*
 * Starts every send, join, direct room and m.direct write that waits,
 * cutting short the backoff of those that failed.
 */
static void
kick_all(struct matrix *m)
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
		join_start(j);
	}
	for (dm = m->dms; dm != NULL; dm = next) {
		next = dm->next;
		if (dm->req != NULL)
			continue;
		loop_cancel(m->loop, dm->timer);
		dm->timer = 0;
		dm_start(dm);
	}
	loop_cancel(m->loop, m->direct_timer);
	m->direct_timer = 0;
	direct_kick(m);
}

/* m.direct */

/* Adds every user -> room of from to to. */
static void
direct_merge(json_t *to, const json_t *from)
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
	direct_merge(m->direct_pending, m->direct_inflight);
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
	    net(m), why, (unsigned long long)delay);
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
	direct_merge(m->direct, m->direct_put);
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
	direct_merge(content, m->direct_inflight);
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
		    room_joined_count(room) != 2 ||
		    person_state(room, user_id) != MX_JOINED ||
		    person_state(room, m->cfg.user_id) != MX_JOINED)
			continue;
		log_info("matrix %s: using the direct room %s that %s opened",
		    net(m), room->id, user_id);
		direct_record(m, user_id, room->id);
		return room;
	}
	return NULL;
}

/* A usable direct room with user_id: listed, joined, clear, they are in. */
static struct mx_room *
dm_room_for(struct matrix *m, const char *user_id)
{
	const json_t *rooms = json_object_get(m->direct, user_id);

	/* The newest first: older ones may be encrypted or abandoned. */
	for (size_t i = json_array_size(rooms); i-- > 0;) {
		const char *id = json_string_value(json_array_get(rooms, i));
		struct mx_room *room = id != NULL ? room_find(m, id) : NULL;
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

static struct mx_dm *
dm_find(struct matrix *m, const char *user_id)
{
	for (struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		if (strcmp(dm->user_id, user_id) == 0)
			return dm;
	return NULL;
}

static void
dm_free(struct mx_dm *dm)
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
	struct mx_dm *dm = calloc(1, sizeof(*dm));

	if (dm == NULL || (dm->user_id = strdup(user_id)) == NULL) {
		free(dm);
		return NULL;
	}
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
	dm_start(dm);
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
	    (room = room_get(m, room_id)) != NULL) {
		log_info("matrix %s: opened direct room %s with %s", net(m),
		    room_id, dm->user_id);
		room->joined = 1;
		person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (person_state(room, dm->user_id) != MX_JOINED)
			person_set(room, dm->user_id, MX_PENDING, NULL);
		direct_record(m, dm->user_id, room_id);
		queue_move(&room->queue, &dm->queue);
		dm_free(dm);
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
		    net(m), dm->user_id, why);
		queue_drop(m, &dm->queue, dm->user_id);
		dm_free(dm);
		return;
	}
	delay = mx_retry_delay(m, res, &dm->attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot open a direct room with %s (%s); retrying "
	    "in %llu ms", net(m), dm->user_id, why, (unsigned long long)delay);
	dm->timer = loop_timer(m->loop, delay, on_dm_timer, dm);
}

/*
 * Finds a direct room for dm's user, or creates one (once the first /sync
 * told us which rooms exist).  Messages move there in order.
 */
static void
dm_start(struct mx_dm *dm)
{
	struct matrix *m = dm->m;
	struct mx_room *room;
	json_t *body;

	if (!m->synced || m->token == NULL || m->http == NULL ||
	    dm->req != NULL || dm->timer != 0)
		return;
	if ((room = dm_room_for(m, dm->user_id)) != NULL) {
		queue_move(&room->queue, &dm->queue);
		dm_free(dm);
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
static int
dm_send(struct matrix *m, const char *user_id, struct mx_msg *msg)
{
	struct mx_dm *dm = dm_find(m, user_id);
	struct mx_room *room;

	if (dm == NULL && m->synced &&
	    (room = dm_room_for(m, user_id)) != NULL) {
		if (msg != NULL)
			room_push(room, msg);
		return 0;
	}
	if (dm == NULL && (dm = dm_new(m, user_id)) == NULL) {
		log_error("matrix %s: out of memory", net(m));
		if (msg != NULL)
			msg_dropped(m, msg, user_id);
		msg_free(msg);
		return -1;
	}
	if (msg != NULL)
		queue_push(&dm->queue, msg);
	dm_start(dm);
	return 0;
}

/* Joins */

static struct mx_join *
join_find(struct matrix *m, const char *name)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (strcmp(j->name, name) == 0)
			return j;
	return NULL;
}

static void
join_free(struct mx_join *j)
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

static struct mx_join *
join_new(struct matrix *m, const char *name, int core)
{
	struct mx_join *j = calloc(1, sizeof(*j));

	if (j == NULL || (j->name = strdup(name)) == NULL) {
		free(j);
		return NULL;
	}
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
	join_start(j);
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
	    (room = room_get(m, room_id)) != NULL) {
		if ((copy = strdup(room_id)) != NULL) {
			free(j->room_id);
			j->room_id = copy;
		}
		log_info("matrix %s: joined %s (%s)", net(m), j->name, room_id);
		room->joined = 1;
		person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (!j->core && j->is_direct)
			room->is_direct = 1;
		members_fetch(room);
		j->done = 1;
		j->attempt = 0;
		queue_move(&room->queue, &j->queue);
		if (!j->core) {
			if (j->is_direct && j->inviter != NULL)
				direct_record(m, j->inviter, room_id);
			join_free(j);
		}
		room_kick(room);
		sync_release(m);
		return;
	}
	mx_describe(res, why, sizeof(why));
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return;
	}
	if (mx_ok(res) || !mx_transient(res)) {
		log_error("matrix %s: cannot join %s: %s", net(m), j->name,
		    why);
		queue_drop(m, &j->queue, j->name);
		if (!j->core)
			join_free(j);
		else
			j->failed = 1;
		sync_release(m);
		return;
	}
	delay = mx_retry_delay(m, res, &j->attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot join %s (%s); retrying in %llu ms", net(m),
	    j->name, why, (unsigned long long)delay);
	j->timer = loop_timer(m->loop, delay, on_join_timer, j);
	/* Not joined, the room cannot have news for us meanwhile. */
	sync_release(m);
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
		log_info("matrix %s: cannot read the members of %s: %s", net(m),
		    room->id, why);
		return;
	}
	/*
	 * What /sync told us is as new or newer: only people it has not
	 * mentioned yet are added, and only missing names filled in.
	 */
	json_object_foreach((json_t *)joined, user_id, info) {
		const char *name = json_string_value(json_object_get(info,
		    "display_name"));
		struct mx_person *p = person_find(room, user_id);

		if (!mx_user_id_valid(user_id))
			continue;
		if (p == NULL)
			person_set(room, user_id, MX_JOINED, name);
		else if (p->name == NULL && p->state == MX_JOINED &&
		    name != NULL)
			person_set(room, user_id, MX_JOINED, name);
		else
			continue;
		n++;
	}
	log_debug("matrix %s: %d members of %s learnt from joined_members",
	    net(m), n, room->id);
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

static void
join_start(struct mx_join *j)
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

/* Handling /sync */

/*
 * Called right before event_id is handed to the core: the id joins the
 * stored list of events handled since the stored /sync position in the
 * same SQLite transaction as the core's handling of it (store_kv_defer:
 * the next write, i.e. the core's batch), so a SIGKILL either loses both
 * (the event comes again) or keeps both (it is skipped).  handled_end()
 * writes it after the core returns when the core wrote nothing.
 */
static void
handled_begin(struct matrix *m, const char *event_id)
{
	char *s;

	if (event_id == NULL || m->handled == NULL ||
	    json_array_append_new(m->handled, json_string(event_id)) != 0 ||
	    m->store == NULL)
		return;
	if ((s = json_dumps(m->handled, JSON_COMPACT)) == NULL ||
	    store_kv_defer(m->store, m->key_handled, s) != 0)
		log_error("matrix %s: cannot store %s", net(m),
		    m->key_handled);
	free(s);
}

static void
handled_end(struct matrix *m)
{
	if (m->store != NULL && store_kv_flush(m->store) != 0)
		log_error("matrix %s: cannot store %s", net(m),
		    m->key_handled);
}

/*
 * Tells the sender of ev once per room that encrypted rooms are
 * unreadable (ev is marked handled: a restart does not say it again).
 */
static int
encrypted_notice(struct matrix *m, struct mx_room *room,
    const struct mx_event *ev)
{
	const char *sender = ev->sender;
	struct text t;
	struct mx_msg *msg;

	if (room->warned == NULL && (room->warned = json_object()) == NULL)
		return 0;
	if (json_object_get(room->warned, sender) != NULL)
		return 0;
	json_object_set_new(room->warned, sender, json_true());
	handled_begin(m, ev->event_id);
	log_info("matrix %s: %s wrote in encrypted room %s, which the bot "
	    "cannot read; opening a direct room without encryption", net(m),
	    sender, room->id);
	text_init(&t);
	text_add(&t, "Sorry, I cannot read encrypted messages. I have opened "
	    "a direct room without encryption for us: please write to me "
	    "there.");
	if ((msg = msg_new(m, &t, NULL, NULL)) != NULL)
		room_push(room, msg);
	text_clear(&t);
	text_add(&t, "Hello! Write to me here: I cannot read encrypted rooms.");
	msg = NULL;
	if (dm_find(m, sender) == NULL && (!m->synced ||
	    dm_room_for(m, sender) == NULL))
		msg = msg_new(m, &t, NULL, sender);
	dm_send(m, sender, msg);
	text_finish(&t);
	handled_end(m);
	return 1;
}

static int
on_message(struct matrix *m, struct mx_room *room, const struct mx_event *ev)
{
	const char *msgtype = json_string_value(json_object_get(ev->content,
	    "msgtype"));
	const char *rel = json_string_value(json_object_get(json_object_get(
	    ev->content, "m.relates_to"), "rel_type"));
	const struct mx_person *p;
	struct user from;
	char *name, *label;
	int priv;

	if (ev->sender == NULL || strcmp(ev->sender, m->cfg.user_id) == 0)
		return 0;
	/* Notices are what bots say; edits would repeat a command. */
	if (msgtype == NULL || strcmp(msgtype, "m.text") != 0 ||
	    (rel != NULL && strcmp(rel, "m.replace") == 0))
		return 0;
	if (room->encrypted)
		return encrypted_notice(m, room, ev);
	p = person_find(room, ev->sender);
	priv = room_is_private(m, room, ev->sender);
	/* The core may part this room while it runs: keep copies. */
	name = strdup(p != NULL && p->name != NULL ? p->name : ev->sender);
	label = strdup(room_label(m, room));
	if (name == NULL || label == NULL) {
		free(name);
		free(label);
		return 0;
	}
	from.id = ev->sender;
	from.name = name;
	from.mask = NULL;
	handled_begin(m, ev->event_id);
	if (m->adapter->bot != NULL)
		bot_on_message(m->adapter->bot, m->adapter, priv ? NULL : label,
		    &from, mx_message_text(ev->content));
	handled_end(m);
	free(name);
	free(label);
	return 1;
}

/* Replaces *field with a copy of value (NULL or "": none). */
static void
room_set_string(char **field, const char *value)
{
	char *copy = NULL;

	if (value != NULL && value[0] != '\0' &&
	    (copy = text_sanitize(value)) == NULL)
		return;
	free(*field);
	*field = copy;
}

/*
 * Applies a state event to room; with dispatch, membership changes of
 * others reach the core.  Returns 1 when the core was called.
 */
static int
apply_state(struct matrix *m, struct mx_room *room,
    const struct mx_event *ev, int dispatch)
{
	struct mx_member mem;
	struct mx_person *p;
	struct user who;
	char *oldname = NULL, *label, *name;
	int old, now, called = 0;

	if (strcmp(ev->type, "m.room.power_levels") == 0 &&
	    ev->state_key[0] == '\0') {
		json_decref(room->power);
		room->power = json_deep_copy(ev->content);
		return 0;
	}
	if (strcmp(ev->type, "m.room.encryption") == 0) {
		if (!room->encrypted)
			log_info("matrix %s: room %s is encrypted", net(m),
			    room->id);
		room->encrypted = 1;
		return 0;
	}
	if (strcmp(ev->type, "m.room.canonical_alias") == 0 &&
	    ev->state_key[0] == '\0') {
		room_set_string(&room->alias, json_string_value(
		    json_object_get(ev->content, "alias")));
		return 0;
	}
	if (strcmp(ev->type, "m.room.name") == 0 && ev->state_key[0] == '\0') {
		room_set_string(&room->name, json_string_value(
		    json_object_get(ev->content, "name")));
		return 0;
	}
	if (strcmp(ev->type, "m.room.member") != 0)
		return 0;
	mx_member_parse(ev->content, &mem);
	if (mem.is_direct || ev->prev_is_direct)
		room->is_direct = 1;
	now = strcmp(mem.membership, "join") == 0 ? MX_JOINED :
	    strcmp(mem.membership, "invite") == 0 ? MX_PENDING : MX_OUT;
	if (strcmp(ev->state_key, m->cfg.user_id) == 0) {
		room->joined = now == MX_JOINED;
		person_set(room, ev->state_key, now, mem.displayname);
		return 0;
	}
	p = person_find(room, ev->state_key);
	old = p != NULL ? p->state : MX_OUT;
	if (p != NULL && p->name != NULL && (oldname = strdup(p->name)) == NULL)
		return 0;
	person_set(room, ev->state_key, now, mem.displayname);
	p = person_find(room, ev->state_key);
	/* Direct rooms are private: their comings and goings are not. */
	if (!dispatch || m->adapter->bot == NULL ||
	    mx_direct_has(m->direct, ev->state_key, room->id) || p == NULL) {
		free(oldname);
		return 0;
	}
	/* Someone leaving is named as they were known. */
	if (now == MX_OUT && oldname != NULL)
		name = strdup(oldname);
	else
		name = strdup(p->name != NULL ? p->name : ev->state_key);
	if ((label = strdup(room_label(m, room))) == NULL || name == NULL) {
		free(label);
		free(name);
		free(oldname);
		return 0;
	}
	who.id = ev->state_key;
	who.name = name;
	who.mask = NULL;
	if ((old != MX_JOINED) != (now != MX_JOINED) || (old == MX_JOINED &&
	    strcmp(oldname != NULL ? oldname : ev->state_key, who.name) != 0))
		handled_begin(m, ev->event_id);
	if (old != MX_JOINED && now == MX_JOINED) {
		bot_on_join(m->adapter->bot, m->adapter, label, &who);
		called = 1;
	} else if (old == MX_JOINED && now != MX_JOINED) {
		bot_on_leave(m->adapter->bot, m->adapter, label, &who);
		called = 1;
	} else if (old == MX_JOINED && now == MX_JOINED &&
	    strcmp(oldname != NULL ? oldname : ev->state_key, who.name) != 0) {
		bot_on_rename(m->adapter->bot, m->adapter, ev->state_key, &who);
		called = 1;
	}
	if (called)
		handled_end(m);
	free(name);
	free(label);
	free(oldname);
	return called;
}

static void
on_invite(struct matrix *m, const char *room_id, const struct mx_event *ev)
{
	struct mx_member mem;
	struct mx_room *room = room_find(m, room_id);
	struct mx_join *j;

	if (ev == NULL || ev->sender == NULL)
		return;
	mx_member_parse(ev->content, &mem);
	if (strcmp(mem.membership, "invite") != 0 ||
	    (room != NULL && room->joined))
		return;
	for (j = m->joins; j != NULL; j = j->next)
		if ((j->room_id != NULL && strcmp(j->room_id, room_id) == 0) ||
		    strcmp(j->name, room_id) == 0)
			break;
	if (j != NULL && (j->req != NULL || j->timer != 0))
		return;
	/* A channel of the configuration is joined whoever invites. */
	if ((j == NULL || !j->core) &&
	    !mx_invite_allowed(ev->sender, m->cfg.allow_users,
	    m->cfg.allow_servers)) {
		log_info("matrix %s: ignoring the invite to %s from %s (not "
		    "allowed by invites)", net(m), room_id, ev->sender);
		return;
	}
	log_info("matrix %s: accepting the invite to %s from %s", net(m),
	    room_id, ev->sender);
	if (j == NULL) {
		if ((j = join_new(m, room_id, 0)) == NULL)
			return;
		j->is_direct = mem.is_direct;
		j->inviter = strdup(ev->sender);
	}
	j->failed = 0;
	join_start(j);
}

static void
on_left(struct matrix *m, const char *room_id, const struct mx_event *ev)
{
	struct mx_room *room = room_find(m, room_id);
	struct mx_member mem;
	const char *reason;

	if (room == NULL)
		return;
	if (ev != NULL && ev->sender != NULL &&
	    strcmp(ev->sender, m->cfg.user_id) != 0) {
		mx_member_parse(ev->content, &mem);
		reason = json_string_value(json_object_get(ev->content,
		    "reason"));
		log_warn("matrix %s: %s from %s by %s%s%s", net(m),
		    strcmp(mem.membership, "ban") == 0 ? "banned" : "removed",
		    room_id, ev->sender, reason != NULL ? ": " : "",
		    reason != NULL ? reason : "");
		/* Kicked from a channel: do not rejoin until told again. */
		for (struct mx_join *j = m->joins; j != NULL; j = j->next)
			if (j->room_id != NULL &&
			    strcmp(j->room_id, room_id) == 0)
				j->failed = 1;
	}
	if (room->leaving == NULL)
		room_forget(m, room);
}

/* For mx_sync_mark_history(): whether a /sync showed us in room_id. */
static int
room_seen_joined(const char *room_id, void *arg)
{
	const struct mx_room *room = room_find(arg, room_id);

	return room != NULL && room->seen_joined;
}

/*
 * Hands a /sync response to the core and the room state.  Returns 0 when
 * every event was handled (the caller then stores next_batch), -1 when
 * the response was unusable or the adapter was stopped meanwhile.
 */
static int
handle_sync(struct matrix *m, const json_t *body)
{
	struct mx_sync sync;
	const struct mx_event *invite = NULL, *left = NULL;
	int initial = m->since == NULL;
	char err[128];

	if (mx_sync_parse(body, &sync, err, sizeof(err)) != 0) {
		log_error("matrix %s: %s", net(m), err);
		return -1;
	}
	/*
	 * A room joined since the last /sync comes with what was said
	 * there before: old commands must not run again.  (After a restart
	 * every room is new to us; a server without prev_content could then
	 * make a change of the bot's own display name look like a join.)
	 */
	mx_sync_mark_history(&sync, m->cfg.user_id, room_seen_joined, m);
	for (int i = 0; i < sync.n && m->phase == MX_SYNC; i++) {
		const struct mx_event *ev = &sync.events[i];
		struct mx_room *room;
		int dup;

		switch (ev->section) {
		case MX_ACCOUNT_DATA:
			if (strcmp(ev->type, "m.direct") == 0 &&
			    json_is_object(ev->content)) {
				json_t *copy = json_deep_copy(ev->content);

				if (copy == NULL)
					break;
				/* Our additions not yet written stay. */
				direct_merge(copy, m->direct_pending);
				direct_merge(copy, m->direct_inflight);
				json_decref(m->direct);
				m->direct = copy;
			}
			break;
		case MX_STATE:
			if ((room = room_get(m, ev->room_id)) == NULL)
				break;
			room->joined = 1;
			if (ev->state_key != NULL)
				apply_state(m, room, ev, 0);
			break;
		case MX_GAP:
			if (!initial)
				log_warn("matrix %s: the server left out older "
				    "messages of %s", net(m), ev->room_id);
			break;
		case MX_TIMELINE:
			if ((room = room_get(m, ev->room_id)) == NULL)
				break;
			room->joined = 1;
			dup = ev->event_id != NULL &&
			    mx_seen_check(&m->seen, ev->event_id);
			if (ev->state_key != NULL)
				apply_state(m, room, ev, !initial && !dup &&
				    !ev->history);
			else if (initial || dup || ev->history)
				break;
			else if (strcmp(ev->type, "m.room.message") == 0)
				on_message(m, room, ev);
			else if (strcmp(ev->type, "m.room.encrypted") == 0 &&
			    ev->sender != NULL &&
			    strcmp(ev->sender, m->cfg.user_id) != 0)
				encrypted_notice(m, room, ev);
			break;
		case MX_INVITE_STATE:
			if (strcmp(ev->type, "m.room.member") == 0 &&
			    ev->state_key != NULL &&
			    strcmp(ev->state_key, m->cfg.user_id) == 0)
				invite = ev;
			break;
		case MX_INVITED:
			on_invite(m, ev->room_id, invite);
			invite = NULL;
			break;
		case MX_LEFT_EVENT:
			if (strcmp(ev->type, "m.room.member") == 0 &&
			    ev->state_key != NULL &&
			    strcmp(ev->state_key, m->cfg.user_id) == 0)
				left = ev;
			break;
		case MX_LEFT:
			on_left(m, ev->room_id, left);
			left = NULL;
			break;
		}
	}
	if (m->phase != MX_SYNC) {
		mx_sync_finish(&sync);
		return -1;
	}
	for (int i = 0; i < sync.n; i++) {
		struct mx_room *room;

		if ((sync.events[i].section == MX_STATE ||
		    sync.events[i].section == MX_TIMELINE) &&
		    (room = room_find(m, sync.events[i].room_id)) != NULL)
			room->seen_joined = 1;
	}
	free(m->since);
	m->since = strdup(sync.next_batch);
	/* The new position and the emptied list: one transaction. */
	if (json_array_size(m->handled) > 0) {
		json_array_clear(m->handled);
		if (m->store != NULL &&
		    store_kv_defer(m->store, m->key_handled, "[]") != 0)
			log_error("matrix %s: cannot store %s", net(m),
			    m->key_handled);
	}
	mx_kv_set(m, m->key_since, sync.next_batch);
	mx_sync_finish(&sync);
	return 0;
}

/* The login, filter, m.direct and /sync steps */

static void
on_step_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;

	(void)loop;
	(void)id;
	m->timer = 0;
	switch (m->phase) {
	case MX_STOPPED:
		break;
	case MX_LOGIN:
		mx_login(m);
		break;
	case MX_FILTER:
	case MX_DIRECT:
	case MX_SYNC:
		mx_sync(m);
		break;
	}
}

/* A step failed: retry it later, or log in again when the token died. */
static void
step_failed(struct matrix *m, const char *what, const struct mx_response *res,
    uint64_t max)
{
	char why[256];
	uint64_t delay;

	outage_begin(m);
	if (res != NULL && mx_token_refused(res) && m->phase != MX_LOGIN) {
		mx_relogin(m);
		return;
	}
	if (res != NULL)
		mx_describe(res, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "out of memory");
	delay = mx_retry_delay(m, res, &m->attempt, MX_SYNC_RETRY_BASE, max);
	/* Failures that fix themselves are routine: no warning for each. */
	if (res == NULL || mx_transient(res))
		log_info("matrix %s: %s failed (%s); retrying in %llu ms",
		    net(m), what, why, (unsigned long long)delay);
	else
		log_warn("matrix %s: %s failed (%s); retrying in %llu ms",
		    net(m), what, why, (unsigned long long)delay);
	m->timer = loop_timer(m->loop, delay, on_step_timer, m);
}

/* 1 while a join of a channel named by an alias is being answered. */
static int
joins_unresolved(const struct matrix *m)
{
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (j->core && j->room_id == NULL && j->req != NULL)
			return 1;
	return 0;
}

/* Hands on a /sync response held for joins once they are answered. */
static void
sync_release(struct matrix *m)
{
	json_t *body = m->held;

	if (body == NULL || joins_unresolved(m) || m->gaps != NULL)
		return;
	m->held = NULL;
	/* Stopping: not stored, so the next start gets it again. */
	if (m->phase == MX_SYNC && !m->stopping && m->req == NULL &&
	    m->timer == 0)
		sync_apply(m, body, NULL);
	json_decref(body);
}

static void
gaps_free(struct matrix *m)
{
	while (m->gaps != NULL) {
		struct mx_gap *gap = m->gaps;

		m->gaps = gap->next;
		free(gap->room_id);
		free(gap->from);
		json_decref(gap->events);
		free(gap);
	}
}

/*
 * Puts what the gaps fetched in front of their timelines in the held
 * response (messages only: the response's state section already holds
 * the state at the timeline's start), then hands the response on.
 */
static void
gaps_finish(struct matrix *m)
{
	const json_t *joined = json_object_get(json_object_get(m->held,
	    "rooms"), "join");

	for (struct mx_gap *gap = m->gaps; gap != NULL; gap = gap->next) {
		json_t *timeline = json_object_get(json_object_get(joined,
		    gap->room_id), "timeline");
		json_t *events = json_array();
		size_t n = json_array_size(gap->events), added = 0;

		if (!json_is_object(timeline) || events == NULL) {
			json_decref(events);
			continue;
		}
		for (size_t i = n; i-- > 0;) {
			json_t *ev = json_array_get(gap->events, i);
			const char *type = json_string_value(json_object_get(ev,
			    "type"));

			if (type != NULL && json_object_get(ev, "state_key") ==
			    NULL && (strcmp(type, "m.room.message") == 0 ||
			    strcmp(type, "m.room.encrypted") == 0) &&
			    json_array_append(events, ev) == 0)
				added++;
		}
		json_array_extend(events, json_object_get(timeline, "events"));
		json_object_set_new(timeline, "events", events);
		/* Still marked cut when a page failed or the cap was hit. */
		if (gap->done == 1)
			json_object_set_new(timeline, "limited", json_false());
		log_info("matrix %s: fetched %zu messages said in %s while "
		    "the timeline was cut", net(m), added, gap->room_id);
	}
	gaps_free(m);
	sync_release(m);
}

static void gap_next(struct matrix *m);

/* The gap being fetched: the first not done, or NULL. */
static struct mx_gap *
gap_current(struct matrix *m)
{
	struct mx_gap *gap = m->gaps;

	while (gap != NULL && gap->done)
		gap = gap->next;
	return gap;
}

static void
on_gap_page(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	struct mx_gap *gap = gap_current(m);
	const json_t *chunk;
	const char *end;
	char why[128];

	m->req = NULL;
	if (gap == NULL)
		return;
	chunk = json_object_get(res->body, "chunk");
	if (!mx_ok(res) || !json_is_array(chunk)) {
		mx_describe(res, why, sizeof(why));
		log_warn("matrix %s: cannot fetch the messages said in %s while "
		    "the timeline was cut (%s); they are skipped", net(m),
		    gap->room_id, why);
		gap->done = -1;
		gap_next(m);
		return;
	}
	json_array_extend(gap->events, (json_t *)chunk);
	gap->pages++;
	end = json_string_value(json_object_get(res->body, "end"));
	if (json_array_size(chunk) > 0 && end != NULL) {
		if (gap->pages >= MX_GAP_PAGES) {
			log_warn("matrix %s: more than %d messages were said in "
			    "%s while the timeline was cut; older ones are "
			    "skipped", net(m), MX_GAP_PAGES * MX_TIMELINE_LIMIT,
			    gap->room_id);
			gap->done = -1;
		} else {
			char *from = strdup(end);

			if (from != NULL) {
				free(gap->from);
				gap->from = from;
			} else {
				gap->done = -1;
			}
		}
	} else {
		gap->done = 1;
	}
	gap_next(m);
}

/* Asks for the next page of the first gap not done, or finishes. */
static void
gap_next(struct matrix *m)
{
	struct mx_gap *gap = gap_current(m);
	char limit[16];

	if (gap == NULL) {
		gaps_finish(m);
		return;
	}
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/messages",
	    gap->room_id);
	mx_url_param(&m->url, "dir", "b");
	mx_url_param(&m->url, "from", gap->from);
	mx_url_param(&m->url, "to", m->since);
	snprintf(limit, sizeof(limit), "%d", MX_TIMELINE_LIMIT);
	mx_url_param(&m->url, "limit", limit);
	m->req = mx_http_request(m->http, "GET", text_str(&m->url), m->token,
	    NULL, MX_REQUEST_TIMEOUT, on_gap_page, m);
	if (m->req == NULL) {
		gap->done = -1;
		gap_next(m);
	}
}

/*
 * Holds a /sync response whose room timelines were cut short while the
 * bot was away or busy (more than MX_TIMELINE_LIMIT events since its
 * position) and starts fetching what was left out, so that no command
 * said meanwhile is lost.  Returns 1 when the response is held.
 */
static int
gaps_start(struct matrix *m, const json_t *body)
{
	const json_t *room;
	const char *room_id;

	json_object_foreach(json_object_get(json_object_get(body, "rooms"),
	    "join"), room_id, room) {
		const json_t *timeline = json_object_get(room, "timeline");
		const char *from = json_string_value(json_object_get(timeline,
		    "prev_batch"));
		struct mx_gap *gap;

		if (!json_is_true(json_object_get(timeline, "limited")) ||
		    from == NULL)
			continue;
		if ((gap = calloc(1, sizeof(*gap))) == NULL ||
		    (gap->room_id = strdup(room_id)) == NULL ||
		    (gap->from = strdup(from)) == NULL ||
		    (gap->events = json_array()) == NULL) {
			if (gap != NULL) {
				free(gap->room_id);
				free(gap->from);
				free(gap);
			}
			break;
		}
		gap->next = m->gaps;
		m->gaps = gap;
	}
	if (m->gaps == NULL)
		return 0;
	json_decref(m->held);
	/* A copy: the response is the HTTP client's. */
	if ((m->held = json_deep_copy(body)) == NULL) {
		gaps_free(m);
		return 0;
	}
	gap_next(m);
	return 1;
}

static void
on_sync(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;

	m->req = NULL;
	if (res->status >= 400 && res->status < 500 && !mx_transient(res) &&
	    !mx_token_refused(res) && m->since != NULL) {
		/* A position from another server or a reset database. */
		log_error("matrix %s: the homeserver refused the stored /sync "
		    "position; starting afresh (messages sent meanwhile are "
		    "not seen)", net(m));
		free(m->since);
		m->since = NULL;
		m->full_state = 0;
		mx_kv_set(m, m->key_since, "");
	}
	if (!mx_ok(res) || !json_is_object(res->body)) {
		step_failed(m, "/sync", res, MX_SYNC_RETRY_MAX);
		return;
	}
	outage_end(m);
	/* A first /sync only learns state: its cut timelines do not matter. */
	if (m->since != NULL && m->phase == MX_SYNC && gaps_start(m,
	    res->body))
		return;
	/*
	 * While the room id of a channel named by its alias is not known,
	 * its messages could not be told apart from another room's (after a
	 * restart, the first /sync often comes back before the joins): the
	 * response waits for the joins to be answered.
	 */
	if (joins_unresolved(m) && m->phase == MX_SYNC) {
		json_decref(m->held);
		/* A copy: the response is the HTTP client's. */
		if ((m->held = json_deep_copy(res->body)) == NULL)
			step_failed(m, "/sync", NULL, MX_SYNC_RETRY_MAX);
		return;
	}
	sync_apply(m, res->body, res);
}

/* Hands a /sync response to the core, then asks for the next one. */
static void
sync_apply(struct matrix *m, const json_t *body, const struct mx_response *res)
{
	if (handle_sync(m, body) != 0) {
		if (m->phase == MX_SYNC)
			step_failed(m, "/sync", res, MX_SYNC_RETRY_MAX);
		return;
	}
	m->attempt = 0;
	m->full_state = 0;
	if (!m->synced) {
		struct mx_dm *dm, *next;

		m->synced = 1;
		/* Private messages waited for the rooms to be known. */
		for (dm = m->dms; dm != NULL; dm = next) {
			next = dm->next;
			dm_start(dm);
		}
	}
	mx_sync(m);
}

static void
on_filter(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	const char *id = json_string_value(json_object_get(res->body,
	    "filter_id"));

	m->req = NULL;
	if (!mx_ok(res) || id == NULL) {
		step_failed(m, "creating the /sync filter", res,
		    MX_SYNC_RETRY_MAX);
		return;
	}
	free(m->filter_id);
	m->filter_id = strdup(id);
	m->attempt = 0;
	m->phase = MX_DIRECT;
	mx_sync(m);
}

static void
on_direct(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;

	m->req = NULL;
	if (mx_ok(res) && json_is_object(res->body)) {
		json_t *copy = json_deep_copy(res->body);

		if (copy != NULL) {
			direct_merge(copy, m->direct);
			json_decref(m->direct);
			m->direct = copy;
		}
	} else if (res->status != 404) {
		step_failed(m, "reading m.direct", res, MX_SYNC_RETRY_MAX);
		return;
	}
	m->attempt = 0;
	m->phase = MX_SYNC;
	kick_all(m);
	mx_sync(m);
}

/* Runs the current step after login: the filter, m.direct, or /sync. */
static void
mx_sync(struct matrix *m)
{
	json_t *filter;
	char n[32];

	if (m->req != NULL || m->timer != 0 || m->token == NULL ||
	    m->stopping || m->held != NULL)
		return;
	switch (m->phase) {
	case MX_FILTER:
		filter = json_pack("{s:{s:[s]}, s:{s:[]}, s:{"
		    "s:{s:[s,s,s,s,s,s,s], s:i}, s:{s:[s,s,s,s,s]}, s:{s:[]}, "
		    "s:{s:[]}}}",
		    "account_data", "types", "m.direct",
		    "presence", "types",
		    "room",
		    "timeline", "types", "m.room.message", "m.room.member",
		    "m.room.encrypted", "m.room.encryption",
		    "m.room.power_levels", "m.room.canonical_alias",
		    "m.room.name", "limit", MX_TIMELINE_LIMIT,
		    "state", "types", "m.room.member", "m.room.power_levels",
		    "m.room.encryption", "m.room.canonical_alias",
		    "m.room.name",
		    "ephemeral", "types",
		    "account_data", "types");
		mx_url(&m->url, m->cfg.homeserver, MX_API "/user/%s/filter",
		    m->cfg.user_id);
		if (filter != NULL)
			m->req = mx_http_request(m->http, "POST",
			    text_str(&m->url), m->token, filter,
			    MX_REQUEST_TIMEOUT, on_filter, m);
		json_decref(filter);
		break;
	case MX_DIRECT:
		mx_url(&m->url, m->cfg.homeserver,
		    MX_API "/user/%s/account_data/m.direct", m->cfg.user_id);
		m->req = mx_http_request(m->http, "GET", text_str(&m->url),
		    m->token, NULL, MX_REQUEST_TIMEOUT, on_direct, m);
		break;
	case MX_SYNC:
		mx_url(&m->url, m->cfg.homeserver, MX_API "/sync");
		mx_url_param(&m->url, "filter", m->filter_id);
		/* The first /sync (no stored position) only learns state. */
		snprintf(n, sizeof(n), "%d", m->since != NULL ?
		    m->cfg.sync_timeout_ms : 0);
		mx_url_param(&m->url, "timeout", n);
		if (m->since != NULL)
			mx_url_param(&m->url, "since", m->since);
		if (m->full_state)
			mx_url_param(&m->url, "full_state", "true");
		m->req = mx_http_request(m->http, "GET", text_str(&m->url),
		    m->token, NULL, m->cfg.sync_timeout_ms + MX_REQUEST_TIMEOUT,
		    on_sync, m);
		break;
	case MX_STOPPED:
	case MX_LOGIN:
		return;
	}
	if (m->req == NULL)
		step_failed(m, "a request", NULL, MX_SYNC_RETRY_MAX);
}

static void
on_login(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	const char *token = json_string_value(json_object_get(res->body,
	    "access_token"));
	const char *device = json_string_value(json_object_get(res->body,
	    "device_id"));
	const char *user = json_string_value(json_object_get(res->body,
	    "user_id"));
	char *copy;

	m->req = NULL;
	if (m->cfg.access_token != NULL)
		token = m->cfg.access_token;
	if (!mx_ok(res) || token == NULL) {
		/* A refused password or token will not work again soon. */
		if (!mx_transient(res))
			log_error("matrix %s: the homeserver refused the "
			    "bot's %s", net(m), m->cfg.access_token != NULL ?
			    "access token" : "login");
		step_failed(m, "logging in", res, mx_transient(res) ?
		    MX_SYNC_RETRY_MAX : MX_LOGIN_REFUSED_MAX);
		return;
	}
	if (user != NULL && strcmp(user, m->cfg.user_id) != 0)
		log_warn("matrix %s: logged in as %s, not %s as configured",
		    net(m), user, m->cfg.user_id);
	if ((copy = strdup(token)) == NULL) {
		step_failed(m, "logging in", NULL, MX_SYNC_RETRY_MAX);
		return;
	}
	m->token = copy;
	if (device != NULL && (m->device_id == NULL ||
	    strcmp(device, m->device_id) != 0)) {
		free(m->device_id);
		m->device_id = strdup(device);
		mx_kv_set(m, m->key_device, device);
	}
	log_info("matrix %s: logged in as %s (device %s)", net(m),
	    m->cfg.user_id, device != NULL ? device : "unknown");
	m->attempt = 0;
	m->phase = MX_FILTER;
	mx_sync(m);
}

static void
mx_login(struct matrix *m)
{
	json_t *body;

	if (m->req != NULL || m->timer != 0)
		return;
	m->phase = MX_LOGIN;
	if (m->cfg.access_token != NULL) {
		mx_url(&m->url, m->cfg.homeserver, MX_API "/account/whoami");
		m->req = mx_http_request(m->http, "GET", text_str(&m->url),
		    m->cfg.access_token, NULL, MX_REQUEST_TIMEOUT, on_login, m);
	} else {
		body = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s}",
		    "type", "m.login.password",
		    "identifier", "type", "m.id.user", "user", m->cfg.user_id,
		    "password", m->cfg.password,
		    "initial_device_display_name", m->cfg.device_name);
		if (body != NULL && m->device_id != NULL)
			json_object_set_new(body, "device_id",
			    json_string(m->device_id));
		mx_url(&m->url, m->cfg.homeserver, MX_API "/login");
		if (body != NULL)
			m->req = mx_http_request(m->http, "POST",
			    text_str(&m->url), NULL, body, MX_REQUEST_TIMEOUT,
			    on_login, m);
		/* The body holds a copy of the password: wipe it. */
		if (body != NULL) {
			json_t *pw = json_object_get(body, "password");

			if (pw != NULL)
				explicit_bzero((char *)json_string_value(pw),
				    json_string_length(pw));
		}
		json_decref(body);
	}
	if (m->req == NULL)
		step_failed(m, "logging in", NULL, MX_SYNC_RETRY_MAX);
}

/* The token was refused: drop it and log in again (password only). */
static void
mx_relogin(struct matrix *m)
{
	if (m->phase == MX_STOPPED || m->phase == MX_LOGIN || m->stopping)
		return;
	mx_http_cancel(m->http, m->req);
	m->req = NULL;
	loop_cancel(m->loop, m->timer);
	m->timer = 0;
	/* Its position was not stored: the next /sync brings it again. */
	json_decref(m->held);
	m->held = NULL;
	gaps_free(m);
	/* Logging in again takes a moment; a refused login is an outage. */
	outage_begin(m);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	m->phase = MX_LOGIN;
	if (m->cfg.access_token != NULL) {
		/* A configured token will not work again soon: wait long. */
		log_error("matrix %s: the homeserver refused the access token; "
		    "checking it again in %d s", net(m),
		    MX_LOGIN_REFUSED_MAX / 1000);
		m->timer = loop_timer(m->loop, MX_LOGIN_REFUSED_MAX,
		    on_step_timer, m);
		return;
	}
	log_warn("matrix %s: the homeserver refused the access token; logging "
	    "in again", net(m));
	mx_login(m);
}

/* The adapter */

static int
matrix_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct matrix *m = calloc(1, sizeof(*m));
	struct timespec ts;

	adapter->priv = NULL;
	if (m == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (mx_config_parse(config, path, &m->cfg, err, errlen) != 0) {
		mx_config_finish(&m->cfg);
		free(m);
		return -1;
	}
	m->adapter = adapter;
	text_init(&m->url);
	mx_seen_init(&m->seen);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Unique per process start: the time in ms and the process id. */
	m->epoch = ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec /
	    1000000) << 22 ^ (uint64_t)getpid();
	rng_seed(&m->rng, m->epoch ^ (uint64_t)ts.tv_nsec);
	adapter->priv = m;
	return 0;
}

static void
matrix_clear(struct matrix *m)
{
	while (m->rooms != NULL) {
		struct mx_room *r = m->rooms;

		m->rooms = r->next;
		room_free(r);
	}
	while (m->joins != NULL)
		join_free(m->joins);
	while (m->dms != NULL)
		dm_free(m->dms);
	mx_http_cancel(m->http, m->req);
	mx_http_cancel(m->http, m->direct_req);
	m->req = m->direct_req = NULL;
	json_decref(m->held);
	m->held = NULL;
	gaps_free(m);
	if (m->loop != NULL) {
		loop_cancel(m->loop, m->timer);
		loop_cancel(m->loop, m->direct_timer);
		loop_cancel(m->loop, m->outage_timer);
		loop_cancel(m->loop, m->report_timer);
	}
	m->timer = m->direct_timer = m->outage_timer = 0;
	m->report_timer = 0;
	/* Dropped rows stay in the outbox: the next start tries again. */
	m->ndropped = 0;
}

static void
matrix_finish(struct adapter *adapter)
{
	struct matrix *m = adapter->priv;

	if (m == NULL)
		return;
	matrix_clear(m);
	mx_http_destroy(m->http);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
	}
	free(m->device_id);
	free(m->filter_id);
	free(m->since);
	json_decref(m->direct);
	json_decref(m->direct_pending);
	json_decref(m->direct_inflight);
	json_decref(m->direct_put);
	json_decref(m->handled);
	free(m->dropped);
	text_finish(&m->url);
	mx_config_finish(&m->cfg);
	free(m);
	adapter->priv = NULL;
}

/*
 * The prefix of the outbox's transaction ids: random, made once per store
 * and kept there (see mx_txn_id_outbox).
 */
static void
txn_prefix_load(struct matrix *m)
{
	char *s = m->store != NULL ? store_kv_get(m->store, m->key_txn) : NULL;

	if (s != NULL && s[0] != '\0' && strlen(s) < sizeof(m->txn_prefix)) {
		snprintf(m->txn_prefix, sizeof(m->txn_prefix), "%s", s);
		free(s);
		return;
	}
	free(s);
	snprintf(m->txn_prefix, sizeof(m->txn_prefix), "%016llx",
	    (unsigned long long)mx_rand(m));
	mx_kv_set(m, m->key_txn, m->txn_prefix);
}

static int
matrix_start(struct adapter *adapter)
{
	struct matrix *m = adapter->priv;
	char err[256], *s;
	json_t *handled, *id;
	size_t i;

	if (m->phase != MX_STOPPED)
		return 0;
	m->loop = bot_loop(adapter->bot);
	m->store = bot_store(adapter->bot);
	if (m->http == NULL &&
	    (m->http = mx_http_create(m->loop, err, sizeof(err))) == NULL) {
		log_error("matrix %s: %s", net(m), err);
		return -1;
	}
	snprintf(m->key_since, sizeof(m->key_since), "matrix:%s:next_batch",
	    net(m));
	snprintf(m->key_device, sizeof(m->key_device), "matrix:%s:device_id",
	    net(m));
	snprintf(m->key_handled, sizeof(m->key_handled), "matrix:%s:handled",
	    net(m));
	snprintf(m->key_txn, sizeof(m->key_txn), "matrix:%s:txn_prefix",
	    net(m));
	txn_prefix_load(m);
	if (m->direct == NULL)
		m->direct = json_object();
	if (m->direct_pending == NULL)
		m->direct_pending = json_object();
	if (m->handled == NULL)
		m->handled = json_array();
	if (m->direct == NULL || m->direct_pending == NULL ||
	    m->handled == NULL) {
		log_error("matrix %s: out of memory", net(m));
		return -1;
	}
	free(m->device_id);
	m->device_id = NULL;
	if (m->cfg.device_id != NULL)
		m->device_id = strdup(m->cfg.device_id);
	else if (m->store != NULL)
		m->device_id = store_kv_get(m->store, m->key_device);
	free(m->since);
	m->since = m->store != NULL ? store_kv_get(m->store, m->key_since) :
	    NULL;
	if (m->since != NULL && m->since[0] == '\0') {
		free(m->since);
		m->since = NULL;
	}
	/* Events handed to the core after the stored position: not again. */
	if (m->store != NULL &&
	    (s = store_kv_get(m->store, m->key_handled)) != NULL) {
		handled = json_loads(s, 0, NULL);
		json_array_foreach(handled, i, id) {
			if (json_is_string(id)) {
				mx_seen_check(&m->seen, json_string_value(id));
				json_array_append(m->handled, id);
			}
		}
		json_decref(handled);
		free(s);
	}
	m->full_state = m->since != NULL;
	m->synced = 0;
	m->stopping = 0;
	log_info("matrix %s: connecting to %s as %s", net(m),
	    m->cfg.homeserver, m->cfg.user_id);
	mx_login(m);
	return 0;
}

/*
 * Everything still to be done for what the core asked: messages waiting
 * anywhere (the one being sent included), reports of dropped messages not
 * yet given to the core, rooms being left and an m.direct update not yet
 * written.  The core runs the loop at SIGTERM until this is 0.
 */
static size_t
matrix_queue_depth(const struct adapter *adapter)
{
	const struct matrix *m = adapter->priv;
	size_t n = m->ndropped;

	for (const struct mx_room *r = m->rooms; r != NULL; r = r->next)
		n += (size_t)r->queue.n + (r->leaving != NULL || r->parting);
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		n += (size_t)j->queue.n;
	for (const struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		n += (size_t)dm->queue.n;
	if (m->token != NULL && (m->direct_req != NULL ||
	    json_object_size(m->direct_pending) > 0))
		n++;
	return n;
}

/* Messages of flow waiting in q. */
static int
queue_count_flow(const struct mx_queue *q, const char *flow)
{
	int n = 0;

	for (const struct mx_msg *msg = q->head; msg != NULL; msg = msg->next)
		if (msg->flow != NULL && strcmp(msg->flow, flow) == 0)
			n++;
	return n;
}

static int
matrix_busy(struct adapter *adapter, const char *flow)
{
	const struct matrix *m = adapter->priv;
	int n = 0;

	if (flow == NULL)
		return 0;
	for (const struct mx_room *r = m->rooms; r != NULL; r = r->next)
		n += queue_count_flow(&r->queue, flow);
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		n += queue_count_flow(&j->queue, flow);
	for (const struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		n += queue_count_flow(&dm->queue, flow);
	return n > MX_BUSY_MAX;
}

/*
 * What people call a room in private lines: the alias the channel was
 * configured by, else the room's canonical alias, else its name, else
 * the names of the people in it as clients show a room without a name
 * ("Alice, Bob and Carol").  Never the raw room id, which means nothing
 * to a player.
 */
static void
matrix_channel_title(struct adapter *adapter, const char *channel, char *out,
    size_t outlen)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = room_of_channel(m, channel);
	struct text t;
	char *clean;
	int n = 0, shown = 0;

	if (outlen == 0)
		return;
	if (channel[0] == '#' || room == NULL || (room->alias == NULL &&
	    room->name == NULL && room_joined_count(room) < 2)) {
		snprintf(out, outlen, "%s", channel[0] == '!' ? "a room" :
		    channel);
		return;
	}
	if (room->alias != NULL || room->name != NULL) {
		snprintf(out, outlen, "%s", room->alias != NULL ? room->alias :
		    room->name);
		return;
	}
	for (int i = 0; i < room->npeople; i++)
		if (room->people[i].state == MX_JOINED &&
		    strcmp(room->people[i].user_id, m->cfg.user_id) != 0)
			n++;
	text_init(&t);
	for (int i = 0; i < room->npeople && shown < 3; i++) {
		const struct mx_person *p = &room->people[i];

		if (p->state != MX_JOINED ||
		    strcmp(p->user_id, m->cfg.user_id) == 0)
			continue;
		if (shown > 0)
			text_add(&t, shown == n - 1 ? " and " : ", ");
		text_add(&t, p->name != NULL ? p->name : p->user_id);
		shown++;
	}
	if (shown < n)
		text_printf(&t, " and %d others", n - shown);
	/* Display names are anyone's text: no marks or control bytes. */
	clean = text_sanitize(text_str(&t));
	snprintf(out, outlen, "%s", clean != NULL ? clean : "a room");
	free(clean);
	text_finish(&t);
}

static const char *
matrix_self_name(struct adapter *adapter)
{
	const struct matrix *m = adapter->priv;

	return m->cfg.user_id;
}

static uint64_t
mx_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
matrix_stop(struct adapter *adapter, const char *goodbye)
{
	struct matrix *m = adapter->priv;
	uint64_t end = mx_clock_ms() + MX_FLUSH_MS;

	/* Matrix has no quit message: the core says goodbye in rooms. */
	(void)goodbye;
	if (m->phase == MX_STOPPED || m->stopping)
		return;
	mx_http_cancel(m->http, m->req);
	m->req = NULL;
	loop_cancel(m->loop, m->timer);
	m->timer = 0;
	/*
	 * The core runs the loop until queue_depth() is 0 before it stops
	 * us.  A caller that did not (or a loop that has stopped and would
	 * not wait) gets a short nested flush here for the goodbyes.
	 */
	if (m->token != NULL && matrix_queue_depth(adapter) > 0 &&
	    !loop_stopped(m->loop)) {
		m->stopping = 1;
		while (matrix_queue_depth(adapter) > 0) {
			uint64_t now = mx_clock_ms();

			if (now >= end ||
			    loop_run_once(m->loop, (int)(end - now)) != 0)
				break;
		}
		m->stopping = 0;
	}
	if (matrix_queue_depth(adapter) > 0)
		log_warn("matrix %s: %zu messages were not sent", net(m),
		    matrix_queue_depth(adapter));
	m->phase = MX_STOPPED;
	/*
	 * Every request is cancelled (their connections close); the client
	 * itself goes in finish(), since stop() may run inside one of its
	 * callbacks (a command handled by the core).
	 */
	matrix_clear(m);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	m->up = 0;
	log_info("matrix %s: stopped", net(m));
}

static int
matrix_join(struct adapter *adapter, const char *channel)
{
	struct matrix *m = adapter->priv;
	struct mx_join *j = join_find(m, channel);

	if (j == NULL) {
		if ((j = join_new(m, channel, 1)) == NULL)
			return -1;
		if (channel[0] == '!' && (j->room_id = strdup(channel)) == NULL)
			return -1;
	}
	j->core = 1;
	j->failed = 0;
	if (!j->done)
		join_start(j);
	return 0;
}

static int
matrix_part(struct adapter *adapter, const char *channel)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = room_of_channel(m, channel);
	struct mx_join *j = join_find(m, channel);

	if (j != NULL && j->core) {
		/* Messages for a room not joined yet have nowhere to go. */
		queue_drop(m, &j->queue, j->name);
		join_free(j);
	}
	if (room == NULL)
		return 0;
	if (room->queue.n > 0)
		room->parting = 1;
	else if (room->leaving == NULL)
		room_leave(room);
	return 0;
}

static int
matrix_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = room_of_channel(m, channel);
	struct mx_join *j;
	struct mx_msg *msg = msg_new(m, text, info, NULL);

	if (msg == NULL) {
		/* Untracked by the core's outbox when it cannot be queued. */
		log_error("matrix %s: out of memory", net(m));
		return -1;
	}
	if (room != NULL && !room->parting && room->leaving == NULL) {
		room_push(room, msg);
		return 0;
	}
	j = join_find(m, channel);
	if (j != NULL && j->core && !j->failed) {
		/* Waits for the join to tell us the room id. */
		queue_push(&j->queue, msg);
		return 0;
	}
	if (channel[0] == '!' && room == NULL &&
	    (room = room_get(m, channel)) != NULL) {
		room_push(room, msg);
		return 0;
	}
	/*
	 * A channel the core has not joined yet (a game restored before the
	 * adapter starts says it resumes): joined, then sent.
	 */
	if (channel[0] == '#' && j == NULL &&
	    (j = join_new(m, channel, 1)) != NULL) {
		queue_push(&j->queue, msg);
		join_start(j);
		return 0;
	}
	log_error("matrix %s: cannot send to %s: not joined", net(m), channel);
	msg_dropped(m, msg, channel);
	msg_free(msg);
	return -1;
}

static int
matrix_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	struct matrix *m = adapter->priv;
	struct mx_msg *msg;

	if (!mx_user_id_valid(user_id)) {
		struct mx_msg bad = { .id = info != NULL ? info->id : 0 };

		log_error("matrix %s: cannot send privately to \"%s\": not a "
		    "user id", net(m), user_id);
		msg_dropped(m, &bad, "an invalid user id");
		return -1;
	}
	if ((msg = msg_new(m, text, info, user_id)) == NULL) {
		log_error("matrix %s: out of memory", net(m));
		return -1;
	}
	return dm_send(m, user_id, msg);
}

static int
matrix_channel_admin(struct adapter *adapter, const char *channel,
    const char *user_id)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = room_of_channel(m, channel);
	const json_t *level;

	if (room == NULL || room->power == NULL)
		return 0;
	level = json_object_get(json_object_get(room->power, "users"), user_id);
	if (level == NULL)
		level = json_object_get(room->power, "users_default");
	return json_is_integer(level) &&
	    json_integer_value(level) >= MX_ADMIN_LEVEL;
}

const struct adapter_impl matrix_adapter = {
	.name = "matrix",
	.init = matrix_init,
	.finish = matrix_finish,
	.start = matrix_start,
	.stop = matrix_stop,
	.join = matrix_join,
	.part = matrix_part,
	.send_channel = matrix_send_channel,
	.send_private = matrix_send_private,
	.queue_depth = matrix_queue_depth,
	.channel_admin = matrix_channel_admin,
	.self_name = matrix_self_name,
	.channel_title = matrix_channel_title,
	.busy = matrix_busy,
};

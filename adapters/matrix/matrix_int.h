/*
 * matrix_int.h - what the files of the Matrix adapter share: its state
 * (struct matrix and the rooms, joins and direct rooms it keeps) and the
 * functions one file calls in another, grouped by the file that defines
 * them.  Nothing here is for the rest of the bot: it sees only
 * matrix_adapter (adapter.h).
 *
 *   matrix.c   the adapter's operations: what the core calls
 *   retry.c    what a response means, retry delays, outages
 *   queue.c    messages waiting to be sent, a table's order across rooms
 *   rooms.c    the rooms known and the sending of their queues
 *   people.c   the members of each room and their names
 *   direct.c   m.direct and a direct room per player
 *   joins.c    joins of channels and of rooms invited to
 *   sync.c     login, the filter, m.direct, then /sync after /sync
 *   events.c   the events of a /sync response handled
 *   gaps.c     cut timelines filled in with /messages
 *   conf.c, proto.c, parse.c   the pure parts (conf.h, proto.h, parse.h)
 *   http.c     JSON over HTTP with libcurl on the bot's loop (http.h)
 *   json.c     jansson running out of memory: fatal (json.h)
 *
 * Out of memory is fatal everywhere: the adapter's own memory comes from
 * xmalloc.h, and jansson's failures to allocate go through json.h.
 *
 * Ownership is as each field's comment says; json_t fields marked owned
 * hold one reference, released when their struct is freed.  Functions
 * borrow the json_t they are given unless their comment says otherwise.
 */
#ifndef STICHBOT_MATRIX_INT_H
#define STICHBOT_MATRIX_INT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "adapter.h"
#include "conf.h"
#include "http.h"
#include "json.h"
#include "parse.h"
#include "proto.h"
#include "rng.h"
#include "text.h"

/* Retry delays, in ms. */
#define MX_RETRY_BASE 1000
#define MX_RETRY_MAX 60000
#define MX_SEND_RETRY_BASE 500
#define MX_SEND_RETRY_MAX 30000
/*
 * A channel's room that refuses the bot's messages (403: its power
 * levels leave the bot silent) is asked again slowly, and at once when
 * its power levels change.
 */
#define MX_SHUT_RETRY_BASE 30000
#define MX_SHUT_RETRY_MAX 600000
/*
 * A failed /sync (or login step) is retried soon and quietly: one lost
 * request is no outage.  The delay doubles up to a cap short enough that
 * the bot hears again within seconds of the homeserver coming back.
 */
#define MX_SYNC_RETRY_BASE 500
#define MX_SYNC_RETRY_MAX 15000
/*
 * A flapping connection (most requests answered, a run of failures now
 * and then) must not fill the rooms with "back online": after the core
 * heard that the bot is back, the next outage is told only once it has
 * lasted outage_ms and at least this long has passed since that return.
 * A long outage is still told, at most this late, so "back online" is
 * said at most once in this time.
 */
#define MX_FLAP_MS 300000
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
	uint64_t seq;             /* the order the core gave it (causal order) */
	uint64_t expires;         /* struct send_info; 0: never */
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
	char *look;               /* how name looks (mx_name_look), or NULL */
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
	struct mx_queue queue;    /* the head is the message being sent */
	struct mx_request *sending;
	uint64_t send_timer;
	unsigned send_attempt;
	int parting;              /* leave once the queue is empty */
	/*
	 * A channel's room refused the head with 403 (the bot may not speak
	 * there): the queue waits and is asked again (rooms.c, room_refuses()).
	 */
	int shut;
	struct mx_request *leaving;
	struct mx_request *members;  /* GET joined_members after our join */
	char *alias;              /* m.room.canonical_alias, or NULL */
	char *name;               /* m.room.name, or NULL */
	int is_direct;            /* a member event here said is_direct */
	/*
	 * Who may read it, for private lines (dm_closed(), direct.c): the
	 * creator (m.room.create), whether only an invitation lets people
	 * in (m.room.join_rules: 1 "invite", "knock" or "private", -1 any
	 * other rule, 0 not seen yet) and whether anyone may read it
	 * without joining (m.room.history_visibility "world_readable").
	 */
	char *creator;
	int invite_only;
	int world_readable;
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
	/*
	 * Refused (the join, or a kick or ban): not joined again until an
	 * invitation.  A channel's messages wait in queue meanwhile.
	 */
	int failed;
	char *inviter;            /* invites: who invited */
	/*
	 * The room to join when it is not name: the replacement of an
	 * upgraded room (m.room.tombstone), and the old room to leave once
	 * in it; NULL otherwise.
	 */
	char *target;
	char *left_behind;
	int shut_recorded;        /* the store says the room shut us out */
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
	/* Since when (loop ms) a room of theirs waits for its state; 0. */
	uint64_t settling_since;
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
	int withheld;             /* withhold(): flows hold rooms no more */
	char *token;              /* secret: the access token in use */
	char *device_id;
	char *filter_id;
	char *since;              /* the stored next_batch, or NULL */
	int full_state;           /* the next /sync asks for full state */
	int synced;               /* a /sync was handled: room state known */
	int up;                   /* what adapter_connected() last said */
	int was_up;               /* connected once since the start */
	uint64_t back_at;         /* loop_now() when the core last heard the
	                           * bot is back after an outage; 0: never */
	uint64_t outage_start;    /* loop_now() when outage_timer was armed */
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
	uint64_t msg_seq;         /* the last struct mx_msg's seq */
	char txn_prefix[40];      /* random per store: see mx_txn_id_outbox */
	uint64_t *dropped;        /* outbox ids that can never be sent, */
	size_t ndropped, dropped_cap; /* reported by report_timer */
	uint64_t report_timer;
	json_t *lost;             /* owned: users who left their direct room, */
	uint64_t lost_timer;      /* told to the core from the loop (direct.c) */
	int up_after_lost;        /* "connected" waits for those reports */
	char key_since[192], key_device[192], key_handled[192];
	char key_txn[192];
	/*
	 * Who was told that an encrypted room is unreadable: owned, an
	 * object of "ROOM USER" -> true, stored (key_told) so that a
	 * restart does not tell them again.
	 */
	json_t *told;
	char key_told[192];
	/*
	 * People who rejected or left the bot's direct rooms: owned, an
	 * object of user id -> how many in a row, stored (key_refusers):
	 * from some number on, no room is opened for them until they say
	 * something or come into a direct room with the bot (direct.c).
	 */
	json_t *refusers;
	char key_refusers[192];
	struct text url;          /* scratch for building URLs */
};

/* matrix.c: the adapter's operations */
const char *mx_net(const struct matrix *m);
uint64_t mx_rand(struct matrix *m);
void mx_kv_set(struct matrix *m, const char *key, const char *value);
/* The JSON object stored under key (owned by the caller); {} if none. */
json_t *mx_kv_object(struct matrix *m, const char *key);
/*
 * Stores o (borrowed) as JSON under key with the store's next write, the
 * one that marks the /sync response being handled; what names it in the
 * error logged when that fails.
 */
void mx_kv_defer_json(struct matrix *m, const char *key, const json_t *o,
    const char *what);

/* retry.c: what a response means, retries, outages */
int mx_ok(const struct mx_response *res);
int mx_transient(const struct mx_response *res);
int mx_token_refused(const struct mx_response *res);
void mx_describe(const struct mx_response *res, char *out, size_t outlen);
/* What a failed request leads to (mx_failed). */
enum mx_verdict {
	MX_RELOGIN,               /* the token died: logging in again */
	MX_REFUSED,               /* refused: not worth another try */
	MX_RETRY,                 /* worth another try after a backoff */
};
/*
 * Sorts out a failed request (res; NULL: it could not be made, which is
 * worth another try) and writes a description of it for the caller's log
 * line into why.  A dead token starts logging in again.
 */
enum mx_verdict mx_failed(struct matrix *m, const struct mx_response *res,
    char *why, size_t whylen);
uint64_t mx_retry_delay(struct matrix *m, const struct mx_response *res,
    unsigned *attempt, uint64_t base, uint64_t max);
void mx_outage_begin(struct matrix *m);
void mx_outage_end(struct matrix *m);
void mx_kick_all(struct matrix *m);

/* queue.c: messages waiting, their order per table, reports of drops */
void mx_queue_push(struct mx_queue *q, struct mx_msg *msg);
struct mx_msg *mx_queue_pop(struct mx_queue *q);
void mx_queue_clear(struct mx_queue *q);
void mx_queue_move(struct mx_queue *to, struct mx_queue *from);
/*
 * Moves the messages that waited for room (its join, its direct room
 * being found) into its queue in the order the core gave every message
 * (seq): a line queued for the room meanwhile, once the room was known,
 * does not go before them (after a restart, a resume line before the
 * rows the last run left unsent).
 */
void mx_room_take(struct mx_room *room, struct mx_queue *from);
/* Merges from into to, in the core's order (seq); from is left empty. */
void mx_queue_merge(struct mx_queue *to, struct mx_queue *from);
struct mx_msg *mx_msg_new(struct matrix *m, const struct text *text,
    const struct send_info *info, const char *private_to);
void mx_msg_free(struct mx_msg *msg);
void mx_sent_report(struct matrix *m, uint64_t id);
/* where names the room or person for the warning; NULL: dropped quietly. */
void mx_msg_dropped(struct matrix *m, const struct mx_msg *msg,
    const char *where);
void mx_queue_drop(struct matrix *m, struct mx_queue *q, const char *where);
/*
 * The bot stops: drops the tracked messages whose sending has not begun,
 * unreported (adapter.h's withhold()); returns how many.
 */
size_t mx_withhold(struct matrix *m);
/*
 * Drops the messages of q, none being sent, that expire at or before now
 * (struct send_info); returns how many.  mx_expire() does it for every
 * queue, keeping the messages being sent.
 */
size_t mx_queue_expire(struct mx_queue *q, uint64_t now);
/* Whether msg is of no use at now (struct send_info's expires). */
int mx_msg_expired(const struct mx_msg *msg, uint64_t now);
size_t mx_expire(struct matrix *m, uint64_t now);
int mx_flow_count(const struct matrix *m, const char *flow);
int mx_flow_held(const struct matrix *m, const struct mx_room *room,
    const struct mx_msg *msg);
struct mx_msg *mx_queue_unheld(const struct matrix *m, struct mx_queue *q);

/* rooms.c: rooms and sending to them */
struct mx_room *mx_room_find(struct matrix *m, const char *id);
struct mx_room *mx_room_get(struct matrix *m, const char *id);
void mx_room_free(struct mx_room *r);
void mx_room_forget(struct matrix *m, struct mx_room *room);
struct mx_join *mx_channel_of_room(struct matrix *m, const char *room_id);
const char *mx_room_label(struct matrix *m, const struct mx_room *room);
int mx_room_is_private(struct matrix *m, const struct mx_room *room,
    const char *sender);
struct mx_room *mx_room_of_channel(struct matrix *m, const char *channel);
void mx_room_kick(struct mx_room *room);
/*
 * Kicked or banned from channel j's room: its queue, the message on its
 * way first, waits in j's (nothing the table said there is lost), and
 * the bot stays out until an invitation (j->failed).
 */
void mx_room_shut_out(struct matrix *m, struct mx_room *room,
    struct mx_join *j);
/* A refusing room may hear from us again (power levels, a join): now. */
void mx_room_retry_now(struct mx_room *room);
/*
 * room was upgraded to the room next (m.room.tombstone): a channel's
 * table follows its people there, with what waited for the old room; the
 * old room is left once the bot is in the new one.
 */
void mx_room_follow(struct matrix *m, struct mx_room *room,
    const char *next);
void mx_room_push(struct mx_room *room, struct mx_msg *msg);
/*
 * joins.c: the store's record of channels' rooms (what: "upgraded",
 * old room id to its replacement; "shut_out", channel name to the room
 * that kicked or banned the bot).  value NULL forgets name; get returns a
 * copy the caller frees, or NULL.
 */
void mx_record_set(struct matrix *m, const char *what, const char *name,
    const char *value);
char *mx_record_get(struct matrix *m, const char *what, const char *name);

/* Starts the sends waiting for their turn (causal order, mx_flow_held). */
void mx_rooms_kick(struct matrix *m);
void mx_room_leave(struct mx_room *room);

/* people.c: the members of a room */
struct mx_person *mx_person_find(const struct mx_room *room,
    const char *user_id);
int mx_person_state(const struct mx_room *room, const char *user_id);
void mx_person_set(struct mx_room *room, const char *user_id, int state,
    const char *name);
int mx_room_joined_count(const struct mx_room *room);
char *mx_person_label(const struct mx_room *room, const char *user_id);
/*
 * How a display name looks to a reader, for telling names apart (the
 * caller frees it): "" when nothing of it shows.
 */
char *mx_name_look(const char *name);
char *mx_user_label(struct matrix *m, const struct mx_room *room,
    const char *user_id, int priv);
void mx_members_fetch(struct mx_room *room);

/* direct.c: m.direct and direct rooms */
void mx_direct_merge(json_t *to, const json_t *from);
void mx_direct_kick(struct matrix *m);
void mx_direct_record(struct matrix *m, const char *user_id,
    const char *room_id);
struct mx_room *mx_dm_room_for(struct matrix *m, const char *user_id);
struct mx_dm *mx_dm_find(struct matrix *m, const char *user_id);
void mx_dm_free(struct mx_dm *dm);
void mx_dm_start(struct mx_dm *dm);
void mx_dm_send(struct matrix *m, const char *user_id, struct mx_msg *msg);
void mx_dm_shared(struct matrix *m, struct mx_room *room);
void mx_dm_left(struct matrix *m, struct mx_room *room, const char *user_id);
/* user_id said something (joined 0) or came into their direct room. */
void mx_dm_heard(struct matrix *m, const char *user_id, int joined);

/* joins.c: joins of channels and invites */
struct mx_join *mx_join_find(struct matrix *m, const char *name);
void mx_join_free(struct mx_join *j);
struct mx_join *mx_join_new(struct matrix *m, const char *name, int core);
void mx_join_start(struct mx_join *j);

/* sync.c: login and the /sync loop */
void mx_login(struct matrix *m);
void mx_relogin(struct matrix *m);
void mx_sync_release(struct matrix *m);

/* events.c: a /sync response handed to the room state and the core */
int mx_sync_handle(struct matrix *m, const json_t *body);

/* gaps.c: cut timelines */
int mx_gaps_start(struct matrix *m, const json_t *body);
void mx_gaps_free(struct matrix *m);

#endif

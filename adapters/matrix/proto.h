/*
 * proto.h - the pure parts of the Matrix adapter: configuration,
 * URLs, transaction ids, backoff, message contents, m.direct, /sync
 * responses and the set of events already seen.  Nothing here does I/O,
 * so tests/test_matrix.c checks all of it directly.
 *
 * Ownership: functions that take a json_t borrow it; functions that return
 * one give the caller a new reference.  The events of a parsed /sync point
 * into the response, which must outlive them.
 */
#ifndef STICHBOT_MATRIX_PROTO_H
#define STICHBOT_MATRIX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "text.h"

/* The client-server API prefix every request path starts with. */
#define MX_API "/_matrix/client/v3"

/* A network object of "type": "matrix", checked. */
struct mx_config {
	char *homeserver;         /* base URL without a trailing '/' */
	char *user_id;            /* @bot:example.org */
	char *password;           /* secret, or NULL: wiped when freed */
	char *access_token;       /* secret, or NULL: wiped when freed */
	char *device_id;          /* NULL: the server picks one (kept) */
	char *device_name;
	json_t *allow_users;      /* owned: globs of users allowed to invite */
	json_t *allow_servers;    /* owned: servers allowed to invite */
	int sync_timeout_ms;
	/*
	 * How long the homeserver must stay unreachable before the bot
	 * counts as disconnected: one failed request is not an outage.
	 */
	int outage_ms;
};

/*
 * Fills cfg from a network object (borrowed) whose JSON path is path;
 * secrets are read from their files.  -1 with "PATH.KEY: ..." in err.
 * cfg is cleared first; call mx_config_finish() after success or failure.
 */
int mx_config_parse(const json_t *network, const char *path,
    struct mx_config *cfg, char *err, size_t errlen);
void mx_config_finish(struct mx_config *cfg);

/* 1 when s looks like a Matrix user id, "@localpart:server". */
int mx_user_id_valid(const char *s);
/* The server name of a user or room id (after the first ':'), or "". */
const char *mx_server_name(const char *id);

/*
 * Appends s to out with every byte but ALPHA DIGIT - . _ ~ percent-encoded,
 * so room ids, aliases and user ids are single path segments.
 */
void mx_escape(struct text *out, const char *s);
/*
 * Writes base followed by path into out (cleared first), where each "%s" in
 * path is replaced by the next argument, percent-encoded.  No other
 * conversions exist.
 */
void mx_url(struct text *out, const char *base, const char *path, ...);
/* Appends "?key=value" or "&key=value", the value percent-encoded. */
void mx_url_param(struct text *out, const char *key, const char *value);

/*
 * A transaction id for a send: unique for a process start (epoch) and a
 * counter, made of URL-safe characters only.
 */
void mx_txn_id(char *out, size_t outlen, uint64_t epoch, uint64_t counter);
/*
 * The transaction id of the core's outbox row id (struct send_info):
 * the same for every attempt, in every process on the same store, so a
 * row sent again after a restart is recognised by the homeserver as the
 * transaction it has (transaction ids are scoped to the device).  prefix
 * is random per store, so a fresh store on the same device cannot have
 * its messages taken for old ones.
 */
void mx_txn_id_outbox(char *out, size_t outlen, const char *prefix,
    uint64_t id);

/*
 * The delay before retry number attempt (0 for the first retry): base
 * doubled per attempt up to max, then "equal jitter": half of it fixed and
 * the other half picked by rnd, so many clients do not retry in step.
 */
uint64_t mx_backoff(unsigned attempt, uint64_t base, uint64_t max,
    uint64_t rnd);

/* The user ids mentioned in t (TEXT_MENTION marks), once each, or NULL. */
json_t *mx_mentions(const struct text *t);
/*
 * The content of an m.room.message of msgtype ("m.notice") for t: the
 * plain body, the HTML formatted_body, and m.mentions when t mentions
 * someone.  NULL when memory runs out.
 */
json_t *mx_message_content(const struct text *t, const char *msgtype);
/*
 * The content of a line the bot says, as a Matrix user expects it: a line
 * that mentions someone (the one that tells a player to act) and every
 * private line (private_to: its recipient, then mentioned too) are m.text
 * with m.mentions, since the default push rule .m.rule.suppress_notices
 * silences notices and the player would never be alerted; other room
 * lines are m.notice, which clients show as the bot's and other bots
 * ignore.  NULL when memory runs out.
 */
json_t *mx_line_content(const struct text *t, const char *private_to);
/*
 * The text a user typed: the body without the quoted fallback that
 * clients put in front of a reply (lines starting with "> " and the empty
 * line after them) when content is a reply.
 */
const char *mx_message_text(const json_t *content);

/*
 * Adds room_id to user_id's list in an m.direct content object (borrowed,
 * changed in place), keeping every other entry.  Returns 1 when it was
 * added, 0 when it was there already, -1 when memory ran out.
 */
int mx_direct_add(json_t *direct, const char *user_id, const char *room_id);
/* 1 when the m.direct content lists room_id for user_id. */
int mx_direct_has(const json_t *direct, const char *user_id,
    const char *room_id);

/*
 * 1 when an invite from sender is to be accepted: sender matches one of
 * the globs of allow_users (fnmatch) or its server is in allow_servers.
 */
int mx_invite_allowed(const char *sender, const json_t *allow_users,
    const json_t *allow_servers);

/* Where an event of a /sync response came from. */
enum mx_section {
	MX_ACCOUNT_DATA,          /* the account's global account data */
	MX_STATE,                 /* a joined room: state before the timeline */
	MX_GAP,                   /* marker: the timeline below was cut */
	MX_TIMELINE,              /* a joined room's timeline */
	MX_INVITE_STATE,          /* stripped state of a room invited to */
	MX_INVITED,               /* marker after an invited room's state */
	MX_LEFT_EVENT,            /* state or timeline of a room we left */
	MX_LEFT,                  /* marker after a left room's events */
};

/* One event, its strings borrowed from the response. */
struct mx_event {
	enum mx_section section;
	const char *room_id;      /* NULL for account data */
	const char *type;         /* NULL for markers */
	const char *event_id;     /* NULL when absent (stripped state) */
	const char *sender;       /* NULL when absent */
	const char *state_key;    /* NULL for non-state events */
	int64_t ts;               /* origin_server_ts, 0 when absent */
	const json_t *content;    /* an object, or NULL when absent */
	/* unsigned.prev_content.membership, or NULL when absent. */
	const char *prev_membership;
	/*
	 * unsigned.prev_content.is_direct: the invite before a join was to a
	 * direct room (the join itself does not say so).
	 */
	int prev_is_direct;
	/* Set by mx_sync_mark_history(): said before we were in the room. */
	int history;
};

struct mx_sync {
	const char *next_batch;
	struct mx_event *events;
	int n, cap;
};

/*
 * Flattens a /sync response (borrowed; it must outlive out) into events:
 * account data, then per joined room its state, a gap marker when the
 * timeline was limited, and its timeline, then invited rooms, then left
 * rooms.  Malformed events are skipped.  -1 with a reason when the
 * response has no next_batch or memory runs out.
 */
int mx_sync_parse(const json_t *response, struct mx_sync *out, char *err,
    size_t errlen);
void mx_sync_finish(struct mx_sync *sync);

/*
 * Marks as history the timeline events of rooms that user_id joins in
 * this response: a room first shown as joined comes with its earlier
 * messages (as history_visibility allows), which were not said to the
 * account.  In such a room, everything before the account's invite (or,
 * without one in the timeline, before its join) is history; messages
 * after an invite were addressed to it.  A join is one when the event's
 * prev_content says the account was not joined before and
 * joined_before(room_id, arg) is 0 (the caller's memory of rooms it has
 * seen joined; servers may leave prev_content out).
 */
void mx_sync_mark_history(struct mx_sync *sync, const char *user_id,
    int (*joined_before)(const char *room_id, void *arg), void *arg);

/* The parts of an m.room.member content the adapter uses. */
struct mx_member {
	const char *membership;   /* "join", "invite", "leave", "ban", ... */
	const char *displayname;  /* NULL when unset */
	int is_direct;
};

/* Reads an m.room.member content; membership is "" when missing. */
void mx_member_parse(const json_t *content, struct mx_member *out);

/*
 * The event ids seen lately (the least recently seen forgotten first), so
 * an event delivered twice is handled once.  Ids are kept as 64-bit hashes.
 */
#define MX_SEEN_MAX 1024
struct mx_seen {
	uint64_t ring[MX_SEEN_MAX];
	int next;
};

void mx_seen_init(struct mx_seen *seen);
/* 1 when id was seen before; either way it is now the most recent. */
int mx_seen_check(struct mx_seen *seen, const char *id);

#endif

/*
 * parse.h - /sync responses read by the Matrix adapter (parse.c).  Nothing
 * here does I/O, so tests/test_matrix.c and fuzz/fuzz_sync.c check it
 * directly.
 *
 * Ownership: the events of a parsed /sync borrow their strings and
 * contents from the response, which must outlive them.
 */
#ifndef STICHBOT_MATRIX_PARSE_H
#define STICHBOT_MATRIX_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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
 * response has no next_batch.
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

/*
 * Mends, in place and at the same length, what jansson cannot read inside
 * the strings of a response body: an escaped NUL, which it refuses in a
 * key (and without JSON_ALLOW_NUL in any string), and a lone surrogate
 * escape become U+FFFD (\uFFFD); a byte that is no UTF-8 becomes '?' and
 * a raw control character a space.  Anyone in a room chooses the content
 * of their events, and one event jansson refuses would fail every /sync
 * that carries it, from the same position, for ever.  Anything else that
 * is no JSON is left for the parser to refuse.  buf must hold a NUL at
 * buf[len].  Returns how many characters were mended: 0 for any body
 * jansson reads as it is.
 */
size_t mx_json_mend(char *buf, size_t len);


#endif

/*
 * parse.c - /sync responses read by the Matrix adapter (parse.h): flattened
 * into events in the order they are handled, the history of rooms just
 * joined marked, member contents read, and the ring of event ids seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "text.h"
#include "xmalloc.h"

static const json_t *
mx_get2(const json_t *obj, const char *a, const char *b)
{
	return json_object_get(json_object_get(obj, a), b);
}

/* Appends one event. */
static void
mx_sync_add(struct mx_sync *out, const struct mx_event *ev)
{
	if (out->n == out->cap) {
		out->cap = out->cap > 0 ? out->cap * 2 : 64;
		out->events = xreallocarray(out->events, (size_t)out->cap,
		    sizeof(*ev));
	}
	out->events[out->n++] = *ev;
}

/* Appends the well-formed events of array events (borrowed). */
static void
mx_sync_events(struct mx_sync *out, const json_t *events,
    enum mx_section section, const char *room_id)
{
	const json_t *e;
	size_t i;

	json_array_foreach(events, i, e) {
		struct mx_event ev;
		const json_t *content = json_object_get(e, "content");
		const json_t *ts = json_object_get(e, "origin_server_ts");

		memset(&ev, 0, sizeof(ev));
		ev.section = section;
		ev.room_id = room_id;
		ev.type = json_string_value(json_object_get(e, "type"));
		if (ev.type == NULL)
			continue;
		if (content != NULL && !json_is_object(content))
			continue;
		ev.content = content;
		ev.event_id = json_string_value(json_object_get(e, "event_id"));
		ev.sender = json_string_value(json_object_get(e, "sender"));
		ev.state_key = json_string_value(json_object_get(e,
		    "state_key"));
		ev.ts = json_is_integer(ts) ? (int64_t)json_integer_value(ts) :
		    0;
		ev.prev_membership = json_string_value(json_object_get(
		    mx_get2(e, "unsigned", "prev_content"), "membership"));
		ev.prev_is_direct = json_is_true(json_object_get(
		    mx_get2(e, "unsigned", "prev_content"), "is_direct"));
		mx_sync_add(out, &ev);
	}
}

static void
mx_sync_marker(struct mx_sync *out, enum mx_section section,
    const char *room_id)
{
	struct mx_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.section = section;
	ev.room_id = room_id;
	mx_sync_add(out, &ev);
}

int
mx_sync_parse(const json_t *response, struct mx_sync *out, char *err,
    size_t errlen)
{
	const json_t *rooms = json_object_get(response, "rooms"), *room;
	const char *room_id;

	memset(out, 0, sizeof(*out));
	out->next_batch = json_string_value(json_object_get(response,
	    "next_batch"));
	if (out->next_batch == NULL) {
		snprintf(err, errlen, "the /sync response has no next_batch");
		return -1;
	}
	mx_sync_events(out, mx_get2(response, "account_data", "events"),
	    MX_ACCOUNT_DATA, NULL);
	json_object_foreach((json_t *)json_object_get(rooms, "join"), room_id,
	    room) {
		const json_t *timeline = json_object_get(room, "timeline");

		mx_sync_events(out, mx_get2(room, "state", "events"), MX_STATE,
		    room_id);
		if (json_is_true(json_object_get(timeline, "limited")))
			mx_sync_marker(out, MX_GAP, room_id);
		mx_sync_events(out, json_object_get(timeline, "events"),
		    MX_TIMELINE, room_id);
	}
	json_object_foreach((json_t *)json_object_get(rooms, "invite"),
	    room_id, room) {
		mx_sync_events(out, mx_get2(room, "invite_state", "events"),
		    MX_INVITE_STATE, room_id);
		mx_sync_marker(out, MX_INVITED, room_id);
	}
	json_object_foreach((json_t *)json_object_get(rooms, "leave"), room_id,
	    room) {
		mx_sync_events(out, mx_get2(room, "state", "events"),
		    MX_LEFT_EVENT, room_id);
		mx_sync_events(out, mx_get2(room, "timeline", "events"),
		    MX_LEFT_EVENT, room_id);
		mx_sync_marker(out, MX_LEFT, room_id);
	}
	return 0;
}

void
mx_sync_finish(struct mx_sync *sync)
{
	free(sync->events);
	memset(sync, 0, sizeof(*sync));
}

/* The membership an m.room.member event of user_id gives, or NULL. */
static const char *
own_membership(const struct mx_event *ev, const char *user_id)
{
	if (ev->section != MX_TIMELINE || ev->state_key == NULL ||
	    strcmp(ev->type, "m.room.member") != 0 ||
	    strcmp(ev->state_key, user_id) != 0)
		return NULL;
	return json_string_value(json_object_get(ev->content, "membership"));
}

void
mx_sync_mark_history(struct mx_sync *sync, const char *user_id,
    int (*joined_before)(const char *room_id, void *arg), void *arg)
{
	for (int i = 0; i < sync->n; i++) {
		const struct mx_event *ev = &sync->events[i];
		const char *mem = own_membership(ev, user_id);
		int first, cut = i;

		if (mem == NULL || strcmp(mem, "join") != 0 ||
		    (ev->prev_membership != NULL &&
		    strcmp(ev->prev_membership, "join") == 0) ||
		    joined_before(ev->room_id, arg))
			continue;
		/* A room's timeline events are next to each other. */
		for (first = i; first > 0 &&
		    sync->events[first - 1].section == MX_TIMELINE &&
		    strcmp(sync->events[first - 1].room_id, ev->room_id) == 0;
		    first--)
			;
		for (int j = i - 1; j >= first; j--) {
			const char *was = own_membership(&sync->events[j],
			    user_id);

			if (was != NULL && strcmp(was, "invite") == 0) {
				cut = j;
				break;
			}
		}
		for (int j = first; j < cut; j++)
			sync->events[j].history = 1;
	}
}

void
mx_member_parse(const json_t *content, struct mx_member *out)
{
	const char *name;

	out->membership = json_string_value(json_object_get(content,
	    "membership"));
	if (out->membership == NULL)
		out->membership = "";
	name = json_string_value(json_object_get(content, "displayname"));
	out->displayname = name != NULL && *name != '\0' ? name : NULL;
	out->is_direct = json_is_true(json_object_get(content, "is_direct"));
}

/* FNV-1a, 64 bits; 0 is kept free to mark an empty slot. */
static uint64_t
mx_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h != 0 ? h : 1;
}

void
mx_seen_init(struct mx_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
}

int
mx_seen_check(struct mx_seen *seen, const char *id)
{
	uint64_t h = mx_hash(id);
	int found = 0;

	for (int i = 0; i < MX_SEEN_MAX; i++) {
		if (seen->ring[i] == h) {
			/* Moved to the newest slot below: this one empties. */
			seen->ring[i] = 0;
			found = 1;
			break;
		}
	}
	seen->ring[seen->next] = h;
	seen->next = (seen->next + 1) % MX_SEEN_MAX;
	return found;
}

/* The value of the four hex digits at s into *out; 0 when they are not. */
static int
hex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

/*
 * The length of the escape "\uXXXX" at s (its first six characters known
 * to be one, of value cp), or of the surrogate pair it starts; 0 when it is
 * a NUL or a surrogate without its other half.
 */
static size_t
escape_length(const char *s, size_t left, unsigned int cp)
{
	unsigned int low;

	if (cp == 0 || (cp >= 0xdc00 && cp <= 0xdfff))
		return 0;
	if (cp < 0xd800 || cp > 0xdbff)
		return 6;
	if (left >= 12 && s[6] == '\\' && s[7] == 'u' && hex4(s + 8, &low) &&
	    low >= 0xdc00 && low <= 0xdfff)
		return 12;
	return 0;
}

size_t
mx_json_mend(char *buf, size_t len)
{
	size_t i = 0, mended = 0;
	int in_string = 0;

	while (i < len) {
		unsigned char c = (unsigned char)buf[i];
		unsigned int cp;
		size_t n;

		if (!in_string || c == '"') {
			in_string ^= c == '"';
			i++;
		} else if (c < 0x20) {
			buf[i++] = ' ';
			mended++;
		} else if (c == '\\') {
			if (i + 6 > len || buf[i + 1] != 'u' ||
			    !hex4(buf + i + 2, &cp)) {
				/* A short escape, or one the parser refuses. */
				i += i + 1 < len ? 2 : 1;
			} else if ((n = escape_length(buf + i, len - i, cp)) ==
			    0) {
				memcpy(buf + i + 2, "FFFD", 4);
				i += 6;
				mended++;
			} else {
				i += n;
			}
		} else if (c < 0x80) {
			i++;
		} else if ((n = text_code_point(buf + i, &cp)) == 0) {
			buf[i++] = '?';
			mended++;
		} else {
			i += n;
		}
	}
	return mended;
}

/*
 * sync.c - the Matrix adapter's /sync loop (matrix_int.h): login,
 * the filter, m.direct, then /sync after /sync; each response is handed to
 * the room state and the core in order (with the gaps of cut timelines
 * filled in first), and its position stored only once every event in it
 * was handled.
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

static void mx_sync(struct matrix *m);
static void sync_apply(struct matrix *m, const json_t *body,
    const struct mx_response *res);

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
		log_error("matrix %s: cannot store %s", mx_net(m),
		    m->key_handled);
	free(s);
}

static void
handled_end(struct matrix *m)
{
	if (m->store != NULL && store_kv_flush(m->store) != 0)
		log_error("matrix %s: cannot store %s", mx_net(m),
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
	    "cannot read; opening a direct room without encryption", mx_net(m),
	    sender, room->id);
	text_init(&t);
	text_add(&t, "Sorry, I cannot read encrypted messages. I have opened "
	    "a direct room without encryption for us: please write to me "
	    "there.");
	if ((msg = mx_msg_new(m, &t, NULL, NULL)) != NULL)
		mx_room_push(room, msg);
	text_clear(&t);
	text_add(&t, "Hello! Write to me here: I cannot read encrypted rooms.");
	msg = NULL;
	if (mx_dm_find(m, sender) == NULL && (!m->synced ||
	    mx_dm_room_for(m, sender) == NULL))
		msg = mx_msg_new(m, &t, NULL, sender);
	mx_dm_send(m, sender, msg);
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
	struct user from = { 0 };
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
	p = mx_person_find(room, ev->sender);
	priv = mx_room_is_private(m, room, ev->sender);
	/* The core may part this room while it runs: keep copies. */
	name = xstrdup(p != NULL && p->name != NULL ? p->name : ev->sender);
	label = xstrdup(mx_room_label(m, room));
	from.id = ev->sender;
	from.name = name;
	from.mask = NULL;
	handled_begin(m, ev->event_id);
	if (m->adapter->listener != NULL)
		adapter_message(m->adapter, priv ? NULL : label,
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
	struct user who = { 0 };
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
			log_info("matrix %s: room %s is encrypted", mx_net(m),
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
		mx_person_set(room, ev->state_key, now, mem.displayname);
		return 0;
	}
	p = mx_person_find(room, ev->state_key);
	old = p != NULL ? p->state : MX_OUT;
	if (p != NULL && p->name != NULL)
		oldname = xstrdup(p->name);
	mx_person_set(room, ev->state_key, now, mem.displayname);
	p = mx_person_find(room, ev->state_key);
	/* Direct rooms are private: their comings and goings are not. */
	if (!dispatch || m->adapter->listener == NULL ||
	    mx_direct_has(m->direct, ev->state_key, room->id) || p == NULL) {
		free(oldname);
		return 0;
	}
	/* Someone leaving is named as they were known. */
	if (now == MX_OUT && oldname != NULL)
		name = xstrdup(oldname);
	else
		name = xstrdup(p->name != NULL ? p->name : ev->state_key);
	label = xstrdup(mx_room_label(m, room));
	who.id = ev->state_key;
	who.name = name;
	who.mask = NULL;
	if ((old != MX_JOINED) != (now != MX_JOINED) || (old == MX_JOINED &&
	    strcmp(oldname != NULL ? oldname : ev->state_key, who.name) != 0))
		handled_begin(m, ev->event_id);
	if (old != MX_JOINED && now == MX_JOINED) {
		adapter_join(m->adapter, label, &who);
		called = 1;
	} else if (old == MX_JOINED && now != MX_JOINED) {
		adapter_leave(m->adapter, label, &who);
		called = 1;
	} else if (old == MX_JOINED && now == MX_JOINED &&
	    strcmp(oldname != NULL ? oldname : ev->state_key, who.name) != 0) {
		adapter_rename(m->adapter, ev->state_key, &who);
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
	struct mx_room *room = mx_room_find(m, room_id);
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
		    "allowed by invites)", mx_net(m), room_id, ev->sender);
		return;
	}
	log_info("matrix %s: accepting the invite to %s from %s", mx_net(m),
	    room_id, ev->sender);
	if (j == NULL) {
		if ((j = mx_join_new(m, room_id, 0)) == NULL)
			return;
		j->is_direct = mem.is_direct;
		j->inviter = xstrdup(ev->sender);
	}
	j->failed = 0;
	mx_join_start(j);
}

static void
on_left(struct matrix *m, const char *room_id, const struct mx_event *ev)
{
	struct mx_room *room = mx_room_find(m, room_id);
	struct mx_member mem;
	const char *reason;

	if (room == NULL)
		return;
	if (ev != NULL && ev->sender != NULL &&
	    strcmp(ev->sender, m->cfg.user_id) != 0) {
		mx_member_parse(ev->content, &mem);
		reason = json_string_value(json_object_get(ev->content,
		    "reason"));
		log_warn("matrix %s: %s from %s by %s%s%s", mx_net(m),
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
		mx_room_forget(m, room);
}

/* For mx_sync_mark_history(): whether a /sync showed us in room_id. */
static int
room_seen_joined(const char *room_id, void *arg)
{
	const struct mx_room *room = mx_room_find(arg, room_id);

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
		log_error("matrix %s: %s", mx_net(m), err);
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
				mx_direct_merge(copy, m->direct_pending);
				mx_direct_merge(copy, m->direct_inflight);
				json_decref(m->direct);
				m->direct = copy;
			}
			break;
		case MX_STATE:
			if ((room = mx_room_get(m, ev->room_id)) == NULL)
				break;
			room->joined = 1;
			if (ev->state_key != NULL)
				apply_state(m, room, ev, 0);
			break;
		case MX_GAP:
			if (!initial)
				log_warn("matrix %s: the server left out older "
				    "messages of %s", mx_net(m), ev->room_id);
			break;
		case MX_TIMELINE:
			if ((room = mx_room_get(m, ev->room_id)) == NULL)
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
		    (room = mx_room_find(m, sync.events[i].room_id)) != NULL)
			room->seen_joined = 1;
	}
	free(m->since);
	m->since = xstrdup(sync.next_batch);
	/* The new position and the emptied list: one transaction. */
	if (json_array_size(m->handled) > 0) {
		json_array_clear(m->handled);
		if (m->store != NULL &&
		    store_kv_defer(m->store, m->key_handled, "[]") != 0)
			log_error("matrix %s: cannot store %s", mx_net(m),
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

	mx_outage_begin(m);
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
		    mx_net(m), what, why, (unsigned long long)delay);
	else
		log_warn("matrix %s: %s failed (%s); retrying in %llu ms",
		    mx_net(m), what, why, (unsigned long long)delay);
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
void
mx_sync_release(struct matrix *m)
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

void
mx_gaps_free(struct matrix *m)
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
		    "the timeline was cut", mx_net(m), added, gap->room_id);
	}
	mx_gaps_free(m);
	mx_sync_release(m);
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
		log_warn("matrix %s: cannot fetch the messages said in %s "
		    "while the timeline was cut (%s); they are skipped",
		    mx_net(m), gap->room_id, why);
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
			    "skipped", mx_net(m),
			    MX_GAP_PAGES * MX_TIMELINE_LIMIT, gap->room_id);
			gap->done = -1;
		} else {
			free(gap->from);
			gap->from = xstrdup(end);
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
		gap = xcalloc(1, sizeof(*gap));
		gap->room_id = xstrdup(room_id);
		gap->from = xstrdup(from);
		if ((gap->events = json_array()) == NULL) {
			free(gap->room_id);
			free(gap->from);
			free(gap);
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
		mx_gaps_free(m);
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
		    "not seen)", mx_net(m));
		free(m->since);
		m->since = NULL;
		m->full_state = 0;
		mx_kv_set(m, m->key_since, "");
	}
	if (!mx_ok(res) || !json_is_object(res->body)) {
		step_failed(m, "/sync", res, MX_SYNC_RETRY_MAX);
		return;
	}
	mx_outage_end(m);
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
			mx_dm_start(dm);
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
	m->filter_id = xstrdup(id);
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
			mx_direct_merge(copy, m->direct);
			json_decref(m->direct);
			m->direct = copy;
		}
	} else if (res->status != 404) {
		step_failed(m, "reading m.direct", res, MX_SYNC_RETRY_MAX);
		return;
	}
	m->attempt = 0;
	m->phase = MX_SYNC;
	mx_kick_all(m);
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
			    "bot's %s", mx_net(m), m->cfg.access_token != NULL ?
			    "access token" : "login");
		step_failed(m, "logging in", res, mx_transient(res) ?
		    MX_SYNC_RETRY_MAX : MX_LOGIN_REFUSED_MAX);
		return;
	}
	if (user != NULL && strcmp(user, m->cfg.user_id) != 0)
		log_warn("matrix %s: logged in as %s, not %s as configured",
		    mx_net(m), user, m->cfg.user_id);
	copy = xstrdup(token);
	m->token = copy;
	if (device != NULL && (m->device_id == NULL ||
	    strcmp(device, m->device_id) != 0)) {
		free(m->device_id);
		m->device_id = xstrdup(device);
		mx_kv_set(m, m->key_device, device);
	}
	log_info("matrix %s: logged in as %s (device %s)", mx_net(m),
	    m->cfg.user_id, device != NULL ? device : "unknown");
	m->attempt = 0;
	m->phase = MX_FILTER;
	mx_sync(m);
}

void
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
void
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
	mx_gaps_free(m);
	/* Logging in again takes a moment; a refused login is an outage. */
	mx_outage_begin(m);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	m->phase = MX_LOGIN;
	if (m->cfg.access_token != NULL) {
		/* A configured token will not work again soon: wait long. */
		log_error("matrix %s: the homeserver refused the access token; "
		    "checking it again in %d s", mx_net(m),
		    MX_LOGIN_REFUSED_MAX / 1000);
		m->timer = loop_timer(m->loop, MX_LOGIN_REFUSED_MAX,
		    on_step_timer, m);
		return;
	}
	log_warn("matrix %s: the homeserver refused the access token; logging "
	    "in again", mx_net(m));
	mx_login(m);
}

/*
 * events.c - what the Matrix adapter does with the events of a /sync
 * response (matrix_int.h): room state kept, messages and comings and
 * goings handed to the core, invites accepted or ignored, rooms left; the
 * id of each event handed to the core stored with the core's handling of
 * it.
 */
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "log.h"
#include "matrix_int.h"
#include "store.h"
#include "xmalloc.h"

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

	if (event_id == NULL)
		return;
	mx_json_rc(json_array_append_new(m->handled,
	    mx_json(json_string(event_id))));
	if (m->store == NULL)
		return;
	s = mx_json_dump(m->handled);
	if (store_kv_defer(m->store, m->key_handled, s) != 0)
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
 * unreadable (ev is marked handled, and who was told is stored with it:
 * a restart does not say it again, nor for their next message).
 */
static int
encrypted_notice(struct matrix *m, struct mx_room *room,
    const struct mx_event *ev)
{
	const char *sender = ev->sender;
	struct text t;
	struct mx_msg *msg;

	text_init(&t);
	text_printf(&t, "%s %s", room->id, sender);
	if (json_object_get(m->told, text_str(&t)) != NULL) {
		text_finish(&t);
		return 0;
	}
	mx_json_rc(json_object_set_new(m->told, text_str(&t),
	    mx_json(json_true())));
	text_finish(&t);
	handled_begin(m, ev->event_id);
	/* In the transaction that marks the event handled. */
	mx_kv_defer_json(m, m->key_told, m->told,
	    "who was told about encryption");
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
	const json_t *edit = json_object_get(ev->content, "m.new_content");
	const char *text;
	struct user from = { 0 };
	char *name, *label;
	int priv, edited = rel != NULL && strcmp(rel, "m.replace") == 0;

	if (ev->sender == NULL || strcmp(ev->sender, m->cfg.user_id) == 0)
		return 0;
	/*
	 * Notices are what bots say.  An edit goes to the core as one (its
	 * new text, with no fallback to skip), which never acts on it.
	 */
	if (edited)
		msgtype = json_string_value(json_object_get(edit, "msgtype"));
	if (msgtype == NULL || strcmp(msgtype, "m.text") != 0)
		return 0;
	text = edited ? json_string_value(json_object_get(edit, "body")) :
	    mx_message_text(ev->content);
	if (text == NULL)
		return 0;
	if (room->encrypted)
		return encrypted_notice(m, room, ev);
	priv = mx_room_is_private(m, room, ev->sender);
	/* The core may part this room while it runs: keep copies. */
	name = mx_user_label(m, room, ev->sender, priv);
	label = xstrdup(mx_room_label(m, room));
	from.id = ev->sender;
	from.name = name;
	from.mask = NULL;
	handled_begin(m, ev->event_id);
	/* What the core answers privately may need a room again. */
	mx_dm_heard(m, ev->sender, 0);
	if (edited)
		adapter_edited(m->adapter, priv ? NULL : label, &from, text);
	else
		adapter_message(m->adapter, priv ? NULL : label, &from, text);
	handled_end(m);
	free(name);
	free(label);
	return 1;
}

/* Replaces *field with a clean copy of value (NULL or "": none). */
static void
room_set_string(char **field, const char *value)
{
	free(*field);
	*field = value != NULL && value[0] != '\0' ? text_sanitize(value) :
	    NULL;
}

/*
 * Who may read room, from its m.room.create, m.room.join_rules and
 * m.room.history_visibility (state key ""): 1 when ev was one of them.
 * A direct room that opens up is left (mx_dm_shared()).
 */
static int
room_access(struct matrix *m, struct mx_room *room, const struct mx_event *ev)
{
	const char *v;

	if (strcmp(ev->type, "m.room.create") == 0) {
		/* Room versions before 11 name the creator in the content. */
		v = json_string_value(json_object_get(ev->content, "creator"));
		if (v == NULL)
			v = ev->sender;
		free(room->creator);
		room->creator = v != NULL ? xstrdup(v) : NULL;
		return 1;
	}
	if (strcmp(ev->type, "m.room.join_rules") == 0) {
		v = json_string_value(json_object_get(ev->content,
		    "join_rule"));
		room->invite_only = v != NULL && (strcmp(v, "invite") == 0 ||
		    strcmp(v, "knock") == 0 || strcmp(v, "private") == 0) ?
		    1 : -1;
	} else if (strcmp(ev->type, "m.room.history_visibility") == 0) {
		v = json_string_value(json_object_get(ev->content,
		    "history_visibility"));
		room->world_readable = v != NULL &&
		    strcmp(v, "world_readable") == 0;
	} else {
		return 0;
	}
	mx_dm_shared(m, room);
	return 1;
}

/* Members whose label may change with one member event (apply_state). */
struct watch {
	char **ids, **labels;
	int n;
};

/*
 * Notes the labels of the members other than user_id who are in room and
 * whose name looks like a or b (mx_name_look): a member event that gives
 * or takes one of those names may make theirs ambiguous, or no longer.
 */
static void
watch_begin(struct watch *w, const struct mx_room *room, const char *user_id,
    const char *a, const char *b)
{
	char *look_a = a != NULL ? mx_name_look(a) : NULL;
	char *look_b = b != NULL ? mx_name_look(b) : NULL;

	w->n = 0;
	w->ids = xcalloc((size_t)room->npeople + 1, sizeof(*w->ids));
	w->labels = xcalloc((size_t)room->npeople + 1, sizeof(*w->labels));
	for (int i = 0; i < room->npeople; i++) {
		const struct mx_person *q = &room->people[i];

		if (q->state != MX_JOINED || q->look == NULL ||
		    strcmp(q->user_id, user_id) == 0 ||
		    ((look_a == NULL || strcmp(q->look, look_a) != 0) &&
		    (look_b == NULL || strcmp(q->look, look_b) != 0)))
			continue;
		w->ids[w->n] = xstrdup(q->user_id);
		w->labels[w->n++] = mx_person_label(room, q->user_id);
	}
	free(look_a);
	free(look_b);
}

/*
 * Keeps in w only the members whose label changed, with their new one;
 * returns how many.
 */
static int
watch_changed(struct watch *w, const struct mx_room *room)
{
	int k = 0;

	for (int i = 0; i < w->n; i++) {
		char *now = mx_person_label(room, w->ids[i]);
		int same = strcmp(now, w->labels[i]) == 0;

		free(w->labels[i]);
		if (same || mx_person_state(room, w->ids[i]) != MX_JOINED) {
			free(w->ids[i]);
			free(now);
			continue;
		}
		w->ids[k] = w->ids[i];
		w->labels[k++] = now;
	}
	w->n = k;
	return k;
}

static void
watch_free(struct watch *w)
{
	for (int i = 0; i < w->n; i++) {
		free(w->ids[i]);
		free(w->labels[i]);
	}
	free(w->ids);
	free(w->labels);
	w->n = 0;
}

/*
 * What a change of user_id's membership in room (old to now) means for
 * direct rooms: someone coming in may make it no one's private room any
 * more, and a player coming into their direct room wants private lines
 * there again (dispatch: the change is news, not a restart's catching
 * up).
 */
static void
member_direct(struct matrix *m, struct mx_room *room, const char *user_id,
    int old, int now, int dispatch)
{
	if (now != MX_OUT)
		mx_dm_shared(m, room);
	if (dispatch && old != MX_JOINED && now == MX_JOINED &&
	    mx_direct_has(m->direct, user_id, room->id))
		mx_dm_heard(m, user_id, 1);
}

/*
 * A state event of the room itself (power levels, an upgrade, encryption,
 * its alias and name, who may read it): applied; 1 when ev was one.
 */
static int
room_state(struct matrix *m, struct mx_room *room, const struct mx_event *ev)
{
	if (strcmp(ev->type, "m.room.power_levels") == 0 &&
	    ev->state_key[0] == '\0') {
		json_decref(room->power);
		room->power = ev->content != NULL ?
		    mx_json(json_deep_copy(ev->content)) : NULL;
		/* It may let the bot speak again. */
		mx_room_retry_now(room);
		return 1;
	}
	if (strcmp(ev->type, "m.room.tombstone") == 0 &&
	    ev->state_key[0] == '\0') {
		const char *next = json_string_value(json_object_get(
		    ev->content, "replacement_room"));

		if (next != NULL)
			mx_room_follow(m, room, next);
		return 1;
	}
	if (strcmp(ev->type, "m.room.encryption") == 0) {
		if (!room->encrypted)
			log_info("matrix %s: room %s is encrypted", mx_net(m),
			    room->id);
		room->encrypted = 1;
		return 1;
	}
	if (strcmp(ev->type, "m.room.canonical_alias") == 0 &&
	    ev->state_key[0] == '\0') {
		room_set_string(&room->alias, json_string_value(
		    json_object_get(ev->content, "alias")));
		return 1;
	}
	if (strcmp(ev->type, "m.room.name") == 0 && ev->state_key[0] == '\0') {
		room_set_string(&room->name, json_string_value(
		    json_object_get(ev->content, "name")));
		return 1;
	}
	return ev->state_key[0] == '\0' && room_access(m, room, ev);
}

/*
 * Applies a state event to room; with dispatch, membership changes of
 * others reach the core, and so do the names of members that a change
 * made ambiguous or no longer (mx_person_label).  Returns 1 when the core
 * was called.
 */
static int
apply_state(struct matrix *m, struct mx_room *room,
    const struct mx_event *ev, int dispatch)
{
	struct mx_member mem;
	struct mx_person *p;
	struct user who = { 0 };
	struct watch w = { 0 };
	char *oldname = NULL, *oldlabel = NULL, *label, *name;
	int old, now, called = 0, join, leave, rename;

	if (room_state(m, room, ev))
		return 0;
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
	/*
	 * The event says someone's name in the room: a join or invite
	 * without one has none (a name cleared), shown as the user id,
	 * where mx_person_set() would keep the one it knew.
	 */
	if (now != MX_OUT && mem.displayname == NULL)
		mem.displayname = "";
	p = mx_person_find(room, ev->state_key);
	old = p != NULL ? p->state : MX_OUT;
	if (p != NULL && p->name != NULL)
		oldname = xstrdup(p->name);
	if (old == MX_JOINED)
		oldlabel = mx_person_label(room, ev->state_key);
	if (dispatch)
		watch_begin(&w, room, ev->state_key, oldname, mem.displayname);
	mx_person_set(room, ev->state_key, now, mem.displayname);
	p = mx_person_find(room, ev->state_key);
	member_direct(m, room, ev->state_key, old, now, dispatch);
	/* A direct room left or rejected: the room goes (not used after). */
	if (dispatch && old != MX_OUT && now == MX_OUT &&
	    mx_direct_has(m->direct, ev->state_key, room->id)) {
		free(oldname);
		free(oldlabel);
		watch_free(&w);
		mx_dm_left(m, room, ev->state_key);
		return 0;
	}
	/* Direct rooms are private: their comings and goings are not. */
	if (!dispatch || m->adapter->listener == NULL ||
	    mx_direct_has(m->direct, ev->state_key, room->id) || p == NULL) {
		free(oldname);
		free(oldlabel);
		watch_free(&w);
		return 0;
	}
	/* Someone leaving is named as they were known. */
	if (now == MX_OUT && oldlabel != NULL)
		name = xstrdup(oldlabel);
	else
		name = mx_person_label(room, ev->state_key);
	label = xstrdup(mx_room_label(m, room));
	who.id = ev->state_key;
	who.name = name;
	who.mask = NULL;
	join = old != MX_JOINED && now == MX_JOINED;
	leave = old == MX_JOINED && now != MX_JOINED;
	rename = old == MX_JOINED && now == MX_JOINED && oldlabel != NULL &&
	    strcmp(oldlabel, name) != 0;
	if (watch_changed(&w, room) > 0 || join || leave || rename) {
		handled_begin(m, ev->event_id);
		called = 1;
	}
	if (join)
		adapter_join(m->adapter, label, &who);
	else if (leave)
		adapter_leave(m->adapter, label, &who);
	else if (rename)
		adapter_rename(m->adapter, ev->state_key, &who);
	/* Others whose name this made ambiguous, or no longer. */
	for (int i = 0; i < w.n; i++) {
		struct user other = { 0 };

		other.id = w.ids[i];
		other.name = w.labels[i];
		adapter_rename(m->adapter, other.id, &other);
	}
	if (called)
		handled_end(m);
	watch_free(&w);
	free(name);
	free(label);
	free(oldname);
	free(oldlabel);
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
		j = mx_join_new(m, room_id, 0);
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
	struct mx_join *j;
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
		for (j = m->joins; j != NULL; j = j->next)
			if (j->room_id != NULL &&
			    strcmp(j->room_id, room_id) == 0)
				j->failed = 1;
		/* What its table said there waits for an invitation. */
		if ((j = mx_channel_of_room(m, room_id)) != NULL) {
			mx_room_shut_out(m, room, j);
			adapter_inside(m->adapter, j->name, 0);
		}
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

/* The account's m.direct as another client (or we) wrote it. */
static void
on_account_data(struct matrix *m, const struct mx_event *ev)
{
	json_t *copy;

	if (strcmp(ev->type, "m.direct") != 0 || !json_is_object(ev->content))
		return;
	copy = mx_json(json_deep_copy(ev->content));
	/* Our additions not yet written stay. */
	mx_direct_merge(copy, m->direct_pending);
	mx_direct_merge(copy, m->direct_inflight);
	json_decref(m->direct);
	m->direct = copy;
}

/*
 * An event of a joined room's timeline: state is applied (and reaches the
 * core unless it is old), messages reach the core unless they are old:
 * in the first /sync, seen before, or history of a room just joined.
 */
static void
on_timeline(struct matrix *m, const struct mx_event *ev, int initial)
{
	struct mx_room *room = mx_room_get(m, ev->room_id);
	int dup;

	room->joined = 1;
	dup = ev->event_id != NULL && mx_seen_check(&m->seen, ev->event_id);
	if (ev->state_key != NULL)
		apply_state(m, room, ev, !initial && !dup && !ev->history);
	else if (initial || dup || ev->history)
		return;
	else if (strcmp(ev->type, "m.room.message") == 0)
		on_message(m, room, ev);
	else if (strcmp(ev->type, "m.room.encrypted") == 0 &&
	    ev->sender != NULL && strcmp(ev->sender, m->cfg.user_id) != 0)
		encrypted_notice(m, room, ev);
}

/* 1 when ev is an m.room.member event about the bot itself. */
static int
own_member(const struct matrix *m, const struct mx_event *ev)
{
	return strcmp(ev->type, "m.room.member") == 0 &&
	    ev->state_key != NULL && strcmp(ev->state_key, m->cfg.user_id) == 0;
}

/*
 * A response was handled whole: its rooms count as seen joined, and its
 * position is stored with the list of handled events emptied, in one
 * transaction.
 */
static void
sync_commit(struct matrix *m, const struct mx_sync *sync)
{
	for (int i = 0; i < sync->n; i++) {
		struct mx_room *room;

		if ((sync->events[i].section == MX_STATE ||
		    sync->events[i].section == MX_TIMELINE) &&
		    (room = mx_room_find(m, sync->events[i].room_id)) != NULL)
			room->seen_joined = 1;
	}
	free(m->since);
	m->since = xstrdup(sync->next_batch);
	if (json_array_size(m->handled) > 0) {
		json_array_clear(m->handled);
		if (m->store != NULL &&
		    store_kv_defer(m->store, m->key_handled, "[]") != 0)
			log_error("matrix %s: cannot store %s", mx_net(m),
			    m->key_handled);
	}
	mx_kv_set(m, m->key_since, sync->next_batch);
}

/*
 * Hands a /sync response to the core and the room state.  Returns 0 when
 * every event was handled (the caller then stores next_batch), -1 when
 * the response was unusable or the adapter was stopped meanwhile.  body
 * is borrowed; the events handed on point into it.
 */
int
mx_sync_handle(struct matrix *m, const json_t *body)
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

		switch (ev->section) {
		case MX_ACCOUNT_DATA:
			on_account_data(m, ev);
			break;
		case MX_STATE:
			room = mx_room_get(m, ev->room_id);
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
			on_timeline(m, ev, initial);
			break;
		case MX_INVITE_STATE:
			if (own_member(m, ev))
				invite = ev;
			break;
		case MX_INVITED:
			on_invite(m, ev->room_id, invite);
			invite = NULL;
			break;
		case MX_LEFT_EVENT:
			if (own_member(m, ev))
				left = ev;
			break;
		case MX_LEFT:
			on_left(m, ev->room_id, left);
			left = NULL;
			break;
		}
	}
	if (m->phase == MX_SYNC)
		sync_commit(m, &sync);
	mx_sync_finish(&sync);
	return m->phase == MX_SYNC ? 0 : -1;
}

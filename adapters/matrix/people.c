/*
 * people.c - who is in a Matrix room as the bot knows it (matrix_int.h):
 * members and their display names, from the room's state events and from
 * joined_members right after the bot joins.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "matrix_int.h"
#include "xmalloc.h"

struct mx_person *
mx_person_find(const struct mx_room *room, const char *user_id)
{
	for (int i = 0; i < room->npeople; i++)
		if (strcmp(room->people[i].user_id, user_id) == 0)
			return &room->people[i];
	return NULL;
}

int
mx_person_state(const struct mx_room *room, const char *user_id)
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
		if (room->npeople == room->people_cap) {
			room->people_cap = room->people_cap > 0 ?
			    room->people_cap * 2 : 8;
			room->people = xreallocarray(room->people,
			    (size_t)room->people_cap, sizeof(*p));
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

/*
 * The name user_id goes by in room, as Matrix clients show it: the
 * display name (the user id without one), followed by " (user_id)" when
 * another member, joined or invited, has the same display name; so two
 * players called Sam are told apart wherever the core names them.  The
 * caller frees it.
 */
char *
mx_person_label(const struct mx_room *room, const char *user_id)
{
	const struct mx_person *p = mx_person_find(room, user_id);
	char *label;

	if (p == NULL || p->name == NULL)
		return xstrdup(user_id);
	for (int i = 0; i < room->npeople; i++) {
		const struct mx_person *q = &room->people[i];

		if (q == p || q->state == MX_OUT || q->name == NULL ||
		    strcmp(q->name, p->name) != 0)
			continue;
		xasprintf(&label, "%s (%s)", p->name, user_id);
		return label;
	}
	return xstrdup(p->name);
}

/*
 * The name of user_id for the core, said in room: their label there
 * (mx_person_label), but for a private room the label in a channel room
 * they are in, so that a private command does not undo the name that
 * tells them apart at their table.
 */
char *
mx_user_label(struct matrix *m, const struct mx_room *room,
    const char *user_id, int priv)
{
	const struct mx_room *channel;

	if (!priv)
		return mx_person_label(room, user_id);
	for (struct mx_join *j = m->joins; j != NULL; j = j->next) {
		if (!j->core || j->room_id == NULL ||
		    (channel = mx_room_find(m, j->room_id)) == NULL ||
		    mx_person_state(channel, user_id) != MX_JOINED)
			continue;
		return mx_person_label(channel, user_id);
	}
	return mx_person_label(room, user_id);
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

/*
 * Tells the core everyone joined to a game room, once joined_members
 * filled in what /sync had not said: comings and goings while the bot
 * was away (a restart) count then.  /sync's word, newer, stands.
 */
static void
tell_members(struct matrix *m, const struct mx_room *room)
{
	const struct mx_join *j = mx_channel_of_room(m, room->id);
	struct user *users;
	char **names;
	size_t n = 0;

	if (j == NULL)
		return;
	users = xcalloc((size_t)room->npeople + 1, sizeof(*users));
	names = xcalloc((size_t)room->npeople + 1, sizeof(*names));
	for (int i = 0; i < room->npeople; i++) {
		const struct mx_person *p = &room->people[i];

		if (p->state != MX_JOINED ||
		    strcmp(p->user_id, m->cfg.user_id) == 0)
			continue;
		names[n] = mx_person_label(room, p->user_id);
		users[n].id = p->user_id;
		users[n].name = names[n];
		n++;
	}
	adapter_members(m->adapter, j->name, users, n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(users);
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
	tell_members(m, room);
}

/*
 * Asks for the room's members and their display names right after the
 * bot joined: people already there are then known by name before they
 * do anything (a server that lazy-loads members sends their state only
 * with their next event).
 */
void
mx_members_fetch(struct mx_room *room)
{
	struct matrix *m = room->m;

	if (room->members != NULL || m->token == NULL || m->http == NULL)
		return;
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/joined_members",
	    room->id);
	room->members = mx_http_request(m->http, "GET", text_str(&m->url),
	    m->token, NULL, MX_REQUEST_TIMEOUT, on_members, room);
}

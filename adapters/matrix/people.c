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
		p->look = NULL;
	}
	p->state = state;
	/* A member event without a name keeps the one we knew. */
	if (copy != NULL || state == MX_OUT) {
		free(p->name);
		free(p->look);
		p->name = copy;
		p->look = copy != NULL ? mx_name_look(copy) : NULL;
	}
}

/*
 * Characters that show nothing: controls, bidirectional marks and
 * controls, zero-width characters, fillers, variation selectors, tags.
 */
static int
invisible(unsigned int cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xad ||
	    cp == 0x34f || cp == 0x61c || cp == 0x115f || cp == 0x1160 ||
	    cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	    cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff ||
	    cp == 0xffa0 || (cp >= 0xe0000 && cp <= 0xe007f);
}

/* Spaces of any width, which a reader (and HTML) takes for one. */
static int
blank(unsigned int cp)
{
	return cp == ' ' || cp == 0xa0 || cp == 0x1680 ||
	    (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	    cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/*
 * The Latin letter a Cyrillic or Greek letter (or a digit, a bar, a
 * fullwidth form) is read as, or cp itself: the letters of one
 * confusable set all map to one.
 */
static unsigned int
latin_look(unsigned int cp)
{
	/* Pairs of (look-alike, what it is read as). */
	static const uint16_t pairs[][2] = {
		{ '0', 'O' }, { '1', 'l' }, { 'I', 'l' }, { '|', 'l' },
		{ 0x391, 'A' }, { 0x392, 'B' }, { 0x395, 'E' }, { 0x396, 'Z' },
		{ 0x397, 'H' }, { 0x399, 'l' }, { 0x39a, 'K' }, { 0x39c, 'M' },
		{ 0x39d, 'N' }, { 0x39f, 'O' }, { 0x3a1, 'P' }, { 0x3a4, 'T' },
		{ 0x3a5, 'Y' }, { 0x3a7, 'X' }, { 0x3bf, 'o' }, { 0x3bd, 'v' },
		{ 0x405, 'S' }, { 0x406, 'l' }, { 0x408, 'J' }, { 0x410, 'A' },
		{ 0x412, 'B' }, { 0x415, 'E' }, { 0x41a, 'K' }, { 0x41c, 'M' },
		{ 0x41d, 'H' }, { 0x41e, 'O' }, { 0x420, 'P' }, { 0x421, 'C' },
		{ 0x422, 'T' }, { 0x425, 'X' }, { 0x430, 'a' }, { 0x435, 'e' },
		{ 0x43e, 'o' }, { 0x440, 'p' }, { 0x441, 'c' }, { 0x443, 'y' },
		{ 0x445, 'x' }, { 0x455, 's' }, { 0x456, 'i' }, { 0x458, 'j' },
		{ 0x4ae, 'Y' }, { 0x4bb, 'h' }, { 0x4c0, 'l' }, { 0x4cf, 'l' },
		{ 0x501, 'd' }, { 0x51a, 'Q' }, { 0x51b, 'q' }, { 0x51c, 'W' },
		{ 0x51d, 'w' },
	};

	if (cp >= 0xff01 && cp <= 0xff5e)
		cp -= 0xff01 - '!';
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (pairs[i][0] == cp)
			return pairs[i][1];
	return cp;
}

/*
 * Two display names that read the same must get the user id, as Element
 * gives it (matrix-js-sdk compares names without hidden characters and
 * with look-alike letters folded): "Sam", "Sam" + an invisible isolate
 * (which the core strips before anyone sees it) and "Ѕam" with a
 * Cyrillic Ѕ all look like "Sam".  So names are compared by their look:
 * nothing invisible, every run of spaces one space and none at the ends,
 * and look-alike letters as the Latin letter they are read as.
 */
char *
mx_name_look(const char *name)
{
	struct text t;
	int space = 0;

	text_init(&t);
	while (*name != '\0') {
		unsigned int cp = 0xfffd;
		size_t k = text_code_point(name, &cp);
		int broken = k == 0;
		char latin;

		/* A byte that starts no character reads as one U+FFFD. */
		if (broken)
			k = 1;
		if (invisible(cp)) {
			name += k;
			continue;
		}
		if (blank(cp)) {
			space = t.len > 0;
			name += k;
			continue;
		}
		if (space)
			text_addn(&t, " ", 1);
		space = 0;
		/* Every look-alike is read as an ASCII letter or digit. */
		if (latin_look(cp) != cp) {
			latin = (char)latin_look(cp);
			text_addn(&t, &latin, 1);
		} else if (broken) {
			text_add(&t, "\xef\xbf\xbd");
		} else {
			text_addn(&t, name, k);
		}
		name += k;
	}
	return t.buf != NULL ? t.buf : xstrdup("");
}

/*
 * The name user_id goes by in room, as Matrix clients show it: the
 * display name (the user id without one, or when nothing of it shows),
 * followed by " (user_id)" when another member, joined or invited, has
 * a name that looks the same (mx_name_look), or when it looks like a
 * user id itself; so two players called Sam are told apart wherever the
 * core names them.  The caller frees it.
 */
char *
mx_person_label(const struct mx_room *room, const char *user_id)
{
	const struct mx_person *p = mx_person_find(room, user_id);
	const char *at;
	char *label;
	int alike = 0;

	if (p == NULL || p->name == NULL || p->look[0] == '\0')
		return xstrdup(user_id);
	for (int i = 0; i < room->npeople && !alike; i++) {
		const struct mx_person *q = &room->people[i];

		alike = q != p && q->state != MX_OUT && q->look != NULL &&
		    strcmp(q->look, p->look) == 0;
	}
	/* "@alice:example.org" as a name could pass for that user. */
	at = strchr(p->look, '@');
	if (!alike && (at == NULL || strchr(at, ':') == NULL))
		return xstrdup(p->name);
	xasprintf(&label, "%s (%s)", p->name, user_id);
	return label;
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

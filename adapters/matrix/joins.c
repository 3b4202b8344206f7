/*
 * joins.c - the Matrix adapter's joins (matrix_int.h): of the channels the
 * core asks for, named by room id or alias, and of the rooms whose invite
 * was accepted; messages for a room not joined yet, or one that shut the
 * bot out (a kick, a ban, a join refused), wait here.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"

/*
 * What the store remembers of channels' rooms across restarts, as JSON
 * objects under "matrix:NETWORK:WHAT": "upgraded" (an old room id: its
 * replacement) and "shut_out" (a channel name: the room id the bot was
 * kicked or banned from).
 */
static void
record_key(struct matrix *m, const char *what, char *key, size_t keylen)
{
	snprintf(key, keylen, "matrix:%s:%s", mx_net(m), what);
}

void
mx_record_set(struct matrix *m, const char *what, const char *name,
    const char *value)
{
	char key[256], *s;
	json_t *o;

	record_key(m, what, key, sizeof(key));
	o = mx_kv_object(m, key);
	if (value != NULL)
		mx_json_rc(json_object_set_new(o, name,
		    mx_json(json_string(value))));
	else if (json_object_del(o, name) != 0) {
		json_decref(o);
		return;
	}
	if ((s = json_dumps(o, JSON_COMPACT)) == NULL)
		log_error("matrix %s: cannot store %s", mx_net(m), what);
	else
		mx_kv_set(m, key, s);
	free(s);
	json_decref(o);
}

char *
mx_record_get(struct matrix *m, const char *what, const char *name)
{
	char key[256], *copy;
	const char *v;
	json_t *o;

	record_key(m, what, key, sizeof(key));
	o = mx_kv_object(m, key);
	v = json_string_value(json_object_get(o, name));
	copy = v != NULL ? xstrdup(v) : NULL;
	json_decref(o);
	return copy;
}

struct mx_join *
mx_join_find(struct matrix *m, const char *name)
{
	for (struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (strcmp(j->name, name) == 0)
			return j;
	return NULL;
}

void
mx_join_free(struct mx_join *j)
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
	mx_queue_clear(&j->queue);
	free(j->name);
	free(j->room_id);
	free(j->inviter);
	free(j->target);
	free(j->left_behind);
	free(j);
}

struct mx_join *
mx_join_new(struct matrix *m, const char *name, int core)
{
	struct mx_join *j = xcalloc(1, sizeof(*j));

	j->name = xstrdup(name);
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
	mx_join_start(j);
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
	if (mx_ok(res) && room_id != NULL) {
		room = mx_room_get(m, room_id);
		copy = xstrdup(room_id);
		free(j->room_id);
		j->room_id = copy;
		log_info("matrix %s: joined %s (%s)", mx_net(m), j->name,
		    room_id);
		room->joined = 1;
		mx_person_set(room, m->cfg.user_id, MX_JOINED, NULL);
		if (!j->core && j->is_direct)
			room->is_direct = 1;
		mx_members_fetch(room);
		j->done = 1;
		j->attempt = 0;
		mx_room_take(room, &j->queue);
		/* Back in by an invitation: the kick is forgiven. */
		if (j->core && j->shut_recorded) {
			j->shut_recorded = 0;
			mx_record_set(m, "shut_out", j->name, NULL);
		}
		/*
		 * In: after a kick the table resumes behind the lines that
		 * waited (said at every join, so that nothing the core
		 * remembers of a kick outlives this channel's state here).
		 */
		if (j->core)
			adapter_inside(m->adapter, j->name, 1);
		/* Back in, a room that refused us is asked again now. */
		mx_room_retry_now(room);
		/* In the replacement of an upgraded room: leave the old one. */
		if (j->left_behind != NULL) {
			struct mx_room *old = mx_room_find(m, j->left_behind);

			free(j->left_behind);
			j->left_behind = NULL;
			if (old != NULL && old->leaving == NULL &&
			    mx_channel_of_room(m, old->id) == NULL) {
				if (old->queue.n > 0)
					old->parting = 1;
				else
					mx_room_leave(old);
			}
		}
		if (!j->core) {
			if (j->is_direct && j->inviter != NULL) {
				mx_direct_record(m, j->inviter, room_id);
				/*
				 * Its state may have come before we knew
				 * whose it is: someone else in it, or open.
				 */
				mx_dm_shared(m, room);
			}
			mx_join_free(j);
		}
		mx_room_kick(room);
		mx_sync_release(m);
		return;
	}
	switch (mx_failed(m, res, why, sizeof(why))) {
	case MX_RELOGIN:
		return;
	case MX_REFUSED:
		log_error("matrix %s: cannot join %s: %s", mx_net(m), j->name,
		    why);
		if (!j->core) {
			mx_queue_drop(m, &j->queue, j->name);
			mx_join_free(j);
		} else {
			/*
			 * A channel's messages wait for an invitation (a
			 * restart while the bot is banned): the store keeps
			 * them, and so do we.
			 */
			j->failed = 1;
			if (j->queue.n > 0)
				log_warn("matrix %s: %d messages for %s wait "
				    "until the bot is invited", mx_net(m),
				    j->queue.n, j->name);
		}
		mx_rooms_kick(m);
		mx_sync_release(m);
		return;
	case MX_RETRY:
		break;
	}
	delay = mx_retry_delay(m, res, &j->attempt, MX_RETRY_BASE,
	    MX_RETRY_MAX);
	log_warn("matrix %s: cannot join %s (%s); retrying in %llu ms",
	    mx_net(m), j->name, why, (unsigned long long)delay);
	j->timer = loop_timer(m->loop, delay, on_join_timer, j);
	/* Not joined, the room cannot have news for us meanwhile. */
	mx_sync_release(m);
}

void
mx_join_start(struct mx_join *j)
{
	struct matrix *m = j->m;

	if (m->token == NULL || m->http == NULL || j->req != NULL ||
	    j->timer != 0)
		return;
	mx_url(&m->url, m->cfg.homeserver, MX_API "/join/%s",
	    j->target != NULL ? j->target : j->name);
	j->req = mx_http_request(m->http, "POST", text_str(&m->url), m->token,
	    NULL, MX_REQUEST_TIMEOUT, on_joined, j);
	if (j->req == NULL)
		j->timer = loop_timer(m->loop, MX_RETRY_MAX, on_join_timer, j);
}

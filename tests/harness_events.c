/*
 * harness_events.c - the stub core the adapter harnesses share: each
 * listener callback prints its event as one JSON line (harness_events.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness_events.h"

void
emit(json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT);

	if (s != NULL) {
		printf("%s\n", s);
		fflush(stdout);
		free(s);
	}
	json_decref(obj);
}

json_t *
user_json(const struct user *u)
{
	json_t *o = json_pack("{s:s, s:s}", "id", u->id, "name", u->name);

	/* Only when set, so that most tests compare two or three fields. */
	if (o != NULL && u->mask != NULL)
		json_object_set_new(o, "mask", json_string(u->mask));
	if (o != NULL && u->guest)
		json_object_set_new(o, "guest", json_true());
	return o;
}

void
harness_print_message(const char *channel, const struct user *from,
    const char *text)
{
	emit(json_pack("{s:s, s:s?, s:o, s:s}", "event", "message",
	    "channel", channel, "from", user_json(from), "text", text));
}

static void
print_message(void *data, struct adapter *adapter, const char *channel,
    const struct user *from, const char *text)
{
	(void)data;
	(void)adapter;
	harness_print_message(channel, from, text);
}

static void
print_edited(void *data, struct adapter *adapter, const char *channel,
    const struct user *from, const char *text)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:s?, s:o, s:s}", "event", "edited",
	    "channel", channel, "from", user_json(from), "text", text));
}

static void
print_join(void *data, struct adapter *adapter, const char *channel,
    const struct user *who)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:s?, s:o}", "event", "join", "channel",
	    channel, "user", user_json(who)));
}

static void
print_leave(void *data, struct adapter *adapter, const char *channel,
    const struct user *who)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:s?, s:o}", "event", "leave", "channel",
	    channel, "user", user_json(who)));
}

static void
print_rename(void *data, struct adapter *adapter, const char *old_id,
    const struct user *now)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:s, s:o}", "event", "rename", "old_id",
	    old_id, "user", user_json(now)));
}

static void
print_sent(void *data, struct adapter *adapter, uint64_t id)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:I}", "event", "sent", "id",
	    (json_int_t)id));
}

static void
print_connected(void *data, struct adapter *adapter, int up)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:b}", "event", "connected", "up", up));
}

static void
print_private_lost(void *data, struct adapter *adapter,
    const struct user *who)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:o}", "event", "private_lost", "user",
	    user_json(who)));
}

static void
print_members(void *data, struct adapter *adapter, const char *channel,
    const struct user *members, size_t n)
{
	json_t *users = json_array();

	(void)data;
	(void)adapter;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(users, user_json(&members[i]));
	emit(json_pack("{s:s, s:s, s:o}", "event", "members",
	    "channel", channel, "users", users));
}

static void
print_inside(void *data, struct adapter *adapter, const char *channel,
    int in)
{
	(void)data;
	(void)adapter;
	emit(json_pack("{s:s, s:s, s:b}", "event", "inside", "channel",
	    channel, "in", in));
}

/* The adapters run in the harness's loop: nothing to hand over. */
static void
print_flush(void *data)
{
	(void)data;
}

void
harness_listener_init(struct adapter_listener *out,
    void (*message)(void *data, struct adapter *adapter,
    const char *channel, const struct user *from, const char *text))
{
	out->message = message != NULL ? message : print_message;
	out->edited = print_edited;
	out->join = print_join;
	out->leave = print_leave;
	out->rename = print_rename;
	out->sent = print_sent;
	out->connected = print_connected;
	out->private_lost = print_private_lost;
	out->members = print_members;
	out->inside = print_inside;
	out->flush = print_flush;
}

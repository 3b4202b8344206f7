/*
 * proto.c - the pure parts of the Matrix adapter (proto.h).
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cfg.h"
#include "config.h"
#include "proto.h"
#include "xmalloc.h"

static const char *const mx_keys[] = {
	"homeserver", "user_id", "password_file", "access_token_file",
	"device_id", "device_name", "invites", "sync_timeout_ms", "outage_ms",
	NULL,
};

static const char *const mx_invite_keys[] = {
	"allow_users", "allow_servers", NULL,
};

static int
mx_strdup(char **out, const char *s)
{
	if (s == NULL) {
		*out = NULL;
		return 0;
	}
	*out = xstrdup(s);
	return 0;
}

int
mx_user_id_valid(const char *s)
{
	const char *colon;

	if (s == NULL || s[0] != '@')
		return 0;
	colon = strchr(s, ':');
	if (colon == NULL || colon == s + 1 || colon[1] == '\0')
		return 0;
	for (const char *p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

const char *
mx_server_name(const char *id)
{
	const char *colon = id != NULL ? strchr(id, ':') : NULL;

	return colon != NULL ? colon + 1 : "";
}

/* 1 when url is http:// or https:// followed by a host. */
static int
mx_url_valid(const char *url)
{
	const char *host;

	if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else
		return 0;
	if (*host == '\0' || *host == '/')
		return 0;
	for (const char *p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '?' ||
		    *p == '#')
			return 0;
	return 1;
}

int
mx_config_parse(const json_t *network, const char *path,
    struct mx_config *cfg, char *err, size_t errlen)
{
	const char *homeserver, *user_id, *s;
	const json_t *invites, *list;
	char where[256];
	long long n;
	size_t len;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sync_timeout_ms = 30000;
	cfg->outage_ms = 30000;
	if (cfg_keys(network, path, mx_keys, config_network_keys, err,
	    errlen) != 0)
		return -1;
	if (cfg_string(network, path, "homeserver", 1, &homeserver, err,
	    errlen) != 0)
		return -1;
	if (!mx_url_valid(homeserver))
		return cfg_fail(err, errlen, path, "homeserver",
		    "expected an http:// or https:// URL");
	if (cfg_string(network, path, "user_id", 1, &user_id, err,
	    errlen) != 0)
		return -1;
	if (!mx_user_id_valid(user_id))
		return cfg_fail(err, errlen, path, "user_id",
		    "expected a Matrix user id like @bot:example.org");
	if (mx_strdup(&cfg->homeserver, homeserver) != 0 ||
	    mx_strdup(&cfg->user_id, user_id) != 0)
		return cfg_fail(err, errlen, path, NULL, "out of memory");
	/* Requests append "/_matrix/...": drop trailing slashes. */
	len = strlen(cfg->homeserver);
	while (len > 0 && cfg->homeserver[len - 1] == '/')
		cfg->homeserver[--len] = '\0';

	rc = cfg_string(network, path, "device_id", 0, &s, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0 && (*s == '\0' || mx_strdup(&cfg->device_id, s) != 0))
		return cfg_fail(err, errlen, path, "device_id",
		    "expected a non-empty string");
	s = "stichbot";
	if (cfg_string(network, path, "device_name", 0, &s, err, errlen) < 0)
		return -1;
	if (mx_strdup(&cfg->device_name, s) != 0)
		return cfg_fail(err, errlen, path, NULL, "out of memory");

	rc = cfg_int(network, path, "sync_timeout_ms", 1000, 120000, 0, &n,
	    err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0)
		cfg->sync_timeout_ms = (int)n;
	rc = cfg_int(network, path, "outage_ms", 1000, 600000, 0, &n, err,
	    errlen);
	if (rc < 0)
		return -1;
	if (rc == 0)
		cfg->outage_ms = (int)n;

	cfg->allow_users = json_array();
	cfg->allow_servers = json_array();
	if (cfg->allow_users == NULL || cfg->allow_servers == NULL)
		return cfg_fail(err, errlen, path, NULL, "out of memory");
	invites = json_object_get(network, "invites");
	if (invites != NULL) {
		cfg_path(where, sizeof(where), path, "invites");
		if (cfg_keys(invites, where, mx_invite_keys, NULL, err,
		    errlen) != 0)
			return -1;
		if ((rc = cfg_strings(invites, where, "allow_users", 0, &list,
		    err, errlen)) < 0)
			return -1;
		if (rc == 0)
			json_array_extend(cfg->allow_users, (json_t *)list);
		if ((rc = cfg_strings(invites, where, "allow_servers", 0,
		    &list, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			json_array_extend(cfg->allow_servers, (json_t *)list);
	}

	/* Secrets last, so a typo elsewhere is reported before a file. */
	if (json_object_get(network, "password_file") != NULL &&
	    json_object_get(network, "access_token_file") != NULL)
		return cfg_fail(err, errlen, path, NULL,
		    "password_file and access_token_file exclude each other");
	if (json_object_get(network, "password_file") == NULL &&
	    json_object_get(network, "access_token_file") == NULL)
		return cfg_fail(err, errlen, path, NULL,
		    "expected password_file or access_token_file");
	if (cfg_secret(network, path, "password_file", 0, &cfg->password, err,
	    errlen) < 0)
		return -1;
	if (cfg_secret(network, path, "access_token_file", 0,
	    &cfg->access_token, err, errlen) < 0)
		return -1;
	return 0;
}

void
mx_config_finish(struct mx_config *cfg)
{
	free(cfg->homeserver);
	free(cfg->user_id);
	cfg_secret_free(cfg->password);
	cfg_secret_free(cfg->access_token);
	free(cfg->device_id);
	free(cfg->device_name);
	json_decref(cfg->allow_users);
	json_decref(cfg->allow_servers);
	memset(cfg, 0, sizeof(*cfg));
}

void
mx_escape(struct text *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; *p != '\0';
	    p++) {
		char buf[3];

		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~') {
			text_addn(out, (const char *)p, 1);
			continue;
		}
		buf[0] = '%';
		buf[1] = hex[*p >> 4];
		buf[2] = hex[*p & 15];
		text_addn(out, buf, 3);
	}
}

void
mx_url(struct text *out, const char *base, const char *path, ...)
{
	va_list ap;
	const char *p, *mark;

	text_clear(out);
	text_add(out, base);
	va_start(ap, path);
	for (p = path; (mark = strstr(p, "%s")) != NULL; p = mark + 2) {
		text_addn(out, p, (size_t)(mark - p));
		mx_escape(out, va_arg(ap, const char *));
	}
	va_end(ap);
	text_add(out, p);
}

void
mx_url_param(struct text *out, const char *key, const char *value)
{
	text_add(out, strchr(text_str(out), '?') != NULL ? "&" : "?");
	mx_escape(out, key);
	text_add(out, "=");
	mx_escape(out, value);
}

void
mx_txn_id(char *out, size_t outlen, uint64_t epoch, uint64_t counter)
{
	snprintf(out, outlen, "stichbot.%llx.%llu", (unsigned long long)epoch,
	    (unsigned long long)counter);
}

void
mx_txn_id_outbox(char *out, size_t outlen, const char *prefix, uint64_t id)
{
	snprintf(out, outlen, "stichbot.o.%s.%llu", prefix,
	    (unsigned long long)id);
}

uint64_t
mx_backoff(unsigned attempt, uint64_t base, uint64_t max, uint64_t rnd)
{
	uint64_t d = base > 0 ? base : 1;

	for (unsigned i = 0; i < attempt && d < max; i++)
		d *= 2;
	if (d > max)
		d = max;
	return d - d / 2 + rnd % (d / 2 + 1);
}

json_t *
mx_mentions(const struct text *t)
{
	const char *s = text_str(t), *end = s + t->len;
	json_t *ids = NULL;

	while ((s = memchr(s, TEXT_MENTION, (size_t)(end - s))) != NULL) {
		const char *sep = memchr(s + 1, TEXT_SEP,
		    (size_t)(end - s - 1));
		const char *close = memchr(s + 1, TEXT_MENTION,
		    (size_t)(end - s - 1));
		json_t *id, *seen;
		size_t i;
		int dup = 0;

		/* A cut mark ends the text, as in text_render(). */
		if (sep == NULL || close == NULL || sep > close)
			break;
		id = json_stringn(s + 1, (size_t)(sep - s - 1));
		if (id == NULL)
			break;
		if (ids == NULL && (ids = json_array()) == NULL) {
			json_decref(id);
			break;
		}
		json_array_foreach(ids, i, seen)
			if (json_equal(seen, id))
				dup = 1;
		if (dup || json_string_length(id) == 0)
			json_decref(id);
		else
			json_array_append_new(ids, id);
		s = close + 1;
	}
	if (ids != NULL && json_array_size(ids) == 0) {
		json_decref(ids);
		ids = NULL;
	}
	return ids;
}

json_t *
mx_message_content(const struct text *t, const char *msgtype)
{
	struct text plain, html;
	json_t *content, *mentions;

	text_init(&plain);
	text_init(&html);
	text_render(t, TEXT_FORMAT_PLAIN, &plain);
	text_render(t, TEXT_FORMAT_HTML, &html);
	content = json_pack("{s:s, s:s%, s:s, s:s%}",
	    "msgtype", msgtype,
	    "body", text_str(&plain), plain.len,
	    "format", "org.matrix.custom.html",
	    "formatted_body", text_str(&html), html.len);
	text_finish(&plain);
	text_finish(&html);
	if (content == NULL)
		return NULL;
	if ((mentions = mx_mentions(t)) != NULL &&
	    json_object_set_new(content, "m.mentions",
	    json_pack("{s:o}", "user_ids", mentions)) != 0) {
		json_decref(content);
		return NULL;
	}
	return content;
}

json_t *
mx_line_content(const struct text *t, const char *private_to)
{
	json_t *content, *mentions, *ids;
	size_t i;
	json_t *id;
	int listed = 0;

	if ((mentions = mx_mentions(t)) == NULL && private_to == NULL)
		return mx_message_content(t, "m.notice");
	json_decref(mentions);
	if ((content = mx_message_content(t, "m.text")) == NULL)
		return NULL;
	if (private_to == NULL)
		return content;
	/* The recipient of a private line is mentioned as well. */
	ids = json_object_get(json_object_get(content, "m.mentions"),
	    "user_ids");
	json_array_foreach(ids, i, id)
		if (strcmp(json_string_value(id), private_to) == 0)
			listed = 1;
	if (listed)
		return content;
	if (ids != NULL) {
		if (json_array_append_new(ids, json_string(private_to)) == 0)
			return content;
	} else if (json_object_set_new(content, "m.mentions",
	    json_pack("{s:[s]}", "user_ids", private_to)) == 0) {
		return content;
	}
	json_decref(content);
	return NULL;
}

const char *
mx_message_text(const json_t *content)
{
	const char *body = json_string_value(json_object_get(content, "body"));
	const json_t *relates = json_object_get(content, "m.relates_to");
	const char *p;

	if (body == NULL)
		return "";
	if (json_object_get(relates, "m.in_reply_to") == NULL ||
	    strncmp(body, "> ", 2) != 0)
		return body;
	/* Skip the quoted lines, then the one empty line after them. */
	p = body;
	while (strncmp(p, "> ", 2) == 0 || strncmp(p, ">\n", 2) == 0) {
		const char *nl = strchr(p, '\n');

		if (nl == NULL)
			return body;
		p = nl + 1;
	}
	if (*p == '\n')
		p++;
	return p;
}

int
mx_direct_has(const json_t *direct, const char *user_id, const char *room_id)
{
	const json_t *rooms = json_object_get(direct, user_id), *room;
	size_t i;

	json_array_foreach(rooms, i, room)
		if (json_is_string(room) &&
		    strcmp(json_string_value(room), room_id) == 0)
			return 1;
	return 0;
}

int
mx_direct_add(json_t *direct, const char *user_id, const char *room_id)
{
	json_t *rooms;

	if (!json_is_object(direct))
		return -1;
	if (mx_direct_has(direct, user_id, room_id))
		return 0;
	rooms = json_object_get(direct, user_id);
	if (!json_is_array(rooms)) {
		/* Another client wrote garbage there: a list replaces it. */
		if ((rooms = json_array()) == NULL ||
		    json_object_set_new(direct, user_id, rooms) != 0)
			return -1;
	}
	return json_array_append_new(rooms, json_string(room_id)) == 0 ? 1 : -1;
}

int
mx_invite_allowed(const char *sender, const json_t *allow_users,
    const json_t *allow_servers)
{
	const char *server = mx_server_name(sender);
	const json_t *v;
	size_t i;

	if (!mx_user_id_valid(sender))
		return 0;
	json_array_foreach(allow_users, i, v)
		if (json_is_string(v) &&
		    fnmatch(json_string_value(v), sender, 0) == 0)
			return 1;
	json_array_foreach(allow_servers, i, v)
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), server) == 0)
			return 1;
	return 0;
}

/* Appends one event; 0, or -1 when memory runs out. */
static int
mx_sync_add(struct mx_sync *out, const struct mx_event *ev)
{
	if (array_grow((void **)&out->events, &out->cap, out->n + 1,
	    sizeof(*ev)) != 0)
		return -1;
	out->events[out->n++] = *ev;
	return 0;
}

static const json_t *
mx_get2(const json_t *obj, const char *a, const char *b)
{
	return json_object_get(json_object_get(obj, a), b);
}

/* Appends the well-formed events of array events (borrowed). */
static int
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
		if (mx_sync_add(out, &ev) != 0)
			return -1;
	}
	return 0;
}

static int
mx_sync_marker(struct mx_sync *out, enum mx_section section,
    const char *room_id)
{
	struct mx_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.section = section;
	ev.room_id = room_id;
	return mx_sync_add(out, &ev);
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
	if (mx_sync_events(out, mx_get2(response, "account_data", "events"),
	    MX_ACCOUNT_DATA, NULL) != 0)
		goto nomem;
	json_object_foreach((json_t *)json_object_get(rooms, "join"), room_id,
	    room) {
		const json_t *timeline = json_object_get(room, "timeline");

		if (mx_sync_events(out, mx_get2(room, "state", "events"),
		    MX_STATE, room_id) != 0)
			goto nomem;
		if (json_is_true(json_object_get(timeline, "limited")) &&
		    mx_sync_marker(out, MX_GAP, room_id) != 0)
			goto nomem;
		if (mx_sync_events(out, json_object_get(timeline, "events"),
		    MX_TIMELINE, room_id) != 0)
			goto nomem;
	}
	json_object_foreach((json_t *)json_object_get(rooms, "invite"),
	    room_id, room) {
		if (mx_sync_events(out, mx_get2(room, "invite_state", "events"),
		    MX_INVITE_STATE, room_id) != 0 ||
		    mx_sync_marker(out, MX_INVITED, room_id) != 0)
			goto nomem;
	}
	json_object_foreach((json_t *)json_object_get(rooms, "leave"), room_id,
	    room) {
		if (mx_sync_events(out, mx_get2(room, "state", "events"),
		    MX_LEFT_EVENT, room_id) != 0 ||
		    mx_sync_events(out, mx_get2(room, "timeline", "events"),
		    MX_LEFT_EVENT, room_id) != 0 ||
		    mx_sync_marker(out, MX_LEFT, room_id) != 0)
			goto nomem;
	}
	return 0;
nomem:
	mx_sync_finish(out);
	snprintf(err, errlen, "out of memory");
	return -1;
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

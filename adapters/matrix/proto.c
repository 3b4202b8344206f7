/*
 * proto.c - the pure protocol helpers of the Matrix adapter (proto.h):
 * ids, URLs, transaction ids, message contents, m.direct
 * contents and who may invite the bot.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "json.h"
#include "proto.h"

int
mx_user_id_valid(const char *s)
{
	const char *colon;
	size_t n;

	if (s == NULL || s[0] != '@')
		return 0;
	colon = strchr(s, ':');
	if (colon == NULL || colon == s + 1 || colon[1] == '\0')
		return 0;
	/*
	 * Valid UTF-8 without spaces or control characters: a user id is
	 * then safe in a URL, a log line and every jansson string (json.h).
	 */
	for (const char *p = s; *p != '\0'; p += n)
		if (*p == ' ' || (n = text_char_length(p)) == 0)
			return 0;
	return 1;
}

const char *
mx_server_name(const char *id)
{
	const char *colon = id != NULL ? strchr(id, ':') : NULL;

	return colon != NULL ? colon + 1 : "";
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

void
mx_txn_id_notice(char *out, size_t outlen, const char *prefix,
    const char *kind, const char *room_id)
{
	/* Hashed: room ids hold characters a transaction id must not. */
	snprintf(out, outlen, "stichbot.n.%s.%s.%016llx", prefix, kind,
	    (unsigned long long)hash_scoped(NULL, room_id, 0));
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
		/* Not UTF-8 (a mark forged past text_user()): the end. */
		id = mx_json_pack("s%", s + 1, (size_t)(sep - s - 1));
		if (id == NULL)
			break;
		if (ids == NULL)
			ids = mx_json(json_array());
		json_array_foreach(ids, i, seen)
			if (json_equal(seen, id))
				dup = 1;
		if (dup || json_string_length(id) == 0)
			json_decref(id);
		else
			mx_json_rc(json_array_append_new(ids, id));
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
	content = mx_json_pack("{s:s, s:s%, s:s, s:s%}",
	    "msgtype", msgtype,
	    "body", text_str(&plain), plain.len,
	    "format", "org.matrix.custom.html",
	    "formatted_body", text_str(&html), html.len);
	text_finish(&plain);
	text_finish(&html);
	if (content == NULL)
		return NULL;
	if ((mentions = mx_mentions(t)) != NULL)
		mx_json_rc(json_object_set_new(content, "m.mentions",
		    mx_json(json_pack("{s:o}", "user_ids", mentions))));
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
	if (ids != NULL)
		mx_json_rc(json_array_append_new(ids,
		    mx_json(json_string(private_to))));
	else
		mx_json_rc(json_object_set_new(content, "m.mentions",
		    mx_json(json_pack("{s:[s]}", "user_ids", private_to))));
	return content;
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
		rooms = mx_json(json_array());
		mx_json_rc(json_object_set_new(direct, user_id, rooms));
	}
	mx_json_rc(json_array_append_new(rooms, mx_json(json_string(room_id))));
	return 1;
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

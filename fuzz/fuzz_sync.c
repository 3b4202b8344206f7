/*
 * fuzz_sync.c - libFuzzer target: the pure parts of the Matrix adapter
 * (adapters/matrix/parse.h and proto.h) on arbitrary JSON, read as a /sync
 * response.
 *
 * The input is mended and parsed as adapters/matrix/http.c reads a
 * response body.
 * Checked, besides memory safety and leaks:
 *   - mx_sync_parse() gives exactly the well-formed events of the response
 *     in the documented order (account data; per joined room its state, a
 *     gap marker when limited, its timeline; invited rooms; left rooms),
 *     each string pointing at the response's own string (or key);
 *   - mx_sync_mark_history() marks only timeline events, each before the
 *     account's own join in the same room, and everything before a join
 *     that has no invite in front of it;
 *   - mx_member_parse() and mx_message_text() give strings of the content
 *     (or ""), the text being the end of the body;
 *   - the seen-events ring finds every id seen within its size;
 *   - mx_direct_add() adds the room to the user's list and keeps every
 *     other entry (and the user's earlier rooms) as they were;
 *   - URLs: each "%s" argument and query value percent-encodes to one
 *     segment of unreserved characters and %XX only, which decodes back;
 *   - user ids, server names, invite globs, transaction ids, backoff and
 *     message contents with mentions keep their documented promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_check.h"
#include "loop.h"
#include "matrix/parse.h"
#include "matrix/proto.h"
#include "text.h"

#define BOT "@stichbot:example.org"
#define HOMESERVER "https://matrix.example.org"

/* ------------------------------------------------------------------ */
/* The expected events, read from the response independently. */

struct want {
	enum mx_section section;
	const char *room_id;
	const json_t *event;     /* NULL for a marker */
};

struct wants {
	struct want *v;
	int n, cap;
};

static void
want_add(struct wants *w, enum mx_section section, const char *room_id,
    const json_t *event)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		w->v = realloc(w->v, (size_t)w->cap * sizeof(*w->v));
		CHECK(w->v != NULL);
	}
	w->v[w->n].section = section;
	w->v[w->n].room_id = room_id;
	w->v[w->n].event = event;
	w->n++;
}

/* Events with a string type and an object (or no) content are kept. */
static void
want_events(struct wants *w, const json_t *events, enum mx_section section,
    const char *room_id)
{
	size_t i;
	const json_t *e;

	if (!json_is_array(events))
		return;
	json_array_foreach(events, i, e) {
		const json_t *content = json_object_get(e, "content");

		if (!json_is_string(json_object_get(e, "type")))
			continue;
		if (content != NULL && !json_is_object(content))
			continue;
		want_add(w, section, room_id, e);
	}
}

static const json_t *
get2(const json_t *obj, const char *a, const char *b)
{
	return json_object_get(json_object_get(obj, a), b);
}

static void
want_all(struct wants *w, const json_t *response)
{
	const json_t *rooms = json_object_get(response, "rooms"), *room;
	const char *id;

	want_events(w, get2(response, "account_data", "events"),
	    MX_ACCOUNT_DATA, NULL);
	json_object_foreach((json_t *)json_object_get(rooms, "join"), id,
	    room) {
		const json_t *timeline = json_object_get(room, "timeline");

		want_events(w, get2(room, "state", "events"), MX_STATE, id);
		if (json_is_true(json_object_get(timeline, "limited")))
			want_add(w, MX_GAP, id, NULL);
		want_events(w, json_object_get(timeline, "events"),
		    MX_TIMELINE, id);
	}
	json_object_foreach((json_t *)json_object_get(rooms, "invite"), id,
	    room) {
		want_events(w, get2(room, "invite_state", "events"),
		    MX_INVITE_STATE, id);
		want_add(w, MX_INVITED, id, NULL);
	}
	json_object_foreach((json_t *)json_object_get(rooms, "leave"), id,
	    room) {
		want_events(w, get2(room, "state", "events"), MX_LEFT_EVENT, id);
		want_events(w, get2(room, "timeline", "events"), MX_LEFT_EVENT,
		    id);
		want_add(w, MX_LEFT, id, NULL);
	}
}

/* The string value of key in e, as a pointer into the response. */
static const char *
str_of(const json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

static void
check_events(const json_t *response, const struct mx_sync *sync)
{
	struct wants w = { NULL, 0, 0 };

	CHECK(sync->next_batch ==
	    json_string_value(json_object_get(response, "next_batch")));
	want_all(&w, response);
	CHECK(sync->n == w.n);
	for (int i = 0; i < w.n; i++) {
		const struct mx_event *ev = &sync->events[i];
		const json_t *e = w.v[i].event;
		const json_t *ts;

		CHECK(ev->section == w.v[i].section);
		CHECK(ev->room_id == w.v[i].room_id);
		CHECK(ev->history == 0);
		if (e == NULL) {
			CHECK(ev->type == NULL && ev->event_id == NULL &&
			    ev->sender == NULL && ev->state_key == NULL &&
			    ev->content == NULL && ev->ts == 0);
			continue;
		}
		CHECK(ev->type != NULL && ev->type == str_of(e, "type"));
		CHECK(ev->event_id == str_of(e, "event_id"));
		CHECK(ev->sender == str_of(e, "sender"));
		CHECK(ev->state_key == str_of(e, "state_key"));
		CHECK(ev->content == json_object_get(e, "content"));
		ts = json_object_get(e, "origin_server_ts");
		CHECK(ev->ts == (json_is_integer(ts) ?
		    (int64_t)json_integer_value(ts) : 0));
		CHECK(ev->prev_membership == str_of(get2(e, "unsigned",
		    "prev_content"), "membership"));
	}
	free(w.v);
}

/* ------------------------------------------------------------------ */
/* History. */

static int
joined_before(const char *room_id, void *arg)
{
	unsigned salt = *(const unsigned *)arg;

	CHECK(room_id != NULL);
	/* Some rooms the adapter has seen joined, decided by the id. */
	return ((unsigned char)room_id[0] + strlen(room_id) + salt) % 3 == 0;
}

/* The membership an own m.room.member timeline event gives, or NULL. */
static const char *
own(const struct mx_event *ev, const char *user_id)
{
	if (ev->section != MX_TIMELINE || ev->type == NULL ||
	    strcmp(ev->type, "m.room.member") != 0 || ev->state_key == NULL ||
	    strcmp(ev->state_key, user_id) != 0)
		return NULL;
	return str_of(ev->content, "membership");
}

/* Whether events a and b are in the same room's timeline run. */
static int
same_run(const struct mx_sync *s, int a, int b)
{
	for (int i = a; i <= b; i++)
		if (s->events[i].section != MX_TIMELINE ||
		    strcmp(s->events[i].room_id, s->events[a].room_id) != 0)
			return 0;
	return 1;
}

static void
check_history(struct mx_sync *sync, const char *user_id, unsigned salt)
{
	for (int i = 0; i < sync->n; i++)
		sync->events[i].history = 0;
	mx_sync_mark_history(sync, user_id, joined_before, &salt);
	for (int i = 0; i < sync->n; i++) {
		const struct mx_event *ev = &sync->events[i];
		const char *mem = own(ev, user_id);
		int found = 0, invited = 0;

		CHECK(ev->history == 0 || ev->history == 1);
		if (ev->history) {
			/* A later own join in the same timeline. */
			CHECK(ev->section == MX_TIMELINE);
			for (int j = i + 1; j < sync->n && same_run(sync, i, j);
			    j++) {
				const char *m = own(&sync->events[j], user_id);

				found |= m != NULL && strcmp(m, "join") == 0;
			}
			CHECK(found);
		}
		/* A first join without an invite: all before it is history. */
		if (mem == NULL || strcmp(mem, "join") != 0 ||
		    (ev->prev_membership != NULL &&
		    strcmp(ev->prev_membership, "join") == 0) ||
		    joined_before(ev->room_id, &salt))
			continue;
		for (int j = i - 1; j >= 0 && same_run(sync, j, i); j--) {
			const char *m = own(&sync->events[j], user_id);

			invited |= m != NULL && strcmp(m, "invite") == 0;
		}
		if (invited)
			continue;
		for (int j = i - 1; j >= 0 && same_run(sync, j, i); j--)
			CHECK(sync->events[j].history == 1);
	}
}

/* ------------------------------------------------------------------ */
/* Contents. */

static void
check_content(const struct mx_event *ev)
{
	struct mx_member mem;
	const char *text, *body;

	if (ev->content == NULL)
		return;
	mx_member_parse(ev->content, &mem);
	CHECK(mem.membership != NULL);
	if (mem.membership[0] != '\0')
		CHECK(mem.membership == str_of(ev->content, "membership"));
	if (mem.displayname != NULL) {
		CHECK(mem.displayname == str_of(ev->content, "displayname"));
		CHECK(mem.displayname[0] != '\0');
	}
	CHECK(mem.is_direct == 0 || mem.is_direct == 1);
	text = mx_message_text(ev->content);
	body = str_of(ev->content, "body");
	CHECK(text != NULL);
	if (body == NULL) {
		CHECK(text[0] == '\0');
	} else {
		/* The end of the body: a reply's quote is cut off the front. */
		size_t blen = strlen(body);

		CHECK(text >= body && text <= body + blen);
		CHECK(text == body || text[-1] == '\n');
	}
}

/* The seen ring finds every id checked within its last MX_SEEN_MAX calls. */
static void
check_seen(const struct mx_sync *sync)
{
	static struct mx_seen seen;
	const char **ids;
	int *when, n = 0, calls = 0;

	ids = calloc((size_t)sync->n + 1, sizeof(*ids));
	when = calloc((size_t)sync->n + 1, sizeof(*when));
	CHECK(ids != NULL && when != NULL);
	mx_seen_init(&seen);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < sync->n && i < 512; i++) {
			const char *id = sync->events[i].event_id;
			int k, found;

			if (id == NULL)
				continue;
			found = mx_seen_check(&seen, id);
			for (k = 0; k < n && strcmp(ids[k], id) != 0; k++)
				;
			if (k < n && calls - when[k] <= MX_SEEN_MAX)
				CHECK(found == 1);
			if (k == n) {
				ids[n] = id;
				n++;
			}
			when[k] = calls++;
			/* Asked again at once, it is always there. */
			CHECK(mx_seen_check(&seen, id) == 1);
			when[k] = calls++;
		}
	}
	free(ids);
	free(when);
}

/* ------------------------------------------------------------------ */
/* m.direct. */

static void
check_direct_add(json_t *direct, const char *user_id, const char *room_id)
{
	json_t *before = json_deep_copy(direct);
	json_t *had = json_object_get(before, user_id);
	json_t *now;
	const char *key;
	json_t *value;
	int has = mx_direct_has(direct, user_id, room_id);
	int rc;

	CHECK(before != NULL);
	rc = mx_direct_add(direct, user_id, room_id);
	CHECK(rc == (has ? 0 : 1));
	CHECK(mx_direct_has(direct, user_id, room_id) == 1);
	CHECK(json_object_size(direct) == json_object_size(before) +
	    (had == NULL ? 1 : 0));
	/* Every other user's entry is as it was. */
	json_object_foreach(before, key, value) {
		if (strcmp(key, user_id) != 0)
			CHECK(json_equal(value, json_object_get(direct, key)));
	}
	now = json_object_get(direct, user_id);
	CHECK(json_is_array(now));
	if (rc == 0) {
		CHECK(json_equal(now, had));
	} else if (json_is_array(had)) {
		/* The earlier rooms stay, in order; the new one comes last. */
		CHECK(json_array_size(now) == json_array_size(had) + 1);
		for (size_t i = 0; i < json_array_size(had); i++)
			CHECK(json_equal(json_array_get(now, i),
			    json_array_get(had, i)));
	} else {
		CHECK(json_array_size(now) == 1);
	}
	CHECK(strcmp(json_string_value(json_array_get(now,
	    json_array_size(now) - 1)), room_id) == 0 || rc == 0);
	json_decref(before);
}

static void
check_direct(const json_t *response, const struct mx_sync *sync)
{
	const json_t *source = json_object_get(response, "direct");
	json_t *direct;
	int pairs = 0;

	for (int i = 0; i < sync->n; i++)
		if (sync->events[i].section == MX_ACCOUNT_DATA &&
		    strcmp(sync->events[i].type, "m.direct") == 0 &&
		    sync->events[i].content != NULL)
			source = sync->events[i].content;
	direct = json_is_object(source) ? json_deep_copy(source) :
	    json_object();
	CHECK(direct != NULL);
	/* Not an object: refused, nothing changed. */
	CHECK(mx_direct_add(NULL, BOT, "!r:example.org") == -1);
	for (int i = 0; i < sync->n && pairs < 8; i++) {
		const struct mx_event *ev = &sync->events[i];

		if (ev->sender == NULL || ev->room_id == NULL)
			continue;
		check_direct_add(direct, ev->sender, ev->room_id);
		pairs++;
	}
	check_direct_add(direct, BOT, "!new:example.org");
	check_direct_add(direct, BOT, "!new:example.org");
	json_decref(direct);
}

/* ------------------------------------------------------------------ */
/* URLs. */

static int
unreserved(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Checks that s[0..n) is an encoded segment (unreserved and %XX only)
 * that decodes to want.
 */
static void
check_encoded(const char *s, size_t n, const char *want)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++, w++) {
		int c = (unsigned char)s[i];

		if (s[i] == '%') {
			int hi, lo;

			CHECK(i + 2 < n);
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			CHECK(hi >= 0 && lo >= 0);
			c = hi * 16 + lo;
			/* Encoded only when it has to be. */
			CHECK(!unreserved((char)c));
			i += 2;
		} else {
			CHECK(unreserved(s[i]));
		}
		CHECK(want[w] != '\0' && (unsigned char)want[w] == c);
	}
	CHECK(want[w] == '\0');
}

static void
check_url(const char *a, const char *b, const char *c)
{
	static const char prefix[] = HOMESERVER MX_API "/rooms/";
	struct text url;
	const char *s, *p, *q, *args[3] = { a, b, c };
	const char *names[3] = { "/send/", "/", "" };

	text_init(&url);
	mx_url(&url, HOMESERVER, MX_API "/rooms/%s/send/%s/%s", a, b, c);
	s = text_str(&url);
	CHECK(strncmp(s, prefix, strlen(prefix)) == 0);
	p = s + strlen(prefix);
	for (int k = 0; k < 3; k++) {
		q = k < 2 ? strstr(p, names[k]) : p + strlen(p);
		CHECK(q != NULL);
		check_encoded(p, (size_t)(q - p), args[k]);
		p = q + strlen(names[k]);
	}
	/* Query parameters: ?a=..&b=.., each part encoded. */
	mx_url_param(&url, "filter", c);
	mx_url_param(&url, a, b);
	s = text_str(&url);
	p = strchr(s, '?');
	CHECK(p != NULL && strchr(p + 1, '?') == NULL);
	{
		const char *kv[4] = { "filter", c, a, b };

		p++;
		for (int k = 0; k < 4; k++) {
			const char *end = p + strcspn(p, k % 2 == 0 ? "=" :
			    "&");

			CHECK(k % 2 == 0 ? *end == '=' : (k == 1 ?
			    *end == '&' : *end == '\0'));
			check_encoded(p, (size_t)(end - p), kv[k]);
			p = *end != '\0' ? end + 1 : end;
		}
	}
	text_finish(&url);
}

/* ------------------------------------------------------------------ */
/* Ids, invites, transactions, backoff, mentions. */

static void
check_user(const char *id)
{
	const char *server = mx_server_name(id);
	json_t *users = json_pack("[s, s]", "@admin:example.org", "@*:games.*");
	json_t *servers = json_pack("[s]", "example.org");
	int valid = mx_user_id_valid(id);

	CHECK(users != NULL && servers != NULL);
	CHECK(server != NULL);
	if (server[0] != '\0')
		CHECK(server > id && server[-1] == ':' &&
		    server <= id + strlen(id));
	if (valid) {
		CHECK(id[0] == '@' && strchr(id, ':') != NULL);
		for (const char *p = id; *p != '\0'; p++)
			CHECK((unsigned char)*p > ' ' && *p != 0x7f);
	}
	if (mx_invite_allowed(id, users, servers))
		CHECK(valid);
	if (valid && strcmp(server, "example.org") == 0)
		CHECK(mx_invite_allowed(id, users, servers));
	/* Its own glob lets it in (when it has no glob characters). */
	if (valid && strpbrk(id, "*?[\\") == NULL) {
		json_t *self = json_pack("[s]", id);

		CHECK(mx_invite_allowed(id, self, NULL));
		json_decref(self);
	}
	CHECK(mx_invite_allowed(id, NULL, NULL) == 0);
	json_decref(users);
	json_decref(servers);
}

static void
check_txn(uint64_t epoch, uint64_t counter, size_t outlen)
{
	char out[64];

	memset(out, 'x', sizeof(out));
	mx_txn_id(out, outlen, epoch, counter);
	CHECK(memchr(out, '\0', outlen) != NULL);
	for (const char *p = out; *p != '\0'; p++)
		CHECK(unreserved(*p));
	if (outlen == sizeof(out)) {
		char other[64];

		/* Different counters give different ids. */
		mx_txn_id(other, sizeof(other), epoch, counter + 1);
		CHECK(strcmp(out, other) != 0);
	}
}

static void
check_backoff(uint64_t a, uint64_t b, uint64_t rnd)
{
	/* Realistic ranges: milliseconds up to a few days. */
	uint64_t base = 1 + a % 100000, max = base + b % 400000000ULL;
	unsigned attempt = (unsigned)(a >> 32) % 80;
	uint64_t d = loop_backoff(attempt, base, max, rnd);
	uint64_t full = base;

	for (unsigned i = 0; i < attempt && full < max; i++)
		full *= 2;
	if (full > max)
		full = max;
	CHECK(d <= full && d >= full - full / 2);
	/* Later attempts never wait less (comparing the fixed halves). */
	CHECK(loop_backoff(attempt + 1, base, max, 0) >= loop_backoff(attempt,
	    base, max, 0));
}

static void
check_mentions(const struct mx_event *ev)
{
	struct text t;
	json_t *content, *ids;
	const char *sender = ev->sender;
	struct text plain;

	if (sender == NULL || !mx_user_id_valid(sender))
		return;
	text_init(&t);
	text_user(&t, mx_message_text(ev->content));
	text_add(&t, " ");
	text_mention(&t, sender, ev->type);
	text_add(&t, " ");
	text_mention(&t, sender, "again");
	content = mx_message_content(&t, "m.notice");
	CHECK(content != NULL);
	text_init(&plain);
	text_render(&t, TEXT_FORMAT_PLAIN, &plain);
	CHECK(strcmp(json_string_value(json_object_get(content, "body")),
	    text_str(&plain)) == 0);
	CHECK(json_is_string(json_object_get(content, "formatted_body")));
	CHECK(strcmp(json_string_value(json_object_get(content, "msgtype")),
	    "m.notice") == 0);
	ids = json_object_get(json_object_get(content, "m.mentions"),
	    "user_ids");
	/* The mention names the sanitised id, once. */
	{
		char *clean = text_sanitize(sender);

		CHECK(clean != NULL);
		if (clean[0] != '\0') {
			CHECK(json_array_size(ids) == 1);
			CHECK(strcmp(json_string_value(json_array_get(ids, 0)),
			    clean) == 0);
		}
		free(clean);
	}
	text_finish(&plain);
	json_decref(content);
	text_finish(&t);
}

/* ------------------------------------------------------------------ */

/*
 * The body mended and parsed as adapters/matrix/http.c does, checking
 * mx_json_mend(): a body jansson reads as it is stays untouched (and reads
 * the same), and nothing is left to mend a second time.
 */
static json_t *
mended_body(const uint8_t *data, size_t size)
{
	json_t *as_is = json_loadb((const char *)data, size, 0, NULL);
	char *buf = malloc(size + 1);
	json_t *response;
	size_t mended;

	CHECK(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	mended = mx_json_mend(buf, size);
	CHECK(as_is == NULL || mended == 0);
	CHECK(mx_json_mend(buf, size) == 0);
	response = json_loadb(buf, size, 0, NULL);
	CHECK(as_is == NULL || json_equal(as_is, response));
	json_decref(as_is);
	free(buf);
	return response;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *response;
	struct mx_sync sync;
	char err[128];
	uint64_t numbers[3] = { 0, 0, 0 };
	int rc;

	/* As adapters/matrix/http.c reads a response body. */
	response = mended_body(data, size);
	if (response == NULL)
		return 0;
	err[0] = '\0';
	rc = mx_sync_parse(response, &sync, err, sizeof(err));
	if (rc != 0) {
		CHECK(err[0] != '\0');
		CHECK(!json_is_string(json_object_get(response,
		    "next_batch")));
		json_decref(response);
		return 0;
	}
	check_events(response, &sync);
	for (int i = 0; i < sync.n; i++) {
		const struct mx_event *ev = &sync.events[i];

		check_content(ev);
		if (ev->sender != NULL)
			check_user(ev->sender);
		if (i < 4 && ev->type != NULL)
			check_url(ev->room_id != NULL ? ev->room_id : "",
			    ev->type, ev->event_id != NULL ? ev->event_id :
			    "");
		if (i < 4)
			check_mentions(ev);
		if (ev->ts != 0)
			numbers[i % 3] = numbers[i % 3] * 31 +
			    (uint64_t)ev->ts;
	}
	check_user(sync.next_batch);
	check_url(sync.next_batch, sync.next_batch, sync.next_batch);
	check_seen(&sync);
	check_direct(response, &sync);
	check_txn(numbers[0], numbers[1], 64);
	check_txn(numbers[0], numbers[1], 1 + numbers[2] % 64);
	check_backoff(numbers[0], numbers[1], numbers[2]);
	/* History last: it changes the events' marks. */
	check_history(&sync, BOT, (unsigned)numbers[2]);
	for (int i = 0; i < sync.n && i < 4; i++)
		if (sync.events[i].sender != NULL)
			check_history(&sync, sync.events[i].sender,
			    (unsigned)i);
	mx_sync_finish(&sync);
	CHECK(sync.events == NULL && sync.n == 0);
	json_decref(response);
	return 0;
}

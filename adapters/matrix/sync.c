/*
 * sync.c - the Matrix adapter's steps (matrix_int.h): login, the /sync
 * filter, m.direct, then /sync after /sync, each retried with backoff; a
 * response waits for the joins of channels named by alias, and its
 * position is stored only once every event in it was handled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "xmalloc.h"

static void mx_sync(struct matrix *m);
static void sync_apply(struct matrix *m, const json_t *body,
    const struct mx_response *res);

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
		snprintf(why, sizeof(why), "the request could not be made");
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
	/*
	 * The homeserver answers.  Back from a start or an outage, the core
	 * hears "connected" only once this response's events were handed
	 * over (sync_apply): what people typed meanwhile is handled before
	 * the tables resume, so that no resume prompts someone who moved.
	 */
	if (m->up)
		mx_outage_end(m);
	/* A first /sync only learns state: its cut timelines do not matter. */
	if (m->since != NULL && m->phase == MX_SYNC && mx_gaps_start(m,
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
		m->held = mx_json(json_deep_copy(res->body));
		return;
	}
	sync_apply(m, res->body, res);
}

/* Hands a /sync response to the core, then asks for the next one. */
static void
sync_apply(struct matrix *m, const json_t *body, const struct mx_response *res)
{
	if (mx_sync_handle(m, body) != 0) {
		if (m->phase == MX_SYNC)
			step_failed(m, "/sync", res, MX_SYNC_RETRY_MAX);
		return;
	}
	m->attempt = 0;
	m->full_state = 0;
	/*
	 * Direct rooms this response showed lost (left while the bot was
	 * away) reach the core from the loop first: a table still waiting
	 * for its resume then sends the player's hand once, with it.
	 */
	if (!m->up && m->lost_timer != 0)
		m->up_after_lost = 1;
	else
		mx_outage_end(m);
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
		json_t *copy = mx_json(json_deep_copy(res->body));

		mx_direct_merge(copy, m->direct);
		json_decref(m->direct);
		m->direct = copy;
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
		filter = mx_json(json_pack("{s:{s:[s]}, s:{s:[]}, s:{"
		    "s:{s:[s,s,s,s,s,s,s,s,s,s,s], s:i}, "
		    "s:{s:[s,s,s,s,s,s,s,s,s]}, "
		    "s:{s:[]}, s:{s:[]}}}",
		    "account_data", "types", "m.direct",
		    "presence", "types",
		    "room",
		    "timeline", "types", "m.room.message", "m.room.member",
		    "m.room.encrypted", "m.room.encryption",
		    "m.room.power_levels", "m.room.canonical_alias",
		    "m.room.name", "m.room.create", "m.room.join_rules",
		    "m.room.history_visibility", "m.room.tombstone",
		    "limit", MX_TIMELINE_LIMIT,
		    "state", "types", "m.room.member", "m.room.power_levels",
		    "m.room.encryption", "m.room.canonical_alias",
		    "m.room.name", "m.room.create", "m.room.join_rules",
		    "m.room.history_visibility", "m.room.tombstone",
		    "ephemeral", "types",
		    "account_data", "types"));
		mx_url(&m->url, m->cfg.homeserver, MX_API "/user/%s/filter",
		    m->cfg.user_id);
		m->req = mx_http_request(m->http, "POST", text_str(&m->url),
		    m->token, filter, MX_REQUEST_TIMEOUT, on_filter, m);
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
		/*
		 * The first /sync (no stored position) only learns state, and
		 * one back from a start or an outage must not wait for news:
		 * the tables resume once it is answered.
		 */
		snprintf(n, sizeof(n), "%d", m->since != NULL && m->up ?
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
	/* A server that quotes requests in its errors must not log it. */
	log_secret(copy);
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
		/* The password comes from a file: jansson may refuse it. */
		body = mx_json_pack("{s:s, s:{s:s, s:s}, s:s, s:s}",
		    "type", "m.login.password",
		    "identifier", "type", "m.id.user", "user", m->cfg.user_id,
		    "password", m->cfg.password,
		    "initial_device_display_name", m->cfg.device_name);
		if (body == NULL)
			log_error("matrix %s: the password is not UTF-8",
			    mx_net(m));
		if (body != NULL && m->device_id != NULL)
			mx_json_rc(json_object_set_new(body, "device_id",
			    mx_json(json_string(m->device_id))));
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

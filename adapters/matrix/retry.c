/*
 * retry.c - what a response of the homeserver means for the Matrix
 * adapter (matrix_int.h): success, worth retrying, or a dead token; the
 * delay before the next try; and when failed requests become an outage
 * that the core hears of, and everything waiting goes at once when the
 * homeserver is back.
 */
#include <stdio.h>
#include <string.h>

#include "adapter.h"
#include "log.h"
#include "loop.h"
#include "matrix_int.h"

int
mx_ok(const struct mx_response *res)
{
	return res->status >= 200 && res->status < 300;
}

/* Worth retrying: no answer, a server error, or a rate limit. */
int
mx_transient(const struct mx_response *res)
{
	return res->status == 0 || res->status >= 500 || res->status == 429 ||
	    (res->errcode != NULL && strcmp(res->errcode,
	    "M_LIMIT_EXCEEDED") == 0);
}

int
mx_token_refused(const struct mx_response *res)
{
	return res->status == 401 && res->errcode != NULL &&
	    strcmp(res->errcode, "M_UNKNOWN_TOKEN") == 0;
}

/* A short description of a failed response for the log (no secrets). */
void
mx_describe(const struct mx_response *res, char *out, size_t outlen)
{
	const char *error = json_string_value(json_object_get(res->body,
	    "error"));

	if (res->status == 0)
		snprintf(out, outlen, "%s", res->error != NULL ? res->error :
		    "no answer");
	else if (res->errcode == NULL && error == NULL)
		snprintf(out, outlen, "HTTP %ld, %s", res->status,
		    res->error != NULL ? res->error : "no reason given");
	else
		snprintf(out, outlen, "HTTP %ld%s%s%s%s", res->status,
		    res->errcode != NULL ? " " : "",
		    res->errcode != NULL ? res->errcode : "",
		    error != NULL ? ": " : "", error != NULL ? error : "");
}

enum mx_verdict
mx_failed(struct matrix *m, const struct mx_response *res, char *why,
    size_t whylen)
{
	if (res == NULL) {
		snprintf(why, whylen, "the request could not be made");
		return MX_RETRY;
	}
	mx_describe(res, why, whylen);
	if (mx_token_refused(res)) {
		mx_relogin(m);
		return MX_RELOGIN;
	}
	return mx_ok(res) || !mx_transient(res) ? MX_REFUSED : MX_RETRY;
}

/* The delay before the next retry: the server's word for rate limits. */
uint64_t
mx_retry_delay(struct matrix *m, const struct mx_response *res,
    unsigned *attempt, uint64_t base, uint64_t max)
{
	uint64_t d;

	if (res != NULL && res->retry_after_ms >= 0 &&
	    (res->status == 429 || (res->errcode != NULL &&
	    strcmp(res->errcode, "M_LIMIT_EXCEEDED") == 0)))
		return (uint64_t)res->retry_after_ms;
	d = loop_backoff(*attempt, base, max, mx_rand(m));
	if (*attempt < 30)
		(*attempt)++;
	return d;
}

/*
 * Reports a change of connection to the core.  Back up, every retry that
 * waits for its backoff goes at once: the server answers again.
 */
static void
mx_set_up(struct matrix *m, int up)
{
	size_t n;

	if (m->up == up)
		return;
	/* The first connection after a start is no return from an outage. */
	if (up && m->was_up)
		m->back_at = loop_now(m->loop);
	if (up)
		m->was_up = 1;
	m->up = up;
	log_info("matrix %s: %s", mx_net(m), up ? "connected" : "disconnected");
	/*
	 * A message that expires speaks of a clock that the core stops now
	 * and starts afresh when the homeserver is back.
	 */
	if (!up && (n = mx_expire(m, UINT64_MAX)) > 0)
		log_info("matrix %s: %zu messages of no use after the outage "
		    "are dropped", mx_net(m), n);
	if (up)
		mx_kick_all(m);
	if (m->adapter->listener != NULL)
		adapter_connected(m->adapter, up);
}

static void
on_outage(struct loop *loop, uint64_t id, void *arg)
{
	struct matrix *m = arg;

	(void)loop;
	(void)id;
	m->outage_timer = 0;
	log_warn("matrix %s: the homeserver has not answered for %.1f s",
	    mx_net(m), (double)(loop_now(m->loop) - m->outage_start) / 1000);
	mx_set_up(m, 0);
}

/*
 * A step of the /sync loop failed.  The core hears of it only when the
 * failures last outage_ms: telling every table "disconnected" and then
 * "back online" for one lost request would stop turn timers and repeat
 * prompts for nothing.  Within MX_FLAP_MS of the last return from an
 * outage, it hears of it only once that time is over (a flapping
 * connection says "back online" once, not at every flap).
 */
void
mx_outage_begin(struct matrix *m)
{
	uint64_t now, delay = (uint64_t)m->cfg.outage_ms;

	if (!m->up || m->outage_timer != 0)
		return;
	now = loop_now(m->loop);
	m->outage_start = now;
	if (m->back_at != 0 && m->back_at + MX_FLAP_MS > now + delay)
		delay = m->back_at + MX_FLAP_MS - now;
	m->outage_timer = loop_timer(m->loop, delay, on_outage, m);
}

/* /sync answered: the homeserver is there (again). */
void
mx_outage_end(struct matrix *m)
{
	loop_cancel(m->loop, m->outage_timer);
	m->outage_timer = 0;
	mx_set_up(m, 1);
}

/*
 * Starts every send, join, direct room and m.direct write that waits,
 * cutting short the backoff of those that failed.
 */
void
mx_kick_all(struct matrix *m)
{
	struct mx_dm *dm, *next;

	for (struct mx_room *r = m->rooms; r != NULL; r = r->next) {
		loop_cancel(m->loop, r->send_timer);
		r->send_timer = 0;
		mx_room_kick(r);
	}
	for (struct mx_join *j = m->joins; j != NULL; j = j->next) {
		if (j->done || j->failed || j->req != NULL)
			continue;
		loop_cancel(m->loop, j->timer);
		j->timer = 0;
		mx_join_start(j);
	}
	for (dm = m->dms; dm != NULL; dm = next) {
		next = dm->next;
		if (dm->req != NULL)
			continue;
		loop_cancel(m->loop, dm->timer);
		dm->timer = 0;
		mx_dm_start(dm);
	}
	loop_cancel(m->loop, m->direct_timer);
	m->direct_timer = 0;
	mx_direct_kick(m);
}

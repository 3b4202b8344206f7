/*
 * gaps.c - cut timelines of the Matrix adapter (matrix_int.h): a /sync
 * response whose room timelines were cut short is held while what was
 * left out is fetched with /messages, then handed on whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "matrix_int.h"
#include "xmalloc.h"

void
mx_gaps_free(struct matrix *m)
{
	while (m->gaps != NULL) {
		struct mx_gap *gap = m->gaps;

		m->gaps = gap->next;
		free(gap->room_id);
		free(gap->from);
		json_decref(gap->events);
		free(gap);
	}
}

/*
 * Puts what the gaps fetched in front of their timelines in the held
 * response (messages only: the response's state section already holds
 * the state at the timeline's start), then hands the response on.
 */
static void
gaps_finish(struct matrix *m)
{
	const json_t *joined = json_object_get(json_object_get(m->held,
	    "rooms"), "join");

	for (struct mx_gap *gap = m->gaps; gap != NULL; gap = gap->next) {
		json_t *timeline = json_object_get(json_object_get(joined,
		    gap->room_id), "timeline");
		const json_t *later = json_object_get(timeline, "events");
		size_t n = json_array_size(gap->events), added = 0;
		json_t *events;

		if (!json_is_object(timeline))
			continue;
		events = mx_json(json_array());
		for (size_t i = n; i-- > 0;) {
			json_t *ev = json_array_get(gap->events, i);
			const char *type = json_string_value(json_object_get(ev,
			    "type"));

			if (type != NULL && json_object_get(ev, "state_key") ==
			    NULL && (strcmp(type, "m.room.message") == 0 ||
			    strcmp(type, "m.room.encrypted") == 0)) {
				mx_json_rc(json_array_append(events, ev));
				added++;
			}
		}
		if (json_is_array(later))
			mx_json_rc(json_array_extend(events, (json_t *)later));
		mx_json_rc(json_object_set_new(timeline, "events", events));
		/* Still marked cut when a page failed or the cap was hit. */
		if (gap->done == 1)
			mx_json_rc(json_object_set_new(timeline, "limited",
			    mx_json(json_false())));
		log_info("matrix %s: fetched %zu messages said in %s while "
		    "the timeline was cut", mx_net(m), added, gap->room_id);
	}
	mx_gaps_free(m);
	mx_sync_release(m);
}

static void gap_next(struct matrix *m);

/* The gap being fetched: the first not done, or NULL. */
static struct mx_gap *
gap_current(struct matrix *m)
{
	struct mx_gap *gap = m->gaps;

	while (gap != NULL && gap->done)
		gap = gap->next;
	return gap;
}

static void
on_gap_page(const struct mx_response *res, void *arg)
{
	struct matrix *m = arg;
	struct mx_gap *gap = gap_current(m);
	const json_t *chunk;
	const char *end;
	char why[128];

	m->req = NULL;
	if (gap == NULL)
		return;
	chunk = json_object_get(res->body, "chunk");
	if (!mx_ok(res) || !json_is_array(chunk)) {
		mx_describe(res, why, sizeof(why));
		log_warn("matrix %s: cannot fetch the messages said in %s "
		    "while the timeline was cut (%s); they are skipped",
		    mx_net(m), gap->room_id, why);
		gap->done = -1;
		gap_next(m);
		return;
	}
	mx_json_rc(json_array_extend(gap->events, (json_t *)chunk));
	gap->pages++;
	end = json_string_value(json_object_get(res->body, "end"));
	if (json_array_size(chunk) > 0 && end != NULL) {
		if (gap->pages >= MX_GAP_PAGES) {
			log_warn("matrix %s: more than %d messages were said in "
			    "%s while the timeline was cut; older ones are "
			    "skipped", mx_net(m),
			    MX_GAP_PAGES * MX_TIMELINE_LIMIT, gap->room_id);
			gap->done = -1;
		} else {
			free(gap->from);
			gap->from = xstrdup(end);
		}
	} else {
		gap->done = 1;
	}
	gap_next(m);
}

/* Asks for the next page of the first gap not done, or finishes. */
static void
gap_next(struct matrix *m)
{
	struct mx_gap *gap = gap_current(m);
	char limit[16];

	if (gap == NULL) {
		gaps_finish(m);
		return;
	}
	mx_url(&m->url, m->cfg.homeserver, MX_API "/rooms/%s/messages",
	    gap->room_id);
	mx_url_param(&m->url, "dir", "b");
	mx_url_param(&m->url, "from", gap->from);
	mx_url_param(&m->url, "to", m->since);
	snprintf(limit, sizeof(limit), "%d", MX_TIMELINE_LIMIT);
	mx_url_param(&m->url, "limit", limit);
	m->req = mx_http_request(m->http, "GET", text_str(&m->url), m->token,
	    NULL, MX_REQUEST_TIMEOUT, on_gap_page, m);
	if (m->req == NULL) {
		gap->done = -1;
		gap_next(m);
	}
}

/*
 * Holds a /sync response whose room timelines were cut short while the
 * bot was away or busy (more than MX_TIMELINE_LIMIT events since its
 * position) and starts fetching what was left out, so that no command
 * said meanwhile is lost.  Returns 1 when the response is held: body is
 * borrowed, and m->held owns a copy of it.
 */
int
mx_gaps_start(struct matrix *m, const json_t *body)
{
	const json_t *room;
	const char *room_id;

	json_object_foreach(json_object_get(json_object_get(body, "rooms"),
	    "join"), room_id, room) {
		const json_t *timeline = json_object_get(room, "timeline");
		const char *from = json_string_value(json_object_get(timeline,
		    "prev_batch"));
		struct mx_gap *gap;

		if (!json_is_true(json_object_get(timeline, "limited")) ||
		    from == NULL)
			continue;
		gap = xcalloc(1, sizeof(*gap));
		gap->room_id = xstrdup(room_id);
		gap->from = xstrdup(from);
		gap->events = mx_json(json_array());
		gap->next = m->gaps;
		m->gaps = gap;
	}
	if (m->gaps == NULL)
		return 0;
	json_decref(m->held);
	/* A copy: the response is the HTTP client's. */
	m->held = mx_json(json_deep_copy(body));
	gap_next(m);
	return 1;
}

/*
 * matrix.c - the Matrix adapter: the bot as a Matrix account, over the
 * client-server API v3 with libcurl (http.c) on the bot's loop.
 * This file holds the adapter's operations, what the core calls; the
 * other files of adapters/matrix/ each hold one concern (matrix_int.h
 * lists them).
 *
 * For admins:
 *
 * - Login.  With password_file the bot logs in with m.login.password and
 *   keeps its device id in the store, so a restart reuses the device (set
 *   device_id to choose it); with access_token_file it uses the token as
 *   given (checked with /account/whoami).  Tokens and passwords are never
 *   logged.
 * - Rooms.  Configured channels may be room ids (!id:server) or aliases
 *   (#name:server); the bot joins them at start.  It accepts invites only
 *   from users matching invites.allow_users (globs, e.g. "@*:example.org")
 *   or from servers in invites.allow_servers: by default from nobody.  When
 *   kicked or banned it forgets the room and does not come back by itself
 *   (an invitation into a configured channel brings it back); what its
 *   table says there waits meanwhile, as it does in a room whose power
 *   levels leave the bot silent (rooms.c).
 *   Room moderators (power level 50 or more) count as table admins there.
 *   A message for an alias not joined yet (a restored game says it
 *   resumes before the adapter has started) waits for the join.
 * - Direct messages.  Hands and prompts go to a direct room per player:
 *   one listed for the player in the bot's m.direct account data if the
 *   player is still in it (or invited), otherwise a new unencrypted room
 *   (preset trusted_private_chat) to which the player is invited; it is
 *   recorded in m.direct, merged with what other clients wrote there.  A
 *   direct room the player opened (is_direct, just the two of them) is
 *   used and recorded too.  A message in a room that is direct for its
 *   sender, or in a two-person room that is not a configured channel,
 *   counts as private.  Private lines name a table by its room's alias
 *   or name (channel_title), never by its id.
 * - Encryption.  The bot has no end-to-end encryption and cannot read
 *   encrypted rooms.  When a player writes in one, the bot says so once in
 *   that room, logs it, and opens an unencrypted direct room with them.
 *   Do not enable encryption in game rooms.
 * - Delivery.  Only messages newer than the bot's first start are acted
 *   on, and in a room joined later only those said after the bot was
 *   invited or joined (the history a server shows on joining is not).
 *   The /sync position is stored only once every event before it was
 *   handed to the bot, and the id of each event handed to the core since
 *   is stored in the same transaction as the core's handling of it
 *   (store_kv_defer), so a restart neither replays nor loses a command,
 *   even after a SIGKILL between the core's commit and its return; a /sync
 *   that comes back before the joins of channels named by alias waits
 *   for them, so its messages name the right channel.  A /sync whose
 *   room timeline was cut (more than MX_TIMELINE_LIMIT events since the
 *   bot's position: a long absence, a busy room) waits too, while the
 *   messages left out are fetched with /messages, at most MX_GAP_PAGES
 *   pages per room; if that fails they are skipped with a warning.  Duplicate
 *   events are recognised by event id.  Messages are sent with HTML, one
 *   at a time per room and in order, each with a transaction id kept
 *   across retries so a retry never posts twice (for the core's outbox
 *   rows, made from the row id, so a row sent again after a restart is
 *   the same transaction; the core hears with adapter_sent() once the
 *   homeserver has it); rate limits (M_LIMIT_EXCEEDED) are honoured and
 *   other failures retried with backoff.  A line mentioning someone and
 *   every private line are m.text with m.mentions (so clients alert
 *   them), other room lines m.notice.  At SIGTERM the core lets what is
 *   queued leave before it stops the adapter.
 * - Outages.  A failed /sync is retried quietly with backoff and jitter;
 *   only when the homeserver has not answered for outage_ms does the core
 *   hear "disconnected", and "connected" once it answers again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapter.h"
#include "log.h"
#include "loop.h"
#include "matrix_int.h"
#include "store.h"
#include "xmalloc.h"

const char *
mx_net(const struct matrix *m)
{
	return m->adapter->network != NULL ? m->adapter->network : "matrix";
}

uint64_t
mx_rand(struct matrix *m)
{
	return rng_next(&m->rng);
}

/*
 * Stores a value with whatever else is deferred (the events handled
 * lately), so that the sync position and the handled ids never disagree.
 */
void
mx_kv_set(struct matrix *m, const char *key, const char *value)
{
	if (m->store != NULL && (store_kv_defer(m->store, key, value) != 0 ||
	    store_kv_flush(m->store) != 0))
		log_error("matrix %s: cannot store %s", mx_net(m), key);
}

void
mx_kv_defer_json(struct matrix *m, const char *key, const json_t *o,
    const char *what)
{
	char *s;

	if (m->store == NULL)
		return;
	s = json_dumps(o, JSON_COMPACT);
	if (s == NULL || store_kv_defer(m->store, key, s) != 0)
		log_error("matrix %s: cannot store %s", mx_net(m), what);
	free(s);
}

json_t *
mx_kv_object(struct matrix *m, const char *key)
{
	/* The adapter's store: joins may ask before start() sets m->store. */
	struct store *store = m->adapter->store;
	char *stored = store != NULL ? store_kv_get(store, key) : NULL;
	json_t *o = stored != NULL ? json_loads(stored, 0, NULL) : NULL;

	free(stored);
	if (json_is_object(o))
		return o;
	json_decref(o);
	return mx_json(json_object());
}

/* The adapter */

static int
matrix_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct matrix *m = xcalloc(1, sizeof(*m));
	struct timespec ts;

	adapter->priv = NULL;
	if (mx_config_parse(config, path, &m->cfg, err, errlen) != 0) {
		mx_config_finish(&m->cfg);
		free(m);
		return -1;
	}
	m->adapter = adapter;
	text_init(&m->url);
	mx_seen_init(&m->seen);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Unique per process start: the time in ms and the process id. */
	m->epoch = ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec /
	    1000000) << 22 ^ (uint64_t)getpid();
	rng_seed(&m->rng, m->epoch ^ (uint64_t)ts.tv_nsec);
	adapter->priv = m;
	return 0;
}

static void
matrix_clear(struct matrix *m)
{
	while (m->rooms != NULL) {
		struct mx_room *r = m->rooms;

		m->rooms = r->next;
		mx_room_free(r);
	}
	while (m->joins != NULL)
		mx_join_free(m->joins);
	while (m->dms != NULL)
		mx_dm_free(m->dms);
	mx_http_cancel(m->http, m->req);
	mx_http_cancel(m->http, m->direct_req);
	m->req = m->direct_req = NULL;
	json_decref(m->held);
	m->held = NULL;
	mx_gaps_free(m);
	if (m->loop != NULL) {
		loop_cancel(m->loop, m->timer);
		loop_cancel(m->loop, m->direct_timer);
		loop_cancel(m->loop, m->outage_timer);
		loop_cancel(m->loop, m->report_timer);
		loop_cancel(m->loop, m->lost_timer);
	}
	m->timer = m->direct_timer = m->outage_timer = 0;
	m->report_timer = m->lost_timer = 0;
	m->up_after_lost = 0;
	json_decref(m->lost);
	m->lost = NULL;
	/* Dropped rows stay in the outbox: the next start tries again. */
	m->ndropped = 0;
}

static void
matrix_finish(struct adapter *adapter)
{
	struct matrix *m = adapter->priv;

	if (m == NULL)
		return;
	matrix_clear(m);
	mx_http_destroy(m->http);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
	}
	free(m->device_id);
	free(m->filter_id);
	free(m->since);
	json_decref(m->direct);
	json_decref(m->direct_pending);
	json_decref(m->direct_inflight);
	json_decref(m->direct_put);
	json_decref(m->handled);
	json_decref(m->told);
	json_decref(m->refusers);
	free(m->dropped);
	text_finish(&m->url);
	mx_config_finish(&m->cfg);
	free(m);
	adapter->priv = NULL;
}

/*
 * The prefix of the outbox's transaction ids: random, made once per store
 * and kept there (see mx_txn_id_outbox).
 */
static void
txn_prefix_load(struct matrix *m)
{
	char *s = m->store != NULL ? store_kv_get(m->store, m->key_txn) : NULL;

	if (s != NULL && s[0] != '\0' && strlen(s) < sizeof(m->txn_prefix)) {
		snprintf(m->txn_prefix, sizeof(m->txn_prefix), "%s", s);
		free(s);
		return;
	}
	free(s);
	snprintf(m->txn_prefix, sizeof(m->txn_prefix), "%016llx",
	    (unsigned long long)mx_rand(m));
	mx_kv_set(m, m->key_txn, m->txn_prefix);
}

static int
matrix_start(struct adapter *adapter)
{
	struct matrix *m = adapter->priv;
	char err[256], *s;
	json_t *handled, *id;
	size_t i;

	if (m->phase != MX_STOPPED)
		return 0;
	m->loop = adapter->loop;
	m->store = adapter->store;
	if (m->http == NULL &&
	    (m->http = mx_http_create(m->loop, err, sizeof(err))) == NULL) {
		log_error("matrix %s: %s", mx_net(m), err);
		return -1;
	}
	snprintf(m->key_since, sizeof(m->key_since), "matrix:%s:next_batch",
	    mx_net(m));
	snprintf(m->key_device, sizeof(m->key_device), "matrix:%s:device_id",
	    mx_net(m));
	snprintf(m->key_handled, sizeof(m->key_handled), "matrix:%s:handled",
	    mx_net(m));
	snprintf(m->key_txn, sizeof(m->key_txn), "matrix:%s:txn_prefix",
	    mx_net(m));
	txn_prefix_load(m);
	snprintf(m->key_told, sizeof(m->key_told), "matrix:%s:encrypted_told",
	    mx_net(m));
	if (m->told == NULL)
		m->told = mx_kv_object(m, m->key_told);
	snprintf(m->key_refusers, sizeof(m->key_refusers),
	    "matrix:%s:refusers", mx_net(m));
	if (m->refusers == NULL)
		m->refusers = mx_kv_object(m, m->key_refusers);
	if (m->direct == NULL)
		m->direct = mx_json(json_object());
	if (m->direct_pending == NULL)
		m->direct_pending = mx_json(json_object());
	if (m->handled == NULL)
		m->handled = mx_json(json_array());
	free(m->device_id);
	m->device_id = NULL;
	if (m->cfg.device_id != NULL)
		m->device_id = xstrdup(m->cfg.device_id);
	else if (m->store != NULL)
		m->device_id = store_kv_get(m->store, m->key_device);
	free(m->since);
	m->since = m->store != NULL ? store_kv_get(m->store, m->key_since) :
	    NULL;
	if (m->since != NULL && m->since[0] == '\0') {
		free(m->since);
		m->since = NULL;
	}
	/* Events handed to the core after the stored position: not again. */
	if (m->store != NULL &&
	    (s = store_kv_get(m->store, m->key_handled)) != NULL) {
		handled = json_loads(s, 0, NULL);
		json_array_foreach(handled, i, id) {
			if (json_is_string(id)) {
				mx_seen_check(&m->seen, json_string_value(id));
				mx_json_rc(json_array_append(m->handled, id));
			}
		}
		json_decref(handled);
		free(s);
	}
	m->full_state = m->since != NULL;
	m->synced = 0;
	m->stopping = 0;
	log_info("matrix %s: connecting to %s as %s", mx_net(m),
	    m->cfg.homeserver, m->cfg.user_id);
	mx_login(m);
	return 0;
}

/*
 * Everything still to be done for what the core asked: messages waiting
 * anywhere (the one being sent included), reports of dropped messages not
 * yet given to the core, rooms being left and an m.direct update not yet
 * written.
 */
static size_t
matrix_pending(const struct matrix *m)
{
	size_t n = m->ndropped;

	/*
	 * What a room that shuts the bot out holds cannot leave before it
	 * lets us in again: a stop does not wait for it (the store keeps it).
	 */
	for (const struct mx_room *r = m->rooms; r != NULL; r = r->next)
		if (!r->shut)
			n += (size_t)r->queue.n +
			    (r->leaving != NULL || r->parting);
	for (const struct mx_join *j = m->joins; j != NULL; j = j->next)
		if (!j->failed)
			n += (size_t)j->queue.n;
	for (const struct mx_dm *dm = m->dms; dm != NULL; dm = dm->next)
		n += (size_t)dm->queue.n;
	if (m->token != NULL && (m->direct_req != NULL ||
	    json_object_size(m->direct_pending) > 0))
		n++;
	return n;
}

/*
 * What can still leave: the core runs the loop at SIGTERM until this is
 * 0.  In an outage nothing can, and waiting for it would only delay the
 * stop by the core's whole drain time: the store keeps every table line
 * for the next run.
 */
static int
matrix_outage(const struct matrix *m)
{
	return m->was_up && !m->up;
}

static size_t
matrix_queue_depth(const struct adapter *adapter)
{
	const struct matrix *m = adapter->priv;

	return matrix_outage(m) ? 0 : matrix_pending(m);
}

static int
matrix_busy(struct adapter *adapter, const char *flow)
{
	const struct matrix *m = adapter->priv;

	return flow != NULL && mx_flow_count(m, flow) > MX_BUSY_MAX;
}

/*
 * What people call a room in private lines: the alias the channel was
 * configured by, else the room's canonical alias, else its name, else
 * the names of the people in it as clients show a room without a name
 * ("Alice, Bob and Carol").  Never the raw room id, which means nothing
 * to a player.
 */
static void
matrix_channel_title(struct adapter *adapter, const char *channel, char *out,
    size_t outlen)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = mx_room_of_channel(m, channel);
	struct text t;
	char *clean;
	int n = 0, shown = 0;

	if (outlen == 0)
		return;
	if (channel[0] == '#' || room == NULL || (room->alias == NULL &&
	    room->name == NULL && mx_room_joined_count(room) < 2)) {
		snprintf(out, outlen, "%s", channel[0] == '!' ? "a room" :
		    channel);
		return;
	}
	if (room->alias != NULL || room->name != NULL) {
		snprintf(out, outlen, "%s", room->alias != NULL ? room->alias :
		    room->name);
		return;
	}
	for (int i = 0; i < room->npeople; i++)
		if (room->people[i].state == MX_JOINED &&
		    strcmp(room->people[i].user_id, m->cfg.user_id) != 0)
			n++;
	text_init(&t);
	for (int i = 0; i < room->npeople && shown < 3; i++) {
		const struct mx_person *p = &room->people[i];

		if (p->state != MX_JOINED ||
		    strcmp(p->user_id, m->cfg.user_id) == 0)
			continue;
		if (shown > 0)
			text_add(&t, shown == n - 1 ? " and " : ", ");
		text_add(&t, p->name != NULL ? p->name : p->user_id);
		shown++;
	}
	if (shown < n)
		text_printf(&t, " and %d others", n - shown);
	/* Display names are anyone's text: no marks or control bytes. */
	clean = text_sanitize(text_str(&t));
	snprintf(out, outlen, "%s", clean);
	free(clean);
	text_finish(&t);
}

static const char *
matrix_self_name(struct adapter *adapter)
{
	const struct matrix *m = adapter->priv;

	return m->cfg.user_id;
}

/* A table's messages not yet accepted by the homeserver. */
static size_t
matrix_flow_waiting(struct adapter *adapter, const char *flow)
{
	const struct matrix *m = adapter->priv;

	return m != NULL ? (size_t)mx_flow_count(m, flow) : 0;
}

/* The bot stops: the tables' backlog waits for the next start. */
static size_t
matrix_withhold(struct adapter *adapter)
{
	struct matrix *m = adapter->priv;

	return m != NULL && m->phase != MX_STOPPED ? mx_withhold(m) : 0;
}

static void
matrix_stop(struct adapter *adapter, const char *goodbye)
{
	struct matrix *m = adapter->priv;
	uint64_t end = loop_clock_ms() + MX_FLUSH_MS;
	size_t left;

	/* Matrix has no quit message: the core says goodbye in rooms. */
	(void)goodbye;
	if (m->phase == MX_STOPPED || m->stopping)
		return;
	mx_http_cancel(m->http, m->req);
	m->req = NULL;
	loop_cancel(m->loop, m->timer);
	m->timer = 0;
	/*
	 * At SIGTERM the core runs the loop until queue_depth() is 0 before
	 * it stops us, so nothing is left here.  A caller that did not wait
	 * gets a short nested flush, unless the loop has already stopped
	 * (loop_run_once() would not wait then).
	 */
	if (m->token != NULL && matrix_queue_depth(adapter) > 0 &&
	    !loop_stopped(m->loop)) {
		log_info("matrix %s: %zu messages still queued at stop; "
		    "waiting up to %d ms", mx_net(m),
		    matrix_queue_depth(adapter), MX_FLUSH_MS);
		m->stopping = 1;
		while (matrix_queue_depth(adapter) > 0) {
			uint64_t now = loop_clock_ms();

			if (now >= end ||
			    loop_run_once(m->loop, (int)(end - now)) != 0)
				break;
		}
		m->stopping = 0;
	}
	if ((left = matrix_pending(m)) > 0 && matrix_outage(m))
		log_warn("matrix %s: %zu messages wait for the homeserver; "
		    "the table lines among them are said at the next start",
		    mx_net(m), left);
	else if (left > 0)
		log_warn("matrix %s: %zu messages were not sent", mx_net(m),
		    left);
	m->phase = MX_STOPPED;
	/*
	 * Every request is cancelled (their connections close); the client
	 * itself goes in finish(), since stop() may run inside one of its
	 * callbacks (a command handled by the core).
	 */
	matrix_clear(m);
	if (m->token != NULL) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
		m->token = NULL;
	}
	m->up = 0;
	log_info("matrix %s: stopped", mx_net(m));
}

/*
 * A channel named by a room id that was upgraded (the store remembers,
 * mx_room_follow()): the table is in the replacement room, the last of
 * a chain of upgrades.
 */
static void
follow_upgrades(struct matrix *m, struct mx_join *j)
{
	char *id = j->room_id != NULL ? xstrdup(j->room_id) : NULL, *next;

	for (int hops = 0; id != NULL && hops < 16 &&
	    (next = mx_record_get(m, "upgraded", id)) != NULL; hops++) {
		free(id);
		id = next;
	}
	if (id != NULL && strcmp(id, j->room_id) != 0) {
		log_info("matrix %s: %s was upgraded; the table is in %s",
		    mx_net(m), j->name, id);
		free(j->room_id);
		j->room_id = xstrdup(id);
		free(j->target);
		j->target = xstrdup(id);
	}
	free(id);
}

/*
 * A channel whose room kicked or banned the bot (the store remembers,
 * mx_room_shut_out()) is not joined again by a restart: an invitation
 * brings the bot back.  Its room id is known, so that the invitation is
 * recognised as the channel's.
 */
static int
stays_out(struct matrix *m, struct mx_join *j)
{
	char *room_id = mx_record_get(m, "shut_out", j->name);

	if (room_id == NULL)
		return 0;
	log_info("matrix %s: staying out of %s: removed from %s before; an "
	    "invitation brings the bot back", mx_net(m), j->name, room_id);
	if (j->room_id == NULL)
		j->room_id = xstrdup(room_id);
	free(room_id);
	j->failed = 1;
	j->shut_recorded = 1;
	return 1;
}

/*
 * The record of a channel the core names for the first time: its room id
 * when the name is one, followed through the upgrades the store knows.
 */
static struct mx_join *
channel_join_new(struct matrix *m, const char *channel)
{
	struct mx_join *j = mx_join_new(m, channel, 1);

	if (channel[0] == '!')
		j->room_id = xstrdup(channel);
	follow_upgrades(m, j);
	return j;
}

static int
matrix_join(struct adapter *adapter, const char *channel)
{
	struct matrix *m = adapter->priv;
	struct mx_join *j = mx_join_find(m, channel);

	if (j == NULL)
		j = channel_join_new(m, channel);
	j->core = 1;
	j->failed = 0;
	if (!j->done && stays_out(m, j))
		return 0;
	if (!j->done)
		mx_join_start(j);
	return 0;
}

static int
matrix_part(struct adapter *adapter, const char *channel)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = mx_room_of_channel(m, channel);
	struct mx_join *j = mx_join_find(m, channel);

	if (j != NULL && j->core) {
		/* Messages for a room not joined yet have nowhere to go. */
		mx_queue_drop(m, &j->queue, j->name);
		mx_join_free(j);
		mx_rooms_kick(m);
	}
	if (room == NULL)
		return 0;
	if (room->queue.n > 0)
		room->parting = 1;
	else if (room->leaving == NULL)
		mx_room_leave(room);
	return 0;
}

static int
matrix_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = mx_room_of_channel(m, channel);
	struct mx_join *j;
	struct mx_msg *msg = mx_msg_new(m, text, info, NULL);

	if (msg == NULL) {
		/* Untracked by the core's outbox when it cannot be queued. */
		log_error("matrix %s: cannot send to %s: the text is not UTF-8",
		    mx_net(m), channel);
		return -1;
	}
	if (room != NULL && !room->parting && room->leaving == NULL) {
		mx_room_push(room, msg);
		return 0;
	}
	j = mx_join_find(m, channel);
	if (j != NULL && j->core) {
		/*
		 * Waits for the join to tell us the room id, or for an
		 * invitation into a room that shut us out.
		 */
		mx_queue_push(&j->queue, msg);
		return 0;
	}
	/*
	 * A channel the core has not joined yet (a game restored before the
	 * adapter starts says it resumes): joined, then sent, unless the
	 * store says its room was upgraded (the replacement is joined) or
	 * shut the bot out (it waits for an invitation).
	 */
	if ((channel[0] == '#' || channel[0] == '!') && j == NULL) {
		j = channel_join_new(m, channel);
		mx_queue_push(&j->queue, msg);
		if (!stays_out(m, j))
			mx_join_start(j);
		return 0;
	}
	log_error("matrix %s: cannot send to %s: not joined", mx_net(m),
	    channel);
	mx_msg_dropped(m, msg, channel);
	mx_msg_free(msg);
	return -1;
}

static int
matrix_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	struct matrix *m = adapter->priv;
	struct mx_msg *msg;

	if (!mx_user_id_valid(user_id)) {
		struct mx_msg bad = { .id = info != NULL ? info->id : 0 };

		log_error("matrix %s: cannot send privately to \"%s\": not a "
		    "user id", mx_net(m), user_id);
		mx_msg_dropped(m, &bad, "an invalid user id");
		return -1;
	}
	if ((msg = mx_msg_new(m, text, info, user_id)) == NULL) {
		log_error("matrix %s: cannot send privately to %s: the text is "
		    "not UTF-8", mx_net(m), user_id);
		return -1;
	}
	mx_dm_send(m, user_id, msg);
	return 0;
}

static int
matrix_channel_admin(struct adapter *adapter, const char *channel,
    const char *user_id)
{
	struct matrix *m = adapter->priv;
	struct mx_room *room = mx_room_of_channel(m, channel);
	const json_t *level;

	if (room == NULL || room->power == NULL)
		return 0;
	level = json_object_get(json_object_get(room->power, "users"), user_id);
	if (level == NULL)
		level = json_object_get(room->power, "users_default");
	return json_is_integer(level) &&
	    json_integer_value(level) >= MX_ADMIN_LEVEL;
}

const struct adapter_impl matrix_adapter = {
	.name = "matrix",
	/* Every tracked message is reported once the homeserver has it. */
	.reports_sent = 1,
	.init = matrix_init,
	.finish = matrix_finish,
	.start = matrix_start,
	.stop = matrix_stop,
	.join = matrix_join,
	.part = matrix_part,
	.send_channel = matrix_send_channel,
	.send_private = matrix_send_private,
	.queue_depth = matrix_queue_depth,
	.flow_waiting = matrix_flow_waiting,
	.channel_admin = matrix_channel_admin,
	.self_name = matrix_self_name,
	.channel_title = matrix_channel_title,
	.busy = matrix_busy,
	.withhold = matrix_withhold,
};

/*
 * bot.c - the bot core: networks and their adapters, channels and their
 * settings, what adapters report (messages, joins, parts, renames,
 * reconnects), the configuration, and restoring games after a restart.
 *
 * Everything here runs on the loop's one thread.  Tables live in
 * table.c, commands in commands.c.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "bucket.h"
#include "hash.h"
#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "outbox.h"
#include "xmalloc.h"
#include "store.h"

/* Channel defaults when a network gives none. */
void
settings_default(struct channel_settings *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->game, sizeof(s->game), "wizard");
	s->lang = LANG_EN;
	snprintf(s->prefixes, sizeof(s->prefixes), "!/");
	s->turn_timer = 120;
	s->options = json_array();
}

void
settings_finish(struct channel_settings *settings)
{
	json_decref(settings->options);
	settings->options = NULL;
}

void
settings_copy(struct channel_settings *to, const struct channel_settings *from)
{
	json_t *options = json_deep_copy(from->options);

	settings_finish(to);
	*to = *from;
	to->options = options != NULL ? options : json_array();
}

static int outbox_to_adapter(void *arg, const char *network,
    const char *target, int private_, const struct text *text,
    const struct send_info *info);
static struct adapter *medium_adapter(void *data, const char *name);
static void medium_taken(void *data, uint64_t id);

struct bot *
bot_create(struct loop *loop, struct store *store,
    const struct bot_settings *settings, char *err, size_t errlen)
{
	struct bot *bot = xcalloc(1, sizeof(*bot));
	uint64_t seed = settings != NULL ? settings->seed : 0;
	int level;

	bot->loop = loop;
	bot->store = store;
	bot->computer_level = AI_NORMAL;
	if (settings != NULL && settings->computer_level != NULL) {
		if ((level = ai_level_parse(settings->computer_level)) < 0) {
			snprintf(err, errlen, "unknown computer level \"%s\"",
			    settings->computer_level);
			free(bot);
			return NULL;
		}
		bot->computer_level = (enum ai_level)level;
	}
	bot->ai_budget_ms = settings != NULL && settings->ai_budget_ms > 0 ?
	    settings->ai_budget_ms : 100;
	bot->lobby_idle = settings != NULL && settings->lobby_idle > 0 ?
	    settings->lobby_idle : 1800;
	/*
	 * 0 takes the default, as in every field here; a configuration's
	 * "grace": 0 (a computer stands in at once) comes as a negative.
	 */
	bot->grace = settings == NULL || settings->grace == 0 ? 60 :
	    settings->grace < 0 ? 0 : settings->grace;
	bot->computer_delay_ms = settings != NULL &&
	    settings->computer_delay_ms > 0 ? settings->computer_delay_ms :
	    1000;
	if (settings == NULL || settings->command_burst >= 0) {
		int burst = settings != NULL && settings->command_burst > 0 ?
		    settings->command_burst : 10;
		int interval = settings != NULL &&
		    settings->command_interval_ms > 0 ?
		    settings->command_interval_ms : 1000;

		bot->commands_allowed = buckets_create(burst, interval);
	}
	bot->refusal_told = buckets_create(1, 60000);
	if (bot->commands_allowed != NULL && (settings == NULL ||
	    settings->network_burst >= 0)) {
		bot->network_burst = settings != NULL &&
		    settings->network_burst > 0 ? settings->network_burst : 10;
		bot->network_interval_ms = settings != NULL &&
		    settings->network_interval_ms > 0 ?
		    settings->network_interval_ms : 2000;
		/* Who was told of the crowd: once in ten minutes at most. */
		bot->crowd_told = buckets_create(1, 600000);
	}
	if (seed == 0 && getrandom(&seed, sizeof(seed), 0) !=
	    (ssize_t)sizeof(seed))
		seed = loop_now(loop) ^ (uint64_t)(uintptr_t)bot;
	rng_seed(&bot->rng, seed);
	bot->started_at = loop_now(loop);
	{
		struct medium_listener listener = {
			.adapter = medium_adapter, .taken = medium_taken,
			.data = bot,
		};

		bot->medium = medium_create(loop, &listener);
	}
	bot->outbox = outbox_create(store, outbox_to_adapter, bot);
	return bot;
}

void
bot_set_reload(struct bot *bot, int (*reload)(void *, char *, size_t),
    void *arg)
{
	bot->reload = reload;
	bot->reload_arg = arg;
}

static void sitters_free(struct bot *bot);

static void
channel_destroy(struct channel *channel)
{
	if (channel == NULL)
		return;
	table_destroy(channel->table);
	channel_settings_free(channel);
	free(channel->name);
	free(channel);
}

void
network_destroy(struct network *network)
{
	if (network == NULL)
		return;
	if (network->adapter.impl != NULL)
		network->adapter.impl->finish(&network->adapter);
	for (size_t i = 0; i < network->nadmins; i++)
		free(network->admins[i]);
	free(network->admins);
	settings_finish(&network->defaults);
	json_decref(network->config);
	free(network->adapter.network);
	free(network);
}

void
bot_destroy(struct bot *bot)
{
	if (bot == NULL)
		return;
	if (bot->loop != NULL) {
		loop_cancel(bot->loop, bot->forget_timer);
		loop_cancel(bot->loop, bot->part_timer);
	}
	for (int i = 0; i < bot->nchannels; i++)
		channel_destroy(bot->channels[i]);
	free(bot->channels);
	free(bot->index);
	free(bot->clock_tables);
	sitters_free(bot);
	buckets_destroy(bot->commands_allowed);
	buckets_destroy(bot->crowd_told);
	buckets_destroy(bot->refusal_told);
	outbox_destroy(bot->outbox);
	medium_destroy(bot->medium);
	text_finish(&bot->stored_log);
	for (int i = 0; i < bot->nnetworks; i++)
		network_destroy(bot->networks[i]);
	free(bot->networks);
	free(bot);
}

struct network *
network_find(struct bot *bot, const char *name)
{
	for (int i = 0; i < bot->nnetworks; i++)
		if (strcmp(bot->networks[i]->adapter.network, name) == 0)
			return bot->networks[i];
	return NULL;
}

/*
 * IRC channel names are case-insensitive; Matrix room ids are not, and
 * they never start with '#' or '&' (aliases do, and are matched as typed).
 */
int
channel_name_equal(const char *a, const char *b)
{
	if (a[0] == '#' || a[0] == '&')
		return strcasecmp(a, b) == 0;
	return strcmp(a, b) == 0;
}

/*
 * Channels are found through a hash of their network and name, folded to
 * lower case where channel_name_equal() ignores case, so that a message
 * finds its channel at once however many tables there are.  Channels live
 * as long as the bot, so the index only grows.
 */
static size_t
channel_hash(const struct network *network, const char *name)
{
	return hash_scoped(network, name, name[0] == '#' || name[0] == '&');
}

static void
index_insert(struct channel **index, size_t cap, struct channel *channel)
{
	size_t i = channel_hash(channel->network, channel->name) & (cap - 1);

	while (index[i] != NULL)
		i = (i + 1) & (cap - 1);
	index[i] = channel;
}

/* Adds channel to the index, keeping it at most half full. */
static int
index_add(struct bot *bot, struct channel *channel)
{
	if ((size_t)(bot->nchannels + 1) * 2 > bot->index_cap) {
		size_t cap = bot->index_cap > 0 ? bot->index_cap * 2 : 64;
		struct channel **index = xcalloc(cap, sizeof(*index));

		for (size_t i = 0; i < bot->index_cap; i++)
			if (bot->index[i] != NULL)
				index_insert(index, cap, bot->index[i]);
		free(bot->index);
		bot->index = index;
		bot->index_cap = cap;
	}
	index_insert(bot->index, bot->index_cap, channel);
	return 0;
}

struct channel *
channel_get(struct network *network, const char *name, int create)
{
	struct bot *bot = network->bot;
	struct channel *channel;

	if (bot->index_cap > 0) {
		size_t mask = bot->index_cap - 1;

		for (size_t i = channel_hash(network, name) & mask;
		    (channel = bot->index[i]) != NULL; i = (i + 1) & mask)
			if (channel->network == network &&
			    channel_name_equal(channel->name, name))
				return channel;
	}
	if (!create)
		return NULL;
	return channel_add(network, name, &network->defaults);
}

struct channel *
channel_add(struct network *network, const char *name,
    const struct channel_settings *configured)
{
	struct bot *bot = network->bot;
	struct channel *channel;

	xarray_grow((void **)&bot->channels, &bot->channels_cap,
	    bot->nchannels + 1, sizeof(*bot->channels));
	channel = xcalloc(1, sizeof(*channel));
	channel->name = xstrdup(name);
	channel->network = network;
	if (index_add(bot, channel) != 0) {
		free(channel->name);
		free(channel);
		return NULL;
	}
	channel_configure(channel, configured);
	bot->channels[bot->nchannels++] = channel;
	return channel;
}

/* IRC hostmask globs compare without regard to case. */
static int
mask_match(const char *glob, const char *mask)
{
	char g[256], m[256];
	size_t i;

	if (strlen(glob) >= sizeof(g) || strlen(mask) >= sizeof(m))
		return 0;
	for (i = 0; glob[i] != '\0'; i++)
		g[i] = (char)tolower((unsigned char)glob[i]);
	g[i] = '\0';
	for (i = 0; mask[i] != '\0'; i++)
		m[i] = (char)tolower((unsigned char)mask[i]);
	m[i] = '\0';
	return fnmatch(g, m, 0) == 0;
}

int
bot_is_admin(struct bot *bot, struct network *network, const char *channel,
    const struct user *user)
{
	for (size_t i = 0; i < network->nadmins; i++) {
		const char *entry = network->admins[i];

		if (strcmp(entry, user->id) == 0)
			return 1;
		if (user->mask != NULL && strchr(entry, '!') != NULL &&
		    mask_match(entry, user->mask))
			return 1;
	}
	if (channel != NULL && medium_channel_admin(&network->adapter, channel,
	    user->id) == 1)
		return 1;
	return 0;
}

/*
 * Hands text to the outbox, without formatting codes where the channel
 * (of a table's private lines: their flow) has formatting off.
 */
static void
send_formatted(struct network *network, const struct channel *channel,
    const char *target, int private, const char *flow,
    const struct text *text, uint64_t expires)
{
	struct text plain;

	if (channel == NULL || !channel->settings.plain) {
		outbox_send_until(network->bot->outbox,
		    network->adapter.network, target, private, flow, text,
		    expires);
		return;
	}
	text_init(&plain);
	text_render(text, TEXT_FORMAT_PLAIN, &plain);
	outbox_send_until(network->bot->outbox, network->adapter.network,
	    target, private, flow, &plain, expires);
	text_finish(&plain);
}

void
channel_send(struct channel *channel, const struct text *text)
{
	if (text->len == 0)
		return;
	send_formatted(channel->network, channel, channel->name, 0,
	    channel->name, text, 0);
}

void
channel_reply(struct channel *channel, const struct text *text)
{
	if (text->len == 0)
		return;
	send_formatted(channel->network, channel, channel->name, 0, NULL,
	    text, 0);
}

void
network_send_private(struct network *network, const char *user_id,
    const char *flow, const struct text *text)
{
	network_send_private_until(network, user_id, flow, text, 0);
}

void
network_send_private_until(struct network *network, const char *user_id,
    const char *flow, const struct text *text, uint64_t expires)
{
	if (text->len == 0 || user_id == NULL || user_id[0] == '\0')
		return;
	send_formatted(network, flow != NULL ? channel_get(network, flow, 0) :
	    NULL, user_id, 1, flow, text, expires);
}

void
network_skip_resent(struct network *network, int on)
{
	outbox_skip_resent(network->bot->outbox, on);
}

void
bot_enter(struct bot *bot)
{
	if (!outbox_inside(bot->outbox))
		bot->not_saved_told = 0;
	outbox_enter(bot->outbox);
}

int
bot_check_store(struct bot *bot)
{
	const char *why = store_failed(bot->store);

	if (why == NULL || bot->store_lost)
		return why == NULL ? 0 : -1;
	/*
	 * Fail-stop: nothing can be kept any more, so no game moves on.
	 * Every table is told once and its clocks stop; the store's log
	 * line says why, and a restart after the repair resumes the games.
	 */
	bot->store_lost = 1;
	for (int c = 0; c < bot->nchannels; c++) {
		struct channel *channel = bot->channels[c];
		struct text t;

		if (channel->table == NULL || table_game(channel->table) == NULL)
			continue;
		table_hold(channel->table);
		text_init(&t);
		SAY0(&t, channel->settings.lang, MSG_STORE_LOST);
		channel_send(channel, &t);
		text_finish(&t);
		bot->not_saved_told = 1;
	}
	return -1;
}

/* The channel of flow i of the last event, or NULL when it is gone. */
static struct channel *
flow_channel(struct bot *bot, int i)
{
	struct network *network = network_find(bot,
	    outbox_flow_network(bot->outbox, i));

	return network != NULL ? channel_get(network,
	    outbox_flow_name(bot->outbox, i), 0) : NULL;
}

void
bot_clock_wait(struct bot *bot, struct table *table, int waits)
{
	int i;

	for (i = 0; i < bot->nclock_tables; i++)
		if (bot->clock_tables[i] == table)
			break;
	if (waits && i == bot->nclock_tables) {
		xarray_grow((void **)&bot->clock_tables,
		    &bot->clock_tables_cap, bot->nclock_tables + 1,
		    sizeof(*bot->clock_tables));
		bot->clock_tables[bot->nclock_tables++] = table;
	} else if (!waits && i < bot->nclock_tables) {
		bot->clock_tables[i] =
		    bot->clock_tables[--bot->nclock_tables];
	}
}

void
bot_clocks_check(struct bot *bot)
{
	/*
	 * Downwards: a table whose clock starts leaves the list, and the
	 * last one, already asked, takes its place.
	 */
	for (int i = bot->nclock_tables - 1; i >= 0; i--)
		if (i < bot->nclock_tables)
			table_clock_check(bot->clock_tables[i]);
}

void
bot_log_stored(struct bot *bot, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (outbox_inside(bot->outbox)) {
		text_vprintf(&bot->stored_log, fmt, ap);
		text_add(&bot->stored_log, "\n");
	} else {
		log_vmsg(LOG_LEVEL_INFO, fmt, ap);
	}
	va_end(ap);
}

/* The event's log lines, once it is stored; forgotten if it is not. */
static void
stored_log_end(struct bot *bot, int stored)
{
	char *line = bot->stored_log.buf, *end;

	while (stored && line != NULL && (end = strchr(line, '\n')) != NULL) {
		*end = '\0';
		log_info("%s", line);
		line = end + 1;
	}
	text_clear(&bot->stored_log);
}

int
bot_leave(struct bot *bot)
{
	int rc = outbox_leave(bot->outbox);

	if (!outbox_inside(bot->outbox)) {
		stored_log_end(bot, rc == 0);
		(void)bot_check_store(bot);
	}
	for (int i = 0; (rc != 0 || outbox_last_stored(bot->outbox)) &&
	    i < outbox_flow_count(bot->outbox); i++) {
		struct channel *channel = flow_channel(bot, i);

		if (channel == NULL)
			continue;
		if (rc == 0) {
			/* Stored again: the next failure is told again. */
			channel->store_failures = 0;
		} else {
			/*
			 * Nothing the event caused was said, and the store
			 * holds the state from before it: the settings and the
			 * tables it spoke for become that again.
			 */
			channel_settings_reload(channel);
			table_reload(channel);
		}
	}
	/* The prompts this event said may start their turns' clocks. */
	if (!outbox_inside(bot->outbox))
		bot_clocks_check(bot);
	return rc;
}

/*
 * Queues one message of the outbox for its network's adapter (medium.h:
 * handed over from the loop, never inside the adapter's own callback).
 */
static int
outbox_to_adapter(void *arg, const char *name, const char *target,
    int private_, const struct text *text, const struct send_info *info)
{
	struct bot *bot = arg;

	if (network_find(bot, name) == NULL) {
		log_warn("%s: no longer configured; a message to %s is "
		    "dropped", name, target);
		return -1;
	}
	medium_send(bot->medium, name, target, private_, text, info);
	return 0;
}

/* The adapter of a network, for the medium's queue. */
static struct adapter *
medium_adapter(void *data, const char *name)
{
	struct network *network = network_find(data, name);

	return network != NULL ? &network->adapter : NULL;
}

/* A tracked message an adapter took, where taken counts as sent. */
static void
medium_taken(void *data, uint64_t id)
{
	struct bot *bot = data;

	outbox_sent(bot->outbox, id);
	bot_clocks_check(bot);
}

/* One person's candidate channels (struct bot's sitters). */
struct sitter {
	struct network *network;
	char *user_id;
	struct channel **channels;
	int nchannels, cap;
};

static struct sitter **
sitter_slot(struct sitter **table, size_t cap, const struct network *network,
    const char *user_id)
{
	size_t i = hash_scoped(network, user_id, 0) & (cap - 1);

	while (table[i] != NULL && (table[i]->network != network ||
	    strcmp(table[i]->user_id, user_id) != 0))
		i = (i + 1) & (cap - 1);
	return &table[i];
}

void
user_sat(struct channel *channel, const char *user_id)
{
	struct bot *bot = channel->network->bot;
	struct sitter **slot, *sitter;

	if (user_id == NULL || user_id[0] == '\0')
		return;
	if ((bot->nsitters + 1) * 2 > bot->sitters_cap) {
		size_t cap = bot->sitters_cap > 0 ? bot->sitters_cap * 2 : 64;
		struct sitter **table = xcalloc(cap, sizeof(*table));

		for (size_t i = 0; i < bot->sitters_cap; i++)
			if (bot->sitters[i] != NULL)
				*sitter_slot(table, cap, bot->sitters[i]->network,
				    bot->sitters[i]->user_id) = bot->sitters[i];
		free(bot->sitters);
		bot->sitters = table;
		bot->sitters_cap = cap;
	}
	slot = sitter_slot(bot->sitters, bot->sitters_cap, channel->network,
	    user_id);
	if ((sitter = *slot) == NULL) {
		sitter = xcalloc(1, sizeof(*sitter));
		sitter->user_id = xstrdup(user_id);
		sitter->network = channel->network;
		*slot = sitter;
		bot->nsitters++;
	}
	for (int i = 0; i < sitter->nchannels; i++)
		if (sitter->channels[i] == channel)
			return;
	xarray_grow((void **)&sitter->channels, &sitter->cap,
	    sitter->nchannels + 1, sizeof(*sitter->channels));
	sitter->channels[sitter->nchannels++] = channel;
}

static void
sitters_free(struct bot *bot)
{
	for (size_t i = 0; i < bot->sitters_cap; i++) {
		if (bot->sitters[i] == NULL)
			continue;
		free(bot->sitters[i]->user_id);
		free(bot->sitters[i]->channels);
		free(bot->sitters[i]);
	}
	free(bot->sitters);
}

/*
 * The candidates of struct bot's sitters where user_id sits now, or
 * (former) where a game's seat of theirs was taken over.
 */
static int
sitter_tables(struct network *network, const char *user_id,
    struct channel **out, int max, int former)
{
	struct bot *bot = network->bot;
	struct sitter *sitter;
	int n = 0;

	if (bot->sitters_cap == 0 || (sitter = *sitter_slot(bot->sitters,
	    bot->sitters_cap, network, user_id)) == NULL)
		return 0;
	for (int i = 0; i < sitter->nchannels && n < max; i++) {
		struct channel *channel = sitter->channels[i];
		struct table *table = channel->table;

		if (table == NULL)
			continue;
		if (!former ? table_seat_of(table, user_id) >= 0 :
		    table_game(table) != NULL &&
		    table_seat_of(table, user_id) < 0 &&
		    table_former_seat(table, user_id) >= 0)
			out[n++] = channel;
	}
	return n;
}

int
user_tables(struct network *network, const char *user_id,
    struct channel **out, int max)
{
	return sitter_tables(network, user_id, out, max, 0);
}

int
user_former_tables(struct network *network, const char *user_id,
    struct channel **out, int max)
{
	return sitter_tables(network, user_id, out, max, 1);
}

void
channel_title(const struct channel *channel, char *out, size_t outlen)
{
	const struct bot *bot = channel->network->bot;
	char other[256];

	medium_channel_title(&channel->network->adapter, channel->name, out,
	    outlen);
	/*
	 * Two tables' rooms of one name ("Friday Night") are told apart by
	 * their own names (an alias, or the room id).
	 */
	for (int i = 0; i < bot->nchannels; i++) {
		const struct channel *c = bot->channels[i];

		if (c == channel || c->network != channel->network ||
		    c->table == NULL)
			continue;
		medium_channel_title(&c->network->adapter, c->name, other,
		    sizeof(other));
		if (strcasecmp(other, out) == 0) {
			snprintf(out, outlen, "%s", channel->name);
			return;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Networks and configuration. */

int
bot_start(struct bot *bot)
{
	int rc = 0;

	bot->started = 1;
	for (int i = 0; i < bot->nnetworks; i++) {
		struct network *network = bot->networks[i];

		if (network->started)
			continue;
		if (network->adapter.impl->start(&network->adapter) != 0) {
			log_error("%s: could not start", network->adapter.network);
			rc = -1;
			continue;
		}
		network->started = 1;
	}
	for (int c = 0; c < bot->nchannels; c++)
		if (bot->channels[c]->configured ||
		    bot->channels[c]->table != NULL)
			channel_join(bot->channels[c]);
	/*
	 * What the last run committed but could not say goes out first,
	 * once the adapters know which channels to join: a line for a
	 * channel not yet joined waits for the join.
	 */
	if (!bot->outbox_loaded) {
		bot->outbox_loaded = 1;
		(void)outbox_load(bot->outbox);
	}
	return rc;
}

void
bot_hold(struct bot *bot)
{
	for (int c = 0; c < bot->nchannels; c++)
		if (bot->channels[c]->table != NULL)
			table_hold(bot->channels[c]->table);
}

void
bot_say_goodbye(struct bot *bot, int withhold)
{
	if (bot->goodbye_said)
		return;
	bot->goodbye_said = 1;
	/*
	 * The goodbyes go before a backlog (a slow IRC pace may need a
	 * minute for it): what is stored and not said yet is said after
	 * the next start, as after a crash.
	 */
	for (int i = 0; withhold && i < bot->nnetworks; i++)
		if (bot->networks[i]->started)
			medium_withhold(bot->medium,
			    bot->networks[i]->adapter.network);
	for (int c = 0; c < bot->nchannels; c++) {
		struct channel *channel = bot->channels[c];
		struct text t;

		if (channel->table == NULL || table_game(channel->table) == NULL ||
		    !channel->network->started)
			continue;
		/* Nothing may move while the bot takes its leave. */
		table_hold(channel->table);
		text_init(&t);
		/* A game the store lost resumes only once it is repaired. */
		SAY0(&t, channel->settings.lang, bot->store_lost ?
		    MSG_GOODBYE_STORE_LOST : MSG_GOODBYE);
		channel_send(channel, &t);
		text_finish(&t);
	}
}

void
bot_flush(struct bot *bot)
{
	medium_flush(bot->medium);
}

size_t
bot_queue_depth(const struct bot *bot)
{
	size_t n = 0;

	for (int i = 0; i < bot->nnetworks; i++) {
		const struct adapter *a = &bot->networks[i]->adapter;

		if (bot->networks[i]->started)
			n += medium_queue_depth(a);
	}
	return n + medium_pending(bot->medium);
}

void
bot_stop(struct bot *bot, const char *goodbye)
{
	if (goodbye != NULL)
		bot_say_goodbye(bot, 1);
	/* What is queued reaches the adapters before they stop. */
	medium_flush(bot->medium);
	/* Nothing may fire once the adapters are gone. */
	bot_hold(bot);
	for (int i = 0; i < bot->nnetworks; i++) {
		struct network *network = bot->networks[i];

		if (!network->started)
			continue;
		network->adapter.impl->stop(&network->adapter, goodbye);
		network->started = 0;
	}
	bot->started = 0;
}

/* ------------------------------------------------------------------ */
/* Restore. */

static int
restore_one(const struct store_game *stored, void *arg)
{
	struct bot *bot = arg;
	struct network *network = network_find(bot, stored->network);
	struct channel *channel;
	struct table *table;
	char err[256];

	if (network == NULL) {
		log_warn("game %lld: network \"%s\" is not configured; the "
		    "game waits in the store", (long long)stored->id,
		    stored->network);
		return 0;
	}
	channel = channel_get(network, stored->channel, 1);
	if (channel == NULL)
		return -1;
	if (channel->table != NULL) {
		log_warn("game %lld: %s already has a table; the game waits "
		    "in the store", (long long)stored->id, stored->channel);
		return 0;
	}
	/*
	 * A game that cannot be replayed is set aside in the store (kept,
	 * no longer running), so that it neither stops the others nor
	 * comes back at every start.
	 */
	table = table_restore(channel, stored, err, sizeof(err));
	if (table == NULL) {
		log_error("%s %s: game %lld cannot be restored: %s",
		    stored->network, stored->channel, (long long)stored->id,
		    err);
		(void)store_game_damaged(bot->store, stored->id, err);
		return 0;
	}
	if (table_deal_pending(table) != 0) {
		log_error("%s %s: game %lld cannot be restored: the next deal "
		    "failed", stored->network, stored->channel,
		    (long long)stored->id);
		table_destroy(table);
		(void)store_game_damaged(bot->store, stored->id,
		    "the next deal failed");
		return 0;
	}
	log_info("%s %s: game %lld restored at action %d", stored->network,
	    stored->channel, (long long)stored->id, table_game(table)->nactions);
	/*
	 * Nothing is said and no turn runs until the network can speak:
	 * the adapter's connected() resumes the table then, so that nobody's time
	 * runs out before they were told it is their turn.
	 */
	if (network->up)
		table_resume(table, MSG_RESUMED);
	else
		table_await_resume(table);
	return 0;
}

/* Lobbies that bot_restore() found stale, deleted after the reading. */
struct stale_lobbies {
	struct bot *bot;
	char **keys;             /* network, channel, network, channel, ... */
	int n, cap;
};

static int
restore_lobby(const char *network_name, const char *channel_name,
    const char *lobby, void *arg)
{
	struct stale_lobbies *stale = arg;
	struct network *network = network_find(stale->bot, network_name);
	struct channel *channel;
	char err[256];

	/*
	 * A lobby of a network no longer configured, of a channel whose
	 * game was restored (the crash came between storing the game and
	 * deleting its lobby), or one that cannot be read is stale.
	 */
	if (network != NULL && (channel = channel_get(network, channel_name,
	    1)) != NULL && channel->table == NULL) {
		if (table_lobby_load(channel, lobby, err, sizeof(err)) !=
		    NULL) {
			log_info("%s %s: lobby restored with %d seats",
			    network_name, channel_name,
			    table_nseats(channel->table));
			return 0;
		}
		log_error("%s %s: the stored lobby cannot be restored: %s",
		    network_name, channel_name, err);
	}
	{
		xarray_grow((void **)&stale->keys, &stale->cap, stale->n + 2,
		    sizeof(*stale->keys));
		stale->keys[stale->n++] = xstrdup(network_name);
		stale->keys[stale->n++] = xstrdup(channel_name);
	}
	return 1;
}

int
bot_restore(struct bot *bot)
{
	int before = (int)bot_game_count(bot), lobbies;
	struct stale_lobbies stale = { bot, NULL, 0, 0 };

	bot_enter(bot);
	if (store_each_running(bot->store, restore_one, bot) != 0) {
		bot_leave(bot);
		return -1;
	}
	lobbies = store_each_lobby(bot->store, restore_lobby, &stale);
	for (int i = 0; i + 1 < stale.n; i += 2) {
		(void)store_lobby_delete(bot->store, stale.keys[i],
		    stale.keys[i + 1]);
		free(stale.keys[i]);
		free(stale.keys[i + 1]);
	}
	free(stale.keys);
	bot_leave(bot);
	if (lobbies < 0)
		return -1;
	return (int)bot_game_count(bot) - before;
}

/* ------------------------------------------------------------------ */
/* What adapters report. */

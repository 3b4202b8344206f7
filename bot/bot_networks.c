/*
 * bot_networks.c - the networks and channels of a configuration: adding
 * an adapter, joining channels, applying a reloaded configuration all or
 * nothing (every network is prepared and checked before anything
 * changes), and what the channels hold (tables, games, an open lobby).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "store.h"
#include "xmalloc.h"

/*
 * What bot_configure() will do to one network of the configuration,
 * prepared before anything changes.
 */
struct network_plan {
	struct network *network; /* existing, or created (not yet added) */
	int created;
	char **admins;           /* the new list, NULL-terminated */
	size_t nadmins;
	struct channel_settings defaults;
};

static void
settings_from_config(struct channel_settings *to,
    const struct config_channel *from)
{
	settings_default(to);
	if (from == NULL)
		return;
	if (from->game != NULL)
		snprintf(to->game, sizeof(to->game), "%s", from->game);
	if (from->lang != NULL && lang_parse(from->lang) >= 0)
		to->lang = (enum lang)lang_parse(from->lang);
	if (from->prefixes != NULL && from->prefixes[0] != '\0')
		snprintf(to->prefixes, sizeof(to->prefixes), "%s",
		    from->prefixes);
	to->plain = from->plain;
	to->turn_timer = from->turn_timer;
	if (from->options != NULL) {
		json_decref(to->options);
		to->options = json_deep_copy(from->options);
	}
}

/*
 * A network with its adapter initialised, not yet part of the bot: a
 * reload prepares its new networks this way, so that one whose init()
 * fails leaves the bot as it was.  Freed with network_destroy().
 */
static struct network *
network_create(struct bot *bot, const struct adapter_impl *impl,
    const char *name, const json_t *config, const char *path, char *err,
    size_t errlen)
{
	struct network *network = xcalloc(1, sizeof(*network));

	network->adapter.network = xstrdup(name);
	network->bot = bot;
	network->adapter.listener = &bot_listener;
	network->adapter.listener_data = bot;
	network->adapter.loop = bot->loop;
	network->adapter.store = bot->store;
	settings_default(&network->defaults);
	if (impl->init(&network->adapter, config, path, err, errlen) != 0) {
		settings_finish(&network->defaults);
		free(network->adapter.network);
		free(network);
		return NULL;
	}
	network->adapter.impl = impl;
	if (config != NULL && (network->config = json_deep_copy(config)) ==
	    NULL) {
		network_destroy(network);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return network;
}

static struct network *
network_add(struct bot *bot, const struct adapter_impl *impl,
    const char *name, const json_t *config, const char *path, char *err,
    size_t errlen)
{
	struct network *network;

	if (network_find(bot, name) != NULL) {
		snprintf(err, errlen, "network \"%s\" exists already", name);
		return NULL;
	}
	xarray_grow((void **)&bot->networks, &bot->networks_cap,
	    bot->nnetworks + 1, sizeof(*bot->networks));
	network = network_create(bot, impl, name, config, path, err, errlen);
	if (network == NULL)
		return NULL;
	bot->networks[bot->nnetworks++] = network;
	return network;
}

struct adapter *
bot_add_adapter(struct bot *bot, const struct adapter_impl *impl,
    const char *name, const json_t *config,
    const struct config_channel *defaults, char *err, size_t errlen)
{
	struct network *network = network_add(bot, impl, name, config,
	    name, err, errlen);

	if (network == NULL)
		return NULL;
	if (defaults != NULL) {
		settings_finish(&network->defaults);
		settings_from_config(&network->defaults, defaults);
	}
	network->configured = 1;
	return &network->adapter;
}

void
channel_join(struct channel *channel)
{
	struct network *network = channel->network;

	if (channel->joined || !network->started)
		return;
	if (network->adapter.impl->join(&network->adapter,
	    channel->name) == 0)
		channel->joined = 1;
}

static void
plans_free(struct network_plan *plans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (plans[i].created)
			network_destroy(plans[i].network);
		for (size_t a = 0; a < plans[i].nadmins; a++)
			free(plans[i].admins[a]);
		free(plans[i].admins);
		settings_finish(&plans[i].defaults);
	}
	free(plans);
}

/*
 * Prepares one network: checks its type against a running network of
 * the same name, or creates (and initialises) a new one, and copies its
 * admins and defaults.  Changes nothing in the bot.
 */
static int
network_prepare(struct bot *bot, const struct config_network *cn,
    struct network_plan *plan, char *err, size_t errlen)
{
	const struct adapter_impl *impl = config_adapter_find(cn->type);

	settings_default(&plan->defaults);
	if (impl == NULL) {
		snprintf(err, errlen, "%s.type: unknown adapter \"%s\"",
		    cn->path, cn->type);
		return -1;
	}
	plan->network = network_find(bot, cn->name);
	if (plan->network != NULL && plan->network->adapter.impl != impl) {
		snprintf(err, errlen, "%s.type: a running network cannot "
		    "change its type (\"%s\" is %s); restart the bot for "
		    "that", cn->path, cn->name,
		    plan->network->adapter.impl->name);
		return -1;
	}
	plan->admins = xcalloc(cn->nadmins + 1, sizeof(char *));
	for (; plan->nadmins < cn->nadmins; plan->nadmins++)
		plan->admins[plan->nadmins] = xstrdup(cn->admins[plan->nadmins]);
	settings_finish(&plan->defaults);
	settings_from_config(&plan->defaults, &cn->defaults);
	if (plan->network == NULL) {
		plan->network = network_create(bot, impl, cn->name, cn->json,
		    cn->path, err, errlen);
		if (plan->network == NULL)
			return -1;
		plan->created = 1;
	}
	return 0;
}

/* Keys of a network that a reload applies; the adapter reads the rest. */
static const char *const reload_keys[] = {
	"name", "type", "channels", "admins", "defaults", NULL,
};

static int
reload_key(const char *key)
{
	for (const char *const *k = reload_keys; *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return 0;
}

/* Appends "key" to a list in buf, cut (never overrun) when it is full. */
static void
keys_append(char *buf, size_t size, size_t *len, const char *key)
{
	int n;

	if (*len + 1 >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s\"%s\"", *len > 0 ? ", " :
	    "", key);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/*
 * A running network keeps the connection settings it started with (its
 * adapter was initialised with them): names the keys that the file now
 * says otherwise, so that an operator who changed "nick" or "host" knows
 * that only a restart applies them.  Values are never logged (secrets).
 */
static void
log_restart_keys(const struct network *network, json_t *now)
{
	json_t *before = network->config, *v;
	const char *key;
	char keys[512] = "";
	size_t len = 0;

	if (before == NULL || now == NULL)
		return;
	json_object_foreach(now, key, v)
		if (!reload_key(key) &&
		    !json_equal(v, json_object_get(before, key)))
			keys_append(keys, sizeof(keys), &len, key);
	json_object_foreach(before, key, v)
		if (!reload_key(key) && json_object_get(now, key) == NULL)
			keys_append(keys, sizeof(keys), &len, key);
	if (len > 0)
		log_warn("%s: reload: %s changed; the running connection "
		    "keeps its settings until the bot restarts",
		    network->adapter.network, keys);
}

/*
 * Every running network is in the new file: renaming or removing one
 * needs a restart.  A renamed network would otherwise connect a second
 * time beside the old one, which goes on running its tables: two bots
 * answering in one channel.
 */
static int
networks_kept(struct bot *bot, const struct config *config, char *err,
    size_t errlen)
{
	for (int i = 0; i < bot->nnetworks; i++) {
		const char *name = bot->networks[i]->adapter.network;
		size_t n;

		for (n = 0; n < config->nnetworks; n++)
			if (strcmp(config->networks[n].name, name) == 0)
				break;
		if (n < config->nnetworks)
			continue;
		snprintf(err, errlen, "networks: \"%s\" is running and the "
		    "file no longer lists it; a network is renamed or removed "
		    "only by a restart (its connection would go on answering "
		    "in its channels beside a renamed one)", name);
		return -1;
	}
	return 0;
}

/* Leaves the channels a reload removed whose tables are over. */
static void
leave_removed(struct bot *bot)
{
	for (int c = 0; c < bot->nchannels; c++) {
		struct channel *channel = bot->channels[c];

		if (channel->removed && channel->joined &&
		    channel->table == NULL && channel->network->started) {
			medium_part(bot->medium, channel->network->adapter.network,
			    channel->name);
			channel->joined = 0;
		}
	}
}

static void
on_leave_removed(struct loop *loop, uint64_t id, void *arg)
{
	struct bot *bot = arg;

	(void)loop;
	(void)id;
	bot->part_timer = 0;
	leave_removed(bot);
}

void
channel_leave_later(struct bot *bot)
{
	if (bot->part_timer == 0)
		bot->part_timer = loop_timer(bot->loop, 0, on_leave_removed,
		    bot);
}

/*
 * Applies a configuration all or nothing: every network is prepared
 * first (new adapters initialised on the side, type changes, duplicate
 * names and running networks missing from the file refused), and only when all of them are ready does
 * anything change.  What can still go wrong afterwards is running out of
 * memory for a channel entry, which is logged.
 */
int
bot_configure(struct bot *bot, const struct config *config, char *err,
    size_t errlen)
{
	struct network_plan *plans;
	size_t n, added = 0;

	if (networks_kept(bot, config, err, errlen) != 0)
		return -1;
	plans = xcalloc(config->nnetworks + 1, sizeof(*plans));
	for (n = 0; n < config->nnetworks; n++) {
		const struct config_network *cn = &config->networks[n];

		for (size_t m = 0; m < n; m++)
			if (strcmp(config->networks[m].name, cn->name) == 0) {
				snprintf(err, errlen, "%s.name: \"%s\" is "
				    "already the name of %s", cn->path,
				    cn->name, config->networks[m].path);
				plans_free(plans, n);
				return -1;
			}
		if (network_prepare(bot, cn, &plans[n], err, errlen) != 0) {
			plans_free(plans, n + 1);
			return -1;
		}
		added += (size_t)plans[n].created;
	}
	xarray_grow((void **)&bot->networks, &bot->networks_cap,
	    bot->nnetworks + (int)added, sizeof(*bot->networks));

	/* Everything is ready: from here on the configuration is applied. */
	for (int i = 0; i < bot->nnetworks; i++)
		bot->networks[i]->configured = 0;
	for (n = 0; n < config->nnetworks; n++) {
		const struct config_network *cn = &config->networks[n];
		struct network_plan *plan = &plans[n];
		struct network *network = plan->network;

		if (plan->created) {
			bot->networks[bot->nnetworks++] = network;
			plan->created = 0;
		} else {
			log_restart_keys(network, cn->json);
		}
		network->configured = 1;
		for (size_t a = 0; a < network->nadmins; a++)
			free(network->admins[a]);
		free(network->admins);
		network->admins = plan->admins;
		network->nadmins = plan->nadmins;
		plan->admins = NULL;
		plan->nadmins = 0;
		settings_finish(&network->defaults);
		network->defaults = plan->defaults;
		settings_default(&plan->defaults);
		/* removed: listed before this reload (cleared when still so). */
		for (int c = 0; c < bot->nchannels; c++)
			if (bot->channels[c]->network == network) {
				bot->channels[c]->removed |=
				    bot->channels[c]->configured;
				bot->channels[c]->configured = 0;
			}
		for (size_t c = 0; c < cn->nchannels; c++) {
			const char *name = cn->channels[c].name;
			struct channel_settings configured;
			struct channel *channel;

			/*
			 * Changes made at run time stay over the file, but
			 * for the keys the file now says otherwise.
			 */
			settings_from_config(&configured, &cn->channels[c]);
			if ((channel = channel_get(network, name, 0)) != NULL)
				channel_configure(channel, &configured);
			else
				channel = channel_add(network, name,
				    &configured);
			settings_finish(&configured);
			if (channel == NULL) {
				log_error("%s: out of memory for channel %s",
				    cn->name, name);
				continue;
			}
			channel->configured = 1;
			channel->removed = 0;
			channel_join(channel);
		}
	}
	plans_free(plans, n);
	/* Channels no longer listed are left once their tables are over. */
	leave_removed(bot);
	/*
	 * New networks start now.  One that cannot start is logged by
	 * bot_start(); the configuration is applied all the same, so the
	 * reload must not be reported as refused.
	 */
	if (bot->started && bot_start(bot) != 0)
		log_warn("reload: a network could not start");
	return 0;
}

const char *
bot_self_name(struct network *network, enum lang lang)
{
	struct adapter *adapter = &network->adapter;
	const char *name = medium_self_name(adapter);

	return name != NULL && name[0] != '\0' ? name : i18n_get(lang, MSG_ME);
}

size_t
bot_table_count(const struct bot *bot)
{
	size_t n = 0;

	for (int i = 0; i < bot->nchannels; i++)
		n += bot->channels[i]->table != NULL;
	return n;
}

size_t
bot_game_count(const struct bot *bot)
{
	size_t n = 0;

	for (int i = 0; i < bot->nchannels; i++)
		n += bot->channels[i]->table != NULL &&
		    table_game(bot->channels[i]->table) != NULL;
	return n;
}

const struct game_impl *
bot_lobby_options(const struct bot *bot, struct game_options *out)
{
	for (int i = 0; i < bot->nchannels; i++) {
		const struct table *table = bot->channels[i]->table;

		if (table != NULL && table_game(table) == NULL) {
			*out = *table_options(table);
			return table_impl(table);
		}
	}
	return NULL;
}

/*
 * bot_test.c - the core as tests, fuzzers and benchmarks see it (see
 * bot_test.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot_test.h"
#include "bot_int.h"
#include "xmalloc.h"

static struct network *
network_of_adapter(struct bot *bot, struct adapter *adapter)
{
	for (int i = 0; i < bot->nnetworks; i++)
		if (&bot->networks[i]->adapter == adapter)
			return bot->networks[i];
	return NULL;
}

struct table *
bot_table(struct bot *bot, struct adapter *adapter, const char *channel)
{
	struct network *network = network_of_adapter(bot, adapter);
	struct channel *c = network != NULL ?
	    channel_get(network, channel, 0) : NULL;

	return c != NULL ? c->table : NULL;
}

int
bot_channel_count(const struct bot *bot)
{
	return bot->nchannels;
}

const char *
bot_channel_name(const struct bot *bot, int i)
{
	return bot->channels[i]->name;
}

struct table *
bot_channel_table(const struct bot *bot, int i)
{
	return bot->channels[i]->table;
}

enum lang
bot_channel_lang(struct bot *bot, struct adapter *adapter,
    const char *channel)
{
	struct network *network = network_of_adapter(bot, adapter);
	struct channel *c = network != NULL ?
	    channel_get(network, channel, 0) : NULL;

	return c != NULL ? c->settings.lang : LANG_EN;
}

void
bot_add_admin(struct bot *bot, struct adapter *adapter, const char *pattern)
{
	struct network *network = network_of_adapter(bot, adapter);

	if (network == NULL)
		return;
	network->admins = xreallocarray(network->admins,
	    network->nadmins + 1, sizeof(*network->admins));
	network->admins[network->nadmins++] = xstrdup(pattern);
}

void
bot_describe(const struct bot *bot, char *buf, size_t len)
{
	size_t n = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < bot->nnetworks && n < len; i++) {
		const struct network *net = bot->networks[i];

		n += (size_t)snprintf(buf + n, len - n, "%s %s admins=%s "
		    "game=%s;", net->adapter.network, net->adapter.impl->name,
		    net->nadmins > 0 ? net->admins[0] : "-",
		    net->defaults.game);
	}
	for (int c = 0; c < bot->nchannels && n < len; c++) {
		const struct channel *ch = bot->channels[c];

		n += (size_t)snprintf(buf + n, len - n, " %s/%s game=%s "
		    "timer=%d configured=%d joined=%d;",
		    ch->network->adapter.network, ch->name, ch->settings.game,
		    ch->settings.turn_timer, ch->configured, ch->joined);
	}
}

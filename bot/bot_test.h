/*
 * bot_test.h - the window tests, fuzzers and benchmarks have into the
 * core, beyond the public headers (bot.h, adapter.h, table.h): finding a
 * channel's table, listing the tables, giving a network an admin, and a
 * one-line account of what a configuration made of networks and channels.
 * The bot itself never includes it; struct bot, network and channel stay
 * private to the core.
 */
#ifndef STICHBOT_BOT_TEST_H
#define STICHBOT_BOT_TEST_H

#include <stddef.h>

#include "adapter.h"
#include "bot.h"
#include "i18n.h"
#include "table.h"

/* The table of channel on adapter's network, or NULL. */
struct table *bot_table(struct bot *bot, struct adapter *adapter,
    const char *channel);
/* The channels the bot knows, 0 .. bot_channel_count() - 1. */
int bot_channel_count(const struct bot *bot);
/* Channel i's name, and its table (NULL: none). */
const char *bot_channel_name(const struct bot *bot, int i);
struct table *bot_channel_table(const struct bot *bot, int i);
/* The language channel's table speaks. */
enum lang bot_channel_lang(struct bot *bot, struct adapter *adapter,
    const char *channel);
/* Makes pattern (a mask or an account, as in a configuration) an admin. */
void bot_add_admin(struct bot *bot, struct adapter *adapter,
    const char *pattern);
/*
 * "n1 irc admins=a game=wizard; ... n1/#one game=wizard timer=120
 * configured=1 joined=1; ...": every network, then every channel.
 */
void bot_describe(const struct bot *bot, char *buf, size_t len);

#endif

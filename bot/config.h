/*
 * config.h - the bot's configuration: one JSON file (see
 * config/stichbot.example.json for every key, documented).
 *
 * config.c checks the common parts (the store, logging, the computer
 * players, each network's name, type, admins and channels); each adapter
 * checks its own keys of its network object in init() with cfg.h.  Unknown
 * keys are errors everywhere, so typos never pass silently.
 */
#ifndef STICHBOT_CONFIG_H
#define STICHBOT_CONFIG_H

#include <stddef.h>

#include <jansson.h>

/* The keys config.c knows in a network object; adapters allow them too. */
extern const char *const config_network_keys[];

/* A table's settings for one channel or room. */
struct config_channel {
	char *name;              /* "#wizards", "!room:server" or an alias */
	char *game;              /* default game: "wizard", "birdhead", ... */
	char *lang;              /* "en" or "ja" */
	char *prefixes;          /* command prefixes, e.g. "!/" */
	int plain;               /* 1: formatting off (no colours, no bold) */
	int turn_timer;          /* seconds a player has for a turn (0: none) */
	json_t *options;         /* owned: default options, ["notequal", ...] */
};

struct config_network {
	char *name;              /* unique; the store keys tables by it */
	char *type;              /* adapter name: "irc", "matrix" */
	char *path;              /* JSON path, "networks[1]", for errors */
	json_t *json;            /* owned: the whole object, for adapter init */
	char **admins;           /* ids, accounts or nick!user@host globs */
	size_t nadmins;
	/* Settings for channels not listed (a Matrix room the bot was invited to). */
	struct config_channel defaults;
	struct config_channel *channels;
	size_t nchannels;
};

struct config {
	char *store_path;        /* default: $STATE_DIRECTORY/stichbot.db */
	char *log_level;         /* "error", "warn", "info", "debug" */
	char *computer_level;    /* "easy", "normal", "hard" */
	int ai_budget_ms;        /* hard players' time per decision */
	int computer_delay_ms;   /* pause before a computer's move (1000) */
	int lobby_idle;          /* seconds before an idle lobby closes */
	int grace;               /* seconds before a player who left is replaced */
	int user_burst;          /* commands one person may send at once (10) */
	int user_interval_ms;    /* one more per this many ms; 0: no limit */
	/*
	 * Commands other than moves at one's own table, per network: this
	 * many at once (10), then one per network_interval_ms (2000; 0: no
	 * limit), so that a crowd cannot fill the connection with replies.
	 */
	int network_burst;
	int network_interval_ms;
	struct config_network *networks;
	size_t nnetworks;
};

/*
 * The checks a configuration and `!admin set` share: a command prefix
 * (1-4 ASCII punctuation characters) and a turn timer (0: none, or
 * 10-3600 seconds).  0 when valid, else -1.
 */
int config_prefix_check(const char *prefix);
int config_turn_timer_check(long seconds);

/* Reads and checks a file.  NULL with "FILE: ..." or a JSON path error. */
struct config *config_load(const char *file, char *err, size_t errlen);
/* Checks a parsed document (borrowed).  NULL with a JSON path error. */
struct config *config_parse(const json_t *root, char *err, size_t errlen);
void config_destroy(struct config *config);

/*
 * The adapter a configuration's "type" selects: as adapter_find(), but
 * NULL for the adapters meant for tests and the terminal ("memory",
 * "console"), which only code adds (bot_add_adapter()).
 */
struct adapter_impl;
const struct adapter_impl *config_adapter_find(const char *type);

/* The settings of channel on a network: its own or the defaults. */
const struct config_channel *config_channel_find(
    const struct config_network *network, const char *channel);

#endif

/*
 * bot.h - the bot core: adapters in, tables out.
 *
 * A bot owns its adapters and its tables (one per channel of a network),
 * borrows a loop and a store, and applies a configuration.  Everything runs
 * on the loop's thread; adapters tell it what happens through the listener
 * it gives each of them (struct adapter_listener, adapter.h).
 *
 * Life cycle:
 *   bot = bot_create(loop, store, &settings);
 *   bot_configure(bot, config);        networks become adapters, channels
 *                                      get their settings (again on reload)
 *   bot_restore(bot);                  unfinished games come back
 *   bot_start(bot);                    adapters connect and join
 *   loop_run(loop);
 *   bot_stop(bot, goodbye);            adapters say goodbye and disconnect
 *   bot_destroy(bot);
 */
#ifndef STICHBOT_BOT_H
#define STICHBOT_BOT_H

#include <stddef.h>
#include <stdint.h>

#include "adapter.h"
#include "config.h"

struct loop;
struct store;
struct bot;
struct game_impl;
struct game_options;

/* Bot-wide settings not tied to a network; zero fields take defaults. */
struct bot_settings {
	const char *computer_level;  /* level of stand-ins/addbot: "normal" */
	int ai_budget_ms;            /* hard players' budget (default 100) */
	int lobby_idle;              /* s before an idle lobby closes (1800) */
	/* s before a leaver is stood in for (60); negative: at once */
	int grace;
	int computer_delay_ms;       /* pause before a computer moves (1000) */
	/*
	 * Each person's commands: command_burst at once, then one per
	 * command_interval_ms (defaults 10 and 1000); a negative
	 * command_burst turns the limit off (the terminal, scripted tests).
	 */
	int command_burst;
	int command_interval_ms;
	/*
	 * Commands other than moves at one's own table, per network:
	 * network_burst at once, then one per network_interval_ms (defaults
	 * 10 and 2000); negative network_burst, or command_burst: no limit.
	 */
	int network_burst;
	int network_interval_ms;
	uint64_t seed;               /* 0: seeds from the system's randomness */
};

struct bot *bot_create(struct loop *loop, struct store *store,
    const struct bot_settings *settings, char *err, size_t errlen);
/* Stops nothing: call bot_stop() first.  NULL is fine. */
void bot_destroy(struct bot *bot);

/*
 * Applies a configuration (borrowed; the bot copies what it keeps): adds an
 * adapter for each new network (adapter init() errors are returned), joins
 * new channels, leaves channels no longer listed once their tables are
 * over, and updates channel settings and admins.  Tables are never lost.
 * On a reload of a running bot, new adapters are started at once.
 */
int bot_configure(struct bot *bot, const struct config *config, char *err,
    size_t errlen);

/*
 * Adds an adapter that is not in a configuration (the terminal, the test
 * medium) for network name, with channel settings for every channel
 * (borrowed; copied).  The adapter's init() gets config (may be NULL).
 */
struct adapter *bot_add_adapter(struct bot *bot,
    const struct adapter_impl *impl, const char *network,
    const json_t *config, const struct config_channel *defaults,
    char *err, size_t errlen);

/*
 * What `!admin reload` calls (stichbot run rereads its file): 0, or -1
 * with a reason.  Without one, admins are told reloading is not possible.
 */
void bot_set_reload(struct bot *bot,
    int (*reload)(void *arg, char *err, size_t errlen), void *arg);

/* Rebuilds every unfinished game of the store; returns how many, or -1. */
int bot_restore(struct bot *bot);
/* Starts (connects) every adapter not yet started. */
int bot_start(struct bot *bot);
/*
 * The first step of a clean stop: no table moves on its own any more
 * (clocks and computers stop), while the caller lets what is queued
 * leave for a few seconds.
 */
void bot_hold(struct bot *bot);
/*
 * Says goodbye where games are running, in each channel's language, and
 * stops their clocks; with withhold, the stored messages still waiting
 * that have not begun to leave go first to the next start (adapter.h's
 * withhold()), so that the goodbye is not stuck behind them.  The caller
 * then lets the loop run until bot_queue_depth() is 0 (or some seconds
 * pass) so that the goodbyes leave within the flood budget.
 */
void bot_say_goodbye(struct bot *bot, int withhold);
/* Messages the started adapters hold that can still leave. */
size_t bot_queue_depth(const struct bot *bot);
/*
 * Hands what the core queued for the adapters (sends and parts, see
 * medium.h) over now; the loop does it by itself a moment after each
 * event.  For drivers that play the loop's part: the in-memory medium of
 * tests reaches it through its listener's flush().
 */
void bot_flush(struct bot *bot);
/*
 * Says goodbye (unless goodbye is NULL, or it was said) where games are
 * running, in each channel's language, and stops every adapter.
 */
void bot_stop(struct bot *bot, const char *goodbye);

/*
 * After the store failed for good (store_failed(): deleted, replaced, an
 * I/O error), every running table is told once and stops its clocks;
 * -1 then, 0 while the store is sound.  The core checks after each
 * event; `stichbot run` also calls it from its periodic store check.
 */
int bot_check_store(struct bot *bot);

/* For `status` and the service's logs. */
size_t bot_table_count(const struct bot *bot);
size_t bot_game_count(const struct bot *bot);
/*
 * The options of the first open lobby (a table with no game yet), and its
 * game; NULL when there is none.  For `stichbot play`, which sets up its
 * one table as its command line says.
 */
const struct game_impl *bot_lobby_options(const struct bot *bot,
    struct game_options *out);

#endif

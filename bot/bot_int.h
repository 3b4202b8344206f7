/*
 * bot_int.h - the bot core's own header: struct bot, network and channel,
 * shared by the core's files (bot*.c, the command files, newcomer.c, and
 * the table module through table_int.h).  Nothing outside bot/ includes
 * it: tests, fuzzers and benchmarks use the public headers (bot.h,
 * adapter.h, table.h) and bot_test.h.
 *
 * Ownership: a bot owns its networks (each with one adapter) and its
 * channels; a channel owns its table; a table owns its struct game.  A
 * table's fields are written only by the table module (table.h).
 */
#ifndef STICHBOT_BOT_INT_H
#define STICHBOT_BOT_INT_H

#include <stdint.h>

#include "adapter.h"
#include "ai.h"
#include "bot.h"
#include "bucket.h"
#include "game.h"
#include "i18n.h"
#include "record.h"
#include "rng.h"
#include "table.h"
#include "text.h"

struct store_game;

/* The settings a channel's table runs with (a copy of config_channel). */
struct channel_settings {
	char game[16];
	enum lang lang;
	char prefixes[8];
	int plain;
	int turn_timer;          /* seconds; 0: no timer */
	json_t *options;         /* owned: ["name", "name=value", ...] */
};


struct network {
	struct bot *bot;
	struct adapter adapter;
	char **admins;
	size_t nadmins;
	struct channel_settings defaults;
	json_t *config;          /* owned: the network's configuration */
	int started;
	int configured;          /* still in the configuration */
	int was_up;              /* connected once: later ups are reconnects */
	int up;                  /* what the adapter last said of its connection */
	/* The allowance of commands that are not moves (struct bot). */
	struct bucket crowd;
	int crowd_ready;
};

struct channel {
	struct network *network;
	char *name;
	/* What the table runs with: configured, with changes applied. */
	struct channel_settings settings;
	/* What the configuration says (the channel's, or the network's). */
	struct channel_settings config;
	/* owned: the changes made at run time, as stored (settings.c). */
	json_t *changes;
	int configured;          /* listed in the configuration */
	int removed;             /* dropped by a reload: leave when idle */
	int joined;
	/* Put out by a kick or a ban (the adapter said so): no resume. */
	int outside;
	/* Changes not stored in a row (told once; backs retries off). */
	int store_failures;
	/*
	 * The informational answer said here last (a hash of its text) and
	 * when, so that a crowd asking for it hears it once (commands.c).
	 */
	size_t info_hash;
	uint64_t info_at;
	/*
	 * The game and options of the last game finished here (NULL: none
	 * yet), which the next lobby starts with (table.c, cmd_lobby.c).
	 */
	const struct game_impl *last_impl;
	struct game_options last_options;
	int last_read;           /* the store was asked for them (restarts) */
	struct table *table;     /* NULL: no table */
};

struct bot {
	struct loop *loop;
	struct store *store;
	enum ai_level computer_level;
	int ai_budget_ms;
	int lobby_idle;
	int grace;
	int computer_delay_ms;
	/* Each person's command allowance (bucket.h); NULL: no limit. */
	struct buckets *commands_allowed;
	/* The network-wide allowance of commands that are not moves. */
	int network_burst, network_interval_ms;   /* 0: no limit */
	struct buckets *crowd_told;
	/*
	 * Who was told that their commands are refused (too fast, a table
	 * busy): once a minute per person and kind at most (commands.c).
	 */
	struct buckets *refusal_told;
	struct rng rng;
	struct network **networks;
	int nnetworks, networks_cap;
	struct channel **channels;
	int nchannels, channels_cap;
	/* channels by network and name: open addressing, a power of 2. */
	struct channel **index;
	size_t index_cap;
	/*
	 * Where each person has sat, by network and user id: candidates
	 * that user_tables() checks, so a private command does not scan
	 * every table.  Entries are added when a seat gets an owner and
	 * never removed (a stale candidate is simply skipped).
	 */
	struct sitter **sitters;
	size_t sitters_cap, nsitters;
	int started;
	/* What the bot says, committed with what it changed (outbox.h). */
	struct outbox *outbox;
	/* The adapters' calls: sends and parts queued for the loop. */
	struct medium *medium;
	int outbox_loaded;       /* unsent rows of the last run handed out */
	uint64_t forget_timer;   /* writes the rows reported sent (on_sent) */
	uint64_t part_timer;     /* leaves removed channels (channel_leave_later) */
	/* A table told the last event was not saved (table_reload()). */
	int not_saved_told;
	/* Log lines of the event, said once it is stored (bot_log_stored). */
	struct text stored_log;
	int store_lost;          /* the store failed for good (fail-stop) */
	int goodbye_said;        /* bot_say_goodbye() ran */
	/* The tables whose turn's clock waits (bot_clock_wait()). */
	struct table **clock_tables;
	int nclock_tables, clock_tables_cap;
	/* Called by the admin command `reload` (set by `stichbot run`). */
	int (*reload)(void *arg, char *err, size_t errlen);
	void *reload_arg;
	uint64_t started_at;
};

/* bot.c */
void settings_copy(struct channel_settings *to,
    const struct channel_settings *from);
void settings_finish(struct channel_settings *settings);
void settings_default(struct channel_settings *settings);

/* settings.c */
/*
 * Sets what the configuration says for channel (copied) and applies the
 * stored changes that still hold over it; a change made over another
 * configured value is forgotten, in the store too.
 */
void channel_configure(struct channel *channel,
    const struct channel_settings *configured);
/*
 * Changes a setting (`!admin set KEY VALUE`, `!lang`) and stores the
 * change, in the open batch when there is one.  Returns 0 with the value
 * as kept in canon, or -1 with the message that says why in refusal (its
 * one argument the value, "s"; MSG_BAD_SETTING takes key and value;
 * MSG_NOT_SAVED none) and nothing changed.
 */
int channel_setting_change(struct channel *channel, const char *key,
    const char *value, enum msg *refusal, char *canon, size_t canonlen);
/* The settings again from the configured ones and the store. */
void channel_settings_reload(struct channel *channel);
/* Frees the settings, the configured ones and the changes. */
void channel_settings_free(struct channel *channel);

/* bot.c, for bot_networks.c and bot_events.c. */
struct network *network_find(struct bot *bot, const char *name);
void network_destroy(struct network *network);
/* IRC channel names compare without case, Matrix room ids exactly. */
int channel_name_equal(const char *a, const char *b);
/* bot_events.c: the core's listener, handed to every adapter. */
extern const struct adapter_listener bot_listener;
/* bot_networks.c: joins channel now or once its network is up. */
void channel_join(struct channel *channel);
/*
 * bot_networks.c: leaves the channels a reload removed whose tables are
 * over, after the current event, whose last lines (a game's end) must
 * leave before the PART.
 */
void channel_leave_later(struct bot *bot);
struct channel *channel_get(struct network *network, const char *name,
    int create);
/* A new channel configured as configured (copied; see channel_configure). */
struct channel *channel_add(struct network *network, const char *name,
    const struct channel_settings *configured);
int bot_is_admin(struct bot *bot, struct network *network,
    const char *channel, const struct user *user);
/*
 * Sends to a channel in its format; private to a user of a network, as
 * part of flow (the table's channel; NULL for a reply to one person).
 * Inside an event (bot_enter) the message is committed with the event's
 * changes and leaves when the event ends.
 */
void channel_send(struct channel *channel, const struct text *text);
/*
 * A reply in channel that changed nothing: said outside the table's flow
 * (struct send_info), so that people asking questions never hold back
 * the table's own lines, however many ask.
 */
void channel_reply(struct channel *channel, const struct text *text);
void network_send_private(struct network *network, const char *user_id,
    const char *flow, const struct text *text);
/*
 * As network_send_private(), for a line of no use after the loop time
 * expires, nor once the medium has lost its connection (struct
 * send_info): the turn timer's reminder.
 */
void network_send_private_until(struct network *network,
    const char *user_id, const char *flow, const struct text *text,
    uint64_t expires);
/* While on, see outbox_skip_resent(). */
void network_skip_resent(struct network *network, int on);
/*
 * Every event the core handles runs between bot_enter() and bot_leave():
 * one store batch holding its changes and the messages they cause (see
 * outbox.h).  When the batch cannot be committed, bot_leave() rebuilds
 * the tables the event spoke for from the store and tells them.
 */
void bot_enter(struct bot *bot);
/*
 * The name people reach the bot by on network right now (the IRC nick it
 * holds, the Matrix user id), for instructions such as "send it privately
 * to stichbot_"; "me" in lang while the adapter cannot tell.
 */
const char *bot_self_name(struct network *network, enum lang lang);
/* 0, or -1 when the event's batch could not be committed. */
int bot_leave(struct bot *bot);
/*
 * Logs (info) a change of the event being handled once the store has it:
 * "game 3 finished" is not true until the event's commit is, which a
 * full disk refuses (the event is then undone, and the failure logged
 * instead).  Outside an event, at once.
 */
void bot_log_stored(struct bot *bot, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * The tables whose turn's clock waits for its prompt to be said
 * (table_clock.c tells the bot, waits 1 or 0); bot_clocks_check() asks
 * each of them again, after every event and every message reported sent.
 */
void bot_clock_wait(struct bot *bot, struct table *table, int waits);
void bot_clocks_check(struct bot *bot);
/* Remembers that user_id took a seat in channel (see struct bot). */
void user_sat(struct channel *channel, const char *user_id);
/*
 * What private lines call channel's table (the medium's title: a Matrix
 * room's alias or name), or its own name where another table's room has
 * the same title.
 */
void channel_title(const struct channel *channel, char *out,
    size_t outlen);
/* The tables of network where user_id sits (up to max); returns count. */
int user_tables(struct network *network, const char *user_id,
    struct channel **out, int max);
/* The running games of network where someone took over user_id's seat. */
int user_former_tables(struct network *network, const char *user_id,
    struct channel **out, int max);

/* The short rules of a game or an option (`rules`), or why there are none. */
void rules_say(struct text *out, enum lang lang, char prefix,
    const char *name);
/*
 * How far word is from a command name, for "did you mean": 0 for a name
 * begun, the edit distance when it is small for the word's length, else
 * a large number.
 */
int name_distance(const char *word, const char *name);

/* commands.c */
/*
 * Handles a line said in channel (NULL: privately) by user; edited: a
 * message edited into line, which is answered, never acted on.
 */
void commands_handle(struct network *network, struct channel *channel,
    const struct user *user, const char *line, int edited);

#endif

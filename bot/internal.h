/*
 * internal.h - the bot core's own structures, shared by bot.c (adapters,
 * channels, configuration, restore), table.c (the game flow, timers and
 * announcements) and commands.c (parsing and answering commands).
 *
 * Ownership: a bot owns its networks (each with one adapter) and its
 * channels; a channel owns its table; a table owns its struct game.
 */
#ifndef STICHBOT_INTERNAL_H
#define STICHBOT_INTERNAL_H

#include <stdint.h>

#include "adapter.h"
#include "ai.h"
#include "bot.h"
#include "bucket.h"
#include "game.h"
#include "i18n.h"
#include "record.h"
#include "rng.h"
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

/* One seat of a table, in the lobby or in a game. */
struct seat {
	char *user_id;           /* the owner's id; "" for a computer's own seat */
	char *name;              /* the name shown (follows renames) */
	int computer;            /* 1: a computer's own seat (addbot) */
	int standin;             /* 1: a computer plays for the absent owner */
	int level;               /* enum ai_level of the computer */
	int missed;              /* turns played for the owner in a row */
	int stop_vote;           /* voted to stop the game */
	/* When a computer takes the seat of someone who left (0: never). */
	uint64_t grace_until;
};

struct table {
	struct channel *channel;
	const struct game_impl *impl;
	struct game_options options;
	struct seat seats[GAME_MAX_SEATS];
	int nseats;
	struct game *game;       /* NULL while the table is a lobby */
	int64_t game_id;         /* the store's id of the game */
	uint64_t seed;
	/* What has been announced: the round and its completed tricks. */
	int round_seen, tricks_seen;
	/* Which seats have been prompted in the current phase step. */
	unsigned prompted;
	/* Seats whose hand line just now carried their task (send_hands). */
	unsigned hand_prompted;
	uint64_t turn_timer, half_timer, computer_timer, idle_timer;
	uint64_t grace_timer;    /* the earliest seat's grace_until */
	/* Picks the table up again after a change could not be stored. */
	uint64_t retry_timer;
	/* Nobody seated: the game waits (paused) and closes at this timer. */
	uint64_t abandon_timer;
	int paused;
	/* Restored or cut off: to be resumed once the network is up. */
	int unresumed;
	/* The lobby as last stored (table_lobby_save); NULL: none stored. */
	char *lobby_saved;
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
	int up;                  /* what bot_on_connected() last said */
	/* The allowance of commands that are not moves (struct bot). */
	struct bucket crowd;
	int crowd_ready;
};

struct channel {
	struct network *network;
	char *name;
	struct channel_settings settings;
	int configured;          /* listed in the configuration */
	int removed;             /* dropped by a reload: leave when idle */
	int joined;
	/* Changes not stored in a row (told once; backs retries off). */
	int store_failures;
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
	int outbox_loaded;       /* unsent rows of the last run handed out */
	int store_lost;          /* the store failed for good (fail-stop) */
	int goodbye_said;        /* bot_say_goodbye() ran */
	/* Called by the admin command `reload` (set by `stichbot run`). */
	int (*reload)(void *arg, char *err, size_t errlen);
	void *reload_arg;
	uint64_t started_at;
};

/* bot.c */
void settings_copy(struct channel_settings *to,
    const struct channel_settings *from);
void settings_finish(struct channel_settings *settings);
struct channel *channel_get(struct network *network, const char *name,
    int create);
int bot_is_admin(struct bot *bot, struct network *network,
    const char *channel, const struct user *user);
/*
 * Sends to a channel in its format; private to a user of a network, as
 * part of flow (the table's channel; NULL for a reply to one person).
 * Inside an event (bot_enter) the message is committed with the event's
 * changes and leaves when the event ends.
 */
void channel_send(struct channel *channel, const struct text *text);
void network_send_private(struct network *network, const char *user_id,
    const char *flow, const struct text *text);
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
void bot_leave(struct bot *bot);
/* Remembers that user_id took a seat in channel (see struct bot). */
void user_sat(struct channel *channel, const char *user_id);
/* The tables of network where user_id sits (up to max); returns count. */
int user_tables(struct network *network, const char *user_id,
    struct channel **out, int max);

/* table.c */
struct table *table_create(struct channel *channel,
    const struct game_impl *impl);
/* Frees the table; what the store holds of it stays (see table_close). */
void table_destroy(struct table *table);
/*
 * Lobbies survive restarts: table_lobby_save() stores a lobby when it
 * differs from what was stored (call it after anything that may change
 * one: it does nothing for a running game), and table_lobby_load() makes
 * a channel's table from what table_lobby_save() stored.
 */
void table_lobby_save(struct table *table);
struct table *table_lobby_load(struct channel *channel, const char *lobby,
    char *err, size_t errlen);
/*
 * Ends the table for good: a running game is ended as abandoned (when
 * abandoned), a stored lobby is deleted; then the table is destroyed.
 */
void table_close(struct table *table, int abandoned);
int table_seat_of(const struct table *table, const char *user_id);
int table_seat_by_name(const struct table *table, const char *name);
int table_humans(const struct table *table);
/*
 * Frees a lobby seat, saying so into out; closes (destroys) the table
 * when no person is left and returns 1 then.
 */
int table_lobby_remove(struct table *table, int seat, struct text *out);
/* The game's name in lang. */
void game_title(struct text *t, enum lang lang, const struct game_impl *impl);
int table_start(struct table *table, struct text *reply);
/*
 * Applies seat's action; on success it is stored, announced, and the
 * table moves on.  -1 with the reason in reply (nothing changed).  flags:
 * ACT_COMPUTER for a computer's move, ACT_IN_CHANNEL when the person
 * typed it in the channel (reply goes there).
 */
#define ACT_COMPUTER 1
#define ACT_IN_CHANNEL 2
int table_act(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply);
/*
 * Why seat may not make action, in catalog words, into reply: whose turn
 * it is or what the table waits for (public facts); anything drawn from
 * the hand (which cards or bids are allowed) goes to the seat's owner
 * privately, and a reply meant for the channel says only that it did.
 */
void table_refusal(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply);
/* Re-arms the timers and computer moves for whoever is to act now. */
void table_next(struct table *table);
/* The same, appending the turn line to out instead of sending it. */
void table_next_text(struct table *table, struct text *out);
/* Deals the next round when a restored game waits for one. */
int table_deal_pending(struct table *table);
void table_idle_arm(struct table *table);
/* A seat changes hands (stand-in on/off, replace); stored and announced. */
int table_seat_changed(struct table *table, int seat);
/* Private texts. */
void table_send_hand(struct table *table, int seat, int prompt);
void table_status(struct table *table, struct text *out);
/*
 * Tells the channel where a game stands once the bot can speak again
 * (why: MSG_RESUMED after a restart, MSG_RECONNECTED after an outage):
 * the round, trump, the trick so far and each player's bid and tricks in
 * one message, then prompts whoever is to act and starts their time.
 */
void table_resume(struct table *table, enum msg why);
void table_scores(struct table *table, struct text *out);
void table_player_lines(struct table *table, struct text *out);
/* Gives seat grace seconds to come back before a computer takes it. */
void table_grace(struct table *table, int seat, int seconds);
/* A stand-in takes seat now (leave, grace expired, two timeouts). */
void table_stand_in(struct table *table, int seat, enum msg why);
/*
 * After a change of channel's table could not be committed: the table is
 * rebuilt from the store (the truth), the channel told once, and the game
 * picked up again after a pause that grows while the store keeps failing.
 */
void table_reload(struct channel *channel);
/* Picks the table's game up again after that pause. */
void table_retry(struct table *table);
/*
 * Seats and settings changing hands: with the game flow, table.c is the
 * only writer of a table.  Each says what happened into out (the reply
 * of the command) and stores what must survive a restart; -1 when the
 * change was refused (why is in out).
 */
int table_join(struct table *table, const struct user *user, struct text *out);
int table_add_computer(struct table *table, int level, struct text *out);
int table_set_game(struct table *table, const struct game_impl *impl,
    struct text *out);
void table_set_options(struct table *table, const struct game_options *options);
/* Someone takes over a seat a computer plays (replace). */
int table_take_over(struct table *table, int seat, const struct user *user,
    struct text *out);
/* The owner takes their seat back; out NULL: quietly, as they act. */
int table_back(struct table *table, int seat, struct text *out);
/* The owner gives the seat up (leave): a lobby frees it, a game stands in. */
int table_leave(struct table *table, int seat, struct text *out);
/* The owner left the channel: a lobby frees the seat, a game waits grace s. */
void table_left_channel(struct table *table, int seat, int grace);
/* Seat votes to stop (close a lobby): 1 when a majority now agrees. */
int table_vote_stop(struct table *table, int seat, struct text *out);
/* The person of seat goes by another id or name now. */
void table_rename(struct table *table, int seat, const struct user *now);
/* The same people, game and options dealt afresh; the new table or NULL. */
struct table *table_restart(struct table *table, struct text *out);
/* No clock runs until table_next() or table_resume(). */
void table_hold(struct table *table);
/* Rebuilds a stored game; the caller announces it. */
struct table *table_restore(struct channel *channel,
    const struct store_game *stored, char *err, size_t errlen);
/* Card codes (a JSON array of strings) in the table's colours. */
void text_cards(struct text *t, const struct table *table,
    const json_t *codes);
void text_seat(struct text *t, const struct table *table, int seat,
    int mention);
/*
 * newcomer.c (issue 17).  The one person who reads everything said in
 * channel (the terminal; NULL in a chat); whether seat is theirs, so that
 * sentences about it are said to them; a seat's name as the channel's
 * reader should read it ("You"); and third, or second when seat is the
 * reader's ("X takes the trick" / "You take the trick").
 */
const char *channel_reader(struct channel *channel);
int table_addressed(const struct table *table, int seat);
const char *table_seat_name(const struct table *table, int seat);
enum msg table_seat_msg(const struct table *table, int seat, enum msg third,
    enum msg second);
/* "Ranking: 1. You 120 · 2. CPU1 80 · 2. CPU2 80": ties share a place. */
void table_ranking(const struct table *table, const json_t *scores,
    struct text *out);
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
 * The command, without its prefix, that a person types for action
 * ("bid 2", "trump r", "select n5", "play r7"): what tests, benchmarks
 * and fuzzers type, read back by the same module that parses it.
 */
void commands_for_action(const struct game_impl *impl,
    const struct action *a, char *out, size_t len);
/* Handles a line said in channel (NULL: privately) by user. */
void commands_handle(struct network *network, struct channel *channel,
    const struct user *user, const char *line);

#endif

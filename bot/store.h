/*
 * store.h - the crash-safe store: SQLite in WAL mode.
 *
 * Every accepted action is committed before the bot answers it, so a
 * process killed at any moment restarts with every action any player saw
 * acknowledged.  A stored game is its record (RECORD.md) plus what the bot
 * needs to seat people again: where the table is, who owns each seat, and
 * which seats a computer is playing.
 *
 * Ownership: functions that take a json_t borrow it; functions that return
 * one give the caller a new reference.
 */
#ifndef STICHBOT_STORE_H
#define STICHBOT_STORE_H

#include <stdint.h>

#include <jansson.h>

#include "record.h"

struct store;

/* Where a table lives: the adapter's network name and the channel/room. */
struct store_place {
	const char *network;
	const char *channel;
};

/* Who holds a seat.  user_id is empty for a seat a computer owns. */
struct store_seat {
	const char *user_id;     /* the adapter's stable identity */
	const char *name;        /* display name */
	int computer;            /* 1 while a computer plays the seat */
	int level;               /* the computer's level (enum ai_level) */
	/* 1: the owner gave the seat up; anyone may take it over. */
	int released;
	int stop_vote;           /* 1: its holder voted to stop the game */
	/*
	 * JSON array text of the ids whose seat this was before someone
	 * took it over (they hear who has it); NULL: none.
	 */
	const char *formers;
};

/*
 * Opens (creating when needed) the store at path; ":memory:" gives a
 * private in-memory store for tests.  Returns NULL with a reason.
 */
struct store *store_open(const char *path, char *err, size_t errlen);
/* Closes the store; NULL is fine. */
void store_close(struct store *store);

/*
 * The store as `stichbot run` opens it, for the one process that writes
 * it.  As store_open(), and first takes an exclusive lock on PATH.lock
 * (mode 0600, holding the holder's pid) that lasts until store_close() or
 * the process's end; when another process holds it, returns NULL with a
 * reason naming that process's pid.  A store that SQLite can only open
 * read-only is refused too.  Readers (export) use store_open_readonly()
 * beside it.
 */
struct store *store_open_locked(const char *path, char *err, size_t errlen);

/*
 * The store for reading only (export): opened with SQLITE_OPEN_READONLY,
 * so it is never created, migrated, chmod'ed or written, and a store the
 * caller may read but not write (mode 0444, another user's, a read-only
 * directory or mount) can be read.  A store of an older schema is refused
 * with a reason saying that `stichbot run` upgrades it.  Every write on
 * it fails.  Returns NULL with a reason.
 */
struct store *store_open_readonly(const char *path, char *err,
    size_t errlen);

/*
 * Fail-stop.  Every write first checks that the path still names the
 * file the store opened (and its WAL): a store deleted or replaced under
 * the bot, or a write that failed with an I/O error, corruption or a
 * read-only file, puts the store into its failed state, logged once.
 * From then on every write returns -1 without writing and store_failed()
 * returns the reason (a sentence, valid until store_close()); it returns
 * NULL while the store is sound.  A full disk fails the one write (rolled
 * back whole, logged) but not the store.  Reads go on from the open file.
 */
const char *store_failed(const struct store *store);
/*
 * Checks the files now, without writing (e.g. from a periodic timer, so
 * that a deleted store is noticed while nobody plays): 0 while sound, -1
 * when the store has failed.
 */
int store_check(struct store *store);

/*
 * Records the start of a game: its place, setup (game->impl, setup,
 * players), seed, deal version and seats.  Deals and actions already in game are stored
 * too.  Returns the new game id (> 0), or -1.
 */
int64_t store_game_begin(struct store *store, const struct store_place *place,
    const struct game *game, uint64_t seed, const struct store_seat *seats,
    int nseats);
/* Appends deal number index (zero-based) of a game. */
int store_deal(struct store *store, int64_t id, int index,
    const struct game *game);
/*
 * Appends action number index (zero-based); committed (durable) when this
 * returns 0.
 */
int store_action(struct store *store, int64_t id, int index,
    const struct game *game);
/* Changes who holds seat (a computer standing in, replace, back). */
int store_seat(struct store *store, int64_t id, int seat,
    const struct store_seat *holder);
/*
 * With nobody seated the game waits until Unix time until and then closes
 * (0: it goes on again); kept so that a restart keeps the deadline.
 */
int store_game_pause(struct store *store, int64_t id, int64_t until);
/*
 * Marks a game finished (result: the result object) or abandoned (result
 * NULL: stopped before its end).  Finished games stay for export and stats.
 */
int store_game_end(struct store *store, int64_t id, const json_t *result);

/* One stored game, as handed to the callbacks below. */
struct store_game {
	int64_t id;
	const char *network;
	const char *channel;
	uint64_t seed;
	/* The deal algorithm of its next rounds (struct game's). */
	int deal_version;
	int finished;            /* 1 finished, 0 running, -1 abandoned */
	int64_t paused_until;    /* see store_game_pause(); 0: not paused */
	const json_t *record;    /* RECORD.md, borrowed for the call */
	/*
	 * [{user_id, name, computer, level, released, stop_vote, formers:
	 * [ids]}], borrowed
	 */
	const json_t *seats;
};

typedef int (*store_game_fn)(const struct store_game *game, void *arg);

/*
 * Calls fn for every unfinished game, oldest first.  Stops early when fn
 * returns non-zero and returns that value.  A game whose rows cannot be
 * read is set aside (see store_game_damaged()) and skipped: -1 only when
 * the store itself cannot be read.
 */
int store_each_running(struct store *store, store_game_fn fn, void *arg);
/*
 * Calls fn for every game matching the filters (NULL/0: any), oldest first,
 * for export.  running selects unfinished games too.
 */
int store_each_game(struct store *store, const char *channel, int64_t id,
    int include_running, store_game_fn fn, void *arg);

/*
 * The game of the last game finished in channel, into game (its registry
 * name), and its options (a new reference, or NULL when they are not
 * JSON): 1, 0 when the channel finished none, -1 when the store cannot
 * be read.
 */
int store_last_finished(struct store *store, const char *network,
    const char *channel, char *game, size_t gamelen, json_t **options);

/* Per-player statistics for `stats` and `top`. */
struct store_stats {
	char user_id[128];
	char name[64];
	int played;
	int wins;
	double average;          /* mean final score */
	int rounds_bid;          /* Wizard: rounds with a bid */
	int rounds_exact;        /* Wizard: rounds made exactly */
};

/*
 * Statistics of user_id for game (a game name), over finished games.
 * Returns 0 (out->played 0 when none), or -1.
 */
int store_player_stats(struct store *store, const char *game,
    const char *user_id, struct store_stats *out);
/*
 * The best players of a game by wins, then by average (higher first, or
 * lower first where the game's lowest total wins); fills up to max entries
 * of out and returns how many, or -1.
 */
int store_top(struct store *store, const char *game, struct store_stats *out,
    int max);

/*
 * The id of the player who last sat under name (case-insensitive) in any
 * stored game: 1 with the id in out, 0 when nobody did, -1 on an error.
 */
int store_find_user(struct store *store, const char *name, char *out,
    size_t outlen);

/*
 * Lobbies, tables opened but not started: one per network and channel,
 * their contents a JSON text that table.c writes and reads.  put replaces
 * the channel's lobby; delete is fine when there is none.  Both return 0,
 * or -1 (logged).
 */
int store_lobby_put(struct store *store, const char *network,
    const char *channel, const char *lobby);
int store_lobby_delete(struct store *store, const char *network,
    const char *channel);
/*
 * Calls fn for each stored lobby (its strings are valid during the call);
 * returns how many calls returned 0, or -1 when the store failed.
 */
typedef int (*store_lobby_fn)(const char *network, const char *channel,
    const char *lobby, void *arg);
int store_each_lobby(struct store *store, store_lobby_fn fn, void *arg);

/*
 * Damaged games.  store_each_running() sets aside, with
 * store_game_damaged(), every running game whose rows cannot be read, and
 * goes on with the others; the caller sets aside a game that it read but
 * cannot replay.  A game set aside is no longer running (not listed by
 * store_each_running()), keeps its rows untouched and is logged with its
 * id and place.  Returns 0, or -1 (logged; e.g. the game is not running).
 */
int store_game_damaged(struct store *store, int64_t id, const char *reason);
/*
 * Calls fn for every game set aside, oldest first, with its rows as
 * stored: raw is {"id", "network", "channel", "damaged" (the reason),
 * "game", "players", "options", "first", "seed", "deals": [...],
 * "actions": [...]} where players, options and each deal and action are
 * the stored JSON texts as strings, unparsed; borrowed for the call.
 * Stops when fn returns non-zero and returns that value; -1 on an error.
 */
typedef int (*store_raw_fn)(const json_t *raw, void *arg);
int store_each_damaged(struct store *store, store_raw_fn fn, void *arg);

/* Small named values that must survive restarts (e.g. Matrix sync tokens). */
int store_kv_set(struct store *store, const char *key, const char *value);
/* Returns a malloc'd copy of the value (caller frees), or NULL. */
char *store_kv_get(struct store *store, const char *key);
/*
 * Sets key to value in the same transaction as the store's next write
 * (the batch the core opens around its handling of each message), or at
 * store_kv_flush(): e.g. the Matrix adapter marks an event handled in the
 * transaction of the event's effect, so a crash can neither lose the
 * effect nor handle the event twice.  0, or -1 when inside a batch the
 * value cannot be written.  Out of memory is fatal (xmalloc.h).
 */
int store_kv_defer(struct store *store, const char *key, const char *value);
/* Writes what was deferred now, unless a batch is open; 0 or -1. */
int store_kv_flush(struct store *store);
int store_flush(struct store *store);

/*
 * Batches: the core opens one around each event it handles, so that
 * every change the event causes and every message those changes make the
 * bot say are committed together (each store call above becomes a
 * savepoint of the batch).  commit returns 0 once the batch is durable,
 * or -1 when it was rolled back.  store_batch_changes() counts the rows
 * the batch changed so far, not counting outbox rows and deferred values:
 * 0 means the event changed nothing people must hear about.
 */
int store_batch_begin(struct store *store);
int64_t store_batch_changes(struct store *store);
int store_batch_commit(struct store *store);
void store_batch_rollback(struct store *store);

/*
 * The outbox: messages caused by stored changes.  A row is added inside
 * the batch of its change and deleted (in the next transaction: see
 * store_outbox_sent) once the adapter reports it sent; rows left after a
 * crash are sent again at start-up, in id order.  body is the message as
 * text.h marks it.  Strings are borrowed.
 */
struct store_message {
	int64_t id;
	const char *network;
	const char *target;      /* the channel, or the user id when private */
	int private_;
	const char *flow;        /* the table's channel, or NULL */
	const char *body;
	int64_t age;             /* seconds since it was stored (reading) */
};
/* Adds a row; returns its id (> 0), or -1. */
int64_t store_outbox_add(struct store *store, const struct store_message *msg);
/*
 * Forgets row id with the next transaction; returns 0 (out of memory is
 * fatal, see xmalloc.h).
 */
int store_outbox_sent(struct store *store, int64_t id);
/* Calls fn for each row in id order (strings valid during the call). */
typedef void (*store_message_fn)(const struct store_message *msg, void *arg);
int store_each_outbox(struct store *store, store_message_fn fn, void *arg);

/*
 * For tests: the next n commits fail as on a full disk (the transaction
 * is rolled back and the call returns -1).
 */
void store_fail_commits(struct store *store, int n);
/*
 * 1 while a full disk keeps refusing writes after its first refusal:
 * the store logs the run in short (one line every ten minutes, one when
 * writes are stored again), and callers need not log each refusal.
 */
int store_full_quiet(const struct store *store);

#endif

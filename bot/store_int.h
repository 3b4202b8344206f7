/*
 * store_int.h - what the store's own files share (store.c, store_schema.c,
 * store_games.c, store_stats.c, store_kv.c): the struct behind struct
 * store, the statements prepared at open and the helpers every call runs
 * through.  Nothing outside bot/store*.c includes it: store.h is the
 * store's one interface.  The helpers are prefixed db_.
 */
#ifndef STICHBOT_STORE_INT_H
#define STICHBOT_STORE_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>
#include <sqlite3.h>

#include "log.h"
#include "store.h"

/* The statements prepared once at open. */
enum stmt_id {
	STMT_BEGIN,
	STMT_BEGIN_IMMEDIATE,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_GAME_INSERT,
	STMT_GAME_SELECT,
	STMT_GAME_PAUSE,
	STMT_GAME_END,
	STMT_SEAT_INSERT,
	STMT_SEAT_UPDATE,
	STMT_SEATS_SELECT,
	STMT_DEAL_NEXT,
	STMT_DEAL_INSERT,
	STMT_DEALS_SELECT,
	STMT_ACTION_NEXT,
	STMT_ACTION_INSERT,
	STMT_ACTIONS_SELECT,
	STMT_LIST_RUNNING,
	STMT_LIST_GAMES,
	STMT_LAST_FINISHED,
	STMT_STANDING_INSERT,
	STMT_STATS_PLAYER,
	STMT_STATS_TOP,
	STMT_KV_SET,
	STMT_KV_GET,
	STMT_FIND_USER,
	STMT_LOBBY_PUT,
	STMT_LOBBY_DELETE,
	STMT_LOBBIES_SELECT,
	STMT_SAVEPOINT,
	STMT_RELEASE,
	STMT_ROLLBACK_TO,
	STMT_OUTBOX_INSERT,
	STMT_OUTBOX_DELETE,
	STMT_OUTBOX_SELECT,
	STMT_COUNT,
};

/* A value store_kv_defer() keeps for the next transaction. */
struct deferred_kv {
	char *key, *value;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT_COUNT];
	/* An open batch (store_batch_begin): calls are savepoints of it. */
	int batch;
	/* SQLite's change count when the batch began. */
	int64_t batch_start;
	/* Rows of the batch that are not changes people hear about. */
	int64_t batch_quiet;
	/*
	 * Values and sent outbox rows waiting for a transaction that
	 * commits; the first kv_written and sent_written of them are written
	 * in the open one (db_write_deferred()).
	 */
	struct deferred_kv *kv;
	size_t nkv, kv_cap, kv_written;
	int64_t *sent;
	size_t nsent, sent_cap, sent_written;
	/* Fault injection for tests: commits still to fail. */
	int fail_commits;
	/*
	 * A full disk's run of refused writes: when it began (monotonic
	 * ms, 0: none), the last refusal, when the log last said so, and
	 * how many so far.
	 */
	uint64_t full_since, full_last, full_told;
	long full_refused;
	/*
	 * Fail-stop (store_failed()).  path is the file as opened (NULL for
	 * an in-memory store), dev/ino the file SQLite holds open and those
	 * of its WAL: a path that no longer names them means the store was
	 * deleted or replaced under the bot, and writing on would only fill
	 * a file nobody will ever read again.
	 */
	char *path;
	dev_t dev, wal_dev;
	ino_t ino, wal_ino;
	int wal_known;
	int lock_fd;             /* PATH.lock, held by store_open_locked() */
	int file_fd;             /* PATH itself, held by store_open_locked() */
	char failed[256];        /* why the store failed; empty while sound */
	char damage[160];        /* why load_game() found a game damaged */

	/*
	 * What the public call in progress is about, for its log lines: a
	 * game id (0: none) or a lobby's place.  Set on entry by context().
	 */
	int64_t ctx_game;
	const char *ctx_network, *ctx_channel;
};

/* Sets what the following log lines are about (see struct store). */
void db_context(struct store *store, int64_t game, const char *network,
    const char *channel);
/*
 * Writes one log line through log.h, naming what the call in progress is
 * about: "store: game 12 (libera #wizard): ..." or "store: libera
 * #wizard: ...".
 */
void store_log_at(struct store *store, enum log_level level, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/* An error of the call in progress; needs a variable named store. */
#define store_log(...) store_log_at(store, LOG_LEVEL_ERROR, __VA_ARGS__)

/*
 * Puts the store into its failed state: from now on every write is
 * refused and store_failed() gives the reason.  Logged once.
 */
void db_set_failed(struct store *store, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Whether the store's files are still the ones opened; -1 fails it. */
int db_check_file(struct store *store);
/* A write may go ahead: 0, or -1 (logged) on a failed store. */
int db_writable(struct store *store);
/* Logs a failed SQLite call with SQLite's reason; returns -1. */
int db_fail(struct store *store, const char *what);

/* A seed as the signed 64-bit integer SQLite keeps, and back. */
sqlite3_int64 db_seed_in(uint64_t seed);
uint64_t db_seed_out(sqlite3_int64 v);

/* A cached statement, ready for binding. */
sqlite3_stmt *db_stmt(struct store *store, enum stmt_id id);
/* Makes a statement ready for its next use. */
void db_done(sqlite3_stmt *st);
/* Runs a statement that returns no rows; 0 or -1 (logged). */
int db_run(struct store *store, sqlite3_stmt *st, const char *what);
/* Binds text, NULL as the empty string. */
int db_bind_text(sqlite3_stmt *st, int index, const char *text);

/*
 * SQLite's small allocations from freed blocks of their size
 * (store_mem.c); store_open() installs it before SQLite starts.
 */
extern const sqlite3_mem_methods store_mem_methods;
void store_mem_install(void);
/* Bytes of freed blocks kept for reuse now (at most 1 MiB). */
size_t store_mem_kept(void);
/* The text of a column, never NULL. */
const char *db_column_text(sqlite3_stmt *st, int col);
/* Parses a JSON column; a new reference, NULL when it is not JSON. */
json_t *db_column_json(sqlite3_stmt *st, int col);
/* Compact JSON text as the records use it (free() it); NULL on failure. */
char *db_dump(const json_t *obj);

/*
 * One call's transaction: db_begin() with STMT_BEGIN (a read) or
 * STMT_BEGIN_IMMEDIATE (a write), a savepoint inside a batch; a read
 * ends with db_end_read(), a write with db_finish(), which commits when
 * ok is 0 and rolls back otherwise.
 */
int db_begin(struct store *store, enum stmt_id which);
void db_rollback(struct store *store);
void db_end_read(struct store *store);
int db_finish(struct store *store, int ok);

/* At open (store_schema.c): settings, migrations, statements. */
int db_configure(struct store *store, char *err, size_t errlen);
int db_migrate(struct store *store, char *err, size_t errlen);
/*
 * For a read-only open, where nothing may be migrated: 0 when the schema
 * is the current one, else -1 with what to do about it.
 */
int db_check_version(struct store *store, char *err, size_t errlen);
int db_prepare(struct store *store, char *err, size_t errlen);

/* Writes the deferred values and sent rows (store_kv.c); 0 or -1. */
int db_write_deferred(struct store *store);
/*
 * The open transaction ended: committed, what it wrote of the deferred
 * values is forgotten; rolled back, all of it waits for the next one.
 */
void db_deferred_ended(struct store *store, int committed);

#endif

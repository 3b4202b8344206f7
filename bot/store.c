/*
 * store.c - the crash-safe store of store.h, on SQLite.
 *
 * The database runs in WAL mode with synchronous=FULL: a commit returns only
 * after its WAL frames reached the disk, so every call that returned 0
 * survives a kill -9 or a power loss, and a half-written transaction is
 * simply absent after a restart.  Every public call is one transaction.
 *
 * A game is stored as the JSON pieces of its record (RECORD.md), written
 * with the same helpers as game_to_record(), so reading a game back only
 * glues the pieces together: the rebuilt record is exactly the record the
 * live game would write.  Deals and actions are rows keyed by their index
 * and must arrive in order; an index already stored is refused, which keeps
 * an action from being applied twice after a retry.
 *
 * Statistics come from a small table of per-seat outcomes that
 * store_game_end() fills from the result when a game finishes, so `stats`
 * and `top` are one indexed query each however many games are stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "store.h"

/* The schema version kept in PRAGMA user_version. */
#define STORE_VERSION 3
/* How long a call waits for another process (e.g. export) to let go. */
#define STORE_BUSY_MS 5000

/*
 * The schema, one entry per version: migrations[v] takes a store from
 * version v to v + 1.  Entries are never edited once released; a change
 * is a new entry.
 *
 * Version 1:
 *   games     one row per game: place, setup (as record JSON), seed,
 *             start and end times, state (0 running, 1 finished,
 *             -1 abandoned) and the result object;
 *   seats     who holds each seat now;
 *   deals     record deals, by zero-based index;
 *   actions   record actions, by zero-based index;
 *   standings each human seat's outcome of a finished game, for stats;
 *   kv        small named values.
 * The partial index games_running finds the running games at start-up
 * without reading the finished ones.
 *
 * Version 2:
 *   lobbies   tables not yet started, one per channel: the next game,
 *             its options and the seats taken (JSON written and read by
 *             table.c), so that a restart loses nobody's seat.
 *
 * Version 3:
 *   games.damaged  why a game was set aside at start-up (its rows cannot
 *             be read or replayed), NULL for a sound game.  A damaged
 *             game is no longer listed as running, so one bad row cannot
 *             keep the bot from starting; its rows stay as they are, for
 *             store_each_damaged() and for repair by hand.
 *   outbox    messages caused by a stored change, committed with it and
 *             deleted once the adapter reports them sent: after a crash
 *             the bot sends again what it had not yet said.
 */
static const char *const migrations[STORE_VERSION] = {
	"CREATE TABLE games ("
	"  id INTEGER PRIMARY KEY,"
	"  network TEXT NOT NULL,"
	"  channel TEXT NOT NULL,"
	"  game TEXT NOT NULL,"
	"  players TEXT NOT NULL,"
	"  options TEXT NOT NULL,"
	"  first INTEGER NOT NULL,"
	"  seed INTEGER NOT NULL,"
	"  started TEXT NOT NULL DEFAULT (datetime('now')),"
	"  ended TEXT,"
	"  finished INTEGER NOT NULL DEFAULT 0"
	"    CHECK (finished IN (-1, 0, 1)),"
	"  result TEXT"
	");"
	"CREATE INDEX games_running ON games (id) WHERE finished = 0;"
	"CREATE TABLE seats ("
	"  game_id INTEGER NOT NULL REFERENCES games (id),"
	"  seat INTEGER NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  computer INTEGER NOT NULL,"
	"  level INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, seat)"
	") WITHOUT ROWID;"
	"CREATE TABLE deals ("
	"  game_id INTEGER NOT NULL REFERENCES games (id),"
	"  idx INTEGER NOT NULL,"
	"  deal TEXT NOT NULL,"
	"  PRIMARY KEY (game_id, idx)"
	");"
	"CREATE TABLE actions ("
	"  game_id INTEGER NOT NULL REFERENCES games (id),"
	"  idx INTEGER NOT NULL,"
	"  action TEXT NOT NULL,"
	"  PRIMARY KEY (game_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE standings ("
	"  game_id INTEGER NOT NULL REFERENCES games (id),"
	"  seat INTEGER NOT NULL,"
	"  game TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  score REAL NOT NULL,"
	"  win INTEGER NOT NULL,"
	"  rounds_bid INTEGER NOT NULL,"
	"  rounds_exact INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, seat)"
	") WITHOUT ROWID;"
	"CREATE INDEX standings_player ON standings (game, user_id);"
	"CREATE TABLE kv ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL"
	");",
	"CREATE TABLE lobbies ("
	"  network TEXT NOT NULL,"
	"  channel TEXT NOT NULL,"
	"  lobby TEXT NOT NULL,"
	"  PRIMARY KEY (network, channel)"
	") WITHOUT ROWID;",
	"ALTER TABLE games ADD COLUMN damaged TEXT;"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  network TEXT NOT NULL,"
	"  target TEXT NOT NULL,"
	"  private INTEGER NOT NULL,"
	"  flow TEXT,"
	"  body TEXT NOT NULL,"
	"  created INTEGER NOT NULL DEFAULT (unixepoch())"
	");",
};

/* The statements prepared once at open. */
enum stmt_id {
	STMT_BEGIN,
	STMT_BEGIN_IMMEDIATE,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_GAME_INSERT,
	STMT_GAME_SELECT,
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

static const char *const stmt_sql[STMT_COUNT] = {
	[STMT_BEGIN] = "BEGIN",
	/*
	 * Writers take the write lock up front: a deferred transaction that
	 * reads first and writes later can fail with SQLITE_BUSY instead of
	 * waiting for the busy timeout.
	 */
	[STMT_BEGIN_IMMEDIATE] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_GAME_INSERT] =
	    "INSERT INTO games (network, channel, game, players, options,"
	    " first, seed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[STMT_GAME_SELECT] =
	    "SELECT network, channel, game, players, options, first, seed,"
	    " finished FROM games WHERE id = ?1",
	[STMT_GAME_END] =
	    "UPDATE games SET finished = ?2, result = ?3,"
	    " ended = datetime('now') WHERE id = ?1 AND finished = 0",
	[STMT_SEAT_INSERT] =
	    "INSERT INTO seats (game_id, seat, user_id, name, computer,"
	    " level) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[STMT_SEAT_UPDATE] =
	    "UPDATE seats SET user_id = ?3, name = ?4, computer = ?5,"
	    " level = ?6 WHERE game_id = ?1 AND seat = ?2",
	[STMT_SEATS_SELECT] =
	    "SELECT seat, user_id, name, computer, level FROM seats"
	    " WHERE game_id = ?1 ORDER BY seat",
	/* The game's state and the index the next deal must have. */
	[STMT_DEAL_NEXT] =
	    "SELECT finished, (SELECT coalesce(max(idx) + 1, 0) FROM deals"
	    " WHERE game_id = ?1) FROM games WHERE id = ?1",
	[STMT_DEAL_INSERT] =
	    "INSERT INTO deals (game_id, idx, deal) VALUES (?1, ?2, ?3)",
	[STMT_DEALS_SELECT] =
	    "SELECT idx, deal FROM deals WHERE game_id = ?1 ORDER BY idx",
	[STMT_ACTION_NEXT] =
	    "SELECT finished, (SELECT coalesce(max(idx) + 1, 0) FROM actions"
	    " WHERE game_id = ?1) FROM games WHERE id = ?1",
	[STMT_ACTION_INSERT] =
	    "INSERT INTO actions (game_id, idx, action) VALUES (?1, ?2, ?3)",
	[STMT_ACTIONS_SELECT] =
	    "SELECT idx, action FROM actions WHERE game_id = ?1 ORDER BY idx",
	[STMT_LIST_RUNNING] =
	    "SELECT id FROM games WHERE finished = 0 AND damaged IS NULL"
	    " ORDER BY id",
	[STMT_LIST_GAMES] =
	    "SELECT id FROM games WHERE (?1 IS NULL OR channel = ?1)"
	    " AND (?2 = 0 OR id = ?2) AND (?3 OR finished <> 0)"
	    " ORDER BY id",
	[STMT_STANDING_INSERT] =
	    "INSERT INTO standings (game_id, seat, game, user_id, name, score,"
	    " win, rounds_bid, rounds_exact)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	/*
	 * With exactly one max() in an aggregate, SQLite takes bare columns
	 * from the row holding the maximum: name is the one of the player's
	 * latest game.
	 */
	[STMT_STATS_PLAYER] =
	    "SELECT count(*), coalesce(sum(win), 0), coalesce(avg(score), 0),"
	    " coalesce(sum(rounds_bid), 0), coalesce(sum(rounds_exact), 0),"
	    " name, max(game_id) FROM standings"
	    " WHERE game = ?1 AND user_id = ?2",
	[STMT_STATS_TOP] =
	    "SELECT user_id, name, count(*) AS played, sum(win) AS wins,"
	    " avg(score) AS average, sum(rounds_bid), sum(rounds_exact),"
	    " max(game_id) FROM standings WHERE game = ?1 GROUP BY user_id"
	    " ORDER BY wins DESC, average * ?3 DESC, played DESC, user_id"
	    " LIMIT ?2",
	[STMT_KV_SET] =
	    "INSERT INTO kv (key, value) VALUES (?1, ?2)"
	    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	[STMT_KV_GET] = "SELECT value FROM kv WHERE key = ?1",
	[STMT_FIND_USER] =
	    "SELECT user_id FROM seats WHERE name = ?1 COLLATE NOCASE"
	    " AND user_id <> '' ORDER BY game_id DESC LIMIT 1",
	[STMT_LOBBY_PUT] =
	    "INSERT INTO lobbies (network, channel, lobby) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (network, channel) DO UPDATE SET"
	    " lobby = excluded.lobby",
	[STMT_LOBBY_DELETE] =
	    "DELETE FROM lobbies WHERE network = ?1 AND channel = ?2",
	[STMT_LOBBIES_SELECT] =
	    "SELECT network, channel, lobby FROM lobbies"
	    " ORDER BY network, channel",
	/* A call inside a batch (store_batch_begin) is a savepoint of it. */
	[STMT_SAVEPOINT] = "SAVEPOINT call",
	[STMT_RELEASE] = "RELEASE call",
	[STMT_ROLLBACK_TO] = "ROLLBACK TO call",
	[STMT_OUTBOX_INSERT] =
	    "INSERT INTO outbox (network, target, private, flow, body)"
	    " VALUES (?1, ?2, ?3, ?4, ?5)",
	[STMT_OUTBOX_DELETE] = "DELETE FROM outbox WHERE id = ?1",
	[STMT_OUTBOX_SELECT] =
	    "SELECT id, network, target, private, flow, body,"
	    " unixepoch() - created FROM outbox ORDER BY id",
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
	/* Values and sent outbox rows waiting for the next transaction. */
	struct deferred_kv *kv;
	size_t nkv, kv_cap;
	int64_t *sent;
	size_t nsent, sent_cap;
	/* Fault injection for tests: commits still to fail. */
	int fail_commits;
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
	char failed[256];        /* why the store failed; empty while sound */
	char damage[160];        /* why load_game() found a game damaged */

	/*
	 * What the public call in progress is about, for its log lines: a
	 * game id (0: none) or a lobby's place.  Set on entry by context().
	 */
	int64_t ctx_game;
	const char *ctx_network, *ctx_channel;
};

static int write_deferred(struct store *store);

/* Sets what the following log lines are about (see struct store). */
static void
context(struct store *store, int64_t game, const char *network,
    const char *channel)
{
	store->ctx_game = game;
	store->ctx_network = network;
	store->ctx_channel = channel;
}

/*
 * The place of game id as "NETWORK CHANNEL", best effort: the lookup is
 * its own statement, since a log line may come from inside any other.
 */
static void
game_place(struct store *store, int64_t id, char *buf, size_t len)
{
	sqlite3_stmt *st;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(store->db, "SELECT network, channel FROM games"
	    " WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *network = sqlite3_column_text(st, 0);
		const unsigned char *channel = sqlite3_column_text(st, 1);

		snprintf(buf, len, " (%s %s)", network != NULL ?
		    (const char *)network : "", channel != NULL ?
		    (const char *)channel : "");
	}
	sqlite3_finalize(st);
}

static void store_logv(struct store *store, enum log_level level,
    const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/*
 * Writes one log line through log.h, naming what the call is about:
 * "store: game 12 (libera #wizard): ..." or "store: libera #wizard: ...".
 * The message is formatted first, because the place lookup would
 * overwrite the SQLite message that arguments may point to.
 */
static void
store_logv(struct store *store, enum log_level level, const char *fmt,
    va_list ap)
{
	char msg[768], place[192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (store != NULL && store->ctx_game > 0) {
		game_place(store, store->ctx_game, place, sizeof(place));
		log_msg(level, "store: game %lld%s: %s",
		    (long long)store->ctx_game, place, msg);
	} else if (store != NULL && store->ctx_network != NULL) {
		log_msg(level, "store: %s %s: %s", store->ctx_network,
		    store->ctx_channel != NULL ? store->ctx_channel : "", msg);
	} else {
		log_msg(level, "store: %s", msg);
	}
}

static void store_log_at(struct store *store, enum log_level level,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
store_log_at(struct store *store, enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store_logv(store, level, fmt, ap);
	va_end(ap);
}

/* An error of the call in progress; see store_logv(). */
#define store_log(...) store_log_at(store, LOG_LEVEL_ERROR, __VA_ARGS__)

static void set_failed(struct store *store, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Puts the store into its failed state: from now on every write is
 * refused and store_failed() gives the reason.  Logged once.
 */
static void
set_failed(struct store *store, const char *fmt, ...)
{
	va_list ap;

	if (store->failed[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(store->failed, sizeof(store->failed), fmt, ap);
	va_end(ap);
	log_error("store %s: %s; nothing more is stored until a restart",
	    store->path != NULL ? store->path : ":memory:", store->failed);
}

/*
 * Whether the file SQLite writes is still the one at the store's path (and
 * its WAL the one beside it).  A deleted or replaced file fails the store.
 */
static int
check_file(struct store *store)
{
	char wal[PATH_MAX];
	struct stat st;

	if (store->failed[0] != '\0')
		return -1;
	if (store->path == NULL)
		return 0;
	if (stat(store->path, &st) != 0) {
		set_failed(store, errno == ENOENT ? "the store file was "
		    "deleted" : "the store file cannot be checked (%s)",
		    strerror(errno));
		return -1;
	}
	if (st.st_dev != store->dev || st.st_ino != store->ino) {
		set_failed(store, "the store file was replaced by another "
		    "file");
		return -1;
	}
	if (!store->wal_known)
		return 0;
	snprintf(wal, sizeof(wal), "%s-wal", store->path);
	if (stat(wal, &st) != 0 || st.st_dev != store->wal_dev ||
	    st.st_ino != store->wal_ino) {
		set_failed(store, "the store's WAL file %s was deleted or "
		    "replaced", wal);
		return -1;
	}
	return 0;
}

/* A write may go ahead: the store has not failed and its file is there. */
static int
writable(struct store *store)
{
	if (check_file(store) != 0) {
		store_log("not stored: %s", store->failed);
		return -1;
	}
	return 0;
}

/*
 * Logs a failed SQLite call with SQLite's reason; returns -1.  Errors
 * that leave the file in doubt (I/O, corruption, a file that went
 * read-only or away) fail the store: after a failed fsync nobody knows
 * what reached the disk.  A full disk does not: the transaction was
 * rolled back whole, and a later write may find room again.
 */
static int
db_fail(struct store *store, const char *what)
{
	int code = sqlite3_extended_errcode(store->db);

	store_log("%s: %s", what, sqlite3_errmsg(store->db));
	switch (code & 0xff) {
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
		set_failed(store, "%s (%s)", sqlite3_errstr(code),
		    sqlite3_errmsg(store->db));
		break;
	default:
		break;
	}
	return -1;
}

/*
 * SQLite integers are signed 64-bit and seeds unsigned: a seed is stored
 * as the int64 with the same 64 bits, so seeds of 2^63 and above read as
 * negative numbers in the database and convert back exactly.
 */
static sqlite3_int64
seed_to_db(uint64_t seed)
{
	int64_t v;

	memcpy(&v, &seed, sizeof(v));
	return v;
}

static uint64_t
seed_from_db(sqlite3_int64 v)
{
	return (uint64_t)v;
}

/* A cached statement, ready for binding. */
static sqlite3_stmt *
stmt(struct store *store, enum stmt_id id)
{
	return store->stmt[id];
}

/* Makes a statement ready for its next use. */
static void
done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows; 0 or -1 (logged). */
static int
run(struct store *store, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	done(st);
	if (rc != SQLITE_DONE)
		return db_fail(store, what);
	return 0;
}

static int
bind_text(sqlite3_stmt *st, int index, const char *text)
{
	return sqlite3_bind_text(st, index, text != NULL ? text : "", -1,
	    SQLITE_TRANSIENT);
}

/* The text of a column, never NULL. */
static const char *
column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *text = sqlite3_column_text(st, col);

	return text != NULL ? (const char *)text : "";
}

/* Parses a JSON column; NULL when it is not JSON. */
static json_t *
column_json(sqlite3_stmt *st, int col)
{
	const void *text = sqlite3_column_text(st, col);

	if (text == NULL)
		return NULL;
	return json_loadb((const char *)text,
	    (size_t)sqlite3_column_bytes(st, col), JSON_REJECT_DUPLICATES,
	    NULL);
}

/* Compact JSON text as the records use it; NULL when out of memory. */
static char *
dump(const json_t *obj)
{
	return json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/*
 * Starts one call's transaction (a write transaction only on a sound
 * store), or a savepoint when a batch is open (the batch's COMMIT makes
 * the call durable).  A transaction of its own first writes what was
 * deferred (store_kv_defer, store_outbox_sent).
 */
static int
begin(struct store *store, enum stmt_id which)
{
	if (which == STMT_BEGIN_IMMEDIATE && writable(store) != 0)
		return -1;
	if (store->batch)
		return run(store, stmt(store, STMT_SAVEPOINT),
		    "cannot begin a savepoint");
	if (run(store, stmt(store, which), "cannot begin a transaction") != 0)
		return -1;
	if (which == STMT_BEGIN_IMMEDIATE && write_deferred(store) != 0) {
		(void)run(store, stmt(store, STMT_ROLLBACK), "cannot roll back");
		return -1;
	}
	return 0;
}

/*
 * Rolls back the open transaction, if any: SQLite ends a transaction
 * itself after some errors (e.g. a full disk), and a second ROLLBACK
 * would only add a confusing message.
 */
static void
rollback(struct store *store)
{
	if (!sqlite3_get_autocommit(store->db))
		(void)run(store, stmt(store, STMT_ROLLBACK),
		    "cannot roll back");
}

/* Ends a read begun with begin(store, STMT_BEGIN). */
static void
end_read(struct store *store)
{
	if (store->batch)
		(void)run(store, stmt(store, STMT_RELEASE),
		    "cannot release a savepoint");
	else
		rollback(store);
}

/* Commits when ok is 0, else (or when the commit fails) rolls back. */
static int
finish(struct store *store, int ok)
{
	if (store->batch) {
		if (ok == 0 && run(store, stmt(store, STMT_RELEASE),
		    "cannot release a savepoint") == 0)
			return 0;
		/* The batch goes on without this call's rows. */
		if (!sqlite3_get_autocommit(store->db)) {
			(void)run(store, stmt(store, STMT_ROLLBACK_TO),
			    "cannot roll back a savepoint");
			(void)run(store, stmt(store, STMT_RELEASE),
			    "cannot release a savepoint");
		}
		return -1;
	}
	if (ok == 0 && store->fail_commits > 0) {
		store->fail_commits--;
		store_log("cannot commit: a failure injected by a test");
		ok = -1;
	}
	if (ok == 0 && run(store, stmt(store, STMT_COMMIT),
	    "cannot commit") == 0)
		return 0;
	rollback(store);
	return -1;
}

/* Runs setup SQL at open (not cached: it runs once). */
static int
exec_sql(struct store *store, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(store->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		game_error(err, errlen, "%s", msg != NULL ? msg :
		    sqlite3_errmsg(store->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The first column of a one-row pragma as text into buf; 0 or -1. */
static int
pragma_text(struct store *store, const char *sql, char *buf, size_t len,
    char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store->db, sql, -1, &st, NULL) != SQLITE_OK)
		return game_error(err, errlen, "%s",
		    sqlite3_errmsg(store->db));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", column_text(st, 0));
	else
		game_error(err, errlen, "%s", sqlite3_errmsg(store->db));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/*
 * Per-connection settings.  The journal mode is a property of the file;
 * synchronous, foreign keys and the busy timeout must be set on every
 * connection.
 */
static int
configure(struct store *store, char *err, size_t errlen)
{
	char mode[16];

	sqlite3_extended_result_codes(store->db, 1);
	sqlite3_busy_timeout(store->db, STORE_BUSY_MS);
	if (pragma_text(store, "PRAGMA journal_mode = WAL", mode,
	    sizeof(mode), err, errlen) != 0)
		return -1;
	/* An in-memory database has no journal file and reports "memory". */
	if (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)
		return game_error(err, errlen,
		    "The store cannot use WAL mode (journal mode %s).", mode);
	return exec_sql(store, "PRAGMA synchronous = FULL;"
	    "PRAGMA foreign_keys = ON;", err, errlen);
}

static int
user_version(struct store *store, int *version, char *err, size_t errlen)
{
	char text[32];

	if (pragma_text(store, "PRAGMA user_version", text, sizeof(text), err,
	    errlen) != 0)
		return -1;
	*version = atoi(text);
	return 0;
}

/*
 * Brings the schema to STORE_VERSION in one transaction.  The version is
 * read again under the write lock, so two processes opening a new store at
 * once do not both create it.
 */
static int
migrate(struct store *store, char *err, size_t errlen)
{
	char sql[64];
	int version;

	if (user_version(store, &version, err, errlen) != 0)
		return -1;
	if (version == STORE_VERSION)
		return 0;
	if (exec_sql(store, "BEGIN IMMEDIATE", err, errlen) != 0)
		return -1;
	if (user_version(store, &version, err, errlen) != 0)
		goto fail;
	if (version > STORE_VERSION || version < 0) {
		game_error(err, errlen, "The store has schema version %d; this "
		    "stichbot knows versions up to %d.", version,
		    STORE_VERSION);
		goto fail;
	}
	for (; version < STORE_VERSION; version++)
		if (exec_sql(store, migrations[version], err, errlen) != 0)
			goto fail;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_VERSION);
	if (exec_sql(store, sql, err, errlen) != 0 ||
	    exec_sql(store, "COMMIT", err, errlen) != 0)
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(store->db))
		(void)sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int
prepare(struct store *store, char *err, size_t errlen)
{
	for (int i = 0; i < STMT_COUNT; i++)
		if (sqlite3_prepare_v3(store->db, stmt_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &store->stmt[i], NULL) !=
		    SQLITE_OK)
			return game_error(err, errlen, "%s",
			    sqlite3_errmsg(store->db));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Permissions, the lock and fail-stop. */

/* Takes away the group's and others' bits of a file, when it exists. */
static void
owner_only(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && (st.st_mode & 077) != 0 &&
	    chmod(path, st.st_mode & 0700) != 0)
		log_warn("store: cannot make %s private: %s", path,
		    strerror(errno));
}

/*
 * Remembers which files the store opened (see struct store) and makes a
 * store of an older stichbot, created with the umask's mode, private.
 */
static int
identify(struct store *store, const char *path, char *why, size_t len)
{
	char name[PATH_MAX];
	struct stat st;

	if (strcmp(path, ":memory:") == 0 || path[0] == '\0')
		return 0;
	if ((store->path = strdup(path)) == NULL)
		return game_error(why, len, "out of memory");
	owner_only(path);
	snprintf(name, sizeof(name), "%s-wal", path);
	owner_only(name);
	if (stat(name, &st) == 0) {
		store->wal_dev = st.st_dev;
		store->wal_ino = st.st_ino;
		store->wal_known = 1;
	}
	snprintf(name, sizeof(name), "%s-shm", path);
	owner_only(name);
	if (stat(path, &st) != 0)
		return game_error(why, len, "%s", strerror(errno));
	store->dev = st.st_dev;
	store->ino = st.st_ino;
	return 0;
}

/*
 * Takes PATH.lock for this process: an exclusive flock(2), held until the
 * descriptor closes (the kernel lets go when the process dies, however it
 * dies), with the holder's pid written in the file for the next one's
 * message.  flock(2) rather than fcntl(2), whose locks belong to the
 * process and vanish when any descriptor of the file closes.
 */
static int
lock_take(const char *path, int *fdp, char *why, size_t len)
{
	char lock[PATH_MAX], buf[32];
	mode_t mask;
	ssize_t n;
	long pid;
	int fd;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >=
	    (int)sizeof(lock))
		return game_error(why, len, "the path is too long");
	mask = umask(077);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	umask(mask);
	if (fd < 0)
		return game_error(why, len, "cannot open the lock file %s: %s",
		    lock, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int saved = errno;

		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		pid = strtol(buf, NULL, 10);
		close(fd);
		if (saved != EWOULDBLOCK)
			return game_error(why, len, "cannot lock %s: %s", lock,
			    strerror(saved));
		if (pid > 0)
			return game_error(why, len, "another stichbot "
			    "(pid %ld) is using it (it holds %s)", pid, lock);
		return game_error(why, len, "another process is using it "
		    "(it holds %s)", lock);
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		log_warn("store: cannot write the pid into %s: %s", lock,
		    strerror(errno));
	*fdp = fd;
	return 0;
}

struct store *
store_open_locked(const char *path, char *err, size_t errlen)
{
	struct store *store;
	char why[PATH_MAX + 128];
	int fd = -1;

	if (strcmp(path, ":memory:") != 0 &&
	    lock_take(path, &fd, why, sizeof(why)) != 0) {
		game_error(err, errlen, "Cannot open the store %s: %s", path,
		    why);
		return NULL;
	}
	if ((store = store_open(path, err, errlen)) == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	store->lock_fd = fd;
	/*
	 * SQLite quietly opens a write-protected file read-only; a bot that
	 * cannot store cannot keep its promise, so it must not start.
	 */
	if (sqlite3_db_readonly(store->db, "main") == 1) {
		game_error(err, errlen, "Cannot open the store %s: it is "
		    "read-only", path);
		store_close(store);
		return NULL;
	}
	return store;
}

const char *
store_failed(const struct store *store)
{
	return store->failed[0] != '\0' ? store->failed : NULL;
}

int
store_check(struct store *store)
{
	context(store, 0, NULL, NULL);
	return check_file(store);
}

struct store *
store_open(const char *path, char *err, size_t errlen)
{
	struct store *store;
	char why[256];

	mode_t mask;
	int rc;

	store = calloc(1, sizeof(*store));
	if (store == NULL) {
		game_error(err, errlen, "Out of memory.");
		return NULL;
	}
	store->lock_fd = -1;
	/*
	 * Games name the people who played them: the files are the owner's
	 * alone whoever runs the bot and whatever its umask.  SQLite gives
	 * the WAL and shared-memory files the database file's mode, so the
	 * umask only matters for the database file itself.
	 */
	mask = umask(077);
	rc = sqlite3_open_v2(path, &store->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		umask(mask);
		/* Without a handle there is no message but the code's. */
		snprintf(why, sizeof(why), "%s", store->db != NULL ?
		    sqlite3_errmsg(store->db) : "out of memory");
		goto fail;
	}
	rc = configure(store, why, sizeof(why));
	if (rc == 0)
		rc = migrate(store, why, sizeof(why));
	umask(mask);
	if (rc != 0 || prepare(store, why, sizeof(why)) != 0 ||
	    identify(store, path, why, sizeof(why)) != 0)
		goto fail;
	return store;
fail:
	game_error(err, errlen, "Cannot open the store %s: %s", path, why);
	store_close(store);
	return NULL;
}

void
store_close(struct store *store)
{
	if (store == NULL)
		return;
	context(store, 0, NULL, NULL);
	if (store->batch)
		store_batch_rollback(store);
	(void)store_flush(store);
	for (size_t i = 0; i < store->nkv; i++) {
		free(store->kv[i].key);
		free(store->kv[i].value);
	}
	free(store->kv);
	free(store->sent);
	for (int i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(store->stmt[i]);
	/*
	 * Every statement is finalized, so the close cannot be refused; the
	 * last connection also checkpoints the WAL into the main file.
	 */
	if (sqlite3_close(store->db) != SQLITE_OK)
		store_log("cannot close: %s", sqlite3_errmsg(store->db));
	/* Closed after the database, so the next holder finds it done. */
	if (store->lock_fd >= 0)
		close(store->lock_fd);
	free(store->path);
	free(store);
}

/* Inserts one JSON row (a deal or an action) of game id. */
static int
insert_json(struct store *store, enum stmt_id id_stmt, int64_t id, int index,
    const json_t *obj)
{
	sqlite3_stmt *st = stmt(store, id_stmt);
	char *text = dump(obj);
	int rc;

	if (text == NULL) {
		store_log("out of memory");
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, index);
	bind_text(st, 3, text);
	rc = run(store, st, "cannot store a record row");
	free(text);
	return rc;
}

/* Binds a seat's holder to the six parameters both seat statements take. */
static sqlite3_stmt *
bind_seat(sqlite3_stmt *st, int64_t id, int seat,
    const struct store_seat *holder)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, seat);
	bind_text(st, 3, holder->user_id);
	bind_text(st, 4, holder->name);
	sqlite3_bind_int(st, 5, holder->computer != 0);
	sqlite3_bind_int(st, 6, holder->level);
	return st;
}

static int
insert_seat(struct store *store, int64_t id, int seat,
    const struct store_seat *holder)
{
	return run(store, bind_seat(stmt(store, STMT_SEAT_INSERT), id, seat,
	    holder), "cannot store a seat");
}

/* Inserts the games row from the record's header; the new id, or -1. */
static int64_t
insert_game(struct store *store, const struct store_place *place,
    const json_t *record, uint64_t seed)
{
	sqlite3_stmt *st = stmt(store, STMT_GAME_INSERT);
	char *players = dump(json_object_get(record, "players"));
	char *options = dump(json_object_get(record, "options"));
	int64_t id = -1;

	if (players == NULL || options == NULL) {
		store_log("out of memory");
	} else {
		bind_text(st, 1, place != NULL ? place->network : NULL);
		bind_text(st, 2, place != NULL ? place->channel : NULL);
		bind_text(st, 3, json_string_value(json_object_get(record,
		    "game")));
		bind_text(st, 4, players);
		bind_text(st, 5, options);
		sqlite3_bind_int64(st, 6, json_integer_value(
		    json_object_get(record, "first")));
		sqlite3_bind_int64(st, 7, seed_to_db(seed));
		if (run(store, st, "cannot store a game") == 0)
			id = sqlite3_last_insert_rowid(store->db);
	}
	free(players);
	free(options);
	return id;
}

int64_t
store_game_begin(struct store *store, const struct store_place *place,
    const struct game *game, uint64_t seed, const struct store_seat *seats,
    int nseats)
{
	json_t *record, *deals, *actions;
	int64_t id;
	int rc = 0;

	context(store, 0, place != NULL ? place->network : NULL,
	    place != NULL ? place->channel : NULL);
	if (nseats != game->setup.nseats) {
		store_log("a %s game of %d seats cannot start with %d holders",
		    game->impl->name, game->setup.nseats, nseats);
		return -1;
	}
	/* The record's own pieces, so the stored JSON is the record's. */
	record = game_to_record(game);
	deals = json_object_get(record, "deals");
	actions = json_object_get(record, "actions");
	if (begin(store, STMT_BEGIN_IMMEDIATE) != 0) {
		json_decref(record);
		return -1;
	}
	id = insert_game(store, place, record, seed);
	if (id < 0)
		rc = -1;
	else
		context(store, id, NULL, NULL);
	for (int seat = 0; rc == 0 && seat < nseats; seat++)
		rc = insert_seat(store, id, seat, &seats[seat]);
	for (size_t i = 0; rc == 0 && i < json_array_size(deals); i++)
		rc = insert_json(store, STMT_DEAL_INSERT, id, (int)i,
		    json_array_get(deals, i));
	for (size_t i = 0; rc == 0 && i < json_array_size(actions); i++)
		rc = insert_json(store, STMT_ACTION_INSERT, id, (int)i,
		    json_array_get(actions, i));
	json_decref(record);
	if (finish(store, rc) != 0)
		return -1;
	return id;
}

/*
 * Appends row index of a game's deals or actions in one transaction,
 * after checking that the game is running and that index is the next one:
 * an index already stored means the caller is applying something twice,
 * and a gap would make the record unreadable.
 */
static int
append(struct store *store, int64_t id, int index, const char *what,
    enum stmt_id next_stmt, enum stmt_id insert_stmt, const json_t *obj)
{
	sqlite3_stmt *st = stmt(store, next_stmt);
	int rc, finished = 0, next = 0;

	if (begin(store, STMT_BEGIN_IMMEDIATE) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		finished = sqlite3_column_int(st, 0);
		next = sqlite3_column_int(st, 1);
	}
	done(st);
	if (rc == SQLITE_DONE) {
		store_log("the game does not exist");
		rc = -1;
	} else if (rc != SQLITE_ROW) {
		rc = db_fail(store, "cannot read a game");
	} else if (finished != 0) {
		store_log("the game has ended; %s %d not stored", what,
		    index);
		rc = -1;
	} else if (index != next) {
		store_log("%s %d %s (the next is %d)", what, index, index < next ?
		    "is already stored" : "would leave a gap", next);
		rc = -1;
	} else {
		rc = insert_json(store, insert_stmt, id, index, obj);
	}
	return finish(store, rc);
}

int
store_deal(struct store *store, int64_t id, int index,
    const struct game *game)
{
	json_t *deal;
	int rc;

	context(store, id, NULL, NULL);
	if (index < 0 || index >= game->ndeals) {
		store_log("the game has no deal %d to store", index);
		return -1;
	}
	deal = deal_to_json(game->impl, game->setup.nseats,
	    &game->deals[index]);
	rc = append(store, id, index, "deal", STMT_DEAL_NEXT, STMT_DEAL_INSERT,
	    deal);
	json_decref(deal);
	return rc;
}

int
store_action(struct store *store, int64_t id, int index,
    const struct game *game)
{
	json_t *action;
	int rc;

	context(store, id, NULL, NULL);
	if (index < 0 || index >= game->nactions) {
		store_log("the game has no action %d to store", index);
		return -1;
	}
	action = action_to_json(game->impl, &game->actions[index]);
	rc = append(store, id, index, "action", STMT_ACTION_NEXT,
	    STMT_ACTION_INSERT, action);
	json_decref(action);
	return rc;
}

int
store_seat(struct store *store, int64_t id, int seat,
    const struct store_seat *holder)
{
	sqlite3_stmt *st;

	context(store, id, NULL, NULL);
	if (writable(store) != 0)
		return -1;
	st = bind_seat(stmt(store, STMT_SEAT_UPDATE), id, seat, holder);
	if (run(store, st, "cannot change a seat") != 0)
		return -1;
	if (sqlite3_changes(store->db) == 0) {
		store_log("the game has no seat %d", seat);
		return -1;
	}
	return 0;
}

/* What one seat got out of a finished game, read from its result. */
struct outcome {
	double score;
	int win;
	int rounds_bid;
	int rounds_exact;
};

/*
 * Reads seat's outcome from a result object (RECORD.md): its final score,
 * whether it is among the winners and, for games with bids, the rounds it
 * bid in and the rounds it won exactly as many tricks as it bid.
 */
static void
seat_outcome(const json_t *result, int seat, struct outcome *out)
{
	const json_t *winners = json_object_get(result, "winners");
	const json_t *rounds = json_object_get(result, "rounds");
	const json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->score = json_number_value(json_array_get(json_object_get(result,
	    "scores"), (size_t)seat));
	json_array_foreach(winners, i, v)
		if (json_is_integer(v) && json_integer_value(v) == seat)
			out->win = 1;
	json_array_foreach(rounds, i, v) {
		const json_t *bid = json_array_get(json_object_get(v, "bids"),
		    (size_t)seat);
		const json_t *won = json_array_get(json_object_get(v, "won"),
		    (size_t)seat);

		if (!json_is_integer(bid))
			continue;
		out->rounds_bid++;
		if (json_is_integer(won) &&
		    json_integer_value(won) == json_integer_value(bid))
			out->rounds_exact++;
	}
}

/* Reads the game's name into buf; 0, or -1 (logged). */
static int
game_name(struct store *store, int64_t id, char *buf, size_t len)
{
	sqlite3_stmt *st = stmt(store, STMT_GAME_SELECT);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", column_text(st, 2));
	done(st);
	return rc == SQLITE_ROW ? 0 : db_fail(store, "cannot read a game");
}

/*
 * Fills the standings of a finished game from its result, one row per
 * seat a person holds now (a computer's seat has no user_id).
 */
static int
insert_standings(struct store *store, int64_t id, const json_t *result)
{
	sqlite3_stmt *seats = stmt(store, STMT_SEATS_SELECT);
	sqlite3_stmt *ins = stmt(store, STMT_STANDING_INSERT);
	char game[64];
	int rc;

	if (game_name(store, id, game, sizeof(game)) != 0)
		return -1;
	sqlite3_bind_int64(seats, 1, id);
	while ((rc = sqlite3_step(seats)) == SQLITE_ROW) {
		const char *user_id = column_text(seats, 1);
		int seat = sqlite3_column_int(seats, 0);
		struct outcome o;

		if (user_id[0] == '\0')
			continue;
		seat_outcome(result, seat, &o);
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int(ins, 2, seat);
		bind_text(ins, 3, game);
		bind_text(ins, 4, user_id);
		bind_text(ins, 5, column_text(seats, 2));
		sqlite3_bind_double(ins, 6, o.score);
		sqlite3_bind_int(ins, 7, o.win);
		sqlite3_bind_int(ins, 8, o.rounds_bid);
		sqlite3_bind_int(ins, 9, o.rounds_exact);
		if (run(store, ins, "cannot store standings") != 0)
			break;
	}
	done(seats);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_game_end(struct store *store, int64_t id, const json_t *result)
{
	sqlite3_stmt *st = stmt(store, STMT_GAME_END);
	char *text = NULL;
	int rc;

	context(store, id, NULL, NULL);
	if (result != NULL && (text = dump(result)) == NULL) {
		store_log("out of memory");
		return -1;
	}
	if (begin(store, STMT_BEGIN_IMMEDIATE) != 0) {
		free(text);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, result != NULL ? 1 : -1);
	if (text != NULL)
		bind_text(st, 3, text);
	else
		sqlite3_bind_null(st, 3);
	rc = run(store, st, "cannot end a game");
	free(text);
	if (rc == 0 && sqlite3_changes(store->db) == 0) {
		store_log("the game is not running");
		rc = -1;
	}
	if (rc == 0 && result != NULL)
		rc = insert_standings(store, id, result);
	return finish(store, rc);
}

/* A game read back, with what struct store_game points into. */
struct loaded {
	struct store_game game;
	char *network, *channel;
	json_t *record, *seats;
};

static void
loaded_free(struct loaded *g)
{
	free(g->network);
	free(g->channel);
	json_decref(g->record);
	json_decref(g->seats);
	memset(g, 0, sizeof(*g));
}

/*
 * Reads the rows of a deals or actions query into a list, checking that
 * the indexes run 0, 1, 2...  Returns 0, 1 when a row is damaged (logged),
 * or -1 on a database error.
 */
static int
load_list(struct store *store, enum stmt_id id_stmt, int64_t id,
    const char *what, json_t *list)
{
	sqlite3_stmt *st = stmt(store, id_stmt);
	int rc, bad = 0;

	sqlite3_bind_int64(st, 1, id);
	while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *obj = column_json(st, 1);

		if (sqlite3_column_int(st, 0) != (int)json_array_size(list) ||
		    !json_is_object(obj)) {
			snprintf(store->damage, sizeof(store->damage),
			    "%s %zu is damaged", what, json_array_size(list));
			store_log("%s", store->damage);
			json_decref(obj);
			bad = 1;
		} else {
			json_array_append_new(list, obj);
		}
	}
	done(st);
	if (bad)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot read a game");
}

static int
load_seats(struct store *store, int64_t id, json_t *seats)
{
	sqlite3_stmt *st = stmt(store, STMT_SEATS_SELECT);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(seats, json_pack("{s:s, s:s, s:b, s:i}",
		    "user_id", column_text(st, 1), "name", column_text(st, 2),
		    "computer", sqlite3_column_int(st, 3),
		    "level", sqlite3_column_int(st, 4)));
	done(st);
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot read seats");
}

/* Reads the games row into g and the record's header; see load_game(). */
static int
load_header(struct store *store, int64_t id, struct loaded *g)
{
	sqlite3_stmt *st = stmt(store, STMT_GAME_SELECT);
	json_t *players, *options;
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		done(st);
		/* Gone since it was listed: nothing to hand out. */
		return rc == SQLITE_DONE ? 1 : db_fail(store,
		    "cannot read a game");
	}
	g->network = strdup(column_text(st, 0));
	g->channel = strdup(column_text(st, 1));
	players = column_json(st, 3);
	options = column_json(st, 4);
	/* The keys in the order of game_to_record(). */
	g->record = json_object();
	json_object_set_new(g->record, "game", json_string(column_text(st,
	    2)));
	json_object_set_new(g->record, "players", players != NULL ? players :
	    json_null());
	json_object_set_new(g->record, "options", options != NULL ? options :
	    json_null());
	json_object_set_new(g->record, "first",
	    json_integer(sqlite3_column_int64(st, 5)));
	g->game.id = id;
	g->game.seed = seed_from_db(sqlite3_column_int64(st, 6));
	g->game.finished = sqlite3_column_int(st, 7);
	done(st);
	if (g->network == NULL || g->channel == NULL || g->record == NULL) {
		store_log("out of memory");
		return -1;
	}
	if (!json_is_array(players) || !json_is_object(options)) {
		snprintf(store->damage, sizeof(store->damage),
		    "the stored setup is damaged");
		store_log("%s", store->damage);
		return 1;
	}
	return 0;
}

/*
 * Reads game id in one read transaction: its record, rebuilt in the
 * order of game_to_record(), and its seats.  Returns 0, 1 when the game
 * is gone or damaged (logged; the caller skips it), or -1 on a database
 * error.
 */
static int
load_game(struct store *store, int64_t id, struct loaded *g)
{
	json_t *deals, *actions;
	int rc;

	memset(g, 0, sizeof(*g));
	context(store, id, NULL, NULL);
	store->damage[0] = '\0';
	if (begin(store, STMT_BEGIN) != 0)
		return -1;
	deals = json_array();
	actions = json_array();
	g->seats = json_array();
	rc = load_header(store, id, g);
	if (rc == 0)
		rc = load_list(store, STMT_DEALS_SELECT, id, "deal", deals);
	if (rc == 0)
		rc = load_list(store, STMT_ACTIONS_SELECT, id, "action",
		    actions);
	if (rc == 0)
		rc = load_seats(store, id, g->seats);
	/* A read transaction has nothing to keep: end it either way. */
	end_read(store);
	if (rc == 0) {
		json_object_set_new(g->record, "deals", deals);
		json_object_set_new(g->record, "actions", actions);
		g->game.network = g->network;
		g->game.channel = g->channel;
		g->game.record = g->record;
		g->game.seats = g->seats;
	} else {
		json_decref(deals);
		json_decref(actions);
		loaded_free(g);
	}
	return rc;
}

/*
 * Calls fn for each game the list statement (already bound) gives.  The
 * ids are read first and each game is then read in its own transaction,
 * so fn may call any store function, including ones that change the games
 * still to come; a game that changed so that it no longer matches
 * (running_only: it ended) is skipped.
 */
static int
each(struct store *store, sqlite3_stmt *list, int running_only,
    store_game_fn fn, void *arg)
{
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc, status = 0, damaged = 0;

	while ((rc = sqlite3_step(list)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap > 0 ? cap * 2 : 64;
			int64_t *p = realloc(ids, ncap * sizeof(*ids));

			if (p == NULL)
				break;
			ids = p;
			cap = ncap;
		}
		ids[n++] = sqlite3_column_int64(list, 0);
	}
	done(list);
	if (rc != SQLITE_DONE) {
		if (rc == SQLITE_ROW)
			store_log("out of memory");
		else
			db_fail(store, "cannot list games");
		free(ids);
		return -1;
	}
	for (size_t i = 0; status == 0 && i < n; i++) {
		struct loaded g;

		rc = load_game(store, ids[i], &g);
		if (rc < 0) {
			status = -1;
		} else if (rc > 0 && running_only && store->damage[0] != '\0') {
			/*
			 * One bad game must not keep the others from
			 * starting: set it aside, rows kept, and go on.
			 */
			(void)store_game_damaged(store, ids[i],
			    store->damage);
		} else if (rc > 0) {
			damaged = 1;
		} else {
			if (!running_only || g.game.finished == 0)
				status = fn(&g.game, arg);
			loaded_free(&g);
		}
	}
	free(ids);
	/* Damaged games were logged; tell the caller that some are missing. */
	return status == 0 && damaged ? -1 : status;
}

int
store_each_running(struct store *store, store_game_fn fn, void *arg)
{
	context(store, 0, NULL, NULL);
	return each(store, stmt(store, STMT_LIST_RUNNING), 1, fn, arg);
}

int
store_each_game(struct store *store, const char *channel, int64_t id,
    int include_running, store_game_fn fn, void *arg)
{
	sqlite3_stmt *list = stmt(store, STMT_LIST_GAMES);

	context(store, 0, NULL, NULL);
	if (channel != NULL)
		bind_text(list, 1, channel);
	else
		sqlite3_bind_null(list, 1);
	sqlite3_bind_int64(list, 2, id);
	sqlite3_bind_int(list, 3, include_running != 0);
	/* An ended game never runs again: nothing listed can stop matching. */
	return each(store, list, 0, fn, arg);
}

/*
 * Fills out from a stats row: user_id, name, played, wins, average,
 * rounds_bid, rounds_exact at the given columns (user_id -1: leave it).
 */
static void
stats_row(sqlite3_stmt *st, int user_col, int name_col, int first_col,
    struct store_stats *out)
{
	if (user_col >= 0)
		snprintf(out->user_id, sizeof(out->user_id), "%s",
		    column_text(st, user_col));
	snprintf(out->name, sizeof(out->name), "%s", column_text(st,
	    name_col));
	out->played = sqlite3_column_int(st, first_col);
	out->wins = sqlite3_column_int(st, first_col + 1);
	out->average = sqlite3_column_double(st, first_col + 2);
	out->rounds_bid = sqlite3_column_int(st, first_col + 3);
	out->rounds_exact = sqlite3_column_int(st, first_col + 4);
}

int
store_player_stats(struct store *store, const char *game,
    const char *user_id, struct store_stats *out)
{
	sqlite3_stmt *st = stmt(store, STMT_STATS_PLAYER);
	int rc;

	context(store, 0, NULL, NULL);
	memset(out, 0, sizeof(*out));
	snprintf(out->user_id, sizeof(out->user_id), "%s", user_id);
	bind_text(st, 1, game);
	bind_text(st, 2, user_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		stats_row(st, -1, 5, 0, out);
	done(st);
	return rc == SQLITE_ROW ? 0 : db_fail(store, "cannot read stats");
}

int
store_top(struct store *store, const char *game, struct store_stats *out,
    int max)
{
	sqlite3_stmt *st = stmt(store, STMT_STATS_TOP);
	const struct game_impl *impl;
	int rc = SQLITE_DONE, n = 0;

	context(store, 0, NULL, NULL);
	if (max <= 0)
		return 0;
	bind_text(st, 1, game);
	sqlite3_bind_int(st, 2, max);
	/* Between equal win counts, the better average first. */
	impl = game_find(game);
	sqlite3_bind_int(st, 3, impl != NULL && impl->lower_score_wins ? -1 : 1);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&out[n], 0, sizeof(out[n]));
		stats_row(st, 0, 1, 2, &out[n]);
		n++;
	}
	if (n == max)
		rc = SQLITE_DONE;
	done(st);
	return rc == SQLITE_DONE ? n : db_fail(store, "cannot read stats");
}

int
store_find_user(struct store *store, const char *name, char *out,
    size_t outlen)
{
	sqlite3_stmt *st = stmt(store, STMT_FIND_USER);
	int rc;

	context(store, 0, NULL, NULL);
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, outlen, "%s", column_text(st, 0));
	done(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot find a player");
}

int
store_kv_set(struct store *store, const char *key, const char *value)
{
	sqlite3_stmt *st = stmt(store, STMT_KV_SET);

	context(store, 0, NULL, NULL);
	if (key == NULL || value == NULL) {
		store_log("a stored value needs a key and a value");
		return -1;
	}
	if (writable(store) != 0)
		return -1;
	bind_text(st, 1, key);
	bind_text(st, 2, value);
	/* The value may be a secret (a sync token): name only the key. */
	if (run(store, st, "cannot store a value") != 0) {
		store_log("the value of \"%s\" was not stored", key);
		return -1;
	}
	return 0;
}

char *
store_kv_get(struct store *store, const char *key)
{
	sqlite3_stmt *st = stmt(store, STMT_KV_GET);
	char *value = NULL;
	int rc;

	context(store, 0, NULL, NULL);
	bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		value = strdup(column_text(st, 0));
		if (value == NULL)
			store_log("out of memory");
	}
	done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(store, "cannot read a value");
	return value;
}

int
store_lobby_put(struct store *store, const char *network,
    const char *channel, const char *lobby)
{
	sqlite3_stmt *st = stmt(store, STMT_LOBBY_PUT);

	context(store, 0, network, channel);
	if (writable(store) != 0)
		return -1;
	bind_text(st, 1, network);
	bind_text(st, 2, channel);
	bind_text(st, 3, lobby);
	return run(store, st, "cannot store a lobby");
}

int
store_lobby_delete(struct store *store, const char *network,
    const char *channel)
{
	sqlite3_stmt *st = stmt(store, STMT_LOBBY_DELETE);

	context(store, 0, network, channel);
	if (writable(store) != 0)
		return -1;
	bind_text(st, 1, network);
	bind_text(st, 2, channel);
	return run(store, st, "cannot delete a lobby");
}

int
store_each_lobby(struct store *store, store_lobby_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(store, STMT_LOBBIES_SELECT);
	int rc, count = 0;

	context(store, 0, NULL, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fn(column_text(st, 0), column_text(st, 1),
		    column_text(st, 2), arg) == 0)
			count++;
	}
	done(st);
	if (rc != SQLITE_DONE) {
		db_fail(store, "cannot read the lobbies");
		return -1;
	}
	return count;
}

/* ------------------------------------------------------------------ */
/* Batches, deferred values and the outbox. */

int
store_batch_begin(struct store *store)
{
	if (store->batch) {
		store_log("a batch is already open");
		return -1;
	}
	store->batch_start = sqlite3_total_changes64(store->db);
	store->batch_quiet = 0;
	/* Counted from here: begin() writes the deferred values first. */
	store->batch = 0;
	if (begin(store, STMT_BEGIN_IMMEDIATE) != 0)
		return -1;
	store->batch = 1;
	return 0;
}

int64_t
store_batch_changes(struct store *store)
{
	return store->batch ? sqlite3_total_changes64(store->db) -
	    store->batch_start - store->batch_quiet : 0;
}

int
store_batch_commit(struct store *store)
{
	if (!store->batch)
		return -1;
	store->batch = 0;
	/* A batch that wrote nothing has nothing to make durable. */
	if (sqlite3_total_changes64(store->db) == store->batch_start) {
		rollback(store);
		return 0;
	}
	return finish(store, 0);
}

void
store_batch_rollback(struct store *store)
{
	if (!store->batch)
		return;
	store->batch = 0;
	rollback(store);
}

/* Writes the deferred values and deletions inside an open transaction. */
static int
write_deferred(struct store *store)
{
	int64_t before = sqlite3_total_changes64(store->db);

	for (size_t i = 0; i < store->nkv; i++) {
		sqlite3_stmt *st = stmt(store, STMT_KV_SET);

		bind_text(st, 1, store->kv[i].key);
		bind_text(st, 2, store->kv[i].value);
		if (run(store, st, "cannot store a value") != 0)
			return -1;
	}
	for (size_t i = 0; i < store->nsent; i++) {
		sqlite3_stmt *st = stmt(store, STMT_OUTBOX_DELETE);

		sqlite3_bind_int64(st, 1, store->sent[i]);
		if (run(store, st, "cannot forget a sent message") != 0)
			return -1;
	}
	/*
	 * Forgotten only once written: a transaction that fails leaves them
	 * for the next one.  (The caller's COMMIT may still fail; the values
	 * are then lost with it, which at worst repeats a message or a
	 * Matrix event check, never loses a move.)
	 */
	for (size_t i = 0; i < store->nkv; i++) {
		free(store->kv[i].key);
		free(store->kv[i].value);
	}
	store->batch_quiet += sqlite3_total_changes64(store->db) - before;
	store->nkv = 0;
	store->nsent = 0;
	return 0;
}

int
store_kv_defer(struct store *store, const char *key, const char *value)
{
	struct deferred_kv *kv;
	char *k, *v;

	for (size_t i = 0; i < store->nkv; i++) {
		if (strcmp(store->kv[i].key, key) == 0) {
			if ((v = strdup(value)) == NULL)
				return -1;
			free(store->kv[i].value);
			store->kv[i].value = v;
			return 0;
		}
	}
	if (store->nkv == store->kv_cap) {
		size_t cap = store->kv_cap != 0 ? store->kv_cap * 2 : 4;

		kv = realloc(store->kv, cap * sizeof(*kv));
		if (kv == NULL)
			return -1;
		store->kv = kv;
		store->kv_cap = cap;
	}
	k = strdup(key);
	v = strdup(value);
	if (k == NULL || v == NULL) {
		free(k);
		free(v);
		return -1;
	}
	store->kv[store->nkv].key = k;
	store->kv[store->nkv].value = v;
	store->nkv++;
	/* Inside a batch the batch's COMMIT carries it. */
	if (store->batch)
		return write_deferred(store);
	return 0;
}

int
store_flush(struct store *store)
{
	if (store->batch || (store->nkv == 0 && store->nsent == 0))
		return 0;
	if (begin(store, STMT_BEGIN_IMMEDIATE) != 0)
		return -1;
	return finish(store, 0);
}

int
store_kv_flush(struct store *store)
{
	return store_flush(store);
}

int64_t
store_outbox_add(struct store *store, const struct store_message *msg)
{
	sqlite3_stmt *st = stmt(store, STMT_OUTBOX_INSERT);
	int64_t id;

	bind_text(st, 1, msg->network);
	bind_text(st, 2, msg->target);
	sqlite3_bind_int(st, 3, msg->private_);
	if (msg->flow != NULL)
		bind_text(st, 4, msg->flow);
	else
		sqlite3_bind_null(st, 4);
	bind_text(st, 5, msg->body);
	if (run(store, st, "cannot store a message") != 0)
		return -1;
	id = sqlite3_last_insert_rowid(store->db);
	/* The outbox row is not a change people hear about by itself. */
	if (store->batch)
		store->batch_quiet++;
	return id;
}

int
store_outbox_sent(struct store *store, int64_t id)
{
	if (store->nsent == store->sent_cap) {
		size_t cap = store->sent_cap != 0 ? store->sent_cap * 2 : 16;
		int64_t *sent = realloc(store->sent, cap * sizeof(*sent));

		if (sent == NULL)
			return -1;
		store->sent = sent;
		store->sent_cap = cap;
	}
	store->sent[store->nsent++] = id;
	return 0;
}

int
store_each_outbox(struct store *store, store_message_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(store, STMT_OUTBOX_SELECT);
	struct store_message msg;
	int rc, count = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		msg.id = sqlite3_column_int64(st, 0);
		msg.network = column_text(st, 1);
		msg.target = column_text(st, 2);
		msg.private_ = sqlite3_column_int(st, 3);
		msg.flow = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL :
		    column_text(st, 4);
		msg.body = column_text(st, 5);
		msg.age = sqlite3_column_int64(st, 6);
		fn(&msg, arg);
		count++;
	}
	done(st);
	if (rc != SQLITE_DONE) {
		db_fail(store, "cannot read the outbox");
		return -1;
	}
	return count;
}

void
store_fail_commits(struct store *store, int n)
{
	store->fail_commits = n;
}

/* ------------------------------------------------------------------ */
/* Damaged games, set aside. */

int
store_game_damaged(struct store *store, int64_t id, const char *reason)
{
	sqlite3_stmt *st;
	int rc;

	context(store, id, NULL, NULL);
	if (writable(store) != 0)
		return -1;
	/* Rare: a statement of its own, prepared when needed. */
	if (sqlite3_prepare_v2(store->db, "UPDATE games SET damaged = ?2"
	    " WHERE id = ?1 AND finished = 0 AND damaged IS NULL", -1, &st,
	    NULL) != SQLITE_OK)
		return db_fail(store, "cannot set a damaged game aside");
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, reason != NULL && reason[0] != '\0' ? reason :
	    "damaged");
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		db_fail(store, "cannot set a damaged game aside");
		sqlite3_finalize(st);
		return -1;
	}
	rc = sqlite3_changes(store->db) > 0;
	sqlite3_finalize(st);
	if (!rc) {
		store_log("the game is not running (or set aside already)");
		return -1;
	}
	store_log("set aside, not resumed (its rows stay in the store for "
	    "`stichbot export --damaged`): %s", reason != NULL ? reason :
	    "damaged");
	return 0;
}

/* Appends the texts of column 0 of every row of a query on id to list. */
static int
raw_rows(struct store *store, const char *sql, int64_t id, json_t *list)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(store, "cannot read a damaged game");
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(list, json_string(column_text(st, 0)));
	if (rc != SQLITE_DONE)
		db_fail(store, "cannot read a damaged game");
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_each_damaged(struct store *store, store_raw_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, status = 0;

	context(store, 0, NULL, NULL);
	if (sqlite3_prepare_v2(store->db, "SELECT id, network, channel,"
	    " damaged, game, players, options, first, seed FROM games"
	    " WHERE damaged IS NOT NULL ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(store, "cannot list the damaged games");
	while (status == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		json_t *deals = json_array(), *actions = json_array();
		/*
		 * The texts as stored, not parsed: what cannot be parsed is
		 * exactly what someone repairing the game needs to see.
		 */
		json_t *raw = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s,"
		    " s:I, s:I}", "id", (json_int_t)id,
		    "network", column_text(st, 1),
		    "channel", column_text(st, 2),
		    "damaged", column_text(st, 3),
		    "game", column_text(st, 4),
		    "players", column_text(st, 5),
		    "options", column_text(st, 6),
		    "first", (json_int_t)sqlite3_column_int64(st, 7),
		    "seed", (json_int_t)sqlite3_column_int64(st, 8));

		if (raw == NULL || deals == NULL || actions == NULL ||
		    raw_rows(store, "SELECT deal FROM deals WHERE game_id = ?1"
		    " ORDER BY idx", id, deals) != 0 ||
		    raw_rows(store, "SELECT action FROM actions WHERE"
		    " game_id = ?1 ORDER BY idx", id, actions) != 0)
			status = -1;
		else {
			json_object_set(raw, "deals", deals);
			json_object_set(raw, "actions", actions);
			status = fn(raw, arg);
		}
		json_decref(deals);
		json_decref(actions);
		json_decref(raw);
	}
	if (status == 0 && rc != SQLITE_DONE)
		status = db_fail(store, "cannot list the damaged games");
	sqlite3_finalize(st);
	return status;
}

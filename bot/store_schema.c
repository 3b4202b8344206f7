/*
 * store_schema.c - the store's schema, its migrations from one version to
 * the next, the per-connection settings and the statements prepared once
 * at open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_int.h"

/* The schema version kept in PRAGMA user_version. */
#define STORE_VERSION 6
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
 *
 * Version 4:
 *   games.deal_version  the deal algorithm (GAME_DEAL_VERSION in
 *             games/game.h) that deals the game's next rounds from its
 *             seed; 1 for the games stored before it was kept, which were
 *             all dealt with version 1 and go on that way.
 *
 * Version 5:
 *   seats.released  1 when the seat's owner gave it up (leave) or an
 *             admin gave it to a computer: the channel was told that
 *             anyone may take it over (replace), and a restart must not
 *             take that back.  0 for every seat stored before.
 *   seats.stop_vote  1 when the seat's holder voted to stop the game:
 *             the channel was told the count of votes.
 *
 * Version 6:
 *   seats.formers  the ids (a JSON array) of the people whose seat it
 *             was before someone took it over: after a restart they still
 *             hear who has it.  '[]' for every seat stored before.
 *   games.paused_until  with nobody seated, when (Unix time) the paused
 *             game closes, as the channel was told; 0 while it is not
 *             paused.  A restart keeps the deadline instead of starting
 *             the wait again.
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
	/* One migration in two literals (the brackets tell clang so). */
	("ALTER TABLE games ADD COLUMN deal_version INTEGER NOT NULL"
	"  DEFAULT 1;"),
	("ALTER TABLE seats ADD COLUMN released INTEGER NOT NULL DEFAULT 0"
	"  CHECK (released IN (0, 1));"
	"ALTER TABLE seats ADD COLUMN stop_vote INTEGER NOT NULL DEFAULT 0"
	"  CHECK (stop_vote IN (0, 1));"),
	("ALTER TABLE seats ADD COLUMN formers TEXT NOT NULL DEFAULT '[]';"
	"ALTER TABLE games ADD COLUMN paused_until INTEGER NOT NULL DEFAULT 0;"),
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
	    " first, seed, deal_version)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[STMT_GAME_SELECT] =
	    "SELECT network, channel, game, players, options, first, seed,"
	    " finished, deal_version, paused_until FROM games WHERE id = ?1",
	[STMT_GAME_PAUSE] =
	    "UPDATE games SET paused_until = ?2 WHERE id = ?1 AND finished = 0",
	[STMT_GAME_END] =
	    "UPDATE games SET finished = ?2, result = ?3,"
	    " ended = datetime('now') WHERE id = ?1 AND finished = 0",
	[STMT_SEAT_INSERT] =
	    "INSERT INTO seats (game_id, seat, user_id, name, computer,"
	    " level, released, stop_vote, formers)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[STMT_SEAT_UPDATE] =
	    "UPDATE seats SET user_id = ?3, name = ?4, computer = ?5,"
	    " level = ?6, released = ?7, stop_vote = ?8, formers = ?9"
	    " WHERE game_id = ?1 AND seat = ?2",
	[STMT_SEATS_SELECT] =
	    "SELECT seat, user_id, name, computer, level, released, stop_vote,"
	    " formers FROM seats"
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
	    "SELECT id FROM games WHERE (?1 IS NULL OR channel = ?1"
	    " COLLATE NOCASE)"
	    " AND (?2 = 0 OR id = ?2) AND (?3 OR finished <> 0)"
	    " ORDER BY id",
	/* Newest first: the game a channel finished last is found at once. */
	[STMT_LAST_FINISHED] =
	    "SELECT game, options FROM games WHERE network = ?1"
	    " AND channel = ?2 AND finished = 1 ORDER BY id DESC LIMIT 1",
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
		snprintf(buf, len, "%s", db_column_text(st, 0));
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
int
db_configure(struct store *store, char *err, size_t errlen)
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
	/*
	 * The write-ahead log is folded back every 250 pages (1 MB, not
	 * SQLite's 4 MB) and cut back to 1 MB after: the room a store needs
	 * beyond its file, and all a full disk must make before the bot can
	 * save again, stays small.
	 */
	return exec_sql(store, "PRAGMA synchronous = FULL;"
	    "PRAGMA foreign_keys = ON;"
	    "PRAGMA wal_autocheckpoint = 250;"
	    "PRAGMA journal_size_limit = 1048576;", err, errlen);
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
int
db_migrate(struct store *store, char *err, size_t errlen)
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

int
db_check_version(struct store *store, char *err, size_t errlen)
{
	int version;

	if (user_version(store, &version, err, errlen) != 0)
		return -1;
	if (version == STORE_VERSION)
		return 0;
	if (version == 0)
		return game_error(err, errlen, "it holds no stichbot store "
		    "(no schema)");
	if (version > STORE_VERSION || version < 0)
		return game_error(err, errlen, "The store has schema version "
		    "%d; this stichbot knows versions up to %d.", version,
		    STORE_VERSION);
	return game_error(err, errlen, "it has the schema of an older "
	    "stichbot (version %d, now %d); start `stichbot run` on it once "
	    "to upgrade it, then export", version, STORE_VERSION);
}

int
db_prepare(struct store *store, char *err, size_t errlen)
{
	for (int i = 0; i < STMT_COUNT; i++)
		if (sqlite3_prepare_v3(store->db, stmt_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &store->stmt[i], NULL) !=
		    SQLITE_OK)
			return game_error(err, errlen, "%s",
			    sqlite3_errmsg(store->db));
	return 0;
}

/*
 * store.c - the crash-safe store of store.h, on SQLite: opening, the
 * lock, fail-stop, the transactions every call runs in, and batches.
 *
 * The database runs in WAL mode with synchronous=FULL: a commit returns only
 * after its WAL frames reached the disk, so every call that returned 0
 * survives a kill -9 or a power loss, and a half-written transaction is
 * simply absent after a restart.  Every public call is one transaction.
 *
 * The other concerns live beside this file, sharing store_int.h: the
 * schema and its statements (store_schema.c), games and their rows
 * (store_games.c), statistics (store_stats.c), and values, lobbies and
 * the outbox (store_kv.c).
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
#include "loop.h"
#include "store.h"
#include "store_int.h"
#include "xmalloc.h"

/* How long a reader waits for the writer to let go of the file. */
#define STORE_READ_BUSY_MS 5000

/* Sets what the following log lines are about (see struct store). */
void
db_context(struct store *store, int64_t game, const char *network,
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

void
store_log_at(struct store *store, enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store_logv(store, level, fmt, ap);
	va_end(ap);
}

/*
 * Puts the store into its failed state: from now on every write is
 * refused and store_failed() gives the reason.  Logged once.
 */
void
db_set_failed(struct store *store, const char *fmt, ...)
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
int
db_check_file(struct store *store)
{
	char wal[PATH_MAX];
	struct stat st;

	if (store->failed[0] != '\0')
		return -1;
	if (store->path == NULL)
		return 0;
	if (stat(store->path, &st) != 0) {
		db_set_failed(store, errno == ENOENT ? "the store file was "
		    "deleted" : "the store file cannot be checked (%s)",
		    strerror(errno));
		return -1;
	}
	if (st.st_dev != store->dev || st.st_ino != store->ino) {
		db_set_failed(store, "the store file was replaced by another "
		    "file");
		return -1;
	}
	if (!store->wal_known)
		return 0;
	snprintf(wal, sizeof(wal), "%s-wal", store->path);
	if (stat(wal, &st) != 0 || st.st_dev != store->wal_dev ||
	    st.st_ino != store->wal_ino) {
		db_set_failed(store, "the store's WAL file %s was deleted or "
		    "replaced", wal);
		return -1;
	}
	return 0;
}

/* A write may go ahead: the store has not failed and its file is there. */
int
db_writable(struct store *store)
{
	if (db_check_file(store) != 0) {
		store_log("not stored: %s", store->failed);
		return -1;
	}
	return 0;
}

/*
 * The errno of the store's last failed write: SQLite keeps it in the file
 * that failed (the WAL, else the database file), where the errno that
 * sqlite3_system_errno() reads later may have been overwritten already.
 * 0 when unknown.
 */
static int
last_errno(struct store *store)
{
	sqlite3_file *file = NULL;
	int e = 0;

	if (sqlite3_system_errno(store->db) != 0)
		return sqlite3_system_errno(store->db);
	if (sqlite3_file_control(store->db, "main",
	    SQLITE_FCNTL_JOURNAL_POINTER, &file) == SQLITE_OK &&
	    file != NULL && file->pMethods != NULL &&
	    file->pMethods->xFileControl(file, SQLITE_FCNTL_LAST_ERRNO,
	    &e) == SQLITE_OK && e != 0)
		return e;
	if (sqlite3_file_control(store->db, "main", SQLITE_FCNTL_LAST_ERRNO,
	    &e) == SQLITE_OK)
		return e;
	return 0;
}

/*
 * Logs a failed SQLite call with SQLite's reason; returns -1.  Errors
 * that leave the file in doubt (I/O, corruption, a file that went
 * read-only or away) fail the store: after a failed fsync nobody knows
 * what reached the disk.  A full disk does not: the transaction was
 * rolled back whole, and a later write may find room again.
 *
 * A write past the file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored
 * by main()) fails with EFBIG where a full disk fails with ENOSPC, in
 * the same write call, before anything of it reached the file; SQLite
 * calls only ENOSPC a full disk, so EFBIG is taken for one here.
 */
/*
 * A full disk refuses writes until someone makes room, which may take a
 * weekend, and some small writes get through meanwhile (pages the WAL
 * reuses): the first refusal is logged whole, then one line every
 * FULL_TOLD_MS with how many followed, and one once writes are stored
 * with none refused for FULL_OVER_MS (store_full_over()).  Returns 1
 * for a refusal to keep quiet.
 */
#define FULL_TOLD_MS (10 * 60 * 1000)
#define FULL_OVER_MS (30 * 1000)
static int
full_refusal(struct store *store)
{
	uint64_t now = loop_clock_ms();

	store->full_refused++;
	store->full_last = now;
	if (store->full_since == 0) {
		store->full_since = store->full_told = now;
		return 0;
	}
	if (now - store->full_told >= FULL_TOLD_MS) {
		store->full_told = now;
		store_log("still full: %ld writes refused in %llu minutes; "
		    "every change waits until there is room",
		    store->full_refused, (unsigned long long)
		    ((now - store->full_since) / 60000));
	}
	return 1;
}

/* A write was stored: a full disk's run of refusals may be over. */
static void
store_full_over(struct store *store)
{
	uint64_t now;

	if (store->full_since == 0 ||
	    (now = loop_clock_ms()) - store->full_last < FULL_OVER_MS)
		return;
	log_info("store: writes are stored again, after %ld refused in %llu "
	    "s on a full disk", store->full_refused,
	    (unsigned long long)((store->full_last - store->full_since) /
	    1000 + 1));
	store->full_since = store->full_last = store->full_told = 0;
	store->full_refused = 0;
}

int
store_full_quiet(const struct store *store)
{
	return store->full_refused > 1;
}

int
db_fail(struct store *store, const char *what)
{
	int code = sqlite3_extended_errcode(store->db);
	char msg[256];
	int e;

	/* The log line's place lookup would overwrite SQLite's message. */
	snprintf(msg, sizeof(msg), "%s", sqlite3_errmsg(store->db));
	e = (code & 0xff) == SQLITE_IOERR ? last_errno(store) : 0;
	if ((e == EFBIG || (code & 0xff) == SQLITE_FULL) &&
	    full_refusal(store))
		return -1;
	if (e == EFBIG) {
		store_log("%s: database or disk is full (%s: the store "
		    "reached the file size limit, ulimit -f)", what,
		    strerror(EFBIG));
		return -1;
	}
	/*
	 * SQLite says "disk I/O error" for every failed read or write; the
	 * system's reason (a file system gone read-only, EIO) is what an
	 * operator can act on.
	 */
	if (e != 0) {
		size_t n = strlen(msg);

		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(e));
	}
	store_log("%s: %s", what, msg);
	switch (code & 0xff) {
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
		db_set_failed(store, "%s (%s)", sqlite3_errstr(code), msg);
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
sqlite3_int64
db_seed_in(uint64_t seed)
{
	int64_t v;

	memcpy(&v, &seed, sizeof(v));
	return v;
}

uint64_t
db_seed_out(sqlite3_int64 v)
{
	return (uint64_t)v;
}

/* A cached statement, ready for binding. */
sqlite3_stmt *
db_stmt(struct store *store, enum stmt_id id)
{
	return store->stmt[id];
}

/* Makes a statement ready for its next use. */
void
db_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows; 0 or -1 (logged). */
int
db_run(struct store *store, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	db_done(st);
	if (rc != SQLITE_DONE)
		return db_fail(store, what);
	return 0;
}

/*
 * SQLITE_STATIC: SQLite reads the caller's text in place instead of
 * copying it (one allocation less per text, several per move).  That is
 * safe because every statement is bound, stepped and released with
 * db_done(), which also clears its bindings, within the one call that
 * holds the text.
 */
int
db_bind_text(sqlite3_stmt *st, int index, const char *text)
{
	return sqlite3_bind_text(st, index, text != NULL ? text : "", -1,
	    SQLITE_STATIC);
}

/* The text of a column, never NULL. */
const char *
db_column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *text = sqlite3_column_text(st, col);

	return text != NULL ? (const char *)text : "";
}

/* Parses a JSON column; NULL when it is not JSON. */
json_t *
db_column_json(sqlite3_stmt *st, int col)
{
	const void *text = sqlite3_column_text(st, col);

	if (text == NULL)
		return NULL;
	return json_loadb((const char *)text,
	    (size_t)sqlite3_column_bytes(st, col), JSON_REJECT_DUPLICATES,
	    NULL);
}

/* Compact JSON text as the records use it; NULL when jansson fails. */
char *
db_dump(const json_t *obj)
{
	return json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/*
 * Starts one call's transaction (a write transaction only on a sound
 * store), or a savepoint when a batch is open (the batch's COMMIT makes
 * the call durable).  A transaction of its own first writes what was
 * deferred (store_kv_defer, store_outbox_sent).
 */
int
db_begin(struct store *store, enum stmt_id which)
{
	if (which == STMT_BEGIN_IMMEDIATE && db_writable(store) != 0)
		return -1;
	if (store->batch)
		return db_run(store, db_stmt(store, STMT_SAVEPOINT),
		    "cannot begin a savepoint");
	if (db_run(store, db_stmt(store, which),
	    "cannot begin a transaction") != 0)
		return -1;
	if (which == STMT_BEGIN_IMMEDIATE && db_write_deferred(store) != 0) {
		(void)db_run(store, db_stmt(store, STMT_ROLLBACK),
		    "cannot roll back");
		return -1;
	}
	return 0;
}

/*
 * Rolls back the open transaction, if any: SQLite ends a transaction
 * itself after some errors (e.g. a full disk), and a second ROLLBACK
 * would only add a confusing message.
 */
void
db_rollback(struct store *store)
{
	if (!sqlite3_get_autocommit(store->db))
		(void)db_run(store, db_stmt(store, STMT_ROLLBACK),
		    "cannot roll back");
	db_deferred_ended(store, 0);
}

/* Ends a read begun with db_begin(store, STMT_BEGIN). */
void
db_end_read(struct store *store)
{
	if (store->batch)
		(void)db_run(store, db_stmt(store, STMT_RELEASE),
		    "cannot release a savepoint");
	else
		db_rollback(store);
}

/* Commits when ok is 0, else (or when the commit fails) rolls back. */
int
db_finish(struct store *store, int ok)
{
	if (store->batch) {
		if (ok == 0 && db_run(store, db_stmt(store, STMT_RELEASE),
		    "cannot release a savepoint") == 0)
			return 0;
		/* The batch goes on without this call's rows. */
		if (!sqlite3_get_autocommit(store->db)) {
			(void)db_run(store, db_stmt(store, STMT_ROLLBACK_TO),
			    "cannot roll back a savepoint");
			(void)db_run(store, db_stmt(store, STMT_RELEASE),
			    "cannot release a savepoint");
		}
		return -1;
	}
	if (ok == 0 && store->fail_commits > 0) {
		store->fail_commits--;
		store_log("cannot commit: a failure injected by a test");
		ok = -1;
	}
	if (ok == 0 && db_run(store, db_stmt(store, STMT_COMMIT),
	    "cannot commit") == 0) {
		db_deferred_ended(store, 1);
		store_full_over(store);
		return 0;
	}
	db_rollback(store);
	return -1;
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
	store->path = xstrdup(path);
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
	if (fd < 0 && errno == ENOENT) {
		/* Said as check-config says it. */
		char *slash = strrchr(lock, '/');

		if (slash == NULL || slash == lock)
			snprintf(lock, sizeof(lock), ".");
		else
			*slash = '\0';
		return game_error(why, len, "the directory %s does not exist",
		    lock);
	}
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
	/* Only a pid, but the store's files are the owner's alone. */
	(void)fchmod(fd, 0600);
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		log_warn("store: cannot write the pid into %s: %s", lock,
		    strerror(errno));
	*fdp = fd;
	return 0;
}

/*
 * Locks the database file itself, as PATH.lock is locked: one database
 * may have several paths, each with its own lock file (a symbolic or a
 * hard link), and a lock file may be removed by hand while its bot runs.
 * The descriptor stays open until SQLite has closed the file
 * (store_close()), since closing any descriptor of a file drops the
 * process's fcntl(2) locks on it, which are SQLite's.  -1 with why when
 * another process holds it; 0 when the file does not exist yet.
 */
static int
file_lock_take(const char *path, int *fdp, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : game_error(why, len,
		    "cannot open it: %s", strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int saved = errno;

		close(fd);
		return game_error(why, len, saved == EWOULDBLOCK ?
		    "another stichbot is using it under another path (a "
		    "link to the same file, or its lock file was removed)" :
		    "cannot lock it: %s", strerror(saved));
	}
	*fdp = fd;
	return 0;
}

struct store *
store_open_locked(const char *path, char *err, size_t errlen)
{
	struct store *store;
	char why[PATH_MAX + 128];
	int fd = -1, file_fd = -1;

	if (strcmp(path, ":memory:") != 0 &&
	    (lock_take(path, &fd, why, sizeof(why)) != 0 ||
	    file_lock_take(path, &file_fd, why, sizeof(why)) != 0)) {
		game_error(err, errlen, "Cannot open the store %s: %s", path,
		    why);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if ((store = store_open(path, err, errlen)) == NULL) {
		if (file_fd >= 0)
			close(file_fd);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	store->lock_fd = fd;
	store->file_fd = file_fd;
	/* A store made just now is locked once SQLite has made it. */
	why[0] = '\0';
	if (fd >= 0 && file_fd < 0 && (file_lock_take(path, &store->file_fd,
	    why, sizeof(why)) != 0 || store->file_fd < 0)) {
		game_error(err, errlen, "Cannot open the store %s: %s", path,
		    why[0] != '\0' ? why : "it vanished as it was made");
		store_close(store);
		return NULL;
	}
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
	db_context(store, 0, NULL, NULL);
	return db_check_file(store);
}

struct store *
store_open(const char *path, char *err, size_t errlen)
{
	struct store *store;
	char why[256];

	mode_t mask;
	int rc;

	store = xcalloc(1, sizeof(*store));
	store->lock_fd = -1;
	store->file_fd = -1;
	/*
	 * Games name the people who played them: the files are the owner's
	 * alone whoever runs the bot and whatever its umask.  SQLite gives
	 * the WAL and shared-memory files the database file's mode, so the
	 * umask only matters for the database file itself.
	 */
	store_mem_install();
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
	rc = db_configure(store, why, sizeof(why));
	if (rc == 0)
		rc = db_migrate(store, why, sizeof(why));
	umask(mask);
	if (rc != 0 || db_prepare(store, why, sizeof(why)) != 0 ||
	    identify(store, path, why, sizeof(why)) != 0)
		goto fail;
	return store;
fail:
	if (store->db != NULL && last_errno(store) == EFBIG)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
		    " (%s: the file size limit, ulimit -f, is reached)",
		    strerror(EFBIG));
	game_error(err, errlen, "Cannot open the store %s: %s", path, why);
	store_close(store);
	return NULL;
}

/*
 * path as an SQLite URI ("file:" and the path, every byte but the
 * unreserved ones percent-encoded) with query after it; 0, or -1 when it
 * does not fit.
 */
static int
uri_of(const char *path, const char *query, char *buf, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (len < 6)
		return -1;
	memcpy(buf, "file:", 5);
	n = 5;
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0';
	    p++) {
		if (n + 4 > len)
			return -1;
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p) != NULL)
			buf[n++] = (char)*p;
		else {
			buf[n++] = '%';
			buf[n++] = hex[*p >> 4];
			buf[n++] = hex[*p & 0xf];
		}
	}
	if (snprintf(buf + n, len - n, "?%s", query) >= (int)(len - n))
		return -1;
	return 0;
}

/* One read-only connection to uri, with its schema checked; 0 or -1. */
static int
open_read(struct store *store, const char *uri, char *why, size_t len)
{
	if (sqlite3_open_v2(uri, &store->db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		snprintf(why, len, "%s", store->db != NULL ?
		    sqlite3_errmsg(store->db) : "out of memory");
		return -1;
	}
	sqlite3_extended_result_codes(store->db, 1);
	sqlite3_busy_timeout(store->db, STORE_READ_BUSY_MS);
	/* The file is first read here: an unreadable one fails now. */
	return db_check_version(store, why, len);
}

/*
 * Adds to why which of the store's -wal and -shm files (there while a bot
 * runs, or after a crash) this process may not read: a reader needs them
 * as much as the database file.
 */
static void
unreadable_beside(const char *path, char *why, size_t len)
{
	static const char *const suffixes[] = { "-wal", "-shm" };
	char name[PATH_MAX];
	size_t n;

	for (size_t i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s%s", path, suffixes[i]);
		if (access(name, F_OK) != 0 || access(name, R_OK) == 0)
			continue;
		n = strlen(why);
		snprintf(why + n, len - n, " (%s%s: %s; a reader needs the "
		    "-wal and -shm files too)", path, suffixes[i],
		    strerror(errno));
		return;
	}
}

struct store *
store_open_readonly(const char *path, char *err, size_t errlen)
{
	struct store *store;
	char uri[PATH_MAX * 3 + 32], name[PATH_MAX], why[256];
	struct stat st;
	const char *query = "mode=ro";

	store = xcalloc(1, sizeof(*store));
	store->lock_fd = -1;
	store->file_fd = -1;
	store_mem_install();
	/*
	 * A reader of a WAL store uses its -wal and -shm files, and makes
	 * them when they are missing: files that a read-only connection
	 * cannot delete again, that would be the reader's and not the bot's,
	 * and that a read-only directory refuses.  Without a -wal file
	 * every committed transaction is in the database file, which is
	 * then read as it is, without those files and without locks
	 * (immutable).  A bot that starts meanwhile writes its -wal file and
	 * changes the database file only at a checkpoint, after a thousand
	 * pages or when it stops, not within the moment an export takes.
	 */
	snprintf(name, sizeof(name), "%s-wal", path);
	if (stat(name, &st) != 0 && errno == ENOENT)
		query = "mode=ro&immutable=1";
	if (uri_of(path, query, uri, sizeof(uri)) != 0) {
		snprintf(why, sizeof(why), "the path is too long");
		goto fail;
	}
	if (open_read(store, uri, why, sizeof(why)) != 0) {
		unreadable_beside(path, why, sizeof(why));
		goto fail;
	}
	if (db_prepare(store, why, sizeof(why)) != 0)
		goto fail;
	/* For the log lines (see identify(), which would also chmod). */
	if (stat(path, &st) == 0) {
		store->path = xstrdup(path);
		store->dev = st.st_dev;
		store->ino = st.st_ino;
	}
	return store;
fail:
	game_error(err, errlen, "Cannot read the store %s: %s", path, why);
	store_close(store);
	return NULL;
}

void
store_close(struct store *store)
{
	if (store == NULL)
		return;
	db_context(store, 0, NULL, NULL);
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
	if (store->file_fd >= 0)
		close(store->file_fd);
	if (store->lock_fd >= 0)
		close(store->lock_fd);
	free(store->path);
	free(store);
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
	/* Counted from here: db_begin() writes the deferred values first. */
	store->batch = 0;
	if (db_begin(store, STMT_BEGIN_IMMEDIATE) != 0)
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
		/* Its deferred rows changed nothing either: they are done. */
		db_deferred_ended(store, 1);
		db_rollback(store);
		return 0;
	}
	return db_finish(store, 0);
}

void
store_batch_rollback(struct store *store)
{
	if (!store->batch)
		return;
	store->batch = 0;
	db_rollback(store);
}

void
store_fail_commits(struct store *store, int n)
{
	store->fail_commits = n;
}

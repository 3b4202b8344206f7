/*
 * store_kv.c - small values (store_kv_*), the lobbies kept across
 * restarts, and the outbox of messages not yet sent.  Values and sent
 * outbox rows may be deferred: they are written by the next transaction
 * (or the open batch), since losing one at worst repeats a message or a
 * Matrix event check, never a move.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_int.h"
#include "xmalloc.h"

int
store_kv_set(struct store *store, const char *key, const char *value)
{
	sqlite3_stmt *st = db_stmt(store, STMT_KV_SET);

	db_context(store, 0, NULL, NULL);
	if (key == NULL || value == NULL) {
		store_log("a stored value needs a key and a value");
		return -1;
	}
	if (db_writable(store) != 0)
		return -1;
	db_bind_text(st, 1, key);
	db_bind_text(st, 2, value);
	/* The value may be a secret (a sync token): name only the key. */
	if (db_run(store, st, "cannot store a value") != 0) {
		store_log("the value of \"%s\" was not stored", key);
		return -1;
	}
	return 0;
}

char *
store_kv_get(struct store *store, const char *key)
{
	sqlite3_stmt *st = db_stmt(store, STMT_KV_GET);
	char *value = NULL;
	int rc;

	db_context(store, 0, NULL, NULL);
	db_bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		value = xstrdup(db_column_text(st, 0));
	db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(store, "cannot read a value");
	return value;
}

int
store_lobby_put(struct store *store, const char *network,
    const char *channel, const char *lobby)
{
	sqlite3_stmt *st = db_stmt(store, STMT_LOBBY_PUT);

	db_context(store, 0, network, channel);
	if (db_writable(store) != 0)
		return -1;
	db_bind_text(st, 1, network);
	db_bind_text(st, 2, channel);
	db_bind_text(st, 3, lobby);
	return db_run(store, st, "cannot store a lobby");
}

int
store_lobby_delete(struct store *store, const char *network,
    const char *channel)
{
	sqlite3_stmt *st = db_stmt(store, STMT_LOBBY_DELETE);

	db_context(store, 0, network, channel);
	if (db_writable(store) != 0)
		return -1;
	db_bind_text(st, 1, network);
	db_bind_text(st, 2, channel);
	return db_run(store, st, "cannot delete a lobby");
}

int
store_each_lobby(struct store *store, store_lobby_fn fn, void *arg)
{
	sqlite3_stmt *st = db_stmt(store, STMT_LOBBIES_SELECT);
	int rc, count = 0;

	db_context(store, 0, NULL, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fn(db_column_text(st, 0), db_column_text(st, 1),
		    db_column_text(st, 2), arg) == 0)
			count++;
	}
	db_done(st);
	if (rc != SQLITE_DONE) {
		db_fail(store, "cannot read the lobbies");
		return -1;
	}
	return count;
}

/* Writes the deferred values and deletions inside an open transaction. */
int
db_write_deferred(struct store *store)
{
	int64_t before = sqlite3_total_changes64(store->db);

	for (size_t i = 0; i < store->nkv; i++) {
		sqlite3_stmt *st = db_stmt(store, STMT_KV_SET);

		db_bind_text(st, 1, store->kv[i].key);
		db_bind_text(st, 2, store->kv[i].value);
		if (db_run(store, st, "cannot store a value") != 0)
			return -1;
	}
	for (size_t i = 0; i < store->nsent; i++) {
		sqlite3_stmt *st = db_stmt(store, STMT_OUTBOX_DELETE);

		sqlite3_bind_int64(st, 1, store->sent[i]);
		if (db_run(store, st, "cannot forget a sent message") != 0)
			return -1;
	}
	/*
	 * Forgotten only once committed (db_deferred_ended()): a COMMIT
	 * refused by a full disk must leave the sent rows for the next one,
	 * or a restart long after would say them again.
	 */
	store->batch_quiet += sqlite3_total_changes64(store->db) - before;
	store->kv_written = store->nkv;
	store->sent_written = store->nsent;
	return 0;
}

void
db_deferred_ended(struct store *store, int committed)
{
	/* Nothing written: the arrays may not even exist (memmove(NULL)). */
	if (committed && store->kv_written > 0) {
		for (size_t i = 0; i < store->kv_written; i++) {
			free(store->kv[i].key);
			free(store->kv[i].value);
		}
		memmove(store->kv, store->kv + store->kv_written,
		    (store->nkv - store->kv_written) * sizeof(*store->kv));
		store->nkv -= store->kv_written;
	}
	if (committed && store->sent_written > 0) {
		memmove(store->sent, store->sent + store->sent_written,
		    (store->nsent - store->sent_written) *
		    sizeof(*store->sent));
		store->nsent -= store->sent_written;
	}
	store->kv_written = 0;
	store->sent_written = 0;
}

int
store_kv_defer(struct store *store, const char *key, const char *value)
{
	for (size_t i = 0; i < store->nkv; i++) {
		if (strcmp(store->kv[i].key, key) == 0) {
			free(store->kv[i].value);
			store->kv[i].value = xstrdup(value);
			return 0;
		}
	}
	if (store->nkv == store->kv_cap) {
		store->kv_cap = store->kv_cap != 0 ? store->kv_cap * 2 : 4;
		store->kv = xreallocarray(store->kv, store->kv_cap,
		    sizeof(*store->kv));
	}
	store->kv[store->nkv].key = xstrdup(key);
	store->kv[store->nkv].value = xstrdup(value);
	store->nkv++;
	/* Inside a batch the batch's COMMIT carries it. */
	if (store->batch)
		return db_write_deferred(store);
	return 0;
}

int
store_flush(struct store *store)
{
	if (store->batch || (store->nkv == 0 && store->nsent == 0))
		return 0;
	if (db_begin(store, STMT_BEGIN_IMMEDIATE) != 0)
		return -1;
	return db_finish(store, 0);
}

int
store_kv_flush(struct store *store)
{
	return store_flush(store);
}

int64_t
store_outbox_add(struct store *store, const struct store_message *msg)
{
	sqlite3_stmt *st = db_stmt(store, STMT_OUTBOX_INSERT);
	int64_t id;

	db_bind_text(st, 1, msg->network);
	db_bind_text(st, 2, msg->target);
	sqlite3_bind_int(st, 3, msg->private_);
	if (msg->flow != NULL)
		db_bind_text(st, 4, msg->flow);
	else
		sqlite3_bind_null(st, 4);
	db_bind_text(st, 5, msg->body);
	if (db_run(store, st, "cannot store a message") != 0)
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
		store->sent_cap = store->sent_cap != 0 ? store->sent_cap * 2 :
		    16;
		store->sent = xreallocarray(store->sent, store->sent_cap,
		    sizeof(*store->sent));
	}
	store->sent[store->nsent++] = id;
	return 0;
}

int
store_each_outbox(struct store *store, store_message_fn fn, void *arg)
{
	sqlite3_stmt *st = db_stmt(store, STMT_OUTBOX_SELECT);
	struct store_message msg;
	int rc, count = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		msg.id = sqlite3_column_int64(st, 0);
		msg.network = db_column_text(st, 1);
		msg.target = db_column_text(st, 2);
		msg.private_ = sqlite3_column_int(st, 3);
		msg.flow = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL :
		    db_column_text(st, 4);
		msg.body = db_column_text(st, 5);
		msg.age = sqlite3_column_int64(st, 6);
		fn(&msg, arg);
		count++;
	}
	db_done(st);
	if (rc != SQLITE_DONE) {
		db_fail(store, "cannot read the outbox");
		return -1;
	}
	return count;
}

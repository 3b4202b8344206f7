/*
 * test_outbox.c - the outbox (bot/outbox.c): messages of an event that
 * stored a change are committed with it and handed over with their row
 * ids, in order; an event that changed nothing sends untracked; a failed
 * commit says nothing and names the flows it spoke for; rows not reported
 * sent go out again, first, after a restart, and a resume's identical
 * private line is not sent twice; nested events are one; what a flow's
 * readers have not seen yet; a message that expires is handed over with
 * its expiry and never stored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sqlite3.h>

#include "outbox.h"
#include "store.h"

/* What the fake adapter was handed, one line per message. */
struct handed {
	char lines[32][160];
	uint64_t ids[32];
	uint64_t expires[32];
	int n;
	int refuse;              /* 1: the "network" is gone */
};

static int
hand(void *arg, const char *network, const char *target, int private_,
    const struct text *text, const struct send_info *info)
{
	struct handed *h = arg;

	if (h->refuse)
		return -1;
	snprintf(h->lines[h->n], sizeof(h->lines[0]), "%s %s %d %s %s",
	    network, target, private_, info->flow != NULL ? info->flow : "-",
	    text_str(text));
	h->expires[h->n] = info->expires;
	h->ids[h->n++] = info->id;
	return 0;
}

static void
say(struct outbox *o, const char *target, int private_, const char *flow,
    const char *words)
{
	struct text t;

	text_init(&t);
	text_add(&t, words);
	outbox_send(o, "net", target, private_, flow, &t);
	text_finish(&t);
}

static struct store *
temp_store(char *path, size_t len)
{
	char err[256];
	struct store *store;
	int fd;

	snprintf(path, len, "/tmp/test_outbox_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	store = store_open(path, err, sizeof(err));
	assert_non_null(store);
	return store;
}

/*
 * A restart on the store at path (its last outbox and store closed by
 * the caller): *store opened again, h cleared, and a new outbox on them.
 */
static struct outbox *
restart(const char *path, struct store **store, struct handed *h)
{
	char err[256];

	*store = store_open(path, err, sizeof(err));
	assert_non_null(*store);
	memset(h, 0, sizeof(*h));
	return outbox_create(*store, hand, h);
}

static void
remove_store(const char *path)
{
	char side[96];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

/*
 * What a flow's readers have not seen: the newest tracked message not
 * reported sent, per flow, and whether those up to a mark have been.
 */
static void
test_flow_unsent(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);
	uint64_t mark;

	(void)state;
	assert_true(outbox_flow_unsent(o, "net", "#a") == 0);
	assert_int_equal(outbox_flow_sent(o, "net", "#a", 99), 1);
	/* Untracked messages are nobody's wait. */
	say(o, "#a", 0, "#a", "hello");
	assert_true(outbox_flow_unsent(o, "net", "#a") == 0);

	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#a", "{}"), 0);
	say(o, "#a", 0, "#a", "bob plays");
	say(o, "#b", 0, "#b", "elsewhere");
	say(o, "bob", 1, "#a", "your hand");
	say(o, "carol", 1, NULL, "a reply");
	assert_true(outbox_flow_unsent(o, "net", "#a") == 0);
	assert_int_equal(outbox_leave(o), 0);
	assert_int_equal(h.n, 5);
	/*
	 * Channel lines first: #a's line, #b's, then the private ones; the
	 * reply to carol has no flow.
	 */
	mark = outbox_flow_unsent(o, "net", "#a");
	assert_true(mark == h.ids[3] && mark != 0);
	assert_true(outbox_flow_unsent(o, "net", "#b") == h.ids[2]);
	assert_true(outbox_flow_unsent(o, "other", "#a") == 0);
	assert_int_equal(outbox_flow_sent(o, "net", "#a", mark), 0);
	/* Out of order: the hand first, then the channel line. */
	outbox_sent(o, h.ids[3]);
	assert_int_equal(outbox_flow_sent(o, "net", "#a", mark), 0);
	assert_true(outbox_flow_unsent(o, "net", "#a") == h.ids[1]);
	outbox_sent(o, h.ids[1]);
	assert_int_equal(outbox_flow_sent(o, "net", "#a", mark), 1);
	assert_true(outbox_flow_unsent(o, "net", "#a") == 0);
	/* #b's line is still unsent; reporting it twice does no harm. */
	assert_int_equal(outbox_flow_sent(o, "net", "#b", h.ids[2]), 0);
	outbox_sent(o, h.ids[2]);
	outbox_sent(o, h.ids[2]);
	assert_int_equal(outbox_flow_sent(o, "net", "#b", h.ids[2]), 1);

	/* A message the adapter refused counts as sent at once. */
	h.refuse = 1;
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#a", "{\"x\":1}"),
	    0);
	say(o, "#a", 0, "#a", "gone");
	assert_int_equal(outbox_leave(o), 0);
	assert_true(outbox_flow_unsent(o, "net", "#a") == 0);
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

static void
test_tracked_and_untracked(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);

	(void)state;
	/* Outside an event: at once, untracked. */
	say(o, "#a", 0, "#a", "hello");
	assert_int_equal(h.n, 1);
	assert_true(h.ids[0] == 0);

	/* An event that stored nothing: untracked, after the event. */
	outbox_enter(o);
	say(o, "alice", 1, NULL, "help text");
	assert_int_equal(h.n, 1);
	assert_int_equal(outbox_leave(o), 0);
	assert_int_equal(h.n, 2);
	assert_true(h.ids[1] == 0);
	assert_int_equal(outbox_last_stored(o), 0);

	/* An event that stored a change: rows, in order, nested as one. */
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#a", "{}"), 0);
	say(o, "#a", 0, "#a", "alice joins");
	outbox_enter(o);
	say(o, "alice", 1, "#a", "your hand");
	assert_int_equal(outbox_leave(o), 0);
	assert_int_equal(h.n, 2);
	assert_int_equal(outbox_leave(o), 0);
	assert_int_equal(h.n, 4);
	assert_string_equal(h.lines[2], "net #a 0 #a alice joins");
	assert_string_equal(h.lines[3], "net alice 1 #a your hand");
	assert_true(h.ids[2] > 0 && h.ids[3] == h.ids[2] + 1);
	assert_int_equal(outbox_last_stored(o), 1);
	assert_int_equal(outbox_flow_count(o), 1);
	assert_string_equal(outbox_flow_name(o, 0), "#a");

	/* Not reported sent: a restart hands both over again, first. */
	outbox_destroy(o);
	store_close(store);
	o = restart(path, &store, &h);
	assert_int_equal(outbox_load(o), 2);
	assert_string_equal(h.lines[0], "net #a 0 #a alice joins");
	assert_string_equal(h.lines[1], "net alice 1 #a your hand");
	/* Reported sent (the deletion rides on the next write): gone. */
	outbox_sent(o, h.ids[0]);
	outbox_sent(o, h.ids[1]);
	assert_int_equal(store_flush(store), 0);
	memset(&h, 0, sizeof(h));
	assert_int_equal(outbox_load(o), 0);
	assert_int_equal(h.n, 0);

	/* A network that is gone: the row is forgotten, not kept forever. */
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#b", "{}"), 0);
	h.refuse = 1;
	say(o, "#b", 0, "#b", "lost");
	assert_int_equal(outbox_leave(o), 0);
	h.refuse = 0;
	assert_int_equal(store_flush(store), 0);
	assert_int_equal(outbox_load(o), 0);
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

/*
 * A message that expires (the turn timer's reminder) goes to the adapter
 * with its expiry and is never stored, even in an event that stored a
 * change: a restart must not say it late.
 */
static void
test_expiring(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);
	struct text t;

	(void)state;
	text_init(&t);
	text_add(&t, "60 seconds left");
	/* Outside an event: at once, untracked, with its expiry. */
	outbox_send_until(o, "net", "alice", 1, "#a", &t, 5000);
	assert_int_equal(h.n, 1);
	assert_true(h.ids[0] == 0 && h.expires[0] == 5000);

	/* In an event that stored a change: the others are rows, not it. */
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#a", "{}"), 0);
	say(o, "#a", 0, "#a", "alice joins");
	outbox_send_until(o, "net", "alice", 1, "#a", &t, 7000);
	say(o, "bob", 1, "#a", "your hand");
	assert_int_equal(outbox_leave(o), 0);
	assert_int_equal(h.n, 4);
	assert_string_equal(h.lines[1], "net #a 0 #a alice joins");
	assert_true(h.ids[1] > 0 && h.expires[1] == 0);
	assert_string_equal(h.lines[2], "net alice 1 #a 60 seconds left");
	assert_true(h.ids[2] == 0 && h.expires[2] == 7000);
	assert_string_equal(h.lines[3], "net bob 1 #a your hand");
	assert_true(h.ids[3] == h.ids[1] + 1 && h.expires[3] == 0);
	/* Only the tracked one holds its flow's clock. */
	assert_true(outbox_flow_unsent(o, "net", "#a") == h.ids[3]);
	text_finish(&t);

	/* A restart says the stored two again, not the reminder. */
	outbox_destroy(o);
	store_close(store);
	o = restart(path, &store, &h);
	assert_int_equal(outbox_load(o), 2);
	assert_string_equal(h.lines[0], "net #a 0 #a alice joins");
	assert_string_equal(h.lines[1], "net bob 1 #a your hand");
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

static int
count_lobby(const char *network, const char *channel, const char *lobby,
    void *arg)
{
	(void)network, (void)channel, (void)lobby, (void)arg;
	return 0;
}

static void
test_failed_commit(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);

	(void)state;
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#c", "{}"), 0);
	say(o, "#c", 0, "#c", "carol joins");
	say(o, "carol", 1, "#d", "a line of another table");
	say(o, "carol", 1, NULL, "a reply");
	store_fail_commits(store, 1);
	assert_int_equal(outbox_leave(o), -1);
	/* Nothing was said, and the store has neither change nor message. */
	assert_int_equal(h.n, 0);
	assert_int_equal(outbox_flow_count(o), 2);
	assert_string_equal(outbox_flow_network(o, 0), "net");
	assert_string_equal(outbox_flow_name(o, 0), "#c");
	assert_string_equal(outbox_flow_name(o, 1), "#d");
	assert_int_equal(outbox_load(o), 0);
	assert_int_equal(store_each_lobby(store, count_lobby, NULL), 0);
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

/* Rows older than an hour are forgotten at a restart, not sent. */
static void
test_stale_rows(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);
	sqlite3 *db;

	(void)state;
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#s", "{}"), 0);
	say(o, "#s", 0, "#s", "long ago");
	say(o, "#s", 0, "#s", "just now");
	assert_int_equal(outbox_leave(o), 0);
	outbox_destroy(o);
	store_close(store);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE outbox SET created ="
	    " created - 7200 WHERE body = 'long ago'", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	o = restart(path, &store, &h);
	assert_int_equal(outbox_load(o), 2);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.lines[0], "net #s 0 #s just now");
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

/*
 * After a restart, while skip_resent is on (a game's resume sending
 * hands), a private line identical to one the restart sent again is not
 * sent twice; each matches once, and only while on.
 */
static void
test_skip_resent(void **state)
{
	struct handed h = { 0 };
	char path[64];
	struct store *store = temp_store(path, sizeof(path));
	struct outbox *o = outbox_create(store, hand, &h);

	(void)state;
	outbox_enter(o);
	assert_int_equal(store_lobby_put(store, "net", "#r", "{}"), 0);
	say(o, "#r", 0, "#r", "round 1");
	say(o, "alice", 1, "#r", "your hand: r5");
	say(o, "bob", 1, "#r", "your hand: b7");
	assert_int_equal(outbox_leave(o), 0);
	outbox_destroy(o);
	store_close(store);
	o = restart(path, &store, &h);
	assert_int_equal(outbox_load(o), 3);
	assert_int_equal(h.n, 3);

	outbox_skip_resent(o, 1);
	outbox_enter(o);
	/* The same hand: not again.  Another text, or the channel's line: sent. */
	say(o, "alice", 1, "#r", "your hand: r5");
	say(o, "bob", 1, "#r", "your hand: b7 g2");
	say(o, "#r", 0, "#r", "round 1");
	/* A second identical line has nothing left to match. */
	say(o, "alice", 1, "#r", "your hand: r5");
	assert_int_equal(outbox_leave(o), 0);
	outbox_skip_resent(o, 0);
	/* (A batch's lines go out in causal order: the channel's first.) */
	assert_int_equal(h.n, 6);
	assert_string_equal(h.lines[3], "net #r 0 #r round 1");
	assert_string_equal(h.lines[4], "net bob 1 #r your hand: b7 g2");
	assert_string_equal(h.lines[5], "net alice 1 #r your hand: r5");
	/* Off: bob's hand, which matched nothing, goes out as asked. */
	say(o, "bob", 1, "#r", "your hand: b7");
	assert_int_equal(h.n, 7);
	assert_string_equal(h.lines[6], "net bob 1 #r your hand: b7");
	outbox_destroy(o);
	store_close(store);
	remove_store(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_unsent),
		cmocka_unit_test(test_tracked_and_untracked),
		cmocka_unit_test(test_expiring),
		cmocka_unit_test(test_failed_commit),
		cmocka_unit_test(test_stale_rows),
		cmocka_unit_test(test_skip_resent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

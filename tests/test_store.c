/*
 * test_store.c - the crash-safe store (bot/store.h): games come back from
 * disk as the very records the live games would write, duplicate or
 * out-of-order rows are refused, filters and statistics count the right
 * games, and a process killed at a random moment loses no action it was
 * told had been stored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "log.h"
#include "store.h"
#include "store_int.h"
#include "testutil.h"
#include "wizard.h"

/* Messages of the crash test's child, besides action indexes. */
#define ACK_BEGIN (-1)
#define ACK_END (-2)

#define MAX_COLLECT 16

/* A private directory for one on-disk store; see temp_store(). */
struct temp {
	char dir[256];
	char path[300];
};

static void
temp_store(struct temp *t)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(t->dir, sizeof(t->dir), "%s/test_store.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/stichbot.db", t->dir);
}

static void
temp_remove(struct temp *t)
{
	static const char *const suffixes[] = { "", "-wal", "-shm",
	    "-journal", ".lock", ".other" };
	char name[320];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", t->path, suffixes[i]);
		(void)unlink(name);
	}
	assert_int_equal(rmdir(t->dir), 0);
}

static struct store *
open_store(const char *path)
{
	char err[512] = "";
	struct store *store = store_open(path, err, sizeof(err));

	if (store == NULL)
		fail_msg("store_open(%s): %s", path, err);
	return store;
}

/*
 * The write-ahead log stays near 1 MB however much is written (SQLite's
 * default lets it grow to 4 MB and keeps it there): a store needs little
 * room beyond its file.
 */
static void
test_wal_stays_small(void **state)
{
	struct temp t;
	struct store *store;
	char value[4096], key[32], wal[320];
	struct stat st;
	off_t most = 0;

	(void)state;
	temp_store(&t);
	store = open_store(t.path);
	memset(value, 'x', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	snprintf(wal, sizeof(wal), "%s-wal", t.path);
	for (int i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "k%d", i % 500);
		assert_int_equal(store_kv_set(store, key, value), 0);
		if (stat(wal, &st) == 0 && st.st_size > most)
			most = st.st_size;
	}
	assert_true(most > 0);
	/* 250 pages of 4 KB, and the frame headers of a transaction. */
	if (most > 1100 * 1024)
		fail_msg("the WAL grew to %lld bytes", (long long)most);
	store_close(store);
	temp_remove(&t);
}

/* What the callbacks saw, copied so it outlives the call. */
struct collected {
	int n;
	int stop_after;          /* return 7 after this many; 0: never */
	struct {
		int64_t id;
		uint64_t seed;
		int deal_version;
		int finished;
		int64_t paused_until;
		char network[32];
		char channel[32];
		json_t *record;
		json_t *seats;
	} g[MAX_COLLECT];
};

static int
collect(const struct store_game *game, void *arg)
{
	struct collected *c = arg;

	assert_true(c->n < MAX_COLLECT);
	c->g[c->n].id = game->id;
	c->g[c->n].seed = game->seed;
	c->g[c->n].deal_version = game->deal_version;
	c->g[c->n].finished = game->finished;
	c->g[c->n].paused_until = game->paused_until;
	snprintf(c->g[c->n].network, sizeof(c->g[c->n].network), "%s",
	    game->network);
	snprintf(c->g[c->n].channel, sizeof(c->g[c->n].channel), "%s",
	    game->channel);
	c->g[c->n].record = json_deep_copy(game->record);
	c->g[c->n].seats = json_deep_copy(game->seats);
	c->n++;
	return c->stop_after > 0 && c->n == c->stop_after ? 7 : 0;
}

static void
collected_free(struct collected *c)
{
	for (int i = 0; i < c->n; i++) {
		json_decref(c->g[i].record);
		json_decref(c->g[i].seats);
	}
	memset(c, 0, sizeof(*c));
}

/* Seats held by u0, u1... named like the players; the last one a computer. */
static void
default_seats(const struct game *game, int computer_last,
    struct store_seat *seats)
{
	static const char *const users[] = { "u0", "u1", "u2", "u3", "u4",
	    "u5" };

	for (int seat = 0; seat < game->setup.nseats; seat++) {
		int computer = computer_last && seat == game->setup.nseats - 1;

		seats[seat].user_id = computer ? "" : users[seat];
		seats[seat].name = json_string_value(json_array_get(
		    game->players, (size_t)seat));
		seats[seat].computer = computer;
		seats[seat].level = computer ? 2 : 0;
		seats[seat].released = 0;
		seats[seat].stop_vote = 0;
		seats[seat].formers = NULL;
	}
}

static int
ack(int fd, int32_t msg)
{
	if (fd < 0)
		return 0;
	return write(fd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : -1;
}

/* Adds and stores the deals of src that live waits for. */
static int
feed_deals(struct store *store, int64_t id, struct game *live,
    const struct game *src, int all)
{
	char err[GAME_ERR_LEN];

	while (live->ndeals < src->ndeals && (all ||
	    live->impl->phase(live->state) == PHASE_DEAL)) {
		if (game_add_deal(live, &src->deals[live->ndeals], err,
		    sizeof(err)) != 0 ||
		    store_deal(store, id, live->ndeals - 1, live) != 0 ||
		    game_advance(live, err, sizeof(err)) != 0)
			return -1;
	}
	return 0;
}

/*
 * Stores src as the bot does while a game is played: begins with nothing
 * played, stores each deal when the game needs it and each action as it
 * is applied, and (when end is set) ends the game when src is over.  After
 * each step that returned 0, writes ACK_BEGIN, the action's index or
 * ACK_END to fd (when fd >= 0).  Returns the game id, or -1.  Uses no
 * cmocka assertion, because it also runs in the crash test's child.
 */
static int64_t
store_replayed(struct store *store, const struct store_place *place,
    const struct game *src, uint64_t seed, const struct store_seat *seats,
    int end, int fd)
{
	char err[GAME_ERR_LEN];
	struct store_seat mine[GAME_MAX_SEATS];
	struct game *live;
	int64_t id;
	int rc = 0;

	live = game_create(src->impl, &src->setup, src->players, err,
	    sizeof(err));
	if (live == NULL)
		return -1;
	if (seats == NULL) {
		default_seats(src, 1, mine);
		seats = mine;
	}
	id = store_game_begin(store, place, live, seed, seats,
	    live->setup.nseats);
	if (id < 0 || ack(fd, ACK_BEGIN) != 0)
		rc = -1;
	for (int i = 0; rc == 0 && i < src->nactions; i++) {
		rc = feed_deals(store, id, live, src, 0);
		if (rc == 0)
			rc = game_apply(live, &src->actions[i], err,
			    sizeof(err));
		if (rc == 0)
			rc = store_action(store, id, i, live);
		if (rc == 0)
			rc = ack(fd, i);
	}
	if (rc == 0)
		rc = feed_deals(store, id, live, src, 1);
	if (rc == 0 && end && live->impl->phase(live->state) == PHASE_OVER) {
		json_t *result = live->impl->result(live->state);

		rc = store_game_end(store, id, result);
		json_decref(result);
		if (rc == 0)
			rc = ack(fd, ACK_END);
	}
	game_destroy(live);
	return rc == 0 ? id : -1;
}

/* A random Wizard game; rounds 0 plays the whole schedule. */
static struct game *
random_wizard(struct rng *rng, int nseats, int rounds, int max_actions)
{
	struct game_setup setup;

	memset(&setup, 0, sizeof(setup));
	setup.nseats = nseats;
	setup.first = (int)rng_below(rng, (uint32_t)nseats);
	setup.options.value[WIZARD_OPT_ROUNDS] = rounds;
	return test_random_game(&wizard_game, &setup, rng, max_actions);
}

/* Checks a stored seats array against what was stored. */
static void
check_seats(const json_t *got, const struct store_seat *want, int n)
{
	char *formers;

	assert_int_equal(json_array_size(got), n);
	for (int seat = 0; seat < n; seat++) {
		const json_t *s = json_array_get(got, (size_t)seat);

		assert_string_equal(json_string_value(json_object_get(s,
		    "user_id")), want[seat].user_id);
		assert_string_equal(json_string_value(json_object_get(s,
		    "name")), want[seat].name);
		assert_int_equal(json_is_true(json_object_get(s, "computer")),
		    want[seat].computer);
		assert_int_equal(json_integer_value(json_object_get(s,
		    "level")), want[seat].level);
		assert_int_equal(json_is_true(json_object_get(s, "released")),
		    want[seat].released);
		assert_int_equal(json_is_true(json_object_get(s, "stop_vote")),
		    want[seat].stop_vote);
		formers = json_dumps(json_object_get(s, "formers"),
		    JSON_COMPACT);
		assert_non_null(formers);
		assert_string_equal(formers, want[seat].formers != NULL ?
		    want[seat].formers : "[]");
		free(formers);
	}
}

/* The first column of a one-row query on a raw connection, as text. */
static void
raw_query(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static void
test_open_close(void **unused)
{
	char err[512], buf[128];
	struct store *store;
	struct temp t;
	sqlite3 *db;
	FILE *f;

	store_close(NULL);
	store = open_store(":memory:");
	assert_int_equal(store_kv_set(store, "k", "v"), 0);
	store_close(store);

	/* A new file gets the schema, WAL mode and the schema version. */
	temp_store(&t);
	store = open_store(t.path);
	store_close(store);
	store = open_store(t.path);
	store_close(store);
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "PRAGMA journal_mode", buf, sizeof(buf));
	assert_string_equal(buf, "wal");
	raw_query(db, "PRAGMA user_version", buf, sizeof(buf));
	assert_string_equal(buf, "6");
	raw_query(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM "
	    "sqlite_schema WHERE type = 'table' ORDER BY name)", buf,
	    sizeof(buf));
	assert_string_equal(buf,
	    "actions,deals,games,kv,lobbies,outbox,seats,sqlite_sequence,"
	    "standings");
	/* A store from a newer stichbot is refused, not damaged. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL,
	    NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	err[0] = '\0';
	assert_null(store_open(t.path, err, sizeof(err)));
	assert_non_null(strstr(err, "version 99"));
	temp_remove(&t);

	/* A file that is not a database, and a missing directory. */
	temp_store(&t);
	f = fopen(t.path, "w");
	assert_non_null(f);
	fputs("this is not a database, just some text of enough length to "
	    "fill a header and then some more text after it.\n", f);
	fclose(f);
	err[0] = '\0';
	assert_null(store_open(t.path, err, sizeof(err)));
	assert_non_null(strstr(err, t.path));
	assert_non_null(strstr(err, "not a database"));
	temp_remove(&t);
	err[0] = '\0';
	assert_null(store_open("/nonexistent/dir/stichbot.db", err,
	    sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/dir/stichbot.db"));
}

struct lobbies_seen {
	char lines[8][128];
	int n;
};

static int
collect_lobby(const char *network, const char *channel, const char *lobby,
    void *arg)
{
	struct lobbies_seen *seen = arg;

	snprintf(seen->lines[seen->n++], sizeof(seen->lines[0]), "%s %s %s",
	    network, channel, lobby);
	return strcmp(lobby, "skip") == 0 ? 1 : 0;
}

/*
 * Lobbies: put replaces a channel's lobby, delete removes it (and is fine
 * when there is none), each lists them in order and counts the ones its
 * callback took.  A store of schema version 1 (before lobbies and the
 * damaged column) is migrated on open and keeps its games.
 */
static void
test_lobbies(void **unused)
{
	const struct store_place place = { "libera", "#old" };
	struct store_seat seats[GAME_MAX_SEATS];
	struct lobbies_seen seen;
	struct store *store;
	struct game *game;
	struct rng rng;
	struct temp t;
	char buf[256];
	sqlite3 *db;

	(void)unused;
	temp_store(&t);
	store = open_store(t.path);
	assert_int_equal(store_lobby_put(store, "libera", "#b", "{\"x\":1}"),
	    0);
	assert_int_equal(store_lobby_put(store, "libera", "#a", "skip"), 0);
	assert_int_equal(store_lobby_put(store, "libera", "#b", "{\"x\":2}"),
	    0);
	assert_int_equal(store_lobby_put(store, "oftc", "#a", "{}"), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_lobby(store, collect_lobby, &seen), 2);
	assert_int_equal(seen.n, 3);
	assert_string_equal(seen.lines[0], "libera #a skip");
	assert_string_equal(seen.lines[1], "libera #b {\"x\":2}");
	assert_string_equal(seen.lines[2], "oftc #a {}");
	assert_int_equal(store_lobby_delete(store, "libera", "#a"), 0);
	assert_int_equal(store_lobby_delete(store, "libera", "#zzz"), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_lobby(store, collect_lobby, &seen), 2);
	assert_int_equal(seen.n, 2);

	/* Back to version 1, with a game in it: opening migrates. */
	rng_seed(&rng, 3);
	game = random_wizard(&rng, 3, 0, 10);
	default_seats(game, 0, seats);
	assert_true(store_game_begin(store, &place, game, 7, seats, 3) > 0);
	game_destroy(game);
	store_close(store);
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE lobbies;"
	    " DROP TABLE outbox; ALTER TABLE games DROP COLUMN damaged;"
	    " ALTER TABLE games DROP COLUMN deal_version;"
	    " ALTER TABLE seats DROP COLUMN released;"
	    " ALTER TABLE seats DROP COLUMN stop_vote;"
	    " ALTER TABLE games DROP COLUMN paused_until;"
	    " ALTER TABLE seats DROP COLUMN formers;"
	    " PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	store = open_store(t.path);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_lobby(store, collect_lobby, &seen), 0);
	assert_int_equal(store_lobby_put(store, "libera", "#a", "{}"), 0);
	store_close(store);
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "PRAGMA user_version", buf, sizeof(buf));
	assert_string_equal(buf, "6");
	raw_query(db, "SELECT count(*) FROM games WHERE channel = '#old'"
	    " AND damaged IS NULL", buf,
	    sizeof(buf));
	assert_string_equal(buf, "1");
	sqlite3_close(db);
	temp_remove(&t);
}

/*
 * Deals round index of game from seed the way the bot does (bot/table.c,
 * table_deal()): one stream per round, the game's deal version.
 */
static void
deal_like_the_bot(struct game *game, uint64_t seed, struct deal *deal)
{
	char err[GAME_ERR_LEN];
	struct rng rng;

	rng_seed(&rng, seed ^ (UINT64_C(0x9e3779b97f4a7c15) *
	    (uint64_t)(game->ndeals + 1)));
	game_make_deal(game->impl, game->state, game->deal_version, &rng,
	    deal);
	assert_int_equal(game_add_deal(game, deal, err, sizeof(err)), 0);
	assert_int_equal(game_advance(game, err, sizeof(err)), 0);
}

/* Plays the lowest legal action until the next deal is due. */
static void
play_round(struct game *game)
{
	char err[GAME_ERR_LEN];

	while (game->impl->phase(game->state) != PHASE_DEAL) {
		struct action legal[GAME_MAX_ACTIONS];
		int seats[GAME_MAX_SEATS];

		assert_true(game->impl->to_act(game->state, seats) > 0);
		assert_true(game->impl->legal(game->state, seats[0], legal,
		    GAME_MAX_ACTIONS) > 0);
		assert_int_equal(game_apply(game, &legal[0], err,
		    sizeof(err)), 0);
	}
}

/*
 * The deal version: a game stored before the store kept one (schema
 * version 3) reads back as version 1 and, rebuilt from its rows as the
 * bot restores it, deals its next round card for card as before (the
 * cards worked out independently, see tests/test_wizard.c); a new game is
 * stored with the newest version.
 */
static void
test_deal_version(void **unused)
{
	const struct store_place place = { "libera", "#deal" };
	const struct game_setup setup = { .nseats = 3, .first = 0 };
	const uint64_t seed = 2026;
	struct store_seat seats[GAME_MAX_SEATS];
	struct game *old, *back, *new;
	struct deal deal, before;
	struct collected c;
	struct store *store;
	char err[GAME_ERR_LEN], code[8], hands[64] = "";
	struct temp t;
	json_t *a;
	sqlite3 *db;
	size_t i;

	(void)unused;
	temp_store(&t);
	store = open_store(t.path);
	old = game_create(&wizard_game, &setup, NULL, err, sizeof(err));
	assert_non_null(old);
	assert_int_equal(old->deal_version, GAME_DEAL_VERSION);
	old->deal_version = 1;
	deal_like_the_bot(old, seed, &deal);
	play_round(old);
	default_seats(old, 0, seats);
	assert_true(store_game_begin(store, &place, old, seed, seats, 3) > 0);
	store_close(store);
	/* The store as it was before version 4. */
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE games DROP COLUMN"
	    " deal_version; ALTER TABLE seats DROP COLUMN released;"
	    " ALTER TABLE seats DROP COLUMN stop_vote;"
	    " ALTER TABLE games DROP COLUMN paused_until;"
	    " ALTER TABLE seats DROP COLUMN formers;"
	    " PRAGMA user_version = 3", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);

	store = open_store(t.path);
	new = game_create(&wizard_game, &setup, NULL, err, sizeof(err));
	assert_non_null(new);
	assert_true(store_game_begin(store, &place, new, seed, seats, 3) > 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.g[0].deal_version, 1);
	assert_int_equal(c.g[1].deal_version, GAME_DEAL_VERSION);

	/* Rebuilt as table_restore() does, it deals round 2. */
	back = game_from_record(c.g[0].record, err, sizeof(err));
	assert_non_null(back);
	assert_int_equal(game_advance(back, err, sizeof(err)), 0);
	json_array_foreach(json_object_get(c.g[0].record, "actions"), i, a) {
		struct action action;

		assert_int_equal(action_from_json(back->impl, a, &action, err,
		    sizeof(err)), 0);
		assert_int_equal(game_apply(back, &action, err, sizeof(err)),
		    0);
	}
	back->deal_version = c.g[0].deal_version;
	deal_like_the_bot(back, seed, &deal);
	for (int seat = 0; seat < 3; seat++) {
		for (int k = 0; k < deal.count[seat]; k++) {
			wizard_game.format_card(deal.cards[seat][k], code,
			    sizeof(code));
			strcat(hands, code);
			strcat(hands, " ");
		}
		strcat(hands, "/ ");
	}
	wizard_game.format_card(deal.turned, code, sizeof(code));
	strcat(hands, code);
	assert_string_equal(hands, "g10 g8 / b9 b6 / g11 r3 / W");
	/* The very deal the game would have had without the restart. */
	deal_like_the_bot(old, seed, &before);
	assert_memory_equal(&before, &deal, sizeof(deal));

	game_destroy(old);
	game_destroy(back);
	game_destroy(new);
	collected_free(&c);
	store_close(store);
	temp_remove(&t);
}

static void
test_round_trip_after_reopen(void **unused)
{
	const struct store_place place = { "libera", "#cards" };
	const uint64_t seed = UINT64_C(0xfedcba9876543210);
	struct store_seat seats[GAME_MAX_SEATS];
	struct collected c = { 0 };
	struct game *src, *live;
	json_t *want, *result, *replayed;
	struct store *store;
	struct temp t;
	struct rng rng;
	int64_t id;
	int started;

	rng_seed(&rng, 11);
	src = random_wizard(&rng, 4, 0, 150);
	assert_true(src->nactions == 150);
	/* The bot begins a game that is already under way (a restart). */
	started = 60;
	live = game_create(src->impl, &src->setup, src->players, NULL, 0);
	assert_non_null(live);
	for (int i = 0; i < started; i++) {
		while (live->impl->phase(live->state) == PHASE_DEAL) {
			assert_int_equal(game_add_deal(live,
			    &src->deals[live->ndeals], NULL, 0), 0);
			assert_int_equal(game_advance(live, NULL, 0), 0);
		}
		assert_int_equal(game_apply(live, &src->actions[i], NULL, 0),
		    0);
	}
	assert_true(live->ndeals >= 2);
	default_seats(live, 1, seats);
	temp_store(&t);
	store = open_store(t.path);
	id = store_game_begin(store, &place, live, seed, seats, 4);
	assert_true(id > 0);
	/* ...and goes on storing each deal and action. */
	for (int i = started; i < src->nactions; i++) {
		assert_int_equal(feed_deals(store, id, live, src, 0), 0);
		assert_int_equal(game_apply(live, &src->actions[i], NULL, 0),
		    0);
		assert_int_equal(store_action(store, id, i, live), 0);
	}
	assert_true(live->ndeals > 2);
	store_close(store);

	store = open_store(t.path);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.g[0].id, id);
	assert_true(c.g[0].seed == seed);
	assert_int_equal(c.g[0].finished, 0);
	assert_string_equal(c.g[0].network, "libera");
	assert_string_equal(c.g[0].channel, "#cards");
	want = game_to_record(live);
	assert_true(json_equal(c.g[0].record, want));
	check_seats(c.g[0].seats, seats, 4);
	/* The stored record replays to the live game's state. */
	assert_int_equal(replay_record(c.g[0].record, &replayed), 0);
	result = live->impl->result(live->state);
	assert_true(json_equal(result, replayed));
	json_decref(replayed);
	json_decref(result);
	json_decref(want);
	collected_free(&c);
	store_close(store);
	temp_remove(&t);
	game_destroy(live);
	game_destroy(src);
}

/* Every registered game, played to its end, comes back identical. */
static void
test_every_game_round_trips(void **unused)
{
	struct store *store = open_store(":memory:");
	const struct store_place place = { "matrix", "!room:example.org" };
	struct rng rng;
	int n = 0;

	rng_seed(&rng, 12);
	for (int i = 0; game_registry[i] != NULL; i++) {
		const struct game_impl *impl = game_registry[i];

		for (int nseats = impl->min_seats; nseats <= impl->max_seats;
		    nseats++) {
			struct game_setup setup = { .nseats = nseats };
			struct collected c = { 0 };
			struct game *src;
			json_t *want, *result, *replayed;
			int64_t id;

			src = test_random_game(impl, &setup, &rng, -1);
			assert_int_equal(impl->phase(src->state), PHASE_OVER);
			id = store_replayed(store, &place, src,
			    (uint64_t)nseats, NULL, 1, -1);
			assert_true(id > 0);
			assert_int_equal(store_each_game(store, NULL, id, 0,
			    collect, &c), 0);
			assert_int_equal(c.n, 1);
			assert_int_equal(c.g[0].finished, 1);
			want = game_to_record(src);
			assert_true(json_equal(c.g[0].record, want));
			assert_int_equal(replay_record(c.g[0].record,
			    &replayed), 0);
			result = impl->result(src->state);
			assert_true(json_equal(result, replayed));
			json_decref(replayed);
			json_decref(result);
			json_decref(want);
			collected_free(&c);
			game_destroy(src);
			n++;
		}
	}
	assert_true(n >= 4);
	store_close(store);
}

static void
test_duplicate_and_gap_refused(void **unused)
{
	struct store *store = open_store(":memory:");
	const struct store_place place = { "libera", "#x" };
	struct store_seat seats[GAME_MAX_SEATS];
	struct collected c = { 0 };
	struct game *src, *live;
	json_t *result;
	struct rng rng;
	int64_t id;

	rng_seed(&rng, 13);
	src = random_wizard(&rng, 3, 2, -1);
	live = game_create(src->impl, &src->setup, src->players, NULL, 0);
	default_seats(live, 0, seats);
	/* A game needs exactly one holder per seat. */
	assert_int_equal(store_game_begin(store, &place, live, 1, seats, 2),
	    -1);
	id = store_game_begin(store, &place, live, 1, seats, 3);
	assert_true(id > 0);
	assert_int_equal(feed_deals(store, id, live, src, 0), 0);
	/* The same deal twice, and a deal the game does not have. */
	assert_int_equal(store_deal(store, id, 0, live), -1);
	assert_int_equal(store_deal(store, id, 1, live), -1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(game_apply(live, &src->actions[i], NULL, 0),
		    0);
	assert_int_equal(store_action(store, id, 0, live), 0);
	/* Applying action 0 twice must not store it twice. */
	assert_int_equal(store_action(store, id, 0, live), -1);
	/* Skipping action 1 would leave a hole in the record. */
	assert_int_equal(store_action(store, id, 2, live), -1);
	assert_int_equal(store_action(store, id, 3, live), -1);
	assert_int_equal(store_action(store, id + 1, 1, live), -1);
	assert_int_equal(store_action(store, id, 1, live), 0);
	assert_int_equal(store_action(store, id, 2, live), 0);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(json_array_size(json_object_get(c.g[0].record,
	    "actions")), 3);
	assert_int_equal(json_array_size(json_object_get(c.g[0].record,
	    "deals")), 1);
	collected_free(&c);

	/* An ended game takes nothing more, and ends only once. */
	for (int i = 3; i < src->nactions; i++) {
		assert_int_equal(feed_deals(store, id, live, src, 0), 0);
		assert_int_equal(game_apply(live, &src->actions[i], NULL, 0),
		    0);
		assert_int_equal(store_action(store, id, i, live), 0);
	}
	result = live->impl->result(live->state);
	assert_int_equal(store_game_end(store, id, result), 0);
	assert_int_equal(store_game_end(store, id, result), -1);
	assert_int_equal(store_game_end(store, id, NULL), -1);
	assert_int_equal(store_game_end(store, id + 1, NULL), -1);
	assert_int_equal(store_action(store, id, live->nactions - 1, live),
	    -1);
	assert_int_equal(store_each_game(store, NULL, 0, 0, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.g[0].finished, 1);
	assert_int_equal(json_array_size(json_object_get(c.g[0].record,
	    "actions")), src->nactions);
	collected_free(&c);
	json_decref(result);
	game_destroy(live);
	game_destroy(src);
	store_close(store);
}

/*
 * A store of version 5 (seats given up and stop votes, no former owners
 * nor pause deadlines) opens as version 6 with what it had.
 */
static void
test_schema_5_to_6(void **unused)
{
	const struct store_place place = { "libera", "#v5" };
	struct store_seat seats[GAME_MAX_SEATS];
	struct collected c = { 0 };
	struct store *store;
	struct game *src;
	struct temp t;
	struct rng rng;
	sqlite3 *db;
	char buf[32];
	int64_t id;

	(void)unused;
	rng_seed(&rng, 56);
	src = random_wizard(&rng, 3, 0, 6);
	temp_store(&t);
	store = open_store(t.path);
	default_seats(src, 1, seats);
	seats[1].released = 1;
	seats[1].computer = 1;
	seats[0].stop_vote = 1;
	id = store_replayed(store, &place, src, 5, seats, 1, -1);
	assert_true(id > 0);
	store_close(store);
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE seats DROP COLUMN"
	    " formers; ALTER TABLE games DROP COLUMN paused_until;"
	    " PRAGMA user_version = 5", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	store = open_store(t.path);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 1);
	check_seats(c.g[0].seats, seats, 3);
	assert_true(c.g[0].paused_until == 0);
	collected_free(&c);
	assert_int_equal(store_game_pause(store, id, 77), 0);
	store_close(store);
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "PRAGMA user_version", buf, sizeof(buf));
	assert_string_equal(buf, "6");
	raw_query(db, "SELECT paused_until FROM games", buf, sizeof(buf));
	assert_string_equal(buf, "77");
	sqlite3_close(db);
	temp_remove(&t);
	game_destroy(src);
}

static void
test_seat_change_persisted(void **unused)
{
	const struct store_place place = { "libera", "#seats" };
	struct store_seat seats[GAME_MAX_SEATS];
	struct collected c = { 0 };
	struct store *store;
	struct game *src;
	struct temp t;
	struct rng rng;
	int64_t id;

	rng_seed(&rng, 14);
	src = random_wizard(&rng, 3, 0, 10);
	temp_store(&t);
	store = open_store(t.path);
	id = store_replayed(store, &place, src, 5, NULL, 1, -1);
	assert_true(id > 0);
	default_seats(src, 1, seats);
	/*
	 * A computer stands in for u1, who gave the seat up (anyone may
	 * take it over, and a restart must keep that); someone new takes
	 * seat 2 over.
	 */
	seats[1].computer = 1;
	seats[1].level = 3;
	seats[1].released = 1;
	seats[0].stop_vote = 1;
	seats[2].user_id = "@new:example.org";
	seats[2].name = "newcomer";
	seats[2].computer = 0;
	seats[2].level = 0;
	/* u2 had it before: after a restart u2 still hears who has it. */
	seats[2].formers = "[\"u2\"]";
	/* u0 voted to stop: the count said must hold after a restart. */
	assert_int_equal(store_seat(store, id, 0, &seats[0]), 0);
	assert_int_equal(store_seat(store, id, 1, &seats[1]), 0);
	assert_int_equal(store_seat(store, id, 2, &seats[2]), 0);
	assert_int_equal(store_seat(store, id, 3, &seats[2]), -1);
	assert_int_equal(store_seat(store, id + 1, 0, &seats[2]), -1);
	/* Nobody seated: when the paused game closes, as the channel heard. */
	assert_int_equal(store_game_pause(store, id, INT64_C(1767229200)), 0);
	assert_int_equal(store_game_pause(store, id + 1, 5), -1);
	store_close(store);

	store = open_store(t.path);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 1);
	check_seats(c.g[0].seats, seats, 3);
	assert_true(c.g[0].paused_until == INT64_C(1767229200));
	collected_free(&c);
	/* Going on again forgets the deadline. */
	assert_int_equal(store_game_pause(store, id, 0), 0);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_true(c.n == 1 && c.g[0].paused_until == 0);
	collected_free(&c);
	/* An ended game has no deadline to keep. */
	assert_int_equal(store_game_end(store, id, NULL), 0);
	assert_int_equal(store_game_pause(store, id, 9), -1);
	store_close(store);
	temp_remove(&t);
	game_destroy(src);
}

/* Ends the running game it is handed: the store must allow that. */
static int
abandon(const struct store_game *game, void *arg)
{
	struct store *store = arg;

	return store_game_end(store, game->id, NULL) == 0 ? 0 : 9;
}

static void
test_running_ended_and_filters(void **unused)
{
	/* Channel and how each game ends: 1 finished, 0 running, -1 not. */
	static const struct {
		const char *channel;
		int finished;
	} games[] = {
		{ "#a", 1 }, { "#b", 0 }, { "#a", -1 }, { "#b", 1 },
		{ "#a", 0 },
	};
	static const struct {
		const char *channel;
		int which;               /* index into games, -1: any */
		int running;
		const char *want;        /* indexes of games, in order */
	} filters[] = {
		{ NULL, -1, 0, "023" },
		{ NULL, -1, 1, "01234" },
		{ "#a", -1, 0, "02" },
		{ "#a", -1, 1, "024" },
		/* Channel names in any case, as the bot reads them. */
		{ "#A", -1, 1, "024" },
		{ "#b", -1, 0, "3" },
		{ "#c", -1, 1, "" },
		{ NULL, 3, 0, "3" },
		{ NULL, 1, 0, "" },
		{ NULL, 1, 1, "1" },
		{ "#a", 1, 1, "" },
	};
	struct store *store = open_store(":memory:");
	struct collected c = { 0 };
	int64_t ids[5];
	struct rng rng;

	rng_seed(&rng, 15);
	for (int i = 0; i < 5; i++) {
		struct store_place place = { "libera", games[i].channel };
		struct game *src = random_wizard(&rng, 3, 1,
		    games[i].finished == 1 ? -1 : 4);

		ids[i] = store_replayed(store, &place, src, (uint64_t)i, NULL,
		    games[i].finished == 1, -1);
		assert_true(ids[i] > 0);
		assert_true(i == 0 || ids[i] > ids[i - 1]);
		if (games[i].finished == -1)
			assert_int_equal(store_game_end(store, ids[i], NULL),
			    0);
		game_destroy(src);
	}
	for (size_t f = 0; f < sizeof(filters) / sizeof(filters[0]); f++) {
		const char *want = filters[f].want;

		assert_int_equal(store_each_game(store, filters[f].channel,
		    filters[f].which < 0 ? 0 : ids[filters[f].which],
		    filters[f].running, collect, &c), 0);
		assert_int_equal(c.n, (int)strlen(want));
		for (int k = 0; k < c.n; k++) {
			int g = want[k] - '0';

			assert_int_equal(c.g[k].id, ids[g]);
			assert_int_equal(c.g[k].finished, games[g].finished);
			assert_string_equal(c.g[k].channel, games[g].channel);
			assert_true(c.g[k].seed == (uint64_t)g);
		}
		collected_free(&c);
	}
	/*
	 * The last game finished in a channel, which its next lobby plays
	 * again: in #a game 0 (game 2 was abandoned, game 4 runs), in #b
	 * game 3; none in #c, nor in #a of another network.
	 */
	for (int k = 0; k < 2; k++) {
		char name[16];
		json_t *options;
		int g = k == 0 ? 0 : 3;

		assert_int_equal(store_last_finished(store, "libera",
		    games[g].channel, name, sizeof(name), &options), 1);
		assert_string_equal(name, "wizard");
		assert_int_equal(store_each_game(store, NULL, ids[g], 0,
		    collect, &c), 0);
		assert_int_equal(c.n, 1);
		assert_true(json_equal(options, json_object_get(c.g[0].record,
		    "options")));
		json_decref(options);
		collected_free(&c);
	}
	for (int k = 0; k < 2; k++) {
		char name[16] = "";
		json_t *options = json_true();   /* must become NULL */

		assert_int_equal(store_last_finished(store, k == 0 ? "libera" :
		    "oftc", k == 0 ? "#c" : "#a", name, sizeof(name),
		    &options), 0);
		assert_null(options);
		assert_string_equal(name, "");
	}
	/* Running games, oldest first; a callback may stop the walk. */
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.g[0].id, ids[1]);
	assert_int_equal(c.g[1].id, ids[4]);
	collected_free(&c);
	c.stop_after = 1;
	assert_int_equal(store_each_game(store, NULL, 0, 1, collect, &c), 7);
	assert_int_equal(c.n, 1);
	collected_free(&c);
	/* The callback may change the store: here it abandons each game. */
	assert_int_equal(store_each_running(store, abandon, store), 0);
	assert_int_equal(store_each_running(store, collect, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(store_each_game(store, NULL, 0, 0, collect, &c), 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.g[4].finished, -1);
	collected_free(&c);
	store_close(store);
}

/* Begins a fresh 3-seat Wizard game with these holders; returns its id. */
static int64_t
begin_wizard(struct store *store, const char *const users[3],
    const char *const names[3])
{
	const struct store_place place = { "libera", "#stats" };
	struct game_setup setup = { .nseats = 3 };
	struct store_seat seats[3];
	struct game *game;
	int64_t id;

	game = game_create(&wizard_game, &setup, NULL, NULL, 0);
	assert_non_null(game);
	for (int i = 0; i < 3; i++) {
		seats[i] = (struct store_seat){ .user_id = users[i],
		    .name = names[i], .computer = users[i][0] == '\0',
		    .level = 1 };
	}
	id = store_game_begin(store, &place, game, 0, seats, 3);
	assert_true(id > 0);
	game_destroy(game);
	return id;
}

static void
end_with(struct store *store, int64_t id, const char *result_text)
{
	json_t *result = test_json(result_text);

	assert_int_equal(store_game_end(store, id, result), 0);
	json_decref(result);
}

static void
check_stats(const struct store_stats *s, const char *user_id,
    const char *name, int played, int wins, double average, int bid,
    int exact)
{
	assert_string_equal(s->user_id, user_id);
	assert_string_equal(s->name, name);
	assert_int_equal(s->played, played);
	assert_int_equal(s->wins, wins);
	assert_float_equal(s->average, average, 1e-9);
	assert_int_equal(s->rounds_bid, bid);
	assert_int_equal(s->rounds_exact, exact);
}

/* Results written by hand, so every number below is checked by eye. */
/* BirdHead scores are penalties: between equal wins, lower ranks first. */
static void
test_top_lower_score_wins(void **unused)
{
	const struct game_impl *impl = game_find("birdhead");
	const struct store_place place = { "libera", "#birds" };
	static const char *const results[] = {
		"{\"winners\": [0], \"scores\": [3, 30, 12], \"rounds\": []}",
		"{\"winners\": [0], \"scores\": [5, 22, 9], \"rounds\": []}",
	};
	struct store *store = open_store(":memory:");
	struct store_stats top[4];

	for (int g = 0; g < 2; g++) {
		struct game_setup setup = { .nseats = 3 };
		struct store_seat seats[3] = {
			{ g == 0 ? "@ann" : "@bob", "x", 0, 0, 0, 0, NULL },
			{ "@cy", "Cy", 0, 0, 0, 0, NULL },
			{ "@dee", "Dee", 0, 0, 0, 0, NULL },
		};
		struct game *game = game_create(impl, &setup, NULL, NULL, 0);
		int64_t id;

		assert_non_null(game);
		id = store_game_begin(store, &place, game, 0, seats, 3);
		assert_true(id > 0);
		end_with(store, id, results[g]);
		game_destroy(game);
	}
	/* Ann and Bob won once each: Ann (3) before Bob (5); then Dee
	 * (average 10.5) before Cy (26) with no wins. */
	assert_int_equal(store_top(store, "birdhead", top, 4), 4);
	assert_string_equal(top[0].user_id, "@ann");
	assert_string_equal(top[1].user_id, "@bob");
	assert_string_equal(top[2].user_id, "@dee");
	assert_string_equal(top[3].user_id, "@cy");
	store_close(store);
}

static void
test_stats_hand_made(void **unused)
{
	static const char *const ann_bob[] = { "@ann", "@bob", "" };
	static const char *const ann_bob_names[] = { "Ann", "Bob", "cpu" };
	static const char *const bob_ann[] = { "@bob", "@ann", "" };
	static const char *const bob_ann_names[] = { "Bob", "Annie", "cpu" };
	static const char *const eve_cy[] = { "@eve", "@cy", "" };
	static const char *const eve_cy_names[] = { "Eve", "Cy", "cpu" };
	const struct store_seat dan = { "@dan", "Dan", 0, 0, 0, 0, NULL };
	struct store *store = open_store(":memory:");
	struct store_stats s, top[8];
	int64_t id;

	/* Ann wins; she bids 1 and 0 and makes both, Bob makes one of two. */
	id = begin_wizard(store, ann_bob, ann_bob_names);
	end_with(store, id, "{\"winners\": [0], \"scores\": [50, 20, 60], "
	    "\"rounds\": [{\"bids\": [1, 0, 1], \"won\": [1, 1, 0]}, "
	    "{\"bids\": [0, 1, null], \"won\": [0, 1, 1]}]}");
	/* A tie: both win; both make their single bid. */
	id = begin_wizard(store, bob_ann, bob_ann_names);
	end_with(store, id, "{\"winners\": [0, 1], \"scores\": [30, 30, 10], "
	    "\"rounds\": [{\"bids\": [2, 0, 0], \"won\": [2, 0, 1]}]}");
	/* Abandoned and running games do not count. */
	id = begin_wizard(store, ann_bob, ann_bob_names);
	assert_int_equal(store_game_end(store, id, NULL), 0);
	(void)begin_wizard(store, ann_bob, ann_bob_names);
	/* Dan took Cy's seat before the end: the win is Dan's. */
	id = begin_wizard(store, eve_cy, eve_cy_names);
	assert_int_equal(store_seat(store, id, 1, &dan), 0);
	end_with(store, id, "{\"winners\": [1], \"scores\": [5, 40, 0], "
	    "\"rounds\": []}");
	/* Another game's results stay with that game. */
	for (int i = 0; game_registry[i] != NULL; i++) {
		const struct game_impl *impl = game_registry[i];
		struct game_setup setup = { .nseats = impl->min_seats };
		const struct store_place place = { "libera", "#other" };
		struct store_seat seats[GAME_MAX_SEATS];
		struct game *game;

		if (strcmp(impl->name, "wizard") == 0)
			continue;
		game = game_create(impl, &setup, NULL, NULL, 0);
		assert_non_null(game);
		for (int seat = 0; seat < setup.nseats; seat++)
			seats[seat] = (struct store_seat){ seat == 0 ? "@ann" :
			    "@zed", "x", 0, 0, 0, 0, NULL };
		id = store_game_begin(store, &place, game, 0, seats,
		    setup.nseats);
		assert_true(id > 0);
		end_with(store, id, "{\"winners\": [0], \"scores\": [1, 2, 3, "
		    "4, 5, 6], \"rounds\": []}");
		assert_int_equal(store_player_stats(store, impl->name, "@ann",
		    &s), 0);
		check_stats(&s, "@ann", "x", 1, 1, 1.0, 0, 0);
		game_destroy(game);
	}

	assert_int_equal(store_player_stats(store, "wizard", "@ann", &s), 0);
	check_stats(&s, "@ann", "Annie", 2, 2, 40.0, 3, 3);
	assert_int_equal(store_player_stats(store, "wizard", "@bob", &s), 0);
	check_stats(&s, "@bob", "Bob", 2, 1, 25.0, 3, 2);
	assert_int_equal(store_player_stats(store, "wizard", "@dan", &s), 0);
	check_stats(&s, "@dan", "Dan", 1, 1, 40.0, 0, 0);
	assert_int_equal(store_player_stats(store, "wizard", "@cy", &s), 0);
	assert_int_equal(s.played, 0);
	assert_int_equal(store_player_stats(store, "wizard", "", &s), 0);
	assert_int_equal(s.played, 0);
	assert_int_equal(store_player_stats(store, "wizard", "@nobody", &s),
	    0);
	check_stats(&s, "@nobody", "", 0, 0, 0.0, 0, 0);

	/* By wins, then average; computers never appear. */
	assert_int_equal(store_top(store, "wizard", top, 8), 4);
	check_stats(&top[0], "@ann", "Annie", 2, 2, 40.0, 3, 3);
	check_stats(&top[1], "@dan", "Dan", 1, 1, 40.0, 0, 0);
	check_stats(&top[2], "@bob", "Bob", 2, 1, 25.0, 3, 2);
	check_stats(&top[3], "@eve", "Eve", 1, 0, 5.0, 0, 0);
	assert_int_equal(store_top(store, "wizard", top, 2), 2);
	assert_string_equal(top[1].user_id, "@dan");
	assert_int_equal(store_top(store, "wizard", top, 0), 0);
	assert_int_equal(store_top(store, "nosuchgame", top, 8), 0);
	store_close(store);
}

/* Statistics of real Wizard games against the engine's own state. */
static void
test_stats_random_wizard(void **unused)
{
	static const char *const users[] = { "w0", "w1", "w2", "w3", "w4" };
	struct store_stats want[5], got;
	struct store *store = open_store(":memory:");
	const struct store_place place = { "libera", "#w" };
	struct rng rng;

	memset(want, 0, sizeof(want));
	rng_seed(&rng, 16);
	for (int g = 0; g < 8; g++) {
		struct store_seat seats[GAME_MAX_SEATS];
		const struct wizard_state *s;
		struct game *src;
		json_t *result, *winners;
		int64_t id;

		src = random_wizard(&rng, 3 + g % 2, 0, -1);
		s = src->state;
		result = wizard_game.result(src->state);
		winners = json_object_get(result, "winners");
		for (int seat = 0; seat < s->nseats; seat++) {
			int u = (g + seat) % 5;
			struct store_stats *w = &want[u];

			seats[seat] = (struct store_seat){ users[u], "n", 0,
			    0, 0, 0, NULL };
			w->average = (w->average * w->played +
			    s->total[seat]) / (w->played + 1);
			w->played++;
			for (size_t k = 0; k < json_array_size(winners); k++)
				if (test_int_at(winners, k) == seat)
					w->wins++;
			for (int r = 0; r < s->scored; r++) {
				if (s->bids[r][seat] < 0)
					continue;
				w->rounds_bid++;
				if (s->bids[r][seat] == s->won[r][seat])
					w->rounds_exact++;
			}
		}
		id = store_replayed(store, &place, src, 0, seats, 1, -1);
		assert_true(id > 0);
		json_decref(result);
		game_destroy(src);
	}
	for (int u = 0; u < 5; u++) {
		assert_int_equal(store_player_stats(store, "wizard", users[u],
		    &got), 0);
		assert_true(want[u].played > 0);
		assert_true(want[u].rounds_bid > 0);
		check_stats(&got, users[u], "n", want[u].played, want[u].wins,
		    want[u].average, want[u].rounds_bid, want[u].rounds_exact);
	}
	store_close(store);
}

static void
test_kv(void **unused)
{
	struct store *store;
	struct temp t;
	char *v;

	temp_store(&t);
	store = open_store(t.path);
	assert_null(store_kv_get(store, "matrix.since"));
	assert_int_equal(store_kv_set(store, "matrix.since", "s1_2_3"), 0);
	assert_int_equal(store_kv_set(store, "other", ""), 0);
	v = store_kv_get(store, "matrix.since");
	assert_string_equal(v, "s1_2_3");
	free(v);
	assert_int_equal(store_kv_set(store, "matrix.since", "s4_5_6"), 0);
	assert_int_equal(store_kv_set(store, "matrix.since", NULL), -1);
	store_close(store);

	store = open_store(t.path);
	v = store_kv_get(store, "matrix.since");
	assert_string_equal(v, "s4_5_6");
	free(v);
	v = store_kv_get(store, "other");
	assert_string_equal(v, "");
	free(v);
	assert_null(store_kv_get(store, "missing"));
	store_close(store);
	temp_remove(&t);
}

/* The child of the crash test: stores src step by step, acknowledging. */
static int
crash_child(const char *path, const struct game *src, uint64_t seed, int fd)
{
	const struct store_place place = { "libera", "#crash" };
	struct store *store = store_open(path, NULL, 0);
	int64_t id;

	if (store == NULL)
		return 3;
	id = store_replayed(store, &place, src, seed, NULL, 1, fd);
	store_close(store);
	return id > 0 ? 0 : 4;
}

/* Reads one message; 1, or 0 at the end of the pipe. */
static int
read_msg(int fd, int32_t *msg)
{
	size_t got = 0;

	while (got < sizeof(*msg)) {
		ssize_t n = read(fd, (char *)msg + got, sizeof(*msg) - got);

		if (n < 0 && errno == EINTR)
			continue;
		assert_true(n >= 0);
		if (n == 0) {
			assert_int_equal(got, 0);
			return 0;
		}
		got += (size_t)n;
	}
	return 1;
}

/*
 * A child stores a game action by action and reports each action
 * store_action() acknowledged; the parent kills it with SIGKILL at a
 * random point (or lets it finish) and then checks that the store holds
 * every acknowledged action, nothing that was not played, and a record
 * that replays.
 */
static void
test_crash_safety(void **unused)
{
	struct rng rng;
	int killed_mid_game = 0;

	rng_seed(&rng, 17);
	for (int run = 0; run < 20; run++) {
		const uint64_t seed = UINT64_C(0x8000000000000000) +
		    (uint64_t)run;
		struct collected c = { 0 };
		int began = 0, ended = 0, last = -1, nmsg = 0, killed = 0;
		int kill_after, status, fds[2];
		struct game *src;
		struct store *store;
		struct temp t;
		int32_t msg;
		pid_t pid;

		src = random_wizard(&rng, 3 + (int)rng_below(&rng, 3),
		    2 + (int)rng_below(&rng, 3), -1);
		/*
		 * 0: before anything is acknowledged (the first run, so that
		 * a child dies while it creates the store); past the end:
		 * never.
		 */
		kill_after = run == 0 ? 0 :
		    (int)rng_below(&rng, (uint32_t)src->nactions + 6);
		temp_store(&t);
		assert_int_equal(pipe(fds), 0);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			_exit(crash_child(t.path, src, seed, fds[1]));
		}
		close(fds[1]);
		if (kill_after == 0) {
			usleep(rng_below(&rng, 3000));
			kill(pid, SIGKILL);
			killed = 1;
		}
		while (read_msg(fds[0], &msg)) {
			if (msg == ACK_BEGIN) {
				began = 1;
			} else if (msg == ACK_END) {
				ended = 1;
			} else {
				assert_int_equal(msg, last + 1);
				last = msg;
			}
			if (!killed && ++nmsg == kill_after) {
				usleep(rng_below(&rng, 1000));
				kill(pid, SIGKILL);
				killed = 1;
			}
		}
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status)) {
			assert_true(killed);
			assert_int_equal(WTERMSIG(status), SIGKILL);
			killed_mid_game += !ended;
		} else {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}

		store = open_store(t.path);
		assert_int_equal(store_each_game(store, NULL, 0, 1, collect,
		    &c), 0);
		assert_true(c.n <= 1);
		assert_true(!began || c.n == 1);
		if (c.n == 1) {
			const json_t *actions = json_object_get(c.g[0].record,
			    "actions");
			const json_t *deals = json_object_get(c.g[0].record,
			    "deals");
			json_t *out;

			assert_true(c.g[0].seed == seed);
			/* Every acknowledged action, and only real ones. */
			assert_true((int)json_array_size(actions) >= last + 1);
			assert_true((int)json_array_size(actions) <=
			    src->nactions);
			for (size_t k = 0; k < json_array_size(actions); k++) {
				json_t *a = action_to_json(src->impl,
				    &src->actions[k]);

				assert_true(json_equal(a, json_array_get(
				    actions, k)));
				json_decref(a);
			}
			assert_true((int)json_array_size(deals) <= src->ndeals);
			for (size_t k = 0; k < json_array_size(deals); k++) {
				json_t *d = deal_to_json(src->impl,
				    src->setup.nseats, &src->deals[k]);

				assert_true(json_equal(d, json_array_get(
				    deals, k)));
				json_decref(d);
			}
			assert_int_equal(replay_record(c.g[0].record, &out), 0);
			json_decref(out);
			if (ended) {
				json_t *want = game_to_record(src);

				assert_int_equal(c.g[0].finished, 1);
				assert_true(json_equal(c.g[0].record, want));
				json_decref(want);
			}
		}
		collected_free(&c);
		store_close(store);
		temp_remove(&t);
		game_destroy(src);
	}
	/* The seeds above kill most children in the middle of a game. */
	assert_true(killed_mid_game >= 10);
}

static void
collect_message(const struct store_message *msg, void *arg)
{
	struct lobbies_seen *seen = arg;

	snprintf(seen->lines[seen->n++], sizeof(seen->lines[0]),
	    "%lld %s %s %d %s %s", (long long)msg->id, msg->network,
	    msg->target, msg->private_, msg->flow != NULL ? msg->flow : "-",
	    msg->body);
}

/*
 * A batch commits a change with the messages it causes, or neither; a
 * failed call inside it is a rolled-back savepoint; deferred values and
 * sent rows ride on the next transaction.
 */
static void
test_batch_outbox(void **unused)
{
	const struct store_place place = { "libera", "#cards" };
	struct store_seat seats[GAME_MAX_SEATS];
	struct store_message msg = { .network = "libera", .target = "#cards",
	    .flow = "#cards", .body = "alice plays r7" };
	struct lobbies_seen seen;
	struct store *store;
	struct game *game;
	struct rng rng;
	struct temp t;
	char *v;
	int64_t id, first;

	temp_store(&t);
	store = open_store(t.path);
	rng_seed(&rng, 5);
	game = random_wizard(&rng, 3, 0, 4);
	default_seats(game, 0, seats);
	id = store_game_begin(store, &place, game, 7, seats, 3);
	assert_true(id > 0);

	/* Committed: the lobby row and both messages. */
	assert_int_equal(store_kv_defer(store, "matrix:x:handled", "$e1"), 0);
	assert_int_equal(store_batch_begin(store), 0);
	assert_int_equal(store_batch_begin(store), -1);
	assert_int_equal(store_batch_changes(store), 0);
	first = store_outbox_add(store, &msg);
	assert_true(first > 0);
	assert_int_equal(store_batch_changes(store), 0);
	assert_int_equal(store_lobby_put(store, "libera", "#x", "{}"), 0);
	assert_int_equal(store_batch_changes(store), 1);
	msg.private_ = 1;
	msg.target = "alice";
	assert_int_equal(store_outbox_add(store, &msg), first + 1);
	/* A refused call inside the batch leaves the rest of it. */
	assert_int_equal(store_action(store, id, 99, game), -1);
	assert_int_equal(store_batch_commit(store), 0);
	v = store_kv_get(store, "matrix:x:handled");
	assert_string_equal(v, "$e1");
	free(v);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_outbox(store, collect_message, &seen), 2);
	assert_string_equal(seen.lines[1] + strcspn(seen.lines[1], " "),
	    " libera alice 1 #cards alice plays r7");

	/* Rolled back: neither the row nor the message. */
	assert_int_equal(store_batch_begin(store), 0);
	assert_true(store_outbox_add(store, &msg) > first + 1);
	assert_int_equal(store_lobby_put(store, "libera", "#y", "{}"), 0);
	store_batch_rollback(store);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_outbox(store, collect_message, &seen), 2);
	assert_int_equal(store_lobby_delete(store, "libera", "#y"), 0);

	/*
	 * Sent rows go with the next transaction; ids are never reused once
	 * committed (a rolled-back id was never handed to an adapter).
	 */
	assert_int_equal(store_outbox_sent(store, first), 0);
	assert_int_equal(store_outbox_sent(store, first + 1), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_outbox(store, collect_message, &seen), 2);
	/*
	 * A COMMIT refused (a full disk) keeps them for the next one, with
	 * a value deferred meanwhile: a restart long after must not send
	 * them again.  So does a batch that fails, and one that commits
	 * carries them.
	 */
	store_fail_commits(store, 1);
	assert_int_equal(store_flush(store), -1);
	assert_int_equal(store_kv_defer(store, "k0", "v"), 0);
	store_fail_commits(store, 1);
	assert_int_equal(store_batch_begin(store), 0);
	assert_int_equal(store_lobby_put(store, "libera", "#z", "{}"), 0);
	assert_int_equal(store_batch_commit(store), -1);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_outbox(store, collect_message, &seen), 2);
	assert_null(store_kv_get(store, "k0"));
	assert_int_equal(store_flush(store), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(store_each_outbox(store, collect_message, &seen), 0);
	v = store_kv_get(store, "k0");
	assert_string_equal(v, "v");
	free(v);
	assert_int_equal(store_batch_begin(store), 0);
	assert_int_equal(store_outbox_add(store, &msg), first + 2);
	assert_int_equal(store_batch_commit(store), 0);

	/* A deferred value outside a batch waits for the next write. */
	assert_int_equal(store_kv_defer(store, "k", "1"), 0);
	assert_int_equal(store_kv_defer(store, "k", "2"), 0);
	assert_null(store_kv_get(store, "k"));
	assert_int_equal(store_lobby_delete(store, "libera", "#x"), 0);
	assert_null(store_kv_get(store, "k"));
	assert_int_equal(store_action(store, id, game->nactions, game), -1);
	assert_int_equal(store_kv_flush(store), 0);
	v = store_kv_get(store, "k");
	assert_string_equal(v, "2");
	free(v);
	game_destroy(game);
	store_close(store);
	temp_remove(&t);
}


/* ------------------------------------------------------------------ */
/* Faults: the lock, a store deleted or replaced, damaged games, modes. */

/* Log lines captured while a test runs, one after another. */
static char captured[8192];

static void
capture_line(enum log_level level, const char *line, void *arg)
{
	size_t len = strlen(captured);

	(void)arg;
	snprintf(captured + len, sizeof(captured) - len, "%s %s\n",
	    level == LOG_LEVEL_ERROR ? "error" : "other", line);
}

static void
capture_start(void)
{
	captured[0] = '\0';
	log_capture(capture_line, NULL);
}

/* Begins a short Wizard game at place, with a few actions stored. */
static int64_t
stored_game(struct store *store, const char *channel, uint64_t seed,
    struct game **live_out)
{
	const struct store_place place = { "libera", channel };
	struct store_seat seats[GAME_MAX_SEATS];
	struct game *src, *live;
	struct rng rng;
	int64_t id;

	rng_seed(&rng, seed);
	src = random_wizard(&rng, 3, 0, 6);
	live = game_create(src->impl, &src->setup, src->players, NULL, 0);
	assert_non_null(live);
	default_seats(live, 0, seats);
	id = store_game_begin(store, &place, live, seed, seats, 3);
	assert_true(id > 0);
	for (int i = 0; i < src->nactions; i++) {
		assert_int_equal(feed_deals(store, id, live, src, 0), 0);
		assert_int_equal(game_apply(live, &src->actions[i], NULL, 0),
		    0);
		assert_int_equal(store_action(store, id, i, live), 0);
	}
	/* The caller stores the next action, after the src's last. */
	game_destroy(src);
	*live_out = live;
	return id;
}

/*
 * One process per store: a second store_open_locked() is refused with
 * the holder's pid, in this process (flock(2) locks belong to the open
 * file, so two opens conflict) and in another one; readers still open
 * the store beside it; the lock is gone with the holder.
 */
static void
test_lock(void **unused)
{
	char err[512], lock[320], buf[64], want[64];
	struct store *store, *reader, *again;
	struct stat st;
	struct temp t;
	pid_t child;
	int status, fds[2];
	char answer;
	FILE *f;

	(void)unused;
	temp_store(&t);
	store = store_open_locked(t.path, err, sizeof(err));
	assert_non_null(store);
	snprintf(lock, sizeof(lock), "%s.lock", t.path);
	assert_int_equal(stat(lock, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(lock, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(atol(buf), (long)getpid());

	err[0] = '\0';
	assert_null(store_open_locked(t.path, err, sizeof(err)));
	snprintf(want, sizeof(want), "(pid %ld)", (long)getpid());
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, lock));
	assert_non_null(strstr(err, t.path));
	/* A directory that is gone is named, as check-config names it. */
	assert_null(store_open_locked("/nonexistent-stichbot/s.db", err,
	    sizeof(err)));
	assert_non_null(strstr(err, "the directory /nonexistent-stichbot does "
	    "not exist"));

	/*
	 * Another process is refused the same way.  The child answers
	 * through a pipe and waits for the parent's SIGKILL, as in
	 * test_crash_safety(), so that what it inherited is not reported as
	 * its leak (valgrind checks a process that exits or signals itself).
	 */
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char cerr[512] = "";
		struct store *s = store_open_locked(t.path, cerr,
		    sizeof(cerr));
		char reply = s == NULL && strstr(cerr, want) != NULL ?
		    'y' : 'n';

		if (write(fds[1], &reply, 1) != 1)
			reply = 'n';
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &answer, 1), 1);
	close(fds[0]);
	kill(child, SIGKILL);
	assert_int_equal(answer, 'y');
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));

	/* Readers (export) are not locked out and see what was written. */
	assert_int_equal(store_kv_set(store, "k", "v"), 0);
	reader = open_store(t.path);
	{
		char *v = store_kv_get(reader, "k");

		assert_non_null(v);
		assert_string_equal(v, "v");
		free(v);
	}
	store_close(reader);
	assert_int_equal(store_kv_set(store, "k", "w"), 0);

	/*
	 * The same file by another path (a symbolic link: its own lock
	 * file), or with its lock file removed by hand, is still taken.
	 */
	{
		char link[320], link_lock[330];

		snprintf(link, sizeof(link), "%s-link", t.path);
		snprintf(link_lock, sizeof(link_lock), "%s.lock", link);
		assert_int_equal(symlink(t.path, link), 0);
		err[0] = '\0';
		assert_null(store_open_locked(link, err, sizeof(err)));
		assert_non_null(strstr(err, "another stichbot is using it "
		    "under another path"));
		assert_int_equal(unlink(link), 0);
		assert_int_equal(unlink(link_lock), 0);
		assert_int_equal(unlink(lock), 0);
		err[0] = '\0';
		assert_null(store_open_locked(t.path, err, sizeof(err)));
		assert_non_null(strstr(err, "under another path"));
	}
	store_close(store);

	/* Closed (or dead), the holder lets the next one in. */
	again = store_open_locked(t.path, err, sizeof(err));
	assert_non_null(again);
	store_close(again);
	temp_remove(&t);
}

/*
 * A store deleted under the bot: the next write fails, the store is
 * failed from then on (every later write too), and the log says why once.
 */
static void
test_deleted_detected(void **unused)
{
	struct store *store;
	struct game *live;
	struct temp t;
	int64_t id;

	(void)unused;
	temp_store(&t);
	store = store_open_locked(t.path, NULL, 0);
	assert_non_null(store);
	id = stored_game(store, "#del", 3, &live);
	assert_null(store_failed(store));
	assert_int_equal(store_check(store), 0);

	capture_start();
	assert_int_equal(unlink(t.path), 0);
	assert_int_equal(store_game_end(store, id, NULL), -1);
	log_capture(NULL, NULL);
	assert_non_null(store_failed(store));
	assert_non_null(strstr(store_failed(store), "deleted"));
	assert_non_null(strstr(captured, "deleted"));
	assert_non_null(strstr(captured, t.path));
	/* The write's own line names the game and its place. */
	assert_non_null(strstr(captured, "game 1 (libera #del): not stored"));
	assert_int_equal(store_check(store), -1);
	assert_int_equal(store_kv_set(store, "k", "v"), -1);
	assert_int_equal(store_lobby_put(store, "libera", "#a", "{}"), -1);
	store_close(store);
	game_destroy(live);
	temp_remove(&t);
}

/*
 * A store replaced under the bot (a restored backup renamed over it): the
 * next write fails and nothing reaches either file.
 */
static void
test_replaced_detected(void **unused)
{
	char other[320], buf[64];
	struct store *store, *fresh;
	struct game *live;
	struct temp t;
	sqlite3 *db;

	(void)unused;
	temp_store(&t);
	store = store_open(t.path, NULL, 0);
	assert_non_null(store);
	(void)stored_game(store, "#rep", 4, &live);
	snprintf(other, sizeof(other), "%s.other", t.path);
	fresh = open_store(other);
	store_close(fresh);
	capture_start();
	assert_int_equal(rename(other, t.path), 0);
	assert_int_equal(store_kv_set(store, "after", "x"), -1);
	log_capture(NULL, NULL);
	assert_non_null(strstr(store_failed(store), "replaced"));
	assert_non_null(strstr(captured, "replaced"));
	store_close(store);
	/* The file now at the path never got the write. */
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "SELECT count(*) FROM kv", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	sqlite3_close(db);
	game_destroy(live);
	temp_remove(&t);
}

/* Counts the ids fn saw; see test_damaged_set_aside(). */
static int
count_ids(const struct store_game *game, void *arg)
{
	int64_t *ids = arg;

	ids[++ids[0]] = game->id;
	return 0;
}

static int
keep_raw(const json_t *raw, void *arg)
{
	json_t **out = arg;

	/* The last one seen: the games come oldest first. */
	json_decref(*out);
	*out = json_deep_copy(raw);
	return 0;
}

/*
 * A game whose rows cannot be read is set aside at start-up (logged with
 * its id and place) while the other games load; it stays in the store,
 * raw, and is not listed as running again.
 */
static void
test_damaged_set_aside(void **unused)
{
	struct store *store;
	struct game *a, *b, *c;
	int64_t ida, idb, idc, ids[8] = { 0 };
	json_t *raw = NULL;
	struct temp t;
	char buf[128];
	sqlite3 *db;

	(void)unused;
	temp_store(&t);
	store = open_store(t.path);
	ida = stored_game(store, "#a", 5, &a);
	idb = stored_game(store, "#b", 6, &b);
	idc = stored_game(store, "#c", 7, &c);
	store_close(store);
	/* b's second action is no longer JSON; c's setup is not a list. */
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	snprintf(buf, sizeof(buf), "UPDATE actions SET action = '{\"seat\":'"
	    " WHERE game_id = %lld AND idx = 1", (long long)idb);
	assert_int_equal(sqlite3_exec(db, buf, NULL, NULL, NULL), SQLITE_OK);
	snprintf(buf, sizeof(buf), "UPDATE games SET players = '7' WHERE"
	    " id = %lld", (long long)idc);
	assert_int_equal(sqlite3_exec(db, buf, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	store = open_store(t.path);
	capture_start();
	assert_int_equal(store_each_running(store, count_ids, ids), 0);
	log_capture(NULL, NULL);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], ida);
	assert_non_null(strstr(captured, "error store: game 2 (libera #b): "
	    "action 1 is damaged"));
	assert_non_null(strstr(captured, "game 2 (libera #b): set aside"));
	assert_non_null(strstr(captured, "game 3 (libera #c): the stored "
	    "setup is damaged"));
	assert_null(store_failed(store));

	/* Set aside for good: the next start neither lists nor logs them. */
	memset(ids, 0, sizeof(ids));
	capture_start();
	assert_int_equal(store_each_running(store, count_ids, ids), 0);
	log_capture(NULL, NULL);
	assert_int_equal(ids[0], 1);
	assert_string_equal(captured, "");

	/* The rows are kept as they were, for repair. */
	assert_int_equal(store_each_damaged(store, keep_raw, &raw), 0);
	assert_non_null(raw);
	assert_int_equal(json_integer_value(json_object_get(raw, "id")), idc);
	assert_string_equal(json_string_value(json_object_get(raw,
	    "players")), "7");
	json_decref(raw);
	raw = NULL;
	/* A game that reads but does not replay is set aside by the caller. */
	assert_int_equal(store_game_damaged(store, ida, "action 0 is "
	    "illegal"), 0);
	assert_int_equal(store_game_damaged(store, ida, "again"), -1);
	memset(ids, 0, sizeof(ids));
	assert_int_equal(store_each_running(store, count_ids, ids), 0);
	assert_int_equal(ids[0], 0);
	store_close(store);

	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "SELECT group_concat(id || ':' || damaged, '|') FROM"
	    " (SELECT id, damaged FROM games ORDER BY id)", buf, sizeof(buf));
	assert_string_equal(buf, "1:action 0 is illegal|2:action 1 is "
	    "damaged|3:the stored setup is damaged");
	raw_query(db, "SELECT action FROM actions WHERE game_id = 2 AND"
	    " idx = 1", buf, sizeof(buf));
	assert_string_equal(buf, "{\"seat\":");
	sqlite3_close(db);
	game_destroy(a);
	game_destroy(b);
	game_destroy(c);
	temp_remove(&t);
}

/* The mode bits of path, or -1 when it does not exist. */
static int
mode_of(const char *path, const char *suffix)
{
	char name[320];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return stat(name, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
}

/*
 * The store, its WAL and its shared memory are the owner's alone, whatever
 * the umask; a store an older stichbot left readable is made private.
 */
static void
test_permissions(void **unused)
{
	struct store *store;
	struct temp t;
	mode_t mask;
	FILE *f;

	(void)unused;
	mask = umask(0);
	temp_store(&t);
	store = open_store(t.path);
	assert_int_equal(store_kv_set(store, "k", "v"), 0);
	assert_int_equal(mode_of(t.path, ""), 0600);
	assert_int_equal(mode_of(t.path, "-wal"), 0600);
	assert_int_equal(mode_of(t.path, "-shm"), 0600);
	store_close(store);
	temp_remove(&t);

	temp_store(&t);
	f = fopen(t.path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(t.path, 0666), 0);
	store = open_store(t.path);
	assert_int_equal(store_kv_set(store, "k", "v"), 0);
	assert_int_equal(mode_of(t.path, ""), 0600);
	assert_int_equal(mode_of(t.path, "-wal"), 0600);
	assert_int_equal(mode_of(t.path, "-shm"), 0600);
	store_close(store);
	temp_remove(&t);
	umask(mask);
}

/* The bytes of a file (at most 64 KiB) into buf; how many, or -1. */
static long
file_bytes(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len, f);
	fclose(f);
	return (long)n;
}

/*
 * The store opened for reading (export): it reads games and values, also
 * beside a writer with an open WAL; it writes nothing, not even a -wal or
 * -shm file, and changes no mode; an empty file gets no schema and an old
 * schema is not migrated, each refused with what to do.
 */
static void
test_read_only_open(void **unused)
{
	static char before[65536], after[65536];
	const struct store_place place = { "libera", "#ro" };
	const struct game_setup setup = { .nseats = 3, .first = 0 };
	struct store_seat seats[GAME_MAX_SEATS];
	struct store *store, *reader;
	struct collected c;
	char err[512], *value;
	struct temp t;
	struct game *game;
	long n;
	sqlite3 *db;
	FILE *f;

	(void)unused;
	temp_store(&t);
	store = open_store(t.path);
	game = game_create(&wizard_game, &setup, NULL, err, sizeof(err));
	assert_non_null(game);
	default_seats(game, 0, seats);
	assert_true(store_game_begin(store, &place, game, 7, seats, 3) > 0);
	assert_int_equal(store_kv_set(store, "k", "v"), 0);
	store_close(store);
	assert_int_equal(mode_of(t.path, "-wal"), -1);
	assert_int_equal(chmod(t.path, 0444), 0);
	n = file_bytes(t.path, before, sizeof(before));
	assert_true(n > 0 && n < (long)sizeof(before));

	reader = store_open_readonly(t.path, err, sizeof(err));
	if (reader == NULL)
		fail_msg("store_open_readonly: %s", err);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_each_game(reader, NULL, 0, 1, collect, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.g[0].channel, "#ro");
	collected_free(&c);
	value = store_kv_get(reader, "k");
	assert_non_null(value);
	assert_string_equal(value, "v");
	free(value);
	/* A write is refused, and leaves the file as it was. */
	assert_int_equal(store_kv_set(reader, "k", "w"), -1);
	store_close(reader);
	assert_int_equal(mode_of(t.path, ""), 0444);
	assert_int_equal(mode_of(t.path, "-wal"), -1);
	assert_int_equal(mode_of(t.path, "-shm"), -1);
	assert_int_equal(file_bytes(t.path, after, sizeof(after)), n);
	assert_memory_equal(before, after, (size_t)n);

	/* Beside a writer: what it committed is in its WAL, and read. */
	assert_int_equal(chmod(t.path, 0600), 0);
	store = open_store(t.path);
	assert_int_equal(store_kv_set(store, "k", "live"), 0);
	assert_true(mode_of(t.path, "-wal") >= 0);
	reader = store_open_readonly(t.path, err, sizeof(err));
	if (reader == NULL)
		fail_msg("store_open_readonly beside a writer: %s", err);
	value = store_kv_get(reader, "k");
	assert_non_null(value);
	assert_string_equal(value, "live");
	free(value);
	store_close(reader);
	assert_int_equal(store_kv_set(store, "k", "after"), 0);
	store_close(store);

	/* An old schema is read by no one but `stichbot run`, which upgrades. */
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE games DROP COLUMN"
	    " deal_version; ALTER TABLE seats DROP COLUMN released;"
	    " ALTER TABLE seats DROP COLUMN stop_vote;"
	    " ALTER TABLE games DROP COLUMN paused_until;"
	    " ALTER TABLE seats DROP COLUMN formers;"
	    " PRAGMA user_version = 3", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	err[0] = '\0';
	assert_null(store_open_readonly(t.path, err, sizeof(err)));
	assert_non_null(strstr(err, "stichbot run"));
	assert_non_null(strstr(err, "version 3"));
	assert_int_equal(sqlite3_open(t.path, &db), SQLITE_OK);
	raw_query(db, "PRAGMA user_version", before, sizeof(before));
	assert_string_equal(before, "3");
	sqlite3_close(db);
	game_destroy(game);
	temp_remove(&t);

	/* An empty file stays empty; a missing one is not created. */
	temp_store(&t);
	f = fopen(t.path, "w");
	assert_non_null(f);
	fclose(f);
	err[0] = '\0';
	assert_null(store_open_readonly(t.path, err, sizeof(err)));
	assert_non_null(strstr(err, "no schema"));
	assert_int_equal(file_bytes(t.path, after, sizeof(after)), 0);
	assert_int_equal(mode_of(t.path, "-wal"), -1);
	assert_int_equal(unlink(t.path), 0);
	err[0] = '\0';
	assert_null(store_open_readonly(t.path, err, sizeof(err)));
	assert_non_null(strstr(err, t.path));
	assert_int_equal(mode_of(t.path, ""), -1);
	temp_remove(&t);
}

/*
 * SQLite's allocator (store_mem.c): sizes rounded up and reported, freed
 * small blocks reused for the next request of their size, contents kept
 * across a growing realloc, large blocks straight from the heap, and at
 * most 1 MiB kept.
 */
static void
test_mem_methods(void **unused)
{
	const sqlite3_mem_methods *m = &store_mem_methods;
	char *a, *b, *c, *big;
	void *many[40000];
	size_t before;

	assert_int_equal(m->xRoundup(1), 32);
	assert_int_equal(m->xRoundup(33), 64);
	assert_int_equal(m->xRoundup(1024), 1024);
	assert_int_equal(m->xRoundup(1025), 1040);
	a = m->xMalloc(40);
	assert_non_null(a);
	/* Earlier tests' statements may have left blocks: count from here. */
	before = store_mem_kept();
	assert_int_equal(m->xSize(a), 64);
	assert_int_equal((uintptr_t)a % 16, 0);
	memset(a, 'x', 64);
	m->xFree(a);
	assert_int_equal(store_mem_kept(), before + 64);
	/* The next request of that size gets the freed block. */
	b = m->xMalloc(50);
	assert_ptr_equal(a, b);
	assert_int_equal(store_mem_kept(), before);
	assert_int_equal(m->xSize(b), 64);
	/* A realloc within the capacity stays; beyond it copies. */
	assert_ptr_equal(m->xRealloc(b, 60), b);
	memcpy(b, "kept", 5);
	c = m->xRealloc(b, 500);
	assert_non_null(c);
	before = store_mem_kept() - 64;
	assert_string_equal(c, "kept");
	assert_int_equal(m->xSize(c), 512);
	m->xFree(c);
	big = m->xMalloc(5000);
	assert_non_null(big);
	assert_int_equal(m->xSize(big), 5008);
	m->xFree(big);
	assert_int_equal(store_mem_kept(), before + 64 + 512);
	m->xFree(NULL);
	assert_int_equal(m->xSize(NULL), 0);
	/* However much is freed, no more than 1 MiB is kept. */
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		assert_non_null(many[i] = m->xMalloc(32));
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		m->xFree(many[i]);
	assert_true(store_mem_kept() <= 1024 * 1024);
	assert_true(store_mem_kept() > 1024 * 1024 - 1024);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_close),
		cmocka_unit_test(test_wal_stays_small),
		cmocka_unit_test(test_round_trip_after_reopen),
		cmocka_unit_test(test_every_game_round_trips),
		cmocka_unit_test(test_duplicate_and_gap_refused),
		cmocka_unit_test(test_seat_change_persisted),
		cmocka_unit_test(test_schema_5_to_6),
		cmocka_unit_test(test_running_ended_and_filters),
		cmocka_unit_test(test_stats_hand_made),
		cmocka_unit_test(test_top_lower_score_wins),
		cmocka_unit_test(test_stats_random_wizard),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_lobbies),
		cmocka_unit_test(test_deal_version),
		cmocka_unit_test(test_batch_outbox),
		cmocka_unit_test(test_crash_safety),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_deleted_detected),
		cmocka_unit_test(test_replaced_detected),
		cmocka_unit_test(test_damaged_set_aside),
		cmocka_unit_test(test_permissions),
		cmocka_unit_test(test_read_only_open),
		cmocka_unit_test(test_mem_methods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

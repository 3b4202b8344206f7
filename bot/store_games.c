/*
 * store_games.c - games in the store: a game is stored as the JSON pieces
 * of its record (RECORD.md), written with the same helpers as
 * game_to_record(), so reading a game back only glues the pieces
 * together: the rebuilt record is exactly the record the live game would
 * write.  Deals and actions are rows keyed by their index and must arrive
 * in order; an index already stored is refused, which keeps an action
 * from being applied twice after a retry.  Games that cannot be read are
 * set aside here too, their rows kept for `stichbot export --damaged`.
 *
 * When a game finishes, store_game_end() fills a small table of per-seat
 * outcomes from the result, which store_stats.c reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store_int.h"
#include "xmalloc.h"

/* Inserts one JSON row (a deal or an action) of game id. */
static int
insert_text(struct store *store, enum stmt_id id_stmt, int64_t id, int index,
    const char *text)
{
	sqlite3_stmt *st = db_stmt(store, id_stmt);

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, index);
	db_bind_text(st, 3, text);
	return db_run(store, st, "cannot store a record row");
}

static int
insert_json(struct store *store, enum stmt_id id_stmt, int64_t id, int index,
    const json_t *obj)
{
	char *text = db_dump(obj);
	int rc;

	if (text == NULL) {
		store_log("out of memory");
		return -1;
	}
	rc = insert_text(store, id_stmt, id, index, text);
	free(text);
	return rc;
}

/* Binds a seat's holder to the eight parameters both seat statements take. */
static sqlite3_stmt *
bind_seat(sqlite3_stmt *st, int64_t id, int seat,
    const struct store_seat *holder)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, seat);
	db_bind_text(st, 3, holder->user_id);
	db_bind_text(st, 4, holder->name);
	sqlite3_bind_int(st, 5, holder->computer != 0);
	sqlite3_bind_int(st, 6, holder->level);
	sqlite3_bind_int(st, 7, holder->released != 0);
	sqlite3_bind_int(st, 8, holder->stop_vote != 0);
	db_bind_text(st, 9, holder->formers != NULL ? holder->formers : "[]");
	return st;
}

static int
insert_seat(struct store *store, int64_t id, int seat,
    const struct store_seat *holder)
{
	return db_run(store, bind_seat(db_stmt(store, STMT_SEAT_INSERT), id,
	    seat, holder), "cannot store a seat");
}

/*
 * Inserts the games row from the record's header and what the record does
 * not hold (seed, deal version); the new id, or -1.
 */
static int64_t
insert_game(struct store *store, const struct store_place *place,
    const json_t *record, uint64_t seed, int deal_version)
{
	sqlite3_stmt *st = db_stmt(store, STMT_GAME_INSERT);
	char *players = db_dump(json_object_get(record, "players"));
	char *options = db_dump(json_object_get(record, "options"));
	int64_t id = -1;

	if (players == NULL || options == NULL) {
		store_log("out of memory");
	} else {
		db_bind_text(st, 1, place != NULL ? place->network : NULL);
		db_bind_text(st, 2, place != NULL ? place->channel : NULL);
		db_bind_text(st, 3, json_string_value(json_object_get(record,
		    "game")));
		db_bind_text(st, 4, players);
		db_bind_text(st, 5, options);
		sqlite3_bind_int64(st, 6, json_integer_value(
		    json_object_get(record, "first")));
		sqlite3_bind_int64(st, 7, db_seed_in(seed));
		sqlite3_bind_int(st, 8, deal_version);
		if (db_run(store, st, "cannot store a game") == 0)
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

	db_context(store, 0, place != NULL ? place->network : NULL,
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
	if (db_begin(store, STMT_BEGIN_IMMEDIATE) != 0) {
		json_decref(record);
		return -1;
	}
	id = insert_game(store, place, record, seed, game->deal_version);
	if (id < 0)
		rc = -1;
	else
		db_context(store, id, NULL, NULL);
	for (int seat = 0; rc == 0 && seat < nseats; seat++)
		rc = insert_seat(store, id, seat, &seats[seat]);
	for (size_t i = 0; rc == 0 && i < json_array_size(deals); i++)
		rc = insert_json(store, STMT_DEAL_INSERT, id, (int)i,
		    json_array_get(deals, i));
	for (size_t i = 0; rc == 0 && i < json_array_size(actions); i++)
		rc = insert_json(store, STMT_ACTION_INSERT, id, (int)i,
		    json_array_get(actions, i));
	json_decref(record);
	if (db_finish(store, rc) != 0)
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
    enum stmt_id next_stmt, enum stmt_id insert_stmt, const char *text)
{
	sqlite3_stmt *st = db_stmt(store, next_stmt);
	int rc, finished = 0, next = 0;

	if (db_begin(store, STMT_BEGIN_IMMEDIATE) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		finished = sqlite3_column_int(st, 0);
		next = sqlite3_column_int(st, 1);
	}
	db_done(st);
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
		rc = insert_text(store, insert_stmt, id, index, text);
	}
	return db_finish(store, rc);
}

int
store_deal(struct store *store, int64_t id, int index,
    const struct game *game)
{
	char text[DEAL_JSON_MAX];

	db_context(store, id, NULL, NULL);
	if (index < 0 || index >= game->ndeals) {
		store_log("the game has no deal %d to store", index);
		return -1;
	}
	if (deal_format(game->impl, game->setup.nseats, &game->deals[index],
	    text, sizeof(text)) < 0) {
		store_log("deal %d does not fit a record row", index);
		return -1;
	}
	return append(store, id, index, "deal", STMT_DEAL_NEXT,
	    STMT_DEAL_INSERT, text);
}

int
store_action(struct store *store, int64_t id, int index,
    const struct game *game)
{
	char text[ACTION_JSON_MAX];

	db_context(store, id, NULL, NULL);
	if (index < 0 || index >= game->nactions) {
		store_log("the game has no action %d to store", index);
		return -1;
	}
	if (action_format(game->impl, &game->actions[index], text,
	    sizeof(text)) < 0) {
		store_log("action %d does not fit a record row", index);
		return -1;
	}
	return append(store, id, index, "action", STMT_ACTION_NEXT,
	    STMT_ACTION_INSERT, text);
}

int
store_seat(struct store *store, int64_t id, int seat,
    const struct store_seat *holder)
{
	sqlite3_stmt *st;

	db_context(store, id, NULL, NULL);
	if (db_writable(store) != 0)
		return -1;
	st = bind_seat(db_stmt(store, STMT_SEAT_UPDATE), id, seat, holder);
	if (db_run(store, st, "cannot change a seat") != 0)
		return -1;
	if (sqlite3_changes(store->db) == 0) {
		store_log("the game has no seat %d", seat);
		return -1;
	}
	return 0;
}

int
store_game_pause(struct store *store, int64_t id, int64_t until)
{
	sqlite3_stmt *st;

	db_context(store, id, NULL, NULL);
	if (db_writable(store) != 0)
		return -1;
	st = db_stmt(store, STMT_GAME_PAUSE);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, until);
	if (db_run(store, st, "cannot store the pause") != 0)
		return -1;
	if (sqlite3_changes(store->db) == 0) {
		store_log("the game is not running");
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
	sqlite3_stmt *st = db_stmt(store, STMT_GAME_SELECT);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", db_column_text(st, 2));
	db_done(st);
	return rc == SQLITE_ROW ? 0 : db_fail(store, "cannot read a game");
}

/*
 * Fills the standings of a finished game from its result, one row per
 * seat a person holds now (a computer's seat has no user_id).
 */
static int
insert_standings(struct store *store, int64_t id, const json_t *result)
{
	sqlite3_stmt *seats = db_stmt(store, STMT_SEATS_SELECT);
	sqlite3_stmt *ins = db_stmt(store, STMT_STANDING_INSERT);
	char game[64];
	int rc;

	if (game_name(store, id, game, sizeof(game)) != 0)
		return -1;
	sqlite3_bind_int64(seats, 1, id);
	while ((rc = sqlite3_step(seats)) == SQLITE_ROW) {
		const char *user_id = db_column_text(seats, 1);
		int seat = sqlite3_column_int(seats, 0);
		struct outcome o;

		if (user_id[0] == '\0')
			continue;
		seat_outcome(result, seat, &o);
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int(ins, 2, seat);
		db_bind_text(ins, 3, game);
		db_bind_text(ins, 4, user_id);
		db_bind_text(ins, 5, db_column_text(seats, 2));
		sqlite3_bind_double(ins, 6, o.score);
		sqlite3_bind_int(ins, 7, o.win);
		sqlite3_bind_int(ins, 8, o.rounds_bid);
		sqlite3_bind_int(ins, 9, o.rounds_exact);
		if (db_run(store, ins, "cannot store standings") != 0)
			break;
	}
	db_done(seats);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_game_end(struct store *store, int64_t id, const json_t *result)
{
	sqlite3_stmt *st = db_stmt(store, STMT_GAME_END);
	char *text = NULL;
	int rc;

	db_context(store, id, NULL, NULL);
	if (result != NULL && (text = db_dump(result)) == NULL) {
		store_log("out of memory");
		return -1;
	}
	if (db_begin(store, STMT_BEGIN_IMMEDIATE) != 0) {
		free(text);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, result != NULL ? 1 : -1);
	if (text != NULL)
		db_bind_text(st, 3, text);
	else
		sqlite3_bind_null(st, 3);
	rc = db_run(store, st, "cannot end a game");
	free(text);
	if (rc == 0 && sqlite3_changes(store->db) == 0) {
		store_log("the game is not running");
		rc = -1;
	}
	if (rc == 0 && result != NULL)
		rc = insert_standings(store, id, result);
	return db_finish(store, rc);
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
	sqlite3_stmt *st = db_stmt(store, id_stmt);
	int rc, bad = 0;

	sqlite3_bind_int64(st, 1, id);
	while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *obj = db_column_json(st, 1);

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
	db_done(st);
	if (bad)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot read a game");
}

static int
load_seats(struct store *store, int64_t id, json_t *seats)
{
	sqlite3_stmt *st = db_stmt(store, STMT_SEATS_SELECT);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *formers = db_column_json(st, 7);

		/* A damaged list loses only who hears who has their seat. */
		if (!json_is_array(formers)) {
			json_decref(formers);
			formers = json_array();
		}
		json_array_append_new(seats, json_pack(
		    "{s:s, s:s, s:b, s:i, s:b, s:b, s:o}",
		    "user_id", db_column_text(st, 1),
		    "name", db_column_text(st, 2),
		    "computer", sqlite3_column_int(st, 3),
		    "level", sqlite3_column_int(st, 4),
		    "released", sqlite3_column_int(st, 5),
		    "stop_vote", sqlite3_column_int(st, 6),
		    "formers", formers));
	}
	db_done(st);
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot read seats");
}

/* Reads the games row into g and the record's header; see load_game(). */
static int
load_header(struct store *store, int64_t id, struct loaded *g)
{
	sqlite3_stmt *st = db_stmt(store, STMT_GAME_SELECT);
	json_t *players, *options;
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_done(st);
		/* Gone since it was listed: nothing to hand out. */
		return rc == SQLITE_DONE ? 1 : db_fail(store,
		    "cannot read a game");
	}
	g->network = xstrdup(db_column_text(st, 0));
	g->channel = xstrdup(db_column_text(st, 1));
	players = db_column_json(st, 3);
	options = db_column_json(st, 4);
	/* The keys in the order of game_to_record(). */
	g->record = json_object();
	json_object_set_new(g->record, "game", json_string(db_column_text(st,
	    2)));
	json_object_set_new(g->record, "players", players != NULL ? players :
	    json_null());
	json_object_set_new(g->record, "options", options != NULL ? options :
	    json_null());
	json_object_set_new(g->record, "first",
	    json_integer(sqlite3_column_int64(st, 5)));
	g->game.id = id;
	g->game.seed = db_seed_out(sqlite3_column_int64(st, 6));
	g->game.finished = sqlite3_column_int(st, 7);
	g->game.deal_version = sqlite3_column_int(st, 8);
	g->game.paused_until = sqlite3_column_int64(st, 9);
	db_done(st);
	if (g->record == NULL) {
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
	db_context(store, id, NULL, NULL);
	store->damage[0] = '\0';
	if (db_begin(store, STMT_BEGIN) != 0)
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
	db_end_read(store);
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
			cap = cap > 0 ? cap * 2 : 64;
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		ids[n++] = sqlite3_column_int64(list, 0);
	}
	db_done(list);
	if (rc != SQLITE_DONE) {
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
	db_context(store, 0, NULL, NULL);
	return each(store, db_stmt(store, STMT_LIST_RUNNING), 1, fn, arg);
}

int
store_each_game(struct store *store, const char *channel, int64_t id,
    int include_running, store_game_fn fn, void *arg)
{
	sqlite3_stmt *list = db_stmt(store, STMT_LIST_GAMES);

	db_context(store, 0, NULL, NULL);
	if (channel != NULL)
		db_bind_text(list, 1, channel);
	else
		sqlite3_bind_null(list, 1);
	sqlite3_bind_int64(list, 2, id);
	sqlite3_bind_int(list, 3, include_running != 0);
	/* An ended game never runs again: nothing listed can stop matching. */
	return each(store, list, 0, fn, arg);
}

int
store_last_finished(struct store *store, const char *network,
    const char *channel, char *game, size_t gamelen, json_t **options)
{
	sqlite3_stmt *st = db_stmt(store, STMT_LAST_FINISHED);
	int rc;

	*options = NULL;
	db_context(store, 0, network, channel);
	db_bind_text(st, 1, network);
	db_bind_text(st, 2, channel);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(game, gamelen, "%s", db_column_text(st, 0));
		*options = db_column_json(st, 1);
	}
	db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(store, "cannot read the last game");
	return rc == SQLITE_ROW;
}

/* ------------------------------------------------------------------ */
/* Damaged games, set aside. */

int
store_game_damaged(struct store *store, int64_t id, const char *reason)
{
	sqlite3_stmt *st;
	int rc;

	db_context(store, id, NULL, NULL);
	if (db_writable(store) != 0)
		return -1;
	/* Rare: a statement of its own, prepared when needed. */
	if (sqlite3_prepare_v2(store->db, "UPDATE games SET damaged = ?2"
	    " WHERE id = ?1 AND finished = 0 AND damaged IS NULL", -1, &st,
	    NULL) != SQLITE_OK)
		return db_fail(store, "cannot set a damaged game aside");
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, reason != NULL && reason[0] != '\0' ? reason :
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
		json_array_append_new(list, json_string(db_column_text(st, 0)));
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

	db_context(store, 0, NULL, NULL);
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
		    "network", db_column_text(st, 1),
		    "channel", db_column_text(st, 2),
		    "damaged", db_column_text(st, 3),
		    "game", db_column_text(st, 4),
		    "players", db_column_text(st, 5),
		    "options", db_column_text(st, 6),
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

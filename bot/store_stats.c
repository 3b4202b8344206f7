/*
 * store_stats.c - `stats` and `top`: one indexed query each over the
 * per-seat outcomes store_game_end() keeps, however many games are
 * stored; and finding a person's id by the name they last played under.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "store_int.h"

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
		    db_column_text(st, user_col));
	snprintf(out->name, sizeof(out->name), "%s", db_column_text(st,
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
	sqlite3_stmt *st = db_stmt(store, STMT_STATS_PLAYER);
	int rc;

	db_context(store, 0, NULL, NULL);
	memset(out, 0, sizeof(*out));
	snprintf(out->user_id, sizeof(out->user_id), "%s", user_id);
	db_bind_text(st, 1, game);
	db_bind_text(st, 2, user_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		stats_row(st, -1, 5, 0, out);
	db_done(st);
	return rc == SQLITE_ROW ? 0 : db_fail(store, "cannot read stats");
}

int
store_top(struct store *store, const char *game, struct store_stats *out,
    int max)
{
	sqlite3_stmt *st = db_stmt(store, STMT_STATS_TOP);
	const struct game_impl *impl;
	int rc = SQLITE_DONE, n = 0;

	db_context(store, 0, NULL, NULL);
	if (max <= 0)
		return 0;
	db_bind_text(st, 1, game);
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
	db_done(st);
	return rc == SQLITE_DONE ? n : db_fail(store, "cannot read stats");
}

int
store_find_user(struct store *store, const char *name, char *out,
    size_t outlen)
{
	sqlite3_stmt *st = db_stmt(store, STMT_FIND_USER);
	int rc;

	db_context(store, 0, NULL, NULL);
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, outlen, "%s", db_column_text(st, 0));
	db_done(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(store, "cannot find a player");
}

/*
 * bench_lines.c - what a whole game costs a chat network: messages and
 * IRC lines per action, for each game.
 *
 * On a chat network the bot's output budget, not its CPU, sets the pace
 * of every game, so the figure that matters is how much it says per move.
 * Whole games are played through the bot core with the in-memory adapter
 * on a virtual clock: every seat is a scripted person who plays a random
 * legal move (privately in simultaneous phases, in the channel
 * otherwise), as soon as it is their turn.  Every message the bot sends
 * is counted as Matrix sends it (one message, in the room or a direct
 * room) and as IRC does (one PRIVMSG per line of its text, a line longer
 * than IRC_LINE bytes split).  Replies to the players' commands count
 * too: they are part of what a move makes the bot say.
 *
 * usage: bench_lines [--games N] [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot_test.h"
#include "rng.h"
#include "log.h"
#include "loop.h"
#include "memory.h"
#include "store.h"

/* Issue 16's goals, per action over whole games. */
#define GOAL_IRC 2.0
#define GOAL_MATRIX 1.2

/* Text bytes in one IRC line, as the IRC adapter splits a long line. */
#define IRC_LINE 400

struct tally {
	long actions;
	long channel_msgs, private_msgs;
	long irc_lines;
};

static void
die(const char *what)
{
	fprintf(stderr, "bench_lines: %s\n", what);
	exit(1);
}

/* IRC lines for one message: one per line of text, long ones split. */
static long
irc_lines(const char *text)
{
	long n = 0;

	while (*text != '\0') {
		size_t len = strcspn(text, "\n");

		n += len == 0 ? 0 : (long)((len + IRC_LINE - 1) / IRC_LINE);
		text += len;
		if (*text == '\n')
			text++;
	}
	return n;
}

static void
count_lines(struct adapter *adapter, size_t from, struct tally *t)
{
	for (size_t i = from; i < memory_count(adapter); i++) {
		const struct memory_line *l = memory_line(adapter, i);

		if (l->channel != NULL)
			t->channel_msgs++;
		else
			t->private_msgs++;
		t->irc_lines += irc_lines(l->text);
	}
}

/* One whole game of name with players seats; adds to t. */
static void
play_game(struct loop *loop, struct store *store, const char *name,
    int players, uint64_t seed, struct tally *t)
{
	struct bot_settings settings;
	struct config_channel defaults;
	struct adapter *adapter;
	struct table *table;
	struct bot *bot;
	struct rng rng;
	char err[256], user[16], line[96], game[16], channel[24];
	size_t mark;

	memset(&settings, 0, sizeof(settings));
	settings.seed = seed;
	settings.command_burst = -1;
	memset(&defaults, 0, sizeof(defaults));
	defaults.prefixes = "!";
	defaults.turn_timer = 0;
	snprintf(game, sizeof(game), "%s", name);
	defaults.game = game;
	/*
	 * A channel per game: the store keeps each channel's next lobby, so
	 * one channel for all would play the first game's game throughout.
	 */
	snprintf(channel, sizeof(channel), "#%s", name);
	if ((bot = bot_create(loop, store, &settings, err,
	    sizeof(err))) == NULL)
		die(err);
	if ((adapter = bot_add_adapter(bot, &memory_adapter, "bench", NULL,
	    &defaults, err, sizeof(err))) == NULL)
		die(err);
	if (bot_start(bot) != 0)
		die("the adapter did not start");
	loop_advance(loop, 0);
	rng_seed(&rng, seed);
	for (int p = 0; p < players; p++) {
		snprintf(user, sizeof(user), "p%d", p);
		memory_say(adapter, channel, user, user, "!join");
	}
	/* What a game costs starts with its first deal. */
	mark = memory_count(adapter);
	memory_say(adapter, channel, "p0", "p0", "!start");
	table = bot_table(bot, adapter, channel);
	if (table == NULL || table_game(table) == NULL)
		die("the game did not start");
	for (int guard = 0; guard < 100000; guard++) {
		struct action legal[GAME_MAX_ACTIONS];
		int acting[GAME_MAX_SEATS], n, seat;
		enum game_phase phase;
		char cmd[64];

		table = bot_table(bot, adapter, channel);
		if (table == NULL || table_game(table) == NULL)
			break;
		phase = table_impl(table)->phase(table_game(table)->state);
		n = table_impl(table)->to_act(table_game(table)->state, acting);
		if (n <= 0)
			die("nobody is to act");
		seat = acting[rng_below(&rng, (uint32_t)n)];
		n = table_impl(table)->legal(table_game(table)->state, seat, legal,
		    GAME_MAX_ACTIONS);
		commands_for_action(table_impl(table),
		    &legal[rng_below(&rng, (uint32_t)n)], cmd,
		    sizeof(cmd));
		t->actions++;
		if (phase == PHASE_BID_SIMULTANEOUS || phase == PHASE_SELECT) {
			memory_say(adapter, NULL, table_seat(table, seat)->user_id,
			    table_seat(table, seat)->name, cmd);
		} else {
			snprintf(line, sizeof(line), "!%s", cmd);
			memory_say(adapter, channel, table_seat(table, seat)->user_id,
			    table_seat(table, seat)->name, line);
		}
	}
	if (bot_table(bot, adapter, channel) != NULL)
		die("the game did not end");
	count_lines(adapter, mark, t);
	bot_stop(bot, NULL);
	bot_destroy(bot);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int players;
	} games[] = {
		{ "wizard", 4 },
		{ "birdhead", 4 },
		{ "sticheln", 4 },
	};
	struct loop *loop;
	struct store *store;
	char err[256];
	int ngames = 3, met = 1;
	uint64_t seed = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
			ngames = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_lines [--games N] "
			    "[--seed S]\n");
			return 2;
		}
	}
	if (ngames < 1 || seed == 0) {
		fprintf(stderr, "bench_lines: --games and --seed must be "
		    "positive\n");
		return 2;
	}
	log_setup(LOG_LEVEL_WARN, 0);
	if ((loop = loop_create(1)) == NULL)
		die("out of memory");
	if ((store = store_open(":memory:", err, sizeof(err))) == NULL)
		die(err);
	printf("bench_lines: %d whole games of each, 4 scripted people, "
	    "default options\n", ngames);
	printf("%-9s %8s %10s %10s %12s %12s\n", "game", "actions",
	    "room msgs", "private", "IRC/action", "Matrix/action");
	for (size_t g = 0; g < sizeof(games) / sizeof(games[0]); g++) {
		struct tally t;
		double irc, matrix;

		memset(&t, 0, sizeof(t));
		for (int k = 0; k < ngames; k++)
			play_game(loop, store, games[g].name, games[g].players,
			    seed + (uint64_t)k, &t);
		irc = (double)t.irc_lines / (double)t.actions;
		matrix = (double)(t.channel_msgs + t.private_msgs) /
		    (double)t.actions;
		printf("%-9s %8ld %10ld %10ld %12.2f %12.2f\n", games[g].name,
		    t.actions, t.channel_msgs, t.private_msgs, irc, matrix);
		met &= irc <= GOAL_IRC && matrix <= GOAL_MATRIX;
	}
	/* Issue 16's budget: what a chat network can carry at a good pace. */
	printf("goal: at most %.1f IRC lines and %.1f Matrix messages per "
	    "action: %s\n", GOAL_IRC, GOAL_MATRIX, met ? "met" : "MISSED");
	store_close(store);
	loop_destroy(loop);
	return 0;
}

/*
 * cli_play.c - `stichbot play`: a table in the terminal, one person
 * against computer players, with the same commands, messages and rules as
 * in a channel.  It types the opening commands for the person (game,
 * options, join, addbot, start) so the first round is dealt at once, and
 * ends when the game does.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "cli.h"
#include "console.h"
#include "game.h"
#include "log.h"
#include "loop.h"
#include "store.h"

static void
play_usage(FILE *out)
{
	fprintf(out, "usage: stichbot play [GAME] [--players N] "
	    "[--option X ...] [--lang en|ja]\n"
	    "                     [--level easy|normal|hard] [--delay MS] "
	    "[--seed N] [--store PATH]\n\n"
	    "Plays GAME (wizard, birdhead or sticheln; default wizard) in the "
	    "terminal\nagainst computer players.  Commands start with ! at "
	    "the table (!play r7);\nprivate commands need no prefix (hand, "
	    "bid 2).  !help lists them; quit leaves.\n");
}

/* Ends the loop once the game that was started is over. */
static int
play_watch(struct loop *loop, void *arg)
{
	struct bot *bot = arg;

	if (bot_game_count(bot) == 0)
		loop_stop(loop);
	return -1;
}

int
cli_play(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "players", required_argument, NULL, 'n' },
		{ "option", required_argument, NULL, 'o' },
		{ "lang", required_argument, NULL, 'l' },
		{ "level", required_argument, NULL, 'L' },
		{ "delay", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "store", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *game = "wizard", *lang = "en", *level = "normal";
	const char *store_path = ":memory:";
	const char *options[16];
	int noptions = 0, players = 4, delay = 700, ch, rc = 1;
	unsigned long long seed = 0;
	struct bot_settings settings;
	struct config_channel defaults;
	struct loop *loop = NULL;
	struct store *store = NULL;
	struct bot *bot = NULL;
	struct adapter *adapter;
	char err[256], line[128];

	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:o:l:L:d:s:S:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n':
			players = atoi(optarg);
			break;
		case 'o':
			if (noptions == 16) {
				fprintf(stderr, "stichbot play: too many "
				    "options\n");
				return 2;
			}
			options[noptions++] = optarg;
			break;
		case 'l':
			lang = optarg;
			break;
		case 'L':
			level = optarg;
			break;
		case 'd':
			delay = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			store_path = optarg;
			break;
		case 'h':
			play_usage(stdout);
			return 0;
		default:
			play_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		game = argv[optind++];
	if (optind < argc) {
		play_usage(stderr);
		return 2;
	}
	{
		const struct game_impl *impl = game_find(game);

		if (impl == NULL) {
			fprintf(stderr, "stichbot play: unknown game \"%s\" "
			    "(wizard, birdhead, sticheln)\n", game);
			return 2;
		}
		if (players < impl->min_seats || players > impl->max_seats) {
			fprintf(stderr, "stichbot play: %s takes %d to %d "
			    "players\n", game, impl->min_seats,
			    impl->max_seats);
			return 2;
		}
	}
	if (strcmp(lang, "en") != 0 && strcmp(lang, "ja") != 0) {
		fprintf(stderr, "stichbot play: --lang is en or ja\n");
		return 2;
	}
	log_setup(LOG_LEVEL_WARN, 0);
	memset(&settings, 0, sizeof(settings));
	settings.computer_level = level;
	settings.computer_delay_ms = delay > 0 ? delay : 1;
	settings.seed = seed;
	/* One person at the terminal: no limit on their commands. */
	settings.command_burst = -1;
	memset(&defaults, 0, sizeof(defaults));
	defaults.game = (char *)game;
	defaults.lang = (char *)lang;
	defaults.prefixes = "!/";
	defaults.turn_timer = 0;
	if ((loop = loop_create(0)) == NULL ||
	    (store = store_open(store_path, err, sizeof(err))) == NULL ||
	    (bot = bot_create(loop, store, &settings, err,
	    sizeof(err))) == NULL ||
	    (adapter = bot_add_adapter(bot, &console_adapter, "terminal",
	    NULL, &defaults, err, sizeof(err))) == NULL) {
		fprintf(stderr, "stichbot play: %s\n", err);
		goto out;
	}
	if (bot_start(bot) != 0) {
		fprintf(stderr, "stichbot play: cannot read the terminal\n");
		goto out;
	}
	snprintf(line, sizeof(line), "!game %s", game);
	console_type(adapter, line);
	for (int i = 0; i < noptions; i++) {
		snprintf(line, sizeof(line), "!option %s", options[i]);
		console_type(adapter, line);
	}
	console_type(adapter, "!join");
	for (int i = 1; i < players; i++) {
		snprintf(line, sizeof(line), "!addbot %s", level);
		console_type(adapter, line);
	}
	console_type(adapter, "!start");
	if (bot_game_count(bot) == 0) {
		fprintf(stderr, "stichbot play: the game did not start\n");
		goto out;
	}
	loop_hook(loop, play_watch, bot);
	loop_run(loop);
	rc = 0;
out:
	if (bot != NULL)
		bot_stop(bot, NULL);
	bot_destroy(bot);
	store_close(store);
	loop_destroy(loop);
	return rc;
}

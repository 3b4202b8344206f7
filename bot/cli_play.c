/*
 * cli_play.c - `stichbot play`: a table in the terminal, one person
 * against computer players, with the same commands, messages and rules as
 * in a channel.  It types the opening commands for the person (game,
 * options, join, addbot, start) so the first round is dealt at once, and
 * at the end of a game offers another one.
 *
 * The table keeps a store (by default $XDG_STATE_HOME/stichbot/play.db),
 * so that statistics and an interrupted game survive between runs, and
 * takes its lock as `stichbot run` does: a store in use by another play
 * or by the bot is refused with exit status 1, naming the holder.  Every
 * argument is checked before anything starts: a wrong one ends the
 * command with exit status 2 and the reason, never with a game that
 * quietly differs from what was asked for.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "ai.h"
#include "bot.h"
#include "cli.h"
#include "console.h"
#include "game.h"
#include "log.h"
#include "loop.h"
#include "store.h"
#include "xmalloc.h"

/* The defaults, named once for the code and for --help. */
#define DEFAULT_GAME "wizard"
#define DEFAULT_PLAYERS 4
#define DEFAULT_LANG "en"
#define DEFAULT_LEVEL "normal"
#define DEFAULT_DELAY 700
#define MAX_OPTIONS 16

/* What the table is set up with, typed again for another game. */
struct play {
	struct adapter *adapter;
	struct bot *bot;
	struct loop *loop;
	const char *game, *level, *lang;
	const char *store_arg;   /* --store, or NULL for the default */
	const char *options[MAX_OPTIONS];
	int delay;               /* --delay in ms */
	unsigned long long seed; /* --seed; 0: random */
	int noptions, players;
	struct game_options wanted; /* the options, as play_check() read them */
	int over;                /* the game ended; another one is offered */
};

/* Makes every missing directory of path's parent; 0 or -1. */
static int
make_parents(char *path)
{
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/*
 * The default store, $XDG_STATE_HOME/stichbot/play.db or
 * ~/.local/state/stichbot/play.db, with its directory made; NULL when
 * there is no home to keep it in.  name is the file's name.
 */
static char *
state_path(const char *name)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char path[PATH_MAX];
	int n;

	/* The XDG base directory rules ignore a relative path. */
	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(path, sizeof(path), "%s/stichbot/%s", xdg, name);
	else if (home != NULL && home[0] == '/')
		n = snprintf(path, sizeof(path), "%s/.local/state/stichbot/%s",
		    home, name);
	else
		return NULL;
	if (n < 0 || (size_t)n >= sizeof(path) || make_parents(path) != 0)
		return NULL;
	return xstrdup(path);
}

/*
 * Types the one !option line that makes the lobby's options those of the
 * command line, or nothing when they are already.  A lobby opened after
 * a game has that game's options (the channel's "same again"), and a
 * bare name toggles: before, `--option notequal` after a notequal game
 * turned it off, and an option that did not combine with the kept ones
 * was refused while the game started anyway.
 */
static void
play_options(struct play *play)
{
	struct game_options now;
	const struct game_impl *impl = bot_lobby_options(play->bot, &now);
	char line[512];
	size_t len;

	if (impl == NULL)
		return;
	len = (size_t)snprintf(line, sizeof(line), "!option");
	for (int i = 0; impl->options[i].name != NULL; i++) {
		const struct game_option_desc *desc = &impl->options[i];
		int want = play->wanted.value[i];

		if (now.value[i] == want || len >= sizeof(line))
			continue;
		if (want == 0)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s=off", desc->name);
		else if (want == desc->bare)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s=on", desc->name);
		else
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s=%d", desc->name, want);
	}
	if (len > strlen("!option") && len < sizeof(line))
		console_type(play->adapter, line);
}

/* Types the commands that open a table and deal its first round. */
static void
play_open(void *arg)
{
	struct play *play = arg;
	char line[128];

	play->over = 0;
	if (bot_table_count(play->bot) == 0) {
		snprintf(line, sizeof(line), "!game %s", play->game);
		console_type(play->adapter, line);
		play_options(play);
		console_type(play->adapter, "!join");
		for (int i = 1; i < play->players; i++) {
			snprintf(line, sizeof(line), "!addbot %s",
			    play->level);
			console_type(play->adapter, line);
		}
	}
	console_type(play->adapter, "!start");
}

/* Offers another game once the one that was started is over. */
static int
play_watch(struct loop *loop, void *arg)
{
	struct play *play = arg;

	if (!play->over && bot_game_count(play->bot) == 0) {
		play->over = 1;
		console_offer_again(play->adapter, play_open, play);
	}
	return -1;
}

/* Checks the game, seat count and options as the table would. */
static int
play_check(struct play *play)
{
	const struct game_impl *impl = game_find(play->game);
	struct game_options options;
	char err[GAME_ERR_LEN];

	if (impl == NULL) {
		fprintf(stderr, "stichbot play: unknown game \"%s\" (wizard, "
		    "birdhead, sticheln)\n", play->game);
		return -1;
	}
	if (play->players < impl->min_seats ||
	    play->players > impl->max_seats) {
		fprintf(stderr, "stichbot play: %s takes %d to %d players\n",
		    impl->name, impl->min_seats, impl->max_seats);
		return -1;
	}
	memset(&options, 0, sizeof(options));
	for (int i = 0; i < play->noptions; i++) {
		int index;
		char name[32];
		size_t n = strcspn(play->options[i], "=");

		snprintf(name, sizeof(name), "%.*s", (int)(n < 31 ? n : 31),
		    play->options[i]);
		index = game_option_index(impl, name);
		if (index >= 0 && options.value[index] != 0) {
			/* `!option X` twice would turn X off again. */
			fprintf(stderr, "stichbot play: option %s given "
			    "twice\n", name);
			return -1;
		}
		if (game_option_set(impl, &options, play->options[i], err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "stichbot play: option refused: %s\n",
			    err);
			return -1;
		}
	}
	if (impl->validate_options(&options, play->players, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "stichbot play: options refused: %s\n", err);
		return -1;
	}
	play->wanted = options;
	return 0;
}

/*
 * The fewest and most players any game takes, so that --players names
 * the games' range (3-6) before the game is known; play_check() then
 * checks the chosen game's own.
 */
static void
seat_range(unsigned long long *min, unsigned long long *max)
{
	*min = GAME_MAX_SEATS;
	*max = 1;
	for (size_t i = 0; game_registry[i] != NULL; i++) {
		if ((unsigned long long)game_registry[i]->min_seats < *min)
			*min = (unsigned long long)game_registry[i]->min_seats;
		if ((unsigned long long)game_registry[i]->max_seats > *max)
			*max = (unsigned long long)game_registry[i]->max_seats;
	}
}

/*
 * Reads and checks the arguments into play; returns 0, 1 after --help,
 * or -1 (exit 2) after saying what is wrong.
 */
static int
play_args(const struct cli_command *cmd, struct play *play, int argc,
    char **argv)
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
	unsigned long long number, min_seats, max_seats;
	int ch;

	play->game = DEFAULT_GAME;
	play->level = DEFAULT_LEVEL;
	play->lang = DEFAULT_LANG;
	play->players = DEFAULT_PLAYERS;
	play->delay = DEFAULT_DELAY;
	while ((ch = cli_getopt(cmd, argc, argv, "n:o:l:L:d:s:S:h",
	    longopts)) != -1) {
		switch (ch) {
		case 'n':
			seat_range(&min_seats, &max_seats);
			if (cli_number(cmd, "--players", optarg, min_seats,
			    max_seats, &number) != 0)
				return -1;
			play->players = (int)number;
			break;
		case 'o':
			if (play->noptions == MAX_OPTIONS) {
				cli_error(cmd, "too many options");
				return -1;
			}
			play->options[play->noptions++] = optarg;
			break;
		case 'l':
			play->lang = optarg;
			break;
		case 'L':
			play->level = optarg;
			break;
		case 'd':
			if (cli_number(cmd, "--delay", optarg, 0, 10000,
			    &number) != 0)
				return -1;
			play->delay = (int)number;
			break;
		case 's':
			if (cli_number(cmd, "--seed", optarg, 1, LLONG_MAX,
			    &play->seed) != 0)
				return -1;
			break;
		case 'S':
			play->store_arg = optarg;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 1;
		default:
			return -1;
		}
	}
	if (optind < argc)
		play->game = argv[optind++];
	if (optind < argc) {
		cli_error(cmd, "one game at most, not also \"%s\"",
		    argv[optind]);
		return -1;
	}
	if (play_check(play) != 0)
		return -1;
	if (strcmp(play->lang, "en") != 0 && strcmp(play->lang, "ja") != 0) {
		cli_error(cmd, "--lang is en or ja");
		return -1;
	}
	if (ai_level_parse(play->level) < 0) {
		cli_error(cmd, "--level is easy, normal or hard");
		return -1;
	}
	return 0;
}

static int
play_main(const struct cli_command *cmd, int argc, char **argv)
{
	struct play play;
	const char *store_arg;
	char *store_path = NULL, *history = NULL;
	int rc, restored;
	struct bot_settings settings;
	struct config_channel defaults;
	struct loop *loop = NULL;
	struct store *store = NULL;
	struct bot *bot = NULL;
	json_t *console_config = NULL;
	char err[256];

	memset(&play, 0, sizeof(play));
	if ((rc = play_args(cmd, &play, argc, argv)) != 0)
		return rc > 0 ? 0 : 2;
	rc = 1;
	store_arg = play.store_arg;
	/* Typed Japanese is UTF-8: the line editor must know. */
	setlocale(LC_CTYPE, "");
	if (store_arg != NULL) {
		store_path = xstrdup(store_arg);
	} else if ((store_path = state_path("play.db")) == NULL) {
		fprintf(stderr, "stichbot play: no $XDG_STATE_HOME or $HOME "
		    "to keep games in; this one is not kept (--store PATH "
		    "keeps it)\n");
		store_path = xstrdup(":memory:");
	}
	if (store_arg == NULL || strcmp(store_arg, ":memory:") != 0)
		history = state_path("history");
	console_config = json_pack("{ss}", "lang", play.lang);
	if (console_config == NULL ||
	    (history != NULL && json_object_set_new(console_config,
	    "history", json_string(history)) != 0)) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	log_setup(LOG_LEVEL_WARN, 0);
	memset(&settings, 0, sizeof(settings));
	settings.computer_level = play.level;
	settings.computer_delay_ms = play.delay > 0 ? play.delay : 1;
	settings.seed = play.seed;
	/* One person at the terminal: no limit on their commands. */
	settings.command_burst = -1;
	memset(&defaults, 0, sizeof(defaults));
	defaults.game = (char *)play.game;
	defaults.lang = (char *)play.lang;
	defaults.prefixes = "!/";
	defaults.turn_timer = 0;
	loop = loop_create(0);
	/*
	 * The lock `run` takes: one process per store, or two would resume
	 * the same game and neither could move in it.
	 */
	if ((store = store_open_locked(store_path, err, sizeof(err))) ==
	    NULL ||
	    (bot = bot_create(loop, store, &settings, err,
	    sizeof(err))) == NULL ||
	    (play.adapter = bot_add_adapter(bot, &console_adapter,
	    "terminal", console_config, &defaults, err,
	    sizeof(err))) == NULL) {
		cli_error(cmd, "%s", err);
		goto out;
	}
	play.bot = bot;
	play.loop = loop;
	/* A game left unfinished last time goes on where it stopped. */
	if ((restored = bot_restore(bot)) < 0) {
		cli_error(cmd, "cannot read the games kept in %s", store_path);
		goto out;
	}
	if (bot_start(bot) != 0) {
		cli_error(cmd, "cannot read the terminal");
		goto out;
	}
	if (bot_game_count(bot) == 0) {
		/* A lobby kept from a run that ended before its start. */
		if (bot_table_count(bot) > 0)
			console_type(play.adapter, "!leave");
		play_open(&play);
	} else {
		/*
		 * The arguments are for the next game, not this one.  The
		 * resume line that follows tells the table and the hand.
		 */
		console_notice(play.adapter, MSG_PLAY_RESUMING);
	}
	if (bot_game_count(bot) == 0) {
		cli_error(cmd, "the game did not start");
		goto out;
	}
	loop_hook(loop, play_watch, &play);
	loop_run(loop);
	rc = 0;
out:
	if (bot != NULL)
		bot_stop(bot, NULL);
	bot_destroy(bot);
	store_close(store);
	loop_destroy(loop);
	json_decref(console_config);
	free(store_path);
	free(history);
	return rc;
}

/* The defaults as text, for --help. */
#define STR(x) #x
#define XSTR(x) STR(x)

const struct cli_command cli_play_command = {
	.name = "play",
	.usage = "stichbot play [GAME] [--players N] [--option X ...] "
	    "[--lang en|ja]\n"
	    "                     [--level easy|normal|hard] [--delay MS] "
	    "[--seed N]\n"
	    "                     [--store PATH]",
	.summary = "play a game in the terminal against computer players",
	.help = "Plays GAME (wizard, birdhead or sticheln) in the terminal "
	    "against computer\nplayers.  Table commands start with ! "
	    "(!play r7, !scores, !rules); secret\nones are typed without it "
	    "(bid 2, select r5).  !help lists the commands;\nquit or Ctrl-D "
	    "leaves, and an unfinished game resumes next time.\n\n"
	    "  GAME              wizard, birdhead or sticheln (default "
	    DEFAULT_GAME ")\n"
	    "  -n, --players N   seats, you included, 3-6 (default "
	    XSTR(DEFAULT_PLAYERS) ")\n"
	    "  -o, --option X    a game option, e.g. hiddentip or rounds=5 "
	    "(default none;\n"
	    "                    repeat for more; !rules X explains one)\n"
	    "  -l, --lang L      en or ja (default " DEFAULT_LANG ")\n"
	    "  -L, --level L     the computers: easy, normal or hard "
	    "(default " DEFAULT_LEVEL ")\n"
	    "  -d, --delay MS    pause before a computer moves, 0-10000 "
	    "(default " XSTR(DEFAULT_DELAY) ")\n"
	    "  -s, --seed N      seeds the deals, for a repeatable game, 1 or "
	    "more\n                    (default random)\n"
	    "  -S, --store PATH  where games and statistics are kept "
	    "(default\n"
	    "                    $XDG_STATE_HOME/stichbot/play.db, else\n"
	    "                    ~/.local/state/stichbot/play.db; :memory: "
	    "keeps nothing)\n"
	    "  -h, --help        this help\n\n"
	    "Exit status: 0 when the table closes, 1 when it cannot open, 2 "
	    "for a wrong\nargument.\n",
	.run = play_main,
};

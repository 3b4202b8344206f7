/*
 * main.c - the stichbot executable: picks a subcommand and hands it the
 * remaining arguments.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "play", cli_play,
	  "play a game in the terminal against computer players" },
	{ "replay", cli_replay,
	  "check and score game records (RECORD.md)" },
	{ "export", cli_export, "write stored games as records, one per line" },
	{ "decide", cli_decide,
	  "a computer player's choice for the seat to act in a record" },
	{ "arena", cli_arena, "play computer players against each other" },
	{ "run", cli_run, "run the bot (the service) with a configuration" },
	{ "check-config", cli_check_config,
	  "check a configuration file without connecting" },
	{ NULL, NULL, NULL },
};

static void
usage(FILE *out)
{
	fprintf(out, "usage: stichbot COMMAND [ARGS...]\n\n"
	    "Hosts Wizard, BirdHead and Sticheln in IRC channels and Matrix "
	    "rooms.\n\nCommands:\n");
	for (const struct command *c = commands; c->name != NULL; c++)
		fprintf(out, "  %-14s %s\n", c->name, c->summary);
	fprintf(out, "\nRun 'stichbot COMMAND --help' for a command's "
	    "options.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("stichbot %s\n", STICHBOT_VERSION);
		return 0;
	}
	for (const struct command *c = commands; c->name != NULL; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c->run(argc - 1, argv + 1);
	fprintf(stderr, "stichbot: unknown command \"%s\"\n\n", argv[1]);
	usage(stderr);
	return 2;
}

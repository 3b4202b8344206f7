/*
 * main.c - the stichbot executable: picks a subcommand from the registry
 * (cli.h) and hands it the remaining arguments.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "version.h"

static void
usage(FILE *out)
{
	fprintf(out, "usage: stichbot COMMAND [ARGS...]\n\n"
	    "Hosts Wizard, BirdHead and Sticheln in IRC channels and Matrix "
	    "rooms.\n\nCommands:\n");
	for (size_t i = 0; cli_commands[i] != NULL; i++)
		fprintf(out, "  %-14s %s\n", cli_commands[i]->name,
		    cli_commands[i]->summary);
	fprintf(out, "\nRun 'stichbot COMMAND --help' (or 'stichbot help "
	    "COMMAND') for a\ncommand's options.\n");
}

int
main(int argc, char **argv)
{
	const struct cli_command *cmd;

	/*
	 * A file grown past RLIMIT_FSIZE (ulimit -f) must be a write that
	 * fails with EFBIG, handled and logged like a full disk, not a
	 * SIGXFSZ that kills the process in the middle of a game without a
	 * word.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/*
	 * `stichbot help COMMAND` (or `--help COMMAND`) is `stichbot COMMAND
	 * --help`; `stichbot help help` is `stichbot help`.
	 */
	if ((strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) && argc > 2 &&
	    strcmp(argv[2], "help") != 0) {
		if (argc > 3) {
			fprintf(stderr, "stichbot help: one command at most, "
			    "not also \"%s\"\n", argv[3]);
			return 2;
		}
		if ((cmd = cli_find(argv[2])) == NULL) {
			fprintf(stderr, "stichbot help: unknown command "
			    "\"%s\"\n\n", argv[2]);
			usage(stderr);
			return 2;
		}
		cli_usage(cmd, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 3) {
			fprintf(stderr, "stichbot help: one command at most, "
			    "not also \"%s\"\n", argv[3]);
			return 2;
		}
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("stichbot %s\n", STICHBOT_VERSION);
		return 0;
	}
	if ((cmd = cli_find(argv[1])) != NULL)
		return cmd->run(cmd, argc - 1, argv + 1);
	fprintf(stderr, "stichbot: unknown command \"%s\"\n\n", argv[1]);
	usage(stderr);
	return 2;
}

/*
 * cli.c - what every subcommand shares: the registry of descriptors,
 * usage, error messages, option and number parsing.  One place, so that
 * every subcommand answers -h and --help, names the flag of a wrong
 * number and exits 2 the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const struct cli_command *const cli_commands[] = {
	&cli_play_command,
	&cli_replay_command,
	&cli_export_command,
	&cli_decide_command,
	&cli_arena_command,
	&cli_run_command,
	&cli_check_config_command,
	NULL,
};

const struct cli_command *
cli_find(const char *name)
{
	for (size_t i = 0; cli_commands[i] != NULL; i++)
		if (strcmp(cli_commands[i]->name, name) == 0)
			return cli_commands[i];
	return NULL;
}

void
cli_usage(const struct cli_command *cmd, FILE *out)
{
	fprintf(out, "usage: %s\n\n%s", cmd->usage, cmd->help);
}

void
cli_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stichbot %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

FILE *
cli_open_input(const struct cli_command *cmd, int argc, char **argv)
{
	const char *path = NULL;
	FILE *in;

	if (optind < argc)
		path = argv[optind++];
	if (optind < argc) {
		cli_error(cmd, "one file at most");
		errno = 0;
		return NULL;
	}
	if (path == NULL || strcmp(path, "-") == 0)
		return stdin;
	if ((in = fopen(path, "r")) == NULL) {
		int saved = errno;

		cli_error(cmd, "%s: %s", path, strerror(saved));
		errno = saved;
	}
	return in;
}

void
cli_close_input(FILE *in)
{
	if (in != NULL && in != stdin)
		fclose(in);
}

int
cli_getopt(const struct cli_command *cmd, int argc, char **argv,
    const char *shortopts, const struct option *longopts)
{
	/* The options seen in this argv, by their letter. */
	static char **seen_argv;
	static unsigned char seen[256];
	char opts[64];
	int ch, index = -1;

	if (argv != seen_argv) {
		seen_argv = argv;
		memset(seen, 0, sizeof(seen));
	}
	/* A leading ':' makes a missing value ':' rather than '?'. */
	snprintf(opts, sizeof(opts), ":%s", shortopts);
	opterr = 0;
	ch = getopt_long(argc, argv, opts, longopts, &index);
	/*
	 * The second of two would silently win: "--config a --config b"
	 * runs b.  Only a game option (--option) is given once per option.
	 */
	if (ch > 0 && ch < 256 && ch != 'o' && ch != '?' && ch != ':' &&
	    seen[ch]++) {
		if (index >= 0)
			cli_error(cmd, "--%s given twice (try --help)",
			    longopts[index].name);
		else
			cli_error(cmd, "-%c given twice (try --help)", ch);
		return '?';
	}
	if (ch == ':') {
		cli_error(cmd, "%s needs a value (try --help)",
		    argv[optind - 1]);
		return '?';
	}
	if (ch == '?') {
		if (optopt != 0 && strncmp(argv[optind - 1], "--", 2) != 0)
			cli_error(cmd, "unknown option \"-%c\" (try --help)",
			    optopt);
		else
			cli_error(cmd, "unknown option \"%s\" (try --help)",
			    argv[optind - 1]);
	}
	return ch;
}

int
cli_number(const struct cli_command *cmd, const char *flag,
    const char *text, unsigned long long min, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/*
	 * strtoull() would take leading blanks and a minus sign (negating
	 * the value): only digits are a number here.
	 */
	if (!isdigit((unsigned char)text[0]))
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	cli_error(cmd, "%s \"%s\": expected a whole number from %llu to %llu",
	    flag, text, min, max);
	return -1;
}

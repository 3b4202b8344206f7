/*
 * cli.h - the subcommands of the stichbot executable.
 *
 * Each subcommand is one const descriptor, defined in its own cli_*.c
 * beside its (static) implementation and listed in the NULL-terminated
 * registry cli_commands (cli.c), from which main() dispatches and
 * `stichbot --help` lists.  Every subcommand reads its flags with
 * cli_getopt() and its numbers with cli_number(), answers -h and --help
 * with its usage (every flag with its default) and exit status 0, and
 * ends with exit status 2 for a wrong argument.
 */
#ifndef STICHBOT_CLI_H
#define STICHBOT_CLI_H

#include <stddef.h>
#include <stdio.h>

struct option;

struct cli_command {
	const char *name;        /* as typed: `stichbot NAME` */
	const char *usage;       /* the synopsis lines after "usage: " */
	const char *summary;     /* one line for `stichbot --help` */
	const char *help;        /* what it does, each flag and its default */
	/* Runs the command on its arguments (argv[0] is NAME); exit status. */
	int (*run)(const struct cli_command *cmd, int argc, char **argv);
};

extern const struct cli_command cli_play_command;
extern const struct cli_command cli_replay_command;
extern const struct cli_command cli_export_command;
extern const struct cli_command cli_decide_command;
extern const struct cli_command cli_arena_command;
extern const struct cli_command cli_run_command;
extern const struct cli_command cli_check_config_command;

/* Every subcommand, in the order `stichbot --help` lists them; NULL ends. */
extern const struct cli_command *const cli_commands[];

/* The command called name, or NULL. */
const struct cli_command *cli_find(const char *name);
/* Writes "usage: SYNOPSIS" and the command's help. */
void cli_usage(const struct cli_command *cmd, FILE *out);
/* Writes "stichbot NAME: MESSAGE" and a newline to stderr. */
void cli_error(const struct cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * getopt_long() with the messages of stichbot: returns the option's
 * value, -1 at the end, or '?' after writing why an option is unknown or
 * lacks its value (the caller then exits 2).  The first call of a
 * process starts at argv[1].
 */
int cli_getopt(const struct cli_command *cmd, int argc, char **argv,
    const char *shortopts, const struct option *longopts);

/*
 * Reads a flag's value as a whole decimal number from min to max into
 * *out.  Returns 0, or -1 after writing an error that names the flag and
 * the range (the caller then exits 2).
 */
int cli_number(const struct cli_command *cmd, const char *flag,
    const char *text, unsigned long long min, unsigned long long max,
    unsigned long long *out);

/*
 * The input of a command that reads one file or standard input: the one
 * argument left after the options (none or "-": stdin).  NULL after
 * writing why (more than one file: errno 0; or it cannot be opened:
 * errno says why); the caller then exits 2, and closes what it got with
 * cli_close_input().
 */
FILE *cli_open_input(const struct cli_command *cmd, int argc, char **argv);
void cli_close_input(FILE *in);

struct config;
/*
 * Runs every network's adapter init() and finish() on an adapter of no
 * bot, as `check-config` does, so `run` can refuse a reload before it
 * changes anything.  Returns 0, or -1 with a JSON path error.
 */
int cli_check_adapters(const struct config *config, char *err,
    size_t errlen);

#endif

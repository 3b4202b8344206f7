/*
 * cli.h - the subcommands of the stichbot executable.  Each returns the
 * process exit status.
 */
#ifndef STICHBOT_CLI_H
#define STICHBOT_CLI_H

#include <stddef.h>

int cli_replay(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_decide(int argc, char **argv);
int cli_arena(int argc, char **argv);
int cli_play(int argc, char **argv);
int cli_check_config(int argc, char **argv);
int cli_run(int argc, char **argv);

struct config;
/*
 * Runs every network's adapter init() and finish() on an adapter of no
 * bot, as `check-config` does, so `run` can refuse a reload before it
 * changes anything.  Returns 0, or -1 with a JSON path error.
 */
int cli_check_adapters(const struct config *config, char *err,
    size_t errlen);

#endif

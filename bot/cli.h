/*
 * cli.h - the subcommands of the stichbot executable.  Each returns the
 * process exit status.
 */
#ifndef STICHBOT_CLI_H
#define STICHBOT_CLI_H

int cli_replay(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_decide(int argc, char **argv);
int cli_arena(int argc, char **argv);

#endif

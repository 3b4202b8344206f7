/*
 * command.h - what the command modules share (commands.c, the parser and
 * the table of commands; cmd_admin.c, the admin subcommands): the context
 * of one command being handled and the helpers that answer it.  Private
 * to those files.
 */
#ifndef STICHBOT_COMMAND_H
#define STICHBOT_COMMAND_H

#include "internal.h"

#define MAX_ARGS 8

/* Where a command may be used. */
enum where {
	IN_CHANNEL = 1,
	IN_PRIVATE = 2,
	ANYWHERE = 3,
};

/* One command being handled. */
struct ctx {
	struct bot *bot;
	struct network *network;
	struct channel *said_in;     /* NULL: said privately */
	struct channel *channel;     /* the table's channel, once resolved */
	const struct user *user;
	enum lang lang;
	char prefix;
	const struct command *command;
	int argc;
	char *argv[MAX_ARGS];
	struct text reply;
	int reply_private;           /* answer privately even in a channel */
};

struct command {
	const char *name;
	const char *aliases;         /* space-separated */
	enum msg help;               /* "{1}bid N · what it does" */
	enum where where;
	/* Acts on a table resolved from the private form's table name. */
	int needs_table;
	/* How many arguments it takes; anything else gets the usage. */
	int min_args, max_args;
	void (*run)(struct ctx *ctx);
};

/* "Usage: !bid N · ..." for the command being handled. */
void usage(struct ctx *ctx);
/* The table of the command's channel, or NULL. */
struct table *ctx_table(struct ctx *ctx);
/* Whether the person is an admin here (configured, or the room's). */
int ctx_admin(struct ctx *ctx);
/* A whole decimal integer; -1 when s is not one. */
int parse_int(const char *s, int *out);
/* Ends the table at once, saying so. */
void stop_now(struct ctx *ctx, struct table *table);

/* `!admin SUB ...` (cmd_admin.c). */
void cmd_admin(struct ctx *ctx);

#endif

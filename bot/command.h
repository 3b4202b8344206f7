/*
 * command.h - what the command modules share (commands.c, the parser and
 * the table of commands; cmd_admin.c, the admin subcommands): the context
 * of one command being handled and the helpers that answer it.  Private
 * to those files.
 */
#ifndef STICHBOT_COMMAND_H
#define STICHBOT_COMMAND_H

#include "bot_int.h"

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
	/*
	 * Acts on a running game only (moves, the hand): said privately by
	 * someone seated at several tables of which one runs a game, it is
	 * that game's.
	 */
	int game_only;
	/*
	 * A move of the game (bid, trump, play, select): it passes a busy
	 * table, whose backlog is then the game's own, and is never dropped.
	 */
	int move;
	/* How many arguments it takes; anything else gets the usage. */
	int min_args, max_args;
	/*
	 * Its last argument is the rest of the line: a name with spaces
	 * ("Mary Ann", "Sam (@sam:example.org)", as the table shows it).
	 */
	int rest;
	/*
	 * Its answer only informs (status, table, scores): the same answer
	 * in a channel is not said again while it was just said there.
	 */
	int coalesce;
	void (*run)(struct ctx *ctx);
};

/* "Usage: !bid N · ..." for the command being handled. */
void usage(struct ctx *ctx);
/*
 * Makes argv[from] the rest of the line from it on, as typed, without
 * the double quotes around it, if any (argc is then from + 1).
 */
void ctx_rest(struct ctx *ctx, int from);
/* The table of the command's channel, or NULL. */
struct table *ctx_table(struct ctx *ctx);
/* Whether the person is an admin here (configured, or the room's). */
int ctx_admin(struct ctx *ctx);
/* The command called name (or one of its aliases), or NULL. */
const struct command *command_find(const char *name);
/* The running game of the command's table, or NULL with a reply. */
struct table *running_table(struct ctx *ctx);
/*
 * The reply to a seat named that table_seat_by_name() did not find:
 * nobody is called name (seat -1), or several seats go by it (-2).
 */
void seat_not_found(struct ctx *ctx, int seat, const char *name);
/* The person's seat at table, or -1 with a reply. */
int own_seat(struct ctx *ctx, struct table *table);
/* The running table and the person's seat there, or NULL with a reply. */
struct table *acting_table(struct ctx *ctx, int *seat);
/*
 * Whether the person may change the lobby (game, options, language,
 * computers): seated people, anyone while nobody sits, or admins; else
 * a reply says why.
 */
int may_steer(struct ctx *ctx);
/* A whole decimal integer; -1 when s is not one. */
int parse_int(const char *s, int *out);
/* Ends the table at once, saying so. */
void stop_now(struct ctx *ctx, struct table *table);
/*
 * The command a line said privately stands for when it is a move alone
 * ("2", "r7"): the task of a table where the person must act now, when
 * every word reads as its argument.  Sets ctx->channel to that table's
 * channel, or leaves it NULL when the move could go to two tables; NULL
 * for anything else.
 */
const struct command *bare_move(struct ctx *ctx, char *const *words, int n);

/*
 * The commands, one const entry each in the file of its kind (as tmux's
 * cmd_entry): cmd_lobby.c, cmd_play.c, cmd_info.c, cmd_admin.c.  The
 * registry, NULL-terminated, is commands.c's command_table.
 */
extern const struct command cmd_game_entry;
extern const struct command cmd_join_entry;
extern const struct command cmd_leave_entry;
extern const struct command cmd_start_entry;
extern const struct command cmd_option_entry;
extern const struct command cmd_bid_entry;
extern const struct command cmd_trump_entry;
extern const struct command cmd_play_entry;
extern const struct command cmd_select_entry;
extern const struct command cmd_hand_entry;
extern const struct command cmd_status_entry;
extern const struct command cmd_table_entry;
extern const struct command cmd_scores_entry;
extern const struct command cmd_addbot_entry;
extern const struct command cmd_replace_entry;
extern const struct command cmd_back_entry;
extern const struct command cmd_stop_entry;
extern const struct command cmd_help_entry;
extern const struct command cmd_lang_entry;
extern const struct command cmd_stats_entry;
extern const struct command cmd_top_entry;
extern const struct command cmd_admin_entry;
extern const struct command cmd_rules_entry;
extern const struct command *const command_table[];

#endif

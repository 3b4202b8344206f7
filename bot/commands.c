/*
 * commands.c - what people type: parsing, permission checks and answers.
 * One const entry per command (designated initializers: its aliases,
 * usage, where it may be said, its arguments, whether it acts on the
 * person's table); commands_handle() resolves the table once and runs
 * it.  The admin subcommands are cmd_admin.c's.
 *
 * A line said in a channel is a command when it starts with one of the
 * channel's prefixes (! or / by default); a private line may omit the
 * prefix.  Names are case-insensitive and have short aliases.  Every
 * refusal is one short line that changes nothing; misuse answers with the
 * command's usage.
 *
 * Private commands act on the player's table; only a player who sits at
 * several tables of the network must name it (`bid #wizards 2`).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bucket.h"
#include "command.h"
#include "hash.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "store.h"

/* An informational answer is not said again in a channel this soon. */
#define INFO_REPEAT_MS 10000

const struct command *const command_table[] = {
	&cmd_game_entry,
	&cmd_join_entry,
	&cmd_leave_entry,
	&cmd_start_entry,
	&cmd_option_entry,
	&cmd_bid_entry,
	&cmd_trump_entry,
	&cmd_play_entry,
	&cmd_select_entry,
	&cmd_hand_entry,
	&cmd_status_entry,
	&cmd_table_entry,
	&cmd_scores_entry,
	&cmd_addbot_entry,
	&cmd_replace_entry,
	&cmd_back_entry,
	&cmd_stop_entry,
	&cmd_help_entry,
	&cmd_lang_entry,
	&cmd_stats_entry,
	&cmd_top_entry,
	&cmd_admin_entry,
	&cmd_rules_entry,
	NULL,
};

const struct command *
command_find(const char *name)
{
	for (const struct command *const *e = command_table; *e != NULL;
	    e++) {
		const struct command *c = *e;

		const char *a = c->aliases;
		size_t len = strlen(name);

		if (strcasecmp(c->name, name) == 0)
			return c;
		while (*a != '\0') {
			size_t n = strcspn(a, " ");

			if (n == len && strncasecmp(a, name, n) == 0)
				return c;
			a += n;
			a += strspn(a, " ");
		}
	}
	return NULL;
}

/* "Usage: !bid N · ..." for the command being handled. */
void
usage(struct ctx *ctx)
{
	struct text help;

	text_init(&help);
	SAY(&help, ctx->lang, ctx->command->help, "c", ctx->prefix);
	SAY(&ctx->reply, ctx->lang, MSG_USAGE, "r", text_str(&help));
	text_finish(&help);
}

struct table *
ctx_table(struct ctx *ctx)
{
	return ctx->channel != NULL ? ctx->channel->table : NULL;
}

int
ctx_admin(struct ctx *ctx)
{
	return bot_is_admin(ctx->bot, ctx->network, ctx->channel != NULL ?
	    ctx->channel->name : NULL, ctx->user);
}

/* The table must exist and run a game; otherwise says why. */
struct table *
running_table(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table != NULL && table_game(table) == NULL) {
		/* A lobby is open: "!join opens a table" would mislead. */
		SAY(&ctx->reply, ctx->lang, MSG_NOT_STARTED, "dc",
		    table_nseats(table), ctx->prefix);
		return NULL;
	}
	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return NULL;
	}
	return table;
}

void
seat_not_found(struct ctx *ctx, int seat, const char *name)
{
	char quote[TEXT_QUOTE_SIZE];

	SAY(&ctx->reply, ctx->lang, seat == -2 ? MSG_SEAT_AMBIGUOUS :
	    MSG_NO_SUCH_SEAT, "s", text_quote(quote, name));
}

/* The caller's seat at a running table, or -1 (with the reason said). */
int
own_seat(struct ctx *ctx, struct table *table)
{
	int seat = table_seat_of(table, ctx->user->id);

	if (seat < 0)
		SAY(&ctx->reply, ctx->lang, MSG_NOT_SEATED, "c", ctx->prefix);
	return seat;
}

int
parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Dispatch. */

/* Splits line into words in place; returns how many (at most max). */
static int
split_words(char *line, char **words, int max)
{
	int n = 0;
	char *p = line;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (n == max)
			return max + 1;
		words[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return n;
}

void
ctx_rest(struct ctx *ctx, int from)
{
	char *first, *end;
	size_t len;

	if (from < 0 || from >= ctx->argc)
		return;
	/* The words lie in order in one buffer, each ended by a NUL. */
	first = ctx->argv[from];
	for (int i = from; i < ctx->argc - 1; i++)
		ctx->argv[i][strlen(ctx->argv[i])] = ' ';
	ctx->argc = from + 1;
	len = strlen(first);
	end = first + len;
	if (len >= 2 && first[0] == '"' && end[-1] == '"') {
		end[-1] = '\0';
		ctx->argv[from] = first + 1;
	}
}

/*
 * Above each person's allowance, a network-wide one for everything but
 * moves at one's own table (help, stats, lobby commands...): a crowd of
 * people each within their own allowance still cannot fill the
 * connection with replies and delay the games.  Moves always pass.  A
 * person refused is told once in ten minutes; other refusals are
 * silent, since every answer would add to the crowd's lines.
 */
static int
crowd_allows(struct ctx *ctx)
{
	struct bot *bot = ctx->bot;
	struct network *network = ctx->network;
	uint64_t now = loop_now(bot->loop);
	struct text note;

	if (bot->network_burst <= 0)
		return 1;
	if (ctx->command != NULL && ctx->command->needs_table &&
	    ctx->channel != NULL &&
	    ctx->channel->table != NULL &&
	    table_seat_of(ctx->channel->table, ctx->user->id) >= 0)
		return 1;
	if (!network->crowd_ready) {
		bucket_init(&network->crowd, bot->network_burst,
		    bot->network_interval_ms, now);
		network->crowd_ready = 1;
	}
	if (bucket_take(&network->crowd, now))
		return 1;
	if (buckets_take(bot->crowd_told, network, ctx->user->id, now) ==
	    BUCKET_PASS) {
		log_info("%s: many commands at once; %s's is not answered",
		    network->adapter.network, ctx->user->id);
		text_init(&note);
		SAY0(&note, ctx->lang, MSG_CROWDED);
		network_send_private(network, ctx->user->id, NULL, &note);
		text_finish(&note);
	}
	return 0;
}

/*
 * Of the person's n tables, the one named by the title its private lines
 * show ("[Beta Night] Round 1, your hand"; a Matrix room's name where it
 * has no alias), from argv[0] on, quoted or not: how many words the name
 * took (0: none), leaving the command its arguments.
 */
static int
table_by_title(struct ctx *ctx, struct channel **tables, int n,
    struct channel **found)
{
	char title[256], said[256];
	size_t len = 0;

	for (int k = 1; k <= ctx->argc - ctx->command->min_args; k++) {
		struct channel *hit = NULL;
		int hits = 0;
		const char *name = said;

		len += (size_t)snprintf(said + len, sizeof(said) - len, "%s%s",
		    k > 1 ? " " : "", ctx->argv[k - 1]);
		if (len >= sizeof(said))
			return 0;
		if (len >= 2 && said[0] == '"' && said[len - 1] == '"') {
			said[len - 1] = '\0';
			name = said + 1;
		}
		for (int i = 0; i < n; i++) {
			channel_title(tables[i], title, sizeof(title));
			if (strcasecmp(title, name) == 0) {
				hit = tables[i];
				hits++;
			}
		}
		if (name != said)
			said[len - 1] = '"';
		if (hits == 1) {
			*found = hit;
			return k;
		}
	}
	return 0;
}

/*
 * Private commands name their table when the player sits at several;
 * a move needs no name when only one of them runs a game.
 */
static int
resolve_private_table(struct ctx *ctx)
{
	struct channel *tables[16], *named, *running = NULL;
	int n = user_tables(ctx->network, ctx->user->id, tables, 16);
	int nrunning = 0, k;
	char quote[TEXT_QUOTE_SIZE];

	/* A table named is found however many the person sits at. */
	if (ctx->argc > 0 && (named = channel_get(ctx->network, ctx->argv[0],
	    0)) != NULL && named->table != NULL &&
	    table_seat_of(named->table, ctx->user->id) >= 0) {
		ctx->channel = named;
		memmove(ctx->argv, ctx->argv + 1,
		    (size_t)(ctx->argc - 1) * sizeof(char *));
		ctx->argc--;
		return 0;
	}
	if ((k = table_by_title(ctx, tables, n, &named)) > 0) {
		ctx->channel = named;
		memmove(ctx->argv, ctx->argv + k,
		    (size_t)(ctx->argc - k) * sizeof(char *));
		ctx->argc -= k;
		return 0;
	}
	/*
	 * A channel's name ("#wizards"; "!room:server" on Matrix) is no
	 * card nor number: one where the person has no seat is said so.
	 */
	if (ctx->argc > 0 && strchr("#&!", ctx->argv[0][0]) != NULL &&
	    ctx->argv[0][1] != '\0') {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_AT_TABLE, "s",
		    text_quote(quote, ctx->argv[0]));
		return -1;
	}
	if (n == 1) {
		ctx->channel = tables[0];
		return 0;
	}
	/*
	 * Someone whose seat was taken over hears who has it (the command
	 * says so at that table), not that they never sat anywhere.
	 */
	if (n == 0 && user_former_tables(ctx->network, ctx->user->id, tables,
	    16) > 0) {
		ctx->channel = tables[0];
		return 0;
	}
	if (n == 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_NO_TABLES);
		return -1;
	}
	/*
	 * A move goes to the one table that waits for it from this person
	 * ("bid 1" while a Wizard table waits for the bid and a BirdHead
	 * one for someone's play), as the move alone would ("1").
	 */
	if (ctx->command->move && bare_move(ctx, ctx->argv, ctx->argc) ==
	    ctx->command && ctx->channel != NULL)
		return 0;
	ctx->channel = NULL;
	for (int i = 0; i < n; i++) {
		if (table_game(tables[i]->table) != NULL) {
			running = tables[i];
			nrunning++;
		}
	}
	if (ctx->command->game_only && nrunning == 1) {
		ctx->channel = running;
		return 0;
	}
	{
		struct text names;

		struct channel *example = ctx->command->game_only &&
		    running != NULL ? running : tables[0];
		char title[256], quoted[260];

		/* By the titles their private lines show, not by room ids. */
		text_init(&names);
		for (int i = 0; i < n && i < 16; i++) {
			channel_title(tables[i], title, sizeof(title));
			text_add(&names, i > 0 ? ", " : "");
			text_user(&names, title);
		}
		channel_title(example, title, sizeof(title));
		/* A title with spaces goes in quotes. */
		if (strchr(title, ' ') != NULL)
			snprintf(quoted, sizeof(quoted), "\"%s\"", title);
		else
			snprintf(quoted, sizeof(quoted), "%s", title);
		/* The example names a table where the command can go. */
		SAY(&ctx->reply, ctx->lang, MSG_WHICH_TABLE, "srs",
		    ctx->command->name, text_str(&names), quoted);
		text_finish(&names);
	}
	return -1;
}

/*
 * Whether a person whose command is refused (kind: what refuses it, any
 * pointer) is to be told: once a minute at most for each kind, since a
 * flood earns a token back now and then and each new refusal would
 * otherwise be told again.  Without the books, always.
 */
static int
refusal_tell(struct ctx *ctx, const void *kind)
{
	struct bot *bot = ctx->bot;

	if (bot->refusal_told == NULL)
		return 1;
	return buckets_take(bot->refusal_told, kind, ctx->user->id,
	    loop_now(bot->loop)) == BUCKET_PASS;
}

/*
 * Whether the person may give a command now: each has an allowance of a
 * few commands at once, earned back at one a second (struct bot's
 * commands_allowed), so that one person typing or scripting a flood
 * cannot make the bot flood a channel, fill its send queue for everyone
 * else, or get it thrown off a server.  A refused command is answered
 * privately, once a minute at most (refusal_tell); the others are
 * dropped.
 */
static int
command_allowed(struct ctx *ctx)
{
	struct bot *bot = ctx->bot;
	struct text note;

	if (bot->commands_allowed == NULL)
		return 1;
	switch (buckets_take(bot->commands_allowed, ctx->network,
	    ctx->user->id, loop_now(bot->loop))) {
	case BUCKET_PASS:
		return 1;
	case BUCKET_REFUSE_FIRST:
		log_info("%s: %s sends commands too fast; ignoring them for "
		    "a while", ctx->network->adapter.network, ctx->user->id);
		if (!refusal_tell(ctx, ctx->network))
			return 0;
		text_init(&note);
		SAY0(&note, ctx->lang, MSG_SLOW_DOWN);
		network_send_private(ctx->network, ctx->user->id, NULL, &note);
		text_finish(&note);
		return 0;
	case BUCKET_REFUSE:
		break;
	}
	return 0;
}

/*
 * newcomer (issue 17): an unknown command gets the nearest command name
 * when one is close (a typo: "!stauts" -> !status), else where help is.
 */
static void
unknown_command(struct ctx *ctx, const char *word)
{
	const struct command *best = NULL;
	int best_distance = 3;
	char quote[TEXT_QUOTE_SIZE];

	for (const struct command *const *e = command_table; *e != NULL;
	    e++) {
		const struct command *c = *e;

		int d = name_distance(word, c->name);

		if (d < best_distance) {
			best = c;
			best_distance = d;
		}
	}
	text_quote(quote, word);
	if (best != NULL) {
		struct text name;

		text_init(&name);
		text_printf(&name, "%c%s", ctx->prefix, best->name);
		SAY(&ctx->reply, ctx->lang, MSG_DID_YOU_MEAN, "sbc", quote,
		    text_str(&name), ctx->prefix);
		text_finish(&name);
		return;
	}
	SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_COMMAND, "sc", quote,
	    ctx->prefix);
}

/*
 * Whether an informational answer (status, table, scores) for a channel
 * is the one said there within the last seconds, or still waiting in the
 * adapter's queue: a crowd asking at once hears it once, and the later
 * askers nothing (the answer is right above, or about to be).  A
 * different answer, as after any move, is said and remembered.  A
 * terminal's one reader costs no network and always gets an answer.
 */
static int
info_repeated(struct ctx *ctx, struct channel *channel)
{
	uint64_t now = loop_now(ctx->bot->loop);
	size_t hash = hash_scoped(NULL, text_str(&ctx->reply), 0);

	if (channel_reader(channel) != NULL)
		return 0;

	if (channel->info_at != 0 && channel->info_hash == hash &&
	    (now < channel->info_at + INFO_REPEAT_MS ||
	    medium_busy(&ctx->network->adapter, channel->name)))
		return 1;
	channel->info_hash = hash;
	/* 0 means never; a loop that starts at 0 says it at 1. */
	channel->info_at = now > 0 ? now : 1;
	return 0;
}

/*
 * An answer said in a channel names whom it answers: "It was not your
 * turn" read by a room of players must say whose.  The table's state
 * (!status, !table, !scores: coalesced, struct command) is for everyone,
 * and a terminal has one reader.
 */
static void
address_reply(struct ctx *ctx)
{
	struct text to;

	text_init(&to);
	text_mention(&to, ctx->user->id, ctx->user->name);
	text_add(&to, ": ");
	text_append(&to, &ctx->reply);
	text_clear(&ctx->reply);
	text_append(&ctx->reply, &to);
	text_finish(&to);
}

/*
 * Sets ctx up for text that user said in channel (NULL: privately) and
 * returns the command after its prefix; NULL when it is ordinary
 * conversation in a channel.
 */
static const char *
ctx_begin(struct ctx *ctx, struct network *network, struct channel *channel,
    const struct user *user, const char *text)
{
	const char *prefixes = channel != NULL ? channel->settings.prefixes :
	    network->defaults.prefixes;
	const char *p = text;

	memset(ctx, 0, sizeof(*ctx));
	ctx->bot = network->bot;
	ctx->network = network;
	ctx->said_in = channel;
	ctx->channel = channel;
	ctx->user = user;
	ctx->lang = channel != NULL ? channel->settings.lang :
	    network->defaults.lang;
	ctx->prefix = prefixes[0] != '\0' ? prefixes[0] : '!';
	if (*p != '\0' && strchr(prefixes, *p) != NULL) {
		/* "!!status" is a command typed twice over. */
		while (*p != '\0' && strchr(prefixes, *p) != NULL)
			p++;
	} else if (channel != NULL) {
		return NULL;
	}
	return p;
}

/*
 * The command p, cleaned (text_command_line()), into line; -1 with the
 * reply when it is longer than any command: answered, not cut and obeyed.
 */
static int
read_line(struct ctx *ctx, const char *p, char *line, size_t len)
{
	struct text clean;
	int rc = 0;

	text_init(&clean);
	text_command_line(&clean, p);
	if (clean.len >= len) {
		SAY0(&ctx->reply, ctx->lang, MSG_TOO_LONG);
		rc = -1;
	} else {
		snprintf(line, len, "%s", text_str(&clean));
	}
	text_finish(&clean);
	return rc;
}

/* Says the command's answer, where it was said (channel) or privately. */
static void
answer(struct ctx *ctx, struct channel *channel)
{
	int state = ctx->command != NULL && ctx->command->coalesce;

	if (channel != NULL && !ctx->reply_private && state &&
	    info_repeated(ctx, channel))
		return;
	if (channel == NULL || ctx->reply_private) {
		network_send_private(ctx->network, ctx->user->id,
		    ctx->channel != NULL ? ctx->channel->name : NULL,
		    &ctx->reply);
	} else if (store_batch_changes(ctx->bot->store) == 0 && !state) {
		/* A question or a refusal: no news of the table. */
		if (channel_reader(channel) == NULL)
			address_reply(ctx);
		channel_reply(channel, &ctx->reply);
	} else {
		/*
		 * News of the table, or its state (!status, !table,
		 * !scores), which goes in the table's flow (untracked when
		 * nothing changed): after the lines queued before it and
		 * before those queued after, so that it is true where the
		 * channel reads it.  Among the answers, it waited for every
		 * line the table made meanwhile and came out stale.
		 */
		channel_send(channel, &ctx->reply);
	}
}

void
commands_handle(struct network *network, struct channel *channel,
    const struct user *user, const char *text, int edited)
{
	struct ctx ctx;
	char line[512];
	char *words[MAX_ARGS + 2];
	const char *p;
	int n, bare = 0;

	if ((p = ctx_begin(&ctx, network, channel, user, text)) == NULL)
		return;         /* ordinary conversation */
	if (!command_allowed(&ctx))
		return;
	text_init(&ctx.reply);
	if (read_line(&ctx, p, line, sizeof(line)) != 0)
		goto answer;
	if ((n = split_words(line, words, MAX_ARGS + 1)) == 0)
		goto answer;
	/*
	 * A move alone, said privately: every word is an argument.  It goes
	 * before the commands, whose short aliases are also moves: "j" (the
	 * Jester, or join) and "r", "g", "b" (a trump suit, or replace, game,
	 * bid).
	 */
	if (channel == NULL && (ctx.command = bare_move(&ctx, words, n)) !=
	    NULL)
		bare = 1;
	else
		ctx.command = command_find(words[0]);
	if (edited) {
		/*
		 * An edit would repeat a move, or change one whose turn may
		 * be long past: the person hears that only a new message
		 * counts.  An edit that reads as no command is conversation.
		 */
		if (ctx.command == NULL || !crowd_allows(&ctx))
			goto quiet;
		ctx.command = NULL;
		SAY0(&ctx.reply, ctx.lang, MSG_EDIT_IGNORED);
		goto answer;
	}
	if (ctx.command == NULL && !crowd_allows(&ctx))
		goto quiet;
	if (ctx.command == NULL) {
		/* Another bot's command, a typo: one line that says where help is. */
		unknown_command(&ctx, words[0]);
		goto answer;
	}
	ctx.argc = n > MAX_ARGS ? MAX_ARGS : n - 1 + bare;
	for (int i = 0; i < ctx.argc; i++)
		ctx.argv[i] = words[i + 1 - bare];
	if (n > MAX_ARGS) {
		usage(&ctx);
		goto answer;
	}
	if (channel == NULL && !(ctx.command->where & IN_PRIVATE)) {
		SAY(&ctx.reply, ctx.lang, MSG_PRIVATE_ONLY, "c", ctx.prefix);
		goto answer;
	}
	if (channel == NULL && ctx.command->needs_table) {
		/* The table's name, when given, is not an argument. */
		if (ctx.channel == NULL && resolve_private_table(&ctx) != 0)
			goto answer;
		ctx.lang = ctx.channel->settings.lang;
	}
	if (ctx.command->rest && ctx.argc > ctx.command->max_args &&
	    ctx.command->max_args > 0)
		ctx_rest(&ctx, ctx.command->max_args - 1);
	if (ctx.argc < ctx.command->min_args ||
	    ctx.argc > ctx.command->max_args) {
		usage(&ctx);
		goto answer;
	}
	if (!crowd_allows(&ctx))
		goto quiet;
	/*
	 * A table whose lines wait in the adapter's queue takes no command
	 * that would add more: the person is told privately, and nothing
	 * already queued (hands, prompts) is ever dropped for it.
	 */
	if (ctx.channel != NULL && ctx.channel->table != NULL &&
	    !ctx.command->move &&
	    medium_busy(&network->adapter, ctx.channel->name)) {
		if (!refusal_tell(&ctx, ctx.channel))
			goto quiet;
		SAY0(&ctx.reply, ctx.lang, MSG_BUSY);
		ctx.reply_private = 1;
		goto answer;
	}
	ctx.command->run(&ctx);
	/* Whatever the command changed in a lobby is kept across restarts. */
	if (ctx.channel != NULL && ctx.channel->table != NULL)
		table_lobby_save(ctx.channel->table);
answer:
	if (ctx.reply.len > 0)
		answer(&ctx, channel);
quiet:
	text_finish(&ctx.reply);
}

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
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "store.h"

static void cmd_game(struct ctx *);
static void cmd_join(struct ctx *);
static void cmd_leave(struct ctx *);
static void cmd_start(struct ctx *);
static void cmd_option(struct ctx *);
static void cmd_bid(struct ctx *);
static void cmd_trump(struct ctx *);
static void cmd_play(struct ctx *);
static void cmd_select(struct ctx *);
static void cmd_hand(struct ctx *);
static void cmd_status(struct ctx *);
static void cmd_table(struct ctx *);
static void cmd_scores(struct ctx *);
static void cmd_addbot(struct ctx *);
static void cmd_replace(struct ctx *);
static void cmd_back(struct ctx *);
static void cmd_stop(struct ctx *);
static void cmd_help(struct ctx *);
static void cmd_lang(struct ctx *);
static void cmd_stats(struct ctx *);
static void cmd_top(struct ctx *);
static void cmd_rules(struct ctx *);

static const struct command commands[] = {
	{ .name = "game", .aliases = "g", .help = CMD_GAME,
	    .where = IN_CHANNEL, .min_args = 1, .max_args = 1,
	    .run = cmd_game },
	{ .name = "join", .aliases = "j sit", .help = CMD_JOIN,
	    .where = IN_CHANNEL, .min_args = 0, .max_args = 0,
	    .run = cmd_join },
	{ .name = "leave", .aliases = "l quit", .help = CMD_LEAVE,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_leave },
	{ .name = "start", .aliases = "s go", .help = CMD_START,
	    .where = IN_CHANNEL, .min_args = 0, .max_args = 0,
	    .run = cmd_start },
	{ .name = "option", .aliases = "o opt options", .help = CMD_OPTION,
	    .where = IN_CHANNEL, .min_args = 0, .max_args = 1,
	    .run = cmd_option },
	{ .name = "bid", .aliases = "b tip", .help = CMD_BID,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 1, .max_args = 1,
	    .run = cmd_bid },
	{ .name = "trump", .aliases = "t", .help = CMD_TRUMP,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 1, .max_args = 1,
	    .run = cmd_trump },
	{ .name = "play", .aliases = "p", .help = CMD_PLAY,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 3,
	    .run = cmd_play },
	{ .name = "select", .aliases = "sel", .help = CMD_SELECT,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 1, .max_args = 1,
	    .run = cmd_select },
	{ .name = "hand", .aliases = "h cards", .help = CMD_HAND,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_hand },
	{ .name = "status", .aliases = "st", .help = CMD_STATUS,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_status },
	{ .name = "table", .aliases = "view tb", .help = CMD_TABLE,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_table },
	{ .name = "scores", .aliases = "sc score", .help = CMD_SCORES,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_scores },
	{ .name = "addbot", .aliases = "ab bot", .help = CMD_ADDBOT,
	    .where = IN_CHANNEL, .min_args = 0, .max_args = 1,
	    .run = cmd_addbot },
	{ .name = "replace", .aliases = "r", .help = CMD_REPLACE,
	    .where = IN_CHANNEL, .min_args = 1, .max_args = 1,
	    .run = cmd_replace },
	{ .name = "back", .aliases = "", .help = CMD_BACK,
	    .where = ANYWHERE, .needs_table = 1, .min_args = 0, .max_args = 0,
	    .run = cmd_back },
	{ .name = "stop", .aliases = "", .help = CMD_STOP,
	    .where = IN_CHANNEL, .min_args = 0, .max_args = 0,
	    .run = cmd_stop },
	{ .name = "help", .aliases = "? commands", .help = CMD_HELP,
	    .where = ANYWHERE, .min_args = 0, .max_args = 1,
	    .run = cmd_help },
	{ .name = "lang", .aliases = "language", .help = CMD_LANG,
	    .where = IN_CHANNEL, .min_args = 1, .max_args = 1,
	    .run = cmd_lang },
	{ .name = "stats", .aliases = "", .help = CMD_STATS,
	    .where = ANYWHERE, .min_args = 0, .max_args = 1,
	    .run = cmd_stats },
	{ .name = "top", .aliases = "", .help = CMD_TOP,
	    .where = ANYWHERE, .min_args = 0, .max_args = 1,
	    .run = cmd_top },
	{ .name = "admin", .aliases = "", .help = CMD_ADMIN,
	    .where = ANYWHERE, .min_args = 1, .max_args = 3,
	    .run = cmd_admin },
	{ .name = "rules", .aliases = "rule", .help = CMD_RULES,
	    .where = ANYWHERE, .min_args = 0, .max_args = 1,
	    .run = cmd_rules },
	{ .name = NULL },
};

static const struct command *
command_find(const char *name)
{
	for (const struct command *c = commands; c->name != NULL; c++) {
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
static struct table *
running_table(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL || table_game(table) == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return NULL;
	}
	return table;
}

/* The caller's seat at a running table, or -1 (with the reason said). */
static int
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

/* The lobby of the channel, created with the channel's game when absent. */
static struct table *
lobby(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL) {
		const struct game_impl *impl =
		    game_find(ctx->channel->settings.game);

		if (impl == NULL)
			impl = game_registry[0];
		table = table_create(ctx->channel, impl);
		if (table == NULL)
			return NULL;
	}
	if (table_game(table) != NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_GAME_RUNNING, "c", ctx->prefix);
		return NULL;
	}
	table_idle_arm(table);
	return table;
}

/*
 * Who may steer a lobby (its game, options, language, computers): the
 * people seated at it, anyone while nobody is, and admins.  Otherwise
 * says why and returns 0.
 */
static int
may_steer(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL || table_humans(table) == 0 ||
	    table_seat_of(table, ctx->user->id) >= 0 || ctx_admin(ctx))
		return 1;
	SAY(&ctx->reply, ctx->lang, MSG_NOT_STEERING, "c", ctx->prefix);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The lobby. */

static void
cmd_game(struct ctx *ctx)
{
	const struct game_impl *impl;
	struct table *table;

	impl = game_find(ctx->argv[0]);
	if (impl == NULL) {
		char lower[32];
		size_t i;

		for (i = 0; ctx->argv[0][i] != '\0' && i + 1 < sizeof(lower);
		    i++)
			lower[i] = (char)tolower((unsigned char)ctx->argv[0][i]);
		lower[i] = '\0';
		impl = game_find(lower);
	}
	if (impl == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_GAME, "s",
		    ctx->argv[0]);
		return;
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	table_set_game(table, impl, &ctx->reply);
}

static void
cmd_join(struct ctx *ctx)
{
	struct table *table;

	if (ctx->user->guest) {
		SAY0(&ctx->reply, ctx->lang, MSG_ACCOUNT_NEEDED);
		return;
	}
	if ((table = lobby(ctx)) == NULL)
		return;
	if (table_seat_of(table, ctx->user->id) >= 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_ALREADY_SEATED);
		return;
	}
	table_join(table, ctx->user, &ctx->reply);
}

static void
cmd_leave(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);
	int seat;

	if (table == NULL || (seat = table_seat_of(table,
	    ctx->user->id)) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_SEATED, "c", ctx->prefix);
		return;
	}
	table_leave(table, seat, &ctx->reply);
}

static void
cmd_start(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	if (table_game(table) != NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_GAME_RUNNING, "c", ctx->prefix);
		return;
	}
	if (table_seat_of(table, ctx->user->id) < 0 && !ctx_admin(ctx)) {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_SEATED, "c", ctx->prefix);
		return;
	}
	table_start(table, &ctx->reply);
}

/* "notequal, rounds=5" or the word for none. */
static void
options_text(struct text *t, enum lang lang, const struct game_impl *impl,
    const struct game_options *options)
{
	const struct game_option_desc *o = impl->options;
	int any = 0;

	for (int i = 0; o[i].name != NULL; i++) {
		int v = options != NULL ? options->value[i] : 0;

		if (v == 0)
			continue;
		text_add(t, any++ ? ", " : "");
		if (o[i].max == 1 && o[i].min == 0)
			text_add(t, o[i].name);
		else
			text_printf(t, "%s=%d", o[i].name, v);
	}
	if (!any)
		text_add(t, "-");
}

/*
 * The largest value option i may take at table with the people seated
 * now (Wizard's rounds depend on the player count), as the engine's own
 * check says; the option's own maximum while too few are seated to tell.
 */
static int
option_max(const struct game_impl *impl, int i, const struct table *table)
{
	const struct game_option_desc *o = &impl->options[i];
	struct game_options probe;
	char err[GAME_ERR_LEN];

	if (table == NULL || table_nseats(table) < impl->min_seats)
		return o->max;
	for (int v = o->max; v > o->min; v--) {
		memset(&probe, 0, sizeof(probe));
		probe.value[i] = v;
		if (impl->validate_options(&probe, table_nseats(table), err,
		    sizeof(err)) == 0)
			return v;
	}
	return o->min;
}

static void
cmd_option(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);
	struct game_options next;
	char err[GAME_ERR_LEN];
	const char *arg;
	struct text list;
	int index;

	if (ctx->argc == 0) {
		const struct game_impl *impl = table != NULL ? table_impl(table) :
		    game_find(ctx->channel->settings.game);
		const struct game_option_desc *o;
		struct text names;

		if (impl == NULL)
			impl = game_registry[0];
		o = impl->options;
		if (o[0].name == NULL) {
			struct text title;

			text_init(&title);
			game_title(&title, ctx->lang, impl);
			SAY(&ctx->reply, ctx->lang, MSG_NO_OPTIONS, "r",
			    text_str(&title));
			text_finish(&title);
			return;
		}
		text_init(&names);
		for (int i = 0; o[i].name != NULL; i++) {
			text_add(&names, i > 0 ? ", " : "");
			if (o[i].bare >= 0 && o[i].max == 1)
				text_add(&names, o[i].name);
			else
				text_printf(&names, "%s=%d..%d", o[i].name,
				    o[i].min, option_max(impl, i, table));
		}
		text_init(&list);
		if (table != NULL) {
			options_text(&list, ctx->lang, table_impl(table),
			    table_options(table));
		} else {
			options_text(&list, ctx->lang, impl, NULL);
		}
		SAY(&ctx->reply, ctx->lang, MSG_OPTIONS_LIST, "rrc",
		    text_str(&list), text_str(&names), ctx->prefix);
		text_finish(&list);
		text_finish(&names);
		return;
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	arg = ctx->argv[0];
	next = *table_options(table);
	{
		char name[32];
		size_t n = strcspn(arg, "=");

		snprintf(name, sizeof(name), "%.*s", (int)(n < 31 ? n : 31),
		    arg);
		for (char *p = name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		index = game_option_index(table_impl(table), name);
		/* A bare switch toggles: `option notequal` twice turns it off. */
		if (index >= 0 && arg[n] == '\0' &&
		    table_impl(table)->options[index].min == 0 &&
		    table_impl(table)->options[index].max == 1 &&
		    next.value[index] != 0) {
			next.value[index] = 0;
		} else {
			char lowered[64];

			/* Cut, it could mean something else (rounds=0...05). */
			if (strlen(arg) >= sizeof(lowered)) {
				SAY(&ctx->reply, ctx->lang, MSG_BAD_OPTION_TEXT,
				    "d", (int)sizeof(lowered) - 1);
				return;
			}
			snprintf(lowered, sizeof(lowered), "%s", arg);
			for (char *p = lowered; *p && *p != '='; p++)
				*p = (char)tolower((unsigned char)*p);
			if (game_option_set(table_impl(table), &next, lowered, err,
			    sizeof(err)) != 0) {
				SAY(&ctx->reply, ctx->lang, MSG_OPTION_REFUSED,
				    "s", err);
				return;
			}
		}
	}
	if (table_impl(table)->validate_options(&next, 0, err, sizeof(err)) != 0) {
		SAY(&ctx->reply, ctx->lang, MSG_OPTION_REFUSED, "s", err);
		return;
	}
	table_set_options(table, &next);
	text_init(&list);
	options_text(&list, ctx->lang, table_impl(table), table_options(table));
	SAY(&ctx->reply, ctx->lang, MSG_OPTION_SET, "r", text_str(&list));
	text_finish(&list);
}

static void
cmd_addbot(struct ctx *ctx)
{
	struct table *table;
	int level = ctx->bot->computer_level;

	if (ctx->argc == 1 && (level = ai_level_parse(ctx->argv[0])) < 0) {
		char lower[16];
		size_t i;

		for (i = 0; ctx->argv[0][i] && i + 1 < sizeof(lower); i++)
			lower[i] = (char)tolower((unsigned char)ctx->argv[0][i]);
		lower[i] = '\0';
		if ((level = ai_level_parse(lower)) < 0) {
			SAY(&ctx->reply, ctx->lang, MSG_BAD_LEVEL, "s",
			    ctx->argv[0]);
			return;
		}
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	table_add_computer(table, level, &ctx->reply);
}

/* ------------------------------------------------------------------ */
/* Game actions. */

/* The caller's seat at a running table, ready to act. */
static struct table *
acting_table(struct ctx *ctx, int *seat)
{
	struct table *table = running_table(ctx);

	if (table == NULL)
		return NULL;
	if ((*seat = own_seat(ctx, table)) < 0)
		return NULL;
	return table;
}

/* Applies an action the caller typed; the table announces it. */
static void
act(struct ctx *ctx, struct table *table, int seat, struct action *action)
{
	action->seat = (int8_t)seat;
	/* Acting again is the clearest way of saying `back`. */
	if (table_seat(table, seat)->standin)
		table_back(table, seat, NULL);
	if (table_act(table, seat, action, ctx->said_in != NULL ?
	    ACT_IN_CHANNEL : 0, &ctx->reply) < 0)
		return;
}

/*
 * newcomer (issue 17): tells exactly what to type for the secret command
 * just said in the channel ("bid 2", "select r5"), privately: on a medium
 * with one reader (the terminal) it is typed without the prefix, in a
 * chat it goes in a private message.
 */
static void
secret_hint(struct ctx *ctx)
{
	struct text line;

	/* Said back in the channel, the card or bid would be shown twice. */
	ctx->reply_private = 1;
	text_init(&line);
	text_add(&line, ctx->command->name);
	for (int i = 0; i < ctx->argc; i++) {
		text_add(&line, " ");
		text_user(&line, ctx->argv[i]);
	}
	if (channel_reader(ctx->said_in) != NULL)
		SAY(&ctx->reply, ctx->lang, MSG_SECRET_HINT_TYPE, "bc",
		    text_str(&line), ctx->prefix);
	else
		SAY(&ctx->reply, ctx->lang, MSG_SECRET_HINT, "bs",
		    text_str(&line), bot_self_name(ctx->network, ctx->lang));
	text_finish(&line);
}

/* Hidden bids and selections said in a channel would give them away. */
static int
must_be_private(struct ctx *ctx, struct table *table, enum game_phase phase)
{
	if (ctx->said_in == NULL)
		return 0;
	if (table_impl(table)->phase(table_game(table)->state) != phase)
		return 0;
	secret_hint(ctx);
	return 1;
}

static void
cmd_bid(struct ctx *ctx)
{
	struct table *table;
	struct action action;
	int seat, value;

	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	if (must_be_private(ctx, table, PHASE_BID_SIMULTANEOUS))
		return;
	if (parse_int(ctx->argv[0], &value) != 0 || value < 0 || value > 60) {
		SAY(&ctx->reply, ctx->lang, MSG_BAD_NUMBER, "s", ctx->argv[0]);
		return;
	}
	memset(&action, 0, sizeof(action));
	action.kind = ACTION_BID;
	action.value = (int8_t)value;
	act(ctx, table, seat, &action);
}

static int
parse_suit(const char *s)
{
	static const char *const names[4][4] = {
		{ "r", "red", "赤", NULL },
		{ "y", "yellow", "黄", NULL },
		{ "g", "green", "緑", NULL },
		{ "b", "blue", "青", NULL },
	};

	for (int i = 0; i < 4; i++)
		for (int k = 0; names[i][k] != NULL; k++)
			if (strcasecmp(s, names[i][k]) == 0)
				return i;
	return -1;
}

void
commands_for_action(const struct game_impl *impl, const struct action *a,
    char *out, size_t len)
{
	static const char suits[] = "rygb";
	char code[8];

	switch (a->kind) {
	case ACTION_BID:
		snprintf(out, len, "bid %d", a->value);
		break;
	case ACTION_TRUMP:
		snprintf(out, len, "trump %c", suits[a->value & 3]);
		break;
	case ACTION_SELECT:
		impl->format_card(a->cards[0], code, sizeof(code));
		snprintf(out, len, "select %s", code);
		break;
	default:
		snprintf(out, len, "play");
		for (int i = 0; i < a->ncards; i++) {
			size_t used = strlen(out);

			impl->format_card(a->cards[i], code, sizeof(code));
			snprintf(out + used, len - used, " %s", code);
		}
		break;
	}
}

static void
cmd_trump(struct ctx *ctx)
{
	struct table *table;
	struct action action;
	int seat, suit;

	if ((suit = parse_suit(ctx->argv[0])) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_BAD_SUIT, "s", ctx->argv[0]);
		return;
	}
	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	memset(&action, 0, sizeof(action));
	action.kind = ACTION_TRUMP;
	action.value = (int8_t)suit;
	act(ctx, table, seat, &action);
}

static void
cmd_play(struct ctx *ctx)
{
	struct table *table;
	struct action action;
	int seat;

	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	memset(&action, 0, sizeof(action));
	action.kind = ACTION_PLAY;
	if (ctx->argc == 0) {
		/* Clairvoyance: the one card you cannot see. */
		struct action legal[GAME_MAX_ACTIONS];
		int n = table_impl(table)->legal(table_game(table)->state, seat, legal,
		    GAME_MAX_ACTIONS);

		if (n == 1 && legal[0].kind == ACTION_PLAY) {
			act(ctx, table, seat, &legal[0]);
			return;
		}
		if (n == 0) {
			/* Out of turn: say whose turn it is. */
			table_refusal(table, seat, &action, ctx->said_in !=
			    NULL ? ACT_IN_CHANNEL : 0, &ctx->reply);
			return;
		}
		usage(ctx);
		return;
	}
	if (ctx->argc > table_impl(table)->max_play_cards) {
		usage(ctx);
		return;
	}
	for (int i = 0; i < ctx->argc; i++) {
		int face = table_impl(table)->parse_card(ctx->argv[i]);

		if (face < 0) {
			SAY(&ctx->reply, ctx->lang, MSG_BAD_CARD, "s",
			    ctx->argv[i]);
			return;
		}
		action.cards[action.ncards++] = (uint8_t)face;
	}
	act(ctx, table, seat, &action);
}

static void
cmd_select(struct ctx *ctx)
{
	struct table *table;
	struct action action;
	int seat, face;

	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	if (must_be_private(ctx, table, PHASE_SELECT))
		return;
	if ((face = table_impl(table)->parse_card(ctx->argv[0])) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_BAD_CARD, "s", ctx->argv[0]);
		return;
	}
	memset(&action, 0, sizeof(action));
	action.kind = ACTION_SELECT;
	action.ncards = 1;
	action.cards[0] = (uint8_t)face;
	act(ctx, table, seat, &action);
}

static void
cmd_hand(struct ctx *ctx)
{
	struct table *table;
	int seat;

	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	table_send_hand(table, seat, 1);
}

static void
cmd_status(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	table_status(table, &ctx->reply);
}

/*
 * The table at a glance: with the asker's hand privately when they sit
 * at a running game, else what everyone may see, where they asked.
 */
static void
cmd_table(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);
	struct text view;
	int seat;

	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	seat = table_seat_of(table, ctx->user->id);
	if (table_game(table) == NULL || seat < 0) {
		table_view(table, -1, &ctx->reply);
		return;
	}
	text_init(&view);
	table_view(table, seat, &view);
	table_tell(table, seat, &view);
	text_finish(&view);
}

static void
cmd_scores(struct ctx *ctx)
{
	struct table *table;

	if ((table = running_table(ctx)) == NULL)
		return;
	table_scores(table, &ctx->reply);
}

/* ------------------------------------------------------------------ */
/* Seats changing hands. */

static void
cmd_replace(struct ctx *ctx)
{
	struct table *table;
	const struct seat *s;
	int seat;

	if (ctx->user->guest) {
		SAY0(&ctx->reply, ctx->lang, MSG_ACCOUNT_NEEDED);
		return;
	}
	if ((table = running_table(ctx)) == NULL)
		return;
	if (table_seat_of(table, ctx->user->id) >= 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_ALREADY_SEATED);
		return;
	}
	if ((seat = table_seat_by_name(table, ctx->argv[0])) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_SUCH_SEAT, "s", ctx->argv[0]);
		return;
	}
	s = table_seat(table, seat);
	if (!s->standin && !s->computer) {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_REPLACEABLE, "b", s->name);
		return;
	}
	table_take_over(table, seat, ctx->user, &ctx->reply);
}

static void
cmd_back(struct ctx *ctx)
{
	struct table *table;
	int seat;

	if ((table = acting_table(ctx, &seat)) == NULL)
		return;
	table_back(table, seat, &ctx->reply);
}

void
stop_now(struct ctx *ctx, struct table *table)
{
	struct text t;

	text_init(&t);
	SAY0(&t, ctx->lang, MSG_STOPPED);
	channel_send(table_channel(table), &t);
	text_finish(&t);
	table_close(table, 1);
}

static void
cmd_stop(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);
	int seat;

	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	seat = table_seat_of(table, ctx->user->id);
	if (ctx_admin(ctx)) {
		stop_now(ctx, table);
		return;
	}
	if (seat < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_SEATED, "c", ctx->prefix);
		return;
	}
	if (table_vote_stop(table, seat, &ctx->reply) == 1)
		stop_now(ctx, table);
}

/* ------------------------------------------------------------------ */
/* Help, language, statistics. */

static void
cmd_help(struct ctx *ctx)
{
	if (ctx->argc == 1) {
		const char *name = ctx->argv[0];
		const struct command *c;

		if (strchr("!/", name[0]) != NULL && name[0] != '\0')
			name++;
		if ((c = command_find(name)) == NULL) {
			SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_COMMAND, "sc",
			    ctx->argv[0], ctx->prefix);
			return;
		}
		SAY(&ctx->reply, ctx->lang, c->help, "c", ctx->prefix);
		if (c->aliases[0] != '\0') {
			SAY(&ctx->reply, ctx->lang, MSG_HELP_COMMAND, "s",
			    c->aliases);
		}
		return;
	}
	{
		struct text names;

		text_init(&names);
		for (const struct command *c = commands; c->name != NULL;
		    c++) {
			text_add(&names, c == commands ? "" : " ");
			text_printf(&names, "%c%s", ctx->prefix, c->name);
		}
		SAY(&ctx->reply, ctx->lang, MSG_HELP, "rc", text_str(&names),
		    ctx->prefix);
		text_finish(&names);
	}
}

/*
 * newcomer (issue 17): `rules [GAME|OPTION]`, a short summary of a game
 * (by default the table's) or of one option (newcomer.c).
 */
static void
cmd_rules(struct ctx *ctx)
{
	const struct table *table = ctx->channel != NULL ?
	    ctx->channel->table : NULL;
	const char *name = ctx->argc > 0 ? ctx->argv[0] : table != NULL ?
	    table_impl(table)->name : ctx->channel != NULL ?
	    ctx->channel->settings.game : ctx->network->defaults.game;

	rules_say(&ctx->reply, ctx->lang, ctx->prefix, name);
}

static void
cmd_lang(struct ctx *ctx)
{
	int lang;

	if ((lang = lang_parse(ctx->argv[0])) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_BAD_LANG, "s", ctx->argv[0]);
		return;
	}
	if (!may_steer(ctx))
		return;
	ctx->channel->settings.lang = (enum lang)lang;
	ctx->lang = (enum lang)lang;
	SAY0(&ctx->reply, ctx->lang, MSG_LANG_SET);
}

/* The id of a player known by name: at this table, else in the store. */
static const char *
find_player(struct ctx *ctx, const char *name, char *buf, size_t len)
{
	struct table *table = ctx_table(ctx);
	int seat;

	if (table != NULL && (seat = table_seat_by_name(table, name)) >= 0 &&
	    !table_seat(table, seat)->computer) {
		snprintf(buf, len, "%s", table_seat(table, seat)->user_id);
		return buf;
	}
	if (store_find_user(ctx->bot->store, name, buf, len) == 1)
		return buf;
	return NULL;
}

static void
cmd_stats(struct ctx *ctx)
{
	char idbuf[256];
	const char *id = ctx->user->id;
	const char *name = ctx->user->name;
	int any = 0;

	if (ctx->argc == 1) {
		name = ctx->argv[0];
		if ((id = find_player(ctx, name, idbuf, sizeof(idbuf))) ==
		    NULL) {
			SAY(&ctx->reply, ctx->lang, MSG_STATS_NONE, "b", name);
			return;
		}
	}
	for (int g = 0; game_registry[g] != NULL; g++) {
		struct store_stats st;
		struct text title;
		char average[32];

		if (store_player_stats(ctx->bot->store, game_registry[g]->name,
		    id, &st) != 0 || st.played == 0)
			continue;
		if (any++)
			text_add(&ctx->reply, "\n");
		text_init(&title);
		game_title(&title, ctx->lang, game_registry[g]);
		snprintf(average, sizeof(average), "%.1f", st.average);
		SAY(&ctx->reply, ctx->lang, MSG_STATS, "brdds", name,
		    text_str(&title), st.played, st.wins, average);
		if (st.rounds_bid > 0)
			SAY(&ctx->reply, ctx->lang, MSG_STATS_WIZARD, "dd",
			    st.rounds_exact * 100 / st.rounds_bid,
			    st.rounds_bid);
		text_finish(&title);
	}
	if (!any)
		SAY(&ctx->reply, ctx->lang, MSG_STATS_NONE, "b", name);
}

static void
cmd_top(struct ctx *ctx)
{
	const struct game_impl *impl = NULL;
	struct store_stats top[5];
	struct text title;
	int n;

	if (ctx->argc == 1)
		impl = game_find(ctx->argv[0]);
	else if (ctx_table(ctx) != NULL)
		impl = table_impl(ctx_table(ctx));
	else if (ctx->channel != NULL)
		impl = game_find(ctx->channel->settings.game);
	if (impl == NULL) {
		if (ctx->argc == 1) {
			SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_GAME, "s",
			    ctx->argv[0]);
			return;
		}
		impl = game_registry[0];
	}
	text_init(&title);
	game_title(&title, ctx->lang, impl);
	n = store_top(ctx->bot->store, impl->name, top, 5);
	if (n <= 0) {
		SAY(&ctx->reply, ctx->lang, MSG_TOP_NONE, "r", text_str(&title));
		text_finish(&title);
		return;
	}
	SAY(&ctx->reply, ctx->lang, MSG_TOP, "r", text_str(&title));
	for (int i = 0; i < n; i++) {
		char average[32];

		snprintf(average, sizeof(average), "%.1f", top[i].average);
		text_printf(&ctx->reply, "%s%d. ", i > 0 ? " · " : " ", i + 1);
		text_bold(&ctx->reply, top[i].name);
		text_printf(&ctx->reply, " %d/%d (%s)", top[i].wins,
		    top[i].played, average);
	}
	text_finish(&title);
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

/* Private commands name their table when the player sits at several. */
static int
resolve_private_table(struct ctx *ctx)
{
	struct channel *tables[16], *named;
	int n = user_tables(ctx->network, ctx->user->id, tables, 16);

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
	if (n == 1) {
		ctx->channel = tables[0];
		return 0;
	}
	if (n == 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_NO_TABLES);
		return -1;
	}
	{
		struct text names;

		text_init(&names);
		for (int i = 0; i < n && i < 16; i++) {
			text_add(&names, i > 0 ? ", " : "");
			text_user(&names, tables[i]->name);
		}
		SAY(&ctx->reply, ctx->lang, MSG_WHICH_TABLE, "srs",
		    ctx->command->name, text_str(&names), tables[0]->name);
		text_finish(&names);
	}
	return -1;
}

/*
 * Whether the person may give a command now: each has an allowance of a
 * few commands at once, earned back at one a second (struct bot's
 * commands_allowed), so that one person typing or scripting a flood
 * cannot make the bot flood a channel, fill its send queue for everyone
 * else, or get it thrown off a server.  The first refused command is
 * answered privately, once; later ones are dropped until the allowance
 * has grown back.
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

	for (const struct command *c = commands; c->name != NULL; c++) {
		int d = name_distance(word, c->name);

		if (d < best_distance) {
			best = c;
			best_distance = d;
		}
	}
	if (best != NULL) {
		struct text name;

		text_init(&name);
		text_printf(&name, "%c%s", ctx->prefix, best->name);
		SAY(&ctx->reply, ctx->lang, MSG_DID_YOU_MEAN, "sbc", word,
		    text_str(&name), ctx->prefix);
		text_finish(&name);
		return;
	}
	SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_COMMAND, "sc", word,
	    ctx->prefix);
}

void
commands_handle(struct network *network, struct channel *channel,
    const struct user *user, const char *text)
{
	struct ctx ctx;
	char line[512];
	char *words[MAX_ARGS + 2];
	const char *p = text;
	int n;

	memset(&ctx, 0, sizeof(ctx));
	ctx.bot = network->bot;
	ctx.network = network;
	ctx.said_in = channel;
	ctx.channel = channel;
	ctx.user = user;
	ctx.lang = channel != NULL ? channel->settings.lang :
	    network->defaults.lang;
	ctx.prefix = '!';
	{
		const char *prefixes = channel != NULL ?
		    channel->settings.prefixes : network->defaults.prefixes;

		if (prefixes[0] != '\0')
			ctx.prefix = prefixes[0];
		if (*p != '\0' && strchr(prefixes, *p) != NULL) {
			p++;
		} else if (channel != NULL) {
			return;         /* ordinary conversation */
		}
	}
	if (!command_allowed(&ctx))
		return;
	text_init(&ctx.reply);
	if (strlen(p) >= sizeof(line)) {
		/* Longer than any command; answered, not cut and obeyed. */
		SAY0(&ctx.reply, ctx.lang, MSG_TOO_LONG);
		goto answer;
	}
	snprintf(line, sizeof(line), "%s", p);
	if ((n = split_words(line, words, MAX_ARGS + 1)) == 0)
		goto answer;
	ctx.command = command_find(words[0]);
	if (ctx.command == NULL && !crowd_allows(&ctx))
		goto quiet;
	if (ctx.command == NULL) {
		/* Another bot's command, a typo: one line that says where help is. */
		unknown_command(&ctx, words[0]);
		goto answer;
	}
	ctx.argc = n > MAX_ARGS ? MAX_ARGS : n - 1;
	for (int i = 0; i < ctx.argc; i++)
		ctx.argv[i] = words[i + 1];
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
		if (resolve_private_table(&ctx) != 0)
			goto answer;
		ctx.lang = ctx.channel->settings.lang;
	}
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
	    medium_busy(&network->adapter, ctx.channel->name)) {
		SAY0(&ctx.reply, ctx.lang, MSG_BUSY);
		ctx.reply_private = 1;
		goto answer;
	}
	ctx.command->run(&ctx);
	/* Whatever the command changed in a lobby is kept across restarts. */
	if (ctx.channel != NULL && ctx.channel->table != NULL)
		table_lobby_save(ctx.channel->table);
answer:
	if (ctx.reply.len > 0) {
		if (channel == NULL || ctx.reply_private) {
			network_send_private(network, user->id,
			    ctx.channel != NULL ? ctx.channel->name : NULL,
			    &ctx.reply);
		} else {
			channel_send(channel, &ctx.reply);
		}
	}
quiet:
	text_finish(&ctx.reply);
}

/*
 * cmd_lobby.c - the commands that set a table up and change its seats:
 * game, join, leave, start, option, addbot, replace, back, stop.
 * Each is one const entry (command.h) in the registry of commands.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "log.h"
#include "medium.h"
#include "present.h"
#include "store.h"

/*
 * The game and options a lobby opened now would have: after a game, the
 * same again (*again 1); else the channel's game with its default
 * options.
 */
static const struct game_impl *
next_game(struct ctx *ctx, struct game_options *options, int *again)
{
	const struct game_impl *impl;

	memset(options, 0, sizeof(*options));
	if ((impl = table_last_game(ctx->channel, options)) != NULL) {
		*again = 1;
		return impl;
	}
	*again = 0;
	if ((impl = game_find(ctx->channel->settings.game)) == NULL)
		impl = game_registry[0];
	table_default_options(ctx->channel, impl, options, 0);
	return impl;
}

/* The lobby of the channel, created with the channel's game when absent. */
static struct table *
lobby(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL) {
		struct game_options next;
		int again;
		const struct game_impl *impl = next_game(ctx, &next, &again);

		table = table_create(ctx->channel, impl);
		if (table == NULL)
			return NULL;
		/* The defaults are the table's own (told if one is wrong). */
		if (again)
			table_set_options(table, &next);
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
int
may_steer(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	if (table == NULL || table_humans(table) == 0 ||
	    table_seat_of(table, ctx->user->id) >= 0 || ctx_admin(ctx))
		return 1;
	SAY(&ctx->reply, ctx->lang, MSG_NOT_STEERING, "c", ctx->prefix);
	return 0;
}

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
		char quote[TEXT_QUOTE_SIZE];

		SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_GAME, "s",
		    text_quote(quote, ctx->argv[0]));
		return;
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	table_set_game(table, impl, &ctx->reply);
}

/*
 * A person whose seat a computer plays and who asks for a seat (join,
 * replace) is told how to take theirs back: 1 then.
 */
static int
seat_note(struct ctx *ctx, struct table *table)
{
	int seat = table_seat_of(table, ctx->user->id);

	if (seat < 0 || !table_seat(table, seat)->standin)
		return 0;
	SAY(&ctx->reply, ctx->lang, MSG_STANDIN_NOTE, "c", ctx->prefix);
	return 1;
}

static void
cmd_join(struct ctx *ctx)
{
	struct table *table;

	if (ctx->user->guest) {
		SAY0(&ctx->reply, ctx->lang, MSG_ACCOUNT_NEEDED);
		return;
	}
	/* During a game: whoever had a seat hears what became of it. */
	if ((table = ctx_table(ctx)) != NULL && table_game(table) != NULL &&
	    (seat_note(ctx, table) ||
	    table_say_taken(table, ctx->user->id, &ctx->reply)))
		return;
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

	if (table != NULL && table_say_taken(table, ctx->user->id,
	    &ctx->reply))
		return;
	if (table == NULL || (seat = table_seat_of(table,
	    ctx->user->id)) < 0) {
		SAY(&ctx->reply, ctx->lang, MSG_NOT_SEATED, "c", ctx->prefix);
		return;
	}
	/*
	 * Said privately, a seat given up is still news to the table: the
	 * channel hears it, as it does when a game's seat goes to a
	 * computer (a refusal stays the person's).
	 */
	if (ctx->said_in == NULL) {
		struct channel *channel = table_channel(table);
		struct text news;

		text_init(&news);
		if (table_leave(table, seat, &news) == 0)
			channel_send(channel, &news);
		else
			text_append(&ctx->reply, &news);
		text_finish(&news);
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
		SAY0(t, lang, MSG_OPTIONS_NONE);
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

/*
 * Changes next by one argument of `!option`: a bare switch toggles, NAME=N
 * sets.  Replies with the reason and returns -1 when arg is not an option
 * of impl or not a value it may take.
 */
static int
option_change(struct ctx *ctx, const struct game_impl *impl,
    struct game_options *next, const char *arg)
{
	char name[32], lowered[64], err[GAME_ERR_LEN];
	size_t n = strcspn(arg, "=");
	int index;

	snprintf(name, sizeof(name), "%.*s", (int)(n < 31 ? n : 31), arg);
	for (char *p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	index = game_option_index(impl, name);
	/*
	 * A bare name toggles: `option notequal` twice turns it off, and so
	 * does a bare `option nannie` or `option rounds` while it is on
	 * (whatever its value: 0 is off); `name=off` turns any option off.
	 */
	if (index >= 0 && ((arg[n] == '\0' && next->value[index] != 0) ||
	    (arg[n] == '=' && strcasecmp(arg + n + 1, "off") == 0))) {
		next->value[index] = 0;
		return 0;
	}
	/* No option has a long name: the refusal quotes it short. */
	if (index < 0 && n > TEXT_QUOTE_CHARS) {
		char quote[TEXT_QUOTE_SIZE];
		struct text why;

		text_init(&why);
		SAY(&why, ctx->lang, MSG_REFUSAL_BAD_NAME, "s",
		    text_quote(quote, arg));
		SAY(&ctx->reply, ctx->lang, MSG_OPTION_REFUSED, "r",
		    text_str(&why));
		text_finish(&why);
		return -1;
	}
	/* Cut, it could mean something else (rounds=0...05). */
	if (strlen(arg) >= sizeof(lowered)) {
		SAY(&ctx->reply, ctx->lang, MSG_BAD_OPTION_TEXT, "d",
		    (int)sizeof(lowered) - 1);
		return -1;
	}
	snprintf(lowered, sizeof(lowered), "%s", arg);
	for (char *p = lowered; *p && *p != '='; p++)
		*p = (char)tolower((unsigned char)*p);
	if (present_option_set(ctx->lang, impl, next, lowered, err,
	    sizeof(err)) != 0) {
		SAY(&ctx->reply, ctx->lang, MSG_OPTION_REFUSED, "s", err);
		return -1;
	}
	return 0;
}

static void
cmd_option(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);
	struct game_options next;
	char err[GAME_ERR_LEN];
	struct text list;

	if (ctx->argc == 0) {
		/* Without a table, what the next lobby opens with. */
		int again;
		const struct game_impl *impl = table != NULL ? table_impl(table) :
		    next_game(ctx, &next, &again);
		const struct game_option_desc *o = impl->options;
		struct text names;

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
		options_text(&list, ctx->lang, impl, table != NULL ?
		    table_options(table) : &next);
		SAY(&ctx->reply, ctx->lang, MSG_OPTIONS_LIST, "rrc",
		    text_str(&list), text_str(&names), ctx->prefix);
		text_finish(&list);
		text_finish(&names);
		return;
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	/*
	 * Several at once (`!option rounds=5 hiddentip`) are taken in order
	 * and checked together: one refused leaves the options as they were.
	 */
	next = *table_options(table);
	for (int i = 0; i < ctx->argc; i++)
		if (option_change(ctx, table_impl(table), &next,
		    ctx->argv[i]) != 0)
			return;
	if (present_options_check(ctx->lang, table_impl(table), &next, 0, err,
	    sizeof(err)) != 0) {
		SAY(&ctx->reply, ctx->lang, MSG_OPTION_REFUSED, "s", err);
		return;
	}
	table_set_options(table, &next);
	text_init(&list);
	options_text(&list, ctx->lang, table_impl(table), table_options(table));
	SAY(&ctx->reply, ctx->lang, MSG_OPTION_SET, "r", text_str(&list));
	text_finish(&list);
	/*
	 * Kept, since the seats may change before !start, but said now: the
	 * people seated would hear it only from !start otherwise.
	 */
	if (table_nseats(table) >= table_impl(table)->min_seats &&
	    present_options_check(ctx->lang, table_impl(table), &next,
	    table_nseats(table), err, sizeof(err)) != 0) {
		text_add(&ctx->reply, "\n");
		SAY(&ctx->reply, ctx->lang, MSG_OPTIONS_UNFIT, "ds",
		    table_nseats(table), err);
	}
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
			char quote[TEXT_QUOTE_SIZE];

			SAY(&ctx->reply, ctx->lang, MSG_BAD_LEVEL, "s",
			    text_quote(quote, ctx->argv[0]));
			return;
		}
	}
	if (!may_steer(ctx) || (table = lobby(ctx)) == NULL)
		return;
	table_add_computer(table, level, &ctx->reply);
}

static void
cmd_replace(struct ctx *ctx)
{
	struct table *table;
	int seat;

	if (ctx->user->guest) {
		SAY0(&ctx->reply, ctx->lang, MSG_ACCOUNT_NEEDED);
		return;
	}
	if ((table = running_table(ctx)) == NULL)
		return;
	if (seat_note(ctx, table))
		return;
	if (table_seat_of(table, ctx->user->id) >= 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_ALREADY_SEATED);
		return;
	}
	if ((seat = table_seat_by_name(table, ctx->argv[0])) < 0) {
		seat_not_found(ctx, seat, ctx->argv[0]);
		return;
	}
	/* Only a seat given up, or whose owner is gone, changes hands. */
	if (!table_replaceable(table, seat, &ctx->reply))
		return;
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
	SAY0(&t, ctx->lang, table_game(table) != NULL ? MSG_STOPPED :
	    MSG_TABLE_CLOSED);
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
	/* Computers alone (addbot) keep nobody from closing a table. */
	if (ctx_admin(ctx) || table_humans(table) == 0) {
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

const struct command cmd_game_entry = {
	.name = "game",
	.aliases = "g",
	.help = CMD_GAME,
	.where = IN_CHANNEL,
	.min_args = 1,
	.max_args = 1,
	.run = cmd_game,
};

const struct command cmd_join_entry = {
	.name = "join",
	.aliases = "j sit",
	.help = CMD_JOIN,
	.where = IN_CHANNEL,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_join,
};

const struct command cmd_leave_entry = {
	.name = "leave",
	.aliases = "l quit",
	.help = CMD_LEAVE,
	.where = ANYWHERE,
	.needs_table = 1,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_leave,
};

const struct command cmd_start_entry = {
	.name = "start",
	.aliases = "s go",
	.help = CMD_START,
	.where = IN_CHANNEL,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_start,
};

const struct command cmd_option_entry = {
	.name = "option",
	.aliases = "o opt options",
	.help = CMD_OPTION,
	.where = IN_CHANNEL,
	.min_args = 0,
	.max_args = MAX_ARGS,
	.run = cmd_option,
};

const struct command cmd_addbot_entry = {
	.name = "addbot",
	.aliases = "ab bot",
	.help = CMD_ADDBOT,
	.where = IN_CHANNEL,
	.min_args = 0,
	.max_args = 1,
	.run = cmd_addbot,
};

const struct command cmd_replace_entry = {
	.name = "replace",
	.aliases = "r",
	.help = CMD_REPLACE,
	.where = IN_CHANNEL,
	.min_args = 1,
	.max_args = 1,
	.rest = 1,
	.run = cmd_replace,
};

const struct command cmd_back_entry = {
	.name = "back",
	.aliases = "",
	.help = CMD_BACK,
	.where = ANYWHERE,
	.needs_table = 1,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_back,
};

const struct command cmd_stop_entry = {
	.name = "stop",
	.aliases = "",
	.help = CMD_STOP,
	.where = IN_CHANNEL,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_stop,
};

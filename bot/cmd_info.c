/*
 * cmd_info.c - the commands that inform: help, rules, lang, stats, top.
 * Each is one const entry (command.h) in the registry of commands.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "log.h"
#include "store.h"

static void
cmd_help(struct ctx *ctx)
{
	if (ctx->argc == 1) {
		const char *name = ctx->argv[0];
		const struct command *c;

		if (strchr("!/", name[0]) != NULL && name[0] != '\0')
			name++;
		if ((c = command_find(name)) == NULL) {
			char quote[TEXT_QUOTE_SIZE];

			SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_COMMAND, "sc",
			    text_quote(quote, ctx->argv[0]), ctx->prefix);
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
		for (const struct command *const *e = command_table;
		    *e != NULL; e++) {
			text_add(&names, e == command_table ? "" : " ");
			text_printf(&names, "%c%s", ctx->prefix, (*e)->name);
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
	char canon[8];
	enum msg refusal;

	if (lang_parse(ctx->argv[0]) < 0) {
		char quote[TEXT_QUOTE_SIZE];

		SAY(&ctx->reply, ctx->lang, MSG_BAD_LANG, "s",
		    text_quote(quote, ctx->argv[0]));
		return;
	}
	if (!may_steer(ctx))
		return;
	/*
	 * The table's language is the channel's setting, as `!admin set
	 * lang` changes it: stored the same way, so a restart keeps it.
	 */
	if (channel_setting_change(ctx->channel, "lang", ctx->argv[0],
	    &refusal, canon, sizeof(canon)) != 0) {
		SAY0(&ctx->reply, ctx->lang, MSG_NOT_SAVED);
		return;
	}
	ctx->lang = ctx->channel->settings.lang;
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
	char idbuf[256], quote[TEXT_QUOTE_SIZE];
	const char *id = ctx->user->id;
	const char *name = ctx->user->name;
	int any = 0;

	if (ctx->argc == 1) {
		name = text_quote(quote, ctx->argv[0]);
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
			char quote[TEXT_QUOTE_SIZE];

			SAY(&ctx->reply, ctx->lang, MSG_UNKNOWN_GAME, "s",
			    text_quote(quote, ctx->argv[0]));
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

const struct command cmd_help_entry = {
	.name = "help",
	.aliases = "? commands",
	.help = CMD_HELP,
	.where = ANYWHERE,
	.min_args = 0,
	.max_args = 1,
	.run = cmd_help,
};

const struct command cmd_lang_entry = {
	.name = "lang",
	.aliases = "language",
	.help = CMD_LANG,
	.where = IN_CHANNEL,
	.min_args = 1,
	.max_args = 1,
	.run = cmd_lang,
};

const struct command cmd_stats_entry = {
	.name = "stats",
	.aliases = "",
	.help = CMD_STATS,
	.where = ANYWHERE,
	.min_args = 0,
	.max_args = 1,
	.run = cmd_stats,
};

const struct command cmd_top_entry = {
	.name = "top",
	.aliases = "",
	.help = CMD_TOP,
	.where = ANYWHERE,
	.min_args = 0,
	.max_args = 1,
	.run = cmd_top,
};

const struct command cmd_rules_entry = {
	.name = "rules",
	.aliases = "rule",
	.help = CMD_RULES,
	.where = ANYWHERE,
	.min_args = 0,
	.max_args = 1,
	.run = cmd_rules,
};

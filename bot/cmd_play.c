/*
 * cmd_play.c - the commands of a running game: bid, trump, play, select,
 * and what a player asks to see (hand, status, table, scores).  Each is
 * one const entry (command.h) in the registry of commands.c.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "log.h"

/* The caller's seat at a running table, ready to act. */
struct table *
acting_table(struct ctx *ctx, int *seat)
{
	struct table *table = running_table(ctx);

	if (table == NULL)
		return NULL;
	/* Someone took their seat over: they hear who, not "no seat". */
	if (table_say_taken(table, ctx->user->id, &ctx->reply))
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
	struct channel *tables[2];
	struct text line, args;
	char quote[TEXT_QUOTE_SIZE];

	/* Said back in the channel, the card or bid would be shown twice. */
	ctx->reply_private = 1;
	text_init(&args);
	for (int i = 0; i < ctx->argc; i++) {
		text_add(&args, i > 0 ? " " : "");
		text_user(&args, ctx->argv[i]);
	}
	text_init(&line);
	text_add(&line, ctx->command->name);
	/*
	 * Someone at two tables names this one (whole: a name is no user
	 * text to cut short), or would be asked which.
	 */
	if (user_tables(ctx->network, ctx->user->id, tables, 2) > 1) {
		text_add(&line, " ");
		text_user(&line, ctx->said_in->name);
	}
	text_add(&line, " ");
	text_add(&line, text_quote(quote, text_str(&args)));
	if (channel_reader(ctx->said_in) != NULL)
		SAY(&ctx->reply, ctx->lang, MSG_SECRET_HINT_TYPE, "bc",
		    text_str(&line), ctx->prefix);
	else
		SAY(&ctx->reply, ctx->lang, MSG_SECRET_HINT, "bs",
		    text_str(&line), bot_self_name(ctx->network, ctx->lang));
	text_finish(&line);
	text_finish(&args);
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
	/*
	 * Any bid an action holds goes to the game, which answers one out of
	 * range with the bids allowed ("to bid: 0 1 2").
	 */
	if (parse_int(ctx->argv[0], &value) != 0 || value < INT8_MIN ||
	    value > INT8_MAX) {
		char quote[TEXT_QUOTE_SIZE];

		SAY(&ctx->reply, ctx->lang, MSG_BAD_NUMBER, "s",
		    text_quote(quote, ctx->argv[0]));
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

/* The command of table's task that takes words as its arguments, or NULL. */
static const struct command *
task_command(struct table *table, char *const *words, int n)
{
	enum game_phase phase = table_impl(table)->phase(
	    table_game(table)->state);
	const struct command *command = NULL;
	int value;

	switch (phase) {
	case PHASE_BID:
	case PHASE_BID_SIMULTANEOUS:
		if (n == 1 && parse_int(words[0], &value) == 0)
			command = &cmd_bid_entry;
		break;
	case PHASE_TRUMP:
		if (n == 1 && parse_suit(words[0]) >= 0)
			command = &cmd_trump_entry;
		break;
	case PHASE_SELECT:
	case PHASE_PLAY:
		command = phase == PHASE_PLAY ? &cmd_play_entry :
		    &cmd_select_entry;
		if (n < 1 || n > command->max_args)
			return NULL;
		for (int i = 0; i < n; i++)
			if (table_impl(table)->parse_card(words[i]) < 0)
				return NULL;
		break;
	default:
		break;
	}
	return command;
}

/*
 * A private prompt says "to bid: 0 1" or "to play (any card)", and the
 * terminal sends every line without `!` privately: a player answering
 * it with the move alone means that move.  Only where they must act now,
 * and only when each word reads as the task's argument, so that a
 * greeting or a typo stays an unknown command.  Someone whose move could
 * go to two tables is asked which one, as for "bid 2" (ctx->channel
 * stays NULL).
 */
const struct command *
bare_move(struct ctx *ctx, char *const *words, int n)
{
	struct channel *tables[16];
	const struct command *command = NULL, *found;
	int ntables = user_tables(ctx->network, ctx->user->id, tables, 16);

	for (int i = 0; i < ntables; i++) {
		struct table *table = tables[i]->table;

		if (table_game(table) == NULL ||
		    !seat_to_act(table, table_seat_of(table, ctx->user->id)) ||
		    (found = task_command(table, words, n)) == NULL)
			continue;
		if (command != NULL) {
			ctx->channel = NULL;
			return command;
		}
		command = found;
		ctx->channel = tables[i];
	}
	return command;
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
		char quote[TEXT_QUOTE_SIZE];

		SAY(&ctx->reply, ctx->lang, MSG_BAD_SUIT, "s",
		    text_quote(quote, ctx->argv[0]));
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
			char quote[TEXT_QUOTE_SIZE];

			SAY(&ctx->reply, ctx->lang, MSG_BAD_CARD, "s",
			    text_quote(quote, ctx->argv[i]));
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
		char quote[TEXT_QUOTE_SIZE];

		SAY(&ctx->reply, ctx->lang, MSG_BAD_CARD, "s",
		    text_quote(quote, ctx->argv[0]));
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
	/* Also while a computer plays the seat, saying how to take it. */
	table_show_hand(table, seat);
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
	if (table_seat(table, seat)->standin) {
		text_add(&view, "\n");
		SAY(&view, ctx->lang, MSG_STANDIN_NOTE, "c", ctx->prefix);
	}
	table_tell_owner(table, seat, &view);
	text_finish(&view);
}

static void
cmd_scores(struct ctx *ctx)
{
	struct table *table = ctx_table(ctx);

	/* Once a game is over its players still ask how it ended. */
	if ((table == NULL || table_game(table) == NULL) &&
	    ctx->channel != NULL &&
	    channel_last_end(ctx->channel, ctx->lang, &ctx->reply))
		return;
	if ((table = running_table(ctx)) == NULL)
		return;
	table_scores(table, &ctx->reply);
}

const struct command cmd_bid_entry = {
	.name = "bid",
	.move = 1,
	.aliases = "b tip",
	.help = CMD_BID,
	.where = ANYWHERE,
	.needs_table = 1,
	.game_only = 1,
	.min_args = 1,
	.max_args = 1,
	.run = cmd_bid,
};

const struct command cmd_trump_entry = {
	.name = "trump",
	.move = 1,
	.aliases = "t",
	.help = CMD_TRUMP,
	.where = ANYWHERE,
	.needs_table = 1,
	.game_only = 1,
	.min_args = 1,
	.max_args = 1,
	.run = cmd_trump,
};

const struct command cmd_play_entry = {
	.name = "play",
	.move = 1,
	.aliases = "p",
	.help = CMD_PLAY,
	.where = ANYWHERE,
	.needs_table = 1,
	.game_only = 1,
	.min_args = 0,
	.max_args = 3,
	.run = cmd_play,
};

const struct command cmd_select_entry = {
	.name = "select",
	.move = 1,
	.aliases = "sel",
	.help = CMD_SELECT,
	.where = ANYWHERE,
	.needs_table = 1,
	.game_only = 1,
	.min_args = 1,
	.max_args = 1,
	.run = cmd_select,
};

const struct command cmd_hand_entry = {
	.name = "hand",
	.aliases = "h cards",
	.help = CMD_HAND,
	.where = ANYWHERE,
	.needs_table = 1,
	.game_only = 1,
	.min_args = 0,
	.max_args = 0,
	.run = cmd_hand,
};

const struct command cmd_status_entry = {
	.name = "status",
	.aliases = "st",
	.help = CMD_STATUS,
	.where = ANYWHERE,
	.needs_table = 1,
	.min_args = 0,
	.max_args = 0,
	.coalesce = 1,
	.run = cmd_status,
};

const struct command cmd_table_entry = {
	.name = "table",
	.aliases = "view tb",
	.help = CMD_TABLE,
	.where = ANYWHERE,
	.needs_table = 1,
	.min_args = 0,
	.max_args = 0,
	.coalesce = 1,
	.run = cmd_table,
};

const struct command cmd_scores_entry = {
	.name = "scores",
	.aliases = "sc score",
	.help = CMD_SCORES,
	.where = ANYWHERE,
	.needs_table = 1,
	.min_args = 0,
	.max_args = 0,
	.coalesce = 1,
	.run = cmd_scores,
};

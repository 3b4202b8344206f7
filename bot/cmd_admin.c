/*
 * cmd_admin.c - `!admin SUB ...`: what admins may do, one entry per
 * subcommand in a const table.
 *
 * Configured admins may do everything; a room's own moderators (the
 * adapter's channel_admin) administer the table of their room only, so
 * the subcommands that act on the whole bot say `bot_wide`.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "medium.h"
#include "log.h"
#include "loop.h"
#include "store.h"

struct admin_command {
	const char *name;
	int args;                /* arguments after the subcommand's name */
	int bot_wide;            /* configured admins only */
	int needs_channel;       /* acts on the table of the channel */
	int rest;                /* its last argument is the rest of the line */
	void (*run)(struct ctx *ctx, struct table *table);
};

static void
admin_status(struct ctx *ctx, struct table *table)
{
	(void)table;
	SAY(&ctx->reply, ctx->lang, MSG_BOT_STATUS, "ddddd",
	    (int)((loop_now(ctx->bot->loop) - ctx->bot->started_at) / 1000),
	    ctx->bot->nnetworks, (int)bot_table_count(ctx->bot),
	    (int)bot_game_count(ctx->bot), (int)bot_queue_depth(ctx->bot));
	/* The admin hears of it here too; the log has the reason. */
	if (store_failed(ctx->bot->store) != NULL) {
		text_add(&ctx->reply, " ");
		SAY0(&ctx->reply, ctx->lang, MSG_STATUS_STORE_FAILED);
	}
}

static void
admin_reload(struct ctx *ctx, struct table *table)
{
	char err[256];

	(void)table;
	if (ctx->bot->reload == NULL ||
	    ctx->bot->reload(ctx->bot->reload_arg, err, sizeof(err)) != 0) {
		/*
		 * The reason names the configuration's paths and quotes its
		 * text: the admin's to read, not the channel's.
		 */
		ctx->reply_private = 1;
		SAY(&ctx->reply, ctx->lang, MSG_RELOAD_FAILED, "s",
		    ctx->bot->reload == NULL ? "-" : err);
		return;
	}
	SAY0(&ctx->reply, ctx->lang, MSG_RELOADED);
}

static void
admin_stop(struct ctx *ctx, struct table *table)
{
	if (table == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	stop_now(ctx, table);
}

/* A room admin asks the bot to go: its table goes with it. */
static void
admin_part(struct ctx *ctx, struct table *table)
{
	struct network *network = ctx->channel->network;
	struct text t;

	if (table != NULL)
		table_close(table, 1);
	text_init(&t);
	SAY0(&t, ctx->lang, MSG_PARTING);
	channel_send(ctx->channel, &t);
	text_finish(&t);
	/*
	 * Left after this event, whose lines (that line) must leave first:
	 * parted at once, a +n channel never heard why.  Until a reload
	 * that lists the channel, or a restart.
	 */
	ctx->channel->removed = 1;
	ctx->channel->configured = 0;
	/* Said here: the bot is in it, whoever joined it (an invitation). */
	ctx->channel->joined = 1;
	channel_leave_later(network->bot);
	log_info("%s %s: left at %s's request", network->adapter.network,
	    ctx->channel->name, ctx->user->id);
}

static void
admin_restart(struct ctx *ctx, struct table *table)
{
	if (table == NULL || table_game(table) == NULL) {
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	table_restart(table, &ctx->reply);
}

static void
admin_kick(struct ctx *ctx, struct table *table)
{
	const struct seat *s;
	int seat = -1;

	if (table == NULL || (seat = table_seat_by_name(table,
	    ctx->argv[1])) < 0) {
		seat_not_found(ctx, seat, ctx->argv[1]);
		return;
	}
	if (table_game(table) == NULL) {
		if (table_lobby_remove(table, seat, &ctx->reply) == 0)
			table_lobby_save(table);
		return;
	}
	/* Nothing to do is said, not met with silence. */
	s = table_seat(table, seat);
	if (s->computer || (s->standin && s->released)) {
		SAY(&ctx->reply, ctx->lang, s->computer ? MSG_KICK_COMPUTER :
		    MSG_KICK_DONE_ALREADY, "b", table_seat_name(table, seat));
		return;
	}
	table_stand_in(table, seat, MSG_KICKED);
	table_next(table);
}

/*
 * The channel's settings; the channel, not the table, owns them.  The
 * change is stored with this command's batch, so it is kept before the
 * reply says it was made (settings.c).
 */
static void
admin_set(struct ctx *ctx, struct table *table)
{
	const char *key = ctx->argv[1], *value = ctx->argv[2];
	char canon[64], kquote[TEXT_QUOTE_SIZE], vquote[TEXT_QUOTE_SIZE];
	enum msg refusal;

	(void)table;
	if (channel_setting_change(ctx->channel, key, value, &refusal, canon,
	    sizeof(canon)) != 0) {
		if (refusal == MSG_BAD_SETTING)
			SAY(&ctx->reply, ctx->lang, refusal, "ss",
			    text_quote(kquote, key), text_quote(vquote, value));
		else if (refusal == MSG_NOT_SAVED)
			SAY0(&ctx->reply, ctx->lang, refusal);
		else
			SAY(&ctx->reply, ctx->lang, refusal, "s",
			    text_quote(vquote, value));
		return;
	}
	/* A new language answers in itself, as `lang` does. */
	ctx->lang = ctx->channel->settings.lang;
	SAY(&ctx->reply, ctx->lang, MSG_SET_DONE, "ss", key, canon);
}

static const struct admin_command admin_commands[] = {
	{ .name = "status", .args = 0, .bot_wide = 1, .run = admin_status },
	{ .name = "reload", .args = 0, .bot_wide = 1, .run = admin_reload },
	{ .name = "stop", .args = 0, .needs_channel = 1, .run = admin_stop },
	{ .name = "part", .args = 0, .needs_channel = 1, .run = admin_part },
	{ .name = "restart", .args = 0, .needs_channel = 1,
	    .run = admin_restart },
	{ .name = "kick", .args = 1, .needs_channel = 1, .rest = 1,
	    .run = admin_kick },
	{ .name = "set", .args = 2, .needs_channel = 1, .run = admin_set },
	{ .name = NULL },
};

static void
cmd_admin(struct ctx *ctx)
{
	const struct admin_command *a;

	if (!ctx_admin(ctx)) {
		SAY0(&ctx->reply, ctx->lang, MSG_NOT_ADMIN);
		return;
	}
	for (a = admin_commands; a->name != NULL; a++)
		if (strcasecmp(a->name, ctx->argv[0]) == 0)
			break;
	/* A name may have spaces (struct command's rest). */
	if (a->name != NULL && a->rest)
		ctx_rest(ctx, a->args);
	if (a->name == NULL || ctx->argc != a->args + 1) {
		usage(ctx);
		return;
	}
	/*
	 * A room's moderators are admins of their own table only: what acts
	 * on the whole bot needs a configured admin.
	 */
	if (a->bot_wide && !bot_is_admin(ctx->bot, ctx->network, NULL,
	    ctx->user)) {
		SAY0(&ctx->reply, ctx->lang, MSG_BOT_ADMIN_ONLY);
		return;
	}
	if (a->needs_channel && ctx->channel == NULL) {
		/* The table commands need a channel: say them there. */
		SAY(&ctx->reply, ctx->lang, MSG_NO_TABLE, "c", ctx->prefix);
		return;
	}
	a->run(ctx, ctx_table(ctx));
}

const struct command cmd_admin_entry = {
	.name = "admin",
	.aliases = "",
	.help = CMD_ADMIN,
	.where = ANYWHERE,
	.min_args = 1,
	.max_args = 3,
	.rest = 1,
	.run = cmd_admin,
};

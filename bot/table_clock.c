/*
 * table_clock.c - a turn's clock: it starts when its prompt has been
 * said, reminds the player privately at half time, and at its end a
 * computer moves for them (or, while the store refuses this table's
 * changes, the table tries the store instead).
 *
 * A prompt is stored with the move that made it and then waits behind
 * the table's earlier lines: at a slow IRC pace the lines of a round's
 * end take many seconds to say.  A clock started when the prompt was
 * stored would count those seconds against a player who has not read
 * it.  So the clock waits until the adapter has reported every message
 * of the table's flow up to the prompt sent (outbox_flow_sent()), and
 * CLOCK_WAIT_MAX_MS (or one turn's length, if longer) at most, so that a
 * medium that never reports a message cannot stop a game.  A table with
 * nothing unsent starts its clock as soon as its event is over.
 *
 * A prompt that was not stored (the resume after a restart or a
 * reconnection: it changes nothing) is never reported sent.  Its clock
 * waits while the medium still holds any message of the table's flow
 * (medium_flow_waiting()), looking again every CLOCK_POLL_MS: after a
 * reconnection the resume and its prompt wait for the channel's JOIN and
 * the flood pace like any other line.
 *
 * In a step everyone takes at once (hidden bids, Sticheln's penalty
 * cards) one player's move does not start the others' clock again: it
 * runs from their prompt (table_clock_goes_on()).
 */
#include <stdio.h>

#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "outbox.h"
#include "store.h"
#include "table.h"
#include "table_int.h"

/*
 * Far beyond any backlog a table makes (a round's end at one line in two
 * seconds takes a quarter of a minute), short enough that a game whose
 * lines are never confirmed still ends.
 */
#define CLOCK_WAIT_MAX_MS (5 * 60 * 1000)
/* How often an untracked prompt's clock asks the medium again. */
#define CLOCK_POLL_MS 250
/* clock_mark of a prompt that went untracked. */
#define CLOCK_UNTRACKED UINT64_MAX

/* How long a clock waits for its prompt to be said, at most. */
static int
clock_wait_ms(const struct table *table)
{
	int turn_ms = table->channel->settings.turn_timer * 1000;

	return turn_ms > CLOCK_WAIT_MAX_MS ? turn_ms : CLOCK_WAIT_MAX_MS;
}

static void
clock_timeout_cb(struct loop *loop, uint64_t id, void *arg)
{
	struct table *table = arg;

	(void)loop;
	(void)id;
	table->clock_timer = 0;
	if (!table->clock_waits)
		return;
	log_info("%s: %s: the prompt is not reported said after %d s; its "
	    "clock starts now",
	    table->channel->network->adapter.network,
	    table->channel->name, clock_wait_ms(table) / 1000);
	table_clock_start(table);
}

int
table_clock_goes_on(struct table *table)
{
	int acting[GAME_MAX_SEATS], n;
	enum game_phase phase;

	if (table->game == NULL || table->unresumed ||
	    (table->turn_timer == 0 && !table->clock_waits))
		return 0;
	phase = table->impl->phase(table->game->state);
	if (phase != PHASE_BID_SIMULTANEOUS && phase != PHASE_SELECT)
		return 0;
	/* Everyone still to act was prompted in this step: its clock runs. */
	n = table->impl->to_act(table->game->state, acting);
	for (int i = 0; i < n; i++)
		if (seat_is_human(&table->seats[acting[i]]) &&
		    !(table->prompted & (1u << acting[i])))
			return 0;
	return n > 0;
}

void
table_clock_wait(struct table *table)
{
	struct bot *bot = table_bot(table);

	table->clock_waits = 1;
	table->clock_mark = 0;
	bot_clock_wait(bot, table, 1);
	loop_cancel(bot->loop, table->clock_timer);
	table->clock_timer = loop_timer(bot->loop,
	    (uint64_t)clock_wait_ms(table), clock_timeout_cb, table);
	/*
	 * Outside an event (no batch) the prompt will leave untracked: only
	 * the tracked messages before it can hold the clock.
	 */
	table_clock_check(table);
}

static void
clock_poll_cb(struct loop *loop, uint64_t id, void *arg)
{
	struct table *table = arg;

	(void)loop;
	(void)id;
	table->clock_poll = 0;
	table_clock_check(table);
}

void
table_clock_check(struct table *table)
{
	struct bot *bot = table_bot(table);
	struct adapter *adapter = &table->channel->network->adapter;
	const char *network = adapter->network;
	const char *flow = table->channel->name;

	if (!table->clock_waits || outbox_inside(bot->outbox))
		return;
	if (table->clock_mark == 0) {
		/*
		 * The event is over: its messages have their ids, unless it
		 * stored nothing (a resume), when older rows of the flow (a
		 * restart's) may be all that has ids, and the prompt waits
		 * behind them untracked.
		 */
		table->clock_mark = outbox_last_stored(bot->outbox) ?
		    outbox_flow_unsent(bot->outbox, network, flow) :
		    CLOCK_UNTRACKED;
	}
	if (table->clock_mark == CLOCK_UNTRACKED) {
		/* Said once the medium holds none of the table's lines. */
		if (medium_flow_waiting(bot->medium, adapter, flow) > 0) {
			if (table->clock_poll == 0)
				table->clock_poll = loop_timer(bot->loop,
				    CLOCK_POLL_MS, clock_poll_cb, table);
			return;
		}
	} else if (table->clock_mark != 0 && !outbox_flow_sent(bot->outbox,
	    network, flow, table->clock_mark)) {
		return;
	}
	table_clock_start(table);
}

void
table_clock_cancel(struct table *table)
{
	struct loop *loop = table_bot(table)->loop;

	loop_cancel(loop, table->turn_timer);
	loop_cancel(loop, table->half_timer);
	loop_cancel(loop, table->clock_timer);
	loop_cancel(loop, table->clock_poll);
	table->turn_timer = table->half_timer = table->clock_timer = 0;
	table->clock_poll = 0;
	if (table->clock_waits)
		bot_clock_wait(table_bot(table), table, 0);
	table->clock_waits = 0;
	table->clock_mark = 0;
}

/* ------------------------------------------------------------------ */
/* The turn's time: the reminder at half time, the end. */

static void
half_run(struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n, half = table->channel->settings.turn_timer / 2;
	/*
	 * The reminder is no use once the turn is over, nor after an outage
	 * (the clock starts afresh): the medium drops it if it waits that
	 * long (struct send_info).
	 */
	uint64_t expires = loop_now(table_bot(table)->loop) +
	    (uint64_t)half * 1000;

	table->half_timer = 0;
	if (table->game == NULL)
		return;
	n = table->impl->to_act(table->game->state, acting);
	for (int i = 0; i < n; i++) {
		struct seat *s = &table->seats[acting[i]];
		struct text t;

		if (!seat_is_human(s))
			continue;
		text_init(&t);
		text_table_tag(&t, table);
		SAY(&t, table_lang(table), MSG_REMINDER, "d", half);
		network_send_private_until(table->channel->network,
		    s->user_id, table->channel->name, &t, expires);
		text_finish(&t);
	}
}

static void
half_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, half_run);
}

static void
turn_run(struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n;

	table->turn_timer = 0;
	if (table->game == NULL)
		return;
	/*
	 * The store refused this table's last change (a full disk), and
	 * the people here were told that the game goes on once it saves
	 * again: their time does not run out meanwhile.  The clock tries
	 * the store instead, with the lines saying that it saves again,
	 * where the game stands and whose turn it is, whose time starts
	 * then; refused, they are not said, and the clock tries again.
	 * The lines change nothing stored: a write of the time makes the
	 * event's commit the try.
	 */
	if (table->channel->store_failures > 0) {
		char now[32];

		snprintf(now, sizeof(now), "%lld",
		    (long long)loop_time(table_bot(table)->loop));
		if (store_kv_set(table_bot(table)->store, "store:tried", now) ==
		    0)
			table_resume(table, MSG_SAVING_AGAIN);
		return;
	}
	n = table->impl->to_act(table->game->state, acting);
	for (int i = 0; i < n; i++) {
		int seat = acting[i];
		struct seat *s = &table->seats[seat];
		struct action action;
		struct text reply;
		int rc;

		if (!seat_is_human(s))
			continue;
		if (table_computer_choose(table, seat, &action) != 0)
			continue;
		s->missed++;
		{
			struct text t;

			text_init(&t);
			SAY(&t, table_lang(table), MSG_TIMEOUT, "b", s->name);
			channel_send(table->channel, &t);
			text_finish(&t);
		}
		if (s->missed >= 2)
			table_stand_in(table, seat, MSG_STANDIN_TIMEOUTS);
		text_init(&reply);
		rc = table_act(table, seat, &action, ACT_COMPUTER, &reply);
		text_finish(&reply);
		/*
		 * Simultaneous phases: every late seat gets its move now,
		 * unless the table closed or moved on to a new phase.
		 */
		if (rc != 0 || table->game == NULL)
			return;
		{
			enum game_phase phase = table->impl->phase(
			    table->game->state);

			if (phase != PHASE_BID_SIMULTANEOUS &&
			    phase != PHASE_SELECT)
				return;
		}
	}
}

static void
turn_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, turn_run);
}

void
table_clock_start(struct table *table)
{
	struct bot *bot = table_bot(table);
	uint64_t ms = (uint64_t)table->channel->settings.turn_timer * 1000;

	/* The wait is over. */
	table_clock_cancel(table);
	table->turn_timer = loop_timer(bot->loop, ms, turn_cb, table);
	table->half_timer = loop_timer(bot->loop, ms / 2, half_cb, table);
}

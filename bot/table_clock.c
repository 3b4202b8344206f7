/*
 * table_clock.c - a turn's clock starts when its prompt has been said.
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
#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "outbox.h"
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

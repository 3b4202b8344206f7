/*
 * table.c - one table of one channel: the lobby's seats, the running game,
 * what the channel and each player are told, and the timers.
 *
 * The game itself is the engine's (games/record.h): this file only turns
 * accepted actions into store writes first and messages second, so that a
 * process killed between the two loses nothing anyone saw acknowledged.
 * Deals come from the game's seed and the round number alone, which makes
 * a game reproducible from its store row and its seed.
 *
 * Messages are built from what the engine's views and result say, never
 * from the full state: a channel line is made from view(state, -1), a
 * private one from view(state, seat), so hidden information cannot leak
 * through a formatting mistake here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai_game.h"
#include "bot_int.h"
#include "medium.h"
#include "present.h"
#include "log.h"
#include "loop.h"
#include "store.h"
#include "table_int.h"
#include "xmalloc.h"

/* A delay before the next deal's prompts would only slow games down. */

enum lang
table_lang(const struct table *table)
{
	return table->channel->settings.lang;
}

struct bot *
table_bot(const struct table *table)
{
	return table->channel->network->bot;
}

/*
 * Runs one timer of a table as one event of the core: its changes and
 * what they make the bot say are committed together (bot_enter).
 */
/* Whether the adapter still has too much of this table to send. */
static int
table_busy(struct table *table)
{
	struct adapter *adapter = &table->channel->network->adapter;

	return medium_busy(adapter, table->channel->name);
}

void
table_event(struct table *table, void (*run)(struct table *))
{
	struct bot *bot = table_bot(table);

	bot_enter(bot);
	run(table);
	bot_leave(bot);
}

int
seat_is_human(const struct seat *seat)
{
	return !seat->computer && !seat->standin;
}

/* The channel's first command prefix, for "say !back". */
char
table_prefix(const struct table *table)
{
	return table->channel->settings.prefixes[0] != '\0' ?
	    table->channel->settings.prefixes[0] : '!';
}

void
table_default_options(struct channel *channel, const struct game_impl *impl,
    struct game_options *out, int warn)
{
	size_t i;
	json_t *option;

	memset(out, 0, sizeof(*out));
	/* Channel defaults were checked against this game by the config. */
	if (strcmp(channel->settings.game, impl->name) != 0)
		return;
	json_array_foreach(channel->settings.options, i, option) {
		char err[GAME_ERR_LEN];

		if (game_option_set(impl, out, json_string_value(option), err,
		    sizeof(err)) != 0 && warn)
			log_warn("%s %s: default option ignored: %s",
			    channel->network->adapter.network, channel->name,
			    err);
	}
}

struct table *
table_create(struct channel *channel, const struct game_impl *impl)
{
	struct table *table = xcalloc(1, sizeof(*table));

	table->channel = channel;
	table->impl = impl;
	table->round_seen = -1;
	table_default_options(channel, impl, &table->options, 1);
	channel->table = table;
	table_idle_arm(table);
	return table;
}

void
seat_clear(struct table *table, struct seat *seat)
{
	free(seat->user_id);
	free(seat->name);
	memset(seat, 0, sizeof(*seat));
}

void
table_destroy(struct table *table)
{
	if (table == NULL)
		return;
	table_timer_cancel(table);
	loop_cancel(table_bot(table)->loop, table->idle_timer);
	loop_cancel(table_bot(table)->loop, table->grace_timer);
	loop_cancel(table_bot(table)->loop, table->retry_timer);
	loop_cancel(table_bot(table)->loop, table->abandon_timer);
	for (int i = 0; i < table->nseats; i++)
		seat_clear(table, &table->seats[i]);
	for (int i = 0; i < table->nformers; i++)
		free(table->formers[i].user_id);
	free(table->formers);
	game_destroy(table->game);
	json_decref(table->public_view);
	free(table->lobby_saved);
	free(table->prompt_said);
	if (table->channel->table == table) {
		struct channel *channel = table->channel;
		struct network *network = channel->network;

		channel->table = NULL;
		/*
		 * A channel dropped by a reload is left once its game is
		 * over, after the lines of its end (before, the PART went
		 * first, and a +n channel never heard them).
		 */
		if (channel->removed && channel->joined)
			channel_leave_later(network->bot);
	}
	free(table);
}

/* Stops the computers' move and the retry after a failed store. */
static void
moves_cancel(struct table *table)
{
	struct loop *loop = table_bot(table)->loop;

	loop_cancel(loop, table->computer_timer);
	loop_cancel(loop, table->retry_timer);
	table->computer_timer = table->retry_timer = 0;
}

void
table_timer_cancel(struct table *table)
{
	table_clock_cancel(table);
	moves_cancel(table);
}

/* ------------------------------------------------------------------ */
/* What people see. */

int
seat_to_act(struct table *table, int seat)
{
	int acting[GAME_MAX_SEATS];
	int n = table->impl->to_act(table->game->state, acting);

	for (int i = 0; i < n; i++)
		if (acting[i] == seat)
			return 1;
	return 0;
}

/*
 * Deals the next round from the seed: deal k of a game always comes from
 * the same stream and the game's own version of the deal algorithm
 * (kept in the store), so a game is reproducible from its seed.
 */
static int
table_deal(struct table *table)
{
	struct rng rng;
	struct deal deal;
	char err[GAME_ERR_LEN];
	int index = table->game->ndeals;

	rng_seed(&rng, table->seed ^ (0x9e3779b97f4a7c15ULL *
	    (uint64_t)(index + 1)));
	game_make_deal(table->impl, table->game->state,
	    table->game->deal_version, &rng, &deal);
	if (game_add_deal(table->game, &deal, err, sizeof(err)) != 0 ||
	    game_advance(table->game, err, sizeof(err)) != 0) {
		log_error("%s %s: deal %d refused: %s",
		    table->channel->network->adapter.network,
		    table->channel->name, index, err);
		return -1;
	}
	if (store_deal(table_bot(table)->store, table->game_id, index,
	    table->game) != 0) {
		log_error("%s %s: could not store deal %d of game %lld",
		    table->channel->network->adapter.network,
		    table->channel->name, index, (long long)table->game_id);
		return -1;
	}
	table->round_seen = table->impl->round(table->game->state);
	table->prompted = 0;
	return 0;
}

int
table_deal_pending(struct table *table)
{
	if (table->game == NULL ||
	    table->impl->phase(table->game->state) != PHASE_DEAL)
		return 0;
	return table_deal(table);
}

static void
send_hands(struct table *table)
{
	struct game_brief open;

	/* A deal before the network is back: the resume sends them, once. */
	if (table->unresumed) {
		table->hands_owed = 1;
		return;
	}
	/*
	 * One private line per deal: whoever must act at once gets the task
	 * with the hand, and table_next_text() prompts them no further.  A
	 * seat out of the game (nannie) is dealt nothing and told nothing;
	 * nor is one whose last card is on the table (a resume in a round's
	 * last trick), which would read "your hand: (no cards)".
	 */
	table_brief(table, -1, &open);
	for (int seat = 0; seat < table->nseats; seat++) {
		int now = seat_to_act(table, seat) &&
		    seat_is_human(&table->seats[seat]);

		if ((open.eliminated & (1u << seat)) ||
		    (open.held[seat] == 0 && !now))
			continue;
		table_send_hand(table, seat, now);
		if (now)
			table->hand_prompted |= 1u << seat;
	}
}

/* A storage failure stops the game rather than let it run unsaved. */
static void
table_fail(struct table *table)
{
	struct text t;

	text_init(&t);
	SAY0(&t, table_lang(table), MSG_STORE_FAILED);
	channel_send(table->channel, &t);
	text_finish(&t);
	table_close(table, 1);
}

int
table_start(struct table *table, struct text *reply)
{
	struct bot *bot = table_bot(table);
	enum lang lang = table_lang(table);
	struct game_setup setup;
	struct store_seat holders[GAME_MAX_SEATS];
	struct store_place place;
	char err[GAME_ERR_LEN];
	json_t *players;
	struct text t;

	if (table->nseats < table->impl->min_seats ||
	    table->nseats > table->impl->max_seats) {
		SAY(reply, lang, MSG_START_SEATS, "ddd", table->nseats, table->impl->min_seats,
		    table->impl->max_seats);
		return -1;
	}
	if (present_options_check(lang, table->impl, &table->options,
	    table->nseats, err, sizeof(err)) != 0) {
		SAY(reply, lang, MSG_OPTION_REFUSED, "s", err);
		return -1;
	}
	table->seed = rng_next(&bot->rng);
	memset(&setup, 0, sizeof(setup));
	setup.nseats = table->nseats;
	setup.options = table->options;
	{
		struct rng first;

		rng_seed(&first, table->seed);
		setup.first = (int)rng_below(&first, (uint32_t)table->nseats);
	}
	players = json_array();
	for (int i = 0; i < table->nseats; i++) {
		json_array_append_new(players,
		    json_string(table->seats[i].name));
		seat_store(&table->seats[i], &holders[i]);
	}
	table->game = game_create(table->impl, &setup, players, err,
	    sizeof(err));
	json_decref(players);
	if (table->game == NULL) {
		SAY(reply, lang, MSG_OPTION_REFUSED, "s", err);
		return -1;
	}
	place.network = table->channel->network->adapter.network;
	place.channel = table->channel->name;
	table->game_id = store_game_begin(bot->store, &place, table->game,
	    table->seed, holders, table->nseats);
	if (table->game_id < 0) {
		game_destroy(table->game);
		table->game = NULL;
		SAY0(reply, lang, MSG_STORE_FAILED);
		return -1;
	}
	/* The game is stored: the lobby is over (a crash in between leaves
	 * both, and bot_restore() prefers the game). */
	lobby_forget(table);
	if (table->idle_timer != 0)
		loop_cancel(bot->loop, table->idle_timer);
	table->idle_timer = 0;
	if (table_deal(table) != 0) {
		table_fail(table);
		return 1;
	}
	bot_log_stored(bot, "%s %s: game %lld of %s started with %d seats",
	    place.network, place.channel, (long long)table->game_id,
	    table->impl->name, table->nseats);
	text_init(&t);
	game_title(&t, lang, table->impl);
	text_add(&t, ": ");
	for (int i = 0; i < table->nseats; i++) {
		if (i > 0)
			text_add(&t, ", ");
		text_seat(&t, table, i, 0);
	}
	send_hands(table);
	announce_round(table, &t);
	table_next_text(table, &t);
	channel_send(table->channel, &t);
	text_finish(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Turns, timers and computer players. */

static void computer_cb(struct loop *loop, uint64_t id, void *arg);

/*
 * Whether the prompt line of people to act, line, was the last one said
 * in this very state: then it is not said again.  Every prompt goes
 * through here (a move, a seat changing hands, someone leaving or coming
 * back), so a change that leaves the turn where it was adds no line that
 * says what the channel already read; the turn timer's reminder is its
 * own line and still comes.  Otherwise line becomes the last one said.
 */
static int
prompt_repeated(struct table *table, const struct text *line)
{
	const struct game *game = table->game;

	if (table->prompt_said != NULL &&
	    table->prompt_actions == game->nactions &&
	    table->prompt_deals == game->ndeals &&
	    strcmp(table->prompt_said, text_str(line)) == 0)
		return 1;
	free(table->prompt_said);
	table->prompt_said = xstrdup(text_str(line));
	table->prompt_actions = game->nactions;
	table->prompt_deals = game->ndeals;
	return 0;
}

void
table_prompt_heard(struct table *table)
{
	table->heard = 1;
	table->heard_actions = table->game->nactions;
	table->heard_deals = table->game->ndeals;
}

/*
 * Whether the prompt now is one people heard before the table was read
 * back (table_prompt_heard): said once, it is only noted.  Asked once.
 */
static int
prompt_heard(struct table *table)
{
	int heard = table->heard &&
	    table->heard_actions == table->game->nactions &&
	    table->heard_deals == table->game->ndeals;

	table->heard = 0;
	return heard;
}

/*
 * Appends who is to act now (mentioning people so that their clients
 * highlight the line), prompts them privately, and arms the timers: the
 * turn timer for people, a short delay for computers.
 */
void
table_next_text(struct table *table, struct text *out)
{
	struct bot *bot = table_bot(table);
	int acting[GAME_MAX_SEATS];
	int hands[GAME_MAX_SEATS];
	int n, computers = 0, fresh = 0, nhands = 0;
	/* One move in a step all take at once leaves the others' clock. */
	int clock_on = table_clock_goes_on(table);
	enum game_phase phase;
	struct text line;

	if (clock_on)
		moves_cancel(table);
	else
		table_timer_cancel(table);
	/*
	 * A move handled before the network is back (typed while the bot
	 * was away) prompts nobody and starts no clock: the resume that
	 * follows prompts whoever is to act then, and their time starts.
	 */
	if (table->game == NULL || table->unresumed)
		return;
	phase = table->impl->phase(table->game->state);
	if (phase == PHASE_OVER)
		return;
	if (table_paused(table, out) || table_bot(table)->store_lost)
		return;
	n = table->impl->to_act(table->game->state, acting);
	if (phase != PHASE_BID_SIMULTANEOUS && phase != PHASE_SELECT)
		table->prompted = 0;
	text_init(&line);
	for (int i = 0; i < n; i++) {
		struct seat *s = &table->seats[acting[i]];

		if (!seat_is_human(s)) {
			computers++;
			continue;
		}
		if (table->prompted & (1u << acting[i]))
			continue;
		table->prompted |= 1u << acting[i];
		if (table_addressed(table, acting[i])) {
			/* "your turn to bid", said to the one who reads. */
			your_turn(table, phase, &line);
			text_play_hint(&line, table);
			/*
			 * A terminal costs no network budget: its reader
			 * gets the hand with the moves allowed every turn.
			 */
			if (!(table->hand_prompted & (1u << acting[i])))
				hands[nhands++] = acting[i];
			continue;
		}
		if (line.len > 0)
			text_add(&line, fresh > 0 ? ", " : " · ");
		fresh++;
		text_seat(&line, table, acting[i], 1);
		if (needs_prompt(table, acting[i], phase))
			hands[nhands++] = acting[i];
	}
	table->hand_prompted = 0;
	if (fresh > 0) {
		text_add(&line, " ");
		text_task(&line, table, phase);
		text_play_hint(&line, table);
	}
	if (line.len > 0 && !prompt_repeated(table, &line) &&
	    !prompt_heard(table)) {
		if (out->len > 0)
			text_add(out, " · ");
		text_append(out, &line);
		for (int i = 0; i < nhands; i++)
			table_send_hand(table, hands[i], 1);
	}
	text_finish(&line);
	if (computers > 0)
		table->computer_timer = loop_timer(bot->loop,
		    (uint64_t)bot->computer_delay_ms, computer_cb, table);
	if (n > computers && table->channel->settings.turn_timer > 0 &&
	    !clock_on)
		table_clock_wait(table);
}

void
table_next(struct table *table)
{
	struct text t;

	text_init(&t);
	table_next_text(table, &t);
	channel_send(table->channel, &t);
	text_finish(&t);
}

/* Lets a computer choose for seat; the choice is always legal. */
int
table_computer_choose(struct table *table, int seat, struct action *out)
{
	struct bot *bot = table_bot(table);
	struct ai_params params;

	params.level = (enum ai_level)table->seats[seat].level;
	if (table->seats[seat].standin)
		params.level = bot->computer_level;
	/* A seed per decision keeps a replayed game's choices the same. */
	params.seed = table->seed ^ (0xbf58476d1ce4e5b9ULL *
	    (uint64_t)(table->game->nactions + 1)) ^ (uint64_t)seat;
	params.budget_ms = bot->ai_budget_ms;
	if (ai_decide_game(table->game, seat, &params, out) != 0) {
		struct action legal[GAME_MAX_ACTIONS];

		if (table->impl->legal(table->game->state, seat, legal,
		    GAME_MAX_ACTIONS) < 1)
			return -1;
		*out = legal[0];
	}
	return 0;
}

static void
computer_run(struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n;

	table->computer_timer = 0;
	if (table->game == NULL)
		return;
	if (table_busy(table)) {
		/* Computers wait for the table's lines to leave first. */
		table->computer_timer = loop_timer(table_bot(table)->loop,
		    (uint64_t)table_bot(table)->computer_delay_ms,
		    computer_cb, table);
		return;
	}
	n = table->impl->to_act(table->game->state, acting);
	for (int i = 0; i < n; i++) {
		struct seat *s = &table->seats[acting[i]];
		struct action action;
		struct text reply;
		int rc;

		if (seat_is_human(s))
			continue;
		if (table_computer_choose(table, acting[i], &action) != 0)
			continue;
		text_init(&reply);
		rc = table_act(table, acting[i], &action, ACT_COMPUTER,
		    &reply);
		/* A move the store refused leaves the reply empty. */
		if (rc < 0) {
			const char *why = store_failed(table_bot(table)->store);

			log_error("%s %s: computer move refused: %s",
			    table->channel->network->adapter.network,
			    table->channel->name, reply.len > 0 ?
			    text_str(&reply) : why != NULL ? why :
			    "it could not be stored");
		}
		text_finish(&reply);
		/* One move per tick: table_act armed the next one. */
		return;
	}
}

static void
computer_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, computer_run);
}

static void grace_arm(struct table *table);

static void
grace_run(struct table *table)
{
	uint64_t now = loop_now(table_bot(table)->loop);
	int changed = 0;

	table->grace_timer = 0;
	for (int i = 0; i < table->nseats && table->game != NULL; i++) {
		struct seat *s = &table->seats[i];

		if (s->grace_until == 0 || s->grace_until > now)
			continue;
		s->grace_until = 0;
		/* A computer plays it already: now it may change hands. */
		if (!seat_is_human(s))
			continue;
		table_stand_in(table, i, MSG_STANDIN_GONE);
		changed = 1;
	}
	if (changed)
		table_next(table);
	grace_arm(table);
}

static void
grace_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, grace_run);
}

/* One timer per table, for the seat whose grace time ends first. */
static void
grace_arm(struct table *table)
{
	struct loop *loop = table_bot(table)->loop;
	uint64_t first = 0, now = loop_now(loop);

	loop_cancel(loop, table->grace_timer);
	table->grace_timer = 0;
	for (int i = 0; i < table->nseats; i++) {
		uint64_t until = table->seats[i].grace_until;

		if (until != 0 && (first == 0 || until < first))
			first = until;
	}
	if (first != 0)
		table->grace_timer = loop_timer(loop, first > now ?
		    first - now : 0, grace_cb, table);
}

void
table_grace(struct table *table, int seat, int seconds)
{
	struct seat *s = &table->seats[seat];

	s->grace_until = seconds < 0 ? 0 : loop_now(table_bot(table)->loop) +
	    (uint64_t)seconds * 1000 + (seconds == 0);
	grace_arm(table);
}

void
table_stand_in(struct table *table, int seat, enum msg why)
{
	struct seat *s = &table->seats[seat];
	struct text t;

	/* An owner who left keeps their grace (table_replaceable()). */
	if (s->computer)
		return;
	/* These lines tell the channel that anyone may take the seat over. */
	if (s->standin) {
		/* A seat a computer plays already is only given up now. */
		if ((why == MSG_STANDIN_LEFT || why == MSG_KICKED) &&
		    !s->released) {
			s->released = 1;
			table_seat_changed(table, seat);
		}
		return;
	}
	if (why == MSG_STANDIN_LEFT || why == MSG_KICKED)
		s->released = 1;
	s->standin = 1;
	s->level = table_bot(table)->computer_level;
	table_seat_changed(table, seat);
	text_init(&t);
	SAY(&t, table_lang(table), table_seat_msg(table, seat, why, MSG_YOU_STANDIN),
	    "bc", s->name, table_prefix(table));
	channel_send(table->channel, &t);
	text_finish(&t);
}

/* ------------------------------------------------------------------ */
/* Actions. */


/*
 * The terminal's reader (issue 17) sees the table at a glance after each
 * trick: a chat's people ask for it (!table), as it would cost a line
 * each.
 */
static void
show_reader(struct table *table)
{
	for (int seat = 0; seat < table->nseats; seat++) {
		struct text view;

		if (!table_addressed(table, seat))
			continue;
		text_init(&view);
		table_view(table, seat, &view);
		table_tell(table, seat, &view);
		text_finish(&view);
	}
}

int
table_act(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply)
{
	struct bot *bot = table_bot(table);
	struct game *game = table->game;
	char err[GAME_ERR_LEN];
	void *saved;
	enum game_phase before, after;
	struct game_round ended;
	int round_ended;
	struct text out;

	if (game == NULL)
		return -1;
	before = table->impl->phase(game->state);
	saved = xmalloc(table->impl->state_size);
	memcpy(saved, game->state, table->impl->state_size);
	if (game_apply(game, action, err, sizeof(err)) != 0) {
		free(saved);
		/*
		 * The engine's reason may name what a hand holds ("must
		 * follow red"): people get catalog words instead, the parts
		 * drawn from the hand privately (table_refusal).
		 */
		if (flags & ACT_COMPUTER)
			log_error("%s %s: game %lld refused a computer move",
			    table->channel->network->adapter.network,
			    table->channel->name, (long long)table->game_id);
		else
			table_refusal(table, seat, action, flags, reply);
		return -1;
	}
	/* Stored before anyone hears of it; undone if it cannot be. */
	if (store_action(bot->store, table->game_id, game->nactions - 1,
	    game) != 0) {
		memcpy(game->state, saved, table->impl->state_size);
		game->nactions--;
		free(saved);
		table_not_stored(table, flags, reply);
		return -1;
	}
	free(saved);
	if (!(flags & ACT_COMPUTER))
		table->seats[seat].missed = 0;
	after = table->impl->phase(game->state);
	/* The round this action ended, if any, in numbers. */
	round_ended = (after == PHASE_DEAL || after == PHASE_OVER) &&
	    table->impl->round_result(game->state, table->round_seen,
	    &ended) == 0;
	text_init(&out);
	if (announce_action(table, seat, action, before, round_ended ?
	    &ended : NULL, &out) && after == PHASE_PLAY)
		show_reader(table);
	if (round_ended && ended.scored) {
		announce_round_end(table, &ended, &out);
		if (after == PHASE_OVER) {
			/* The whole result, once: the game's end and record. */
			json_t *result = table->impl->result(game->state);

			announce_game_end(table, result, &out);
			/* The next lobby here plays the same again. */
			table->channel->last_impl = table->impl;
			table->channel->last_options = table->options;
			/* None is offered where the bot is leaving. */
			if (channel_reader(table->channel) == NULL &&
			    !table->channel->removed) {
				text_add(&out, "\n");
				SAY(&out, table_lang(table), MSG_ANOTHER_GAME,
				    "c", table_prefix(table));
			}
			table_keep_end(table, result);
			if (store_game_end(bot->store, table->game_id,
			    result) != 0)
				log_error("%s %s: could not store the end of "
				    "game %lld", table->channel->network->
				    adapter.network, table->channel->name,
				    (long long)table->game_id);
			bot_log_stored(bot, "%s %s: game %lld finished",
			    table->channel->network->adapter.network,
			    table->channel->name, (long long)table->game_id);
			channel_send(table->channel, &out);
			text_finish(&out);
			json_decref(result);
			table_destroy(table);
			return 1;
		}
		if (table_deal(table) != 0) {
			channel_send(table->channel, &out);
			text_finish(&out);
			table_fail(table);
			return 1;
		}
		send_hands(table);
		announce_round(table, &out);
	}
	/* A new phase (hidden bids after a trump choice) asks everyone. */
	if (after != before)
		table->prompted = 0;
	table_next_text(table, &out);
	channel_send(table->channel, &out);
	text_finish(&out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Status. */

void
table_resume(struct table *table, enum msg why)
{
	struct text t;
	int owed;

	if (table->game == NULL)
		return;
	table->unresumed = 0;
	owed = table->hands_owed;
	table->hands_owed = 0;
	text_init(&t);
	SAY0(&t, table_lang(table), why);
	text_add(&t, " ");
	status_summary(table, &t);
	text_add(&t, "\n");
	table_player_lines(table, &t);
	/*
	 * After a restart nobody's client shows a current hand (except one
	 * the last run committed and the outbox has just sent again), and
	 * nobody has the hands of a deal made while the network was away.
	 */
	if (why == MSG_RESUMED || owed) {
		network_skip_resent(table->channel->network, 1);
		send_hands(table);
		network_skip_resent(table->channel->network, 0);
	}
	/* Everyone to act is told again, and their time starts now. */
	table->prompted = 0;
	free(table->prompt_said);
	table->prompt_said = NULL;
	table->heard = 0;
	table_next_text(table, &t);
	channel_send(table->channel, &t);
	text_finish(&t);
}

/* ------------------------------------------------------------------ */
/*
 * Seats and settings changing hands.  These are the only functions, with
 * the game flow above, that write a table: other files ask for a change
 * and get the words that announce it.
 */

void
table_hold(struct table *table)
{
	table_timer_cancel(table);
}

void
table_await_resume(struct table *table)
{
	table_timer_cancel(table);
	table->unresumed = 1;
}

void
table_brief(const struct table *table, int seat, struct game_brief *out)
{
	table->impl->brief(table->game->state, seat, out);
}

json_t *
table_public_view(struct table *table)
{
	const struct game *game = table->game;

	if (table->public_view == NULL || table->view_actions !=
	    game->nactions || table->view_deals != game->ndeals) {
		json_decref(table->public_view);
		table->public_view = table->impl->view(game->state, -1);
		table->view_actions = game->nactions;
		table->view_deals = game->ndeals;
	}
	return table->public_view;
}

/* ------------------------------------------------------------------ */
/* Reading a table (table.h). */

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
#include "internal.h"
#include "medium.h"
#include "log.h"
#include "loop.h"
#include "store.h"
#include "table_int.h"

/* A delay before the next deal's prompts would only slow games down. */
static void table_timer_cancel(struct table *table);

enum lang
table_lang(const struct table *table)
{
	return table->channel->settings.lang;
}

static struct bot *
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

static void
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

struct table *
table_create(struct channel *channel, const struct game_impl *impl)
{
	struct table *table = calloc(1, sizeof(*table));
	size_t i;
	json_t *option;

	if (table == NULL)
		return NULL;
	table->channel = channel;
	table->impl = impl;
	table->round_seen = -1;
	/* Channel defaults were checked against this game by the config. */
	if (strcmp(channel->settings.game, impl->name) == 0) {
		json_array_foreach(channel->settings.options, i, option) {
			char err[GAME_ERR_LEN];

			if (game_option_set(impl, &table->options,
			    json_string_value(option), err, sizeof(err)) != 0)
				log_warn("%s %s: default option ignored: %s",
				    channel->network->adapter.network,
				    channel->name, err);
		}
	}
	channel->table = table;
	table_idle_arm(table);
	return table;
}

static void
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
	game_destroy(table->game);
	free(table->lobby_saved);
	if (table->channel->table == table) {
		struct channel *channel = table->channel;
		struct network *network = channel->network;

		channel->table = NULL;
		/* A channel dropped by a reload is left once its game is over. */
		if (channel->removed && channel->joined && network->started) {
			medium_part(network->bot->medium,
			    network->adapter.network, channel->name);
			channel->joined = 0;
		}
	}
	free(table);
}

/* Deletes the stored lobby, if any (the table started or closed). */
static void
lobby_forget(struct table *table)
{
	struct channel *channel = table->channel;

	if (table->lobby_saved == NULL)
		return;
	(void)store_lobby_delete(table_bot(table)->store,
	    channel->network->adapter.network, channel->name);
	free(table->lobby_saved);
	table->lobby_saved = NULL;
}

void
table_close(struct table *table, int abandoned)
{
	struct bot *bot = table_bot(table);

	lobby_forget(table);
	if (table->game != NULL && abandoned && table->game_id > 0 &&
	    store_game_end(bot->store, table->game_id, NULL) != 0)
		log_error("%s %s: could not mark game %lld abandoned",
		    table->channel->network->adapter.network,
		    table->channel->name, (long long)table->game_id);
	table_destroy(table);
}

/*
 * A lobby as stored: {"game": "wizard", "options": {"rounds": 5},
 * "seats": [{"id": "...", "name": "...", "computer": false, "level": 1}]}.
 * Options are written as in records (RECORD.md), by name, so a lobby
 * stored by an older stichbot reads the same.
 */
static char *
lobby_json(const struct table *table)
{
	json_t *root = json_object();
	json_t *options = game_options_to_json(table->impl, &table->options);
	json_t *seats = json_array();
	char *text = NULL;

	if (root == NULL || options == NULL || seats == NULL)
		goto out;
	for (int i = 0; i < table->nseats; i++) {
		const struct seat *seat = &table->seats[i];

		json_array_append_new(seats, json_pack("{s:s, s:s, s:b, s:i}",
		    "id", seat->user_id != NULL ? seat->user_id : "",
		    "name", seat->name != NULL ? seat->name : "",
		    "computer", seat->computer, "level", seat->level));
	}
	json_object_set_new(root, "game", json_string(table->impl->name));
	json_object_set(root, "options", options);
	json_object_set(root, "seats", seats);
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(options);
	json_decref(seats);
	json_decref(root);
	return text;
}

void
table_lobby_save(struct table *table)
{
	struct channel *channel = table->channel;
	char *text;

	if (table->game != NULL)
		return;
	if ((text = lobby_json(table)) == NULL) {
		log_error("%s %s: out of memory saving the lobby",
		    channel->network->adapter.network, channel->name);
		return;
	}
	if (table->lobby_saved != NULL &&
	    strcmp(table->lobby_saved, text) == 0) {
		free(text);
		return;
	}
	/* Not stored: the next change tries again; the lobby goes on. */
	if (store_lobby_put(table_bot(table)->store,
	    channel->network->adapter.network, channel->name, text) != 0) {
		free(text);
		return;
	}
	free(table->lobby_saved);
	table->lobby_saved = text;
}

struct table *
table_lobby_load(struct channel *channel, const char *lobby, char *err,
    size_t errlen)
{
	const struct game_impl *impl;
	struct game_options options;
	struct table *table = NULL;
	const json_t *seats, *item;
	const char *game;
	json_error_t jerr;
	json_t *root;
	size_t i;

	if ((root = json_loads(lobby, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "not JSON: %s", jerr.text);
		return NULL;
	}
	game = json_string_value(json_object_get(root, "game"));
	seats = json_object_get(root, "seats");
	if ((impl = game_find(game != NULL ? game : "")) == NULL) {
		snprintf(err, errlen, "unknown game");
		goto out;
	}
	if (!json_is_array(seats) || json_array_size(seats) >
	    (size_t)impl->max_seats) {
		snprintf(err, errlen, "seats: expected at most %d",
		    impl->max_seats);
		goto out;
	}
	if (game_options_from_json(impl, json_object_get(root, "options"),
	    &options, err, errlen) != 0 ||
	    impl->validate_options(&options, 0, err, errlen) != 0)
		goto out;
	if ((table = table_create(channel, impl)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	table->options = options;
	json_array_foreach(seats, i, item) {
		struct seat *seat = &table->seats[table->nseats];
		const char *id = json_string_value(json_object_get(item, "id"));
		const char *name = json_string_value(json_object_get(item,
		    "name"));
		int level = (int)json_integer_value(json_object_get(item,
		    "level"));

		seat->computer = json_is_true(json_object_get(item,
		    "computer"));
		if (id == NULL || name == NULL || name[0] == '\0' ||
		    (!seat->computer && id[0] == '\0')) {
			snprintf(err, errlen, "seats[%zu]: expected an id and a "
			    "name", i);
			goto fail;
		}
		seat->level = level >= AI_EASY && level <= AI_HARD ? level :
		    AI_NORMAL;
		if ((seat->user_id = strdup(id)) == NULL ||
		    (seat->name = strdup(name)) == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		table->nseats++;
		if (!seat->computer)
			user_sat(channel, seat->user_id);
	}
	table->lobby_saved = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	goto out;
fail:
	seat_clear(table, &table->seats[table->nseats]);
	table_destroy(table);
	table = NULL;
out:
	json_decref(root);
	return table;
}

int
table_seat_of(const struct table *table, const char *user_id)
{
	for (int i = 0; i < table->nseats; i++)
		if (!table->seats[i].computer &&
		    strcmp(table->seats[i].user_id, user_id) == 0)
			return i;
	return -1;
}

int
table_seat_by_name(const struct table *table, const char *name)
{
	for (int i = 0; i < table->nseats; i++)
		if (strcasecmp(table->seats[i].name, name) == 0)
			return i;
	return -1;
}

int
table_lobby_remove(struct table *table, int seat, struct text *out)
{
	enum lang lang = table_lang(table);

	SAY(out, lang, table_seat_msg(table, seat, MSG_LEFT_LOBBY, MSG_YOU_LEAVE),
	    "b", table_seat_name(table, seat));
	seat_clear(table, &table->seats[seat]);
	memmove(&table->seats[seat], &table->seats[seat + 1],
	    (size_t)(table->nseats - seat - 1) * sizeof(table->seats[0]));
	table->nseats--;
	memset(&table->seats[table->nseats], 0, sizeof(table->seats[0]));
	if (table_humans(table) > 0)
		return 0;
	text_add(out, " ");
	SAY0(out, lang, MSG_TABLE_CLOSED);
	table_close(table, 0);
	return 1;
}

int
table_humans(const struct table *table)
{
	int n = 0;

	for (int i = 0; i < table->nseats; i++)
		if (!table->seats[i].computer)
			n++;
	return n;
}

static void
lobby_idle_run(struct table *table)
{
	struct text t;

	table->idle_timer = 0;
	if (table->game != NULL)
		return;
	text_init(&t);
	SAY(&t, table_lang(table), MSG_LOBBY_IDLE_CLOSED, "d", table_bot(table)->lobby_idle / 60);
	channel_send(table->channel, &t);
	text_finish(&t);
	table_close(table, 0);
}

static void
lobby_idle_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, lobby_idle_run);
}

void
table_idle_arm(struct table *table)
{
	struct bot *bot = table_bot(table);

	if (table->idle_timer != 0)
		loop_cancel(bot->loop, table->idle_timer);
	table->idle_timer = 0;
	if (table->game == NULL && bot->lobby_idle > 0)
		table->idle_timer = loop_timer(bot->loop,
		    (uint64_t)bot->lobby_idle * 1000, lobby_idle_cb, table);
}

static void
table_timer_cancel(struct table *table)
{
	struct loop *loop = table_bot(table)->loop;

	loop_cancel(loop, table->turn_timer);
	loop_cancel(loop, table->half_timer);
	loop_cancel(loop, table->computer_timer);
	loop_cancel(loop, table->retry_timer);
	table->turn_timer = table->half_timer = table->computer_timer = 0;
	table->retry_timer = 0;
}

/* The store's picture of a seat. */
static void
seat_store(const struct seat *seat, struct store_seat *out)
{
	out->user_id = seat->user_id;
	out->name = seat->name;
	out->computer = seat->computer || seat->standin;
	out->level = seat->level;
}

int
table_seat_changed(struct table *table, int seat)
{
	struct store_seat holder;

	if (table->game == NULL) {
		table_lobby_save(table);
		return 0;
	}
	seat_store(&table->seats[seat], &holder);
	if (store_seat(table_bot(table)->store, table->game_id, seat,
	    &holder) != 0) {
		log_error("%s %s: could not store seat %d of game %lld",
		    table->channel->network->adapter.network,
		    table->channel->name, seat, (long long)table->game_id);
		return -1;
	}
	return 0;
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
 * the same stream, so a game is reproducible from its seed.
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
	table->impl->make_deal(table->game->state, &rng, &deal);
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
	table->tricks_seen = 0;
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
	/*
	 * One private line per deal: whoever must act at once gets the task
	 * with the hand, and table_next_text() prompts them no further.
	 */
	for (int seat = 0; seat < table->nseats; seat++) {
		int now = seat_to_act(table, seat) &&
		    seat_is_human(&table->seats[seat]);

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
	if (table->impl->validate_options(&table->options, table->nseats, err,
	    sizeof(err)) != 0) {
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
	log_info("%s %s: game %lld of %s started with %d seats",
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
static int table_paused(struct table *table, struct text *out);
static void turn_cb(struct loop *loop, uint64_t id, void *arg);
static void half_cb(struct loop *loop, uint64_t id, void *arg);

/*
 * Whether seat, to act now, needs a private prompt beyond the channel's
 * mention (issue 16: a prompt per turn doubled what a game says).  The
 * mention names the task, and the public hint (lead suit, standard to
 * meet) what constrains a play; the hand came with the deal, and !hand
 * gives it again with the moves allowed.  Privately, then, only what the
 * channel cannot carry: a task answered privately (hidden bids, penalty
 * cards) that the deal's line did not already set, bids cut down by a
 * rule that would reveal hidden bids if said in public (notequal under
 * secret bids), and plays a clairvoyant player cannot see.
 */
static int
needs_prompt(struct table *table, int seat, enum game_phase phase)
{
	struct action legal[GAME_MAX_ACTIONS];
	json_t *view;
	int n, cards, blind;

	if (table->hand_prompted & (1u << seat))
		return 0;
	switch (phase) {
	case PHASE_BID_SIMULTANEOUS:
	case PHASE_SELECT:
		return 1;
	case PHASE_BID:
		n = table->impl->legal(table->game->state, seat, legal,
		    GAME_MAX_ACTIONS);
		view = table->impl->view(table->game->state, -1);
		cards = (int)json_integer_value(json_object_get(view,
		    "cards"));
		json_decref(view);
		return n < cards + 1;
	case PHASE_PLAY:
		view = table->impl->view(table->game->state, seat);
		blind = json_object_size(json_object_get(view, "others")) > 0;
		json_decref(view);
		return blind;
	default:
		return 0;
	}
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
	int n, computers = 0, fresh = 0;
	enum game_phase phase;

	table_timer_cancel(table);
	if (table->game == NULL)
		return;
	phase = table->impl->phase(table->game->state);
	if (phase == PHASE_OVER)
		return;
	if (table_paused(table, out) || table_bot(table)->store_lost)
		return;
	n = table->impl->to_act(table->game->state, acting);
	if (phase != PHASE_BID_SIMULTANEOUS && phase != PHASE_SELECT)
		table->prompted = 0;
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
			your_turn(table, phase, out);
			text_play_hint(out, table);
			/*
			 * A terminal costs no network budget: its reader
			 * gets the hand with the moves allowed every turn.
			 */
			if (!(table->hand_prompted & (1u << acting[i])))
				table_send_hand(table, acting[i], 1);
			continue;
		}
		if (fresh++ == 0) {
			if (out->len > 0)
				text_add(out, " · ");
		} else {
			text_add(out, ", ");
		}
		text_seat(out, table, acting[i], 1);
		if (needs_prompt(table, acting[i], phase))
			table_send_hand(table, acting[i], 1);
	}
	table->hand_prompted = 0;
	if (fresh > 0) {
		text_add(out, " ");
		text_task(out, table, phase);
		text_play_hint(out, table);
	}
	if (computers > 0)
		table->computer_timer = loop_timer(bot->loop,
		    (uint64_t)bot->computer_delay_ms, computer_cb, table);
	if (n > computers && table->channel->settings.turn_timer > 0) {
		uint64_t ms = (uint64_t)table->channel->settings.turn_timer *
		    1000;

		table->turn_timer = loop_timer(bot->loop, ms, turn_cb, table);
		table->half_timer = loop_timer(bot->loop, ms / 2, half_cb,
		    table);
	}
}

/* Seats whose person is here (not played by a computer for them). */
static int
people_present(const struct table *table)
{
	int n = 0;

	for (int i = 0; i < table->nseats; i++)
		n += seat_is_human(&table->seats[i]);
	return n;
}

static void
abandon_run(struct table *table)
{
	struct text t;

	table->abandon_timer = 0;
	text_init(&t);
	SAY0(&t, table_lang(table), MSG_STOPPED);
	channel_send(table->channel, &t);
	text_finish(&t);
	log_info("%s %s: game %lld closed: nobody played for %d minutes",
	    table->channel->network->adapter.network, table->channel->name,
	    (long long)table->game_id, table_bot(table)->lobby_idle / 60);
	table_close(table, 1);
}

static void
abandon_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, abandon_run);
}

/*
 * Computers never play to an empty room: with nobody seated (and no one
 * reading, as at the terminal) the game pauses between tricks (saying so once) and closes, its record kept,
 * after the lobby idle time; a person taking a seat resumes it.
 */
static int
table_paused(struct table *table, struct text *out)
{
	struct bot *bot = table_bot(table);
	json_t *view;
	size_t trick;

	/* The terminal's reader watches even when a computer plays for them. */
	if (people_present(table) > 0 || channel_reader(table->channel) !=
	    NULL) {
		loop_cancel(bot->loop, table->abandon_timer);
		table->abandon_timer = 0;
		table->paused = 0;
		return 0;
	}
	view = table->impl->view(table->game->state, -1);
	trick = json_array_size(json_object_get(view, "trick"));
	json_decref(view);
	if (trick > 0)
		return 0;
	if (!table->paused) {
		table->paused = 1;
		if (out->len > 0)
			text_add(out, " · ");
		SAY(out, table_lang(table), MSG_NOBODY_SEATED, "cd",
		    table_prefix(table), bot->lobby_idle / 60);
		table->abandon_timer = loop_timer(bot->loop,
		    (uint64_t)bot->lobby_idle * 1000, abandon_cb, table);
	}
	return 1;
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

static void
half_run(struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n;

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
		SAY(&t, table_lang(table), MSG_REMINDER, "d", table->channel->settings.turn_timer / 2);
		network_send_private(table->channel->network, s->user_id,
		    table->channel->name, &t);
		text_finish(&t);
	}
}

static void
half_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, half_run);
}

/* Lets a computer choose for seat; the choice is always legal. */
static int
computer_choose(struct table *table, int seat, struct action *out)
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
		if (computer_choose(table, acting[i], &action) != 0)
			continue;
		text_init(&reply);
		rc = table_act(table, acting[i], &action, ACT_COMPUTER,
		    &reply);
		if (rc < 0)
			log_error("%s %s: computer move refused: %s",
			    table->channel->network->adapter.network,
			    table->channel->name, text_str(&reply));
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

	s->grace_until = 0;
	if (s->computer || s->standin)
		return;
	s->standin = 1;
	s->level = table_bot(table)->computer_level;
	table_seat_changed(table, seat);
	text_init(&t);
	SAY(&t, table_lang(table), table_seat_msg(table, seat, why, MSG_YOU_STANDIN),
	    "bc", s->name, table_prefix(table));
	channel_send(table->channel, &t);
	text_finish(&t);
}

static void
turn_run(struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n;

	table->turn_timer = 0;
	if (table->game == NULL)
		return;
	n = table->impl->to_act(table->game->state, acting);
	for (int i = 0; i < n; i++) {
		int seat = acting[i];
		struct seat *s = &table->seats[seat];
		struct action action;
		struct text reply;
		int rc;

		if (!seat_is_human(s))
			continue;
		if (computer_choose(table, seat, &action) != 0)
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

/* ------------------------------------------------------------------ */
/* Actions. */

/*
 * A move that could not be stored did not happen: the player is told
 * (a computer's table once, until something is stored again), and the
 * game is picked up again after a pause that grows while the store
 * keeps failing, unless it failed for good (bot_check_store()).
 */
static void
not_stored(struct table *table, int flags, struct text *reply)
{
	struct channel *channel = table->channel;

	if (!(flags & ACT_COMPUTER)) {
		SAY0(reply, table_lang(table), MSG_NOT_SAVED);
	} else if (channel->store_failures == 0) {
		struct text t;

		text_init(&t);
		SAY0(&t, table_lang(table), MSG_NOT_SAVED);
		channel_send(channel, &t);
		text_finish(&t);
	}
	channel->store_failures++;
	if (!table_bot(table)->store_lost)
		table_retry(table);
}

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
	json_t *result, *round;
	struct text out;
	int tricks;

	if (game == NULL)
		return -1;
	before = table->impl->phase(game->state);
	saved = malloc(table->impl->state_size);
	if (saved == NULL)
		return -1;
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
		not_stored(table, flags, reply);
		return -1;
	}
	free(saved);
	if (!(flags & ACT_COMPUTER))
		table->seats[seat].missed = 0;
	after = table->impl->phase(game->state);
	result = table->impl->result(game->state);
	round = json_array_get(json_object_get(result, "rounds"),
	    (size_t)table->round_seen);
	text_init(&out);
	tricks = table->tricks_seen;
	announce_action(table, seat, action, before, result, &out);
	table->tricks_seen = (int)json_array_size(json_object_get(round,
	    "tricks"));
	if (table->tricks_seen > tricks && after == PHASE_PLAY)
		show_reader(table);
	if (round != NULL && json_is_array(json_object_get(round,
	    "points"))) {
		announce_round_end(table, round, &out);
		if (after == PHASE_OVER) {
			announce_game_end(table, result, &out);
			if (store_game_end(bot->store, table->game_id,
			    result) != 0)
				log_error("%s %s: could not store the end of "
				    "game %lld", table->channel->network->
				    adapter.network, table->channel->name,
				    (long long)table->game_id);
			log_info("%s %s: game %lld finished",
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
			json_decref(result);
			table_fail(table);
			return 1;
		}
		send_hands(table);
		announce_round(table, &out);
	}
	json_decref(result);
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

	if (table->game == NULL)
		return;
	table->unresumed = 0;
	text_init(&t);
	SAY0(&t, table_lang(table), why);
	text_add(&t, " ");
	status_summary(table, &t);
	text_add(&t, "\n");
	table_player_lines(table, &t);
	/* After a restart nobody's client shows a current hand. */
	if (why == MSG_RESUMED)
		send_hands(table);
	/* Everyone to act is told again, and their time starts now. */
	table->prompted = 0;
	table_next_text(table, &t);
	channel_send(table->channel, &t);
	text_finish(&t);
}

/* ------------------------------------------------------------------ */
/* Restore. */

struct table *
table_restore(struct channel *channel, const struct store_game *stored,
    char *err, size_t errlen)
{
	json_t *actions = json_object_get(stored->record, "actions");
	struct game *game;
	struct table *table;
	json_t *result, *rounds;
	size_t i;
	json_t *a, *seat;

	game = game_from_record(stored->record, err, errlen);
	if (game == NULL)
		return NULL;
	if (game_advance(game, err, errlen) != 0) {
		game_destroy(game);
		return NULL;
	}
	json_array_foreach(actions, i, a) {
		struct action action;

		if (action_from_json(game->impl, a, &action, err, errlen) != 0 ||
		    game_apply(game, &action, err, errlen) != 0) {
			game_destroy(game);
			return NULL;
		}
	}
	table = calloc(1, sizeof(*table));
	if (table == NULL) {
		game_destroy(game);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	table->channel = channel;
	table->impl = game->impl;
	table->options = game->setup.options;
	table->game = game;
	table->game_id = stored->id;
	table->seed = stored->seed;
	json_array_foreach(stored->seats, i, seat) {
		struct seat *s = &table->seats[table->nseats++];
		const char *id = json_string_value(json_object_get(seat,
		    "user_id"));
		const char *name = json_string_value(json_object_get(seat,
		    "name"));

		s->user_id = strdup(id != NULL ? id : "");
		s->name = strdup(name != NULL ? name : "?");
		user_sat(channel, s->user_id);
		s->level = (int)json_integer_value(json_object_get(seat,
		    "level"));
		if (json_is_true(json_object_get(seat, "computer"))) {
			if (s->user_id[0] == '\0')
				s->computer = 1;
			else
				s->standin = 1;
		}
		if (i + 1 >= GAME_MAX_SEATS)
			break;
	}
	/* A seat the store could not give back would leave a hole. */
	if (table->nseats != game->setup.nseats) {
		snprintf(err, errlen, "%d seats stored for %d players",
		    table->nseats, game->setup.nseats);
		for (int k = 0; k < table->nseats; k++)
			seat_clear(table, &table->seats[k]);
		game_destroy(game);
		free(table);
		return NULL;
	}
	table->round_seen = game->impl->round(game->state);
	result = game->impl->result(game->state);
	rounds = json_object_get(result, "rounds");
	table->tricks_seen = (int)json_array_size(json_object_get(
	    json_array_get(rounds, (size_t)table->round_seen), "tricks"));
	json_decref(result);
	channel->table = table;
	return table;
}

/* ------------------------------------------------------------------ */
/* Rebuilding a table from the store. */

struct reload {
	struct channel *channel;
	struct table *table;
	int found;
};

static int
reload_game(const struct store_game *stored, void *arg)
{
	struct reload *r = arg;
	char err[256];

	if (stored->finished != 0 || r->found ||
	    strcmp(stored->network, r->channel->network->adapter.network) != 0)
		return 0;
	r->found = 1;
	if ((r->table = table_restore(r->channel, stored, err,
	    sizeof(err))) == NULL)
		log_error("%s %s: game %lld cannot be read back: %s",
		    stored->network, stored->channel, (long long)stored->id,
		    err);
	return 0;
}

static int
reload_lobby(const char *network, const char *channel, const char *lobby,
    void *arg)
{
	struct reload *r = arg;
	char err[256];

	if (r->found || strcmp(network, r->channel->network->adapter.network)
	    != 0 || strcmp(channel, r->channel->name) != 0)
		return 1;
	r->found = 1;
	if ((r->table = table_lobby_load(r->channel, lobby, err,
	    sizeof(err))) == NULL)
		log_error("%s %s: the stored lobby cannot be read back: %s",
		    network, channel, err);
	return 0;
}

static void
retry_run(struct table *table)
{
	table->retry_timer = 0;
	if (table->game != NULL && table_deal_pending(table) != 0) {
		table_retry(table);
		return;
	}
	if (table->game != NULL)
		table_next(table);
}

static void
retry_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, retry_run);
}

void
table_retry(struct table *table)
{
	struct bot *bot = table_bot(table);
	int failures = table->channel->store_failures;
	uint64_t delay = (uint64_t)bot->computer_delay_ms << (failures < 6 ?
	    failures : 6);

	if (delay > 60000)
		delay = 60000;
	loop_cancel(bot->loop, table->retry_timer);
	table_timer_cancel(table);
	table->retry_timer = loop_timer(bot->loop, delay, retry_cb, table);
}

void
table_reload(struct channel *channel)
{
	struct bot *bot = channel->network->bot;
	struct reload r = { channel, NULL, 0 };
	struct table *old = channel->table;
	struct text t;

	/* Detached first: destroying it must not part the channel. */
	channel->table = NULL;
	table_destroy(old);
	if (store_each_game(bot->store, channel->name, 0, 1, reload_game,
	    &r) < 0 || (!r.found && store_each_lobby(bot->store, reload_lobby,
	    &r) < 0))
		log_error("%s %s: the store cannot be read; the table is "
		    "gone until a restart", channel->network->adapter.network,
		    channel->name);
	/* Told once until something is stored again. */
	if (channel->store_failures++ == 0) {
		text_init(&t);
		SAY0(&t, channel->settings.lang, MSG_NOT_SAVED);
		channel_send(channel, &t);
		text_finish(&t);
	}
	if (r.table == NULL)
		return;
	if (r.table->game == NULL)
		table_idle_arm(r.table);
	else
		table_retry(r.table);
}

/* ------------------------------------------------------------------ */
/*
 * Seats and settings changing hands.  These are the only functions, with
 * the game flow above, that write a table: other files ask for a change
 * and get the words that announce it.
 */

/* A copy of a person's id and shown name into a seat; -1 out of memory. */
static int
seat_fill(struct seat *seat, const char *user_id, const char *name)
{
	char *id = strdup(user_id), *shown = text_sanitize(name);

	if (id == NULL || shown == NULL) {
		free(id);
		free(shown);
		return -1;
	}
	free(seat->user_id);
	free(seat->name);
	seat->user_id = id;
	seat->name = shown;
	return 0;
}

int
table_join(struct table *table, const struct user *user, struct text *out)
{
	enum lang lang = table_lang(table);
	struct seat *seat;
	struct text title;

	if (table->nseats >= table->impl->max_seats) {
		SAY(out, lang, MSG_TABLE_FULL, "d", table->impl->max_seats);
		return -1;
	}
	seat = &table->seats[table->nseats];
	memset(seat, 0, sizeof(*seat));
	if (seat_fill(seat, user->id, user->name) != 0)
		return -1;
	table->nseats++;
	user_sat(table->channel, seat->user_id);
	text_init(&title);
	game_title(&title, lang, table->impl);
	SAY(out, lang, table_addressed(table, table->nseats - 1) ?
	    MSG_YOU_JOIN : MSG_JOINED, "brdddc", seat->name, text_str(&title),
	    table->nseats, table->impl->min_seats, table->impl->max_seats,
	    table_prefix(table));
	text_finish(&title);
	return 0;
}

int
table_add_computer(struct table *table, int level, struct text *out)
{
	enum lang lang = table_lang(table);
	struct seat *seat;
	char name[32];
	int n = 1;

	if (table->nseats >= table->impl->max_seats) {
		SAY(out, lang, MSG_TABLE_FULL, "d", table->impl->max_seats);
		return -1;
	}
	do
		snprintf(name, sizeof(name), "CPU%d", n++);
	while (table_seat_by_name(table, name) >= 0);
	seat = &table->seats[table->nseats];
	memset(seat, 0, sizeof(*seat));
	if (seat_fill(seat, "", name) != 0)
		return -1;
	seat->computer = 1;
	seat->level = level;
	table->nseats++;
	SAY(out, lang, MSG_BOT_ADDED, "bsddd", name,
	    ai_level_name((enum ai_level)level), table->nseats,
	    table->impl->min_seats, table->impl->max_seats);
	return 0;
}

int
table_set_game(struct table *table, const struct game_impl *impl,
    struct text *out)
{
	enum lang lang = table_lang(table);
	struct text title;

	if (table->impl != impl) {
		if (table->nseats > impl->max_seats) {
			SAY(out, lang, MSG_TABLE_FULL, "d", impl->max_seats);
			return -1;
		}
		table->impl = impl;
		memset(&table->options, 0, sizeof(table->options));
	}
	text_init(&title);
	game_title(&title, lang, impl);
	SAY(out, lang, MSG_GAME_SET, "rddc", text_str(&title),
	    impl->min_seats, impl->max_seats, table_prefix(table));
	text_finish(&title);
	return 0;
}

void
table_set_options(struct table *table, const struct game_options *options)
{
	table->options = *options;
}

int
table_take_over(struct table *table, int seat, const struct user *user,
    struct text *out)
{
	struct seat *s = &table->seats[seat];
	char *before = strdup(s->name);

	if (before == NULL || seat_fill(s, user->id, user->name) != 0) {
		free(before);
		return -1;
	}
	SAY(out, table_lang(table), MSG_REPLACED, "bb", s->name, before);
	free(before);
	user_sat(table->channel, s->user_id);
	s->computer = s->standin = 0;
	s->missed = 0;
	table_seat_changed(table, seat);
	table_send_hand(table, seat, 0);
	table_next(table);
	return 0;
}

int
table_back(struct table *table, int seat, struct text *out)
{
	struct seat *s = &table->seats[seat];

	if (s->grace_until != 0)
		table_grace(table, seat, -1);
	if (!s->standin) {
		if (out != NULL)
			SAY0(out, table_lang(table), MSG_NOT_AWAY);
		return -1;
	}
	s->standin = 0;
	s->missed = 0;
	table_seat_changed(table, seat);
	/* Acting again is the clearest way of saying `back`: quietly. */
	if (out == NULL)
		return 0;
	SAY(out, table_lang(table), MSG_BACK, "b", s->name);
	table_send_hand(table, seat, 0);
	table_next(table);
	return 0;
}

int
table_leave(struct table *table, int seat, struct text *out)
{
	if (table->game == NULL) {
		if (table_lobby_remove(table, seat, out) == 0)
			table_lobby_save(table);
		return 0;
	}
	if (table->seats[seat].standin) {
		SAY0(out, table_lang(table), MSG_NOTHING_TO_DO);
		return -1;
	}
	table_stand_in(table, seat, MSG_STANDIN_LEFT);
	table_next(table);
	return 0;
}

void
table_left_channel(struct table *table, int seat, int grace)
{
	struct channel *channel = table->channel;
	struct text t;

	if (table->game == NULL) {
		/*
		 * Someone who left cannot play: free their lobby seat.  The
		 * table may close with it, so the channel is kept first.
		 */
		text_init(&t);
		if (table_lobby_remove(table, seat, &t) == 0)
			table_lobby_save(table);
		channel_send(channel, &t);
		text_finish(&t);
		return;
	}
	if (table->seats[seat].standin || table->seats[seat].grace_until != 0)
		return;
	table_grace(table, seat, grace);
}

int
table_vote_stop(struct table *table, int seat, struct text *out)
{
	int votes = 0, humans = 0;

	table->seats[seat].stop_vote = 1;
	for (int i = 0; i < table->nseats; i++) {
		if (table->seats[i].computer || table->seats[i].standin)
			continue;
		humans++;
		votes += table->seats[i].stop_vote;
	}
	if (votes * 2 > humans)
		return 1;
	/* A lobby too is everyone's who sits at it: closing it is a vote. */
	SAY(out, table_lang(table), table->game == NULL ? MSG_CLOSE_VOTE :
	    table_addressed(table, seat) ? MSG_YOU_VOTE_STOP : MSG_STOP_VOTE,
	    "bddc", table->seats[seat].name, votes, humans / 2 + 1,
	    table_prefix(table));
	return 0;
}

void
table_rename(struct table *table, int seat, const struct user *now)
{
	if (seat_fill(&table->seats[seat], now->id, now->name) != 0)
		return;
	user_sat(table->channel, table->seats[seat].user_id);
	table_seat_changed(table, seat);
}

struct table *
table_restart(struct table *table, struct text *out)
{
	struct channel *channel = table->channel;
	struct seat seats[GAME_MAX_SEATS];
	struct game_options options = table->options;
	const struct game_impl *impl = table->impl;
	int n = table->nseats;

	/* The same people, game and options, dealt afresh. */
	for (int i = 0; i < n; i++) {
		seats[i] = table->seats[i];
		seats[i].user_id = strdup(table->seats[i].user_id);
		seats[i].name = strdup(table->seats[i].name);
		seats[i].grace_until = 0;
		seats[i].stop_vote = 0;
		seats[i].missed = 0;
	}
	table_close(table, 1);
	if ((table = table_create(channel, impl)) == NULL) {
		for (int i = 0; i < n; i++)
			seat_clear(NULL, &seats[i]);
		return NULL;
	}
	table->options = options;
	for (int i = 0; i < n; i++)
		table->seats[i] = seats[i];
	table->nseats = n;
	SAY0(out, table_lang(table), MSG_RESTARTED);
	text_add(out, "\n");
	table_start(table, out);
	return table;
}

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

/* ------------------------------------------------------------------ */
/* Reading a table (table.h). */

const struct game_impl *
table_impl(const struct table *table)
{
	return table->impl;
}

const struct game *
table_game(const struct table *table)
{
	return table->game;
}

int64_t
table_game_id(const struct table *table)
{
	return table->game != NULL ? table->game_id : 0;
}

const struct game_options *
table_options(const struct table *table)
{
	return &table->options;
}

int
table_nseats(const struct table *table)
{
	return table->nseats;
}

const struct seat *
table_seat(const struct table *table, int seat)
{
	return &table->seats[seat];
}

struct channel *
table_channel(const struct table *table)
{
	return table->channel;
}

int
table_unresumed(const struct table *table)
{
	return table->unresumed;
}

/*
 * fuzz_record.c - libFuzzer target: arbitrary bytes read as a JSON game
 * record (RECORD.md), replayed as it is and once more as each other game.
 *
 * Checks what must hold for any record, legal or not:
 *   - replay_record() answers 0, 1 or 2 with an object that can be printed;
 *     status 2 exactly when game_from_record() refuses the header or deals;
 *   - the record's actions fed one by one to game_apply() (skipping refused
 *     ones) fail first where replay said, change nothing when refused, are
 *     all among the legal actions of a seat that may act, and end in a
 *     state whose exported record replays to the same result;
 *   - deals and actions survive a trip through their JSON form;
 *   - every legal action is accepted, views and results can be printed,
 *     and the easy and normal computer players choose accepted actions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "ai.h"
#include "fuzz_check.h"
#include "record.h"

/* The state and scratch space of one run, allocated once per input. */
struct run {
	const struct game_impl *impl;
	void *copy;              /* impl->state_size bytes of scratch */
	struct action legal[GAME_MAX_ACTIONS];
};

/* Whether obj can be printed as JSON (valid UTF-8 everywhere). */
static void
check_printable(const json_t *obj)
{
	char *s;

	CHECK(obj != NULL);
	s = json_dumps(obj, JSON_COMPACT);
	CHECK(s != NULL);
	free(s);
}

/* Sorts the cards of a play, so plays compare as multisets. */
static void
normalize(struct action *a)
{
	for (int i = 1; i < a->ncards && i < GAME_MAX_PLAY; i++)
		for (int j = i; j > 0 && a->cards[j - 1] > a->cards[j]; j--) {
			uint8_t c = a->cards[j];

			a->cards[j] = a->cards[j - 1];
			a->cards[j - 1] = c;
		}
}

/* Whether a is among the legal actions of its seat in state. */
static int
is_listed(struct run *run, const void *state, const struct action *a)
{
	struct action want = *a, got;
	int n = run->impl->legal(state, a->seat, run->legal, GAME_MAX_ACTIONS);

	CHECK(n >= 0 && n <= GAME_MAX_ACTIONS);
	normalize(&want);
	for (int i = 0; i < n; i++) {
		got = run->legal[i];
		normalize(&got);
		if (action_equal(&want, &got))
			return 1;
	}
	return 0;
}

/* Whether seat is among the seats that may act in state. */
static int
may_act(const struct game_impl *impl, const void *state, int seat)
{
	int seats[GAME_MAX_SEATS];
	int n = impl->to_act(state, seats);

	CHECK(n >= 0 && n <= GAME_MAX_SEATS);
	for (int i = 0; i < n; i++)
		if (seats[i] == seat)
			return 1;
	return 0;
}

/*
 * Every seat that may act has a legal action, every legal action is
 * accepted, and the computer players choose accepted actions.
 */
static void
check_state(struct run *run, const struct game *game)
{
	const struct game_impl *impl = run->impl;
	int seats[GAME_MAX_SEATS];
	int nseats = impl->to_act(game->state, seats);
	enum game_phase phase = impl->phase(game->state);
	char err[GAME_ERR_LEN];

	CHECK(nseats >= 0 && nseats <= GAME_MAX_SEATS);
	if (phase == PHASE_OVER || phase == PHASE_DEAL)
		CHECK(nseats == 0);
	for (int i = 0; i < nseats; i++) {
		int n = impl->legal(game->state, seats[i], run->legal,
		    GAME_MAX_ACTIONS);

		CHECK(seats[i] >= 0 && seats[i] < game->setup.nseats);
		CHECK(n > 0 && n <= GAME_MAX_ACTIONS);
		for (int k = 0; k < n; k++) {
			memcpy(run->copy, game->state, impl->state_size);
			CHECK(run->legal[k].seat == seats[i]);
			CHECK(impl->apply(run->copy, &run->legal[k], err,
			    sizeof(err)) == 0);
		}
		for (int level = AI_EASY; level <= AI_NORMAL; level++) {
			struct ai_params params = {
				(enum ai_level)level, 1, 0,
			};
			struct action choice;

			CHECK(ai_decide(impl, game->state, seats[i], &params,
			    &choice) == 0);
			memcpy(run->copy, game->state, impl->state_size);
			CHECK(impl->apply(run->copy, &choice, err,
			    sizeof(err)) == 0);
		}
	}
	for (int seat = -1; seat < game->setup.nseats; seat++) {
		json_t *view = impl->view(game->state, seat);

		check_printable(view);
		json_decref(view);
	}
}

/* The deals of game survive deal_to_json() and deal_from_json(). */
static void
check_deals(const struct game *game)
{
	char err[GAME_ERR_LEN];

	for (int i = 0; i < game->ndeals; i++) {
		json_t *obj = deal_to_json(game->impl, game->setup.nseats,
		    &game->deals[i]);
		struct deal back;

		CHECK(obj != NULL);
		CHECK(deal_from_json(game->impl, game->setup.nseats, obj,
		    &back, err, sizeof(err)) == 0);
		CHECK(memcmp(&back, &game->deals[i], sizeof(back)) == 0);
		json_decref(obj);
	}
}

/* An action read from a record survives action_to_json() and back. */
static void
check_action_json(const struct game_impl *impl, const struct action *a)
{
	char err[GAME_ERR_LEN];
	struct action back;
	json_t *obj = action_to_json(impl, a);

	check_printable(obj);
	CHECK(action_from_json(impl, obj, &back, err, sizeof(err)) == 0);
	CHECK(action_equal(a, &back));
	json_decref(obj);
}

/*
 * Feeds the record's actions to game_apply(); returns the index of the
 * first one not accepted, or -1 when all were.
 */
static long
apply_actions(struct run *run, struct game *game, const json_t *actions)
{
	const struct game_impl *impl = run->impl;
	char err[GAME_ERR_LEN];
	long first_fail = -1;

	for (size_t i = 0; i < json_array_size(actions); i++) {
		struct action a;
		int nactions = game->nactions;
		int listed, acting;

		if (action_from_json(impl, json_array_get(actions, i), &a, err,
		    sizeof(err)) != 0) {
			if (first_fail < 0)
				first_fail = (long)i;
			continue;
		}
		check_action_json(impl, &a);
		listed = is_listed(run, game->state, &a);
		acting = may_act(impl, game->state, a.seat);
		memcpy(run->copy, game->state, impl->state_size);
		if (game_apply(game, &a, err, sizeof(err)) != 0) {
			/* A refused action changes nothing. */
			CHECK(memcmp(run->copy, game->state,
			    impl->state_size) == 0);
			CHECK(game->nactions == nactions);
			CHECK(!listed);
			if (first_fail < 0)
				first_fail = (long)i;
			continue;
		}
		CHECK(game->nactions == nactions + 1);
		CHECK(listed && acting);
	}
	return first_fail;
}

static void
run_record(struct run *run, const json_t *record)
{
	char err[GAME_ERR_LEN];
	json_t *out = NULL, *out2 = NULL, *result, *exported;
	const json_t *actions;
	struct game *game;
	int status, status2, stuck;
	long first_fail = -1;

	status = replay_record(record, &out);
	CHECK(status >= 0 && status <= 2);
	check_printable(out);
	CHECK(json_is_object(out));
	if (status != 0) {
		CHECK(json_is_string(json_object_get(out, "error")));
		CHECK(status == 1 ?
		    json_is_integer(json_object_get(out, "action")) :
		    json_is_null(json_object_get(out, "action")));
	}

	game = game_from_record(record, err, sizeof(err));
	if (game == NULL) {
		CHECK(status == 2);
		json_decref(out);
		return;
	}
	run->impl = game->impl;
	run->copy = malloc(game->impl->state_size);
	CHECK(run->copy != NULL);
	check_deals(game);

	actions = json_object_get(record, "actions");
	if (game_advance(game, err, sizeof(err)) == 0 &&
	    json_is_array(actions))
		first_fail = apply_actions(run, game, actions);
	/* A deal that fails the late checks leaves the game waiting. */
	stuck = game_advance(game, err, sizeof(err)) != 0;

	if (status == 1)
		CHECK(json_integer_value(json_object_get(out, "action")) ==
		    first_fail);
	result = game->impl->result(game->state);
	check_printable(result);
	if (status == 0) {
		CHECK(first_fail < 0 && !stuck);
		CHECK(json_equal(out, result));
	}

	/* The exported record replays to the state the game is in. */
	exported = game_to_record(game);
	check_printable(exported);
	status2 = replay_record(exported, &out2);
	check_printable(out2);
	if (stuck) {
		CHECK(status2 == 2);
	} else {
		CHECK(status2 == 0);
		CHECK(json_equal(out2, result));
	}

	if (!stuck)
		check_state(run, game);
	json_decref(exported);
	json_decref(out2);
	json_decref(result);
	json_decref(out);
	free(run->copy);
	run->copy = NULL;
	game_destroy(game);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run run;
	json_error_t error;
	json_t *record;
	const char *name;

	record = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
	    &error);
	if (record == NULL)
		return 0;
	run_record(&run, record);
	/* The same record read as each other game. */
	name = json_string_value(json_object_get(record, "game"));
	if (json_is_object(record) && name != NULL) {
		for (size_t i = 0; game_registry[i] != NULL; i++) {
			json_t *other;

			if (strcasecmp(game_registry[i]->name, name) == 0)
				continue;
			other = json_copy(record);
			CHECK(other != NULL);
			json_object_set_new(other, "game",
			    json_string(game_registry[i]->name));
			run_record(&run, other);
			json_decref(other);
		}
	}
	json_decref(record);
	return 0;
}

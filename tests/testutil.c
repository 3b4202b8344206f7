/*
 * testutil.c - see testutil.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testutil.h"

json_t *
test_json(const char *text)
{
	json_error_t error;
	json_t *obj = json_loads(text, 0, &error);

	if (obj == NULL)
		fail_msg("bad test JSON (%d:%d): %s", error.line, error.column,
		    error.text);
	return obj;
}

int
test_replay(const char *record_text, json_t **output)
{
	json_t *record = test_json(record_text);
	int status = replay_record(record, output);

	json_decref(record);
	return status;
}

struct game *
test_game(const char *record_text)
{
	char err[GAME_ERR_LEN];
	json_t *record = test_json(record_text);
	json_t *actions = json_object_get(record, "actions");
	struct game *game = game_from_record(record, err, sizeof(err));

	if (game == NULL)
		fail_msg("record refused: %s", err);
	if (game_advance(game, err, sizeof(err)) != 0)
		fail_msg("deal refused: %s", err);
	for (size_t i = 0; i < json_array_size(actions); i++) {
		struct action action;

		if (action_from_json(game->impl, json_array_get(actions, i),
		    &action, err, sizeof(err)) != 0 ||
		    game_apply(game, &action, err, sizeof(err)) != 0)
			fail_msg("action %zu refused: %s", i, err);
	}
	json_decref(record);
	return game;
}

int
test_apply(struct game *game, const char *action_text)
{
	char err[GAME_ERR_LEN];
	json_t *obj = test_json(action_text);
	struct action action;
	int rc;

	rc = action_from_json(game->impl, obj, &action, err, sizeof(err));
	if (rc == 0)
		rc = game_apply(game, &action, err, sizeof(err));
	json_decref(obj);
	return rc;
}

struct game *
test_random_game(const struct game_impl *impl, const struct game_setup *setup,
    struct rng *rng, int max_actions)
{
	char err[GAME_ERR_LEN];
	struct game *game = game_create(impl, setup, NULL, err, sizeof(err));
	struct action legal[GAME_MAX_ACTIONS];
	int seats[GAME_MAX_SEATS];

	if (game == NULL)
		fail_msg("setup refused: %s", err);
	for (int n = 0; max_actions < 0 || n < max_actions; n++) {
		enum game_phase phase = impl->phase(game->state);
		int nseats, seat, count;

		if (phase == PHASE_OVER)
			break;
		if (phase == PHASE_DEAL) {
			struct deal deal;

			impl->make_deal(game->state, rng, &deal);
			if (game_add_deal(game, &deal, err, sizeof(err)) != 0 ||
			    game_advance(game, err, sizeof(err)) != 0)
				fail_msg("own deal refused: %s", err);
			n--;
			continue;
		}
		nseats = impl->to_act(game->state, seats);
		assert_true(nseats > 0);
		seat = seats[rng_below(rng, (uint32_t)nseats)];
		count = impl->legal(game->state, seat, legal, GAME_MAX_ACTIONS);
		assert_true(count > 0);
		if (game_apply(game, &legal[rng_below(rng, (uint32_t)count)],
		    err, sizeof(err)) != 0)
			fail_msg("legal action refused: %s", err);
	}
	return game;
}

/* Reads a golden example file; fails the test when it is missing. */
static json_t *
load_example(const char *name)
{
	const char *dir = getenv("STICHBOT_EXAMPLES");
	char path[1024];
	json_error_t error;
	json_t *obj;

	if (dir == NULL)
		fail_msg("STICHBOT_EXAMPLES is not set (meson test sets it)");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	obj = json_load_file(path, 0, &error);
	if (obj == NULL)
		fail_msg("%s: %s", path, error.text);
	return obj;
}

void
test_check_example(const char *name)
{
	char file[128];
	json_t *record, *expected, *out;
	int status;

	snprintf(file, sizeof(file), "%s.record.json", name);
	record = load_example(file);
	snprintf(file, sizeof(file), "%s.expected.json", name);
	expected = load_example(file);
	status = replay_record(record, &out);
	assert_int_equal(status, json_integer_value(json_object_get(expected,
	    "exit")));
	if (status == 0)
		assert_true(json_equal(out, json_object_get(expected,
		    "output")));
	else
		assert_true(json_equal(json_object_get(out, "action"),
		    json_object_get(json_object_get(expected, "output"),
		    "action")));
	json_decref(out);
	json_decref(record);
	json_decref(expected);
}

void
test_check_replays_to(const struct game *game, const json_t *result)
{
	json_t *record = game_to_record(game), *replayed;

	assert_int_equal(replay_record(record, &replayed), 0);
	assert_true(json_equal(result, replayed));
	json_decref(replayed);
	json_decref(record);
}

json_int_t
test_int_at(const json_t *array, size_t index)
{
	const json_t *v = json_array_get(array, index);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

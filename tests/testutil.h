/*
 * testutil.h - helpers shared by the engine tests: build a game from a
 * record written inline as JSON, apply actions written as JSON, and play
 * seeded random legal games.
 */
#ifndef STICHBOT_TESTUTIL_H
#define STICHBOT_TESTUTIL_H

#include <stdint.h>

#include <jansson.h>

#include "game.h"
#include "record.h"
#include "rng.h"

/* Parses JSON text or fails the test. Returns a new reference. */
json_t *test_json(const char *text);
/* Replays a record given as JSON text; returns the exit status (0/1/2). */
int test_replay(const char *record_text, json_t **output);
/* A game from a record given as JSON text, with its actions applied. */
struct game *test_game(const char *record_text);
/* Applies one action given as JSON text; returns 0 or -1. */
int test_apply(struct game *game, const char *action_text);

/*
 * Plays one game with uniformly random legal actions, dealing with rng, and
 * returns it (the record holds every deal and action).  When max_actions is
 * >= 0, stops after that many actions.
 */
struct game *test_random_game(const struct game_impl *impl,
    const struct game_setup *setup, struct rng *rng, int max_actions);

/*
 * Replays the golden example NAME.record.json from $STICHBOT_EXAMPLES
 * (meson points it at tests/golden) and checks it against
 * NAME.expected.json: the exit status, and the output, or for an error the
 * index of the offending action.
 */
void test_check_example(const char *name);

/* Checks that game's record replays (status 0) to exactly result. */
void test_check_replays_to(const struct game *game, const json_t *result);

/* Integer of a JSON array element, for short assertions. */
json_int_t test_int_at(const json_t *array, size_t index);

#endif

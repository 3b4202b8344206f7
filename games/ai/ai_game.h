/*
 * ai_game.h - computer players with a memory: deciding for a seat of a game
 * whose record is at hand.
 *
 * The engine state holds the cards still in the hands, not the ones played
 * earlier in the round, although every seat saw them fall.  With the
 * record's actions a player knows them too and samples the unseen cards
 * better; ai_decide() without them stays honest but plays blinder.  Only
 * the public plays of the round are read from the record.
 */
#ifndef STICHBOT_AI_GAME_H
#define STICHBOT_AI_GAME_H

#include <stdint.h>

#include "ai.h"
#include "game.h"
#include "record.h"

/* Search limits beyond struct ai_params, for tests, benchmarks and tools. */
struct ai_limits {
	/*
	 * Hard: sample exactly this many worlds and never look at the clock,
	 * so that the choice depends on the seed alone; 0: plan the worlds
	 * from the budget, with the clock as the final guard.
	 */
	long worlds;
	/* CLOCK_MONOTONIC nanoseconds when the budget began; 0: on entry. */
	int64_t started;
	/*
	 * Tests, in builds with asserts: check every shortcut a player takes
	 * against the engine (BirdHead's rollouts on a round of their own),
	 * at the cost of both.  Without it a build with asserts plays as
	 * strongly as a release build.
	 */
	int check;
};

/* ai_decide() for seat of game, remembering the round's public plays. */
int ai_decide_game(const struct game *game, int seat,
    const struct ai_params *params, struct action *out);

/*
 * The general form: actions are the record's actions that led to state
 * (NULL when unknown), limits may be NULL.
 */
int ai_decide_ex(const struct game_impl *impl, const void *state,
    const struct action *actions, int nactions, int seat,
    const struct ai_params *params, const struct ai_limits *limits,
    struct action *out);

/* The current time on CLOCK_MONOTONIC in nanoseconds. */
int64_t ai_now_ns(void);

#endif

/*
 * ai.h - computer players for every game.
 *
 * A computer player decides from what its seat may know and nothing else:
 * ai_decide() takes the full engine state only to build the seat's view
 * (its own hand, or under clairvoyance the others' cards; the turned card;
 * public actions; bids once revealed) and never looks at the rest.  The
 * same state with other hands, the stock, or unrevealed bids and selections
 * shuffled gives the same choice for the same seed (for hard: and the same
 * count of worlds, see struct ai_params).
 */
#ifndef STICHBOT_AI_H
#define STICHBOT_AI_H

#include <stdint.h>

#include "game.h"

enum ai_level {
	AI_EASY,     /* a simple rule-follower: legal, plausible, beatable */
	AI_NORMAL,   /* good heuristics */
	AI_HARD,     /* search within a time budget */
	/*
	 * The first hard search, kept to measure the current one against
	 * (`stichbot arena --seats hard,hard-v1,...`): it plans its worlds
	 * from a fixed cost model, which leaves most of the budget unused,
	 * and samples hidden hands without regard to the public bids.  Not a
	 * level players can pick: ai_level_parse() does not know its name.
	 */
	AI_HARD_V1,
};

struct ai_params {
	enum ai_level level;
	/*
	 * The same seed gives the same choice, except hard's within a time
	 * budget: it samples worlds until most of the budget has passed, so
	 * how many it sees follows the clock (a fixed count of worlds,
	 * struct ai_limits, makes it depend on the seed alone again).
	 */
	uint64_t seed;
	int budget_ms;           /* thinking time cap; <= 0: the level's default */
};

/*
 * Chooses an action for seat, which must be one of the seats to act in
 * state (impl->to_act).  Returns 0 with a legal action in out, or -1 when
 * the seat has nothing to do.
 */
int ai_decide(const struct game_impl *impl, const void *state, int seat,
    const struct ai_params *params, struct action *out);

/*
 * "easy", "normal", "hard" (and "hard-v1" for AI_HARD_V1); parse returns
 * -1 for an unknown name and knows only the first three.
 */
const char *ai_level_name(enum ai_level level);
int ai_level_parse(const char *name);

#endif

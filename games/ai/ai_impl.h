/*
 * ai_impl.h - what the computer players of the three games share: the
 * decision context (level, random stream, clock), the flat Monte Carlo
 * search the hard level runs, and the entry point of each game's player.
 *
 * Each game's player starts by building its seat's view, a redacted copy of
 * the engine state, and decides from that copy alone; the full state never
 * reaches the functions that choose.
 */
#ifndef STICHBOT_AI_IMPL_H
#define STICHBOT_AI_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ai.h"
#include "game.h"
#include "rng.h"

/* The default thinking time of the hard level. */
#define AI_DEFAULT_BUDGET_MS 100

/* e^-k for k = 0..32, the integer steps of ai_exp_neg(). */
static const double ai_exp_steps[33] = {
	1, 0.36787944117144233, 0.1353352832366127,
	0.049787068367863944, 0.018315638888734179, 0.006737946999085467,
	0.0024787521766663585, 0.00091188196555451624, 0.00033546262790251185,
	0.00012340980408667956, 4.5399929762484854e-05, 1.6701700790245659e-05,
	6.1442123533282098e-06, 2.2603294069810542e-06, 8.3152871910356788e-07,
	3.0590232050182579e-07, 1.1253517471925912e-07, 4.1399377187851668e-08,
	1.5229979744712629e-08, 5.6027964375372678e-09, 2.0611536224385579e-09,
	7.5825604279119066e-10, 2.7894680928689246e-10, 1.026187963170189e-10,
	3.7751345442790977e-11, 1.3887943864964021e-11, 5.1090890280633251e-12,
	1.8795288165390832e-12, 6.914400106940203e-13, 2.5436656473769228e-13,
	9.3576229688401748e-14, 3.4424771084699768e-14, 1.2664165549094176e-14,
};

/*
 * e^-x for x >= 0, to about 1e-5, without libm: the integer part from the
 * table, the fraction from its Taylor series.  The players turn expected
 * counts of cards into chances with it many times per simulated play.
 */
static inline double
ai_exp_neg(double x)
{
	double f, term, sum;
	int k;

	if (!(x > 0))
		return 1;
	if (x >= 32)
		return 0;
	k = (int)x;
	f = x - k;
	term = 1;
	sum = 1;
	for (int i = 1; i <= 8; i++) {
		term *= -f / i;
		sum += term;
	}
	return ai_exp_steps[k] * sum;
}

/* Everything a decision needs besides the seat's view. */
struct ai_ctx {
	enum ai_level level;
	struct rng rng;
	/* CLOCK_MONOTONIC nanoseconds when the search must stop; 0: never. */
	int64_t deadline;
	/*
	 * The worlds the hard level samples: a fixed number when the caller
	 * asked for one (the result then depends on the seed only), else 0
	 * and the count is planned from work.
	 */
	long worlds;
	/* Work units (see ai.c) the budget is planned to afford. */
	double work;
	/*
	 * Hard's first version (AI_HARD_V1, run as AI_HARD by the games'
	 * players): worlds planned from work, hidden hands sampled without
	 * weighing them by the public bids, and in Wizard the bids searched
	 * too.  Otherwise the search runs until the deadline.
	 */
	int hard_v1;
	/* struct ai_limits' check. */
	int check;
};

/*
 * A flat Monte Carlo search.  Every world is sampled once from the seat's
 * view and then scored for every candidate, so the candidates are compared
 * on the same deals (common random numbers), which is what lets a few
 * hundred worlds separate them.
 */
struct ai_search {
	int ncand;
	/* Bytes of one world; the search provides the room. */
	size_t world_size;
	/* Work units one world costs over all candidates (see ai.c). */
	double cost;
	/*
	 * Fills world from the game's search context arg (the seat's view
	 * and the candidates); returns the world's weight, 0 to reject it.
	 */
	double (*sample)(const void *arg, struct rng *rng, void *world);
	/* The utility for the seat of candidate cand in world. */
	double (*score)(const void *arg, const void *world, int cand);
};

/*
 * Runs search and returns the index of the candidate with the best mean
 * utility, or -1 when not a single world fit into the time (the caller
 * then keeps its heuristic choice).
 */
int ai_search_run(struct ai_ctx *ctx, const struct ai_search *search,
    const void *arg);

/*
 * The plays of the current round as far as the record shows them: the
 * last count actions of actions, when they are all plays.  Returns the
 * first of them, or NULL when the record does not hold them (no record,
 * or actions of another kind among them).
 */
const struct action *ai_round_plays(const struct action *actions,
    int nactions, int count);

/*
 * The players of each game.  state is the full engine state, seat one of
 * the seats to act, and actions the record's actions so far (NULL when
 * unknown); each builds the seat's view first and decides from it alone.
 * Returns 0 with out set, or -1.
 */
int wizard_ai_decide(const void *state, int seat,
    const struct action *actions, int nactions, struct ai_ctx *ctx,
    struct action *out);
int birdhead_ai_decide(const void *state, int seat,
    const struct action *actions, int nactions, struct ai_ctx *ctx,
    struct action *out);
int sticheln_ai_decide(const void *state, int seat,
    const struct action *actions, int nactions, struct ai_ctx *ctx,
    struct action *out);

#endif

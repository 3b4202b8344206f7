/*
 * ai.c - the computer players' front door: level names, the checks every
 * decision goes through, the clock, and the flat Monte Carlo search that
 * the hard level of every game runs.
 *
 * A decision first asks the engine, on the full state, which actions the
 * seat may take: that list is the seat's own business (its hand, the lead
 * to follow, the bids allowed), and when it holds a single action there is
 * nothing to think about.  Otherwise the game's player builds the seat's
 * view, a redacted copy of the state, and decides from it alone.  The
 * choice is checked against the list before it leaves.
 */
#include <assert.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ai.h"
#include "ai_game.h"
#include "ai_impl.h"
#include "birdhead.h"
#include "game.h"
#include "rng.h"
#include "sticheln.h"
#include "wizard.h"

/*
 * Planning hard-v1's search (hard itself searches until AI_SPEND_SHARE of
 * the budget, below).  Each game's player states the cost of one
 * world in work units, a unit being about what one core of a current
 * x86-64 machine does in 50 ns (measured on the development machine: one
 * decision in ten runs below 20 000 units per millisecond, the slowest
 * at about 15 000, most well above).  The search plans for PLAN_SHARE of
 * the budget at 20 000 units per millisecond, so that the planned worlds,
 * and hence the choice for a given seed, are the same from run to run
 * even on a loaded machine; the clock only cuts the search short when
 * the machine is a few times slower than planned.
 */
#define AI_UNITS_PER_MS 20000.0
#define PLAN_SHARE 0.4
/*
 * Hard (not hard-v1) ignores the plan and samples worlds until this share
 * of the budget has passed since the decision began; the clock is read
 * before every rollout, and a rollout takes microseconds, so the decision
 * ends a little after it.  The rest of the budget absorbs the answer's
 * checks and a loaded machine.
 */
#define AI_SPEND_SHARE 0.8
/* Bounds on the planned number of worlds. */
#define AI_MIN_WORLDS 16
#define AI_MAX_WORLDS 200000
/* The share of the budget after which the search stops at the latest. */
#define AI_DEADLINE_SHARE 0.85
/* Room for one world of any game. */
#define AI_WORLD_MAX 4096

static const char *const level_names[] = {
	[AI_EASY] = "easy",
	[AI_NORMAL] = "normal",
	[AI_HARD] = "hard",
	[AI_HARD_V1] = "hard-v1",
};

const char *
ai_level_name(enum ai_level level)
{
	if ((int)level < 0 || level > AI_HARD_V1)
		return "?";
	return level_names[level];
}

int
ai_level_parse(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i <= AI_HARD; i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

int64_t
ai_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const struct action *
ai_round_plays(const struct action *actions, int nactions, int count)
{
	if (actions == NULL || count < 0 || count > nactions)
		return NULL;
	for (int i = nactions - count; i < nactions; i++)
		if (actions[i].kind != ACTION_PLAY)
			return NULL;
	return actions + (nactions - count);
}

int
ai_search_run(struct ai_ctx *ctx, const struct ai_search *search,
    const void *arg)
{
	_Alignas(16) unsigned char world[AI_WORLD_MAX];
	double sum[GAME_MAX_ACTIONS];
	double total = 0;
	long planned, done = 0;
	int best = -1;

	assert(search->world_size <= sizeof(world));
	assert(search->ncand > 0 && search->ncand <= GAME_MAX_ACTIONS);
	for (int k = 0; k < search->ncand; k++)
		sum[k] = 0;
	if (ctx->worlds > 0) {
		planned = ctx->worlds;
	} else if (!ctx->hard_v1 && ctx->deadline != 0) {
		/* Until the deadline; the bound only ends a search that has
		 * every world it could tell apart long before. */
		planned = AI_MAX_WORLDS;
	} else {
		double n = ctx->work / (search->cost > 1 ? search->cost : 1);

		planned = n < AI_MIN_WORLDS ? AI_MIN_WORLDS :
		    n > AI_MAX_WORLDS ? AI_MAX_WORLDS : (long)n;
	}
	for (long i = 0; i < planned; i++) {
		double weight, score[GAME_MAX_ACTIONS];
		int k;

		weight = search->sample(arg, &ctx->rng, world);
		if (weight <= 0)
			continue;
		/*
		 * A candidate's rollouts take microseconds: the clock is
		 * checked before each, and a world cut short is dropped.
		 */
		for (k = 0; k < search->ncand; k++) {
			if (ctx->deadline != 0 && ai_now_ns() >= ctx->deadline)
				break;
			score[k] = search->score(arg, world, k);
		}
		if (k < search->ncand)
			break;
		for (k = 0; k < search->ncand; k++)
			sum[k] += weight * score[k];
		total += weight;
		done++;
	}
	if (done == 0 || total <= 0)
		return -1;
	for (int k = 0; k < search->ncand; k++)
		if (best < 0 || sum[k] > sum[best])
			best = k;
	return best;
}

/* Whether seat is one of the seats to act in state. */
static int
may_act(const struct game_impl *impl, const void *state, int seat)
{
	int seats[GAME_MAX_SEATS];
	int n = impl->to_act(state, seats);

	for (int i = 0; i < n; i++)
		if (seats[i] == seat)
			return 1;
	return 0;
}

int
ai_decide_ex(const struct game_impl *impl, const void *state,
    const struct action *actions, int nactions, int seat,
    const struct ai_params *params, const struct ai_limits *limits,
    struct action *out)
{
	struct action legal[GAME_MAX_ACTIONS];
	struct ai_ctx ctx;
	int64_t started;
	int n, budget, rc, found = 0;

	if (seat < 0 || seat >= GAME_MAX_SEATS || !may_act(impl, state, seat))
		return -1;
	n = impl->legal(state, seat, legal, GAME_MAX_ACTIONS);
	if (n <= 0)
		return -1;
	/* A forced action needs no view (a clairvoyant seat's only card). */
	if (n == 1) {
		*out = legal[0];
		return 0;
	}
	started = limits != NULL && limits->started != 0 ? limits->started :
	    ai_now_ns();
	budget = params->budget_ms > 0 ? params->budget_ms :
	    AI_DEFAULT_BUDGET_MS;
	memset(&ctx, 0, sizeof(ctx));
	ctx.level = params->level;
	/* The games' players know one hard; the flag tells the versions. */
	if (ctx.level == AI_HARD_V1) {
		ctx.level = AI_HARD;
		ctx.hard_v1 = 1;
	}
	/* Each seat draws its own stream from the seed. */
	rng_seed(&ctx.rng, params->seed ^
	    (UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(seat + 1)));
	ctx.work = budget * AI_UNITS_PER_MS * PLAN_SHARE;
	ctx.check = limits != NULL && limits->check;
	if (limits != NULL && limits->worlds > 0) {
		ctx.worlds = limits->worlds;
	} else {
		ctx.deadline = started + (int64_t)(budget *
		    (ctx.hard_v1 ? AI_DEADLINE_SHARE : AI_SPEND_SHARE) * 1e6);
	}
	if (impl == &wizard_game)
		rc = wizard_ai_decide(state, seat, actions, nactions, &ctx,
		    out);
	else if (impl == &birdhead_game)
		rc = birdhead_ai_decide(state, seat, actions, nactions, &ctx,
		    out);
	else if (impl == &sticheln_game)
		rc = sticheln_ai_decide(state, seat, actions, nactions, &ctx,
		    out);
	else
		rc = -1;
	if (rc == 0)
		for (int i = 0; i < n && !found; i++)
			found = action_equal(out, &legal[i]);
	/*
	 * The players choose among the legal actions of the seat's view,
	 * which are those of the state; a miss is a bug in a player, and the
	 * game still goes on with a legal action.
	 */
	assert(rc != 0 || found);
	if (rc != 0 || !found)
		*out = legal[0];
	return 0;
}

int
ai_decide(const struct game_impl *impl, const void *state, int seat,
    const struct ai_params *params, struct action *out)
{
	return ai_decide_ex(impl, state, NULL, 0, seat, params, NULL, out);
}

int
ai_decide_game(const struct game *game, int seat,
    const struct ai_params *params, struct action *out)
{
	return ai_decide_ex(game->impl, game->state, game->actions,
	    game->nactions, seat, params, NULL, out);
}

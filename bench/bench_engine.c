/*
 * bench_engine.c - engine throughput: complete random games with legal
 * actions only (bids, trump choices and selections included), dealing
 * every round with the newest deal algorithm (GAME_DEAL_VERSION), on one
 * core.
 *
 * Up to four paths are measured per game, in one run:
 *   engine  through struct game_impl (to_act(), legal() then apply() with
 *           all its checks), as replay and the bot do;
 *   fast    the primitives the computer players simulate with: legal
 *           lists (Wizard: wizard_playable()) and the unchecked play step
 *           (wizard_play_id, birdhead_play, sticheln_play_face);
 *   mask    Wizard's card-mask path called directly, as its computer
 *           player does: legal moves as one mask, an apply that trusts a
 *           move from it, deals straight into the hands;
 *   moves   the same mask path through struct game_impl's function
 *           pointers, as a caller that knows no game would use it;
 *   checked the moves path with every move turned into the action a
 *           record or a player gives (move_action()) and applied as
 *           replay and the bot apply every action, game_apply_action():
 *           checked against the legal mask (action_move()), then the
 *           trusted move.
 * BirdHead and Sticheln have no mask path: a BirdHead play may hold three
 * cards, and Sticheln's larger decks have more than 64 cards.
 *
 * With --games N every path plays exactly N games instead of playing for
 * S seconds, so that instruction counts (valgrind --tool=callgrind) can be
 * compared, which unlike times do not move with the machine's load.
 * With --cpu, times are the process's CPU time instead of the wall
 * clock: on a machine shared with other work, a run that waits for the
 * processor then does not count the wait.
 *
 * Wizard's fast, mask, moves and checked paths pick a random legal move
 * (a count, then a select of the legal mask) with POPCNT and PDEP when the
 * processor has them (chosen when the program starts, bits.h), with the
 * portable count and select otherwise or with --portable.
 *
 * usage: bench_engine [GAME] [--seconds S] [--games N] [--seats N]
 *                     [--path P] [--cpu] [--portable]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "birdhead.h"
#include "bits.h"
#include "game.h"
#include "rng.h"
#include "sticheln.h"
#include "wizard.h"

/* Which clock times the runs (--cpu). */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The benchmark's uniform choice among n legal actions: a 64-bit linear
 * congruential step (Knuth's MMIX constants), whose top 32 bits are
 * scaled to [0, n) by Lemire's multiply-shift.  One word of state stays
 * in a register, and the bias, below n / 2^32, is far below anything a
 * benchmark measures.  Deals keep the games' own generator (struct rng),
 * as the bot deals.  Each game copies the word into a local and back, so
 * that its address never escapes to the engine's calls.
 */
static inline uint32_t
pick_below(uint64_t *x, uint32_t n)
{
	*x = *x * UINT64_C(6364136223846793005) +
	    UINT64_C(1442695040888963407);
	return (uint32_t)(((*x >> 32) * n) >> 32);
}

/* One random game through the generic interface; returns its plays. */
static long
random_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	struct action legal[GAME_MAX_ACTIONS];
	int seats[GAME_MAX_SEATS];
	struct deal deal;
	long plays = 0;
	uint64_t x = *pick;

	impl->init(state, setup);
	for (;;) {
		enum game_phase phase = impl->phase(state);
		int n, seat, count;

		if (phase == PHASE_OVER) {
			*pick = x;
			return plays;
		}
		if (phase == PHASE_DEAL) {
			game_make_deal(impl, state, GAME_DEAL_VERSION, rng,
			    &deal);
			if (impl->start_round(state, &deal, NULL, 0) != 0)
				abort();
			continue;
		}
		n = impl->to_act(state, seats);
		seat = seats[n == 1 ? 0 : pick_below(&x, (uint32_t)n)];
		count = impl->legal(state, seat, legal, GAME_MAX_ACTIONS);
		if (impl->apply(state, &legal[count == 1 ? 0 :
		    pick_below(&x, (uint32_t)count)], NULL, 0) != 0)
			abort();
		plays += phase == PHASE_PLAY;
	}
}

/*
 * A random legal move costs a count and a select of the move mask: the
 * paths below take them as arguments, so that each is compiled twice,
 * with the portable forms and, where the processor has them, with POPCNT
 * and PDEP (bits.h).  The engine's own steps are the same in both.
 */
typedef int (*count_fn)(uint64_t);
typedef int (*select_fn)(uint64_t, int);

/*
 * One random Wizard game on the fast path: bids through apply() (they are
 * few), plays straight on the bitmasks.
 */
static inline __attribute__((always_inline)) long
random_wizard_fast(const struct game_setup *setup, struct wizard_state *s,
    struct rng *rng, uint64_t *pick, count_fn count, select_fn select)
{
	struct deal deal;
	long plays = 0;
	uint64_t x = *pick;

	wizard_game.init(s, setup);
	for (;;) {
		struct action a;

		switch (s->r.phase) {
		case PHASE_OVER:
			*pick = x;
			return plays;
		case PHASE_DEAL:
			game_make_deal(&wizard_game, s, GAME_DEAL_VERSION,
			    rng, &deal);
			wizard_game.start_round(s, &deal, NULL, 0);
			break;
		case PHASE_TRUMP:
			a = (struct action){ .seat = (int8_t)s->r.dealer,
			    .kind = ACTION_TRUMP,
			    .value = (int8_t)pick_below(&x, 4) };
			wizard_game.apply(s, &a, NULL, 0);
			break;
		case PHASE_BID:
			a = (struct action){ .seat = (int8_t)s->r.turn,
			    .kind = ACTION_BID,
			    .value = (int8_t)pick_below(&x, s->r.cards + 1u) };
			/* A forbidden dealer bid: take the next one up or 0. */
			if (wizard_game.apply(s, &a, NULL, 0) != 0) {
				a.value = (int8_t)(a.value == 0 ? 1 : 0);
				wizard_game.apply(s, &a, NULL, 0);
			}
			break;
		default: {
			int seat = s->r.turn;
			uint64_t ids = wizard_playable(s, seat);
			int k = (int)pick_below(&x, (uint32_t)count(ids));

			/* The k-th card id that may be played. */
			wizard_play_id(s, seat, select(ids, k));
			plays++;
			break;
		}
		}
	}
}

/*
 * One random game on the move path of struct game_impl: deals straight
 * into the state, one mask of legal moves per action and an apply that
 * trusts the move.  Every action is chosen uniformly among the legal ones,
 * as on the engine path.
 */
static inline __attribute__((always_inline)) long
moves_game_with(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick, count_fn count,
    select_fn select, int checked)
{
	long plays = 0;
	uint64_t x = *pick;

	impl->init(state, setup);
	for (;;) {
		int seat, k;
		uint64_t moves = impl->next_moves(state, &seat);

		if (moves == 0) {
			if (impl->phase(state) == PHASE_OVER) {
				*pick = x;
				return plays;
			}
			game_deal(impl, state, GAME_DEAL_VERSION, rng);
			continue;
		}
		k = (int)pick_below(&x, (uint32_t)count(moves));
		/* Counting plays is the only reason to ask for the phase. */
		plays += impl->phase(state) == PHASE_PLAY;
		/* The k-th legal move, as itself or as its action. */
		if (checked) {
			struct action a;

			impl->move_action(state, seat, select(moves, k), &a);
			if (game_apply_action(impl, state, &a, NULL, 0) != 0)
				abort();
		} else {
			impl->apply_move(state, seat, select(moves, k));
		}
	}
}

/*
 * Deals with a copy of the generator and returns it, so that the mask
 * path's own copy never has its address taken and stays in registers.
 */
static __attribute__((noinline)) struct rng
wizard_deal_copy(struct wizard_state *s, struct rng rng)
{
	wizard_deal_version(s, GAME_DEAL_VERSION, &rng);
	return rng;
}

/*
 * The same on Wizard's own mask functions, as its computer player calls
 * them: no indirect call at all per move, plays answered inline.
 */
static inline __attribute__((always_inline)) long
mask_game_with(const struct game_setup *setup, struct wizard_state *s,
    struct rng *rng, uint64_t *pick, count_fn count, select_fn select)
{
	struct rng local = *rng;
	long plays = 0;
	uint64_t x = *pick;

	wizard_game.init(s, setup);
	for (;;) {
		int seat, k;
		uint64_t moves = wizard_next_moves(s, &seat);

		if (moves == 0) {
			if (s->r.phase == PHASE_OVER)
				break;
			local = wizard_deal_copy(s, local);
			continue;
		}
		k = (int)pick_below(&x, (uint32_t)count(moves));
		plays += s->r.phase == PHASE_PLAY;
		wizard_apply_mask(s, seat, select(moves, k));
	}
	*rng = local;
	*pick = x;
	return plays;
}

/*
 * One random BirdHead game on its fast path: the legal plays listed as
 * usual, the chosen one played without apply()'s checks.
 */
static long
random_birdhead_fast(const struct game_setup *setup, struct birdhead_state *s,
    struct rng *rng, uint64_t *pick)
{
	struct action legal[GAME_MAX_ACTIONS];
	struct deal deal;
	long plays = 0;
	uint64_t x = *pick;

	birdhead_game.init(s, setup);
	for (;;) {
		const struct action *a;
		int n;

		switch (s->r.phase) {
		case PHASE_OVER:
			*pick = x;
			return plays;
		case PHASE_DEAL:
			game_make_deal(&birdhead_game, s, GAME_DEAL_VERSION,
			    rng, &deal);
			birdhead_game.start_round(s, &deal, NULL, 0);
			break;
		default:
			n = birdhead_game.legal(s, s->r.turn, legal,
			    GAME_MAX_ACTIONS);
			a = &legal[n == 1 ? 0 : pick_below(&x, (uint32_t)n)];
			birdhead_play(s, a->seat, a->cards, a->ncards);
			plays++;
			break;
		}
	}
}

/* The same for Sticheln; penalty cards still go through apply(). */
static long
random_sticheln_fast(const struct game_setup *setup, struct sticheln_state *s,
    struct rng *rng, uint64_t *pick)
{
	struct action legal[GAME_MAX_ACTIONS];
	struct deal deal;
	long plays = 0;
	uint64_t x = *pick;

	sticheln_game.init(s, setup);
	for (;;) {
		const struct action *a;
		int n, seat = 0;

		switch (s->r.phase) {
		case PHASE_OVER:
			*pick = x;
			return plays;
		case PHASE_DEAL:
			game_make_deal(&sticheln_game, s, GAME_DEAL_VERSION,
			    rng, &deal);
			sticheln_game.start_round(s, &deal, NULL, 0);
			break;
		case PHASE_SELECT:
			while (s->r.selected[seat] >= 0)
				seat++;
			n = sticheln_game.legal(s, seat, legal,
			    GAME_MAX_ACTIONS);
			sticheln_game.apply(s, &legal[pick_below(&x,
			    (uint32_t)n)], NULL, 0);
			break;
		default:
			n = sticheln_game.legal(s, s->r.turn, legal,
			    GAME_MAX_ACTIONS);
			a = &legal[n == 1 ? 0 : pick_below(&x, (uint32_t)n)];
			sticheln_play_face(s, a->seat, a->cards[0]);
			plays++;
			break;
		}
	}
}

/* The paths a game is measured on; NULL where it has none. */
typedef long (*random_game_fn)(const struct game_impl *impl,
    const struct game_setup *setup, void *state, struct rng *rng,
    uint64_t *pick);

static long
fast_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	if (impl == &wizard_game)
		return random_wizard_fast(setup, state, rng, pick, bits_count64,
		    bits_select64);
	if (impl == &birdhead_game)
		return random_birdhead_fast(setup, state, rng, pick);
	return random_sticheln_fast(setup, state, rng, pick);
}

static long
mask_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	(void)impl;
	return mask_game_with(setup, state, rng, pick, bits_count64,
	    bits_select64);
}

static long
moves_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	return moves_game_with(impl, setup, state, rng, pick, bits_count64,
	    bits_select64, 0);
}

static long
checked_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	return moves_game_with(impl, setup, state, rng, pick, bits_count64,
	    bits_select64, 1);
}

#if defined(BITS_HW)
BITS_HW_TARGET static long
fast_game_hw(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	if (impl == &wizard_game)
		return random_wizard_fast(setup, state, rng, pick,
		    bits_count64_hw, bits_select64_hw);
	return fast_game(impl, setup, state, rng, pick);
}

BITS_HW_TARGET static long
mask_game_hw(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	(void)impl;
	return mask_game_with(setup, state, rng, pick, bits_count64_hw,
	    bits_select64_hw);
}

BITS_HW_TARGET static long
moves_game_hw(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	return moves_game_with(impl, setup, state, rng, pick, bits_count64_hw,
	    bits_select64_hw, 0);
}

BITS_HW_TARGET static long
checked_game_hw(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng, uint64_t *pick)
{
	return moves_game_with(impl, setup, state, rng, pick, bits_count64_hw,
	    bits_select64_hw, 1);
}
#endif

static void
measure(const struct game_impl *impl, const char *name, random_game_fn fn,
    int seats, double budget, long count)
{
	struct game_setup setup = { .nseats = seats, .first = 0 };
	void *state = malloc(impl->state_size);
	struct rng rng;
	uint64_t pick = 1;
	long games = 0, plays = 0;
	double start, elapsed;

	/* Every path starts from the same seeds. */
	rng_seed(&rng, 1);
	start = now();
	do {
		for (int k = 0; k < 64 && (count == 0 || games < count);
		    k++, games++)
			plays += fn(impl, &setup, state, &rng, &pick);
		elapsed = now() - start;
	} while (count > 0 ? games < count : elapsed < budget);
	printf("%-9s %-7s %d seats: %9.0f games/s %12.0f plays/s "
	    "(%ld games in %.2f s)\n", impl->name, name, seats,
	    games / elapsed, plays / elapsed, games, elapsed);
	fflush(stdout);
	free(state);
}

int
main(int argc, char **argv)
{
	const char *only = NULL, *path = NULL;
	double budget = 2.0;
	long count = 0;
	int seats = 4, portable = 0;
	random_game_fn fast = fast_game, mask = mask_game, moves = moves_game;
	random_game_fn checked = checked_game;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
			count = atol(argv[++i]);
		else if (strcmp(argv[i], "--cpu") == 0)
			bench_clock = CLOCK_PROCESS_CPUTIME_ID;
		else if (strcmp(argv[i], "--seats") == 0 && i + 1 < argc)
			seats = atoi(argv[++i]);
		else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--portable") == 0)
			portable = 1;
		else
			only = argv[i];
	}
#if defined(BITS_HW)
	if (!portable && bits_hw_usable()) {
		fast = fast_game_hw;
		mask = mask_game_hw;
		moves = moves_game_hw;
		checked = checked_game_hw;
	}
#endif
	printf("# Wizard's fast, mask, moves and checked paths choose with "
	    "%s\n",
	    mask == mask_game ? "the portable count and select" :
	    "POPCNT and PDEP");
	for (size_t g = 0; game_registry[g] != NULL; g++) {
		const struct game_impl *impl = game_registry[g];
		const struct {
			const char *name;
			random_game_fn fn;
		} paths[] = {
			{ "engine", random_game },
			{ "fast", fast },
			{ "mask", impl == &wizard_game ? mask : NULL },
			{ "moves", impl->next_moves != NULL ? moves : NULL },
			{ "checked", impl->next_moves != NULL ? checked :
			    NULL },
		};

		if (only != NULL && strcmp(only, impl->name) != 0)
			continue;
		for (size_t p = 0; p < sizeof(paths) / sizeof(*paths); p++) {
			if (path != NULL && strcmp(path, paths[p].name) != 0)
				continue;
			if (paths[p].fn != NULL)
				measure(impl, paths[p].name, paths[p].fn,
				    seats, budget, count);
			else if (strcmp(paths[p].name, "mask") == 0)
				/* Plays of several cards, or decks of more
				 * than 64 cards, are no single bit. */
				printf("%-9s %-7s %d seats: none (a play is "
				    "not one of 64 moves)\n", impl->name,
				    paths[p].name, seats);
		}
	}
	return 0;
}

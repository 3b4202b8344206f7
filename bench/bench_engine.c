/*
 * bench_engine.c - engine throughput: complete random games with legal
 * actions only (bids, trump choices and selections included), dealing
 * every round, on one core.
 *
 * Two paths are measured.  "engine" goes through struct game_impl (legal()
 * then apply() with all its checks), as replay and the bot do.  For Wizard,
 * "fast" uses the bitmask primitives the computer players simulate with
 * (wizard_playable, wizard_play_id).
 *
 * usage: bench_engine [GAME] [--seconds S] [--seats N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits.h"
#include "game.h"
#include "rng.h"
#include "wizard.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One random game through the generic interface; returns its plays. */
static long
random_game(const struct game_impl *impl, const struct game_setup *setup,
    void *state, struct rng *rng)
{
	struct action legal[GAME_MAX_ACTIONS];
	int seats[GAME_MAX_SEATS];
	struct deal deal;
	long plays = 0;

	impl->init(state, setup);
	for (;;) {
		enum game_phase phase = impl->phase(state);
		int n, seat, count;

		if (phase == PHASE_OVER)
			return plays;
		if (phase == PHASE_DEAL) {
			impl->make_deal(state, rng, &deal);
			if (impl->start_round(state, &deal, NULL, 0) != 0)
				abort();
			continue;
		}
		n = impl->to_act(state, seats);
		seat = seats[n == 1 ? 0 : rng_below(rng, (uint32_t)n)];
		count = impl->legal(state, seat, legal, GAME_MAX_ACTIONS);
		if (impl->apply(state, &legal[count == 1 ? 0 :
		    rng_below(rng, (uint32_t)count)], NULL, 0) != 0)
			abort();
		plays += phase == PHASE_PLAY;
	}
}

/*
 * One random Wizard game on the fast path: bids through apply() (they are
 * few), plays straight on the bitmasks.
 */
static long
random_wizard_fast(const struct game_setup *setup, struct wizard_state *s,
    struct rng *rng)
{
	struct deal deal;
	long plays = 0;

	wizard_game.init(s, setup);
	for (;;) {
		struct action a;

		switch (s->r.phase) {
		case PHASE_OVER:
			return plays;
		case PHASE_DEAL:
			wizard_game.make_deal(s, rng, &deal);
			wizard_game.start_round(s, &deal, NULL, 0);
			break;
		case PHASE_TRUMP:
			a = (struct action){ .seat = (int8_t)s->r.dealer,
			    .kind = ACTION_TRUMP,
			    .value = (int8_t)rng_below(rng, 4) };
			wizard_game.apply(s, &a, NULL, 0);
			break;
		case PHASE_BID:
			a = (struct action){ .seat = (int8_t)s->r.turn,
			    .kind = ACTION_BID,
			    .value = (int8_t)rng_below(rng, s->r.cards + 1u) };
			/* A forbidden dealer bid: take the next one up or 0. */
			if (wizard_game.apply(s, &a, NULL, 0) != 0) {
				a.value = (int8_t)(a.value == 0 ? 1 : 0);
				wizard_game.apply(s, &a, NULL, 0);
			}
			break;
		default: {
			int seat = s->r.turn;
			uint64_t ids = wizard_playable(s, seat);
			int k = (int)rng_below(rng,
			    (uint32_t)bits_count64(ids));

			/* The k-th card id that may be played. */
			while (k-- > 0)
				ids &= ids - 1;
			wizard_play_id(s, seat, bits_lowest64(ids));
			plays++;
			break;
		}
		}
	}
}

static void
report(const char *game, const char *path, int seats, long games, long plays,
    double seconds)
{
	printf("%-9s %-6s %d seats: %9.0f games/s %12.0f plays/s "
	    "(%ld games in %.2f s)\n", game, path, seats, games / seconds,
	    plays / seconds, games, seconds);
}

int
main(int argc, char **argv)
{
	const char *only = NULL;
	double budget = 2.0;
	int seats = 4;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (strcmp(argv[i], "--seats") == 0 && i + 1 < argc)
			seats = atoi(argv[++i]);
		else
			only = argv[i];
	}
	for (size_t g = 0; game_registry[g] != NULL; g++) {
		const struct game_impl *impl = game_registry[g];
		struct game_setup setup = { .nseats = seats, .first = 0 };
		void *state = malloc(impl->state_size);
		struct rng rng;
		long games = 0, plays = 0;
		double start, elapsed;

		if (only != NULL && strcmp(only, impl->name) != 0)
			continue;
		rng_seed(&rng, 1);
		start = now();
		do {
			for (int k = 0; k < 64; k++, games++)
				plays += random_game(impl, &setup, state, &rng);
			elapsed = now() - start;
		} while (elapsed < budget);
		report(impl->name, "engine", seats, games, plays, elapsed);
		if (impl == &wizard_game) {
			games = plays = 0;
			start = now();
			do {
				for (int k = 0; k < 256; k++, games++)
					plays += random_wizard_fast(&setup,
					    state, &rng);
				elapsed = now() - start;
			} while (elapsed < budget);
			report(impl->name, "fast", seats, games, plays,
			    elapsed);
		}
		free(state);
	}
	return 0;
}

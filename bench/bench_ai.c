/*
 * bench_ai.c - how long the computer players take to decide, on one core.
 *
 * Plays games with hard at seat 0 and normal at the other seats, timing
 * every decision from the call to the answer (the seat's view, the search
 * and the checks included), and prints the median, the 99th percentile
 * and the maximum per level, plus normal's mean, and for hard the share
 * of its budget a decision used (a decision with a single legal action
 * takes none, and is left out of that share), by the clock and by the
 * processor time the thread got: on a shared machine the two differ by
 * the time other processes held the core.  Run it from a release
 * build on an otherwise idle machine: other processes on the same core
 * show up in the figures.  --v1 seats hard-v1, the first hard search,
 * instead of hard.
 *
 * --worlds N makes every search sample exactly N worlds instead of
 * watching the clock: the games are then a function of the seed alone, so
 * instruction counts (valgrind --tool=callgrind) of two builds can be
 * compared, and the printed digest of every action chosen shows whether
 * they decided alike.
 *
 * usage: bench_ai [GAME|all] [--games N] [--seats N] [--budget-ms N] [--v1]
 *                 [--worlds N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai.h"
#include "ai_game.h"
#include "game.h"
#include "record.h"
#include "rng.h"

struct times {
	double *ms;
	long n, cap;
};

static void
add(struct times *t, double ms)
{
	if (t->n == t->cap) {
		t->cap = t->cap > 0 ? t->cap * 2 : 4096;
		t->ms = realloc(t->ms, (size_t)t->cap * sizeof(*t->ms));
		if (t->ms == NULL) {
			fprintf(stderr, "bench_ai: out of memory\n");
			exit(1);
		}
	}
	t->ms[t->n++] = ms;
}

static int
compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
report(const char *game, const char *level, struct times *t)
{
	double sum = 0;

	if (t->n == 0)
		return;
	qsort(t->ms, (size_t)t->n, sizeof(*t->ms), compare);
	for (long i = 0; i < t->n; i++)
		sum += t->ms[i];
	printf("%-9s %-7s %7ld decisions  mean %8.3f ms  p50 %8.3f ms  "
	    "p99 %8.3f ms  max %8.3f ms\n", game, level, t->n,
	    sum / (double)t->n, t->ms[t->n / 2],
	    t->ms[(long)(0.99 * (double)(t->n - 1) + 0.5)], t->ms[t->n - 1]);
}

/* The processor time of this thread in milliseconds. */
static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The share of the budget the searching decisions used, p50 and p99. */
static void
report_use(const char *game, const char *level, const char *clock,
    struct times *t, double budget_ms)
{
	if (t->n == 0)
		return;
	qsort(t->ms, (size_t)t->n, sizeof(*t->ms), compare);
	printf("%-9s %-7s %7ld searches   budget use (%s) p50 %5.1f%%  p99 "
	    "%5.1f%%  max %5.1f%% of %.0f ms\n", game, level, t->n, clock,
	    100 * t->ms[t->n / 2] / budget_ms,
	    100 * t->ms[(long)(0.99 * (double)(t->n - 1) + 0.5)] / budget_ms,
	    100 * t->ms[t->n - 1] / budget_ms, budget_ms);
}

/* One step of FNV-1a: the digest of the actions chosen. */
static uint64_t
mix(uint64_t digest, uint8_t byte)
{
	return (digest ^ byte) * UINT64_C(0x100000001b3);
}

/* Whether seat has more than one legal action (and so searches). */
static int
has_choice(const struct game_impl *impl, const void *state, int seat)
{
	struct action legal[GAME_MAX_ACTIONS];

	return impl->legal(state, seat, legal, GAME_MAX_ACTIONS) > 1;
}

static void
bench(const struct game_impl *impl, int games, int nseats, int budget,
    enum ai_level level, int worlds)
{
	struct times hard = { 0 }, normal = { 0 }, searches = { 0 };
	struct times cpu = { 0 };
	struct ai_limits limits = { .worlds = worlds };
	struct rng rng;
	char err[GAME_ERR_LEN];
	/* FNV-1a over every action chosen, in order. */
	uint64_t digest = UINT64_C(0xcbf29ce484222325);

	rng_seed(&rng, 1);
	for (int g = 0; g < games; g++) {
		struct game_setup setup = { .nseats = nseats,
		    .first = g % nseats };
		struct game *game = game_create(impl, &setup, NULL, err,
		    sizeof(err));

		if (game == NULL) {
			fprintf(stderr, "bench_ai: %s\n", err);
			exit(1);
		}
		for (;;) {
			enum game_phase phase = impl->phase(game->state);
			int seats[GAME_MAX_SEATS];
			struct ai_params params;
			struct action a;
			int64_t t0;
			double c0, used;

			if (phase == PHASE_OVER)
				break;
			if (phase == PHASE_DEAL) {
				struct deal deal;

				/* As the bot deals a new game. */
				game_make_deal(impl, game->state,
				    GAME_DEAL_VERSION, &rng, &deal);
				if (game_add_deal(game, &deal, err,
				    sizeof(err)) != 0 ||
				    game_advance(game, err, sizeof(err)) != 0) {
					fprintf(stderr, "bench_ai: %s\n", err);
					exit(1);
				}
				continue;
			}
			impl->to_act(game->state, seats);
			params.level = seats[0] == 0 ? level : AI_NORMAL;
			params.seed = rng_next(&rng);
			params.budget_ms = budget;
			t0 = ai_now_ns();
			c0 = cpu_ms();
			if (ai_decide_ex(impl, game->state, game->actions,
			    game->nactions, seats[0], &params,
			    worlds > 0 ? &limits : NULL, &a) != 0) {
				fprintf(stderr, "bench_ai: no decision\n");
				exit(1);
			}
			used = cpu_ms() - c0;
			digest = mix(digest, (uint8_t)a.seat);
			digest = mix(digest, a.kind);
			digest = mix(digest, (uint8_t)a.value);
			for (int c = 0; c < a.ncards && c < GAME_MAX_PLAY; c++)
				digest = mix(digest, a.cards[c]);
			add(seats[0] == 0 ? &hard : &normal,
			    (double)(ai_now_ns() - t0) / 1e6);
			if (seats[0] == 0 && has_choice(impl, game->state,
			    0)) {
				add(&searches, hard.ms[hard.n - 1]);
				add(&cpu, used);
			}
			if (game_apply(game, &a, err, sizeof(err)) != 0) {
				fprintf(stderr, "bench_ai: %s\n", err);
				exit(1);
			}
		}
		game_destroy(game);
	}
	report(impl->name, ai_level_name(level), &hard);
	if (worlds > 0)
		printf("%-9s %d worlds a search: digest of the actions %016llx\n",
		    impl->name, worlds, (unsigned long long)digest);
	report(impl->name, "normal", &normal);
	report_use(impl->name, ai_level_name(level), "clock", &searches,
	    budget > 0 ? budget : 100);
	report_use(impl->name, ai_level_name(level), "cpu", &cpu,
	    budget > 0 ? budget : 100);
	free(hard.ms);
	free(normal.ms);
	free(searches.ms);
	free(cpu.ms);
}

int
main(int argc, char **argv)
{
	const char *name = "all";
	int games = 1, nseats = 4, budget = 0, worlds = 0;
	enum ai_level level = AI_HARD;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
			games = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seats") == 0 && i + 1 < argc)
			nseats = atoi(argv[++i]);
		else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc)
			budget = atoi(argv[++i]);
		else if (strcmp(argv[i], "--v1") == 0)
			level = AI_HARD_V1;
		else if (strcmp(argv[i], "--worlds") == 0 && i + 1 < argc)
			worlds = atoi(argv[++i]);
		else if (argv[i][0] != '-')
			name = argv[i];
		else {
			fprintf(stderr, "usage: bench_ai [GAME|all] "
			    "[--games N] [--seats N] [--budget-ms N] "
			    "[--v1] [--worlds N]\n");
			return 2;
		}
	}
	if (games < 1 || nseats < 3 || nseats > GAME_MAX_SEATS || worlds < 0) {
		fprintf(stderr, "bench_ai: bad --games, --seats or --worlds\n");
		return 2;
	}
	for (int i = 0; game_registry[i] != NULL; i++)
		if (strcmp(name, "all") == 0 ||
		    strcmp(name, game_registry[i]->name) == 0)
			bench(game_registry[i], games, nseats, budget, level,
			    worlds);
	return 0;
}

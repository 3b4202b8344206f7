/*
 * cli_arena.c - `stichbot arena`: computer players against each other, to
 * measure the levels.
 *
 * Player k of the --seats list sits at seat (k + g) mod n in game g, so
 * every player takes every seat equally often, and the first dealer (or
 * leader) is seat (g div n) mod n: over n * n games every player meets
 * every position relative to the first dealer exactly once.  Deals come
 * from a stream seeded with the seed and the game number, so game g is the
 * same deal whatever else runs.  Scores, win shares (a tie of k winners
 * gives each 1/k) and, for Wizard, exact bids are counted per player with
 * 95% confidence intervals (1.96 standard errors over the games), and the
 * win shares are summed per level as well.
 *
 * With --duplicate, the n games of each group g div n share their deals
 * (the stream is seeded with the group, not the game): every player then
 * holds every seat's cards once, which takes most of the luck of the deal
 * out of a comparison.  The level hard-v1 (the first hard search) may be
 * seated only here, to measure hard against it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ai.h"
#include "ai_game.h"
#include "cli.h"
#include "game.h"
#include "record.h"
#include "rng.h"
#include "wizard.h"

struct player {
	enum ai_level level;
	double score, score_sq;          /* sums over games */
	double wins, wins_sq;
	long bids, exact;                /* Wizard rounds */
	double *times;                   /* decision times in ms */
	long ntimes, cap;
};

struct arena {
	const struct game_impl *impl;
	struct game_options options;
	int nplayers;
	struct player players[GAME_MAX_SEATS];
	long games;
	uint64_t seed;
	int budget_ms;
	int duplicate;                   /* deals shared by groups of n games */
	/* Per level: the win shares of its players summed per game. */
	double level_wins[AI_HARD_V1 + 1], level_wins_sq[AI_HARD_V1 + 1];
	/* Per game: our advantage of player 0 over the others' mean. */
	double margin, margin_sq;
};

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t z = a + UINT64_C(0x9e3779b97f4a7c15) * (b + 1);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int
add_time(struct player *p, double ms)
{
	if (p->ntimes == p->cap) {
		long cap = p->cap > 0 ? p->cap * 2 : 1024;
		double *t = realloc(p->times, (size_t)cap * sizeof(*t));

		if (t == NULL)
			return -1;
		p->times = t;
		p->cap = cap;
	}
	p->times[p->ntimes++] = ms;
	return 0;
}

/* Counts the exact bids of a finished Wizard game per player. */
static void
count_bids(struct arena *a, const struct wizard_state *s, const int *player_at)
{
	for (int round = 0; round < s->scored; round++) {
		for (int seat = 0; seat < s->nseats; seat++) {
			struct player *p = &a->players[player_at[seat]];

			if (s->bids[round][seat] < 0)
				continue;
			p->bids++;
			p->exact += s->bids[round][seat] ==
			    s->won[round][seat];
		}
	}
}

/* Plays game number g; returns 0, or -1 with a message printed. */
static int
play_game(struct arena *a, long g)
{
	const struct game_impl *impl = a->impl;
	int n = a->nplayers;
	struct game_setup setup = { .nseats = n, .first = (int)((g / n) % n),
	    .options = a->options };
	int player_at[GAME_MAX_SEATS];
	double score[GAME_MAX_SEATS], share[GAME_MAX_SEATS] = { 0 };
	char err[GAME_ERR_LEN];
	struct game *game;
	struct rng rng;
	json_t *result, *winners;
	double others = 0;
	int lower_wins = impl->lower_score_wins;

	for (int k = 0; k < n; k++)
		player_at[(k + g) % n] = k;
	game = game_create(impl, &setup, NULL, err, sizeof(err));
	if (game == NULL) {
		fprintf(stderr, "stichbot arena: %s\n", err);
		return -1;
	}
	rng_seed(&rng, mix(a->seed, (uint64_t)(a->duplicate ? g / n : g)));
	for (;;) {
		enum game_phase phase = impl->phase(game->state);
		int seats[GAME_MAX_SEATS], seat;
		struct ai_params params;
		struct action action;
		struct player *p;
		int64_t t0;

		if (phase == PHASE_OVER)
			break;
		if (phase == PHASE_DEAL) {
			struct deal deal;

			game_make_deal(impl, game->state, GAME_DEAL_VERSION,
			    &rng, &deal);
			if (game_add_deal(game, &deal, err, sizeof(err)) != 0 ||
			    game_advance(game, err, sizeof(err)) != 0) {
				fprintf(stderr, "stichbot arena: %s\n", err);
				game_destroy(game);
				return -1;
			}
			continue;
		}
		/* Simultaneous phases: the lowest seat first, like decide. */
		impl->to_act(game->state, seats);
		seat = seats[0];
		p = &a->players[player_at[seat]];
		params.level = p->level;
		params.seed = mix(mix(a->seed, (uint64_t)g),
		    (uint64_t)game->nactions);
		params.budget_ms = a->budget_ms;
		t0 = ai_now_ns();
		if (ai_decide_game(game, seat, &params, &action) != 0 ||
		    game_apply(game, &action, err, sizeof(err)) != 0) {
			fprintf(stderr, "stichbot arena: seat %d could not "
			    "act: %s\n", seat, err);
			game_destroy(game);
			return -1;
		}
		if (add_time(p, (double)(ai_now_ns() - t0) / 1e6) != 0) {
			fprintf(stderr, "stichbot arena: out of memory\n");
			game_destroy(game);
			return -1;
		}
	}
	result = impl->result(game->state);
	winners = json_object_get(result, "winners");
	for (int seat = 0; seat < n; seat++) {
		score[player_at[seat]] = (double)json_integer_value(
		    json_array_get(json_object_get(result, "scores"),
		    (size_t)seat));
	}
	for (size_t i = 0; i < json_array_size(winners); i++) {
		int seat = (int)json_integer_value(json_array_get(winners, i));

		share[player_at[seat]] = 1.0 / (double)json_array_size(winners);
	}
	for (int k = 0; k < n; k++) {
		struct player *p = &a->players[k];

		p->score += score[k];
		p->score_sq += score[k] * score[k];
		p->wins += share[k];
		p->wins_sq += share[k] * share[k];
		if (k > 0)
			others += score[k] / (n - 1);
	}
	for (int level = 0; level <= AI_HARD_V1; level++) {
		double sum = 0;

		for (int k = 0; k < n; k++)
			if ((int)a->players[k].level == level)
				sum += share[k];
		a->level_wins[level] += sum;
		a->level_wins_sq[level] += sum * sum;
	}
	others = lower_wins ? others - score[0] : score[0] - others;
	a->margin += others;
	a->margin_sq += others * others;
	if (impl == &wizard_game)
		count_bids(a, game->state, player_at);
	json_decref(result);
	game_destroy(game);
	return 0;
}

/* The square root by Newton's method (the executable does without libm). */
static double
square_root(double x)
{
	double r = x > 1 ? x : 1;

	if (!(x > 0))
		return 0;
	for (int i = 0; i < 100; i++)
		r = 0.5 * (r + x / r);
	return r;
}

/* Half the width of the 95% confidence interval of a mean. */
static double
ci95(double sum, double sum_sq, long n)
{
	double mean, var;

	if (n < 2)
		return 0;
	mean = sum / (double)n;
	var = (sum_sq - (double)n * mean * mean) / (double)(n - 1);
	return var > 0 ? 1.96 * square_root(var / (double)n) : 0;
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
percentile(const double *sorted, long n, double q)
{
	long i = (long)(q * (double)(n - 1) + 0.5);

	return n > 0 ? sorted[i] : 0;
}

static void
report(struct arena *a)
{
	const char *unit = a->impl->lower_score_wins ?
	    "penalty" : "score";
	long g = a->games;

	printf("\n%-7s %-7s %-25s %-18s%s\n", "player", "level",
	    strcmp(unit, "penalty") == 0 ? "mean penalty (95% CI)" :
	    "mean score (95% CI)", "wins (95% CI)",
	    a->impl == &wizard_game ? "  exact bids" : "");
	for (int k = 0; k < a->nplayers; k++) {
		struct player *p = &a->players[k];
		char exact[32] = "";

		if (a->impl == &wizard_game)
			snprintf(exact, sizeof(exact), "  %5.1f%% of %ld",
			    p->bids > 0 ? 100.0 * (double)p->exact /
			    (double)p->bids : 0, p->bids);
		printf("%-7d %-7s %8.1f +- %-13.1f %5.1f%% +- %-7.1f%s\n", k,
		    ai_level_name(p->level), p->score / (double)g,
		    ci95(p->score, p->score_sq, g), 100 * p->wins / (double)g,
		    100 * ci95(p->wins, p->wins_sq, g), exact);
	}
	printf("\nplayer 0 (%s) against the others' mean: %+.1f +- %.1f %s "
	    "per game (positive: player 0 better)\n",
	    ai_level_name(a->players[0].level), a->margin / (double)g,
	    ci95(a->margin, a->margin_sq, g), unit);
	printf("\nwins per level (all its players, 95%% CI):\n");
	for (int level = AI_EASY; level <= AI_HARD_V1; level++) {
		int seated = 0;

		for (int k = 0; k < a->nplayers; k++)
			seated += (int)a->players[k].level == level;
		if (seated > 0)
			printf("  %-7s %d player%s  %5.1f%% +- %.1f\n",
			    ai_level_name((enum ai_level)level), seated,
			    seated == 1 ? " " : "s",
			    100 * a->level_wins[level] / (double)g,
			    100 * ci95(a->level_wins[level],
			    a->level_wins_sq[level], g));
	}
	printf("\ndecision time per level:\n");
	for (int level = AI_EASY; level <= AI_HARD_V1; level++) {
		double *all = NULL;
		long n = 0;

		for (int k = 0; k < a->nplayers; k++)
			if ((int)a->players[k].level == level)
				n += a->players[k].ntimes;
		if (n == 0 || (all = malloc((size_t)n * sizeof(*all))) ==
		    NULL)
			continue;
		n = 0;
		for (int k = 0; k < a->nplayers; k++) {
			struct player *p = &a->players[k];

			if ((int)p->level != level)
				continue;
			memcpy(all + n, p->times, (size_t)p->ntimes *
			    sizeof(*all));
			n += p->ntimes;
		}
		qsort(all, (size_t)n, sizeof(*all), compare_double);
		printf("  %-7s p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms  "
		    "(%ld decisions)\n", ai_level_name((enum ai_level)level),
		    percentile(all, n, 0.5), percentile(all, n, 0.99),
		    all[n - 1], n);
		free(all);
	}
}

static void
progress(long done, long total)
{
	int width = 40, filled = (int)(done * width / (total > 0 ? total : 1));

	fprintf(stderr, "\r[%.*s%*s] %ld/%ld games", filled,
	    "========================================", width - filled, "",
	    done, total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

/*
 * Reads "hard,normal,normal" into the players; -1 after saying what is
 * wrong: an empty level (two commas, or one at either end), an unknown
 * one, or a count of players the game does not take.
 */
static int
parse_seats(const struct cli_command *cmd, struct arena *a,
    const char *text)
{
	const char *p = text;
	int count = 0;

	a->nplayers = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		char name[16];
		int level;

		count++;
		if (n == 0) {
			cli_error(cmd, "--seats \"%s\": level %d is empty "
			    "(one level per player, separated by single "
			    "commas)", text, count);
			return -1;
		}
		level = -1;
		if (n < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			level = strcmp(name, "hard-v1") == 0 ? AI_HARD_V1 :
			    ai_level_parse(name);
		}
		if (level < 0) {
			cli_error(cmd, "--seats: unknown level \"%.*s\" (easy, "
			    "normal, hard or hard-v1)", (int)n, p);
			return -1;
		}
		if (a->nplayers < GAME_MAX_SEATS)
			a->players[a->nplayers++].level = (enum ai_level)level;
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	if (count < a->impl->min_seats || count > a->impl->max_seats) {
		cli_error(cmd, "%s takes %d to %d players; --seats lists %d",
		    a->impl->name, a->impl->min_seats, a->impl->max_seats,
		    count);
		return -1;
	}
	return 0;
}

/* The most --option flags one arena takes. */
#define MAX_OPTIONS 16

/*
 * Reads the flags and the game into a; returns 0, 1 after --help, or -1
 * (exit 2) after saying what is wrong.  Options are applied once the
 * game is known, wherever it stands among them.
 */
static int
parse_args(const struct cli_command *cmd, struct arena *a, int argc,
    char **argv, const char **seats, char *options_text, size_t len)
{
	static const struct option longopts[] = {
		{ "seats", required_argument, NULL, 'S' },
		{ "games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "option", required_argument, NULL, 'o' },
		{ "duplicate", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *options[MAX_OPTIONS];
	char err[GAME_ERR_LEN];
	unsigned long long n;
	int ch, noptions = 0;

	while ((ch = cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case 'S':
			*seats = optarg;
			break;
		case 'g':
			if (cli_number(cmd, "--games", optarg, 1, LONG_MAX,
			    &n) != 0)
				return -1;
			a->games = (long)n;
			break;
		case 's':
			if (cli_number(cmd, "--seed", optarg, 0, UINT64_MAX,
			    &n) != 0)
				return -1;
			a->seed = n;
			break;
		case 'b':
			if (cli_number(cmd, "--budget-ms", optarg, 1, 3600000,
			    &n) != 0)
				return -1;
			a->budget_ms = (int)n;
			break;
		case 'o':
			if (noptions == MAX_OPTIONS) {
				cli_error(cmd, "too many options");
				return -1;
			}
			options[noptions++] = optarg;
			break;
		case 'd':
			a->duplicate = 1;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 1;
		default:
			return -1;
		}
	}
	if (optind < argc && (a->impl = game_find(argv[optind])) == NULL) {
		cli_error(cmd, "unknown game \"%s\"", argv[optind]);
		return -1;
	}
	if (optind + 1 < argc) {
		cli_error(cmd, "one game at most, not also \"%s\"",
		    argv[optind + 1]);
		return -1;
	}
	if (a->impl == NULL || *seats == NULL) {
		cli_usage(cmd, stderr);
		return -1;
	}
	for (int i = 0; i < noptions; i++) {
		size_t nlen = strcspn(options[i], "=");
		char name[32];
		int index;

		snprintf(name, sizeof(name), "%.*s", (int)(nlen < 31 ? nlen : 31),
		    options[i]);
		index = game_option_index(a->impl, name);
		if (index >= 0 && a->options.value[index] != 0) {
			/* As play: the second would override (or undo) one. */
			cli_error(cmd, "option %s given twice", name);
			return -1;
		}
		if (game_option_set(a->impl, &a->options, options[i], err,
		    sizeof(err)) != 0) {
			cli_error(cmd, "%s", err);
			return -1;
		}
		snprintf(options_text + strlen(options_text),
		    len - strlen(options_text), "%s%s",
		    options_text[0] ? " " : "", options[i]);
	}
	return 0;
}

static int
arena_main(const struct cli_command *cmd, int argc, char **argv)
{
	struct arena a;
	const char *seats = NULL;
	char err[GAME_ERR_LEN], options_text[512] = "";
	int rc, status = 0, tty = isatty(STDERR_FILENO);

	memset(&a, 0, sizeof(a));
	a.games = 10;
	a.seed = 1;
	a.budget_ms = 0;
	if ((rc = parse_args(cmd, &a, argc, argv, &seats, options_text,
	    sizeof(options_text))) != 0)
		return rc > 0 ? 0 : 2;
	if (parse_seats(cmd, &a, seats) != 0)
		return 2;
	if (a.impl->validate_options(&a.options, a.nplayers, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "stichbot arena: %s\n", err);
		return 2;
	}
	printf("%s, %d players, %ld game%s, seed %llu, hard budget %d ms, "
	    "options: %s\n", a.impl->name, a.nplayers, a.games,
	    a.games == 1 ? "" : "s",
	    (unsigned long long)a.seed, a.budget_ms > 0 ? a.budget_ms : 100,
	    options_text[0] ? options_text : "none");
	printf("player k sits at seat (k + g) mod %d in game g; the first "
	    "%s is seat (g div %d) mod %d%s\n", a.nplayers,
	    a.impl == &wizard_game ? "dealer" : "leader", a.nplayers,
	    a.nplayers, a.duplicate ? "; games g and h share their deals "
	    "when g div n = h div n" : "");
	fflush(stdout);
	for (long g = 0; g < a.games && status == 0; g++) {
		if (play_game(&a, g) != 0)
			status = 1;
		else if (tty)
			progress(g + 1, a.games);
	}
	if (status == 0)
		report(&a);
	for (int k = 0; k < a.nplayers; k++)
		free(a.players[k].times);
	return status;
}

const struct cli_command cli_arena_command = {
	.name = "arena",
	.usage = "stichbot arena GAME --seats L,L,... [--games N] "
	    "[--option X]...\n"
	    "                      [--seed S] [--budget-ms N] [--duplicate]",
	.summary = "play computer players against each other",
	.help = "Plays computer players (levels easy, normal, hard) against "
	    "each other and\nprints, per player, the mean final score and "
	    "the win rate with 95% confidence\nintervals (and the exact-bid "
	    "rate for Wizard), then decision times per level.\n\n"
	    "Player k sits at seat (k + g) mod n in game g; the first dealer "
	    "or leader is\nseat (g div n) mod n.\n\n"
	    "  GAME            wizard, birdhead or sticheln (required)\n"
	    "  --seats L,...   one level per player: easy, normal, hard or "
	    "hard-v1 (the\n"
	    "                  first hard search, to measure hard against); "
	    "required\n"
	    "  --games N       games to play, 1 or more (default 10)\n"
	    "  --option X      a game option (default none; repeat for "
	    "more)\n"
	    "  --seed S        the deals follow it, 0 to 2^64-1 (default 1)\n"
	    "  --budget-ms N   hard's thinking time per decision, 1 to "
	    "3600000 ms\n"
	    "                  (default 100)\n"
	    "  --duplicate     deal the same cards to each group of n games, "
	    "so every\n"
	    "                  player holds every hand once (default: off)\n"
	    "  -h, --help      this help\n\n"
	    "Exit status: 0, 1 when a game fails, 2 for a wrong argument.\n",
	.run = arena_main,
};

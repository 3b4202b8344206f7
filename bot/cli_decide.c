/*
 * cli_decide.c - `stichbot decide`: a computer player's choice for the seat
 * that must act at the end of a record (RECORD.md, last section).
 *
 * The record is replayed like `replay` does, keeping its actions, so the
 * player remembers the cards played earlier in the round as a person at
 * the table would; the player itself only ever sees the seat's view.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ai.h"
#include "ai_game.h"
#include "cli.h"
#include "record.h"

static int
print_json(json_t *obj)
{
	int rc = json_dumpf(obj, stdout, JSON_PRESERVE_ORDER | JSON_INDENT(0));

	if (rc == 0 && fputc('\n', stdout) == EOF)
		rc = -1;
	if (fflush(stdout) != 0)
		rc = -1;
	json_decref(obj);
	if (rc != 0)
		fprintf(stderr, "stichbot decide: cannot write: %s\n",
		    strerror(errno));
	return rc;
}

/* Prints the error object of RECORD.md; action < 0 prints null. */
static int
fail(const char *reason, int action)
{
	print_json(json_pack("{s:s, s:o}", "error", reason, "action",
	    action < 0 ? json_null() : json_integer(action)));
	return 2;
}

/*
 * Replays the record's actions into game.  Returns 0, or 2 after printing
 * the error object.
 */
static int
replay_actions(struct game *game, const json_t *actions)
{
	const struct game_impl *impl = game->impl;
	char err[GAME_ERR_LEN] = "", reason[GAME_ERR_LEN + 64];

	if (game_advance(game, err, sizeof(err)) != 0)
		return fail(err, -1);
	for (size_t i = 0; i < json_array_size(actions); i++) {
		struct action action;

		if (impl->phase(game->state) == PHASE_DEAL) {
			snprintf(reason, sizeof(reason),
			    "The record has no deal for round %d.",
			    impl->round(game->state) + 2);
			return fail(reason, -1);
		}
		if (game_action_from_json(game, json_array_get(actions, i),
		    &action, err, sizeof(err)) != 0 ||
		    game_apply(game, &action, err, sizeof(err)) != 0) {
			/* Two sentences: err starts with a capital. */
			snprintf(reason, sizeof(reason),
			    "Action %zu of the record is illegal. %s", i, err);
			return fail(reason, (int)i);
		}
		if (game_advance(game, err, sizeof(err)) != 0)
			return fail(err, -1);
	}
	return 0;
}

static int
decide(const json_t *record, int seat, const struct ai_params *params,
    int64_t started)
{
	char err[GAME_ERR_LEN] = "", reason[GAME_ERR_LEN + 64];
	const json_t *actions = json_object_get(record, "actions");
	struct ai_limits limits = { .started = started };
	int seats[GAME_MAX_SEATS], nseats, status;
	struct game *game;
	struct action action;

	/* game_from_record() also checks that the actions are a list. */
	game = game_from_record(record, err, sizeof(err));
	if (game == NULL)
		return fail(err, -1);
	status = replay_actions(game, actions);
	if (status != 0) {
		game_destroy(game);
		return status;
	}
	switch (game->impl->phase(game->state)) {
	case PHASE_OVER:
		game_destroy(game);
		return fail("The game is over: no seat is to act.", -1);
	case PHASE_DEAL:
		snprintf(reason, sizeof(reason), "The record has no deal for "
		    "round %d, so no seat can act.",
		    game->impl->round(game->state) + 2);
		game_destroy(game);
		return fail(reason, -1);
	default:
		break;
	}
	nseats = game->impl->to_act(game->state, seats);
	if (seat < 0) {
		seat = seats[0];
		for (int i = 1; i < nseats; i++)
			if (seats[i] < seat)
				seat = seats[i];
	} else {
		int found = 0;

		for (int i = 0; i < nseats; i++)
			found |= seats[i] == seat;
		if (!found) {
			snprintf(reason, sizeof(reason),
			    "Seat %d may not act now.", seat);
			game_destroy(game);
			return fail(reason, -1);
		}
	}
	if (ai_decide_ex(game->impl, game->state, game->actions,
	    game->nactions, seat, params, &limits, &action) != 0) {
		game_destroy(game);
		return fail("The computer player found nothing to do.", -1);
	}
	status = print_json(action_to_json(game->impl, &action)) == 0 ? 0 : 2;
	game_destroy(game);
	return status;
}

static int
decide_main(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "seat", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ai_params params = { .level = AI_NORMAL, .seed = 0,
	    .budget_ms = 0 };
	int64_t started = ai_now_ns();
	unsigned long long n;
	char reason[RECORD_LOAD_ERR_LEN];
	json_t *record;
	FILE *in;
	int ch, level, seat = -1, status;

	while ((ch = cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case 'l':
			if ((level = ai_level_parse(optarg)) < 0) {
				cli_error(cmd, "--level is easy, normal or "
				    "hard");
				return 2;
			}
			params.level = (enum ai_level)level;
			break;
		case 's':
			if (cli_number(cmd, "--seed", optarg, 0, UINT64_MAX,
			    &n) != 0)
				return 2;
			params.seed = n;
			break;
		case 'b':
			if (cli_number(cmd, "--budget-ms", optarg, 1, 3600000,
			    &n) != 0)
				return 2;
			params.budget_ms = (int)n;
			break;
		case 'S':
			if (cli_number(cmd, "--seat", optarg, 0,
			    GAME_MAX_SEATS - 1, &n) != 0)
				return 2;
			seat = (int)n;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if ((in = cli_open_input(cmd, argc, argv)) == NULL)
		return 2;
	record = record_loadf(in, reason, sizeof(reason));
	cli_close_input(in);
	if (record == NULL)
		return fail(reason, -1);
	status = decide(record, seat, &params, started);
	json_decref(record);
	return status;
}

const struct cli_command cli_decide_command = {
	.name = "decide",
	.usage = "stichbot decide [--level easy|normal|hard] [--seed N] "
	    "[--budget-ms N]\n                       [--seat S] [FILE]",
	.summary = "a computer player's choice for the seat to act in a "
	    "record",
	.help = "Reads a game record (from FILE or standard input) that "
	    "stops where a seat\nmust act, and prints the action a computer "
	    "player chooses for that seat.\n\n"
	    "  --level L      easy, normal or hard (default normal)\n"
	    "  --seed N       the same seed gives the same choice, 0 to "
	    "2^64-1 (default 0)\n"
	    "  --budget-ms N  hard's thinking time, 1 to 3600000 ms "
	    "(default 100)\n"
	    "  --seat S       the seat to decide for when several may act, "
	    "0 to 5\n                 (default: the lowest)\n"
	    "  -h, --help     this help\n\n"
	    "Exit status: 0 with an action; 2 with an error object when the "
	    "record is\nmalformed, holds an illegal action, or has no seat "
	    "to act, and for a wrong\nargument.\n",
	.run = decide_main,
};

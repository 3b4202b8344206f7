/*
 * test_sticheln.c - every rule of RULES.md section 3 (Sticheln), each with
 * a test that fails if the rule is broken, the golden examples, and seeded
 * random games as property tests checked against a naive reading of the
 * rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sticheln.h"
#include "testutil.h"

static struct game *
new_game(int nseats, int dm, int first)
{
	char err[GAME_ERR_LEN];
	struct game_setup setup = { .nseats = nseats, .first = first };
	struct game *game;

	setup.options.value[STICHELN_OPT_DM] = dm;
	game = game_create(&sticheln_game, &setup, NULL, err, sizeof(err));
	if (game == NULL)
		fail_msg("setup refused: %s", err);
	return game;
}

static int
face(const char *code)
{
	int f = sticheln_game.parse_card(code);

	assert_true(f >= 0);
	return f;
}

/* Fills deal from hands written as "r0 r1|y0 y1|..." (seats split by |). */
static void
parse_hands(const char *hands, struct deal *deal)
{
	char buf[1024], *save = NULL, *save2 = NULL;
	int seat = 0;

	memset(deal, 0, sizeof(*deal));
	deal->turned = -1;
	snprintf(buf, sizeof(buf), "%s", hands);
	for (char *h = strtok_r(buf, "|", &save); h != NULL;
	    h = strtok_r(NULL, "|", &save), seat++)
		for (char *c = strtok_r(h, " ", &save2); c != NULL;
		    c = strtok_r(NULL, " ", &save2))
			deal->cards[seat][deal->count[seat]++] =
			    (uint8_t)face(c);
}

/* Adds a deal and starts its round when the game waits for it. */
static int
deal_hands(struct game *game, const char *hands)
{
	char err[GAME_ERR_LEN];
	struct deal deal;

	parse_hands(hands, &deal);
	if (game_add_deal(game, &deal, err, sizeof(err)) != 0)
		return -1;
	return game_advance(game, err, sizeof(err));
}

static void
deal_random(struct game *game, struct rng *rng)
{
	char err[GAME_ERR_LEN];
	struct deal deal;

	sticheln_game.make_deal(game->state, rng, &deal);
	if (game_add_deal(game, &deal, err, sizeof(err)) != 0 ||
	    game_advance(game, err, sizeof(err)) != 0)
		fail_msg("own deal refused: %s", err);
}

static const struct sticheln_state *
state(const struct game *game)
{
	return game->state;
}

static struct action
make_action(int seat, int kind, const char *code)
{
	struct action a = { .seat = (int8_t)seat, .kind = (uint8_t)kind,
	    .ncards = 1 };

	a.cards[0] = (uint8_t)face(code);
	return a;
}

static void
act(struct game *game, int seat, int kind, const char *code)
{
	char err[GAME_ERR_LEN];
	struct action a = make_action(seat, kind, code);

	if (game_apply(game, &a, err, sizeof(err)) != 0)
		fail_msg("seat %d %s %s refused: %s", seat,
		    kind == ACTION_SELECT ? "selecting" : "playing", code, err);
}

static void
select_card(struct game *game, int seat, const char *code)
{
	act(game, seat, ACTION_SELECT, code);
}

static void
play(struct game *game, int seat, const char *code)
{
	act(game, seat, ACTION_PLAY, code);
}

/* Checks that action is refused for the reason why and changes nothing. */
static void
refuse_action(struct game *game, const struct action *a, const char *why)
{
	unsigned char before[sizeof(struct sticheln_state)];
	char err[GAME_ERR_LEN] = "";
	int nactions = game->nactions;

	memcpy(before, game->state, sizeof(before));
	assert_int_equal(game_apply(game, a, err, sizeof(err)), -1);
	if (strstr(err, why) == NULL)
		fail_msg("refused with \"%s\", expected \"%s\"", err, why);
	assert_memory_equal(before, game->state, sizeof(before));
	assert_int_equal(game->nactions, nactions);
}

static void
refuse(struct game *game, int seat, int kind, const char *code,
    const char *why)
{
	struct action a = make_action(seat, kind, code);

	refuse_action(game, &a, why);
}

/* Plays the first legal action until the round (or game) is over. */
static void
finish_round(struct game *game)
{
	int round = sticheln_game.round(game->state);

	while (sticheln_game.round(game->state) == round) {
		enum game_phase phase = sticheln_game.phase(game->state);
		struct action legal[GAME_MAX_ACTIONS];
		char err[GAME_ERR_LEN];
		int seats[GAME_MAX_SEATS];

		if (phase != PHASE_SELECT && phase != PHASE_PLAY)
			break;
		assert_true(sticheln_game.to_act(game->state, seats) > 0);
		assert_true(sticheln_game.legal(game->state, seats[0], legal,
		    GAME_MAX_ACTIONS) > 0);
		if (game_apply(game, &legal[0], err, sizeof(err)) != 0)
			fail_msg("legal action refused: %s", err);
	}
}

/* The winner of trick t of round r, from the result. */
static int
trick_winner(const struct game *game, int round, int trick)
{
	json_t *result = sticheln_game.result(game->state);
	json_t *t = json_array_get(json_object_get(json_array_get(
	    json_object_get(result, "rounds"), (size_t)round), "tricks"),
	    (size_t)trick);
	int winner;

	assert_non_null(t);
	winner = (int)json_integer_value(json_object_get(t, "winner"));
	json_decref(result);
	return winner;
}

/*
 * Three seats for the trick tests: seat 0 can lead r0, r3, y0 and b5;
 * seat 1 answer r5, g7, b0 and b3; seat 2 answer g2, y7, n0 and g0.
 */
static const char trick_deal[] =
    "r0 r3 y0 b5 r1 r2 r4 r6 r7 r8 y1 y2 y3 y4 y5|"
    "r5 g7 b0 b3 y6 y8 g1 g3 g4 g5 g6 g8 b1 b2 b4|"
    "g2 y7 n0 g0 b6 b7 b8 n1 n2 n3 n4 n5 n6 n7 n8";

/* A trick_deal game with selections made, seat 0 to lead. */
static struct game *
trick_game(void)
{
	struct game *game = new_game(3, 0, 0);

	assert_int_equal(deal_hands(game, trick_deal), 0);
	select_card(game, 2, "n8");
	select_card(game, 0, "r8");
	select_card(game, 1, "g8");
	assert_int_equal(sticheln_game.phase(game->state), PHASE_PLAY);
	return game;
}

static void
check_trick(const char *c0, const char *c1, const char *c2, int winner)
{
	struct game *game = trick_game();

	play(game, 0, c0);
	play(game, 1, c1);
	play(game, 2, c2);
	assert_int_equal(trick_winner(game, 0, 0), winner);
	/* The winner leads the next trick. */
	assert_int_equal(state(game)->r.turn, winner);
	game_destroy(game);
}

static void
test_card_codes(void **unused)
{
	char buf[8];

	assert_int_equal(sticheln_game.parse_card("r0"), 0);
	assert_int_equal(sticheln_game.parse_card("r14"), 14);
	assert_int_equal(sticheln_game.parse_card("Y1"), 16);
	assert_int_equal(sticheln_game.parse_card("n14"), 4 * 15 + 14);
	assert_int_equal(sticheln_game.parse_card("P3"), 5 * 15 + 3);
	assert_int_equal(sticheln_game.parse_card("r15"), -1);
	assert_int_equal(sticheln_game.parse_card("r01"), -1);
	assert_int_equal(sticheln_game.parse_card("r00"), -1);
	assert_int_equal(sticheln_game.parse_card("r"), -1);
	assert_int_equal(sticheln_game.parse_card("x1"), -1);
	assert_int_equal(sticheln_game.parse_card("r-1"), -1);
	assert_int_equal(sticheln_game.parse_card("r1 "), -1);
	assert_int_equal(sticheln_game.parse_card("r100"), -1);
	assert_int_equal(sticheln_game.parse_card(""), -1);
	assert_int_equal(sticheln_game.parse_card(NULL), -1);
	sticheln_game.format_card(sticheln_game.parse_card("N12"), buf,
	    sizeof(buf));
	assert_string_equal(buf, "n12");
	sticheln_game.format_card(sticheln_game.parse_card("p0"), buf,
	    sizeof(buf));
	assert_string_equal(buf, "p0");
	assert_ptr_equal(game_find("sticheln"), &sticheln_game);
	assert_int_equal(game_option_index(&sticheln_game, "dm"),
	    STICHELN_OPT_DM);
}

static void
test_decks_and_own_deals(void **unused)
{
	static const int ranks[] = { 9, 12, 15, 15 };
	struct rng rng;

	rng_seed(&rng, 3);
	for (int n = 3; n <= 6; n++) {
		int ncolours, nranks;

		sticheln_deck(n, &ncolours, &nranks);
		assert_int_equal(ncolours, n == 6 ? 6 : 5);
		assert_int_equal(nranks, ranks[n - 3]);
		/* All cards are dealt, 15 to each player. */
		assert_int_equal(ncolours * nranks, 15 * n);
		for (int i = 0; i < 20; i++) {
			struct game *game = new_game(n, 0, 0);
			struct deal deal;
			char err[GAME_ERR_LEN];

			sticheln_game.make_deal(game->state, &rng, &deal);
			for (int seat = 0; seat < n; seat++)
				assert_int_equal(deal.count[seat], 15);
			assert_int_equal(sticheln_game.check_deal(&game->setup,
			    0, &deal, err, sizeof(err)), 0);
			game_destroy(game);
		}
	}
}

static void
test_deal_checks(void **unused)
{
	struct game *game = new_game(4, 0, 0);
	struct deal deal;
	struct rng rng;
	char err[GAME_ERR_LEN];
	json_t *out;

	rng_seed(&rng, 1);
	sticheln_game.make_deal(game->state, &rng, &deal);
	assert_int_equal(sticheln_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), 0);
	/* r12 and p0 are not in the four-player deck. */
	deal.cards[1][3] = (uint8_t)face("r12");
	assert_int_equal(sticheln_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	deal.cards[1][3] = (uint8_t)face("p0");
	assert_int_equal(sticheln_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	/* A card twice. */
	deal.cards[1][3] = deal.cards[2][7];
	assert_int_equal(sticheln_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "twice"));
	/* Fourteen cards. */
	sticheln_game.make_deal(game->state, &rng, &deal);
	deal.count[2] = 14;
	assert_int_equal(sticheln_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	/* Five rounds; a sixth deal is refused. */
	sticheln_game.make_deal(game->state, &rng, &deal);
	assert_int_equal(sticheln_game.check_deal(&game->setup, 4, &deal, err,
	    sizeof(err)), 0);
	assert_int_equal(sticheln_game.check_deal(&game->setup, 5, &deal, err,
	    sizeof(err)), -1);
	game_destroy(game);

	/* Through replay: a purple card at three players is malformed. */
	assert_int_equal(test_replay("{\"game\":\"sticheln\",\"players\":"
	    "[\"a\",\"b\",\"c\"],\"first\":0,\"deals\":[{\"hands\":["
	    "[\"r0\",\"r1\",\"r2\",\"r3\",\"r4\",\"r5\",\"r6\",\"r7\",\"r8\","
	    "\"y0\",\"y1\",\"y2\",\"y3\",\"y4\",\"p5\"],"
	    "[\"y5\",\"y6\",\"y7\",\"y8\",\"g0\",\"g1\",\"g2\",\"g3\",\"g4\","
	    "\"g5\",\"g6\",\"g7\",\"g8\",\"b0\",\"b1\"],"
	    "[\"b2\",\"b3\",\"b4\",\"b5\",\"b6\",\"b7\",\"b8\",\"n0\",\"n1\","
	    "\"n2\",\"n3\",\"n4\",\"n5\",\"n6\",\"n7\"]]}],\"actions\":[]}",
	    &out), 2);
	assert_true(json_is_null(json_object_get(out, "action")));
	json_decref(out);
	/* With y5 instead, the deal is fine. */
	assert_int_equal(test_replay("{\"game\":\"sticheln\",\"players\":"
	    "[\"a\",\"b\",\"c\"],\"first\":0,\"deals\":[{\"hands\":["
	    "[\"r0\",\"r1\",\"r2\",\"r3\",\"r4\",\"r5\",\"r6\",\"r7\",\"r8\","
	    "\"y0\",\"y1\",\"y2\",\"y3\",\"y4\",\"n8\"],"
	    "[\"y5\",\"y6\",\"y7\",\"y8\",\"g0\",\"g1\",\"g2\",\"g3\",\"g4\","
	    "\"g5\",\"g6\",\"g7\",\"g8\",\"b0\",\"b1\"],"
	    "[\"b2\",\"b3\",\"b4\",\"b5\",\"b6\",\"b7\",\"b8\",\"n0\",\"n1\","
	    "\"n2\",\"n3\",\"n4\",\"n5\",\"n6\",\"n7\"]]}],\"actions\":[]}",
	    &out), 0);
	json_decref(out);
}

static void
test_zero_led_sets_lead_colour(void **unused)
{
	/*
	 * r0 leads: red is the lead colour, so r5 is no trump and g2, a
	 * trump, beats it despite the lower rank.
	 */
	check_trick("r0", "r5", "g2", 2);
}

static void
test_equal_trumps_first_wins(void **unused)
{
	check_trick("r3", "g7", "y7", 1);
}

static void
test_all_zeros_leader_wins(void **unused)
{
	check_trick("y0", "b0", "n0", 0);
}

static void
test_lead_wins_when_nobody_trumps(void **unused)
{
	/* b3 follows lower and g0, a zero, is never trump. */
	check_trick("b5", "b3", "g0", 0);
}

static void
test_highest_lead_colour_without_trump(void **unused)
{
	check_trick("r3", "r5", "n0", 1);
}

/* RULES.md's worked example: +13 for other cards, -10, -1: +2. */
static void
test_worked_score_example(void **unused)
{
	static const char *const tricks[14][3] = {
		{ "r8", "r2", "g0" }, { "y8", "y1", "y2" },
		{ "g8", "g1", "g2" }, { "b8", "b1", "b2" },
		{ "n8", "n1", "n2" }, { "r0", "r4", "y6" },
		{ "r6", "r3", "r5" }, { "r7", "y0", "y4" },
		{ "y5", "y7", "y3" }, { "g6", "g3", "g4" },
		{ "g7", "b0", "g5" }, { "b6", "b3", "b4" },
		{ "b7", "n0", "b5" }, { "n6", "n3", "n4" },
	};
	/* Who leads each trick; play goes on to the left. */
	static const int leaders[14] = { 0, 0, 0, 0, 0, 0, 2, 2, 1, 2, 2, 2,
	    2, 2 };
	struct game *game = new_game(3, 0, 0);
	json_t *result, *points;

	assert_int_equal(deal_hands(game,
	    "r0 r1 r3 r8 y0 y3 y8 g3 g8 b0 b3 b8 n0 n3 n8|"
	    "r2 y1 g1 b1 n1 r4 r5 y4 y5 g4 g5 b4 b5 n4 n5|"
	    "g0 y2 g2 b2 n2 r6 r7 y6 y7 g6 g7 b6 b7 n6 n7"), 0);
	select_card(game, 0, "r1");
	select_card(game, 1, "n5");
	select_card(game, 2, "n7");
	for (int t = 0; t < 14; t++) {
		for (int i = 0; i < 3; i++)
			play(game, (leaders[t] + i) % 3, tricks[t][i]);
		if (t + 1 < 14)
			assert_int_equal(state(game)->r.turn, leaders[t + 1]);
	}
	/*
	 * Seat 0 took 15 cards: 13 not red (+13), r8 and r2 (-10), and
	 * selected r1 (-1).  Seat 1: three cards, n5 selected: 3 - 5.  Seat
	 * 2: 20 other cards, n0 n6 n3 n4 (-13; n0 counts 0, not +1), n7.
	 */
	result = sticheln_game.result(game->state);
	points = json_object_get(json_array_get(json_object_get(result,
	    "rounds"), 0), "points");
	assert_int_equal(test_int_at(points, 0), 2);
	assert_int_equal(test_int_at(points, 1), -2);
	assert_int_equal(test_int_at(points, 2), 0);
	assert_int_equal(state(game)->captured[0][0], 15);
	assert_int_equal(state(game)->captured[0][2], 24);
	json_decref(result);
	game_destroy(game);
}

static void
test_first_leader_rotates(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 11);
	for (int n = 3; n <= 6; n++) {
		struct game *game = new_game(n, 0, n - 2);

		for (int round = 0; round < 5; round++) {
			int seats[GAME_MAX_SEATS];

			deal_random(game, &rng);
			/* Selections come in any order: here from the last. */
			for (int seat = n - 1; seat >= 0; seat--) {
				struct action legal[GAME_MAX_ACTIONS];
				char err[GAME_ERR_LEN];

				assert_int_equal(sticheln_game.legal(
				    game->state, seat, legal,
				    GAME_MAX_ACTIONS), 15);
				assert_int_equal(game_apply(game, &legal[3],
				    err, sizeof(err)), 0);
			}
			assert_int_equal(sticheln_game.to_act(game->state,
			    seats), 1);
			assert_int_equal(seats[0], (n - 2 + round) % n);
			finish_round(game);
		}
		assert_int_equal(sticheln_game.phase(game->state), PHASE_OVER);
		game_destroy(game);
	}
}

static void
test_dm_plays_four_rounds(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 12);
	for (int dm = 0; dm <= 1; dm++) {
		struct game *game = new_game(4, dm, 1);
		struct deal deal;
		char err[GAME_ERR_LEN];
		json_t *result;

		for (int round = 0; round < 4; round++) {
			assert_int_equal(sticheln_game.phase(game->state),
			    PHASE_DEAL);
			deal_random(game, &rng);
			finish_round(game);
		}
		/* Without dm a fifth round follows; with it, none can. */
		assert_int_equal(sticheln_game.phase(game->state),
		    dm ? PHASE_OVER : PHASE_DEAL);
		sticheln_game.make_deal(game->state, &rng, &deal);
		assert_int_equal(sticheln_game.check_deal(&game->setup, 4,
		    &deal, err, sizeof(err)), dm ? -1 : 0);
		if (!dm) {
			deal_random(game, &rng);
			finish_round(game);
		}
		result = sticheln_game.result(game->state);
		assert_int_equal(json_array_size(json_object_get(result,
		    "rounds")), dm ? 4 : 5);
		assert_true(json_is_true(json_object_get(result, "finished")));
		json_decref(result);
		game_destroy(game);
	}
}

static void
test_selection_rules(void **unused)
{
	struct game *game = new_game(3, 0, 0);
	struct action a, legal[GAME_MAX_ACTIONS];

	assert_int_equal(deal_hands(game, trick_deal), 0);
	assert_int_equal(sticheln_game.phase(game->state), PHASE_SELECT);
	/* No play before every seat has selected. */
	refuse(game, 0, ACTION_PLAY, "r0", "select");
	refuse(game, 1, ACTION_SELECT, "r0", "does not hold r0");
	select_card(game, 1, "g8");
	refuse(game, 1, ACTION_SELECT, "g6", "already selected");
	refuse(game, 0, ACTION_PLAY, "r0", "select");
	/* The selected card has left the hand. */
	select_card(game, 0, "r8");
	refuse(game, 2, ACTION_SELECT, "g8", "does not hold g8");
	select_card(game, 2, "n8");
	assert_int_equal(sticheln_game.phase(game->state), PHASE_PLAY);
	refuse(game, 0, ACTION_SELECT, "r0", "start of a round");
	refuse(game, 1, ACTION_PLAY, "r5", "seat 0's turn");
	refuse(game, 0, ACTION_PLAY, "r8", "does not hold r8");
	refuse(game, 0, ACTION_PLAY, "g2", "does not hold g2");
	a = (struct action){ .seat = 0, .kind = ACTION_BID, .value = 1 };
	refuse_action(game, &a, "no bidding");
	a = (struct action){ .seat = 0, .kind = ACTION_TRUMP };
	refuse_action(game, &a, "no trump");
	a = (struct action){ .seat = 3, .kind = ACTION_PLAY, .ncards = 1 };
	refuse_action(game, &a, "no seat 3");
	a = (struct action){ .seat = 0, .kind = ACTION_PLAY, .ncards = 1,
	    .cards = { 200 } };
	refuse_action(game, &a, "does not hold");
	/* No obligation to follow: any held card may be played. */
	play(game, 0, "y5");
	assert_int_equal(sticheln_game.legal(game->state, 1, legal,
	    GAME_MAX_ACTIONS), 14);
	for (int i = 0; i < 14; i++)
		assert_int_equal(legal[i].kind, ACTION_PLAY);
	assert_int_equal(sticheln_game.legal(game->state, 2, legal,
	    GAME_MAX_ACTIONS), 0);
	play(game, 1, "b4");
	game_destroy(game);
}

static void
test_view_hides_selections_and_hands(void **unused)
{
	static const int viewers[] = { -1, 0, 2 };
	struct game *game = new_game(3, 0, 0);
	json_t *view, *sel;
	char *text;

	assert_int_equal(deal_hands(game, trick_deal), 0);
	select_card(game, 1, "g8");
	/* Seat 1 sees its own selection, seats 0 and 2 do not. */
	view = sticheln_game.view(game->state, 1);
	sel = json_object_get(view, "selected");
	assert_string_equal(json_string_value(json_array_get(sel, 1)), "g8");
	assert_string_equal(json_string_value(json_array_get(json_object_get(
	    view, "penalty_colours"), 1)), "g");
	assert_int_equal(json_array_size(json_object_get(view, "hand")), 14);
	json_decref(view);
	for (int i = 0; i < 3; i++) {
		int seat = viewers[i];

		view = sticheln_game.view(game->state, seat);
		text = json_dumps(view, JSON_COMPACT);
		assert_null(strstr(text, "g8"));
		assert_true(json_is_null(json_array_get(json_object_get(view,
		    "penalty_colours"), 1)));
		free(text);
		/* Nobody else's hand: the public view has none at all. */
		if (seat < 0)
			assert_null(json_object_get(view, "hand"));
		else
			assert_int_equal(json_array_size(json_object_get(view,
			    "hand")), 15);
		json_decref(view);
	}
	select_card(game, 0, "r8");
	select_card(game, 2, "n8");
	/* Revealed together once all are in. */
	view = sticheln_game.view(game->state, -1);
	text = json_dumps(json_object_get(view, "selected"), JSON_COMPACT);
	assert_string_equal(text, "[\"r8\",\"g8\",\"n8\"]");
	free(text);
	text = json_dumps(json_object_get(view, "penalty_colours"),
	    JSON_COMPACT);
	assert_string_equal(text, "[\"r\",\"g\",\"n\"]");
	free(text);
	assert_string_equal(json_string_value(json_object_get(view, "phase")),
	    "play");
	json_decref(view);
	play(game, 0, "r0");
	view = sticheln_game.view(game->state, 0);
	text = json_dumps(json_object_get(view, "trick"), JSON_COMPACT);
	assert_string_equal(text, "[{\"seat\":0,\"card\":\"r0\"}]");
	free(text);
	text = json_dumps(json_object_get(view, "hand"), JSON_COMPACT);
	assert_string_equal(text, "[\"r1\",\"r2\",\"r3\",\"r4\",\"r6\",\"r7\","
	    "\"y0\",\"y1\",\"y2\",\"y3\",\"y4\",\"y5\",\"b5\"]");
	free(text);
	json_decref(view);
	game_destroy(game);
}

static void
test_example_game(void **unused)
{
	test_check_example("sticheln-game");
}

static void
test_example_illegal(void **unused)
{
	test_check_example("sticheln-illegal");
}

/* The illegal example, inline, so it runs even without shared/. */
static void
test_out_of_turn_inline(void **unused)
{
	json_t *out;

	assert_int_equal(test_replay("{\"game\":\"sticheln\",\"players\":"
	    "[\"p0\",\"p1\",\"p2\"],\"first\":2,\"options\":{\"dm\":true},"
	    "\"deals\":[{\"hands\":["
	    "[\"b5\",\"g0\",\"g6\",\"b7\",\"n1\",\"r0\",\"y2\",\"g2\",\"g7\","
	    "\"b6\",\"y0\",\"y8\",\"b8\",\"r7\",\"g8\"],"
	    "[\"r5\",\"r2\",\"b3\",\"n8\",\"y6\",\"b2\",\"r3\",\"g1\",\"y4\","
	    "\"n2\",\"n7\",\"n6\",\"y1\",\"y5\",\"n3\"],"
	    "[\"r4\",\"g4\",\"r1\",\"r8\",\"n4\",\"b1\",\"n0\",\"b0\",\"b4\","
	    "\"y3\",\"n5\",\"r6\",\"g3\",\"y7\",\"g5\"]]}],\"actions\":["
	    "{\"seat\":2,\"select\":\"y3\"},{\"seat\":1,\"select\":\"n3\"},"
	    "{\"seat\":0,\"select\":\"y8\"},{\"seat\":2,\"play\":\"b4\"},"
	    "{\"seat\":0,\"play\":\"y0\"},{\"seat\":1,\"play\":\"r2\"},"
	    "{\"seat\":1,\"play\":\"r5\"},{\"seat\":2,\"play\":\"r8\"},"
	    "{\"seat\":0,\"play\":\"g6\"},{\"seat\":0,\"play\":\"g7\"},"
	    "{\"seat\":1,\"play\":\"n2\"},{\"seat\":2,\"play\":\"b0\"},"
	    "{\"seat\":2,\"play\":\"y6\"}]}", &out), 1);
	/* n2 trumped g7, so seat 1 leads, not seat 2. */
	assert_int_equal(json_integer_value(json_object_get(out, "action")),
	    12);
	json_decref(out);
}

/*
 * Random games through test_random_game(): they finish, replay to the same
 * result, every round has 14 tricks and hands out all 14 * seats cards,
 * each round's first leader moves left, and the highest totals win.
 */
static void
test_random_games_property(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 2028);
	for (int g = 0; g < 3000; g++) {
		struct game_setup setup;
		struct game *game;
		const struct sticheln_state *s;
		json_t *result, *rounds, *winners;
		long total[GAME_MAX_SEATS] = { 0 }, high;
		int nseats, nrounds, finished;
		size_t k = 0;

		memset(&setup, 0, sizeof(setup));
		setup.nseats = nseats = 3 + (int)rng_below(&rng, 4);
		setup.first = (int)rng_below(&rng, (uint32_t)nseats);
		setup.options.value[STICHELN_OPT_DM] = g % 2;
		nrounds = g % 2 ? 4 : 5;
		game = test_random_game(&sticheln_game, &setup, &rng,
		    g % 4 == 1 ? (int)rng_below(&rng, 400) : -1);
		s = game->state;
		result = sticheln_game.result(game->state);
		rounds = json_object_get(result, "rounds");
		finished = json_is_true(json_object_get(result, "finished"));
		assert_true(json_array_size(rounds) <= (size_t)nrounds);
		if (g % 4 != 1) {
			assert_true(finished);
			assert_int_equal(json_array_size(rounds), nrounds);
		}
		for (size_t r = 0; r < json_array_size(rounds); r++) {
			json_t *round = json_array_get(rounds, r);
			json_t *points = json_object_get(round, "points");
			json_t *tricks = json_object_get(round, "tricks");
			int captured = 0;

			if (json_array_size(tricks) > 0)
				assert_int_equal(json_integer_value(
				    json_object_get(json_array_get(tricks, 0),
				    "leader")),
				    (setup.first + (int)r) % nseats);
			if (json_is_null(points))
				continue;
			assert_int_equal(json_array_size(tricks), 14);
			for (int seat = 0; seat < nseats; seat++) {
				assert_true(json_is_string(json_array_get(
				    json_object_get(round, "selected"),
				    (size_t)seat)));
				captured += s->captured[r][seat];
				total[seat] += test_int_at(points,
				    (size_t)seat);
			}
			assert_int_equal(captured, 14 * nseats);
		}
		high = total[0];
		for (int seat = 0; seat < nseats; seat++) {
			assert_int_equal(total[seat], test_int_at(
			    json_object_get(result, "scores"), (size_t)seat));
			if (total[seat] > high)
				high = total[seat];
		}
		winners = json_object_get(result, "winners");
		for (int seat = 0; finished && seat < nseats; seat++)
			if (total[seat] == high)
				assert_int_equal(test_int_at(winners, k++),
				    seat);
		assert_int_equal(json_array_size(winners), k);
		test_check_replays_to(game, result);
		json_decref(result);
		game_destroy(game);
	}
}

/* A naive trick winner: the index in the trick of the winning card. */
static int
naive_winner(const int *faces, int n)
{
	int lead = faces[0] / 15, best = -1;

	/* Trumps: non-zero cards not of the lead colour; first of equals. */
	for (int i = 0; i < n; i++)
		if (faces[i] % 15 != 0 && faces[i] / 15 != lead &&
		    (best < 0 || faces[i] % 15 > faces[best] % 15))
			best = i;
	if (best >= 0)
		return best;
	for (int i = 0; i < n; i++)
		if (faces[i] % 15 != 0 && faces[i] / 15 == lead &&
		    (best < 0 || faces[i] % 15 > faces[best] % 15))
			best = i;
	return best >= 0 ? best : 0;
}

/* During selection no view shows a selection to anyone but its owner. */
static void
check_selections_hidden(const struct game *game, int nseats)
{
	for (int v = -1; v < nseats; v++) {
		json_t *view = sticheln_game.view(game->state, v);
		json_t *sel = json_object_get(view, "selected");
		json_t *colours = json_object_get(view, "penalty_colours");

		for (int o = 0; o < nseats; o++) {
			if (o == v)
				continue;
			assert_true(json_is_null(json_array_get(sel,
			    (size_t)o)));
			assert_true(json_is_null(json_array_get(colours,
			    (size_t)o)));
		}
		json_decref(view);
	}
}

/*
 * Random play checked trick by trick against the naive winner and round by
 * round against naively counted points; the views never show a hand or an
 * unrevealed selection to anyone else.
 */
static void
test_random_play_matches_naive_rules(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 4242);
	for (int g = 0; g < 300; g++) {
		int nseats = 3 + g % 4;
		struct game *game = new_game(nseats, g % 3 == 0, g % nseats);
		const struct sticheln_state *s = game->state;
		int trick[GAME_MAX_SEATS], sel[GAME_MAX_SEATS], ntrick = 0;
		long points[GAME_MAX_SEATS] = { 0 };

		while (sticheln_game.phase(game->state) != PHASE_OVER) {
			struct action legal[GAME_MAX_ACTIONS];
			const struct action *a;
			int seats[GAME_MAX_SEATS];
			char err[GAME_ERR_LEN];
			int n, seat, round = s->round, trick_no, winner;

			if (sticheln_game.phase(game->state) == PHASE_DEAL) {
				deal_random(game, &rng);
				memset(points, 0, sizeof(points));
				continue;
			}
			n = sticheln_game.to_act(game->state, seats);
			seat = seats[rng_below(&rng, (uint32_t)n)];
			if (s->r.phase == PHASE_SELECT && g % 10 == 0)
				check_selections_hidden(game, nseats);
			n = sticheln_game.legal(game->state, seat, legal,
			    GAME_MAX_ACTIONS);
			assert_true(n > 0 && n <= 15);
			a = &legal[rng_below(&rng, (uint32_t)n)];
			if (a->kind == ACTION_SELECT)
				sel[seat] = a->cards[0];
			else
				trick[ntrick++] = a->cards[0];
			trick_no = s->r.trick_no;
			if (game_apply(game, a, err, sizeof(err)) != 0)
				fail_msg("legal refused: %s", err);
			if (ntrick < nseats)
				continue;
			/* A trick is complete: check its winner. */
			winner = (s->tricks[round][trick_no] & 15) +
			    naive_winner(trick, nseats);
			winner %= nseats;
			assert_int_equal(s->tricks[round][trick_no] >> 4,
			    winner);
			for (int i = 0; i < nseats; i++)
				points[winner] += trick[i] / 15 ==
				    sel[winner] / 15 ? -(trick[i] % 15) : 1;
			ntrick = 0;
			if (trick_no + 1 < 14)
				continue;
			/* The round is scored: check every seat's points. */
			assert_int_equal(s->scored, round + 1);
			for (int i = 0; i < nseats; i++)
				assert_int_equal(s->points[round][i],
				    points[i] - sel[i] % 15);
		}
		game_destroy(game);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_codes),
		cmocka_unit_test(test_decks_and_own_deals),
		cmocka_unit_test(test_deal_checks),
		cmocka_unit_test(test_zero_led_sets_lead_colour),
		cmocka_unit_test(test_equal_trumps_first_wins),
		cmocka_unit_test(test_all_zeros_leader_wins),
		cmocka_unit_test(test_lead_wins_when_nobody_trumps),
		cmocka_unit_test(test_highest_lead_colour_without_trump),
		cmocka_unit_test(test_worked_score_example),
		cmocka_unit_test(test_first_leader_rotates),
		cmocka_unit_test(test_dm_plays_four_rounds),
		cmocka_unit_test(test_selection_rules),
		cmocka_unit_test(test_view_hides_selections_and_hands),
		cmocka_unit_test(test_example_game),
		cmocka_unit_test(test_example_illegal),
		cmocka_unit_test(test_out_of_turn_inline),
		cmocka_unit_test(test_random_games_property),
		cmocka_unit_test(test_random_play_matches_naive_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_birdhead.c - every rule of RULES.md section 2 (BirdHead), each with
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

#include "birdhead.h"
#include "testutil.h"

static struct game *
new_game(int nseats, int first)
{
	char err[GAME_ERR_LEN];
	struct game_setup setup = { .nseats = nseats, .first = first };
	struct game *game;

	game = game_create(&birdhead_game, &setup, NULL, err, sizeof(err));
	if (game == NULL)
		fail_msg("setup refused: %s", err);
	return game;
}

/* Fills deal from hands written as "2 3 4|5 6 7|..." (seats split by |). */
static void
parse_hands(const char *hands, struct deal *deal)
{
	char buf[512], *save = NULL, *save2 = NULL;
	int seat = 0;

	memset(deal, 0, sizeof(*deal));
	deal->turned = -1;
	snprintf(buf, sizeof(buf), "%s", hands);
	for (char *h = strtok_r(buf, "|", &save); h != NULL;
	    h = strtok_r(NULL, "|", &save), seat++)
		for (char *c = strtok_r(h, " ", &save2); c != NULL;
		    c = strtok_r(NULL, " ", &save2)) {
			int face = birdhead_game.parse_card(c);

			assert_true(face >= 0);
			deal->cards[seat][deal->count[seat]++] = (uint8_t)face;
		}
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

static const struct birdhead_state *
state(const struct game *game)
{
	return game->state;
}

/* A play action of the codes in cards ("7 7"). */
static struct action
play_action(int seat, const char *cards)
{
	struct action a = { .seat = (int8_t)seat, .kind = ACTION_PLAY };
	char buf[64], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", cards);
	for (char *c = strtok_r(buf, " ", &save); c != NULL;
	    c = strtok_r(NULL, " ", &save)) {
		int face = birdhead_game.parse_card(c);

		assert_true(face >= 0 && a.ncards < GAME_MAX_PLAY);
		a.cards[a.ncards++] = (uint8_t)face;
	}
	return a;
}

static void
play(struct game *game, int seat, const char *cards)
{
	char err[GAME_ERR_LEN];
	struct action a = play_action(seat, cards);

	if (game_apply(game, &a, err, sizeof(err)) != 0)
		fail_msg("seat %d playing %s refused: %s", seat, cards, err);
}

/* Checks that action is refused for the reason why and changes nothing. */
static void
refuse_action(struct game *game, const struct action *a, const char *why)
{
	unsigned char before[sizeof(struct birdhead_state)];
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
refuse(struct game *game, int seat, const char *cards, const char *why)
{
	struct action a = play_action(seat, cards);

	refuse_action(game, &a, why);
}

/* The seat to act now (exactly one in BirdHead). */
static int
turn(const struct game *game)
{
	int seats[GAME_MAX_SEATS];

	assert_int_equal(birdhead_game.to_act(game->state, seats), 1);
	return seats[0];
}

/* The current standard as codes joined by spaces ("" between tricks). */
static void
standard(const struct game *game, char *buf, size_t len)
{
	json_t *view = birdhead_game.view(game->state, -1);
	json_t *std = json_object_get(view, "standard");

	buf[0] = '\0';
	for (size_t i = 0; i < json_array_size(std); i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", i ? " " : "",
		    json_string_value(json_array_get(std, i)));
	}
	json_decref(view);
}

static void
assert_standard(const struct game *game, const char *expected)
{
	char buf[32];

	standard(game, buf, sizeof(buf));
	assert_string_equal(buf, expected);
}

/* A result entry of round r: "points", "losers" or "tricks". */
static json_t *
round_result(const struct game *game, int round, const char *key)
{
	json_t *result = birdhead_game.result(game->state);
	json_t *v = json_object_get(json_array_get(json_object_get(result,
	    "rounds"), (size_t)round), key);

	assert_non_null(v);
	json_incref(v);
	json_decref(result);
	return v;
}

static void
assert_ints(const json_t *list, const int *expected, size_t n)
{
	assert_int_equal(json_array_size(list), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(test_int_at(list, i), expected[i]);
}

/* Three seats that can lead 7 7 / answer 8 10 / and a spare hand. */
static const char standard_deal[] =
    "7 7 2 3 4 5 6 9 9 11|8 10 2 2 3 4 5 6 6 11|9 9 10 11 2 3 4 5 8 8";

/* Three seats of three triples and an 11 each. */
static const char triples_deal[] =
    "2 2 2 5 5 5 8 8 8 11|3 3 3 6 6 6 9 9 9 11|4 4 4 7 7 7 10 10 10 11";

static void
test_card_codes(void **unused)
{
	char buf[8];

	for (int rank = 2; rank <= 11; rank++) {
		snprintf(buf, sizeof(buf), "%d", rank);
		assert_int_equal(birdhead_game.parse_card(buf), rank);
		birdhead_game.format_card(rank, buf, sizeof(buf));
		assert_int_equal(atoi(buf), rank);
	}
	assert_int_equal(birdhead_game.parse_card("02"), -1);
	assert_int_equal(birdhead_game.parse_card("1"), -1);
	assert_int_equal(birdhead_game.parse_card("0"), -1);
	assert_int_equal(birdhead_game.parse_card("12"), -1);
	assert_int_equal(birdhead_game.parse_card("010"), -1);
	assert_int_equal(birdhead_game.parse_card("+5"), -1);
	assert_int_equal(birdhead_game.parse_card(" 5"), -1);
	assert_int_equal(birdhead_game.parse_card("10 "), -1);
	assert_int_equal(birdhead_game.parse_card(""), -1);
	assert_int_equal(birdhead_game.parse_card("r5"), -1);
	assert_int_equal(birdhead_game.parse_card(NULL), -1);
	assert_null(birdhead_game.options[0].name);
	assert_int_equal(birdhead_game.max_play_cards, 3);
	assert_ptr_equal(game_find("BirdHead"), &birdhead_game);
}

static void
test_hand_sizes_and_own_deals(void **unused)
{
	static const int sizes[] = { 10, 10, 10, 8 };
	struct rng rng;

	rng_seed(&rng, 5);
	for (int n = 3; n <= 6; n++) {
		assert_int_equal(birdhead_hand_size(n), sizes[n - 3]);
		for (int i = 0; i < 50; i++) {
			struct game *game = new_game(n, 0);
			struct deal deal;
			int copies[BIRDHEAD_FACES] = { 0 };
			char err[GAME_ERR_LEN];

			birdhead_game.make_deal(game->state, &rng, &deal);
			for (int seat = 0; seat < n; seat++) {
				assert_int_equal(deal.count[seat],
				    sizes[n - 3]);
				for (int k = 0; k < deal.count[seat]; k++)
					copies[deal.cards[seat][k]]++;
			}
			for (int f = BIRDHEAD_LOW; f <= BIRDHEAD_HIGH; f++)
				assert_true(copies[f] <= BIRDHEAD_COPIES);
			assert_int_equal(birdhead_game.check_deal(&game->setup,
			    0, &deal, err, sizeof(err)), 0);
			game_destroy(game);
		}
	}
}

static void
test_deal_checks(void **unused)
{
	struct game *game = new_game(3, 0);
	struct deal deal;
	char err[GAME_ERR_LEN];
	json_t *out;

	/* Nine cards instead of ten. */
	parse_hands("2 2 3 3 4 4 5 5 6|7 7 8 8 9 9 10 10 11 11|"
	    "2 3 4 5 6 7 8 9 10 11", &deal);
	assert_int_equal(birdhead_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "Seat 0 holds 9 cards instead of 10.");
	/* Six 2s. */
	parse_hands("2 2 2 2 2 2 3 3 3 3|4 4 4 4 5 5 5 5 6 6|"
	    "7 7 7 7 8 8 8 8 9 9", &deal);
	assert_int_equal(birdhead_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 2"));
	/* A proper deal of ten cards each passes, but not with a turned card. */
	parse_hands(triples_deal, &deal);
	assert_int_equal(birdhead_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), 0);
	deal.turned = 7;
	assert_int_equal(birdhead_game.check_deal(&game->setup, 0, &deal, err,
	    sizeof(err)), -1);
	deal.turned = -1;
	game_destroy(game);

	/* Through replay: malformed records, exit 2 and no action index. */
	assert_int_equal(test_replay("{\"game\":\"birdhead\",\"players\":"
	    "[\"a\",\"b\",\"c\"],\"first\":0,\"deals\":[{\"hands\":"
	    "[[\"02\",\"2\",\"2\",\"3\",\"3\",\"3\",\"4\",\"4\",\"4\",\"5\"],"
	    "[\"5\",\"5\",\"6\",\"6\",\"6\",\"7\",\"7\",\"7\",\"8\",\"8\"],"
	    "[\"8\",\"9\",\"9\",\"9\",\"10\",\"10\",\"10\",\"11\",\"11\","
	    "\"11\"]]}],\"actions\":[]}", &out), 2);
	assert_true(json_is_null(json_object_get(out, "action")));
	json_decref(out);
	assert_int_equal(test_replay("{\"game\":\"birdhead\",\"players\":"
	    "[\"a\",\"b\",\"c\"],\"first\":0,\"options\":{\"dm\":true},"
	    "\"deals\":[],\"actions\":[]}", &out), 2);
	json_decref(out);
	assert_int_equal(test_replay("{\"game\":\"birdhead\",\"players\":"
	    "[\"a\",\"b\"],\"first\":0,\"deals\":[],\"actions\":[]}", &out),
	    2);
	json_decref(out);
}

static void
test_round_limit(void **unused)
{
	struct game *game = new_game(3, 0);
	struct birdhead_state copy;
	struct deal deal;
	char err[GAME_ERR_LEN];

	parse_hands(triples_deal, &deal);
	assert_int_equal(birdhead_game.check_deal(&game->setup,
	    BIRDHEAD_MAX_ROUNDS - 1, &deal, err, sizeof(err)), 0);
	assert_int_equal(birdhead_game.check_deal(&game->setup,
	    BIRDHEAD_MAX_ROUNDS, &deal, err, sizeof(err)), -1);
	/* A 65th round would not fit the history: refused, not overflowed. */
	memcpy(&copy, game->state, sizeof(copy));
	copy.round = BIRDHEAD_MAX_ROUNDS - 1;
	assert_int_equal(birdhead_game.start_round(&copy, &deal, err,
	    sizeof(err)), -1);
	assert_int_equal(copy.round, BIRDHEAD_MAX_ROUNDS - 1);
	game_destroy(game);
}

static void
test_meeting_play_becomes_standard(void **unused)
{
	struct game *game = new_game(3, 0);
	struct action legal[GAME_MAX_ACTIONS];
	int n;

	assert_int_equal(deal_hands(game, standard_deal), 0);
	assert_int_equal(turn(game), 0);
	play(game, 0, "7 7");
	assert_standard(game, "7 7");
	play(game, 1, "10 8");
	assert_standard(game, "8 10");
	/* 9 9 beats 8 but not 10; 8 9 beats neither in second place. */
	refuse(game, 2, "9 9", "must meet 8 10");
	refuse(game, 2, "8 9", "must meet 8 10");
	refuse(game, 2, "2 4", "lowest cards, 2 3");
	/* Seat 2 may meet 8 10 position by position or play 2 3. */
	n = birdhead_game.legal(game->state, 2, legal, GAME_MAX_ACTIONS);
	assert_int_equal(n, 6);
	assert_int_equal(legal[0].cards[0], 2);
	assert_int_equal(legal[0].cards[1], 3);
	play(game, 2, "11 9");
	assert_standard(game, "");
	/* Seat 2's 11 is the strongest card: it leads next. */
	assert_int_equal(turn(game), 2);
	game_destroy(game);

	game = new_game(3, 0);
	assert_int_equal(deal_hands(game, standard_deal), 0);
	play(game, 0, "7 7");
	play(game, 1, "8 10");
	/* The lowest cards are always allowed and leave the standard. */
	play(game, 2, "3 2");
	assert_int_equal(turn(game), 1);
	game_destroy(game);
}

static void
test_lowest_cards_escape(void **unused)
{
	struct game *game = new_game(3, 0);

	assert_int_equal(deal_hands(game, standard_deal), 0);
	play(game, 0, "11");
	/* Seat 1 could meet 11 with its 11, or play its lowest, a 2. */
	refuse(game, 1, "3", "lowest cards, 2");
	refuse(game, 1, "10", "must meet 11");
	play(game, 1, "2");
	assert_standard(game, "11");
	refuse(game, 2, "8", "lowest cards, 2");
	play(game, 2, "2");
	assert_int_equal(turn(game), 0);
	game_destroy(game);
}

static void
test_lowest_that_meets_raises_standard(void **unused)
{
	struct game *game = new_game(3, 0);

	assert_int_equal(deal_hands(game, "3 3 3 2 2 10 10 11 11 11|"
	    "5 6 6 7 7 8 8 9 9 10|2 4 4 4 5 5 6 7 8 9"), 0);
	play(game, 0, "3");
	/* Seat 1's lowest card, 5, also meets 3: it is the new standard. */
	play(game, 1, "5");
	assert_standard(game, "5");
	/* So 4 no longer meets it, and it is not seat 2's lowest either. */
	refuse(game, 2, "4", "must meet 5");
	play(game, 2, "5");
	/* Equal strongest cards: the later one wins the trick. */
	assert_int_equal(turn(game), 2);
	game_destroy(game);
}

static void
test_strongest_card_ties_latest_wins(void **unused)
{
	struct game *game = new_game(3, 0);

	assert_int_equal(deal_hands(game, standard_deal), 0);
	play(game, 0, "11");
	play(game, 1, "11");
	play(game, 2, "11");
	assert_int_equal(turn(game), 2);
	/* Seat 2 leads 9, seat 0 and seat 1 answer with their lowest. */
	play(game, 2, "9");
	play(game, 0, "9");
	play(game, 1, "2");
	assert_int_equal(turn(game), 0);
	/* Again, with the tie between the leader and the last seat. */
	play(game, 0, "9");
	play(game, 1, "2");
	play(game, 2, "9");
	assert_int_equal(turn(game), 2);
	game_destroy(game);
}

static void
test_lead_rules(void **unused)
{
	struct game *game = new_game(3, 0);

	assert_int_equal(deal_hands(game, standard_deal), 0);
	refuse(game, 1, "8", "seat 0's turn");
	refuse(game, 0, "7 9", "one rank");
	refuse(game, 0, "7 7 7", "does not hold 7 7 7");
	refuse(game, 0, "8", "does not hold 8");
	play(game, 0, "7 7");
	refuse(game, 1, "8", "Play 2 cards");
	refuse(game, 1, "8 10 11", "Play 2 cards");
	game_destroy(game);
}

static void
test_lead_must_keep_a_card(void **unused)
{
	struct game *game = new_game(3, 0);
	struct action legal[GAME_MAX_ACTIONS];
	int n;

	assert_int_equal(deal_hands(game, triples_deal), 0);
	play(game, 0, "2 2 2");
	play(game, 1, "3 3 3");
	play(game, 2, "4 4 4");
	assert_int_equal(turn(game), 2);
	play(game, 2, "10 10 10");
	play(game, 0, "5 5 5");
	play(game, 1, "6 6 6");
	play(game, 2, "7");
	play(game, 0, "8");
	play(game, 1, "11");
	/* Seat 1 holds 9 9 9: a lead of all three would empty its hand. */
	assert_int_equal(turn(game), 1);
	refuse(game, 1, "9 9 9", "keep at least one card");
	n = birdhead_game.legal(game->state, 1, legal, GAME_MAX_ACTIONS);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		assert_true(legal[i].ncards < 3);
	game_destroy(game);
}

/* Plays round 1 of triples_deal, which ends with seats 0 and 2 tied. */
static void
play_tied_round(struct game *game)
{
	play(game, 0, "2 2 2");
	play(game, 1, "3 3 3");
	play(game, 2, "4 4 4");
	play(game, 2, "10 10 10");
	play(game, 0, "5 5 5");
	play(game, 1, "6 6 6");
	play(game, 2, "7");
	play(game, 0, "8");
	play(game, 1, "11");
	play(game, 1, "9 9");
	refuse(game, 2, "7 11", "lowest cards, 7 7");
	play(game, 2, "7 7");
	play(game, 0, "8 8");
}

static void
test_tied_losers_and_next_start(void **unused)
{
	static const int points[] = { 11, 0, 11 }, losers[] = { 0, 2 };
	struct game *game = new_game(3, 0);
	json_t *v;

	assert_int_equal(deal_hands(game, triples_deal), 0);
	play_tied_round(game);
	/* The reveal happened by itself: 0 and 2 show 11, seat 1 a 9. */
	assert_int_equal(birdhead_game.phase(game->state), PHASE_DEAL);
	v = round_result(game, 0, "points");
	assert_ints(v, points, 3);
	json_decref(v);
	v = round_result(game, 0, "losers");
	assert_ints(v, losers, 2);
	json_decref(v);
	/* The reveal is no trick: four tricks were played. */
	v = round_result(game, 0, "tricks");
	assert_int_equal(json_array_size(v), 4);
	json_decref(v);
	/*
	 * Seat 1 won the last trick, so the reveal goes 1, 2, 0: seat 0 is
	 * the last loser and the seat on its left, 1, starts round 2.
	 */
	assert_int_equal(state(game)->next_start, 1);
	assert_int_equal(deal_hands(game, triples_deal), 0);
	assert_int_equal(turn(game), 1);
	game_destroy(game);
}

static void
test_game_ends_at_22_lowest_wins(void **unused)
{
	static const int scores[] = { 22, 11, 22 }, winners[] = { 1 };
	static const int losers[] = { 0, 1, 2 };
	struct game *game = new_game(3, 0);
	json_t *result, *v;

	assert_int_equal(deal_hands(game, triples_deal), 0);
	play_tied_round(game);
	assert_int_equal(deal_hands(game, triples_deal), 0);
	result = birdhead_game.result(game->state);
	assert_false(json_is_true(json_object_get(result, "finished")));
	assert_true(json_is_null(json_object_get(json_array_get(
	    json_object_get(result, "rounds"), 1), "points")));
	assert_int_equal(json_array_size(json_object_get(json_array_get(
	    json_object_get(result, "rounds"), 1), "losers")), 0);
	json_decref(result);
	play(game, 1, "3 3 3");
	play(game, 2, "4 4 4");
	play(game, 0, "5 5 5");
	play(game, 0, "8 8 8");
	play(game, 1, "9 9 9");
	play(game, 2, "10 10 10");
	play(game, 2, "7 7 7");
	play(game, 0, "2 2 2");
	play(game, 1, "6 6 6");
	/* Everybody reveals an 11: all three lose. */
	assert_int_equal(birdhead_game.phase(game->state), PHASE_OVER);
	v = round_result(game, 1, "losers");
	assert_ints(v, losers, 3);
	json_decref(v);
	result = birdhead_game.result(game->state);
	assert_true(json_is_true(json_object_get(result, "finished")));
	assert_ints(json_object_get(result, "scores"), scores, 3);
	assert_ints(json_object_get(result, "winners"), winners, 1);
	json_decref(result);
	/* A further deal is never started, and actions are refused. */
	assert_int_equal(deal_hands(game, triples_deal), 0);
	refuse(game, 1, "3", "over");
	game_destroy(game);
}

static void
test_other_actions_refused(void **unused)
{
	struct game *game = new_game(4, 3);
	struct action a;

	assert_int_equal(deal_hands(game, "2 2 2 2 2 3 3 3 3 3|"
	    "4 4 4 4 4 5 5 5 5 5|6 6 6 6 6 7 7 7 7 7|"
	    "8 8 8 8 8 9 9 9 9 9"), 0);
	assert_int_equal(turn(game), 3);
	a = (struct action){ .seat = 3, .kind = ACTION_BID, .value = 1 };
	refuse_action(game, &a, "no bidding");
	a = (struct action){ .seat = 3, .kind = ACTION_TRUMP };
	refuse_action(game, &a, "no trump");
	a = (struct action){ .seat = 3, .kind = ACTION_SELECT, .ncards = 1,
	    .cards = { 8 } };
	refuse_action(game, &a, "select");
	a = (struct action){ .seat = 5, .kind = ACTION_PLAY, .ncards = 1,
	    .cards = { 8 } };
	refuse_action(game, &a, "no seat 5");
	a = (struct action){ .seat = 3, .kind = ACTION_PLAY, .ncards = 1,
	    .cards = { 12 } };
	refuse_action(game, &a, "2 to 11");
	a = (struct action){ .seat = 3, .kind = ACTION_PLAY, .ncards = 0 };
	refuse_action(game, &a, "Play 1 to 3");
	game_destroy(game);
}

static void
test_view(void **unused)
{
	struct game *game = new_game(3, 0);
	json_t *view, *trick;
	char *text;

	assert_int_equal(deal_hands(game, standard_deal), 0);
	play(game, 0, "7 7");
	view = birdhead_game.view(game->state, 1);
	assert_string_equal(json_string_value(json_object_get(view, "game")),
	    "birdhead");
	assert_string_equal(json_string_value(json_object_get(view, "phase")),
	    "play");
	assert_int_equal(json_integer_value(json_object_get(view, "round")), 1);
	assert_int_equal(test_int_at(json_object_get(view, "to_act"), 0), 1);
	assert_int_equal(test_int_at(json_object_get(view, "hand_counts"), 0),
	    8);
	assert_int_equal(test_int_at(json_object_get(view, "hand_counts"), 1),
	    10);
	trick = json_object_get(view, "trick");
	assert_int_equal(json_array_size(trick), 1);
	assert_int_equal(json_array_size(json_object_get(json_array_get(trick,
	    0), "cards")), 2);
	/* Seat 1 sees its own hand, sorted, and nobody else's. */
	text = json_dumps(json_object_get(view, "hand"), JSON_COMPACT);
	assert_string_equal(text,
	    "[\"2\",\"2\",\"3\",\"4\",\"5\",\"6\",\"6\",\"8\",\"10\",\"11\"]");
	free(text);
	json_decref(view);
	view = birdhead_game.view(game->state, -1);
	assert_null(json_object_get(view, "hand"));
	text = json_dumps(view, JSON_COMPACT);
	assert_null(strstr(text, "\"hand\""));
	free(text);
	json_decref(view);
	game_destroy(game);
}

static void
test_example_game(void **unused)
{
	test_check_example("birdhead-game");
}

static void
test_example_illegal(void **unused)
{
	test_check_example("birdhead-illegal");
}

/* The illegal example, inline, so it runs even without shared/. */
static void
test_illegal_follow_inline(void **unused)
{
	json_t *out;

	assert_int_equal(test_replay("{\"game\":\"birdhead\",\"players\":"
	    "[\"p0\",\"p1\",\"p2\",\"p3\",\"p4\"],\"first\":4,\"options\":{},"
	    "\"deals\":[{\"hands\":["
	    "[\"2\",\"2\",\"7\",\"4\",\"9\",\"2\",\"3\",\"3\",\"4\",\"11\"],"
	    "[\"7\",\"11\",\"5\",\"7\",\"6\",\"9\",\"10\",\"2\",\"4\",\"2\"],"
	    "[\"10\",\"11\",\"3\",\"8\",\"5\",\"4\",\"8\",\"8\",\"3\",\"9\"],"
	    "[\"6\",\"10\",\"4\",\"6\",\"6\",\"7\",\"5\",\"10\",\"6\",\"3\"],"
	    "[\"11\",\"10\",\"8\",\"9\",\"5\",\"8\",\"9\",\"11\",\"7\",\"5\"]"
	    "]}],\"actions\":["
	    "{\"seat\":4,\"play\":[\"11\"]},{\"seat\":0,\"play\":[\"2\"]},"
	    "{\"seat\":1,\"play\":[\"2\"]},{\"seat\":2,\"play\":[\"3\"]},"
	    "{\"seat\":3,\"play\":[\"3\"]},{\"seat\":4,\"play\":[\"10\"]},"
	    "{\"seat\":0,\"play\":[\"2\"]},{\"seat\":1,\"play\":[\"2\"]},"
	    "{\"seat\":2,\"play\":[\"11\"]},{\"seat\":3,\"play\":[\"4\"]},"
	    "{\"seat\":2,\"play\":[\"5\"]},{\"seat\":3,\"play\":[\"10\"]},"
	    "{\"seat\":4,\"play\":[\"11\"]},{\"seat\":0,\"play\":[\"2\"]},"
	    "{\"seat\":1,\"play\":[\"11\"]},{\"seat\":1,\"play\":[\"4\"]},"
	    "{\"seat\":2,\"play\":[\"9\"]},{\"seat\":3,\"play\":[\"10\"]},"
	    "{\"seat\":4,\"play\":[\"5\"]},{\"seat\":0,\"play\":[\"3\"]},"
	    "{\"seat\":3,\"play\":[\"5\"]},{\"seat\":4,\"play\":[\"7\"]},"
	    "{\"seat\":0,\"play\":[\"3\"]},{\"seat\":1,\"play\":[\"5\"]},"
	    "{\"seat\":2,\"play\":[\"8\"]},{\"seat\":2,\"play\":[\"4\"]},"
	    "{\"seat\":3,\"play\":[\"6\"]},{\"seat\":4,\"play\":[\"5\"]},"
	    "{\"seat\":0,\"play\":[\"7\"]},{\"seat\":1,\"play\":[\"7\"]},"
	    "{\"seat\":1,\"play\":[\"7\"]},{\"seat\":2,\"play\":[\"10\"]},"
	    "{\"seat\":3,\"play\":[\"6\"]},{\"seat\":4,\"play\":[\"8\"]},"
	    "{\"seat\":0,\"play\":[\"9\"]}]}", &out), 1);
	/* Seat 0 holds 4 9 11: 9 neither meets 10 nor is its lowest. */
	assert_int_equal(json_integer_value(json_object_get(out, "action")),
	    34);
	json_decref(out);
}

/*
 * Random games through test_random_game(): they finish, replay to the same
 * result, penalties add up, and the game ends exactly when a penalty first
 * reaches 22, with the lowest totals winning.
 */
static void
test_random_games_property(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 2027);
	for (int g = 0; g < 2000; g++) {
		struct game_setup setup;
		struct game *game;
		json_t *result, *rounds, *scores;
		long total[GAME_MAX_SEATS] = { 0 };
		int nseats, finished, start = -1;
		long low;

		memset(&setup, 0, sizeof(setup));
		setup.nseats = nseats = 3 + (int)rng_below(&rng, 4);
		setup.first = (int)rng_below(&rng, (uint32_t)nseats);
		game = test_random_game(&birdhead_game, &setup, &rng,
		    g % 4 == 0 ? (int)rng_below(&rng, 300) : -1);
		result = birdhead_game.result(game->state);
		rounds = json_object_get(result, "rounds");
		scores = json_object_get(result, "scores");
		finished = json_is_true(json_object_get(result, "finished"));
		assert_true(json_array_size(rounds) <= BIRDHEAD_MAX_ROUNDS);
		for (size_t r = 0; r < json_array_size(rounds); r++) {
			json_t *round = json_array_get(rounds, r);
			json_t *points = json_object_get(round, "points");
			json_t *losers = json_object_get(round, "losers");
			json_t *tricks = json_object_get(round, "tricks");
			json_t *last;
			long max = 0;
			int rank = -1, lastloser = -1, from;

			assert_true(json_array_size(tricks) <=
			    (size_t)birdhead_hand_size(nseats) - 1);
			/* Round starts: setup.first, then left of the loser. */
			if (json_array_size(tricks) > 0)
				assert_int_equal(json_integer_value(
				    json_object_get(json_array_get(tricks, 0),
				    "leader")), r == 0 ? setup.first : start);
			for (size_t t = 1; t < json_array_size(tricks); t++)
				assert_int_equal(json_integer_value(
				    json_object_get(json_array_get(tricks, t),
				    "leader")), json_integer_value(
				    json_object_get(json_array_get(tricks,
				    t - 1), "winner")));
			if (json_is_null(points)) {
				assert_int_equal(json_array_size(losers), 0);
				assert_int_equal(r + 1,
				    json_array_size(rounds));
				continue;
			}
			/* Only the losers pay, and all pay the same rank. */
			assert_true(json_array_size(tricks) >= 1);
			assert_true(json_array_size(losers) >= 1);
			for (int seat = 0; seat < nseats; seat++) {
				long p = test_int_at(points, (size_t)seat);
				int lost = 0;

				for (size_t i = 0; i < json_array_size(losers);
				    i++)
					if (test_int_at(losers, i) == seat)
						lost = 1;
				if (lost) {
					assert_true(p >= 2 && p <= 11);
					assert_true(rank < 0 || rank == p);
					rank = (int)p;
				} else {
					assert_int_equal(p, 0);
				}
				total[seat] += p;
			}
			/* Left of the last loser, from the last winner on. */
			last = json_array_get(tricks, json_array_size(tricks) -
			    1);
			from = (int)json_integer_value(json_object_get(last,
			    "winner"));
			for (int i = 0; i < nseats; i++) {
				int seat = (from + i) % nseats;

				for (size_t k = 0; k < json_array_size(losers);
				    k++)
					if (test_int_at(losers, k) == seat)
						lastloser = seat;
			}
			start = (lastloser + 1) % nseats;
			for (int seat = 0; seat < nseats; seat++)
				if (total[seat] > max)
					max = total[seat];
			/* The game ends exactly when somebody reaches 22. */
			if (r + 1 < json_array_size(rounds))
				assert_true(max < BIRDHEAD_LIMIT);
			else if (max >= BIRDHEAD_LIMIT)
				assert_true(finished);
			else
				assert_false(finished);
		}
		low = total[0];
		for (int seat = 0; seat < nseats; seat++) {
			assert_int_equal(total[seat], test_int_at(scores,
			    (size_t)seat));
			if (total[seat] < low)
				low = total[seat];
		}
		if (finished) {
			json_t *winners = json_object_get(result, "winners");
			size_t k = 0;

			for (int seat = 0; seat < nseats; seat++)
				if (total[seat] == low)
					assert_int_equal(test_int_at(winners,
					    k++), seat);
			assert_int_equal(json_array_size(winners), k);
		} else {
			assert_int_equal(json_array_size(json_object_get(result,
			    "winners")), 0);
		}
		/* The record replays to the same result. */
		test_check_replays_to(game, result);
		json_decref(result);
		game_destroy(game);
	}
}

/* A naive reading of the play rules, to check legal() and apply(). */
static int
naive_allowed(const struct birdhead_state *s, int seat, const uint8_t *p,
    int n)
{
	const struct birdhead_round *r = &s->r;
	uint8_t hand[GAME_MAX_HAND];
	int held = 0, meets = 1;

	for (int f = BIRDHEAD_LOW; f <= BIRDHEAD_HIGH; f++)
		for (int c = 0; c < r->count[seat][f]; c++)
			hand[held++] = (uint8_t)f;
	/* The cards must be held: match each against the sorted hand. */
	for (int i = 0, j = 0; i < n; i++, j++) {
		while (j < held && hand[j] != p[i])
			j++;
		if (j == held)
			return 0;
	}
	if (r->trick_len == 0)
		return p[0] == p[n - 1] && n < held;
	if (n != r->width)
		return 0;
	for (int i = 0; i < n; i++)
		if (p[i] < r->standard[i])
			meets = 0;
	return meets || memcmp(p, hand, (size_t)n) == 0;
}

static int
in_legal(const struct action *legal, int n, const uint8_t *p, int k)
{
	int found = 0;

	for (int i = 0; i < n; i++)
		if (legal[i].ncards == k && memcmp(legal[i].cards, p,
		    (size_t)k) == 0)
			found++;
	return found;
}

/*
 * Tries every play of 1 to 3 cards (as sorted multisets) on a copy of s:
 * each is listed by legal() exactly when the naive rules allow it, and
 * apply() accepts it, in any order of its cards, exactly then.  Returns
 * how many are allowed.
 */
static int
check_candidates(const struct birdhead_state *s, int seat,
    const struct action *legal, int n)
{
	char err[GAME_ERR_LEN];
	int count = 0;

	for (int k = 1; k <= 3; k++) {
		uint8_t p[3];

		/* Loops past the play's length run once, at 11. */
		for (int a = 2; a <= 11; a++) {
			for (int b = k > 1 ? a : 11; b <= 11; b++) {
				for (int c = k > 2 ? b : 11; c <= 11; c++) {
					struct birdhead_state copy;
					struct action act = { .seat =
					    (int8_t)seat, .kind = ACTION_PLAY,
					    .ncards = (uint8_t)k };
					int ok;

					p[0] = (uint8_t)a;
					p[1] = (uint8_t)b;
					p[2] = (uint8_t)c;
					ok = naive_allowed(s, seat, p, k);
					assert_int_equal(in_legal(legal, n, p,
					    k), ok);
					count += ok;
					act.cards[0] = p[k - 1];
					memcpy(act.cards + 1, p, (size_t)k - 1);
					memcpy(&copy, s, sizeof(copy));
					assert_int_equal(birdhead_game.apply(
					    &copy, &act, err, sizeof(err)),
					    ok ? 0 : -1);
				}
			}
		}
	}
	return count;
}

/*
 * In random states, every candidate play of 1 to 3 cards is legal exactly
 * when the naive rules allow it, is listed once by legal(), and is accepted
 * by apply() exactly then; trick winners match a naive count.
 */
static void
test_legal_matches_naive_rules(void **unused)
{
	struct rng rng;

	rng_seed(&rng, 77);
	for (int g = 0; g < 60; g++) {
		struct game *game = new_game(3 + g % 4, g % 3);
		int best_seat = -1, best = -1;

		while (birdhead_game.phase(game->state) != PHASE_OVER) {
			struct action legal[GAME_MAX_ACTIONS];
			const struct birdhead_state *s = game->state;
			const struct action *a;
			char err[GAME_ERR_LEN];
			int seat, n, trick_no, round;

			if (birdhead_game.phase(game->state) == PHASE_DEAL) {
				struct deal deal;

				birdhead_game.make_deal(game->state, &rng,
				    &deal);
				if (game_add_deal(game, &deal, err,
				    sizeof(err)) != 0 ||
				    game_advance(game, err, sizeof(err)) != 0)
					fail_msg("deal refused: %s", err);
				continue;
			}
			seat = turn(game);
			n = birdhead_game.legal(game->state, seat, legal,
			    GAME_MAX_ACTIONS);
			assert_true(n > 0 && n < GAME_MAX_ACTIONS);
			assert_int_equal(check_candidates(s, seat, legal, n),
			    n);
			/* Play a random legal action; latest top card wins. */
			a = &legal[rng_below(&rng, (uint32_t)n)];
			if (s->r.trick_len == 0)
				best = -1;
			if (a->cards[a->ncards - 1] >= best) {
				best = a->cards[a->ncards - 1];
				best_seat = seat;
			}
			trick_no = s->r.trick_no;
			round = s->round;
			if (game_apply(game, a, err, sizeof(err)) != 0)
				fail_msg("legal refused: %s", err);
			if (s->ntricks[round] > trick_no)
				assert_int_equal(
				    s->tricks[round][trick_no] >> 4, best_seat);
		}
		game_destroy(game);
	}
}

static void
test_refusal_changes_nothing(void **unused)
{
	struct game *game = new_game(5, 2);
	unsigned char before[sizeof(struct birdhead_state)];
	struct rng rng;

	rng_seed(&rng, 18);
	for (int i = 0; i < 50000 &&
	    birdhead_game.phase(game->state) != PHASE_OVER; i++) {
		char err[GAME_ERR_LEN];
		struct action a;

		if (birdhead_game.phase(game->state) == PHASE_DEAL) {
			struct deal deal;

			birdhead_game.make_deal(game->state, &rng, &deal);
			assert_int_equal(game_add_deal(game, &deal, err,
			    sizeof(err)), 0);
			assert_int_equal(game_advance(game, err, sizeof(err)),
			    0);
			continue;
		}
		memset(&a, 0, sizeof(a));
		a.seat = (int8_t)rng_below(&rng, 6);
		a.kind = (uint8_t)(1 + rng_below(&rng, 4));
		a.ncards = (uint8_t)rng_below(&rng, 5);
		for (int k = 0; k < GAME_MAX_PLAY; k++)
			a.cards[k] = (uint8_t)(1 + rng_below(&rng, 12));
		memcpy(before, game->state, sizeof(before));
		if (game_apply(game, &a, err, sizeof(err)) != 0) {
			assert_memory_equal(before, game->state,
			    sizeof(before));
			assert_true(strlen(err) > 0);
		}
	}
	game_destroy(game);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_codes),
		cmocka_unit_test(test_hand_sizes_and_own_deals),
		cmocka_unit_test(test_deal_checks),
		cmocka_unit_test(test_round_limit),
		cmocka_unit_test(test_meeting_play_becomes_standard),
		cmocka_unit_test(test_lowest_cards_escape),
		cmocka_unit_test(test_lowest_that_meets_raises_standard),
		cmocka_unit_test(test_strongest_card_ties_latest_wins),
		cmocka_unit_test(test_lead_rules),
		cmocka_unit_test(test_lead_must_keep_a_card),
		cmocka_unit_test(test_tied_losers_and_next_start),
		cmocka_unit_test(test_game_ends_at_22_lowest_wins),
		cmocka_unit_test(test_other_actions_refused),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_example_game),
		cmocka_unit_test(test_example_illegal),
		cmocka_unit_test(test_illegal_follow_inline),
		cmocka_unit_test(test_random_games_property),
		cmocka_unit_test(test_legal_matches_naive_rules),
		cmocka_unit_test(test_refusal_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

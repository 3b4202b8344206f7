/*
 * test_wizard_mask.c - Wizard's card-mask path against its engine path:
 * thousands of seeded random games, every option family and seat count,
 * played through both in lockstep.  Both must deal the same cards from the
 * same draws, offer the same legal actions in the same order, and reach
 * byte-identical states after every action.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bits.h"
#include "rng.h"
#include "wizard.h"

/* Option sets that change what is legal, who acts or who wins tricks. */
static const char *const option_sets[] = {
	"", "notequal", "canadian", "evenbid", "hardcore", "hiddentip",
	"secret", "jesterbid", "nannie=2", "quick", "clairvoyance",
	"amigo",
};

static void
setup_for(struct game_setup *setup, int nseats, const char *options)
{
	char err[GAME_ERR_LEN];

	memset(setup, 0, sizeof(*setup));
	setup->nseats = nseats;
	setup->first = nseats - 1;
	if (*options != '\0' && game_option_set(&wizard_game,
	    &setup->options, options, err, sizeof(err)) != 0)
		fail_msg("option %s: %s", options, err);
}

/*
 * The legal actions of every seat agree with its legal mask: the same
 * count, the k-th action is the k-th move, and each action maps back to
 * its move.
 */
static void
check_legal(const struct wizard_state *s)
{
	struct action legal[GAME_MAX_ACTIONS], a;

	for (int seat = 0; seat < s->nseats; seat++) {
		int n = wizard_game.legal(s, seat, legal, GAME_MAX_ACTIONS);
		uint64_t moves = wizard_legal_mask(s, seat);

		assert_int_equal(n, bits_count64(moves));
		for (int i = 0; i < n; i++, moves &= moves - 1) {
			int move = bits_lowest64(moves);

			wizard_move_action(s, seat, move, &a);
			assert_true(action_equal(&a, &legal[i]));
			assert_memory_equal(&a, &legal[i], sizeof(a));
			assert_int_equal(wizard_action_move(s, &legal[i]),
			    move);
		}
	}
}

/*
 * One game through both paths, dealt with version of the deal algorithm;
 * returns the actions taken.
 */
static long
lockstep_game(const struct game_setup *setup, int version, uint64_t seed)
{
	struct wizard_state engine, mask;
	struct rng deal_engine, deal_mask, choose;
	struct action legal[GAME_MAX_ACTIONS];
	int seats[GAME_MAX_SEATS];
	long actions = 0;

	rng_seed(&deal_engine, seed);
	rng_seed(&deal_mask, seed);
	rng_seed(&choose, seed ^ UINT64_C(0x9e3779b97f4a7c15));
	wizard_game.init(&engine, setup);
	wizard_game.init(&mask, setup);
	for (;;) {
		enum game_phase phase = wizard_game.phase(&engine);
		int n, seat, mseat, k;
		uint64_t moves;

		assert_memory_equal(&engine, &mask, sizeof(engine));
		moves = wizard_next_moves(&mask, &mseat);
		if (phase == PHASE_OVER) {
			assert_true(moves == 0);
			return actions;
		}
		if (phase == PHASE_DEAL) {
			struct deal deal;

			assert_true(moves == 0);
			game_make_deal(&wizard_game, &engine, version,
			    &deal_engine, &deal);
			assert_int_equal(wizard_game.start_round(&engine,
			    &deal, NULL, 0), 0);
			if (version == 1)
				wizard_deal(&mask, &deal_mask);
			else
				game_deal(&wizard_game, &mask, version,
				    &deal_mask);
			/* The same draws, to the last one. */
			assert_memory_equal(&deal_engine, &deal_mask,
			    sizeof(deal_mask));
			continue;
		}
		check_legal(&mask);
		n = wizard_game.to_act(&engine, seats);
		assert_true(n >= 1);
		/* The mask path's next seat is the first the engine lists. */
		assert_int_equal(mseat, seats[0]);
		seat = seats[rng_below(&choose, (uint32_t)n)];
		n = wizard_game.legal(&engine, seat, legal, GAME_MAX_ACTIONS);
		moves = wizard_legal_mask(&mask, seat);
		k = (int)rng_below(&choose, (uint32_t)n);
		assert_int_equal(wizard_game.apply(&engine, &legal[k], NULL,
		    0), 0);
		for (int i = 0; i < k; i++)
			moves &= moves - 1;
		wizard_apply_mask(&mask, seat, bits_lowest64(moves));
		actions++;
	}
}

static void
test_mask_path_agrees_with_engine(void **unused)
{
	long games = 0, actions = 0;

	for (size_t o = 0; o < sizeof(option_sets) / sizeof(*option_sets);
	    o++) {
		for (int nseats = 3; nseats <= 6; nseats++) {
			struct game_setup setup;
			char err[GAME_ERR_LEN];

			setup_for(&setup, nseats, option_sets[o]);
			if (wizard_game.validate_options(&setup.options,
			    nseats, err, sizeof(err)) != 0)
				continue;
			for (uint64_t seed = 1; seed <= 60; seed++, games++)
				actions += lockstep_game(&setup,
				    1 + (int)(seed & 1),
				    seed * 1000003 + (uint64_t)nseats);
		}
	}
	/* Thousands of games, hundreds of thousands of actions. */
	assert_true(games >= 2000);
	assert_true(actions >= 500000);
}

/*
 * Refused actions have no move: a card not held, a suit not followed, a
 * bid out of range or of the wrong seat.
 */
static void
test_illegal_actions_have_no_move(void **unused)
{
	struct game_setup setup;
	struct wizard_state s;
	struct rng rng;
	struct action a;
	uint64_t hand, off;
	int seat;

	setup_for(&setup, 4, "");
	rng_seed(&rng, 7);
	wizard_game.init(&s, &setup);
	/* Two rounds on the lowest moves, then the deal of round 3. */
	while (s.round < 2 || s.r.phase == PHASE_PLAY) {
		uint64_t moves = wizard_next_moves(&s, &seat);

		if (moves == 0)
			wizard_deal(&s, &rng);
		else
			wizard_apply_mask(&s, seat, bits_lowest64(moves));
	}
	/* Three cards each; bids come first. */
	assert_int_equal(s.r.cards, 3);
	assert_true(wizard_next_moves(&s, &seat) != 0);
	a = (struct action){ .seat = (int8_t)((seat + 1) % 4),
	    .kind = ACTION_BID, .value = 0 };
	assert_int_equal(wizard_action_move(&s, &a), -1);
	a.seat = (int8_t)seat;
	a.value = 5;
	assert_int_equal(wizard_action_move(&s, &a), -1);
	a.kind = ACTION_PLAY;
	a.ncards = 1;
	a.cards[0] = 0;
	assert_int_equal(wizard_action_move(&s, &a), -1);
	while (s.r.phase != PHASE_PLAY) {
		uint64_t moves = wizard_next_moves(&s, &seat);

		wizard_apply_mask(&s, seat, bits_lowest64(moves));
	}
	seat = s.r.turn;
	hand = s.r.hand[seat];
	off = ~hand & ~WIZARD_WIZARD_MASK & ~WIZARD_JESTER_MASK &
	    ((UINT64_C(1) << 52) - 1);
	a = (struct action){ .seat = (int8_t)seat, .kind = ACTION_PLAY,
	    .ncards = 1, .cards = { (uint8_t)bits_lowest64(off) } };
	assert_int_equal(wizard_action_move(&s, &a), -1);
	a.ncards = 2;
	a.cards[0] = (uint8_t)bits_lowest64(hand);
	assert_int_equal(wizard_action_move(&s, &a), -1);
}

/*
 * The i-th of a run of test masks: as sparse as a last card or as full as
 * a whole deck (a random word thinned out i % 4 times), never empty.
 */
static uint64_t
test_mask(struct rng *rng, int i)
{
	uint64_t x = rng_next(rng);

	for (int thin = i % 4; thin > 0; thin--)
		x &= rng_next(rng);
	return x | UINT64_C(1) << (i % 64);
}

/*
 * bits_select64() names the k-th set bit, with the PDEP instruction or
 * without: checked against the bits listed one by one, over masks as
 * sparse as a last card and as full as a whole deck.
 */
static void
test_select_names_kth_bit(void **unused)
{
	struct rng rng;

	(void)unused;
	rng_seed(&rng, 19);
	for (int i = 0; i < 20000; i++) {
		uint64_t x = test_mask(&rng, i);
		int k = 0;

		for (uint64_t m = x; m != 0; m &= m - 1, k++)
			assert_int_equal(bits_select64(x, k),
			    __builtin_ctzll(m));
		assert_int_equal(k, bits_count64(x));
	}
	assert_int_equal(bits_select64(UINT64_C(1) << 63, 0), 63);
	assert_int_equal(bits_select64(~UINT64_C(0), 63), 63);
}

#if defined(BITS_HW)
/*
 * The forms chosen when the program runs give the portable forms'
 * answers.  Compiled for POPCNT and BMI2, the loop runs only where the
 * processor has them; elsewhere the test says it skipped.
 */
BITS_HW_TARGET static int
hw_disagreements(void)
{
	struct rng rng;
	int bad = 0;

	rng_seed(&rng, 23);
	for (int i = 0; i < 20000; i++) {
		uint64_t x = test_mask(&rng, i);

		bad += bits_count64_hw(x) != bits_count64(x);
		for (int k = 0; k < bits_count64(x); k++)
			bad += bits_select64_hw(x, k) != bits_select64(x, k);
	}
	return bad;
}
#endif

static void
test_hw_forms_agree(void **unused)
{
	(void)unused;
#if defined(BITS_HW)
	if (bits_hw_usable()) {
		assert_int_equal(hw_disagreements(), 0);
		return;
	}
#endif
	skip();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask_path_agrees_with_engine),
		cmocka_unit_test(test_illegal_actions_have_no_move),
		cmocka_unit_test(test_select_names_kth_bit),
		cmocka_unit_test(test_hw_forms_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_ai.c - the computer players: every level of every game plays
 * complete seeded games with legal actions only, decides the same way for
 * the same seed, and decides only from what its seat may see (shuffling
 * the others' cards and hidden bids or selections changes nothing); plus
 * sanity checks of the heuristics and a small arena.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ai.h"
#include "ai_game.h"
#include "birdhead.h"
#include "sticheln.h"
#include "testutil.h"
#include "wizard.h"

/* Hard in tests: a fixed number of worlds, so the seed alone decides. */
#define TEST_WORLDS 3

static const struct game_impl *const games[] = {
	&wizard_game, &birdhead_game, &sticheln_game,
};

/* Decides for seat with level; hard samples TEST_WORLDS worlds. */
static struct action
decide(const struct game *game, int seat, enum ai_level level, uint64_t seed,
    int history)
{
	struct ai_params params = { .level = level, .seed = seed,
	    .budget_ms = 5 };
	struct ai_limits limits = { .worlds = TEST_WORLDS };
	struct action a;

	assert_int_equal(ai_decide_ex(game->impl, game->state,
	    history ? game->actions : NULL, history ? game->nactions : 0,
	    seat, &params, &limits, &a), 0);
	return a;
}

static int
is_legal(const struct game *game, const struct action *a)
{
	struct action legal[GAME_MAX_ACTIONS];
	int n = game->impl->legal(game->state, a->seat, legal,
	    GAME_MAX_ACTIONS);

	for (int i = 0; i < n; i++)
		if (action_equal(a, &legal[i]))
			return 1;
	return 0;
}

/* Deals the next round from rng when the game waits for one. */
static void
deal_if_needed(struct game *game, struct rng *rng)
{
	char err[GAME_ERR_LEN];
	struct deal deal;

	if (game->impl->phase(game->state) != PHASE_DEAL)
		return;
	game->impl->make_deal(game->state, rng, &deal);
	if (game_add_deal(game, &deal, err, sizeof(err)) != 0 ||
	    game_advance(game, err, sizeof(err)) != 0)
		fail_msg("own deal refused: %s", err);
}

/*
 * A random setup: 3 to 6 seats, any first seat and, for Wizard, a random
 * valid set of options (with at most max_rounds rounds when > 0).
 */
static struct game_setup
random_setup(const struct game_impl *impl, struct rng *rng, int max_rounds)
{
	struct game_setup setup;
	char err[GAME_ERR_LEN];

	for (;;) {
		memset(&setup, 0, sizeof(setup));
		setup.nseats = 3 + (int)rng_below(rng, 4);
		setup.first = (int)rng_below(rng, (uint32_t)setup.nseats);
		if (impl == &wizard_game) {
			uint8_t cards[WIZARD_MAX_ROUNDS];
			int n;

			for (int i = 0; i < WIZARD_NOPTIONS; i++) {
				const struct game_option_desc *d =
				    &impl->options[i];

				if (i == WIZARD_OPT_ROUNDS ||
				    rng_below(rng, 4) != 0)
					continue;
				setup.options.value[i] = d->bare > 0 ?
				    d->bare : d->max;
			}
			if (impl->validate_options(&setup.options,
			    setup.nseats, err, sizeof(err)) != 0)
				continue;
			n = wizard_schedule(&setup.options, setup.nseats,
			    cards, err, sizeof(err));
			if (max_rounds > 0 && n > max_rounds)
				setup.options.value[WIZARD_OPT_ROUNDS] =
				    max_rounds;
		} else if (impl == &sticheln_game) {
			setup.options.value[STICHELN_OPT_DM] =
			    (int)rng_below(rng, 2);
		}
		if (impl->validate_options(&setup.options, setup.nseats, err,
		    sizeof(err)) == 0)
			return setup;
	}
}

static struct game *
new_game(const struct game_impl *impl, const struct game_setup *setup)
{
	char err[GAME_ERR_LEN];
	struct game *game = game_create(impl, setup, NULL, err, sizeof(err));

	if (game == NULL)
		fail_msg("setup refused: %s", err);
	return game;
}

/*
 * Plays a game with the level of each seat in levels, checking that every
 * choice is legal; stops after max_actions actions when >= 0.
 */
static struct game *
play(const struct game_impl *impl, const struct game_setup *setup,
    const enum ai_level *levels, struct rng *rng, int max_actions)
{
	struct game *game = new_game(impl, setup);
	char err[GAME_ERR_LEN];

	for (int n = 0; max_actions < 0 || n < max_actions; n++) {
		int seats[GAME_MAX_SEATS], nseats, seat;
		struct action a;

		deal_if_needed(game, rng);
		if (impl->phase(game->state) == PHASE_OVER)
			break;
		nseats = impl->to_act(game->state, seats);
		assert_true(nseats > 0);
		seat = seats[rng_below(rng, (uint32_t)nseats)];
		a = decide(game, seat, levels[seat], rng_next(rng), 1);
		assert_int_equal(a.seat, seat);
		if (!is_legal(game, &a))
			fail_msg("%s %s chose an illegal action", impl->name,
			    ai_level_name(levels[seat]));
		if (game_apply(game, &a, err, sizeof(err)) != 0)
			fail_msg("legal action refused: %s", err);
	}
	return game;
}

/* Complete games at one level (hard at one seat, against a mix). */
static void
check_complete_games(const struct game_impl *impl, enum ai_level level,
    int count)
{
	struct rng rng;

	rng_seed(&rng, 1000 + level);
	for (int g = 0; g < count; g++) {
		struct game_setup setup = random_setup(impl, &rng, 0);
		enum ai_level levels[GAME_MAX_SEATS];
		struct game *game;

		for (int i = 0; i < GAME_MAX_SEATS; i++)
			levels[i] = level == AI_HARD && i > 0 ?
			    (enum ai_level)(i % 2) : level;
		game = play(impl, &setup, levels, &rng, -1);
		assert_int_equal(impl->phase(game->state), PHASE_OVER);
		game_destroy(game);
	}
}

static void
test_easy_games(void **unused)
{
	for (size_t i = 0; i < 3; i++)
		check_complete_games(games[i], AI_EASY, 100);
}

static void
test_normal_games(void **unused)
{
	for (size_t i = 0; i < 3; i++)
		check_complete_games(games[i], AI_NORMAL, 100);
}

static void
test_hard_games(void **unused)
{
	for (size_t i = 0; i < 3; i++)
		check_complete_games(games[i], AI_HARD, 6);
}

/* The same position and seed give the same choice, at every level. */
static void
test_deterministic(void **unused)
{
	static const enum ai_level normal[GAME_MAX_SEATS] = {
		AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL,
		AI_NORMAL,
	};
	struct rng rng;

	rng_seed(&rng, 7);
	for (size_t i = 0; i < 3; i++) {
		for (int k = 0; k < 6; k++) {
			struct game_setup setup = random_setup(games[i], &rng,
			    0);
			struct game *game = play(games[i], &setup, normal,
			    &rng, (int)rng_below(&rng, 120));
			int seats[GAME_MAX_SEATS];

			deal_if_needed(game, &rng);
			if (games[i]->to_act(game->state, seats) == 0) {
				game_destroy(game);
				continue;
			}
			for (int level = AI_EASY; level <= AI_HARD; level++) {
				struct action a = decide(game, seats[0],
				    (enum ai_level)level, 42, 1);
				struct action b = decide(game, seats[0],
				    (enum ai_level)level, 42, 1);

				assert_true(action_equal(&a, &b));
			}
			game_destroy(game);
		}
	}
}

/* ---- honesty --------------------------------------------------------- */

/* Adds (sign 1) or removes (-1) faces to or from a multiset of counts. */
static void
count_faces(const uint8_t *faces, int n, int *counts, int sign)
{
	for (int i = 0; i < n; i++)
		counts[faces[i]] += sign;
}

/* The faces of a Wizard hand mask. */
static int
wizard_faces(uint64_t hand, uint8_t *out)
{
	int n = 0;

	for (; hand; hand &= hand - 1) {
		int id = __builtin_ctzll(hand);

		out[n++] = (uint8_t)(id < 52 ? id : id < 56 ?
		    WIZARD_FACE_WIZARD : WIZARD_FACE_JESTER);
	}
	return n;
}

/* The faces a seat holds now, in any game. */
static int
held_faces(const struct game *game, int seat, uint8_t *out)
{
	int n = 0;

	if (game->impl == &wizard_game) {
		const struct wizard_state *s = game->state;

		return wizard_faces(s->r.hand[seat], out);
	}
	if (game->impl == &birdhead_game) {
		const struct birdhead_state *s = game->state;

		for (int f = BIRDHEAD_LOW; f <= BIRDHEAD_HIGH; f++)
			for (int c = 0; c < s->r.count[seat][f]; c++)
				out[n++] = (uint8_t)f;
		return n;
	}
	{
		const struct sticheln_state *s = game->state;

		for (int colour = 0; colour < STICHELN_COLOURS; colour++)
			for (unsigned m = s->r.hand[seat][colour]; m;
			    m &= m - 1)
				out[n++] = (uint8_t)(colour *
				    STICHELN_RANKS + __builtin_ctz(m));
		return n;
	}
}

/* Every face of the game's deck, with repeats, for nseats seats. */
static int
deck_faces(const struct game *game, uint8_t *out)
{
	int n = 0;

	if (game->impl == &wizard_game) {
		for (int f = 0; f < 52; f++)
			out[n++] = (uint8_t)f;
		for (int i = 0; i < 4; i++) {
			out[n++] = WIZARD_FACE_WIZARD;
			out[n++] = WIZARD_FACE_JESTER;
		}
	} else if (game->impl == &birdhead_game) {
		for (int i = 0; i < BIRDHEAD_DECK; i++)
			out[n++] = (uint8_t)(BIRDHEAD_LOW + i /
			    BIRDHEAD_COPIES);
	} else {
		int ncolours, nranks;

		sticheln_deck(game->setup.nseats, &ncolours, &nranks);
		for (int c = 0; c < ncolours; c++)
			for (int r = 0; r < nranks; r++)
				out[n++] = (uint8_t)(c * STICHELN_RANKS + r);
	}
	return n;
}

/* Replays deals and actions into a new game; NULL when one is refused. */
static struct game *
rebuild(const struct game *from, const struct deal *deals,
    const struct action *actions)
{
	char err[GAME_ERR_LEN];
	struct game *game = new_game(from->impl, &from->setup);

	for (int i = 0; i < from->ndeals; i++)
		if (game_add_deal(game, &deals[i], err, sizeof(err)) != 0) {
			game_destroy(game);
			return NULL;
		}
	if (game_advance(game, err, sizeof(err)) != 0) {
		game_destroy(game);
		return NULL;
	}
	for (int i = 0; i < from->nactions; i++)
		if (game_apply(game, &actions[i], err, sizeof(err)) != 0) {
			game_destroy(game);
			return NULL;
		}
	return game;
}

/* The index of the first action of the current round. */
static int
round_start(const struct game *game)
{
	struct game *copy = new_game(game->impl, &game->setup);
	char err[GAME_ERR_LEN];
	int round = game->impl->round(game->state), start = 0;

	for (int i = 0; i < game->ndeals; i++)
		if (game_add_deal(copy, &game->deals[i], err, sizeof(err)))
			fail_msg("deal refused: %s", err);
	game_advance(copy, err, sizeof(err));
	for (int i = 0; i < game->nactions; i++) {
		if (game->impl->round(copy->state) < round)
			start = i + 1;
		if (game_apply(copy, &game->actions[i], err, sizeof(err)))
			fail_msg("action refused: %s", err);
	}
	game_destroy(copy);
	return start;
}

/*
 * A copy of game in which everything seat cannot see is drawn again: the
 * cards in the other hands (and, for Wizard and BirdHead, those never
 * dealt) are shuffled among the other hands, hidden bids and hidden
 * selections are changed, while every public action stays as it was.
 * Under clairvoyance in the first round it is the seat's own card that is
 * drawn again.  NULL when no such copy keeps the record legal.
 */
static struct game *
shuffled(const struct game *game, int seat, struct rng *rng)
{
	const struct game_impl *impl = game->impl;
	int round = impl->round(game->state), n = game->setup.nseats;
	int start = round_start(game);
	int blind = impl == &wizard_game &&
	    ((const struct wizard_state *)game->state)->clairvoyance &&
	    round == 0;
	int selecting = impl->phase(game->state) == PHASE_SELECT;
	int bids_hidden = 0;

	if (impl == &wizard_game) {
		const struct wizard_state *s = game->state;

		bids_hidden = s->simultaneous &&
		    (s->r.phase == PHASE_BID_SIMULTANEOUS ||
		    (s->secret && s->r.phase == PHASE_PLAY));
	}
	for (int attempt = 0; attempt < 200; attempt++) {
		struct deal *deals = malloc(sizeof(*deals) *
		    (size_t)game->ndeals);
		struct action *actions = malloc(sizeof(*actions) *
		    (size_t)(game->nactions + 1));
		struct deal *d = &deals[round];
		uint8_t pool[128], held[GAME_MAX_HAND + 1], deck[128];
		int counts[128] = { 0 }, npool = 0, nheld[GAME_MAX_SEATS];
		int kept[GAME_MAX_SEATS][128];
		struct game *copy;

		memcpy(deals, game->deals, sizeof(*deals) *
		    (size_t)game->ndeals);
		if (game->nactions > 0)
			memcpy(actions, game->actions, sizeof(*actions) *
			    (size_t)game->nactions);
		/* The pool: the deck less every card the seat has seen. */
		count_faces(deck, deck_faces(game, deck), counts, 1);
		memset(kept, 0, sizeof(kept));
		for (int other = 0; other < n; other++) {
			int hidden = blind ? other == seat : other != seat;
			int h = held_faces(game, other, held);

			/* What left the hand this round was seen. */
			count_faces(d->cards[other], d->count[other],
			    kept[other], 1);
			count_faces(held, h, kept[other], -1);
			nheld[other] = h;
			if (!hidden) {
				count_faces(d->cards[other], d->count[other],
				    counts, -1);
				nheld[other] = 0;
				continue;
			}
			/* A hidden Sticheln selection goes back to the pool. */
			if (selecting && ((const struct sticheln_state *)
			    game->state)->r.selected[other] >= 0) {
				int face = ((const struct sticheln_state *)
				    game->state)->r.selected[other];

				kept[other][face]--;
				nheld[other]++;
			}
			for (int f = 0; f < 128; f++)
				counts[f] -= kept[other][f];
		}
		if (d->turned >= 0)
			counts[d->turned]--;
		for (int f = 0; f < 128; f++)
			for (int c = 0; c < counts[f]; c++)
				pool[npool++] = (uint8_t)f;
		rng_shuffle(rng, pool, (size_t)npool);
		/* Deal the pool back: played cards stay, the rest is new. */
		for (int other = 0, k = 0; other < n; other++) {
			int hidden = blind ? other == seat : other != seat;
			int m = 0;

			if (!hidden)
				continue;
			for (int f = 0; f < 128; f++)
				for (int c = 0; c < kept[other][f]; c++)
					d->cards[other][m++] = (uint8_t)f;
			for (int i = 0; i < nheld[other]; i++)
				d->cards[other][m++] = pool[k++];
			assert_int_equal(m, d->count[other]);
		}
		/* Hidden bids and selections of the others change too. */
		for (int i = start; i < game->nactions; i++) {
			struct action *a = &actions[i];

			if (a->seat == seat)
				continue;
			if (a->kind == ACTION_BID && bids_hidden)
				a->value = (int8_t)rng_below(rng, (uint32_t)(
				    ((const struct wizard_state *)
				    game->state)->r.cards + 1));
			if (a->kind == ACTION_SELECT && selecting)
				a->cards[0] = d->cards[a->seat][rng_below(rng,
				    d->count[a->seat])];
		}
		copy = rebuild(game, deals, actions);
		free(deals);
		free(actions);
		if (copy != NULL)
			return copy;
	}
	return NULL;
}

/* Whether the seat to act plays its one unseen card (clairvoyance). */
static int
blind_play(const struct game *game)
{
	const struct wizard_state *s = game->state;

	return game->impl == &wizard_game && s->clairvoyance &&
	    s->round == 0 && s->r.phase == PHASE_PLAY;
}

/*
 * Checks that every level, with and without the record's history, makes
 * the same choice for seat in game and in copy.
 */
static void
same_choices(const struct game *game, const struct game *copy, int seat)
{
	/* Blind, the seat plays its one card, whichever it is. */
	if (blind_play(game))
		return;
	for (int level = AI_EASY; level <= AI_HARD; level++) {
		for (int h = 0; h < 2; h++) {
			struct action a = decide(game, seat,
			    (enum ai_level)level, 5, h);
			struct action b = decide(copy, seat,
			    (enum ai_level)level, 5, h);

			if (!action_equal(&a, &b))
				fail_msg("%s %s seat %d changed its mind",
				    game->impl->name, ai_level_name(
				    (enum ai_level)level), seat);
		}
	}
}

/*
 * Plays positions of every game and checks that each level decides the
 * same in the original and in copies with the hidden information drawn
 * again, with and without the record's history.
 */
static void
check_honesty(const struct game_impl *impl, const char *options,
    int positions, int max_actions)
{
	static const enum ai_level normal[GAME_MAX_SEATS] = {
		AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL,
		AI_NORMAL,
	};
	struct rng rng;
	int compared = 0;

	rng_seed(&rng, 99);
	for (int p = 0; p < positions; p++) {
		struct game_setup setup = random_setup(impl, &rng, 0);
		char err[GAME_ERR_LEN], buf[128], *save = NULL;
		int seats[GAME_MAX_SEATS], nseats;
		struct game *game;

		if (options != NULL) {
			memset(&setup.options, 0, sizeof(setup.options));
			snprintf(buf, sizeof(buf), "%s", options);
			for (char *t = strtok_r(buf, " ", &save); t != NULL;
			    t = strtok_r(NULL, " ", &save))
				if (game_option_set(impl, &setup.options, t,
				    err, sizeof(err)) != 0)
					fail_msg("option %s: %s", t, err);
		}
		game = play(impl, &setup, normal, &rng,
		    (int)rng_below(&rng, (uint32_t)max_actions));
		deal_if_needed(game, &rng);
		nseats = impl->to_act(game->state, seats);
		for (int i = 0; i < nseats; i++) {
			for (int k = 0; k < 2; k++) {
				struct game *copy = shuffled(game, seats[i],
				    &rng);

				if (copy == NULL)
					continue;
				same_choices(game, copy, seats[i]);
				compared++;
				game_destroy(copy);
			}
		}
		game_destroy(game);
	}
	assert_true(compared >= positions / 2);
}

static void
test_honest_wizard(void **unused)
{
	check_honesty(&wizard_game, NULL, 80, 160);
}

static void
test_honest_wizard_hidden_bids(void **unused)
{
	check_honesty(&wizard_game, "hiddentip", 20, 120);
	check_honesty(&wizard_game, "secret", 30, 120);
}

/* Clairvoyance: the seat sees the others' cards, not its own. */
static void
test_honest_wizard_clairvoyance(void **unused)
{
	check_honesty(&wizard_game, "clairvoyance rounds=2", 30, 12);
	check_honesty(&wizard_game, "clairvoyance hiddentip rounds=1", 20,
	    6);
}

static void
test_honest_birdhead(void **unused)
{
	check_honesty(&birdhead_game, NULL, 80, 160);
}

static void
test_honest_sticheln(void **unused)
{
	check_honesty(&sticheln_game, NULL, 80, 160);
}

/* ---- heuristics ------------------------------------------------------ */

/* Deals hands written as "r1 r2|W J|..." (seats split by |). */
static struct deal
parse_deal(const struct game_impl *impl, const char *hands, const char *turned)
{
	char buf[512], *save = NULL, *save2 = NULL;
	struct deal deal;
	int seat = 0;

	memset(&deal, 0, sizeof(deal));
	snprintf(buf, sizeof(buf), "%s", hands);
	for (char *h = strtok_r(buf, "|", &save); h != NULL;
	    h = strtok_r(NULL, "|", &save), seat++)
		for (char *c = strtok_r(h, " ", &save2); c != NULL;
		    c = strtok_r(NULL, " ", &save2)) {
			int face = impl->parse_card(c);

			assert_true(face >= 0);
			deal.cards[seat][deal.count[seat]++] = (uint8_t)face;
		}
	deal.turned = (int16_t)(turned != NULL ? impl->parse_card(turned) :
	    -1);
	return deal;
}

/*
 * A four-seat standard Wizard game, played by normal up to the fourth
 * round, which is dealt as given (hands in seat order): seat 2 deals it,
 * seat 3 bids and leads first.
 */
static struct game *
wizard_round4(const char *hands, const char *turned)
{
	struct game_setup setup = { .nseats = 4, .first = 3 };
	struct game *game = new_game(&wizard_game, &setup);
	char err[GAME_ERR_LEN];
	struct deal deal;
	struct rng rng;

	rng_seed(&rng, 3);
	while (wizard_game.phase(game->state) != PHASE_DEAL ||
	    wizard_game.round(game->state) < 2) {
		int seats[GAME_MAX_SEATS];
		struct action a;

		deal_if_needed(game, &rng);
		wizard_game.to_act(game->state, seats);
		a = decide(game, seats[0], AI_NORMAL, 1, 1);
		if (game_apply(game, &a, err, sizeof(err)) != 0)
			fail_msg("refused: %s", err);
	}
	deal = parse_deal(&wizard_game, hands, turned);
	if (game_add_deal(game, &deal, err, sizeof(err)) != 0 ||
	    game_advance(game, err, sizeof(err)) != 0)
		fail_msg("deal refused: %s", err);
	assert_int_equal(((const struct wizard_state *)game->state)->r.dealer,
	    2);
	return game;
}

/* Applies actions written as "seat:bid" or "seat:card", in order. */
static void
apply_list(struct game *game, const char *list)
{
	char buf[256], *save = NULL, err[GAME_ERR_LEN];

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, " ", &save); t != NULL;
	    t = strtok_r(NULL, " ", &save)) {
		struct action a = { .seat = (int8_t)(t[0] - '0') };

		if (t[2] >= '0' && t[2] <= '9') {
			a.kind = ACTION_BID;
			a.value = (int8_t)atoi(t + 2);
		} else {
			a.kind = ACTION_PLAY;
			a.ncards = 1;
			a.cards[0] = (uint8_t)game->impl->parse_card(t + 2);
		}
		if (game_apply(game, &a, err, sizeof(err)) != 0)
			fail_msg("%s refused: %s", t, err);
	}
}

static void
test_wizard_bid_sanity(void **unused)
{
	struct game *game;
	struct action a;

	/* Four Wizards in four cards: four tricks. */
	game = wizard_round4("r1 r2 r3 y4|g1 g2 g3 g4|b1 b2 b3 b4|W W W W",
	    "y9");
	a = decide(game, 3, AI_EASY, 1, 1);
	assert_int_equal(a.value, 4);
	a = decide(game, 3, AI_NORMAL, 1, 1);
	assert_int_equal(a.value, 4);
	a = decide(game, 3, AI_HARD, 1, 1);
	assert_true(a.value >= 3);
	game_destroy(game);
	/* Four low cards off trump: nothing. */
	game = wizard_round4("r1 r2 r3 y4|g1 g2 g3 g4|W W y12 y13|"
	    "r4 r5 b2 b3", "y9");
	for (int level = AI_EASY; level <= AI_HARD; level++) {
		a = decide(game, 3, (enum ai_level)level, 1, 1);
		assert_int_equal(a.kind, ACTION_BID);
		assert_int_equal(a.value, 0);
	}
	game_destroy(game);
}

static void
test_wizard_play_sanity(void **unused)
{
	struct game *game;
	struct action a;

	/* Seat 0 bid nothing and must follow red: it plays under the r10. */
	game = wizard_round4("r13 r2 y5 g8|r5 b5 b6 b7|r8 r3 b2 b3|"
	    "r10 g2 g3 g4", "y9");
	apply_list(game, "3:1 0:0 1:0 2:0 3:r10");
	for (int level = AI_EASY; level <= AI_HARD; level++) {
		a = decide(game, 0, (enum ai_level)level, 1, 1);
		assert_int_equal(a.cards[0], wizard_game.parse_card("r2"));
	}
	game_destroy(game);
	/* The last seat, short of two tricks, takes with its cheapest card. */
	game = wizard_round4("r7 g2 g3 g4|r2 y5 y6 g8|r8 r13 b3 J|"
	    "r5 b5 b6 b7", "y9");
	apply_list(game, "3:1 0:1 1:0 2:2 3:r5 0:r7 1:r2");
	for (int level = AI_NORMAL; level <= AI_HARD; level++) {
		a = decide(game, 2, (enum ai_level)level, 1, 1);
		assert_int_equal(a.cards[0], wizard_game.parse_card("r8"));
	}
	game_destroy(game);
}

/*
 * Wizard's hard bids and names trump as normal does (its search of the
 * bids lost games, see README.md), while hard-v1 still searches them.
 */
static void
test_wizard_hard_bids_as_normal(void **unused)
{
	struct game_setup setup = { .nseats = 4 };
	struct game *game = new_game(&wizard_game, &setup);
	char err[GAME_ERR_LEN];
	int checked = 0, v1_differs = 0;
	struct rng rng;

	rng_seed(&rng, 5);
	for (;;) {
		int seats[GAME_MAX_SEATS], phase;
		struct action a, h;

		deal_if_needed(game, &rng);
		phase = wizard_game.phase(game->state);
		if (phase == PHASE_OVER)
			break;
		wizard_game.to_act(game->state, seats);
		a = decide(game, seats[0], AI_NORMAL, 1, 1);
		if (phase != PHASE_PLAY) {
			h = decide(game, seats[0], AI_HARD, 1, 1);
			assert_true(action_equal(&a, &h));
			h = decide(game, seats[0], AI_HARD_V1, 1, 1);
			v1_differs += !action_equal(&a, &h);
			checked++;
		}
		if (game_apply(game, &a, err, sizeof(err)) != 0)
			fail_msg("refused: %s", err);
	}
	assert_true(checked >= 60);
	assert_true(v1_differs > 0);
	game_destroy(game);
}

/*
 * normal BirdHead leads its highest card, and follows with its highest
 * cards whenever they meet the standard.
 */
/*
 * A BirdHead game with a random setup, played by levels for a random count
 * of actions below most and dealt if a deal is due; NULL (and the game
 * destroyed) when its cards are not being played then.
 */
static struct game *
birdhead_in_play(struct rng *rng, const enum ai_level *levels, int most)
{
	struct game_setup setup = random_setup(&birdhead_game, rng, 0);
	struct game *game = play(&birdhead_game, &setup, levels, rng,
	    (int)rng_below(rng, (uint32_t)most));
	const struct birdhead_state *s = game->state;

	deal_if_needed(game, rng);
	if (s->r.phase != PHASE_PLAY) {
		game_destroy(game);
		return NULL;
	}
	return game;
}

static void
test_birdhead_sanity(void **unused)
{
	static const enum ai_level normal[GAME_MAX_SEATS] = {
		AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL,
		AI_NORMAL,
	};
	struct rng rng;
	int checked = 0;

	rng_seed(&rng, 17);
	for (int p = 0; p < 200; p++) {
		struct game *game = birdhead_in_play(&rng, normal, 60);
		const struct birdhead_state *s;
		struct action a;
		uint8_t top[GAME_MAX_PLAY];
		int seat, high = BIRDHEAD_HIGH;

		if (game == NULL)
			continue;
		s = game->state;
		seat = s->r.turn;
		a = decide(game, seat, AI_NORMAL, 1, 1);
		while (s->r.count[seat][high] == 0)
			high--;
		if (s->r.trick_len == 0) {
			assert_int_equal(a.cards[a.ncards - 1], high);
		} else {
			int k = s->r.width, meets = 1;

			for (int f = BIRDHEAD_HIGH, i = k; f >= BIRDHEAD_LOW &&
			    i > 0; f--)
				for (int c = 0; c < s->r.count[seat][f] &&
				    i > 0; c++)
					top[--i] = (uint8_t)f;
			for (int i = 0; i < k; i++)
				meets &= top[i] >= s->r.standard[i];
			if (meets)
				assert_memory_equal(a.cards, top, (size_t)k);
		}
		checked++;
		game_destroy(game);
	}
	assert_true(checked > 100);
}

/*
 * BirdHead's hard plays its rollouts on a round of its own (counts, masks,
 * no history), hard-v1 on the engine's state.  Builds with asserts compare
 * every rollout's penalties with the engine's, and the plays the others'
 * searches in hard's rollouts choose among with the engine's legal ones
 * (struct ai_limits' check).  With a count of worlds hard's choice
 * depends on the seed alone, and the others' searches make it differ
 * from hard-v1's in some positions.
 */
static void
test_birdhead_fast_rollout(void **unused)
{
	struct rng rng;
	int checked = 0, wide = 0, differ = 0;

	rng_seed(&rng, 23);
	for (int p = 0; p < 300; p++) {
		enum ai_level levels[GAME_MAX_SEATS];
		struct ai_limits limits = { .worlds = 16, .check = 1 };
		enum ai_level run[3] = { AI_HARD, AI_HARD, AI_HARD_V1 };
		struct game *game;
		const struct birdhead_state *s;
		struct action a[3];
		int seat;

		for (int i = 0; i < GAME_MAX_SEATS; i++)
			levels[i] = rng_below(&rng, 2) ? AI_NORMAL : AI_EASY;
		if ((game = birdhead_in_play(&rng, levels, 120)) == NULL)
			continue;
		s = game->state;
		seat = s->r.turn;
		for (int i = 0; i < 3; i++) {
			struct ai_params params = { .level = run[i],
			    .seed = (uint64_t)p, .budget_ms = 5 };

			assert_int_equal(ai_decide_ex(&birdhead_game,
			    game->state, NULL, 0, seat, &params, &limits,
			    &a[i]), 0);
			assert_true(is_legal(game, &a[i]));
		}
		assert_true(action_equal(&a[0], &a[1]));
		differ += !action_equal(&a[0], &a[2]);
		wide += s->r.trick_len > 0 && s->r.width > 1;
		checked++;
		game_destroy(game);
	}
	assert_true(checked > 200);
	assert_true(wide > 10);
	assert_true(differ > 10);
}

/*
 * normal Sticheln never takes as its penalty colour one of which it holds
 * three or more high cards when some colour of its hand holds none.
 */
static void
test_sticheln_select_sanity(void **unused)
{
	struct rng rng;
	int checked = 0;

	rng_seed(&rng, 23);
	for (int p = 0; p < 300; p++) {
		struct game_setup setup = random_setup(&sticheln_game, &rng, 0);
		struct game *game = new_game(&sticheln_game, &setup);
		const struct sticheln_state *s;
		int high[STICHELN_COLOURS] = { 0 }, some_clean = 0;
		struct action a;

		deal_if_needed(game, &rng);
		s = game->state;
		for (int colour = 0; colour < s->ncolours; colour++) {
			for (unsigned m = s->r.hand[0][colour]; m; m &= m - 1)
				high[colour] += __builtin_ctz(m) >=
				    s->nranks - 4;
			some_clean |= s->r.hand[0][colour] != 0 &&
			    high[colour] == 0;
		}
		for (int level = AI_NORMAL; level <= AI_HARD; level++) {
			a = decide(game, 0, (enum ai_level)level, 1, 1);
			assert_int_equal(a.kind, ACTION_SELECT);
			if (some_clean && level == AI_NORMAL) {
				assert_true(high[a.cards[0] /
				    STICHELN_RANKS] < 3);
				checked++;
			}
		}
		game_destroy(game);
	}
	assert_true(checked > 100);
}

/* A seat that may not act gets nothing; a forced action is taken. */
static void
test_no_decision(void **unused)
{
	static const enum ai_level normal[GAME_MAX_SEATS] = {
		AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL, AI_NORMAL,
		AI_NORMAL,
	};
	struct ai_params params = { .level = AI_NORMAL };
	struct game_setup setup = { .nseats = 3 };
	struct game *game;
	struct action a;
	struct rng rng;

	rng_seed(&rng, 4);
	game = play(&wizard_game, &setup, normal, &rng, -1);
	assert_int_equal(wizard_game.phase(game->state), PHASE_OVER);
	for (int seat = 0; seat < 3; seat++)
		assert_int_equal(ai_decide_game(game, seat, &params, &a), -1);
	game_destroy(game);
	game = wizard_round4("r1 r2 r3 y4|g1 g2 g3 g4|b1 b2 b3 b4|W W W W",
	    "y9");
	assert_int_equal(ai_decide(&wizard_game, game->state, 0, &params,
	    &a), -1);
	assert_int_equal(ai_decide(&wizard_game, game->state, 3, &params,
	    &a), 0);
	game_destroy(game);
}

/*
 * The budget caps hard's time.  Not a timing test: the bound is loose
 * enough for a loaded machine or a sanitizer build.
 */
static void
test_hard_budget(void **unused)
{
	struct ai_params params = { .level = AI_HARD, .seed = 1,
	    .budget_ms = 20 };
	struct game *game = wizard_round4("r1 r2 r3 y4|g1 g2 g3 g4|"
	    "b1 b2 b3 b4|W r9 r10 y11", "y9");
	struct action a;
	int64_t t0 = ai_now_ns();

	assert_int_equal(ai_decide_game(game, 3, &params, &a), 0);
	assert_true(ai_now_ns() - t0 < INT64_C(1000000000));
	game_destroy(game);
}

/*
 * hard-v1, the first hard search, stays for the arena: its name reads
 * back, players cannot pick it, and it decides legally in every game, by
 * its budget and by a fixed count of worlds alike.
 */
static void
test_hard_v1_for_the_arena(void **unused)
{
	struct rng rng;

	assert_string_equal(ai_level_name(AI_HARD_V1), "hard-v1");
	assert_int_equal(ai_level_parse("hard-v1"), -1);
	rng_seed(&rng, 21);
	for (size_t g = 0; g < sizeof(games) / sizeof(*games); g++) {
		struct game_setup setup = { .nseats = 4 };
		struct game *game = test_random_game(games[g], &setup, &rng,
		    30);
		struct ai_params params = { .level = AI_HARD_V1, .seed = 3,
		    .budget_ms = 5 };
		int seats[GAME_MAX_SEATS];
		struct action a, b;

		games[g]->to_act(game->state, seats);
		a = decide(game, seats[0], AI_HARD_V1, 3, 1);
		b = decide(game, seats[0], AI_HARD_V1, 3, 1);
		assert_true(is_legal(game, &a));
		assert_true(action_equal(&a, &b));
		assert_int_equal(ai_decide_game(game, seats[0], &params, &a),
		    0);
		assert_true(is_legal(game, &a));
		game_destroy(game);
	}
}

/* A few complete games at mixed levels, as the arena plays them. */
static void
test_arena_smoke(void **unused)
{
	static const enum ai_level levels[GAME_MAX_SEATS] = {
		AI_HARD, AI_NORMAL, AI_EASY, AI_NORMAL, AI_EASY, AI_NORMAL,
	};
	struct rng rng;

	rng_seed(&rng, 8);
	for (size_t i = 0; i < 3; i++) {
		for (int g = 0; g < 2; g++) {
			struct game_setup setup = { .nseats = 4,
			    .first = g };
			struct game *game;
			json_t *result;

			if (games[i] == &wizard_game)
				setup.options.value[WIZARD_OPT_ROUNDS] = 3;
			game = play(games[i], &setup, levels, &rng, -1);
			result = games[i]->result(game->state);
			assert_true(json_is_true(json_object_get(result,
			    "finished")));
			assert_true(json_array_size(json_object_get(result,
			    "winners")) > 0);
			json_decref(result);
			game_destroy(game);
		}
	}
}

static void
test_level_names(void **unused)
{
	for (int level = AI_EASY; level <= AI_HARD; level++)
		assert_int_equal(ai_level_parse(ai_level_name(
		    (enum ai_level)level)), level);
	assert_int_equal(ai_level_parse("HARD"), AI_HARD);
	assert_int_equal(ai_level_parse("expert"), -1);
	assert_int_equal(ai_level_parse(NULL), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_names),
		cmocka_unit_test(test_easy_games),
		cmocka_unit_test(test_normal_games),
		cmocka_unit_test(test_hard_games),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_honest_wizard),
		cmocka_unit_test(test_honest_wizard_hidden_bids),
		cmocka_unit_test(test_honest_wizard_clairvoyance),
		cmocka_unit_test(test_honest_birdhead),
		cmocka_unit_test(test_honest_sticheln),
		cmocka_unit_test(test_wizard_bid_sanity),
		cmocka_unit_test(test_wizard_play_sanity),
		cmocka_unit_test(test_wizard_hard_bids_as_normal),
		cmocka_unit_test(test_birdhead_sanity),
		cmocka_unit_test(test_birdhead_fast_rollout),
		cmocka_unit_test(test_sticheln_select_sanity),
		cmocka_unit_test(test_no_decision),
		cmocka_unit_test(test_hard_budget),
		cmocka_unit_test(test_hard_v1_for_the_arena),
		cmocka_unit_test(test_arena_smoke),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * wizard_mask.c - Wizard's card-mask path: legal moves as one 64-bit mask
 * and an apply that trusts a move taken from it, for the callers that
 * apply millions of moves (the computer players, replay, benchmarks).
 *
 * A move is a bit number whose meaning depends on the phase: a card id
 * while cards are played, the bid itself while bidding, the suit while
 * the dealer chooses trump.  Of the four Wizards (and four Jesters) a hand
 * may hold, the mask offers only the lowest id, as apply() would play it,
 * so the moves of a mask stand one for one, in the same order, for the
 * actions legal() lists.  The engine path and this one therefore reach
 * the same states, which tests/test_wizard.c checks over many games.
 */
#include <string.h>

#include "bits.h"
#include "rng.h"
#include "wizard.h"
#include "wizard_impl.h"

uint64_t
wizard_legal_mask(const struct wizard_state *s, int seat)
{
	const struct wizard_round *r = &s->r;
	uint64_t bids = (UINT64_C(2) << r->cards) - 1;
	int forbidden;

	if (seat < 0 || seat >= s->nseats)
		return 0;
	switch (r->phase) {
	case PHASE_PLAY:
		return seat == r->turn ?
		    wizard_distinct(wizard_playable(s, seat)) : 0;
	case PHASE_BID:
		if (seat != r->turn)
			return 0;
		forbidden = wizard_forbidden_bid(s, seat);
		return forbidden < 0 ? bids :
		    bids & ~(UINT64_C(1) << forbidden);
	case PHASE_BID_SIMULTANEOUS:
		return (s->active & (1u << seat)) && r->bid[seat] < 0 ?
		    bids : 0;
	case PHASE_TRUMP:
		return seat == r->dealer ? 0xf : 0;
	default:
		return 0;
	}
}

uint64_t
wizard_next_moves_other(const struct wizard_state *s, int *seat)
{
	const struct wizard_round *r = &s->r;

	switch (r->phase) {
	case PHASE_TRUMP:
	case PHASE_BID:
	case PHASE_PLAY:
		*seat = r->turn;
		return wizard_legal_mask(s, r->turn);
	case PHASE_BID_SIMULTANEOUS:
		for (int i = 0; i < s->nseats; i++) {
			if ((s->active & (1u << i)) && r->bid[i] < 0) {
				*seat = i;
				return wizard_legal_mask(s, i);
			}
		}
		*seat = -1;
		return 0;
	default:
		*seat = -1;
		return 0;
	}
}

void
wizard_apply_other(struct wizard_state *s, int seat, int move)
{
	switch (s->r.phase) {
	case PHASE_PLAY:
		wizard_play_id(s, seat, move);
		break;
	case PHASE_BID:
	case PHASE_BID_SIMULTANEOUS:
		wizard_bid(s, seat, move);
		break;
	case PHASE_TRUMP:
		wizard_set_trump(s, move);
		break;
	default:
		break;
	}
}

/*
 * Hands of raw ids (Wizards 52..55 and Jesters 56..59 as drawn) with the
 * Wizards and Jesters renumbered in dealing order, as start_round()
 * numbers them: seat by seat, so each seat's take is the next block of
 * ids.  Then the round starts.
 */
static void
begin_dealt(struct wizard_state *s, uint64_t *hands, int turned)
{
	/* The Wizards and the Jesters are a nibble each: counted by table. */
	_Static_assert(WIZARD_WIZARD_MASK == UINT64_C(0xf) << 52 &&
	    WIZARD_JESTER_MASK == UINT64_C(0xf) << 56, "a nibble each");
	static const uint8_t nibble_bits[16] = {
		0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
	};
	int wizard_next = 52, jester_next = 56;

	for (int seat = 0; seat < s->nseats; seat++) {
		uint64_t hand = hands[seat];
		int wizards = nibble_bits[(hand >> 52) & 0xf];
		int jesters = nibble_bits[(hand >> 56) & 0xf];

		hands[seat] = (hand & ~WIZARD_SPECIAL_MASK) |
		    ((UINT64_C(1) << wizards) - 1) << wizard_next |
		    ((UINT64_C(1) << jesters) - 1) << jester_next;
		wizard_next += wizards;
		jester_next += jesters;
	}
	wizard_begin_round(s, hands, turned);
}

/*
 * The whole deck shuffled, as make_deal() shuffles it, over card ids
 * instead of faces: the permutation does not depend on what is shuffled,
 * so the same draws give the same cards, and even the same ids.  Version
 * 1 deals from the bottom and turns the next card; version 2, which
 * shuffles the whole deck only to deal all of it, reads from the top, the
 * last card without a draw, and turns none.
 */
static void
deal_whole_deck(struct wizard_state *s, struct rng *rng, int from_top)
{
	uint64_t hands[GAME_MAX_SEATS] = { 0 };
	uint8_t deck[60];
	int cards = s->schedule[s->round + 1];
	int k = from_top ? 59 : 0, step = from_top ? -1 : 1;

	for (int i = 0; i < 60; i++)
		deck[i] = (uint8_t)i;
	rng_shuffle(rng, deck, 60);
	for (int seat = 0; seat < s->nseats; seat++) {
		if (!(s->active & (1u << seat)))
			continue;
		for (int i = 0; i < cards; i++, k += step)
			hands[seat] |= UINT64_C(1) << deck[k];
	}
	begin_dealt(s, hands, !from_top && k < 60 ?
	    wizard_card_face(deck[k]) : -1);
}

/*
 * Version 2: the steps of rng_shuffle_tail() one card at a time, each
 * drawn card going straight into its hand.  A step swaps the drawn card
 * to the top, where no later step looks: only the card that takes its
 * place needs writing.  A deck dealt to its last card but one turns that
 * last card without a draw, as in the shuffle.
 */
static void
deal_drawn(struct wizard_state *s, struct rng *rng)
{
	uint64_t hands[GAME_MAX_SEATS] = { 0 };
	struct rng local = *rng;
	uint8_t deck[60];
	int cards = s->schedule[s->round + 1];
	int top = 59, turned = -1;

	/* Only a deal of the whole deck takes its last card without a draw. */
	if (s->nactive * cards >= 60) {
		deal_whole_deck(s, rng, 1);
		return;
	}
	for (int i = 0; i < 60; i++)
		deck[i] = (uint8_t)i;
	for (int seat = 0; seat < s->nseats; seat++) {
		uint64_t hand = 0;

		if (!(s->active & (1u << seat)))
			continue;
		for (int i = 0; i < cards; i++, top--) {
			int j = (int)rng_below(&local, (uint32_t)top + 1);

			hand |= UINT64_C(1) << deck[j];
			deck[j] = deck[top];
		}
		hands[seat] = hand;
	}
	if (top >= 0)
		turned = wizard_card_face(deck[top > 0 ?
		    rng_below(&local, (uint32_t)top + 1) : 0]);
	*rng = local;
	begin_dealt(s, hands, turned);
}

void
wizard_deal(struct wizard_state *s, struct rng *rng)
{
	deal_whole_deck(s, rng, 0);
}

void
wizard_deal_version(struct wizard_state *s, int version, struct rng *rng)
{
	if (version >= 2)
		deal_drawn(s, rng);
	else
		deal_whole_deck(s, rng, 0);
}

/* wizard_action_move() for bids and trump: out of line, as they are few. */
static __attribute__((noinline)) int
other_move(const struct wizard_state *s, const struct action *a)
{
	uint64_t legal;
	enum game_phase phase = s->r.phase;

	if (a->seat < 0 || a->seat >= s->nseats)
		return -1;
	legal = wizard_legal_mask(s, a->seat);
	switch (a->kind) {
	case ACTION_BID:
		if (phase != PHASE_BID && phase != PHASE_BID_SIMULTANEOUS)
			return -1;
		break;
	case ACTION_TRUMP:
		if (phase != PHASE_TRUMP)
			return -1;
		break;
	default:
		return -1;
	}
	if (a->value < 0 || a->value >= 64 ||
	    !(legal & (UINT64_C(1) << a->value)))
		return -1;
	return a->value;
}

int
wizard_action_move(const struct wizard_state *s, const struct action *a)
{
	/* A play, nine actions in ten, is checked without the whole mask. */
	if (a->kind == ACTION_PLAY)
		return wizard_play_move(s, a);
	return other_move(s, a);
}

void
wizard_move_action(const struct wizard_state *s, int seat, int move,
    struct action *out)
{
	memset(out, 0, sizeof(*out));
	out->seat = (int8_t)seat;
	switch (s->r.phase) {
	case PHASE_PLAY:
		out->kind = ACTION_PLAY;
		out->ncards = 1;
		out->cards[0] = (uint8_t)wizard_card_face(move);
		break;
	case PHASE_TRUMP:
		out->kind = ACTION_TRUMP;
		out->value = (int8_t)move;
		break;
	default:
		out->kind = ACTION_BID;
		out->value = (int8_t)move;
		break;
	}
}

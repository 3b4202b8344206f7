/*
 * wizard_impl.h - what the Wizard engine's files share and nothing else
 * sees: faces and ids, the check of a play, the trusted round steps, and
 * the seat ring.  The card tables and the ranking of cards are in
 * wizard.h, because the computer players rank cards too.
 *
 * The engine is split by concern: wizard.c checks and describes actions
 * (the struct game_impl path the bot and the record reader use),
 * wizard_play.c holds the rules of a round once for every path, and
 * wizard_mask.c is the card-mask path for callers that apply millions of
 * moves (the computer players, replay, the benchmarks).
 */
#ifndef STICHBOT_WIZARD_IMPL_H
#define STICHBOT_WIZARD_IMPL_H

#include <stdint.h>

#include "wizard.h"

#define WIZARD_SPECIAL_MASK (WIZARD_WIZARD_MASK | WIZARD_JESTER_MASK)

static inline int
wizard_card_face(int id)
{
	return id < 52 ? id : id < 56 ? WIZARD_FACE_WIZARD : WIZARD_FACE_JESTER;
}

/* The ids of face: one id for a suited card, all four for W or J. */
static inline uint64_t
wizard_face_ids(int face)
{
	if (face == WIZARD_FACE_WIZARD)
		return WIZARD_WIZARD_MASK;
	if (face == WIZARD_FACE_JESTER)
		return WIZARD_JESTER_MASK;
	return UINT64_C(1) << face;
}

/*
 * The card id a play action stands for when it is a legal play now, or
 * -1: the seat to play, one card, and of that face the lowest playable id
 * (any of a seat's Wizards, or Jesters, would do; the legal mask offers
 * the lowest).  The common case of apply() and action_move(), answered
 * without a call; the seat to play is always in range.
 */
static inline int
wizard_play_move(const struct wizard_state *s, const struct action *a)
{
	uint64_t ids;

	if (a->kind != ACTION_PLAY || s->r.phase != PHASE_PLAY ||
	    a->seat != s->r.turn || a->ncards != 1 ||
	    a->cards[0] > WIZARD_FACE_JESTER)
		return -1;
	ids = wizard_playable(s, a->seat) & wizard_face_ids(a->cards[0]);
	return ids != 0 ? __builtin_ctzll(ids) : -1;
}

/*
 * Fills s->next_seat from s->active (at the start and after Nannie's
 * eliminations), without a loop per seat: the active seats are doubled
 * around the ring so the lowest set bit above a seat is the answer,
 * wrapped back into range.
 */
static inline void
wizard_seat_ring(struct wizard_state *s)
{
	unsigned ring = (unsigned)s->active | (unsigned)s->active << s->nseats;

	for (int seat = 0; seat < s->nseats; seat++) {
		int next = seat + 1 + __builtin_ctz(ring >> (seat + 1));

		s->next_seat[seat] = (uint8_t)(next >= s->nseats ?
		    next - s->nseats : next);
	}
}

/*
 * Starts round s->round + 1 with these hands (masks of ids, Wizards and
 * Jesters numbered from 52 and 56 in the order they were dealt) and the
 * turned face or -1; the deal has been checked.
 */
void wizard_begin_round(struct wizard_state *s, const uint64_t *hands,
    int turned);
/* The bid the dealer may not make under the round's restriction, or -1. */
int wizard_forbidden_bid(const struct wizard_state *s, int seat);
/* Records a legal bid of seat. */
void wizard_bid(struct wizard_state *s, int seat, int bid);
/* The dealer names suit as trump after a turned Wizard. */
void wizard_set_trump(struct wizard_state *s, int suit);
/*
 * The points of a round in which a seat bid bid and won won: the one
 * scoring formula, used by scoring and by the views' running points.
 */
int wizard_round_points(int bid, int won);


#endif

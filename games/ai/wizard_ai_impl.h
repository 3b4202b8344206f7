/*
 * wizard_ai_impl.h - what the two halves of Wizard's computer players share:
 * the seat's view and a sampled world, the card masks, and the heuristic
 * players (wizard_ai.c) that the hard search (wizard_ai_hard.c) asks for
 * its default choice, its rollouts and the bids it fills in.
 *
 * Private to games/ai: the public entry point is wizard_ai_decide() in
 * ai_impl.h.
 */
#ifndef STICHBOT_WIZARD_AI_IMPL_H
#define STICHBOT_WIZARD_AI_IMPL_H

#include <stdint.h>

#include "ai_impl.h"
#include "game.h"
#include "wizard.h"

#define ALL_IDS ((UINT64_C(1) << 60) - 1)
#define SUIT_MASK(s) WIZARD_SUIT_MASK(s)
#define SPECIAL_MASK (WIZARD_WIZARD_MASK | WIZARD_JESTER_MASK)
#define BIT(id) (UINT64_C(1) << (id))

/* What a seat sees of a Wizard state. */
struct wizard_view {
	/*
	 * The redacted copy: other seats' hands are empty (under clairvoyance
	 * in the first round it is the seat's own hand that is), bids the seat
	 * cannot see are -1, and Wizards and Jesters carry canonical ids
	 * (the four Wizards are interchangeable, but the engine numbers
	 * them in dealing order, which would tell where the others lie).
	 */
	struct wizard_state s;
	int seat;
	int blind;                       /* the seat does not see its hand */
	uint8_t count[GAME_MAX_SEATS];   /* cards in each hand */
	uint8_t hidden_bid;              /* bids made out of seat's sight */
	uint64_t gone;                   /* ids known to be played this round */
	uint64_t played[GAME_MAX_SEATS]; /* the same, per seat */
	uint64_t shown;                  /* the turned card's id, or 0 */
	uint64_t unseen;                 /* ids in hidden hands or the stock */
	int history;                     /* whether earlier tricks are known */
	/*
	 * The round's plays in order (canonical ids), when its earlier
	 * tricks are known; otherwise only the current trick's.
	 */
	int nplays;
	uint8_t play_seat[GAME_MAX_SEATS * GAME_MAX_HAND];
	uint8_t play_id[GAME_MAX_SEATS * GAME_MAX_HAND];
};

/* One sampled deal of the hidden cards, and the cards gone so far. */
struct wizard_world {
	struct wizard_state s;
	uint64_t gone;
	uint64_t shown;
};


/* The card face of an id; Wizards and Jesters are one face each. */
static inline int
face_of(int id)
{
	return id < 52 ? id : id < 56 ? WIZARD_FACE_WIZARD : WIZARD_FACE_JESTER;
}

static inline void
set_play(struct action *out, int seat, int id)
{
	*out = (struct action){ .seat = (int8_t)seat, .kind = ACTION_PLAY,
	    .ncards = 1, .cards = { (uint8_t)face_of(id) } };
}

static inline void
set_trump(struct action *out, int seat, int suit)
{
	*out = (struct action){ .seat = (int8_t)seat, .kind = ACTION_TRUMP,
	    .value = (int8_t)suit };
}


/* The ids seat may play, one per face (Wizards and Jesters collapse). */
int wizard_ai_candidates(const struct wizard_state *s, int seat, int *ids);
/*
 * normal's play for seat, which cannot see the cards of unseen: the card
 * with the best expected score for the round.
 */
int wizard_ai_normal_play(const struct wizard_state *s, int seat,
    uint64_t unseen);
/* normal's bid for seat, and the trump it names after a turned Wizard. */
int wizard_ai_normal_bid(const struct wizard_state *s, int seat);
int wizard_ai_normal_trump(const struct wizard_state *s, int seat);
/*
 * The distribution of the tricks hand takes, into dist[0..cards in hand],
 * when it is expected to take shift tricks more than its cards' worth.
 */
void wizard_ai_trick_distribution(const struct wizard_state *s,
    uint64_t hand, double shift, double *dist);
/* The best bid for hand under that distribution, skipping forbidden. */
int wizard_ai_best_bid(const struct wizard_state *s, uint64_t hand,
    double shift, int forbidden);
/* easy and normal on the view (level AI_EASY or AI_NORMAL). */
void wizard_ai_heuristic(const struct wizard_view *v, enum ai_level level,
    struct action *out);
/* hard and hard-v1 (ctx->hard_v1) on the view. */
void wizard_ai_hard(const struct wizard_view *v, struct ai_ctx *ctx,
    struct action *out);

#endif

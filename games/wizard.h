/*
 * wizard.h - the Wizard engine's state, its card tables and ranking, and
 * its card-mask path, shared with the computer players and the tests.
 * Everything else uses the game through wizard_game.
 */
#ifndef STICHBOT_WIZARD_H
#define STICHBOT_WIZARD_H

#include <stdint.h>

#include "game.h"

struct rng;

#define WIZARD_MAX_ROUNDS 20
#define WIZARD_FACE_WIZARD 52
#define WIZARD_FACE_JESTER 53

/* Indexes into struct game_options for Wizard. */
enum wizard_option {
	WIZARD_OPT_NOTEQUAL,
	WIZARD_OPT_EVENBID,
	WIZARD_OPT_CANADIAN,
	WIZARD_OPT_HARDCORE,
	WIZARD_OPT_HIDDENTIP,
	WIZARD_OPT_SECRET,
	WIZARD_OPT_QUICK,
	WIZARD_OPT_ROUNDS,
	WIZARD_OPT_AMIGO,
	WIZARD_OPT_CUSTOM6,
	WIZARD_OPT_NANNIE,
	WIZARD_OPT_JESTERBID,
	WIZARD_OPT_CLAIRVOYANCE,
	WIZARD_NOPTIONS,
};

/* What changes during a round: small, so simulations copy it cheaply. */
struct wizard_round {
	uint64_t hand[GAME_MAX_SEATS];   /* masks of card ids */
	uint8_t phase;                   /* enum game_phase */
	uint8_t cards;                   /* dealt to each seat this round */
	int8_t turned;                   /* face, or -1 */
	int8_t trump;                    /* suit 0..3, or -1 for none */
	uint8_t dealer;
	uint8_t turn;                    /* who acts in sequential phases */
	uint8_t leader;                  /* who led the current trick */
	uint8_t trick_len;               /* cards in the current trick */
	uint8_t trick_no;                /* tricks completed this round */
	int8_t lead_suit;                /* -1 not yet set, 4 none (Wizard) */
	uint8_t best_seat;               /* who wins the trick so far */
	int16_t best_power;              /* its power; -1 before a card */
	uint8_t nbids;
	uint8_t trick_seat[GAME_MAX_SEATS];
	uint8_t trick_card[GAME_MAX_SEATS]; /* ids */
	int8_t bid[GAME_MAX_SEATS];      /* -1 not yet made */
	uint8_t won[GAME_MAX_SEATS];
	/* Suits each seat has shown it lacks (public knowledge). */
	uint8_t void_suits[GAME_MAX_SEATS];
};

struct wizard_state {
	struct wizard_round r;
	uint8_t nseats;
	uint8_t first;
	uint8_t nrounds;
	int8_t round;                    /* current round, -1 before the first */
	uint8_t scored;                  /* rounds scored so far */
	uint8_t active;                  /* seats still in (nannie) */
	uint8_t nactive;                 /* how many */
	/* The next seat still in after each seat (wizard_seat_ring()). */
	uint8_t next_seat[GAME_MAX_SEATS];
	int8_t restriction;              /* WIZARD_OPT_NOTEQUAL.. or -1 */
	uint8_t simultaneous, secret, jesterbid, clairvoyance, nannie;
	uint8_t schedule[WIZARD_MAX_ROUNDS];
	int16_t total[GAME_MAX_SEATS];
	/* The history the result reports. */
	uint8_t tricks[WIZARD_MAX_ROUNDS][WIZARD_MAX_ROUNDS]; /* leader|winner<<4 */
	int8_t bids[WIZARD_MAX_ROUNDS][GAME_MAX_SEATS];
	uint8_t won[WIZARD_MAX_ROUNDS][GAME_MAX_SEATS];
	int16_t points[WIZARD_MAX_ROUNDS][GAME_MAX_SEATS];
};

/* Wizard's own reasons to refuse options (struct game_refusal's code). */
enum wizard_refusal {
	/* option (hidden bids) with other (a bid rule): bids at once */
	WIZARD_REFUSAL_AT_ONCE = GAME_REFUSAL_GAME,
	WIZARD_REFUSAL_NO_BIDDING,   /* jesterbid with other: no bidding */
	WIZARD_REFUSAL_BOTH_ROUNDS,  /* option and other both set the rounds */
	WIZARD_REFUSAL_PLAYERS,      /* option is for a to b players, not c */
	WIZARD_REFUSAL_TOO_LONG,     /* option=a is longer than b rounds */
	WIZARD_REFUSAL_STARTS_HIGH,  /* option needs 1 card first; other not */
	WIZARD_REFUSAL_FIRST_ROUND,  /* option needs 1 card first, not a */
};

extern const struct game_impl wizard_game;

/*
 * Empties the trick on the table: no card, no lead, and a best power of
 * -1, which the first card of the next trick always beats.  The engine
 * calls it between tricks; a computer player rewinding a trick in its own
 * copy of a state calls it too.
 */
static inline void
wizard_clear_trick(struct wizard_round *r)
{
	r->trick_len = 0;
	r->lead_suit = -1;
	r->best_power = -1;
}

/* Masks of card ids. */
#define WIZARD_SUIT_MASK(s) (UINT64_C(0x1fff) << (13 * (s)))
#define WIZARD_WIZARD_MASK (UINT64_C(0xf) << 52)
#define WIZARD_JESTER_MASK (UINT64_C(0xf) << 56)

/*
 * The ids a lead obliges a seat to follow, indexed by lead_suit + 1: none
 * before a lead (-1) and after a led Wizard (4), else the suit.
 */
static const uint64_t wizard_lead_ids[6] = {
	0, UINT64_C(0x1fff), UINT64_C(0x1fff) << 13, UINT64_C(0x1fff) << 26,
	UINT64_C(0x1fff) << 39, 0,
};

/* Slots in wizard_id_suit[] for the two cards that have no suit. */
#define WIZARD_SLOT_WIZARD 6
#define WIZARD_SLOT_JESTER 7

/*
 * The suit of every card id (0..3, or a slot for Wizards and Jesters), so
 * the hot paths look it up instead of dividing by 13.
 */
static const uint8_t wizard_id_suit[64] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7,
	7,
};

/* The rank of every card id, 1..13; 0 for Wizards and Jesters. */
static const uint8_t wizard_id_rank[64] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2, 3, 4, 5, 6, 7,
	8, 9, 10, 11, 12, 13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0,
};

/*
 * What a card adds to its rank in a trick when it is neither trump nor of
 * the lead suit (index: jesterbid, then the suit slot): a Wizard beats
 * everything, a Jester nothing, except under jesterbid where a Jester
 * beats even a Wizard.  A suited card off trump and off the lead keeps its
 * bare rank, below any lead card: it can never take the trick, because
 * the first suited card of a trick sets the lead.
 */
static const uint16_t wizard_off_power[2][8] = {
	{ 0, 0, 0, 0, 0, 0, 300, 0 },
	{ 0, 0, 0, 0, 0, 0, 200, 300 },
};

/*
 * The lead a first card sets, by suit slot: its suit, 4 (none) for a
 * Wizard; a Jester leaves it open for the next card.
 */
static const int8_t wizard_lead_of_slot[8] = { 0, 1, 2, 3, -1, -1, 4, -1 };

/* The lead suit once id is played in r's trick (-1 still open, 4 none). */
static inline int
wizard_lead_after(const struct wizard_round *r, int id)
{
	return r->lead_suit < 0 ? wizard_lead_of_slot[wizard_id_suit[id]] :
	    r->lead_suit;
}

/*
 * The power of card id in the current trick once the lead is lead: its
 * rank, plus 100 for trump, 50 for the lead suit, or what
 * wizard_off_power[] adds.  The highest power takes the trick, and a card
 * takes over only with more than the best so far (an empty trick's best
 * is -1).  The one ranking of cards: the play step and the computer
 * players both ask it.
 */
static inline unsigned
wizard_card_power(const struct wizard_state *s, int lead, int id)
{
	int slot = wizard_id_suit[id];
	unsigned extra = wizard_off_power[s->jesterbid][slot];

	extra = slot == lead ? 50 : extra;
	extra = slot == s->r.trump ? 100 : extra;
	return wizard_id_rank[id] + extra;
}

/*
 * The next seat after seat that is still in the game: one lookup in the
 * table wizard_seat_ring() keeps, because the play step asks it for every
 * card.
 */
static inline int
wizard_next_seat(const struct wizard_state *s, int seat)
{
	return s->next_seat[seat];
}

/*
 * The card ids seat may play now: the lead suit when it holds any (plus its
 * Wizards and Jesters), otherwise the whole hand.  Without a branch: in a
 * random playout whether a hand can follow is a coin toss.
 */
static inline uint64_t
wizard_playable(const struct wizard_state *s, int seat)
{
	const struct wizard_round *r = &s->r;
	uint64_t hand = r->hand[seat];
	uint64_t follow = hand & wizard_lead_ids[r->lead_suit + 1];
	uint64_t must = -(uint64_t)(follow != 0);

	return hand & (~must | follow | WIZARD_WIZARD_MASK |
	    WIZARD_JESTER_MASK);
}

/*
 * One id for each face in ids: the suited cards, and the lowest of the
 * Wizards and of the Jesters, which are interchangeable.
 */
static inline uint64_t
wizard_distinct(uint64_t ids)
{
	uint64_t wizards = ids & WIZARD_WIZARD_MASK;
	uint64_t jesters = ids & WIZARD_JESTER_MASK;

	return (ids & ~(WIZARD_WIZARD_MASK | WIZARD_JESTER_MASK)) |
	    (wizards & (~wizards + 1)) | (jesters & (~jesters + 1));
}

/*
 * The cards per round for these options and seats; returns the number of
 * rounds, or -1 with a reason.
 */
int wizard_schedule(const struct game_options *options, int nseats,
    uint8_t *cards, char *err, size_t errlen);
/* The faces seat may play now (PHASE_PLAY); returns how many. */
int wizard_legal_faces(const struct wizard_state *s, int seat, uint8_t *faces);
/* Plays card id for seat without checks; the fast path for simulations. */
void wizard_play_id(struct wizard_state *s, int seat, int id);

/*
 * The card-mask path (wizard_mask.c).  A move is a bit number: a card id
 * while cards are played (one id per face, see wizard_distinct()), the bid
 * while bidding, the suit while the dealer chooses trump.
 *
 * The legal moves of seat now, as a mask (0 when it may not act).
 */
uint64_t wizard_legal_mask(const struct wizard_state *s, int seat);
/* wizard_apply_mask() outside PHASE_PLAY: bids and trump. */
void wizard_apply_other(struct wizard_state *s, int seat, int move);
/* wizard_next_moves() outside PHASE_PLAY. */
uint64_t wizard_next_moves_other(const struct wizard_state *s, int *seat);

/* Applies a move taken from a legal mask without checking it. */
static inline void
wizard_apply_mask(struct wizard_state *s, int seat, int move)
{
	if (s->r.phase == PHASE_PLAY)
		wizard_play_id(s, seat, move);
	else
		wizard_apply_other(s, seat, move);
}

/*
 * The legal moves of the seat that acts next, written to *seat (the
 * lowest seat still to bid when bids are simultaneous); 0 when a deal is
 * due or the game is over.  Plays, nine actions in ten, are answered
 * inline without a call.
 */
static inline uint64_t
wizard_next_moves(const struct wizard_state *s, int *seat)
{
	if (s->r.phase == PHASE_PLAY) {
		*seat = s->r.turn;
		return wizard_distinct(wizard_playable(s, s->r.turn));
	}
	return wizard_next_moves_other(s, seat);
}

/*
 * Deals the next round straight into the hands (PHASE_DEAL): the same
 * draws, cards and state as make_deal() then start_round().
 */
void wizard_deal(struct wizard_state *s, struct rng *rng);
/* The same with a version of the deal algorithm (game.h). */
void wizard_deal_version(struct wizard_state *s, int version,
    struct rng *rng);
/* The move action stands for if it is legal now, or -1. */
int wizard_action_move(const struct wizard_state *s, const struct action *a);
/* The action a legal move of seat stands for. */
void wizard_move_action(const struct wizard_state *s, int seat, int move,
    struct action *out);

/*
 * Whether seat may see other's bid now (hidden and secret bids): the one
 * statement of the rule, for the views and the computer players.
 */
int wizard_bid_visible(const struct wizard_state *s, int seat, int other);

#endif

/*
 * birdhead.h - the BirdHead engine's state, shared with the computer
 * players and the tests.  Everything else uses the game through
 * birdhead_game.
 */
#ifndef STICHBOT_BIRDHEAD_H
#define STICHBOT_BIRDHEAD_H

#include <stdint.h>

#include "game.h"

/* Faces are the ranks themselves, 2..11; count[] is indexed by face. */
#define BIRDHEAD_LOW 2
#define BIRDHEAD_HIGH 11
#define BIRDHEAD_FACES (BIRDHEAD_HIGH + 1)
#define BIRDHEAD_COPIES 5
#define BIRDHEAD_DECK 50
#define BIRDHEAD_MAX_DEAL 10
/* Tricks leave at least one card each, so ten cards make at most 9. */
#define BIRDHEAD_MAX_TRICKS (BIRDHEAD_MAX_DEAL - 1)
#define BIRDHEAD_LIMIT 22
/*
 * Every round adds at least 2 to somebody's penalty, and six seats can hold
 * at most 6 * 21 between them before one of them reaches 22: 63 rounds can
 * pass without an end, so the 64th is always the last.
 */
#define BIRDHEAD_MAX_ROUNDS 64

/* What changes during a round: small, so simulations copy it cheaply. */
struct birdhead_round {
	uint8_t count[GAME_MAX_SEATS][BIRDHEAD_FACES]; /* cards per face */
	uint8_t held;                    /* cards in every hand (all equal) */
	uint8_t phase;                   /* enum game_phase */
	uint8_t leader;                  /* who led the current trick */
	uint8_t turn;
	uint8_t trick_len;               /* plays in the current trick */
	uint8_t trick_no;                /* tricks completed this round */
	uint8_t width;                   /* cards per play in this trick */
	uint8_t standard[GAME_MAX_PLAY]; /* sorted ascending */
	uint8_t best_seat;               /* who wins the trick so far */
	uint8_t best_face;
	uint8_t trick_seat[GAME_MAX_SEATS];
	uint8_t trick_cards[GAME_MAX_SEATS][GAME_MAX_PLAY]; /* sorted */
	/* The cards revealed at the end of the round (0 before). */
	uint8_t revealed[GAME_MAX_SEATS];
};

struct birdhead_state {
	struct birdhead_round r;
	uint8_t nseats;
	uint8_t first;                   /* who starts round 1 */
	uint8_t cards;                   /* dealt to each seat */
	int8_t round;                    /* current round, or -1 */
	uint8_t scored;                  /* rounds scored so far */
	uint8_t next_start;              /* who starts the next round */
	int16_t total[GAME_MAX_SEATS];   /* penalties */
	/* The history the result reports. */
	uint8_t ntricks[BIRDHEAD_MAX_ROUNDS];
	/* leader | winner << 4; the final reveal is no trick. */
	uint8_t tricks[BIRDHEAD_MAX_ROUNDS][BIRDHEAD_MAX_TRICKS];
	uint8_t points[BIRDHEAD_MAX_ROUNDS][GAME_MAX_SEATS];
	uint8_t losers[BIRDHEAD_MAX_ROUNDS];    /* masks of seats */
};

extern const struct game_impl birdhead_game;

/* The cards dealt to each of nseats seats. */
int birdhead_hand_size(int nseats);

/*
 * Whether sorted play meets sorted standard, card by card: the one
 * statement of the rule, for the engine and the computer players.
 */
static inline int
birdhead_meets(const uint8_t *play, const uint8_t *standard, int n)
{
	for (int i = 0; i < n; i++)
		if (play[i] < standard[i])
			return 0;
	return 1;
}
/*
 * Whether seat may play the sorted faces now (PHASE_PLAY, seat to act, the
 * cards held): 0, or -1 with a reason.
 */
int birdhead_check_play(const struct birdhead_state *s, int seat,
    const uint8_t *sorted, int n, char *err, size_t errlen);
/* Plays sorted faces for seat without checks; the fast path for simulations. */
void birdhead_play(struct birdhead_state *s, int seat, const uint8_t *sorted,
    int n);

#endif

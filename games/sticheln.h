/*
 * sticheln.h - the Sticheln engine's state, shared with the computer
 * players and the tests.  Everything else uses the game through
 * sticheln_game.
 */
#ifndef STICHBOT_STICHELN_H
#define STICHBOT_STICHELN_H

#include <stdint.h>

#include "game.h"

/* Faces are colour * STICHELN_RANKS + rank over the largest deck. */
#define STICHELN_COLOURS 6
#define STICHELN_RANKS 15
#define STICHELN_FACES (STICHELN_COLOURS * STICHELN_RANKS)
#define STICHELN_HAND 15
#define STICHELN_TRICKS (STICHELN_HAND - 1)
#define STICHELN_MAX_ROUNDS 5

/* Indexes into struct game_options for Sticheln. */
enum sticheln_option {
	STICHELN_OPT_DM,
	STICHELN_NOPTIONS,
};

/* What changes during a round: small, so simulations copy it cheaply. */
struct sticheln_round {
	/* Bit rank of hand[seat][colour]: whether seat holds that card. */
	uint16_t hand[GAME_MAX_SEATS][STICHELN_COLOURS];
	uint8_t phase;                   /* enum game_phase */
	uint8_t leader;                  /* who led the current trick */
	uint8_t turn;
	uint8_t trick_len;               /* cards in the current trick */
	uint8_t trick_no;                /* tricks completed this round */
	uint8_t lead_colour;             /* of the current trick's first card */
	uint8_t best_seat;               /* who wins the trick so far */
	uint8_t best_power;
	uint8_t nselected;
	uint8_t trick_seat[GAME_MAX_SEATS];
	uint8_t trick_card[GAME_MAX_SEATS]; /* faces */
	int8_t selected[GAME_MAX_SEATS]; /* penalty card face, or -1 */
	uint8_t won[GAME_MAX_SEATS];     /* tricks taken */
	uint8_t captured[GAME_MAX_SEATS]; /* cards taken */
	int16_t gained[GAME_MAX_SEATS];  /* points from the cards taken */
};

struct sticheln_state {
	struct sticheln_round r;
	uint8_t nseats;
	uint8_t first;                   /* who leads round 1 */
	uint8_t nrounds;
	uint8_t ncolours;                /* colours in this table's deck */
	uint8_t nranks;                  /* ranks 0..nranks-1 of each colour */
	int8_t round;                    /* current round, or -1 */
	uint8_t scored;                  /* rounds scored so far */
	int16_t total[GAME_MAX_SEATS];
	/* The history the result reports. */
	/* leader | winner << 4 */
	uint8_t tricks[STICHELN_MAX_ROUNDS][STICHELN_TRICKS];
	/* Penalty card faces, -1 until selected. */
	int8_t selected[STICHELN_MAX_ROUNDS][GAME_MAX_SEATS];
	uint8_t captured[STICHELN_MAX_ROUNDS][GAME_MAX_SEATS];
	int16_t points[STICHELN_MAX_ROUNDS][GAME_MAX_SEATS];
};

extern const struct game_impl sticheln_game;

/* The deck for nseats seats: colours and ranks per colour. */
void sticheln_deck(int nseats, int *ncolours, int *nranks);
/* Plays face for seat without checks; the fast path for simulations. */
void sticheln_play_face(struct sticheln_state *s, int seat, int face);

#endif

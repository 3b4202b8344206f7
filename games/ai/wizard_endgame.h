/*
 * wizard_endgame.h - the exact end of a Wizard round for the hard player:
 * once the hands of a sampled world are small, the rest of the round is
 * searched through instead of played out with the normal policy.
 */
#ifndef STICHBOT_WIZARD_ENDGAME_H
#define STICHBOT_WIZARD_ENDGAME_H

#include "game.h"
#include "wizard.h"

/*
 * Whether the rest of the round of s (PHASE_PLAY) is small enough to
 * search: the product over the seats still in of the factorials of their
 * hand sizes, a bound on the lines of play, is at most limit.
 */
int wizard_endgame_fits(const struct wizard_state *s, long limit);

/*
 * Plays the rest of the round of s (PHASE_PLAY, every hand known) with
 * each seat choosing the card that is best for itself in the end, every
 * seat seeing every hand: its own round points, except for me, which
 * weighs its points less others_weight times the mean of the other seats'
 * (the hard player's utility).  A seat for which several cards are
 * equally good is taken to play any of them alike: the points are the
 * mean over those cards.  Writes every seat's round points, 0 for the
 * seats out of the game, to points, which has room for GAME_MAX_SEATS.
 */
void wizard_endgame_solve(const struct wizard_state *s, int me,
    double others_weight, double *points);

#endif

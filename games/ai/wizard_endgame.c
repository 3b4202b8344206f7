/*
 * wizard_endgame.c - an exact search of the end of a Wizard round in one
 * sampled world, for the hard player.
 *
 * The normal policy that plays a world out judges cards by chances; with
 * a few cards left in every hand the whole rest of the round can be
 * searched instead, so that the hard seat's own later plays are the best
 * ones in that world and the others answer with theirs (a max^n search:
 * every seat maximises its own round points).  The search runs the
 * engine's own play step on a private copy of the state, so it knows no
 * rule the engine does not, and undoes each play by restoring the round.
 */
#include <string.h>

#include "bits.h"
#include "wizard_endgame.h"
#include "wizard_impl.h"

/* Utilities closer than this are the same to the seat choosing. */
#define TIE_EPSILON 1e-9

struct solver {
	struct wizard_state s;           /* the working copy */
	int me;
	double others_weight;
	int nothers;
};

int
wizard_endgame_fits(const struct wizard_state *s, long limit)
{
	long lines = 1;

	for (int seat = 0; seat < s->nseats; seat++) {
		if (!(s->active & (1u << seat)))
			continue;
		for (int k = bits_count64(s->r.hand[seat]); k > 1; k--) {
			lines *= k;
			if (lines > limit)
				return 0;
		}
	}
	return 1;
}

/* What seat makes of the round's points: its own, or the hard utility. */
static double
utility(const struct solver *sv, const double *points, int seat)
{
	double others = 0;

	if (seat != sv->me)
		return points[seat];
	for (int other = 0; other < sv->s.nseats; other++)
		if (other != seat && (sv->s.active & (1u << other)))
			others += points[other];
	return points[seat] - (sv->nothers > 0 ?
	    sv->others_weight * others / sv->nothers : 0);
}

/*
 * The cards seat need consider among moves: of two cards of a suit in
 * its hand with no card between them still in play (in a hand or on the
 * table), either does what the other does, so only the higher is kept.
 */
static uint64_t
distinct_plays(const struct wizard_state *s, int seat, uint64_t moves)
{
	const struct wizard_round *r = &s->r;
	uint64_t live = 0, hand = r->hand[seat], out = moves;

	for (int other = 0; other < s->nseats; other++)
		live |= r->hand[other];
	for (int i = 0; i < r->trick_len; i++)
		live |= UINT64_C(1) << r->trick_card[i];
	for (uint64_t m = moves & ~WIZARD_SPECIAL_MASK; m; m &= m - 1) {
		int id = bits_lowest64(m), top = id / 13 * 13 + 12;
		uint64_t above;

		if (id == top)
			continue;
		/* The live cards of the suit above id: is the next one ours? */
		above = live & ((UINT64_C(2) << top) - 1) &
		    ~((UINT64_C(2) << id) - 1);
		if (above != 0 && (hand & (above & -above)))
			out &= ~(UINT64_C(1) << id);
	}
	return out;
}

/*
 * Plays the round's last card, id of seat, and reads the points.  The
 * play step scores the round and may apply Nannie's elimination: what it
 * changes outside the round is put back.
 */
static void
last_play(struct solver *sv, int seat, int id, double *points)
{
	struct wizard_state *s = &sv->s;
	int16_t total[GAME_MAX_SEATS];
	uint8_t next_seat[GAME_MAX_SEATS];
	uint8_t scored = s->scored, active = s->active, nactive = s->nactive;

	memcpy(total, s->total, sizeof(total));
	memcpy(next_seat, s->next_seat, sizeof(next_seat));
	wizard_play_id(s, seat, id);
	for (int other = 0; other < s->nseats; other++)
		points[other] = (active & (1u << other)) ?
		    wizard_round_points(s->r.bid[other], s->r.won[other]) : 0;
	memcpy(s->total, total, sizeof(total));
	memcpy(s->next_seat, next_seat, sizeof(next_seat));
	s->scored = scored;
	s->active = active;
	s->nactive = nactive;
}

static void
search(struct solver *sv, double *points)
{
	struct wizard_state *s = &sv->s;
	struct wizard_round saved;
	double child[GAME_MAX_SEATS], best = 0;
	int seat = s->r.turn, ties = 0;
	int last = s->r.trick_no + 1 == s->r.cards &&
	    s->r.trick_len + 1 == s->nactive;
	uint64_t moves = distinct_plays(s, seat,
	    wizard_distinct(wizard_playable(s, seat)));

	for (; moves; moves &= moves - 1) {
		int id = bits_lowest64(moves);
		double u;

		memcpy(&saved, &s->r, sizeof(saved));
		if (last) {
			last_play(sv, seat, id, child);
		} else {
			wizard_play_id(s, seat, id);
			search(sv, child);
		}
		memcpy(&s->r, &saved, sizeof(saved));
		u = utility(sv, child, seat);
		if (ties == 0 || u > best + TIE_EPSILON) {
			memcpy(points, child, sizeof(child));
			best = u;
			ties = 1;
		} else if (u > best - TIE_EPSILON) {
			/* Equally good for the seat: the running mean. */
			ties++;
			for (int other = 0; other < s->nseats; other++)
				points[other] += (child[other] -
				    points[other]) / ties;
		}
	}
}

void
wizard_endgame_solve(const struct wizard_state *s, int me,
    double others_weight, double *points)
{
	struct solver sv;

	memcpy(&sv.s, s, sizeof(sv.s));
	sv.me = me;
	sv.others_weight = others_weight;
	sv.nothers = 0;
	for (int seat = 0; seat < s->nseats; seat++)
		if (seat != me && (s->active & (1u << seat)))
			sv.nothers++;
	for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
		points[seat] = 0;
	search(&sv, points);
}

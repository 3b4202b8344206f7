/*
 * wizard_play.c - the rules of a Wizard round after the checks: starting a
 * round, bids, trump, plays, tricks, scoring and Nannie's eliminations.
 *
 * Every path into the engine ends here, whether it checked an action from
 * a player (wizard.c) or took a move from a legal mask (wizard_mask.c), so
 * the rules exist once.  The play step is the hottest code of the
 * computer players: it looks suits and ranks up in tables, finds the next
 * seat with a bit scan and picks the trick's winner without branches,
 * because random playouts make those branches unpredictable.
 */
#include <string.h>

#include "bits.h"
#include "wizard.h"
#include "wizard_impl.h"

void
wizard_begin_round(struct wizard_state *s, const uint64_t *hands, int turned)
{
	struct wizard_round *r = &s->r;
	int round = s->round + 1;
	int dealer = round == 0 ? s->first : wizard_next_seat(s, s->r.dealer);

	s->round = (int8_t)round;
	memset(r, 0, sizeof(*r));
	r->cards = s->schedule[round];
	r->dealer = (uint8_t)dealer;
	for (int seat = 0; seat < s->nseats; seat++) {
		r->bid[seat] = s->jesterbid && (s->active & (1u << seat)) ?
		    0 : -1;
		r->hand[seat] = hands[seat];
	}
	r->turned = (int8_t)turned;
	r->trump = -1;
	wizard_clear_trick(r);
	r->leader = (uint8_t)wizard_next_seat(s, dealer);
	if (turned >= 0 && turned < 52)
		r->trump = (int8_t)wizard_id_suit[turned];
	if (turned == WIZARD_FACE_WIZARD) {
		r->phase = PHASE_TRUMP;
		r->turn = (uint8_t)dealer;
	} else {
		r->turn = r->leader;
		r->phase = s->jesterbid ? PHASE_PLAY : s->simultaneous ?
		    PHASE_BID_SIMULTANEOUS : PHASE_BID;
	}
}

/* Whether the dealer alone has the highest total before this round. */
static int
dealer_leads_alone(const struct wizard_state *s)
{
	int dealer = s->r.dealer;

	for (int seat = 0; seat < s->nseats; seat++)
		if (seat != dealer && (s->active & (1u << seat)) &&
		    s->total[seat] >= s->total[dealer])
			return 0;
	return 1;
}

/* Only the last bidder of a sequential round is ever restricted. */
int
wizard_forbidden_bid(const struct wizard_state *s, int seat)
{
	const struct wizard_round *r = &s->r;
	int sum = 0, forbidden;

	if (seat != r->dealer || s->restriction < 0)
		return -1;
	switch (s->restriction) {
	case WIZARD_OPT_HARDCORE:
		if (r->cards < 4)
			return -1;
		break;
	case WIZARD_OPT_EVENBID:
	case WIZARD_OPT_CANADIAN:
		if (!dealer_leads_alone(s))
			return -1;
		break;
	default:
		break;
	}
	for (int i = 0; i < s->nseats; i++)
		if (i != seat && r->bid[i] > 0)
			sum += r->bid[i];
	forbidden = r->cards - sum;
	if (forbidden < 0)
		return -1;
	if (forbidden == 0 && s->restriction == WIZARD_OPT_CANADIAN)
		return -1;
	return forbidden;
}

static void
start_play(struct wizard_state *s)
{
	s->r.phase = PHASE_PLAY;
	s->r.turn = s->r.leader;
}

void
wizard_bid(struct wizard_state *s, int seat, int bid)
{
	struct wizard_round *r = &s->r;

	r->bid[seat] = (int8_t)bid;
	r->nbids++;
	if (r->nbids == s->nactive)
		start_play(s);
	else if (r->phase == PHASE_BID)
		r->turn = (uint8_t)wizard_next_seat(s, seat);
}

void
wizard_set_trump(struct wizard_state *s, int suit)
{
	struct wizard_round *r = &s->r;

	r->trump = (int8_t)suit;
	/* Bidding (or play) starts left of the dealer. */
	r->turn = r->leader;
	if (s->jesterbid)
		start_play(s);
	else
		r->phase = s->simultaneous ? PHASE_BID_SIMULTANEOUS :
		    PHASE_BID;
}

int
wizard_round_points(int bid, int won)
{
	int diff = won - bid;

	return diff == 0 ? 20 + 10 * won : -10 * (diff < 0 ? -diff : diff);
}

static void
score_round(struct wizard_state *s)
{
	struct wizard_round *r = &s->r;
	int round = s->round;

	for (int seat = 0; seat < s->nseats; seat++) {
		int points = 0;

		if (s->active & (1u << seat)) {
			points = wizard_round_points(r->bid[seat],
			    r->won[seat]);
		}
		s->points[round][seat] = (int16_t)points;
		s->bids[round][seat] = r->bid[seat];
		s->won[round][seat] = r->won[seat];
		s->total[seat] = (int16_t)(s->total[seat] + points);
	}
	s->scored = (uint8_t)(round + 1);
}

/* Nannie's rule: after every K rounds the lowest player leaves. */
static void
eliminate(struct wizard_state *s)
{
	int round = s->round + 1;
	int seat, loser = -1;

	if (!s->nannie || round % s->nannie != 0 || round >= s->nrounds ||
	    s->nactive <= 2)
		return;
	/* Go around from the seat after the dealer; the latest tie leaves. */
	seat = s->r.dealer;
	for (int i = 0; i < s->nseats; i++) {
		seat = seat + 1 == s->nseats ? 0 : seat + 1;
		if (!(s->active & (1u << seat)))
			continue;
		if (loser < 0 || s->total[seat] <= s->total[loser])
			loser = seat;
	}
	s->active &= (uint8_t)~(1u << loser);
	s->nactive--;
	wizard_seat_ring(s);
}

/*
 * Out of line: it runs once a trick, and inlined into the play step it
 * made the compiler spill that step's registers on every play.
 */
static __attribute__((noinline)) void
finish_trick(struct wizard_state *s)
{
	struct wizard_round *r = &s->r;
	int winner = r->best_seat;

	s->tricks[s->round][r->trick_no] =
	    (uint8_t)(r->leader | (winner << 4));
	r->won[winner]++;
	r->trick_no++;
	wizard_clear_trick(r);
	r->leader = (uint8_t)winner;
	r->turn = (uint8_t)winner;
	if (r->trick_no < r->cards)
		return;
	score_round(s);
	eliminate(s);
	r->phase = s->round + 1 >= s->nrounds ? PHASE_OVER : PHASE_DEAL;
}

/*
 * The void a card shows (index: lead_suit + 1, then the card's suit
 * slot): a suited card off a suited lead shows the lead's suit missing.
 */
#define VOID_ROW(lead) { \
	(lead) >= 0 && (lead) < 4 && (lead) != 0 ? 1u << ((lead) & 3) : 0, \
	(lead) >= 0 && (lead) < 4 && (lead) != 1 ? 1u << ((lead) & 3) : 0, \
	(lead) >= 0 && (lead) < 4 && (lead) != 2 ? 1u << ((lead) & 3) : 0, \
	(lead) >= 0 && (lead) < 4 && (lead) != 3 ? 1u << ((lead) & 3) : 0, \
	0, 0, 0, 0 }
static const uint8_t void_shown[6][8] = {
	VOID_ROW(-1), VOID_ROW(0), VOID_ROW(1), VOID_ROW(2), VOID_ROW(3),
	VOID_ROW(4),
};
#undef VOID_ROW

void
wizard_play_id(struct wizard_state *s, int seat, int id)
{
	struct wizard_round *r = &s->r;
	int slot = wizard_id_suit[id];
	int lead = r->lead_suit, len = r->trick_len, best;
	unsigned power, keep;

	r->hand[seat] &= ~(UINT64_C(1) << id);
	/*
	 * Not following a suited lead with a suited card shows a void; the
	 * first card, or the first after Jesters, sets the lead.  Both without
	 * branches: which card comes is random in a playout.
	 */
	r->void_suits[seat] |= void_shown[lead + 1][slot];
	lead = wizard_lead_after(r, id);
	r->lead_suit = (int8_t)lead;
	power = wizard_card_power(s, lead, id);
	/*
	 * All ones when the trick's best card stays, zero when this one takes
	 * over.  The first card of a trick always does, against the best of
	 * -1 a trick starts with; the comparison is a select by mask, because
	 * compilers turn the plain conditional into a branch that random play
	 * mispredicts half the time.
	 */
	best = r->best_power;
	keep = (unsigned)((int)power > best) - 1;
	r->best_power = (int16_t)(((unsigned)best & keep) | (power & ~keep));
	r->best_seat = (uint8_t)((r->best_seat & keep) |
	    ((unsigned)seat & ~keep));
	r->trick_seat[len] = (uint8_t)seat;
	r->trick_card[len] = (uint8_t)id;
	r->trick_len = (uint8_t)(len + 1);
	if (len + 1 == s->nactive)
		finish_trick(s);
	else
		r->turn = (uint8_t)wizard_next_seat(s, seat);
}

/*
 * wizard_ai.c - computer players for Wizard: easy, normal and the seat's
 * view.
 *
 * easy bids its Wizards and high cards, then plays its strongest card
 * while it needs tricks and its weakest otherwise.
 *
 * normal bids from hand strength: a table gives what each card is worth in
 * tricks, by its kind (Wizard, Jester, trump or not, rank), the cards
 * dealt and the seats at the table, and the bid is the count with the best
 * expected score over the distribution of tricks around that sum.  In play
 * it protects its bid: for each card it estimates the chance of taking the
 * trick (from the unseen cards, the voids shown by failures to follow and
 * whether the seats still to play want tricks) and what the cards kept
 * back are still worth, and plays the card with the best expected score;
 * so it ducks with its most dangerous card once the bid is made, takes
 * cheaply when short, and waits when its hand will make the tricks anyway.
 *
 * hard and hard-v1 search over sampled deals (wizard_ai_hard.c); they
 * take this file's normal as their default choice and rollout policy.
 * This file also builds the seat's view that every level decides from.
 */
#include <string.h>

#include "ai_impl.h"
#include "bits.h"
#include "game.h"
#include "wizard.h"
#include "wizard_ai_impl.h"

/*
 * A Wizard behind a card does not always come down on it: its holder may
 * keep it for later.  This is the weight of an unseen Wizard among a
 * card's possible beaters.
 */
#define WIZARD_THREAT 0.6
/*
 * How readily a later seat beats a card: one that still needs tricks
 * does, one that has made its bid only when it cannot help it, and one
 * whose bid is hidden somewhere in between.
 */
#define EAGER_NEEDS 1.0
#define EAGER_MADE 0.2
#define EAGER_UNKNOWN 0.6
/* What a trick claimed by the others beyond their share takes off a bid. */
#define BID_PRESSURE 0.25

/* What one seat's decision knows about the cards it cannot see. */
struct odds {
	uint64_t unseen;
	int nunseen;
	int wizards, jesters;            /* unseen */
	int nlater;                      /* seats still to play this trick */
	int later[GAME_MAX_SEATS];
	double eager[GAME_MAX_SEATS];    /* how readily each later seat beats */
	double f;                        /* chance a card is in one hand */
	int t;                           /* cards in each later hand */
};

/*
 * Whether id would take the trick if played now: the engine's ranking,
 * against the best so far (-1 in an empty trick, which every card beats).
 */
static int
wins_now(const struct wizard_state *s, int id)
{
	return (int)wizard_card_power(s, wizard_lead_after(&s->r, id), id) >
	    s->r.best_power;
}

/* How much a card is worth keeping for later tricks. */
static int
keep_value(const struct wizard_state *s, int id)
{
	if (id >= 56)
		return s->jesterbid ? 40 : 0;
	if (id >= 52)
		return s->jesterbid ? 30 : 40;
	if (id / 13 == s->r.trump)
		return 14 + id % 13 + 1;
	return id % 13 + 1;
}

static void
odds_init(struct odds *o, const struct wizard_state *s, int seat,
    uint64_t unseen, int t)
{
	const struct wizard_round *r = &s->r;
	int other = seat;

	o->unseen = unseen;
	o->nunseen = bits_count64(unseen);
	o->wizards = bits_count64(unseen & WIZARD_WIZARD_MASK);
	o->jesters = bits_count64(unseen & WIZARD_JESTER_MASK);
	o->nlater = s->nactive - r->trick_len - 1;
	if (o->nlater < 0)
		o->nlater = 0;
	for (int i = 0; i < o->nlater; i++) {
		other = wizard_next_seat(s, other);
		o->later[i] = other;
		o->eager[i] = r->bid[other] < 0 ? EAGER_UNKNOWN :
		    r->bid[other] > r->won[other] ? EAGER_NEEDS : EAGER_MADE;
	}
	o->t = t;
	o->f = o->nunseen > 0 ? (double)t / o->nunseen : 0;
	if (o->f > 1)
		o->f = 1;
}

/*
 * The chance that id, which wins the trick so far, still wins it once the
 * later seats have played: the expected number of cards that beat it and
 * lie in their hands (a later seat void in the lead suit may trump), read
 * as a Poisson rate.
 */
static double
hold_chance(const struct wizard_state *s, const struct odds *o, int id)
{
	const struct wizard_round *r = &s->r;
	double lambda = 0, threat, ruff_share = 1;
	int suit, lead, higher, trumps, suited;

	if (o->nlater == 0 || o->nunseen == 0)
		return 1;
	if (s->jesterbid) {
		if (id >= 56)
			return 1;
		threat = o->jesters + (id < 52 ? o->wizards : 0);
	} else {
		if (id >= 56)
			return 0.02;
		if (id >= 52)
			return 1;
		threat = WIZARD_THREAT * o->wizards;
	}
	if (id >= 52) {
		for (int i = 0; i < o->nlater; i++)
			lambda += o->eager[i] * o->f * threat;
		return ai_exp_neg(lambda);
	}
	suit = id / 13;
	lead = wizard_lead_after(&s->r, id);
	higher = bits_count64(o->unseen & SUIT_MASK(suit) &
	    ~((BIT(id) << 1) - 1));
	trumps = r->trump >= 0 && r->trump != suit && suit == lead ?
	    bits_count64(o->unseen & SUIT_MASK(r->trump)) : 0;
	suited = bits_count64(o->unseen & SUIT_MASK(suit));
	/* The chance that a hand of t unseen cards holds none of the lead. */
	if (trumps > 0)
		for (int k = 0; k < o->t; k++)
			ruff_share *= 1 - (double)suited / o->nunseen;
	for (int i = 0; i < o->nlater; i++) {
		int other = o->later[i];
		int void_here = (r->void_suits[other] >> suit) & 1;
		double beaters = threat + (void_here ? 0 : higher);

		/* A trump only comes down from a seat void in the lead. */
		if (trumps > 0 && !((r->void_suits[other] >> r->trump) & 1))
			beaters += (void_here ? 1 : ruff_share) *
			    (trumps * o->f < 1 ? trumps : 1 / o->f);
		lambda += o->eager[i] * o->f * beaters;
	}
	return ai_exp_neg(lambda);
}

/* The ids seat may play, one per face (Wizards and Jesters collapse). */
int
wizard_ai_candidates(const struct wizard_state *s, int seat, int *ids)
{
	uint64_t playable = wizard_playable(s, seat);
	uint64_t suited = playable & ~SPECIAL_MASK;
	int n = 0;

	for (; suited; suited &= suited - 1)
		ids[n++] = bits_lowest64(suited);
	if (playable & WIZARD_WIZARD_MASK)
		ids[n++] = bits_lowest64(playable & WIZARD_WIZARD_MASK);
	if (playable & WIZARD_JESTER_MASK)
		ids[n++] = bits_lowest64(playable & WIZARD_JESTER_MASK);
	return n;
}

/* ---- easy ------------------------------------------------------------ */

static int
easy_play(const struct wizard_state *s, int seat)
{
	int ids[GAME_MAX_HAND + 2];
	int n = wizard_ai_candidates(s, seat, ids), best = 0;
	int need = s->r.bid[seat] - s->r.won[seat];

	for (int k = 1; k < n; k++) {
		int a = keep_value(s, ids[k]), b = keep_value(s, ids[best]);
		int wa = wins_now(s, ids[k]), wb = wins_now(s, ids[best]);

		/* While short, the strongest card; else the weakest loser. */
		if (need > 0 ? a > b : (wa < wb || (wa == wb && a < b)))
			best = k;
	}
	return ids[best];
}

/* ---- normal ---------------------------------------------------------- */

/*
 * What a card is worth in tricks when bidding, in hundredths, by seats in
 * the game, by cards dealt (1, 2, 3-4, 5-6, 7-9, 10-14, 15-20) and by
 * kind: Wizard, Jester, trump 1..13, other suits 1..13 when there is a
 * trump, and 1..13 when there is none.  These are least-squares fits of
 * the tricks that normal players took with their whole hands against
 * each other (so they include what a card does for the rest of the hand,
 * e.g. a long trump suit), refitted until bids and play agreed.
 */
#define KINDS 41
static const int16_t bid_values[4][7][KINDS] = {
	{	/* 3 players */
		{ 94, 0, 48, 53, 60, 55, 64, 66, 61, 70, 70, 74, 80, 79,
		    88, 9, 12, 12, 13, 14, 17, 18, 18, 22, 26, 24, 26, 25,
		    15, 20, 15, 24, 24, 25, 29, 30, 28, 29, 33, 39, 38, },
		{ 95, -6, 51, 48, 57, 64, 73, 76, 76, 77, 79, 87, 89, 99,
		    103, 7, 9, 9, 9, 12, 13, 18, 19, 20, 20, 20, 32, 31,
		    11, 18, 15, 20, 16, 22, 31, 29, 32, 35, 42, 65, 62, },
		{ 93, 1, 52, 48, 53, 58, 62, 63, 68, 76, 82, 80, 85, 100,
		    106, 3, 4, 7, 9, 13, 13, 14, 20, 21, 25, 30, 36, 44,
		    9, 5, 0, 9, 20, 14, 29, 47, 26, 33, 69, 62, 73, },
		{ 89, 5, 52, 56, 58, 61, 61, 61, 66, 78, 82, 88, 96, 111,
		    110, -1, 3, 3, 3, 6, 13, 12, 17, 21, 24, 32, 43, 51,
		    10, 1, 4, 13, 15, 15, 15, 15, 26, 53, 47, 75, 106, },
		{ 88, 5, 49, 56, 53, 59, 58, 60, 64, 74, 80, 88, 102, 111,
		    128, -7, -5, -3, 2, 4, 5, 10, 15, 21, 30, 42, 47, 64,
		    -3, -5, 2, 9, 10, 11, 24, 30, 37, 51, 54, 73, 107, },
		{ 100, -4, 50, 58, 53, 49, 55, 65, 62, 72, 83, 96, 103, 125,
		    131, -9, -11, -9, -4, -1, 3, 8, 13, 19, 30, 42, 58, 78,
		    5, -1, 7, 4, 9, 10, 7, 20, 32, 38, 68, 92, 100, },
		{ 114, -14, 45, 52, 55, 57, 55, 64, 66, 76, 85, 101, 131, 145,
		    147, -20, -20, -14, -15, -11, -7, -1, 3, 15, 27, 54, 82, 98,
		    -14, -6, -6, -6, -5, 8, 10, 17, 28, 46, 77, 117, 133, },
	},
	{	/* 4 players */
		{ 93, 0, 35, 47, 41, 38, 49, 51, 57, 60, 64, 70, 72, 78,
		    78, 4, 4, 3, 7, 7, 8, 8, 11, 14, 12, 14, 14, 16,
		    15, 14, 12, 8, 8, 25, 15, 22, 25, 30, 29, 32, 25, },
		{ 94, -3, 33, 48, 42, 50, 48, 58, 68, 69, 75, 78, 81, 88,
		    99, -1, 1, 4, 4, 6, 5, 10, 10, 10, 12, 15, 14, 17,
		    8, -3, 12, 8, 14, 15, 16, 17, 16, 34, 40, 42, 63, },
		{ 96, -1, 33, 40, 44, 50, 53, 56, 61, 65, 73, 77, 83, 87,
		    101, -2, -4, 0, 0, 7, 5, 7, 8, 12, 16, 17, 20, 23,
		    7, 3, 3, 5, 4, 14, 17, 11, 32, 25, 39, 52, 63, },
		{ 94, 3, 32, 38, 37, 42, 46, 47, 55, 58, 65, 75, 87, 95,
		    111, -4, -4, -1, -1, 1, 3, 5, 9, 11, 16, 21, 28, 34,
		    0, 1, 0, 5, 0, 4, 10, 15, 20, 30, 36, 53, 94, },
		{ 96, 4, 35, 35, 36, 35, 42, 47, 51, 62, 66, 74, 85, 104,
		    120, -6, -6, -2, -6, -1, 0, 3, 4, 11, 14, 23, 31, 48,
		    -6, -5, 0, 1, 1, 10, 4, 13, 15, 26, 40, 68, 103, },
		{ 104, -2, 35, 31, 35, 33, 39, 39, 49, 52, 64, 76, 92, 118,
		    127, -11, -10, -10, -8, -7, -7, -2, 2, 5, 14, 25, 46, 76,
		    1, -9, -4, -8, -9, -1, 5, 8, 16, 25, 53, 81, 106, },
		{ 114, -11, 35, 31, 35, 33, 39, 39, 49, 52, 64, 76, 92, 118,
		    127, -11, -10, -10, -8, -7, -7, -2, 2, 5, 14, 25, 46, 76,
		    -10, -7, -8, -4, -2, -1, 1, 6, 11, 23, 54, 88, 121, },
	},
	{	/* 5 players */
		{ 91, 0, 26, 24, 31, 35, 37, 40, 44, 52, 52, 60, 62, 69,
		    74, 1, 2, 2, 3, 3, 5, 5, 6, 6, 9, 9, 10, 12,
		    5, 6, 5, 8, 18, 13, 14, 17, 20, 24, 20, 19, 32, },
		{ 99, -3, 17, 18, 30, 27, 37, 44, 45, 52, 59, 59, 71, 78,
		    90, -2, -2, 2, 3, 2, 2, 4, 8, 8, 8, 10, 10, 10,
		    -1, 4, -1, 6, 3, 14, 14, 24, 19, 20, 38, 32, 30, },
		{ 97, -1, 26, 25, 32, 36, 39, 45, 50, 57, 62, 67, 72, 82,
		    88, -4, -2, -2, -2, 0, 3, 4, 4, 7, 9, 9, 12, 15,
		    -3, -3, 0, 3, 5, 2, 10, 9, 18, 22, 32, 43, 62, },
		{ 97, 0, 27, 30, 29, 31, 36, 43, 46, 53, 63, 69, 79, 92,
		    96, -6, -5, -3, -3, -4, -1, 1, 2, 5, 8, 12, 18, 26,
		    5, -1, -3, 3, 1, 3, 5, 6, 12, 14, 25, 50, 75, },
		{ 100, 4, 31, 27, 26, 31, 34, 37, 41, 48, 50, 68, 80, 97,
		    115, -7, -7, -6, -6, -7, -4, -2, -1, 3, 6, 13, 22, 40,
		    -1, -3, -5, 3, -2, 3, 3, 6, 6, 15, 28, 45, 92, },
		{ 111, -2, 31, 29, 31, 34, 32, 35, 40, 43, 51, 62, 79, 100,
		    122, -11, -10, -11, -10, -7, -8, -6, -4, 0, 6, 12, 26, 58,
		    -5, -6, -3, -4, -1, 0, 2, 2, 2, 10, 29, 68, 98, },
		{ 111, -2, 31, 29, 31, 34, 32, 35, 40, 43, 51, 62, 79, 100,
		    122, -11, -10, -11, -10, -7, -8, -6, -4, 0, 6, 12, 26, 58,
		    -5, -6, -3, -4, -1, 0, 2, 2, 2, 10, 29, 68, 98, },
	},
	{	/* 6 players */
		{ 88, 0, 20, 18, 23, 26, 31, 38, 37, 39, 47, 49, 57, 68,
		    71, 1, 0, 1, 1, 2, 2, 3, 4, 3, 4, 5, 8, 7,
		    3, 6, 4, 5, 7, 8, 9, 13, 15, 17, 17, 22, 22, },
		{ 101, -2, 15, 15, 19, 22, 23, 30, 36, 41, 48, 55, 63, 67,
		    71, -1, -2, 0, 0, 1, 2, 2, 4, 4, 5, 6, 9, 9,
		    -4, 3, 2, 9, 10, 10, 15, 8, 15, 14, 16, 15, 32, },
		{ 99, -1, 20, 19, 22, 22, 21, 28, 43, 48, 55, 63, 67, 73,
		    80, -4, -4, -2, -3, -1, 1, 0, 3, 5, 6, 6, 8, 10,
		    -7, 0, -1, 0, 5, 4, 5, 6, 16, 16, 21, 27, 57, },
		{ 99, 2, 24, 23, 24, 26, 29, 32, 36, 45, 51, 60, 69, 80,
		    91, -5, -5, -5, -5, -4, -2, -2, -1, 2, 4, 7, 12, 17,
		    0, -4, -6, 1, 0, 0, 1, 6, 13, 15, 13, 36, 69, },
		{ 101, 3, 27, 25, 26, 24, 26, 29, 31, 38, 47, 59, 72, 89,
		    105, -6, -7, -7, -7, -7, -6, -4, -3, 0, 4, 8, 14, 28,
		    -3, -4, -3, -5, -4, 0, 0, 0, 4, 7, 23, 37, 89, },
		{ 111, -7, 27, 25, 26, 24, 26, 29, 31, 38, 47, 59, 72, 89,
		    105, -6, -7, -7, -7, -7, -6, -4, -3, 0, 4, 8, 14, 28,
		    -4, -4, -2, -3, -1, -1, 2, 2, 2, 5, 13, 48, 91, },
		{ 111, -7, 27, 25, 26, 24, 26, 29, 31, 38, 47, 59, 72, 89,
		    105, -6, -7, -7, -7, -7, -6, -4, -3, 0, 4, 8, 14, 28,
		    -4, -4, -2, -3, -1, -1, 2, 2, 2, 5, 13, 48, 91, },
	},
};

/*
 * The table row for a round of cards cards at s's table.  Nannie can
 * leave two seats, which play like three.
 */
static const int16_t *
bid_row(const struct wizard_state *s, int cards)
{
	int seats = s->nactive < 3 ? 3 : s->nactive;
	int size = cards <= 1 ? 0 : cards == 2 ? 1 : cards <= 4 ? 2 :
	    cards <= 6 ? 3 : cards <= 9 ? 4 : cards <= 14 ? 5 : 6;

	return bid_values[seats - 3][size];
}

static int
card_kind(int trump, int id)
{
	if (id >= 56)
		return 1;
	if (id >= 52)
		return 0;
	if (trump < 0)
		return 28 + id % 13;
	return (id / 13 == trump ? 2 : 15) + id % 13;
}

/*
 * The trick value of a card still to be played, from the bid table of a
 * round of the cards left: a suited card counts as if it were promoted
 * over the higher cards of its suit that are gone or in the seat's own
 * hand.  Under jesterbid a Jester takes the Wizard's place and a Wizard
 * that of the top trump.
 */
static double
future_value(const struct wizard_state *s, const int16_t *values,
    uint64_t unseen, int id)
{
	int kind;

	if (s->jesterbid && id >= 52)
		kind = id >= 56 ? 0 : 14;
	else if (id >= 52)
		kind = id >= 56 ? 1 : 0;
	else
		kind = card_kind(s->r.trump, id / 13 * 13 + 12 -
		    bits_count64(unseen & SUIT_MASK(id / 13) &
		    ~((BIT(id) << 1) - 1)));
	return values[kind] / 100.0;
}

/*
 * The expected points of a seat that still needs target tricks (negative
 * once past its bid) when the tricks it takes from now on follow a normal
 * law (mean, var) over 0..left; scored for target and for target - 1 at
 * once, into *now and *less.
 */
static void
outlook(int bid, int target, double mean, double var, int left,
    double *now, double *less)
{
	double total = 0, a = 0, b = 0, sigma3 = 3 * (var > 1 ? var : 1);
	int lo = (int)(mean - sigma3), hi = (int)(mean + sigma3) + 1;

	if (lo < 0)
		lo = 0;
	if (hi > left)
		hi = left;
	for (int k = lo; k <= hi; k++) {
		double d = k - mean, w = ai_exp_neg(d * d / (2 * var));
		int da = k > target ? k - target : target - k;
		int db = k > target - 1 ? k - target + 1 : target - 1 - k;

		total += w;
		a += w * (da == 0 ? 20 + 10 * bid : -10 * da);
		b += w * (db == 0 ? 20 + 10 * bid : -10 * db);
	}
	*now = total > 0 ? a / total : 0;
	*less = total > 0 ? b / total : 0;
}

/*
 * normal's play: the card with the best expected score for the round.
 * Each card is judged by the chance that it takes this trick and by what
 * the cards kept back are still likely to take, so a seat that is short
 * takes cheaply when it can and waits when its hand will make the tricks
 * anyway, and a seat at its bid ducks with its most dangerous card.
 */
int
wizard_ai_normal_play(const struct wizard_state *s, int seat, uint64_t unseen)
{
	const struct wizard_round *r = &s->r;
	int ids[GAME_MAX_HAND + 2];
	double value[GAME_MAX_HAND + 2], best_points = 0;
	double lose[GAME_MAX_HAND + 2], win[GAME_MAX_HAND + 2];
	/* Each held card's future value, by id: candidates are held cards. */
	double held[64];
	int n = wizard_ai_candidates(s, seat, ids);
	uint64_t hand = r->hand[seat];
	int t = bits_count64(hand), best = 0, bid = r->bid[seat];
	const int16_t *values = bid_row(s, t > 1 ? t - 1 : 1);
	double mean = 0, var = 0.25;
	struct odds o;

	if (n == 1)
		return ids[0];
	if (bid < 0)
		bid = 0;
	odds_init(&o, s, seat, unseen, t);
	for (uint64_t m = hand; m; m &= m - 1) {
		int id = bits_lowest64(m);
		double v = future_value(s, values, unseen, id);
		double q = v < 0 ? 0 : v > 1 ? 1 : v;

		held[id] = v;
		mean += v;
		var += q * (1 - q);
	}
	for (int k = 0; k < n; k++)
		value[k] = held[ids[k]];
	for (int k = 0; k < n; k++) {
		double p = wins_now(s, ids[k]) ? hold_chance(s, &o, ids[k]) : 0;
		double q = value[k] < 0 ? 0 : value[k] > 1 ? 1 : value[k];
		double points;
		int same = 0;

		/*
		 * Cards of one kind (low cards of the side suits, say) have
		 * the same value and so the same outlook: it is computed
		 * once.  The sums it takes are the same, so are the results.
		 */
		while (same < k && value[same] != value[k])
			same++;
		if (same < k) {
			lose[k] = lose[same];
			win[k] = win[same];
		} else {
			outlook(bid, bid - r->won[seat], mean - value[k],
			    var - q * (1 - q), t - 1, &lose[k], &win[k]);
		}
		points = p * win[k] + (1 - p) * lose[k];
		/* Equal outlooks: keep the stronger card back. */
		points -= 0.001 * keep_value(s, ids[k]);
		if (k == 0 || points > best_points) {
			best = k;
			best_points = points;
		}
	}
	return ids[best];
}

/*
 * The distribution of the tricks hand takes, into dist[0..n]: a normal
 * law around the table's expected count (moved by shift), discretised,
 * whose variance is that of as many independent cards.
 */
void
wizard_ai_trick_distribution(const struct wizard_state *s, uint64_t hand,
    double shift, double *dist)
{
	const int16_t *values = bid_row(s, s->r.cards);
	double mean = shift, var = 0.25, total = 0;
	int n = bits_count64(hand);

	for (uint64_t m = hand; m; m &= m - 1) {
		double v = values[card_kind(s->r.trump, bits_lowest64(m))] /
		    100.0;
		double q = v < 0 ? 0 : v > 1 ? 1 : v;

		mean += v;
		var += q * (1 - q);
	}
	for (int k = 0; k <= n; k++) {
		double d = k - mean;

		dist[k] = ai_exp_neg(d * d / (2 * var));
		total += dist[k];
	}
	for (int k = 0; k <= n; k++)
		dist[k] /= total;
}

/* The points bid scores when the tricks taken follow dist[0..n]. */
static double
expected_points(const double *dist, int n, int bid)
{
	double points = 0;

	for (int k = 0; k <= n; k++) {
		int diff = k > bid ? k - bid : bid - k;

		points += dist[k] * (diff == 0 ? 20 + 10 * bid : -10 * diff);
	}
	return points;
}

/*
 * The best bid for hand among 0..cards, skipping forbidden (or -1), when
 * the hand is expected to take shift tricks more than its cards' worth.
 */
int
wizard_ai_best_bid(const struct wizard_state *s, uint64_t hand, double shift,
    int forbidden)
{
	double dist[GAME_MAX_HAND + 2];
	int n = bits_count64(hand), best = -1;
	double best_points = 0;

	wizard_ai_trick_distribution(s, hand, shift, dist);
	for (int bid = 0; bid <= n; bid++) {
		double points = expected_points(dist, n, bid);

		if (bid == forbidden)
			continue;
		if (best < 0 || points > best_points) {
			best = bid;
			best_points = points;
		}
	}
	return best;
}

/*
 * The bid the engine refuses for seat now, or -1: the lowest bid missing
 * from the legal mask (rollouts ask once per simulated bid).
 */
static int
forbidden_bid(const struct wizard_state *s, int seat)
{
	uint64_t all = (UINT64_C(2) << s->r.cards) - 1;
	uint64_t refused = all & ~wizard_legal_mask(s, seat);

	return refused == 0 ? -1 : bits_lowest64(refused);
}

/*
 * normal's bid.  The bids already made tell how hard the tricks will be
 * fought over: every trick the others claim beyond their share of the
 * cards is a fraction of a trick less for this hand (and the other way
 * round), the fraction measured in normal's own games.
 */
int
wizard_ai_normal_bid(const struct wizard_state *s, int seat)
{
	const struct wizard_round *r = &s->r;
	int claimed = 0, bidders = 0;

	for (int other = 0; other < s->nseats; other++) {
		if (other == seat || r->bid[other] < 0 ||
		    !(s->active & (1u << other)))
			continue;
		claimed += r->bid[other];
		bidders++;
	}
	return wizard_ai_best_bid(s, r->hand[seat], BID_PRESSURE *
	    ((double)r->cards * bidders / s->nactive - claimed),
	    forbidden_bid(s, seat));
}

/* The suit normal names after a turned Wizard: the longest, then strongest. */
int
wizard_ai_normal_trump(const struct wizard_state *s, int seat)
{
	int best = 0, best_score = -1;

	for (int suit = 0; suit < 4; suit++) {
		uint64_t m = s->r.hand[seat] & SUIT_MASK(suit);
		int score = 0;

		for (; m; m &= m - 1)
			score += 20 + bits_lowest64(m) % 13 + 1;
		if (score > best_score) {
			best = suit;
			best_score = score;
		}
	}
	return best;
}

/*
 * Clairvoyance, first round: every seat holds one card and sees all but
 * its own, so the trick is decided by the cards alone.  The chance of
 * taking it is counted over the cards the seat's own may be.
 */
static double
blind_chance(const struct wizard_view *v, int trump)
{
	int wins = 0, total = 0;

	for (uint64_t m = v->unseen; m; m &= m - 1) {
		struct wizard_state s = v->s;
		int id = bits_lowest64(m), seat = s.r.leader;

		s.r.hand[v->seat] = BIT(id);
		s.r.trump = (int8_t)trump;
		s.r.phase = PHASE_PLAY;
		for (int i = 0; i < s.nactive; i++) {
			int next = wizard_next_seat(&s, seat);

			wizard_play_id(&s, seat, bits_lowest64(s.r.hand[seat]));
			seat = next;
		}
		wins += s.r.won[v->seat];
		total++;
	}
	return total > 0 ? (double)wins / total : 0;
}

static void
set_bid(struct action *out, int seat, int bid)
{
	*out = (struct action){ .seat = (int8_t)seat, .kind = ACTION_BID,
	    .value = (int8_t)bid };
}

static int
easy_bid(const struct wizard_state *s, int seat)
{
	uint64_t hand = s->r.hand[seat];
	int bid = bits_count64(hand & WIZARD_WIZARD_MASK);
	int forbidden = forbidden_bid(s, seat);

	for (uint64_t m = hand & ~SPECIAL_MASK; m; m &= m - 1) {
		int id = bits_lowest64(m), rank = id % 13 + 1;

		if (rank == 13 || (id / 13 == s->r.trump && rank >= 10))
			bid++;
	}
	if (bid == forbidden)
		bid += bid > 0 ? -1 : 1;
	return bid;
}

/* easy and normal, on the view: both use only what the seat sees. */
void
wizard_ai_heuristic(const struct wizard_view *v, enum ai_level level,
    struct action *out)
{
	const struct wizard_state *s = &v->s;
	int seat = v->seat;

	switch (s->r.phase) {
	case PHASE_TRUMP:
		if (v->blind && level != AI_EASY) {
			int best = 0;
			double best_chance = -1;

			for (int suit = 0; suit < 4; suit++) {
				double c = blind_chance(v, suit);

				if (c > best_chance) {
					best = suit;
					best_chance = c;
				}
			}
			set_trump(out, seat, best);
		} else {
			set_trump(out, seat, wizard_ai_normal_trump(s, seat));
		}
		return;
	case PHASE_BID:
	case PHASE_BID_SIMULTANEOUS:
		if (v->blind) {
			double c = level == AI_EASY ? 0 :
			    blind_chance(v, s->r.trump);
			int forbidden = s->r.phase == PHASE_BID ?
			    forbidden_bid(s, seat) : -1;
			/* 1 scores 40c - 10 on average, 0 scores 20 - 30c. */
			int bid = 40 * c - 10 > 20 - 30 * c;

			if (bid == forbidden)
				bid = !bid;
			set_bid(out, seat, bid);
		} else if (level == AI_EASY) {
			set_bid(out, seat, easy_bid(s, seat));
		} else {
			set_bid(out, seat, wizard_ai_normal_bid(s, seat));
		}
		return;
	default:
		set_play(out, seat, level == AI_EASY ? easy_play(s, seat) :
		    wizard_ai_normal_play(s, seat, v->unseen));
		return;
	}
}

/* ---- the seat's view ------------------------------------------------- */

/* Numbers the Wizards and Jesters the seat knows of in a fixed order. */
struct canon {
	int wizard, jester;
};

static int
canon_id(struct canon *c, int face)
{
	if (face == WIZARD_FACE_WIZARD)
		return c->wizard < 56 ? c->wizard++ : -1;
	if (face == WIZARD_FACE_JESTER)
		return c->jester < 60 ? c->jester++ : -1;
	return face >= 0 && face < 52 ? face : -1;
}

static uint64_t
canon_hand(struct canon *c, uint64_t hand)
{
	uint64_t out = hand & ~SPECIAL_MASK;

	for (int i = bits_count64(hand & WIZARD_WIZARD_MASK); i > 0; i--)
		out |= BIT(canon_id(c, WIZARD_FACE_WIZARD));
	for (int i = bits_count64(hand & WIZARD_JESTER_MASK); i > 0; i--)
		out |= BIT(canon_id(c, WIZARD_FACE_JESTER));
	return out;
}

/*
 * Builds seat's view of full.  plays are the round's plays from the
 * record (the current trick's last), or NULL.  Nothing of full that the
 * seat may not see reaches the view: hands are rebuilt from what the seat
 * holds (or, blind, sees), and hidden bids are erased.
 */
static void
view_build(struct wizard_view *v, const struct wizard_state *full, int seat,
    const struct action *plays, int nplays)
{
	const struct wizard_round *fr = &full->r;
	struct wizard_round *r;
	struct canon c = { 52, 56 };
	uint64_t known = 0;
	int id;

	memset(v, 0, sizeof(*v));
	memcpy(&v->s, full, sizeof(v->s));
	r = &v->s.r;
	v->seat = seat;
	v->blind = full->clairvoyance && full->round == 0;
	for (int other = 0; other < full->nseats; other++) {
		v->count[other] = (uint8_t)bits_count64(fr->hand[other]);
		r->hand[other] = 0;
		if (r->bid[other] >= 0 && !wizard_bid_visible(full, seat, other)) {
			r->bid[other] = -1;
			v->hidden_bid |= (uint8_t)(1u << other);
		}
	}
	for (int other = 0; other < full->nseats; other++) {
		if ((other == seat) == v->blind)
			continue;
		r->hand[other] = canon_hand(&c, fr->hand[other]);
		known |= r->hand[other];
	}
	/* The round's earlier tricks, when the record tells them. */
	v->history = plays != NULL && nplays >= fr->trick_len;
	for (int i = 0; v->history && i < nplays - fr->trick_len; i++) {
		id = canon_id(&c, plays[i].cards[0]);
		if (id < 0 || ((known | v->gone) & BIT(id)) ||
		    plays[i].seat < 0 || plays[i].seat >= full->nseats) {
			/* Not this round's plays after all: forget them. */
			v->history = 0;
			break;
		}
		v->gone |= BIT(id);
		v->played[plays[i].seat] |= BIT(id);
		v->play_seat[v->nplays] = (uint8_t)plays[i].seat;
		v->play_id[v->nplays++] = (uint8_t)id;
	}
	if (!v->history) {
		memset(v->played, 0, sizeof(v->played));
		v->gone = 0;
		v->nplays = 0;
		c.wizard = 52 + bits_count64(known & WIZARD_WIZARD_MASK);
		c.jester = 56 + bits_count64(known & WIZARD_JESTER_MASK);
	}
	for (int i = 0; i < fr->trick_len; i++) {
		id = canon_id(&c, face_of(fr->trick_card[i]));
		r->trick_card[i] = (uint8_t)id;
		v->gone |= BIT(id);
		v->played[fr->trick_seat[i]] |= BIT(id);
		v->play_seat[v->nplays] = fr->trick_seat[i];
		v->play_id[v->nplays++] = (uint8_t)id;
	}
	id = fr->turned >= 0 ? canon_id(&c, fr->turned) : -1;
	v->shown = id >= 0 ? BIT(id) : 0;
	v->unseen = ALL_IDS & ~known & ~v->gone & ~v->shown;
}

int
wizard_ai_decide(const void *state, int seat, const struct action *actions,
    int nactions, struct ai_ctx *ctx, struct action *out)
{
	const struct wizard_state *full = state;
	const struct action *plays;
	struct wizard_view v;
	int count;

	count = full->r.phase == PHASE_PLAY ?
	    full->r.trick_no * full->nactive + full->r.trick_len : 0;
	plays = ai_round_plays(actions, nactions, count);
	view_build(&v, full, seat, plays, count);
	/* From here on only the view. */
	if (ctx->level == AI_HARD)
		wizard_ai_hard(&v, ctx, out);
	else
		wizard_ai_heuristic(&v, ctx->level, out);
	return 0;
}

/*
 * birdhead_ai.c - computer players for BirdHead.
 *
 * The round is lost by whoever keeps the highest last card, so a hand is
 * as good as the card it can keep back.  easy plays like a plain
 * trick-taker: it leads its lowest card and follows with the cheapest
 * cards that meet the standard, so it keeps its high cards and pays for
 * them.  normal manages its last card: it dumps its highest cards early,
 * whenever it leads (several copies at once when it has them, which
 * forces the others to meet them or give up their lowest cards) and
 * whenever its highest cards meet the standard.  hard samples the cards it
 * cannot see, consistent with what the plays revealed (a seat that did
 * not meet the standard played its lowest cards, so it holds nothing
 * lower), weighs each sample by how well it explains the round's plays
 * (play_weight(), by the way a searching player tends to play), plays
 * every candidate out to the end of the round, and keeps the one with the
 * lowest expected penalty.  In those rollouts the others play as searching
 * players that see the sampled world (to the end of the trick after the
 * candidate's, and in the round's last tricks) and as normal otherwise;
 * the seat itself plays on as normal.
 */
#include <assert.h>
#include <string.h>

#include "ai_impl.h"
#include "birdhead.h"
#include "game.h"
#include "rng.h"

/* Hard: how much the others' penalties count for the seat. */
#define OTHERS_WEIGHT 0.3
/*
 * Hard: what a world loses for each play of another seat that
 * POLICY_SEARCHING, holding that world's hand, would not have made (see
 * play_weight()).
 */
#define PLAY_MISS 0.7
/*
 * POLICY_SEARCHING meets the standard as cheaply as it can while it holds
 * more than this many cards.
 */
#define CHEAP_HELD 4
/* The most plays a round can have: every trick and the last cards. */
#define BIRDHEAD_PLAYS ((BIRDHEAD_MAX_TRICKS + 1) * GAME_MAX_SEATS)

/* What a seat sees of a BirdHead state. */
struct birdhead_view {
	/* The redacted copy: the other hands are empty. */
	struct birdhead_state s;
	int seat;
	uint8_t held[GAME_MAX_SEATS];    /* cards in each hand */
	/* Every card of the seat is at least this (what its plays showed). */
	uint8_t floor[GAME_MAX_SEATS];
	/* Copies of each face in other hands or out of the deal. */
	uint8_t unseen[BIRDHEAD_FACES];
	/*
	 * The round's plays so far, each sorted, when the record gave them
	 * all (history): hard weighs its worlds by them.
	 */
	int history, nplays;
	uint8_t play_seat[BIRDHEAD_PLAYS];
	uint8_t play_n[BIRDHEAD_PLAYS];
	uint8_t play_cards[BIRDHEAD_PLAYS][GAME_MAX_PLAY];
};

/*
 * A round as hard's rollouts play it: the hands as counts and as masks of
 * the faces held, the trick on the table, and nothing of the history the
 * engine keeps for the result.  A rollout copies this instead of the whole
 * engine state and finds a hand's highest and lowest face in one
 * instruction: hard samples 1.6-1.9 times the worlds in the same time.
 */
struct fast_round {
	uint8_t count[GAME_MAX_SEATS][BIRDHEAD_FACES];
	uint16_t faces[GAME_MAX_SEATS];  /* bit f: the seat holds face f */
	uint8_t left[GAME_MAX_SEATS];    /* cards in each hand */
	uint8_t standard[GAME_MAX_PLAY];
	uint8_t nseats, held, turn, trick_len, width, best_seat, best_face;
};

/* One sampled deal of the hidden cards, and the same round for rollouts. */
struct birdhead_world {
	struct birdhead_state s;
	struct fast_round f;
};

static int
hand_size(const uint8_t *count)
{
	int n = 0;

	for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
		n += count[face];
	return n;
}

/* The n highest (or lowest) cards of a hand, sorted ascending. */
static void
extreme_cards(const uint8_t *count, int n, int highest, uint8_t *out)
{
	int k = 0;

	if (highest) {
		for (int face = BIRDHEAD_HIGH; face >= BIRDHEAD_LOW && k < n;
		    face--)
			for (int c = 0; c < count[face] && k < n; c++)
				out[n - 1 - k++] = (uint8_t)face;
	} else {
		for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH && k < n;
		    face++)
			for (int c = 0; c < count[face] && k < n; c++)
				out[k++] = (uint8_t)face;
	}
}

/*
 * The cheapest cards that meet the standard, into out (sorted): for each
 * standard card from the lowest up, the smallest card left that is at
 * least as high.  Returns 0 when no play meets it.
 */
static int
cheapest_meet(const uint8_t *count, const uint8_t *standard, int n,
    uint8_t *out)
{
	uint8_t left[BIRDHEAD_FACES];

	memcpy(left, count, sizeof(left));
	for (int i = 0; i < n; i++) {
		int face = standard[i];

		while (face <= BIRDHEAD_HIGH && left[face] == 0)
			face++;
		if (face > BIRDHEAD_HIGH)
			return 0;
		left[face]--;
		out[i] = (uint8_t)face;
	}
	return 1;
}

/*
 * The simple players' ways to play.  hard plays its rollouts with normal
 * and weighs its worlds by POLICY_SEARCHING: normal, except that while the
 * hand holds more than CHEAP_HELD cards it meets the standard with the
 * cheapest cards that do, keeping its high cards to meet later standards.
 * hard-v1 at 300 worlds made that choice in 61% of its follows that had
 * one, normal's in 38% (30 games of four hard-v1).
 */
enum policy {
	POLICY_EASY,
	POLICY_NORMAL,
	POLICY_SEARCHING,
};

/*
 * A play for seat in s by policy.  Writes sorted faces into out and
 * returns how many.
 */
static int
heuristic_play(const struct birdhead_state *s, int seat, enum policy policy,
    uint8_t *out)
{
	const struct birdhead_round *r = &s->r;
	const uint8_t *count = r->count[seat];
	int held = hand_size(count), width = r->width;
	int normal = policy != POLICY_EASY;

	if (policy == POLICY_SEARCHING && r->trick_len > 0 &&
	    held > CHEAP_HELD && cheapest_meet(count, r->standard, width, out))
		return width;
	if (r->trick_len == 0) {
		int face = normal ? BIRDHEAD_HIGH : BIRDHEAD_LOW, k = 1;

		while (count[face] == 0)
			face += normal ? -1 : 1;
		/* normal leads every copy it may; it must keep one card. */
		if (normal) {
			k = count[face];
			if (k > GAME_MAX_PLAY)
				k = GAME_MAX_PLAY;
			if (k > held - 1)
				k = held - 1;
		}
		memset(out, face, (size_t)k);
		return k;
	}
	if (normal) {
		/* The highest cards meet whenever anything does. */
		extreme_cards(count, width, 1, out);
		if (birdhead_meets(out, r->standard, width))
			return width;
	} else if (cheapest_meet(count, r->standard, width, out)) {
		return width;
	}
	extreme_cards(count, width, 0, out);
	return width;
}

static void
set_play(struct action *out, int seat, const uint8_t *faces, int n)
{
	memset(out, 0, sizeof(*out));
	out->seat = (int8_t)seat;
	out->kind = ACTION_PLAY;
	out->ncards = (uint8_t)n;
	memcpy(out->cards, faces, (size_t)n);
}

/* ---- hard ------------------------------------------------------------ */

/* The fast round of s, which is in PHASE_PLAY. */
static void
fast_init(struct fast_round *f, const struct birdhead_state *s)
{
	const struct birdhead_round *r = &s->r;

	memset(f, 0, sizeof(*f));
	memcpy(f->count, r->count, sizeof(f->count));
	for (int seat = 0; seat < s->nseats; seat++) {
		for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
			if (r->count[seat][face] > 0)
				f->faces[seat] |= (uint16_t)(1u << face);
		f->left[seat] = (uint8_t)hand_size(r->count[seat]);
	}
	memcpy(f->standard, r->standard, sizeof(f->standard));
	f->nseats = s->nseats;
	f->held = r->held;
	f->turn = r->turn;
	f->trick_len = r->trick_len;
	f->width = r->width;
	f->best_seat = r->best_seat;
	f->best_face = r->best_face;
}

static int
fast_highest(const struct fast_round *f, int seat)
{
	return 31 - __builtin_clz(f->faces[seat]);
}

static int
fast_lowest(const struct fast_round *f, int seat)
{
	return __builtin_ctz(f->faces[seat]);
}

/* normal's play (heuristic_play()) for seat in f. */
static int
fast_normal(const struct fast_round *f, int seat, uint8_t *out)
{
	const uint8_t *count = f->count[seat];
	int width = f->width;

	if (f->trick_len == 0) {
		int face = fast_highest(f, seat), k = count[face];

		if (k > GAME_MAX_PLAY)
			k = GAME_MAX_PLAY;
		if (k > f->left[seat] - 1)
			k = f->left[seat] - 1;
		memset(out, face, (size_t)k);
		return k;
	}
	/* Most tricks are of single cards. */
	if (width == 1) {
		int face = fast_highest(f, seat);

		out[0] = (uint8_t)(face >= f->standard[0] ? face :
		    fast_lowest(f, seat));
		return 1;
	}
	extreme_cards(count, width, 1, out);
	if (birdhead_meets(out, f->standard, width))
		return width;
	extreme_cards(count, width, 0, out);
	return width;
}

/* birdhead_play() without the checks' state and the history. */
static void
fast_play(struct fast_round *f, int seat, const uint8_t *sorted, int n)
{
	int top = sorted[n - 1];

	for (int i = 0; i < n; i++)
		if (--f->count[seat][sorted[i]] == 0)
			f->faces[seat] &= (uint16_t)~(1u << sorted[i]);
	f->left[seat] = (uint8_t)(f->left[seat] - n);
	if (n == 1 && f->trick_len > 0) {
		/* The common case, without the loops. */
		if (top >= f->standard[0])
			f->standard[0] = (uint8_t)top;
		if (top >= f->best_face) {
			f->best_seat = (uint8_t)seat;
			f->best_face = (uint8_t)top;
		}
	} else if (f->trick_len == 0) {
		f->width = (uint8_t)n;
		memcpy(f->standard, sorted, (size_t)n);
		f->best_seat = (uint8_t)seat;
		f->best_face = (uint8_t)top;
	} else {
		if (birdhead_meets(sorted, f->standard, n))
			memcpy(f->standard, sorted, (size_t)n);
		if (top >= f->best_face) {
			f->best_seat = (uint8_t)seat;
			f->best_face = (uint8_t)top;
		}
	}
	if (++f->trick_len == f->nseats) {
		f->trick_len = 0;
		f->held = (uint8_t)(f->held - f->width);
		f->turn = f->best_seat;
	} else {
		f->turn = (uint8_t)((seat + 1) % f->nseats);
	}
}

/*
 * Plays f out with normal for every seat and writes each seat's penalty,
 * as the engine's reveal() scores it, into points.
 */
static void
fast_rollout(struct fast_round *f, int *points)
{
	uint8_t play[GAME_MAX_PLAY];
	int high = 0;

	while (f->held > 1) {
		int seat = f->turn;
		int n = fast_normal(f, seat, play);

		fast_play(f, seat, play, n);
	}
	for (int seat = 0; seat < f->nseats; seat++) {
		points[seat] = fast_lowest(f, seat);
		if (points[seat] > high)
			high = points[seat];
	}
	for (int seat = 0; seat < f->nseats; seat++)
		if (points[seat] != high)
			points[seat] = 0;
}

/*
 * How hard plays a candidate out in a sampled world.  The others are
 * searching players (hard-v1 and hard), and normal's rollout takes them
 * for normal ones.  So after the candidate, to the end of the next trick
 * (REPLY_TRICKS), each other seat plays what ends the round best for it
 * after normal's rollout (by hard's utility, round_utility(); ties go to
 * normal's play), seeing every hand of the world: a one-play search like
 * hard-v1's, in which the world stands for the worlds it would sample.
 * Once the round is down to ENDGAME_HELD cards a hand, every other seat
 * plays the rest of the round by a search of it whole (max-n), where
 * knowing the cards is nearly true.  The seat itself plays on as normal:
 * choosing its own later plays in the world it sees whole trusts a
 * knowledge of the others' cards it will not have, and a trial of it won
 * only 30.0% +- 4.1 of 400 games against hard-v1 (README).
 * With two cards a hand left normal's play is the best one for every seat
 * (shedding the higher card keeps the lower one and raises the standard
 * for the rest), so the searches end there with normal's rollout.
 * Against hard-v1 (README), the others searching only in the candidate's
 * own trick won 53.9% +- 2.2, to the end of the next one 56.1% +- 2.2.
 */
#define REPLY_TRICKS 2
#define ENDGAME_HELD 4
/*
 * Nodes one endgame search may visit before the rollout takes over (a
 * bound only: the searches of 4 cards a hand visit some hundreds at most).
 */
#define ENDGAME_NODES 4000
/* The most distinct plays a hand of ENDGAME_HELD cards has. */
#define ENDGAME_MOVES 16

/* Hard's utility of a round's penalties for seat. */
static double
round_utility(const int *points, int nseats, int seat)
{
	double others = 0;

	for (int other = 0; other < nseats; other++)
		if (other != seat)
			others += points[other];
	return -points[seat] + OTHERS_WEIGHT * others / (nseats - 1);
}

/*
 * Every distinct play of the seat to act in f, each sorted, into moves
 * (room for max), in the engine's order (birdhead_legal()); returns how
 * many and writes their widths into widths.
 */
static int
fast_moves(const struct fast_round *f, uint8_t (*moves)[GAME_MAX_PLAY],
    uint8_t *widths, int max)
{
	int seat = f->turn, n = 0, k = f->width;
	const uint8_t *count = f->count[seat];
	uint8_t low[GAME_MAX_PLAY], p[GAME_MAX_PLAY];

	if (f->trick_len == 0) {
		for (k = 1; k <= GAME_MAX_PLAY && k < f->left[seat]; k++)
			for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH;
			    face++) {
				if (count[face] < k || n >= max)
					continue;
				memset(moves[n], face, GAME_MAX_PLAY);
				widths[n++] = (uint8_t)k;
			}
		return n;
	}
	extreme_cards(count, k, 0, low);
	for (int a = BIRDHEAD_LOW; a <= BIRDHEAD_HIGH; a++) {
		if (count[a] < 1)
			continue;
		p[0] = (uint8_t)a;
		for (int b = k > 1 ? a : BIRDHEAD_HIGH;
		    b <= BIRDHEAD_HIGH; b++) {
			if (k > 1 && count[b] < 1 + (b == a))
				continue;
			p[1] = (uint8_t)b;
			for (int c = k > 2 ? b : BIRDHEAD_HIGH;
			    c <= BIRDHEAD_HIGH; c++) {
				if (k > 2 && count[c] < 1 + (c == a) +
				    (c == b))
					continue;
				p[2] = (uint8_t)c;
				if (n >= max ||
				    (!birdhead_meets(p, f->standard, k) &&
				    memcmp(p, low, (size_t)k) != 0))
					continue;
				memcpy(moves[n], p, GAME_MAX_PLAY);
				widths[n++] = (uint8_t)k;
			}
		}
	}
	return n;
}

/*
 * The plays the seat to act in f weighs, into moves and widths (room for
 * max + 1): normal's first, so that it keeps the ties, then the other
 * distinct plays in the engine's order (fast_moves(), at most max listed);
 * with max 0, normal's alone.  Returns how many.
 */
static int
fast_choices(const struct fast_round *f, uint8_t (*moves)[GAME_MAX_PLAY],
    uint8_t *widths, int max)
{
	int n = 1, nlegal;

	memset(moves[0], 0, GAME_MAX_PLAY);
	widths[0] = (uint8_t)fast_normal(f, f->turn, moves[0]);
	if (max == 0)
		return 1;
	nlegal = fast_moves(f, moves + 1, widths + 1, max);
	for (int i = 1; i <= nlegal; i++) {
		if (widths[i] == widths[0] &&
		    memcmp(moves[i], moves[0], widths[0]) == 0)
			continue;
		if (n != i) {
			memcpy(moves[n], moves[i], GAME_MAX_PLAY);
			widths[n] = widths[i];
		}
		n++;
	}
	return n;
}

/*
 * The search of the rest of f's round (see ENDGAME_HELD), seat me playing
 * as normal; writes the penalties into points.  Returns -1 once *nodes
 * passes ENDGAME_NODES.
 */
static int
fast_endgame(const struct fast_round *f, int me, long *nodes, int *points)
{
	uint8_t moves[ENDGAME_MOVES + 1][GAME_MAX_PLAY];
	uint8_t widths[ENDGAME_MOVES + 1];
	double best = 0;
	int seat = f->turn, nchoices;

	if (f->held <= 2) {
		struct fast_round g;

		memcpy(&g, f, sizeof(g));
		fast_rollout(&g, points);
		return 0;
	}
	nchoices = fast_choices(f, moves, widths, seat == me ? 0 :
	    ENDGAME_MOVES);
	for (int i = 0; i < nchoices; i++) {
		struct fast_round g;
		int got[GAME_MAX_SEATS];
		double u;

		if (++*nodes > ENDGAME_NODES)
			return -1;
		memcpy(&g, f, sizeof(g));
		fast_play(&g, seat, moves[i], widths[i]);
		if (fast_endgame(&g, me, nodes, got) < 0)
			return -1;
		u = round_utility(got, f->nseats, seat);
		if (i == 0 || u > best) {
			best = u;
			memcpy(points, got, sizeof(got));
		}
	}
	return 0;
}

struct birdhead_search {
	const struct birdhead_view *v;
	/*
	 * hard-v1, the previous hard: its worlds are not weighed, and its
	 * rollouts run on the engine's state with normal for every seat.
	 * hard's run on the fast round, with the others searching.
	 */
	int v1;
	int check;                        /* struct ai_limits' check */
	int ncand;
	struct action cand[GAME_MAX_ACTIONS];
};

/*
 * How well a world's hands fit the round's plays: the round is replayed
 * from its first trick with the world's hands (and the cards played since
 * put back), and each play of another seat that POLICY_SEARCHING would
 * not have made from that hand costs the world PLAY_MISS.  A seat that kept its
 * highest cards back while they met the standard is then likelier to hold
 * high cards it means to shed later, or none at all; one that led low,
 * likelier to hold nothing higher.  Mild, because the others follow no
 * such rule: it leans, it does not decide.
 */
static double
play_weight(const struct birdhead_view *v, const struct birdhead_world *w)
{
	struct birdhead_state s;
	struct birdhead_round *r = &s.r;
	double weight = 1;

	if (!v->history || v->nplays == 0)
		return 1;
	memcpy(&s, &w->s, sizeof(s));
	for (int i = 0; i < v->nplays; i++)
		for (int c = 0; c < v->play_n[i]; c++)
			r->count[v->play_seat[i]][v->play_cards[i][c]]++;
	r->trick_len = 0;
	for (int i = 0; i < v->nplays; i++) {
		int seat = v->play_seat[i], n = v->play_n[i];
		const uint8_t *cards = v->play_cards[i];
		uint8_t pick[GAME_MAX_PLAY];

		if (r->trick_len == 0)
			r->width = (uint8_t)n;
		if (seat != v->seat && (heuristic_play(&s, seat,
		    POLICY_SEARCHING, pick) != n ||
		    memcmp(pick, cards, (size_t)n) != 0))
			weight *= PLAY_MISS;
		for (int c = 0; c < n; c++)
			r->count[seat][cards[c]]--;
		if (r->trick_len == 0 || birdhead_meets(cards, r->standard, n))
			memcpy(r->standard, cards, (size_t)n);
		r->trick_len = (uint8_t)((r->trick_len + 1) % s.nseats);
	}
	return weight;
}

/*
 * Deals the unseen cards to the other seats: the seat with the highest
 * floor first, each taking the first shuffled cards at or above its floor
 * (any card once those run out); what is left was never dealt.
 */
static double
birdhead_sample(const void *arg, struct rng *rng, void *worldp)
{
	const struct birdhead_search *search = arg;
	const struct birdhead_view *v = search->v;
	struct birdhead_world *w = worldp;
	uint8_t pool[BIRDHEAD_DECK], used[BIRDHEAD_DECK] = { 0 };
	int order[GAME_MAX_SEATS], norder = 0, npool = 0;

	for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
		for (int c = 0; c < v->unseen[face]; c++)
			pool[npool++] = (uint8_t)face;
	rng_shuffle(rng, pool, (size_t)npool);
	memcpy(&w->s, &v->s, sizeof(w->s));
	for (int seat = 0; seat < v->s.nseats; seat++) {
		int j = norder;

		if (seat == v->seat)
			continue;
		for (; j > 0 && v->floor[order[j - 1]] < v->floor[seat]; j--)
			order[j] = order[j - 1];
		order[j] = seat;
		norder++;
	}
	for (int i = 0; i < norder; i++) {
		int seat = order[i], need = v->held[seat];
		uint8_t *count = w->s.r.count[seat];

		for (int pass = 0; pass < 2 && need > 0; pass++) {
			for (int k = 0; k < npool && need > 0; k++) {
				if (used[k] || (pass == 0 &&
				    pool[k] < v->floor[seat]))
					continue;
				used[k] = 1;
				count[pool[k]]++;
				need--;
			}
		}
	}
	if (search->v1)
		return 1;
	fast_init(&w->f, &w->s);
	return play_weight(v, w);
}

static void
rollout(struct birdhead_state *s)
{
	uint8_t play[GAME_MAX_PLAY];

	while (s->r.phase == PHASE_PLAY) {
		int seat = s->r.turn;
		int n = heuristic_play(s, seat, POLICY_NORMAL, play);

		birdhead_play(s, seat, play, n);
	}
}

/*
 * A searching player's play for the seat to act in f, into play: the one
 * after which normal's rollout ends best for it, seeing every hand (see
 * REPLY_TRICKS).  Returns the play's width.
 */
static int
fast_reply(const struct fast_round *f, uint8_t *play)
{
	/* Three-card follows from a full hand have up to 220. */
	uint8_t moves[GAME_MAX_ACTIONS + 1][GAME_MAX_PLAY];
	uint8_t widths[GAME_MAX_ACTIONS + 1];
	int seat = f->turn, nchoices, best_i = 0;
	double best = 0;

	nchoices = fast_choices(f, moves, widths, GAME_MAX_ACTIONS);
	for (int i = 0; i < nchoices; i++) {
		struct fast_round g;
		int got[GAME_MAX_SEATS];
		double u;

		memcpy(&g, f, sizeof(g));
		fast_play(&g, seat, moves[i], widths[i]);
		fast_rollout(&g, got);
		u = round_utility(got, f->nseats, seat);
		if (i == 0 || u > best) {
			best = u;
			best_i = i;
		}
	}
	memcpy(play, moves[best_i], GAME_MAX_PLAY);
	return widths[best_i];
}

/*
 * Plays f on from the candidate, seat me playing as normal and the others
 * as searching players (fast_reply()), to the end of the next trick after
 * the candidate's (REPLY_TRICKS in all, counting the candidate's own when
 * it does not end it) or until the hands are down to ENDGAME_HELD cards.
 */
static void
fast_replies(struct fast_round *f, int me)
{
	uint8_t play[GAME_MAX_PLAY];
	int ends = f->trick_len == 0, n;

	while (ends < REPLY_TRICKS && f->held > ENDGAME_HELD) {
		if (f->turn == me)
			n = fast_normal(f, me, play);
		else
			n = fast_reply(f, play);
		fast_play(f, f->turn, play, n);
		ends += f->trick_len == 0;
	}
}

#ifndef NDEBUG
/*
 * Checking tests (struct ai_limits' check) play every candidate on the
 * engine as well: the fast round's rollout must end with the engine's
 * penalties, and the plays the searches of the others choose among must
 * be the engine's legal ones.  f is world's fast round after the
 * candidate.
 */
static void
check_fast(const struct birdhead_view *v, const struct birdhead_world *world,
    const struct action *a, const struct fast_round *f)
{
	struct action legal[GAME_MAX_ACTIONS];
	struct birdhead_world w;
	struct fast_round g;
	uint8_t moves[GAME_MAX_ACTIONS][GAME_MAX_PLAY];
	uint8_t widths[GAME_MAX_ACTIONS];
	int points[GAME_MAX_SEATS], nlegal, nmoves;

	memcpy(&w, world, sizeof(w));
	birdhead_play(&w.s, v->seat, a->cards, a->ncards);
	if (w.s.r.phase == PHASE_PLAY) {
		nlegal = birdhead_game.legal(&w.s, w.s.r.turn, legal,
		    GAME_MAX_ACTIONS);
		nmoves = fast_moves(f, moves, widths, GAME_MAX_ACTIONS);
		assert(nmoves == nlegal);
		assert(f->held > ENDGAME_HELD || nmoves <= ENDGAME_MOVES);
		for (int i = 0; i < nmoves; i++)
			assert(widths[i] == legal[i].ncards && memcmp(moves[i],
			    legal[i].cards, widths[i]) == 0);
	}
	memcpy(&g, f, sizeof(g));
	fast_rollout(&g, points);
	rollout(&w.s);
	for (int seat = 0; seat < w.s.nseats; seat++)
		assert(points[seat] == w.s.points[w.s.round][seat]);
}
#endif

static double
birdhead_score(const void *arg, const void *worldp, int cand)
{
	const struct birdhead_search *search = arg;
	const struct birdhead_view *v = search->v;
	const struct action *a = &search->cand[cand];
	struct birdhead_world w;
	int points[GAME_MAX_SEATS];

	if (!search->v1) {
		const struct birdhead_world *world = worldp;
		struct fast_round f;
		long nodes = 0;

		memcpy(&f, &world->f, sizeof(f));
		fast_play(&f, v->seat, a->cards, a->ncards);
#ifndef NDEBUG
		if (search->check)
			check_fast(v, world, a, &f);
#endif
		fast_replies(&f, v->seat);
		if (f.held > ENDGAME_HELD ||
		    fast_endgame(&f, v->seat, &nodes, points) < 0)
			fast_rollout(&f, points);
		return round_utility(points, f.nseats, v->seat);
	}
	memcpy(&w, worldp, sizeof(w));
	birdhead_play(&w.s, v->seat, a->cards, a->ncards);
	rollout(&w.s);
	for (int seat = 0; seat < w.s.nseats; seat++)
		points[seat] = w.s.points[w.s.round][seat];
	return round_utility(points, w.s.nseats, v->seat);
}

static void
hard(const struct birdhead_view *v, struct ai_ctx *ctx, struct action *out)
{
	struct birdhead_search search;
	struct ai_search run;
	int best, plays = 0;

	memset(&search, 0, sizeof(search));
	search.v = v;
	search.v1 = ctx->hard_v1;
	search.check = ctx->check;
	search.ncand = birdhead_game.legal(&v->s, v->seat, search.cand,
	    GAME_MAX_ACTIONS);
	if (search.ncand <= 1)
		return;
	/* A simulated play costs well under a unit (see ai.c). */
	for (int seat = 0; seat < v->s.nseats; seat++)
		plays += v->held[seat];
	run.ncand = search.ncand;
	run.world_size = sizeof(struct birdhead_world);
	run.cost = search.ncand * (0.7 * plays + 3);
	run.sample = birdhead_sample;
	run.score = birdhead_score;
	best = ai_search_run(ctx, &run, &search);
	if (best >= 0)
		*out = search.cand[best];
}

/* ---- the seat's view ------------------------------------------------- */

/* Sorted copy of a play. */
static void
sorted_play(const struct action *a, uint8_t *out)
{
	int n = a->ncards;

	memcpy(out, a->cards, (size_t)n);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
			uint8_t t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
}

/*
 * Follows one trick's plays: a play that did not meet the standard was
 * its seat's lowest cards, so the seat holds nothing below them.
 */
static void
learn_trick(struct birdhead_view *v, const uint8_t *seats,
    const uint8_t (*plays)[GAME_MAX_PLAY], int nplays, int width)
{
	uint8_t standard[GAME_MAX_PLAY];

	if (nplays == 0)
		return;
	memcpy(standard, plays[0], (size_t)width);
	for (int i = 1; i < nplays; i++) {
		if (birdhead_meets(plays[i], standard, width)) {
			memcpy(standard, plays[i], (size_t)width);
		} else if (plays[i][width - 1] > v->floor[seats[i]]) {
			v->floor[seats[i]] = plays[i][width - 1];
		}
	}
}

/*
 * Builds seat's view of full; plays are the round's plays from the record
 * (the current trick's last), or NULL.
 */
static void
view_build(struct birdhead_view *v, const struct birdhead_state *full,
    int seat, const struct action *plays, int nplays)
{
	const struct birdhead_round *fr = &full->r;
	int nseats = full->nseats, done = 0;

	memset(v, 0, sizeof(*v));
	memcpy(&v->s, full, sizeof(v->s));
	v->seat = seat;
	for (int other = 0; other < full->nseats; other++) {
		v->held[other] = (uint8_t)hand_size(fr->count[other]);
		v->floor[other] = BIRDHEAD_LOW;
		if (other != seat)
			memset(v->s.r.count[other], 0,
			    sizeof(v->s.r.count[other]));
	}
	for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
		v->unseen[face] = (uint8_t)(BIRDHEAD_COPIES -
		    fr->count[seat][face]);
	/*
	 * The round's plays, each sorted, as far as they are well formed:
	 * hard weighs its worlds by them when they are all there (history).
	 */
	if (plays != NULL && nplays >= fr->trick_len) {
		int n = 0;

		for (; n < nplays && n < BIRDHEAD_PLAYS; n++) {
			const struct action *a = &plays[n];

			if (a->ncards < 1 || a->ncards > GAME_MAX_PLAY ||
			    a->seat < 0 || a->seat >= nseats)
				break;
			v->play_seat[n] = (uint8_t)a->seat;
			v->play_n[n] = a->ncards;
			sorted_play(a, v->play_cards[n]);
		}
		v->nplays = n;
		v->history = n == nplays;
		done = nplays - fr->trick_len < n ? nplays - fr->trick_len : n;
	}
	/* The earlier tricks of the round, trick by trick. */
	for (int i = 0; i < done; i++) {
		for (int c = 0; c < v->play_n[i]; c++)
			if (v->unseen[v->play_cards[i][c]] > 0)
				v->unseen[v->play_cards[i][c]]--;
		if ((i + 1) % nseats == 0)
			learn_trick(v, &v->play_seat[i + 1 - nseats],
			    (const uint8_t (*)[GAME_MAX_PLAY])
			    &v->play_cards[i + 1 - nseats], nseats,
			    v->play_n[i]);
	}
	/* The current trick is on the table for everybody. */
	for (int i = 0; i < fr->trick_len; i++)
		for (int c = 0; c < fr->width; c++)
			if (v->unseen[fr->trick_cards[i][c]] > 0)
				v->unseen[fr->trick_cards[i][c]]--;
	learn_trick(v, fr->trick_seat,
	    (const uint8_t (*)[GAME_MAX_PLAY])fr->trick_cards, fr->trick_len,
	    fr->width);
}

int
birdhead_ai_decide(const void *state, int seat, const struct action *actions,
    int nactions, struct ai_ctx *ctx, struct action *out)
{
	const struct birdhead_state *full = state;
	const struct action *plays;
	struct birdhead_view v;
	uint8_t play[GAME_MAX_PLAY];
	int count, n;

	if (full->r.phase != PHASE_PLAY)
		return -1;
	count = full->r.trick_no * full->nseats + full->r.trick_len;
	plays = ai_round_plays(actions, nactions, count);
	view_build(&v, full, seat, plays, count);
	/* From here on only the view. */
	n = heuristic_play(&v.s, seat, ctx->level == AI_EASY ? POLICY_EASY :
	    POLICY_NORMAL, play);
	set_play(out, seat, play, n);
	if (ctx->level == AI_HARD)
		hard(&v, ctx, out);
	return 0;
}

/*
 * sticheln_ai.c - computer players for Sticheln.
 *
 * Every captured card is worth a point, except those of the captor's
 * penalty colour, which cost their rank.  easy selects its lowest card,
 * whatever its colour, and takes every trick it can with its cheapest
 * winning card.  normal chooses its penalty colour from its hand: a cheap
 * card to select, few high cards of that colour left to play (they are
 * trumps that might take their own trick) and few of that colour in the
 * others' hands to be pushed onto it.  In play it weighs, for each card,
 * the chance of taking the trick against what the trick would bring,
 * sheds its penalty colour into tricks it will not take, pushes cards of
 * the likely winner's penalty colour onto it, and keeps its strong cards
 * for tricks worth taking.  hard samples the others' hands (and their
 * selections while those are hidden, as normal would select), weighs each
 * sample by how well it explains the revealed penalty colours and the
 * round's plays (world_weight()), plays every candidate out to the end of
 * the round with normal for every seat, and keeps the one with the best
 * expected lead over the others' mean.
 */
#include <string.h>

#include "ai_impl.h"
#include "bits.h"
#include "game.h"
#include "rng.h"
#include "sticheln.h"

/*
 * Hard: how much the others' mean points count against the seat's own.
 * The highest total wins, so a point the others gain costs about as much
 * as one the seat loses: hard scores a rollout by its lead over the
 * others' mean.  hard-v1 counted them at 0.3, and against it the full
 * weight won clearly more games (README, "Computer players").
 */
#define OTHERS_WEIGHT 1.0
#define OTHERS_WEIGHT_V1 0.3
/* Selecting: the cost of each high card of the penalty colour kept. */
#define SELECT_DANGER 0.6
/* Selecting: the share of the others' penalty-colour ranks expected back. */
#define SELECT_PUSHED 0.5
/* Playing: what a card of the penalty colour still in hand threatens. */
#define PLAY_DANGER 0.4
/* Playing: the worth of a strong card kept for later. */
#define PLAY_KEEP 1.5
/* Playing: the worth of a rank of penalty pushed onto another seat. */
#define PLAY_PUSH 0.3
/* Playing: what each card still to come is worth to the trick's taker. */
#define LATER_CARD 0.7
/*
 * Hard: what a world loses when another seat's revealed penalty colour is
 * not the one normal would have selected from that world's hand, and for
 * each play normal would not have made (see world_weight()).
 */
#define SELECT_MISS 0.7
#define PLAY_MISS 0.9
/* The most plays a round can have. */
#define STICHELN_PLAYS (STICHELN_TRICKS * GAME_MAX_SEATS)
/* How readily a seat overtakes a trick it likes, and one it does not. */
#define EAGER_GOOD 0.9
#define EAGER_BAD 0.25

/* What a seat sees of a Sticheln state. */
struct sticheln_view {
	/*
	 * The redacted copy: the other hands are empty and, while they are
	 * being made, the others' selections are erased.
	 */
	struct sticheln_state s;
	int seat;
	uint8_t held[GAME_MAX_SEATS];     /* hidden cards of each seat */
	uint8_t hidden_select;            /* seats that selected out of sight */
	uint16_t out[STICHELN_COLOURS];   /* cards known out of the hands */
	uint16_t unseen[STICHELN_COLOURS];
	/*
	 * The round's plays so far when the record gave them all (history):
	 * hard weighs its worlds by them.
	 */
	int history, nplays;
	uint8_t play_seat[STICHELN_PLAYS];
	uint8_t play_face[STICHELN_PLAYS];
};

/* One sampled deal of the hidden cards. */
struct sticheln_world {
	struct sticheln_state s;
	uint16_t out[STICHELN_COLOURS];
};

static int
colour_of(int face)
{
	return face / STICHELN_RANKS;
}

static int
rank_of(int face)
{
	return face % STICHELN_RANKS;
}

static int
penalty(const struct sticheln_state *s, int seat)
{
	return s->r.selected[seat] < 0 ? -1 : colour_of(s->r.selected[seat]);
}

static uint16_t
deck_colour(const struct sticheln_state *s)
{
	return (uint16_t)((1u << s->nranks) - 1);
}

static int
held_count(const uint16_t *hand)
{
	int n = 0;

	for (int colour = 0; colour < STICHELN_COLOURS; colour++)
		n += bits_count64(hand[colour]);
	return n;
}

/* ---- selecting ------------------------------------------------------- */

/* easy: the lowest card in hand, of whatever colour. */
static int
easy_select(const struct sticheln_state *s, int seat)
{
	int best = -1;

	for (int colour = 0; colour < s->ncolours; colour++) {
		uint16_t m = s->r.hand[seat][colour];
		int face;

		if (m == 0)
			continue;
		face = colour * STICHELN_RANKS + bits_lowest64(m);
		if (best < 0 || rank_of(face) < rank_of(best))
			best = face;
	}
	return best;
}

/*
 * normal: for each colour in hand, its lowest card is the one to select;
 * the colour costs that card's rank, a share of each high card of it the
 * seat keeps, and a share of what the others hold of it.
 */
static int
normal_select(const struct sticheln_state *s, int seat, const uint16_t *hand)
{
	double best_cost = 0;
	int best = -1;

	for (int colour = 0; colour < s->ncolours; colour++) {
		uint16_t m = hand[colour];
		uint16_t others = (uint16_t)(deck_colour(s) & ~m);
		int low;
		double cost;

		if (m == 0)
			continue;
		low = bits_lowest64(m);
		cost = low;
		for (m &= (uint16_t)(m - 1); m; m &= (uint16_t)(m - 1)) {
			int rank = bits_lowest64(m);

			cost += SELECT_DANGER * rank * rank / (s->nranks - 1);
		}
		for (; others; others &= (uint16_t)(others - 1))
			cost += SELECT_PUSHED * bits_lowest64(others) /
			    s->nseats;
		if (best < 0 || cost < best_cost) {
			best = colour * STICHELN_RANKS + low;
			best_cost = cost;
		}
	}
	return best;
}

/* ---- playing --------------------------------------------------------- */

/* The trick power of face led into, or following, lead colour lead. */
static int
power(int lead, int face)
{
	int rank = rank_of(face);

	if (rank == 0)
		return 0;
	return colour_of(face) == lead ? 50 + rank : 100 + rank;
}

/* What the cards of the trick, plus face, are worth to seat. */
static int
trick_worth(const struct sticheln_state *s, int seat, int face)
{
	const struct sticheln_round *r = &s->r;
	int pen = penalty(s, seat), worth = 0;

	for (int i = 0; i < r->trick_len; i++)
		worth += colour_of(r->trick_card[i]) == pen ?
		    -rank_of(r->trick_card[i]) : 1;
	worth += colour_of(face) == pen ? -rank_of(face) : 1;
	return worth;
}

/* easy: the cheapest card that takes the trick now, else the lowest. */
static int
easy_play(const struct sticheln_state *s, int seat)
{
	const struct sticheln_round *r = &s->r;
	int lead = r->trick_len > 0 ? r->lead_colour : -1;
	int take = -1, low = -1;

	for (int colour = 0; colour < s->ncolours; colour++) {
		for (unsigned m = r->hand[seat][colour]; m; m &= m - 1) {
			int face = colour * STICHELN_RANKS + bits_lowest64(m);
			int wins = lead < 0 ||
			    power(lead, face) > r->best_power;

			if (wins && (take < 0 || rank_of(face) <
			    rank_of(take)))
				take = face;
			if (low < 0 || rank_of(face) < rank_of(low))
				low = face;
		}
	}
	return take >= 0 ? take : low;
}

/*
 * normal: the card with the best judged value.  A card that takes the
 * trick now keeps it with the chance that none of the later seats both
 * can and wants to overtake it; the trick is then worth its cards to the
 * seat.  A card that does not take it is given away: good riddance for
 * the penalty colour, and a blow to the winner when it is the winner's.
 * A strong card played is a strong card no longer kept.
 */
static int
normal_play(const struct sticheln_state *s, int seat, const uint16_t *unseen)
{
	const struct sticheln_round *r = &s->r;
	int lead_set = r->trick_len > 0;
	int nlater = s->nseats - r->trick_len - 1;
	int later[GAME_MAX_SEATS], nunseen = 0, best = -1;
	int pen = penalty(s, seat);
	/* The later seats have not played yet: they hold what seat holds. */
	int t = held_count(r->hand[seat]);
	double best_score = 0;

	for (int i = 0, other = seat; i < nlater; i++) {
		other = (other + 1) % s->nseats;
		later[i] = other;
	}
	for (int colour = 0; colour < s->ncolours; colour++)
		nunseen += bits_count64(unseen[colour]);
	for (int colour = 0; colour < s->ncolours; colour++) {
		for (unsigned m = r->hand[seat][colour]; m; m &= m - 1) {
			int rank = bits_lowest64(m);
			int face = colour * STICHELN_RANKS + rank;
			int lead = lead_set ? r->lead_colour : colour;
			int wins = !lead_set ||
			    power(lead, face) > r->best_power;
			double score = 0, hold = wins ? 1 : 0;

			if (wins && nlater > 0 && nunseen > 0) {
				int p = power(lead, face), beaters = 0;

				/* The unseen cards that would overtake face. */
				for (int c = 0; c < s->ncolours; c++)
					for (unsigned u = unseen[c]; u;
					    u &= u - 1)
						beaters += power(lead, c *
						    STICHELN_RANKS +
						    bits_lowest64(u)) > p;
				for (int i = 0; i < nlater; i++) {
					double none = 1, eager;

					for (int k = 0; k < t; k++)
						none *= 1 - (double)beaters /
						    nunseen;
					eager = trick_worth(s, later[i], face) +
					    nlater - 1 > 0 ? EAGER_GOOD :
					    EAGER_BAD;
					hold *= 1 - eager * (1 - none);
				}
			}
			score += hold * (trick_worth(s, seat, face) +
			    LATER_CARD * nlater);
			if (!wins && lead_set && rank > 0 &&
			    penalty(s, r->best_seat) == colour)
				score += PLAY_PUSH * rank;
			/*
			 * A penalty card played is a danger gone; a strong
			 * card played is a trick it can no longer take.
			 */
			if (colour == pen)
				score += PLAY_DANGER * rank;
			else
				score -= PLAY_KEEP * rank * rank /
				    ((s->nranks - 1) * (s->nranks - 1));
			if (best < 0 || score > best_score) {
				best = face;
				best_score = score;
			}
		}
	}
	return best;
}

static void
set_card(struct action *out, int seat, int kind, int face)
{
	memset(out, 0, sizeof(*out));
	out->seat = (int8_t)seat;
	out->kind = (uint8_t)kind;
	out->ncards = 1;
	out->cards[0] = (uint8_t)face;
}

/* The unseen cards of a world for seat: not out, not in its hand. */
static void
world_unseen(const struct sticheln_world *w, int seat, uint16_t *unseen)
{
	for (int colour = 0; colour < STICHELN_COLOURS; colour++)
		unseen[colour] = (uint16_t)(deck_colour(&w->s) &
		    ~w->out[colour] & ~w->s.r.hand[seat][colour]);
}

/* ---- hard ------------------------------------------------------------ */

struct sticheln_search {
	const struct sticheln_view *v;
	int v1;                           /* hard-v1, the previous hard */
	int ncand;
	struct action cand[GAME_MAX_ACTIONS];
};

/* Removes face from seat's hand as its (hidden) selection. */
static void
select_card(struct sticheln_world *w, int seat, int face)
{
	w->s.r.hand[seat][colour_of(face)] &= (uint16_t)~(1u <<
	    rank_of(face));
	w->s.r.selected[seat] = (int8_t)face;
	w->s.selected[w->s.round][seat] = (int8_t)face;
	w->out[colour_of(face)] |= (uint16_t)(1u << rank_of(face));
}

/*
 * How well a world's hands fit what the seat saw this round.  Each other
 * seat's penalty card, revealed once all have selected, is checked
 * against the one normal would have selected from the world's hand as
 * dealt; then the round is replayed from its first trick with the
 * world's hands, and each play of another seat that normal would not have
 * made from that hand costs the world a factor.  A seat that selected
 * red is then likelier to hold few high reds, one that shed a card into a
 * trick likelier to hold no cheaper way out.  Mild, because the others
 * are not normal: it leans, it does not decide.
 */
static double
world_weight(const struct sticheln_view *v, const struct sticheln_world *w)
{
	struct sticheln_world replay;
	struct sticheln_round *r = &replay.s.r;
	uint16_t unseen[STICHELN_COLOURS];
	double weight = 1;

	if (!v->history || v->s.r.phase != PHASE_PLAY)
		return 1;
	memcpy(&replay, w, sizeof(replay));
	for (int i = 0; i < v->nplays; i++) {
		int face = v->play_face[i];

		r->hand[v->play_seat[i]][colour_of(face)] |= (uint16_t)(1u <<
		    rank_of(face));
		replay.out[colour_of(face)] &= (uint16_t)~(1u <<
		    rank_of(face));
	}
	for (int seat = 0; seat < replay.s.nseats; seat++) {
		uint16_t dealt[STICHELN_COLOURS];
		int face = r->selected[seat];

		if (seat == v->seat || face < 0)
			continue;
		memcpy(dealt, r->hand[seat], sizeof(dealt));
		dealt[colour_of(face)] |= (uint16_t)(1u << rank_of(face));
		if (colour_of(normal_select(&replay.s, seat, dealt)) !=
		    colour_of(face))
			weight *= SELECT_MISS;
	}
	if (v->nplays == 0)
		return weight;
	r->trick_no = 0;
	r->trick_len = 0;
	r->leader = v->play_seat[0];
	r->turn = v->play_seat[0];
	memset(r->won, 0, sizeof(r->won));
	memset(r->captured, 0, sizeof(r->captured));
	memset(r->gained, 0, sizeof(r->gained));
	for (int i = 0; i < v->nplays; i++) {
		int seat = v->play_seat[i], face = v->play_face[i];

		if (seat != v->seat) {
			world_unseen(&replay, seat, unseen);
			if (normal_play(&replay.s, seat, unseen) != face)
				weight *= PLAY_MISS;
		}
		replay.out[colour_of(face)] |= (uint16_t)(1u << rank_of(face));
		sticheln_play_face(&replay.s, seat, face);
	}
	return weight;
}

/*
 * Deals the unseen cards to the other seats (the whole deck is dealt, and
 * nobody must follow, so nothing constrains them); a seat that selected
 * out of sight selects from its sampled hand as normal would.
 */
static double
sticheln_sample(const void *arg, struct rng *rng, void *worldp)
{
	const struct sticheln_search *search = arg;
	const struct sticheln_view *v = search->v;
	struct sticheln_world *w = worldp;
	uint8_t pool[STICHELN_FACES];
	int npool = 0, k = 0;

	for (int colour = 0; colour < v->s.ncolours; colour++)
		for (unsigned m = v->unseen[colour]; m; m &= m - 1)
			pool[npool++] = (uint8_t)(colour * STICHELN_RANKS +
			    bits_lowest64(m));
	rng_shuffle(rng, pool, (size_t)npool);
	memcpy(&w->s, &v->s, sizeof(w->s));
	memcpy(w->out, v->out, sizeof(w->out));
	for (int seat = 0; seat < v->s.nseats; seat++) {
		if (seat == v->seat)
			continue;
		for (int i = 0; i < v->held[seat] && k < npool; i++, k++)
			w->s.r.hand[seat][colour_of(pool[k])] |=
			    (uint16_t)(1u << rank_of(pool[k]));
		if (v->hidden_select & (1u << seat))
			select_card(w, seat, normal_select(&w->s, seat,
			    w->s.r.hand[seat]));
	}
	return search->v1 ? 1 : world_weight(v, w);
}

static void
rollout(struct sticheln_world *w)
{
	struct sticheln_state *s = &w->s;
	uint16_t unseen[STICHELN_COLOURS];

	for (;;) {
		if (s->r.phase == PHASE_SELECT) {
			struct action a;
			int seat = 0;

			while (seat < s->nseats && s->r.selected[seat] >= 0)
				seat++;
			if (seat == s->nseats)
				return;
			set_card(&a, seat, ACTION_SELECT, normal_select(s,
			    seat, s->r.hand[seat]));
			w->out[colour_of(a.cards[0])] |= (uint16_t)(1u <<
			    rank_of(a.cards[0]));
			if (sticheln_game.apply(s, &a, NULL, 0) != 0)
				return;
		} else if (s->r.phase == PHASE_PLAY) {
			int seat = s->r.turn, face;

			world_unseen(w, seat, unseen);
			face = normal_play(s, seat, unseen);
			w->out[colour_of(face)] |= (uint16_t)(1u <<
			    rank_of(face));
			sticheln_play_face(s, seat, face);
		} else {
			return;
		}
	}
}

static double
sticheln_score(const void *arg, const void *worldp, int cand)
{
	const struct sticheln_search *search = arg;
	const struct sticheln_view *v = search->v;
	const struct action *a = &search->cand[cand];
	struct sticheln_world w;
	double others = 0;
	int round, face = a->cards[0];

	memcpy(&w, worldp, sizeof(w));
	w.out[colour_of(face)] |= (uint16_t)(1u << rank_of(face));
	if (a->kind == ACTION_PLAY)
		sticheln_play_face(&w.s, v->seat, face);
	else if (sticheln_game.apply(&w.s, a, NULL, 0) != 0)
		return -1000;
	rollout(&w);
	round = w.s.round;
	for (int seat = 0; seat < w.s.nseats; seat++)
		if (seat != v->seat)
			others += w.s.points[round][seat];
	return w.s.points[round][v->seat] - (search->v1 ? OTHERS_WEIGHT_V1 :
	    OTHERS_WEIGHT) * others / (w.s.nseats - 1);
}

static void
hard(const struct sticheln_view *v, struct ai_ctx *ctx, struct action *out)
{
	const struct sticheln_state *s = &v->s;
	struct sticheln_search search;
	struct ai_search run;
	int best, cards = 0;

	memset(&search, 0, sizeof(search));
	search.v = v;
	search.v1 = ctx->hard_v1;
	if (s->r.phase == PHASE_SELECT) {
		/* A higher card of a colour than its lowest only costs more. */
		for (int colour = 0; colour < s->ncolours; colour++)
			if (s->r.hand[v->seat][colour] != 0)
				set_card(&search.cand[search.ncand++], v->seat,
				    ACTION_SELECT, colour * STICHELN_RANKS +
				    bits_lowest64(s->r.hand[v->seat][colour]));
	} else {
		search.ncand = sticheln_game.legal(s, v->seat, search.cand,
		    GAME_MAX_ACTIONS);
	}
	if (search.ncand <= 1)
		return;
	for (int seat = 0; seat < s->nseats; seat++)
		cards += v->held[seat];
	cards += held_count(s->r.hand[v->seat]);
	/* A simulated play costs about half a unit per card it judges. */
	run.ncand = search.ncand;
	run.world_size = sizeof(struct sticheln_world);
	run.cost = search.ncand * (cards * (2.7 + 0.45 * cards / s->nseats) +
	    18);
	run.sample = sticheln_sample;
	run.score = sticheln_score;
	best = ai_search_run(ctx, &run, &search);
	if (best >= 0)
		*out = search.cand[best];
}

/* ---- the seat's view ------------------------------------------------- */

/*
 * Builds seat's view of full; plays are the round's plays from the record
 * (the current trick's last), or NULL.  Other hands are erased, and so
 * are the others' selections while they are still hidden.
 */
static void
view_build(struct sticheln_view *v, const struct sticheln_state *full,
    int seat, const struct action *plays, int nplays)
{
	const struct sticheln_round *fr = &full->r;
	struct sticheln_round *r;
	int selecting = fr->phase == PHASE_SELECT;

	memset(v, 0, sizeof(*v));
	memcpy(&v->s, full, sizeof(v->s));
	r = &v->s.r;
	v->seat = seat;
	for (int other = 0; other < full->nseats; other++) {
		if (other == seat)
			continue;
		v->held[other] = (uint8_t)held_count(fr->hand[other]);
		memset(r->hand[other], 0, sizeof(r->hand[other]));
		if (selecting && fr->selected[other] >= 0) {
			/* The selected card is hidden among the hand's. */
			v->held[other]++;
			v->hidden_select |= (uint8_t)(1u << other);
		}
		if (selecting && full->round >= 0) {
			r->selected[other] = -1;
			v->s.selected[full->round][other] = -1;
		}
	}
	for (int other = 0; other < full->nseats; other++) {
		int face = r->selected[other];

		if (face >= 0)
			v->out[colour_of(face)] |= (uint16_t)(1u <<
			    rank_of(face));
	}
	for (int i = 0; i < fr->trick_len; i++)
		v->out[colour_of(fr->trick_card[i])] |= (uint16_t)(1u <<
		    rank_of(fr->trick_card[i]));
	for (int i = 0; plays != NULL && i < nplays - fr->trick_len; i++) {
		int face = plays[i].cards[0];

		if (face < STICHELN_FACES)
			v->out[colour_of(face)] |= (uint16_t)(1u <<
			    rank_of(face));
	}
	/* Every play of the round, for hard's weights. */
	if (plays != NULL && !selecting && nplays >= fr->trick_len &&
	    nplays <= STICHELN_PLAYS) {
		v->history = 1;
		for (int i = 0; i < nplays; i++) {
			if (plays[i].ncards != 1 ||
			    plays[i].cards[0] >= STICHELN_FACES ||
			    plays[i].seat < 0 || plays[i].seat >= full->nseats) {
				v->history = 0;
				break;
			}
			v->play_seat[i] = (uint8_t)plays[i].seat;
			v->play_face[i] = plays[i].cards[0];
		}
		v->nplays = v->history ? nplays : 0;
	}
	for (int colour = 0; colour < full->ncolours; colour++)
		v->unseen[colour] = (uint16_t)(deck_colour(full) &
		    ~v->out[colour] & ~r->hand[seat][colour]);
}

int
sticheln_ai_decide(const void *state, int seat, const struct action *actions,
    int nactions, struct ai_ctx *ctx, struct action *out)
{
	const struct sticheln_state *full = state;
	const struct action *plays;
	struct sticheln_view v;
	int count;

	count = full->r.phase == PHASE_PLAY ?
	    full->r.trick_no * full->nseats + full->r.trick_len : 0;
	plays = ai_round_plays(actions, nactions, count);
	view_build(&v, full, seat, plays, count);
	/* From here on only the view. */
	if (v.s.r.phase == PHASE_SELECT) {
		set_card(out, seat, ACTION_SELECT, ctx->level == AI_EASY ?
		    easy_select(&v.s, seat) :
		    normal_select(&v.s, seat, v.s.r.hand[seat]));
	} else if (v.s.r.phase == PHASE_PLAY) {
		set_card(out, seat, ACTION_PLAY, ctx->level == AI_EASY ?
		    easy_play(&v.s, seat) :
		    normal_play(&v.s, seat, v.unseen));
	} else {
		return -1;
	}
	if (ctx->level == AI_HARD)
		hard(&v, ctx, out);
	return 0;
}

/*
 * sticheln.c - Sticheln, exactly as RULES.md section 3.
 *
 * Every card is unique, so a face names one card: colour * 15 + rank, with
 * the colours in the order r y g b n p.  A hand is one 15-bit mask of ranks
 * per colour.  Faces cover the six-player deck; which of them a smaller
 * table uses is checked against its deal.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "rng.h"
#include "sticheln.h"

static const char colour_letters[] = "rygbnp";

static const struct game_option_desc sticheln_options[] = {
	[STICHELN_OPT_DM] = { "dm", 0, 1, 1,
	    "Play 4 rounds instead of 5." },
	[STICHELN_NOPTIONS] = { NULL, 0, 0, 0, NULL },
};

static inline int
face_colour(int face)
{
	return face / STICHELN_RANKS;
}

static inline int
face_rank(int face)
{
	return face % STICHELN_RANKS;
}

static int
sticheln_parse_card(const char *code)
{
	const char *p;
	int rank;

	if (code == NULL || code[0] == '\0')
		return -1;
	p = strchr(colour_letters, tolower((unsigned char)code[0]));
	if (p == NULL)
		return -1;
	/* One or two digits, no leading zero: 0..14. */
	if (code[1] < '0' || code[1] > '9')
		return -1;
	rank = code[1] - '0';
	if (code[2] != '\0') {
		if (rank == 0 || code[2] < '0' || code[2] > '9' ||
		    code[3] != '\0')
			return -1;
		rank = rank * 10 + (code[2] - '0');
	}
	if (rank >= STICHELN_RANKS)
		return -1;
	return (int)(p - colour_letters) * STICHELN_RANKS + rank;
}

static void
sticheln_format_card(int face, char *buf, size_t len)
{
	if (face >= 0 && face < STICHELN_FACES)
		snprintf(buf, len, "%c%d", colour_letters[face_colour(face)],
		    face_rank(face));
	else
		snprintf(buf, len, "?");
}

void
sticheln_deck(int nseats, int *ncolours, int *nranks)
{
	*ncolours = nseats == 6 ? 6 : 5;
	*nranks = nseats == 3 ? 9 : nseats == 4 ? 12 : 15;
}

static int
sticheln_rounds(const struct game_options *o)
{
	return o->value[STICHELN_OPT_DM] ? 4 : STICHELN_MAX_ROUNDS;
}

static int
sticheln_validate_options(const struct game_options *o, int nseats,
    char *err, size_t errlen)
{
	/* The only option combines with every seat count. */
	return 0;
}

static int
sticheln_check_options(const struct game_options *o, int nseats,
    struct game_refusal *why)
{
	return 0;
}

static void
sticheln_init(void *state, const struct game_setup *setup)
{
	struct sticheln_state *s = state;
	int ncolours, nranks;

	memset(s, 0, sizeof(*s));
	sticheln_deck(setup->nseats, &ncolours, &nranks);
	s->nseats = (uint8_t)setup->nseats;
	s->first = (uint8_t)setup->first;
	s->nrounds = (uint8_t)sticheln_rounds(&setup->options);
	s->ncolours = (uint8_t)ncolours;
	s->nranks = (uint8_t)nranks;
	s->round = -1;
	memset(s->selected, -1, sizeof(s->selected));
	memset(s->r.selected, -1, sizeof(s->r.selected));
	s->r.phase = PHASE_DEAL;
}

/*
 * Checks that a deal gives every seat 15 different cards of this table's
 * deck, which with 15 cards per seat is the whole deck.
 */
static int
deal_error(int nseats, const struct deal *deal, char *err, size_t errlen)
{
	uint16_t seen[STICHELN_COLOURS] = { 0 };
	int ncolours, nranks;

	sticheln_deck(nseats, &ncolours, &nranks);
	for (int seat = 0; seat < nseats; seat++) {
		if (deal->count[seat] != STICHELN_HAND)
			return game_error(err, errlen,
			    "Seat %d holds %d card%s instead of %d.", seat,
			    deal->count[seat],
			    deal->count[seat] == 1 ? "" : "s", STICHELN_HAND);
		for (int i = 0; i < STICHELN_HAND; i++) {
			int face = deal->cards[seat][i];
			int colour = face_colour(face), rank = face_rank(face);
			char code[8];

			if (face >= STICHELN_FACES || colour >= ncolours ||
			    rank >= nranks) {
				sticheln_format_card(face, code, sizeof(code));
				return game_error(err, errlen,
				    "Seat %d holds %s, which is not in the "
				    "deck for %d players.", seat, code, nseats);
			}
			if (seen[colour] & (1u << rank))
				return game_error(err, errlen,
				    "A card is dealt twice.");
			seen[colour] |= (uint16_t)(1u << rank);
		}
	}
	return 0;
}

static int
sticheln_check_deal(const struct game_setup *setup, int round,
    const struct deal *deal, char *err, size_t errlen)
{
	int nrounds = sticheln_rounds(&setup->options);

	if (round >= nrounds)
		return game_error(err, errlen,
		    "The game has only %d rounds.", nrounds);
	/* RECORD.md: a turned card is Wizard's only. */
	if (deal->turned >= 0)
		return game_error(err, errlen,
		    "Sticheln turns up no card: leave out \"turned\".");
	return deal_error(setup->nseats, deal, err, errlen);
}

static void
sticheln_make_deal(const void *state, struct rng *rng, struct deal *out)
{
	const struct sticheln_state *s = state;
	uint8_t deck[STICHELN_FACES];
	int n = 0, k = 0;

	for (int colour = 0; colour < s->ncolours; colour++)
		for (int rank = 0; rank < s->nranks; rank++)
			deck[n++] = (uint8_t)(colour * STICHELN_RANKS + rank);
	rng_shuffle(rng, deck, (size_t)n);
	memset(out, 0, sizeof(*out));
	out->turned = -1;
	for (int seat = 0; seat < s->nseats; seat++) {
		out->count[seat] = STICHELN_HAND;
		for (int i = 0; i < STICHELN_HAND; i++)
			out->cards[seat][i] = deck[k++];
	}
}

static int
sticheln_start_round(void *state, const struct deal *deal, char *err,
    size_t errlen)
{
	struct sticheln_state *s = state;
	struct sticheln_round *r = &s->r;
	int round = s->round + 1;

	if (round >= s->nrounds)
		return game_error(err, errlen,
		    "The game has only %d rounds.", s->nrounds);
	if (deal_error(s->nseats, deal, err, errlen) != 0)
		return -1;
	s->round = (int8_t)round;
	memset(r, 0, sizeof(*r));
	for (int seat = 0; seat < s->nseats; seat++) {
		for (int i = 0; i < STICHELN_HAND; i++) {
			int face = deal->cards[seat][i];

			r->hand[seat][face_colour(face)] |=
			    (uint16_t)(1u << face_rank(face));
		}
		r->selected[seat] = -1;
	}
	r->phase = PHASE_SELECT;
	/* Our choice (RULES.md): each round's first leader moves left. */
	r->leader = (uint8_t)((s->first + round) % s->nseats);
	r->turn = r->leader;
	return 0;
}

static inline int
holds(const struct sticheln_round *r, int seat, int face)
{
	return face >= 0 && face < STICHELN_FACES &&
	    (r->hand[seat][face_colour(face)] >> face_rank(face)) & 1;
}

static inline void
take(struct sticheln_round *r, int seat, int face)
{
	r->hand[seat][face_colour(face)] &=
	    (uint16_t)~(1u << face_rank(face));
}

static void
score_round(struct sticheln_state *s)
{
	struct sticheln_round *r = &s->r;
	int round = s->round;

	for (int seat = 0; seat < s->nseats; seat++) {
		int points = r->gained[seat] - face_rank(r->selected[seat]);

		s->points[round][seat] = (int16_t)points;
		s->captured[round][seat] = r->captured[seat];
		s->total[seat] = (int16_t)(s->total[seat] + points);
	}
	s->scored = (uint8_t)(round + 1);
	r->phase = round + 1 >= s->nrounds ? PHASE_OVER : PHASE_DEAL;
}

/*
 * The winner takes the trick's cards: one point for each, except that a
 * card of the winner's penalty colour costs its rank instead.
 */
static void
finish_trick(struct sticheln_state *s)
{
	struct sticheln_round *r = &s->r;
	int winner = r->best_seat;
	int penalty = face_colour(r->selected[winner]);

	s->tricks[s->round][r->trick_no] =
	    (uint8_t)(r->leader | (winner << 4));
	for (int i = 0; i < r->trick_len; i++) {
		int face = r->trick_card[i];

		if (face_colour(face) == penalty)
			r->gained[winner] = (int16_t)(r->gained[winner] -
			    face_rank(face));
		else
			r->gained[winner]++;
	}
	r->captured[winner] = (uint8_t)(r->captured[winner] + r->trick_len);
	r->won[winner]++;
	r->trick_no++;
	r->trick_len = 0;
	r->leader = (uint8_t)winner;
	r->turn = (uint8_t)winner;
	if (r->trick_no == STICHELN_TRICKS)
		score_round(s);
}

/*
 * How strongly face bids for the trick now.  Every colour but the lead's is
 * trump, a zero never is and never beats anything, and among cards of
 * equal power the first one played stays ahead.
 */
static inline int
power(const struct sticheln_round *r, int face)
{
	int rank = face_rank(face);

	if (rank == 0)
		return 0;
	if (face_colour(face) == r->lead_colour)
		return 50 + rank;
	return 100 + rank;
}

void
sticheln_play_face(struct sticheln_state *s, int seat, int face)
{
	struct sticheln_round *r = &s->r;
	int p;

	take(r, seat, face);
	if (r->trick_len == 0) {
		/* A led zero still sets the lead colour. */
		r->lead_colour = (uint8_t)face_colour(face);
		r->best_seat = (uint8_t)seat;
		r->best_power = (uint8_t)power(r, face);
	} else if ((p = power(r, face)) > r->best_power) {
		r->best_seat = (uint8_t)seat;
		r->best_power = (uint8_t)p;
	}
	r->trick_seat[r->trick_len] = (uint8_t)seat;
	r->trick_card[r->trick_len] = (uint8_t)face;
	r->trick_len++;
	if (r->trick_len == s->nseats)
		finish_trick(s);
	else
		r->turn = (uint8_t)((seat + 1) % s->nseats);
}

static int
apply_select(struct sticheln_state *s, const struct action *a, char *err,
    size_t errlen)
{
	struct sticheln_round *r = &s->r;
	int seat = a->seat, face = a->cards[0];
	char code[8];

	if (r->phase != PHASE_SELECT)
		return game_error(err, errlen,
		    "Penalty cards are selected only at the start of a "
		    "round.");
	if (r->selected[seat] >= 0)
		return game_error(err, errlen,
		    "Seat %d has already selected a card.", seat);
	if (a->ncards != 1)
		return game_error(err, errlen, "Select one card.");
	if (!holds(r, seat, face)) {
		/* Formatting costs more than the play: only on refusal. */
		sticheln_format_card(face, code, sizeof(code));
		return game_error(err, errlen, "Seat %d does not hold %s.",
		    seat, code);
	}
	/* The card leaves the hand at once; only its owner sees which. */
	take(r, seat, face);
	r->selected[seat] = (int8_t)face;
	s->selected[s->round][seat] = (int8_t)face;
	if (++r->nselected == s->nseats) {
		r->phase = PHASE_PLAY;
		r->turn = r->leader;
	}
	return 0;
}

static int
sticheln_apply(void *state, const struct action *a, char *err, size_t errlen)
{
	struct sticheln_state *s = state;
	struct sticheln_round *r = &s->r;
	char code[8];

	if (a->seat < 0 || a->seat >= s->nseats)
		return game_error(err, errlen, "There is no seat %d.", a->seat);
	if (r->phase == PHASE_OVER)
		return game_error(err, errlen, "The game is over.");
	switch (a->kind) {
	case ACTION_SELECT:
		return apply_select(s, a, err, errlen);
	case ACTION_PLAY:
		if (r->phase == PHASE_SELECT)
			return game_error(err, errlen,
			    "Every seat must select a penalty card before "
			    "play starts.");
		if (r->phase != PHASE_PLAY)
			return game_error(err, errlen,
			    "Cards are not played now.");
		if (a->seat != r->turn)
			return game_error(err, errlen,
			    "It is seat %d's turn, not seat %d's.", r->turn,
			    a->seat);
		if (a->ncards != 1)
			return game_error(err, errlen, "Play one card.");
		if (!holds(r, a->seat, a->cards[0])) {
			/* The code is formatted only for the refusal. */
			sticheln_format_card(a->cards[0], code, sizeof(code));
			return game_error(err, errlen,
			    "Seat %d does not hold %s.", a->seat, code);
		}
		sticheln_play_face(s, a->seat, a->cards[0]);
		return 0;
	case ACTION_BID:
		return game_error(err, errlen, "Sticheln has no bidding.");
	case ACTION_TRUMP:
		return game_error(err, errlen,
		    "Sticheln has no trump to choose.");
	default:
		return game_error(err, errlen, "Sticheln has no such action.");
	}
}

static enum game_phase
sticheln_phase(const void *state)
{
	return ((const struct sticheln_state *)state)->r.phase;
}

static int
sticheln_round_index(const void *state)
{
	return ((const struct sticheln_state *)state)->round;
}

static int
sticheln_to_act(const void *state, int *seats)
{
	const struct sticheln_state *s = state;
	const struct sticheln_round *r = &s->r;
	int n = 0;

	switch (r->phase) {
	case PHASE_SELECT:
		for (int seat = 0; seat < s->nseats; seat++)
			if (r->selected[seat] < 0)
				seats[n++] = seat;
		break;
	case PHASE_PLAY:
		seats[n++] = r->turn;
		break;
	default:
		break;
	}
	return n;
}

static int
sticheln_legal(const void *state, int seat, struct action *out, int max)
{
	const struct sticheln_state *s = state;
	const struct sticheln_round *r = &s->r;
	int kind, n = 0;

	if (seat < 0 || seat >= s->nseats)
		return 0;
	if (r->phase == PHASE_SELECT && r->selected[seat] < 0)
		kind = ACTION_SELECT;
	else if (r->phase == PHASE_PLAY && seat == r->turn)
		kind = ACTION_PLAY;
	else
		return 0;
	/*
	 * Any held card, selected or played: nobody must follow.  Whole
	 * actions are written, so the unused fields are zero without
	 * clearing all of out first.
	 */
	for (int colour = 0; colour < s->ncolours; colour++) {
		for (unsigned m = r->hand[seat][colour]; m && n < max;
		    m &= m - 1) {
			out[n++] = (struct action){ .seat = (int8_t)seat,
			    .kind = (uint8_t)kind, .ncards = 1,
			    .cards = { (uint8_t)(colour * STICHELN_RANKS +
			    __builtin_ctz(m)) } };
		}
	}
	return n;
}

static json_t *
card_json(int face)
{
	char code[8];

	if (face < 0)
		return json_null();
	sticheln_format_card(face, code, sizeof(code));
	return json_string(code);
}

static json_t *
sticheln_result(const void *state)
{
	const struct sticheln_state *s = state;
	json_t *rounds = json_array();
	json_t *scores = json_array();
	json_t *winners;
	int over = s->r.phase == PHASE_OVER;

	for (int round = 0; round <= s->round; round++) {
		int scored = round < s->scored;
		int ntricks = scored ? STICHELN_TRICKS : s->r.trick_no;
		json_t *tricks = json_array();
		json_t *selected = json_array();
		json_t *points;

		for (int t = 0; t < ntricks; t++)
			json_array_append_new(tricks, json_pack(
			    "{s:i, s:i}", "leader", s->tricks[round][t] & 15,
			    "winner", s->tricks[round][t] >> 4));
		if (scored) {
			points = json_array();
			for (int seat = 0; seat < s->nseats; seat++)
				json_array_append_new(points, json_integer(
				    s->points[round][seat]));
		} else {
			points = json_null();
		}
		/* A replay sees everything, selections included. */
		for (int seat = 0; seat < s->nseats; seat++)
			json_array_append_new(selected,
			    card_json(s->selected[round][seat]));
		json_array_append_new(rounds, json_pack("{s:o, s:o, s:o}",
		    "tricks", tricks, "points", points, "selected",
		    selected));
	}
	for (int seat = 0; seat < s->nseats; seat++)
		json_array_append_new(scores, json_integer(s->total[seat]));
	winners = over ? game_winners(s->total, s->nseats,
	    (1u << s->nseats) - 1, 0) : json_array();
	return json_pack("{s:s, s:o, s:o, s:b, s:o}", "game", "sticheln",
	    "rounds", rounds, "scores", scores, "finished", over,
	    "winners", winners);
}

static int
sticheln_round_result(const void *state, int round, struct game_round *out)
{
	const struct sticheln_state *s = state;
	int ntricks;

	if (round < 0 || round > s->round)
		return -1;
	memset(out, 0, sizeof(*out));
	out->scored = round < s->scored;
	ntricks = out->scored ? STICHELN_TRICKS : s->r.trick_no;
	out->ntricks = ntricks;
	out->last_winner = ntricks > 0 ? s->tricks[round][ntricks - 1] >> 4 :
	    -1;
	for (int seat = 0; seat < s->nseats; seat++) {
		int face = s->selected[round][seat];

		if (out->scored)
			out->points[seat] = s->points[round][seat];
		/* A replay sees everything, selections included. */
		if (face >= 0)
			sticheln_format_card(face, out->selected[seat],
			    sizeof(out->selected[seat]));
	}
	return 0;
}

/*
 * A sorted hand's codes: colours in r y g b n p order, then ranks;
 * returns how many.
 */
static int
hand_codes(const uint16_t *hand, char (*out)[4])
{
	int n = 0;

	for (int colour = 0; colour < STICHELN_COLOURS; colour++)
		for (unsigned m = hand[colour]; m; m &= m - 1)
			sticheln_format_card(colour * STICHELN_RANKS +
			    __builtin_ctz(m), out[n++], 4);
	return n;
}

/* The same hand as a JSON list of codes. */
static json_t *
hand_json(const uint16_t *hand)
{
	char codes[GAME_MAX_HAND][4];
	json_t *list = json_array();
	int n = hand_codes(hand, codes);

	for (int i = 0; i < n; i++)
		json_array_append_new(list, json_string(codes[i]));
	return list;
}

/* The cards seat holds, for the view and the brief. */
static int
held_cards(const struct sticheln_round *r, int seat)
{
	int held = 0;

	for (int colour = 0; colour < STICHELN_COLOURS; colour++)
		held += __builtin_popcount(r->hand[seat][colour]);
	return held;
}

/*
 * Seat's points for the round if it ended now: public once the penalty
 * cards are revealed (PHASE_PLAY), since every capture was seen.
 */
static int
points_now(const struct sticheln_round *r, int seat)
{
	return r->gained[seat] - face_rank(r->selected[seat]);
}

/*
 * Whether seat may see the selection of other: its own at once, the
 * others' once every selection is in and they are revealed together.
 */
static int
selection_visible(const struct sticheln_state *s, int seat, int other)
{
	return seat == other || s->r.phase != PHASE_SELECT;
}

static void
sticheln_brief(const void *state, int seat, struct game_brief *b)
{
	const struct sticheln_state *s = state;
	const struct sticheln_round *r = &s->r;

	memset(b, 0, sizeof(*b));
	b->round = s->round + 1;
	b->trick = r->trick_len;
	b->leader = r->leader;
	for (int other = 0; other < s->nseats; other++) {
		int face = selection_visible(s, seat, other) ?
		    r->selected[other] : -1;

		if (face >= 0)
			b->penalty[other][0] =
			    colour_letters[face_colour(face)];
		b->won[other] = r->won[other];
		b->held[other] = held_cards(r, other);
		b->score[other] = s->total[other];
		if (r->phase == PHASE_PLAY) {
			b->points_shown |= 1u << other;
			b->points[other] = points_now(r, other);
		}
	}
	if (seat < 0 || seat >= s->nseats)
		return;
	b->nhand = hand_codes(r->hand[seat], b->hand);
}

static json_t *
sticheln_view(const void *state, int seat)
{
	const struct sticheln_state *s = state;
	const struct sticheln_round *r = &s->r;
	json_t *view = json_object();
	json_t *trick = json_array();
	json_t *selected = json_array();
	json_t *colours = json_array();
	json_t *won = json_array();
	json_t *counts = json_array();
	json_t *scores = json_array();
	json_t *points = json_array();
	json_t *to_act = json_array();
	int acting[GAME_MAX_SEATS];
	int nacting = sticheln_to_act(s, acting);

	json_object_set_new(view, "game", json_string("sticheln"));
	json_object_set_new(view, "phase", json_string(game_phase_name(r->phase)));
	json_object_set_new(view, "round", json_integer(s->round + 1));
	json_object_set_new(view, "rounds", json_integer(s->nrounds));
	for (int i = 0; i < nacting; i++)
		json_array_append_new(to_act, json_integer(acting[i]));
	json_object_set_new(view, "to_act", to_act);
	json_object_set_new(view, "leader", json_integer(r->leader));
	for (int i = 0; i < r->trick_len; i++)
		json_array_append_new(trick, json_pack("{s:i, s:o}", "seat",
		    r->trick_seat[i], "card", card_json(r->trick_card[i])));
	json_object_set_new(view, "trick", trick);
	for (int other = 0; other < s->nseats; other++) {
		int face = selection_visible(s, seat, other) ?
		    r->selected[other] : -1;

		json_array_append_new(selected, card_json(face));
		json_array_append_new(colours, face < 0 ? json_null() :
		    json_sprintf("%c", colour_letters[face_colour(face)]));
		json_array_append_new(won, json_integer(r->won[other]));
		json_array_append_new(counts, json_integer(held_cards(r,
		    other)));
		json_array_append_new(scores, json_integer(s->total[other]));
		json_array_append_new(points, r->phase == PHASE_PLAY ?
		    json_integer(points_now(r, other)) : json_null());
	}
	json_object_set_new(view, "points", points);
	json_object_set_new(view, "selected", selected);
	json_object_set_new(view, "penalty_colours", colours);
	json_object_set_new(view, "won", won);
	json_object_set_new(view, "hand_counts", counts);
	json_object_set_new(view, "scores", scores);
	if (seat >= 0 && seat < s->nseats) {
		json_object_set_new(view, "seat", json_integer(seat));
		json_object_set_new(view, "hand", hand_json(r->hand[seat]));
	}
	return view;
}

const struct game_impl sticheln_game = {
	.name = "sticheln",
	.min_seats = 3,
	.max_seats = 6,
	.max_play_cards = 1,
	.options = sticheln_options,
	.state_size = sizeof(struct sticheln_state),
	.validate_options = sticheln_validate_options,
	.check_options = sticheln_check_options,
	.init = sticheln_init,
	.check_deal = sticheln_check_deal,
	.make_deal = sticheln_make_deal,
	.start_round = sticheln_start_round,
	.apply = sticheln_apply,
	.phase = sticheln_phase,
	.to_act = sticheln_to_act,
	.legal = sticheln_legal,
	.round = sticheln_round_index,
	.parse_card = sticheln_parse_card,
	.format_card = sticheln_format_card,
	.result = sticheln_result,
	.view = sticheln_view,
	.brief = sticheln_brief,
	.round_result = sticheln_round_result,
};

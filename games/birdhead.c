/*
 * birdhead.c - BirdHead, exactly as RULES.md section 2.
 *
 * A face is the rank itself (2..11), and a hand is a count of cards per
 * face: five copies of every rank make the cards of one rank
 * interchangeable, so the counts are all a player's choice depends on, and
 * they keep legal-move generation to a few nested loops.  Plays are kept
 * sorted ascending, which is the order the "meet the standard" rule
 * compares them in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "birdhead.h"
#include "game.h"
#include "rng.h"

/* BirdHead has no options; the table holds just its terminator. */
static const struct game_option_desc birdhead_options[] = {
	{ NULL, 0, 0, 0, NULL },
};

static int
birdhead_parse_card(const char *code)
{
	if (code == NULL)
		return -1;
	/* Exactly "2".."9", "10" or "11": no sign, no leading zero. */
	if (code[0] >= '2' && code[0] <= '9' && code[1] == '\0')
		return code[0] - '0';
	if (code[0] != '1' || (code[1] != '0' && code[1] != '1') ||
	    code[2] != '\0')
		return -1;
	return 10 + (code[1] - '0');
}

static void
birdhead_format_card(int face, char *buf, size_t len)
{
	if (face >= BIRDHEAD_LOW && face <= BIRDHEAD_HIGH)
		snprintf(buf, len, "%d", face);
	else
		snprintf(buf, len, "?");
}

/* Writes sorted faces as "7 7" for messages. */
static void
format_play(const uint8_t *faces, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%d",
		    i > 0 ? " " : "", faces[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static void
sort_faces(uint8_t *faces, int n)
{
	for (int i = 1; i < n; i++) {
		uint8_t v = faces[i];
		int j = i;

		for (; j > 0 && faces[j - 1] > v; j--)
			faces[j] = faces[j - 1];
		faces[j] = v;
	}
}

int
birdhead_hand_size(int nseats)
{
	int cards = BIRDHEAD_DECK / nseats;

	return cards < BIRDHEAD_MAX_DEAL ? cards : BIRDHEAD_MAX_DEAL;
}

static int
birdhead_validate_options(const struct game_options *o, int nseats, char *err,
    size_t errlen)
{
	/* There is nothing to combine; unknown names never get this far. */
	return 0;
}

static int
birdhead_check_options(const struct game_options *o, int nseats,
    struct game_refusal *why)
{
	return 0;
}

static void
birdhead_init(void *state, const struct game_setup *setup)
{
	struct birdhead_state *s = state;

	memset(s, 0, sizeof(*s));
	s->nseats = (uint8_t)setup->nseats;
	s->first = (uint8_t)setup->first;
	s->cards = (uint8_t)birdhead_hand_size(setup->nseats);
	s->round = -1;
	s->next_start = s->first;
	s->r.phase = PHASE_DEAL;
}

static int
birdhead_check_deal(const struct game_setup *setup, int round,
    const struct deal *deal, char *err, size_t errlen)
{
	int cards = birdhead_hand_size(setup->nseats);
	int copies[BIRDHEAD_FACES] = { 0 };

	if (round >= BIRDHEAD_MAX_ROUNDS)
		return game_error(err, errlen,
		    "The game cannot last more than %d rounds.",
		    BIRDHEAD_MAX_ROUNDS);
	/* RECORD.md: a turned card is Wizard's only. */
	if (deal->turned >= 0)
		return game_error(err, errlen,
		    "BirdHead turns up no card: leave out \"turned\".");
	for (int seat = 0; seat < setup->nseats; seat++) {
		if (deal->count[seat] != cards)
			return game_error(err, errlen,
			    "Seat %d holds %d card%s instead of %d.", seat,
			    deal->count[seat],
			    deal->count[seat] == 1 ? "" : "s", cards);
		for (int i = 0; i < cards; i++) {
			int face = deal->cards[seat][i];

			if (face < BIRDHEAD_LOW || face > BIRDHEAD_HIGH)
				return game_error(err, errlen,
				    "Seat %d holds an unknown card.", seat);
			if (++copies[face] > BIRDHEAD_COPIES)
				return game_error(err, errlen,
				    "The deal holds more than %d cards of "
				    "rank %d.", BIRDHEAD_COPIES, face);
		}
	}
	return 0;
}

static void
birdhead_make_deal(const void *state, struct rng *rng, struct deal *out)
{
	const struct birdhead_state *s = state;
	uint8_t deck[BIRDHEAD_DECK];
	int k = 0;

	for (int i = 0; i < BIRDHEAD_DECK; i++)
		deck[i] = (uint8_t)(BIRDHEAD_LOW + i / BIRDHEAD_COPIES);
	rng_shuffle(rng, deck, BIRDHEAD_DECK);
	memset(out, 0, sizeof(*out));
	out->turned = -1;
	for (int seat = 0; seat < s->nseats; seat++) {
		out->count[seat] = s->cards;
		for (int i = 0; i < s->cards; i++)
			out->cards[seat][i] = deck[k++];
	}
}

static int
birdhead_start_round(void *state, const struct deal *deal, char *err,
    size_t errlen)
{
	struct birdhead_state *s = state;
	struct birdhead_round *r = &s->r;
	int round = s->round + 1;

	/* The bound of BIRDHEAD_MAX_ROUNDS keeps the history in its arrays. */
	if (round >= BIRDHEAD_MAX_ROUNDS)
		return game_error(err, errlen,
		    "The game cannot last more than %d rounds.",
		    BIRDHEAD_MAX_ROUNDS);
	for (int seat = 0; seat < s->nseats; seat++) {
		if (deal->count[seat] != s->cards)
			return game_error(err, errlen,
			    "Seat %d holds %d card%s instead of %d.", seat,
			    deal->count[seat],
			    deal->count[seat] == 1 ? "" : "s", s->cards);
		for (int i = 0; i < s->cards; i++)
			if (deal->cards[seat][i] < BIRDHEAD_LOW ||
			    deal->cards[seat][i] > BIRDHEAD_HIGH)
				return game_error(err, errlen,
				    "Seat %d holds an unknown card.", seat);
	}
	s->round = (int8_t)round;
	memset(r, 0, sizeof(*r));
	for (int seat = 0; seat < s->nseats; seat++)
		for (int i = 0; i < s->cards; i++)
			r->count[seat][deal->cards[seat][i]]++;
	r->held = s->cards;
	r->phase = PHASE_PLAY;
	r->leader = s->next_start;
	r->turn = s->next_start;
	s->ntricks[round] = 0;
	return 0;
}

/* The n lowest cards of a hand, sorted; the hand holds at least n. */
static inline void
lowest_cards(const uint8_t *count, int n, uint8_t *out)
{
	int k = 0;

	for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH && k < n; face++)
		for (int c = 0; c < count[face] && k < n; c++)
			out[k++] = (uint8_t)face;
}

/* Whether sorted play is exactly the n lowest cards of the hand. */
static inline int
is_lowest(const uint8_t *count, const uint8_t *play, int n)
{
	uint8_t low[GAME_MAX_PLAY];

	lowest_cards(count, n, low);
	return memcmp(low, play, (size_t)n) == 0;
}

/*
 * The round ends with the reveal: everybody's last card is turned over and
 * the highest rank loses.  Among several losers, the one that comes last
 * in the order of this final "trick", which the last trick's winner starts,
 * decides who starts the next round.
 */
static void
reveal(struct birdhead_state *s)
{
	struct birdhead_round *r = &s->r;
	int round = s->round;
	int high = 0, last = r->leader;
	uint8_t losers = 0;

	for (int seat = 0; seat < s->nseats; seat++) {
		int face = BIRDHEAD_LOW;

		while (face < BIRDHEAD_HIGH && r->count[seat][face] == 0)
			face++;
		r->revealed[seat] = (uint8_t)face;
		r->count[seat][face] = 0;
		if (face > high)
			high = face;
	}
	r->held = 0;
	for (int i = 0; i < s->nseats; i++) {
		int seat = (r->leader + i) % s->nseats;
		int penalty = r->revealed[seat] == high ? high : 0;

		if (penalty > 0) {
			losers |= (uint8_t)(1u << seat);
			last = seat;
		}
		s->points[round][seat] = (uint8_t)penalty;
		s->total[seat] = (int16_t)(s->total[seat] + penalty);
	}
	s->losers[round] = losers;
	s->scored = (uint8_t)(round + 1);
	s->next_start = (uint8_t)((last + 1) % s->nseats);
	r->phase = PHASE_DEAL;
	for (int seat = 0; seat < s->nseats; seat++)
		if (s->total[seat] >= BIRDHEAD_LIMIT)
			r->phase = PHASE_OVER;
}

static void
finish_trick(struct birdhead_state *s)
{
	struct birdhead_round *r = &s->r;
	int winner = r->best_seat;

	s->tricks[s->round][r->trick_no] =
	    (uint8_t)(r->leader | (winner << 4));
	r->trick_no++;
	s->ntricks[s->round] = r->trick_no;
	r->held = (uint8_t)(r->held - r->width);
	r->trick_len = 0;
	r->leader = (uint8_t)winner;
	r->turn = (uint8_t)winner;
	/* Leads keep a card back, so every hand reaches one card together. */
	if (r->held == 1)
		reveal(s);
}

void
birdhead_play(struct birdhead_state *s, int seat, const uint8_t *sorted, int n)
{
	struct birdhead_round *r = &s->r;
	int top = sorted[n - 1];

	for (int i = 0; i < n; i++)
		r->count[seat][sorted[i]]--;
	if (r->trick_len == 0) {
		r->width = (uint8_t)n;
		memcpy(r->standard, sorted, (size_t)n);
		r->best_seat = (uint8_t)seat;
		r->best_face = (uint8_t)top;
	} else {
		/* A play that meets the standard raises it, lowest or not. */
		if (birdhead_meets(sorted, r->standard, n))
			memcpy(r->standard, sorted, (size_t)n);
		/* Equal strongest cards: the later one wins. */
		if (top >= r->best_face) {
			r->best_seat = (uint8_t)seat;
			r->best_face = (uint8_t)top;
		}
	}
	r->trick_seat[r->trick_len] = (uint8_t)seat;
	memset(r->trick_cards[r->trick_len], 0, GAME_MAX_PLAY);
	memcpy(r->trick_cards[r->trick_len], sorted, (size_t)n);
	r->trick_len++;
	if (r->trick_len == s->nseats)
		finish_trick(s);
	else
		r->turn = (uint8_t)((seat + 1) % s->nseats);
}

int
birdhead_check_play(const struct birdhead_state *s, int seat,
    const uint8_t *sorted, int n, char *err, size_t errlen)
{
	const struct birdhead_round *r = &s->r;
	uint8_t need[BIRDHEAD_FACES] = { 0 }, low[GAME_MAX_PLAY];
	char play[16], lowest[16];

	if (r->phase != PHASE_PLAY)
		return game_error(err, errlen, "Cards are not played now.");
	if (seat != r->turn)
		return game_error(err, errlen,
		    "It is seat %d's turn, not seat %d's.", r->turn, seat);
	if (n < 1 || n > GAME_MAX_PLAY)
		return game_error(err, errlen, "Play 1 to %d cards.",
		    GAME_MAX_PLAY);
	for (int i = 0; i < n; i++)
		if (sorted[i] < BIRDHEAD_LOW || sorted[i] > BIRDHEAD_HIGH)
			return game_error(err, errlen,
			    "BirdHead cards are 2 to 11.");
	for (int i = 0; i < n; i++) {
		if (++need[sorted[i]] > r->count[seat][sorted[i]]) {
			/* Formatting costs more than the play: refusals only. */
			format_play(sorted, n, play, sizeof(play));
			return game_error(err, errlen,
			    "Seat %d does not hold %s.", seat, play);
		}
	}
	if (r->trick_len == 0) {
		if (sorted[0] != sorted[n - 1])
			return game_error(err, errlen,
			    "A lead of several cards must all be of one rank.");
		if (n >= r->held)
			return game_error(err, errlen,
			    "Seat %d must keep at least one card.", seat);
		return 0;
	}
	if (n != r->width)
		return game_error(err, errlen, "Play %d card%s, like the lead.",
		    r->width, r->width == 1 ? "" : "s");
	if (birdhead_meets(sorted, r->standard, n) ||
	    is_lowest(r->count[seat], sorted, n))
		return 0;
	format_play(r->standard, n, play, sizeof(play));
	lowest_cards(r->count[seat], n, low);
	format_play(low, n, lowest, sizeof(lowest));
	return game_error(err, errlen,
	    "Seat %d must meet %s card by card or play its lowest cards, %s.",
	    seat, play, lowest);
}

static int
birdhead_apply(void *state, const struct action *a, char *err, size_t errlen)
{
	struct birdhead_state *s = state;
	uint8_t sorted[GAME_MAX_PLAY];
	int n = a->ncards;

	if (a->seat < 0 || a->seat >= s->nseats)
		return game_error(err, errlen, "There is no seat %d.", a->seat);
	if (s->r.phase == PHASE_OVER)
		return game_error(err, errlen, "The game is over.");
	switch (a->kind) {
	case ACTION_PLAY:
		break;
	case ACTION_BID:
		return game_error(err, errlen, "BirdHead has no bidding.");
	case ACTION_TRUMP:
		return game_error(err, errlen, "BirdHead has no trump.");
	case ACTION_SELECT:
		return game_error(err, errlen,
		    "BirdHead has no cards to select.");
	default:
		return game_error(err, errlen, "BirdHead has no such action.");
	}
	if (n < 1 || n > GAME_MAX_PLAY)
		return game_error(err, errlen, "Play 1 to %d cards.",
		    GAME_MAX_PLAY);
	memcpy(sorted, a->cards, (size_t)n);
	sort_faces(sorted, n);
	if (birdhead_check_play(s, a->seat, sorted, n, err, errlen) != 0)
		return -1;
	birdhead_play(s, a->seat, sorted, n);
	return 0;
}

static enum game_phase
birdhead_phase(const void *state)
{
	return ((const struct birdhead_state *)state)->r.phase;
}

static int
birdhead_round_index(const void *state)
{
	return ((const struct birdhead_state *)state)->round;
}

static int
birdhead_to_act(const void *state, int *seats)
{
	const struct birdhead_state *s = state;

	if (s->r.phase != PHASE_PLAY)
		return 0;
	seats[0] = s->r.turn;
	return 1;
}

/* Appends a play of n sorted faces to out unless it is full. */
static inline void
add_play(struct action *out, int *n, int max, int seat, const uint8_t *faces,
    int ncards)
{
	struct action a = { .seat = (int8_t)seat, .kind = ACTION_PLAY,
	    .ncards = (uint8_t)ncards };

	if (*n >= max)
		return;
	memcpy(a.cards, faces, (size_t)ncards);
	out[(*n)++] = a;
}

/*
 * Every distinct multiset of width cards of the hand, in ascending order,
 * that meets the standard or is the hand's lowest cards.  The lowest cards
 * are the first multiset, so nothing is listed twice.  Ten ranks give at
 * most C(12, 3) = 220 multisets of three, well within GAME_MAX_ACTIONS.
 */
static int
legal_follows(const struct birdhead_round *r, int seat, struct action *out,
    int max)
{
	const uint8_t *count = r->count[seat];
	int k = r->width, n = 0;
	uint8_t low[GAME_MAX_PLAY], p[GAME_MAX_PLAY];

	lowest_cards(count, k, low);
	for (int a = BIRDHEAD_LOW; a <= BIRDHEAD_HIGH; a++) {
		if (count[a] < 1)
			continue;
		p[0] = (uint8_t)a;
		if (k == 1) {
			if (birdhead_meets(p, r->standard, 1) || p[0] == low[0])
				add_play(out, &n, max, seat, p, 1);
			continue;
		}
		for (int b = a; b <= BIRDHEAD_HIGH; b++) {
			if (count[b] < 1 + (b == a))
				continue;
			p[1] = (uint8_t)b;
			if (k == 2) {
				if (birdhead_meets(p, r->standard, 2) ||
				    memcmp(p, low, 2) == 0)
					add_play(out, &n, max, seat, p, 2);
				continue;
			}
			for (int c = b; c <= BIRDHEAD_HIGH; c++) {
				if (count[c] < 1 + (c == a) + (c == b))
					continue;
				p[2] = (uint8_t)c;
				if (birdhead_meets(p, r->standard, 3) ||
				    memcmp(p, low, 3) == 0)
					add_play(out, &n, max, seat, p, 3);
			}
		}
	}
	return n;
}

static int
birdhead_legal(const void *state, int seat, struct action *out, int max)
{
	const struct birdhead_state *s = state;
	const struct birdhead_round *r = &s->r;
	int n = 0;

	if (seat < 0 || seat >= s->nseats || r->phase != PHASE_PLAY ||
	    seat != r->turn)
		return 0;
	/* add_play() writes whole actions, unused cards zero. */
	if (r->trick_len > 0)
		return legal_follows(r, seat, out, max);
	/* A lead of k equal cards must leave at least one in hand. */
	for (int k = 1; k <= GAME_MAX_PLAY && k < r->held; k++) {
		for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++) {
			uint8_t p[GAME_MAX_PLAY];

			if (r->count[seat][face] < k)
				continue;
			memset(p, face, sizeof(p));
			add_play(out, &n, max, seat, p, k);
		}
	}
	return n;
}

static json_t *
card_json(int face)
{
	char code[8];

	birdhead_format_card(face, code, sizeof(code));
	return json_string(code);
}

static json_t *
cards_json(const uint8_t *faces, int n)
{
	json_t *list = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(list, card_json(faces[i]));
	return list;
}

static json_t *
birdhead_result(const void *state)
{
	const struct birdhead_state *s = state;
	json_t *rounds = json_array();
	json_t *scores = json_array();
	json_t *winners;
	int over = s->r.phase == PHASE_OVER;

	for (int round = 0; round <= s->round; round++) {
		int scored = round < s->scored;
		json_t *tricks = json_array();
		json_t *points, *losers = json_array();

		for (int t = 0; t < s->ntricks[round]; t++)
			json_array_append_new(tricks, json_pack(
			    "{s:i, s:i}", "leader", s->tricks[round][t] & 15,
			    "winner", s->tricks[round][t] >> 4));
		if (scored) {
			points = json_array();
			for (int seat = 0; seat < s->nseats; seat++) {
				json_array_append_new(points, json_integer(
				    s->points[round][seat]));
				if (s->losers[round] & (1u << seat))
					json_array_append_new(losers,
					    json_integer(seat));
			}
		} else {
			points = json_null();
		}
		json_array_append_new(rounds, json_pack("{s:o, s:o, s:o}",
		    "tricks", tricks, "points", points, "losers", losers));
	}
	for (int seat = 0; seat < s->nseats; seat++)
		json_array_append_new(scores, json_integer(s->total[seat]));
	/* Penalties: the lowest total wins. */
	winners = over ? game_winners(s->total, s->nseats,
	    (1u << s->nseats) - 1, birdhead_game.lower_score_wins) :
	    json_array();
	return json_pack("{s:s, s:o, s:o, s:b, s:o}", "game", "birdhead",
	    "rounds", rounds, "scores", scores, "finished", over,
	    "winners", winners);
}

static int
birdhead_round_result(const void *state, int round, struct game_round *out)
{
	const struct birdhead_state *s = state;
	int n;

	if (round < 0 || round > s->round)
		return -1;
	memset(out, 0, sizeof(*out));
	n = s->ntricks[round];
	out->scored = round < s->scored;
	out->ntricks = n;
	out->last_winner = n > 0 ? s->tricks[round][n - 1] >> 4 : -1;
	out->has_losers = 1;
	if (out->scored) {
		out->losers = s->losers[round];
		for (int seat = 0; seat < s->nseats; seat++)
			out->points[seat] = s->points[round][seat];
	}
	return 0;
}

/* A hand's codes, lowest first; returns how many. */
static int
hand_codes(const uint8_t *count, char (*out)[4])
{
	int n = 0;

	for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
		for (int c = 0; c < count[face]; c++)
			birdhead_format_card(face, out[n++], 4);
	return n;
}

/* The same hand as a JSON list of codes. */
static json_t *
hand_json(const uint8_t *count)
{
	char codes[GAME_MAX_HAND][4];
	json_t *list = json_array();
	int n = hand_codes(count, codes);

	for (int i = 0; i < n; i++)
		json_array_append_new(list, json_string(codes[i]));
	return list;
}

static void
birdhead_brief(const void *state, int seat, struct game_brief *b)
{
	const struct birdhead_state *s = state;
	const struct birdhead_round *r = &s->r;

	memset(b, 0, sizeof(*b));
	b->round = s->round + 1;
	b->cards = s->cards;
	b->trick = r->trick_len;
	b->leader = r->leader;
	/* As the view: the last cards, public once the round has ended. */
	if (s->round >= 0 && r->phase != PHASE_PLAY) {
		b->nrevealed = s->nseats;
		for (int other = 0; other < s->nseats; other++)
			birdhead_format_card(r->revealed[other],
			    b->revealed[other], sizeof(b->revealed[other]));
	}
	if (r->trick_len > 0) {
		b->nstandard = r->width;
		for (int i = 0; i < r->width; i++)
			birdhead_format_card(r->standard[i], b->standard[i],
			    sizeof(b->standard[i]));
	}
	for (int other = 0; other < s->nseats; other++) {
		for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
			b->held[other] += r->count[other][face];
		b->score[other] = s->total[other];
	}
	if (seat < 0 || seat >= s->nseats)
		return;
	b->nhand = hand_codes(r->count[seat], b->hand);
}

static json_t *
birdhead_view(const void *state, int seat)
{
	const struct birdhead_state *s = state;
	const struct birdhead_round *r = &s->r;
	json_t *view = json_object();
	json_t *trick = json_array();
	json_t *counts = json_array();
	json_t *scores = json_array();
	json_t *to_act = json_array();
	json_t *revealed;
	int acting[GAME_MAX_SEATS];
	int nacting = birdhead_to_act(s, acting);

	json_object_set_new(view, "game", json_string("birdhead"));
	json_object_set_new(view, "phase", json_string(game_phase_name(r->phase)));
	json_object_set_new(view, "round", json_integer(s->round + 1));
	json_object_set_new(view, "cards", json_integer(s->cards));
	for (int i = 0; i < nacting; i++)
		json_array_append_new(to_act, json_integer(acting[i]));
	json_object_set_new(view, "to_act", to_act);
	json_object_set_new(view, "leader", json_integer(r->leader));
	for (int i = 0; i < r->trick_len; i++)
		json_array_append_new(trick, json_pack("{s:i, s:o}", "seat",
		    r->trick_seat[i], "cards",
		    cards_json(r->trick_cards[i], r->width)));
	json_object_set_new(view, "trick", trick);
	/* The standard to meet; none between tricks. */
	json_object_set_new(view, "standard", r->trick_len > 0 ?
	    cards_json(r->standard, r->width) : json_null());
	/* The last cards, public once the round has ended. */
	if (s->round >= 0 && r->phase != PHASE_PLAY) {
		revealed = json_array();
		for (int other = 0; other < s->nseats; other++)
			json_array_append_new(revealed,
			    card_json(r->revealed[other]));
	} else {
		revealed = json_null();
	}
	json_object_set_new(view, "revealed", revealed);
	for (int other = 0; other < s->nseats; other++) {
		int held = 0;

		for (int face = BIRDHEAD_LOW; face <= BIRDHEAD_HIGH; face++)
			held += r->count[other][face];
		json_array_append_new(counts, json_integer(held));
		json_array_append_new(scores, json_integer(s->total[other]));
	}
	json_object_set_new(view, "hand_counts", counts);
	json_object_set_new(view, "scores", scores);
	if (seat >= 0 && seat < s->nseats) {
		json_object_set_new(view, "seat", json_integer(seat));
		json_object_set_new(view, "hand", hand_json(r->count[seat]));
	}
	return view;
}

const struct game_impl birdhead_game = {
	.name = "birdhead",
	.min_seats = 3,
	.max_seats = 6,
	.max_play_cards = 3,
	.lower_score_wins = 1,
	.options = birdhead_options,
	.state_size = sizeof(struct birdhead_state),
	.validate_options = birdhead_validate_options,
	.check_options = birdhead_check_options,
	.init = birdhead_init,
	.check_deal = birdhead_check_deal,
	.make_deal = birdhead_make_deal,
	.start_round = birdhead_start_round,
	.apply = birdhead_apply,
	.phase = birdhead_phase,
	.to_act = birdhead_to_act,
	.legal = birdhead_legal,
	.round = birdhead_round_index,
	.parse_card = birdhead_parse_card,
	.format_card = birdhead_format_card,
	.result = birdhead_result,
	.view = birdhead_view,
	.brief = birdhead_brief,
	.round_result = birdhead_round_result,
};

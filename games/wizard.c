/*
 * wizard.c - Wizard, exactly as RULES.md section 1, with every option.
 *
 * Hands are 64-bit masks over card ids: 0..51 are the suited cards
 * (suit * 13 + rank - 1), 52..55 the four Wizards and 56..59 the four
 * Jesters.  Faces (what a player names) are the same for suited cards, 52
 * for any Wizard and 53 for any Jester.  The masks make legal-move
 * generation a couple of AND operations, which is what lets computer players
 * simulate thousands of games per decision.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bits.h"
#include "game.h"
#include "rng.h"
#include "wizard.h"
#include "wizard_impl.h"

static const char suit_letters[] = "rygb";
static const char *const suit_names[] = { "red", "yellow", "green", "blue" };

static const struct game_option_desc wizard_options[] = {
	[WIZARD_OPT_NOTEQUAL] = { "notequal", 0, 1, 1,
	    "The dealer may not make the bids add up to the cards dealt." },
	[WIZARD_OPT_EVENBID] = { "evenbid", 0, 1, 1,
	    "As notequal, but only while the dealer leads alone." },
	[WIZARD_OPT_CANADIAN] = { "canadian", 0, 1, 1,
	    "As evenbid, but the dealer may always bid 0." },
	[WIZARD_OPT_HARDCORE] = { "hardcore", 0, 1, 1,
	    "From 4 cards on, the dealer may never make the bids add up." },
	[WIZARD_OPT_HIDDENTIP] = { "hiddentip", 0, 1, 1,
	    "Everybody bids at once by private message." },
	[WIZARD_OPT_SECRET] = { "secret", 0, 1, 1,
	    "Bids are made at once and stay hidden until the round ends." },
	[WIZARD_OPT_QUICK] = { "quick", 0, 1, 1,
	    "Hand sizes grow by two each round." },
	[WIZARD_OPT_ROUNDS] = { "rounds", 1, WIZARD_MAX_ROUNDS, -1,
	    "Play only the first N rounds." },
	[WIZARD_OPT_AMIGO] = { "amigo", 0, 1, 1,
	    "The Amigo tournament schedule of 10 rounds (3-5 players)." },
	[WIZARD_OPT_CUSTOM6] = { "custom6", 0, 1, 1,
	    "A short schedule of six rounds." },
	[WIZARD_OPT_NANNIE] = { "nannie", 2, 3, 3,
	    "Hands shrink each round; the last player leaves every K rounds." },
	[WIZARD_OPT_JESTERBID] = { "jesterbid", 0, 1, 1,
	    "No bidding: take no tricks; Jesters win tricks." },
	[WIZARD_OPT_CLAIRVOYANCE] = { "clairvoyance", 0, 1, 1,
	    "Round 1: see everyone's card but your own." },
	[WIZARD_NOPTIONS] = { NULL, 0, 0, 0, NULL },
};

#define WIZARD_MASK WIZARD_WIZARD_MASK
#define JESTER_MASK WIZARD_JESTER_MASK
#define SPECIAL_MASK WIZARD_SPECIAL_MASK

static inline int
lowest_id(uint64_t mask)
{
	return bits_lowest64(mask);
}

static int
wizard_parse_card(const char *code)
{
	const char *p;
	int rank = 0;

	if (code == NULL || code[0] == '\0')
		return -1;
	if (code[1] == '\0') {
		switch (code[0]) {
		case 'w': case 'W': case 'z': case 'Z':
			return WIZARD_FACE_WIZARD;
		case 'j': case 'J': case 'n': case 'N':
			return WIZARD_FACE_JESTER;
		}
		return -1;
	}
	p = strchr(suit_letters, code[0] | 0x20);
	if (p == NULL || code[0] == '\0')
		return -1;
	/* One or two digits, no leading zero, 1..13. */
	if (code[1] < '1' || code[1] > '9')
		return -1;
	rank = code[1] - '0';
	if (code[2] != '\0') {
		if (code[2] < '0' || code[2] > '9' || code[3] != '\0')
			return -1;
		rank = rank * 10 + (code[2] - '0');
	}
	if (rank < 1 || rank > 13)
		return -1;
	return (int)(p - suit_letters) * 13 + rank - 1;
}

static void
wizard_format_card(int face, char *buf, size_t len)
{
	if (face == WIZARD_FACE_WIZARD)
		snprintf(buf, len, "W");
	else if (face == WIZARD_FACE_JESTER)
		snprintf(buf, len, "J");
	else if (face >= 0 && face < 52)
		snprintf(buf, len, "%c%d", suit_letters[face / 13],
		    face % 13 + 1);
	else
		snprintf(buf, len, "?");
}

/*
 * The schedule: how many cards each round deals.  Returns the number of
 * rounds, or -1 with a reason when the options do not fit nseats.
 */
static int
schedule_why(const struct game_options *o, int nseats, uint8_t *cards,
    struct game_refusal *why)
{
	static const uint8_t amigo4[] = { 1, 3, 5, 7, 9, 11, 12, 13, 14, 15 };
	static const uint8_t amigo5[] = { 2, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const uint8_t custom6[4][6] = {
		{ 1, 2, 4, 11, 16, 20 },
		{ 1, 2, 3, 9, 13, 15 },
		{ 1, 2, 3, 8, 10, 12 },
		{ 1, 2, 3, 7, 9, 10 },
	};
	const int *v = o->value;
	int max, n = 0;

	/* Callers checked the count; the bound keeps max within cards. */
	if (nseats < 3 || nseats > 6)
		return game_refuse(why, GAME_REFUSAL_OTHER, NULL, NULL, 0, 0,
		    0, "Wizard is for 3 to 6 players, not %d.", nseats);
	max = 60 / nseats;
	if (v[WIZARD_OPT_QUICK]) {
		for (int k = nseats == 4 ? 1 : 2; k <= max; k += 2)
			cards[n++] = (uint8_t)k;
	} else if (v[WIZARD_OPT_AMIGO]) {
		if (nseats == 3) {
			for (int k = 2; k <= 20; k += 2)
				cards[n++] = (uint8_t)k;
		} else if (nseats == 4 || nseats == 5) {
			memcpy(cards, nseats == 4 ? amigo4 : amigo5, 10);
			n = 10;
		} else {
			return game_refuse(why, WIZARD_REFUSAL_PLAYERS,
			    "amigo", NULL, 3, 5, nseats,
			    "Option amigo is for 3 to 5 players, not %d.",
			    nseats);
		}
	} else if (v[WIZARD_OPT_CUSTOM6]) {
		memcpy(cards, custom6[nseats - 3], 6);
		n = 6;
	} else if (v[WIZARD_OPT_NANNIE]) {
		for (int k = max; k >= 1; k--)
			cards[n++] = (uint8_t)k;
	} else {
		for (int k = 1; k <= max; k++)
			cards[n++] = (uint8_t)k;
	}
	if (v[WIZARD_OPT_ROUNDS]) {
		if (v[WIZARD_OPT_ROUNDS] > n)
			return game_refuse(why, WIZARD_REFUSAL_TOO_LONG,
			    "rounds", NULL, v[WIZARD_OPT_ROUNDS], n, 0,
			    "Option rounds=%d is longer than the game's %d "
			    "rounds.", v[WIZARD_OPT_ROUNDS], n);
		n = v[WIZARD_OPT_ROUNDS];
	}
	return n;
}

int
wizard_schedule(const struct game_options *o, int nseats, uint8_t *cards,
    char *err, size_t errlen)
{
	struct game_refusal why;
	int n = schedule_why(o, nseats, cards, &why);

	if (n < 0)
		return game_error(err, errlen, "%s", why.text);
	return n;
}

/* The reasons come in numbers, for the reader's language (game.h). */
static int
wizard_check_options(const struct game_options *o, int nseats,
    struct game_refusal *why)
{
	static const int restrictions[] = { WIZARD_OPT_NOTEQUAL,
	    WIZARD_OPT_EVENBID, WIZARD_OPT_CANADIAN, WIZARD_OPT_HARDCORE };
	static const int schedules[] = { WIZARD_OPT_QUICK, WIZARD_OPT_AMIGO,
	    WIZARD_OPT_CUSTOM6, WIZARD_OPT_NANNIE };
	const int *v = o->value;
	int restriction = -1, simultaneous = -1, schedule = -1;
	uint8_t cards[WIZARD_MAX_ROUNDS];

	for (size_t i = 0; i < 4; i++) {
		if (!v[restrictions[i]])
			continue;
		if (restriction >= 0)
			return game_refuse(why, GAME_REFUSAL_COMBINED,
			    wizard_options[restriction].name,
			    wizard_options[restrictions[i]].name, 0, 0, 0,
			    "Options %s and %s cannot be combined.",
			    wizard_options[restriction].name,
			    wizard_options[restrictions[i]].name);
		restriction = restrictions[i];
	}
	if (v[WIZARD_OPT_HIDDENTIP] && v[WIZARD_OPT_SECRET])
		return game_refuse(why, GAME_REFUSAL_COMBINED, "hiddentip",
		    "secret", 0, 0, 0,
		    "Options hiddentip and secret cannot be combined.");
	if (v[WIZARD_OPT_HIDDENTIP])
		simultaneous = WIZARD_OPT_HIDDENTIP;
	if (v[WIZARD_OPT_SECRET])
		simultaneous = WIZARD_OPT_SECRET;
	if (simultaneous >= 0 && restriction >= 0)
		return game_refuse(why, WIZARD_REFUSAL_AT_ONCE,
		    wizard_options[simultaneous].name,
		    wizard_options[restriction].name, 0, 0, 0,
		    "Option %s cannot be combined with %s: bids are made at "
		    "once.", wizard_options[simultaneous].name,
		    wizard_options[restriction].name);
	if (v[WIZARD_OPT_JESTERBID] && (restriction >= 0 || simultaneous >= 0))
		return game_refuse(why, WIZARD_REFUSAL_NO_BIDDING,
		    "jesterbid", wizard_options[restriction >= 0 ?
		    restriction : simultaneous].name, 0, 0, 0,
		    "Option jesterbid cannot be combined with %s: there is no "
		    "bidding.", wizard_options[restriction >= 0 ?
		    restriction : simultaneous].name);
	for (size_t i = 0; i < 4; i++) {
		if (!v[schedules[i]])
			continue;
		if (schedule >= 0)
			return game_refuse(why, WIZARD_REFUSAL_BOTH_ROUNDS,
			    wizard_options[schedule].name,
			    wizard_options[schedules[i]].name, 0, 0, 0,
			    "Options %s and %s cannot be combined: both set "
			    "the rounds.", wizard_options[schedule].name,
			    wizard_options[schedules[i]].name);
		schedule = schedules[i];
	}
	if (nseats == 0) {
		/* Without a seat count, check what does not depend on it. */
		if (v[WIZARD_OPT_CLAIRVOYANCE] && v[WIZARD_OPT_NANNIE])
			return game_refuse(why, WIZARD_REFUSAL_STARTS_HIGH,
			    "clairvoyance", "nannie", 0, 0, 0,
			    "Option clairvoyance needs a first round of one "
			    "card; nannie starts high.");
		return 0;
	}
	if (schedule_why(o, nseats, cards, why) < 0)
		return -1;
	if (v[WIZARD_OPT_CLAIRVOYANCE] && cards[0] != 1)
		return game_refuse(why, WIZARD_REFUSAL_FIRST_ROUND,
		    "clairvoyance", NULL, cards[0], 0, 0,
		    "Option clairvoyance needs a first round of one card; "
		    "this schedule starts with %d.", cards[0]);
	return 0;
}

static int
wizard_validate_options(const struct game_options *o, int nseats, char *err,
    size_t errlen)
{
	struct game_refusal why;

	if (wizard_check_options(o, nseats, &why) == 0)
		return 0;
	return game_error(err, errlen, "%s", why.text);
}

static void
wizard_init(void *state, const struct game_setup *setup)
{
	struct wizard_state *s = state;
	const int *v = setup->options.value;

	memset(s, 0, sizeof(*s));
	s->nseats = (uint8_t)setup->nseats;
	s->first = (uint8_t)setup->first;
	s->nrounds = (uint8_t)wizard_schedule(&setup->options, setup->nseats,
	    s->schedule, NULL, 0);
	s->active = (uint8_t)((1u << setup->nseats) - 1);
	s->nactive = (uint8_t)setup->nseats;
	wizard_seat_ring(s);
	s->round = -1;
	if (v[WIZARD_OPT_NOTEQUAL])
		s->restriction = WIZARD_OPT_NOTEQUAL;
	else if (v[WIZARD_OPT_EVENBID])
		s->restriction = WIZARD_OPT_EVENBID;
	else if (v[WIZARD_OPT_CANADIAN])
		s->restriction = WIZARD_OPT_CANADIAN;
	else if (v[WIZARD_OPT_HARDCORE])
		s->restriction = WIZARD_OPT_HARDCORE;
	else
		s->restriction = -1;
	s->simultaneous = v[WIZARD_OPT_HIDDENTIP] || v[WIZARD_OPT_SECRET];
	s->secret = v[WIZARD_OPT_SECRET] != 0;
	s->jesterbid = v[WIZARD_OPT_JESTERBID] != 0;
	s->clairvoyance = v[WIZARD_OPT_CLAIRVOYANCE] != 0;
	s->nannie = (uint8_t)v[WIZARD_OPT_NANNIE];
	s->r.phase = PHASE_DEAL;
}

static int
wizard_check_deal(const struct game_setup *setup, int round,
    const struct deal *deal, char *err, size_t errlen)
{
	uint8_t schedule[WIZARD_MAX_ROUNDS];
	int nrounds = wizard_schedule(&setup->options, setup->nseats,
	    schedule, NULL, 0);
	int wizards = 0, jesters = 0, dealt = 0, holders = 0;
	uint64_t seen = 0;

	if (round >= nrounds)
		return game_error(err, errlen,
		    "The game has only %d rounds.", nrounds);
	for (int seat = 0; seat < setup->nseats; seat++) {
		int count = deal->count[seat];

		/* Under nannie a seat may be out, but not in round 1. */
		if (count != schedule[round] && !(count == 0 && round > 0 &&
		    setup->options.value[WIZARD_OPT_NANNIE]))
			return game_error(err, errlen, round > 0 &&
			    setup->options.value[WIZARD_OPT_NANNIE] ?
			    "Seat %d holds %d card%s instead of %d (or none, "
			    "out of the game)." :
			    "Seat %d holds %d card%s instead of %d.", seat,
			    count, count == 1 ? "" : "s", schedule[round]);
		if (count > 0)
			holders++;
		dealt += count;
		for (int i = 0; i < count; i++) {
			int face = deal->cards[seat][i];

			if (face == WIZARD_FACE_WIZARD)
				wizards++;
			else if (face == WIZARD_FACE_JESTER)
				jesters++;
			else if (seen & (UINT64_C(1) << face))
				return game_error(err, errlen,
				    "A card is dealt twice.");
			else
				seen |= UINT64_C(1) << face;
		}
	}
	if (holders < 2)
		return game_error(err, errlen,
		    "At least two seats must hold cards.");
	/*
	 * RECORD.md: turned is null or absent only when no card is left; the
	 * bot always turns one up then (RULES.md: trump comes from it).
	 */
	if (deal->turned < 0 && dealt < 60)
		return game_error(err, errlen,
		    "The turned card is missing: cards are left after "
		    "dealing.");
	if (deal->turned >= 0) {
		int face = deal->turned;

		if (dealt == 60)
			return game_error(err, errlen,
			    "No card is left to turn up.");
		if (face == WIZARD_FACE_WIZARD)
			wizards++;
		else if (face == WIZARD_FACE_JESTER)
			jesters++;
		else if (seen & (UINT64_C(1) << face))
			return game_error(err, errlen,
			    "The turned card is also in a hand.");
	}
	if (wizards > 4 || jesters > 4)
		return game_error(err, errlen,
		    "The deal holds more than four %s.",
		    wizards > 4 ? "Wizards" : "Jesters");
	return 0;
}

/*
 * Version 1 shuffles all 60 cards and deals from the bottom of the deck;
 * version 2 draws only the cards it deals and the one it turns
 * (rng_shuffle_tail()), which leaves them at the top in the order drawn.
 * Either way the seats in order take their cards, then one is turned.
 */
static void
wizard_make_deal_version(const void *state, int version, struct rng *rng,
    struct deal *out)
{
	const struct wizard_state *s = state;
	int round = s->round + 1;
	int cards = s->schedule[round];
	int dealt = s->nactive * cards;
	int top = version >= 2, k = 0;
	uint8_t deck[60];

	for (int i = 0; i < 60; i++)
		deck[i] = (uint8_t)wizard_card_face(i);
	if (top)
		rng_shuffle_tail(rng, deck, 60, (size_t)dealt + 1);
	else
		rng_shuffle(rng, deck, 60);
	memset(out, 0, sizeof(*out));
	for (int seat = 0; seat < s->nseats; seat++) {
		if (!(s->active & (1u << seat)))
			continue;
		out->count[seat] = (uint8_t)cards;
		for (int i = 0; i < cards; i++, k++)
			out->cards[seat][i] = deck[top ? 59 - k : k];
	}
	out->turned = k < 60 ? deck[top ? 59 - k : k] : -1;
}

static void
wizard_make_deal(const void *state, struct rng *rng, struct deal *out)
{
	wizard_make_deal_version(state, 1, rng, out);
}

static int
wizard_start_round(void *state, const struct deal *deal, char *err,
    size_t errlen)
{
	struct wizard_state *s = state;
	uint64_t hands[GAME_MAX_SEATS];
	int wizard_next = 52, jester_next = 56;
	int dealt = 0;

	for (int seat = 0; seat < s->nseats; seat++) {
		int in = (s->active >> seat) & 1;

		if (in != (deal->count[seat] > 0))
			return game_error(err, errlen, in ?
			    "Seat %d is in the game but was dealt no cards." :
			    "Seat %d was eliminated but was dealt cards.",
			    seat);
		dealt += deal->count[seat];
	}
	for (int seat = 0; seat < s->nseats; seat++) {
		hands[seat] = 0;
		for (int i = 0; i < deal->count[seat]; i++) {
			int face = deal->cards[seat][i];
			int id = face == WIZARD_FACE_WIZARD ? wizard_next++ :
			    face == WIZARD_FACE_JESTER ? jester_next++ : face;

			hands[seat] |= UINT64_C(1) << id;
		}
	}
	wizard_begin_round(s, hands, dealt < 60 ? deal->turned : -1);
	return 0;
}

static int
apply_bid(struct wizard_state *s, const struct action *a, char *err,
    size_t errlen)
{
	struct wizard_round *r = &s->r;
	int seat = a->seat;

	if (r->phase == PHASE_BID) {
		if (seat != r->turn)
			return game_error(err, errlen,
			    "It is seat %d's turn to bid, not seat %d's.",
			    r->turn, seat);
	} else if (r->phase == PHASE_BID_SIMULTANEOUS) {
		if (!(s->active & (1u << seat)))
			return game_error(err, errlen,
			    "Seat %d is out of the game.", seat);
		if (r->bid[seat] >= 0)
			return game_error(err, errlen,
			    "Seat %d has already bid.", seat);
	} else if (r->phase == PHASE_TRUMP) {
		return game_error(err, errlen,
		    "The dealer (seat %d) must choose trump first.", r->dealer);
	} else {
		return game_error(err, errlen, "Bidding is not open now.");
	}
	if (a->value < 0 || a->value > r->cards)
		return game_error(err, errlen, "A bid must be 0 to %d.",
		    r->cards);
	if (r->phase == PHASE_BID && a->value == wizard_forbidden_bid(s, seat))
		return game_error(err, errlen,
		    "The dealer may not bid %d: the bids would add up to %d "
		    "(%s).", a->value, r->cards,
		    wizard_options[s->restriction].name);
	wizard_bid(s, seat, a->value);
	return 0;
}

/*
 * Every action but a legal play: the full checks, in the order their
 * messages need.  Out of line, so that the play step's caller needs no
 * stack frame for them.
 */
static __attribute__((noinline)) int
apply_checked(struct wizard_state *s, const struct action *a, char *err,
    size_t errlen)
{
	struct wizard_round *r = &s->r;
	uint64_t ids;
	char code[8];

	if (a->seat < 0 || a->seat >= s->nseats)
		return game_error(err, errlen, "There is no seat %d.", a->seat);
	if (r->phase == PHASE_OVER)
		return game_error(err, errlen, "The game is over.");
	switch (a->kind) {
	case ACTION_TRUMP:
		if (r->phase != PHASE_TRUMP)
			return game_error(err, errlen,
			    "Trump is chosen only after a Wizard is turned "
			    "up.");
		if (a->seat != r->dealer)
			return game_error(err, errlen,
			    "Only the dealer (seat %d) chooses trump.",
			    r->dealer);
		if (a->value < 0 || a->value > 3)
			return game_error(err, errlen,
			    "Trump must be one of r, y, g or b.");
		wizard_set_trump(s, a->value);
		return 0;
	case ACTION_BID:
		if (s->jesterbid)
			return game_error(err, errlen,
			    "There is no bidding with jesterbid.");
		return apply_bid(s, a, err, errlen);
	case ACTION_PLAY:
		if (r->phase == PHASE_TRUMP)
			return game_error(err, errlen,
			    "The dealer (seat %d) must choose trump first.",
			    r->dealer);
		if (r->phase != PHASE_PLAY)
			return game_error(err, errlen,
			    "Cards are not played now.");
		if (a->seat != r->turn)
			return game_error(err, errlen,
			    "It is seat %d's turn to play, not seat %d's.",
			    r->turn, a->seat);
		if (a->ncards != 1 || a->cards[0] > WIZARD_FACE_JESTER)
			return game_error(err, errlen, "Play one card.");
		ids = r->hand[a->seat] & wizard_face_ids(a->cards[0]);
		if (ids == 0) {
			wizard_format_card(a->cards[0], code, sizeof(code));
			return game_error(err, errlen,
			    "Seat %d does not hold %s.", a->seat, code);
		}
		ids &= wizard_playable(s, a->seat);
		if (ids == 0)
			return game_error(err, errlen,
			    "Seat %d must follow %s.", a->seat,
			    suit_names[r->lead_suit]);
		wizard_play_id(s, a->seat, lowest_id(ids));
		return 0;
	default:
		return game_error(err, errlen, "Wizard has no such action.");
	}
}

static int
wizard_apply(void *state, const struct action *a, char *err, size_t errlen)
{
	struct wizard_state *s = state;
	/* A legal play, the common case, goes straight to the play step. */
	int id = wizard_play_move(s, a);

	if (id < 0)
		return apply_checked(s, a, err, errlen);
	wizard_play_id(s, a->seat, id);
	return 0;
}

static enum game_phase
wizard_phase(const void *state)
{
	return ((const struct wizard_state *)state)->r.phase;
}

static int
wizard_round_index(const void *state)
{
	return ((const struct wizard_state *)state)->round;
}

static int
wizard_to_act(const void *state, int *seats)
{
	const struct wizard_state *s = state;
	const struct wizard_round *r = &s->r;
	int n = 0;

	switch (r->phase) {
	case PHASE_TRUMP:
	case PHASE_BID:
	case PHASE_PLAY:
		seats[n++] = r->turn;
		break;
	case PHASE_BID_SIMULTANEOUS:
		for (int seat = 0; seat < s->nseats; seat++)
			if ((s->active & (1u << seat)) && r->bid[seat] < 0)
				seats[n++] = seat;
		break;
	default:
		break;
	}
	return n;
}

int
wizard_legal_faces(const struct wizard_state *s, int seat, uint8_t *faces)
{
	int n = 0;

	for (uint64_t ids = wizard_distinct(wizard_playable(s, seat)); ids;
	    ids &= ids - 1)
		faces[n++] = (uint8_t)wizard_card_face(lowest_id(ids));
	return n;
}

/*
 * Writes an action as two overlapping 32-bit words: bytes 0-3 (seat,
 * kind, ncards, value) and bytes 3-6 (value, then the three cards), given
 * as numbers whose lowest byte comes first.  Byte stores from a struct
 * assembled on the stack and copied out stall on store forwarding, which
 * cost more than the rest of legal() together.
 */
_Static_assert(sizeof(struct action) == 7 &&
    offsetof(struct action, seat) == 0 && offsetof(struct action, kind) == 1 &&
    offsetof(struct action, ncards) == 2 &&
    offsetof(struct action, value) == 3 &&
    offsetof(struct action, cards) == 4, "the layout put_action() writes");

static inline void
put_action(struct action *out, uint32_t head, uint32_t tail)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	head = __builtin_bswap32(head);
	tail = __builtin_bswap32(tail);
#endif
	memcpy(out, &head, sizeof(head));
	memcpy((unsigned char *)out + 3, &tail, sizeof(tail));
}

/*
 * The moves of mask as the actions of seat, the k-th move in the k-th
 * action, at most max of them: a card's face for plays, the value
 * otherwise.
 */
static int
put_moves(struct action *out, int max, int seat, int kind, uint64_t moves)
{
	uint32_t head = (uint8_t)seat | (uint32_t)kind << 8;
	int n = 0;

	/* Beyond max actions, the moves are cut off first (rarely). */
	if (max < 64) {
		uint64_t rest = moves;

		for (int i = 0; i < max && rest != 0; i++)
			rest &= rest - 1;
		moves ^= rest;
	}
	if (kind == ACTION_PLAY) {
		uint64_t suited = moves & ~WIZARD_SPECIAL_MASK;

		/*
		 * A suited card's id is its face.  Of the Wizards and the
		 * Jesters, the mask holds one id each, and they come last.
		 */
		head |= 1u << 16;
		for (; suited; suited &= suited - 1)
			put_action(&out[n++], head,
			    (uint32_t)lowest_id(suited) << 8);
		if (moves & WIZARD_WIZARD_MASK)
			put_action(&out[n++], head,
			    (uint32_t)WIZARD_FACE_WIZARD << 8);
		if (moves & WIZARD_JESTER_MASK)
			put_action(&out[n++], head,
			    (uint32_t)WIZARD_FACE_JESTER << 8);
	} else {
		for (; moves; moves &= moves - 1) {
			uint32_t value = (uint32_t)lowest_id(moves);

			put_action(&out[n++], head | value << 24, value);
		}
	}
	return n;
}

static int
wizard_legal(const void *state, int seat, struct action *out, int max)
{
	const struct wizard_state *s = state;
	const struct wizard_round *r = &s->r;

	/* The moves of the mask path, in its order, as actions. */
	switch (r->phase) {
	case PHASE_PLAY:
		/* Plays, nine actions in ten, skip the call for the mask. */
		if (seat != r->turn)
			return 0;
		return put_moves(out, max, seat, ACTION_PLAY,
		    wizard_distinct(wizard_playable(s, seat)));
	case PHASE_TRUMP:
	case PHASE_BID:
	case PHASE_BID_SIMULTANEOUS:
		return put_moves(out, max, seat, r->phase == PHASE_TRUMP ?
		    ACTION_TRUMP : ACTION_BID, wizard_legal_mask(s, seat));
	default:
		return 0;
	}
}

static json_t *
card_json(int face)
{
	char code[8];

	if (face < 0)
		return json_null();
	wizard_format_card(face, code, sizeof(code));
	return json_string(code);
}

static json_t *
seat_ints(const struct wizard_state *s, const int8_t *values, int nullable)
{
	json_t *list = json_array();

	for (int seat = 0; seat < s->nseats; seat++)
		json_array_append_new(list, nullable && values[seat] < 0 ?
		    json_null() : json_integer(values[seat]));
	return list;
}

static json_t *
wizard_result(const void *state)
{
	const struct wizard_state *s = state;
	json_t *rounds = json_array();
	json_t *scores = json_array();
	json_t *winners;
	int over = s->r.phase == PHASE_OVER;

	for (int round = 0; round <= s->round; round++) {
		int scored = round < s->scored;
		int ntricks = scored ? s->schedule[round] : s->r.trick_no;
		json_t *tricks = json_array();
		json_t *points;
		int8_t won[GAME_MAX_SEATS];

		for (int t = 0; t < ntricks; t++)
			json_array_append_new(tricks, json_pack(
			    "{s:i, s:i}", "leader", s->tricks[round][t] & 15,
			    "winner", s->tricks[round][t] >> 4));
		for (int seat = 0; seat < s->nseats; seat++)
			won[seat] = (int8_t)(scored ? s->won[round][seat] :
			    s->r.won[seat]);
		if (scored) {
			points = json_array();
			for (int seat = 0; seat < s->nseats; seat++)
				json_array_append_new(points, json_integer(
				    s->points[round][seat]));
		} else {
			points = json_null();
		}
		json_array_append_new(rounds, json_pack(
		    "{s:o, s:o, s:o, s:o}", "tricks", tricks,
		    "bids", seat_ints(s, scored ? s->bids[round] : s->r.bid, 1),
		    "won", seat_ints(s, won, 0), "points", points));
	}
	for (int seat = 0; seat < s->nseats; seat++)
		json_array_append_new(scores, json_integer(s->total[seat]));
	/* Seats eliminated under nannie cannot win. */
	winners = over ? game_winners(s->total, s->nseats, s->active, 0) :
	    json_array();
	return json_pack("{s:s, s:o, s:o, s:b, s:o}", "game", "wizard",
	    "rounds", rounds, "scores", scores, "finished", over,
	    "winners", winners);
}

static int
wizard_round_result(const void *state, int round, struct game_round *out)
{
	const struct wizard_state *s = state;
	int scored, ntricks;
	const int8_t *bids;

	if (round < 0 || round > s->round)
		return -1;
	memset(out, 0, sizeof(*out));
	scored = round < s->scored;
	ntricks = scored ? s->schedule[round] : s->r.trick_no;
	bids = scored ? s->bids[round] : s->r.bid;
	out->scored = scored;
	out->ntricks = ntricks;
	out->last_winner = ntricks > 0 ? s->tricks[round][ntricks - 1] >> 4 :
	    -1;
	for (int seat = 0; seat < s->nseats; seat++) {
		if (bids[seat] >= 0) {
			out->bid_set |= 1u << seat;
			out->bid[seat] = bids[seat];
		}
		out->won[seat] = scored ? s->won[round][seat] :
		    s->r.won[seat];
		if (scored)
			out->points[seat] = s->points[round][seat];
	}
	return 0;
}

/*
 * A sorted hand's codes: suits in r y g b order, then W, J; returns how
 * many (a hand holds at most GAME_MAX_HAND cards).
 */
static int
hand_codes(uint64_t hand, char (*out)[4])
{
	int n = 0;

	for (uint64_t m = hand & ~SPECIAL_MASK; m; m &= m - 1)
		wizard_format_card(lowest_id(m), out[n++], 4);
	for (int i = 0; i < bits_count64(hand & WIZARD_MASK); i++)
		wizard_format_card(WIZARD_FACE_WIZARD, out[n++], 4);
	for (int i = 0; i < bits_count64(hand & JESTER_MASK); i++)
		wizard_format_card(WIZARD_FACE_JESTER, out[n++], 4);
	return n;
}

/* The same hand as a JSON list of codes. */
static json_t *
hand_json(uint64_t hand)
{
	char codes[GAME_MAX_HAND][4];
	json_t *list = json_array();
	int n = hand_codes(hand, codes);

	for (int i = 0; i < n; i++)
		json_array_append_new(list, json_string(codes[i]));
	return list;
}

/*
 * Whether seat may see the bid of other in the current round: the one
 * statement of the hidden-bid rule (views and computer players ask it).
 */
int
wizard_bid_visible(const struct wizard_state *s, int seat, int other)
{
	const struct wizard_round *r = &s->r;

	if (seat == other || !s->simultaneous)
		return 1;
	if (r->phase == PHASE_BID_SIMULTANEOUS || r->phase == PHASE_TRUMP)
		return 0;
	if (s->secret)
		return r->phase == PHASE_DEAL || r->phase == PHASE_OVER;
	return 1;
}

/* Clairvoyance's first round, dealt and not over: nobody sees their hand. */
static int
clairvoyance_round(const struct wizard_state *s)
{
	return s->clairvoyance && s->round == 0 && s->r.phase != PHASE_DEAL &&
	    s->r.phase != PHASE_OVER;
}

static json_t *
wizard_view(const void *state, int seat)
{
	const struct wizard_state *s = state;
	const struct wizard_round *r = &s->r;
	json_t *view = json_object();
	json_t *trick = json_array();
	json_t *bids = json_array();
	json_t *won = json_array();
	json_t *points = json_array();
	json_t *counts = json_array();
	json_t *scores = json_array();
	json_t *out = json_array();
	int acting[GAME_MAX_SEATS];
	int nacting = wizard_to_act(s, acting);
	json_t *to_act = json_array();
	int clairvoyant = clairvoyance_round(s);

	json_object_set_new(view, "game", json_string("wizard"));
	json_object_set_new(view, "phase", json_string(game_phase_name(r->phase)));
	json_object_set_new(view, "round", json_integer(s->round + 1));
	json_object_set_new(view, "rounds", json_integer(s->nrounds));
	json_object_set_new(view, "cards", json_integer(r->cards));
	json_object_set_new(view, "dealer", json_integer(r->dealer));
	json_object_set_new(view, "turned", card_json(r->turned));
	json_object_set_new(view, "trump", r->trump < 0 ? json_null() :
	    json_sprintf("%c", suit_letters[r->trump]));
	for (int i = 0; i < nacting; i++)
		json_array_append_new(to_act, json_integer(acting[i]));
	json_object_set_new(view, "to_act", to_act);
	json_object_set_new(view, "leader", json_integer(r->leader));
	for (int i = 0; i < r->trick_len; i++)
		json_array_append_new(trick, json_pack("{s:i, s:o}", "seat",
		    r->trick_seat[i], "card",
		    card_json(wizard_card_face(r->trick_card[i]))));
	json_object_set_new(view, "trick", trick);
	/*
	 * What the trick so far asks of the next card, as everyone sees it:
	 * a suit to follow, "any" after a led Wizard, null while nothing
	 * sets a lead (no card yet, or only Jesters).
	 */
	json_object_set_new(view, "lead", r->lead_suit >= 0 &&
	    r->lead_suit < 4 ? json_sprintf("%c", suit_letters[r->lead_suit]) :
	    r->lead_suit == 4 ? json_string("any") : json_null());
	for (int other = 0; other < s->nseats; other++) {
		int visible = r->bid[other] >= 0 &&
		    wizard_bid_visible(s, seat, other);

		json_array_append_new(bids, visible ?
		    json_integer(r->bid[other]) : json_null());
		/* The round's points if it ended now, where the bid shows. */
		json_array_append_new(points, visible &&
		    (s->active & (1u << other)) ? json_integer(
		    wizard_round_points(r->bid[other], r->won[other])) :
		    json_null());
		json_array_append_new(won, json_integer(r->won[other]));
		json_array_append_new(counts,
		    json_integer(bits_count64(r->hand[other])));
		json_array_append_new(scores, json_integer(s->total[other]));
		if (!(s->active & (1u << other)))
			json_array_append_new(out, json_integer(other));
	}
	json_object_set_new(view, "bids", bids);
	json_object_set_new(view, "won", won);
	json_object_set_new(view, "points", points);
	json_object_set_new(view, "hand_counts", counts);
	json_object_set_new(view, "scores", scores);
	json_object_set_new(view, "eliminated", out);
	if (seat >= 0 && seat < s->nseats) {
		json_object_set_new(view, "seat", json_integer(seat));
		if (clairvoyant) {
			json_t *others = json_object();

			for (int other = 0; other < s->nseats; other++) {
				char key[4];

				if (other == seat)
					continue;
				snprintf(key, sizeof(key), "%d", other);
				json_object_set_new(others, key,
				    hand_json(r->hand[other]));
			}
			json_object_set_new(view, "others", others);
			json_object_set_new(view, "hand", json_array());
		} else {
			json_object_set_new(view, "hand",
			    hand_json(r->hand[seat]));
		}
	}
	return view;
}

static void
wizard_brief(const void *state, int seat, struct game_brief *b)
{
	const struct wizard_state *s = state;
	const struct wizard_round *r = &s->r;

	memset(b, 0, sizeof(*b));
	b->round = s->round + 1;
	b->cards = r->cards;
	b->trick = r->trick_len;
	b->leader = r->leader;
	if (r->trump >= 0)
		b->trump[0] = suit_letters[r->trump];
	if (r->lead_suit >= 0 && r->lead_suit < 4)
		b->lead[0] = suit_letters[r->lead_suit];
	else if (r->lead_suit == 4)
		memcpy(b->lead, "any", 4);
	for (int other = 0; other < s->nseats; other++) {
		unsigned bit = 1u << other;

		if (r->bid[other] >= 0 && wizard_bid_visible(s, seat, other)) {
			b->bid_shown |= bit;
			b->bid[other] = r->bid[other];
			if (s->active & bit) {
				b->points_shown |= bit;
				b->points[other] = wizard_round_points(
				    r->bid[other], r->won[other]);
			}
		}
		b->won[other] = r->won[other];
		b->held[other] = bits_count64(r->hand[other]);
		b->score[other] = s->total[other];
		if (!(s->active & bit)) {
			b->eliminated |= bit;
			/* It bid in every round it played, and in no other. */
			for (int round = 0; round < s->scored; round++)
				b->played[other] += s->bids[round][other] >= 0;
		}
	}
	if (seat < 0 || seat >= s->nseats)
		return;
	if (!clairvoyance_round(s)) {
		b->nhand = hand_codes(r->hand[seat], b->hand);
		return;
	}
	for (int other = 0; other < s->nseats; other++) {
		if (other == seat)
			continue;
		b->others_shown |= 1u << other;
		b->nothers[other] = hand_codes(r->hand[other], b->others[other]);
	}
}

static uint64_t
mask_next(const void *state, int *seat)
{
	return wizard_next_moves(state, seat);
}

static uint64_t
mask_legal(const void *state, int seat)
{
	return wizard_legal_mask(state, seat);
}

static void
mask_apply(void *state, int seat, int move)
{
	wizard_apply_mask(state, seat, move);
}

static int
mask_action_move(const void *state, const struct action *a)
{
	return wizard_action_move(state, a);
}

static void
mask_move_action(const void *state, int seat, int move, struct action *out)
{
	wizard_move_action(state, seat, move, out);
}

static int
wizard_hand_hidden(const void *state, int seat)
{
	const struct wizard_state *s = state;

	return seat >= 0 && seat < s->nseats && clairvoyance_round(s);
}

static void
mask_deal(void *state, struct rng *rng)
{
	wizard_deal(state, rng);
}

static void
mask_deal_version(void *state, int version, struct rng *rng)
{
	wizard_deal_version(state, version, rng);
}

const struct game_impl wizard_game = {
	.name = "wizard",
	.min_seats = 3,
	.max_seats = 6,
	.max_play_cards = 1,
	.options = wizard_options,
	.state_size = sizeof(struct wizard_state),
	.validate_options = wizard_validate_options,
	.check_options = wizard_check_options,
	.init = wizard_init,
	.check_deal = wizard_check_deal,
	.make_deal = wizard_make_deal,
	.start_round = wizard_start_round,
	.apply = wizard_apply,
	.phase = wizard_phase,
	.to_act = wizard_to_act,
	.legal = wizard_legal,
	.round = wizard_round_index,
	.parse_card = wizard_parse_card,
	.format_card = wizard_format_card,
	.result = wizard_result,
	.view = wizard_view,
	.hand_hidden = wizard_hand_hidden,
	.brief = wizard_brief,
	.round_result = wizard_round_result,
	.legal_moves = mask_legal,
	.next_moves = mask_next,
	.apply_move = mask_apply,
	.action_move = mask_action_move,
	.move_action = mask_move_action,
	.deal = mask_deal,
	.make_deal_version = wizard_make_deal_version,
	.deal_version = mask_deal_version,
};

/*
 * wizard.c - how Wizard reads in a chat: coloured suits with Wizards and
 * Jesters, tricks won against bids in the standings and on the score
 * sheet, and the suit to follow named with each turn.
 */
#include <stdio.h>
#include <string.h>

#include "present.h"
#include "wizard.h"

static char
wizard_color(const char *code)
{
	if (code != NULL && strcmp(code, "W") == 0)
		return 'w';
	if (code != NULL && strcmp(code, "J") == 0)
		return 'j';
	return present_suit_color(code);
}

/*
 * " 30 (50) 1/1": the total, in brackets the total if the round ended
 * now (the engine's running points), and tricks won / bid; "?" for a bid
 * not shown.
 */
static void
wizard_standing(struct text *out, enum lang lang,
    const struct game_brief *brief, int seat)
{
	int score = brief->score[seat], won = brief->won[seat];
	unsigned bit = 1u << seat;

	(void)lang;
	if (!(brief->bid_shown & bit))
		text_printf(out, " %d %d/?", score, won);
	else if (brief->points_shown & bit)
		text_printf(out, " %d (%d) %d/%d", score,
		    score + brief->points[seat], won, brief->bid[seat]);
	else
		text_printf(out, " %d %d/%d", score, won, brief->bid[seat]);
}

/* "1/1 +30": tricks won / bid and the round's points; "-" without a bid. */
static int
wizard_sheet_cell(char *cell, size_t len, const struct game_round *round,
    int seat)
{
	if (!round->scored)
		return 0;
	if (!(round->bid_set & (1u << seat))) {
		snprintf(cell, len, "-");
		return 1;
	}
	snprintf(cell, len, "%d/%d %+d", round->won[seat], round->bid[seat],
	    round->points[seat]);
	return 1;
}

/* " · lead r" (follow red if you can), or " · any card" after a Wizard. */
static void
wizard_play_hint(struct text *out, enum lang lang,
    const struct game_brief *brief)
{
	const char *lead = brief->lead;

	if (lead[0] == '\0')
		return;
	text_add(out, " · ");
	if (strcmp(lead, "any") == 0) {
		SAY0(out, lang, MSG_HINT_WIZARD_LED);
	} else {
		struct text card;

		text_init(&card);
		text_card(&card, lead[0], lead);
		SAY(out, lang, MSG_HINT_LEAD, "r", text_str(&card));
		text_finish(&card);
	}
}

/*
 * Why a bid or a card is refused: a bid beyond the cards dealt, or a
 * card of another suit while the player holds the suit led.  Other
 * refusals (the dealer's bid under notequal and the like) are read from
 * the bids the prompt lists.
 */
static int
wizard_why_not(struct text *out, enum lang lang,
    const struct game_brief *mine, const struct action *action,
    char codes[][8])
{
	const char *lead = mine->lead;
	struct text suit;

	if (action->kind == ACTION_BID) {
		if (action->value >= 0 && action->value <= mine->cards)
			return 0;
		SAY(out, lang, MSG_WHY_BID_RANGE, "d", mine->cards);
		return 1;
	}
	if (action->kind != ACTION_PLAY || action->ncards != 1 ||
	    strlen(lead) != 1 || strchr("rygb", lead[0]) == NULL ||
	    codes[0][0] == lead[0] || strchr("rygb", codes[0][0]) == NULL)
		return 0;
	for (int i = 0; i < mine->nhand; i++) {
		if (mine->hand[i][0] != lead[0])
			continue;
		text_init(&suit);
		text_card(&suit, lead[0], lead);
		SAY(out, lang, MSG_WHY_FOLLOW, "r", text_str(&suit));
		text_finish(&suit);
		return 1;
	}
	return 0;
}

/* Wizard's own reasons to refuse options (wizard.h), worded. */
static enum msg
wizard_refusal(int code)
{
	switch (code) {
	case WIZARD_REFUSAL_AT_ONCE:
		return MSG_REFUSAL_AT_ONCE;
	case WIZARD_REFUSAL_NO_BIDDING:
		return MSG_REFUSAL_NO_BIDDING;
	case WIZARD_REFUSAL_BOTH_ROUNDS:
		return MSG_REFUSAL_BOTH_ROUNDS;
	case WIZARD_REFUSAL_PLAYERS:
		return MSG_REFUSAL_PLAYERS;
	case WIZARD_REFUSAL_TOO_LONG:
		return MSG_REFUSAL_TOO_LONG;
	case WIZARD_REFUSAL_STARTS_HIGH:
		return MSG_REFUSAL_STARTS_HIGH;
	case WIZARD_REFUSAL_FIRST_ROUND:
		return MSG_REFUSAL_FIRST_ROUND;
	}
	return MSG_COUNT;
}

const struct game_present present_wizard = {
	.name = "wizard",
	.title = MSG_GAME_WIZARD,
	.sheet_legend = MSG_SHEET_LEGEND_BIDS,
	.card_color = wizard_color,
	.standing = wizard_standing,
	.sheet_cell = wizard_sheet_cell,
	.play_hint = wizard_play_hint,
	.refusal = wizard_refusal,
	.why_not = wizard_why_not,
	.actions = PRESENT_ACTION(ACTION_BID) |
	    PRESENT_ACTION(ACTION_TRUMP) | PRESENT_ACTION(ACTION_PLAY),
};

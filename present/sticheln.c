/*
 * sticheln.c - how Sticheln reads in a chat: six colours, points and the
 * penalty colour in the standings, the penalty card on the score sheet.
 * Any card may be played, so a turn needs no hint.
 */
#include <stdio.h>

#include "present.h"

/*
 * " 12 (15) r": the total, in brackets the total if the round ended now
 * (the engine's running points), and the penalty colour once revealed.
 */
static void
sticheln_standing(struct text *out, enum lang lang,
    const struct game_brief *brief, int seat)
{
	const char *colour = brief->penalty[seat];
	int score = brief->score[seat];

	(void)lang;
	if (brief->points_shown & (1u << seat))
		text_printf(out, " %d (%d)", score, score +
		    brief->points[seat]);
	else
		text_printf(out, " %d", score);
	if (colour[0] != '\0') {
		text_add(out, " ");
		text_card(out, colour[0], colour);
	}
}

/* "r5 +7": the penalty card chosen and the round's points. */
static int
sticheln_sheet_cell(char *cell, size_t len, const struct game_round *round,
    int seat)
{
	const char *card = round->selected[seat];

	if (!round->scored)
		return 0;
	snprintf(cell, len, "%s %+d", card[0] != '\0' ? card : "-",
	    round->points[seat]);
	return 1;
}

const struct game_present present_sticheln = {
	.name = "sticheln",
	.title = MSG_GAME_STICHELN,
	.sheet_legend = MSG_SHEET_LEGEND_SELECTED,
	.card_color = present_suit_color,
	.standing = sticheln_standing,
	.sheet_cell = sticheln_sheet_cell,
	.play_hint = NULL,
	.actions = PRESENT_ACTION(ACTION_SELECT) |
	    PRESENT_ACTION(ACTION_PLAY),
};

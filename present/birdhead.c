/*
 * birdhead.c - how BirdHead reads in a chat: plain numbers, penalties and
 * cards left in the standings, and the standard to meet named with each
 * turn.
 */
#include <stdio.h>

#include "present.h"

/* BirdHead's cards are bare ranks: no colours. */
static char
birdhead_color(const char *code)
{
	(void)code;
	return '0';
}

/* " 12 7 cards": the penalty so far and the cards left. */
static void
birdhead_standing(struct text *out, enum lang lang,
    const struct game_brief *brief, int seat)
{
	text_printf(out, " %d ", brief->score[seat]);
	SAY(out, lang, MSG_CARDS_LEFT, "d", brief->held[seat]);
}

/* "+11": the round's penalty. */
static int
birdhead_sheet_cell(char *cell, size_t len, const struct game_round *round,
    int seat)
{
	if (!round->scored)
		return 0;
	snprintf(cell, len, "%+d", round->points[seat]);
	return 1;
}

/* " · to meet 7 9": the standard the next play must meet (or go low). */
static void
birdhead_play_hint(struct text *out, enum lang lang,
    const struct game_brief *brief)
{
	struct text cards;

	if (brief->nstandard == 0)
		return;
	text_init(&cards);
	for (int i = 0; i < brief->nstandard; i++) {
		if (i > 0)
			text_add(&cards, " ");
		text_add(&cards, brief->standard[i]);
	}
	text_add(out, " · ");
	SAY(out, lang, MSG_HINT_STANDARD, "r", text_str(&cards));
	text_finish(&cards);
}

const struct game_present present_birdhead = {
	.name = "birdhead",
	.title = MSG_GAME_BIRDHEAD,
	.sheet_legend = MSG_SHEET_LEGEND_PENALTY,
	.card_color = birdhead_color,
	.standing = birdhead_standing,
	.sheet_cell = birdhead_sheet_cell,
	.play_hint = birdhead_play_hint,
	.actions = PRESENT_ACTION(ACTION_PLAY),
};

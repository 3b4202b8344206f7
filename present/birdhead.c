/*
 * birdhead.c - how BirdHead reads in a chat: plain numbers, penalties and
 * cards left in the standings, the standard to meet named with each turn,
 * and why a play is refused.
 */
#include <stdio.h>
#include <stdlib.h>

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

/* A play's ranks, lowest first; how many (0 if a code is not a rank). */
static int
play_ranks(const struct action *action, char codes[][8], int *ranks)
{
	int n = action->ncards;

	if (n < 1 || n > GAME_MAX_PLAY)
		return 0;
	for (int i = 0; i < n; i++) {
		int rank = atoi(codes[i]), j = i;

		if (rank < 2 || rank > 11)
			return 0;
		for (; j > 0 && ranks[j - 1] > rank; j--)
			ranks[j] = ranks[j - 1];
		ranks[j] = rank;
	}
	return n;
}

/* "7 9": n codes joined by spaces. */
static void
add_codes(struct text *out, const char (*codes)[4], int n)
{
	for (int i = 0; i < n; i++) {
		if (i > 0)
			text_add(out, " ");
		text_add(out, codes[i]);
	}
}

/*
 * Why a play of held cards is refused: a lead of mixed ranks or of the
 * whole hand, a follow of another width, or cards that neither meet the
 * standard nor are the hand's lowest (the engine's rules, worded for the
 * player, who alone reads it).
 */
static int
birdhead_why_not(struct text *out, enum lang lang,
    const struct game_brief *mine, const struct action *action,
    char codes[][8])
{
	int ranks[GAME_MAX_PLAY], n;
	struct text standard, lowest;

	if (action->kind != ACTION_PLAY ||
	    (n = play_ranks(action, codes, ranks)) == 0)
		return 0;
	if (mine->nstandard == 0) {
		if (ranks[0] != ranks[n - 1]) {
			SAY0(out, lang, MSG_WHY_ONE_RANK);
			return 1;
		}
		if (n >= mine->nhand) {
			SAY0(out, lang, MSG_WHY_KEEP_ONE);
			return 1;
		}
		return 0;
	}
	if (n != mine->nstandard) {
		SAY(out, lang, MSG_WHY_WIDTH, "d", mine->nstandard);
		return 1;
	}
	if (n > mine->nhand)
		return 0;
	/* The hand is sorted lowest first: its first n are its lowest. */
	text_init(&standard);
	text_init(&lowest);
	add_codes(&standard, mine->standard, n);
	add_codes(&lowest, mine->hand, n);
	SAY(out, lang, n == 1 ? MSG_WHY_MEET_ONE : MSG_WHY_MEET, "rr",
	    text_str(&standard), text_str(&lowest));
	text_finish(&lowest);
	text_finish(&standard);
	return 1;
}

const struct game_present present_birdhead = {
	.name = "birdhead",
	.title = MSG_GAME_BIRDHEAD,
	.sheet_legend = MSG_SHEET_LEGEND_PENALTY,
	.card_color = birdhead_color,
	.standing = birdhead_standing,
	.sheet_cell = birdhead_sheet_cell,
	.play_hint = birdhead_play_hint,
	.why_not = birdhead_why_not,
	.actions = PRESENT_ACTION(ACTION_PLAY),
};

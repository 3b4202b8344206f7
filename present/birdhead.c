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
birdhead_standing(struct text *out, enum lang lang, const json_t *view,
    int seat)
{
	int score = 0, left = 0;

	present_int_at(json_object_get(view, "scores"), seat, &score);
	present_int_at(json_object_get(view, "hand_counts"), seat, &left);
	text_printf(out, " %d ", score);
	SAY(out, lang, MSG_CARDS_LEFT, "d", left);
}

/* "+11": the round's penalty. */
static int
birdhead_sheet_cell(char *cell, size_t len, const json_t *round, int seat)
{
	int points = 0;

	if (!present_int_at(json_object_get(round, "points"), seat, &points))
		return 0;
	snprintf(cell, len, "%+d", points);
	return 1;
}

/* " · to meet 7 9": the standard the next play must meet (or go low). */
static void
birdhead_play_hint(struct text *out, enum lang lang, const json_t *view)
{
	const json_t *standard = json_object_get(view, "standard");
	struct text cards;
	size_t i;
	json_t *v;

	if (json_array_size(standard) == 0)
		return;
	text_init(&cards);
	json_array_foreach(standard, i, v) {
		if (i > 0)
			text_add(&cards, " ");
		if (json_is_integer(v))
			text_printf(&cards, "%d", (int)json_integer_value(v));
		else if (json_is_string(v))
			text_user(&cards, json_string_value(v));
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
};

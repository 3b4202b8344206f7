/*
 * table_refusal.c - why a move is refused, in catalog words: a kind of
 * move the game does not have, whose turn it is, a move already made in a
 * phase everyone acts in at once, what the table waits for, and (to the
 * player alone) a card not held or a move the rules forbid.
 *
 * Part of the table module (table_int.h): it reads a table and writes
 * text, as table_view.c does.
 */
#include <string.h>

#include "bot_int.h"
#include "present.h"
#include "table_int.h"

/* The names of the seats to act now, "alice, bob". */
static void
text_acting(struct text *t, struct table *table)
{
	int acting[GAME_MAX_SEATS];
	int n = table->impl->to_act(table->game->state, acting);

	for (int i = 0; i < n; i++) {
		text_add(t, i > 0 ? ", " : "");
		text_seat(t, table, acting[i], 0);
	}
}

/*
 * A kind of move the game does not have at all ("BirdHead has no bids"),
 * as its presentation says: then says so and returns 1.
 */
static int
refuse_missing_kind(struct table *table, const struct action *action,
    struct text *reply)
{
	static const struct {
		enum action_kind kind;
		enum msg none;
	} missing[] = {
		{ ACTION_BID, MSG_GAME_NO_BIDS },
		{ ACTION_TRUMP, MSG_GAME_NO_TRUMP },
		{ ACTION_SELECT, MSG_GAME_NO_SELECT },
	};
	const struct game_present *present = present_find(table->impl->name);
	struct text title;

	if (present == NULL || present->actions == 0 ||
	    (present->actions & PRESENT_ACTION(action->kind)) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		if (missing[i].kind != action->kind)
			continue;
		text_init(&title);
		game_title(&title, table_lang(table), table->impl);
		SAY(reply, table_lang(table), missing[i].none, "r",
		    text_str(&title));
		text_finish(&title);
		return 1;
	}
	return 0;
}

/*
 * Seat made this simultaneous phase's move already (a hidden bid, a
 * penalty card): not being among those to act means that, unless the
 * seat is out of the game.
 */
static int
refuse_done(struct table *table, int seat, const struct action *action,
    struct text *reply)
{
	enum game_phase phase = table->impl->phase(table->game->state);
	struct game_brief open;

	table_brief(table, -1, &open);
	if (open.eliminated & (1u << seat))
		return 0;
	if (phase == PHASE_BID_SIMULTANEOUS && action->kind == ACTION_BID) {
		SAY0(reply, table_lang(table), MSG_ALREADY_BID);
		return 1;
	}
	if (phase == PHASE_SELECT && action->kind == ACTION_SELECT) {
		SAY0(reply, table_lang(table), MSG_ALREADY_SELECTED);
		return 1;
	}
	return 0;
}

/*
 * Whether seat's hand holds every card of action (a multiset: BirdHead
 * plays several of a rank); 1 too when the seat cannot see its own hand
 * (clairvoyance), as saying otherwise would tell it what it holds.
 */
static int
hand_holds(struct table *table, int seat, const struct action *action)
{
	struct game_brief mine;
	char code[8];
	int used[GAME_MAX_HAND] = { 0 };

	if (action->kind != ACTION_PLAY && action->kind != ACTION_SELECT)
		return 1;
	table_brief(table, seat, &mine);
	if (mine.others_shown != 0 || (table->impl->hand_hidden != NULL &&
	    table->impl->hand_hidden(table->game->state, seat)))
		return 1;
	for (int c = 0; c < action->ncards; c++) {
		int found = 0;

		table->impl->format_card(action->cards[c], code, sizeof(code));
		for (int i = 0; i < mine.nhand && !found; i++) {
			if (used[i] || strcmp(mine.hand[i], code) != 0)
				continue;
			used[i] = found = 1;
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* The rule that refuses action, as the game's presentation words it. */
static void
why_not(struct table *table, int seat, const struct action *action,
    struct text *why)
{
	const struct game_present *present = present_find(table->impl->name);
	char codes[GAME_MAX_PLAY][8];
	struct game_brief mine;
	struct text reason;

	if (present == NULL || present->why_not == NULL)
		return;
	for (int c = 0; c < action->ncards && c < GAME_MAX_PLAY; c++)
		table->impl->format_card(action->cards[c], codes[c],
		    sizeof(codes[c]));
	table_brief(table, seat, &mine);
	text_init(&reason);
	if (present->why_not(&reason, table_lang(table), &mine, action,
	    codes)) {
		text_add(why, " ");
		text_append(why, &reason);
	}
	text_finish(&reason);
}

void
table_refusal(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply)
{
	enum lang lang = table_lang(table);
	struct action legal[GAME_MAX_ACTIONS];
	int n, kind = 0;
	struct text why;

	if (refuse_missing_kind(table, action, reply))
		return;
	if (!seat_to_act(table, seat)) {
		/* Whose turn it is, the channel sees anyway. */
		struct text names;

		if (refuse_done(table, seat, action, reply))
			return;

		text_init(&names);
		text_acting(&names, table);
		SAY(reply, lang, MSG_TURN_OF, "r", text_str(&names));
		text_finish(&names);
		return;
	}
	n = table->impl->legal(table->game->state, seat, legal,
	    GAME_MAX_ACTIONS);
	for (int i = 0; i < n && !kind; i++)
		kind = legal[i].kind == action->kind;
	if (!kind) {
		/* What the table waits for is public too. */
		struct text task;

		text_init(&task);
		text_task(&task, table, table->impl->phase(table->game->state));
		SAY(reply, lang, MSG_NOW_TASK, "r", text_str(&task));
		text_finish(&task);
		return;
	}
	/*
	 * Which bids or cards are allowed, and what the hand holds, is the
	 * player's own business: the reason goes privately, with the hand
	 * and the moves allowed, and a channel sees only that it was not.
	 */
	text_init(&why);
	{
		/* A card of the game, but not of this hand. */
		int held = hand_holds(table, seat, action);
		struct text what;

		text_init(&what);
		if (action->kind == ACTION_BID || action->kind == ACTION_TRUMP)
			text_printf(&what, "%d", action->value);
		else
			text_action_cards(&what, table, action);
		SAY(&why, lang, held ? MSG_MOVE_NOT_ALLOWED : MSG_NOT_HELD,
		    "r", text_str(&what));
		text_finish(&what);
		if (held)
			why_not(table, seat, action, &why);
	}
	if (flags & ACT_IN_CHANNEL) {
		SAY0(reply, lang, MSG_REFUSED_PRIVATELY);
		table_tell(table, seat, &why);
	} else {
		text_append(reply, &why);
	}
	text_finish(&why);
	table_send_hand(table, seat, 1);
}

/*
 * present.h - how each game reads in a chat: one const descriptor per
 * game, found by the engine's name.
 *
 * The core (bot/table_view.c) builds every line from what an engine says
 * in numbers (its brief and its rounds: struct game_brief, struct
 * game_round); what differs from game to game (a card's colour, what
 * follows a name in the standings, a score sheet's cells, what the public
 * knows about the next move) is asked of the game's descriptor here.  So
 * the core compares no game names, and no rule or scoring formula is
 * copied out of an engine: a descriptor reads only what its engine says.
 */
#ifndef STICHBOT_PRESENT_H
#define STICHBOT_PRESENT_H

#include <stddef.h>

#include "game.h"
#include "i18n.h"
#include "text.h"

struct game_present {
	const char *name;        /* the engine's name (struct game_impl) */
	enum msg title;          /* "Wizard" */
	/* What the score sheet's cells mean (a legend under the sheet). */
	enum msg sheet_legend;
	/* The colour mark of a card code (text.h), '0' for none. */
	char (*card_color)(const char *code);
	/*
	 * What follows a seat's name in the standings, from what everybody
	 * knows (the engine's brief): " 30 (50) 1/1" in Wizard.
	 */
	void (*standing)(struct text *out, enum lang lang,
	    const struct game_brief *brief, int seat);
	/*
	 * One cell of the score sheet: seat's result in round (the engine's
	 * round_result()), e.g. "1/1 +30".  Returns 0 when the round has no
	 * result for seat yet.
	 */
	int (*sheet_cell)(char *cell, size_t len,
	    const struct game_round *round, int seat);
	/*
	 * Appends what everyone can see constrains the next play (" · lead
	 * r"), so that the channel's mention carries it and the player needs
	 * no private prompt.  NULL: nothing constrains it in public.
	 */
	void (*play_hint)(struct text *out, enum lang lang,
	    const struct game_brief *brief);
	/*
	 * The message that words one of the game's own reasons to refuse
	 * options (struct game_refusal's code, from GAME_REFUSAL_GAME on),
	 * or MSG_COUNT for a code it does not know.  NULL: it has none.
	 * Its arguments are those of present_refusal().
	 */
	enum msg (*refusal)(int code);
	/*
	 * Appends why the rules refuse action (a move of the right kind, at
	 * the seat's turn) to its player, who alone reads it: mine is the
	 * seat's brief, codes its cards' codes.  0 when it has no more to
	 * say than that the move is not allowed (NULL: never).
	 */
	int (*why_not)(struct text *out, enum lang lang,
	    const struct game_brief *mine, const struct action *action,
	    char codes[][8]);
	/*
	 * The kinds of move its players make, one bit (1u << kind) per enum
	 * action_kind: a command for any other kind is answered with what
	 * the game does not have ("BirdHead has no bids").
	 */
	unsigned actions;
};

/* A bit of struct game_present's actions. */
#define PRESENT_ACTION(kind) (1u << (kind))

/* The descriptor of the game named name (an engine's name), or NULL. */
const struct game_present *present_find(const char *name);

/*
 * Words why in lang: the engine's common reasons here, a game's own
 * through its descriptor's refusal(), the engine's English sentence for a
 * reason nobody words.  The templates' arguments, "ssdddr": the option,
 * the other option, the numbers a, b and c, and the game's name.
 */
void present_refusal(struct text *out, enum lang lang,
    const struct game_refusal *why);
/*
 * game_option_set() and validate_options() with the reason in lang, as a
 * plain sentence in err (for MSG_OPTION_REFUSED): the same results.
 */
int present_option_set(enum lang lang, const struct game_impl *impl,
    struct game_options *options, const char *text, char *err,
    size_t errlen);
int present_options_check(enum lang lang, const struct game_impl *impl,
    const struct game_options *options, int nseats, char *err,
    size_t errlen);

/*
 * The colour mark of a card code for a game whose cards are a colour
 * letter and a rank ("r7"); '0' for anything else.
 */
char present_suit_color(const char *code);

#endif

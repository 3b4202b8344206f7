/*
 * table_int.h - the table module's own header, for table.c and
 * table_view.c only (and table_seats.c, table_restore.c,
 * table_refusal.c, table_clock.c): struct table, the words for a table (table_view.c)
 * and the few facts about a table both read.  Only table.c changes a
 * table; table_view.c reads one and writes text; everyone else uses
 * table.h.
 */
#ifndef STICHBOT_TABLE_INT_H
#define STICHBOT_TABLE_INT_H

#include "bot_int.h"

/* A table: its seats, its lobby or running game, and its timers. */
struct table {
	struct channel *channel;
	const struct game_impl *impl;
	struct game_options options;
	struct seat seats[GAME_MAX_SEATS];
	int nseats;
	struct game *game;       /* NULL while the table is a lobby */
	int64_t game_id;         /* the store's id of the game */
	uint64_t seed;
	/* The round announced last. */
	int round_seen;
	/* table_public_view(): the view, and the state it was made for. */
	json_t *public_view;
	int view_actions, view_deals;
	/* Which seats have been prompted in the current phase step. */
	unsigned prompted;
	/* Seats whose hand line just now carried their task (send_hands). */
	unsigned hand_prompted;
	/* Seats told in round lost_round that they were unreachable. */
	unsigned lost_told;
	int lost_round;
	/*
	 * The prompt line said last ("bob to play · lead b") and the state
	 * it was said in (actions and deals of the game), so that a prompt
	 * is never said twice for the same state (table_next_text).
	 */
	char *prompt_said;
	int prompt_actions, prompt_deals;
	/*
	 * The prompt of this state (actions and deals) was heard before the
	 * table was read back from the store (table_prompt_heard).
	 */
	int heard, heard_actions, heard_deals;
	uint64_t turn_timer, half_timer, computer_timer, idle_timer;
	/*
	 * A turn's clock waits until its prompt has been said: for the
	 * table's messages up to clock_mark (0: not handed out yet) to be
	 * reported sent, or for clock_timer, one turn's length at most.
	 */
	int clock_waits;
	uint64_t clock_mark, clock_timer;
	/*
	 * A prompt that went untracked (a resume) leaves no report: while
	 * the medium still holds the table's messages, this looks again.
	 */
	uint64_t clock_poll;
	uint64_t grace_timer;    /* the earliest seat's grace_until */
	/* Picks the table up again after a change could not be stored. */
	uint64_t retry_timer;
	/* Nobody seated: the game waits (paused) and closes at this timer. */
	uint64_t abandon_timer;
	int paused;
	/* When (Unix time) the paused game closes, as said and stored; 0. */
	int64_t paused_until;
	/* Restored or cut off: to be resumed once the network is up. */
	int unresumed;
	/* A deal came meanwhile: the resume sends everyone their hand. */
	int hands_owed;
	/* The lobby as last stored (table_lobby_save); NULL: none stored. */
	char *lobby_saved;
	/*
	 * Whose seat someone else took over in this game (replace): the
	 * former owner's id and the seat, so that they hear who has it.
	 */
	struct former {
		char *user_id;
		int seat;
	} *formers;
	int nformers;
};

/*
 * Stores which seats were told in lost_round that they were unreachable
 * (table_private_lost()), so that a restart in the same round does not
 * ask them again; table_lost_load() reads it back (table_restore.c).
 */
void table_lost_store(struct table *table);
void table_lost_load(struct table *table);

/*
 * Remembers that user_id owned seat before someone took it over (stored
 * with the seat by table_seat_changed(); table_seats.c).
 */
void table_former_add(struct table *table, const char *user_id, int seat);


/* Shared within the module (table.c, table_seats.c, table_restore.c). */
struct bot *table_bot(const struct table *table);
/* Runs one timer of a table as one event of the core (bot_enter). */
void table_event(struct table *table, void (*run)(struct table *));
/* Lets a computer choose for seat (table.c); the choice is always legal. */
int table_computer_choose(struct table *table, int seat, struct action *out);
/*
 * With nobody seated between tricks the game pauses (said once into out,
 * with when it closes) and 1 is returned; 0 while someone plays
 * (table_seats.c).
 */
int table_paused(struct table *table, struct text *out);
void seat_clear(struct table *table, struct seat *seat);
void table_timer_cancel(struct table *table);
/*
 * table_clock.c: the turn's clock waits until the prompt has been said
 * (table_clock_check(), table.h), then table_clock_start() ends the wait
 * and arms the turn timer and its reminder.
 */
void table_clock_wait(struct table *table);
void table_clock_start(struct table *table);
/* Stops the turn's clock: its timer and reminder, or its wait. */
void table_clock_cancel(struct table *table);
/*
 * 1 when the clock running belongs to the step still going on: everyone
 * still to act (all at once: hidden bids, penalty cards) was prompted.
 */
int table_clock_goes_on(struct table *table);
struct store_seat;
void seat_store(const struct seat *seat, struct store_seat *out);
/* Deletes a stored lobby: the table is a game now, or closed. */
void lobby_forget(struct table *table);

/* Facts about a table (table.c). */
/*
 * The engine's public view of the running game (view(state, -1)),
 * borrowed: computed once per state and kept until an action or a deal
 * changes it, as one event's lines read it many times.
 */
json_t *table_public_view(struct table *table);
/*
 * What seat (-1: everybody) may know of the game now, in numbers (the
 * engine's brief): what every move's line and every hand told read,
 * without building a view.
 */
void table_brief(const struct table *table, int seat,
    struct game_brief *out);
enum lang table_lang(const struct table *table);
int seat_is_human(const struct seat *seat);
/* The channel's first command prefix, for "say !back". */
char table_prefix(const struct table *table);

/* Words (table_view.c). */
char table_card_color(const struct table *table, const char *code);
/* "[#cards] ": the table as people know it, to start a private line. */
void text_table_tag(struct text *t, struct table *table);
/* Appends the cards of an action, separated by spaces. */
void text_action_cards(struct text *t, const struct table *table,
    const struct action *action);
/* What the seats to act must do: "to bid", "to play", ... */
void text_task(struct text *t, struct table *table, enum game_phase phase);
/* " · your turn to bid", to the one who reads the channel. */
void your_turn(struct table *table, enum game_phase phase, struct text *out);
/*
 * The prompt of the state table is in now was heard before the table was
 * read back from the store (a reload after a refused change):
 * table_next_text() notes it without saying it again.
 */
void table_prompt_heard(struct table *table);
/* Whether seat, to act now in phase, is prompted privately too. */
int needs_prompt(struct table *table, int seat, enum game_phase phase);
/* "Round 3/15 · dealer Bob · trump r" for the round just dealt. */
void announce_round(struct table *table, struct text *out);
/*
 * The line that tells the channel what seat did (action, in phase
 * before), and the trick's winner when it completed one: then it returns
 * 1.  ended is the round the action ended (the engine's round_result()),
 * else NULL.
 */
int announce_action(struct table *table, int seat,
    const struct action *action, enum game_phase before,
    const struct game_round *ended, struct text *out);
/* The round's end (round: the engine's round_result() for it). */
void announce_round_end(struct table *table, const struct game_round *round,
    struct text *out);
/* The winners and the ranking (result borrowed). */
void announce_game_end(struct table *table, json_t *result,
    struct text *out);
/* The game, the round, trump and the trick so far (table_status.c). */
void status_summary(struct table *table, struct text *out);
/* "Round 3/15", or "Round 3" where the game has no fixed length. */
void say_round(struct text *out, enum lang lang, const json_t *view);
/*
 * The standings: each seat still in the game and what the viewer may
 * know of it (-1: everybody; a seat sees its own secret bid).
 */
void player_lines(struct table *table, int viewer, struct text *out);
/* The cards of a play (a code, or BirdHead's list of codes). */
void text_play_cards(struct text *t, const struct table *table,
    const json_t *cards);
/*
 * What everyone can see constrains the next play (" · lead r"), from
 * the game's presentation; nothing outside the play phase.
 */
void text_play_hint(struct text *t, struct table *table);

#endif

/*
 * table.h - a table of one channel: its lobby, its running game, and what
 * it tells people.
 *
 * table.c is the one module that changes a table: every change (seats,
 * lobby, options, game actions, stand-ins, votes, renames, closing) is one
 * of its functions, which checks it, stores it together with what it makes
 * the bot say (one batch of the store, see outbox.h), and has it said.
 * Everyone else reads a table through the accessors below; struct table
 * itself is private to table.c and table_view.c (table_int.h).
 */
#ifndef STICHBOT_TABLE_H
#define STICHBOT_TABLE_H

#include <stdint.h>

#include "adapter.h"
#include "game.h"
#include "i18n.h"
#include "record.h"
#include "text.h"

struct channel;
struct store_game;
struct table;
struct user;

/* One seat of a table, in the lobby or in a game. */
struct seat {
	char *user_id;           /* the owner's id; "" for a computer's own seat */
	char *name;              /* the name shown (follows renames) */
	int computer;            /* 1: a computer's own seat (addbot) */
	int standin;             /* 1: a computer plays for the absent owner */
	int level;               /* enum ai_level of the computer */
	int missed;              /* turns played for the owner in a row */
	int stop_vote;           /* voted to stop the game */
	/* When a computer takes the seat of someone who left (0: never). */
	uint64_t grace_until;
	/* The owner left the channel and has not come back since. */
	int away;
	/*
	 * The owner gave the seat up (leave) or an admin gave it to a
	 * computer: anyone may take it over, as the channel was told.
	 */
	int released;
};

/* Reading a table (the accessors: nobody outside table.c writes one). */
const struct game_impl *table_impl(const struct table *table);
/* The running game (its state, actions and deals); NULL in a lobby. */
const struct game *table_game(const struct table *table);
/* The store's id of the running game (0 in a lobby). */
int64_t table_game_id(const struct table *table);
const struct game_options *table_options(const struct table *table);
int table_nseats(const struct table *table);
/* Seat 0 .. table_nseats() - 1, read-only. */
const struct seat *table_seat(const struct table *table, int seat);
struct channel *table_channel(const struct table *table);
/* Restored or cut off: waits to be resumed once the network is up. */
int table_unresumed(const struct table *table);

struct table *table_create(struct channel *channel,
    const struct game_impl *impl);
/* Frees the table; what the store holds of it stays (see table_close). */
void table_destroy(struct table *table);
/*
 * Lobbies survive restarts: table_lobby_save() stores a lobby when it
 * differs from what was stored (call it after anything that may change
 * one: it does nothing for a running game), and table_lobby_load() makes
 * a channel's table from what table_lobby_save() stored.
 */
void table_lobby_save(struct table *table);
struct table *table_lobby_load(struct channel *channel, const char *lobby,
    char *err, size_t errlen);
/*
 * Ends the table for good: a running game is ended as abandoned (when
 * abandoned), a stored lobby is deleted; then the table is destroyed.
 */
void table_close(struct table *table, int abandoned);
int table_seat_of(const struct table *table, const char *user_id);
/* The seat called name; -1 when none is, -2 when several are. */
int table_seat_by_name(const struct table *table, const char *name);
int table_humans(const struct table *table);
/* Whether seat is among those the running game waits for now. */
int seat_to_act(struct table *table, int seat);
/*
 * Frees a lobby seat, saying so into out; closes (destroys) the table
 * when no person is left and returns 1 then.
 */
int table_lobby_remove(struct table *table, int seat, struct text *out);
/* The game's name in lang. */
void game_title(struct text *t, enum lang lang, const struct game_impl *impl);
int table_start(struct table *table, struct text *reply);
/*
 * Applies seat's action; on success it is stored, announced, and the
 * table moves on.  -1 with the reason in reply (nothing changed).  flags:
 * ACT_COMPUTER for a computer's move, ACT_IN_CHANNEL when the person
 * typed it in the channel (reply goes there).
 */
#define ACT_COMPUTER 1
#define ACT_IN_CHANNEL 2
int table_act(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply);
/*
 * Why seat may not make action, in catalog words, into reply: whose turn
 * it is or what the table waits for (public facts); anything drawn from
 * the hand (which cards or bids are allowed) goes to the seat's owner
 * privately, and a reply meant for the channel says only that it did.
 */
void table_refusal(struct table *table, int seat, const struct action *action,
    int flags, struct text *reply);
/* Re-arms the timers and computer moves for whoever is to act now. */
void table_next(struct table *table);
/* The same, appending the turn line to out instead of sending it. */
void table_next_text(struct table *table, struct text *out);
/* Deals the next round when a restored game waits for one. */
int table_deal_pending(struct table *table);
void table_idle_arm(struct table *table);
/* A seat changes hands (stand-in on/off, replace); stored and announced. */
int table_seat_changed(struct table *table, int seat);
/* Private texts. */
void table_send_hand(struct table *table, int seat, int prompt);
/*
 * The hand its owner asked for: as table_send_hand() with the prompt, and
 * also while a computer plays the seat, then with a word on how to take
 * it back.
 */
void table_show_hand(struct table *table, int seat);
/*
 * Seat's owner could not be reached privately (they left or rejected
 * their direct room): once per round, the channel asks them to accept
 * the new invitation or to say hand, and their hand (with the prompt
 * when they are to act) is sent again, which opens a new private channel.
 */
void table_private_lost(struct table *table, int seat);
void table_status(struct table *table, struct text *out);
/*
 * The table at a glance (issue 17): the game, round, trump, the trick and
 * the suit to follow; everyone's standing; and, for seat (-1: nobody),
 * their hand with the cards they may play now in brackets.  With a hand
 * it is for seat's owner only.
 */
void table_view(struct table *table, int seat, struct text *out);
/*
 * Says what privately to seat's owner, as a line about this table
 * ("[#cards] ..."); nothing for a seat a computer plays.
 */
void table_tell(struct table *table, int seat, const struct text *what);
/* The same, also while a computer plays the seat for its owner. */
void table_tell_owner(struct table *table, int seat, const struct text *what);
/*
 * Tells the channel where a game stands once the bot can speak again
 * (why: MSG_RESUMED after a restart, MSG_RECONNECTED after an outage):
 * the round, trump, the trick so far and each player's bid and tricks in
 * one message, then prompts whoever is to act and starts their time.
 */
void table_resume(struct table *table, enum msg why);
void table_scores(struct table *table, struct text *out);
/*
 * The end of table's game (result: its RECORD.md result, borrowed), kept
 * for !scores after it, in the transaction that ends the game; forgotten
 * when a game is abandoned, so that "the last one" is never an older
 * game.  Call before store_game_end().
 */
void table_keep_end(struct table *table, json_t *result);
void table_forget_end(struct table *table);
/*
 * !scores where no game runs: when and how the last game of channel
 * ended, in lang.  Returns 1 when said, 0 when none is kept.
 */
int channel_last_end(struct channel *channel, enum lang lang,
    struct text *out);
void table_player_lines(struct table *table, struct text *out);
/* Gives seat grace seconds to come back before a computer takes it. */
void table_grace(struct table *table, int seat, int seconds);
/* A stand-in takes seat now (leave, grace expired, two timeouts). */
void table_stand_in(struct table *table, int seat, enum msg why);
/*
 * After a change of channel's table could not be committed: the table is
 * rebuilt from the store (the truth), the channel told once, and the game
 * picked up again after a pause that grows while the store keeps failing.
 */
void table_reload(struct channel *channel);
/* Picks the table's game up again after that pause. */
void table_retry(struct table *table);
/*
 * A move of table (flags as for table_act()) that could not be stored:
 * the reply or the channel says so, and the game is picked up again.
 */
void table_not_stored(struct table *table, int flags, struct text *reply);
/*
 * Seats and settings changing hands: with the game flow, table.c is the
 * only writer of a table.  Each says what happened into out (the reply
 * of the command) and stores what must survive a restart; -1 when the
 * change was refused (why is in out).
 */
int table_join(struct table *table, const struct user *user, struct text *out);
int table_add_computer(struct table *table, int level, struct text *out);
int table_set_game(struct table *table, const struct game_impl *impl,
    struct text *out);
void table_set_options(struct table *table, const struct game_options *options);
/*
 * Whether someone else may take over seat now (replace): a computer's own
 * seat, or one a computer plays while its owner is gone from the channel
 * (past the grace time) or gave it up, or while nobody at all is seated;
 * never a seat whose owner is still here and may say back.  Otherwise
 * says why into out and returns 0.
 */
int table_replaceable(struct table *table, int seat, struct text *out);
/* Someone takes over a seat a computer plays (replace). */
int table_take_over(struct table *table, int seat, const struct user *user,
    struct text *out);
/*
 * The seat user_id owned before someone else took it over (replace), -1
 * when none: they are told who has it instead of "no seat".
 */
int table_former_seat(const struct table *table, const char *user_id);
/*
 * Tells user_id, who has no seat at table's game, who took over the one
 * they had (into out): 1 then, 0 when they never had one.
 */
int table_say_taken(const struct table *table, const char *user_id,
    struct text *out);
/* The owner takes their seat back; out NULL: quietly, as they act. */
int table_back(struct table *table, int seat, struct text *out);
/* The owner gives the seat up (leave): a lobby frees it, a game stands in. */
int table_leave(struct table *table, int seat, struct text *out);
/* The owner left the channel: a lobby frees the seat, a game waits grace s. */
void table_left_channel(struct table *table, int seat, int grace);
/* The owner is in the channel again: their grace time and absence end. */
void table_joined_channel(struct table *table, int seat);
/* Seat votes to stop (close a lobby): 1 when a majority now agrees. */
int table_vote_stop(struct table *table, int seat, struct text *out);
/* The person of seat goes by another id or name now. */
void table_rename(struct table *table, int seat, const struct user *now);
/* The same people, game and options dealt afresh; the new table or NULL. */
struct table *table_restart(struct table *table, struct text *out);
/* No clock runs until table_next() or table_resume(). */
void table_hold(struct table *table);
/*
 * A turn's clock starts once its prompt has been said: the bot calls this
 * after each event and whenever an adapter reports messages sent.
 */
void table_clock_check(struct table *table);
/*
 * The same, for a table whose network cannot speak (restored, or cut
 * off): table_resume() tells it where the game stands once it can.
 */
void table_await_resume(struct table *table);
/*
 * The channel's default options for impl (none unless it is the
 * channel's game); warn: log one the game refuses.
 */
void table_default_options(struct channel *channel,
    const struct game_impl *impl, struct game_options *out, int warn);
/*
 * The game the channel's next lobby starts with, and its options: those
 * of the last game finished there, remembered since it ended or, once per
 * run, read back from the store, so that a restart keeps the offer of
 * another game.  NULL when none was finished there (or none can be read).
 */
const struct game_impl *table_last_game(struct channel *channel,
    struct game_options *options);
/* Rebuilds a stored game; the caller announces it. */
struct table *table_restore(struct channel *channel,
    const struct store_game *stored, char *err, size_t errlen);
void text_seat(struct text *t, const struct table *table, int seat,
    int mention);

/*
 * newcomer.c (issue 17).  The one person who reads everything said in
 * channel (the terminal; NULL in a chat); whether seat is theirs, so that
 * sentences about it are said to them; a seat's name as the channel's
 * reader should read it ("You"); and third, or second when seat is the
 * reader's ("X takes the trick" / "You take the trick").
 */
const char *channel_reader(struct channel *channel);
int table_addressed(const struct table *table, int seat);
const char *table_seat_name(const struct table *table, int seat);
enum msg table_seat_msg(const struct table *table, int seat, enum msg third,
    enum msg second);
/*
 * "Ranking: 1. You 120 · 2. CPU1 80 · 2. CPU2 80": ties share a place;
 * seats brief names eliminated rank below the others (brief->played).
 */
void table_ranking(const struct table *table, const json_t *scores,
    const struct game_brief *brief, struct text *out);

/*
 * The command, without its prefix, that a person types for action ("bid
 * 2", "trump r", "select n5", "play r7"): what tests, benchmarks and
 * fuzzers type, read back by the module that parses it (commands.c).
 */
void commands_for_action(const struct game_impl *impl,
    const struct action *a, char *out, size_t len);

#endif

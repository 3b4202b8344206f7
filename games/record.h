/*
 * record.h - a game in progress together with its record (RECORD.md): the
 * setup, the players' names, every deal and every accepted action.
 *
 * struct game is what the bot keeps per table and what replay folds a record
 * into.  It owns its engine state; the engine itself stays pure.
 */
#ifndef STICHBOT_RECORD_H
#define STICHBOT_RECORD_H

#include <stdio.h>

#include <jansson.h>

#include "game.h"

struct game {
	const struct game_impl *impl;
	struct game_setup setup;
	/*
	 * The deal algorithm that deals this game's next rounds from its seed
	 * (game_make_deal()): GAME_DEAL_VERSION for a new game; a game read
	 * back from the store keeps the version stored with it.
	 */
	int deal_version;
	/* Display names in seat order; an array of strings owned here. */
	json_t *players;
	struct deal *deals;
	int ndeals, deals_cap;
	struct action *actions;
	int nactions, actions_cap;
	/* impl->state_size bytes, owned here. */
	void *state;
};

/*
 * Creates a game after checking the setup (seat count, first seat,
 * options).  players is borrowed and copied; NULL names the seats "p0"...
 * Returns NULL with a reason.
 */
struct game *game_create(const struct game_impl *impl,
    const struct game_setup *setup, const json_t *players, char *err,
    size_t errlen);
void game_destroy(struct game *game);

/* Appends a deal after impl->check_deal(); -1 with a reason. */
int game_add_deal(struct game *game, const struct deal *deal, char *err,
    size_t errlen);
/*
 * Starts the next round when the engine waits for a deal and the record
 * holds it.  Returns 0 (also when there is nothing to do), or -1 with a
 * reason when the deal does not fit the game.
 */
int game_advance(struct game *game, char *err, size_t errlen);
/*
 * Applies one action and, on success, keeps it in the record and starts the
 * next round when its deal is already known.  -1 with a reason, and nothing
 * changed, on a refusal.
 */
int game_apply(struct game *game, const struct action *action, char *err,
    size_t errlen);

/*
 * A record's "options" object (RECORD.md: true for a switch, a number
 * otherwise; options that are off are left out), a new reference; and
 * back, checking each name and value against the game (not combinations:
 * see validate_options).  NULL or JSON null reads as no options.
 */
json_t *game_options_to_json(const struct game_impl *impl,
    const struct game_options *options);
int game_options_from_json(const struct game_impl *impl, const json_t *obj,
    struct game_options *options, char *err, size_t errlen);

/*
 * Reads the header and deals of a record (not its actions, though it
 * checks that they are a list).  Returns NULL with a reason when the
 * record is malformed.
 */
struct game *game_from_record(const json_t *record, char *err, size_t errlen);
/* The record of game; a new reference owned by the caller. */
json_t *game_to_record(const struct game *game);

/* Converts a deal to and from its record form. */
int deal_from_json(const struct game_impl *impl, int nseats, const json_t *obj,
    struct deal *out, char *err, size_t errlen);
json_t *deal_to_json(const struct game_impl *impl, int nseats,
    const struct deal *deal);
/*
 * The same as compact JSON text (what json_dumps() makes of deal_to_json()
 * with JSON_COMPACT | JSON_PRESERVE_ORDER, byte for byte) written into buf
 * without building it: the bot stores one per round.  Returns the length,
 * or -1 when len is too small (DEAL_JSON_MAX always fits).
 */
#define DEAL_JSON_MAX 1024
int deal_format(const struct game_impl *impl, int nseats,
    const struct deal *deal, char *buf, size_t len);

/*
 * Parses a record's text (or the whole of a stream) as replay and decide
 * read it: JSON without duplicate keys, an integer too large for
 * json_int_t read as a real beyond it (game_json_whole()).  Returns a new
 * reference, or NULL with a reason (RECORD_LOAD_ERR_LEN holds any).
 */
#define RECORD_LOAD_ERR_LEN 256
json_t *record_load(const char *text, size_t len, char *err, size_t errlen);
json_t *record_loadf(FILE *in, char *err, size_t errlen);

/*
 * Reads one action of game's record: action_from_json(), after refusing a
 * seat the table does not have, whatever its number, with the seats it
 * has.  -1 with a reason: the action is illegal.
 */
int game_action_from_json(const struct game *game, const json_t *obj,
    struct action *out, char *err, size_t errlen);

/*
 * The outcome of replaying one record (RECORD.md): exit status 0, 1 or 2
 * and the object to print (a new reference owned by the caller).
 */
int replay_record(const json_t *record, json_t **output);
/*
 * The same for a game that holds a record's header and deals, and the
 * record's actions already read (replay_line()).
 */
int replay_parsed(struct game *game, const struct action *actions, size_t n,
    json_t **output);
/*
 * Replays one record given as text, as replay_record() would after
 * parsing it with JSON_REJECT_DUPLICATES, but reading the deals and actions
 * straight into their engine form, without a JSON value per card or
 * action.  Returns the exit status with *output set, or -1 (and no output)
 * when the text is not in the plain form that path reads (escapes, unknown
 * keys, invalid cards, JSON errors, ...): the caller then parses it whole.
 */
int replay_line(const char *text, size_t len, json_t **output);

#endif

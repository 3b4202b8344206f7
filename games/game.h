/*
 * game.h - the interface every card game engine implements.
 *
 * A game is a pure function of its record: the setup (seat count, options,
 * first seat), the deals, and the actions in order.  An engine keeps all of
 * its state in one fixed-size, pointer-free block of memory, so a state can
 * be copied with memcpy (computer players copy states thousands of times per
 * decision) and nothing in it needs to be freed.  Engines never do I/O and
 * never use globals; the same inputs always give the same state.
 *
 * Each engine lives in its own file and exports one const descriptor
 * (struct game_impl); game_find() picks one by name from a NULL-terminated
 * registry.
 */
#ifndef STICHBOT_GAME_H
#define STICHBOT_GAME_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define GAME_MAX_SEATS 6
/* The most cards one play may hold (BirdHead plays up to three). */
#define GAME_MAX_PLAY 3
/* The largest hand any game deals (Wizard deals up to 20 to three seats). */
#define GAME_MAX_HAND 20
/* Enough room for every legal action of any game in any state. */
#define GAME_MAX_ACTIONS 256
#define GAME_MAX_OPTIONS 16
/* Room for an error message produced by an engine. */
#define GAME_ERR_LEN 160

enum action_kind {
	ACTION_NONE = 0,
	ACTION_BID,     /* value: the bid */
	ACTION_TRUMP,   /* value: the suit index chosen after a turned Wizard */
	ACTION_PLAY,    /* cards[0..ncards-1]: the card faces played */
	ACTION_SELECT,  /* cards[0]: the Sticheln penalty card */
};

/*
 * One decision of one seat.  Cards are "faces": small game-specific
 * integers naming what is printed on a card (two Wizards share a face).
 */
struct action {
	int8_t seat;
	uint8_t kind;        /* enum action_kind */
	uint8_t ncards;
	int8_t value;
	uint8_t cards[GAME_MAX_PLAY];
};

enum game_phase {
	PHASE_DEAL = 0,  /* waiting for the next round's deal */
	PHASE_TRUMP,     /* the dealer chooses trump after a turned Wizard */
	PHASE_BID,       /* one seat after another */
	PHASE_BID_SIMULTANEOUS, /* hidden or secret bids, any order */
	PHASE_SELECT,    /* Sticheln penalty cards, any order */
	PHASE_PLAY,
	PHASE_OVER,      /* the game has ended */
};

/* An option as a player types it: `name` or `name=value`. */
struct game_option_desc {
	const char *name;
	int min, max;        /* accepted values; a switch is 0..1 */
	int bare;            /* the value of a bare `name`; -1: a value is required */
	const char *help;    /* one short English sentence */
};

/* Option values, indexed like the game's option table; 0 means off. */
struct game_options {
	int value[GAME_MAX_OPTIONS];
};

struct game_setup {
	int nseats;
	int first;           /* see RECORD.md: first dealer or first leader */
	struct game_options options;
};

/*
 * The newest deal algorithm.  A game deals every round from its seed, so
 * a stored game keeps the version it started with (bot/store.c) and its
 * next rounds deal as they always did; records carry their deals and need
 * none.  The number is shared by every game: a new algorithm in any engine
 * is the next number, and an engine keeps every version it ever had.
 *
 *   1  the whole deck shuffled (rng_shuffle()), then dealt seat by seat,
 *      the next card turned up;
 *   2  Wizard draws only the cards it deals and turns (rng_shuffle_tail():
 *      seats in order take the first cards drawn, the next one is turned);
 *      BirdHead and Sticheln as in version 1.
 */
#define GAME_DEAL_VERSION 2

/* The cards of one round, as faces.  turned is -1 when no card is turned. */
struct deal {
	uint8_t count[GAME_MAX_SEATS];
	uint8_t cards[GAME_MAX_SEATS][GAME_MAX_HAND];
	int16_t turned;
};

struct rng;

/*
 * What a seat may know of a game now, in numbers: the fields of its view
 * (view(state, seat); seat -1: what everybody may know) that the bot reads
 * for every move and every hand it tells, filled without building JSON.
 * The view and this brief say the same (tests/test_game.c checks it after
 * every step of whole games); what a game does not have stays zero or
 * empty.  Card codes are written out ("r7").
 */
struct game_brief {
	int round;                  /* the view's "round" (from 1) */
	int cards;                  /* "cards": dealt to each; 0 if none */
	int trick;                  /* plays in the trick on the table */
	int leader;                 /* "leader": who led it, or leads next */
	unsigned eliminated;        /* "eliminated": seats out of the game */
	/*
	 * Of each eliminated seat, the rounds it played: who left later
	 * ranks above who left sooner, whatever their frozen totals.
	 */
	int played[GAME_MAX_SEATS];
	unsigned bid_shown;         /* seats whose bid this seat sees */
	unsigned points_shown;      /* seats whose running points it sees */
	int bid[GAME_MAX_SEATS];
	int won[GAME_MAX_SEATS];    /* tricks taken this round */
	int points[GAME_MAX_SEATS]; /* the round's points if it ended now */
	int score[GAME_MAX_SEATS];  /* "scores": the totals */
	int held[GAME_MAX_SEATS];   /* "hand_counts": cards in hand */
	char trump[4];              /* Wizard: trump's letter; "" for none */
	char lead[4];               /* Wizard: the suit to follow, "any", "" */
	char penalty[GAME_MAX_SEATS][4]; /* Sticheln: revealed penalty colour */
	int nstandard;              /* BirdHead: the cards the next play meets */
	char standard[GAME_MAX_PLAY][4];
	int nrevealed;              /* BirdHead: "revealed", last cards shown */
	char revealed[GAME_MAX_SEATS][4];
	/* The seat's own (seat >= 0): its hand, sorted as in the view. */
	int nhand;
	char hand[GAME_MAX_HAND][4];
	/* Wizard's clairvoyance: the other hands it sees instead ("others"). */
	unsigned others_shown;
	int nothers[GAME_MAX_SEATS];
	char others[GAME_MAX_SEATS][GAME_MAX_HAND][4];
};

/*
 * One round of the result (result()'s "rounds"[round]) in numbers: what a
 * round's end and the score sheet read, filled without building JSON
 * (tests/test_game.c checks it against the result).
 */
struct game_round {
	int scored;                 /* its "points" are known (not null) */
	int ntricks;                /* "tricks" so far */
	int last_winner;            /* the winner of its last trick; -1 none */
	int points[GAME_MAX_SEATS];
	unsigned bid_set;           /* Wizard: seats with a bid in "bids" */
	int bid[GAME_MAX_SEATS];
	int won[GAME_MAX_SEATS];    /* Wizard: tricks taken */
	int has_losers;             /* BirdHead: the round names "losers" */
	unsigned losers;
	char selected[GAME_MAX_SEATS][4]; /* Sticheln: penalty cards, or "" */
};

/*
 * Why options were refused, in names and numbers, so that the reader's
 * language can word it (present.h); text is the engine's own English
 * sentence, as validate_options() and game_option_set() write it.  code
 * is one of enum game_refusal_code, or a game's own from
 * GAME_REFUSAL_GAME on (listed in the game's header).
 */
enum game_refusal_code {
	GAME_REFUSAL_OTHER,      /* only the English text says why */
	GAME_REFUSAL_BAD_NAME,   /* "option" is no option name at all */
	GAME_REFUSAL_UNKNOWN,    /* "option" is not an option of game */
	GAME_REFUSAL_NEEDS_VALUE, /* option needs a value a..b */
	GAME_REFUSAL_NEEDS_NUMBER, /* option=on: it needs a number a..b */
	GAME_REFUSAL_ON_OFF,     /* option is on or off */
	GAME_REFUSAL_RANGE,      /* option takes a number a..b */
	GAME_REFUSAL_COMBINED,   /* options option and other exclude each other */
	GAME_REFUSAL_GAME = 100,
};

struct game_refusal {
	int code;
	const char *game;        /* the engine's name */
	char option[48];         /* the option refused, as typed or named */
	char other[48];          /* the option it clashes with, or "" */
	int a, b, c;             /* the numbers the code names */
	char text[GAME_ERR_LEN];
};

struct game_impl {
	const char *name;
	int min_seats, max_seats;
	/* The most cards one play may hold; plays are lists in records when > 1. */
	int max_play_cards;
	/* 1 when the lowest total wins (BirdHead penalties), for rankings. */
	int lower_score_wins;
	/* Options, terminated by an entry whose name is NULL. */
	const struct game_option_desc *options;
	/* The size of the state block that init() fills. */
	size_t state_size;

	/*
	 * Checks a set of options for nseats seats (0 when the seat count is not
	 * known yet, e.g. while a table is still open).  Returns 0, or -1 with a
	 * reason naming the refused option in err.
	 */
	int (*validate_options)(const struct game_options *options, int nseats,
	    char *err, size_t errlen);
	/*
	 * The same check with the reason in why (struct game_refusal);
	 * validate_options() writes why's English text.
	 */
	int (*check_options)(const struct game_options *options, int nseats,
	    struct game_refusal *why);
	/* Fills state for a new game; the setup must have been validated. */
	void (*init)(void *state, const struct game_setup *setup);

	/*
	 * Checks a deal without play: card codes, duplicates, hand sizes where
	 * they are fixed in advance.  round is zero-based.
	 */
	int (*check_deal)(const struct game_setup *setup, int round,
	    const struct deal *deal, char *err, size_t errlen);
	/* Shuffles and deals the next round (state in PHASE_DEAL). */
	void (*make_deal)(const void *state, struct rng *rng, struct deal *out);
	/*
	 * Starts the next round with deal (state in PHASE_DEAL); checks what
	 * check_deal() could not (e.g. which seats are still in the game).
	 */
	int (*start_round)(void *state, const struct deal *deal, char *err,
	    size_t errlen);

	/*
	 * Applies one action.  On a refusal, returns -1 with a reason and the
	 * state is unchanged.
	 */
	int (*apply)(void *state, const struct action *action, char *err,
	    size_t errlen);
	enum game_phase (*phase)(const void *state);
	/* Writes the seats that may act now; returns how many. */
	int (*to_act)(const void *state, int *seats);
	/* Writes the legal actions of seat (none when it may not act). */
	int (*legal)(const void *state, int seat, struct action *out, int max);
	/* The zero-based index of the current round (-1 before the first). */
	int (*round)(const void *state);

	/* Card codes: parse (any case, aliases) to a face, or -1. */
	int (*parse_card)(const char *code);
	/* Writes the canonical code of face into buf (at least 8 bytes). */
	void (*format_card)(int face, char *buf, size_t len);

	/*
	 * The result object of RECORD.md.  Returns a new reference that the
	 * caller owns.
	 */
	json_t *(*result)(const void *state);
	/*
	 * What seat may see (seat -1: what everybody may see).  Returns a new
	 * reference that the caller owns.  Never contains another seat's hidden
	 * cards, hidden bids or unrevealed selections.
	 */
	json_t *(*view)(const void *state, int seat);
	/*
	 * 1 when seat may not see its own hand now (Wizard's clairvoyance
	 * round), so that whoever tells it to play also tells it what it
	 * may know; NULL in a game where every seat always sees its hand.
	 * A question the bot asks every turn, answered without a view.
	 */
	int (*hand_hidden)(const void *state, int seat);
	/* Fills out with what seat (-1: everybody) may know now. */
	void (*brief)(const void *state, int seat, struct game_brief *out);
	/*
	 * Fills out with round (from 0) of the result; -1 when the result
	 * has no such round yet.
	 */
	int (*round_result)(const void *state, int round,
	    struct game_round *out);

	/*
	 * The move path, for callers that apply millions of actions (the
	 * computer players, replay, benchmarks); NULL in a game without one.
	 * A move is a number below 64 whose meaning depends on the phase, the
	 * legal moves of a seat are one mask, and apply_move() trusts a move
	 * taken from that mask: it neither checks nor refuses it.
	 */
	/* The legal moves of seat now (0 when it may not act). */
	uint64_t (*legal_moves)(const void *state, int seat);
	/*
	 * The legal moves of the seat that acts next, written to *seat (of
	 * simultaneous actions, the lowest seat's), so a caller needs no
	 * phase() or to_act() per move; 0 when a deal is due or the game is
	 * over.
	 */
	uint64_t (*next_moves)(const void *state, int *seat);
	void (*apply_move)(void *state, int seat, int move);
	/* The move an action stands for when it is legal now, or -1. */
	int (*action_move)(const void *state, const struct action *action);
	/* The action a legal move of seat stands for. */
	void (*move_action)(const void *state, int seat, int move,
	    struct action *out);
	/*
	 * Deals the next round straight into the state (PHASE_DEAL), with
	 * the same draws and cards as make_deal() then start_round().
	 */
	void (*deal)(void *state, struct rng *rng);

	/*
	 * make_deal() and deal() (NULL where deal() is) with a version of the
	 * deal algorithm, 1 to GAME_DEAL_VERSION: make_deal() and deal() are
	 * version 1.  NULL in a game whose deal never changed.  Callers use
	 * game_make_deal() and game_deal().
	 */
	void (*make_deal_version)(const void *state, int version,
	    struct rng *rng, struct deal *out);
	void (*deal_version)(void *state, int version, struct rng *rng);
};

/* The registry of games, NULL-terminated. */
extern const struct game_impl *const game_registry[];

const struct game_impl *game_find(const char *name);

/*
 * Deals the next round with version (1 to GAME_DEAL_VERSION) of impl's
 * deal algorithm: into out, or on the mask path straight into the state
 * (impl->deal must exist).
 */
void game_make_deal(const struct game_impl *impl, const void *state,
    int version, struct rng *rng, struct deal *out);
void game_deal(const struct game_impl *impl, void *state, int version,
    struct rng *rng);

/*
 * Applies action to state, as replay and the bot apply every action: in a
 * game with a move path, one check against the legal mask (action_move())
 * and the trusted move (apply_move()); only a refused action, or a game
 * without a move path, goes through apply(), which writes its reason.
 * Returns 0, or -1 with the reason in err.
 */
int game_apply_action(const struct game_impl *impl, void *state,
    const struct action *action, char *err, size_t errlen);

/* The index of option name in impl's option table, or -1. */
int game_option_index(const struct game_impl *impl, const char *name);
/*
 * Parses "name" or "name=value" into options.  Returns 0, or -1 with a
 * reason.  Does not check combinations (see validate_options).
 */
int game_option_set(const struct game_impl *impl, struct game_options *options,
    const char *text, char *err, size_t errlen);
/* The same, with the reason in why. */
int game_option_parse(const struct game_impl *impl,
    struct game_options *options, const char *text, struct game_refusal *why);
/*
 * Fills why (NULL is fine) with code, the option names (NULL: none), the
 * numbers and the English sentence fmt says; returns -1.
 */
int game_refuse(struct game_refusal *why, int code, const char *option,
    const char *other, int a, int b, int c, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* The name views give a phase ("bid", "play", ...). */
const char *game_phase_name(enum game_phase phase);
/*
 * The winners among the seats in the bit mask eligible: the highest total,
 * or the lowest when lowest_wins; ties all win.  A new JSON array of seats
 * in ascending order, owned by the caller.
 */
json_t *game_winners(const int16_t *total, int nseats, unsigned eligible,
    int lowest_wins);

/* Action helpers shared by the record reader, the bot and the AI. */
int action_equal(const struct action *a, const struct action *b);
/* Writes an action as a record object; returns a new reference. */
json_t *action_to_json(const struct game_impl *impl, const struct action *a);
/*
 * Appends to buf (len bytes, *at used) what fmt says, for the record
 * formatters: 0, or -1 when it does not fit.
 */
int game_buf_add(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/*
 * Writes the same object as compact JSON text (json_dumps() of
 * action_to_json() with JSON_COMPACT | JSON_PRESERVE_ORDER, byte for byte)
 * into buf, without building it: the bot stores one per move.  Returns
 * the length, or -1 when len is too small (ACTION_JSON_MAX always fits).
 */
#define ACTION_JSON_MAX 160
int action_format(const struct game_impl *impl, const struct action *a,
    char *buf, size_t len);
/*
 * Reads a whole number of a record: 1 with *out for a JSON integer, or for
 * a real beyond json_int_t (record_load() reads longer integers so) with
 * *out saturated; 0 for anything else, 1.0 and 1.5 included.  When text is
 * not NULL it receives the number as a message shows it ("... or more"
 * beyond json_int_t, whose digits the real does not all keep).
 */
int game_json_whole(const json_t *value, json_int_t *out, char *text,
    size_t textlen);
/*
 * Reads a record action.  Returns 0, or -1 with a reason (the action is
 * then illegal, not the record malformed).  A bid out of range is read
 * (as -1 or INT8_MAX when beyond those) for the engine to refuse.
 */
int action_from_json(const struct game_impl *impl, const json_t *obj,
    struct action *out, char *err, size_t errlen);

/*
 * The text of a JSON string that holds no NUL character (a record may
 * spell one as \u0000, which no code, name or word of RECORD.md holds),
 * or NULL: for any other value too.
 */
const char *game_json_text(const json_t *value);
/*
 * The length of the longest prefix of s, at most max bytes, that does not
 * cut a UTF-8 sequence: quote user text in a message with "%.*s", so the
 * message stays valid UTF-8 (JSON output and chat need it).
 */
int game_text_prefix(const char *s, int max);

/* Safe formatted error writing for engines: never overflows err. */
int game_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

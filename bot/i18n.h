/*
 * i18n.h - what the bot says, in English and Japanese.
 *
 * Every sentence lives in a catalog (catalog_en.c, catalog_ja.c) as a
 * template with numbered placeholders {1}..{9}, so that a translation may
 * put the arguments in any order.  i18n_say() fills a template with typed
 * arguments described by a small type string:
 *
 *   s  a string from a user (a name, an argument): sanitised
 *   b  the same, in bold
 *   r  our own structured text (marks allowed), a const char *
 *   d  an int
 *   c  a char (a command prefix)
 *
 * {N|one|other} is a word that agrees with the number of argument N (an
 * int): "one" when it is 1, "other" otherwise ("{1} {1|trick|tricks}").
 *
 * The Japanese catalog uses the terms of the original rule documents
 * (切り札, 宣言, トリック, ...).
 */
#ifndef STICHBOT_I18N_H
#define STICHBOT_I18N_H

#include "text.h"

enum lang {
	LANG_EN,
	LANG_JA,
	LANG_COUNT,
};

#define MESSAGE_IDS(X) \
	X(MSG_GAME_WIZARD) X(MSG_GAME_BIRDHEAD) X(MSG_GAME_STICHELN) \
	X(MSG_LOBBY_IDLE_CLOSED) X(MSG_CARDS_LEFT) X(MSG_SHEET_ROUND) \
	X(MSG_SHEET_TOTAL) X(MSG_TASK_TRUMP) X(MSG_TASK_BID) \
	X(MSG_TASK_SELECT) X(MSG_TASK_PLAY) X(MSG_HAND_HEADER) \
	X(MSG_HAND_CLAIRVOYANT) X(MSG_HAND_EMPTY) X(MSG_TRUMP_WORD) \
	X(MSG_ROUND_START) X(MSG_ROUND_ONLY) X(MSG_CARDS_EACH) X(MSG_DEALER_WORD) \
	X(MSG_TURNED_WORD) X(MSG_NO_TRUMP) X(MSG_BIDS_HIDDEN) \
	X(MSG_SELECT_PRIVATELY) X(MSG_STORE_FAILED) X(MSG_NOT_SAVED) X(MSG_NOT_SAVED_LOST) \
	X(MSG_START_SEATS) \
	X(MSG_OPTION_REFUSED) X(MSG_REMINDER) X(MSG_TIMEOUT) \
	X(MSG_STANDIN_TIMEOUTS) X(MSG_STANDIN_LEFT) X(MSG_STANDIN_GONE) \
	X(MSG_HAS_BID) X(MSG_BIDS) X(MSG_BID_SUM) X(MSG_CHOOSES_TRUMP) \
	X(MSG_HAS_SELECTED) X(MSG_PENALTY_CARDS) X(MSG_TAKES_TRICK) \
	X(MSG_ROUND_OVER) X(MSG_REVEALED) X(MSG_LOSERS) X(MSG_ELIMINATED) X(MSG_GAME_OVER) \
	X(MSG_STATUS_LOBBY) X(MSG_TRICK_WORD) \
	X(MSG_UNKNOWN_COMMAND) X(MSG_USAGE) X(MSG_NO_TABLE) \
	X(MSG_LAST_END_NOW) X(MSG_LAST_END_MINUTES) X(MSG_LAST_END_HOURS) \
	X(MSG_LAST_END_DAYS) X(MSG_KICK_COMPUTER) X(MSG_KICK_DONE_ALREADY) \
	X(MSG_GOODBYE_STORE_LOST) X(MSG_NOT_STARTED) X(MSG_STATUS_STORE_FAILED) \
	X(MSG_GAME_RUNNING) X(MSG_NOT_SEATED) X(MSG_TURN_OF) \
	X(MSG_GAME_SET) X(MSG_UNKNOWN_GAME) X(MSG_JOINED) \
	X(MSG_ALREADY_SEATED) X(MSG_TABLE_FULL) X(MSG_LEFT_LOBBY) \
	X(MSG_TABLE_CLOSED) X(MSG_OPTION_SET) X(MSG_OPTIONS_UNFIT) X(MSG_OPTIONS_LIST) \
	X(MSG_OPTIONS_NONE) \
	X(MSG_BAD_NUMBER) X(MSG_BAD_CARD) X(MSG_BAD_SUIT) \
	X(MSG_WHICH_TABLE) X(MSG_NO_TABLES) X(MSG_PRIVATE_ONLY) \
	X(MSG_BOT_ADDED) X(MSG_BAD_LEVEL) X(MSG_NO_SUCH_SEAT) X(MSG_SEAT_AMBIGUOUS) \
	X(MSG_NOT_REPLACEABLE) X(MSG_REPLACED) X(MSG_BACK) \
	X(MSG_NOT_AWAY) X(MSG_STOP_VOTE) X(MSG_STOPPED) \
	X(MSG_LANG_SET) X(MSG_BAD_LANG) X(MSG_HELP) X(MSG_HELP_COMMAND) \
	X(MSG_STATS) X(MSG_STATS_WIZARD) X(MSG_STATS_NONE) X(MSG_TOP) \
	X(MSG_TOP_NONE) X(MSG_NOT_ADMIN) X(MSG_KICKED) X(MSG_RESUMED) \
	X(MSG_RECONNECTED) X(MSG_BACK_IN_CHANNEL) X(MSG_SAVING_AGAIN) X(MSG_GOODBYE) X(MSG_SET_DONE) X(MSG_BAD_SETTING) \
	X(MSG_RELOADED) X(MSG_RELOAD_FAILED) X(MSG_BOT_STATUS) \
	X(MSG_RESTARTED) X(MSG_NOTHING_TO_DO) X(MSG_WELCOME_BACK) \
	X(MSG_ANY_CARD) \
	X(MSG_PARTING) X(MSG_PLAY_COUNT) X(MSG_SLOW_DOWN) X(MSG_TOO_LONG) \
	X(MSG_NOW_TASK) X(MSG_MOVE_NOT_ALLOWED) X(MSG_REFUSED_PRIVATELY) \
	X(MSG_PLAY_BLIND) X(MSG_YOUR_BID) X(MSG_BAD_OPTION_TEXT) \
	X(MSG_NOT_STEERING) X(MSG_CLOSE_VOTE) X(MSG_BOT_ADMIN_ONLY) \
	X(MSG_ACCOUNT_NEEDED) X(MSG_BUSY) X(MSG_NOBODY_SEATED) \
	X(MSG_STORE_LOST) X(MSG_CROWDED) X(MSG_ME) X(MSG_NO_OPTIONS) \
	X(MSG_HINT_LEAD) X(MSG_WHY_FOLLOW) X(MSG_WHY_BID_RANGE) X(MSG_HINT_WIZARD_LED) X(MSG_HINT_STANDARD) \
	X(MSG_WHY_ONE_RANK) X(MSG_WHY_KEEP_ONE) X(MSG_WHY_WIDTH) \
	X(MSG_WHY_MEET) X(MSG_WHY_MEET_ONE) \
	X(MSG_VIEW_HAND) X(CMD_TABLE) \
	X(CMD_GAME) X(CMD_JOIN) X(CMD_LEAVE) X(CMD_START) X(CMD_OPTION) \
	X(CMD_BID) X(CMD_TRUMP) X(CMD_PLAY) X(CMD_SELECT) X(CMD_HAND) \
	X(CMD_STATUS) X(CMD_SCORES) X(CMD_ADDBOT) X(CMD_REPLACE) \
	X(CMD_BACK) X(CMD_STOP) X(CMD_HELP) X(CMD_LANG) X(CMD_STATS) \
	X(CMD_TOP) X(CMD_ADMIN) \
	/* newcomer (issue 17) */ \
	X(MSG_YOU) X(MSG_YOU_JOIN) X(MSG_YOU_LEAVE) X(MSG_YOU_BID) \
	X(MSG_YOU_HAVE_BID) X(MSG_YOU_CHOOSE_TRUMP) X(MSG_YOU_HAVE_SELECTED) \
	X(MSG_YOU_TAKE_TRICK) X(MSG_YOU_VOTE_STOP) X(MSG_YOUR_TURN) \
	X(MSG_SECRET_HINT) X(MSG_SECRET_HINT_TYPE) X(MSG_BIDS_HIDDEN_TYPE) \
	X(MSG_SELECT_TYPE) X(MSG_DID_YOU_MEAN) X(MSG_RANKING) \
	X(MSG_SHEET_LEGEND_BIDS) X(MSG_SHEET_LEGEND_SELECTED) \
	X(MSG_SHEET_LEGEND_PENALTY) X(MSG_LINE_TOO_LONG) X(MSG_PLAY_AGAIN) \
	X(MSG_RULES_UNKNOWN) X(MSG_RULES_MORE) X(MSG_RULES_WIZARD) \
	X(MSG_RULES_BIRDHEAD) X(MSG_RULES_STICHELN) X(MSG_RULE_NOTEQUAL) \
	X(MSG_RULE_EVENBID) X(MSG_RULE_CANADIAN) X(MSG_RULE_HARDCORE) \
	X(MSG_RULE_HIDDENTIP) X(MSG_RULE_SECRET) X(MSG_RULE_QUICK) \
	X(MSG_RULE_ROUNDS) X(MSG_RULE_AMIGO) X(MSG_RULE_CUSTOM6) \
	X(MSG_RULE_NANNIE) X(MSG_RULE_JESTERBID) X(MSG_RULE_CLAIRVOYANCE) \
	X(MSG_RULE_DM) X(CMD_RULES) X(MSG_YOU_STANDIN) \
	X(MSG_PLAY_RESUMING) \
	/* settings: channel settings and option refusals */ \
	X(MSG_BAD_SETTING_PREFIX) X(MSG_BAD_SETTING_TIMER) \
	X(MSG_BAD_SETTING_FORMATTING) X(MSG_REFUSAL_BAD_NAME) \
	X(MSG_REFUSAL_UNKNOWN) X(MSG_REFUSAL_NEEDS_VALUE) \
	X(MSG_REFUSAL_NEEDS_NUMBER) X(MSG_REFUSAL_ON_OFF) X(MSG_REFUSAL_RANGE) \
	X(MSG_REFUSAL_COMBINED) X(MSG_REFUSAL_AT_ONCE) X(MSG_REFUSAL_NO_BIDDING) \
	X(MSG_REFUSAL_BOTH_ROUNDS) X(MSG_REFUSAL_PLAYERS) \
	X(MSG_REFUSAL_TOO_LONG) X(MSG_REFUSAL_STARTS_HIGH) \
	X(MSG_REFUSAL_FIRST_ROUND) X(MSG_LEVEL_EASY) X(MSG_LEVEL_NORMAL) \
	X(MSG_LEVEL_HARD) \
	/* seats: who may take a seat, and replies about one's own */ \
	X(MSG_OWNER_HERE) X(MSG_SEAT_TAKEN) X(MSG_STANDIN_NOTE) \
	X(MSG_ALREADY_BID) X(MSG_ALREADY_SELECTED) X(MSG_GAME_NO_BIDS) \
	X(MSG_GAME_NO_TRUMP) X(MSG_GAME_NO_SELECT) X(MSG_NOT_HELD) \
	X(MSG_STATUS_LOBBY_EMPTY) \
	/* private channels lost (a rejected Matrix direct room) */ \
	X(MSG_PRIVATE_LOST) \
	/* economy: replies that say no more than needed */ \
	X(MSG_NOT_AT_TABLE) X(MSG_ANOTHER_GAME)

#define MESSAGE_ENUM(name) name,
enum msg {
	MESSAGE_IDS(MESSAGE_ENUM)
	MSG_COUNT
};
#undef MESSAGE_ENUM

/* The catalogs: one template per message id (NULL: falls back to English). */
extern const char *const catalog_en[MSG_COUNT];
extern const char *const catalog_ja[MSG_COUNT];

int lang_parse(const char *name);
/* The code of a language, "en" or "ja", as lang_parse() reads it. */
const char *lang_name(enum lang lang);
/*
 * A computer's level (enum ai_level) as a word of lang: "hard", "上級";
 * levels only tests and `arena` seat are named as typed.
 */
const char *i18n_level(enum lang lang, int level);
/* The template of id in lang (English when the catalog lacks it). */
const char *i18n_get(enum lang lang, enum msg id);
/* The name of a message id, for tests ("MSG_JOINED"). */
const char *i18n_id_name(enum msg id);
/* Appends the template of id filled with the arguments types describes. */
void i18n_say(struct text *t, enum lang lang, enum msg id,
    const char *types, ...);

#define SAY i18n_say
#define SAY0(t, lang, id) i18n_say((t), (lang), (id), "")

#endif

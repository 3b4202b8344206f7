/*
 * catalog_en.c - everything the bot says, in English.  Placeholders are
 * described next to each message id's use (i18n.h); a test checks that
 * every catalog has the same placeholders for each message.
 */
#include "i18n.h"

const char *const catalog_en[MSG_COUNT] = {
	[MSG_GAME_WIZARD] = "Wizard",
	[MSG_GAME_BIRDHEAD] = "BirdHead",
	[MSG_GAME_STICHELN] = "Sticheln",
	[MSG_LOBBY_IDLE_CLOSED] = "The table closes: nobody started a game "
	    "for {1} {1|minute|minutes}.",
	[MSG_CARDS_LEFT] = "{1} {1|card|cards}",
	[MSG_SHEET_ROUND] = "Round",
	[MSG_SHEET_TOTAL] = "Total",
	[MSG_TASK_TRUMP] = "to choose trump",
	[MSG_TASK_BID] = "to bid",
	[MSG_TASK_SELECT] = "to select a penalty card",
	[MSG_TASK_PLAY] = "to play",
	[MSG_HAND_HEADER] = "Round {1}, your hand:",
	[MSG_HAND_CLAIRVOYANT] = "you cannot see your own card; the others "
	    "hold:",
	[MSG_HAND_EMPTY] = "(no cards)",
	[MSG_TRUMP_WORD] = "trump",
	[MSG_ROUND_START] = "Round {1}/{2}",
	[MSG_ROUND_ONLY] = "Round {1}",
	[MSG_CARDS_EACH] = "hands of {1}",
	[MSG_DEALER_WORD] = "dealer",
	[MSG_TURNED_WORD] = "turned",
	[MSG_NO_TRUMP] = "no trump",
	[MSG_BIDS_HIDDEN] = "bids are hidden: send yours privately to {2} "
	    "(bid N)",
	[MSG_SELECT_PRIVATELY] = "select your penalty card privately: send "
	    "{2} select CARD",
	[MSG_STORE_FAILED] = "Sorry, I could not save that; the game is "
	    "stopped to keep it safe.",
	[MSG_NOT_SAVED] = "Sorry, I could not save that, so it did not "
	    "happen; the game goes on as soon as I can save again.",
	[MSG_NOT_SAVED_LOST] = "Sorry, I could not save that, so it did not "
	    "happen: I cannot save games any more until my operator has "
	    "repaired the store and restarted me.",
	[MSG_START_SEATS] = "{1} seated; this game needs {2} to {3} "
	    "players.",
	[MSG_OPTION_REFUSED] = "Refused: {1}",
	[MSG_REMINDER] = "Your turn: {1} seconds left before a computer "
	    "plays for you.",
	[MSG_TIMEOUT] = "Time is up for {1}: a computer moves for them.",
	[MSG_STANDIN_TIMEOUTS] = "A computer holds {1}'s seat until they "
	    "say {2}back.",
	[MSG_STANDIN_LEFT] = "{1} left; a computer plays their seat "
	    "(anyone may take it over with {2}replace {1}).",
	[MSG_STANDIN_GONE] = "{1} is gone; a computer plays their seat "
	    "until they say {2}back.",
	[MSG_HAS_BID] = "{1} has bid ({2} to go)",
	[MSG_BIDS] = "{1} bids {2}",
	[MSG_BID_SUM] = "total {1} bid for {2} {2|trick|tricks}",
	[MSG_CHOOSES_TRUMP] = "{1} chooses trump",
	[MSG_HAS_SELECTED] = "{1} has selected ({2} to go)",
	[MSG_PENALTY_CARDS] = "penalty cards:",
	[MSG_TAKES_TRICK] = "{1} takes the trick",
	[MSG_ROUND_OVER] = "Round {1} is over.",
	[MSG_REVEALED] = "Last cards:",
	[MSG_LOSERS] = "lost the round:",
	[MSG_ELIMINATED] = "out of the game with the lowest total:",
	[MSG_GAME_OVER] = "Game over. Winner:",
	[MSG_STATUS_LOBBY] = "open table, {1} seated ({2}-{3} players):",
	[MSG_TRICK_WORD] = "trick:",
	[MSG_UNKNOWN_COMMAND] = "Unknown command \"{1}\"; try {2}help.",
	[MSG_USAGE] = "Usage: {1}",
	[MSG_NO_TABLE] = "No game is running here; {1}join opens a table.",
	[MSG_NOT_STARTED] = "The game here has not started yet ({1} "
	    "seated; {2}start when ready).",
	[MSG_KICK_COMPUTER] = "{1} is a computer player: there is nobody to "
	    "kick.",
	[MSG_KICK_DONE_ALREADY] = "A computer plays the seat of {1} already, "
	    "and anyone may take it over.",
	[MSG_LAST_END_NOW] = "No game is running here; the last one, {1}, "
	    "has just ended:",
	[MSG_LAST_END_MINUTES] = "No game is running here; the last one, {1}, "
	    "ended {2} {2|minute|minutes} ago:",
	[MSG_LAST_END_HOURS] = "No game is running here; the last one, {1}, "
	    "ended {2} {2|hour|hours} ago:",
	[MSG_LAST_END_DAYS] = "No game is running here; the last one, {1}, "
	    "ended {2} {2|day|days} ago:",
	[MSG_GAME_RUNNING] = "A game is running; wait for its end, or "
	    "{1}replace NAME to take over a computer's seat.",
	[MSG_NOT_SEATED] = "You have no seat at this table ({1}join).",
	[MSG_TURN_OF] = "It was not your turn: {1} was to act.",
	[MSG_NOW_TASK] = "Not now: it is time {1}.",
	[MSG_MOVE_NOT_ALLOWED] = "{1} is not allowed now.",
	[MSG_REFUSED_PRIVATELY] = "Not allowed; I have told you why "
	    "privately.",
	[MSG_PLAY_BLIND] = "(your own card is hidden from you: {1}play "
	    "plays it)",
	[MSG_YOUR_BID] = "your bid: {1}",
	[MSG_BAD_OPTION_TEXT] = "An option is a name, or NAME=VALUE, of at "
	    "most {1} characters.",
	[MSG_NOT_STEERING] = "Only the people seated at this table (or an "
	    "admin) choose its game and settings; {1}join first.",
	[MSG_CLOSE_VOTE] = "{1} votes to close the table ({2} of {3} "
	    "needed; {4}stop to agree).",
	[MSG_BOT_ADMIN_ONLY] = "Only the bot's configured admins may do "
	    "that.",
	[MSG_ACCOUNT_NEEDED] = "Seats here are for people logged in to a "
	    "services account (NickServ); log in, then try again.",
	[MSG_BUSY] = "I still have a lot to say at this table; try again in "
	    "a few seconds.",
	[MSG_STORE_LOST] = "I can no longer save games, so this one waits "
	    "here; it goes on from this point once my operator has "
	    "repaired the store and restarted me.",
	[MSG_ME] = "me",
	[MSG_NO_OPTIONS] = "{1} has no options.",
	/* What the public knows constrains the next play (present/). */
	[MSG_HINT_LEAD] = "lead {1}",
	[MSG_WHY_FOLLOW] = "You must follow {1} while you hold it.",
	[MSG_WHY_BID_RANGE] = "A bid is 0 to {1}, the cards dealt.",
	[MSG_HINT_WIZARD_LED] = "a Wizard leads: any card",
	[MSG_HINT_STANDARD] = "to meet {1} (or your lowest)",
	[MSG_WHY_ONE_RANK] = "Cards led together must be of one rank.",
	[MSG_WHY_KEEP_ONE] = "You must keep at least one card in your hand.",
	[MSG_WHY_WIDTH] = "Play as many cards as were led: {1}.",
	[MSG_EDIT_IGNORED] = "I do not act on edited messages: send the "
	    "command again as a new message.",
	[MSG_WHY_MEET_ONE] = "Play at least {1}, or your lowest card: {2}.",
	[MSG_WHY_MEET] = "Your cards, lowest first, must each be at least "
	    "the card in the same place of {1}; or play your lowest: {2}.",
	[MSG_VIEW_HAND] = "Your hand:",
	[CMD_TABLE] = "{1}table · the table at a glance, with your hand "
	    "(the cards you may play in [brackets]), privately",
	[MSG_CROWDED] = "Many people are asking me things at once; I answer "
	    "moves first. Please try again in a little while.",
	[MSG_NOBODY_SEATED] = "Nobody is seated any more: the game pauses "
	    "({1}back takes your seat again, {1}replace NAME one given up) "
	    "and closes in {2} {2|minute|minutes}.",
	[MSG_GAME_SET] = "Next game: {1} ({2}-{3} players). Say {4}join "
	    "to sit down.",
	[MSG_UNKNOWN_GAME] = "Unknown game \"{1}\"; choose wizard, "
	    "birdhead or sticheln.",
	[MSG_JOINED] = "{1} joins {2} ({3} seated, {4}-{5} players; "
	    "{6}start when ready).",
	[MSG_ALREADY_SEATED] = "You already have a seat here.",
	[MSG_TABLE_FULL] = "The table is full ({1} seats).",
	[MSG_LEFT_LOBBY] = "{1} leaves the table.",
	[MSG_TABLE_CLOSED] = "The table is closed.",
	[MSG_OPTION_SET] = "Options: {1}",
	[MSG_OPTIONS_NONE] = "none",
	[MSG_OPTIONS_UNFIT] = "Not playable with {1} seated: {2}",
	[MSG_OPTIONS_LIST] = "Options: {1}. Available: {2}. "
	    "{3}option NAME[=VALUE] ... toggles or sets them.",
	[MSG_BAD_NUMBER] = "\"{1}\" is not a number I can use.",
	[MSG_BAD_CARD] = "\"{1}\" is not a card of this game.",
	[MSG_BAD_SUIT] = "\"{1}\" is not a suit: r, y, g or b.",
	[MSG_WHICH_TABLE] = "You sit at several tables ({2}); name one, "
	    "e.g. {1} {3} ...",
	[MSG_NO_TABLES] = "You have no seat at any table.",
	[MSG_PRIVATE_ONLY] = "Say that in the table's channel.",
	[MSG_BOT_ADDED] = "{1} ({2}) joins ({3} seated, {4}-{5} players).",
	[MSG_BAD_LEVEL] = "Unknown level \"{1}\": easy, normal or hard.",
	[MSG_NO_SUCH_SEAT] = "Nobody called \"{1}\" sits here.",
	[MSG_SEAT_AMBIGUOUS] = "More than one seat here goes by \"{1}\"; "
	    "name the one you mean by the user id the table shows.",
	[MSG_NOT_REPLACEABLE] = "{1} plays their own seat.",
	[MSG_REPLACED] = "{1} takes over the seat of {2}.",
	[MSG_BACK] = "Welcome back, {1}: your seat is yours again.",
	[MSG_NOT_AWAY] = "Your seat is already yours.",
	[MSG_STOP_VOTE] = "{1} votes to stop the game ({2} of {3} "
	    "{3|vote|votes} needed; {4}stop to agree).",
	[MSG_STOPPED] = "The game is stopped.",
	[MSG_LANG_SET] = "Language: English.",
	[MSG_BAD_LANG] = "Unknown language \"{1}\": en or ja.",
	[MSG_HELP] = "Commands: {1}. {2}help COMMAND tells more.",
	[MSG_HELP_COMMAND] = " (also: {1})",
	[MSG_STATS] = "{1} in {2}: {3} {3|game|games}, {4} {4|win|wins}, "
	    "average {5}",
	[MSG_STATS_WIZARD] = ", exact bids {1}% of {2} {2|round|rounds}",
	[MSG_STATS_NONE] = "No finished games for {1} yet.",
	[MSG_TOP] = "Best in {1}:",
	[MSG_TOP_NONE] = "No finished games of {1} yet.",
	[MSG_NOT_ADMIN] = "Only the bot's admins may do that.",
	[MSG_KICKED] = "An admin gave {1}'s seat to a computer ({2}back "
	    "or {2}replace to take it).",
	[MSG_RESUMED] = "The game resumes where it stopped.",
	[MSG_RECONNECTED] = "I am back online; the game goes on.",
	[MSG_SAVING_AGAIN] = "I can save again; the game goes on.",
	[MSG_BACK_IN_CHANNEL] = "I am back; what was said here while I was "
	    "away never reached me.",
	[MSG_GOODBYE] = "I am restarting; this game resumes as soon as I "
	    "am back.",
	[MSG_GOODBYE_STORE_LOST] = "I am stopping; as I could not save this "
	    "game, it goes on only once my operator has repaired the store.",
	[MSG_SET_DONE] = "Channel setting {1} = {2}.",
	[MSG_BAD_SETTING] = "Cannot set {1} to \"{2}\" (game, lang, prefix, "
	    "timer, formatting on|off).",
	[MSG_RELOADED] = "Configuration reloaded.",
	[MSG_RELOAD_FAILED] = "Reload failed: {1}",
	[MSG_BOT_STATUS] = "Up {1} s; {2} {2|network|networks}, {3} "
	    "{3|table|tables}, {4} {4|game|games} running, {5} "
	    "{5|message|messages} queued.",
	[MSG_RESTARTED] = "The game restarts with the same players.",
	[MSG_STATUS_STORE_FAILED] = "The store has failed (the log says why): "
	    "no game can be saved until it is repaired and I am restarted.",
	[MSG_NOTHING_TO_DO] = "Nothing to do.",
	[MSG_WELCOME_BACK] = "Welcome back, {1}: say {2}back to take your "
	    "seat again.",
	[MSG_ANY_CARD] = "(any card)",
	[MSG_PARTING] = "Leaving this room as an admin asked. Goodbye!",
	[MSG_PLAY_COUNT] = "({1} cards, e.g. {2})",
	[MSG_SLOW_DOWN] = "Too many commands at once: I am ignoring yours "
	    "for a few seconds.",
	[MSG_TOO_LONG] = "That command is too long.",
	[CMD_GAME] = "{1}game NAME · choose the game: wizard, birdhead, "
	    "sticheln",
	[CMD_JOIN] = "{1}join · take a seat at the table",
	[CMD_LEAVE] = "{1}leave · give up your seat (a computer takes it "
	    "during a game)",
	[CMD_START] = "{1}start · deal the first round",
	[CMD_OPTION] = "{1}option [NAME[=VALUE] ...] · list, toggle or "
	    "set options",
	[CMD_BID] = "{1}bid N · how many tricks you will take",
	[CMD_TRUMP] = "{1}trump SUIT · choose trump after a turned Wizard "
	    "(r, y, g, b)",
	[CMD_PLAY] = "{1}play CARD... · play a card (BirdHead: up to three "
	    "of one rank)",
	[CMD_SELECT] = "{1}select CARD · choose your penalty card "
	    "(privately)",
	[CMD_HAND] = "{1}hand · your cards, privately",
	[CMD_STATUS] = "{1}status · phase, turn, trick and scores",
	[CMD_SCORES] = "{1}scores · the score sheet (after a game: how it "
	    "ended)",
	[CMD_ADDBOT] = "{1}addbot [easy|normal|hard] · seat a computer "
	    "player (in a full lobby, {1}join takes a computer's seat)",
	[CMD_REPLACE] = "{1}replace NAME · take over a computer's seat, or "
	    "one its owner gave up or left the channel from",
	[CMD_BACK] = "{1}back · take your seat back from the computer",
	[CMD_STOP] = "{1}stop · vote to stop the game",
	[CMD_HELP] = "{1}help [COMMAND] · this help",
	[CMD_LANG] = "{1}lang en|ja · the table's language",
	[CMD_STATS] = "{1}stats [NAME] · games, wins and averages",
	[CMD_TOP] = "{1}top [GAME] · the best players",
	[CMD_ADMIN] = "{1}admin status|reload|stop|restart|part|kick NAME|"
	    "set KEY VALUE · for the bot's admins",
	/* newcomer (issue 17) */
	[MSG_YOU] = "You",
	[MSG_YOU_JOIN] = "You join {2} ({3} seated, {4}-{5} players; "
	    "{6}start when ready).",
	[MSG_YOU_LEAVE] = "You leave the table.",
	[MSG_YOU_BID] = "You bid {2}",
	[MSG_YOU_HAVE_BID] = "You have bid ({2} to go)",
	[MSG_YOU_CHOOSE_TRUMP] = "You choose trump",
	[MSG_YOU_HAVE_SELECTED] = "You have selected ({2} to go)",
	[MSG_YOU_TAKE_TRICK] = "You take the trick",
	[MSG_YOU_VOTE_STOP] = "You vote to stop the game ({2} of {3} "
	    "{3|vote|votes} needed; {4}stop to agree).",
	[MSG_YOUR_TURN] = "your turn {1}",
	[MSG_SECRET_HINT] = "This is secret: send {1} privately to {2}.",
	[MSG_SECRET_HINT_TYPE] = "This is secret: type {1} (without {2}), "
	    "and only you see it.",
	[MSG_BIDS_HIDDEN_TYPE] = "bids are hidden: type bid N (without {1})",
	[MSG_SELECT_TYPE] = "select your penalty card in secret: type "
	    "select CARD (without {1})",
	[MSG_DID_YOU_MEAN] = "Unknown command \"{1}\"; did you mean {2}? "
	    "({3}help lists them all)",
	[MSG_RANKING] = "Ranking:",
	[MSG_SHEET_LEGEND_BIDS] = "Each round: tricks won/bid, then the "
	    "round's points.",
	[MSG_SHEET_LEGEND_SELECTED] = "Each round: the penalty card you "
	    "selected, then the round's points.",
	[MSG_SHEET_LEGEND_PENALTY] = "Each round: penalty points (the lowest "
	    "total wins; 22 ends the game).",
	[MSG_LINE_TOO_LONG] = "That line is too long (more than {1} "
	    "characters): nothing was done.",
	[MSG_PLAY_AGAIN] = "Another game? y: the same table again; n or "
	    "quit: leave. !stats and !top show the records.",
	[MSG_RULES_UNKNOWN] = "No rules called \"{1}\": try wizard, "
	    "birdhead, sticheln or an option name ({2}option lists them).",
	[MSG_RULES_MORE] = "More: {1}rules OPTION for an option, {1}help "
	    "for the commands; the full rules are in docs/rules.md.",
	[MSG_RULES_WIZARD] = "Wizard: 60 cards, 4 suits 1-13, 4 Wizards (W) "
	    "and 4 Jesters (J). Round k deals k cards; the next card turned "
	    "up sets trump (Wizard: the dealer picks, Jester: none). Everyone "
	    "bids how many tricks they will take. Follow the led suit if you "
	    "can; W and J may always be played. The first Wizard wins, else "
	    "the highest trump, else the highest of the led suit. An exact "
	    "bid scores 20 + 10 per trick, a miss -10 per trick off.",
	[MSG_RULES_BIRDHEAD] = "BirdHead: 50 cards, five of each rank 2-11; "
	    "ten cards each. The leader plays 1-3 cards of one rank; each "
	    "other player plays as many, either at least as high as the "
	    "standard card by card (both sorted; the standard is the lead, "
	    "then each play that met it) or their lowest cards. The single "
	    "highest card takes the "
	    "trick (a tie: the later one). With one card left each, the "
	    "highest cards lose and add their rank as penalty; at 22 the game "
	    "ends and the lowest penalty wins.",
	[MSG_RULES_STICHELN] = "Sticheln: 15 cards each; every round each "
	    "player secretly selects a penalty card, whose colour is their "
	    "penalty colour. No need to follow: every colour but the led one "
	    "is trump, zeros never win. Highest trump wins, else the highest "
	    "of the led colour. Each captured card scores +1, a card of your "
	    "penalty colour minus its rank, and your selected card minus its "
	    "rank. Five rounds; the highest total wins.",
	[MSG_RULE_NOTEQUAL] = "notequal: the last bidder may not make the "
	    "bids add up to the cards dealt.",
	[MSG_RULE_EVENBID] = "evenbid: as notequal, but only while the "
	    "dealer alone leads the scores.",
	[MSG_RULE_CANADIAN] = "canadian: as evenbid, but the dealer may "
	    "always bid 0.",
	[MSG_RULE_HARDCORE] = "hardcore: from rounds of 4 cards on, the "
	    "dealer may never make the bids add up to the cards dealt.",
	[MSG_RULE_HIDDENTIP] = "hiddentip: everyone bids at once, in secret; "
	    "the bids are shown when the last one is in.",
	[MSG_RULE_SECRET] = "secret: bids are made at once, in secret, and "
	    "stay hidden until the round is scored.",
	[MSG_RULE_QUICK] = "quick: hands grow by two cards a round (1, 3, "
	    "5, ... with 4 players; 2, 4, 6, ... otherwise).",
	[MSG_RULE_ROUNDS] = "rounds=N: play only the first N rounds.",
	[MSG_RULE_AMIGO] = "amigo: the Amigo tournament's ten rounds, for 3 "
	    "to 5 players.",
	[MSG_RULE_CUSTOM6] = "custom6: six rounds of set sizes, from one "
	    "card to the whole deck.",
	[MSG_RULE_NANNIE] = "nannie=K: hands shrink from the largest to one "
	    "card; every K rounds (2 or 3) the lowest total is out.",
	[MSG_RULE_JESTERBID] = "jesterbid: nobody bids (every bid is 0), and "
	    "the first Jester played wins the trick outright.",
	[MSG_RULE_CLAIRVOYANCE] = "clairvoyance: in the one-card first "
	    "round you see everyone's card but your own.",
	[MSG_RULE_DM] = "dm: four rounds instead of five.",
	[CMD_RULES] = "{1}rules [GAME|OPTION] · the rules in short",
	[MSG_YOU_STANDIN] = "A computer plays your seat now; say {2}back to "
	    "take it again.",
	[MSG_PLAY_RESUMING] = "Your unfinished game from last time goes on "
	    "(!stop ends it; then y deals a new one).",
	/* settings: channel settings and option refusals. */
	[MSG_BAD_SETTING_PREFIX] = "Cannot set prefix to \"{1}\": 1-4 "
	    "punctuation characters, e.g. !",
	[MSG_BAD_SETTING_TIMER] = "Cannot set timer to \"{1}\": 0 (no "
	    "timer) or 10-3600 seconds.",
	[MSG_BAD_SETTING_FORMATTING] = "Cannot set formatting to \"{1}\": "
	    "on or off.",
	/* Option refusals, as the engines write them in English (game.h). */
	[MSG_REFUSAL_BAD_NAME] = "Unknown option \"{1}\".",
	[MSG_REFUSAL_UNKNOWN] = "Unknown option \"{1}\" for {6}.",
	[MSG_REFUSAL_NEEDS_VALUE] = "Option {1} needs a value ({1}={3}..{4}).",
	[MSG_REFUSAL_NEEDS_NUMBER] = "Option {1} needs a number from {3} to "
	    "{4}.",
	[MSG_REFUSAL_ON_OFF] = "Option {1} is on or off.",
	[MSG_REFUSAL_RANGE] = "Option {1} takes a number from {3} to {4}.",
	[MSG_REFUSAL_COMBINED] = "Options {1} and {2} cannot be combined.",
	[MSG_REFUSAL_AT_ONCE] = "Option {1} cannot be combined with {2}: bids "
	    "are made at once.",
	[MSG_REFUSAL_NO_BIDDING] = "Option {1} cannot be combined with {2}: "
	    "there is no bidding.",
	[MSG_REFUSAL_BOTH_ROUNDS] = "Options {1} and {2} cannot be combined: "
	    "both set the rounds.",
	[MSG_REFUSAL_PLAYERS] = "Option {1} is for {3} to {4} players, not "
	    "{5}.",
	[MSG_REFUSAL_TOO_LONG] = "Option {1}={3} is longer than the game's {4} "
	    "rounds.",
	[MSG_REFUSAL_STARTS_HIGH] = "Option {1} needs a first round of one "
	    "card; {2} starts high.",
	[MSG_REFUSAL_FIRST_ROUND] = "Option {1} needs a first round of one "
	    "card; this schedule starts with {3}.",
	[MSG_LEVEL_EASY] = "easy",
	[MSG_LEVEL_NORMAL] = "normal",
	[MSG_LEVEL_HARD] = "hard",
	/* seats: who may take a seat, and replies about one's own */
	[MSG_OWNER_HERE] = "{1} is still here or may come back soon: only "
	    "they can take their seat back ({2}back).",
	[MSG_SEAT_TAKEN] = "{1} has taken over your seat; {2}join at the "
	    "next game.",
	[MSG_STANDIN_NOTE] = "A computer plays your seat; say {1}back to "
	    "take it again.",
	[MSG_ALREADY_BID] = "You have already bid.",
	[MSG_ALREADY_SELECTED] = "You have already chosen your penalty card.",
	[MSG_GAME_NO_BIDS] = "{1} has no bids.",
	[MSG_GAME_NO_TRUMP] = "{1} has no trump to choose.",
	[MSG_GAME_NO_SELECT] = "{1} has no penalty card to choose.",
	[MSG_NOT_HELD] = "You do not hold {1}.",
	[MSG_STATUS_LOBBY_EMPTY] = "open table, nobody seated yet ({1}-{2} "
	    "players; {3}join to sit down).",
	/* private channels lost (a rejected Matrix direct room) */
	[MSG_PRIVATE_LOST] = ": I could not reach you privately; accept my "
	    "invitation or say {1}hand.",
	/* economy: replies that say no more than needed */
	[MSG_NOT_AT_TABLE] = "You have no seat at the table in {1}.",
	[MSG_ANOTHER_GAME] = "Another game with the same options? {1}join "
	    "and {1}start.",
};

/*
 * test_bot.c - the bot core through the in-memory adapter: scripted
 * conversations that play whole games by commands alone, misuse every
 * command, and check that nothing private ever reaches a channel.
 *
 * The players here choose their moves from the engine's legal actions (a
 * test may look), but everything they do goes through the commands people
 * type, and everything checked is what the adapter was asked to send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "channel_lines.h"
#include "ai.h"
#include "bot_test.h"
#include "log.h"
#include "loop.h"
#include "memory.h"
#include "present.h"
#include "store.h"
#include "wizard.h"

struct fx {
	int checked_actions;     /* actions already seen by the check */
	struct loop *loop;
	struct store *store;
	struct bot *bot;
	struct adapter *adapter;
	char path[64];
	size_t checked;          /* channel lines already checked */
	/* Each person's command burst; 0: no limit (scripted games are fast). */
	int command_burst;
	/* The bot's grace (struct bot_settings; 0: the default). */
	int grace;
	/* The network's configured prefixes; NULL: "!/". */
	const char *prefixes;
	/* 1: the next bot is not connected until the test runs the loop. */
	int connect_later;
	/* The network's default options (a JSON array); NULL: none. */
	const char *options;
};

static struct bot *
fx_bot(struct fx *f)
{
	struct bot_settings settings;
	struct config_channel defaults;
	char err[256];
	struct bot *bot;

	memset(&settings, 0, sizeof(settings));
	settings.seed = 42;
	settings.computer_delay_ms = 500;
	settings.ai_budget_ms = 5;
	settings.command_burst = f->command_burst > 0 ? f->command_burst : -1;
	settings.command_interval_ms = 1000;
	settings.grace = f->grace;
	bot = bot_create(f->loop, f->store, &settings, err, sizeof(err));
	assert_non_null(bot);
	memset(&defaults, 0, sizeof(defaults));
	defaults.prefixes = f->prefixes != NULL ? (char *)f->prefixes : "!/";
	defaults.turn_timer = 120;
	defaults.game = "wizard";
	if (f->options != NULL)
		defaults.options = json_loads(f->options, 0, NULL);
	f->adapter = bot_add_adapter(bot, &memory_adapter, "test", NULL,
	    &defaults, err, sizeof(err));
	json_decref(defaults.options);
	assert_non_null(f->adapter);
	assert_int_equal(bot_start(bot), 0);
	/* The medium says it is connected from the loop, as real ones do. */
	if (!f->connect_later)
		loop_advance(f->loop, 0);
	return bot;
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];
	int fd;

	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "/tmp/test_bot_XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	unlink(f->path);
	f->loop = loop_create(1);
	f->store = store_open(f->path, err, sizeof(err));
	assert_non_null(f->store);
	f->bot = fx_bot(f);
	*state = f;
	return 0;
}

/* The bot goes away (crash: no goodbye) and comes back on the same store. */
static void
fx_restart(struct fx *f, int clean)
{
	char err[256];

	if (clean)
		bot_stop(f->bot, "bye");
	bot_destroy(f->bot);
	store_close(f->store);
	f->store = store_open(f->path, err, sizeof(err));
	assert_non_null(f->store);
	f->bot = fx_bot(f);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char side[80];

	bot_stop(f->bot, NULL);
	bot_destroy(f->bot);
	store_close(f->store);
	loop_destroy(f->loop);
	unlink(f->path);
	snprintf(side, sizeof(side), "%s-wal", f->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	unlink(side);
	free(f);
	return 0;
}

static void say(struct fx *, const char *, const char *, const char *, ...)
    __attribute__((format(printf, 4, 5)));

static void
say(struct fx *f, const char *channel, const char *who, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	memory_say(f->adapter, channel, who, who, line);
}

/* The last line sent to channel (NULL: to user privately), or "". */
static const char *
last_to(struct fx *f, const char *channel, const char *user)
{
	for (size_t i = memory_count(f->adapter); i-- > 0;) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if (channel != NULL && l->channel != NULL &&
		    strcmp(l->channel, channel) == 0)
			return l->text;
		if (channel == NULL && l->channel == NULL && user != NULL &&
		    strcmp(l->user_id, user) == 0)
			return l->text;
	}
	return "";
}

/* The last line in channel answers who by name: "who: text". */
static void
assert_addressed(struct fx *f, const char *channel, const char *who,
    const char *text)
{
	char expect[1024];

	snprintf(expect, sizeof(expect), "%s: %s", who, text);
	assert_string_equal(last_to(f, channel, NULL), expect);
}

/* Whether any line since mark contains needle (NULL channel: private). */
static int
sent_since(struct fx *f, size_t mark, const char *channel, const char *needle)
{
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if ((channel == NULL) != (l->channel == NULL))
			continue;
		if (channel != NULL && strcmp(l->channel, channel) != 0)
			continue;
		if (strstr(l->text, needle) != NULL)
			return 1;
	}
	return 0;
}

static struct table *
table_of(struct fx *f, const char *channel)
{
	return bot_table(f->bot, f->adapter, channel);
}

/*
 * Every channel line sent since the last check may not name a card that
 * is still in some hand (unique cards only: Wizard's suited cards and all
 * Sticheln cards), nor a hidden bid.
 */
static void
check_channel_private(struct fx *f, const char *channel)
{
	struct table *table = table_of(f, channel);
	size_t n = memory_count(f->adapter);

	if (table == NULL || table_game(table) == NULL ||
	    strcmp(table_impl(table)->name, "birdhead") == 0) {
		f->checked = n;
		f->checked_actions = 0;
		return;
	}
	if (f->checked_actions > table_game(table)->nactions)
		f->checked_actions = 0;
	for (int seat = 0; seat < table_nseats(table); seat++) {
		json_t *view = table_impl(table)->view(table_game(table)->state, seat);
		json_t *hand = json_object_get(view, "hand");
		size_t i;
		json_t *code;

		json_array_foreach(hand, i, code) {
			const char *c = json_string_value(code);

			if (strcmp(c, "W") == 0 || strcmp(c, "J") == 0 ||
			    channel_played_since(table, f->checked_actions, c))
				continue;
			for (size_t k = f->checked; k < n; k++) {
				const struct memory_line *l =
				    memory_line(f->adapter, k);

				char visible[4096];

				if (l->channel == NULL)
					continue;
				channel_outside_sheets(l->marked, visible,
				    sizeof(visible));
				if (channel_has_word(visible, c, 0))
					fail_msg("channel line names %s held "
					    "by seat %d: %s", c, seat, l->text);
			}
		}
		json_decref(view);
	}
	f->checked = n;
	f->checked_actions = table_game(table)->nactions;
}

/* How many lines since mark contain needle (channel NULL: any). */
static int
count_since(struct fx *f, size_t mark, const char *needle)
{
	int n = 0;

	for (size_t i = mark; i < memory_count(f->adapter); i++)
		n += strstr(memory_line(f->adapter, i)->text, needle) != NULL;
	return n;
}

/*
 * A card of human's hand that no legal move plays, typed in the channel:
 * the channel hears only that it was refused (nothing of the hand, no
 * suit word), the player privately why, and the game does not change.
 */
static void
try_illegal(struct fx *f, const char *channel, struct table *table,
    int human, const struct action *legal, int k)
{
	json_t *view = table_impl(table)->view(table_game(table)->state, human);
	json_t *hand = json_object_get(view, "hand"), *code;
	int nactions = table_game(table)->nactions;
	const char *user = table_seat(table, human)->user_id;
	size_t i, mark;

	json_array_foreach(hand, i, code) {
		int face = table_impl(table)->parse_card(json_string_value(code));
		int ok = 0;

		for (int a = 0; a < k && !ok; a++)
			ok = legal[a].ncards == 1 && legal[a].cards[0] == face;
		if (ok || table_impl(table)->max_play_cards != 1)
			continue;
		mark = memory_count(f->adapter);
		say(f, channel, user, "!play %s", json_string_value(code));
		assert_int_equal(table_game(table_of(f, channel))->nactions,
		    nactions);
		for (size_t l = mark; l < memory_count(f->adapter); l++) {
			const struct memory_line *line =
			    memory_line(f->adapter, l);

			/* In the channel's language (test_japanese). */
			if (line->channel != NULL) {
				const char *said = line->text;

				/* Addressed: "name: ...". */
				assert_true(strncmp(said, user,
				    strlen(user)) == 0);
				said += strlen(user);
				assert_true(strcmp(said, ": ") > 0);
				said += 2;
				assert_true(strcmp(said, catalog_en[
				    MSG_REFUSED_PRIVATELY]) == 0 ||
				    strcmp(said, catalog_ja[
				    MSG_REFUSED_PRIVATELY]) == 0);
			} else {
				assert_string_equal(line->user_id, user);
			}
		}
		assert_true(count_since(f, mark, "is not allowed now") +
		    count_since(f, mark, "は今は出せません") == 1);
		break;
	}
	json_decref(view);
}

/*
 * Plays until the game ends: people act by commands (privately in
 * simultaneous phases, otherwise in the channel, in a varying order),
 * computers by the clock.  Returns the number of commands typed.
 */
static int
play_out(struct fx *f, const char *channel, int pick)
{
	int typed = 0;

	for (int guard = 0; guard < 20000; guard++) {
		struct table *table = table_of(f, channel);
		int acting[GAME_MAX_SEATS];
		int n, human = -1;
		enum game_phase phase;

		check_channel_private(f, channel);
		if (table == NULL || table_game(table) == NULL)
			return typed;
		phase = table_impl(table)->phase(table_game(table)->state);
		n = table_impl(table)->to_act(table_game(table)->state, acting);
		for (int i = 0; i < n; i++) {
			/* The order of simultaneous moves varies. */
			int seat = acting[(i + pick + typed) % n];

			if (!table_seat(table, seat)->computer &&
			    !table_seat(table, seat)->standin) {
				human = seat;
				break;
			}
		}
		if (human < 0) {
			loop_advance(f->loop, 600);
			continue;
		}
		{
			struct action legal[GAME_MAX_ACTIONS];
			int k = table_impl(table)->legal(table_game(table)->state, human,
			    legal, GAME_MAX_ACTIONS);
			char cmd[64];
			const char *id = table_seat(table, human)->user_id;
			char user[64];

			assert_true(k > 0);
			if (phase == PHASE_PLAY && typed % 3 == 0)
				try_illegal(f, channel, table, human, legal,
				    k);
			commands_for_action(table_impl(table),
			    &legal[(pick * 7 + typed) % k],
			    cmd, sizeof(cmd));
			snprintf(user, sizeof(user), "%s", id);
			if (phase == PHASE_BID_SIMULTANEOUS ||
			    phase == PHASE_SELECT)
				say(f, NULL, user, "%s", cmd);
			else
				say(f, channel, user, "!%s", cmd);
			typed++;
		}
	}
	fail_msg("the game did not end");
	return typed;
}

/* Exports the channel's last game and replays it: the live result. */
static int
export_cb(const struct store_game *g, void *arg)
{
	json_t **out = arg;

	json_decref(*out);
	*out = json_deep_copy(g->record);
	return 0;
}

static void
check_export_replays(struct fx *f, const char *channel, int finished)
{
	json_t *record = NULL, *output = NULL;
	int rc;

	store_each_game(f->store, channel, 0, 1, export_cb, &record);
	assert_non_null(record);
	rc = replay_record(record, &output);
	assert_int_equal(rc, 0);
	assert_true(json_is_true(json_object_get(output, "finished")) ==
	    finished);
	/* The totals the channel saw last are the replayed scores. */
	{
		const char *total = NULL;
		json_t *scores = json_object_get(output, "scores");
		size_t i;
		json_t *v;

		for (size_t k = memory_count(f->adapter); k-- > 0;) {
			const struct memory_line *l = memory_line(f->adapter, k);

			if (l->channel != NULL && strcmp(l->channel,
			    channel) == 0 && (total = strstr(l->text,
			    "\nTotal")) != NULL)
				break;
		}
		assert_non_null(total);
		total += strlen("\nTotal");
		json_array_foreach(scores, i, v) {
			char *end;
			long seen = strtol(total, &end, 10);

			assert_true(end != total);
			assert_int_equal(seen, json_integer_value(v));
			total = end;
		}
	}
	json_decref(record);
	json_decref(output);
}

static void
seat_three(struct fx *f, const char *channel, const char *game)
{
	say(f, channel, "alice", "!game %s", game);
	say(f, channel, "alice", "!join");
	say(f, channel, "bob", "!j");
	say(f, channel, "carol", "/JOIN");
	assert_int_equal(table_nseats(table_of(f, channel)), 3);
}

/* How many lines since mark to channel (NULL: to user privately) hold needle. */
static int
count_to(struct fx *f, size_t mark, const char *channel, const char *user,
    const char *needle)
{
	int n = 0;

	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if ((channel == NULL) != (l->channel == NULL) ||
		    (channel != NULL && strcmp(l->channel, channel) != 0) ||
		    (channel == NULL && strcmp(l->user_id, user) != 0))
			continue;
		n += strstr(l->text, needle) != NULL;
	}
	return n;
}

/*
 * Nannie: the seat with the lowest total after round 2 of 4 leaves.  The
 * channel is told who, the seat is dealt nothing more and told nothing,
 * and the final ranking puts it last whatever its frozen total (it
 * cannot win; before, the ranking sorted totals alone and could put it
 * first under a "Winner:" naming someone else).
 */
static void
test_wizard_nannie(void **state)
{
	static const char *const people[] = { "alice", "bob", "carol" };
	struct fx *f = *state;
	const char *line, *out, *rank;
	char name[32];
	int once = 0;
	size_t mark = memory_count(f->adapter);

	seat_three(f, "#n", "wizard");
	say(f, "#n", "alice", "!option nannie=2 rounds=4");
	assert_non_null(strstr(last_to(f, "#n", NULL), "nannie=2"));
	say(f, "#n", "bob", "!start");
	play_out(f, "#n", 0);
	assert_null(table_of(f, "#n"));
	assert_int_equal(count_to(f, mark, "#n", NULL,
	    "out of the game with the lowest total: "), 1);
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		line = memory_line(f->adapter, i)->text;
		if ((out = strstr(line, "lowest total: ")) != NULL)
			break;
	}
	out += strlen("lowest total: ");
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(out, " \n"), out);
	/* Rounds 3 and 4 deal it nothing and tell it nothing. */
	for (int i = 0; i < 3; i++) {
		int later = count_to(f, mark, NULL, people[i],
		    "Round 3, your hand") + count_to(f, mark, NULL, people[i],
		    "Round 4, your hand");
		/* A refused move says the hand again: at least once. */
		assert_true(count_to(f, mark, NULL, people[i],
		    "Round 2, your hand") >= 1);
		if (strcmp(people[i], name) == 0) {
			assert_int_equal(later, 0);
			once++;
		} else {
			assert_true(later >= 2);
		}
	}
	assert_int_equal(once, 1);
	/* The one out is ranked third, below both who played on. */
	for (size_t i = memory_count(f->adapter); i-- > mark;) {
		line = memory_line(f->adapter, i)->text;
		if ((rank = strstr(line, "Ranking: ")) != NULL)
			break;
	}
	assert_non_null(rank);
	assert_non_null(strstr(rank, "3. "));
	assert_true(strncmp(strstr(rank, "3. ") + 3, name,
	    strlen(name)) == 0);
	check_export_replays(f, "#n", 1);
}

static void
test_wizard_three_people(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#w", "wizard");
	say(f, "#w", "alice", "!option notequal");
	assert_non_null(strstr(last_to(f, "#w", NULL), "notequal"));
	say(f, "#w", "bob", "!start");
	assert_non_null(table_game(table_of(f, "#w")));
	/* Hands go privately to each player. */
	assert_non_null(strstr(last_to(f, NULL, "carol"), "[#w]"));
	play_out(f, "#w", 1);
	assert_null(table_of(f, "#w"));
	assert_true(sent_since(f, 0, "#w", "Game over"));
	assert_true(sent_since(f, 0, "#w", "Total"));
	/*
	 * Between the first round and the last, a round's end shows that
	 * round and the totals, not the rounds before again; the legend
	 * comes with the first sheet and the last, which has every round.
	 */
	{
		const char *legend = "Each round: tricks won/bid";
		int ends = 0;

		for (size_t i = 0; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter, i);
			const char *text = l->text;

			if (l->channel == NULL || strcmp(l->channel, "#w") != 0 ||
			    strstr(text, " is over.\nRound ") == NULL)
				continue;
			ends++;
			assert_non_null(strstr(text, "\nTotal "));
			if (strstr(text, "\nRound 1 is over.") != NULL) {
				assert_non_null(strstr(text, legend));
			} else if (strstr(text, "\nRound 20 is over.") != NULL) {
				assert_non_null(strstr(text, "\n1 "));
				assert_non_null(strstr(text, "\n19 "));
				assert_non_null(strstr(text, legend));
			} else {
				assert_null(strstr(text, "\n1 "));
				assert_null(strstr(text, legend));
			}
		}
		assert_int_equal(ends, 20);
	}
	check_export_replays(f, "#w", 1);
	/* Another game is offered, and the next lobby keeps the options. */
	assert_true(sent_since(f, 0, "#w", "Another game with the same "
	    "options? !join and !start."));
	say(f, "#w", "alice", "!join");
	say(f, "#w", "alice", "!option");
	assert_non_null(strstr(last_to(f, "#w", NULL), "Options: notequal"));
}

/*
 * !scores once a game is over tells how it ended and when, in its channel,
 * from the store: after a restart too, and while a new lobby fills.  A
 * game stopped before its end leaves no "last one" (an older game would
 * mislead).
 */
static void
test_scores_after_the_end(void **state)
{
	struct fx *f = *state;
	const char *got;

	seat_three(f, "#e", "birdhead");
	say(f, "#e", "alice", "!start");
	play_out(f, "#e", 2);
	assert_null(table_of(f, "#e"));
	say(f, "#e", "bob", "!scores");
	got = last_to(f, "#e", NULL);
	assert_non_null(strstr(got, "No game is running here; the last one, "
	    "BirdHead, has just ended:\nGame over. Winner: "));
	assert_non_null(strstr(got, "\nRanking: 1. "));
	loop_advance(f->loop, 5 * 60 * 1000);
	fx_restart(f, 0);
	say(f, "#e", "bob", "!scores");
	assert_non_null(strstr(last_to(f, "#e", NULL), "the last one, "
	    "BirdHead, ended 5 minutes ago:\nGame over. Winner: "));
	loop_advance(f->loop, 3 * 3600 * 1000);
	say(f, "#e", "carol", "!join");
	say(f, "#e", "carol", "!scores");
	assert_non_null(strstr(last_to(f, "#e", NULL), "ended 3 hours ago:"));
	/* Nothing is kept for another channel. */
	say(f, "#x", "carol", "!scores");
	assert_non_null(strstr(last_to(f, "#x", NULL),
	    "No game is running here; !join opens a table."));
	/* A game stopped halfway: none to tell of. */
	say(f, "#e", "alice", "!join");
	say(f, "#e", "bob", "!join");
	say(f, "#e", "carol", "!start");
	assert_non_null(table_game(table_of(f, "#e")));
	say(f, "#e", "alice", "!stop");
	say(f, "#e", "bob", "!stop");
	assert_null(table_of(f, "#e"));
	say(f, "#e", "bob", "!scores");
	assert_non_null(strstr(last_to(f, "#e", NULL),
	    "No game is running here; !join opens a table."));
}

static void
test_birdhead_with_computers(void **state)
{
	struct fx *f = *state;

	say(f, "#b", "alice", "!game birdhead");
	say(f, "#b", "alice", "!join");
	say(f, "#b", "alice", "!addbot");
	say(f, "#b", "alice", "!addbot hard");
	assert_int_equal(table_nseats(table_of(f, "#b")), 3);
	say(f, "#b", "alice", "!start");
	play_out(f, "#b", 2);
	assert_true(sent_since(f, 0, "#b", "Game over"));
	check_export_replays(f, "#b", 1);
}

static void
test_sticheln_three_people(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#s", "sticheln");
	say(f, "#s", "carol", "!start");
	/* A penalty card said in the channel would give it away. */
	say(f, "#s", "alice", "!select r1");
	assert_non_null(strstr(last_to(f, "#s", NULL), "privately"));
	play_out(f, "#s", 3);
	assert_true(sent_since(f, 0, "#s", "Game over"));
	check_export_replays(f, "#s", 1);
}

/*
 * A turned Wizard lets the dealer choose trump before hidden bids begin:
 * the line of that choice says how to bid privately, as a deal's would.
 */
static void
test_hidden_bids_after_trump(void **state)
{
	struct fx *f = *state;

	for (int i = 0; i < 200; i++) {
		char channel[16];
		struct table *table;
		int acting[GAME_MAX_SEATS];
		const char *dealer;

		snprintf(channel, sizeof(channel), "#tw%d", i);
		seat_three(f, channel, "wizard");
		say(f, channel, "alice", "!option hiddentip");
		say(f, channel, "alice", "!start");
		table = table_of(f, channel);
		if (table_impl(table)->phase(table_game(table)->state) !=
		    PHASE_TRUMP)
			continue;
		assert_int_equal(table_impl(table)->to_act(
		    table_game(table)->state, acting), 1);
		dealer = table_seat(table, acting[0])->name;
		say(f, channel, dealer, "!trump r");
		assert_int_equal(table_impl(table)->phase(
		    table_game(table)->state), PHASE_BID_SIMULTANEOUS);
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "bids are hidden: send yours privately"));
		return;
	}
	fail_msg("no deal of 200 turned a Wizard");
}

/* Hidden bids in any order stay hidden until the last one is in. */
static void
test_hidden_bids(void **state)
{
	struct fx *f = *state;
	struct table *table;
	const char *order[3] = { "carol", "alice", "bob" };
	size_t mark;

	seat_three(f, "#h", "wizard");
	say(f, "#h", "alice", "!option hiddentip");
	say(f, "#h", "alice", "!start");
	table = table_of(f, "#h");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_BID_SIMULTANEOUS);
	say(f, "#h", "alice", "!bid 1");
	assert_non_null(strstr(last_to(f, "#h", NULL), "privately"));
	assert_int_equal(table_game(table)->nactions, 0);
	mark = memory_count(f->adapter);
	for (int i = 0; i < 3; i++) {
		say(f, NULL, order[i], "bid %d", i == 2 ? 0 : 1);
		if (i < 2) {
			char expect[64];

			snprintf(expect, sizeof(expect),
			    "%s has bid (%d to go)", order[i], 2 - i);
			assert_string_equal(last_to(f, "#h", NULL), expect);
		}
	}
	/* The reveal lists every bid at once. */
	assert_true(sent_since(f, mark, "#h", "alice 1"));
	assert_true(sent_since(f, mark, "#h", "carol 1"));
	assert_true(sent_since(f, mark, "#h", "bob 0"));
}

/*
 * Hidden bids are made at once: one player's bid does not start the
 * others' clock again.  Their reminder comes half a turn after the
 * prompt, and their time is up a turn after it (the turn is 120 s).
 */
static void
test_hidden_bids_one_clock(void **state)
{
	struct fx *f = *state;
	const char *channel = "#hc";
	struct table *table;
	int acting[GAME_MAX_SEATS];
	size_t mark;

	seat_three(f, channel, "wizard");
	say(f, channel, "alice", "!option hiddentip");
	say(f, channel, "alice", "!start");
	table = table_of(f, channel);
	/* A turned Wizard asks the dealer for trump first. */
	if (table_impl(table)->phase(table_game(table)->state) ==
	    PHASE_TRUMP) {
		table_impl(table)->to_act(table_game(table)->state, acting);
		say(f, channel, table_seat(table, acting[0])->user_id,
		    "!trump r");
	}
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_BID_SIMULTANEOUS);
	loop_advance(f->loop, 0);
	assert_int_equal(table_impl(table)->to_act(table_game(table)->state,
	    acting), 3);
	loop_advance(f->loop, 50 * 1000);
	mark = memory_count(f->adapter);
	say(f, NULL, "carol", "bid 0");
	assert_int_equal(table_impl(table)->to_act(table_game(table)->state,
	    acting), 2);
	loop_advance(f->loop, 9 * 1000);
	assert_int_equal(count_since(f, mark, "seconds left"), 0);
	loop_advance(f->loop, 2 * 1000);
	/* Alice and bob, from the prompt at 0 s, not from carol's bid. */
	assert_int_equal(count_since(f, mark, "seconds left"), 2);
	loop_advance(f->loop, 58 * 1000);
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_BID_SIMULTANEOUS);
	loop_advance(f->loop, 2 * 1000);
	assert_true(sent_since(f, mark, channel, "Time is up for alice"));
	assert_int_equal(count_since(f, mark, "seconds left"), 2);
}

static void
test_secret_bids_stay_hidden(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t mark;

	seat_three(f, "#x", "wizard");
	say(f, "#x", "alice", "!option secret");
	say(f, "#x", "alice", "!start");
	mark = memory_count(f->adapter);
	say(f, NULL, "bob", "bid 0");
	say(f, NULL, "alice", "bid 1");
	say(f, NULL, "carol", "bid 0");
	table = table_of(f, "#x");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state), PHASE_PLAY);
	assert_false(sent_since(f, mark, "#x", "alice 1"));
	assert_false(sent_since(f, mark, "#x", "bid for"));
	/* Her own bid she may see at a glance; the others' stay hidden. */
	say(f, "#x", "alice", "!table");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "0/1 · bob"));
	assert_non_null(strstr(last_to(f, NULL, "alice"), "bob 0 0/?"));
	assert_false(sent_since(f, mark, "#x", "0/1"));
}

/* Every command misused: a short answer, and nothing changes. */
static void
test_misuse(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *who, *line, *expect;
	} cases[] = {
		{ "alice", "!frobnicate", "Unknown command" },
		{ "alice", "!game", "Usage: !game NAME" },
		{ "alice", "!game chess", "Unknown game" },
		{ "alice", "!join now", "Usage: !join" },
		{ "alice", "!start", "No game is running here" },
		{ "alice", "!leave", "You have no seat" },
		{ "alice", "!bid 2", "No game is running" },
		{ "alice", "!bid", "Usage: !bid N" },
		{ "alice", "!trump", "Usage: !trump SUIT" },
		{ "alice", "!trump purple", "not a suit" },
		{ "alice", "!select", "Usage: !select CARD" },
		{ "alice", "!hand", "No game is running" },
		{ "alice", "!scores", "No game is running" },
		{ "alice", "!replace", "Usage: !replace NAME" },
		{ "alice", "!back", "No game is running" },
		{ "alice", "!stop", "No game is running" },
		{ "alice", "!lang", "Usage: !lang" },
		{ "alice", "!lang fr", "Unknown language" },
		{ "alice", "!help nothing", "Unknown command" },
		{ "alice", "!addbot genius", "Unknown level" },
		{ "alice", "!admin status", "Only the bot's admins" },
		{ "alice", "!option rounds=99", "Refused" },
		{ "alice", "!option", "Options: none" },
		{ "alice", "!join", "alice joins Wizard" },
		{ "alice", "!join", "already have a seat" },
		{ "alice", "!scores", "The game here has not started yet (1 "
		    "seated; !start when ready)." },
		{ "alice", "!start", "1 seated; this game needs 3 to 6" },
		{ "alice", "!option hiddentip", "Options: hiddentip" },
		{ "alice", "!option notequal", "Refused" },
		{ "alice", "!option hiddentip", "Options: none" },
		/* Options with values toggle too, or go off by name=off. */
		{ "alice", "!option nannie", "Options: nannie=3" },
		{ "alice", "!option nannie", "Options: none" },
		{ "alice", "!option rounds", "needs a value" },
		{ "alice", "!option rounds=4 nannie=2", "Options: rounds=4, "
		    "nannie=2" },
		{ "alice", "!option rounds", "Options: nannie=2" },
		{ "alice", "!option NANNIE=Off", "Options: none" },
		{ "alice", "!option notequal=off", "Options: none" },
		{ "alice", "!status", "open table, 1 seated" },
		{ "alice", "!stats", "No finished games" },
		{ "alice", "!top", "No finished games" },
		{ "alice", "!help", "Commands:" },
		{ "alice", "!help bid", "!bid N" },
		/* Invisible bytes are not read; broken UTF-8 is quoted. */
		{ "alice", "!add\x07""bot genius", "Unknown level" },
		{ "alice", "!top\tx", "Unknown game \"x\"" },
		{ "alice", "!top \xff\xfe", "Unknown game \"\xef\xbf\xbd\"" },
		/* A second line is not glued to the first (Matrix). */
		{ "alice", "!game wiz\nard", "Usage: !game NAME" },
		{ "alice", "!option rounds=1\n5", "Unknown option \"5\"" },
		{ "alice", "!join\n!option rounds=2", "Usage: !join" },
		{ "alice", "!option", "Options: none" },
		{ "alice", "!top\xe2\x80\x8b x", "Unknown game \"x\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got;

		say(f, "#m", cases[i].who, "%s", cases[i].line);
		got = last_to(f, "#m", NULL);
		if (strstr(got, cases[i].expect) == NULL)
			fail_msg("%s: expected \"%s\", got \"%s\"",
			    cases[i].line, cases[i].expect, got);
	}
	/* Ordinary talk is not a command. */
	{
		size_t mark = memory_count(f->adapter);

		say(f, "#m", "bob", "hello there");
		assert_int_equal(memory_count(f->adapter), mark);
	}
	/* In the game: refusals change nothing. */
	say(f, "#m", "bob", "!join");
	say(f, "#m", "carol", "!join");
	say(f, "#m", "carol", "!start");
	{
		struct table *table = table_of(f, "#m");
		int acting[GAME_MAX_SEATS];
		int before = table_game(table)->nactions;
		const char *someone_else;
		size_t mark;

		table_impl(table)->to_act(table_game(table)->state, acting);
		someone_else = table_seat(table, (acting[0] + 1) % 3)->user_id;
		say(f, "#m", someone_else, "!bid 0");
		assert_int_equal(table_game(table)->nactions, before);
		say(f, "#m", "dave", "!bid 0");
		assert_non_null(strstr(last_to(f, "#m", NULL), "no seat"));
		mark = memory_count(f->adapter);
		say(f, "#m", table_seat(table, acting[0])->user_id, "!bid 99");
		assert_int_equal(table_game(table)->nactions, before);
		assert_int_equal(count_since(f, mark, "99 is not allowed now. "
		    "A bid is 0 to 1, the cards dealt."), 1);
		/* The reason, and the bids allowed, go to the bidder alone. */
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "told you why privately"));
		assert_non_null(strstr(last_to(f, NULL,
		    table_seat(table, acting[0])->user_id), "to bid: 0 1"));
		say(f, "#m", table_seat(table, acting[0])->user_id, "!bid -1");
		assert_int_equal(table_game(table)->nactions, before);
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "told you why privately"));
		say(f, "#m", table_seat(table, acting[0])->user_id, "!bid x");
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "not a number"));
		say(f, "#m", table_seat(table, acting[0])->user_id, "!play zz");
		assert_int_equal(table_game(table)->nactions, before);
		say(f, "#m", "dave", "!join");
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "game is running"));
		say(f, "#m", "dave", "!replace alice");
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "plays their own seat"));
		say(f, "#m", "alice", "!option notequal");
		assert_non_null(strstr(last_to(f, "#m", NULL),
		    "game is running"));
		say(f, NULL, "dave", "bid 1");
		assert_non_null(strstr(last_to(f, NULL, "dave"),
		    "no seat at any table"));
		say(f, NULL, "alice", "join");
		assert_non_null(strstr(last_to(f, NULL, "alice"),
		    "in the table's channel"));
		assert_int_equal(table_game(table)->nactions, before);
	}
}

/*
 * One person sends 200 commands at once: the first few are answered, the
 * next gets one private "too many commands" note, the rest are dropped
 * without a word, and the table does not change.  Someone else is not
 * held back, and the flooder is answered again once the allowance has
 * grown back.  A command longer than any command is answered, not cut.
 */
static void
test_command_flood(void **state)
{
	struct fx *f = *state;
	size_t mark;
	int lines_to_channel = 0, notes = 0;
	char longline[700];

	bot_stop(f->bot, NULL);
	bot_destroy(f->bot);
	f->command_burst = 5;
	f->bot = fx_bot(f);
	say(f, "#f", "alice", "!join");
	mark = memory_count(f->adapter);
	for (int i = 0; i < 200; i++)
		say(f, "#f", "mallory", i % 2 == 0 ? "!status" : "!join");
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if (l->channel != NULL)
			lines_to_channel++;
		else if (strcmp(l->user_id, "mallory") == 0 &&
		    strstr(l->text, "Too many commands") != NULL)
			notes++;
	}
	/*
	 * Five taken (the second is the join), one note, nothing else: the
	 * third status is the second's answer again and is not repeated.
	 */
	assert_int_equal(lines_to_channel, 4);
	assert_int_equal(notes, 1);
	assert_int_equal(memory_count(f->adapter) - mark, 5);
	assert_int_equal(table_nseats(table_of(f, "#f")), 2);
	/* Others are not held back. */
	say(f, "#f", "bob", "!join");
	assert_non_null(strstr(last_to(f, "#f", NULL), "bob joins"));
	/*
	 * A second later mallory has one command again; the next refusal
	 * is not told again (once a minute), a minute later it is.
	 */
	loop_advance(f->loop, 1000);
	say(f, "#f", "mallory", "!status");
	assert_non_null(strstr(last_to(f, "#f", NULL), "open table, 3 seated"));
	mark = memory_count(f->adapter);
	say(f, "#f", "mallory", "!status");
	say(f, "#f", "mallory", "!status");
	assert_int_equal(memory_count(f->adapter) - mark, 0);
	loop_advance(f->loop, 60 * 1000);
	for (int i = 0; i < 7; i++)
		say(f, "#f", "mallory", "!help");
	assert_int_equal(count_since(f, mark, "Too many"), 1);
	/* Over-long: a clear answer, and nothing of it is obeyed. */
	loop_advance(f->loop, 10000);
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "!leave ", 7);
	say(f, "#f", "alice", "%s", longline);
	assert_non_null(strstr(last_to(f, "#f", NULL), "too long"));
	assert_int_equal(table_nseats(table_of(f, "#f")), 3);
}

static void act_first(struct fx *f, const char *channel);

/*
 * Private moves of someone seated at several tables: a table they do not
 * sit at is said so; with one game running among their tables a move
 * goes there, and the example of the question names a table where the
 * command can go.
 */
static void
test_private_table_choice(void **state)
{
	struct fx *f = *state;

	say(f, NULL, "alice", "bid #zz 1");
	assert_non_null(strstr(last_to(f, NULL, "alice"),
	    "no seat at the table in #zz"));
	seat_three(f, "#pb", "wizard");
	say(f, "#pb", "alice", "!start");
	say(f, "#pa", "alice", "!join");
	say(f, NULL, "alice", "bid #zz 1");
	assert_non_null(strstr(last_to(f, NULL, "alice"),
	    "no seat at the table in #zz"));
	say(f, NULL, "alice", "hand");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[#pb]"));
	assert_non_null(strstr(last_to(f, NULL, "alice"), "your hand"));
	/* Two games: which one, e.g. one of them. */
	say(f, "#pa", "bob", "!join");
	say(f, "#pa", "carol", "!join");
	say(f, "#pa", "alice", "!start");
	say(f, NULL, "alice", "hand");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "several tables"));
	say(f, NULL, "alice", "hand #pa");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[#pa]"));
	/*
	 * Where private lines call a table by a title (a Matrix room's
	 * name), the question names it so, and the title, quoted or not,
	 * names the table.
	 */
	memory_title(f->adapter, "#pa", "Beta Night");
	say(f, NULL, "alice", "hand");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "several tables "
	    "(#pb, Beta Night); name one, e.g. hand "));
	say(f, NULL, "alice", "hand Beta Night");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[Beta Night]"));
	say(f, NULL, "alice", "hand \"beta night\"");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[Beta Night]"));
	/* Two rooms of one name are told apart by their own names. */
	memory_title(f->adapter, "#pb", "Beta Night");
	say(f, NULL, "alice", "hand");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "several tables "
	    "(#pb, #pa)"));
	say(f, NULL, "alice", "hand #pb");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[#pb]"));
	/* The rules' pointer to more is a line of its own. */
	say(f, "#pa", "carol", "!rules wizard");
	assert_non_null(strstr(last_to(f, "#pa", NULL), "\nMore: !rules "
	    "OPTION"));
}

/*
 * Long words typed are quoted short: every reply that says back what
 * someone typed (a card, a number, a command, a name, a rules topic)
 * quotes at most a few characters of it, then "…".
 */
static void
test_long_words_quoted_short(void **state)
{
	static const char *const commands[] = {
		"!play ", "!bid ", "!", "!help ", "!stats ", "!rules ",
		"!option ", "!game ", "!lang ", "!addbot ", "!trump ", NULL,
	};
	struct fx *f = *state;
	char word[301], digits[301], kana[3 * 140 + 1];
	size_t mark;

	memset(word, 'y', sizeof(word) - 1);
	word[sizeof(word) - 1] = '\0';
	memset(digits, '7', sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	kana[0] = '\0';
	for (int i = 0; i < 140; i++)
		strcat(kana, "あ");
	seat_three(f, "#lw", "wizard");
	say(f, "#lw", "alice", "!start");
	for (int i = 0; commands[i] != NULL; i++) {
		const char *args[] = { word, digits, kana };

		for (int a = 0; a < 3; a++) {
			if (i == 2 && a == 1)
				continue;       /* "!777…" is no command */
			mark = memory_count(f->adapter);
			say(f, "#lw", "alice", "%s%s", commands[i], args[a]);
			assert_true(memory_count(f->adapter) > mark);
			for (size_t l = mark; l < memory_count(f->adapter);
			    l++) {
				const char *text = memory_line(f->adapter,
				    l)->text;

				if (strlen(text) > 200 && strstr(text,
				    "yyyyyyyyyyyyyyyyyyyyyyyyy") != NULL)
					fail_msg("%s: %s", commands[i], text);
				assert_null(strstr(text,
				    "yyyyyyyyyyyyyyyyyyyyyyyyy"));
				assert_null(strstr(text,
				    "7777777777777777777777777"));
				assert_null(strstr(text,
				    "あああああああああああああああああああああああああ"));
			}
		}
	}
	/* The quote is there, cut: "Unknown command "yyy…"". */
	mark = memory_count(f->adapter);
	say(f, "#lw", "alice", "!%s", word);
	assert_int_equal(count_since(f, mark, "yyyyyyyyyyyyyyyyyyyyyyyy…"), 1);
	/* A prefix typed twice over is one prefix. */
	mark = memory_count(f->adapter);
	say(f, "#lw", "alice", "!!status");
	assert_int_equal(memory_count(f->adapter), mark + 1);
	assert_non_null(strstr(last_to(f, "#lw", NULL), "Round 1"));
}

/*
 * A prompt is said once for a state: someone else leaving and coming
 * back does not say again whose turn it is; the turn timer's reminder
 * still comes, and the next move prompts the next person.
 */
static void
test_prompt_once(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int acting[GAME_MAX_SEATS], other;
	const char *id;
	char prompt[64];
	size_t mark;

	seat_three(f, "#pr", "wizard");
	say(f, "#pr", "alice", "!start");
	table = table_of(f, "#pr");
	act_first(f, "#pr");
	table_impl(table)->to_act(table_game(table)->state, acting);
	id = table_seat(table, acting[0])->user_id;
	snprintf(prompt, sizeof(prompt), "%s to bid", id);
	assert_non_null(strstr(last_to(f, "#pr", NULL), prompt));
	other = (acting[0] + 1) % table_nseats(table);
	mark = memory_count(f->adapter);
	say(f, "#pr", table_seat(table, other)->user_id, "!leave");
	say(f, "#pr", table_seat(table, other)->user_id, "!back");
	say(f, "#pr", table_seat(table, other)->user_id, "!leave");
	say(f, "#pr", table_seat(table, other)->user_id, "!back");
	assert_true(memory_count(f->adapter) > mark);
	assert_int_equal(count_since(f, mark, prompt), 0);
	/* The reminder is not a prompt: it comes at half time. */
	mark = memory_count(f->adapter);
	loop_advance(f->loop, 61 * 1000);
	assert_true(count_since(f, mark, "seconds left before") == 1);
	assert_null(memory_line(f->adapter, mark)->channel);
	assert_string_equal(memory_line(f->adapter, mark)->user_id, id);
	mark = memory_count(f->adapter);
	act_first(f, "#pr");
	assert_int_equal(count_since(f, mark, prompt), 0);
	snprintf(prompt, sizeof(prompt), "%s to bid",
	    table_seat(table, other)->user_id);
	assert_non_null(strstr(last_to(f, "#pr", NULL), prompt));
}

/*
 * Three seated people asking for the status twenty times each (the
 * testers' flood): the channel hears the status once, since it has not
 * changed; each person is told of the limit once, and, while the table
 * is busy, that it is busy once.  A move makes the status new again.
 */
static void
test_flood_replies(void **state)
{
	static const char *const people[] = { "alice", "bob", "carol" };
	struct fx *f = *state;
	size_t mark;
	int statuses = 0;

	bot_stop(f->bot, NULL);
	bot_destroy(f->bot);
	f->command_burst = 5;
	f->bot = fx_bot(f);
	seat_three(f, "#fl", "wizard");
	say(f, "#fl", "alice", "!start");
	/* Everyone's allowance full again, well before the turn timer. */
	loop_advance(f->loop, 6 * 1000);
	mark = memory_count(f->adapter);
	for (int i = 0; i < 20; i++) {
		for (int p = 0; p < 3; p++)
			say(f, "#fl", people[p], "!status");
		loop_advance(f->loop, 80);
	}
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if (l->channel != NULL)
			statuses++;
	}
	assert_int_equal(statuses, 1);
	assert_int_equal(count_since(f, mark, "Too many"), 3);
	for (int p = 0; p < 3; p++) {
		int told = 0;

		for (size_t i = mark; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter, i);

			told += l->channel == NULL && strcmp(l->user_id,
			    people[p]) == 0;
		}
		assert_int_equal(told, 1);
	}
	/* Busy: each is told once however often they ask. */
	loop_advance(f->loop, 6 * 1000);
	memory_busy(f->adapter, "#fl");
	mark = memory_count(f->adapter);
	for (int i = 0; i < 4; i++)
		for (int p = 0; p < 3; p++)
			say(f, "#fl", people[p], "!status");
	assert_int_equal(count_since(f, mark, "a lot to say"), 3);
	assert_int_equal(memory_count(f->adapter) - mark, 3);
	memory_busy(f->adapter, NULL);
	/* Later the status is said again, once; a move changes it. */
	loop_advance(f->loop, 11 * 1000);
	mark = memory_count(f->adapter);
	say(f, "#fl", "alice", "!status");
	say(f, "#fl", "bob", "!status");
	assert_int_equal(memory_count(f->adapter) - mark, 1);
	act_first(f, "#fl");
	mark = memory_count(f->adapter);
	say(f, "#fl", "carol", "!status");
	assert_int_equal(memory_count(f->adapter) - mark, 1);
}

static int
count_lobby(const char *network, const char *channel, const char *lobby,
    void *arg)
{
	(void)network;
	(void)channel;
	(void)lobby;
	(void)arg;
	return 0;
}

/*
 * Lobbies survive restarts: the next game, its options and the seats
 * (people and computers) come back, and the table starts as if nothing
 * had happened.  A started or closed lobby is gone from the store, and a
 * lobby left over in a channel whose game was restored is deleted.
 */
static void
test_lobby_survives_restart(void **state)
{
	struct fx *f = *state;
	struct table *table;

	say(f, "#l", "alice", "!game wizard");
	say(f, "#l", "alice", "!option rounds=3");
	say(f, "#l", "alice", "!option notequal");
	say(f, "#l", "alice", "!join");
	say(f, "#l", "bob", "!join");
	say(f, "#l", "alice", "!addbot hard");
	say(f, "#gone", "carol", "!join");
	say(f, "#gone", "carol", "!leave");
	assert_null(table_of(f, "#gone"));
	assert_int_equal(store_each_lobby(f->store, count_lobby, NULL), 1);

	/* A crash, then a clean stop: the lobby comes back both times. */
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 0);
	adapter_flush(f->adapter);
	fx_restart(f, 1);
	assert_int_equal(bot_restore(f->bot), 0);
	adapter_flush(f->adapter);
	table = table_of(f, "#l");
	assert_non_null(table);
	assert_null(table_game(table));
	assert_string_equal(table_impl(table)->name, "wizard");
	assert_int_equal(table_nseats(table), 3);
	assert_string_equal(table_seat(table, 0)->user_id, "alice");
	assert_string_equal(table_seat(table, 1)->name, "bob");
	assert_true(table_seat(table, 2)->computer);
	assert_int_equal(table_seat(table, 2)->level, AI_HARD);
	assert_null(table_of(f, "#gone"));
	say(f, "#l", "carol", "!option");
	assert_non_null(strstr(last_to(f, "#l", NULL), "notequal"));
	assert_non_null(strstr(last_to(f, "#l", NULL), "rounds=3"));
	/* bob is still seated: his own seat, not a second one. */
	say(f, "#l", "bob", "!join");
	assert_non_null(strstr(last_to(f, "#l", NULL), "already have a seat"));
	say(f, "#l", "bob", "!leave");
	say(f, "#l", "bob", "!join");
	say(f, "#l", "alice", "!start");
	table = table_of(f, "#l");
	assert_non_null(table_game(table));
	assert_int_equal(table_game(table)->setup.options.value[
	    game_option_index(table_impl(table), "rounds")], 3);
	assert_int_equal(store_each_lobby(f->store, count_lobby, NULL), 0);

	/* A lobby left over next to a stored game: the game wins. */
	assert_int_equal(store_lobby_put(f->store, "test", "#l",
	    "{\"game\":\"sticheln\",\"options\":{},\"seats\":[]}"), 0);
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	assert_non_null(table_game(table_of(f, "#l")));
	assert_int_equal(store_each_lobby(f->store, count_lobby, NULL), 0);

	/* Damaged lobbies are logged and skipped, and change nothing. */
	assert_int_equal(store_lobby_put(f->store, "test", "#bad1", "[1"), 0);
	assert_int_equal(store_lobby_put(f->store, "test", "#bad2",
	    "{\"game\":\"chess\",\"options\":{},\"seats\":[]}"), 0);
	assert_int_equal(store_lobby_put(f->store, "test", "#bad3",
	    "{\"game\":\"wizard\",\"options\":{\"rounds\":99},"
	    "\"seats\":[]}"), 0);
	assert_int_equal(store_lobby_put(f->store, "test", "#bad4",
	    "{\"game\":\"wizard\",\"options\":{},\"seats\":"
	    "[{\"id\":\"\",\"name\":\"x\",\"computer\":false}]}"), 0);
	assert_int_equal(store_lobby_put(f->store, "elsewhere", "#l",
	    "{\"game\":\"wizard\",\"options\":{},\"seats\":[]}"), 0);
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	for (int i = 1; i <= 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "#bad%d", i);
		assert_null(table_of(f, name));
	}
	/* The other network's lobby is not this bot's: deleted as stale. */
	assert_int_equal(store_each_lobby(f->store, count_lobby, NULL), 0);
}

/* An admin's command in channel, handled before it returns. */
static void
admin_says(struct fx *f, const char *channel, const char *line)
{
	struct user admin = { .id = "root", .name = "root",
	    .mask = "root!r@admin.example" };

	bot_add_admin(f->bot, f->adapter, "*!*@admin.example");
	adapter_message(f->adapter, channel, &admin, line);
	adapter_flush(f->adapter);
}

/*
 * `formatting off` holds for everything a table says: its channel lines
 * and the private ones (hands, prompts) too; with it on, hands carry the
 * cards' colours.
 */
static void
test_formatting_off_private_too(void **state)
{
	struct fx *f = *state;
	size_t mark;
	int hands[2] = { 0, 0 }, marked[2] = { 0, 0 };

	for (int off = 0; off < 2; off++) {
		const char *channel = off ? "#plain" : "#colour";

		if (off)
			admin_says(f, channel, "!admin set formatting off");
		seat_three(f, channel, "wizard");
		mark = memory_count(f->adapter);
		say(f, channel, "alice", "!start");
		for (size_t i = mark; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter,
			    i);

			if (l->channel == NULL && l->flow != NULL &&
			    strcmp(l->flow, channel) == 0) {
				hands[off]++;
				marked[off] += strcmp(l->text, l->marked) != 0;
			} else if (l->channel != NULL && off) {
				assert_string_equal(l->text, l->marked);
			}
		}
	}
	assert_true(hands[0] >= 3 && hands[1] >= 3);
	assert_true(marked[0] >= 3);
	assert_int_equal(marked[1], 0);
}

/*
 * Settings changed while the bot runs (`!admin set`, `!lang`) are stored
 * with the command that changes them, and a restart, clean or not, finds
 * them over the configuration's, in an empty channel, a lobby and a game
 * alike.  A configuration that says something else for a key since wins
 * for that key, for good; a change whose commit fails is not made.
 */
static void
test_settings_survive_restart(void **state)
{
	struct fx *f = *state;
	size_t mark;

	admin_says(f, "#s", "!admin set prefix ?");
	assert_non_null(strstr(last_to(f, "#s", NULL), "prefix = ?"));
	admin_says(f, "#s", "?admin set prefix !!!!!");
	assert_non_null(strstr(last_to(f, "#s", NULL),
	    "1-4 punctuation characters"));
	admin_says(f, "#s", "?admin set timer 5");
	assert_non_null(strstr(last_to(f, "#s", NULL), "10-3600"));
	admin_says(f, "#s", "?admin set game BirdHead");
	assert_non_null(strstr(last_to(f, "#s", NULL), "game = birdhead"));
	say(f, "#s", "alice", "?lang ja");
	say(f, "#l", "alice", "!join");
	say(f, "#l", "alice", "!lang ja");
	seat_three(f, "#g", "wizard");
	say(f, "#g", "alice", "!start");
	admin_says(f, "#g", "!admin set lang ja");

	/* A crash, then a clean stop. */
	for (int clean = 0; clean <= 1; clean++) {
		fx_restart(f, clean);
		assert_int_equal(bot_restore(f->bot), 1);
		adapter_flush(f->adapter);
		assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#l"),
		    LANG_JA);
		assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#g"),
		    LANG_JA);
		/* The game resumes in Japanese. */
		assert_true(sent_since(f, 0, "#g", "再開"));
		/* IRC channel names ignore case, so their settings do too. */
		mark = memory_count(f->adapter);
		say(f, "#S", "alice", "?rules");
		assert_true(sent_since(f, mark, "#S", "BirdHead"));
		mark = memory_count(f->adapter);
		say(f, "#s", "alice", "!help");
		assert_int_equal(memory_count(f->adapter), mark);
		assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#s"),
		    LANG_JA);
		/* The lobby and its seat came back, and it speaks Japanese. */
		assert_int_equal(table_nseats(table_of(f, "#l")), 1);
	}

	/* A change whose commit fails is neither said nor made. */
	store_fail_commits(f->store, 1);
	mark = memory_count(f->adapter);
	admin_says(f, "#s", "?admin set lang en");
	assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#s"), LANG_JA);
	/* (The channel is named as it was first spoken in, "#S".) */
	assert_false(sent_since(f, mark, "#S", "lang = en"));
	assert_true(sent_since(f, mark, "#S", "保存できなかった"));
	admin_says(f, "#s", "?admin set lang en");
	assert_true(sent_since(f, mark, "#S", "lang = en"));
	assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#s"), LANG_EN);

	/* The configuration now says "$": it wins over "?", for good. */
	f->prefixes = "$";
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	mark = memory_count(f->adapter);
	say(f, "#s", "alice", "?help");
	assert_int_equal(memory_count(f->adapter), mark);
	say(f, "#s", "alice", "$help");
	assert_true(memory_count(f->adapter) > mark);
	/* The game, set over the same configured value, stays. */
	say(f, "#s", "alice", "$rules");
	assert_true(sent_since(f, mark, "#s", "BirdHead"));
	assert_true(sent_since(f, mark, "#s", "Commands"));
	f->prefixes = NULL;
	fx_restart(f, 1);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	mark = memory_count(f->adapter);
	say(f, "#s", "alice", "?help");
	assert_int_equal(memory_count(f->adapter), mark);
	say(f, "#s", "alice", "!help");
	assert_true(memory_count(f->adapter) > mark);
}

/* A private command names its table only at several tables. */
static void
test_private_table_names(void **state)
{
	struct fx *f = *state;
	struct table *one, *two;

	seat_three(f, "#one", "sticheln");
	seat_three(f, "#two", "sticheln");
	say(f, "#one", "alice", "!start");
	say(f, "#two", "alice", "!start");
	one = table_of(f, "#one");
	two = table_of(f, "#two");
	say(f, NULL, "alice", "hand");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "several tables"));
	{
		json_t *view = table_impl(two)->view(table_game(two)->state,
		    table_seat_of(two, "alice"));
		const char *card = json_string_value(json_array_get(
		    json_object_get(view, "hand"), 0));

		say(f, NULL, "alice", "select #two %s", card);
		json_decref(view);
	}
	assert_int_equal(table_game(two)->nactions, 1);
	assert_int_equal(table_game(one)->nactions, 0);
	say(f, NULL, "alice", "hand #one");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "[#one]"));
}

static void
test_rename_keeps_seat(void **state)
{
	struct fx *f = *state;
	struct user now = { .id = "bobby!b@host", .name = "bobby", .mask = NULL };
	struct table *table;

	seat_three(f, "#r", "wizard");
	say(f, "#r", "alice", "!start");
	adapter_rename(f->adapter, "bob", &now);
	adapter_flush(f->adapter);
	table = table_of(f, "#r");
	assert_true(table_seat_of(table, "bob") < 0);
	assert_true(table_seat_of(table, "bobby!b@host") >= 0);
	play_out(f, "#r", 4);
	check_export_replays(f, "#r", 1);
}

/*
 * A player who left or rejected their private channel (the Matrix
 * adapter's private_lost): the channel asks them, once a round, to accept
 * the invitation or say hand, and their hand with the prompt comes again.
 */
static void
test_private_lost(void **state)
{
	struct fx *f = *state;
	struct user carol = { .id = "carol", .name = "carol", .mask = NULL };
	struct user dave = { .id = "dave", .name = "dave", .mask = NULL };
	size_t mark;

	seat_three(f, "#p", "wizard");
	say(f, "#p", "alice", "!start");
	mark = memory_count(f->adapter);
	adapter_private_lost(f->adapter, &carol);
	adapter_flush(f->adapter);
	assert_int_equal(count_since(f, mark, "could not reach you privately"),
	    1);
	assert_true(sent_since(f, mark, "#p", "say !hand"));
	assert_non_null(strstr(last_to(f, NULL, "carol"),
	    "Round 1, your hand:"));
	/* Twice in a round: nothing more, so no room after room. */
	mark = memory_count(f->adapter);
	adapter_private_lost(f->adapter, &carol);
	adapter_flush(f->adapter);
	assert_int_equal(memory_count(f->adapter), mark);
	/* Nobody seated: nothing. */
	adapter_private_lost(f->adapter, &dave);
	adapter_flush(f->adapter);
	assert_int_equal(memory_count(f->adapter), mark);
	/*
	 * Nor after a restart in the same round (the Matrix audit: asked
	 * again after each one, and a room opened each time).
	 */
	for (int clean = 0; clean < 2; clean++) {
		fx_restart(f, clean);
		assert_int_equal(bot_restore(f->bot), 1);
		adapter_flush(f->adapter);
		mark = memory_count(f->adapter);
		adapter_private_lost(f->adapter, &carol);
		adapter_flush(f->adapter);
		assert_int_equal(count_since(f, mark,
		    "could not reach you privately"), 0);
	}
}

/* Two players of the same name: a seat is also found by its owner's id. */
static void
test_seat_by_id(void **state)
{
	struct fx *f = *state;
	struct user bob = { .id = "bob", .name = "Sam", .mask = NULL };
	struct user carol = { .id = "carol", .name = "Sam", .mask = NULL };
	struct table *table;

	seat_three(f, "#s", "wizard");
	say(f, "#s", "alice", "!start");
	adapter_rename(f->adapter, "bob", &bob);
	adapter_rename(f->adapter, "carol", &carol);
	adapter_flush(f->adapter);
	table = table_of(f, "#s");
	assert_int_equal(table_seat_by_name(table, "carol"),
	    table_seat_of(table, "carol"));
	admin_says(f, "#s", "!admin kick carol");
	assert_true(table_seat(table, table_seat_of(table, "carol"))->standin);
	assert_false(table_seat(table, table_seat_of(table, "bob"))->standin);
	/* Nothing to do is said, not met with silence. */
	admin_says(f, "#s", "!admin kick carol");
	assert_addressed(f, "#s", "root", "A computer plays the seat of Sam "
	    "(carol) already, and anyone may take it over.");
	/* A namesake who takes the seat over is told apart too. */
	memory_say(f->adapter, "#s", "dave", "Sam", "!replace carol");
	assert_non_null(strstr(last_to(f, "#s", NULL), "Sam (dave) takes over "
	    "the seat of Sam (carol)"));
	/* A name with spaces, quoted or not, is one name. */
	admin_says(f, "#s", "!admin kick \"no such one\"");
	assert_addressed(f, "#s", "root", "Nobody called \"no such one\" sits "
	    "here.");
	admin_says(f, "#s", "!admin kick no such one");
	assert_addressed(f, "#s", "root", "Nobody called \"no such one\" sits "
	    "here.");
}

/* A turn not taken in time: a computer moves; twice: it keeps the seat. */
static void
test_timeouts(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int acting[GAME_MAX_SEATS];
	int seat, before;
	size_t mark;

	seat_three(f, "#t", "sticheln");
	say(f, "#t", "alice", "!start");
	table = table_of(f, "#t");
	/* Bob and carol select; alice does not. */
	for (int i = 0; i < 3; i++) {
		const char *who = table_seat(table, i)->user_id;
		json_t *view;

		if (strcmp(who, "alice") == 0)
			continue;
		view = table_impl(table)->view(table_game(table)->state, i);
		say(f, NULL, who, "select %s", json_string_value(
		    json_array_get(json_object_get(view, "hand"), 0)));
		json_decref(view);
	}
	seat = table_seat_of(table, "alice");
	mark = memory_count(f->adapter);
	loop_advance(f->loop, 60 * 1000);
	/*
	 * The reminder at half time, privately; of no use once the turn is
	 * over, so a medium that cannot say it by then drops it.
	 */
	assert_true(sent_since(f, mark, NULL, "seconds left"));
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		assert_true(l->expires == (strstr(l->text, "seconds left") ?
		    loop_now(f->loop) + 60 * 1000 : 0));
	}
	before = table_game(table)->nactions;
	loop_advance(f->loop, 60 * 1000 + 1);
	assert_int_equal(table_game(table)->nactions, before + 1);
	assert_true(sent_since(f, mark, "#t", "Time is up for alice"));
	assert_int_equal(table_seat(table, seat)->missed, 1);
	assert_false(table_seat(table, seat)->standin);
	/* Wait for alice's next turn and let it pass too. */
	for (int guard = 0; guard < 200; guard++) {
		int n = table_impl(table)->to_act(table_game(table)->state, acting);

		if (n == 1 && acting[0] == seat)
			break;
		if (n == 1) {
			struct action legal[GAME_MAX_ACTIONS];
			char cmd[64];

			table_impl(table)->legal(table_game(table)->state, acting[0], legal,
			    GAME_MAX_ACTIONS);
			commands_for_action(table_impl(table),
			    &legal[0], cmd, sizeof(cmd));
			say(f, "#t", table_seat(table, acting[0])->user_id, "!%s",
			    cmd);
		}
	}
	loop_advance(f->loop, 120 * 1000 + 1);
	assert_true(table_seat(table, seat)->standin);
	assert_true(sent_since(f, mark, "#t", "holds alice's seat"));
	/* The stand-in plays on its own now. */
	before = table_game(table)->nactions;
	mark = memory_count(f->adapter);
	say(f, NULL, "alice", "back");
	assert_false(table_seat(table, seat)->standin);
	/*
	 * Said privately, the seat's return is still the table's news: the
	 * channel hears it, she gets her hand.
	 */
	assert_true(sent_since(f, mark, "#t", "Welcome back, alice"));
	assert_true(sent_since(f, mark, NULL, "your hand"));
	/*
	 * Back at her own turn while a computer held the seat (the turn
	 * line left her out): the welcome comes first, then the prompt, in
	 * one line.
	 */
	say(f, "#t", "alice", "!leave");
	for (int guard = 0, others = 0; guard < 400; guard++) {
		int n = table_impl(table)->to_act(table_game(table)->state,
		    acting);
		struct action legal[GAME_MAX_ACTIONS];
		char cmd[64];

		/* Her turn as it comes, not the one she left in. */
		if (n == 1 && acting[0] == seat) {
			if (others)
				break;
			loop_advance(f->loop, 1000);
			continue;
		}
		others = 1;
		if (n != 1) {
			/* Penalty cards: a computer chooses alice's. */
			loop_advance(f->loop, 1000);
			for (int i = 0; i < n; i++) {
				if (acting[i] == seat)
					continue;
				table_impl(table)->legal(
				    table_game(table)->state, acting[i], legal,
				    GAME_MAX_ACTIONS);
				commands_for_action(table_impl(table),
				    &legal[0], cmd, sizeof(cmd));
				say(f, NULL, table_seat(table,
				    acting[i])->user_id, "%s", cmd);
			}
			continue;
		}
		table_impl(table)->legal(table_game(table)->state, acting[0],
		    legal, GAME_MAX_ACTIONS);
		commands_for_action(table_impl(table), &legal[0], cmd,
		    sizeof(cmd));
		say(f, "#t", table_seat(table, acting[0])->user_id, "!%s", cmd);
	}
	assert_non_null(table_game(table));
	mark = memory_count(f->adapter);
	say(f, "#t", "alice", "!back");
	{
		const char *line = last_to(f, "#t", NULL);
		const char *welcome = strstr(line, "Welcome back, alice");
		const char *turn = strstr(line, "alice to ");


		assert_non_null(welcome);
		assert_non_null(turn);
		assert_true(welcome < turn);
	}
	(void)before;
}

/* A player who parts is stood in for after the grace time. */
static void
test_part_and_grace(void **state)
{
	struct fx *f = *state;
	struct user bob = { .id = "bob", .name = "bob", .mask = NULL };
	struct user alice = { .id = "alice", .name = "alice", .mask = NULL };
	struct table *table;
	int seat;

	seat_three(f, "#p", "wizard");
	say(f, "#p", "alice", "!start");
	table = table_of(f, "#p");
	seat = table_seat_of(table, "bob");
	adapter_leave(f->adapter, "#p", &bob);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 30 * 1000);
	adapter_join(f->adapter, "#p", &bob);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 60 * 1000);
	assert_false(table_seat(table, seat)->standin);
	/* A quit (no channel) counts for every table. */
	adapter_leave(f->adapter, NULL, &bob);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 61 * 1000);
	table = table_of(f, "#p");
	assert_non_null(table);
	assert_true(table_seat(table, seat)->standin);
	/* Someone else may take the seat over. */
	say(f, "#p", "dave", "!replace bob");
	assert_false(table_seat(table, seat)->standin);
	assert_string_equal(table_seat(table, seat)->user_id, "dave");

	/* A grace of 0 ("grace": 0 in the file): a computer at once. */
	f->grace = -1;
	fx_restart(f, 1);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	table = table_of(f, "#p");
	seat = table_seat_of(table, "alice");
	assert_false(table_seat(table, seat)->standin);
	adapter_leave(f->adapter, "#p", &alice);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 10);
	assert_true(table_seat(table_of(f, "#p"), seat)->standin);
}

static void
test_lobby_idle_and_stop_vote(void **state)
{
	struct fx *f = *state;
	struct table *table;

	say(f, "#i", "alice", "!join");
	loop_advance(f->loop, 1800 * 1000 + 1);
	assert_null(table_of(f, "#i"));
	assert_true(sent_since(f, 0, "#i", "nobody started a game"));
	seat_three(f, "#i", "birdhead");
	say(f, "#i", "alice", "!start");
	table = table_of(f, "#i");
	assert_non_null(table_game(table));
	say(f, "#i", "alice", "!stop");
	assert_non_null(strstr(last_to(f, "#i", NULL), "votes to stop"));
	assert_non_null(table_of(f, "#i"));
	say(f, "#i", "bob", "!stop");
	assert_null(table_of(f, "#i"));
	assert_true(sent_since(f, 0, "#i", "The game is stopped"));
}

/*
 * Acts for whoever must (the first legal move) until round (from 0) is in
 * its play with plays cards on the table.
 */
static void
play_until(struct fx *f, const char *channel, int round, size_t plays)
{
	struct table *table = table_of(f, channel);

	for (int guard = 0; guard < 100; guard++) {
		int acting[GAME_MAX_SEATS];
		struct action legal[GAME_MAX_ACTIONS];
		char cmd[64];
		enum game_phase phase = table_impl(table)->phase(table_game(table)->state);

		json_t *view = table_impl(table)->view(table_game(table)->state, -1);
		size_t trick = json_array_size(json_object_get(view, "trick"));

		json_decref(view);
		if (table_impl(table)->round(table_game(table)->state) ==
		    round && phase == PHASE_PLAY && trick == plays)
			break;
		table_impl(table)->to_act(table_game(table)->state, acting);
		table_impl(table)->legal(table_game(table)->state, acting[0], legal,
		    GAME_MAX_ACTIONS);
		commands_for_action(table_impl(table), &legal[0], cmd, sizeof(cmd));
		if (phase == PHASE_BID_SIMULTANEOUS)
			say(f, NULL, table_seat(table, acting[0])->user_id, "%s", cmd);
		else
			say(f, channel, table_seat(table, acting[0])->user_id,
			    "!%s", cmd);
	}
}

/*
 * The process dies mid-trick (nothing is said goodbye, nothing flushed
 * beyond what each command committed): a new bot on the same store
 * resumes to the identical state.
 */
static void
test_restore_mid_trick(void **state)
{
	struct fx *f = *state;
	struct table *table;
	void *saved;
	int nactions, ndeals;
	size_t size;

	seat_three(f, "#k", "wizard");
	say(f, "#k", "alice", "!option hiddentip");
	say(f, "#k", "alice", "!start");
	table = table_of(f, "#k");
	/* Bid, then play into the middle of a trick of round 2. */
	play_until(f, "#k", 1, 1);
	size = table_impl(table)->state_size;
	saved = malloc(size);
	memcpy(saved, table_game(table)->state, size);
	nactions = table_game(table)->nactions;
	ndeals = table_game(table)->ndeals;
	/* The crash: the bot vanishes without a word. */
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	table = table_of(f, "#k");
	assert_non_null(table);
	assert_int_equal(table_game(table)->nactions, nactions);
	assert_int_equal(table_game(table)->ndeals, ndeals);
	assert_memory_equal(table_game(table)->state, saved, size);
	assert_true(sent_since(f, 0, "#k", "resumes"));
	free(saved);
	/* And the game plays on to its end. */
	f->checked = memory_count(f->adapter);
	play_out(f, "#k", 5);
	check_export_replays(f, "#k", 1);
}

/*
 * A restart in a round's last trick: whoever has played their last card
 * is sent no empty hand ("your hand: (no cards)", audit E), the others
 * their hands as ever.
 */
static void
test_restore_last_trick(void **state)
{
	struct fx *f = *state;
	struct table *table;
	char led[64];
	json_t *view;
	size_t mark;

	seat_three(f, "#lt", "wizard");
	say(f, "#lt", "alice", "!start");
	play_until(f, "#lt", 0, 1);
	table = table_of(f, "#lt");
	/* Who led the round's one trick, and holds no card now. */
	view = table_impl(table)->view(table_game(table)->state, -1);
	snprintf(led, sizeof(led), "%s", table_seat(table,
	    (int)json_integer_value(json_object_get(json_array_get(
	    json_object_get(view, "trick"), 0), "seat")))->user_id);
	json_decref(view);
	fx_restart(f, 0);
	mark = memory_count(f->adapter);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	table = table_of(f, "#lt");
	assert_true(sent_since(f, mark, "#lt", "resumes"));
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		assert_null(strstr(l->text, "(no cards)"));
		if (l->channel == NULL)
			assert_string_not_equal(l->user_id, led);
	}
	assert_int_equal(count_since(f, mark, "your hand"), 2);
}

static void
test_japanese(void **state)
{
	struct fx *f = *state;

	say(f, "#ja", "alice", "!lang ja");
	say(f, "#ja", "alice", "!join");
	assert_null(strstr(last_to(f, "#ja", NULL), "joins"));
	/* Refused options are told why in the table's language. */
	say(f, "#ja", "alice", "!option bogus");
	assert_string_equal(last_to(f, "#ja", NULL), "alice: 受け付けられません: "
	    "wizard に「bogus」というオプションはありません。");
	say(f, "#ja", "alice", "!option rounds=99");
	assert_non_null(strstr(last_to(f, "#ja", NULL), "1 から 20 の数"));
	say(f, "#ja", "alice", "!option hiddentip secret");
	assert_non_null(strstr(last_to(f, "#ja", NULL),
	    "hiddentip と secret は一緒に使えません"));
	/* A computer's level is a Japanese word too. */
	say(f, "#ja2", "alice", "!lang ja");
	say(f, "#ja2", "alice", "!addbot hard");
	assert_non_null(strstr(last_to(f, "#ja2", NULL), "CPU1（上級）"));
	say(f, "#ja", "bob", "!join");
	say(f, "#ja", "carol", "!join");
	say(f, "#ja", "carol", "!start");
	play_out(f, "#ja", 6);
	assert_true(sent_since(f, 0, "#ja", "トリック"));
}

/*
 * An id that is not valid UTF-8 (a Latin-1 IRC nick) is escaped, one to
 * one, before the core keeps it: the store can hold it and a restart
 * gives the seat back.
 */
static void
test_odd_ids(void **state)
{
	struct fx *f = *state;
	struct table *table;

	say(f, "#o", "alice", "!join");
	say(f, "#o", "bob\xe9", "!join");
	say(f, "#o", "bob%", "!join");
	say(f, "#o", "alice", "!start");
	table = table_of(f, "#o");
	assert_non_null(table_game(table));
	assert_true(table_seat_of(table, "bob%E9") >= 0);
	assert_true(table_seat_of(table, "bob%25") >= 0);
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	table = table_of(f, "#o");
	assert_int_equal(table_nseats(table), 3);
	/* The same person, typing again, still owns the seat. */
	say(f, NULL, "bob\xe9", "hand");
	assert_non_null(strstr(last_to(f, NULL, "bob%E9"), "your hand"));
}

/*
 * Every reason to refuse options has a Japanese wording, and its English
 * wording is the engine's own sentence, word for word (replay, decide and
 * check-config print that one).
 */
static void
test_option_refusals(void **state)
{
	static const struct {
		const char *options;     /* parsed one by one */
		int nseats;              /* then checked together */
		int code;
	} cases[] = {
		{ "=1", -1, GAME_REFUSAL_BAD_NAME },
		{ "bogus", -1, GAME_REFUSAL_UNKNOWN },
		{ "rounds", -1, GAME_REFUSAL_NEEDS_VALUE },
		{ "rounds=on", -1, GAME_REFUSAL_NEEDS_NUMBER },
		{ "notequal=2", -1, GAME_REFUSAL_ON_OFF },
		{ "rounds=99", -1, GAME_REFUSAL_RANGE },
		{ "notequal canadian", 0, GAME_REFUSAL_COMBINED },
		{ "hiddentip secret", 0, GAME_REFUSAL_COMBINED },
		{ "hiddentip notequal", 0, WIZARD_REFUSAL_AT_ONCE },
		{ "jesterbid evenbid", 0, WIZARD_REFUSAL_NO_BIDDING },
		{ "quick amigo", 0, WIZARD_REFUSAL_BOTH_ROUNDS },
		{ "amigo", 6, WIZARD_REFUSAL_PLAYERS },
		{ "rounds=20", 6, WIZARD_REFUSAL_TOO_LONG },
		{ "clairvoyance nannie=2", 0, WIZARD_REFUSAL_STARTS_HIGH },
		{ "clairvoyance amigo", 3, WIZARD_REFUSAL_FIRST_ROUND },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct game_options o;
		struct game_refusal why;
		char words[128], *word, *save, en[GAME_ERR_LEN];
		char ja[GAME_ERR_LEN], engine[GAME_ERR_LEN];
		int rc = 0;

		memset(&o, 0, sizeof(o));
		snprintf(words, sizeof(words), "%s", cases[i].options);
		for (word = strtok_r(words, " ", &save); word != NULL &&
		    rc == 0; word = strtok_r(NULL, " ", &save)) {
			rc = game_option_parse(&wizard_game, &o, word, &why);
			if (rc != 0) {
				assert_int_equal(game_option_set(&wizard_game,
				    &o, word, engine, sizeof(engine)), -1);
				assert_int_equal(present_option_set(LANG_EN,
				    &wizard_game, &o, word, en, sizeof(en)), -1);
				assert_int_equal(present_option_set(LANG_JA,
				    &wizard_game, &o, word, ja, sizeof(ja)), -1);
			}
		}
		if (rc == 0) {
			assert_true(cases[i].nseats >= 0);
			rc = wizard_game.check_options(&o, cases[i].nseats,
			    &why);
			assert_int_equal(wizard_game.validate_options(&o,
			    cases[i].nseats, engine, sizeof(engine)), -1);
			assert_int_equal(present_options_check(LANG_EN,
			    &wizard_game, &o, cases[i].nseats, en, sizeof(en)),
			    -1);
			assert_int_equal(present_options_check(LANG_JA,
			    &wizard_game, &o, cases[i].nseats, ja, sizeof(ja)),
			    -1);
		}
		assert_int_equal(rc, -1);
		if (why.code != cases[i].code)
			fail_msg("%s: code %d, not %d", cases[i].options,
			    why.code, cases[i].code);
		assert_string_equal(why.text, engine);
		assert_string_equal(en, engine);
		if (strstr(ja, "Option") != NULL || (strstr(ja, "オプション") ==
		    NULL && strstr(ja, "ありません") == NULL))
			fail_msg("%s: not Japanese: %s", cases[i].options, ja);
	}
}

/* Every catalog has every message with the same placeholders. */
static void
test_catalogs(void **state)
{
	for (int id = 0; id < MSG_COUNT; id++) {
		const char *en = catalog_en[id];
		const char *ja = catalog_ja[id];

		if (en == NULL)
			fail_msg("%s has no English text", i18n_id_name(id));
		if (ja == NULL)
			fail_msg("%s has no Japanese text", i18n_id_name(id));
		for (int k = 1; k <= 9; k++) {
			char ph[4] = { '{', (char)('0' + k), '}', '\0' };

			if ((strstr(en, ph) == NULL) != (strstr(ja, ph) == NULL))
				fail_msg("%s: placeholder %s differs",
				    i18n_id_name(id), ph);
		}
	}
}

static void
test_stats_after_games(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#st", "birdhead");
	say(f, "#st", "alice", "!start");
	play_out(f, "#st", 7);
	say(f, "#st", "alice", "!stats");
	assert_non_null(strstr(last_to(f, "#st", NULL), "alice in BirdHead: 1 "
	    "game, "));
	say(f, "#st", "bob", "!stats alice");
	assert_non_null(strstr(last_to(f, "#st", NULL), "alice in BirdHead"));
	say(f, "#st", "bob", "!top birdhead");
	assert_non_null(strstr(last_to(f, "#st", NULL), "Best in BirdHead"));
}

/* While the network is down nobody's clock runs; after it, the game goes on. */
/*
 * A Wizard game of three people started at channel while connected, then
 * the connection lost (what is said up to then is in the memory).
 */
static struct table *
start_then_disconnect(struct fx *f, const char *channel)
{
	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	seat_three(f, channel, "wizard");
	say(f, channel, "alice", "!start");
	adapter_connected(f->adapter, 0);
	adapter_flush(f->adapter);
	return table_of(f, channel);
}

static void
test_reconnect(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int before;
	size_t mark;

	table = start_then_disconnect(f, "#c");
	before = table_game(table)->nactions;
	mark = memory_count(f->adapter);
	loop_advance(f->loop, 600 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#c", "back online"));
	loop_advance(f->loop, 121 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
}

/*
 * Put out of a channel (a kick) while connected, the bot hears nobody
 * there: its game waits (no clock, no computer), a reconnect meanwhile
 * does not resume it, and back in, the table says so and prompts again.
 */
static void
test_kicked_and_back(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int before;
	size_t mark;

	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	seat_three(f, "#k", "wizard");
	say(f, "#k", "alice", "!start");
	table = table_of(f, "#k");
	before = table_game(table)->nactions;
	/* Every join says "in": without a kick before, nothing changes. */
	mark = memory_count(f->adapter);
	adapter_inside(f->adapter, "#k", 1);
	adapter_flush(f->adapter);
	assert_false(sent_since(f, mark, "#k", "I am back"));
	adapter_inside(f->adapter, "#k", 0);
	adapter_flush(f->adapter);
	mark = memory_count(f->adapter);
	loop_advance(f->loop, 600 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	adapter_connected(f->adapter, 0);
	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	assert_false(sent_since(f, mark, "#k", "back online"));
	loop_advance(f->loop, 600 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	adapter_inside(f->adapter, "#k", 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#k", "I am back; what was said here"));
	assert_true(sent_since(f, mark, "#k", "to bid"));
	/* The clock runs again from the return. */
	loop_advance(f->loop, 121 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
	/* A channel the bot never knew changes nothing. */
	adapter_inside(f->adapter, "#unknown", 0);
	adapter_flush(f->adapter);
}

static int
reload_ok(void *arg, char *err, size_t errlen)
{
	(*(int *)arg)++;
	return 0;
}

/* Admin commands work for admins only. */
static void
test_admin(void **state)
{
	struct fx *f = *state;
	int reloads = 0;
	size_t mark;
	struct table *table;
	struct user admin = { .id = "root", .name = "root", .mask = "root!r@admin.example" };

	bot_add_admin(f->bot, f->adapter, "*!*@admin.example");
	seat_three(f, "#a", "wizard");
	say(f, "#a", "alice", "!start");
	say(f, "#a", "alice", "!admin kick bob");
	assert_non_null(strstr(last_to(f, "#a", NULL), "Only the bot's admins"));
	adapter_message(f->adapter, "#a", &admin, "!admin status");
	adapter_flush(f->adapter);
	assert_non_null(strstr(last_to(f, "#a", NULL), "1 table, 1 game "));
	adapter_message(f->adapter, "#a", &admin, "!admin kick bob");
	adapter_flush(f->adapter);
	table = table_of(f, "#a");
	assert_true(table_seat(table, table_seat_of(table, "bob"))->standin);
	assert_true(sent_since(f, 0, "#a", "gave bob's seat"));
	adapter_message(f->adapter, "#a", &admin, "!admin set lang ja");
	adapter_flush(f->adapter);
	assert_int_equal(bot_channel_lang(f->bot, f->adapter, "#a"), LANG_JA);
	adapter_message(f->adapter, "#a", &admin, "!admin set lang en");
	adapter_flush(f->adapter);
	adapter_message(f->adapter, "#a", &admin, "!admin set timer 5");
	adapter_flush(f->adapter);
	assert_non_null(strstr(last_to(f, "#a", NULL), "Cannot set timer"));
	mark = memory_count(f->adapter);
	adapter_message(f->adapter, "#a", &admin, "!admin restart");
	adapter_flush(f->adapter);
	table = table_of(f, "#a");
	assert_non_null(table);
	assert_non_null(table_game(table));
	assert_int_equal(table_game(table)->nactions, 0);
	/* The restart is said before the new game's first lines. */
	{
		const struct memory_line *first = memory_line(f->adapter, mark);

		assert_non_null(first->channel);
		assert_string_equal(first->text,
		    "The game restarts with the same players.");
		assert_true(sent_since(f, mark + 1, "#a", "Round 1/"));
	}
	/* Why a reload failed is the admin's, not the channel's. */
	mark = memory_count(f->adapter);
	adapter_message(f->adapter, "#a", &admin, "!admin reload");
	adapter_flush(f->adapter);
	assert_non_null(strstr(last_to(f, NULL, admin.id), "Reload failed"));
	assert_false(sent_since(f, mark, "#a", "Reload failed"));
	bot_set_reload(f->bot, reload_ok, &reloads);
	adapter_message(f->adapter, "#a", &admin, "!admin reload");
	adapter_flush(f->adapter);
	assert_int_equal(reloads, 1);
	assert_non_null(strstr(last_to(f, "#a", NULL), "reloaded"));
	adapter_message(f->adapter, "#a", &admin, "!admin stop");
	adapter_flush(f->adapter);
	assert_null(table_of(f, "#a"));
	/* An admin sends the bot away from a room. */
	f->adapter->impl->join(f->adapter, "#a");
	adapter_message(f->adapter, "#a", &admin, "!admin part");
	adapter_flush(f->adapter);
	assert_non_null(strstr(last_to(f, "#a", NULL), "Goodbye"));
	/* Left after the event whose goodbye must be heard first. */
	assert_true(memory_joined(f->adapter, "#a"));
	loop_advance(f->loop, 0);
	adapter_flush(f->adapter);
	assert_false(memory_joined(f->adapter, "#a"));
	/* The first game was abandoned, the second too: nothing running. */
	assert_int_equal(bot_game_count(f->bot), 0);
}

/* The first legal move of whoever acts first at channel, typed by them. */
static void
act_first(struct fx *f, const char *channel)
{
	struct table *table = table_of(f, channel);
	int acting[GAME_MAX_SEATS];
	struct action legal[GAME_MAX_ACTIONS];
	char cmd[64];

	table_impl(table)->to_act(table_game(table)->state, acting);
	table_impl(table)->legal(table_game(table)->state, acting[0], legal,
	    GAME_MAX_ACTIONS);
	commands_for_action(table_impl(table), &legal[0], cmd, sizeof(cmd));
	say(f, channel, table_seat(table, acting[0])->user_id, "!%s", cmd);
}

/*
 * "bid 1" said privately by someone at two running tables goes to the
 * one that waits for their bid, as "1" alone does (audit E: before, the
 * player was asked which table, and the example named the BirdHead one,
 * which has no bids).  A move both could take still asks.
 */
static void
test_private_move_to_waiting_table(void **state)
{
	struct fx *f = *state;
	struct table *wizard;
	int acting[GAME_MAX_SEATS], before;

	seat_three(f, "#wa", "wizard");
	seat_three(f, "#wb", "birdhead");
	say(f, "#wb", "alice", "!start");
	say(f, "#wa", "alice", "!start");
	wizard = table_of(f, "#wa");
	for (int guard = 0; guard < 6; guard++) {
		table_impl(wizard)->to_act(table_game(wizard)->state, acting);
		if (strcmp(table_seat(wizard, acting[0])->user_id, "alice") ==
		    0 && table_impl(wizard)->phase(table_game(wizard)->state) ==
		    PHASE_BID)
			break;
		act_first(f, "#wa");
	}
	before = table_game(wizard)->nactions;
	say(f, NULL, "alice", "bid 0");
	assert_int_equal(table_game(wizard)->nactions, before + 1);
	assert_null(strstr(last_to(f, NULL, "alice"), "several tables"));
	/* A move neither waits for from her: which table. */
	say(f, NULL, "alice", "trump r");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "several tables"));
}

/*
 * A move handled while the network is down (on Matrix: typed while the
 * bot was away, handled before it counts as connected) is announced but
 * prompts nobody and starts no clock; the resume does both.
 */
static void
test_move_while_down(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int before;
	size_t mark;

	table = start_then_disconnect(f, "#d");
	before = table_game(table)->nactions;
	mark = memory_count(f->adapter);
	act_first(f, "#d");
	assert_int_equal(table_game(table)->nactions, before + 1);
	assert_true(memory_count(f->adapter) > mark);
	assert_int_equal(count_since(f, mark, " to bid"), 0);
	assert_int_equal(count_since(f, mark, " to choose trump"), 0);
	assert_int_equal(count_since(f, mark, "your turn"), 0);
	/* No clock: nobody stands in however long it takes. */
	loop_advance(f->loop, 600 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
	mark = memory_count(f->adapter);
	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#d", "back online"));
	assert_true(count_since(f, mark, " to bid") > 0);
	loop_advance(f->loop, 121 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 2);
}

/*
 * The resume after a reconnection changes nothing, so its prompt is not
 * stored and never reported sent: its clock waits while the medium still
 * holds the table's lines (flow_waiting(); on IRC they wait for the
 * JOIN and the flood pace), not a moment longer.  Before, it started at
 * once, and a player was timed out 6 s after a 10 s turn's prompt.
 */
static void
test_resume_clock_waits(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int before;
	size_t mark;

	table = start_then_disconnect(f, "#rc");
	before = table_game(table)->nactions;
	memory_hold(f->adapter, 1);
	mark = memory_count(f->adapter);
	adapter_connected(f->adapter, 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#rc", "back online"));
	/* 200 s with the resume still waiting: no reminder, no timeout. */
	loop_advance(f->loop, 200 * 1000);
	assert_false(sent_since(f, mark, NULL, "seconds left"));
	assert_int_equal(table_game(table)->nactions, before);
	/* Said now: the reminder at half time from here, the timeout later. */
	memory_hold(f->adapter, 0);
	loop_advance(f->loop, 60 * 1000);
	assert_false(sent_since(f, mark, NULL, "seconds left"));
	loop_advance(f->loop, 1 * 1000);
	assert_true(sent_since(f, mark, NULL, "seconds left"));
	loop_advance(f->loop, 58 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	loop_advance(f->loop, 2 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
}

/*
 * A turn's clock starts when its prompt has been said (the adapter
 * reported it sent), not when it was stored: lines still waiting their
 * turn on a slow network do not count against the player.  A medium that
 * never reports cannot stop the game either: after five minutes the
 * clock starts anyway.  (The channel's turn timer is 120 s.)
 */
static void
test_turn_clock_waits_for_prompt(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t mark;
	int before;

	seat_three(f, "#k", "wizard");
	say(f, "#k", "alice", "!start");
	loop_advance(f->loop, 0);
	table = table_of(f, "#k");
	memory_hold(f->adapter, 1);
	before = table_game(table)->nactions;
	act_first(f, "#k");
	assert_int_equal(table_game(table)->nactions, before + 1);
	mark = memory_count(f->adapter);
	/* 100 s unsaid: no reminder, no timeout. */
	loop_advance(f->loop, 100 * 1000);
	assert_false(sent_since(f, mark, NULL, "seconds left"));
	assert_int_equal(table_game(table)->nactions, before + 1);
	/* Said now: the reminder at half time from here, the timeout later. */
	memory_hold(f->adapter, 0);
	loop_advance(f->loop, 59 * 1000);
	assert_false(sent_since(f, mark, NULL, "seconds left"));
	loop_advance(f->loop, 2 * 1000);
	assert_true(sent_since(f, mark, NULL, "seconds left"));
	loop_advance(f->loop, 58 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
	loop_advance(f->loop, 2 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 2);
	assert_true(sent_since(f, mark, "#k", "Time is up"));

	/* Never reported: the clock starts after five minutes. */
	memory_hold(f->adapter, 1);
	before = table_game(table)->nactions;
	act_first(f, "#k");
	loop_advance(f->loop, 419 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 1);
	loop_advance(f->loop, 2 * 1000);
	assert_int_equal(table_game(table)->nactions, before + 2);
	memory_hold(f->adapter, 0);
}

/*
 * After a restart, a round that ends before the network is back (its
 * last cards typed while the bot was away): the next deal's hands go out
 * with the resume, once each, not also before it.
 */
static void
test_deal_while_down(void **state)
{
	static const char *const people[] = { "alice", "bob", "carol" };
	struct fx *f = *state;
	struct table *table;
	size_t mark;

	seat_three(f, "#e", "wizard");
	say(f, "#e", "alice", "!start");
	f->connect_later = 1;
	fx_restart(f, 0);
	f->connect_later = 0;
	assert_int_equal(bot_restore(f->bot), 1);
	table = table_of(f, "#e");
	mark = memory_count(f->adapter);
	/* Round 1 holds one card each: bids (and trump), then three plays. */
	while (table_impl(table)->round(table_game(table)->state) == 0)
		act_first(f, "#e");
	assert_int_equal(count_since(f, mark, "Round 2, your hand"), 0);
	loop_advance(f->loop, 0);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#e", "resumes"));
	for (int p = 0; p < 3; p++) {
		int n = 0;

		for (size_t i = mark; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter,
			    i);

			n += l->user_id != NULL &&
			    strcmp(l->user_id, people[p]) == 0 &&
			    strstr(l->text, "Round 2, your hand") != NULL;
		}
		assert_int_equal(n, 1);
	}
}

/*
 * What a stored change makes the bot say is kept until the medium reports
 * it sent: after a crash before that, it goes out again first, in order,
 * under the same outbox ids; once reported, never again.
 */
static void
test_outbox_after_crash(void **state)
{
	struct fx *f = *state;
	char *held[64];
	uint64_t ids[64];
	int nheld = 0;
	size_t mark;

	seat_three(f, "#o", "wizard");
	say(f, "#o", "alice", "!start");
	memory_hold(f->adapter, 1);
	mark = memory_count(f->adapter);
	act_first(f, "#o");
	for (size_t i = mark; i < memory_count(f->adapter) && nheld < 64;
	    i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		assert_true(l->id != 0);
		assert_string_equal(l->flow, "#o");
		held[nheld] = strdup(l->text);
		ids[nheld++] = l->id;
	}
	assert_true(nheld > 0);
	/* The crash: the lines were handed over but never confirmed. */
	fx_restart(f, 0);
	assert_true(memory_count(f->adapter) >= (size_t)nheld);
	for (int i = 0; i < nheld; i++) {
		const struct memory_line *l = memory_line(f->adapter,
		    (size_t)i);

		assert_string_equal(l->text, held[i]);
		assert_true(l->id == ids[i]);
	}
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, (size_t)nheld, "#o", "resumes"));
	/* Reported sent this time: a second crash repeats none of them. */
	fx_restart(f, 0);
	for (size_t i = 0; i < memory_count(f->adapter); i++)
		for (int k = 0; k < nheld; k++)
			assert_true(memory_line(f->adapter, i)->id != ids[k]);
	for (int i = 0; i < nheld; i++)
		free(held[i]);
}

/*
 * A crash after the hands of a deal were committed but before the medium
 * confirmed them: the restart sends them again from the outbox, and the
 * resume, which sends everyone their hand, does not send an identical
 * one a second time.
 */
static void
test_resume_hand_once(void **state)
{
	static const char *const people[] = { "alice", "bob", "carol" };
	struct fx *f = *state;
	int hands[3] = { 0 };

	seat_three(f, "#h", "wizard");
	memory_hold(f->adapter, 1);
	say(f, "#h", "alice", "!start");
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, 0, "#h", "resumes"));
	for (size_t i = 0; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		for (int p = 0; p < 3; p++)
			if (l->user_id != NULL &&
			    strcmp(l->user_id, people[p]) == 0 &&
			    strstr(l->text, "your hand") != NULL)
				hands[p]++;
	}
	for (int p = 0; p < 3; p++)
		assert_int_equal(hands[p], 1);
}

/*
 * Why a move is refused, said to its player: Wizard's bid range, and the
 * suit to follow while the hand holds it (not otherwise, and not for a
 * Wizard or a Jester, which may always be played).
 */
static void
test_why_not(void **state)
{
	const struct game_present *wizard = present_find("wizard");
	struct game_brief mine;
	struct action action;
	char codes[GAME_MAX_PLAY][8] = { "b2" };
	struct text t;

	(void)state;
	memset(&mine, 0, sizeof(mine));
	mine.cards = 2;
	strcpy(mine.lead, "g");
	mine.nhand = 2;
	strcpy(mine.hand[0], "g8");
	strcpy(mine.hand[1], "b2");
	memset(&action, 0, sizeof(action));
	action.kind = ACTION_PLAY;
	action.ncards = 1;
	text_init(&t);
	assert_int_equal(wizard->why_not(&t, LANG_EN, &mine, &action, codes),
	    1);
	assert_non_null(strstr(text_str(&t), "You must follow"));
	assert_non_null(strstr(text_str(&t), "g"));
	text_clear(&t);
	strcpy(codes[0], "W");
	assert_int_equal(wizard->why_not(&t, LANG_EN, &mine, &action, codes),
	    0);
	strcpy(codes[0], "b2");
	strcpy(mine.hand[0], "r8");
	assert_int_equal(wizard->why_not(&t, LANG_EN, &mine, &action, codes),
	    0);
	action.kind = ACTION_BID;
	action.value = 3;
	assert_int_equal(wizard->why_not(&t, LANG_JA, &mine, &action, codes),
	    1);
	assert_non_null(strstr(text_str(&t), "2"));
	text_clear(&t);
	action.value = 1;
	assert_int_equal(wizard->why_not(&t, LANG_EN, &mine, &action, codes),
	    0);
	assert_string_equal(text_str(&t), "");
	text_finish(&t);
	/* Games without reasons of their own say nothing more. */
	assert_null(present_find("sticheln")->why_not);
}

/* Fills a BirdHead brief: the hand (lowest first) and the standard. */
static void
birdhead_brief(struct game_brief *mine, const char *hand,
    const char *standard)
{
	char buf[64], *word, *rest;

	memset(mine, 0, sizeof(*mine));
	snprintf(buf, sizeof(buf), "%s", hand);
	for (word = strtok_r(buf, " ", &rest); word != NULL;
	    word = strtok_r(NULL, " ", &rest))
		snprintf(mine->hand[mine->nhand++], 4, "%s", word);
	snprintf(buf, sizeof(buf), "%s", standard);
	for (word = strtok_r(buf, " ", &rest); word != NULL;
	    word = strtok_r(NULL, " ", &rest))
		snprintf(mine->standard[mine->nstandard++], 4, "%s", word);
}

/* What BirdHead's presentation says of a play of codes (in any order). */
static const char *
birdhead_why(struct text *t, const struct game_brief *mine,
    const char *a, const char *b)
{
	const struct game_present *birdhead = present_find("birdhead");
	char codes[GAME_MAX_PLAY][8] = { "" };
	struct action action;

	memset(&action, 0, sizeof(action));
	action.kind = ACTION_PLAY;
	snprintf(codes[action.ncards++], 8, "%s", a);
	if (b != NULL)
		snprintf(codes[action.ncards++], 8, "%s", b);
	text_clear(t);
	if (birdhead->why_not(t, LANG_EN, mine, &action, codes) == 0)
		return NULL;
	return text_str(t);
}

/*
 * BirdHead's reasons, each from the rules (RULES.md 2, Tricks): a lead
 * of mixed ranks, a lead of the whole hand, a follow of another width,
 * and cards that neither meet the standard nor are the hand's lowest
 * (named with both, so that the player sees the two ways out).
 */
static void
test_why_not_birdhead(void **state)
{
	struct game_brief mine;
	struct text t;

	(void)state;
	text_init(&t);
	birdhead_brief(&mine, "3 5 5 9", "");
	assert_string_equal(birdhead_why(&t, &mine, "5", "3"),
	    "Cards led together must be of one rank.");
	assert_null(birdhead_why(&t, &mine, "5", "5"));
	birdhead_brief(&mine, "5 5", "");
	assert_string_equal(birdhead_why(&t, &mine, "5", "5"),
	    "You must keep at least one card in your hand.");
	birdhead_brief(&mine, "3 5 8 9", "7 9");
	assert_string_equal(birdhead_why(&t, &mine, "9", NULL),
	    "Play as many cards as were led: 2.");
	assert_string_equal(birdhead_why(&t, &mine, "9", "5"),
	    "Your cards, lowest first, must each be at least the card in "
	    "the same place of 7 9; or play your lowest: 3 5.");
	birdhead_brief(&mine, "2 4 10", "9");
	assert_string_equal(birdhead_why(&t, &mine, "4", NULL),
	    "Play at least 9, or your lowest card: 2.");
	birdhead_brief(&mine, "3 5 8 9", "7 9");
	/* Japanese names the same cards. */
	{
		const struct game_present *birdhead = present_find("birdhead");
		char codes[GAME_MAX_PLAY][8] = { "9", "5" };
		struct action action;

		memset(&action, 0, sizeof(action));
		action.kind = ACTION_PLAY;
		action.ncards = 2;
		text_clear(&t);
		assert_int_equal(birdhead->why_not(&t, LANG_JA, &mine, &action,
		    codes), 1);
		assert_non_null(strstr(text_str(&t), "7 9"));
		assert_non_null(strstr(text_str(&t), "3 5"));
	}
	text_finish(&t);
}

/* Log lines captured by test_log_stored(). */
static struct text captured_log;

static void
capture_log(enum log_level level, const char *line, void *arg)
{
	(void)level;
	(void)arg;
	text_add(&captured_log, line);
	text_add(&captured_log, "\n");
}

/*
 * The log tells of a game's start only once it is stored: a start the
 * store refuses did not happen, and the log says nothing of it.
 */
static void
test_log_stored(void **state)
{
	struct fx *f = *state;

	text_init(&captured_log);
	log_capture(capture_log, NULL);
	seat_three(f, "#ls", "wizard");
	store_fail_commits(f->store, 1);
	say(f, "#ls", "alice", "!start");
	assert_null(table_game(table_of(f, "#ls")));
	assert_null(strstr(text_str(&captured_log), "started with"));
	assert_non_null(strstr(text_str(&captured_log), "cannot commit"));
	say(f, "#ls", "alice", "!start");
	assert_non_null(table_game(table_of(f, "#ls")));
	assert_non_null(strstr(text_str(&captured_log),
	    "test #ls: game 1 of wizard started with 3 seats"));
	log_capture(NULL, NULL);
	text_finish(&captured_log);
}

/*
 * A full disk refuses a player's move: they are told the game goes on
 * once the bot saves again, so their time does not run out meanwhile;
 * the clock tries the store instead, and once it saves, the table says
 * so and whose turn it is, whose time starts then.
 */
static void
test_commit_fails_clock(void **state)
{
	struct fx *f = *state;
	int before;
	size_t mark;

	seat_three(f, "#fc", "wizard");
	say(f, "#fc", "alice", "!start");
	before = table_game(table_of(f, "#fc"))->nactions;
	mark = memory_count(f->adapter);
	store_fail_commits(f->store, 1000);
	act_first(f, "#fc");
	assert_int_equal(count_since(f, mark, "so it did not happen"), 1);
	/* Ten turn timers of a full disk: nobody's time runs out. */
	for (int i = 0; i < 10; i++)
		loop_advance(f->loop, 121 * 1000);
	assert_int_equal(table_game(table_of(f, "#fc"))->nactions, before);
	assert_int_equal(count_since(f, mark, "Time is up"), 0);
	assert_int_equal(count_since(f, mark, "so it did not happen"), 1);
	assert_int_equal(count_since(f, mark, "I can save again; the game"), 0);
	store_fail_commits(f->store, 0);
	for (int i = 0; i < 121 &&
	    count_since(f, mark, "I can save again; the game") == 0; i++)
		loop_advance(f->loop, 1000);
	assert_int_equal(count_since(f, mark, "I can save again; the game"), 1);
	assert_true(sent_since(f, mark, "#fc", "to bid"));
	assert_int_equal(count_since(f, mark, "Time is up"), 0);
	assert_int_equal(table_game(table_of(f, "#fc"))->nactions, before);
	/* The time starts from there. */
	loop_advance(f->loop, 110 * 1000);
	assert_int_equal(count_since(f, mark, "Time is up"), 0);
	loop_advance(f->loop, 11 * 1000);
	assert_int_equal(count_since(f, mark, "Time is up"), 1);
	assert_int_equal(table_game(table_of(f, "#fc"))->nactions, before + 1);
}

/*
 * A change whose commit fails is not said: the table is what the store
 * holds, the channel is told once, and the same command works once the
 * store does.  A computer's move that cannot be stored is retried, more
 * slowly each time, and the game goes on when the store is back.
 */
static void
test_commit_fails(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int before;
	size_t mark;

	seat_three(f, "#f", "wizard");
	say(f, "#f", "alice", "!start");
	table = table_of(f, "#f");
	before = table_game(table)->nactions;
	mark = memory_count(f->adapter);
	store_fail_commits(f->store, 1);
	act_first(f, "#f");
	table = table_of(f, "#f");
	assert_non_null(table);
	assert_int_equal(table_game(table)->nactions, before);
	assert_int_equal(count_since(f, mark, "so it did not happen"), 1);
	/* Only the refusal: nothing of the move was said. */
	assert_int_equal(memory_count(f->adapter), mark + 1);
	/* Picked up again: nothing is said twice (the prompt stands). */
	loop_advance(f->loop, 5000);
	assert_int_equal(memory_count(f->adapter), mark + 1);
	act_first(f, "#f");
	assert_int_equal(table_game(table_of(f, "#f"))->nactions, before + 1);

	/* Hidden bids refused thrice: no prompt nor hand comes again. */
	seat_three(f, "#fh", "wizard");
	say(f, "#fh", "alice", "!option hiddentip");
	say(f, "#fh", "alice", "!start");
	loop_advance(f->loop, 1000);
	mark = memory_count(f->adapter);
	for (int i = 0; i < 3; i++) {
		store_fail_commits(f->store, 1);
		say(f, NULL, "bob", "bid #fh 0");
		loop_advance(f->loop, 5000);
	}
	assert_int_equal(count_since(f, mark, "so it did not happen"), 3);
	assert_int_equal(memory_count(f->adapter), mark + 3);
	say(f, NULL, "bob", "bid #fh 0");
	assert_int_equal(table_game(table_of(f, "#fh"))->nactions, 1);

	/* A table of computers, but for alice, whose turn comes later. */
	say(f, "#g", "alice", "!join");
	say(f, "#g", "alice", "!addbot");
	say(f, "#g", "alice", "!addbot");
	say(f, "#g", "alice", "!start");
	table = table_of(f, "#g");
	mark = memory_count(f->adapter);
	store_fail_commits(f->store, 4);
	for (int i = 0; i < 40 && table_game(table_of(f, "#g"))->nactions == 0;
	    i++)
		loop_advance(f->loop, 1000);
	assert_int_equal(count_since(f, mark, "so it did not happen"), 1);
	/* 0.5 s, then 1, 2, 4 and 8 s between tries: about 16 s. */
	assert_true(table_game(table_of(f, "#g"))->nactions > 0);

	/*
	 * The store deleted under the bot: the next write finds out, every
	 * running table (#f, #fh, #g) is told once, and nothing moves any
	 * more.
	 */
	table = table_of(f, "#g");
	assert_int_equal(unlink(f->path), 0);
	mark = memory_count(f->adapter);
	for (int i = 0; i < 30; i++)
		loop_advance(f->loop, 1000);
	before = table_game(table_of(f, "#g"))->nactions;
	loop_advance(f->loop, 120 * 1000);
	assert_int_equal(table_game(table_of(f, "#g"))->nactions, before);
	assert_int_equal(count_since(f, mark, "can no longer save"), 3);
	assert_int_equal(bot_check_store(f->bot), -1);
	assert_int_equal(count_since(f, mark, "can no longer save"), 3);
	/* An admin's status says so, and a stop promises no resume. */
	admin_says(f, "#g", "!admin status");
	assert_non_null(strstr(last_to(f, "#g", NULL), "The store has failed"));
	mark = memory_count(f->adapter);
	bot_say_goodbye(f->bot, 0);
	adapter_flush(f->adapter);
	assert_true(sent_since(f, mark, "#g", "it goes on only once my "
	    "operator has repaired the store"));
	assert_false(sent_since(f, mark, "#g", "resumes as soon as"));
}

/*
 * What people are told about refusals and their own cards: whose turn it
 * is (public), never their own card under clairvoyance, and under secret
 * always their own bid, even one a computer made for them.
 */
static void
test_private_words(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int acting[GAME_MAX_SEATS], other;
	const char *own, *user;
	json_t *view;

	seat_three(f, "#cv", "wizard");
	say(f, "#cv", "alice", "!option clairvoyance");
	say(f, "#cv", "alice", "!start");
	table = table_of(f, "#cv");
	for (int guard = 0; guard < 10 &&
	    table_impl(table)->phase(table_game(table)->state) != PHASE_PLAY; guard++)
		act_first(f, "#cv");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state), PHASE_PLAY);
	table_impl(table)->to_act(table_game(table)->state, acting);
	other = (acting[0] + 1) % table_nseats(table);
	user = table_seat(table, acting[0])->user_id;
	/* The one card the acting player cannot see, as another sees it. */
	view = table_impl(table)->view(table_game(table)->state, other);
	own = json_string_value(json_array_get(json_object_get(json_object_get(
	    view, "others"), (char[]){ (char)('0' + acting[0]), 0 }), 0));
	assert_non_null(own);
	for (size_t i = 0; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if (l->channel == NULL && strcmp(l->user_id, user) == 0)
			assert_null(strstr(l->text, own));
	}
	assert_non_null(strstr(last_to(f, NULL, user), "play plays it"));
	/* Out of turn: whose turn it is, nothing else. */
	say(f, "#cv", table_seat(table, other)->user_id, "!play");
	{
		char expect[128];

		snprintf(expect, sizeof(expect), "It was not your turn: %s "
		    "was to act.", table_seat(table, acting[0])->name);
		assert_addressed(f, "#cv", table_seat(table, other)->user_id,
		    expect);
	}
	json_decref(view);
	/* Once the card is played, the others read that, not a blank. */
	say(f, "#cv", user, "!play");
	say(f, NULL, table_seat(table, other)->user_id, "hand #cv");
	{
		char expect[64];

		snprintf(expect, sizeof(expect), "%s (no cards)",
		    table_seat(table, acting[0])->name);
		assert_non_null(strstr(last_to(f, NULL,
		    table_seat(table, other)->user_id), expect));
	}

	/* secret: every bid, even one made for a player, shown to them. */
	seat_three(f, "#sb", "wizard");
	say(f, "#sb", "alice", "!option secret");
	say(f, "#sb", "alice", "!start");
	table = table_of(f, "#sb");
	say(f, NULL, "bob", "bid 0");
	loop_advance(f->loop, 121 * 1000);
	assert_true(table_impl(table)->phase(table_game(table)->state) != PHASE_BID_SIMULTANEOUS);
	say(f, NULL, "alice", "hand #sb");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "your bid: "));
	say(f, NULL, "bob", "hand #sb");
	assert_non_null(strstr(last_to(f, NULL, "bob"), "your bid: 0"));
	assert_null(strstr(last_to(f, "#sb", NULL), "your bid"));
}

/*
 * A lobby belongs to the people seated at it: bystanders cannot change its
 * game, options, language or computers, closing it takes a majority, and
 * option values are read strictly.  A room's moderator is an admin of the
 * table, not of the bot.
 */
static void
test_lobby_steering(void **state)
{
	struct fx *f = *state;
	char zeros[80];

	/* Nobody seated yet: anyone may choose; then only the seated. */
	say(f, "#l", "mallory", "!game sticheln");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Sticheln"));
	say(f, "#l", "alice", "!join");
	say(f, "#l", "bob", "!join");
	say(f, "#l", "mallory", "!game wizard");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Only the people "
	    "seated"));
	say(f, "#l", "mallory", "!addbot");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Only the people "
	    "seated"));
	say(f, "#l", "mallory", "!lang ja");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Only the people "
	    "seated"));
	assert_string_equal(table_impl(table_of(f, "#l"))->name, "sticheln");
	assert_int_equal(table_nseats(table_of(f, "#l")), 2);
	say(f, "#l", "bob", "!game wizard");
	assert_string_equal(table_impl(table_of(f, "#l"))->name, "wizard");

	/* Strict values: digits in range, nothing cut. */
	say(f, "#l", "alice", "!option rounds=0");
	assert_non_null(strstr(last_to(f, "#l", NULL), "from 1 to"));
	say(f, "#l", "alice", "!option rounds=+5");
	assert_non_null(strstr(last_to(f, "#l", NULL), "from 1 to"));
	memset(zeros, '0', sizeof(zeros));
	memcpy(zeros, "rounds=", 7);
	zeros[sizeof(zeros) - 2] = '5';
	zeros[sizeof(zeros) - 1] = '\0';
	say(f, "#l", "alice", "!option %s", zeros);
	assert_non_null(strstr(last_to(f, "#l", NULL), "at most"));
	say(f, "#l", "alice", "!option rounds=5");
	assert_non_null(strstr(last_to(f, "#l", NULL), "rounds=5"));

	/* Several at once, checked together: one refused changes none. */
	say(f, "#l", "alice", "!option hiddentip rounds=4");
	assert_non_null(strstr(last_to(f, "#l", NULL),
	    "Options: hiddentip, rounds=4"));
	say(f, "#l", "alice", "!option rounds=3 notequal");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Refused"));
	say(f, "#l", "alice", "!option rounds=3 nosuch");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Refused"));
	say(f, "#l", "alice", "!option rounds=3 rounds=0");
	assert_non_null(strstr(last_to(f, "#l", NULL), "from 1 to"));
	{
		const struct game_impl *impl = table_impl(table_of(f, "#l"));
		const struct game_options *o = table_options(table_of(f,
		    "#l"));

		assert_int_equal(o->value[game_option_index(impl, "rounds")],
		    4);
		assert_int_equal(o->value[game_option_index(impl,
		    "hiddentip")], 1);
		assert_int_equal(o->value[game_option_index(impl,
		    "notequal")], 0);
	}
	say(f, "#l", "alice", "!option hiddentip");
	assert_non_null(strstr(last_to(f, "#l", NULL), "Options: rounds=4"));

	/* Closing: one vote of two is not enough; the second closes it. */
	say(f, "#l", "alice", "!stop");
	assert_non_null(strstr(last_to(f, "#l", NULL), "votes to close"));
	assert_non_null(table_of(f, "#l"));
	say(f, "#l", "mallory", "!stop");
	assert_non_null(table_of(f, "#l"));
	say(f, "#l", "bob", "!stop");
	assert_null(table_of(f, "#l"));
	assert_string_equal(last_to(f, "#l", NULL), "The table is closed.");

	/* A room moderator steers and stops, but cannot reload the bot. */
	memory_room_admin(f->adapter, "#l", "mod");
	say(f, "#l", "alice", "!join");
	say(f, "#l", "mod", "!game birdhead");
	assert_string_equal(table_impl(table_of(f, "#l"))->name, "birdhead");
	say(f, "#l", "mod", "!admin reload");
	assert_non_null(strstr(last_to(f, "#l", NULL), "configured admins"));
	say(f, "#l", "mod", "!admin status");
	assert_non_null(strstr(last_to(f, "#l", NULL), "configured admins"));
	say(f, "#l", "mod", "!stop");
	assert_null(table_of(f, "#l"));
}

/*
 * Nobody can crowd out a table: a busy table refuses commands (privately)
 * and its computers wait instead of anything being dropped; computers
 * never play to an empty room; a guest (no account where one is required)
 * gets no seat; a table is reachable however many one sits at.
 */
static void
test_crowding(void **state)
{
	struct fx *f = *state;
	struct user guest = { .id = "eve!e@host", .name = "eve", .guest = 1 };
	struct table *table;
	int before;
	size_t mark;

	memory_say_as(f->adapter, "#z", &guest, "!join");
	assert_non_null(strstr(last_to(f, "#z", NULL), "services account"));
	assert_null(table_of(f, "#z"));

	/* Busy: refused privately, computers hold, then all goes on. */
	say(f, "#z", "alice", "!join");
	say(f, "#z", "alice", "!addbot");
	say(f, "#z", "alice", "!addbot");
	say(f, "#z", "alice", "!start");
	table = table_of(f, "#z");
	memory_busy(f->adapter, "#z");
	mark = memory_count(f->adapter);
	say(f, "#z", "alice", "!status");
	assert_int_equal(memory_count(f->adapter), mark + 1);
	assert_null(memory_line(f->adapter, mark)->channel);
	assert_non_null(strstr(memory_line(f->adapter, mark)->text,
	    "a lot to say"));
	before = table_game(table)->nactions;
	loop_advance(f->loop, 10 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	memory_busy(f->adapter, NULL);
	for (int i = 0; i < 20 && table_game(table)->nactions == before; i++)
		loop_advance(f->loop, 1000);
	assert_true(table_game(table)->nactions > before);

	/*
	 * A move passes a busy table (the line it adds is the game's own
	 * progress; before, it was refused and told once a minute, so a
	 * player's move was lost and the clock ran on).  Questions are no
	 * table news: their answers are outside the table's flow, so they
	 * never make it busy.
	 */
	seat_three(f, "#zb", "wizard");
	say(f, "#zb", "alice", "!start");
	memory_busy(f->adapter, "#zb");
	before = table_game(table_of(f, "#zb"))->nactions;
	act_first(f, "#zb");
	assert_int_equal(table_game(table_of(f, "#zb"))->nactions, before + 1);
	memory_busy(f->adapter, NULL);
	mark = memory_count(f->adapter);
	say(f, "#zb", "mal", "!rules");
	say(f, "#zb", "mal", "!frobnicate");
	assert_int_equal(memory_count(f->adapter), mark + 2);
	for (size_t i = mark; i < mark + 2; i++) {
		assert_string_equal(memory_line(f->adapter, i)->channel, "#zb");
		assert_null(memory_line(f->adapter, i)->flow);
	}
	/* A change is the table's news, in its flow. */
	mark = memory_count(f->adapter);
	act_first(f, "#zb");
	assert_string_equal(memory_line(f->adapter, mark)->flow, "#zb");
	/*
	 * The table's state is said in its flow too, unstored: after the
	 * lines queued before it, before those after, so that it is true
	 * where it is read (among the answers it waited for every line the
	 * table made meanwhile, and came out stale).
	 */
	mark = memory_count(f->adapter);
	say(f, "#zb", "mal", "!status");
	assert_int_equal(memory_count(f->adapter), mark + 1);
	assert_string_equal(memory_line(f->adapter, mark)->flow, "#zb");
	assert_true(memory_line(f->adapter, mark)->id == 0);

	/* Alice leaves: the computers finish the trick, then wait. */
	mark = memory_count(f->adapter);
	say(f, "#z", "alice", "!leave");
	loop_advance(f->loop, 60 * 1000);
	before = table_game(table)->nactions;
	assert_int_equal(count_since(f, mark, "Nobody is seated"), 1);
	loop_advance(f->loop, 600 * 1000);
	assert_int_equal(table_game(table)->nactions, before);
	assert_int_equal(count_since(f, mark, "Nobody is seated"), 1);
	/* Taking a seat resumes it; an empty room again closes it. */
	say(f, "#z", "alice", "!back");
	for (int i = 0; i < 20 && table_game(table)->nactions == before; i++) {
		int acting[GAME_MAX_SEATS];

		table_impl(table)->to_act(table_game(table)->state, acting);
		if (strcmp(table_seat(table, acting[0])->user_id, "alice") == 0)
			act_first(f, "#z");
		else
			loop_advance(f->loop, 1000);
	}
	assert_true(table_game(table)->nactions > before);
	say(f, "#z", "alice", "!leave");
	loop_advance(f->loop, 1900 * 1000);
	assert_null(table_of(f, "#z"));

	/* Seventeen tables: the last is reachable privately by name. */
	for (int i = 0; i < 17; i++) {
		char channel[16];

		snprintf(channel, sizeof(channel), "#t%d", i);
		say(f, channel, "bob", "!join");
	}
	say(f, NULL, "bob", "status #t16");
	assert_non_null(strstr(last_to(f, NULL, "bob"), "seated"));
}

/*
 * A crowd within each person's allowance still cannot fill the network:
 * past the network-wide allowance commands that are not moves go
 * unanswered (each person told once), while the players' moves pass.
 */
static void
test_crowd_allowance(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t mark;
	int answered = 0, notes = 0, before;

	bot_stop(f->bot, NULL);
	bot_destroy(f->bot);
	f->command_burst = 5;
	f->bot = fx_bot(f);
	seat_three(f, "#n", "wizard");
	say(f, "#n", "alice", "!start");
	table = table_of(f, "#n");
	loop_advance(f->loop, 60 * 1000);
	mark = memory_count(f->adapter);
	for (int i = 0; i < 20; i++) {
		char who[16];

		snprintf(who, sizeof(who), "guest%d", i);
		say(f, NULL, who, "help");
		say(f, NULL, who, "help");
	}
	for (size_t i = mark; i < memory_count(f->adapter); i++) {
		const char *text = memory_line(f->adapter, i)->text;

		if (strstr(text, "Many people") != NULL)
			notes++;
		else
			answered++;
	}
	/* Ten at once (the network's burst); each of the others told once. */
	assert_int_equal(answered, 10);
	assert_int_equal(notes, 15);
	before = table_game(table)->nactions;
	act_first(f, "#n");
	assert_int_equal(table_game(table)->nactions, before + 1);
}

/*
 * Causal order: within what one move makes the bot say, channel lines
 * come before private ones, so the end of a round (its last card, the
 * trick, the score sheet) is said before the next round's hands, and a
 * move before the prompt it causes.
 */
static void
test_causal_order(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t over = 0, hand2 = 0;

	seat_three(f, "#co", "wizard");
	say(f, "#co", "alice", "!start");
	table = table_of(f, "#co");
	for (int guard = 0; guard < 20 &&
	    table_impl(table)->round(table_game(table)->state) == 0; guard++)
		act_first(f, "#co");
	assert_int_equal(table_impl(table)->round(table_game(table)->state), 1);
	for (size_t i = 0; i < memory_count(f->adapter); i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if (over == 0 && l->channel != NULL &&
		    strstr(l->text, "Round 1 is over") != NULL)
			over = i + 1;
		if (hand2 == 0 && l->channel == NULL &&
		    strstr(l->text, "Round 2, your hand") != NULL)
			hand2 = i + 1;
	}
	assert_true(over > 0 && hand2 > 0);
	assert_true(over < hand2);
	/* One private line per deal each, the task with it for who acts. */
	for (int seat = 0; seat < table_nseats(table); seat++) {
		int lines = 0;

		for (size_t i = 0; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter, i);

			lines += l->channel == NULL &&
			    strcmp(l->user_id, table_seat(table, seat)->user_id) ==
			    0 && strstr(l->text, "Round 2, your hand") != NULL;
		}
		assert_int_equal(lines, 1);
	}
}

/*
 * A turn costs one channel line (issue 16): the mention carries what the
 * public knows constrains the play (the suit to follow), nobody gets a
 * private prompt per turn beyond the hand that comes with the deal, and
 * !hand gives the hand with the moves allowed on request.
 */
static void
test_turns_in_public(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t mark = 0;
	int hinted = 0;

	seat_three(f, "#tp", "wizard");
	say(f, "#tp", "alice", "!start");
	table = table_of(f, "#tp");
	for (int guard = 0; guard < 40 &&
	    table_impl(table)->round(table_game(table)->state) < 2; guard++) {
		size_t before = memory_count(f->adapter);
		json_t *view;
		const char *lead;

		if (table_impl(table)->round(table_game(table)->state) == 1 && mark == 0)
			mark = before;
		act_first(f, "#tp");
		if (table_impl(table)->phase(table_game(table)->state) != PHASE_PLAY)
			continue;
		view = table_impl(table)->view(table_game(table)->state, -1);
		lead = json_string_value(json_object_get(view, "lead"));
		if (lead != NULL && strcmp(lead, "any") != 0) {
			const struct memory_line *l = memory_line(f->adapter,
			    memory_count(f->adapter) - 1);
			char want[16];

			snprintf(want, sizeof(want), " · lead %s", lead);
			assert_non_null(l->channel);
			assert_non_null(strstr(l->text, " to play"));
			assert_non_null(strstr(l->text, want));
			hinted++;
		}
		json_decref(view);
	}
	assert_true(mark > 0);
	assert_true(hinted > 0);
	/* Round 2 (two cards each): one private line per seat, the hand. */
	for (int seat = 0; seat < table_nseats(table); seat++) {
		int lines = 0;

		for (size_t i = mark; i < memory_count(f->adapter); i++) {
			const struct memory_line *l = memory_line(f->adapter, i);

			if (l->channel == NULL && strcmp(l->user_id,
			    table_seat(table, seat)->user_id) == 0) {
				assert_non_null(strstr(l->text, "your hand"));
				lines++;
			}
		}
		assert_int_equal(lines, 1);
	}
	/* On request: the hand with what to do now. */
	{
		int acting[GAME_MAX_SEATS];
		const struct memory_line *l;

		table_impl(table)->to_act(table_game(table)->state, acting);
		say(f, "#tp", table_seat(table, acting[0])->user_id, "!hand");
		l = memory_line(f->adapter, memory_count(f->adapter) - 1);
		assert_null(l->channel);
		assert_non_null(strstr(l->text, "your hand"));
		assert_non_null(strstr(l->text, "to bid"));
	}
}

/*
 * The table at a glance (!table): privately with the asker's hand, the
 * cards they may play now in brackets; to someone not seated, what
 * everyone may see, where they asked, without any hand.
 */
static void
test_table_view(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int acting[GAME_MAX_SEATS];
	const struct memory_line *l;
	const char *user;

	seat_three(f, "#tv", "wizard");
	say(f, "#tv", "alice", "!start");
	table = table_of(f, "#tv");
	/* Round 1 (one card): the bid, then the first player's turn. */
	for (int guard = 0; guard < 10 && table_impl(table)->phase(
	    table_game(table)->state) != PHASE_PLAY; guard++)
		act_first(f, "#tv");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_PLAY);
	table_impl(table)->to_act(table_game(table)->state, acting);
	user = table_seat(table, acting[0])->user_id;
	say(f, "#tv", user, "!table");
	l = memory_line(f->adapter, memory_count(f->adapter) - 1);
	assert_null(l->channel);
	assert_string_equal(l->user_id, user);
	assert_non_null(strstr(l->text, "[#tv] Wizard · Round 1"));
	assert_non_null(strstr(l->text, "\nYour hand: ["));
	assert_non_null(strstr(l->text, "]"));
	/* Someone else's view of the same table has their hand unmarked. */
	say(f, "#tv", table_seat(table, (acting[0] + 1) % 3)->user_id,
	    "!view");
	l = memory_line(f->adapter, memory_count(f->adapter) - 1);
	assert_null(l->channel);
	assert_non_null(strstr(l->text, "\nYour hand: "));
	assert_null(strchr(strstr(l->text, "\nYour hand: "), '['));
	/* A bystander: the public view in the channel, no hand at all. */
	say(f, "#tv", "zed", "!table");
	l = memory_line(f->adapter, memory_count(f->adapter) - 1);
	assert_non_null(l->channel);
	assert_non_null(strstr(l->text, "Wizard · Round 1"));
	assert_null(strstr(l->text, "hand"));
}

/*
 * A seat follows its person's visible name: an account holder back under
 * another nick is shown and mentioned by that nick.
 */
static void
test_seat_follows_name(void **state)
{
	struct fx *f = *state;
	struct user alicia = { .id = "account:alice", .name = "alicia" };
	struct user alice = { .id = "account:alice", .name = "alice" };
	struct table *table;

	memory_say_as(f->adapter, "#fn", &alice, "!join");
	say(f, "#fn", "bob", "!join");
	say(f, "#fn", "carol", "!join");
	memory_say_as(f->adapter, "#fn", &alice, "!start");
	table = table_of(f, "#fn");
	assert_string_equal(table_seat(table, 0)->name, "alice");
	memory_say_as(f->adapter, "#fn", &alicia, "!status");
	assert_string_equal(table_seat(table, 0)->name, "alicia");
	assert_non_null(strstr(last_to(f, "#fn", NULL), "alicia"));
	adapter_join(f->adapter, "#fn", &alice);
	adapter_flush(f->adapter);
	assert_string_equal(table_seat(table, 0)->name, "alice");
}

/* Instructions name the bot as people reach it now (its current nick). */
static void
test_hints_name_the_bot(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#hn", "wizard");
	say(f, "#hn", "alice", "!option hiddentip");
	memory_self_name(f->adapter, "stichbot_");
	say(f, "#hn", "alice", "!start");
	assert_true(sent_since(f, 0, "#hn", "send yours privately to "
	    "stichbot_ (bid N)"));
	say(f, "#hn", "bob", "!bid 1");
	assert_non_null(strstr(last_to(f, NULL, "bob"), "send bid 1 "
	    "privately to stichbot_"));
}

/* !option lists what applies: nothing for BirdHead, ranges by players. */
static void
test_option_list(void **state)
{
	struct fx *f = *state;

	say(f, "#ol", "alice", "!game birdhead");
	say(f, "#ol", "alice", "!option");
	assert_addressed(f, "#ol", "alice", "BirdHead has no options.");
	say(f, "#ol", "alice", "!game wizard");
	say(f, "#ol", "alice", "!join");
	say(f, "#ol", "alice", "!option");
	assert_non_null(strstr(last_to(f, "#ol", NULL), "rounds=1..20"));
	say(f, "#ol", "bob", "!join");
	say(f, "#ol", "carol", "!join");
	say(f, "#ol", "dave", "!join");
	say(f, "#ol", "alice", "!option");
	assert_non_null(strstr(last_to(f, "#ol", NULL), "rounds=1..15"));
}

/*
 * Lets user's turns time out (everyone else acts at once, computers by
 * the clock) until a computer holds their seat.
 */
static void
idle_until_standin(struct fx *f, const char *channel, const char *user)
{
	struct table *table = table_of(f, channel);
	int seat = table_seat_of(table, user);

	for (int guard = 0; guard < 60 && !table_seat(table, seat)->standin;
	    guard++) {
		int acting[GAME_MAX_SEATS];
		const struct seat *s;

		table_impl(table)->to_act(table_game(table)->state, acting);
		s = table_seat(table, acting[0]);
		if (acting[0] == seat)
			loop_advance(f->loop, 120 * 1000 + 1);
		else if (s->computer || s->standin)
			loop_advance(f->loop, 1000);
		else
			act_first(f, channel);
	}
	assert_true(table_seat(table, seat)->standin);
}

/*
 * A seat given up privately is announced in the channel, as one given up
 * there: the lobby shrinks, then closes, and everyone reading it knows.
 */
static void
test_private_leave_announced(void **state)
{
	struct fx *f = *state;
	size_t mark;

	say(f, "#pl", "alice", "!game wizard");
	say(f, "#pl", "alice", "!join");
	say(f, "#pl", "bob", "!join");
	mark = memory_count(f->adapter);
	say(f, NULL, "alice", "leave");
	assert_string_equal(last_to(f, "#pl", NULL), "alice leaves the table.");
	assert_int_equal(table_nseats(table_of(f, "#pl")), 1);
	assert_false(sent_since(f, mark, NULL, "leaves"));
	/* Not seated: the refusal is the person's alone. */
	mark = memory_count(f->adapter);
	say(f, NULL, "alice", "leave");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "no seat"));
	assert_false(sent_since(f, mark, "#pl", "seat"));
	say(f, NULL, "bob", "l");
	assert_string_equal(last_to(f, "#pl", NULL),
	    "bob leaves the table. The table is closed.");
	assert_null(table_of(f, "#pl"));
}

/*
 * Seats that go by one name (two Matrix users called Sam, told apart by
 * their ids; a person called CPU1 beside the computer CPU1) are never
 * picked by their order: the command asks for the id instead.
 */
static void
test_seat_names_shared(void **state)
{
	struct fx *f = *state;
	struct table *table;

	memory_say(f->adapter, "#sn", "@s1:x", "Sam (@s1:x)", "!game wizard");
	memory_say(f->adapter, "#sn", "@s1:x", "Sam (@s1:x)", "!join");
	memory_say(f->adapter, "#sn", "@s2:x", "Sam (@s2:x)", "!join");
	memory_say(f->adapter, "#sn", "@s1:x", "Sam (@s1:x)", "!addbot");
	memory_say(f->adapter, "#sn", "@c:x", "CPU1", "!join");
	table = table_of(f, "#sn");
	assert_int_equal(table_nseats(table), 4);
	assert_int_equal(table_seat_by_name(table, "sam"), -2);
	/*
	 * A person called CPU1 beside the computer CPU1 is shown with their
	 * id, as the reply asking for it says; the bare name is the
	 * computer's.
	 */
	assert_string_equal(table_seat(table, 3)->name, "CPU1 (@c:x)");
	assert_int_equal(table_seat_by_name(table, "CPU1"), 2);
	assert_int_equal(table_seat_by_name(table, "cpu1 (@c:x)"), 3);
	assert_int_equal(table_seat_by_name(table, "@s2:x"), 1);
	assert_int_equal(table_seat_by_name(table, "Sam (@s2:x)"), 1);
	assert_int_equal(table_seat_by_name(table, "Sa"), -1);
	/* A further computer takes a name nobody has. */
	memory_say(f->adapter, "#sn", "@s1:x", "Sam (@s1:x)", "!addbot");
	assert_string_equal(table_seat(table, 4)->name, "CPU2");
	memory_say(f->adapter, "#sn", "@s1:x", "Sam (@s1:x)", "!start");
	say(f, "#sn", "mal", "!replace Sam");
	assert_string_equal(last_to(f, "#sn", NULL),
	    "mal: More than one seat here goes by \"Sam\"; name the one you mean "
	    "by the user id the table shows.");
	say(f, "#sn", "mal", "!replace cpu1 (@c:x)");
	assert_addressed(f, "#sn", "mal", "CPU1 (@c:x) plays their own seat.");
	/* By id, the seat is found (and is not free: its owner plays it). */
	say(f, "#sn", "mal", "!replace @s1:x");
	assert_addressed(f, "#sn", "mal", "Sam (@s1:x) plays their own seat.");
	/* So it is by its name as the table shows it, spaces and all. */
	say(f, "#sn", "mal", "!replace Sam (@s2:x)");
	assert_addressed(f, "#sn", "mal", "Sam (@s2:x) plays their own seat.");
	say(f, "#sn", "mal", "!replace \"Sam (@s1:x)\"");
	assert_addressed(f, "#sn", "mal", "Sam (@s1:x) plays their own seat.");
	admin_says(f, "#sn", "!admin kick cpu2");
	assert_addressed(f, "#sn", "root", "CPU2 is a computer player: there "
	    "is nobody to kick.");
	say(f, "#sn", "mal", "!replace CPU2");
	assert_non_null(strstr(last_to(f, "#sn", NULL),
	    "mal takes over the seat of CPU2"));
}

/*
 * A seat changes hands (replace) only once its owner is gone from the
 * channel past the grace time, or gave it up: never while they are here
 * and may say back.  Whoever lost their seat so hears who has it.
 */
static void
test_replace_needs_owner_gone(void **state)
{
	struct fx *f = *state;
	struct user alice = { .id = "alice", .name = "alice" };
	struct user carol = { .id = "carol", .name = "carol" };
	struct table *table;
	int seat;

	seat_three(f, "#q", "wizard");
	say(f, "#q", "alice", "!start");
	table = table_of(f, "#q");
	seat = table_seat_of(table, "alice");
	/* Two turns missed: a computer holds the seat; alice is here. */
	idle_until_standin(f, "#q", "alice");
	say(f, "#q", "mal", "!replace alice");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "alice is still here or may come back soon: only they can take "
	    "their seat back (!back)."));
	assert_string_equal(table_seat(table, seat)->user_id, "alice");
	say(f, "#q", "alice", "!back");
	assert_non_null(strstr(last_to(f, "#q", NULL), "Welcome back"));
	say(f, "#q", "mal", "!replace alice");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "plays their own seat"));

	/*
	 * Gone: not within the grace time (told so, as while she is here);
	 * after it, anyone may.
	 */
	adapter_leave(f->adapter, "#q", &alice);
	adapter_flush(f->adapter);
	say(f, "#q", "mal", "!replace alice");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "alice is still here or may come back soon"));
	assert_string_equal(table_seat(table, seat)->user_id, "alice");
	loop_advance(f->loop, 61 * 1000);
	assert_true(table_seat(table, seat)->standin);
	say(f, "#q", "mal", "!replace alice");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "mal takes over the seat of alice."));
	assert_string_equal(table_seat(table, seat)->user_id, "mal");

	/* alice comes back: the seat stays mal's, and she hears why. */
	adapter_join(f->adapter, "#q", &alice);
	adapter_flush(f->adapter);
	say(f, "#q", "alice", "!back");
	assert_addressed(f, "#q", "alice",
	    "mal has taken over your seat; !join at the next game.");
	say(f, "#q", "alice", "!join");
	assert_addressed(f, "#q", "alice",
	    "mal has taken over your seat; !join at the next game.");
	say(f, "#q", "alice", "!hand");
	assert_addressed(f, "#q", "alice",
	    "mal has taken over your seat; !join at the next game.");
	assert_string_equal(table_seat(table, seat)->user_id, "mal");
	/* Privately too (before: "You have no seat at any table."). */
	for (int i = 0; i < 5; i++) {
		static const char *const said[] = { "hand", "back", "bid 0",
		    "play W", "leave" };

		say(f, NULL, "alice", "%s", said[i]);
		assert_string_equal(last_to(f, NULL, "alice"),
		    "mal has taken over your seat; !join at the next game.");
	}
	/* A restart keeps who had the seat (before: "no seat at this table"). */
	for (int clean = 0; clean < 2; clean++) {
		fx_restart(f, clean);
		assert_int_equal(bot_restore(f->bot), 1);
		adapter_flush(f->adapter);
		say(f, "#q", "alice", "!back");
		assert_addressed(f, "#q", "alice",
		    "mal has taken over your seat; !join at the next game.");
		say(f, NULL, "alice", "hand");
		assert_string_equal(last_to(f, NULL, "alice"),
		    "mal has taken over your seat; !join at the next game.");
	}
	table = table_of(f, "#q");
	assert_string_equal(table_seat(table, seat)->user_id, "mal");

	/* A seat given up (leave) is anyone's at once, as the line says. */
	say(f, "#q", "bob", "!leave");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "anyone may take it over with !replace bob"));
	say(f, "#q", "dave", "!replace bob");
	assert_non_null(strstr(last_to(f, "#q", NULL),
	    "dave takes over the seat of bob."));

	/* A reconnect within the grace time keeps even a computer's hold. */
	idle_until_standin(f, "#q", "carol");
	adapter_leave(f->adapter, "#q", &carol);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 10 * 1000);
	adapter_join(f->adapter, "#q", &carol);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 61 * 1000);
	say(f, "#q", "erin", "!replace carol");
	assert_non_null(strstr(last_to(f, "#q", NULL), "carol is still here"));
	assert_int_equal(table_seat_of(table, "erin"), -1);
	/* Left again, and gone past the grace: now it may change hands. */
	adapter_leave(f->adapter, "#q", &carol);
	adapter_flush(f->adapter);
	loop_advance(f->loop, 61 * 1000);
	say(f, "#q", "erin", "!replace carol");
	assert_true(table_seat_of(table, "erin") >= 0);
}

/*
 * A seat given up stays given up across a restart (clean or not): the
 * channel was told that anyone may take it over.  A seat a computer
 * plays only because its owner missed turns stays its owner's.
 */
static void
test_given_up_survives_restart(void **state)
{
	struct fx *f = *state;

	for (int clean = 0; clean < 2; clean++) {
		const char *channel = clean ? "#r1" : "#r0";

		seat_three(f, channel, "wizard");
		say(f, channel, "dave", "!join");
		say(f, channel, "alice", "!start");
		/* carol gives hers up; bob gives up one a computer plays. */
		say(f, channel, "carol", "!leave");
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "anyone may take it over with !replace carol"));
		idle_until_standin(f, channel, "bob");
		say(f, channel, "bob", "!leave");
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "anyone may take it over with !replace bob"));
		/* dave only missed turns: his seat stays his. */
		idle_until_standin(f, channel, "dave");
		fx_restart(f, clean);
		assert_int_equal(bot_restore(f->bot), 1 + clean);
		adapter_flush(f->adapter);
		assert_non_null(table_of(f, channel));
		say(f, channel, "mal", "!replace dave");
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "dave is still here or may come back soon"));
		say(f, channel, "mal", "!replace bob");
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "mal takes over the seat of bob."));
		say(f, channel, "erin", "!replace carol");
		assert_non_null(strstr(last_to(f, channel, NULL),
		    "erin takes over the seat of carol."));
		/* Taken over, the seat is its holder's again, also stored. */
		fx_restart(f, clean);
		assert_int_equal(bot_restore(f->bot), 1 + clean);
		adapter_flush(f->adapter);
		say(f, channel, "frank", "!replace mal");
		assert_null(strstr(last_to(f, channel, NULL),
		    "frank takes over"));
		assert_int_equal(table_seat_of(table_of(f, channel), "frank"),
		    -1);
		assert_true(table_seat_of(table_of(f, channel), "mal") >= 0);
	}
}

/*
 * What the adapter finds in a channel after joining it (a restart, a
 * reconnect) counts as the comings and goings the bot could not see: an
 * owner gone meanwhile gets the grace time, then their seat may change
 * hands; one who came back meanwhile is here again.
 */
static void
test_members_after_restart(void **state)
{
	struct fx *f = *state;
	const struct user here[] = {
		{ .id = "alice", .name = "alice" },
		{ .id = "carol", .name = "carol" },
		{ .id = "mal", .name = "mal" },
	};
	struct user carol = { .id = "carol", .name = "carol" };
	struct table *table;

	seat_three(f, "#g", "wizard");
	say(f, "#g", "alice", "!start");
	/* bob leaves while the bot is down: after the restart, nobody knows. */
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	table = table_of(f, "#g");
	loop_advance(f->loop, 61 * 1000);
	say(f, "#g", "mal", "!replace bob");
	assert_int_equal(table_seat_of(table, "mal"), -1);
	/* The channel's members say so: bob gets the grace time, then mal may. */
	adapter_members(f->adapter, "#g", here, 3);
	adapter_flush(f->adapter);
	say(f, "#g", "mal", "!replace bob");
	assert_int_equal(table_seat_of(table, "mal"), -1);
	loop_advance(f->loop, 61 * 1000);
	assert_true(table_seat(table, table_seat_of(table, "bob"))->standin);
	say(f, "#g", "mal", "!replace bob");
	assert_non_null(strstr(last_to(f, "#g", NULL),
	    "mal takes over the seat of bob."));
	/* Nobody else was touched: alice and carol play their own seats. */
	assert_false(table_seat(table, table_seat_of(table, "alice"))->standin);
	assert_false(table_seat(table, table_seat_of(table, "carol"))->away);

	/* carol leaves and comes back while the bot is cut off. */
	adapter_leave(f->adapter, "#g", &carol);
	adapter_flush(f->adapter);
	assert_true(table_seat(table, table_seat_of(table, "carol"))->away);
	adapter_members(f->adapter, "#g", here, 3);
	adapter_flush(f->adapter);
	assert_false(table_seat(table, table_seat_of(table, "carol"))->away);
	/* A name changed meanwhile: the seat goes by the new one, stored. */
	{
		const struct user renamed[] = {
			{ .id = "alice", .name = "alice" },
			{ .id = "carol", .name = "Caroline" },
			{ .id = "mal", .name = "mal" },
		};

		adapter_members(f->adapter, "#g", renamed, 3);
		adapter_flush(f->adapter);
		assert_string_equal(table_seat(table, table_seat_of(table,
		    "carol"))->name, "Caroline");
		fx_restart(f, 0);
		assert_int_equal(bot_restore(f->bot), 1);
		adapter_flush(f->adapter);
		table = table_of(f, "#g");
		assert_string_equal(table_seat(table, table_seat_of(table,
		    "carol"))->name, "Caroline");
		adapter_members(f->adapter, "#g", here, 3);
		adapter_flush(f->adapter);
		assert_string_equal(table_seat(table, table_seat_of(table,
		    "carol"))->name, "carol");
	}
	loop_advance(f->loop, 61 * 1000);
	say(f, "#g", "erin", "!replace carol");
	assert_int_equal(table_seat_of(table, "erin"), -1);
	assert_true(table_seat_of(table, "carol") >= 0);
	say(f, "#g", "alice", "!stop");
	say(f, "#g", "carol", "!stop");
	assert_null(table_of(f, "#g"));

	/* A lobby seat of someone gone meanwhile is freed, as on a part. */
	seat_three(f, "#h", "wizard");
	fx_restart(f, 1);
	assert_int_equal(bot_restore(f->bot), 0);
	adapter_flush(f->adapter);
	assert_int_equal(table_nseats(table_of(f, "#h")), 3);
	adapter_members(f->adapter, "#h", here, 3);
	adapter_flush(f->adapter);
	assert_int_equal(table_nseats(table_of(f, "#h")), 2);
	assert_int_equal(table_seat_of(table_of(f, "#h"), "bob"), -1);
}

/*
 * A vote to stop, counted aloud, still counts after a restart; a seat
 * that changes hands leaves its vote with the one who cast it.
 */
static void
test_stop_vote_survives_restart(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#v", "wizard");
	say(f, "#v", "dave", "!join");
	say(f, "#v", "alice", "!start");
	say(f, "#v", "alice", "!stop");
	assert_non_null(strstr(last_to(f, "#v", NULL),
	    "alice votes to stop the game (1 of 3 votes needed"));
	/* carol gives her seat up and votes no more; erin takes it over. */
	say(f, "#v", "carol", "!stop");
	assert_non_null(strstr(last_to(f, "#v", NULL), "(2 of 3 votes"));
	say(f, "#v", "carol", "!leave");
	say(f, "#v", "erin", "!replace carol");
	assert_non_null(strstr(last_to(f, "#v", NULL),
	    "erin takes over the seat of carol."));
	fx_restart(f, 0);
	assert_int_equal(bot_restore(f->bot), 1);
	adapter_flush(f->adapter);
	say(f, "#v", "bob", "!stop");
	assert_non_null(strstr(last_to(f, "#v", NULL),
	    "bob votes to stop the game (2 of 3 votes needed"));
	say(f, "#v", "erin", "!stop");
	assert_null(table_of(f, "#v"));
	assert_true(sent_since(f, 0, "#v", "The game is stopped"));

	/* A vote to close a lobby is kept the same way. */
	seat_three(f, "#w", "wizard");
	say(f, "#w", "dave", "!join");
	say(f, "#w", "alice", "!stop");
	assert_non_null(strstr(last_to(f, "#w", NULL),
	    "alice votes to close the table (1 of 3 needed"));
	fx_restart(f, 1);
	assert_int_equal(bot_restore(f->bot), 0);
	adapter_flush(f->adapter);
	say(f, "#w", "bob", "!stop");
	assert_non_null(strstr(last_to(f, "#w", NULL),
	    "bob votes to close the table (2 of 3 needed"));
	say(f, "#w", "alice", "!stop");
	assert_non_null(strstr(last_to(f, "#w", NULL), "(2 of 3 needed"));
	say(f, "#w", "carol", "!stop");
	assert_null(table_of(f, "#w"));
}

/*
 * A game paused with nobody seated closes when the channel was told, also
 * across a restart: the bot says what is left of the wait, not the whole
 * wait again (audit: "closes in 2 minutes" again, and 70 s late).
 */
static void
test_pause_deadline_survives_restart(void **state)
{
	struct fx *f = *state;
	struct table *table;
	size_t mark;

	for (int clean = 0; clean < 2; clean++) {
		const char *channel = clean ? "#p1" : "#p0";

		say(f, channel, "alice", "!join");
		say(f, channel, "alice", "!addbot");
		say(f, channel, "alice", "!addbot");
		say(f, channel, "alice", "!start");
		mark = memory_count(f->adapter);
		say(f, channel, "alice", "!leave");
		loop_advance(f->loop, 60 * 1000);
		assert_true(sent_since(f, mark, channel, "and closes in 30 "
		    "minutes"));
		/* 20 minutes on, the bot restarts. */
		loop_advance(f->loop, 20 * 60 * 1000);
		assert_non_null(table_of(f, channel));
		fx_restart(f, clean);
		mark = memory_count(f->adapter);
		assert_int_equal(bot_restore(f->bot), 1);
		adapter_flush(f->adapter);
		loop_advance(f->loop, 60 * 1000);
		assert_true(sent_since(f, mark, channel, "and closes in 9 "
		    "minutes"));
		assert_false(sent_since(f, mark, channel, "closes in 30"));
		loop_advance(f->loop, 7 * 60 * 1000);
		assert_non_null(table = table_of(f, channel));
		loop_advance(f->loop, 2 * 60 * 1000);
		assert_null(table_of(f, channel));
		assert_true(sent_since(f, mark, channel, "The game is stopped"));
	}
}

/*
 * The next lobby after a game plays the same game and options again,
 * also after a restart: the store has the game that ended last.
 */
static void
test_another_game_survives_restart(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#n", "sticheln");
	say(f, "#n", "alice", "!option dm");
	say(f, "#n", "bob", "!start");
	play_out(f, "#n", 1);
	assert_true(sent_since(f, 0, "#n", "Another game with the same "
	    "options? !join and !start."));
	/* The network's default options, until a game has ended there. */
	f->options = "[\"rounds=2\", \"notequal\"]";
	fx_restart(f, 0);
	say(f, "#o", "bob", "!option");
	assert_non_null(strstr(last_to(f, "#o", NULL), "Options: notequal, "
	    "rounds=2."));
	say(f, "#o", "bob", "!join");
	say(f, "#o", "bob", "!option");
	assert_non_null(strstr(last_to(f, "#o", NULL), "Options: notequal, "
	    "rounds=2."));
	f->options = NULL;
	fx_restart(f, 0);
	/* Asked before a lobby is open: what the next one opens with. */
	say(f, "#n", "bob", "!option");
	assert_non_null(strstr(last_to(f, "#n", NULL), "Options: dm"));
	assert_null(table_of(f, "#n"));
	say(f, "#n", "bob", "!join");
	assert_string_equal(table_impl(table_of(f, "#n"))->name, "sticheln");
	say(f, "#n", "bob", "!option");
	assert_non_null(strstr(last_to(f, "#n", NULL), "Options: dm"));
	/* Elsewhere, the channel's own game as before. */
	say(f, "#m", "bob", "!join");
	assert_string_equal(table_impl(table_of(f, "#m"))->name, "wizard");
}

/*
 * Computers never keep people from a table: a person who joins a full
 * lobby takes a computer's seat, and a lobby of computers alone is
 * closed by anyone.
 */
static void
test_lobby_full_of_computers(void **state)
{
	struct fx *f = *state;
	struct table *table;

	for (int i = 0; i < 6; i++)
		say(f, "#c", "troll", "!addbot");
	table = table_of(f, "#c");
	assert_int_equal(table_nseats(table), 6);
	assert_int_equal(table_humans(table), 0);
	say(f, "#c", "amy", "!join");
	assert_string_equal(last_to(f, "#c", NULL),
	    "amy takes over the seat of CPU6.");
	assert_int_equal(table_nseats(table), 6);
	assert_int_equal(table_seat_of(table, "amy"), 5);
	assert_int_equal(table_humans(table), 1);
	/* Someone seated now: the passer-by no longer steers it. */
	say(f, "#c", "troll", "!addbot");
	assert_non_null(strstr(last_to(f, "#c", NULL), "Only the people "
	    "seated"));
	say(f, "#c", "amy", "!start");
	assert_non_null(table_game(table_of(f, "#c")));
	say(f, "#c", "amy", "!stop");
	assert_null(table_of(f, "#c"));
	/* A full table of people stays full. */
	say(f, "#c2", "p1", "!join");
	for (int i = 0; i < 5; i++) {
		char who[8];

		snprintf(who, sizeof(who), "q%d", i);
		say(f, "#c2", who, "!join");
	}
	say(f, "#c2", "late", "!join");
	assert_addressed(f, "#c2", "late", "The table is full (6 seats).");
	/*
	 * An option the engine takes, but not with six seated (10 rounds at
	 * most): kept, and said at once, not only at !start.
	 */
	say(f, "#c2", "p1", "!option rounds=15");
	assert_string_equal(last_to(f, "#c2", NULL), "Options: rounds=15\n"
	    "Not playable with 6 seated: Option rounds=15 is longer than the "
	    "game's 10 rounds.");
	say(f, "#c2", "p1", "!option rounds=10");
	assert_string_equal(last_to(f, "#c2", NULL), "Options: rounds=10");
	/* Computers alone: anyone may close the lobby; a vote says so. */
	say(f, "#c3", "troll", "!addbot");
	say(f, "#c3", "troll", "!addbot");
	say(f, "#c3", "amy", "!stop");
	assert_null(table_of(f, "#c3"));
	assert_string_equal(last_to(f, "#c3", NULL), "The table is closed.");
}

/*
 * The owner of a seat a computer plays still gets their hand and the
 * table when they ask, with how to take the seat back.
 */
static void
test_hand_while_computer_plays(void **state)
{
	struct fx *f = *state;
	static const char note[] = "A computer plays your seat; say !back to "
	    "take it again.";
	struct table *table;
	const struct memory_line *l;
	size_t mark;

	seat_three(f, "#hc", "wizard");
	say(f, "#hc", "alice", "!start");
	table = table_of(f, "#hc");
	say(f, "#hc", "bob", "!leave");
	assert_true(table_seat(table, table_seat_of(table, "bob"))->standin);
	mark = memory_count(f->adapter);
	say(f, NULL, "bob", "hand");
	assert_int_equal(memory_count(f->adapter), mark + 1);
	l = memory_line(f->adapter, mark);
	assert_null(l->channel);
	assert_string_equal(l->user_id, "bob");
	assert_non_null(strstr(l->text, "your hand:"));
	assert_non_null(strstr(l->text, note));
	say(f, "#hc", "bob", "!hand");
	assert_non_null(strstr(last_to(f, NULL, "bob"), "your hand:"));
	assert_non_null(strstr(last_to(f, NULL, "bob"), note));
	mark = memory_count(f->adapter);
	say(f, "#hc", "bob", "!table");
	assert_int_equal(memory_count(f->adapter), mark + 1);
	l = memory_line(f->adapter, mark);
	assert_null(l->channel);
	assert_non_null(strstr(l->text, "\nYour hand: "));
	assert_non_null(strstr(l->text, note));
	/* Asking for a seat points to back. */
	say(f, "#hc", "bob", "!replace bob");
	assert_addressed(f, "#hc", "bob", note);
	say(f, "#hc", "bob", "!join");
	assert_addressed(f, "#hc", "bob", note);
	assert_true(table_seat(table, table_seat_of(table, "bob"))->standin);
	/* Nobody is told anything for a computer's own seat. */
	assert_false(sent_since(f, mark, NULL, "CPU"));
}

/*
 * A second hidden bid is answered as one: "already bid", not whose turn
 * it is.
 */
static void
test_already_bid(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int guard;

	seat_three(f, "#ab", "wizard");
	say(f, "#ab", "alice", "!option hiddentip");
	say(f, "#ab", "alice", "!start");
	table = table_of(f, "#ab");
	for (guard = 0; guard < 3 && table_impl(table)->phase(
	    table_game(table)->state) == PHASE_TRUMP; guard++)
		act_first(f, "#ab");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_BID_SIMULTANEOUS);
	say(f, NULL, "alice", "bid 0");
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_BID_SIMULTANEOUS);
	say(f, NULL, "alice", "bid 1");
	assert_string_equal(last_to(f, NULL, "alice"),
	    "You have already bid.");
}

/*
 * A message edited into a command (Matrix) is never acted on, since it
 * would repeat a move or change one whose turn is past: the person is
 * told, in the channel or privately as they edited; an edit into
 * conversation, or into no known command, gets nothing.
 */
static void
test_edits_not_acted(void **state)
{
	struct fx *f = *state;
	struct table *table;
	int acting[GAME_MAX_SEATS], before, guard;
	const char *user;
	size_t mark;

	seat_three(f, "#ed", "wizard");
	say(f, "#ed", "alice", "!start");
	table = table_of(f, "#ed");
	for (guard = 0; guard < 3 && table_impl(table)->phase(
	    table_game(table)->state) == PHASE_TRUMP; guard++)
		act_first(f, "#ed");
	table_impl(table)->to_act(table_game(table)->state, acting);
	user = table_seat(table, acting[0])->user_id;
	before = table_game(table)->nactions;
	mark = memory_count(f->adapter);
	memory_edit(f->adapter, "#ed", user, "!bid 0");
	assert_int_equal(table_game(table)->nactions, before);
	assert_int_equal(count_since(f, mark, "I do not act on edited "
	    "messages: send the command again as a new message."), 1);
	assert_int_equal(strncmp(last_to(f, "#ed", NULL), user,
	    strlen(user)), 0);
	memory_edit(f->adapter, NULL, user, "bid 0");
	assert_int_equal(table_game(table)->nactions, before);
	assert_non_null(strstr(last_to(f, NULL, user), "edited messages"));
	mark = memory_count(f->adapter);
	memory_edit(f->adapter, "#ed", user, "hello, all");
	memory_edit(f->adapter, "#ed", user, "!frobnicate");
	assert_int_equal(memory_count(f->adapter), mark);
	/* The same line, not edited, is the move. */
	say(f, "#ed", user, "!bid 0");
	assert_int_equal(table_game(table)->nactions, before + 1);
}

/*
 * A move typed alone in a private message ("1", "r7", "7 7") is the
 * move of the table's task for the one who must act; anything else, or
 * the same from someone who is not to act, stays an unknown command and
 * changes nothing.  Every game, every phase a person acts in.
 */
static void
test_bare_move(void **state)
{
	static const char *const games[] = { "wizard", "birdhead", "sticheln" };
	struct fx *f = *state;

	for (int g = 0; g < 3; g++) {
		char channel[16];
		struct table *table;

		snprintf(channel, sizeof(channel), "#bare%d", g);
		seat_three(f, channel, games[g]);
		say(f, channel, "alice", "!start");
		table = table_of(f, channel);
		for (int moves = 0; moves < 40 && table_game(table) != NULL;
		    moves++) {
			struct action legal[GAME_MAX_ACTIONS];
			int acting[GAME_MAX_SEATS];
			const void *game_state = table_game(table)->state;
			int n = table_impl(table)->to_act(game_state, acting);
			int done = table_game(table)->nactions;
			int seat = acting[moves % n];
			int idle = (seat + 1) % 3;
			const char *who = table_seat(table, seat)->user_id;
			char cmd[64];
			const char *bare;
			size_t mark;

			n = table_impl(table)->legal(game_state, seat, legal,
			    GAME_MAX_ACTIONS);
			assert_true(n > 0);
			commands_for_action(table_impl(table),
			    &legal[moves % n], cmd, sizeof(cmd));
			bare = strchr(cmd, ' ') + 1;
			/* Not to act, or not a move: nothing happens. */
			for (int i = 0; i < 3; i++)
				if (i != seat && !table_impl(table)->
				    legal(game_state, i, legal, 1))
					idle = i;
			if (table_impl(table)->legal(game_state, idle, legal,
			    1) == 0) {
				say(f, NULL, table_seat(table, idle)->user_id,
				    "%s", bare);
				assert_int_equal(table_game(table)->nactions,
				    done);
			}
			say(f, NULL, who, "hello");
			assert_non_null(strstr(last_to(f, NULL, who),
			    "Unknown command \"hello\""));
			assert_int_equal(table_game(table)->nactions, done);
			mark = memory_count(f->adapter);
			say(f, NULL, who, "%s", bare);
			assert_int_equal(table_game(table)->nactions, done + 1);
			assert_false(sent_since(f, mark, NULL,
			    "Unknown command"));
			loop_advance(f->loop, 1);
		}
		say(f, channel, "alice", "!stop");
		say(f, channel, "bob", "!stop");
		assert_null(table_of(f, channel));
	}
	/* Hidden bids at two tables wait for everyone: which table? */
	for (int t = 0; t < 2; t++) {
		const char *channel = t == 0 ? "#hb0" : "#hb1";

		seat_three(f, channel, "wizard");
		say(f, channel, "alice", "!option hiddentip");
		say(f, channel, "alice", "!start");
	}
	loop_advance(f->loop, 1000);
	/* Said in a channel, the hint names the table to say it for. */
	say(f, "#hb0", "alice", "!bid 0");
	assert_string_equal(last_to(f, NULL, "alice"), "This is secret: send "
	    "bid #hb0 0 privately to me.");
	say(f, NULL, "alice", "0");
	assert_non_null(strstr(last_to(f, NULL, "alice"), "#hb0, #hb1"));
	assert_int_equal(table_game(table_of(f, "#hb0"))->nactions, 0);
	assert_int_equal(table_game(table_of(f, "#hb1"))->nactions, 0);
	say(f, NULL, "alice", "bid #hb1 0");
	assert_int_equal(table_game(table_of(f, "#hb1"))->nactions, 1);
	/* Now only one table waits for alice. */
	say(f, NULL, "alice", "0");
	assert_int_equal(table_game(table_of(f, "#hb0"))->nactions, 1);
}

/*
 * Sticheln: a card of the game not in the hand is "not held", privately;
 * a second penalty card is "already chosen".
 */
static void
test_not_held_and_already_selected(void **state)
{
	struct fx *f = *state;
	struct table *table;
	json_t *view;
	char mine[8], theirs[8];
	int acting[GAME_MAX_SEATS];
	int alice, bob;
	size_t mark;

	seat_three(f, "#ns", "sticheln");
	say(f, "#ns", "alice", "!start");
	table = table_of(f, "#ns");
	alice = table_seat_of(table, "alice");
	bob = table_seat_of(table, "bob");
	view = table_impl(table)->view(table_game(table)->state, bob);
	snprintf(theirs, sizeof(theirs), "%s", json_string_value(
	    json_array_get(json_object_get(view, "hand"), 0)));
	json_decref(view);
	view = table_impl(table)->view(table_game(table)->state, alice);
	snprintf(mine, sizeof(mine), "%s", json_string_value(
	    json_array_get(json_object_get(view, "hand"), 0)));
	json_decref(view);
	say(f, NULL, "alice", "select %s", theirs);
	assert_non_null(strstr(last_to(f, NULL, "alice"), "You do not hold"));
	say(f, NULL, "alice", "select %s", mine);
	say(f, NULL, "alice", "select %s", mine);
	assert_string_equal(last_to(f, NULL, "alice"),
	    "You have already chosen your penalty card.");
	/* The others select; in play, a card of another hand. */
	for (int i = 0; i < 3; i++) {
		const char *who = table_seat(table, i)->user_id;

		if (i == alice)
			continue;
		view = table_impl(table)->view(table_game(table)->state, i);
		say(f, NULL, who, "select %s", json_string_value(
		    json_array_get(json_object_get(view, "hand"), 0)));
		json_decref(view);
	}
	assert_int_equal(table_impl(table)->phase(table_game(table)->state),
	    PHASE_PLAY);
	table_impl(table)->to_act(table_game(table)->state, acting);
	view = table_impl(table)->view(table_game(table)->state,
	    (acting[0] + 1) % 3);
	snprintf(theirs, sizeof(theirs), "%s", json_string_value(
	    json_array_get(json_object_get(view, "hand"), 0)));
	json_decref(view);
	mark = memory_count(f->adapter);
	say(f, "#ns", table_seat(table, acting[0])->user_id, "!play %s",
	    theirs);
	assert_addressed(f, "#ns", table_seat(table, acting[0])->user_id,
	    "Not allowed; I have told you why privately.");
	assert_true(sent_since(f, mark, NULL, "You do not hold"));
	assert_false(sent_since(f, mark, "#ns", theirs));
}

/*
 * A kind of move the game does not have is answered as such, from the
 * game's presentation (BirdHead: no bids, trump or penalty card).
 */
static void
test_moves_the_game_lacks(void **state)
{
	struct fx *f = *state;

	seat_three(f, "#nb", "birdhead");
	say(f, "#nb", "alice", "!start");
	say(f, "#nb", "bob", "!bid 1");
	assert_addressed(f, "#nb", "bob", "BirdHead has no bids.");
	say(f, "#nb", "bob", "!trump r");
	assert_addressed(f, "#nb", "bob", "BirdHead has no trump to choose.");
	say(f, "#nb", "bob", "!select 3");
	assert_addressed(f, "#nb", "bob",
	    "BirdHead has no penalty card to choose.");
	/* An empty lobby's status says what to do, not a dangling colon. */
	say(f, "#ne", "zed", "!game sticheln");
	say(f, "#ne", "zed", "!status");
	assert_string_equal(last_to(f, "#ne", NULL), "Sticheln · open table, "
	    "nobody seated yet (3-6 players; !join to sit down).");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wizard_nannie, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wizard_three_people, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_scores_after_the_end, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_birdhead_with_computers,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_sticheln_three_people,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hidden_bids_after_trump,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_move, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hidden_bids, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_secret_bids_stay_hidden,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_misuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_table_names,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_keeps_seat, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_private_lost, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_seat_by_id, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_timeouts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_part_and_grace, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lobby_idle_and_stop_vote,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_last_trick, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_restore_mid_trick, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_japanese, setup,
		    teardown),
		cmocka_unit_test(test_catalogs),
		cmocka_unit_test(test_option_refusals),
		cmocka_unit_test_setup_teardown(test_odd_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_words_quoted_short,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_table_choice,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prompt_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flood_replies, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_command_flood, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lobby_survives_restart,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_admin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_survive_restart,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_option_list,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hints_name_the_bot,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_turns_in_public, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_table_view, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_seat_follows_name,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_causal_order,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_crowd_allowance,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_crowding,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_steering,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_words,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_after_crash,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_hand_once,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hidden_bids_one_clock,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_clock_waits,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_clock_waits_for_prompt,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_private_move_to_waiting_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_while_down,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_deal_while_down,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_fails,
		    setup, teardown),
		cmocka_unit_test(test_why_not),
		cmocka_unit_test(test_why_not_birdhead),
		cmocka_unit_test_setup_teardown(test_log_stored, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_commit_fails_clock, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_kicked_and_back, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reconnect, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stats_after_games, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_given_up_survives_restart,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_another_game_survives_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_members_after_restart,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_vote_survives_restart,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_formatting_off_private_too,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_pause_deadline_survives_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_leave_announced,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_seat_names_shared, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replace_needs_owner_gone,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_full_of_computers,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hand_while_computer_plays,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_edits_not_acted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_already_bid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_not_held_and_already_selected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moves_the_game_lacks,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

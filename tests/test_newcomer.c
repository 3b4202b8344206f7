/*
 * test_newcomer.c - what a newcomer reads (issue 17): the person at a
 * terminal is spoken to as "You"/"あなた" with the verb forms that go with
 * it, numbers agree with their nouns, secret commands are answered with
 * exactly what to type on the medium, and `rules`, the score sheet's
 * legend, the ranking and "did you mean" say what they should, in
 * English and Japanese.
 *
 * The terminal is stood in for by the in-memory medium with a reader()
 * (adapter.h): the one person who reads the channel, as in the console.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot.h"
#include "i18n.h"
#include "loop.h"
#include "memory.h"
#include "store.h"

#define READER "me"

struct fx {
	struct loop *loop;
	struct store *store;
	struct bot *bot;
	struct adapter *adapter;
	struct adapter_impl medium;
};

static const char *
reader(struct adapter *adapter, const char *channel)
{
	return READER;
}

/* A bot on the in-memory medium; with_reader: as the terminal is. */
static struct fx *
fx_new(int with_reader, const char *lang)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct bot_settings settings;
	struct config_channel defaults;
	char err[256];

	assert_non_null(f);
	f->loop = loop_create(1);
	f->store = store_open(":memory:", err, sizeof(err));
	assert_non_null(f->store);
	memset(&settings, 0, sizeof(settings));
	settings.seed = 7;
	settings.computer_delay_ms = 10;
	settings.ai_budget_ms = 5;
	settings.command_burst = -1;
	f->bot = bot_create(f->loop, f->store, &settings, err, sizeof(err));
	assert_non_null(f->bot);
	f->medium = memory_adapter;
	if (with_reader)
		f->medium.reader = reader;
	memset(&defaults, 0, sizeof(defaults));
	defaults.prefixes = "!/";
	defaults.turn_timer = 0;
	defaults.game = "wizard";
	defaults.lang = (char *)lang;
	f->adapter = bot_add_adapter(f->bot, &f->medium, "test", NULL,
	    &defaults, err, sizeof(err));
	assert_non_null(f->adapter);
	assert_int_equal(bot_start(f->bot), 0);
	return f;
}

static void
fx_free(struct fx *f)
{
	bot_stop(f->bot, NULL);
	bot_destroy(f->bot);
	store_close(f->store);
	loop_destroy(f->loop);
	free(f);
}

static void
say(struct fx *f, const char *channel, const char *text)
{
	memory_say(f->adapter, channel, READER, "me", text);
}

/* Every line the bot sent since mark (channel NULL: private), joined. */
static char *
sent(struct fx *f, size_t mark, int private)
{
	size_t n = memory_count(f->adapter), len = 1;
	char *all;

	for (size_t i = mark; i < n; i++)
		len += strlen(memory_line(f->adapter, i)->text) + 1;
	all = calloc(1, len);
	assert_non_null(all);
	for (size_t i = mark; i < n; i++) {
		const struct memory_line *l = memory_line(f->adapter, i);

		if ((l->channel == NULL) != private)
			continue;
		strcat(all, l->text);
		strcat(all, "\n");
	}
	return all;
}

/*
 * The failure message shows where the text was looked for (the end of it:
 * cmocka cuts long messages).
 */
static const char *
tail_of(const char *all)
{
	size_t n = all != NULL ? strlen(all) : 0;

	return all == NULL ? "" : n > 600 ? all + n - 600 : all;
}

static void
assert_has(const char *all, const char *what)
{
	if (strstr(all, what) == NULL)
		fail_msg("\"%s\" is not in:\n%s", what, tail_of(all));
}

static void
assert_lacks(const char *all, const char *what)
{
	const char *at = strstr(all, what);

	if (at != NULL)
		fail_msg("\"%s\" should not be in:\n%.200s", what, at);
}

/* Lets the computers (and the stand-in for the person) play it out. */
static void
play_out(struct fx *f)
{
	for (int i = 0; i < 2000 && bot_game_count(f->bot) > 0; i++)
		loop_advance(f->loop, 50);
	assert_int_equal(bot_game_count(f->bot), 0);
}

/* The word that agrees with a number. */
static void
test_plurals(void **state)
{
	struct text t;

	text_init(&t);
	SAY(&t, LANG_EN, MSG_BID_SUM, "dd", 1, 1);
	assert_string_equal(text_str(&t), "total 1 bid for 1 trick");
	text_clear(&t);
	SAY(&t, LANG_EN, MSG_BID_SUM, "dd", 3, 2);
	assert_string_equal(text_str(&t), "total 3 bid for 2 tricks");
	text_clear(&t);
	SAY(&t, LANG_EN, MSG_CARDS_LEFT, "d", 1);
	assert_string_equal(text_str(&t), "1 card");
	text_clear(&t);
	SAY(&t, LANG_EN, MSG_STATS, "brdds", "ann", "Wizard", 1, 0, "5");
	assert_non_null(strstr(text_str(&t), "1 game, 0 wins, average 5"));
	text_clear(&t);
	SAY(&t, LANG_EN, MSG_STATS_WIZARD, "dd", 0, 1);
	assert_string_equal(text_str(&t), ", exact bids 0% of 1 round");
	text_clear(&t);
	SAY(&t, LANG_JA, MSG_BID_SUM, "dd", 1, 1);
	assert_string_equal(text_str(&t), "宣言の合計1（トリック数1）");
	text_finish(&t);
}

/* A whole game at the terminal, in English. */
static void
test_you_en(void **state)
{
	struct fx *f = fx_new(1, "en");
	char *chan, *priv;

	say(f, "#t", "!option rounds=3");
	say(f, "#t", "!join");
	say(f, "#t", "!addbot");
	say(f, "#t", "!addbot");
	say(f, "#t", "!start");
	chan = sent(f, 0, 0);
	assert_has(chan, "You join Wizard");
	assert_has(chan, "Wizard: You, CPU1, CPU2");
	free(chan);
	/* Leaving hands the seat to a computer that plays it out. */
	say(f, "#t", "!leave");
	play_out(f);
	chan = sent(f, 0, 0);
	assert_has(chan, "You bid ");
	assert_has(chan, "Ranking: 1. ");
	assert_has(chan, "Each round: tricks won/bid, then the round's "
	    "points.");
	assert_lacks(chan, "You bids");
	assert_lacks(chan, "You takes");
	assert_lacks(chan, "You joins");
	assert_has(chan, "A computer plays your seat now; say !back to take "
	    "it again.");
	/* The person's name ("me") never stands where "You" should. */
	assert_lacks(chan, "me bids");
	assert_lacks(chan, "me takes");
	assert_lacks(chan, ", me ");
	assert_lacks(chan, " 1 tricks");
	free(chan);
	priv = sent(f, 0, 1);
	assert_has(priv, "Round 1, your hand:");
	free(priv);
	fx_free(f);
}

/* Hidden bids at the terminal: the hint says what to type. */
static void
test_hidden_hint_terminal(void **state)
{
	struct fx *f = fx_new(1, "en");
	size_t mark;
	char *chan, *priv;

	say(f, "#t", "!option hiddentip");
	say(f, "#t", "!join");
	say(f, "#t", "!addbot");
	say(f, "#t", "!addbot");
	say(f, "#t", "!start");
	chan = sent(f, 0, 0);
	assert_has(chan, "bids are hidden: type bid N (without !)");
	assert_has(chan, "(without !) · your turn to bid");
	free(chan);
	mark = memory_count(f->adapter);
	say(f, "#t", "!bid 1");
	priv = sent(f, mark, 1);
	assert_has(priv, "This is secret: type bid 1 (without !), and only "
	    "you see it.");
	free(priv);
	/* Typed as the hint says, it is taken. */
	mark = memory_count(f->adapter);
	say(f, NULL, "bid 1");
	loop_advance(f->loop, 100);
	chan = sent(f, mark, 0);
	assert_has(chan, "You have bid");
	free(chan);
	fx_free(f);
}

/* In a chat the hint names the command that was given. */
static void
test_hidden_hint_chat(void **state)
{
	struct fx *f = fx_new(0, "en");
	size_t mark;
	char *priv;

	memory_say(f->adapter, "#s", "a", "ann", "!game sticheln");
	memory_say(f->adapter, "#s", "a", "ann", "!join");
	memory_say(f->adapter, "#s", "a", "ann", "!addbot");
	memory_say(f->adapter, "#s", "a", "ann", "!addbot");
	memory_say(f->adapter, "#s", "a", "ann", "!start");
	mark = memory_count(f->adapter);
	memory_say(f->adapter, "#s", "a", "ann", "!select r5");
	priv = sent(f, mark, 1);
	assert_has(priv, "This is secret: send select r5 privately to me.");
	assert_lacks(priv, "bid");
	free(priv);
	fx_free(f);
}

/* The same game in Japanese. */
static void
test_you_ja(void **state)
{
	struct fx *f = fx_new(1, "ja");
	char *chan;

	say(f, "#t", "!option rounds=2");
	say(f, "#t", "!join");
	say(f, "#t", "!addbot");
	say(f, "#t", "!addbot");
	say(f, "#t", "!start");
	chan = sent(f, 0, 0);
	assert_has(chan, "あなたがウィザードに参加");
	free(chan);
	say(f, "#t", "!leave");
	play_out(f);
	chan = sent(f, 0, 0);
	assert_has(chan, "あなたは");
	assert_has(chan, "順位: 1. ");
	assert_has(chan, "各ラウンド: 取ったトリック数/宣言");
	assert_lacks(chan, "meが");
	assert_lacks(chan, "youが");
	free(chan);
	fx_free(f);
}

/* `rules` and "did you mean", in both languages. */
static void
test_rules_and_typos(void **state)
{
	struct fx *f = fx_new(0, "en");
	size_t mark = memory_count(f->adapter);
	char *chan;

	memory_say(f->adapter, "#r", "a", "ann", "!rules");
	memory_say(f->adapter, "#r", "a", "ann", "!rules hiddentip");
	memory_say(f->adapter, "#r", "a", "ann", "!rules nannie=2");
	memory_say(f->adapter, "#r", "a", "ann", "!rules sticheln");
	memory_say(f->adapter, "#r", "a", "ann", "!rules bogus");
	memory_say(f->adapter, "#r", "a", "ann", "!stauts");
	memory_say(f->adapter, "#r", "a", "ann", "!xyzzy");
	chan = sent(f, mark, 0);
	assert_has(chan, "Wizard: 60 cards");
	assert_has(chan, "hiddentip: everyone bids at once");
	assert_has(chan, "nannie=K:");
	assert_has(chan, "Sticheln: 15 cards each");
	assert_has(chan, "No rules called \"bogus\"");
	assert_has(chan, "did you mean !status?");
	assert_has(chan, "Unknown command \"xyzzy\"; try !help.");
	free(chan);
	mark = memory_count(f->adapter);
	memory_say(f->adapter, "#r", "a", "ann", "!lang ja");
	memory_say(f->adapter, "#r", "a", "ann", "!rules birdhead");
	memory_say(f->adapter, "#r", "a", "ann", "!rules dm");
	chan = sent(f, mark, 0);
	assert_has(chan, "BirdHead: 2-11の札");
	assert_has(chan, "dm: 5ラウンドではなく4ラウンド。");
	free(chan);
	fx_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plurals),
		cmocka_unit_test(test_you_en),
		cmocka_unit_test(test_hidden_hint_terminal),
		cmocka_unit_test(test_hidden_hint_chat),
		cmocka_unit_test(test_you_ja),
		cmocka_unit_test(test_rules_and_typos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_record_scan.c - replay_line(), the fast way of `replay --lines`,
 * against replay_record(): on records of random games of every game, in
 * compact and indented form, complete, cut short and with an illegal
 * action, both must give the same status and output; and records outside
 * the plain form must be handed back (-1) for the general path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "birdhead.h"
#include "record.h"
#include "sticheln.h"
#include "testutil.h"
#include "wizard.h"

/* Both paths on text: the same status and the same output. */
static void
check_same(const char *text)
{
	json_t *record = test_json(text), *want = NULL, *got = NULL;
	int status = replay_record(record, &want);

	assert_int_equal(replay_line(text, strlen(text), &got), status);
	if (!json_equal(want, got)) {
		char *a = json_dumps(want, JSON_COMPACT);
		char *b = json_dumps(got, JSON_COMPACT);

		fail_msg("replay_line gave %s, replay_record %s", b, a);
	}
	json_decref(got);
	json_decref(want);
	json_decref(record);
}

static void
check_record(json_t *record)
{
	char *compact = json_dumps(record, JSON_COMPACT);
	char *spaced = json_dumps(record, JSON_INDENT(2));

	check_same(compact);
	check_same(spaced);
	free(compact);
	free(spaced);
}

static void
test_random_records_agree(void **unused)
{
	const struct game_impl *impls[] = { &wizard_game, &birdhead_game,
	    &sticheln_game };
	struct rng rng;
	int records = 0;

	rng_seed(&rng, 11);
	for (size_t g = 0; g < sizeof(impls) / sizeof(*impls); g++) {
		for (int i = 0; i < 40; i++) {
			struct game_setup setup = { .nseats = 3 + i % 4,
			    .first = i % 3 };
			int cut = i % 3 == 1 ? (int)rng_below(&rng, 200) : -1;
			struct game *game = test_random_game(impls[g], &setup,
			    &rng, cut);
			json_t *record = game_to_record(game);
			json_t *actions = json_object_get(record, "actions");
			size_t n = json_array_size(actions);

			check_record(record);
			/* An illegal action: a play by the wrong seat. */
			if (i % 3 == 2 && n > 10) {
				json_t *a = json_array_get(actions, n / 2);
				json_int_t seat = json_integer_value(
				    json_object_get(a, "seat"));

				json_object_set_new(a, "seat", json_integer(
				    (seat + 1) % setup.nseats));
				check_record(record);
			}
			records++;
			json_decref(record);
			game_destroy(game);
		}
	}
	assert_int_equal(records, 120);
}

/* What the scanner does not read goes back to the general path. */
static void
test_unusual_records_fall_back(void **unused)
{
	static const char *const texts[] = {
		/* An escape in a card code. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r\\u0031\"],[\"r2\"],"
		"[\"r3\"]],\"turned\":null}],\"actions\":[]}",
		/* An unknown key in an action. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
		"[\"r3\"]]}],\"actions\":[{\"seat\":1,\"bid\":0,\"x\":1}]}",
		/* Two lists of deals. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[],\"deals\":[],\"actions\":[]}",
		/* Actions that are no list, a seat out of range, a real. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[],\"actions\":null}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
		"[\"r3\"]]}],\"actions\":[{\"seat\":9,\"bid\":0}]}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
		"[\"r3\"]]}],\"actions\":[{\"seat\":1,\"bid\":1.0}]}",
		/* A card that is none, and a deal the rules refuse. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"x2\"],"
		"[\"r3\"]]}]}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r1\"],"
		"[\"r3\"]]}]}",
		/* A header the rules refuse (two players). */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\"],"
		"\"first\":0,\"deals\":[],\"actions\":[]}",
		/* No actions key at all. */
		"{\"game\":\"sticheln\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0}",
		/* Not JSON at all, and text after the record. */
		"{\"game\":\"wizard\",\"players\":[",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		"\"first\":0} x",
	};

	/* A NUL byte where a value should be. */
	static const char nul[] = "{\"game\":\"wizard\",\"x\":\0 1,"
	    "\"deals\":[]}";
	json_t *output = NULL;

	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		if (replay_line(texts[i], strlen(texts[i]), &output) != -1)
			fail_msg("record %zu was not handed back", i);
		assert_null(output);
	}
	assert_int_equal(replay_line(nul, sizeof(nul) - 1, &output), -1);
	assert_null(output);
}

/* Plain records with errors the scanner reads: the same answers. */
static void
test_plain_errors_agree(void **unused)
{
	/* A bid out of turn, and an action beyond the deals. */
	check_same("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
	    "[\"r3\"]],\"turned\":\"b4\"}],\"actions\":[{\"seat\":2,"
	    "\"bid\":0}]}");
	check_same("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
	    "[\"r3\"]],\"turned\":\"b4\"}],\"actions\":[{\"seat\":1,"
	    "\"bid\":0},{\"seat\":2,\"bid\":0},{\"seat\":0,\"bid\":1},"
	    "{\"seat\":1,\"play\":\"r2\"},{\"seat\":2,\"play\":\"r3\"},"
	    "{\"seat\":0,\"play\":\"r1\"},{\"seat\":1,\"bid\":0}]}");
	/*
	 * Seats the table lacks but the scanner reads (below GAME_MAX_SEATS),
	 * and a bid out of the round's range: the reasons of the JSON path.
	 */
	check_same("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
	    "[\"r3\"]],\"turned\":\"b4\"}],\"actions\":[{\"seat\":3,"
	    "\"bid\":0}]}");
	check_same("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
	    "[\"r3\"]],\"turned\":\"b4\"}],\"actions\":[{\"seat\":1,"
	    "\"bid\":0},{\"seat\":5,\"play\":\"r2\"}]}");
	check_same("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
	    "[\"r3\"]],\"turned\":\"b4\"}],\"actions\":[{\"seat\":1,"
	    "\"bid\":99}]}");
}

/*
 * Records either path may read: whenever the fast path answers, it gives
 * what the JSON path (record_load() and replay_record()) gives, and
 * status is what that is.
 */
static void
check_agree(const char *text, int status, const char *reason)
{
	char err[RECORD_LOAD_ERR_LEN];
	json_t *record = record_load(text, strlen(text), err, sizeof(err));
	json_t *want = NULL, *got = NULL;
	int fast;

	assert_non_null(record);
	assert_int_equal(replay_record(record, &want), status);
	assert_string_equal(json_string_value(json_object_get(want, "error")),
	    reason);
	fast = replay_line(text, strlen(text), &got);
	if (fast != -1) {
		assert_int_equal(fast, status);
		assert_true(json_equal(want, got));
	}
	json_decref(got);
	json_decref(want);
	json_decref(record);
}

/* The contract's checks, whichever way a record goes (RECORD.md). */
static void
test_contract_errors_agree(void **unused)
{
#define W3 "{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"]," \
	"\"first\":0,"
#define D3 "\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],[\"r3\"]]," \
	"\"turned\":\"b4\"}],"
	static const struct {
		const char *text;
		int status;
		const char *reason;
	} cases[] = {
		{ "{\"game\":\"sticheln\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":0}", 2, "\"deals\" must be a list." },
		{ W3 D3 "\"x\":1}", 2, "\"actions\" must be a list." },
		{ W3 D3 "\"actions\":null}", 2,
		    "\"actions\" must be a list." },
		{ "{\"game\":\"Wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":0,\"deals\":[],\"actions\":[]}", 2,
		    "\"game\" must be wizard, birdhead or sticheln." },
		{ W3 "\"options\":{\"Quick\":true},\"deals\":[],"
		    "\"actions\":[]}", 2,
		    "Unknown option \"Quick\" for wizard." },
		{ W3 "\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],[\"r3\"]],"
		    "\"turned\":null}],\"actions\":[]}", 2,
		    "Deal 1: The turned card is missing: cards are left after "
		    "dealing." },
		{ W3 "\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],[\"r3\"]]}],"
		    "\"actions\":[]}", 2, "Deal 1: The turned card is missing: "
		    "cards are left after dealing." },
		{ W3 "\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],[]],"
		    "\"turned\":\"b4\"}],\"actions\":[]}", 2,
		    "Deal 1: Seat 2 holds 0 cards instead of 1." },
		{ W3 "\"deals\":[{\"hands\":[[\"r1\"],[\"r2\"],"
		    "[\"r3\",\"r4\"]],\"turned\":\"b4\"}],\"actions\":[]}", 2,
		    "Deal 1: Seat 2 holds 2 cards instead of 1." },
		{ W3 D3 "\"actions\":[{\"seat\":9223372036854775808,"
		    "\"bid\":0}]}", 1,
		    "There is no seat 9223372036854775808 or more "
		    "(seats 0-2)." },
		{ W3 D3 "\"actions\":[{\"seat\":-1,\"bid\":0}]}", 1,
		    "There is no seat -1 (seats 0-2)." },
		{ W3 D3 "\"actions\":[{\"seat\":1,"
		    "\"bid\":100000000000000000000}]}", 1,
		    "A bid must be 0 to 1." },
		{ W3 "\"options\":{\"rounds\":100000000000000000000},"
		    "\"deals\":[],\"actions\":[]}", 2,
		    "Option rounds takes a number from 1 to 20." },
		{ W3 "\"options\":{\"rounds\":1e400},"
		    "\"deals\":[],\"actions\":[]}", 2,
		    "Option rounds takes a number from 1 to 20." },
		/* An option that needs a value is told so, true or not. */
		{ W3 "\"options\":{\"rounds\":true},"
		    "\"deals\":[],\"actions\":[]}", 2,
		    "Option rounds needs an integer from 1 to 20." },
		{ W3 "\"options\":{\"rounds\":\"2\"},"
		    "\"deals\":[],\"actions\":[]}", 2,
		    "Option rounds needs an integer from 1 to 20." },
		{ W3 "\"options\":{\"notequal\":1},"
		    "\"deals\":[],\"actions\":[]}", 2,
		    "Option notequal must be true or false." },
	};
#undef W3
#undef D3
	struct rng rng;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_agree(cases[i].text, cases[i].status, cases[i].reason);
	/* BirdHead and Sticheln deal no turned card. */
	rng_seed(&rng, 5);
	for (int g = 0; g < 2; g++) {
		const struct game_impl *impl = g == 0 ? &birdhead_game :
		    &sticheln_game;
		struct game_setup setup = { .nseats = 4, .first = 0 };
		struct game *game = test_random_game(impl, &setup, &rng, 10);
		json_t *record = game_to_record(game);
		char *text, want[GAME_ERR_LEN];

		json_object_set_new(json_array_get(json_object_get(record,
		    "deals"), 0), "turned", json_string(g == 0 ? "7" : "r1"));
		text = json_dumps(record, JSON_COMPACT);
		snprintf(want, sizeof(want), "Deal 1: %s turns up no card: "
		    "leave out \"turned\".", g == 0 ? "BirdHead" : "Sticheln");
		check_agree(text, 2, want);
		free(text);
		json_decref(record);
		game_destroy(game);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_records_agree),
		cmocka_unit_test(test_unusual_records_fall_back),
		cmocka_unit_test(test_plain_errors_agree),
		cmocka_unit_test(test_contract_errors_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

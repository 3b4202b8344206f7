/*
 * test_game.c - the shared engine core: the registry, option parsing,
 * actions to and from record JSON, and the record reader's verdicts on
 * malformed records (exit 2) versus illegal actions (exit 1).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "rng.h"
#include "record.h"
#include "birdhead.h"
#include "sticheln.h"
#include "wizard.h"

static void
test_registry(void **unused)
{
	assert_ptr_equal(game_find("wizard"), &wizard_game);
	assert_ptr_equal(game_find("WIZARD"), &wizard_game);
	assert_null(game_find("skat"));
	assert_null(game_find(NULL));
	for (size_t i = 0; game_registry[i] != NULL; i++) {
		const struct game_impl *g = game_registry[i];

		assert_ptr_equal(game_find(g->name), g);
		assert_true(g->min_seats >= 3 && g->max_seats <= GAME_MAX_SEATS);
		assert_true(g->state_size > 0);
	}
}

static void
test_option_parsing(void **unused)
{
	struct game_options o = { { 0 } };
	char err[GAME_ERR_LEN];

	assert_int_equal(game_option_set(&wizard_game, &o, "notequal", err,
	    sizeof(err)), 0);
	assert_int_equal(o.value[WIZARD_OPT_NOTEQUAL], 1);
	assert_int_equal(game_option_set(&wizard_game, &o, "NOTEQUAL=off",
	    err, sizeof(err)), 0);
	assert_int_equal(o.value[WIZARD_OPT_NOTEQUAL], 0);
	assert_int_equal(game_option_set(&wizard_game, &o, "rounds=7", err,
	    sizeof(err)), 0);
	assert_int_equal(o.value[WIZARD_OPT_ROUNDS], 7);
	assert_int_equal(game_option_set(&wizard_game, &o, "rounds=x", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "rounds"));
	assert_int_equal(game_option_set(&wizard_game, &o, "rounds=7x", err,
	    sizeof(err)), -1);
	assert_int_equal(game_option_set(&wizard_game, &o, "bogus", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_int_equal(game_option_set(&wizard_game, &o, "notequal=2", err,
	    sizeof(err)), -1);
	assert_int_equal(game_option_set(&wizard_game, &o, "=1", err,
	    sizeof(err)), -1);
	/* A refusal leaves the options as they were. */
	assert_int_equal(o.value[WIZARD_OPT_ROUNDS], 7);
}

static void
test_action_json_round_trip(void **unused)
{
	static const char *const texts[] = {
		"{\"seat\":1,\"bid\":3}", "{\"seat\":0,\"trump\":\"g\"}",
		"{\"seat\":2,\"play\":\"r13\"}", "{\"seat\":5,\"play\":\"J\"}",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char err[GAME_ERR_LEN];
		json_t *in = test_json(texts[i]), *out;
		struct action a;

		assert_int_equal(action_from_json(&wizard_game, in, &a, err,
		    sizeof(err)), 0);
		out = action_to_json(&wizard_game, &a);
		assert_true(json_equal(in, out));
		json_decref(in);
		json_decref(out);
	}
}

/*
 * action_format() writes, byte for byte, what json_dumps() makes of
 * action_to_json(): the store keeps its text, and records read both.
 */
static void
test_action_format(void **unused)
{
	static const struct {
		const struct game_impl *impl;
		const char *text;
	} cases[] = {
		{ &wizard_game, "{\"seat\":1,\"bid\":3}" },
		{ &wizard_game, "{\"seat\":0,\"trump\":\"g\"}" },
		{ &wizard_game, "{\"seat\":2,\"play\":\"r13\"}" },
		{ &wizard_game, "{\"seat\":5,\"play\":\"W\"}" },
		{ &birdhead_game, "{\"seat\":3,\"play\":[\"7\",\"7\",\"11\"]}" },
		{ &birdhead_game, "{\"seat\":0,\"play\":[\"2\"]}" },
		{ &sticheln_game, "{\"seat\":4,\"select\":\"n11\"}" },
		{ &sticheln_game, "{\"seat\":1,\"play\":\"p0\"}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[GAME_ERR_LEN], buf[ACTION_JSON_MAX], *dumped;
		json_t *in = test_json(cases[i].text), *out;
		struct action a;
		int n;

		if (action_from_json(cases[i].impl, in, &a, err,
		    sizeof(err)) != 0)
			fail_msg("%s: %s", cases[i].text, err);
		n = action_format(cases[i].impl, &a, buf, sizeof(buf));
		assert_int_equal(n, (int)strlen(cases[i].text));
		assert_string_equal(buf, cases[i].text);
		out = action_to_json(cases[i].impl, &a);
		dumped = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		assert_string_equal(buf, dumped);
		/* Too small a buffer is refused, never cut. */
		assert_int_equal(action_format(cases[i].impl, &a, buf,
		    (size_t)n), -1);
		free(dumped);
		json_decref(in);
		json_decref(out);
	}
}

static void
test_action_json_refusals(void **unused)
{
	static const char *const texts[] = {
		"[]", "{\"bid\":1}", "{\"seat\":\"1\",\"bid\":1}",
		"{\"seat\":9,\"bid\":1}", "{\"seat\":-1,\"bid\":1}",
		"{\"seat\":1}", "{\"seat\":1,\"bid\":1,\"play\":\"r1\"}",
		"{\"seat\":1,\"bid\":\"2\"}", "{\"seat\":1,\"bid\":1.0}",
		"{\"seat\":6,\"bid\":1}", "{\"seat\":1.0,\"bid\":1}",
		"{\"seat\":1,\"trump\":\"x\"}", "{\"seat\":1,\"trump\":\"rg\"}",
		"{\"seat\":1,\"play\":\"r0\"}", "{\"seat\":1,\"play\":7}",
		"{\"seat\":1,\"play\":[]}", "{\"seat\":1,\"play\":[\"r1\",\"r2\"]}",
		"{\"seat\":1,\"play\":[\"r1\"]}",
		"{\"seat\":1,\"select\":\"q1\"}",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char err[GAME_ERR_LEN] = "";
		json_t *in = test_json(texts[i]);
		struct action a;

		if (action_from_json(&wizard_game, in, &a, err,
		    sizeof(err)) == 0)
			fail_msg("accepted %s", texts[i]);
		assert_true(strlen(err) > 0);
		json_decref(in);
	}
}

/* A valid 3-player Wizard header with one deal; %s: the extra parts. */
#define HEADER "\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"]," \
	"\"first\":0,\"options\":{}"
#define DEAL "{\"hands\":[[\"r1\"],[\"W\"],[\"y13\"]],\"turned\":\"g5\"}"

static void
expect_status(const char *text, int status, int action)
{
	json_t *out = NULL;
	int got = test_replay(text, &out);

	if (got != status)
		fail_msg("status %d, expected %d for %s: %s", got, status, text,
		    json_dumps(out, 0));
	if (status != 0) {
		json_t *a = json_object_get(out, "action");

		assert_true(json_is_string(json_object_get(out, "error")));
		if (action < 0)
			assert_true(json_is_null(a));
		else
			assert_int_equal(json_integer_value(a), action);
	}
	json_decref(out);
}

static void
test_malformed_records(void **unused)
{
	static const char *const bad[] = {
		"[]",
		"{\"game\":\"skat\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0}",
		"{\"players\":[\"a\",\"b\",\"c\"],\"first\":0}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\"],\"first\":0}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\","
		    "\"f\",\"g\"],\"first\":0}",
		"{\"game\":\"wizard\",\"players\":[\"a\",1,\"c\"],\"first\":0}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":3}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"]}",
		"{" HEADER ",\"options\":{\"bogus\":true}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{\"notequal\":true,\"evenbid\":true}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\","
		    "\"f\"],\"first\":0,\"options\":{\"amigo\":true}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{\"rounds\":true}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{\"rounds\":21}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{\"notequal\":1}}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{\"quick\":null}}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"r1\"],[\"y13\"]],"
		    "\"turned\":\"g5\"}]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"x1\"],[\"y13\"]],"
		    "\"turned\":\"g5\"}]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\",\"r2\"],[\"W\"],"
		    "[\"y13\"]],\"turned\":\"g5\"}]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"W\"]],"
		    "\"turned\":\"g5\"}]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"W\"],[\"y13\"]],"
		    "\"turned\":\"r1\"}]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"W\"],[\"W\"],[\"W\"]],"
		    "\"turned\":\"Z\"}," DEAL "]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"W\"],[\"W\"],[\"W\"]],"
		    "\"turned\":\"W\"},{\"hands\":[[\"W\",\"J\"],[\"J\",\"J\"],"
		    "[\"J\",\"J\"]]}]}",
		"{" HEADER ",\"deals\":{}}",
		"{" HEADER ",\"deals\":[" DEAL "],\"actions\":{}}",
		/* RECORD.md: the lists are always there. */
		"{" HEADER ",\"deals\":[" DEAL "]}",
		"{" HEADER ",\"deals\":[" DEAL "],\"actions\":null}",
		"{" HEADER ",\"actions\":[]}",
		"{" HEADER ",\"deals\":null,\"actions\":[]}",
		/* Games and options as RECORD.md and RULES.md spell them. */
		"{\"game\":\"Wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":0,\"deals\":[],\"actions\":[]}",
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":0,\"options\":{\"NotEqual\":true},"
		    "\"deals\":[],\"actions\":[]}",
		/* A rounds option beyond json_int_t is out of range too. */
		"{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
		    "\"first\":0,\"options\":{\"rounds\":1e30},"
		    "\"deals\":[],\"actions\":[]}",
		/* Cards are left, so a card must be turned up. */
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"W\"],"
		    "[\"y13\"]]}],\"actions\":[]}",
		"{" HEADER ",\"deals\":[{\"hands\":[[\"r1\"],[\"W\"],"
		    "[\"y13\"]],\"turned\":null}],\"actions\":[]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_status(bad[i], 2, -1);
}

static void
test_illegal_actions(void **unused)
{
	/* Dealer 0: seat 1 bids first. */
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":0,\"bid\":0}]}", 1, 0);
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":1,\"bid\":0},{\"seat\":2,\"bid\":2}]}", 1, 1);
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":1,\"bid\":0},{\"seat\":2,\"bid\":0},"
	    "{\"seat\":0,\"bid\":0},{\"seat\":1,\"play\":\"r1\"}]}", 1, 3);
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":1,\"bid\":0},{\"seat\":2,\"bid\":0},"
	    "{\"seat\":0,\"bid\":0},{\"seat\":1,\"play\":\"W\"},"
	    "{\"seat\":2,\"play\":\"y13\"},{\"seat\":0,\"play\":\"r1\"},"
	    "{\"seat\":1,\"bid\":1}]}", 2, -1);
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":1,\"bid\":0},\"junk\"]}", 1, 1);
	expect_status("{" HEADER ",\"deals\":[" DEAL "],\"actions\":["
	    "{\"seat\":1,\"select\":\"r1\"}]}", 1, 0);
	/* A complete one-round game, then one action too many. */
	expect_status("{\"game\":\"wizard\",\"players\":[\"a\",\"b\",\"c\"],"
	    "\"first\":0,\"options\":{\"rounds\":1},\"deals\":[" DEAL "],"
	    "\"actions\":[{\"seat\":1,\"bid\":0},{\"seat\":2,\"bid\":0},"
	    "{\"seat\":0,\"bid\":0},{\"seat\":1,\"play\":\"W\"},"
	    "{\"seat\":2,\"play\":\"y13\"},{\"seat\":0,\"play\":\"r1\"},"
	    "{\"seat\":1,\"bid\":1}]}", 1, 6);
}

/*
 * One random game of impl with options (text, or "" for none) and nseats,
 * in which game_apply_action(), the way replay and the bot apply every
 * action, is checked against apply() on every action it is given: legal
 * ones and near-misses (another seat, another card or value, another
 * kind) reach the same state, and a refusal gives apply()'s reason and
 * changes nothing.  The first legal action is taken after each round of
 * candidates; *checked and *refused count the candidates.
 */
static void
check_apply_action(const struct game_impl *impl, const char *options,
    int nseats, uint64_t seed, long *checked, long *refused)
{
	struct game_setup setup = { .nseats = nseats, .first = 0 };
	unsigned char *state = malloc(impl->state_size);
	unsigned char *a_state = malloc(impl->state_size);
	unsigned char *b_state = malloc(impl->state_size);
	char err[GAME_ERR_LEN];
	struct rng rng;

	assert_non_null(state);
	assert_non_null(a_state);
	assert_non_null(b_state);
	if (*options != '\0' && game_option_set(impl, &setup.options,
	    options, err, sizeof(err)) != 0)
		fail_msg("option %s: %s", options, err);
	rng_seed(&rng, seed);
	impl->init(state, &setup);
	for (;;) {
		struct action legal[GAME_MAX_ACTIONS];
		int seats[GAME_MAX_SEATS], n, nacting;
		enum game_phase phase = impl->phase(state);

		if (phase == PHASE_OVER)
			break;
		if (phase == PHASE_DEAL) {
			struct deal deal;

			game_make_deal(impl, state, GAME_DEAL_VERSION, &rng,
			    &deal);
			assert_int_equal(impl->start_round(state, &deal, NULL,
			    0), 0);
			continue;
		}
		nacting = impl->to_act(state, seats);
		assert_true(nacting >= 1);
		n = impl->legal(state, seats[rng_below(&rng,
		    (uint32_t)nacting)], legal, GAME_MAX_ACTIONS);
		assert_true(n >= 1);
		for (int i = 0; i < n && i < 6; i++) {
			for (int variant = 0; variant < 5; variant++) {
				struct action a = legal[i];
				char a_err[GAME_ERR_LEN] = "";
				char b_err[GAME_ERR_LEN] = "";
				int a_rc, b_rc;

				if (variant == 1)
					a.seat = (int8_t)((a.seat + 1) % nseats);
				else if (variant == 2)
					a.value = (int8_t)(a.value + 1);
				else if (variant == 3)
					a.cards[0] = (uint8_t)(a.cards[0] + 1);
				else if (variant == 4)
					a.kind = (uint8_t)(a.kind + 1);
				memcpy(a_state, state, impl->state_size);
				memcpy(b_state, state, impl->state_size);
				a_rc = game_apply_action(impl, a_state, &a,
				    a_err, sizeof(a_err));
				b_rc = impl->apply(b_state, &a, b_err,
				    sizeof(b_err)) != 0 ? -1 : 0;
				assert_int_equal(a_rc, b_rc);
				assert_string_equal(a_err, b_err);
				assert_memory_equal(a_state, b_state,
				    impl->state_size);
				if (a_rc != 0) {
					assert_true(a_err[0] != '\0');
					assert_memory_equal(a_state, state,
					    impl->state_size);
					(*refused)++;
				}
				(*checked)++;
			}
		}
		assert_int_equal(game_apply_action(impl, state,
		    &legal[rng_below(&rng, (uint32_t)n)], NULL, 0), 0);
	}
	free(state);
	free(a_state);
	free(b_state);
}

/*
 * game_apply_action() against apply(): every game with 3 to 6 seats, and
 * Wizard's variants, whose bids, restrictions, eliminations and first
 * rounds take other paths through action_move().
 */
static void
test_apply_action_matches_apply(void **unused)
{
	static const char *const wizard_variants[] = {
		"notequal", "evenbid", "canadian", "hardcore", "hiddentip",
		"secret", "jesterbid", "nannie=2", "clairvoyance", "amigo",
		"quick",
	};

	for (size_t g = 0; game_registry[g] != NULL; g++) {
		const struct game_impl *impl = game_registry[g];

		for (int nseats = impl->min_seats; nseats <= impl->max_seats;
		    nseats++) {
			long checked = 0, refused = 0;

			check_apply_action(impl, "", nseats, 11 + g + nseats,
			    &checked, &refused);
			/* Both kinds were seen, many times. */
			assert_true(refused > 100);
			assert_true(checked - refused > 100);
		}
	}
	for (size_t v = 0; v < sizeof(wizard_variants) /
	    sizeof(*wizard_variants); v++) {
		long checked = 0, refused = 0;

		check_apply_action(&wizard_game, wizard_variants[v],
		    v % 2 ? 4 : 5, 31 + v, &checked, &refused);
		assert_true(refused > 100);
		assert_true(checked - refused > 100);
	}
}

static void
test_result_shape_for_started_rounds(void **unused)
{
	json_t *out;

	/* No deals, no actions: no round has started. */
	assert_int_equal(test_replay("{" HEADER ",\"deals\":[],"
	    "\"actions\":[]}", &out), 0);
	assert_int_equal(json_array_size(json_object_get(out, "rounds")), 0);
	assert_true(json_is_false(json_object_get(out, "finished")));
	json_decref(out);
	/* A deal but no actions: round 1 has started. */
	assert_int_equal(test_replay("{" HEADER ",\"deals\":[" DEAL "],"
	    "\"actions\":[]}", &out), 0);
	assert_int_equal(json_array_size(json_object_get(out, "rounds")), 1);
	assert_true(json_is_null(json_object_get(json_array_get(
	    json_object_get(out, "rounds"), 0), "points")));
	assert_true(json_is_null(json_array_get(json_object_get(
	    json_array_get(json_object_get(out, "rounds"), 0), "bids"), 0)));
	json_decref(out);
}

/* The reason replay gives for text, which must be an illegal action 0. */
static void
expect_reason(const char *text, const char *reason)
{
	char err[RECORD_LOAD_ERR_LEN];
	json_t *record = record_load(text, strlen(text), err, sizeof(err));
	json_t *out = NULL;

	if (record == NULL)
		fail_msg("%s: %s", text, err);
	assert_int_equal(replay_record(record, &out), 1);
	assert_int_equal(json_integer_value(json_object_get(out, "action")),
	    0);
	assert_string_equal(json_string_value(json_object_get(out, "error")),
	    reason);
	json_decref(out);
	json_decref(record);
}

/*
 * A seat or bid out of range, however large, is an illegal action with a
 * reason that says so (RECORD.md); integers beyond json_int_t are valid
 * JSON and must not make the record malformed.
 */
static void
test_numbers_out_of_range(void **unused)
{
#define ACTION(a) "{" HEADER ",\"deals\":[" DEAL "],\"actions\":[" a "]}"
	static const struct {
		const char *text, *reason;
	} cases[] = {
		{ ACTION("{\"seat\":3,\"bid\":0}"),
		    "There is no seat 3 (seats 0-2)." },
		{ ACTION("{\"seat\":-1,\"bid\":0}"),
		    "There is no seat -1 (seats 0-2)." },
		{ ACTION("{\"seat\":4611686018427387904,\"bid\":0}"),
		    "There is no seat 4611686018427387904 (seats 0-2)." },
		{ ACTION("{\"seat\":9223372036854775808,\"bid\":0}"),
		    "There is no seat 9223372036854775808 or more (seats "
		    "0-2)." },
		{ ACTION("{\"seat\":-100000000000000000000,\"bid\":0}"),
		    "There is no seat -9223372036854775809 or less "
		    "(seats 0-2)." },
		{ ACTION("{\"seat\":1,\"bid\":2}"), "A bid must be 0 to 1." },
		{ ACTION("{\"seat\":1,\"bid\":-1}"), "A bid must be 0 to 1." },
		{ ACTION("{\"seat\":1,\"bid\":1000000000000000000}"),
		    "A bid must be 0 to 1." },
		{ ACTION("{\"seat\":1,\"bid\":100000000000000000000}"),
		    "A bid must be 0 to 1." },
		{ ACTION("{\"seat\":1,\"bid\":-100000000000000000000}"),
		    "A bid must be 0 to 1." },
		/* The turn is checked before the range, as for any bid. */
		{ ACTION("{\"seat\":2,\"bid\":100000000000000000000}"),
		    "It is seat 1's turn to bid, not seat 2's." },
		{ ACTION("{\"seat\":1,\"bid\":0.5}"),
		    "A bid must be an integer (a number of tricks)." },
		/* Reals beyond a double are valid JSON too (jansson's not). */
		{ ACTION("{\"seat\":1,\"bid\":1e400}"),
		    "A bid must be 0 to 1." },
		{ ACTION("{\"seat\":-1.5e999,\"bid\":0}"),
		    "There is no seat -9223372036854775809 or less "
		    "(seats 0-2)." },
		/* A NUL in a card code is no code (a string may hold one). */
		{ ACTION("{\"seat\":1,\"play\":\"W\\u0000\"}"),
		    "A card code cannot hold \\u0000." },
	};
#undef ACTION
	char huge[400], text[600];
	struct action a;
	json_t *obj;
	char err[GAME_ERR_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_reason(cases[i].text, cases[i].reason);
	/* Beyond a double too: a number 350 digits long. */
	memset(huge, '9', 350);
	huge[350] = '\0';
	snprintf(text, sizeof(text), "{" HEADER ",\"deals\":[" DEAL "],"
	    "\"actions\":[{\"seat\":1,\"bid\":%s}]}", huge);
	expect_reason(text, "A bid must be 0 to 1.");
	/* The engine sees a bid beyond int8_t as INT8_MAX, and -1 below. */
	obj = test_json("{\"seat\":1,\"bid\":1000}");
	assert_int_equal(action_from_json(&wizard_game, obj, &a, err,
	    sizeof(err)), 0);
	assert_int_equal(a.value, INT8_MAX);
	json_decref(obj);
	obj = test_json("{\"seat\":1,\"bid\":-5}");
	assert_int_equal(action_from_json(&wizard_game, obj, &a, err,
	    sizeof(err)), 0);
	assert_int_equal(a.value, -1);
	json_decref(obj);
}

/*
 * record_load(): integers beyond json_int_t are read as reals beyond it,
 * in strings they stay as they are, and other errors keep their position.
 */
static void
test_record_load(void **unused)
{
	static const char big[] = "{\"a\":123456789012345678901234,"
	    "\"b\":\"123456789012345678901234\",\"c\":-99999999999999999999,"
	    "\"d\":1.5,\"e\":9223372036854775807}";
	static const char broken[] = "{\"a\":123456789012345678901234,\n"
	    "\"b\" 1}";
	char err[RECORD_LOAD_ERR_LEN];
	json_t *obj, *v;
	json_int_t n;

	obj = record_load(big, strlen(big), err, sizeof(err));
	assert_non_null(obj);
	v = json_object_get(obj, "a");
	assert_true(json_is_real(v));
	assert_true(json_real_value(v) > 1.23456789e23 &&
	    json_real_value(v) < 1.23456790e23);
	assert_int_equal(game_json_whole(v, &n, NULL, 0), 1);
	assert_true(n == LLONG_MAX);
	assert_string_equal(json_string_value(json_object_get(obj, "b")),
	    "123456789012345678901234");
	assert_int_equal(game_json_whole(json_object_get(obj, "c"), &n, NULL,
	    0), 1);
	assert_true(n == LLONG_MIN);
	assert_int_equal(game_json_whole(json_object_get(obj, "d"), &n, NULL,
	    0), 0);
	assert_int_equal(game_json_whole(json_object_get(obj, "e"), &n, NULL,
	    0), 1);
	assert_true(n == LLONG_MAX);
	json_decref(obj);
	/* A name may hold a NUL; a game's name may not. */
	{
		char text[300];
		json_t *out = NULL;

		snprintf(text, sizeof(text), "{\"game\":\"wizard\",\"players\":"
		    "[\"a\\u0000b\",\"b\",\"c\"],\"first\":0,\"options\":{},"
		    "\"deals\":[],\"actions\":[]}");
		obj = record_load(text, strlen(text), err, sizeof(err));
		assert_non_null(obj);
		assert_int_equal(replay_record(obj, &out), 0);
		json_decref(out);
		json_decref(obj);
		snprintf(text, sizeof(text), "{\"game\":\"wizard\\u0000\","
		    "\"players\":[\"a\",\"b\",\"c\"],\"first\":0,"
		    "\"options\":{},\"deals\":[],\"actions\":[]}");
		obj = record_load(text, strlen(text), err, sizeof(err));
		assert_non_null(obj);
		out = NULL;
		assert_int_equal(replay_record(obj, &out), 2);
		json_decref(out);
		json_decref(obj);
	}
	/* The error after the long integer is where it is in the text. */
	assert_null(record_load(broken, strlen(broken), err, sizeof(err)));
	assert_string_equal(err, "The record is not valid JSON (line 2, "
	    "column 5): ':' expected near '1'.");
	assert_null(record_load("", 0, err, sizeof(err)));
	assert_non_null(strstr(err, "not valid JSON"));
}

/*
 * Found by fuzz/fuzz_cards and fuzz/fuzz_record: a message that quoted
 * user text cut in the middle of a character was invalid UTF-8, and replay
 * could not print its answer.  Quotes now end before such a character.
 */
static void
test_quotes_cut_whole_characters(void **unused)
{
	struct game_options o = { { 0 } };
	char err[GAME_ERR_LEN], text[128], want[160], record[400];
	struct action a;
	json_t *obj;

	/* "x" and 40 two-byte characters: 40 bytes would cut the 20th. */
	strcpy(text, "x");
	for (int i = 0; i < 40; i++)
		strcat(text, "\xc3\xa9");
	assert_int_equal(game_option_set(&wizard_game, &o, text, err,
	    sizeof(err)), -1);
	snprintf(want, sizeof(want), "Unknown option \"%.39s\".", text);
	assert_string_equal(err, want);
	obj = json_pack("{s:i, s:s}", "seat", 1, "play", text);
	assert_int_equal(action_from_json(&wizard_game, obj, &a, err,
	    sizeof(err)), -1);
	snprintf(want, sizeof(want), "\"%.19s\" is not a wizard card.", text);
	assert_string_equal(err, want);
	json_decref(obj);
	snprintf(record, sizeof(record), "{\"game\":\"wizard\",\"players\":"
	    "[\"a\",\"b\",\"c\"],\"first\":0,\"options\":{\"%s\":true}}",
	    text);
	expect_status(record, 2, -1);
	snprintf(record, sizeof(record), "{" HEADER ",\"deals\":[" DEAL "],"
	    "\"actions\":[{\"seat\":1,\"play\":\"%s\"}]}", text);
	expect_status(record, 1, 0);
}

/* An integer of the view at key[i] (or key itself when i < 0); 0 if none. */
static int
view_int(const json_t *view, const char *key, int i, int *out)
{
	const json_t *v = json_object_get(view, key);

	if (i >= 0)
		v = json_array_get(v, (size_t)i);
	*out = json_is_integer(v) ? (int)json_integer_value(v) : 0;
	return json_is_integer(v);
}

static void
check_string(const json_t *v, const char *brief)
{
	if (json_is_string(v))
		assert_string_equal(brief, json_string_value(v));
	else
		assert_string_equal(brief, "");
}

/* The codes of a brief say what a JSON list of codes says. */
static void
check_codes(const json_t *list, int n, char (*codes)[4])
{
	assert_int_equal(n, (int)json_array_size(list));
	for (int k = 0; k < n; k++)
		check_string(json_array_get(list, (size_t)k), codes[k]);
}

/* viewer's brief says what viewer's view says, field by field. */
static void
check_brief(const struct game_impl *impl, const void *state, int nseats,
    int viewer)
{
	json_t *view = impl->view(state, viewer), *v;
	struct game_brief b;
	unsigned out = 0;
	size_t i;
	int n;

	memset(&b, 0x5a, sizeof(b));
	impl->brief(state, viewer, &b);
	view_int(view, "round", -1, &n);
	assert_int_equal(b.round, n);
	view_int(view, "cards", -1, &n);
	assert_int_equal(b.cards, n);
	assert_int_equal(b.trick, (int)json_array_size(json_object_get(view,
	    "trick")));
	view_int(view, "leader", -1, &n);
	assert_int_equal(b.leader, n);
	json_array_foreach(json_object_get(view, "eliminated"), i, v)
		out |= 1u << json_integer_value(v);
	assert_int_equal(b.eliminated, out);
	check_string(json_object_get(view, "trump"), b.trump);
	check_string(json_object_get(view, "lead"), b.lead);
	for (int seat = 0; seat < nseats; seat++) {
		unsigned bit = 1u << seat;

		assert_int_equal(view_int(view, "bids", seat, &n),
		    (b.bid_shown & bit) != 0);
		if (b.bid_shown & bit)
			assert_int_equal(b.bid[seat], n);
		assert_int_equal(view_int(view, "points", seat, &n),
		    (b.points_shown & bit) != 0);
		if (b.points_shown & bit)
			assert_int_equal(b.points[seat], n);
		view_int(view, "won", seat, &n);
		assert_int_equal(b.won[seat], n);
		view_int(view, "scores", seat, &n);
		assert_int_equal(b.score[seat], n);
		view_int(view, "hand_counts", seat, &n);
		assert_int_equal(b.held[seat], n);
		check_string(json_array_get(json_object_get(view,
		    "penalty_colours"), (size_t)seat), b.penalty[seat]);
	}
	check_codes(json_object_get(view, "standard"), b.nstandard,
	    b.standard);
	check_codes(json_object_get(view, "hand"), b.nhand, b.hand);
	check_codes(json_object_get(view, "revealed"), b.nrevealed,
	    b.revealed);
	v = json_object_get(view, "others");
	for (int other = 0; other < nseats; other++) {
		char key[12];

		snprintf(key, sizeof(key), "%d", other);
		assert_int_equal(json_object_get(v, key) != NULL,
		    (b.others_shown & (1u << other)) != 0);
		if (b.others_shown & (1u << other))
			check_codes(json_object_get(v, key), b.nothers[other],
			    b.others[other]);
	}
	json_decref(view);
}

/* Every round of the result says what round_result() says of it. */
static void
check_rounds(const struct game_impl *impl, const void *state, int nseats)
{
	json_t *result = impl->result(state);
	json_t *rounds = json_object_get(result, "rounds"), *round;
	struct game_round g;
	size_t r;

	json_array_foreach(rounds, r, round) {
		json_t *tricks = json_object_get(round, "tricks");
		json_t *losers = json_object_get(round, "losers"), *v;
		unsigned mask = 0;
		size_t i;
		int n;

		memset(&g, 0x5a, sizeof(g));
		assert_int_equal(impl->round_result(state, (int)r, &g), 0);
		assert_int_equal(g.scored, json_is_array(json_object_get(round,
		    "points")));
		assert_int_equal(g.ntricks, (int)json_array_size(tricks));
		if (g.ntricks > 0)
			assert_int_equal(g.last_winner, json_integer_value(
			    json_object_get(json_array_get(tricks,
			    json_array_size(tricks) - 1), "winner")));
		else
			assert_int_equal(g.last_winner, -1);
		assert_int_equal(g.has_losers, losers != NULL);
		json_array_foreach(losers, i, v)
			mask |= 1u << json_integer_value(v);
		assert_int_equal(g.losers, mask);
		for (int seat = 0; seat < nseats; seat++) {
			if (g.scored) {
				view_int(round, "points", seat, &n);
				assert_int_equal(g.points[seat], n);
			}
			assert_int_equal(view_int(round, "bids", seat, &n),
			    (g.bid_set & (1u << seat)) != 0);
			if (g.bid_set & (1u << seat))
				assert_int_equal(g.bid[seat], n);
			view_int(round, "won", seat, &n);
			assert_int_equal(g.won[seat], n);
			check_string(json_array_get(json_object_get(round,
			    "selected"), (size_t)seat), g.selected[seat]);
		}
	}
	assert_int_equal(impl->round_result(state, (int)json_array_size(
	    rounds), &g), -1);
	assert_int_equal(impl->round_result(state, -1, &g), -1);
	json_decref(result);
}

/* deal_format() writes what the JSON writer makes of deal_to_json(). */
static void
check_deal_format(const struct game_impl *impl, int nseats,
    const struct deal *deal)
{
	json_t *obj = deal_to_json(impl, nseats, deal);
	char *dumped = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	char buf[DEAL_JSON_MAX];
	int n = deal_format(impl, nseats, deal, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(dumped));
	assert_string_equal(buf, dumped);
	assert_int_equal(deal_format(impl, nseats, deal, buf, (size_t)n), -1);
	free(dumped);
	json_decref(obj);
}

/*
 * Whole random games of every game, with the options that hide or reveal
 * things (hidden and secret bids, clairvoyance), checked after every deal
 * and every action; each deal's text is checked too.
 */
static void
test_brief_matches_view(void **unused)
{
	static const struct {
		const char *game;
		const char *options;
		int nseats;
	} runs[] = {
		{ "wizard", "", 4 }, { "wizard", "hiddentip", 3 },
		{ "wizard", "secret", 5 }, { "wizard", "clairvoyance", 4 },
		{ "wizard", "hardcore nannie", 6 }, { "birdhead", "", 4 },
		{ "birdhead", "", 6 }, { "sticheln", "", 3 },
		{ "sticheln", "", 5 },
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		const struct game_impl *impl = game_find(runs[r].game);
		struct game_setup setup = { .nseats = runs[r].nseats };
		char err[GAME_ERR_LEN], buf[64], *save = NULL;
		struct rng rng;
		struct game *game;

		snprintf(buf, sizeof(buf), "%s", runs[r].options);
		for (char *t = strtok_r(buf, " ", &save); t != NULL;
		    t = strtok_r(NULL, " ", &save))
			assert_int_equal(game_option_set(impl, &setup.options,
			    t, err, sizeof(err)), 0);
		game = game_create(impl, &setup, NULL, err, sizeof(err));
		assert_non_null(game);
		rng_seed(&rng, 1000 + r);
		for (int steps = 0; steps < 5000; steps++) {
			enum game_phase phase = impl->phase(game->state);
			struct action legal[GAME_MAX_ACTIONS];
			int seats[GAME_MAX_SEATS], n;

			for (int seat = -1; seat < runs[r].nseats; seat++)
				check_brief(impl, game->state, runs[r].nseats,
				    seat);
			check_rounds(impl, game->state, runs[r].nseats);
			if (phase == PHASE_OVER)
				break;
			if (phase == PHASE_DEAL) {
				struct deal deal;

				impl->make_deal(game->state, &rng, &deal);
				check_deal_format(impl, runs[r].nseats, &deal);
				assert_int_equal(game_add_deal(game, &deal, err,
				    sizeof(err)), 0);
				assert_int_equal(game_advance(game, err,
				    sizeof(err)), 0);
				continue;
			}
			assert_true(impl->to_act(game->state, seats) > 0);
			n = impl->legal(game->state, seats[0], legal,
			    GAME_MAX_ACTIONS);
			assert_true(n > 0);
			if (game_apply(game, &legal[rng_below(&rng,
			    (uint32_t)n)], err, sizeof(err)) != 0)
				fail_msg("%s: %s", runs[r].game, err);
		}
		assert_int_equal(impl->phase(game->state), PHASE_OVER);
		game_destroy(game);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_option_parsing),
		cmocka_unit_test(test_action_json_round_trip),
		cmocka_unit_test(test_action_format),
		cmocka_unit_test(test_brief_matches_view),
		cmocka_unit_test(test_action_json_refusals),
		cmocka_unit_test(test_malformed_records),
		cmocka_unit_test(test_illegal_actions),
		cmocka_unit_test(test_apply_action_matches_apply),
		cmocka_unit_test(test_result_shape_for_started_rounds),
		cmocka_unit_test(test_numbers_out_of_range),
		cmocka_unit_test(test_record_load),
		cmocka_unit_test(test_quotes_cut_whole_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * record.c - folding a record's actions into a game, and writing a game
 * back out as a record.  The two directions share one representation, so a
 * game exported by the bot replays to exactly the state the bot had.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "record.h"

struct game *
game_create(const struct game_impl *impl, const struct game_setup *setup,
    const json_t *players, char *err, size_t errlen)
{
	struct game *game;

	if (setup->nseats < impl->min_seats || setup->nseats > impl->max_seats) {
		game_error(err, errlen, "%s needs %d to %d players, not %d.",
		    impl->name, impl->min_seats, impl->max_seats,
		    setup->nseats);
		return NULL;
	}
	if (setup->first < 0 || setup->first >= setup->nseats) {
		game_error(err, errlen, "The first seat must be 0 to %d.",
		    setup->nseats - 1);
		return NULL;
	}
	if (impl->validate_options(&setup->options, setup->nseats, err,
	    errlen) != 0)
		return NULL;
	game = calloc(1, sizeof(*game));
	if (game == NULL || (game->state = calloc(1, impl->state_size)) ==
	    NULL) {
		free(game);
		game_error(err, errlen, "Out of memory.");
		return NULL;
	}
	game->impl = impl;
	game->setup = *setup;
	game->deal_version = GAME_DEAL_VERSION;
	if (players != NULL) {
		game->players = json_deep_copy(players);
	} else {
		game->players = json_array();
		for (int i = 0; i < setup->nseats; i++) {
			char name[16];

			snprintf(name, sizeof(name), "p%d", i);
			json_array_append_new(game->players,
			    json_string(name));
		}
	}
	impl->init(game->state, setup);
	return game;
}

void
game_destroy(struct game *game)
{
	if (game == NULL)
		return;
	json_decref(game->players);
	free(game->deals);
	free(game->actions);
	free(game->state);
	free(game);
}

int
game_add_deal(struct game *game, const struct deal *deal, char *err,
    size_t errlen)
{
	if (game->impl->check_deal(&game->setup, game->ndeals, deal, err,
	    errlen) != 0)
		return -1;
	if (array_grow((void **)&game->deals, &game->deals_cap,
	    game->ndeals + 1, sizeof(*deal)) != 0)
		return game_error(err, errlen, "Out of memory.");
	game->deals[game->ndeals++] = *deal;
	return 0;
}

int
game_advance(struct game *game, char *err, size_t errlen)
{
	const struct game_impl *impl = game->impl;
	char why[GAME_ERR_LEN];
	int next;

	if (impl->phase(game->state) != PHASE_DEAL)
		return 0;
	next = impl->round(game->state) + 1;
	if (next >= game->ndeals)
		return 0;
	/* Named as the deal's own checks are (game_from_record()). */
	if (impl->start_round(game->state, &game->deals[next], why,
	    sizeof(why)) != 0)
		return game_error(err, errlen, "Deal %d: %s", next + 1, why);
	return 0;
}

int
game_apply(struct game *game, const struct action *action, char *err,
    size_t errlen)
{
	const struct game_impl *impl = game->impl;

	switch (impl->phase(game->state)) {
	case PHASE_OVER:
		return game_error(err, errlen, "The game is over.");
	case PHASE_DEAL:
		return game_error(err, errlen,
		    "The cards for round %d have not been dealt.",
		    impl->round(game->state) + 2);
	default:
		break;
	}
	if (array_grow((void **)&game->actions, &game->actions_cap,
	    game->nactions + 1, sizeof(*action)) != 0)
		return game_error(err, errlen, "Out of memory.");
	if (game_apply_action(impl, game->state, action, err, errlen) != 0)
		return -1;
	game->actions[game->nactions++] = *action;
	/*
	 * A deal that fails the late checks cannot be refused here: the
	 * action itself was fine.  The caller sees the failure at the next
	 * game_advance(), and replay reports it as a malformed record.
	 */
	(void)game_advance(game, NULL, 0);
	return 0;
}

int
deal_from_json(const struct game_impl *impl, int nseats, const json_t *obj,
    struct deal *out, char *err, size_t errlen)
{
	const json_t *hands, *turned;

	memset(out, 0, sizeof(*out));
	out->turned = -1;
	if (!json_is_object(obj))
		return game_error(err, errlen, "A deal must be an object.");
	hands = json_object_get(obj, "hands");
	if (!json_is_array(hands) || json_array_size(hands) != (size_t)nseats)
		return game_error(err, errlen,
		    "A deal must hold one hand for each of the %d seats.",
		    nseats);
	for (int seat = 0; seat < nseats; seat++) {
		const json_t *hand = json_array_get(hands, (size_t)seat);

		if (!json_is_array(hand) ||
		    json_array_size(hand) > GAME_MAX_HAND)
			return game_error(err, errlen,
			    "The hand of seat %d must be a list of at most %d "
			    "cards.", seat, GAME_MAX_HAND);
		for (size_t i = 0; i < json_array_size(hand); i++) {
			const json_t *card = json_array_get(hand, i);
			int face = game_json_text(card) != NULL ?
			    impl->parse_card(game_json_text(card)) : -1;

			if (face < 0)
				return game_error(err, errlen,
				    "Seat %d holds an unknown card.", seat);
			out->cards[seat][i] = (uint8_t)face;
		}
		out->count[seat] = (uint8_t)json_array_size(hand);
	}
	turned = json_object_get(obj, "turned");
	if (turned != NULL && !json_is_null(turned)) {
		int face = game_json_text(turned) != NULL ?
		    impl->parse_card(game_json_text(turned)) : -1;

		if (face < 0)
			return game_error(err, errlen,
			    "The turned card is unknown.");
		out->turned = (int16_t)face;
	}
	return 0;
}

json_t *
deal_to_json(const struct game_impl *impl, int nseats, const struct deal *deal)
{
	json_t *obj = json_object();
	json_t *hands = json_array();
	char code[16];

	for (int seat = 0; seat < nseats; seat++) {
		json_t *hand = json_array();

		for (int i = 0; i < deal->count[seat]; i++) {
			impl->format_card(deal->cards[seat][i], code,
			    sizeof(code));
			json_array_append_new(hand, json_string(code));
		}
		json_array_append_new(hands, hand);
	}
	json_object_set_new(obj, "hands", hands);
	if (deal->turned >= 0) {
		impl->format_card(deal->turned, code, sizeof(code));
		json_object_set_new(obj, "turned", json_string(code));
	}
	return obj;
}

int
deal_format(const struct game_impl *impl, int nseats, const struct deal *deal,
    char *buf, size_t len)
{
	char code[16];
	size_t at = 0;

	/* Card codes are plain ASCII: nothing to escape. */
	if (len == 0 || game_buf_add(buf, len, &at, "{\"hands\":[") != 0)
		return -1;
	for (int seat = 0; seat < nseats; seat++) {
		if (game_buf_add(buf, len, &at, "%s[",
		    seat > 0 ? "," : "") != 0)
			return -1;
		for (int i = 0; i < deal->count[seat]; i++) {
			impl->format_card(deal->cards[seat][i], code,
			    sizeof(code));
			if (game_buf_add(buf, len, &at, "%s\"%s\"",
			    i > 0 ? "," : "", code) != 0)
				return -1;
		}
		if (game_buf_add(buf, len, &at, "]") != 0)
			return -1;
	}
	if (game_buf_add(buf, len, &at, "]") != 0)
		return -1;
	if (deal->turned >= 0) {
		impl->format_card(deal->turned, code, sizeof(code));
		if (game_buf_add(buf, len, &at, ",\"turned\":\"%s\"",
		    code) != 0)
			return -1;
	}
	if (game_buf_add(buf, len, &at, "}") != 0)
		return -1;
	return (int)at;
}

json_t *
game_options_to_json(const struct game_impl *impl,
    const struct game_options *options)
{
	json_t *obj = json_object();

	for (int i = 0; obj != NULL && impl->options[i].name != NULL; i++) {
		const struct game_option_desc *desc = &impl->options[i];
		int v = options->value[i];

		if (v == 0)
			continue;
		if (desc->min == 0 && desc->max == 1)
			json_object_set_new(obj, desc->name, json_true());
		else
			json_object_set_new(obj, desc->name, json_integer(v));
	}
	return obj;
}

int
game_options_from_json(const struct game_impl *impl, const json_t *obj,
    struct game_options *options, char *err, size_t errlen)
{
	const char *name;
	json_t *value;

	memset(options, 0, sizeof(*options));
	if (obj == NULL || json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return game_error(err, errlen, "\"options\" must be an object.");
	json_object_foreach((json_t *)obj, name, value) {
		int index = game_option_index(impl, name);
		const struct game_option_desc *desc;
		json_int_t n;
		int v;

		/*
		 * RECORD.md: names as RULES.md spells them.  Chat commands
		 * take any case (game_option_set()); a record's keys do not.
		 */
		if (index < 0 || strcmp(impl->options[index].name, name) != 0)
			return game_error(err, errlen,
			    "Unknown option \"%.*s\" for %s.",
			    game_text_prefix(name, 40), name, impl->name);
		desc = &impl->options[index];
		/* RECORD.md: true, or an integer for options with values. */
		if (json_is_true(value)) {
			if (desc->bare < 0)
				return game_error(err, errlen,
				    "Option %s needs an integer from %d to %d.",
				    desc->name, desc->min, desc->max);
			v = desc->bare;
		} else if (json_is_false(value)) {
			v = 0;
		} else if (!(desc->min == 0 && desc->max == 1) &&
		    game_json_whole(value, &n, NULL, 0)) {
			/* However large: a number out of range. */
			if (n < desc->min || n > desc->max)
				return game_error(err, errlen,
				    "Option %s takes a number from %d to %d.",
				    desc->name, desc->min, desc->max);
			v = (int)n;
		} else if (desc->min == 0 && desc->max == 1) {
			return game_error(err, errlen,
			    "Option %s must be true or false.", desc->name);
		} else if (desc->bare < 0) {
			/* true is no value for it (above): only an integer. */
			return game_error(err, errlen,
			    "Option %s needs an integer from %d to %d.",
			    desc->name, desc->min, desc->max);
		} else {
			return game_error(err, errlen,
			    "Option %s must be true or an integer.", desc->name);
		}
		options->value[index] = v;
	}
	return 0;
}

struct game *
game_from_record(const json_t *record, char *err, size_t errlen)
{
	const struct game_impl *impl;
	const json_t *players, *first, *deals;
	struct game_setup setup;
	struct game *game;
	const char *name;
	size_t nplayers;

	if (!json_is_object(record)) {
		game_error(err, errlen, "A record must be a JSON object.");
		return NULL;
	}
	/* RECORD.md spells the games in lower case; commands take any. */
	name = game_json_text(json_object_get(record, "game"));
	impl = game_find(name);
	if (impl == NULL || strcmp(impl->name, name) != 0) {
		game_error(err, errlen,
		    "\"game\" must be wizard, birdhead or sticheln.");
		return NULL;
	}
	players = json_object_get(record, "players");
	if (!json_is_array(players)) {
		game_error(err, errlen, "\"players\" must be a list of names.");
		return NULL;
	}
	nplayers = json_array_size(players);
	for (size_t i = 0; i < nplayers; i++) {
		if (!json_is_string(json_array_get(players, i))) {
			game_error(err, errlen,
			    "\"players\" must be a list of names.");
			return NULL;
		}
	}
	if (nplayers < (size_t)impl->min_seats ||
	    nplayers > (size_t)impl->max_seats) {
		game_error(err, errlen, "%s needs %d to %d players, not %zu.",
		    impl->name, impl->min_seats, impl->max_seats, nplayers);
		return NULL;
	}
	memset(&setup, 0, sizeof(setup));
	setup.nseats = (int)nplayers;
	first = json_object_get(record, "first");
	if (!json_is_integer(first) || json_integer_value(first) < 0 ||
	    json_integer_value(first) >= (json_int_t)nplayers) {
		game_error(err, errlen,
		    "\"first\" must be a seat number from 0 to %zu.",
		    nplayers - 1);
		return NULL;
	}
	setup.first = (int)json_integer_value(first);
	if (game_options_from_json(impl, json_object_get(record, "options"),
	    &setup.options, err, errlen) != 0)
		return NULL;
	/*
	 * RECORD.md leaves out only options and a turned card when none is
	 * left: a record always has its lists, if empty.  The actions are
	 * checked here too, so that a record missing them is malformed
	 * however it is replayed.
	 */
	deals = json_object_get(record, "deals");
	if (!json_is_array(deals)) {
		game_error(err, errlen, "\"deals\" must be a list.");
		return NULL;
	}
	if (!json_is_array(json_object_get(record, "actions"))) {
		game_error(err, errlen, "\"actions\" must be a list.");
		return NULL;
	}
	game = game_create(impl, &setup, players, err, errlen);
	if (game == NULL)
		return NULL;
	for (size_t i = 0; i < json_array_size(deals); i++) {
		struct deal deal;
		char why[GAME_ERR_LEN];

		if (deal_from_json(impl, setup.nseats, json_array_get(deals, i),
		    &deal, why, sizeof(why)) != 0 ||
		    game_add_deal(game, &deal, why, sizeof(why)) != 0) {
			game_error(err, errlen, "Deal %zu: %s", i + 1, why);
			game_destroy(game);
			return NULL;
		}
	}
	return game;
}

json_t *
game_to_record(const struct game *game)
{
	const struct game_impl *impl = game->impl;
	json_t *record = json_object();
	json_t *deals = json_array();
	json_t *actions = json_array();

	json_object_set_new(record, "game", json_string(impl->name));
	json_object_set_new(record, "players", json_deep_copy(game->players));
	json_object_set_new(record, "options", game_options_to_json(impl,
	    &game->setup.options));
	json_object_set_new(record, "first", json_integer(game->setup.first));
	for (int i = 0; i < game->ndeals; i++)
		json_array_append_new(deals, deal_to_json(impl,
		    game->setup.nseats, &game->deals[i]));
	json_object_set_new(record, "deals", deals);
	for (int i = 0; i < game->nactions; i++)
		json_array_append_new(actions, action_to_json(impl,
		    &game->actions[i]));
	json_object_set_new(record, "actions", actions);
	return record;
}

static json_t *
error_object(const char *reason, int action)
{
	return json_pack("{s:s, s:o}", "error", reason, "action",
	    action < 0 ? json_null() : json_integer(action));
}

/* The reason for an action by a seat the table lacks, number as read. */
static int
seat_error(const struct game *game, const char *number, char *err,
    size_t errlen)
{
	return game_error(err, errlen, "There is no seat %s (seats 0-%d).",
	    number, game->setup.nseats - 1);
}

int
game_action_from_json(const struct game *game, const json_t *obj,
    struct action *out, char *err, size_t errlen)
{
	char number[32];
	json_int_t v;

	if (json_is_object(obj) && game_json_whole(json_object_get(obj,
	    "seat"), &v, number, sizeof(number)) &&
	    (v < 0 || v >= game->setup.nseats))
		return seat_error(game, number, err, errlen);
	return action_from_json(game->impl, obj, out, err, errlen);
}

/*
 * Applies one action of a record, obj in its JSON form or, when obj is
 * NULL, action already read.  Returns 0, 1 for an illegal action, or 2 when
 * the record lacks the deal the action needs.
 */
static int
replay_action(struct game *game, const json_t *obj, const struct action *a,
    char *err, size_t errlen)
{
	const struct game_impl *impl = game->impl;
	struct action action;

	switch (impl->phase(game->state)) {
	case PHASE_DEAL:
		game_error(err, errlen, "The record has no deal for round %d.",
		    impl->round(game->state) + 2);
		return 2;
	case PHASE_OVER:
		game_error(err, errlen, "The game is over.");
		return 1;
	default:
		break;
	}
	if (obj != NULL) {
		if (game_action_from_json(game, obj, &action, err,
		    errlen) != 0)
			return 1;
		a = &action;
	} else if (a->seat >= game->setup.nseats) {
		/* The fast path reads seats up to GAME_MAX_SEATS - 1. */
		char number[8];

		snprintf(number, sizeof(number), "%d", a->seat);
		seat_error(game, number, err, errlen);
		return 1;
	}
	if (game_apply_action(impl, game->state, a, err, errlen) != 0)
		return 1;
	return game_advance(game, err, errlen) != 0 ? 2 : 0;
}

/*
 * Replays the actions of a record into game, which holds its header and
 * deals: the JSON list json when list is NULL, else the n actions of list
 * already read.  Sets *output and returns the exit status.
 */
static int
replay_game(struct game *game, const json_t *json, const struct action *list,
    size_t n, json_t **output)
{
	char err[GAME_ERR_LEN] = "";
	int status = 0;
	size_t i = 0;

	/* game_from_record() has checked that json is a list. */
	if (game_advance(game, err, sizeof(err)) != 0)
		status = 2;
	if (list == NULL)
		n = json_array_size(json);
	for (; status == 0 && i < n; i++)
		status = replay_action(game, list == NULL ?
		    json_array_get(json, i) : NULL, list == NULL ? NULL :
		    &list[i], err, sizeof(err));
	/* The engine never keeps the actions of a replay: it needs none. */
	if (status == 0)
		*output = game->impl->result(game->state);
	else
		*output = error_object(err, status == 1 ? (int)i - 1 : -1);
	return status;
}

int
replay_parsed(struct game *game, const struct action *actions, size_t n,
    json_t **output)
{
	return replay_game(game, NULL, actions, n, output);
}

int
replay_record(const json_t *record, json_t **output)
{
	char err[GAME_ERR_LEN] = "";
	struct game *game;
	int status;

	game = game_from_record(record, err, sizeof(err));
	if (game == NULL) {
		*output = error_object(err, -1);
		return 2;
	}
	status = replay_game(game, json_object_get(record, "actions"), NULL, 0,
	    output);
	game_destroy(game);
	return status;
}

/*
 * Whether the plain JSON integer of len bytes at p (an optional minus,
 * then digits without a leading zero) is too large for json_int_t.
 */
static int
too_big(const char *p, size_t len)
{
	static const char max[] = "9223372036854775807";
	static const char min[] = "9223372036854775808";
	int neg = p[0] == '-';
	size_t digits = len - (size_t)neg;

	if (digits != sizeof(max) - 1)
		return digits > sizeof(max) - 1;
	return memcmp(p + neg, neg ? min : max, digits) > 0;
}

/*
 * Whether the JSON number of len bytes at p is a real beyond what a
 * double holds ("1e400"): valid JSON that jansson refuses.
 */
static int
real_overflows(const char *p, size_t len)
{
	char small[64], *copy = len < sizeof(small) ? small : malloc(len + 1);
	double v;
	int over;

	if (copy == NULL)
		return 0;
	memcpy(copy, p, len);
	copy[len] = '\0';
	errno = 0;
	v = strtod(copy, NULL);
	over = errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL);
	if (copy != small)
		free(copy);
	return over;
}

/*
 * Rewrites in place each JSON integer of text that json_int_t cannot hold
 * as a real of about its value and of the same length: its digits but the
 * last two and "e2", or 1e308 and blanks past what a double holds; and
 * each real beyond a double ("1e400", at least 5 bytes) as 1e308 and
 * blanks.  RECORD.md makes any of them out of range where a number is
 * expected.  Every other byte stays where it was, so any other error
 * keeps its position.
 */
static void
widen_integers(char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t start = i, j;
		int plain;

		if (text[i] == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (text[i] != '-' && (text[i] < '0' || text[i] > '9')) {
			i++;
			continue;
		}
		/* A number runs to the next byte that cannot be in one. */
		while (i < len && ((text[i] >= '0' && text[i] <= '9') ||
		    text[i] == '-' || text[i] == '+' || text[i] == '.' ||
		    text[i] == 'e' || text[i] == 'E'))
			i++;
		j = start + (text[start] == '-');
		plain = j < i && text[j] != '0';
		for (; plain && j < i; j++)
			plain = text[j] >= '0' && text[j] <= '9';
		if (!plain && real_overflows(text + start, i - start)) {
			j = start + (text[start] == '-');
			memset(text + j, ' ', i - j);
			memcpy(text + j, "1e308", 5);
			continue;
		}
		if (!plain || !too_big(text + start, i - start))
			continue;
		if (i - start > 308) {
			j = start + (text[start] == '-');
			memset(text + j, ' ', i - j);
			memcpy(text + j, "1e308", 5);
		} else {
			text[i - 2] = 'e';
			text[i - 1] = '2';
		}
	}
}

json_t *
record_load(const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t error;
	json_t *record;
	char *copy;

	record = json_loadb(text, len, JSON_REJECT_DUPLICATES |
	    JSON_ALLOW_NUL, &error);
	/*
	 * jansson refuses an integer beyond json_int_t as "too big", but it
	 * is valid JSON: RECORD.md makes a seat, bid or option that large
	 * one out of range, as game_json_whole() reads the real it becomes.
	 */
	if (record == NULL &&
	    json_error_code(&error) == json_error_numeric_overflow &&
	    (copy = malloc(len > 0 ? len : 1)) != NULL) {
		memcpy(copy, text, len);
		widen_integers(copy, len);
		record = json_loadb(copy, len, JSON_REJECT_DUPLICATES |
		    JSON_ALLOW_NUL, &error);
		free(copy);
	}
	if (record == NULL)
		game_error(err, errlen,
		    "The record is not valid JSON (line %d, column %d): %s.",
		    error.line, error.column, error.text);
	return record;
}

json_t *
record_loadf(FILE *in, char *err, size_t errlen)
{
	size_t len = 0, cap = 0, n;
	char *text = NULL, *grown;
	json_t *record;

	do {
		if (len == cap) {
			cap = cap > 0 ? cap * 2 : 65536;
			if ((grown = realloc(text, cap)) == NULL) {
				free(text);
				game_error(err, errlen, "Out of memory.");
				return NULL;
			}
			text = grown;
		}
		n = fread(text + len, 1, cap - len, in);
		len += n;
	} while (n > 0);
	if (ferror(in)) {
		game_error(err, errlen, "The record cannot be read: %s.",
		    strerror(errno));
		record = NULL;
	} else {
		record = record_load(text, len, err, errlen);
	}
	free(text);
	return record;
}

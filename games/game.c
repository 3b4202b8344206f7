/*
 * game.c - the game registry and the helpers every engine shares: option
 * parsing, actions to and from record JSON, and error formatting.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game.h"

extern const struct game_impl wizard_game;
extern const struct game_impl birdhead_game;
extern const struct game_impl sticheln_game;

const struct game_impl *const game_registry[] = {
	&wizard_game,
	&birdhead_game,
	&sticheln_game,
	NULL,
};

int
game_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *
game_json_text(const json_t *value)
{
	const char *s = json_string_value(value);

	return s != NULL && strlen(s) == json_string_length(value) ? s :
	    NULL;
}

int
game_text_prefix(const char *s, int max)
{
	int n = 0;

	while (n < max && s[n] != '\0')
		n++;
	/* Cut before a sequence that does not fit whole. */
	if (s[n] != '\0')
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	return n;
}

const struct game_impl *
game_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; game_registry[i] != NULL; i++)
		if (strcasecmp(game_registry[i]->name, name) == 0)
			return game_registry[i];
	return NULL;
}

void
game_make_deal(const struct game_impl *impl, const void *state, int version,
    struct rng *rng, struct deal *out)
{
	if (impl->make_deal_version != NULL)
		impl->make_deal_version(state, version, rng, out);
	else
		impl->make_deal(state, rng, out);
}

void
game_deal(const struct game_impl *impl, void *state, int version,
    struct rng *rng)
{
	if (impl->deal_version != NULL)
		impl->deal_version(state, version, rng);
	else
		impl->deal(state, rng);
}

int
game_apply_action(const struct game_impl *impl, void *state,
    const struct action *action, char *err, size_t errlen)
{
	int move;

	if (impl->action_move != NULL &&
	    (move = impl->action_move(state, action)) >= 0) {
		impl->apply_move(state, action->seat, move);
		return 0;
	}
	return impl->apply(state, action, err, errlen) != 0 ? -1 : 0;
}

int
game_option_index(const struct game_impl *impl, const char *name)
{
	for (int i = 0; impl->options[i].name != NULL; i++)
		if (strcasecmp(impl->options[i].name, name) == 0)
			return i;
	return -1;
}

/* Parses a whole decimal integer; -1 when text is not one. */
static int
parse_int(const char *text, int *out)
{
	char *end;
	long v;

	if (*text == '\0' || isspace((unsigned char)*text))
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int
game_refuse(struct game_refusal *why, int code, const char *option,
    const char *other, int a, int b, int c, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL)
		return -1;
	memset(why, 0, sizeof(*why));
	why->code = code;
	snprintf(why->option, sizeof(why->option), "%.*s",
	    game_text_prefix(option != NULL ? option : "",
	    (int)sizeof(why->option) - 1), option != NULL ? option : "");
	snprintf(why->other, sizeof(why->other), "%s",
	    other != NULL ? other : "");
	why->a = a;
	why->b = b;
	why->c = c;
	va_start(ap, fmt);
	vsnprintf(why->text, sizeof(why->text), fmt, ap);
	va_end(ap);
	return -1;
}

int
game_option_set(const struct game_impl *impl, struct game_options *options,
    const char *text, char *err, size_t errlen)
{
	struct game_refusal why;

	if (game_option_parse(impl, options, text, &why) == 0)
		return 0;
	return game_error(err, errlen, "%s", why.text);
}

int
game_option_parse(const struct game_impl *impl, struct game_options *options,
    const char *text, struct game_refusal *why)
{
	char name[64];
	const char *eq = strchr(text, '=');
	size_t len = eq != NULL ? (size_t)(eq - text) : strlen(text);
	const struct game_option_desc *desc;
	int index, value;

	if (len == 0 || len >= sizeof(name)) {
		game_refuse(why, GAME_REFUSAL_BAD_NAME, text, NULL, 0, 0, 0,
		    "Unknown option \"%.*s\".", game_text_prefix(text, 40),
		    text);
		goto refused;
	}
	memcpy(name, text, len);
	name[len] = '\0';
	index = game_option_index(impl, name);
	if (index < 0) {
		game_refuse(why, GAME_REFUSAL_UNKNOWN, name, NULL, 0, 0, 0,
		    "Unknown option \"%s\" for %s.", name, impl->name);
		goto refused;
	}
	desc = &impl->options[index];
	if (eq == NULL) {
		if (desc->bare < 0) {
			game_refuse(why, GAME_REFUSAL_NEEDS_VALUE, desc->name,
			    NULL, desc->min, desc->max, 0,
			    "Option %s needs a value (%s=%d..%d).", desc->name,
			    desc->name, desc->min, desc->max);
			goto refused;
		}
		value = desc->bare;
	} else if (strcasecmp(eq + 1, "on") == 0 ||
	    strcasecmp(eq + 1, "true") == 0) {
		if (desc->bare < 0) {
			game_refuse(why, GAME_REFUSAL_NEEDS_NUMBER, desc->name,
			    NULL, desc->min, desc->max, 0,
			    "Option %s needs a number from %d to %d.",
			    desc->name, desc->min, desc->max);
			goto refused;
		}
		value = desc->bare;
	} else if (strcasecmp(eq + 1, "off") == 0 ||
	    strcasecmp(eq + 1, "false") == 0) {
		value = 0;
	} else if (eq[1 + strspn(eq + 1, "0123456789")] != '\0' ||
	    parse_int(eq + 1, &value) != 0 || value < desc->min ||
	    value > desc->max) {
		/* Digits only, in range: "off" is how a value is cleared. */
		if (desc->min == 0 && desc->max == 1)
			game_refuse(why, GAME_REFUSAL_ON_OFF, desc->name, NULL,
			    0, 1, 0, "Option %s is on or off.", desc->name);
		else
			game_refuse(why, GAME_REFUSAL_RANGE, desc->name, NULL,
			    desc->min, desc->max, 0,
			    "Option %s takes a number from %d to %d.",
			    desc->name, desc->min, desc->max);
		goto refused;
	}
	options->value[index] = value;
	return 0;
refused:
	if (why != NULL)
		why->game = impl->name;
	return -1;
}

const char *
game_phase_name(enum game_phase phase)
{
	static const char *const names[] = {
		[PHASE_DEAL] = "deal", [PHASE_TRUMP] = "trump",
		[PHASE_BID] = "bid", [PHASE_BID_SIMULTANEOUS] = "bid",
		[PHASE_SELECT] = "select", [PHASE_PLAY] = "play",
		[PHASE_OVER] = "over",
	};

	if ((unsigned)phase >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[phase];
}

json_t *
game_winners(const int16_t *total, int nseats, unsigned eligible,
    int lowest_wins)
{
	json_t *winners = json_array();
	int best = -1;

	for (int seat = 0; seat < nseats; seat++) {
		if (!(eligible & (1u << seat)))
			continue;
		if (best < 0 || (lowest_wins ? total[seat] < total[best] :
		    total[seat] > total[best]))
			best = seat;
	}
	for (int seat = 0; best >= 0 && seat < nseats; seat++)
		if ((eligible & (1u << seat)) && total[seat] == total[best])
			json_array_append_new(winners, json_integer(seat));
	return winners;
}

int
action_equal(const struct action *a, const struct action *b)
{
	if (a->seat != b->seat || a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case ACTION_BID:
	case ACTION_TRUMP:
		return a->value == b->value;
	case ACTION_PLAY:
	case ACTION_SELECT:
		if (a->ncards != b->ncards)
			return 0;
		return memcmp(a->cards, b->cards, a->ncards) == 0;
	default:
		return 1;
	}
}

static const char suit_letters[] = "rygb";

json_t *
action_to_json(const struct game_impl *impl, const struct action *a)
{
	char code[16];
	json_t *obj = json_object();
	json_t *list;

	json_object_set_new(obj, "seat", json_integer(a->seat));
	switch (a->kind) {
	case ACTION_BID:
		json_object_set_new(obj, "bid", json_integer(a->value));
		break;
	case ACTION_TRUMP:
		code[0] = suit_letters[a->value & 3];
		code[1] = '\0';
		json_object_set_new(obj, "trump", json_string(code));
		break;
	case ACTION_PLAY:
		if (impl->max_play_cards > 1) {
			list = json_array();
			for (int i = 0; i < a->ncards; i++) {
				impl->format_card(a->cards[i], code,
				    sizeof(code));
				json_array_append_new(list, json_string(code));
			}
			json_object_set_new(obj, "play", list);
		} else {
			impl->format_card(a->cards[0], code, sizeof(code));
			json_object_set_new(obj, "play", json_string(code));
		}
		break;
	case ACTION_SELECT:
		impl->format_card(a->cards[0], code, sizeof(code));
		json_object_set_new(obj, "select", json_string(code));
		break;
	default:
		break;
	}
	return obj;
}

int
game_buf_add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *at)
		return -1;
	*at += (size_t)n;
	return 0;
}

int
action_format(const struct game_impl *impl, const struct action *a,
    char *buf, size_t len)
{
	char code[16];
	size_t at = 0;
	int rc;

	/* Card codes and suit letters are plain ASCII: nothing to escape. */
	if (len == 0 ||
	    game_buf_add(buf, len, &at, "{\"seat\":%d", a->seat) != 0)
		return -1;
	switch (a->kind) {
	case ACTION_BID:
		rc = game_buf_add(buf, len, &at, ",\"bid\":%d", a->value);
		break;
	case ACTION_TRUMP:
		rc = game_buf_add(buf, len, &at, ",\"trump\":\"%c\"",
		    suit_letters[a->value & 3]);
		break;
	case ACTION_PLAY:
		if (impl->max_play_cards > 1) {
			rc = game_buf_add(buf, len, &at, ",\"play\":[");
			for (int i = 0; rc == 0 && i < a->ncards; i++) {
				impl->format_card(a->cards[i], code,
				    sizeof(code));
				rc = game_buf_add(buf, len, &at, "%s\"%s\"",
				    i > 0 ? "," : "", code);
			}
			if (rc == 0)
				rc = game_buf_add(buf, len, &at, "]");
		} else {
			impl->format_card(a->cards[0], code, sizeof(code));
			rc = game_buf_add(buf, len, &at, ",\"play\":\"%s\"",
			    code);
		}
		break;
	case ACTION_SELECT:
		impl->format_card(a->cards[0], code, sizeof(code));
		rc = game_buf_add(buf, len, &at, ",\"select\":\"%s\"", code);
		break;
	default:
		rc = 0;
		break;
	}
	if (rc != 0 || game_buf_add(buf, len, &at, "}") != 0)
		return -1;
	return (int)at;
}

/* Reads one card code for impl; -1 with a reason when it is not one. */
static int
card_from_json(const struct game_impl *impl, const json_t *value,
    uint8_t *out, char *err, size_t errlen)
{
	int face;

	if (!json_is_string(value))
		return game_error(err, errlen, "A card must be a string.");
	if (game_json_text(value) == NULL)
		return game_error(err, errlen, "A card code cannot hold \\u0000.");
	face = impl->parse_card(json_string_value(value));
	if (face < 0)
		return game_error(err, errlen, "\"%.*s\" is not a %s card.",
		    game_text_prefix(json_string_value(value), 20),
		    json_string_value(value), impl->name);
	*out = (uint8_t)face;
	return 0;
}

int
game_json_whole(const json_t *value, json_int_t *out, char *text,
    size_t textlen)
{
	double v;

	if (json_is_integer(value)) {
		*out = json_integer_value(value);
		if (text != NULL)
			snprintf(text, textlen, "%" JSON_INTEGER_FORMAT, *out);
		return 1;
	}
	/*
	 * A real this large is a whole number beyond json_int_t: what
	 * record_load() makes of a longer integer, or written so.  A smaller
	 * real (1.5, but also 1.0) is no integer as RECORD.md writes them.
	 */
	if (!json_is_real(value) || !(fabs(v = json_real_value(value)) >=
	    0x1p63))
		return 0;
	*out = v < 0 ? LLONG_MIN : LLONG_MAX;
	/*
	 * The real keeps only some 17 digits of the number: say where it
	 * lies, which is exact, rather than print digits it was not given.
	 */
	if (text != NULL)
		snprintf(text, textlen, "%s", v < 0 ?
		    "-9223372036854775809 or less" :
		    "9223372036854775808 or more");
	return 1;
}

int
action_from_json(const struct game_impl *impl, const json_t *obj,
    struct action *out, char *err, size_t errlen)
{
	static const char *const keys[] = { "bid", "trump", "play", "select" };
	const json_t *seat, *value = NULL;
	const char *key = NULL;
	const char *s;
	char number[32];
	json_int_t whole;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(obj))
		return game_error(err, errlen, "An action must be an object.");
	seat = json_object_get(obj, "seat");
	if (!game_json_whole(seat, &whole, number, sizeof(number)))
		return game_error(err, errlen,
		    "An action needs the seat number that acts.");
	/* The engines say the same of a seat the table does not have. */
	if (whole < 0 || whole >= GAME_MAX_SEATS)
		return game_error(err, errlen, "There is no seat %s.", number);
	out->seat = (int8_t)whole;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v = json_object_get(obj, keys[i]);

		if (v == NULL)
			continue;
		if (key != NULL)
			return game_error(err, errlen,
			    "An action must be one of bid, trump, play or "
			    "select, not several.");
		key = keys[i];
		value = v;
	}
	if (key == NULL)
		return game_error(err, errlen,
		    "An action must be a bid, trump, play or select.");
	if (strcmp(key, "bid") == 0) {
		if (!game_json_whole(value, &whole, NULL, 0))
			return game_error(err, errlen,
			    "A bid must be an integer (a number of tricks).");
		/*
		 * A bid out of range, however far, is the engine's to refuse
		 * with the round's range (or for the turn or the phase, which
		 * it checks first): -1 and INT8_MAX stand for any beyond.
		 */
		out->kind = ACTION_BID;
		out->value = (int8_t)(whole < 0 ? -1 : whole > INT8_MAX ?
		    INT8_MAX : whole);
	} else if (strcmp(key, "trump") == 0) {
		const char *p;

		s = game_json_text(value);
		if (s == NULL || strlen(s) != 1 ||
		    (p = strchr(suit_letters, tolower((unsigned char)s[0]))) ==
		    NULL)
			return game_error(err, errlen,
			    "Trump must be one of r, y, g or b.");
		out->kind = ACTION_TRUMP;
		out->value = (int8_t)(p - suit_letters);
	} else if (strcmp(key, "play") == 0) {
		out->kind = ACTION_PLAY;
		/* RECORD.md: a list for BirdHead, a single code otherwise. */
		if (impl->max_play_cards > 1) {
			if (!json_is_array(value))
				return game_error(err, errlen,
				    "A %s play is a list of cards.",
				    impl->name);
			n = json_array_size(value);
			if (n == 0 || n > (size_t)impl->max_play_cards)
				return game_error(err, errlen,
				    "A %s play holds 1 to %d cards.",
				    impl->name, impl->max_play_cards);
			for (size_t i = 0; i < n; i++)
				if (card_from_json(impl,
				    json_array_get(value, i), &out->cards[i],
				    err, errlen) != 0)
					return -1;
			out->ncards = (uint8_t)n;
		} else {
			if (json_is_array(value))
				return game_error(err, errlen,
				    "A %s play is one card.", impl->name);
			if (card_from_json(impl, value, &out->cards[0], err,
			    errlen) != 0)
				return -1;
			out->ncards = 1;
		}
	} else {
		out->kind = ACTION_SELECT;
		if (card_from_json(impl, value, &out->cards[0], err,
		    errlen) != 0)
			return -1;
		out->ncards = 1;
	}
	return 0;
}

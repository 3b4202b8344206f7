/*
 * record_scan.c - the fast way through `replay --lines`: a record's deals
 * and actions read straight from its text into their engine form.
 *
 * Parsing a whole record into JSON values costs a value, a string and
 * often an object per card and per action, several allocations each, and
 * was most of replay's time.  Here the text is scanned once: the "deals"
 * and "actions" lists are cut out of it (replaced by blanks and an empty
 * list, so the rest keeps its exact positions) and read by a strict little
 * scanner, and only the small remainder goes through the JSON parser,
 * which still checks it all.  The scanner accepts only the plain form that
 * stichbot and the reference write: no escapes, no unknown keys, valid
 * cards and seats.  Anything else makes replay_line() give up before it
 * has printed a thing, and the caller parses the whole record as before,
 * so errors and their messages come from one place only.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "record.h"

struct scan {
	const char *p, *end;
};

static void
skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* Takes c after optional white space; 0 when the next byte is another. */
static int
take(struct scan *s, char c)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return 1;
	}
	return 0;
}

/*
 * A plain string: no escapes, no control characters, at most max bytes
 * (with room for the terminator in out).  0 when it is anything else.
 */
static int
plain_string(struct scan *s, char *out, size_t max)
{
	size_t n = 0;

	if (!take(s, '"'))
		return 0;
	for (; s->p < s->end && *s->p != '"'; s->p++) {
		unsigned char c = (unsigned char)*s->p;

		if (c == '\\' || c < 0x20 || n + 1 >= max)
			return 0;
		out[n++] = (char)c;
	}
	if (s->p == s->end)
		return 0;
	s->p++;
	out[n] = '\0';
	return 1;
}

/* A whole number of at most six digits, as JSON writes it (no sign). */
static int
small_integer(struct scan *s, int *out)
{
	const char *start;
	int v = 0;

	skip_ws(s);
	start = s->p;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9' &&
	    s->p - start < 7)
		v = v * 10 + (*s->p++ - '0');
	if (s->p == start || s->p - start > 6 ||
	    (*start == '0' && s->p - start > 1))
		return 0;
	/* A fraction or an exponent makes a real, which is no integer. */
	if (s->p < s->end && (*s->p == '.' || *s->p == 'e' || *s->p == 'E' ||
	    (*s->p >= '0' && *s->p <= '9')))
		return 0;
	*out = v;
	return 1;
}

/*
 * Skips one JSON value without checking it (the JSON parser checks what
 * is left of the text); 0 only when the text ends first.
 */
static int
skip_value(struct scan *s)
{
	int depth = 0;

	skip_ws(s);
	do {
		if (s->p == s->end)
			return 0;
		switch (*s->p) {
		case '"':
			for (s->p++; s->p < s->end && *s->p != '"'; s->p++)
				if (*s->p == '\\' && s->p + 1 < s->end)
					s->p++;
			if (s->p == s->end)
				return 0;
			s->p++;
			break;
		case '[':
		case '{':
			depth++;
			s->p++;
			break;
		case ']':
		case '}':
			depth--;
			s->p++;
			break;
		case ',':
		case ':':
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			s->p++;
			break;
		default:
			/*
			 * A number or a literal: up to the next delimiter.  A
			 * NUL byte (strchr() finds the terminator) is none.
			 */
			if (*s->p == '\0')
				return 0;
			while (s->p < s->end && *s->p != '\0' &&
			    strchr(",:]} \t\n\r\"[{", *s->p) == NULL)
				s->p++;
			break;
		}
	} while (depth > 0);
	return depth == 0;
}

static int
card(const struct game_impl *impl, struct scan *s, uint8_t *out)
{
	char code[8];
	int face;

	if (!plain_string(s, code, sizeof(code)) ||
	    (face = impl->parse_card(code)) < 0)
		return 0;
	*out = (uint8_t)face;
	return 1;
}

/* One deal as deal_from_json() reads it; 0 when it is not plain. */
static int
scan_deal(const struct game_impl *impl, int nseats, struct scan *s,
    struct deal *out)
{
	int hands = 0, turned = 0;
	char key[8];

	memset(out, 0, sizeof(*out));
	out->turned = -1;
	if (!take(s, '{'))
		return 0;
	if (take(s, '}'))
		return 0;
	do {
		if (!plain_string(s, key, sizeof(key)) || !take(s, ':'))
			return 0;
		if (strcmp(key, "hands") == 0 && !hands++) {
			int seat = 0;

			if (!take(s, '['))
				return 0;
			for (; seat < nseats; seat++) {
				int n = 0;

				if ((seat > 0 && !take(s, ',')) ||
				    !take(s, '['))
					return 0;
				if (!take(s, ']')) {
					do {
						if (n == GAME_MAX_HAND ||
						    !card(impl, s,
						    &out->cards[seat][n]))
							return 0;
						n++;
					} while (take(s, ','));
					if (!take(s, ']'))
						return 0;
				}
				out->count[seat] = (uint8_t)n;
			}
			if (!take(s, ']'))
				return 0;
		} else if (strcmp(key, "turned") == 0 && !turned++) {
			uint8_t face;

			skip_ws(s);
			if (s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
				s->p += 4;
			} else {
				if (!card(impl, s, &face))
					return 0;
				out->turned = face;
			}
		} else {
			return 0;
		}
	} while (take(s, ','));
	return hands && take(s, '}');
}

/* One action as action_from_json() reads it; 0 when it is not plain. */
static int
scan_action(const struct game_impl *impl, struct scan *s, struct action *out)
{
	static const char suits[] = "rygb";
	int seat = -1, v;
	char key[8], text[8];

	memset(out, 0, sizeof(*out));
	if (!take(s, '{') || take(s, '}'))
		return 0;
	do {
		if (!plain_string(s, key, sizeof(key)) || !take(s, ':'))
			return 0;
		if (strcmp(key, "seat") == 0) {
			if (seat >= 0 || !small_integer(s, &seat) ||
			    seat >= GAME_MAX_SEATS)
				return 0;
			out->seat = (int8_t)seat;
			continue;
		}
		/* One of the four kinds, and only one. */
		if (out->kind != ACTION_NONE)
			return 0;
		if (strcmp(key, "bid") == 0) {
			if (!small_integer(s, &v) || v > 100)
				return 0;
			out->kind = ACTION_BID;
			out->value = (int8_t)v;
		} else if (strcmp(key, "trump") == 0) {
			const char *p;

			if (!plain_string(s, text, sizeof(text)) ||
			    text[0] == '\0' || text[1] != '\0' ||
			    (p = strchr(suits, text[0] | 0x20)) == NULL)
				return 0;
			out->kind = ACTION_TRUMP;
			out->value = (int8_t)(p - suits);
		} else if (strcmp(key, "play") == 0 ||
		    strcmp(key, "select") == 0) {
			out->kind = key[0] == 'p' ? ACTION_PLAY :
			    ACTION_SELECT;
			if (out->kind == ACTION_PLAY &&
			    impl->max_play_cards > 1) {
				if (!take(s, '[') || take(s, ']'))
					return 0;
				do {
					if (out->ncards == impl->max_play_cards ||
					    !card(impl, s,
					    &out->cards[out->ncards]))
						return 0;
					out->ncards++;
				} while (take(s, ','));
				if (!take(s, ']'))
					return 0;
			} else {
				if (!card(impl, s, &out->cards[0]))
					return 0;
				out->ncards = 1;
			}
		} else {
			return 0;
		}
	} while (take(s, ','));
	return seat >= 0 && out->kind != ACTION_NONE && take(s, '}');
}

/* Where one top-level list lies in the text, and whether it was found. */
struct span {
	const char *start, *end;
	int found;
};

/*
 * Finds the top-level "deals" and "actions" lists.  0 when the record is
 * not a plain object, or names either key twice or in another form.
 */
static int
find_lists(const char *text, size_t len, struct span *deals,
    struct span *actions)
{
	struct scan s = { text, text + len };
	char key[64];

	memset(deals, 0, sizeof(*deals));
	memset(actions, 0, sizeof(*actions));
	if (!take(&s, '{') || take(&s, '}'))
		return 0;
	do {
		struct span *span = NULL;

		/* A key with escapes might spell either name: give up. */
		if (!plain_string(&s, key, sizeof(key)))
			return 0;
		span = strcmp(key, "deals") == 0 ? deals :
		    strcmp(key, "actions") == 0 ? actions : NULL;
		if (!take(&s, ':'))
			return 0;
		skip_ws(&s);
		if (span != NULL) {
			if (span->found || s.p == s.end || *s.p != '[')
				return 0;
			span->found = 1;
			span->start = s.p;
		}
		if (!skip_value(&s))
			return 0;
		if (span != NULL)
			span->end = s.p;
	} while (take(&s, ','));
	if (!take(&s, '}'))
		return 0;
	skip_ws(&s);
	return s.p == s.end;
}

/* Blanks span in copy (at the same offsets as text) to an empty list. */
static void
blank(char *copy, const char *text, const struct span *span)
{
	if (!span->found)
		return;
	memset(copy + (span->start - text), ' ',
	    (size_t)(span->end - span->start));
	copy[span->start - text] = '[';
	copy[span->end - text - 1] = ']';
}

int
replay_line(const char *text, size_t len, json_t **output)
{
	struct span deals, actions;
	struct action *list = NULL;
	int nlist = 0, cap = 0, status = -1;
	char err[GAME_ERR_LEN];
	struct game *game = NULL;
	json_error_t error;
	json_t *rest = NULL;
	char *copy;

	if (!find_lists(text, len, &deals, &actions) ||
	    (copy = malloc(len)) == NULL)
		return -1;
	memcpy(copy, text, len);
	blank(copy, text, &deals);
	blank(copy, text, &actions);
	rest = json_loadb(copy, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	    &error);
	free(copy);
	if (rest == NULL ||
	    (game = game_from_record(rest, err, sizeof(err))) == NULL)
		goto out;
	if (deals.found) {
		struct scan s = { deals.start, deals.end };
		struct deal deal;

		take(&s, '[');
		if (!take(&s, ']')) {
			do {
				if (!scan_deal(game->impl, game->setup.nseats,
				    &s, &deal) ||
				    game_add_deal(game, &deal, err,
				    sizeof(err)) != 0)
					goto out;
			} while (take(&s, ','));
			if (!take(&s, ']'))
				goto out;
		}
		/* The list must end where the skipping found its end. */
		if (s.p != deals.end)
			goto out;
	}
	if (actions.found) {
		struct scan s = { actions.start, actions.end };

		take(&s, '[');
		if (!take(&s, ']')) {
			do {
				if (array_grow((void **)&list, &cap, nlist + 1,
				    sizeof(*list)) != 0 ||
				    !scan_action(game->impl, &s, &list[nlist]))
					goto out;
				nlist++;
			} while (take(&s, ','));
			if (!take(&s, ']'))
				goto out;
		}
		if (s.p != actions.end)
			goto out;
	}
	status = replay_parsed(game, list, (size_t)nlist, output);
out:
	free(list);
	game_destroy(game);
	json_decref(rest);
	return status;
}

/*
 * fuzz_cards.c - libFuzzer target: card codes, game options and computer
 * player levels as players type them.
 *
 * The input is split into lines; each line is tried, for every game, as a
 * card code (a card that parses formats to a canonical code that parses to
 * the same card and formats to itself) and as an option (accumulated per
 * game, then checked with validate_options for every seat count), and as a
 * computer player level.  Every face a game can format is checked once at
 * start-up as well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ai.h"
#include "fuzz_check.h"
#include "game.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The longest line tried; longer lines are cut (codes are short). */
#define MAX_LINE 256

/* Every face a game formats to a code other than "?" parses back. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (size_t g = 0; game_registry[g] != NULL; g++) {
		const struct game_impl *impl = game_registry[g];

		for (int face = -2; face < 300; face++) {
			char code[16];

			memset(code, 'x', sizeof(code));
			impl->format_card(face, code, sizeof(code));
			CHECK(memchr(code, '\0', 8) != NULL);
			if (strcmp(code, "?") != 0)
				CHECK(impl->parse_card(code) == face);
		}
	}
	return 0;
}

static void
check_card(const struct game_impl *impl, const char *line)
{
	char code[16], again[16];
	int face = impl->parse_card(line);

	CHECK(face >= -1);
	if (face < 0)
		return;
	/* Faces are stored in uint8_t everywhere. */
	CHECK(face <= UINT8_MAX);
	memset(code, 'x', sizeof(code));
	impl->format_card(face, code, sizeof(code));
	CHECK(memchr(code, '\0', 8) != NULL);
	CHECK(strcmp(code, "?") != 0);
	CHECK(impl->parse_card(code) == face);
	impl->format_card(impl->parse_card(code), again, sizeof(again));
	CHECK(strcmp(code, again) == 0);
	/* A shorter buffer cuts the code but never overflows it. */
	impl->format_card(face, again, 2);
	CHECK(strlen(again) <= 1);
}

/* Whether s is valid UTF-8, by jansson's independent reading. */
static int
utf8_valid(const char *s)
{
	json_t *j = json_string(s);
	int valid = j != NULL;

	json_decref(j);
	return valid;
}

static void
check_option(const struct game_impl *impl, struct game_options *options,
    const char *line)
{
	struct game_options before = *options;
	char err[GAME_ERR_LEN];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = game_option_set(impl, options, line, err, sizeof(err));
	CHECK(rc == 0 || rc == -1);
	if (rc != 0) {
		CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		CHECK(memcmp(&before, options, sizeof(before)) == 0);
		/* Players read the reason: valid input gives valid UTF-8. */
		if (utf8_valid(line))
			CHECK(utf8_valid(err));
		return;
	}
	for (int i = 0; impl->options[i].name != NULL; i++) {
		int v = options->value[i];

		CHECK(i < GAME_MAX_OPTIONS);
		CHECK(v == 0 || (v >= impl->options[i].min &&
		    v <= impl->options[i].max));
	}
}

static void
check_level(const char *line)
{
	int level = ai_level_parse(line);

	CHECK(level >= -1 && level <= AI_HARD);
	if (level >= 0)
		CHECK(ai_level_parse(ai_level_name((enum ai_level)level)) ==
		    level);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct game_options options[8];
	char line[MAX_LINE + 1];
	size_t ngames = 0, start = 0;

	while (game_registry[ngames] != NULL)
		ngames++;
	CHECK(ngames <= sizeof(options) / sizeof(options[0]));
	memset(options, 0, sizeof(options));
	while (start <= size) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t end = nl != NULL ? (size_t)(nl - data) : size;
		size_t len = end - start;

		/* A NUL in the line ends the string, as it would in C. */
		if (len > MAX_LINE)
			len = MAX_LINE;
		memcpy(line, data + start, len);
		line[len] = '\0';
		for (size_t g = 0; g < ngames; g++) {
			check_card(game_registry[g], line);
			check_option(game_registry[g], &options[g], line);
		}
		check_level(line);
		start = end + 1;
	}
	for (size_t g = 0; g < ngames; g++) {
		const struct game_impl *impl = game_registry[g];

		/* 0 seats: a table still open, the count not known yet. */
		for (int n = 0; n <= impl->max_seats; n++) {
			char err[GAME_ERR_LEN];
			int rc;

			if (n > 0 && n < impl->min_seats)
				continue;
			memset(err, 'x', sizeof(err));
			rc = impl->validate_options(&options[g], n, err,
			    sizeof(err));
			CHECK(rc == 0 || rc == -1);
			if (rc != 0)
				CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		}
	}
	return 0;
}

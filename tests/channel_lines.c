/*
 * channel_lines.c - reading the bot's channel lines for the privacy
 * checks of the tests and the fuzzer (see channel_lines.h).
 */
#include <string.h>

#include "channel_lines.h"
#include "table.h"

static int
alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int
channel_has_word(const char *s, const char *code, int nocase)
{
	size_t n = strlen(code);

	for (const char *p = s; *p != '\0'; p++) {
		size_t k = 0;

		if (nocase)
			while (k < n && lower(p[k]) == lower(code[k]))
				k++;
		else
			while (k < n && p[k] == code[k])
				k++;
		if (k == n && (p == s || !alnum(p[-1])) && !alnum(p[n]))
			return 1;
	}
	return 0;
}

void
channel_outside_sheets(const char *marked, char *out, size_t len)
{
	int pre = 0;
	size_t n = 0;

	for (const char *p = marked; *p != '\0' && n + 1 < len; p++) {
		if (*p == TEXT_PRE || *p == TEXT_TABLE) {
			pre = !pre;
			continue;
		}
		if (*p == TEXT_COLOR && p[1] != '\0') {
			p++;
			continue;
		}
		if (pre || (unsigned char)*p < 0x20)
			continue;
		out[n++] = *p;
	}
	out[n] = '\0';
}

int
channel_played_since(const struct table *table, int from, const char *code)
{
	for (int i = from; i < table_game(table)->nactions; i++) {
		const struct action *a = &table_game(table)->actions[i];

		for (int k = 0; k < a->ncards && a->kind != ACTION_BID; k++) {
			char played[8];

			table_impl(table)->format_card(a->cards[k], played,
			    sizeof(played));
			if (strcmp(played, code) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * present.c - the registry of game presentations, and what several of
 * them share.
 */
#include <string.h>

#include "present.h"

extern const struct game_present present_wizard;
extern const struct game_present present_birdhead;
extern const struct game_present present_sticheln;

static const struct game_present *const presents[] = {
	&present_wizard,
	&present_birdhead,
	&present_sticheln,
	NULL,
};

const struct game_present *
present_find(const char *name)
{
	for (size_t i = 0; name != NULL && presents[i] != NULL; i++)
		if (strcmp(presents[i]->name, name) == 0)
			return presents[i];
	return NULL;
}

char
present_suit_color(const char *code)
{
	if (code == NULL || code[0] == '\0' || code[1] == '\0')
		return '0';
	return strchr("rygbnp", code[0]) != NULL ? code[0] : '0';
}

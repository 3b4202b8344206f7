/*
 * present.c - the registry of game presentations, and what several of
 * them share.
 */
#include <stdio.h>
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

/* The engine's common reasons (game.h), by code. */
static const enum msg common_refusals[] = {
	[GAME_REFUSAL_OTHER] = MSG_COUNT,
	[GAME_REFUSAL_BAD_NAME] = MSG_REFUSAL_BAD_NAME,
	[GAME_REFUSAL_UNKNOWN] = MSG_REFUSAL_UNKNOWN,
	[GAME_REFUSAL_NEEDS_VALUE] = MSG_REFUSAL_NEEDS_VALUE,
	[GAME_REFUSAL_NEEDS_NUMBER] = MSG_REFUSAL_NEEDS_NUMBER,
	[GAME_REFUSAL_ON_OFF] = MSG_REFUSAL_ON_OFF,
	[GAME_REFUSAL_RANGE] = MSG_REFUSAL_RANGE,
	[GAME_REFUSAL_COMBINED] = MSG_REFUSAL_COMBINED,
};

void
present_refusal(struct text *out, enum lang lang,
    const struct game_refusal *why)
{
	const struct game_present *present = present_find(why->game);
	enum msg id = MSG_COUNT;

	if (why->code >= 0 && (size_t)why->code < sizeof(common_refusals) /
	    sizeof(common_refusals[0]))
		id = common_refusals[why->code];
	else if (why->code >= GAME_REFUSAL_GAME && present != NULL &&
	    present->refusal != NULL)
		id = present->refusal(why->code);
	if (id == MSG_COUNT) {
		text_add(out, why->text);
		return;
	}
	SAY(out, lang, id, "ssddds", why->option, why->other, why->a, why->b,
	    why->c, why->game != NULL ? why->game : "");
}

/* Words why in lang into err, plain; returns -1. */
static int
refused(enum lang lang, const struct game_refusal *why, char *err,
    size_t errlen)
{
	struct text t;

	text_init(&t);
	present_refusal(&t, lang, why);
	snprintf(err, errlen, "%s", text_str(&t));
	text_finish(&t);
	return -1;
}

int
present_option_set(enum lang lang, const struct game_impl *impl,
    struct game_options *options, const char *text, char *err,
    size_t errlen)
{
	struct game_refusal why;

	if (game_option_parse(impl, options, text, &why) == 0)
		return 0;
	return refused(lang, &why, err, errlen);
}

int
present_options_check(enum lang lang, const struct game_impl *impl,
    const struct game_options *options, int nseats, char *err,
    size_t errlen)
{
	struct game_refusal why;

	if (impl->check_options == NULL)
		return impl->validate_options(options, nseats, err, errlen);
	if (impl->check_options(options, nseats, &why) == 0)
		return 0;
	why.game = impl->name;
	return refused(lang, &why, err, errlen);
}

/*
 * i18n.c - filling the catalog templates of i18n.h.
 */
#include <stdarg.h>
#include <string.h>

#include "ai.h"
#include "i18n.h"

#define MESSAGE_NAME(name) #name,
static const char *const message_names[MSG_COUNT] = {
	MESSAGE_IDS(MESSAGE_NAME)
};

static const char *const lang_names[LANG_COUNT] = { "en", "ja" };

int
lang_parse(const char *name)
{
	for (int i = 0; i < LANG_COUNT; i++)
		if (strcasecmp(name, lang_names[i]) == 0)
			return i;
	return -1;
}

const char *
lang_name(enum lang lang)
{
	return (unsigned)lang < LANG_COUNT ? lang_names[lang] : "en";
}

const char *
i18n_level(enum lang lang, int level)
{
	switch (level) {
	case AI_EASY:
		return i18n_get(lang, MSG_LEVEL_EASY);
	case AI_NORMAL:
		return i18n_get(lang, MSG_LEVEL_NORMAL);
	case AI_HARD:
		return i18n_get(lang, MSG_LEVEL_HARD);
	}
	return ai_level_name((enum ai_level)level);
}

const char *
i18n_id_name(enum msg id)
{
	return (unsigned)id < MSG_COUNT ? message_names[id] : "?";
}

const char *
i18n_get(enum lang lang, enum msg id)
{
	const char *s = NULL;

	if ((unsigned)id >= MSG_COUNT)
		return "";
	if (lang == LANG_JA)
		s = catalog_ja[id];
	if (s == NULL)
		s = catalog_en[id];
	return s != NULL ? s : "";
}

/* One argument, whatever its type, kept until the template needs it. */
union arg {
	const char *s;
	int d;
};

/*
 * Appends the form of "{N|one|other}" at p that agrees with argument N;
 * returns the template's position of its closing brace.
 */
static const char *
plural(struct text *t, const char *p, int nargs, const char *types,
    const union arg *args)
{
	int i = p[1] - '1';
	const char *one = p + 3;
	const char *other = one + strcspn(one, "|}");
	const char *end;

	if (*other != '|')
		return other - 1 + (*other != '\0');
	other++;
	end = other + strcspn(other, "}");
	if (i < nargs && types[i] == 'd' && args[i].d == 1)
		text_addn(t, one, (size_t)(other - 1 - one));
	else
		text_addn(t, other, (size_t)(end - other));
	return *end == '\0' ? end - 1 : end;
}

void
i18n_say(struct text *t, enum lang lang, enum msg id, const char *types, ...)
{
	union arg args[9];
	int nargs = 0;
	const char *tpl = i18n_get(lang, id);
	const char *p;
	va_list ap;

	va_start(ap, types);
	for (; types[nargs] != '\0' && nargs < 9; nargs++) {
		if (types[nargs] == 'd' || types[nargs] == 'c')
			args[nargs].d = va_arg(ap, int);
		else
			args[nargs].s = va_arg(ap, const char *);
	}
	va_end(ap);
	for (p = tpl; *p != '\0'; p++) {
		if (p[0] == '{' && p[1] >= '1' && p[1] <= '9' && p[2] == '|') {
			p = plural(t, p, nargs, types, args);
			continue;
		}
		if (p[0] == '{' && p[1] >= '1' && p[1] <= '9' && p[2] == '}') {
			int i = p[1] - '1';

			p += 2;
			if (i >= nargs)
				continue;
			switch (types[i]) {
			case 'd':
				text_printf(t, "%d", args[i].d);
				break;
			case 'c':
				text_printf(t, "%c", (char)args[i].d);
				break;
			case 'b':
				text_bold(t, args[i].s != NULL ? args[i].s : "");
				break;
			case 'r':
				text_add(t, args[i].s != NULL ? args[i].s : "");
				break;
			default:
				text_user(t, args[i].s != NULL ? args[i].s : "");
				break;
			}
			continue;
		}
		text_addn(t, p, 1);
	}
}

/*
 * settings.c - a channel's settings: what the configuration says, with
 * the changes made while the bot runs (`!admin set`, `!lang`) kept in the
 * store so that a restart, clean or not, keeps them.
 *
 * The changes of a channel are one stored value (store_kv_*), a JSON
 * object {"KEY": {"value": "...", "config": "..."}} keyed by the network
 * and the channel.  "config" is what the configuration said for the key
 * when the change was made: a configuration that says something else
 * since (edited and reloaded, or edited before a restart) wins for that
 * key, and the change is forgotten.  A change is written in the store
 * batch of the command that makes it, so it is committed before the
 * reply that announces it (outbox.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot_int.h"
#include "config.h"
#include "log.h"
#include "store.h"

/* One key of `!admin set`: how its value is read and written back. */
struct setting {
	const char *key;
	enum msg refusal;        /* said when a value is refused ("s") */
	/* Sets the key in s from value; -1 (s unchanged) when refused. */
	int (*parse)(struct channel_settings *s, const char *value);
	void (*format)(const struct channel_settings *s, char *buf,
	    size_t len);
};

static int
game_parse(struct channel_settings *s, const char *value)
{
	const struct game_impl *impl = game_find(value);

	if (impl == NULL)
		return -1;
	snprintf(s->game, sizeof(s->game), "%s", impl->name);
	/* The options belong to the game they were set for. */
	json_array_clear(s->options);
	return 0;
}

static void
game_format(const struct channel_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->game);
}

static int
lang_set(struct channel_settings *s, const char *value)
{
	int lang = lang_parse(value);

	if (lang < 0)
		return -1;
	s->lang = (enum lang)lang;
	return 0;
}

static void
lang_format(const struct channel_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", lang_name(s->lang));
}

static int
prefix_parse(struct channel_settings *s, const char *value)
{
	if (config_prefix_check(value) != 0 ||
	    strlen(value) >= sizeof(s->prefixes))
		return -1;
	snprintf(s->prefixes, sizeof(s->prefixes), "%s", value);
	return 0;
}

static void
prefix_format(const struct channel_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->prefixes);
}

static int
timer_parse(struct channel_settings *s, const char *value)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)value[0]))
		return -1;
	n = strtol(value, &end, 10);
	if (*end != '\0' || config_turn_timer_check(n) != 0)
		return -1;
	s->turn_timer = (int)n;
	return 0;
}

static void
timer_format(const struct channel_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "%d", s->turn_timer);
}

static int
formatting_parse(struct channel_settings *s, const char *value)
{
	if (strcasecmp(value, "on") != 0 && strcasecmp(value, "off") != 0)
		return -1;
	s->plain = strcasecmp(value, "off") == 0;
	return 0;
}

static void
formatting_format(const struct channel_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->plain ? "off" : "on");
}

/* Applied in this order: game first, since it clears the options. */
static const struct setting settings_table[] = {
	{ "game", MSG_UNKNOWN_GAME, game_parse, game_format },
	{ "lang", MSG_BAD_LANG, lang_set, lang_format },
	{ "prefix", MSG_BAD_SETTING_PREFIX, prefix_parse, prefix_format },
	{ "timer", MSG_BAD_SETTING_TIMER, timer_parse, timer_format },
	{ "formatting", MSG_BAD_SETTING_FORMATTING, formatting_parse,
	    formatting_format },
	{ NULL, MSG_BAD_SETTING, NULL, NULL },
};

static const struct setting *
setting_find(const char *key)
{
	const struct setting *s;

	for (s = settings_table; s->key != NULL; s++)
		if (strcasecmp(s->key, key) == 0)
			return s;
	return NULL;
}

/*
 * The store's key of a channel's changes.  IRC channel names are folded
 * to lower case, as channel_name_equal() compares them, so "#Wiz" and
 * "#wiz" share their settings.  Returns a malloc'd string, or NULL.
 */
static char *
changes_key(const struct channel *channel)
{
	char name[256];
	json_t *key;
	char *text;
	size_t i;

	snprintf(name, sizeof(name), "%s", channel->name);
	if (name[0] == '#' || name[0] == '&')
		for (i = 0; name[i] != '\0'; i++)
			name[i] = (char)tolower((unsigned char)name[i]);
	key = json_pack("[s,s,s]", "channel-settings",
	    channel->network->adapter.network, name);
	text = key != NULL ? json_dumps(key, JSON_COMPACT) : NULL;
	json_decref(key);
	return text;
}

/* The stored changes of channel: a new object, empty when none. */
static json_t *
changes_read(const struct channel *channel)
{
	struct store *store = channel->network->bot->store;
	char *key = changes_key(channel), *text = NULL;
	json_t *changes = NULL;
	json_error_t jerr;

	if (store != NULL && key != NULL &&
	    (text = store_kv_get(store, key)) != NULL &&
	    (changes = json_loads(text, 0, &jerr)) == NULL)
		log_error("%s %s: the stored channel settings cannot be read "
		    "(%s); the configuration's apply",
		    channel->network->adapter.network, channel->name,
		    jerr.text);
	free(text);
	free(key);
	if (changes != NULL && !json_is_object(changes)) {
		json_decref(changes);
		changes = NULL;
	}
	return changes != NULL ? changes : json_object();
}

/* Stores changes (borrowed) as channel's; 0, or -1 (logged by the store). */
static int
changes_write(const struct channel *channel, const json_t *changes)
{
	struct store *store = channel->network->bot->store;
	char *key = changes_key(channel);
	char *text = json_dumps(changes, JSON_COMPACT | JSON_SORT_KEYS);
	int rc = -1;

	if (store != NULL && key != NULL && text != NULL)
		rc = store_kv_set(store, key, text);
	free(key);
	free(text);
	return store == NULL ? 0 : rc;
}

/*
 * The channel's settings become the configuration's with the changes
 * that still hold applied.  A change made over another value of the
 * configuration than today's is forgotten (and the store told so when
 * forget is set); so is one that no longer reads.
 */
static void
changes_apply(struct channel *channel, int forget)
{
	struct channel_settings s;
	json_t *keep = json_object();
	const char *key;
	json_t *change;
	int dropped = 0;

	memset(&s, 0, sizeof(s));
	settings_copy(&s, &channel->config);
	for (const struct setting *set = settings_table; set->key != NULL;
	    set++) {
		const char *value, *config;
		char now[64];

		if ((change = json_object_get(channel->changes, set->key)) ==
		    NULL)
			continue;
		value = json_string_value(json_object_get(change, "value"));
		config = json_string_value(json_object_get(change, "config"));
		set->format(&channel->config, now, sizeof(now));
		if (value == NULL || config == NULL || strcmp(config, now) != 0 ||
		    set->parse(&s, value) != 0) {
			log_info("%s %s: the configuration's %s (%s) replaces "
			    "the one set at run time (%s)",
			    channel->network->adapter.network, channel->name,
			    set->key, now, value != NULL ? value : "?");
			dropped = 1;
			continue;
		}
		json_object_set(keep, set->key, change);
	}
	json_object_foreach(channel->changes, key, change)
		if (setting_find(key) == NULL)
			dropped = 1;
	settings_finish(&channel->settings);
	channel->settings = s;
	if (dropped && forget && changes_write(channel, keep) == 0) {
		json_decref(channel->changes);
		channel->changes = keep;
		return;
	}
	json_decref(keep);
}

void
channel_configure(struct channel *channel,
    const struct channel_settings *configured)
{
	settings_copy(&channel->config, configured);
	if (channel->changes == NULL)
		channel->changes = changes_read(channel);
	changes_apply(channel, 1);
}

void
channel_settings_reload(struct channel *channel)
{
	json_decref(channel->changes);
	channel->changes = changes_read(channel);
	changes_apply(channel, 0);
}

void
channel_settings_free(struct channel *channel)
{
	settings_finish(&channel->settings);
	settings_finish(&channel->config);
	json_decref(channel->changes);
	channel->changes = NULL;
}

int
channel_setting_change(struct channel *channel, const char *key,
    const char *value, enum msg *refusal, char *canon, size_t canonlen)
{
	const struct setting *set = setting_find(key);
	struct channel_settings s;
	char now[64];
	json_t *changes;

	if (set == NULL) {
		*refusal = MSG_BAD_SETTING;
		return -1;
	}
	memset(&s, 0, sizeof(s));
	settings_copy(&s, &channel->settings);
	if (set->parse(&s, value) != 0) {
		settings_finish(&s);
		*refusal = set->refusal;
		return -1;
	}
	set->format(&s, canon, canonlen);
	set->format(&channel->config, now, sizeof(now));
	changes = json_deep_copy(channel->changes);
	if (changes == NULL)
		changes = json_object();
	/* Back to the configuration's value: nothing to keep. */
	if (strcmp(canon, now) == 0)
		json_object_del(changes, set->key);
	else
		json_object_set_new(changes, set->key, json_pack("{s:s, s:s}",
		    "value", canon, "config", now));
	if (changes_write(channel, changes) != 0) {
		json_decref(changes);
		settings_finish(&s);
		*refusal = MSG_NOT_SAVED;
		return -1;
	}
	json_decref(channel->changes);
	channel->changes = changes;
	settings_finish(&channel->settings);
	channel->settings = s;
	return 0;
}

/*
 * config.c - reads and checks the bot's configuration (see config.h and
 * config/stichbot.example.json).
 *
 * The whole document is checked before anything is kept, and the first
 * problem is reported with its JSON path, so a reload with a broken file
 * changes nothing.  config.c checks the common parts; every other key of a
 * network object belongs to that network's adapter, whose init() checks it
 * (`stichbot check-config` runs both).
 *
 * Channel settings are layered: built-in defaults, then a network's
 * "defaults" object, then a listed channel's own keys.  Game options belong
 * to a game, so a channel inherits the defaults' options only when it plays
 * the defaults' game; a channel that picks another game starts with none.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "adapter.h"
#include "cfg.h"
#include "config.h"
#include "game.h"
#include "xmalloc.h"

/* Room for a JSON path such as "networks[12].channels[3].options[1]". */
#define CONFIG_PATH_MAX 256

const char *const config_network_keys[] = {
	"name", "type", "admins", "defaults", "channels", NULL,
};

static const char *const top_keys[] = {
	"store", "log_level", "computer", "lobby_idle", "grace",
	"user_flood", "networks", NULL,
};
static const char *const user_flood_keys[] = { "burst", "interval_ms",
	"network_burst", "network_interval_ms",
    NULL };
static const char *const computer_keys[] = { "level", "budget_ms",
    "delay_ms", NULL };
static const char *const setting_keys[] = {
	"game", "lang", "prefix", "formatting", "turn_timer", "options", NULL,
};
static const char *const channel_keys[] = { "name", NULL };
static const char *const log_levels[] = {
	"error", "warn", "info", "debug", NULL,
};
static const char *const computer_levels[] = {
	"easy", "normal", "hard", NULL,
};
static const char *const langs[] = { "en", "ja", NULL };

/* The settings of a channel nothing else configures. */
#define CONFIG_GAME "wizard"
#define CONFIG_LANG "en"
#define CONFIG_PREFIX "!/"
#define CONFIG_TURN_TIMER 120

static int
config_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
config_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* Names come from the file: keep the message on one line. */
		for (char *p = err; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return -1;
}

static void
channel_finish(struct config_channel *ch)
{
	free(ch->name);
	free(ch->game);
	free(ch->lang);
	free(ch->prefixes);
	json_decref(ch->options);
	memset(ch, 0, sizeof(*ch));
}

/* Makes dst a deep copy of src with name; dst is overwritten. */
static int
channel_copy(struct config_channel *dst, const struct config_channel *src,
    const char *name, char *err, size_t errlen)
{
	memset(dst, 0, sizeof(*dst));
	dst->plain = src->plain;
	dst->turn_timer = src->turn_timer;
	dst->name = xstrdup(name);
	dst->game = xstrdup(src->game);
	dst->lang = xstrdup(src->lang);
	dst->prefixes = xstrdup(src->prefixes);
	if ((dst->options = json_deep_copy(src->options)) == NULL) {
		channel_finish(dst);
		return config_fail(err, errlen, "out of memory");
	}
	return 0;
}

/* Replaces one string field of a channel. */
static void
channel_set(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

/*
 * Checks options (borrowed, an array of strings) for game: each element
 * with the game's option table, then the combination.
 */
static int
options_check(const json_t *options, const char *game, const char *path,
    char *err, size_t errlen)
{
	const struct game_impl *impl = game_find(game);
	struct game_options scratch;
	char reason[GAME_ERR_LEN];
	json_t *item;
	size_t i;

	memset(&scratch, 0, sizeof(scratch));
	json_array_foreach(options, i, item) {
		if (game_option_set(impl, &scratch, json_string_value(item),
		    reason, sizeof(reason)) != 0)
			return config_fail(err, errlen, "%s.options[%zu]: %s",
			    path, i, reason);
	}
	if (impl->validate_options(&scratch, 0, reason, sizeof(reason)) != 0)
		return config_fail(err, errlen, "%s.options: %s", path, reason);
	return 0;
}

int
config_turn_timer_check(long n)
{
	return n == 0 || (n >= 10 && n <= 3600) ? 0 : -1;
}

int
config_prefix_check(const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80 ||
		    !ispunct((unsigned char)s[i]))
			return -1;
	return len >= 1 && len <= 4 ? 0 : -1;
}

/* Reads turn_timer: 0 (no timer) or 10-3600 seconds. */
static int
turn_timer_read(const json_t *obj, const char *path, int *out, char *err,
    size_t errlen)
{
	json_t *v = json_object_get(obj, "turn_timer");
	json_int_t n;

	if (v == NULL)
		return 1;
	if (json_is_integer(v)) {
		n = json_integer_value(v);
		if (n >= 0 && n <= 3600 && config_turn_timer_check((long)n) ==
		    0) {
			*out = (int)n;
			return 0;
		}
	}
	return config_fail(err, errlen,
	    "%s.turn_timer: expected 0 or an integer 10-3600", path);
}

/* Reads prefix: 1-4 ASCII punctuation characters. */
static int
prefix_read(const json_t *obj, const char *path, const char **out,
    char *err, size_t errlen)
{
	const char *s;
	int rc;

	if ((rc = cfg_string(obj, path, "prefix", 0, &s, err, errlen)) != 0)
		return rc;
	if (config_prefix_check(s) != 0)
		return config_fail(err, errlen, "%s.prefix: expected 1-4 "
		    "punctuation characters, e.g. \"!\"", path);
	*out = s;
	return 0;
}

/*
 * Applies the channel settings keys of obj (borrowed; already checked for
 * unknown keys) on top of ch.
 */
static int
settings_read(const json_t *obj, const char *path, struct config_channel *ch,
    char *err, size_t errlen)
{
	const char *games[8], *s;
	const json_t *options;
	size_t n = 0;
	int rc, b;

	for (size_t i = 0; game_registry[i] != NULL && n + 1 < 8; i++)
		games[n++] = game_registry[i]->name;
	games[n] = NULL;
	rc = cfg_choice(obj, path, "game", games, 0, &s, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0 && strcmp(s, ch->game) != 0) {
		/* The inherited options belong to another game. */
		json_decref(ch->options);
		if ((ch->options = json_array()) == NULL)
			return config_fail(err, errlen, "out of memory");
		channel_set(&ch->game, s);
	}
	if ((rc = cfg_choice(obj, path, "lang", langs, 0, &s, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0)
		channel_set(&ch->lang, s);
	if ((rc = prefix_read(obj, path, &s, err, errlen)) < 0)
		return -1;
	if (rc == 0)
		channel_set(&ch->prefixes, s);
	if ((rc = cfg_bool(obj, path, "formatting", 0, &b, err, errlen)) < 0)
		return -1;
	if (rc == 0)
		ch->plain = !b;
	if (turn_timer_read(obj, path, &ch->turn_timer, err, errlen) < 0)
		return -1;
	if ((rc = cfg_strings(obj, path, "options", 0, &options, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0) {
		if (options_check(options, ch->game, path, err, errlen) != 0)
			return -1;
		json_decref(ch->options);
		if ((ch->options = json_deep_copy(options)) == NULL)
			return config_fail(err, errlen, "out of memory");
	}
	return 0;
}

/* Checks a channel or room name as the network's medium writes it. */
static int
channel_name_check(const char *type, const char *name, const char *path,
    char *err, size_t errlen)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
			len = 0;
	if (len == 0 || len > 255)
		return config_fail(err, errlen, "%s: expected a channel name "
		    "without spaces", path);
	/* RFC 2812: a channel starts with #&+! and holds no ',' or ':'. */
	if (strcmp(type, "irc") == 0 && (strchr("#&+!", name[0]) == NULL ||
	    strpbrk(name, ",:") != NULL))
		return config_fail(err, errlen, "%s: expected an IRC channel "
		    "name such as \"#wizard\"", path);
	if (strcmp(type, "matrix") == 0 && ((name[0] != '!' &&
	    name[0] != '#') || strchr(name, ':') == NULL))
		return config_fail(err, errlen, "%s: expected a Matrix room "
		    "id (\"!id:server\") or alias (\"#alias:server\")", path);
	return 0;
}

/* Checks one admin entry for the network's medium. */
static int
admin_check(const char *type, const char *admin, const char *path,
    char *err, size_t errlen)
{
	const char *bang, *at;

	for (const char *p = admin; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return config_fail(err, errlen, "%s: expected an admin "
			    "without spaces", path);
	if (strcmp(type, "irc") == 0) {
		bang = strchr(admin, '!');
		at = bang != NULL ? strchr(bang, '@') : NULL;
		if ((strncmp(admin, "account:", 8) == 0 && admin[8] != '\0') ||
		    (bang != NULL && bang > admin && at != NULL &&
		    at > bang + 1 && at[1] != '\0'))
			return 0;
		return config_fail(err, errlen, "%s: expected \"account:NAME\" "
		    "or a nick!user@host mask", path);
	}
	if (strcmp(type, "matrix") == 0) {
		at = strchr(admin, ':');
		if (admin[0] == '@' && at != NULL && at > admin + 1 &&
		    at[1] != '\0')
			return 0;
		return config_fail(err, errlen, "%s: expected a Matrix user id "
		    "such as \"@alice:example.org\"", path);
	}
	if (*admin == '\0')
		return config_fail(err, errlen, "%s: expected an admin id",
		    path);
	return 0;
}

static void
network_finish(struct config_network *net)
{
	free(net->name);
	free(net->type);
	free(net->path);
	json_decref(net->json);
	for (size_t i = 0; i < net->nadmins; i++)
		free(net->admins[i]);
	free(net->admins);
	channel_finish(&net->defaults);
	for (size_t i = 0; i < net->nchannels; i++)
		channel_finish(&net->channels[i]);
	free(net->channels);
	memset(net, 0, sizeof(*net));
}

/*
 * Adapters that stay out of configuration files: the in-memory medium of
 * the tests and the terminal of `stichbot play` host no real channel, and
 * a service that picked one by a typo would run deaf and mute.  Code and
 * tests still add them with bot_add_adapter().
 */
static const char *const internal_adapters[] = { "memory", "console", NULL };

const struct adapter_impl *
config_adapter_find(const char *type)
{
	for (size_t i = 0; internal_adapters[i] != NULL; i++)
		if (strcmp(internal_adapters[i], type) == 0)
			return NULL;
	return adapter_find(type);
}

/* The names of the adapters a configuration may use, for an unknown type. */
static void
adapter_names(char *out, size_t outlen)
{
	size_t len = 0;
	int n, first = 1;

	snprintf(out, outlen, "none");
	for (size_t i = 0; adapter_registry[i] != NULL && len < outlen; i++) {
		if (config_adapter_find(adapter_registry[i]->name) == NULL)
			continue;
		n = snprintf(out + len, outlen - len, "%s\"%s\"",
		    first ? "" : ", ", adapter_registry[i]->name);
		if (n < 0)
			break;
		len += (size_t)n;
		first = 0;
	}
}

/* Reads one channel entry: a name, or an object with name and settings. */
static int
channel_read(const struct config_network *net, const json_t *item,
    const char *path, struct config_channel *out, char *err, size_t errlen)
{
	char npath[CONFIG_PATH_MAX];
	const char *name;

	if (json_is_string(item)) {
		name = json_string_value(item);
		if (channel_name_check(net->type, name, path, err, errlen) != 0)
			return -1;
		return channel_copy(out, &net->defaults, name, err, errlen);
	}
	if (!json_is_object(item))
		return config_fail(err, errlen, "%s: expected a channel name "
		    "or an object", path);
	if (cfg_keys(item, path, channel_keys, setting_keys, err,
	    errlen) != 0 ||
	    cfg_string(item, path, "name", 1, &name, err, errlen) != 0)
		return -1;
	cfg_path(npath, sizeof(npath), path, "name");
	if (channel_name_check(net->type, name, npath, err, errlen) != 0 ||
	    channel_copy(out, &net->defaults, name, err, errlen) != 0)
		return -1;
	if (settings_read(item, path, out, err, errlen) != 0) {
		channel_finish(out);
		return -1;
	}
	return 0;
}

static int
network_read(const struct config *config, const json_t *obj,
    const char *path, const struct config_channel *base,
    struct config_network *net, char *err, size_t errlen)
{
	char ipath[CONFIG_PATH_MAX], npath[CONFIG_PATH_MAX], names[256];
	const char *name, *type;
	const json_t *admins, *defaults, *channels, *item;
	size_t i;
	int rc;

	if (cfg_object(obj, path, err, errlen) != 0 ||
	    cfg_string(obj, path, "name", 1, &name, err, errlen) != 0)
		return -1;
	cfg_path(npath, sizeof(npath), path, "name");
	if (*name == '\0' || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(name))
		return config_fail(err, errlen, "%s: expected letters, digits, "
		    "'_', '.' or '-'", npath);
	/* The networks before this one are complete. */
	for (i = 0; &config->networks[i] != net; i++)
		if (strcmp(config->networks[i].name, name) == 0)
			return config_fail(err, errlen, "%s: \"%s\" is already "
			    "the name of %s", npath, name,
			    config->networks[i].path);
	if (cfg_string(obj, path, "type", 1, &type, err, errlen) != 0)
		return -1;
	if (config_adapter_find(type) == NULL) {
		adapter_names(names, sizeof(names));
		if (adapter_find(type) != NULL)
			return config_fail(err, errlen, "%s.type: \"%s\" is "
			    "for tests and the terminal only, not for a "
			    "configuration (use one of %s)", path, type,
			    names);
		return config_fail(err, errlen, "%s.type: unknown adapter "
		    "\"%s\" (known: %s)", path, type, names);
	}
	net->name = xstrdup(name);
	net->type = xstrdup(config_adapter_find(type)->name);
	net->path = xstrdup(path);
	if ((net->json = json_deep_copy(obj)) == NULL)
		return config_fail(err, errlen, "out of memory");

	if ((rc = cfg_strings(obj, path, "admins", 0, &admins, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0 && json_array_size(admins) > 0) {
		net->admins = xcalloc(json_array_size(admins),
		    sizeof(*net->admins));
		cfg_path(npath, sizeof(npath), path, "admins");
		json_array_foreach(admins, i, item) {
			cfg_index(ipath, sizeof(ipath), npath, i);
			if (admin_check(net->type, json_string_value(item),
			    ipath, err, errlen) != 0)
				return -1;
			net->admins[i] = xstrdup(json_string_value(item));
			net->nadmins++;
		}
	}

	if (channel_copy(&net->defaults, base, "*", err, errlen) != 0)
		return -1;
	defaults = json_object_get(obj, "defaults");
	if (defaults != NULL) {
		cfg_path(npath, sizeof(npath), path, "defaults");
		if (cfg_keys(defaults, npath, setting_keys, NULL, err,
		    errlen) != 0 ||
		    settings_read(defaults, npath, &net->defaults, err,
		    errlen) != 0)
			return -1;
	}

	channels = json_object_get(obj, "channels");
	if (channels == NULL)
		return 0;
	cfg_path(npath, sizeof(npath), path, "channels");
	if (!json_is_array(channels))
		return config_fail(err, errlen, "%s: expected an array of "
		    "channels", npath);
	if (json_array_size(channels) > 0)
		net->channels = xcalloc(json_array_size(channels),
		    sizeof(*net->channels));
	json_array_foreach(channels, i, item) {
		cfg_index(ipath, sizeof(ipath), npath, i);
		if (channel_read(net, item, ipath, &net->channels[i], err,
		    errlen) != 0)
			return -1;
		net->nchannels++;
		for (size_t j = 0; j < i; j++)
			if (strcasecmp(net->channels[j].name,
			    net->channels[i].name) == 0)
				return config_fail(err, errlen, "%s: \"%s\" is "
				    "listed twice", ipath,
				    net->channels[i].name);
	}
	return 0;
}

/* The store's default path: in the service's state directory if any. */
static char *
store_default(void)
{
	const char *dir = getenv("STATE_DIRECTORY");
	char *path;

	if (dir == NULL || *dir == '\0')
		return xstrdup("./stichbot.db");
	/* Several StateDirectory= entries arrive colon-separated. */
	xasprintf(&path, "%.*s/stichbot.db", (int)strcspn(dir, ":"), dir);
	return path;
}

/* The "computer" object: level, budget_ms and delay_ms. */
static int
computer_read(struct config *config, const json_t *root, char *err,
    size_t errlen)
{
	const json_t *computer;
	const char *s;
	long long n;
	int rc;

	s = "normal";
	config->ai_budget_ms = 100;
	config->computer_delay_ms = 1000;
	computer = json_object_get(root, "computer");
	if (computer != NULL) {
		if (cfg_keys(computer, "computer", computer_keys, NULL, err,
		    errlen) != 0 ||
		    cfg_choice(computer, "computer", "level", computer_levels,
		    0, &s, err, errlen) < 0)
			return -1;
		if ((rc = cfg_int(computer, "computer", "budget_ms", 10, 10000,
		    0, &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->ai_budget_ms = (int)n;
		if ((rc = cfg_int(computer, "computer", "delay_ms", 0, 10000,
		    0, &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->computer_delay_ms = (int)n;
	}
	config->computer_level = xstrdup(s);
	return 0;
}

/* The "user_flood" object: each person's and each network's allowance. */
static int
flood_read(struct config *config, const json_t *root, char *err,
    size_t errlen)
{
	const json_t *flood;
	long long n;
	int rc;

	/* Each person's commands: 10 at once, then one a second. */
	config->user_burst = 10;
	config->user_interval_ms = 1000;
	/* Everything but moves, per network: 10 at once, one per 2 s. */
	config->network_burst = 10;
	config->network_interval_ms = 2000;
	if ((flood = json_object_get(root, "user_flood")) != NULL) {
		if (cfg_keys(flood, "user_flood", user_flood_keys, NULL, err,
		    errlen) != 0)
			return -1;
		if ((rc = cfg_int(flood, "user_flood", "burst", 1, 1000, 0,
		    &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->user_burst = (int)n;
		if ((rc = cfg_int(flood, "user_flood", "interval_ms", 0, 60000,
		    0, &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->user_interval_ms = (int)n;
		if ((rc = cfg_int(flood, "user_flood", "network_burst", 1,
		    10000, 0, &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->network_burst = (int)n;
		if ((rc = cfg_int(flood, "user_flood", "network_interval_ms",
		    0, 60000, 0, &n, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			config->network_interval_ms = (int)n;
	}
	return 0;
}

static int
config_read(struct config *config, const json_t *root, char *err,
    size_t errlen)
{
	struct config_channel base;
	char path[CONFIG_PATH_MAX];
	const json_t *networks, *item;
	const char *s;
	long long n;
	size_t i;
	int rc;

	if (cfg_keys(root, "", top_keys, NULL, err, errlen) != 0)
		return -1;
	if ((rc = cfg_string(root, "", "store", 0, &s, err, errlen)) < 0)
		return -1;
	if (rc == 0 && *s == '\0')
		return config_fail(err, errlen, "store: expected a path");
	config->store_path = rc == 0 ? xstrdup(s) : store_default();
	s = "info";
	if (cfg_choice(root, "", "log_level", log_levels, 0, &s, err,
	    errlen) < 0)
		return -1;
	config->log_level = xstrdup(s);

	if (computer_read(config, root, err, errlen) != 0)
		return -1;
	config->lobby_idle = 1800;
	if ((rc = cfg_int(root, "", "lobby_idle", 60, 86400, 0, &n, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0)
		config->lobby_idle = (int)n;
	config->grace = 60;
	if ((rc = cfg_int(root, "", "grace", 0, 3600, 0, &n, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0)
		config->grace = (int)n;

	if (flood_read(config, root, err, errlen) != 0)
		return -1;

	networks = json_object_get(root, "networks");
	if (networks == NULL)
		return config_fail(err, errlen, "networks: missing");
	if (!json_is_array(networks) || json_array_size(networks) == 0)
		return config_fail(err, errlen, "networks: expected an array "
		    "of at least one network");
	config->networks = xcalloc(json_array_size(networks),
	    sizeof(*config->networks));

	/* The built-in channel settings; borrowed strings, copied below. */
	memset(&base, 0, sizeof(base));
	base.game = (char *)CONFIG_GAME;
	base.lang = (char *)CONFIG_LANG;
	base.prefixes = (char *)CONFIG_PREFIX;
	base.turn_timer = CONFIG_TURN_TIMER;
	if ((base.options = json_array()) == NULL)
		return config_fail(err, errlen, "out of memory");
	rc = 0;
	json_array_foreach(networks, i, item) {
		cfg_index(path, sizeof(path), "networks", i);
		/* Counted first, so network_finish() frees a partial one. */
		config->nnetworks++;
		if (network_read(config, item, path, &base,
		    &config->networks[i], err, errlen) != 0) {
			rc = -1;
			break;
		}
	}
	json_decref(base.options);
	return rc;
}

struct config *
config_parse(const json_t *root, char *err, size_t errlen)
{
	struct config *config;

	if (cfg_object(root, "", err, errlen) != 0)
		return NULL;
	config = xcalloc(1, sizeof(*config));
	if (config_read(config, root, err, errlen) != 0) {
		config_destroy(config);
		return NULL;
	}
	return config;
}

struct config *
config_load(const char *file, char *err, size_t errlen)
{
	struct config *config;
	json_error_t jerr;
	struct stat st;
	json_t *root;
	FILE *fp;
	char reason[512];

	if ((fp = fopen(file, "r")) == NULL) {
		config_fail(err, errlen, "%s: %s", file, strerror(errno));
		return NULL;
	}
	/* A directory opens, and reads as an empty (not JSON) file. */
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		config_fail(err, errlen, "%s: is a directory, not a "
		    "configuration file", file);
		return NULL;
	}
	/* Some editors start a UTF-8 file with a byte-order mark: skipped. */
	{
		unsigned char bom[3];

		if (fread(bom, 1, sizeof(bom), fp) != sizeof(bom) ||
		    memcmp(bom, "\xef\xbb\xbf", sizeof(bom)) != 0)
			rewind(fp);
	}
	/* Duplicate keys are refused: the second one would silently win. */
	root = json_loadf(fp, JSON_REJECT_DUPLICATES, &jerr);
	fclose(fp);
	if (root == NULL) {
		if (jerr.line > 0)
			config_fail(err, errlen, "%s:%d:%d: %s", file,
			    jerr.line, jerr.column, jerr.text);
		else
			config_fail(err, errlen, "%s: %s", file, jerr.text);
		return NULL;
	}
	config = config_parse(root, reason, sizeof(reason));
	json_decref(root);
	if (config == NULL)
		config_fail(err, errlen, "%s: %s", file, reason);
	return config;
}

void
config_destroy(struct config *config)
{
	if (config == NULL)
		return;
	free(config->store_path);
	free(config->log_level);
	free(config->computer_level);
	for (size_t i = 0; i < config->nnetworks; i++)
		network_finish(&config->networks[i]);
	free(config->networks);
	free(config);
}

const struct config_channel *
config_channel_find(const struct config_network *network,
    const char *channel)
{
	for (size_t i = 0; i < network->nchannels; i++)
		if (strcmp(network->channels[i].name, channel) == 0)
			return &network->channels[i];
	/* IRC servers may echo a channel in another case. */
	for (size_t i = 0; i < network->nchannels; i++)
		if (strcasecmp(network->channels[i].name, channel) == 0)
			return &network->channels[i];
	return &network->defaults;
}

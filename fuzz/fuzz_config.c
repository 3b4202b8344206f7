/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes read as the bot's JSON
 * configuration (bot/config.h), and the typed reads of bot/cfg.h on it.
 *
 * config_parse() either refuses with a one-line message or returns a
 * configuration whose every field holds what config.h promises: known
 * levels and languages, numbers in range, unique network names of the
 * allowed characters, adapters that exist, channel settings whose game
 * exists and whose options that game accepts, channel names listed once.
 *
 * The cfg_* functions are called on every key of the document (and on one
 * that is absent): each answers 0, 1 or -1 as cfg.h says, with out set
 * only on 0 and a one-line message on -1.  cfg_secret() reads credential
 * files from a scratch $CREDENTIALS_DIRECTORY made at start-up; what it
 * returns is the file's one line, and no error ever shows a file's content.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "adapter.h"
#include "cfg.h"
#include "config.h"
#include "fuzz_check.h"
#include "game.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Every credential file's content holds this; no error may show it. */
#define MARK "SECRET-MARK"
/* How many keys of the document the cfg_* functions are tried on. */
#define MAX_KEYS 16

/* The credential files and what cfg_secret() must return for each. */
static const struct credential {
	const char *name;
	const char *content;
	size_t len;
	const char *secret;      /* NULL: refused */
} credentials[] = {
	{ "token", MARK "-token\n", sizeof(MARK "-token\n") - 1,
	    MARK "-token" },
	{ "bare", MARK "-bare", sizeof(MARK "-bare") - 1, MARK "-bare" },
	{ "crlf", MARK "-crlf\r\n", sizeof(MARK "-crlf\r\n") - 1,
	    MARK "-crlf" },
	{ "empty", "", 0, NULL },
	{ "newline", "\n", 1, NULL },
	{ "twolines", MARK "-a\n" MARK "-b\n", sizeof(MARK "-a\n" MARK
	    "-b\n") - 1, NULL },
	{ "cr", MARK "-a\r" MARK "-b", sizeof(MARK "-a\r" MARK "-b") - 1,
	    NULL },
	{ "nul", MARK "-a\0" MARK "-b\n", sizeof(MARK "-a\0" MARK "-b\n") - 1,
	    NULL },
};

static char credential_dir[64];

static void
remove_credentials(void)
{
	char file[128];

	for (size_t i = 0; i < sizeof(credentials) / sizeof(credentials[0]);
	    i++) {
		snprintf(file, sizeof(file), "%s/%s", credential_dir,
		    credentials[i].name);
		unlink(file);
	}
	snprintf(file, sizeof(file), "%s/big", credential_dir);
	unlink(file);
	snprintf(file, sizeof(file), "%s/dir", credential_dir);
	rmdir(file);
	rmdir(credential_dir);
}

/*
 * Makes the scratch credential directory; the environment points to it.
 * It is removed at exit (a crash leaves it behind: /tmp/fuzz_config.*).
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char file[128];
	FILE *fp;

	snprintf(credential_dir, sizeof(credential_dir),
	    "/tmp/fuzz_config.XXXXXX");
	CHECK(mkdtemp(credential_dir) != NULL);
	atexit(remove_credentials);
	for (size_t i = 0; i < sizeof(credentials) / sizeof(credentials[0]);
	    i++) {
		snprintf(file, sizeof(file), "%s/%s", credential_dir,
		    credentials[i].name);
		CHECK((fp = fopen(file, "wb")) != NULL);
		CHECK(fwrite(credentials[i].content, 1, credentials[i].len,
		    fp) == credentials[i].len);
		CHECK(fclose(fp) == 0);
	}
	/* One byte more than a secret file may hold. */
	snprintf(file, sizeof(file), "%s/big", credential_dir);
	CHECK((fp = fopen(file, "wb")) != NULL);
	for (int i = 0; i < 65537 / 11 + 1; i++)
		fputs(MARK, fp);
	CHECK(fclose(fp) == 0);
	snprintf(file, sizeof(file), "%s/dir", credential_dir);
	CHECK(mkdir(file, 0700) == 0);
	CHECK(setenv("CREDENTIALS_DIRECTORY", credential_dir, 1) == 0);
	/* The store's default path must not depend on the caller. */
	CHECK(unsetenv("STATE_DIRECTORY") == 0);
	return 0;
}

/* An error message: terminated within its buffer, one line, not empty. */
static void
check_message(const char *err, size_t errlen)
{
	const char *end = memchr(err, '\0', errlen);

	CHECK(end != NULL && end > err);
	for (const char *p = err; p < end; p++)
		CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
}

static int
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

static void
check_channel(const struct config_channel *ch)
{
	static const char *const langs[] = { "en", "ja", NULL };
	const struct game_impl *impl;
	struct game_options options;
	char err[GAME_ERR_LEN];
	size_t i, n;
	json_t *item;

	CHECK(ch->name != NULL && ch->name[0] != '\0');
	CHECK(ch->game != NULL && (impl = game_find(ch->game)) != NULL);
	CHECK(ch->lang != NULL && in_list(langs, ch->lang));
	CHECK(ch->prefixes != NULL);
	n = strlen(ch->prefixes);
	CHECK(n >= 1 && n <= 4);
	/* ASCII punctuation, read without the locale. */
	for (i = 0; i < n; i++)
		CHECK(ch->prefixes[i] > ' ' && ch->prefixes[i] < 0x7f &&
		    strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
		    ch->prefixes[i]) == NULL);
	CHECK(ch->plain == 0 || ch->plain == 1);
	CHECK(ch->turn_timer == 0 || (ch->turn_timer >= 10 &&
	    ch->turn_timer <= 3600));
	/* The options are the channel's game's, and it accepts them. */
	CHECK(json_is_array(ch->options));
	memset(&options, 0, sizeof(options));
	json_array_foreach(ch->options, i, item) {
		CHECK(json_is_string(item));
		CHECK(game_option_set(impl, &options, json_string_value(item),
		    err, sizeof(err)) == 0);
	}
	CHECK(impl->validate_options(&options, 0, err, sizeof(err)) == 0);
}

static void
check_config(const struct config *config)
{
	static const char *const log_levels[] = {
		"error", "warn", "info", "debug", NULL,
	};
	static const char *const levels[] = { "easy", "normal", "hard", NULL };

	CHECK(config->store_path != NULL && config->store_path[0] != '\0');
	CHECK(config->log_level != NULL && in_list(log_levels,
	    config->log_level));
	CHECK(config->computer_level != NULL && in_list(levels,
	    config->computer_level));
	CHECK(config->ai_budget_ms >= 10 && config->ai_budget_ms <= 10000);
	CHECK(config->lobby_idle >= 60 && config->lobby_idle <= 86400);
	CHECK(config->grace >= 0 && config->grace <= 3600);
	CHECK(config->nnetworks >= 1 && config->networks != NULL);
	for (size_t i = 0; i < config->nnetworks; i++) {
		const struct config_network *net = &config->networks[i];

		CHECK(net->name != NULL && net->name[0] != '\0');
		CHECK(strspn(net->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_.-") ==
		    strlen(net->name));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(config->networks[j].name, net->name) != 0);
		CHECK(net->type != NULL && adapter_find(net->type) != NULL);
		CHECK(net->path != NULL);
		CHECK(json_is_object(net->json));
		CHECK(net->nadmins == 0 || net->admins != NULL);
		for (size_t j = 0; j < net->nadmins; j++)
			CHECK(net->admins[j] != NULL &&
			    net->admins[j][0] != '\0');
		check_channel(&net->defaults);
		CHECK(net->nchannels == 0 || net->channels != NULL);
		for (size_t j = 0; j < net->nchannels; j++) {
			const struct config_channel *ch = &net->channels[j];

			check_channel(ch);
			for (size_t k = 0; k < j; k++)
				CHECK(strcasecmp(net->channels[k].name,
				    ch->name) != 0);
			CHECK(config_channel_find(net, ch->name) == ch);
		}
		/* A name no channel can have: spaces are refused. */
		CHECK(config_channel_find(net, "not listed") ==
		    &net->defaults);
	}
}

/* The credential named name, or NULL. */
static const struct credential *
credential_find(const char *name)
{
	for (size_t i = 0; i < sizeof(credentials) / sizeof(credentials[0]);
	    i++)
		if (strcmp(credentials[i].name, name) == 0)
			return &credentials[i];
	return NULL;
}

static void
check_secret(const json_t *root, const char *key)
{
	const json_t *v = json_object_get(root, key);
	const struct credential *cred;
	char err[512], *secret = NULL;
	int rc;

	/* Absolute paths would read the machine's files: names only. */
	if (json_is_string(v) && json_string_value(v)[0] == '/')
		return;
	memset(err, 'x', sizeof(err));
	rc = cfg_secret(root, "networks[0]", key, 1, &secret, err,
	    sizeof(err));
	CHECK(rc == 0 || rc == -1);
	if (rc != 0) {
		CHECK(secret == NULL);
		check_message(err, sizeof(err));
		/*
		 * The message names the key, which may hold the mark, but
		 * never the credential name: that may be a secret typed in
		 * the wrong place.
		 */
		if (strstr(key, MARK) == NULL)
			CHECK(strstr(err, MARK) == NULL);
		return;
	}
	/* Only our files hold anything, and a good one gives its line. */
	CHECK(json_is_string(v));
	cred = credential_find(json_string_value(v));
	CHECK(cred != NULL && cred->secret != NULL);
	CHECK(secret != NULL && strcmp(secret, cred->secret) == 0);
	cfg_secret_free(secret);
}

/* Calls every typed read of cfg.h on key of root. */
static void
check_cfg_key(const json_t *root, const char *path, const char *key)
{
	static const char *const choices[] = { "en", "ja", NULL };
	static const long long ranges[][2] = {
		{ 0, 0 }, { 1, 65535 }, { -5, 5 }, { LLONG_MIN, LLONG_MAX },
	};
	const json_t *v = json_object_get(root, key), *list;
	const char *s;
	char err[256];
	long long n;
	int rc, b;

	for (int required = 0; required <= 1; required++) {
		s = NULL;
		memset(err, 'x', sizeof(err));
		rc = cfg_string(root, path, key, required, &s, err,
		    sizeof(err));
		CHECK(rc == (json_is_string(v) ? 0 : v == NULL && !required ?
		    1 : -1));
		CHECK(rc == 0 ? s == json_string_value(v) : s == NULL);
		if (rc < 0)
			check_message(err, sizeof(err));

		s = NULL;
		memset(err, 'x', sizeof(err));
		rc = cfg_choice(root, path, key, choices, required, &s, err,
		    sizeof(err));
		CHECK(rc == (json_is_string(v) && in_list(choices,
		    json_string_value(v)) ? 0 : v == NULL && !required ? 1 :
		    -1));
		CHECK(rc == 0 ? s == json_string_value(v) : s == NULL);
		if (rc < 0)
			check_message(err, sizeof(err));

		for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]);
		    i++) {
			int ok = json_is_integer(v) &&
			    json_integer_value(v) >= ranges[i][0] &&
			    json_integer_value(v) <= ranges[i][1];

			n = 42;
			memset(err, 'x', sizeof(err));
			rc = cfg_int(root, path, key, ranges[i][0],
			    ranges[i][1], required, &n, err, sizeof(err));
			CHECK(rc == (ok ? 0 : v == NULL && !required ? 1 :
			    -1));
			CHECK(rc == 0 ? n == json_integer_value(v) : n == 42);
			if (rc < 0)
				check_message(err, sizeof(err));
		}

		b = 42;
		memset(err, 'x', sizeof(err));
		rc = cfg_bool(root, path, key, required, &b, err, sizeof(err));
		CHECK(rc == (json_is_boolean(v) ? 0 : v == NULL && !required ?
		    1 : -1));
		CHECK(rc == 0 ? b == json_is_true(v) : b == 42);
		if (rc < 0)
			check_message(err, sizeof(err));

		list = NULL;
		memset(err, 'x', sizeof(err));
		rc = cfg_strings(root, path, key, required, &list, err,
		    sizeof(err));
		if (rc == 0) {
			size_t i;
			json_t *item;

			CHECK(list == v && json_is_array(v));
			json_array_foreach(v, i, item)
				CHECK(json_is_string(item));
		} else {
			CHECK(list == NULL);
			CHECK(rc == (v == NULL && !required ? 1 : -1));
		}
		if (rc < 0)
			check_message(err, sizeof(err));
	}
	check_secret(root, key);
}

static void
check_cfg(const json_t *root)
{
	static const char *const known[] = { "store", "networks", NULL };
	static const char *const known2[] = { "name", "type", NULL };
	const char *key;
	json_t *value;
	char err[256], out[64];
	int expect = 0, count = 0;

	memset(err, 'x', sizeof(err));
	if (cfg_object(root, "networks[0]", err, sizeof(err)) != 0) {
		CHECK(!json_is_object(root));
		check_message(err, sizeof(err));
		return;
	}
	json_object_foreach((json_t *)root, key, value) {
		if (strncmp(key, "//", 2) != 0 && !in_list(known, key) &&
		    !in_list(known2, key))
			expect = -1;
		if (count++ < MAX_KEYS) {
			check_cfg_key(root, "", key);
			check_cfg_key(root, "networks[1]", key);
		}
	}
	memset(err, 'x', sizeof(err));
	CHECK(cfg_keys(root, "", known, known2, err, sizeof(err)) == expect);
	if (expect < 0)
		check_message(err, sizeof(err));
	check_cfg_key(root, "", "absent-key");
	/* Paths are cut to the buffer, never past it. */
	json_object_foreach((json_t *)root, key, value) {
		memset(out, 'x', sizeof(out));
		cfg_path(out, sizeof(out), "networks[1]", key);
		CHECK(memchr(out, '\0', sizeof(out)) != NULL);
		cfg_index(out, sizeof(out), key, SIZE_MAX);
		CHECK(memchr(out, '\0', sizeof(out)) != NULL);
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *config;
	json_error_t error;
	json_t *root;
	char err[512];

	/* As config_load() reads a file. */
	root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
	    &error);
	if (root == NULL)
		return 0;
	memset(err, 'x', sizeof(err));
	config = config_parse(root, err, sizeof(err));
	if (config == NULL)
		check_message(err, sizeof(err));
	else
		check_config(config);
	config_destroy(config);
	check_cfg(root);
	json_decref(root);
	return 0;
}

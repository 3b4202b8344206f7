/*
 * test_config.c - the configuration: cfg.c's typed reads and config.c's
 * schema.  Every kind of error is checked with its exact message (a
 * message is what the person fixing the file reads), defaults are checked
 * to be filled, and secrets are read from absolute paths and from
 * $CREDENTIALS_DIRECTORY without their content ever reaching an error.
 *
 * The test brings its own adapter registry: adapters named like the real
 * ones whose init() checks its keys the way every adapter must, so the
 * schema is tested without the real adapters (which connect to servers).
 * Defining adapter_registry and adapter_find here keeps the linker from
 * taking adapters/registry.c out of the bot library.
 *
 * A reload is all or nothing: bot_configure() with a file that fails on
 * its last network (an init() that fails, a type that changes) leaves
 * the networks, channels, admins and settings as they were.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapter.h"
#include "bot.h"
#include "cfg.h"
#include "config.h"
#include "bot_test.h"
#include "loop.h"
#include "store.h"

/* The last network n1 fake_init() set up, to speak to the bot through. */
static struct adapter *fake_n1;

/* A fake adapter's init(): knows "host" and a password file. */
static int
fake_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	static const char *const keys[] = { "host", "password_file", NULL };
	const char *host = NULL;
	char *password = NULL;

	if (adapter->network != NULL && strcmp(adapter->network, "n1") == 0)
		fake_n1 = adapter;
	if (cfg_keys(config, path, config_network_keys, keys, err,
	    errlen) != 0 ||
	    cfg_string(config, path, "host", 0, &host, err, errlen) < 0 ||
	    cfg_secret(config, path, "password_file", 0, &password, err,
	    errlen) < 0)
		return -1;
	cfg_secret_free(password);
	/* What a real adapter's init() may still refuse, e.g. a bad URL. */
	if (host != NULL && strcmp(host, "fail") == 0) {
		snprintf(err, errlen, "%s.host: refused", path);
		return -1;
	}
	return 0;
}

static void
fake_finish(struct adapter *adapter)
{
	(void)adapter;
}

/* What the fake adapters were asked to do, for the reload test. */
static char fake_done[1024];

static void
fake_note(const char *what, const struct adapter *adapter,
    const char *channel)
{
	size_t len = strlen(fake_done);

	snprintf(fake_done + len, sizeof(fake_done) - len, "%s %s %s\n",
	    what, adapter->network, channel);
}

static int
fake_start(struct adapter *adapter)
{
	fake_note("start", adapter, "-");
	return 0;
}

static void
fake_stop(struct adapter *adapter, const char *goodbye)
{
	(void)adapter;
	(void)goodbye;
}

static int
fake_join(struct adapter *adapter, const char *channel)
{
	fake_note("join", adapter, channel);
	return 0;
}

static int
fake_part(struct adapter *adapter, const char *channel)
{
	fake_note("part", adapter, channel);
	return 0;
}

/* What the bot says is dropped: the tests read the bot's state. */
static int
fake_send(struct adapter *adapter, const char *target,
    const struct text *text, const struct send_info *info)
{
	return 0;
}

static const struct adapter_impl fake_irc = {
	.name = "irc", .init = fake_init, .finish = fake_finish,
	.start = fake_start, .stop = fake_stop, .join = fake_join,
	.part = fake_part, .send_channel = fake_send,
	.send_private = fake_send,
};
static const struct adapter_impl fake_matrix = {
	.name = "matrix", .init = fake_init, .finish = fake_finish,
	.start = fake_start, .stop = fake_stop, .join = fake_join,
	.part = fake_part,
};
static const struct adapter_impl fake_memory = {
	.name = "memory", .init = fake_init, .finish = fake_finish,
};

const struct adapter_impl *const adapter_registry[] = {
	&fake_irc, &fake_matrix, &fake_memory, NULL,
};

const struct adapter_impl *
adapter_find(const char *name)
{
	for (size_t i = 0; adapter_registry[i] != NULL; i++)
		if (strcmp(adapter_registry[i]->name, name) == 0)
			return adapter_registry[i];
	return NULL;
}

/* A scratch directory for files, removed by the teardown. */
static char tmpdir[64];

static int
setup_dir(void **unused)
{
	(void)unused;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_config.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown_dir(void **unused)
{
	char cmd[128];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes content to tmpdir/name; returns the path (static buffer). */
static const char *
write_file(const char *name, const char *content)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(content, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	return path;
}

static json_t *
parse_json(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

	if (root == NULL)
		fail_msg("bad test JSON: %s: %s", jerr.text, text);
	return root;
}

/* Parses text, which must be accepted. */
static struct config *
parse_ok(const char *text)
{
	json_t *root = parse_json(text);
	char err[512] = "";
	struct config *config = config_parse(root, err, sizeof(err));

	if (config == NULL)
		fail_msg("refused: %s", err);
	json_decref(root);
	return config;
}

/* Parses text, which must be refused with exactly message. */
static void
parse_fails(const char *text, const char *message)
{
	json_t *root = parse_json(text);
	char err[512] = "";
	struct config *config = config_parse(root, err, sizeof(err));

	if (config != NULL) {
		config_destroy(config);
		fail_msg("accepted: %s", text);
	}
	assert_string_equal(err, message);
	json_decref(root);
}

/* A network with the common keys only, followed by extra members. */
#define NET(extra) "{\"networks\": [{\"name\": \"libera\", " \
	"\"type\": \"irc\"" extra "}]}"

/* Runs the network's fake adapter init(), as check-config does. */
static int
adapter_check(const struct config_network *net, char *err, size_t errlen)
{
	struct adapter adapter;
	int rc;

	memset(&adapter, 0, sizeof(adapter));
	adapter.impl = adapter_find(net->type);
	rc = adapter.impl->init(&adapter, net->json, net->path, err, errlen);
	adapter.impl->finish(&adapter);
	return rc;
}

static void
test_cfg_paths(void **unused)
{
	char buf[64];

	(void)unused;
	cfg_path(buf, sizeof(buf), "", "store");
	assert_string_equal(buf, "store");
	cfg_path(buf, sizeof(buf), "networks[1]", "port");
	assert_string_equal(buf, "networks[1].port");
	cfg_index(buf, sizeof(buf), "networks", 3);
	assert_string_equal(buf, "networks[3]");
	cfg_index(buf, sizeof(buf), "networks[0].channels", 12);
	assert_string_equal(buf, "networks[0].channels[12]");
}

static void
test_cfg_reads(void **unused)
{
	json_t *obj = parse_json("{\"s\": \"x\", \"n\": 7, \"b\": false, "
	    "\"a\": [\"p\", \"q\"], \"bad\": [1], \"real\": 7.0, "
	    "\"lang\": \"de\"}");
	static const char *const langs[] = { "en", "ja", NULL };
	static const char *const known[] = { "s", "n", "b", NULL };
	static const char *const known2[] = { "a", "bad", "real", "lang",
	    NULL };
	const json_t *arr;
	const char *s = "untouched";
	long long n = -1;
	int b = -1;
	char err[256];

	(void)unused;
	assert_int_equal(cfg_keys(obj, "x", known, known2, err, sizeof(err)),
	    0);
	assert_int_equal(cfg_keys(obj, "x", known, NULL, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "x.a: unknown key");
	assert_int_equal(cfg_keys(obj, "", known, NULL, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "a: unknown key");
	/* Keys starting with "//" are comments. */
	json_decref(obj);
	obj = parse_json("{\"//\": \"c\", \"//s\": 1, \"s\": \"x\", "
	    "\"/s\": 2}");
	assert_int_equal(cfg_keys(obj, "x", known, NULL, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "x./s: unknown key");
	json_decref(obj);
	obj = parse_json("{\"s\": \"x\", \"n\": 7, \"b\": false, "
	    "\"a\": [\"p\", \"q\"], \"bad\": [1], \"real\": 7.0, "
	    "\"lang\": \"de\"}");

	assert_int_equal(cfg_string(obj, "p", "s", 1, &s, err, sizeof(err)),
	    0);
	assert_string_equal(s, "x");
	assert_int_equal(cfg_string(obj, "p", "none", 0, &s, err,
	    sizeof(err)), 1);
	assert_string_equal(s, "x");
	assert_int_equal(cfg_string(obj, "p", "none", 1, &s, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "p.none: missing");
	assert_int_equal(cfg_string(obj, "p", "n", 1, &s, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "p.n: expected a string");

	assert_int_equal(cfg_int(obj, "p", "n", 1, 65535, 1, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 7);
	assert_int_equal(cfg_int(obj, "networks[1]", "n", 10, 65535, 1, &n,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "networks[1].n: expected an integer 10-65535");
	assert_int_equal(cfg_int(obj, "p", "real", 1, 10, 1, &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "p.real: expected an integer 1-10");
	assert_int_equal(cfg_int(obj, "p", "s", 1, 10, 1, &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "p.s: expected an integer 1-10");
	assert_int_equal(cfg_int(obj, "p", "none", 1, 10, 0, &n, err,
	    sizeof(err)), 1);

	assert_int_equal(cfg_bool(obj, "p", "b", 1, &b, err, sizeof(err)), 0);
	assert_int_equal(b, 0);
	assert_int_equal(cfg_bool(obj, "p", "n", 1, &b, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "p.n: expected true or false");

	assert_int_equal(cfg_strings(obj, "p", "a", 1, &arr, err,
	    sizeof(err)), 0);
	assert_int_equal(json_array_size(arr), 2);
	assert_int_equal(cfg_strings(obj, "p", "bad", 1, &arr, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "p.bad: expected an array of strings");
	assert_int_equal(cfg_strings(obj, "p", "s", 1, &arr, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "p.s: expected an array of strings");

	assert_int_equal(cfg_choice(obj, "networks[0].channels[2]", "lang",
	    langs, 1, &s, err, sizeof(err)), -1);
	assert_string_equal(err,
	    "networks[0].channels[2].lang: expected one of \"en\", \"ja\"");
	assert_int_equal(cfg_choice(obj, "p", "none", langs, 0, &s, err,
	    sizeof(err)), 1);

	assert_int_equal(cfg_object(obj, "p", err, sizeof(err)), 0);
	assert_int_equal(cfg_object(arr, "networks[1]", err, sizeof(err)),
	    -1);
	assert_string_equal(err, "networks[1]: expected an object");
	json_decref(obj);
}

/* A key from the file with a line break cannot split an error line. */
static void
test_cfg_clean_messages(void **unused)
{
	json_t *obj = parse_json("{\"a\\nERROR fake\": 1}");
	static const char *const known[] = { NULL };
	char err[256];

	(void)unused;
	assert_int_equal(cfg_keys(obj, "p", known, NULL, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "p.a?ERROR fake: unknown key");
	json_decref(obj);
}

static void
test_secret_absolute(void **unused)
{
	char text[512], err[256], *secret = NULL;
	const char *path;
	json_t *obj;

	(void)unused;
	path = write_file("pw", "hunter2\n");
	snprintf(text, sizeof(text), "{\"password_file\": \"%s\"}", path);
	obj = parse_json(text);
	assert_int_equal(cfg_secret(obj, "networks[0]", "password_file", 1,
	    &secret, err, sizeof(err)), 0);
	assert_string_equal(secret, "hunter2");
	cfg_secret_free(secret);
	/* Only one trailing newline is the end of the line. */
	write_file("pw", "a b\r\n");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), 0);
	assert_string_equal(secret, "a b");
	cfg_secret_free(secret);
	write_file("pw", "nonl");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), 0);
	assert_string_equal(secret, "nonl");
	cfg_secret_free(secret);
	cfg_secret_free(NULL);
	json_decref(obj);
}

static void
test_secret_credentials(void **unused)
{
	char dir[128], expect[512], err[512], *secret = NULL;
	json_t *obj = parse_json("{\"password_file\": \"libera-pw\"}");

	(void)unused;
	snprintf(dir, sizeof(dir), "%s/creds", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_file("creds/libera-pw", "s3cret\n");
	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	assert_int_equal(cfg_secret(obj, "networks[0]", "password_file", 1,
	    &secret, err, sizeof(err)), 0);
	assert_string_equal(secret, "s3cret");
	cfg_secret_free(secret);

	/*
	 * A missing credential names the directory it looked in, not the
	 * name, which might be a secret typed in the wrong place.
	 */
	json_decref(obj);
	obj = parse_json("{\"password_file\": \"other\"}");
	assert_int_equal(cfg_secret(obj, "networks[0]", "password_file", 1,
	    &secret, err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "networks[0].password_file: cannot "
	    "read the credential it names in %s: No such file or directory",
	    dir);
	assert_string_equal(err, expect);
	assert_null(strstr(err, "other"));

	unsetenv("CREDENTIALS_DIRECTORY");
	assert_int_equal(cfg_secret(obj, "networks[0]", "password_file", 1,
	    &secret, err, sizeof(err)), -1);
	assert_string_equal(err, "networks[0].password_file: a "
	    "credential name, but CREDENTIALS_DIRECTORY is not set (give an "
	    "absolute path, or LoadCredential= in the service)");
	json_decref(obj);
}

static void
test_secret_errors(void **unused)
{
	char text[512], expect[512], err[512], *secret = NULL, *big;
	const char *path;
	json_t *obj;
	FILE *fp;

	(void)unused;
	obj = parse_json("{}");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 0, &secret,
	    err, sizeof(err)), 1);
	assert_null(secret);
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "n.password_file: missing");
	json_decref(obj);

	obj = parse_json("{\"password_file\": \"dir/pw\"}");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "n.password_file: expected an absolute path "
	    "or a credential name without '/'");
	json_decref(obj);

	obj = parse_json("{\"password_file\": 5}");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "n.password_file: expected a string");
	json_decref(obj);

	/* Empty, or only the newline. */
	path = write_file("empty", "\n");
	snprintf(text, sizeof(text), "{\"password_file\": \"%s\"}", path);
	obj = parse_json(text);
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "n.password_file: %s is empty", path);
	assert_string_equal(err, expect);

	/* Two lines: the content must not appear in the error. */
	write_file("empty", "topsecret\nmore\n");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "n.password_file: %s holds more "
	    "than one line; it must hold the secret as one line", path);
	assert_string_equal(err, expect);
	assert_null(strstr(err, "topsecret"));
	assert_null(secret);

	/* A CR inside, or ending the file alone, is named as such. */
	snprintf(expect, sizeof(expect), "n.password_file: %s holds a "
	    "carriage return (CR) that does not end its line; it must hold "
	    "the secret as one line", path);
	write_file("empty", "top\rsecret\n");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, expect);
	write_file("empty", "topsecret\r");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, expect);
	assert_null(secret);
	/* A NUL byte. */
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite("top\0secret\n", 1, 11, fp), 11);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "n.password_file: %s holds a NUL "
	    "byte; it must hold the secret as one line", path);
	assert_string_equal(err, expect);
	/* CRLF ends the line, as LF does. */
	write_file("empty", "topsecret\r\n");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), 0);
	assert_string_equal(secret, "topsecret");
	cfg_secret_free(secret);
	secret = NULL;
	json_decref(obj);

	/* Too large to be a password. */
	big = malloc(70000);
	assert_non_null(big);
	memset(big, 'x', 69999);
	big[69999] = '\0';
	path = write_file("big", big);
	free(big);
	snprintf(text, sizeof(text), "{\"password_file\": \"%s\"}", path);
	obj = parse_json(text);
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "n.password_file: %s is larger than "
	    "65536 bytes", path);
	assert_string_equal(err, expect);
	json_decref(obj);

	/* Not a regular file. */
	snprintf(text, sizeof(text), "{\"password_file\": \"%s\"}", tmpdir);
	obj = parse_json(text);
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "n.password_file: cannot read %s: "
	    "Is a directory", tmpdir);
	assert_string_equal(err, expect);
	json_decref(obj);
	obj = parse_json("{\"password_file\": \"/dev/null\"}");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "n.password_file: /dev/null is not a regular "
	    "file");
	json_decref(obj);

	obj = parse_json("{\"password_file\": \"/nonexistent/pw\"}");
	assert_int_equal(cfg_secret(obj, "n", "password_file", 1, &secret,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "n.password_file: cannot read "
	    "/nonexistent/pw: No such file or directory");
	json_decref(obj);
}

static void
test_defaults_filled(void **unused)
{
	struct config *config;
	const struct config_network *net;

	(void)unused;
	unsetenv("STATE_DIRECTORY");
	config = parse_ok(NET(""));
	assert_string_equal(config->store_path, "./stichbot.db");
	assert_string_equal(config->log_level, "info");
	assert_string_equal(config->computer_level, "normal");
	assert_int_equal(config->ai_budget_ms, 100);
	assert_int_equal(config->computer_delay_ms, 1000);
	assert_int_equal(config->lobby_idle, 1800);
	assert_int_equal(config->grace, 60);
	assert_int_equal(config->user_burst, 10);
	assert_int_equal(config->user_interval_ms, 1000);
	assert_int_equal(config->nnetworks, 1);
	net = &config->networks[0];
	assert_string_equal(net->name, "libera");
	assert_string_equal(net->type, "irc");
	assert_string_equal(net->path, "networks[0]");
	assert_non_null(net->json);
	assert_int_equal(net->nadmins, 0);
	assert_int_equal(net->nchannels, 0);
	assert_string_equal(net->defaults.game, "wizard");
	assert_string_equal(net->defaults.lang, "en");
	assert_string_equal(net->defaults.prefixes, "!/");
	assert_int_equal(net->defaults.plain, 0);
	assert_int_equal(net->defaults.turn_timer, 120);
	assert_int_equal(json_array_size(net->defaults.options), 0);
	config_destroy(config);
	config_destroy(NULL);

	/* Under systemd, the first state directory. */
	setenv("STATE_DIRECTORY", "/var/lib/stichbot:/var/lib/other", 1);
	config = parse_ok(NET(""));
	assert_string_equal(config->store_path, "/var/lib/stichbot/stichbot.db");
	config_destroy(config);
	unsetenv("STATE_DIRECTORY");
}

static void
test_everything_set(void **unused)
{
	struct config *config;
	const struct config_network *net;
	const struct config_channel *ch;

	(void)unused;
	config = parse_ok("{\"store\": \"/srv/s.db\", \"log_level\": \"debug\","
	    " \"computer\": {\"level\": \"hard\", \"budget_ms\": 250},"
	    " \"lobby_idle\": 600, \"grace\": 0,"
	    " \"user_flood\": {\"burst\": 3, \"interval_ms\": 0},"
	    " \"networks\": ["
	    "{\"name\": \"libera\", \"type\": \"irc\", \"host\": \"h\","
	    " \"admins\": [\"account:alice\", \"bob!*@*.example.org\"],"
	    " \"defaults\": {\"lang\": \"ja\", \"options\": [\"notequal\"],"
	    "  \"prefix\": \"!.\", \"turn_timer\": 0},"
	    " \"channels\": [\"#wizard\", {\"name\": \"#sticheln\","
	    "  \"game\": \"sticheln\", \"formatting\": false},"
	    "  {\"name\": \"#quick\", \"options\": [\"quick\", \"rounds=3\"],"
	    "   \"lang\": \"en\", \"turn_timer\": 3600}]},"
	    "{\"name\": \"matrix.org\", \"type\": \"matrix\","
	    " \"admins\": [\"@carol:matrix.org\"],"
	    " \"channels\": [\"!abc:matrix.org\", \"#cards:matrix.org\"]}]}");
	assert_string_equal(config->store_path, "/srv/s.db");
	assert_string_equal(config->log_level, "debug");
	assert_string_equal(config->computer_level, "hard");
	assert_int_equal(config->ai_budget_ms, 250);
	assert_int_equal(config->lobby_idle, 600);
	assert_int_equal(config->grace, 0);
	assert_int_equal(config->user_burst, 3);
	assert_int_equal(config->user_interval_ms, 0);
	assert_int_equal(config->nnetworks, 2);
	net = &config->networks[0];
	assert_int_equal(net->nadmins, 2);
	assert_string_equal(net->admins[1], "bob!*@*.example.org");
	assert_int_equal(net->nchannels, 3);

	/* A string channel: exactly the network's defaults. */
	ch = &net->channels[0];
	assert_string_equal(ch->name, "#wizard");
	assert_string_equal(ch->game, "wizard");
	assert_string_equal(ch->lang, "ja");
	assert_string_equal(ch->prefixes, "!.");
	assert_int_equal(ch->turn_timer, 0);
	assert_int_equal(json_array_size(ch->options), 1);
	assert_string_equal(json_string_value(json_array_get(ch->options, 0)),
	    "notequal");

	/* Another game: the defaults' Wizard options do not follow. */
	ch = &net->channels[1];
	assert_string_equal(ch->game, "sticheln");
	assert_string_equal(ch->lang, "ja");
	assert_int_equal(ch->plain, 1);
	assert_int_equal(json_array_size(ch->options), 0);

	/* Own options replace the defaults' ones. */
	ch = &net->channels[2];
	assert_string_equal(ch->lang, "en");
	assert_int_equal(ch->turn_timer, 3600);
	assert_int_equal(json_array_size(ch->options), 2);

	net = &config->networks[1];
	assert_string_equal(net->type, "matrix");
	assert_string_equal(net->path, "networks[1]");
	assert_string_equal(net->admins[0], "@carol:matrix.org");
	assert_int_equal(net->nchannels, 2);
	assert_string_equal(net->defaults.lang, "en");
	config_destroy(config);
}

/* Comments ("//" keys) are allowed in every object of the schema. */
static void
test_comments(void **unused)
{
	struct config *config;
	char err[512];

	(void)unused;
	config = parse_ok("{\"//\": \"top\", \"computer\": {\"//\": 1},"
	    " \"networks\": [{\"//\": \"net\", \"name\": \"n\","
	    " \"type\": \"irc\", \"defaults\": {\"//lang\": \"x\"},"
	    " \"channels\": [{\"//\": \"ch\", \"name\": \"#a\"}]}]}");
	assert_int_equal(config->networks[0].nchannels, 1);
	/* The adapter's cfg_keys() lets them pass too. */
	assert_int_equal(adapter_check(&config->networks[0], err,
	    sizeof(err)), 0);
	config_destroy(config);
}

static void
test_channel_find(void **unused)
{
	struct config *config;
	const struct config_network *net;

	(void)unused;
	config = parse_ok(NET(", \"defaults\": {\"game\": \"birdhead\"},"
	    " \"channels\": [\"#Wizard\", {\"name\": \"#wizard2\","
	    " \"lang\": \"ja\"}]"));
	net = &config->networks[0];
	assert_ptr_equal(config_channel_find(net, "#Wizard"),
	    &net->channels[0]);
	/* IRC channel names are case-insensitive. */
	assert_ptr_equal(config_channel_find(net, "#wizard"),
	    &net->channels[0]);
	assert_string_equal(config_channel_find(net, "#WIZARD2")->lang, "ja");
	assert_string_equal(config_channel_find(net, "#WIZARD2")->game,
	    "birdhead");
	assert_ptr_equal(config_channel_find(net, "#elsewhere"),
	    &net->defaults);
	assert_string_equal(config_channel_find(net, "#elsewhere")->game,
	    "birdhead");
	config_destroy(config);
}

static void
test_top_level_errors(void **unused)
{
	(void)unused;
	parse_fails("[]", "top level: expected an object");
	parse_fails("{}", "networks: missing");
	parse_fails("{\"networks\": []}",
	    "networks: expected an array of at least one network");
	parse_fails("{\"networks\": {}}",
	    "networks: expected an array of at least one network");
	parse_fails("{\"prot\": 1, \"networks\": []}", "prot: unknown key");
	parse_fails("{\"store\": 1}", "store: expected a string");
	parse_fails("{\"store\": \"\"}", "store: expected a path");
	parse_fails("{\"log_level\": \"verbose\"}", "log_level: expected one "
	    "of \"error\", \"warn\", \"info\", \"debug\"");
	parse_fails("{\"computer\": 3}", "computer: expected an object");
	parse_fails("{\"computer\": {\"levle\": \"easy\"}}",
	    "computer.levle: unknown key");
	parse_fails("{\"computer\": {\"level\": \"expert\"}}",
	    "computer.level: expected one of \"easy\", \"normal\", \"hard\"");
	parse_fails("{\"computer\": {\"budget_ms\": 5}}",
	    "computer.budget_ms: expected an integer 10-10000");
	parse_fails("{\"computer\": {\"delay_ms\": -1}}",
	    "computer.delay_ms: expected an integer 0-10000");
	parse_fails("{\"lobby_idle\": \"1800\"}",
	    "lobby_idle: expected an integer 60-86400");
	parse_fails("{\"lobby_idle\": 59}",
	    "lobby_idle: expected an integer 60-86400");
	parse_fails("{\"grace\": 3601}", "grace: expected an integer 0-3600");
	parse_fails("{\"user_flood\": {\"burst\": 0}}",
	    "user_flood.burst: expected an integer 1-1000");
	parse_fails("{\"user_flood\": {\"interval_ms\": 60001}}",
	    "user_flood.interval_ms: expected an integer 0-60000");
	parse_fails("{\"user_flood\": {\"rate\": 1}}",
	    "user_flood.rate: unknown key");
	parse_fails("{\"user_flood\": 5}", "user_flood: expected an object");
	parse_fails("{\"networks\": [3]}", "networks[0]: expected an object");
}

static void
test_network_errors(void **unused)
{
	(void)unused;
	parse_fails("{\"networks\": [{\"type\": \"irc\"}]}",
	    "networks[0].name: missing");
	parse_fails("{\"networks\": [{\"name\": \"a b\", \"type\": \"irc\"}]}",
	    "networks[0].name: expected letters, digits, '_', '.' or '-'");
	parse_fails("{\"networks\": [{\"name\": \"\", \"type\": \"irc\"}]}",
	    "networks[0].name: expected letters, digits, '_', '.' or '-'");
	parse_fails("{\"networks\": [{\"name\": \"a\"}]}",
	    "networks[0].type: missing");
	parse_fails("{\"networks\": [{\"name\": \"a\", \"type\": \"irc\"}, "
	    "{\"name\": \"b\", \"type\": \"irx\"}]}",
	    "networks[1].type: unknown adapter \"irx\" (known: \"irc\", "
	    "\"matrix\")");
	/* The test adapters exist, for code, but not for files. */
	parse_fails("{\"networks\": [{\"name\": \"a\", \"type\": \"irc\"}, "
	    "{\"name\": \"b\", \"type\": \"memory\"}]}",
	    "networks[1].type: \"memory\" is for tests and the terminal "
	    "only, not for a configuration (use one of \"irc\", \"matrix\")");
	assert_non_null(adapter_find("memory"));
	assert_null(config_adapter_find("memory"));
	assert_null(config_adapter_find("console"));
	assert_ptr_equal(config_adapter_find("irc"), &fake_irc);
	parse_fails("{\"networks\": [{\"name\": \"a\", \"type\": \"irc\"}, "
	    "{\"name\": \"b\", \"type\": \"irc\"}, "
	    "{\"name\": \"a\", \"type\": \"matrix\"}]}",
	    "networks[2].name: \"a\" is already the name of networks[0]");
	parse_fails(NET(", \"admins\": \"alice\""),
	    "networks[0].admins: expected an array of strings");
	parse_fails(NET(", \"admins\": [\"account:a\", \"alice\"]"),
	    "networks[0].admins[1]: expected \"account:NAME\" or a "
	    "nick!user@host mask");
	parse_fails(NET(", \"admins\": [\"account:\"]"),
	    "networks[0].admins[0]: expected \"account:NAME\" or a "
	    "nick!user@host mask");
	parse_fails("{\"networks\": [{\"name\": \"m\", \"type\": \"matrix\","
	    " \"admins\": [\"alice\"]}]}", "networks[0].admins[0]: expected a "
	    "Matrix user id such as \"@alice:example.org\"");
	parse_fails(NET(", \"admins\": [\"a b!c@d\"]"),
	    "networks[0].admins[0]: expected an admin without spaces");
	parse_fails(NET(", \"channels\": \"#a\""),
	    "networks[0].channels: expected an array of channels");
	parse_fails(NET(", \"channels\": [\"#a\", 5]"),
	    "networks[0].channels[1]: expected a channel name or an object");
	parse_fails(NET(", \"channels\": [\"#a\", \"wizard\"]"),
	    "networks[0].channels[1]: expected an IRC channel name such as "
	    "\"#wizard\"");
	parse_fails(NET(", \"channels\": [\"#a b\"]"),
	    "networks[0].channels[0]: expected a channel name without spaces");
	parse_fails(NET(", \"channels\": [\"#a\", \"#b\", \"#A\"]"),
	    "networks[0].channels[2]: \"#A\" is listed twice");
	parse_fails("{\"networks\": [{\"name\": \"m\", \"type\": \"matrix\","
	    " \"channels\": [\"#room\"]}]}", "networks[0].channels[0]: expected "
	    "a Matrix room id (\"!id:server\") or alias (\"#alias:server\")");
}

static void
test_settings_errors(void **unused)
{
	(void)unused;
	parse_fails(NET(", \"defaults\": []"),
	    "networks[0].defaults: expected an object");
	parse_fails(NET(", \"defaults\": {\"gmae\": \"wizard\"}"),
	    "networks[0].defaults.gmae: unknown key");
	/* name belongs to a channel, not to the defaults. */
	parse_fails(NET(", \"defaults\": {\"name\": \"#a\"}"),
	    "networks[0].defaults.name: unknown key");
	parse_fails(NET(", \"defaults\": {\"game\": \"skat\"}"),
	    "networks[0].defaults.game: expected one of \"wizard\", "
	    "\"birdhead\", \"sticheln\"");
	parse_fails(NET(", \"channels\": [\"#a\", {\"name\": \"#b\","
	    " \"lnag\": \"en\"}]"),
	    "networks[0].channels[1].lnag: unknown key");
	parse_fails(NET(", \"channels\": [{\"lang\": \"en\"}]"),
	    "networks[0].channels[0].name: missing");
	parse_fails(NET(", \"channels\": [{\"name\": \"nohash\"}]"),
	    "networks[0].channels[0].name: expected an IRC channel name such "
	    "as \"#wizard\"");
	parse_fails(NET(", \"channels\": [\"#a\", \"#b\", {\"name\": \"#c\","
	    " \"lang\": \"de\"}]"),
	    "networks[0].channels[2].lang: expected one of \"en\", \"ja\"");
	parse_fails(NET(", \"defaults\": {\"prefix\": \"\"}"),
	    "networks[0].defaults.prefix: expected 1-4 punctuation "
	    "characters, e.g. \"!\"");
	parse_fails(NET(", \"defaults\": {\"prefix\": \"!!!!!\"}"),
	    "networks[0].defaults.prefix: expected 1-4 punctuation "
	    "characters, e.g. \"!\"");
	parse_fails(NET(", \"defaults\": {\"prefix\": \"a\"}"),
	    "networks[0].defaults.prefix: expected 1-4 punctuation "
	    "characters, e.g. \"!\"");
	parse_fails(NET(", \"defaults\": {\"formatting\": \"no\"}"),
	    "networks[0].defaults.formatting: expected true or false");
	parse_fails(NET(", \"defaults\": {\"turn_timer\": 5}"),
	    "networks[0].defaults.turn_timer: expected 0 or an integer "
	    "10-3600");
	parse_fails(NET(", \"defaults\": {\"turn_timer\": 3601}"),
	    "networks[0].defaults.turn_timer: expected 0 or an integer "
	    "10-3600");
	parse_fails(NET(", \"defaults\": {\"options\": \"quick\"}"),
	    "networks[0].defaults.options: expected an array of strings");
	parse_fails(NET(", \"channels\": [\"#a\", {\"name\": \"#b\","
	    " \"options\": [\"quick\", \"rounds=3\", \"frobnicate\"]}]"),
	    "networks[0].channels[1].options[2]: Unknown option "
	    "\"frobnicate\" for wizard.");
	parse_fails(NET(", \"channels\": [{\"name\": \"#b\","
	    " \"options\": [\"rounds\"]}]"),
	    "networks[0].channels[0].options[0]: Option rounds needs a value "
	    "(rounds=1..20).");
	/* Each option alone is fine; together they are not. */
	parse_fails(NET(", \"defaults\": {\"options\": [\"notequal\","
	    " \"canadian\"]}"),
	    "networks[0].defaults.options: Options notequal and canadian "
	    "cannot be combined.");
	/* Options are checked against the channel's own game. */
	parse_fails(NET(", \"channels\": [{\"name\": \"#b\","
	    " \"game\": \"sticheln\", \"options\": [\"quick\"]}]"),
	    "networks[0].channels[0].options[0]: Unknown option \"quick\" for "
	    "sticheln.");
	/* The checks `!admin set` shares (settings.c): the same answers. */
	assert_int_equal(config_prefix_check("!"), 0);
	assert_int_equal(config_prefix_check("?!./"), 0);
	assert_int_equal(config_prefix_check("!!!!!"), -1);
	assert_int_equal(config_prefix_check(""), -1);
	assert_int_equal(config_prefix_check("a"), -1);
	assert_int_equal(config_prefix_check("\xe3\x80\x82"), -1);
	assert_int_equal(config_turn_timer_check(0), 0);
	assert_int_equal(config_turn_timer_check(10), 0);
	assert_int_equal(config_turn_timer_check(3600), 0);
	assert_int_equal(config_turn_timer_check(5), -1);
	assert_int_equal(config_turn_timer_check(3601), -1);
	assert_int_equal(config_turn_timer_check(-1), -1);
}

/* Adapter keys are the adapter's: config.c passes them, init() checks. */
static void
test_adapter_keys(void **unused)
{
	struct config *config;
	char err[512];

	(void)unused;
	config = parse_ok(NET(", \"prot\": 6667"));
	assert_int_equal(adapter_check(&config->networks[0], err,
	    sizeof(err)), -1);
	assert_string_equal(err, "networks[0].prot: unknown key");
	config_destroy(config);
	config = parse_ok(NET(", \"host\": \"irc.example.org\","
	    " \"channels\": [\"#a\"]"));
	assert_int_equal(adapter_check(&config->networks[0], err,
	    sizeof(err)), 0);
	config_destroy(config);
}

static void
test_load(void **unused)
{
	char expect[512], err[512];
	struct config *config;
	const char *path;

	(void)unused;
	path = write_file("good.json", "{\n  \"grace\": 30,\n"
	    "  \"networks\": [{\"name\": \"n\", \"type\": \"irc\"}]\n}\n");
	config = config_load(path, err, sizeof(err));
	assert_non_null(config);
	assert_int_equal(config->grace, 30);
	config_destroy(config);

	/* A byte-order mark (some editors write one) is no JSON error. */
	path = write_file("bom.json", "\xef\xbb\xbf{\"grace\": 31,"
	    " \"networks\": [{\"name\": \"n\", \"type\": \"irc\"}]}\n");
	config = config_load(path, err, sizeof(err));
	assert_non_null(config);
	assert_int_equal(config->grace, 31);
	config_destroy(config);

	path = write_file("syntax.json", "{\n  \"grace\": 30,\n"
	    "  \"networks\": [}\n");
	assert_null(config_load(path, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s:3:16: unexpected token near '}'",
	    path);
	assert_string_equal(err, expect);

	path = write_file("dup.json", "{\"grace\": 1,\n\"grace\": 2}");
	assert_null(config_load(path, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s:2:7: duplicate object key near "
	    "'\"grace\"'", path);
	assert_string_equal(err, expect);

	path = write_file("bad.json", "{\"networks\": [{\"name\": \"n\","
	    " \"type\": \"irc\"}], \"grace\": -1}");
	assert_null(config_load(path, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: grace: expected an integer "
	    "0-3600", path);
	assert_string_equal(err, expect);

	assert_null(config_load("/nonexistent/stichbot.json", err,
	    sizeof(err)));
	assert_string_equal(err, "/nonexistent/stichbot.json: No such file or "
	    "directory");

	/* A directory opens as a file, but is named as what it is. */
	assert_null(config_load(tmpdir, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: is a directory, not a "
	    "configuration file", tmpdir);
	assert_string_equal(err, expect);
}

/*
 * The shipped example passes config.c (its adapter keys are checked by
 * config_example_test.py with the real adapters).
 */
static void
test_example(void **unused)
{
	const char *path = getenv("STICHBOT_EXAMPLE_CONFIG");
	struct config *config;
	char err[512] = "";

	(void)unused;
	if (path == NULL)
		skip();
	config = config_load(path, err, sizeof(err));
	if (config == NULL)
		fail_msg("%s", err);
	assert_int_equal(config->nnetworks, 2);
	assert_string_equal(config->networks[0].type, "irc");
	assert_int_equal(config->networks[0].nchannels, 4);
	assert_string_equal(config->networks[1].type, "matrix");
	assert_int_equal(config->networks[1].nchannels, 2);
	config_destroy(config);
}

/* A secret referenced by a network, checked through the adapter. */
static void
test_network_secret(void **unused)
{
	struct config *config;
	char err[512];

	(void)unused;
	unsetenv("CREDENTIALS_DIRECTORY");
	config = parse_ok(NET(", \"password_file\": \"pw\""));
	assert_int_equal(adapter_check(&config->networks[0], err,
	    sizeof(err)), -1);
	assert_string_equal(err, "networks[0].password_file: a "
	    "credential name, but CREDENTIALS_DIRECTORY is not set (give an "
	    "absolute path, or LoadCredential= in the service)");
	config_destroy(config);
}

/* Runs bot_configure() with text; returns its result, err filled. */
static int
configure_text(struct bot *bot, const char *text, char *err, size_t errlen)
{
	struct config *config = parse_ok(text);
	int rc;

	err[0] = '\0';
	rc = bot_configure(bot, config, err, errlen);
	config_destroy(config);
	return rc;
}

#define RELOAD_N1(channels, admin, game) "{\"name\": \"n1\", " \
	"\"type\": \"irc\", \"host\": \"a\", \"admins\": [\"" admin "\"], " \
	"\"defaults\": {\"game\": \"" game "\"}, \"channels\": [" channels "]}"
#define RELOAD_N2 "{\"name\": \"n2\", \"type\": \"matrix\", " \
	"\"channels\": [\"!r:localhost\"]}"

/*
 * A reload that fails on its last network changes nothing: not the
 * earlier networks' admins and defaults, not their channels (none
 * added, joined or left), and no network is added; the error names the
 * network.  The same file without the fault is then applied whole.
 */
static void
test_reload_all_or_nothing(void **unused)
{
	char before[2048], after[2048], err[512];
	struct loop *loop;
	struct store *store;
	struct bot *bot;

	(void)unused;
	loop = loop_create(1);
	store = store_open(":memory:", err, sizeof(err));
	assert_non_null(loop);
	assert_non_null(store);
	bot = bot_create(loop, store, NULL, err, sizeof(err));
	assert_non_null(bot);
	assert_int_equal(configure_text(bot, "{\"networks\": [" RELOAD_N1(
	    "\"#one\", {\"name\": \"#gone\", \"turn_timer\": 30}",
	    "account:x", "wizard") ", " RELOAD_N2 "]}", err, sizeof(err)), 0);
	fake_done[0] = '\0';
	assert_int_equal(bot_start(bot), 0);
	assert_non_null(strstr(fake_done, "join n1 #one"));
	assert_non_null(strstr(fake_done, "join n2 !r:localhost"));
	bot_describe(bot, before, sizeof(before));

	/* The last network's adapter refuses its configuration. */
	fake_done[0] = '\0';
	assert_int_equal(configure_text(bot, "{\"networks\": [" RELOAD_N1(
	    "\"#one\", \"#two\"", "account:y", "sticheln") ", " RELOAD_N2
	    ", {\"name\": \"n3\", \"type\": \"irc\", \"host\": \"fail\"}]}",
	    err, sizeof(err)), -1);
	assert_string_equal(err, "networks[2].host: refused");
	bot_describe(bot, after, sizeof(after));
	assert_string_equal(after, before);
	assert_string_equal(fake_done, "");

	/* The last network changes its type. */
	assert_int_equal(configure_text(bot, "{\"networks\": [" RELOAD_N1(
	    "\"#two\"", "account:y", "sticheln") ", {\"name\": \"n2\", "
	    "\"type\": \"irc\", \"channels\": [\"#x\"]}]}", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "networks[1].type: a running network cannot "
	    "change its type (\"n2\" is matrix); restart the bot for that");
	bot_describe(bot, after, sizeof(after));
	assert_string_equal(after, before);
	assert_string_equal(fake_done, "");

	/* Without the fault the file is applied, all of it. */
	assert_int_equal(configure_text(bot, "{\"networks\": [" RELOAD_N1(
	    "\"#one\", \"#two\"", "account:y", "sticheln") ", " RELOAD_N2
	    ", {\"name\": \"n3\", \"type\": \"irc\", \"host\": \"b\", "
	    "\"channels\": [\"#three\"]}]}", err, sizeof(err)), 0);
	bot_describe(bot, after, sizeof(after));
	assert_string_equal(after, "n1 irc admins=account:y game=sticheln;"
	    "n2 matrix admins=- game=wizard;n3 irc admins=- game=wizard;"
	    " n1/#one game=sticheln timer=120 configured=1 joined=1;"
	    " n1/#gone game=wizard timer=30 configured=0 joined=0;"
	    " n2/!r:localhost game=wizard timer=120 configured=1 joined=1;"
	    " n1/#two game=sticheln timer=120 configured=1 joined=1;"
	    " n3/#three game=wizard timer=120 configured=1 joined=1;");
	/* Parts leave from the loop (medium.h): play its part. */
	bot_flush(bot);
	assert_non_null(strstr(fake_done, "part n1 #gone"));
	assert_non_null(strstr(fake_done, "start n3 -"));
	bot_stop(bot, NULL);
	bot_destroy(bot);
	store_close(store);
	loop_destroy(loop);
}

#define SETTINGS_N1(timer) "{\"networks\": [{\"name\": \"n1\", " \
	"\"type\": \"irc\", \"host\": \"a\", \"admins\": [\"account:x\"], " \
	"\"channels\": [{\"name\": \"#one\", \"turn_timer\": " timer "}]}]}"

/*
 * A reload keeps a channel's settings changed at run time (`!admin set`),
 * but for a key the file now says otherwise: that key is the file's, and
 * the change is forgotten for good.
 */
static void
test_reload_keeps_settings(void **unused)
{
	struct user admin = { .id = "account:x", .name = "x" };
	char desc[2048], err[512];
	struct loop *loop;
	struct store *store;
	struct bot *bot;

	(void)unused;
	loop = loop_create(1);
	store = store_open(":memory:", err, sizeof(err));
	assert_non_null(store);
	bot = bot_create(loop, store, NULL, err, sizeof(err));
	assert_non_null(bot);
	assert_int_equal(configure_text(bot, SETTINGS_N1("60"), err,
	    sizeof(err)), 0);
	assert_int_equal(bot_start(bot), 0);
	adapter_message(fake_n1, "#one", &admin, "!admin set timer 30");
	adapter_message(fake_n1, "#one", &admin, "!admin set lang ja");
	adapter_flush(fake_n1);
	bot_describe(bot, desc, sizeof(desc));
	assert_non_null(strstr(desc, "n1/#one game=wizard timer=30 "));
	assert_int_equal(bot_channel_lang(bot, fake_n1, "#one"), LANG_JA);

	/* The same file again: both changes stay. */
	assert_int_equal(configure_text(bot, SETTINGS_N1("60"), err,
	    sizeof(err)), 0);
	bot_describe(bot, desc, sizeof(desc));
	assert_non_null(strstr(desc, "n1/#one game=wizard timer=30 "));
	assert_int_equal(bot_channel_lang(bot, fake_n1, "#one"), LANG_JA);

	/* The file's timer changed: it wins; the language stays. */
	assert_int_equal(configure_text(bot, SETTINGS_N1("90"), err,
	    sizeof(err)), 0);
	bot_describe(bot, desc, sizeof(desc));
	assert_non_null(strstr(desc, "n1/#one game=wizard timer=90 "));
	assert_int_equal(bot_channel_lang(bot, fake_n1, "#one"), LANG_JA);

	/* Back to the old value: the forgotten change does not come back. */
	assert_int_equal(configure_text(bot, SETTINGS_N1("60"), err,
	    sizeof(err)), 0);
	bot_describe(bot, desc, sizeof(desc));
	assert_non_null(strstr(desc, "n1/#one game=wizard timer=60 "));
	assert_int_equal(bot_channel_lang(bot, fake_n1, "#one"), LANG_JA);
	bot_stop(bot, NULL);
	bot_destroy(bot);
	store_close(store);
	loop_destroy(loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_paths),
		cmocka_unit_test(test_cfg_reads),
		cmocka_unit_test(test_cfg_clean_messages),
		cmocka_unit_test(test_secret_absolute),
		cmocka_unit_test(test_secret_credentials),
		cmocka_unit_test(test_secret_errors),
		cmocka_unit_test(test_defaults_filled),
		cmocka_unit_test(test_everything_set),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_channel_find),
		cmocka_unit_test(test_top_level_errors),
		cmocka_unit_test(test_network_errors),
		cmocka_unit_test(test_settings_errors),
		cmocka_unit_test(test_adapter_keys),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_network_secret),
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_reload_all_or_nothing),
		cmocka_unit_test(test_reload_keeps_settings),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

/*
 * test_matrix.c - the pure parts of the Matrix adapter: configuration
 * errors with their exact messages, URL building with percent-encoding,
 * transaction ids, backoff, mentions and message contents, reply
 * fallbacks, m.direct merging, /sync parsing, invites, and the set of
 * events seen.  The network side is tests/matrix_test.py's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapter.h"
#include "config.h"
#include "matrix/conf.h"
#include "matrix/json.h"
#include "matrix/matrix_int.h"
#include "matrix/parse.h"
#include "matrix/proto.h"
#include "text.h"

extern const struct adapter_impl matrix_adapter;

/* config.c is not linked: the common keys it would allow. */
const char *const config_network_keys[] = {
	"name", "type", "admins", "defaults", "channels", NULL,
};

/* The adapter is linked for init()/finish(); the core never runs. */
static json_t *
parse(const char *s)
{
	json_error_t error;
	json_t *v = json_loads(s, 0, &error);

	if (v == NULL)
		fail_msg("bad JSON in test: %s: %s", error.text, s);
	return v;
}

/* A secret file under /tmp holding content; the caller unlinks it. */
static char secret_path[64];

static void
write_secret(const char *content)
{
	FILE *f;
	int fd;

	snprintf(secret_path, sizeof(secret_path), "/tmp/matrix-secretXXXXXX");
	fd = mkstemp(secret_path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Parses a network object with "%s" standing for the secret file's path. */
static int
config_result(const char *fmt, char *err, size_t errlen,
    struct mx_config *cfg)
{
	char text[2048];
	const char *mark = strstr(fmt, "%s");
	json_t *obj;
	int rc;

	if (mark != NULL)
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(mark - fmt), fmt,
		    secret_path, mark + 2);
	else
		snprintf(text, sizeof(text), "%s", fmt);
	obj = parse(text);
	rc = mx_config_parse(obj, "networks[1]", cfg, err, errlen);
	json_decref(obj);
	return rc;
}

static void
expect_config_error(const char *fmt, const char *message)
{
	struct mx_config cfg;
	char err[512] = "";

	assert_int_equal(config_result(fmt, err, sizeof(err), &cfg), -1);
	assert_string_equal(err, message);
	/* The password never appears in an error. */
	assert_null(strstr(err, "hunter2"));
	mx_config_finish(&cfg);
}

static void
test_config_errors(void **unused)
{
	write_secret("hunter2\n");
	expect_config_error("{\"type\": \"matrix\", \"user_id\": \"@b:x\", "
	    "\"password_file\": \"%s\"}", "networks[1].homeserver: missing");
	expect_config_error("{\"homeserver\": \"matrix.org\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\"}",
	    "networks[1].homeserver: expected an http:// or https:// URL");
	expect_config_error("{\"homeserver\": \"ftp://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\"}",
	    "networks[1].homeserver: expected an http:// or https:// URL");
	expect_config_error("{\"homeserver\": \"https://\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\"}",
	    "networks[1].homeserver: expected an http:// or https:// URL");
	expect_config_error("{\"homeserver\": 5, \"user_id\": \"@b:x\", "
	    "\"password_file\": \"%s\"}",
	    "networks[1].homeserver: expected a string");
	expect_config_error("{\"homeserver\": \"https://x\", "
	    "\"password_file\": \"%s\"}", "networks[1].user_id: missing");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"bot\", \"password_file\": \"%s\"}",
	    "networks[1].user_id: expected a Matrix user id like "
	    "@bot:example.org");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\"}",
	    "networks[1]: expected password_file or access_token_file");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"access_token_file\": "
	    "\"/tmp/t\"}",
	    "networks[1]: password_file and access_token_file exclude each "
	    "other");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"sync_timeout_ms\": 999}",
	    "networks[1].sync_timeout_ms: expected an integer 1000-120000");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"sync_timeout_ms\": "
	    "120001}",
	    "networks[1].sync_timeout_ms: expected an integer 1000-120000");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"passwd_file\": \"x\"}",
	    "networks[1].passwd_file: unknown key");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"invites\": []}",
	    "networks[1].invites: expected an object");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"invites\": "
	    "{\"allow\": []}}", "networks[1].invites.allow: unknown key");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"invites\": "
	    "{\"allow_users\": [\"@a:x\", 3]}}",
	    "networks[1].invites.allow_users: expected an array of strings");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"invites\": "
	    "{\"allow_servers\": \"x\"}}",
	    "networks[1].invites.allow_servers: expected an array of strings");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"device_id\": \"\"}",
	    "networks[1].device_id: expected a non-empty string");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"%s\", \"device_name\": 1}",
	    "networks[1].device_name: expected a string");
	expect_config_error("{\"homeserver\": \"https://x\", \"user_id\": "
	    "\"@b:x\", \"password_file\": \"/nonexistent/pw\"}",
	    "networks[1].password_file: cannot read /nonexistent/pw: "
	    "No such file or directory");
	unlink(secret_path);
}

static void
test_config_values(void **unused)
{
	struct mx_config cfg;
	char err[512] = "";

	write_secret("hunter2\n");
	assert_int_equal(config_result("{\"name\": \"m\", \"type\": "
	    "\"matrix\", \"admins\": [], \"channels\": [], \"defaults\": {}, "
	    "\"homeserver\": \"https://matrix.example.org//\", \"user_id\": "
	    "\"@bot:example.org\", \"password_file\": \"%s\"}", err,
	    sizeof(err), &cfg), 0);
	assert_string_equal(cfg.homeserver, "https://matrix.example.org");
	assert_string_equal(cfg.user_id, "@bot:example.org");
	assert_string_equal(cfg.password, "hunter2");
	assert_null(cfg.access_token);
	assert_null(cfg.device_id);
	assert_string_equal(cfg.device_name, "stichbot");
	assert_int_equal(cfg.sync_timeout_ms, 30000);
	assert_int_equal(json_array_size(cfg.allow_users), 0);
	assert_int_equal(json_array_size(cfg.allow_servers), 0);
	mx_config_finish(&cfg);

	assert_int_equal(config_result("{\"homeserver\": \"http://127.0.0.1:"
	    "8008\", \"user_id\": \"@bot:x\", \"access_token_file\": \"%s\", "
	    "\"device_id\": \"DEV\", \"device_name\": \"Bot\", "
	    "\"sync_timeout_ms\": 1000, \"invites\": {\"allow_users\": "
	    "[\"@*:x\"], \"allow_servers\": [\"y\"]}}", err, sizeof(err),
	    &cfg), 0);
	assert_string_equal(cfg.access_token, "hunter2");
	assert_null(cfg.password);
	assert_string_equal(cfg.device_id, "DEV");
	assert_string_equal(cfg.device_name, "Bot");
	assert_int_equal(cfg.sync_timeout_ms, 1000);
	assert_int_equal(json_array_size(cfg.allow_users), 1);
	assert_int_equal(json_array_size(cfg.allow_servers), 1);
	mx_config_finish(&cfg);
	unlink(secret_path);
}

/* init() checks the keys without a bot (check-config) and never connects. */
static void
test_adapter_init_without_bot(void **unused)
{
	struct adapter adapter;
	char text[512], err[512] = "";
	json_t *obj;

	write_secret("hunter2");
	memset(&adapter, 0, sizeof(adapter));
	adapter.impl = &matrix_adapter;
	snprintf(text, sizeof(text), "{\"homeserver\": \"https://x\", "
	    "\"user_id\": \"@b:x\", \"password_file\": \"%s\"}", secret_path);
	obj = parse(text);
	assert_int_equal(matrix_adapter.init(&adapter, obj, "networks[0]", err,
	    sizeof(err)), 0);
	assert_non_null(adapter.priv);
	assert_int_equal(matrix_adapter.queue_depth(&adapter), 0);
	assert_int_equal(matrix_adapter.channel_admin(&adapter, "!r:x",
	    "@a:x"), 0);
	matrix_adapter.finish(&adapter);
	assert_null(adapter.priv);
	json_decref(obj);

	obj = parse("{\"homeserver\": \"https://x\", \"user_id\": \"@b:x\"}");
	assert_int_equal(matrix_adapter.init(&adapter, obj, "networks[2]", err,
	    sizeof(err)), -1);
	assert_string_equal(err,
	    "networks[2]: expected password_file or access_token_file");
	matrix_adapter.finish(&adapter);
	json_decref(obj);
	unlink(secret_path);
}

static void
test_user_ids(void **unused)
{
	assert_true(mx_user_id_valid("@bot:example.org"));
	assert_true(mx_user_id_valid("@a:127.0.0.1:8008"));
	assert_false(mx_user_id_valid("bot:example.org"));
	assert_false(mx_user_id_valid("@:example.org"));
	assert_false(mx_user_id_valid("@bot:"));
	assert_false(mx_user_id_valid("@bot"));
	assert_false(mx_user_id_valid("@b ot:x"));
	assert_false(mx_user_id_valid(NULL));
	/* Valid UTF-8 without control characters: safe in every string. */
	assert_true(mx_user_id_valid("@j\xc3\xbcrgen:x"));
	assert_false(mx_user_id_valid("@b\xffot:x"));
	assert_false(mx_user_id_valid("@b\xc3:x"));
	assert_false(mx_user_id_valid("@b\x01ot:x"));
	assert_false(mx_user_id_valid("@b\x7fot:x"));
	assert_false(mx_user_id_valid("@b\xc2\x85ot:x"));
	assert_string_equal(mx_server_name("@a:127.0.0.1:8008"),
	    "127.0.0.1:8008");
	assert_string_equal(mx_server_name("!room:x"), "x");
	assert_string_equal(mx_server_name("nothing"), "");
}

/*
 * Out of memory is fatal (json.h); input jansson refuses is not: a text
 * that is not UTF-8 makes no message content, and the adapter refuses it.
 */
static void
test_json_refused(void **unused)
{
	struct text t;
	json_t *v;

	assert_null(mx_json_pack("s", "\xff"));
	assert_null(mx_json_pack("{s:s}", "a", "b\xc3"));
	v = mx_json_pack("{s:s}", "a", "b\xc3\xbc");
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "a")),
	    "b\xc3\xbc");
	json_decref(v);
	text_init(&t);
	text_add(&t, "bad \xff byte");
	assert_null(mx_message_content(&t, "m.notice"));
	assert_null(mx_line_content(&t, NULL));
	assert_null(mx_line_content(&t, "@ann:x"));
	text_finish(&t);
}

static void
test_urls(void **unused)
{
	struct text url;

	text_init(&url);
	mx_url(&url, "https://hs", MX_API "/rooms/%s/send/m.room.message/%s",
	    "!abc:example.org", "stichbot.1f.2");
	assert_string_equal(text_str(&url), "https://hs/_matrix/client/v3/"
	    "rooms/%21abc%3Aexample.org/send/m.room.message/stichbot.1f.2");
	mx_url(&url, "https://hs", MX_API "/join/%s", "#games/x?:ex.org");
	assert_string_equal(text_str(&url),
	    "https://hs/_matrix/client/v3/join/%23games%2Fx%3F%3Aex.org");
	mx_url(&url, "http://h:1", MX_API "/user/%s/account_data/m.direct",
	    "@b\xc3\xa9 +:x");
	assert_string_equal(text_str(&url), "http://h:1/_matrix/client/v3/"
	    "user/%40b%C3%A9%20%2B%3Ax/account_data/m.direct");
	mx_url(&url, "http://h", MX_API "/sync");
	mx_url_param(&url, "filter", "7");
	mx_url_param(&url, "since", "s72_4&x=y");
	mx_url_param(&url, "full_state", "true");
	assert_string_equal(text_str(&url), "http://h/_matrix/client/v3/sync"
	    "?filter=7&since=s72_4%26x%3Dy&full_state=true");
	/* Unreserved characters stay as they are. */
	text_clear(&url);
	mx_escape(&url, "AZaz09-._~");
	assert_string_equal(text_str(&url), "AZaz09-._~");
	text_finish(&url);
}

static void
test_txn_ids(void **unused)
{
	char a[64], b[64], c[64];

	mx_txn_id(a, sizeof(a), 0xabc, 1);
	mx_txn_id(b, sizeof(b), 0xabc, 2);
	mx_txn_id(c, sizeof(c), 0xabd, 1);
	assert_string_equal(a, "stichbot.abc.1");
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	/* Safe in a URL path segment without escaping. */
	for (const char *p = a; *p != '\0'; p++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789.",
		    *p));
}

static void
test_outbox_txn_ids(void **unused)
{
	char a[96], b[96], c[96];

	/* The same row under the same store prefix: the same transaction. */
	mx_txn_id_outbox(a, sizeof(a), "00ff", 6);
	mx_txn_id_outbox(b, sizeof(b), "00ff", 6);
	assert_string_equal(a, b);
	assert_string_equal(a, "stichbot.o.00ff.6");
	mx_txn_id_outbox(b, sizeof(b), "00ff", 7);
	mx_txn_id_outbox(c, sizeof(c), "0100", 6);
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	/* Never one of the per-process ids. */
	mx_txn_id(b, sizeof(b), 0xff, 6);
	assert_string_not_equal(a, b);
	for (const char *p = a; *p != '\0'; p++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789.",
		    *p));
}

static void
test_notice_txn_ids(void **unused)
{
	char a[96], b[96], c[96];

	(void)unused;
	/* The same notice in the same room: the same transaction. */
	mx_txn_id_notice(a, sizeof(a), "00ff", "shared", "!r1:example.org");
	mx_txn_id_notice(b, sizeof(b), "00ff", "shared", "!r1:example.org");
	assert_string_equal(a, b);
	mx_txn_id_notice(b, sizeof(b), "00ff", "shared", "!r2:example.org");
	mx_txn_id_notice(c, sizeof(c), "00ff", "opened", "!r1:example.org");
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	mx_txn_id_outbox(b, sizeof(b), "00ff", 6);
	assert_string_not_equal(a, b);
	for (const char *p = a; *p != '\0'; p++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789.",
		    *p));
}

static void
test_line_content(void **unused)
{
	struct text t;
	json_t *c, *ids;

	text_init(&t);
	/* A room line without a mention: a notice, no m.mentions. */
	text_add(&t, "Alice plays r7");
	c = mx_line_content(&t, NULL);
	assert_string_equal(json_string_value(json_object_get(c, "msgtype")),
	    "m.notice");
	assert_null(json_object_get(c, "m.mentions"));
	json_decref(c);
	/* A private line: m.text mentioning its recipient. */
	c = mx_line_content(&t, "@ann:x");
	assert_string_equal(json_string_value(json_object_get(c, "msgtype")),
	    "m.text");
	ids = json_object_get(json_object_get(c, "m.mentions"), "user_ids");
	assert_int_equal(json_array_size(ids), 1);
	assert_string_equal(json_string_value(json_array_get(ids, 0)),
	    "@ann:x");
	json_decref(c);
	/* A turn line: m.text with the player in m.mentions and a pill. */
	text_clear(&t);
	text_mention(&t, "@bob:y", "Bob");
	text_add(&t, ", your turn");
	c = mx_line_content(&t, NULL);
	assert_string_equal(json_string_value(json_object_get(c, "msgtype")),
	    "m.text");
	ids = json_object_get(json_object_get(c, "m.mentions"), "user_ids");
	assert_int_equal(json_array_size(ids), 1);
	assert_string_equal(json_string_value(json_array_get(ids, 0)),
	    "@bob:y");
	assert_non_null(strstr(json_string_value(json_object_get(c,
	    "formatted_body")), "<a href=\"https://matrix.to/#/@bob:y\">Bob"
	    "</a>"));
	json_decref(c);
	/* Private and mentioning: both, once each. */
	c = mx_line_content(&t, "@bob:y");
	ids = json_object_get(json_object_get(c, "m.mentions"), "user_ids");
	assert_int_equal(json_array_size(ids), 1);
	json_decref(c);
	c = mx_line_content(&t, "@ann:x");
	ids = json_object_get(json_object_get(c, "m.mentions"), "user_ids");
	assert_int_equal(json_array_size(ids), 2);
	assert_string_equal(json_string_value(json_array_get(ids, 1)),
	    "@ann:x");
	json_decref(c);
	text_finish(&t);
}

/* WCAG 2 relative luminance of "#rrggbb". */
static double
luminance(const char *hex)
{
	double c[3];

	assert_int_equal(strlen(hex), 7);
	for (int i = 0; i < 3; i++) {
		char part[3] = { hex[1 + 2 * i], hex[2 + 2 * i], '\0' };
		double v = (double)strtol(part, NULL, 16) / 255.0;

		c[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static double
contrast(const char *a, const char *b)
{
	double la = luminance(a), lb = luminance(b);

	return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

/* The value of attribute name="..." in html, into out. */
static void
attribute(const char *html, const char *name, char *out, size_t outlen)
{
	const char *p = strstr(html, name), *end;

	assert_non_null(p);
	p += strlen(name);
	assert_memory_equal(p, "=\"", 2);
	p += 2;
	end = strchr(p, '"');
	assert_non_null(end);
	assert_true((size_t)(end - p) < outlen);
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
}

/*
 * Issue 16.5: every suit colour as Matrix shows it can be read in Element's
 * light theme (white) and dark theme (#15191e).  Text colour alone cannot
 * reach WCAG's 4.5:1 against both (at best 4.2:1), so a card is a tile:
 * its text must reach 4.5:1 against the tile, and the tile 3:1 (WCAG's
 * figure for what is not text) against both backgrounds.
 */
static void
test_colour_contrast(void **unused)
{
	static const char letters[] = "rygbnpj";
	static const char *const themes[] = { "#ffffff", "#15191e" };
	struct text t, html;
	char tile[16], ink[16];

	text_init(&t);
	text_init(&html);
	/* No plain text colour does: the reason for tiles. */
	for (double l = 0.0; l <= 1.0; l += 0.001) {
		double on_white = 1.05 / (l + 0.05);
		double on_dark = (l + 0.05) / (luminance("#15191e") + 0.05);

		assert_true(on_white < 4.5 || on_dark < 4.5);
	}
	for (const char *c = letters; *c != '\0'; c++) {
		text_clear(&t);
		text_card(&t, *c, "x7");
		text_render(&t, TEXT_FORMAT_HTML, &html);
		attribute(text_str(&html), "data-mx-bg-color", tile,
		    sizeof(tile));
		attribute(text_str(&html), "data-mx-color", ink, sizeof(ink));
		/* No bare color attribute, shown without the tile. */
		assert_null(strstr(text_str(&html), " color="));
		if (contrast(ink, tile) < 4.5)
			fail_msg("%c: text %s on %s reaches %.2f:1", *c, ink,
			    tile, contrast(ink, tile));
		for (size_t i = 0; i < 2; i++)
			if (contrast(tile, themes[i]) < 3.0)
				fail_msg("%c: tile %s on %s reaches %.2f:1", *c,
				    tile, themes[i], contrast(tile, themes[i]));
	}
	/* The old brown and blue as text on the dark theme: 2.7 and 3.1. */
	assert_true(contrast("#795548", "#15191e") < 2.8);
	assert_true(contrast("#1565c0", "#15191e") < 3.1);
	text_finish(&t);
	text_finish(&html);
}

static void
test_mentions(void **unused)
{
	struct text t;
	json_t *ids;

	text_init(&t);
	text_add(&t, "no one");
	assert_null(mx_mentions(&t));
	text_clear(&t);
	text_mention(&t, "@ann:x", "Ann");
	text_add(&t, ", ");
	text_mention(&t, "@bob:y", "<b>Bob</b>");
	text_add(&t, " and ");
	text_mention(&t, "@ann:x", "Ann again");
	ids = mx_mentions(&t);
	assert_non_null(ids);
	assert_int_equal(json_array_size(ids), 2);
	assert_string_equal(json_string_value(json_array_get(ids, 0)),
	    "@ann:x");
	assert_string_equal(json_string_value(json_array_get(ids, 1)),
	    "@bob:y");
	json_decref(ids);
	/* A mark cut off at the end is ignored, like the renderer does. */
	text_clear(&t);
	text_add(&t, "x \x1e@cut:x");
	assert_null(mx_mentions(&t));
	text_finish(&t);
}

static void
test_message_content(void **unused)
{
	struct text t;
	json_t *c;
	const char *html;

	text_init(&t);
	text_mention(&t, "@bob:y", "<b>Bob</b> & co");
	text_add(&t, ", your turn: ");
	text_card(&t, 'r', "R7");
	c = mx_message_content(&t, "m.notice");
	assert_non_null(c);
	assert_string_equal(json_string_value(json_object_get(c, "msgtype")),
	    "m.notice");
	assert_string_equal(json_string_value(json_object_get(c, "body")),
	    "<b>Bob</b> & co, your turn: R7");
	assert_string_equal(json_string_value(json_object_get(c, "format")),
	    "org.matrix.custom.html");
	html = json_string_value(json_object_get(c, "formatted_body"));
	assert_non_null(strstr(html, "<a href=\"https://matrix.to/#/@bob:y\">"
	    "&lt;b&gt;Bob&lt;/b&gt; &amp; co</a>"));
	assert_non_null(strstr(html, "<font data-mx-bg-color="));
	assert_null(strstr(html, "<b>Bob"));
	assert_string_equal(json_string_value(json_array_get(json_object_get(
	    json_object_get(c, "m.mentions"), "user_ids"), 0)), "@bob:y");
	json_decref(c);

	text_clear(&t);
	text_add(&t, "plain");
	c = mx_message_content(&t, "m.notice");
	assert_null(json_object_get(c, "m.mentions"));
	assert_string_equal(json_string_value(json_object_get(c, "body")),
	    "plain");
	json_decref(c);
	text_finish(&t);
}

static void
test_reply_fallback(void **unused)
{
	json_t *c;

	c = parse("{\"body\": \"> <@a:x> !start\\n> more\\n\\n!join\", "
	    "\"m.relates_to\": {\"m.in_reply_to\": {\"event_id\": \"$e\"}}}");
	assert_string_equal(mx_message_text(c), "!join");
	json_decref(c);
	/* Not a reply: a quote is what the user typed. */
	c = parse("{\"body\": \"> quoted\\n\\ntext\"}");
	assert_string_equal(mx_message_text(c), "> quoted\n\ntext");
	json_decref(c);
	c = parse("{\"msgtype\": \"m.text\"}");
	assert_string_equal(mx_message_text(c), "");
	json_decref(c);
	c = parse("{\"body\": \"> only a quote\", \"m.relates_to\": "
	    "{\"m.in_reply_to\": {}}}");
	assert_string_equal(mx_message_text(c), "> only a quote");
	json_decref(c);
}

static void
test_direct_merge(void **unused)
{
	json_t *d = parse("{\"@a:x\": [\"!1:x\"], \"@b:x\": [\"!2:x\"], "
	    "\"@c:x\": \"garbage\"}");
	json_t *want;

	assert_int_equal(mx_direct_add(d, "@a:x", "!3:x"), 1);
	assert_int_equal(mx_direct_add(d, "@a:x", "!3:x"), 0);
	assert_int_equal(mx_direct_add(d, "@a:x", "!1:x"), 0);
	assert_int_equal(mx_direct_add(d, "@n:y", "!4:y"), 1);
	assert_int_equal(mx_direct_add(d, "@c:x", "!5:x"), 1);
	want = parse("{\"@a:x\": [\"!1:x\", \"!3:x\"], \"@b:x\": [\"!2:x\"], "
	    "\"@c:x\": [\"!5:x\"], \"@n:y\": [\"!4:y\"]}");
	assert_true(json_equal(d, want));
	assert_true(mx_direct_has(d, "@a:x", "!3:x"));
	assert_false(mx_direct_has(d, "@b:x", "!3:x"));
	assert_false(mx_direct_has(d, "@z:x", "!3:x"));
	json_decref(want);
	json_decref(d);
	assert_int_equal(mx_direct_add(NULL, "@a:x", "!1:x"), -1);
}

static const char sync_response[] =
    "{\"next_batch\": \"s9\","
    " \"account_data\": {\"events\": [{\"type\": \"m.direct\","
    "   \"content\": {\"@a:x\": [\"!d:x\"]}}]},"
    " \"presence\": {\"events\": []},"
    " \"rooms\": {"
    "  \"join\": {\"!r:x\": {"
    "   \"state\": {\"events\": [{\"type\": \"m.room.member\","
    "     \"state_key\": \"@a:x\", \"sender\": \"@a:x\","
    "     \"event_id\": \"$m1\", \"origin_server_ts\": 5,"
    "     \"content\": {\"membership\": \"join\", \"displayname\": \"Ann\"}},"
    "     {\"type\": \"m.room.power_levels\", \"state_key\": \"\","
    "      \"sender\": \"@a:x\", \"event_id\": \"$p\","
    "      \"content\": {\"users\": {\"@a:x\": 100}}}]},"
    "   \"timeline\": {\"limited\": true, \"prev_batch\": \"p1\","
    "    \"events\": [{\"type\": \"m.room.message\", \"sender\": \"@a:x\","
    "     \"event_id\": \"$t1\", \"origin_server_ts\": 7,"
    "     \"content\": {\"msgtype\": \"m.text\", \"body\": \"!start\"}},"
    "     {\"type\": \"m.room.message\", \"event_id\": \"$bad\","
    "      \"content\": \"not an object\"},"
    "     {\"event_id\": \"$notype\", \"content\": {}},"
    "     {\"type\": \"m.room.encrypted\", \"sender\": \"@b:x\","
    "      \"event_id\": \"$t2\"}]}}},"
    "  \"invite\": {\"!i:y\": {\"invite_state\": {\"events\": ["
    "   {\"type\": \"m.room.name\", \"state_key\": \"\", \"sender\": \"@c:y\","
    "    \"content\": {\"name\": \"Games\"}},"
    "   {\"type\": \"m.room.member\", \"state_key\": \"@bot:x\","
    "    \"sender\": \"@c:y\", \"content\": {\"membership\": \"invite\","
    "    \"is_direct\": true}}]}}},"
    "  \"leave\": {\"!l:x\": {\"state\": {\"events\": []},"
    "   \"timeline\": {\"events\": [{\"type\": \"m.room.member\","
    "    \"state_key\": \"@bot:x\", \"sender\": \"@a:x\","
    "    \"event_id\": \"$k\", \"content\": {\"membership\": \"leave\","
    "    \"reason\": \"bye\"}}]}}}}}";

static void
test_sync_parse(void **unused)
{
	json_t *r = parse(sync_response);
	struct mx_sync s;
	struct mx_member mem;
	char err[128];
	const struct mx_event *e;

	assert_int_equal(mx_sync_parse(r, &s, err, sizeof(err)), 0);
	assert_string_equal(s.next_batch, "s9");
	assert_int_equal(s.n, 11);
	e = s.events;
	assert_int_equal(e[0].section, MX_ACCOUNT_DATA);
	assert_string_equal(e[0].type, "m.direct");
	assert_null(e[0].room_id);
	assert_true(mx_direct_has(e[0].content, "@a:x", "!d:x"));

	assert_int_equal(e[1].section, MX_STATE);
	assert_string_equal(e[1].room_id, "!r:x");
	assert_string_equal(e[1].state_key, "@a:x");
	assert_int_equal(e[1].ts, 5);
	mx_member_parse(e[1].content, &mem);
	assert_string_equal(mem.membership, "join");
	assert_string_equal(mem.displayname, "Ann");
	assert_false(mem.is_direct);
	assert_int_equal(e[2].section, MX_STATE);
	assert_string_equal(e[2].type, "m.room.power_levels");
	assert_string_equal(e[2].state_key, "");

	assert_int_equal(e[3].section, MX_GAP);
	assert_null(e[3].type);
	assert_string_equal(e[3].room_id, "!r:x");

	assert_int_equal(e[4].section, MX_TIMELINE);
	assert_string_equal(e[4].event_id, "$t1");
	assert_string_equal(e[4].sender, "@a:x");
	assert_null(e[4].state_key);
	assert_string_equal(mx_message_text(e[4].content), "!start");
	/* The malformed events are skipped; a missing content is NULL. */
	assert_int_equal(e[5].section, MX_TIMELINE);
	assert_string_equal(e[5].event_id, "$t2");
	assert_null(e[5].content);

	assert_int_equal(e[6].section, MX_INVITE_STATE);
	assert_string_equal(e[6].type, "m.room.name");
	assert_int_equal(e[7].section, MX_INVITE_STATE);
	assert_null(e[7].event_id);
	mx_member_parse(e[7].content, &mem);
	assert_string_equal(mem.membership, "invite");
	assert_true(mem.is_direct);
	assert_null(mem.displayname);
	assert_int_equal(e[8].section, MX_INVITED);
	assert_string_equal(e[8].room_id, "!i:y");

	assert_int_equal(e[9].section, MX_LEFT_EVENT);
	assert_string_equal(e[9].state_key, "@bot:x");
	assert_int_equal(e[10].section, MX_LEFT);
	assert_string_equal(e[10].room_id, "!l:x");
	mx_sync_finish(&s);
	assert_null(s.events);
	json_decref(r);

	/* An empty but valid response; then one without next_batch. */
	r = parse("{\"next_batch\": \"s10\", \"rooms\": {}}");
	assert_int_equal(mx_sync_parse(r, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	mx_sync_finish(&s);
	json_decref(r);
	r = parse("{\"rooms\": {}}");
	assert_int_equal(mx_sync_parse(r, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "the /sync response has no next_batch");
	json_decref(r);
}

static void
test_member_parse(void **unused)
{
	struct mx_member mem;
	json_t *c = parse("{\"displayname\": \"\"}");

	mx_member_parse(c, &mem);
	assert_string_equal(mem.membership, "");
	assert_null(mem.displayname);
	json_decref(c);
	mx_member_parse(NULL, &mem);
	assert_string_equal(mem.membership, "");
}

static void
test_invites(void **unused)
{
	json_t *users = parse("[\"@admin:example.org\", \"@*:trusted.net\"]");
	json_t *servers = parse("[\"friends.org\"]");
	json_t *none = parse("[]");

	assert_true(mx_invite_allowed("@admin:example.org", users, servers));
	assert_false(mx_invite_allowed("@admin2:example.org", users, servers));
	assert_true(mx_invite_allowed("@x:trusted.net", users, servers));
	assert_true(mx_invite_allowed("@x:friends.org", users, servers));
	assert_false(mx_invite_allowed("@x:friends.org.evil", users, servers));
	assert_false(mx_invite_allowed("@x:evil.org", users, servers));
	assert_false(mx_invite_allowed("not-a-user", users, servers));
	/* By default nobody. */
	assert_false(mx_invite_allowed("@admin:example.org", none, none));
	json_decref(users);
	json_decref(servers);
	json_decref(none);
}

static void
test_seen(void **unused)
{
	struct mx_seen seen;
	char id[32];

	mx_seen_init(&seen);
	assert_false(mx_seen_check(&seen, "$a"));
	assert_true(mx_seen_check(&seen, "$a"));
	assert_false(mx_seen_check(&seen, "$b"));
	/*
	 * MX_SEEN_MAX newer ids: $b is forgotten, but $a, seen again on the
	 * way, is among the most recent and stays.
	 */
	for (int i = 0; i < MX_SEEN_MAX; i++) {
		snprintf(id, sizeof(id), "$e%d", i);
		assert_false(mx_seen_check(&seen, id));
		if (i == MX_SEEN_MAX / 2)
			assert_true(mx_seen_check(&seen, "$a"));
	}
	assert_false(mx_seen_check(&seen, "$b"));
	assert_true(mx_seen_check(&seen, "$a"));
	assert_true(mx_seen_check(&seen, "$e1000"));
}

/* A failed response in the log: never a dangling space, always a reason. */
static void
test_describe(void **state)
{
	struct mx_response res = { 0 };
	json_t *body = parse("{\"errcode\": \"M_FORBIDDEN\", "
	    "\"error\": \"no\"}");
	char why[128];

	(void)state;
	res.status = 500;
	res.retry_after_ms = -1;
	mx_describe(&res, why, sizeof(why));
	assert_string_equal(why, "HTTP 500, no reason given");
	res.status = 403;
	res.errcode = "M_FORBIDDEN";
	mx_describe(&res, why, sizeof(why));
	assert_string_equal(why, "HTTP 403 M_FORBIDDEN");
	res.body = body;
	mx_describe(&res, why, sizeof(why));
	assert_string_equal(why, "HTTP 403 M_FORBIDDEN: no");
	res.errcode = NULL;
	mx_describe(&res, why, sizeof(why));
	assert_string_equal(why, "HTTP 403: no");
	res.status = 0;
	res.error = "Connection refused";
	mx_describe(&res, why, sizeof(why));
	assert_string_equal(why, "Connection refused");
	json_decref(body);
}

static void
assert_label(const struct mx_room *room, const char *user_id,
    const char *want)
{
	char *label = mx_person_label(room, user_id);

	assert_string_equal(label, want);
	free(label);
}

/* Display names shared in a room are told apart as clients do. */
static void
test_person_label(void **state)
{
	struct mx_room room;

	(void)state;
	memset(&room, 0, sizeof(room));
	mx_person_set(&room, "@bob:x", MX_JOINED, "Sam");
	mx_person_set(&room, "@dan:x", MX_JOINED, NULL);
	assert_label(&room, "@bob:x", "Sam");
	assert_label(&room, "@dan:x", "@dan:x");
	assert_label(&room, "@nobody:x", "@nobody:x");
	/* An invited Sam counts; one who left does not. */
	mx_person_set(&room, "@carol:x", MX_PENDING, "Sam");
	assert_label(&room, "@bob:x", "Sam (@bob:x)");
	assert_label(&room, "@carol:x", "Sam (@carol:x)");
	mx_person_set(&room, "@carol:x", MX_OUT, NULL);
	assert_label(&room, "@bob:x", "Sam");
	/* Letters in another case read differently. */
	mx_person_set(&room, "@eve:x", MX_JOINED, "sam");
	assert_label(&room, "@bob:x", "Sam");
	/*
	 * Names that read the same are told apart however their bytes
	 * differ: an invisible isolate, which the core strips, a zero-width
	 * space, spaces around, a Cyrillic S, a fullwidth m.
	 */
	mx_person_set(&room, "@fake:x", MX_JOINED, "Sam\u2066");
	assert_label(&room, "@bob:x", "Sam (@bob:x)");
	assert_label(&room, "@fake:x", "Sam\u2066 (@fake:x)");
	mx_person_set(&room, "@fake:x", MX_JOINED, " S\u200bam ");
	assert_label(&room, "@bob:x", "Sam (@bob:x)");
	mx_person_set(&room, "@fake:x", MX_JOINED, "\u0405a\uff4d");
	assert_label(&room, "@bob:x", "Sam (@bob:x)");
	mx_person_set(&room, "@fake:x", MX_JOINED, "Sammy");
	assert_label(&room, "@bob:x", "Sam");
	/* I, l and 1 look alike; so do O and 0; runs of spaces are one. */
	mx_person_set(&room, "@bill:x", MX_JOINED, "BiII  0tto");
	mx_person_set(&room, "@b2:x", MX_JOINED, "Bi1l Otto");
	assert_label(&room, "@bill:x", "BiII  0tto (@bill:x)");
	/* Nothing that shows: the user id, as clients show it. */
	mx_person_set(&room, "@blank:x", MX_JOINED, "\u2066\u2069\u200b \x01");
	assert_label(&room, "@blank:x", "@blank:x");
	mx_person_set(&room, "@blank:x", MX_JOINED, "");
	assert_label(&room, "@blank:x", "@blank:x");
	/* A name that looks like a user id always shows the real one. */
	mx_person_set(&room, "@mallory:x", MX_JOINED, "@bob:x");
	assert_label(&room, "@mallory:x", "@bob:x (@mallory:x)");
	mx_person_set(&room, "@mallory:x", MX_JOINED, "bob@home");
	assert_label(&room, "@mallory:x", "bob@home");
	for (int i = 0; i < room.npeople; i++) {
		free(room.people[i].user_id);
		free(room.people[i].name);
		free(room.people[i].look);
	}
	free(room.people);
}

/* in, mended, is want, with n characters changed. */
static void
assert_mended(const char *in, const char *want, size_t n)
{
	char buf[128];
	size_t len = strlen(in);

	memcpy(buf, in, len + 1);
	assert_int_equal(mx_json_mend(buf, len), n);
	assert_string_equal(buf, want);
	assert_int_equal(strlen(buf), len);
	/* Mended once, nothing is left to mend. */
	assert_int_equal(mx_json_mend(buf, len), 0);
}

/* What jansson cannot read inside strings is mended; nothing else. */
static void
test_json_mend(void **state)
{
	const char *fine[] = {
		"{\"a\\\\u0000\": \"\\\\\", \"b\": \"\\ud83c\\udccf\"}",
		"{\"k\": \"caf\xc3\xa9 \\u00e9 \\\"q\\\" \xf0\x9f\x83\x8f\"}",
		"[1, true, null, \"\\n\\t\\/\"]",
	};
	json_t *v;

	(void)state;
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		assert_mended(fine[i], fine[i], 0);
		v = json_loads(fine[i], 0, NULL);
		assert_non_null(v);
		json_decref(v);
	}
	/* An escaped NUL, in a key or a value; a lone surrogate either way. */
	assert_mended("{\"x\\u0000y\": \"a\\u0000\"}",
	    "{\"x\\uFFFDy\": \"a\\uFFFD\"}", 2);
	assert_mended("[\"\\ud800\", \"\\udc00x\", \"\\uD800\\u0041\"]",
	    "[\"\\uFFFD\", \"\\uFFFDx\", \"\\uFFFD\\u0041\"]", 3);
	assert_mended("[\"\\ud800", "[\"\\uFFFD", 1);
	/* Bytes that are no UTF-8, and raw control characters, in strings. */
	assert_mended("[\"a\xff\xc3\", \"\xed\xa0\x80\", \"t\tn\x01\"]",
	    "[\"a??\", \"???\", \"t n \"]", 7);
	/* Outside strings, and broken escapes, are the parser's to refuse. */
	assert_mended("[\xff, \"\\q\", \"\\u12\"]", "[\xff, \"\\q\", \"\\u12\"]",
	    0);
	v = json_loads("{\"x\\uFFFDy\": \"a\\uFFFD\"}", 0, NULL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v,
	    "x\xef\xbf\xbdy")), "a\xef\xbf\xbd");
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_values),
		cmocka_unit_test(test_adapter_init_without_bot),
		cmocka_unit_test(test_user_ids),
		cmocka_unit_test(test_json_refused),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_txn_ids),
		cmocka_unit_test(test_outbox_txn_ids),
		cmocka_unit_test(test_notice_txn_ids),
		cmocka_unit_test(test_line_content),
		cmocka_unit_test(test_colour_contrast),
		cmocka_unit_test(test_mentions),
		cmocka_unit_test(test_message_content),
		cmocka_unit_test(test_reply_fallback),
		cmocka_unit_test(test_direct_merge),
		cmocka_unit_test(test_sync_parse),
		cmocka_unit_test(test_json_mend),
		cmocka_unit_test(test_member_parse),
		cmocka_unit_test(test_invites),
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_person_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

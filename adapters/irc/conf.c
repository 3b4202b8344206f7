/*
 * conf.c - reading and checking an IRC network's configuration
 * (conf.h).  Secrets come from files (cfg.h) and never reach an
 * error message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "config.h"
#include "conf.h"
#include "fingerprint.h"
#include "queue.h"
#include "xmalloc.h"

static const char *const irc_keys[] = {
	"host", "port", "tls", "tls_verify", "tls_ca_file", "tls_fingerprint",
	"nick", "alt_nicks", "username", "realname", "server_password_file",
	"sasl", "nickserv_password_file", "private_messages", "flood",
	"join_on_invite", "ping_timeout", "reconnect", "identity", NULL,
};
static const char *const sasl_keys[] = { "username", "password_file", NULL };
static const char *const flood_keys[] = { "burst", "interval_ms", NULL };
static const char *const reconnect_keys[] = { "min", "max", NULL };
static const char *const private_choices[] = { "privmsg", "notice", NULL };
static const char *const identity_choices[] = { "mask", "account", NULL };

static int
valid_host(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253)
		return 0;
	for (; *s != '\0'; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && strchr(".-:_%", *s) == NULL)
			return 0;
	return 1;
}

/* RFC 2812 nicknames, a little longer: networks allow 30 and more. */
static int
valid_nick(const char *s)
{
	static const char special[] = "[]\\`_^{|}";
	size_t n = strlen(s);

	if (n == 0 || n > 32 || (s[0] >= '0' && s[0] <= '9') || s[0] == '-')
		return 0;
	for (; *s != '\0'; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '-' &&
		    strchr(special, *s) == NULL)
			return 0;
	return 1;
}

/* A user name or real name: printable, one line; user names one word. */
static int
valid_word(const char *s, int spaces, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ||
		    (!spaces && (*s == ' ' || *s == '@' || *s == ':')))
			return 0;
	return 1;
}

void
irc_config_free(struct irc_config *c)
{
	free(c->host);
	free(c->ca_file);
	free(c->nick);
	for (int i = 0; i < c->nalt; i++)
		free(c->alt_nicks[i]);
	free(c->alt_nicks);
	free(c->username);
	free(c->realname);
	cfg_secret_free(c->server_password);
	free(c->sasl_user);
	cfg_secret_free(c->sasl_password);
	cfg_secret_free(c->nickserv_password);
	memset(c, 0, sizeof(*c));
}

/*
 * The object at key of config, checked against its keys (cfg_keys()
 * checks that it is an object), with its path in p: 0, 1 when it is
 * absent, -1 with err filled.
 */
static int
conf_sub(const json_t *config, const char *path, const char *key,
    const char *const *keys, const json_t **sub, char *p, size_t plen,
    char *err, size_t errlen)
{
	if ((*sub = json_object_get(config, key)) == NULL)
		return 1;
	cfg_path(p, plen, path, key);
	return cfg_keys(*sub, p, keys, NULL, err, errlen) != 0 ? -1 : 0;
}

/* The server: host, port and TLS with its checks. */
static int
conf_server(struct irc_config *c, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	const char *s;
	long long v;
	int rc, verify_given;

	if (cfg_string(config, path, "host", 1, &s, err, errlen) != 0)
		return -1;
	if (!valid_host(s))
		return cfg_fail(err, errlen, path, "host",
		    "expected a host name or address");
	c->host = xstrdup(s);
	c->tls = 1;
	if (cfg_bool(config, path, "tls", 0, &c->tls, err, errlen) < 0)
		return -1;
	v = c->tls ? 6697 : 6667;
	if (cfg_int(config, path, "port", 1, 65535, 0, &v, err, errlen) < 0)
		return -1;
	c->port = (int)v;
	c->tls_verify = 1;
	if ((rc = cfg_bool(config, path, "tls_verify", 0, &c->tls_verify, err,
	    errlen)) < 0)
		return -1;
	verify_given = rc == 0;
	if ((rc = cfg_string(config, path, "tls_ca_file", 0, &s, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0) {
		if (access(s, R_OK) != 0) {
			char what[512];

			snprintf(what, sizeof(what), "cannot read %s: %s", s,
			    strerror(errno));
			return cfg_fail(err, errlen, path, "tls_ca_file", "%s",
			    what);
		}
		c->ca_file = xstrdup(s);
	}
	if ((rc = cfg_string(config, path, "tls_fingerprint", 0, &s, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0) {
		if (irc_fingerprint_parse(s, c->fingerprint) != 0)
			return cfg_fail(err, errlen, path, "tls_fingerprint",
			    "expected a SHA-256 fingerprint: 64 hexadecimal "
			    "digits, colons allowed");
		c->pin = 1;
		/* The pin is the check unless verification was asked for. */
		if (!verify_given)
			c->tls_verify = 0;
	}
	if (!c->tls) {
		static const char *const tls_only[] = {
			"tls_verify", "tls_ca_file", "tls_fingerprint", NULL,
		};

		for (int i = 0; tls_only[i] != NULL; i++)
			if (json_object_get(config, tls_only[i]) != NULL)
				return cfg_fail(err, errlen, path, tls_only[i],
				    "needs \"tls\": true");
	}
	return 0;
}

/* Who the bot is: nick, alternatives, user name and real name. */
static int
conf_names(struct irc_config *c, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	const json_t *alts;
	const char *s;
	char p[256];
	int rc;

	if (cfg_string(config, path, "nick", 1, &s, err, errlen) != 0)
		return -1;
	if (!valid_nick(s))
		return cfg_fail(err, errlen, path, "nick",
		    "expected an IRC nickname (letters, digits, -[]\\`_^{|}, "
		    "not starting with a digit or -)");
	c->nick = xstrdup(s);
	if ((rc = cfg_strings(config, path, "alt_nicks", 0, &alts, err,
	    errlen)) < 0)
		return -1;
	if (rc == 0 && json_array_size(alts) > 0) {
		size_t n = json_array_size(alts);

		c->alt_nicks = xcalloc(n, sizeof(char *));
		for (size_t i = 0; i < n; i++) {
			s = json_string_value(json_array_get(alts, i));
			if (!valid_nick(s)) {
				cfg_path(p, sizeof(p), path, "alt_nicks");
				snprintf(err, errlen, "%s[%zu]: expected an "
				    "IRC nickname", p, i);
				return -1;
			}
			c->alt_nicks[c->nalt++] = xstrdup(s);
		}
	}
	s = "stichbot";
	if (cfg_string(config, path, "username", 0, &s, err, errlen) < 0)
		return -1;
	if (!valid_word(s, 0, 32))
		return cfg_fail(err, errlen, path, "username",
		    "expected one word without '@' or ':' (at most 32 bytes)");
	c->username = xstrdup(s);
	s = "stichbot card games";
	if (cfg_string(config, path, "realname", 0, &s, err, errlen) < 0)
		return -1;
	if (!valid_word(s, 1, 128))
		return cfg_fail(err, errlen, path, "realname",
		    "expected one line of text (at most 128 bytes)");
	c->realname = xstrdup(s);
	return 0;
}

/* Logging in: the server password, SASL and NickServ, from files. */
static int
conf_login(struct irc_config *c, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	const json_t *sub;
	const char *s;
	char p[256];
	int rc;

	if (cfg_secret(config, path, "server_password_file", 0,
	    &c->server_password, err, errlen) < 0)
		return -1;
	/* PASS and NickServ IDENTIFY must fit one line. */
	if (c->server_password != NULL && strlen(c->server_password) > 400)
		return cfg_fail(err, errlen, path, "server_password_file",
		    "the password is longer than 400 bytes");
	if ((rc = conf_sub(config, path, "sasl", sasl_keys, &sub, p,
	    sizeof(p), err, errlen)) < 0)
		return -1;
	if (rc == 0) {
		if (cfg_string(sub, p, "username", 1, &s, err, errlen) != 0)
			return -1;
		if (!valid_word(s, 0, 128))
			return cfg_fail(err, errlen, p, "username",
			    "expected an account name");
		c->sasl_user = xstrdup(s);
		if (cfg_secret(sub, p, "password_file", 1, &c->sasl_password,
		    err, errlen) != 0)
			return -1;
		/*
		 * The AUTHENTICATE lines go through libircclient's 1 KiB
		 * output buffer at once.
		 */
		if (2 * strlen(c->sasl_user) + strlen(c->sasl_password) > 600)
			return cfg_fail(err, errlen, p, "password_file",
			    "the account name twice and the password are "
			    "longer than 600 bytes");
	}
	if (cfg_secret(config, path, "nickserv_password_file", 0,
	    &c->nickserv_password, err, errlen) < 0)
		return -1;
	if (c->nickserv_password != NULL &&
	    strlen(c->nickserv_password) > 400)
		return cfg_fail(err, errlen, path, "nickserv_password_file",
		    "the password is longer than 400 bytes");
	return 0;
}

/* How the bot talks: private lines, identities, the flood pace. */
static int
conf_sending(struct irc_config *c, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	const json_t *sub;
	const char *s;
	char p[256];
	long long v;
	int rc;

	s = "privmsg";
	if (cfg_choice(config, path, "private_messages", private_choices, 0,
	    &s, err, errlen) < 0)
		return -1;
	c->notice = strcmp(s, "notice") == 0;
	s = "mask";
	if (cfg_choice(config, path, "identity", identity_choices, 0, &s, err,
	    errlen) < 0)
		return -1;
	c->identity_account = strcmp(s, "account") == 0;
	c->burst = IRC_PACE_BURST;
	c->interval_ms = IRC_PACE_INTERVAL_MS;
	if ((rc = conf_sub(config, path, "flood", flood_keys, &sub, p,
	    sizeof(p), err, errlen)) < 0)
		return -1;
	if (rc == 0) {
		c->flood_given = 1;
		v = c->burst;
		if (cfg_int(sub, p, "burst", 1, 20, 0, &v, err, errlen) < 0)
			return -1;
		c->burst = (int)v;
		v = c->interval_ms;
		if (cfg_int(sub, p, "interval_ms", 100, 10000, 0, &v, err,
		    errlen) < 0)
			return -1;
		c->interval_ms = (int)v;
	}
	return 0;
}

/* Staying on: invitations, ping timeout, reconnecting. */
static int
conf_resilience(struct irc_config *c, const json_t *config,
    const char *path, char *err, size_t errlen)
{
	const json_t *sub;
	char p[256];
	long long v;
	int rc;

	if (cfg_bool(config, path, "join_on_invite", 0, &c->join_on_invite,
	    err, errlen) < 0)
		return -1;
	v = 240;
	if (cfg_int(config, path, "ping_timeout", 30, 600, 0, &v, err,
	    errlen) < 0)
		return -1;
	c->ping_timeout = (int)v;
	c->reconnect_min = 2;
	c->reconnect_max = 300;
	if ((rc = conf_sub(config, path, "reconnect", reconnect_keys, &sub, p,
	    sizeof(p), err, errlen)) < 0)
		return -1;
	if (rc == 0) {
		v = c->reconnect_min;
		if (cfg_int(sub, p, "min", 1, 3600, 0, &v, err, errlen) < 0)
			return -1;
		c->reconnect_min = (int)v;
		v = c->reconnect_max > c->reconnect_min ? c->reconnect_max :
		    c->reconnect_min;
		if (cfg_int(sub, p, "max", c->reconnect_min, 86400, 0, &v, err,
		    errlen) < 0)
			return -1;
		c->reconnect_max = (int)v;
	}
	return 0;
}

/*
 * The groups of keys are read in the order their first problem is
 * reported in; the caller frees c (irc_config_free()) on -1 too.
 */
int
irc_config_read(struct irc_config *c, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (cfg_object(config, path, err, errlen) != 0 ||
	    cfg_keys(config, path, irc_keys, config_network_keys, err,
	    errlen) != 0 ||
	    conf_server(c, config, path, err, errlen) != 0 ||
	    conf_names(c, config, path, err, errlen) != 0 ||
	    conf_login(c, config, path, err, errlen) != 0 ||
	    conf_sending(c, config, path, err, errlen) != 0 ||
	    conf_resilience(c, config, path, err, errlen) != 0)
		return -1;
	return 0;
}

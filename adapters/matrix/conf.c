/*
 * conf.c - the Matrix adapter's configuration (conf.h): a network object
 * of "type": "matrix" read and checked with the shared helpers of cfg.h,
 * so its errors read as every other configuration error.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "conf.h"
#include "config.h"
#include "json.h"
#include "proto.h"
#include "xmalloc.h"

static const char *const mx_keys[] = {
	"homeserver", "user_id", "password_file", "access_token_file",
	"device_id", "device_name", "invites", "sync_timeout_ms", "outage_ms",
	NULL,
};

static const char *const mx_invite_keys[] = {
	"allow_users", "allow_servers", NULL,
};

/* 1 when url is http:// or https:// followed by a host. */
static int
mx_url_valid(const char *url)
{
	const char *host;

	if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else
		return 0;
	if (*host == '\0' || *host == '/')
		return 0;
	for (const char *p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '?' ||
		    *p == '#')
			return 0;
	return 1;
}

int
mx_config_parse(const json_t *network, const char *path,
    struct mx_config *cfg, char *err, size_t errlen)
{
	const char *homeserver, *user_id, *s;
	const json_t *invites, *list;
	char where[256];
	long long n;
	size_t len;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sync_timeout_ms = 30000;
	cfg->outage_ms = 30000;
	if (cfg_keys(network, path, mx_keys, config_network_keys, err,
	    errlen) != 0)
		return -1;
	if (cfg_string(network, path, "homeserver", 1, &homeserver, err,
	    errlen) != 0)
		return -1;
	if (!mx_url_valid(homeserver))
		return cfg_fail(err, errlen, path, "homeserver",
		    "expected an http:// or https:// URL");
	if (cfg_string(network, path, "user_id", 1, &user_id, err,
	    errlen) != 0)
		return -1;
	if (!mx_user_id_valid(user_id))
		return cfg_fail(err, errlen, path, "user_id",
		    "expected a Matrix user id like @bot:example.org");
	cfg->homeserver = xstrdup(homeserver);
	cfg->user_id = xstrdup(user_id);
	/* Requests append "/_matrix/...": drop trailing slashes. */
	len = strlen(cfg->homeserver);
	while (len > 0 && cfg->homeserver[len - 1] == '/')
		cfg->homeserver[--len] = '\0';

	rc = cfg_string(network, path, "device_id", 0, &s, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0 && *s == '\0')
		return cfg_fail(err, errlen, path, "device_id",
		    "expected a non-empty string");
	if (rc == 0)
		cfg->device_id = xstrdup(s);
	s = "stichbot";
	if (cfg_string(network, path, "device_name", 0, &s, err, errlen) < 0)
		return -1;
	cfg->device_name = xstrdup(s);

	rc = cfg_int(network, path, "sync_timeout_ms", 1000, 120000, 0, &n,
	    err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0)
		cfg->sync_timeout_ms = (int)n;
	rc = cfg_int(network, path, "outage_ms", 1000, 600000, 0, &n, err,
	    errlen);
	if (rc < 0)
		return -1;
	if (rc == 0)
		cfg->outage_ms = (int)n;

	cfg->allow_users = mx_json(json_array());
	cfg->allow_servers = mx_json(json_array());
	invites = json_object_get(network, "invites");
	if (invites != NULL) {
		cfg_path(where, sizeof(where), path, "invites");
		if (cfg_keys(invites, where, mx_invite_keys, NULL, err,
		    errlen) != 0)
			return -1;
		if ((rc = cfg_strings(invites, where, "allow_users", 0, &list,
		    err, errlen)) < 0)
			return -1;
		if (rc == 0)
			mx_json_rc(json_array_extend(cfg->allow_users,
			    (json_t *)list));
		if ((rc = cfg_strings(invites, where, "allow_servers", 0,
		    &list, err, errlen)) < 0)
			return -1;
		if (rc == 0)
			mx_json_rc(json_array_extend(cfg->allow_servers,
			    (json_t *)list));
	}

	/* Secrets last, so a typo elsewhere is reported before a file. */
	if (json_object_get(network, "password_file") != NULL &&
	    json_object_get(network, "access_token_file") != NULL)
		return cfg_fail(err, errlen, path, NULL,
		    "password_file and access_token_file exclude each other");
	if (json_object_get(network, "password_file") == NULL &&
	    json_object_get(network, "access_token_file") == NULL)
		return cfg_fail(err, errlen, path, NULL,
		    "expected password_file or access_token_file");
	if (cfg_secret(network, path, "password_file", 0, &cfg->password, err,
	    errlen) < 0)
		return -1;
	if (cfg_secret(network, path, "access_token_file", 0,
	    &cfg->access_token, err, errlen) < 0)
		return -1;
	return 0;
}

void
mx_config_finish(struct mx_config *cfg)
{
	free(cfg->homeserver);
	free(cfg->user_id);
	cfg_secret_free(cfg->password);
	cfg_secret_free(cfg->access_token);
	free(cfg->device_id);
	free(cfg->device_name);
	json_decref(cfg->allow_users);
	json_decref(cfg->allow_servers);
	memset(cfg, 0, sizeof(*cfg));
}

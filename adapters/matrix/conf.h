/*
 * conf.h - the Matrix adapter's configuration (conf.c): the checked form
 * of a network object of "type": "matrix".
 *
 * Ownership: mx_config_parse() borrows the network object; every field
 * of struct mx_config is owned by it and freed by mx_config_finish().
 */
#ifndef STICHBOT_MATRIX_CONF_H
#define STICHBOT_MATRIX_CONF_H

#include <stddef.h>

#include <jansson.h>

/* A network object of "type": "matrix", checked. */
struct mx_config {
	char *homeserver;         /* base URL without a trailing '/' */
	char *user_id;            /* @bot:example.org */
	char *password;           /* secret, or NULL: wiped when freed */
	char *access_token;       /* secret, or NULL: wiped when freed */
	char *device_id;          /* NULL: the server picks one (kept) */
	char *device_name;
	json_t *allow_users;      /* owned: globs of users allowed to invite */
	json_t *allow_servers;    /* owned: servers allowed to invite */
	int sync_timeout_ms;
	/*
	 * How long the homeserver must stay unreachable before the bot
	 * counts as disconnected: one failed request is not an outage.
	 */
	int outage_ms;
};

/*
 * Fills cfg from a network object (borrowed) whose JSON path is path;
 * secrets are read from their files.  -1 with "PATH.KEY: ..." in err.
 * cfg is cleared first; call mx_config_finish() after success or failure.
 */
int mx_config_parse(const json_t *network, const char *path,
    struct mx_config *cfg, char *err, size_t errlen);
void mx_config_finish(struct mx_config *cfg);

#endif

/*
 * conf.h - the configuration of an IRC network (the keys of a
 * "type": "irc" entry of networks[]), read and checked once by the
 * adapter's init().  See README's IRC section and docs/stichbot.1 for the
 * keys.
 */
#ifndef STICHBOT_IRC_CONFIG_H
#define STICHBOT_IRC_CONFIG_H

#include <stddef.h>

#include <jansson.h>

struct irc_config {
	char *host;
	int port;
	int tls, tls_verify;
	char *ca_file;
	int pin;
	unsigned char fingerprint[32];
	char *nick;
	char **alt_nicks;
	int nalt;
	char *username, *realname;
	char *server_password;   /* secret */
	char *sasl_user;
	char *sasl_password;     /* secret */
	char *nickserv_password; /* secret */
	int notice;              /* private text as NOTICE */
	int burst, interval_ms;
	int flood_given;         /* "flood" configured: no server default */
	int join_on_invite;
	int ping_timeout;        /* s */
	int reconnect_min, reconnect_max;   /* s */
	int identity_account;    /* seats need a services account */
};

/*
 * Reads and checks config (its JSON path is path) into c: every key the
 * adapter knows with its defaults, unknown keys refused, secrets read
 * from their files.  0, or -1 with the first problem in err.
 */
int irc_config_read(struct irc_config *c, const json_t *config,
    const char *path, char *err, size_t errlen);
/* Frees what irc_config_read() allocated, wiping the secrets. */
void irc_config_free(struct irc_config *c);

#endif

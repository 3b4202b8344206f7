/*
 * tls.h - the IRC adapter's connection to the server: TCP, with TLS
 * when configured, made by libcurl (CURLOPT_CONNECT_ONLY) without blocking
 * the loop, then read and written with curl_easy_recv()/curl_easy_send().
 *
 * Debian's libircclient has no TLS, so the adapter lets libircclient talk
 * to a loopback socket and relays the bytes through this connection.  A
 * certificate fingerprint (SHA-256 of the server certificate's DER) is
 * checked from CURLINFO_CERTINFO, which every TLS backend of libcurl that
 * Debian ships fills in (OpenSSL, GnuTLS); see fingerprint.h.
 */
#ifndef STICHBOT_IRC_TLS_H
#define STICHBOT_IRC_TLS_H

#include <stddef.h>

struct loop;
struct irc_tls;

struct irc_tls_options {
	const char *host;
	int port;
	int tls;
	int verify;              /* check the chain and the host name */
	const char *ca_file;     /* NULL: the system's certificates */
	const unsigned char *fingerprint;   /* 32 bytes to pin, or NULL */
	long timeout_ms;         /* for TCP and the TLS handshake */
};

/*
 * Called once when connecting ends: ok 1 (the connection is ready), or 0
 * with a reason.  The callback may destroy t.
 */
typedef void (*irc_tls_done_fn)(struct irc_tls *t, int ok, const char *err,
    void *arg);

/* Starts connecting; NULL with a reason when it cannot even start. */
struct irc_tls *irc_tls_connect(struct loop *loop,
    const struct irc_tls_options *o, irc_tls_done_fn fn, void *arg,
    char *err, size_t errlen);
/* Closes the connection; NULL is fine. */
void irc_tls_destroy(struct irc_tls *t);
/* The connected socket, to watch in the loop (-1 before). */
int irc_tls_fd(const struct irc_tls *t);
/* Bytes sent, 0 when the socket is full, -1 with a reason. */
long irc_tls_send(struct irc_tls *t, const char *buf, size_t len, char *err,
    size_t errlen);
/*
 * Bytes received, 0 when nothing is there now, -1 with a reason (the
 * server closed the connection, or an error).  TLS may hold decrypted
 * bytes the socket no longer signals: read until 0.
 */
long irc_tls_recv(struct irc_tls *t, char *buf, size_t len, char *err,
    size_t errlen);

#endif

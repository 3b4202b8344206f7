/*
 * fingerprint.h - the SHA-256 fingerprint of a server's certificate,
 * which "tls_fingerprint" pins (tls.c checks it after the handshake).
 */
#ifndef STICHBOT_IRC_FINGERPRINT_H
#define STICHBOT_IRC_FINGERPRINT_H

#include <stddef.h>

/* SHA-256 (FIPS 180-4). */
void irc_sha256(const void *data, size_t len, unsigned char out[32]);
/* 64 hex digits, with or without colons; 0, or -1 when malformed. */
int irc_fingerprint_parse(const char *s, unsigned char out[32]);
/* "AB:CD:..." (95 characters and a NUL). */
void irc_fingerprint_format(const unsigned char fp[32], char out[96]);
/* SHA-256 of the first certificate of a PEM text; 0, or -1. */
int irc_pem_fingerprint(const char *pem, unsigned char out[32]);

#endif

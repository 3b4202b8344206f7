/*
 * cap.c - the pure parts of logging in (see proto.h): IRCv3 capability
 * lists, SASL PLAIN and the base64 it is written in.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto.h"
#include "xmalloc.h"

int
irc_cap_next(const char **pos, char *name, size_t namelen,
    const char **value, size_t *vlen, int *removed)
{
	const char *p = *pos, *start;
	size_t n;

	while (*p == ' ')
		p++;
	if (*p == '\0') {
		*pos = p;
		return 0;
	}
	*removed = 0;
	if (*p == '-') {
		*removed = 1;
		p++;
	}
	/* Modifiers of the CAP 3.1 draft. */
	while (*p == '~' || *p == '=')
		p++;
	start = p;
	while (*p != '\0' && *p != ' ' && *p != '=')
		p++;
	n = (size_t)(p - start);
	if (n >= namelen)
		n = namelen - 1;
	memcpy(name, start, n);
	name[n] = '\0';
	*value = NULL;
	*vlen = 0;
	if (*p == '=') {
		*value = ++p;
		while (*p != '\0' && *p != ' ')
			p++;
		*vlen = (size_t)(p - *value);
	}
	*pos = p;
	return 1;
}

int
irc_cap_find(const char *list, const char *name, const char **value,
    size_t *vlen)
{
	const char *pos = list, *v;
	char cap[128];
	size_t n;
	int removed;

	while (irc_cap_next(&pos, cap, sizeof(cap), &v, &n, &removed)) {
		if (!removed && strcmp(cap, name) == 0) {
			if (value != NULL)
				*value = v;
			if (vlen != NULL)
				*vlen = n;
			return 1;
		}
	}
	return 0;
}

int
irc_cap_request(const char *offered, const char *const *wanted,
    char *out, size_t outlen)
{
	size_t len = 0;
	int count = 0;

	if (outlen > 0)
		out[0] = '\0';
	for (size_t i = 0; wanted[i] != NULL; i++) {
		if (!irc_cap_find(offered, wanted[i], NULL, NULL))
			continue;
		if ((count > 0 && irc_append(out, outlen, &len, " ") != 0) ||
		    irc_append(out, outlen, &len, wanted[i]) != 0)
			break;
		count++;
	}
	return count;
}

int
irc_cap_sasl_plain(const char *offered)
{
	const char *value;
	size_t vlen, start = 0;

	if (!irc_cap_find(offered, "sasl", &value, &vlen))
		return 0;
	if (value == NULL || vlen == 0)
		return 1;
	for (size_t i = 0; i <= vlen; i++) {
		if (i < vlen && value[i] != ',')
			continue;
		if (i - start == 5 && strncasecmp(value + start, "PLAIN",
		    5) == 0)
			return 1;
		start = i + 1;
	}
	return 0;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
irc_base64_encode(const unsigned char *in, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		unsigned long v = (unsigned long)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned long)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[o] = '\0';
}

long
irc_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t outlen)
{
	unsigned long v = 0;
	size_t o = 0;
	int bits = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		const char *p;
		char c = in[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		/* Nothing but whitespace may follow the padding. */
		if (pad > 0 || c == '\0' || (p = strchr(b64, c)) == NULL)
			return -1;
		v = (v << 6 | (unsigned long)(p - b64)) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= outlen)
				return -1;
			out[o++] = (unsigned char)(v >> bits & 0xff);
		}
	}
	if (pad > 2 || bits >= 6)
		return -1;
	return (long)o;
}

int
irc_sasl_plain(const char *user, const char *password,
    void (*fn)(const char *arg, void *ctx), void *ctx)
{
	size_t ulen = strlen(user), plen = strlen(password);
	size_t rawlen = ulen + 1 + ulen + 1 + plen, enclen, off = 0;
	unsigned char *raw;
	char *enc, chunk[401];
	int count = 0;

	raw = xmalloc(rawlen);
	enc = xmalloc(4 * ((rawlen + 2) / 3) + 1);
	/* authzid and authcid are both the account. */
	memcpy(raw, user, ulen);
	raw[ulen] = '\0';
	memcpy(raw + ulen + 1, user, ulen);
	raw[2 * ulen + 1] = '\0';
	memcpy(raw + 2 * ulen + 2, password, plen);
	irc_base64_encode(raw, rawlen, enc);
	enclen = strlen(enc);
	explicit_bzero(raw, rawlen);
	free(raw);
	do {
		size_t n = enclen - off > 400 ? 400 : enclen - off;

		memcpy(chunk, enc + off, n);
		chunk[n] = '\0';
		fn(chunk, ctx);
		count++;
		off += n;
		if (n == 400 && off == enclen) {
			fn("+", ctx);
			count++;
		}
	} while (off < enclen);
	explicit_bzero(chunk, sizeof(chunk));
	explicit_bzero(enc, enclen);
	free(enc);
	return count;
}

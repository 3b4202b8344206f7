/*
 * fingerprint.c - pinning a server's certificate (see fingerprint.h):
 * SHA-256, fingerprints as configured and printed, and the fingerprint
 * of the PEM certificate libcurl reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint.h"
#include "proto.h"
#include "xmalloc.h"

/* SHA-256 after FIPS 180-4. */
struct sha256 {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char block[64];
	size_t used;
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t
ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void
sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		    w[i - 15] >> 3;
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
		    w[i - 2] >> 10;

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		    ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));

		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void
sha256_add(struct sha256 *s, const unsigned char *p, size_t len)
{
	s->bytes += len;
	while (len > 0) {
		size_t n = 64 - s->used < len ? 64 - s->used : len;

		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == 64) {
			sha256_block(s, s->block);
			s->used = 0;
		}
	}
}

void
irc_sha256(const void *data, size_t len, unsigned char out[32])
{
	static const uint32_t init[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	struct sha256 s;
	unsigned char pad[72];
	uint64_t bits;
	size_t padlen;

	memcpy(s.h, init, sizeof(init));
	s.bytes = 0;
	s.used = 0;
	sha256_add(&s, data, len);
	bits = s.bytes * 8;
	padlen = (s.used < 56 ? 56 : 120) - s.used;
	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_add(&s, pad, padlen + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s.h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s.h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s.h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s.h[i];
	}
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
irc_fingerprint_parse(const char *s, unsigned char out[32])
{
	int n = 0;

	for (; *s != '\0'; s++) {
		int v;

		if (*s == ':')
			continue;
		if ((v = hex_value(*s)) < 0 || n >= 64)
			return -1;
		if (n % 2 == 0)
			out[n / 2] = (unsigned char)(v << 4);
		else
			out[n / 2] |= (unsigned char)v;
		n++;
	}
	return n == 64 ? 0 : -1;
}

void
irc_fingerprint_format(const unsigned char fp[32], char out[96])
{
	static const char digits[] = "0123456789ABCDEF";

	for (int i = 0; i < 32; i++) {
		out[3 * i] = digits[fp[i] >> 4];
		out[3 * i + 1] = digits[fp[i] & 15];
		out[3 * i + 2] = i < 31 ? ':' : '\0';
	}
}

int
irc_pem_fingerprint(const char *pem, unsigned char out[32])
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	const char *start = strstr(pem, begin), *end;
	unsigned char *der;
	long n;

	if (start == NULL)
		return -1;
	start += sizeof(begin) - 1;
	if ((end = strstr(start, "-----END CERTIFICATE-----")) == NULL)
		return -1;
	der = xmalloc((size_t)(end - start));
	n = irc_base64_decode(start, (size_t)(end - start), der,
	    (size_t)(end - start));
	if (n <= 0) {
		free(der);
		return -1;
	}
	irc_sha256(der, (size_t)n, out);
	free(der);
	return 0;
}

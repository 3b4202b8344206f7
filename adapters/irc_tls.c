/*
 * irc_tls.c - the IRC adapter's server connection through libcurl (see
 * irc_tls.h).
 *
 * Connecting runs on libcurl's multi interface: its socket and timer
 * callbacks become loop watches and loop timers, so resolving, TCP and the
 * TLS handshake never block the bot.  Once the transfer is done the easy
 * handle keeps the connection (CURLOPT_CONNECT_ONLY) and the owner watches
 * its socket itself.  Proxies from the environment are not used: an IRC
 * connection is not HTTP.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "irc_proto.h"
#include "irc_tls.h"
#include "loop.h"

/* Sockets libcurl may watch at once while connecting (happy eyeballs). */
#define IRC_TLS_WATCH_MAX 8

struct irc_tls {
	struct loop *loop;
	CURLM *multi;
	CURL *easy;
	irc_tls_done_fn fn;
	void *arg;
	uint64_t timer;
	int done;                /* connecting has ended */
	int fd;
	int pin;
	unsigned char fingerprint[32];
	int watched[IRC_TLS_WATCH_MAX];
	int nwatched;
	char errbuf[CURL_ERROR_SIZE];
};

static void
unwatch_all(struct irc_tls *t)
{
	for (int i = 0; i < t->nwatched; i++)
		loop_unwatch(t->loop, t->watched[i]);
	t->nwatched = 0;
}

static void
finish(struct irc_tls *t, CURLcode result)
{
	struct curl_certinfo *ci = NULL;
	curl_socket_t sock = CURL_SOCKET_BAD;
	unsigned char fp[32];
	char err[CURL_ERROR_SIZE + 256], hex[96];
	int found = 0;

	t->done = 1;
	unwatch_all(t);
	loop_cancel(t->loop, t->timer);
	t->timer = 0;
	if (result != CURLE_OK) {
		snprintf(err, sizeof(err), "%s", t->errbuf[0] != '\0' ?
		    t->errbuf : curl_easy_strerror(result));
		t->fn(t, 0, err, t->arg);
		return;
	}
	if (curl_easy_getinfo(t->easy, CURLINFO_ACTIVESOCKET, &sock) !=
	    CURLE_OK || sock == CURL_SOCKET_BAD) {
		t->fn(t, 0, "libcurl gave no socket", t->arg);
		return;
	}
	t->fd = (int)sock;
	if (t->pin) {
		if (curl_easy_getinfo(t->easy, CURLINFO_CERTINFO, &ci) ==
		    CURLE_OK && ci != NULL && ci->num_of_certs > 0) {
			for (struct curl_slist *s = ci->certinfo[0]; s != NULL;
			    s = s->next) {
				if (strncmp(s->data, "Cert:", 5) == 0 &&
				    irc_pem_fingerprint(s->data + 5, fp) == 0) {
					found = 1;
					break;
				}
			}
		}
		if (!found) {
			t->fn(t, 0, "the server's certificate could not be "
			    "read to check its fingerprint", t->arg);
			return;
		}
		if (memcmp(fp, t->fingerprint, sizeof(fp)) != 0) {
			irc_fingerprint_format(fp, hex);
			snprintf(err, sizeof(err), "the server's certificate "
			    "has SHA-256 fingerprint %s, not the configured "
			    "tls_fingerprint", hex);
			t->fn(t, 0, err, t->arg);
			return;
		}
	}
	t->fn(t, 1, NULL, t->arg);
}

/* Looks for the end of the transfer; t may be gone when this returns 1. */
static int
check_done(struct irc_tls *t)
{
	CURLMsg *msg;
	int left;

	while (!t->done && (msg = curl_multi_info_read(t->multi, &left)) !=
	    NULL) {
		if (msg->msg == CURLMSG_DONE) {
			finish(t, msg->data.result);
			return 1;
		}
	}
	return 0;
}

static void
on_fd(struct loop *loop, int fd, int events, void *arg)
{
	struct irc_tls *t = arg;
	int action = 0, running;

	(void)loop;
	if (events & LOOP_READ)
		action |= CURL_CSELECT_IN;
	if (events & LOOP_WRITE)
		action |= CURL_CSELECT_OUT;
	curl_multi_socket_action(t->multi, fd, action, &running);
	check_done(t);
}

static void
on_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc_tls *t = arg;
	int running;

	(void)loop;
	(void)id;
	t->timer = 0;
	curl_multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_done(t);
}

static int
socket_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct irc_tls *t = userp;
	int events = 0;

	(void)easy;
	(void)socketp;
	/* After connecting, the owner watches the socket. */
	if (t->done)
		return 0;
	if (what == CURL_POLL_REMOVE) {
		loop_unwatch(t->loop, s);
		for (int i = 0; i < t->nwatched; i++) {
			if (t->watched[i] == s) {
				t->watched[i] = t->watched[--t->nwatched];
				break;
			}
		}
		return 0;
	}
	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		events |= LOOP_READ;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		events |= LOOP_WRITE;
	if (loop_watch(t->loop, s, events, on_fd, t) != 0)
		return -1;
	for (int i = 0; i < t->nwatched; i++)
		if (t->watched[i] == s)
			return 0;
	if (t->nwatched < IRC_TLS_WATCH_MAX)
		t->watched[t->nwatched++] = s;
	return 0;
}

static int
timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct irc_tls *t = userp;

	(void)multi;
	loop_cancel(t->loop, t->timer);
	t->timer = 0;
	/* Never call libcurl from here: the loop fires the timer later. */
	if (timeout_ms >= 0 && !t->done)
		t->timer = loop_timer(t->loop, (uint64_t)timeout_ms, on_timer,
		    t);
	return 0;
}

struct irc_tls *
irc_tls_connect(struct loop *loop, const struct irc_tls_options *o,
    irc_tls_done_fn fn, void *arg, char *err, size_t errlen)
{
	struct irc_tls *t;
	char url[512];
	int bracket = strchr(o->host, ':') != NULL;

	if ((size_t)snprintf(url, sizeof(url), "%s://%s%s%s:%d/",
	    o->tls ? "https" : "http", bracket ? "[" : "", o->host,
	    bracket ? "]" : "", o->port) >= sizeof(url)) {
		snprintf(err, errlen, "the host name is too long");
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->loop = loop;
	t->fn = fn;
	t->arg = arg;
	t->fd = -1;
	if (o->fingerprint != NULL) {
		t->pin = 1;
		memcpy(t->fingerprint, o->fingerprint, sizeof(t->fingerprint));
	}
	t->multi = curl_multi_init();
	t->easy = curl_easy_init();
	if (t->multi == NULL || t->easy == NULL) {
		snprintf(err, errlen, "libcurl could not start");
		irc_tls_destroy(t);
		return NULL;
	}
	curl_multi_setopt(t->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(t->multi, CURLMOPT_SOCKETDATA, t);
	curl_multi_setopt(t->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(t->multi, CURLMOPT_TIMERDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_URL, url);
	curl_easy_setopt(t->easy, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_PROXY, "");
	curl_easy_setopt(t->easy, CURLOPT_ERRORBUFFER, t->errbuf);
	curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(t->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	if (o->tls) {
		curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYPEER,
		    o->verify ? 1L : 0L);
		curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYHOST,
		    o->verify ? 2L : 0L);
		if (o->ca_file != NULL)
			curl_easy_setopt(t->easy, CURLOPT_CAINFO, o->ca_file);
		if (t->pin)
			curl_easy_setopt(t->easy, CURLOPT_CERTINFO, 1L);
	}
	if (curl_multi_add_handle(t->multi, t->easy) != CURLM_OK) {
		snprintf(err, errlen, "libcurl could not start");
		irc_tls_destroy(t);
		return NULL;
	}
	/*
	 * Adding the handle set a timer of 0 ms through timer_cb: the loop
	 * kicks libcurl, so fn is never called before this returns.
	 */
	return t;
}

void
irc_tls_destroy(struct irc_tls *t)
{
	if (t == NULL)
		return;
	/* No more callbacks into us while libcurl lets go. */
	t->done = 1;
	unwatch_all(t);
	if (t->fd >= 0)
		loop_unwatch(t->loop, t->fd);
	loop_cancel(t->loop, t->timer);
	if (t->multi != NULL && t->easy != NULL)
		curl_multi_remove_handle(t->multi, t->easy);
	if (t->easy != NULL)
		curl_easy_cleanup(t->easy);
	if (t->multi != NULL)
		curl_multi_cleanup(t->multi);
	free(t);
}

int
irc_tls_fd(const struct irc_tls *t)
{
	return t->fd;
}

long
irc_tls_send(struct irc_tls *t, const char *buf, size_t len, char *err,
    size_t errlen)
{
	size_t n = 0;
	CURLcode rc;

	rc = curl_easy_send(t->easy, buf, len, &n);
	if (rc == CURLE_AGAIN)
		return 0;
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", curl_easy_strerror(rc));
		return -1;
	}
	return (long)n;
}

long
irc_tls_recv(struct irc_tls *t, char *buf, size_t len, char *err,
    size_t errlen)
{
	size_t n = 0;
	CURLcode rc;

	rc = curl_easy_recv(t->easy, buf, len, &n);
	if (rc == CURLE_AGAIN)
		return 0;
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", curl_easy_strerror(rc));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "the server closed the connection");
		return -1;
	}
	return (long)n;
}

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
	if ((der = malloc((size_t)(end - start))) == NULL)
		return -1;
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

/*
 * tls.c - the IRC adapter's server connection through libcurl (see
 * tls.h).
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

#include "fingerprint.h"
#include "loop.h"
#include "tls.h"
#include "xmalloc.h"

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
	t = xcalloc(1, sizeof(*t));
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

/*
 * http.c - JSON over HTTP with libcurl's multi interface on the
 * bot's loop (http.h).
 *
 * Requests are kept in a list so that destroying the client cancels them
 * all.  A request that cannot even be set up (curl refuses an option) is
 * answered with an error from a zero-delay timer rather than from inside
 * mx_http_request(), so callbacks never run before the caller has the
 * handle.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "http.h"
#include "json.h"
#include "log.h"
#include "loop.h"
#include "parse.h"
#include "text.h"
#include "version.h"
#include "xmalloc.h"

/* The largest response read: an initial /sync of a big account fits. */
#define MX_HTTP_MAX_BODY (64u * 1024 * 1024)

struct mx_request {
	struct mx_http *http;
	struct mx_request *prev, *next;
	CURL *easy;
	struct curl_slist *headers;  /* may hold the token: wiped when freed */
	char *body;                  /* may hold a password: wiped when freed */
	struct text data;            /* the response body so far */
	long retry_after_ms;         /* from a Retry-After header, or -1 */
	mx_http_fn fn;
	void *arg;
	uint64_t fail_timer;         /* set when setting up failed */
	char errbuf[CURL_ERROR_SIZE];
};

struct mx_http {
	struct loop *loop;
	CURLM *multi;
	uint64_t timer;
	struct mx_request *requests;
};

static void mx_http_check(struct mx_http *http);

static void
on_fd(struct loop *loop, int fd, int events, void *arg)
{
	struct mx_http *http = arg;
	int running, flags = 0;

	(void)loop;
	if (events & LOOP_READ)
		flags |= CURL_CSELECT_IN;
	if (events & LOOP_WRITE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(http->multi, fd, flags, &running);
	mx_http_check(http);
}

static int
on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct mx_http *http = userp;
	int events = 0;

	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_REMOVE) {
		loop_unwatch(http->loop, fd);
		return 0;
	}
	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		events |= LOOP_READ;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		events |= LOOP_WRITE;
	return loop_watch(http->loop, fd, events, on_fd, http) == 0 ? 0 : -1;
}

static void
on_timeout(struct loop *loop, uint64_t id, void *arg)
{
	struct mx_http *http = arg;
	int running;

	(void)loop;
	(void)id;
	http->timer = 0;
	curl_multi_socket_action(http->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	mx_http_check(http);
}

static int
on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct mx_http *http = userp;

	(void)multi;
	loop_cancel(http->loop, http->timer);
	http->timer = 0;
	if (timeout_ms >= 0) {
		http->timer = loop_timer(http->loop, (uint64_t)timeout_ms,
		    on_timeout, http);
		if (http->timer == 0)
			return -1;
	}
	return 0;
}

struct mx_http *
mx_http_create(struct loop *loop, char *err, size_t errlen)
{
	struct mx_http *http;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "cannot initialise libcurl");
		return NULL;
	}
	http = xcalloc(1, sizeof(*http));
	if ((http->multi = curl_multi_init()) == NULL) {
		free(http);
		curl_global_cleanup();
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	http->loop = loop;
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETDATA, http);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERDATA, http);
	return http;
}

/* Unlinks req, detaches it from curl and frees it, wiping secrets. */
static void
mx_request_free(struct mx_request *req)
{
	struct mx_http *http = req->http;

	if (req->prev != NULL)
		req->prev->next = req->next;
	else
		http->requests = req->next;
	if (req->next != NULL)
		req->next->prev = req->prev;
	loop_cancel(http->loop, req->fail_timer);
	if (req->easy != NULL) {
		curl_multi_remove_handle(http->multi, req->easy);
		curl_easy_cleanup(req->easy);
	}
	for (struct curl_slist *h = req->headers; h != NULL; h = h->next)
		explicit_bzero(h->data, strlen(h->data));
	curl_slist_free_all(req->headers);
	if (req->body != NULL) {
		explicit_bzero(req->body, strlen(req->body));
		free(req->body);
	}
	text_finish(&req->data);
	free(req);
}

void
mx_http_destroy(struct mx_http *http)
{
	if (http == NULL)
		return;
	while (http->requests != NULL)
		mx_request_free(http->requests);
	curl_multi_cleanup(http->multi);
	loop_cancel(http->loop, http->timer);
	free(http);
	curl_global_cleanup();
}

/* Answers req with res, then frees it. */
static void
mx_request_done(struct mx_request *req, long status, const char *error)
{
	struct mx_response res;
	json_t *body = NULL;
	const json_t *after;
	mx_http_fn fn = req->fn;
	void *arg = req->arg;
	char why[64];

	if (error == NULL && req->data.len > 0) {
		json_error_t jerr;
		size_t mended = mx_json_mend(req->data.buf, req->data.len);

		if (mended > 0)
			log_debug("matrix: %zu character%s of a response "
			    "mended", mended, mended == 1 ? "" : "s");
		body = json_loadb(req->data.buf, req->data.len, 0, &jerr);
		/*
		 * Said by position only: jansson's text quotes the body,
		 * which may hold a private message.
		 */
		if (body == NULL) {
			snprintf(why, sizeof(why), "an answer that is no JSON "
			    "(byte %d)", jerr.position);
			error = why;
		}
	}
	memset(&res, 0, sizeof(res));
	res.status = status;
	res.error = error;
	res.body = body;
	res.errcode = json_string_value(json_object_get(body, "errcode"));
	after = json_object_get(body, "retry_after_ms");
	res.retry_after_ms = json_is_integer(after) ?
	    (long)json_integer_value(after) : req->retry_after_ms;
	/* The handle is dead before the callback: it may start new ones. */
	mx_request_free(req);
	fn(&res, arg);
	json_decref(body);
}

static void
mx_http_check(struct mx_http *http)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(http->multi, &left)) != NULL) {
		struct mx_request *req = NULL;
		CURLcode code = msg->data.result;
		char error[CURL_ERROR_SIZE];
		long status = 0;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&req);
		if (req == NULL)
			continue;
		if (code == CURLE_OK) {
			curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE,
			    &status);
			mx_request_done(req, status, NULL);
			continue;
		}
		snprintf(error, sizeof(error), "%s", req->errbuf[0] != '\0' ?
		    req->errbuf : curl_easy_strerror(code));
		mx_request_done(req, 0, error);
	}
}

static size_t
on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct mx_request *req = userdata;
	size_t n = size * nmemb;

	if (req->data.len + n > MX_HTTP_MAX_BODY)
		return 0;
	text_addn(&req->data, ptr, n);
	return n;
}

static size_t
on_header(char *ptr, size_t size, size_t nitems, void *userdata)
{
	struct mx_request *req = userdata;
	size_t n = size * nitems;
	static const char name[] = "retry-after:";

	/* Only the delta-seconds form; an HTTP date is rare from Matrix. */
	if (n > sizeof(name) - 1 &&
	    strncasecmp(ptr, name, sizeof(name) - 1) == 0) {
		char value[32];
		size_t len = n - (sizeof(name) - 1);
		char *end;
		long s;

		if (len >= sizeof(value))
			len = sizeof(value) - 1;
		memcpy(value, ptr + sizeof(name) - 1, len);
		value[len] = '\0';
		s = strtol(value, &end, 10);
		if (end != value && s >= 0 && s < 86400)
			req->retry_after_ms = s * 1000;
	}
	return n;
}

static void
on_setup_failed(struct loop *loop, uint64_t id, void *arg)
{
	struct mx_request *req = arg;

	(void)loop;
	(void)id;
	req->fail_timer = 0;
	mx_request_done(req, 0, "cannot set up the request");
}

/* Configures req's easy handle; -1 when curl refuses something. */
static int
mx_request_setup(struct mx_request *req, const char *method, const char *url,
    const char *token, long timeout_ms, int once)
{
	CURL *e = req->easy;
	struct curl_slist *h;
	struct text auth;
	int rc = 0;

	req->headers = curl_slist_append(NULL, "Accept: application/json");
	if (req->body != NULL) {
		req->headers = curl_slist_append(req->headers,
		    "Content-Type: application/json");
		/* No "100 Continue" round trip before bigger bodies. */
		req->headers = curl_slist_append(req->headers, "Expect:");
	}
	if (token != NULL) {
		text_init(&auth);
		text_add(&auth, "Authorization: Bearer ");
		text_add(&auth, token);
		h = curl_slist_append(req->headers, text_str(&auth));
		explicit_bzero(auth.buf, auth.cap);
		text_finish(&auth);
		if (h == NULL)
			return -1;
		req->headers = h;
	}
	if (req->headers == NULL)
		return -1;
	rc |= curl_easy_setopt(e, CURLOPT_URL, url);
	rc |= curl_easy_setopt(e, CURLOPT_PRIVATE, req);
	rc |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
	rc |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	rc |= curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
	rc |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	rc |= curl_easy_setopt(e, CURLOPT_HEADERDATA, req);
	rc |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->errbuf);
	rc |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	rc |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 15000L);
	/* A long poll to a server that vanished is noticed in a minute. */
	rc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	rc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
	rc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L);
	rc |= curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	rc |= curl_easy_setopt(e, CURLOPT_USERAGENT,
	    "stichbot/" STICHBOT_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
	rc |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	rc |= curl_easy_setopt(e, CURLOPT_PROTOCOLS,
	    (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (strcmp(method, "GET") != 0) {
		rc |= curl_easy_setopt(e, CURLOPT_POSTFIELDS,
		    req->body != NULL ? req->body : "");
		if (strcmp(method, "POST") != 0)
			rc |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
			    method);
	}
	/*
	 * libcurl sends a request again, unasked, when a connection it
	 * reused dies before any answer: the server may have carried out
	 * the first.  It never does so on a connection of the request's own.
	 */
	if (once)
		rc |= curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
	return rc == 0 ? 0 : -1;
}

static struct mx_request *
request_start(struct mx_http *http, const char *method, const char *url,
    const char *token, const json_t *body, long timeout_ms, int once,
    mx_http_fn fn, void *arg)
{
	struct mx_request *req = xcalloc(1, sizeof(*req));

	req->http = http;
	req->fn = fn;
	req->arg = arg;
	req->retry_after_ms = -1;
	text_init(&req->data);
	req->next = http->requests;
	if (http->requests != NULL)
		http->requests->prev = req;
	http->requests = req;
	if (body != NULL)
		req->body = mx_json_dump(body);
	else if (strcmp(method, "GET") != 0)
		req->body = xstrdup("{}");
	if ((req->easy = curl_easy_init()) == NULL ||
	    mx_request_setup(req, method, url, token, timeout_ms, once) != 0 ||
	    curl_multi_add_handle(http->multi, req->easy) != CURLM_OK) {
		if (req->easy != NULL) {
			curl_easy_cleanup(req->easy);
			req->easy = NULL;
		}
		req->fail_timer = loop_timer(http->loop, 0, on_setup_failed,
		    req);
		if (req->fail_timer == 0) {
			mx_request_free(req);
			return NULL;
		}
	}
	return req;
}

struct mx_request *
mx_http_request(struct mx_http *http, const char *method, const char *url,
    const char *token, const json_t *body, long timeout_ms, mx_http_fn fn,
    void *arg)
{
	return request_start(http, method, url, token, body, timeout_ms, 0,
	    fn, arg);
}

struct mx_request *
mx_http_request_once(struct mx_http *http, const char *method,
    const char *url, const char *token, const json_t *body, long timeout_ms,
    mx_http_fn fn, void *arg)
{
	return request_start(http, method, url, token, body, timeout_ms, 1,
	    fn, arg);
}

void
mx_http_cancel(struct mx_http *http, struct mx_request *req)
{
	(void)http;
	if (req != NULL)
		mx_request_free(req);
}

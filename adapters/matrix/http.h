/*
 * http.h - JSON requests over HTTP(S) with libcurl's multi
 * interface, driven by the bot's event loop: curl tells us which sockets
 * it wants (CURLMOPT_SOCKETFUNCTION -> loop_watch) and when to wake it
 * (CURLMOPT_TIMERFUNCTION -> loop_timer), and we call
 * curl_multi_socket_action() when either fires.  No threads, no blocking.
 *
 * Every request ends in exactly one call of its callback, unless it is
 * cancelled first (then never).  Access tokens travel in an Authorization
 * header and request bodies are wiped when freed: neither is logged.
 */
#ifndef STICHBOT_MATRIX_HTTP_H
#define STICHBOT_MATRIX_HTTP_H

#include <jansson.h>

struct loop;
struct mx_http;
struct mx_request;

struct mx_response {
	long status;              /* the HTTP status; 0 when none came */
	const char *error;        /* why no status or body came, or NULL */
	const json_t *body;       /* the JSON body, or NULL; borrowed */
	const char *errcode;      /* the body's Matrix errcode, or NULL */
	long retry_after_ms;      /* from the body or Retry-After; -1: none */
};

typedef void (*mx_http_fn)(const struct mx_response *res, void *arg);

struct mx_http *mx_http_create(struct loop *loop, char *err, size_t errlen);
/* Cancels every request (no callbacks) and frees; NULL is fine. */
void mx_http_destroy(struct mx_http *http);

/*
 * Starts a request: method "GET", "POST" or "PUT", token the access token
 * (NULL: none), body the JSON body (borrowed; NULL: none), timeout_ms the
 * longest the whole request may take.  Returns a handle for
 * mx_http_cancel(), or NULL when memory runs out (no callback then).
 */
struct mx_request *mx_http_request(struct mx_http *http, const char *method,
    const char *url, const char *token, const json_t *body, long timeout_ms,
    mx_http_fn fn, void *arg);
/*
 * mx_http_request() for a request the server must not carry out twice
 * (createRoom makes a room each time): libcurl itself never sends it
 * again.  Its own retries, with what they learn meanwhile, stay the
 * caller's.
 */
struct mx_request *mx_http_request_once(struct mx_http *http,
    const char *method, const char *url, const char *token,
    const json_t *body, long timeout_ms, mx_http_fn fn, void *arg);
/* Drops a request without calling its callback; NULL is fine. */
void mx_http_cancel(struct mx_http *http, struct mx_request *req);

#endif

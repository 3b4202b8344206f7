/*
 * matrix_harness.c - the Matrix adapter with a stub core, for
 * tests/matrix_test.py.
 *
 *   matrix_harness NETWORK.json STORE.db [--crash-on TEXT]
 *       [--crash-after TEXT]
 *
 * NETWORK.json is one network object of the configuration ("name" names
 * the network; default "matrix").  Every callback into the core is printed
 * as one JSON line on stdout ({"event": "message", ...}); commands are read
 * from stdin as JSON lines:
 *
 *   {"send_channel": ROOM, "text": T}   T may carry text.h marks
 *   {"send_private": USER, "text": T}
 *   (either may add "id": N and "flow": F, the core's struct send_info,
 *   and "expires_in": MS for its expiry, MS from now;
 *   adapter_sent() is reported as {"event": "sent", "id": N})
 *   {"join": ROOM}  {"part": ROOM}
 *   {"channel_admin": [ROOM, USER]}     prints {"event": "channel_admin"}
 *   {"queue_depth": true}               prints {"event": "queue_depth"}
 *   {"busy": FLOW}                      prints {"event": "busy"}
 *   {"flow_waiting": FLOW}              prints {"event": "flow_waiting"}
 *   {"self_name": true}                 prints {"event": "self_name"}
 *   {"channel_title": ROOM}             prints {"event": "channel_title"}
 *   {"withhold": true}                  the stop's withhold() (adapter.h)
 *   {"stop": GOODBYE}                   or the end of stdin
 *
 * A stop does what the core does at SIGTERM: it runs the loop until
 * queue_depth() is 0 (or 5 s passed) and only then calls stop().
 *
 * The stub core stores every message it is given as the real core stores
 * a move: in a batch (store_batch_begin), appended to the JSON array in
 * the store's kv under "harness:moves", so a test can count how often
 * each command took effect across crashes.
 *
 * With --crash-on, a message whose text is TEXT kills the process inside
 * the listener's message(), before the core would have stored it: the adapter must
 * deliver that message again after a restart, and nothing before it.
 * With --crash-after, the process dies right after that message's batch
 * was committed, before message() returns: the adapter must not
 * deliver it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "adapter.h"
#include "harness_events.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "store.h"
#include "text.h"

extern const struct adapter_impl matrix_adapter;

/* The common keys config.c would allow; config.c is not linked here. */
const char *const config_network_keys[] = {
	"name", "type", "admins", "defaults", "channels", NULL,
};

static struct loop *harness_loop;
static struct store *harness_store;
static struct adapter harness_adapter;
static struct adapter_listener harness_listener;
static const char *crash_on, *crash_after;
static uint64_t drain_end;
static char input[1 << 16];
static size_t input_len;

/* Appends text to "harness:moves" in one batch, as the core stores a move. */
static void
store_move(const char *text)
{
	char *old, *s;
	json_t *moves;

	if (store_batch_begin(harness_store) != 0)
		return;
	old = store_kv_get(harness_store, "harness:moves");
	moves = old != NULL ? json_loads(old, 0, NULL) : json_array();
	free(old);
	if (!json_is_array(moves)) {
		json_decref(moves);
		moves = json_array();
	}
	json_array_append_new(moves, json_string(text));
	s = json_dumps(moves, JSON_COMPACT);
	json_decref(moves);
	if (s == NULL || store_kv_set(harness_store, "harness:moves", s) != 0) {
		free(s);
		store_batch_rollback(harness_store);
		return;
	}
	free(s);
	store_batch_commit(harness_store);
}

static void
harness_message(void *data, struct adapter *adapter, const char *channel,
    const struct user *from, const char *text)
{
	(void)data;
	(void)adapter;
	if (crash_on != NULL && strcmp(text, crash_on) == 0) {
		emit(json_pack("{s:s, s:s}", "event", "crashing", "text",
		    text));
		_exit(3);
	}
	harness_print_message(channel, from, text);
	store_move(text);
	if (crash_after != NULL && strcmp(text, crash_after) == 0) {
		emit(json_pack("{s:s, s:s}", "event", "crashing", "text",
		    text));
		_exit(3);
	}
}

/* Runs the loop until the adapter has nothing left to do, then stops it. */
static void
on_drain(struct loop *loop, uint64_t id, void *arg)
{
	(void)id;
	(void)arg;
	if (harness_adapter.impl->queue_depth(&harness_adapter) == 0 ||
	    loop_now(loop) >= drain_end)
		loop_stop(loop);
	else
		loop_timer(loop, 20, on_drain, NULL);
}

static void
drain(void)
{
	if (drain_end != 0)
		return;
	drain_end = loop_now(harness_loop) + 5000;
	loop_timer(harness_loop, 0, on_drain, NULL);
}

static void
command(const char *line)
{
	const struct adapter_impl *impl = harness_adapter.impl;
	json_error_t error;
	json_t *cmd = json_loads(line, 0, &error), *v;
	const char *text = json_string_value(json_object_get(cmd, "text"));
	struct text t;
	struct send_info info = { 0 };
	int rc = 0;

	if (!json_is_object(cmd)) {
		emit(json_pack("{s:s, s:s}", "event", "bad_command", "line",
		    line));
		json_decref(cmd);
		return;
	}
	text_init(&t);
	/* Marks are allowed: the test writes them as \u001e and so on. */
	text_add(&t, text != NULL ? text : "");
	/* "id" and "flow" are the core's struct send_info. */
	info.id = (uint64_t)json_integer_value(json_object_get(cmd, "id"));
	info.flow = json_string_value(json_object_get(cmd, "flow"));
	if ((v = json_object_get(cmd, "expires_in")) != NULL)
		info.expires = loop_now(harness_loop) +
		    (uint64_t)json_integer_value(v);
	if ((v = json_object_get(cmd, "send_channel")) != NULL)
		rc = impl->send_channel(&harness_adapter, json_string_value(v),
		    &t, &info);
	else if ((v = json_object_get(cmd, "send_private")) != NULL)
		rc = impl->send_private(&harness_adapter, json_string_value(v),
		    &t, &info);
	else if ((v = json_object_get(cmd, "join")) != NULL)
		rc = impl->join(&harness_adapter, json_string_value(v));
	else if ((v = json_object_get(cmd, "part")) != NULL)
		rc = impl->part(&harness_adapter, json_string_value(v));
	else if ((v = json_object_get(cmd, "channel_admin")) != NULL)
		emit(json_pack("{s:s, s:b}", "event", "channel_admin", "admin",
		    impl->channel_admin(&harness_adapter,
		    json_string_value(json_array_get(v, 0)),
		    json_string_value(json_array_get(v, 1)))));
	else if (json_object_get(cmd, "queue_depth") != NULL)
		emit(json_pack("{s:s, s:i}", "event", "queue_depth", "depth",
		    (int)impl->queue_depth(&harness_adapter)));
	else if ((v = json_object_get(cmd, "flow_waiting")) != NULL)
		emit(json_pack("{s:s, s:i}", "event", "flow_waiting", "n",
		    (int)impl->flow_waiting(&harness_adapter,
		    json_string_value(v))));
	else if ((v = json_object_get(cmd, "busy")) != NULL)
		emit(json_pack("{s:s, s:b}", "event", "busy", "busy",
		    impl->busy(&harness_adapter, json_string_value(v))));
	else if (json_object_get(cmd, "self_name") != NULL)
		emit(json_pack("{s:s, s:s?}", "event", "self_name", "name",
		    impl->self_name(&harness_adapter)));
	else if ((v = json_object_get(cmd, "channel_title")) != NULL) {
		char title[256];

		impl->channel_title(&harness_adapter, json_string_value(v),
		    title, sizeof(title));
		emit(json_pack("{s:s, s:s}", "event", "channel_title", "title",
		    title));
	} else if (json_object_get(cmd, "withhold") != NULL) {
		if (impl->withhold != NULL)
			impl->withhold(&harness_adapter);
	} else if (json_object_get(cmd, "stop") != NULL)
		drain();
	else
		emit(json_pack("{s:s, s:s}", "event", "bad_command", "line",
		    line));
	if (rc != 0)
		emit(json_pack("{s:s, s:s}", "event", "command_failed", "line",
		    line));
	text_finish(&t);
	json_decref(cmd);
}

static void
on_stdin(struct loop *loop, int fd, int events, void *arg)
{
	ssize_t n;
	char *nl;

	(void)events;
	(void)arg;
	n = read(fd, input + input_len, sizeof(input) - 1 - input_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_unwatch(loop, fd);
		drain();
		return;
	}
	input_len += (size_t)n;
	input[input_len] = '\0';
	while ((nl = memchr(input, '\n', input_len)) != NULL) {
		*nl = '\0';
		if (nl > input)
			command(input);
		input_len -= (size_t)(nl + 1 - input);
		memmove(input, nl + 1, input_len);
		input[input_len] = '\0';
	}
	if (input_len == sizeof(input) - 1)
		input_len = 0;
}

static void
on_log(enum log_level level, const char *line, void *arg)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	(void)arg;
	fprintf(stderr, "harness %s: %s\n", names[level], line);
}

int
main(int argc, char **argv)
{
	json_error_t error;
	json_t *config;
	const char *name;
	char err[512];

	for (int i = 3; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--crash-on") == 0)
			crash_on = argv[i + 1];
		else if (strcmp(argv[i], "--crash-after") == 0)
			crash_after = argv[i + 1];
		else
			argc = 0;
	}
	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: matrix_harness NETWORK.json STORE.db "
		    "[--crash-on TEXT] [--crash-after TEXT]\n");
		return 2;
	}
	log_setup(LOG_LEVEL_DEBUG, 0);
	log_capture(on_log, NULL);
	if ((config = json_load_file(argv[1], 0, &error)) == NULL) {
		fprintf(stderr, "%s: %s\n", argv[1], error.text);
		return 1;
	}
	name = json_string_value(json_object_get(config, "name"));
	harness_adapter.impl = &matrix_adapter;
	harness_adapter.network = (char *)(name != NULL ? name : "matrix");
	harness_listener_init(&harness_listener, harness_message);
	harness_adapter.listener = &harness_listener;
	if (matrix_adapter.init(&harness_adapter, config, "networks[0]", err,
	    sizeof(err)) != 0) {
		emit(json_pack("{s:s, s:s}", "event", "init_error", "error",
		    err));
		matrix_adapter.finish(&harness_adapter);
		json_decref(config);
		return 1;
	}
	if ((harness_loop = loop_create(0)) == NULL ||
	    (harness_store = store_open(argv[2], err, sizeof(err))) == NULL) {
		fprintf(stderr, "matrix_harness: %s\n", err);
		return 1;
	}
	harness_adapter.loop = harness_loop;
	harness_adapter.store = harness_store;
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	loop_watch(harness_loop, 0, LOOP_READ, on_stdin, NULL);
	if (matrix_adapter.start(&harness_adapter) != 0) {
		emit(json_pack("{s:s}", "event", "start_failed"));
		return 1;
	}
	emit(json_pack("{s:s}", "event", "started"));
	loop_run(harness_loop);
	loop_unwatch(harness_loop, 0);
	matrix_adapter.stop(&harness_adapter, "goodbye");
	emit(json_pack("{s:s, s:i}", "event", "stopped", "queue_depth",
	    (int)matrix_adapter.queue_depth(&harness_adapter)));
	matrix_adapter.finish(&harness_adapter);
	store_close(harness_store);
	loop_destroy(harness_loop);
	json_decref(config);
	return 0;
}

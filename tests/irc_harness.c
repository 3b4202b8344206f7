/*
 * irc_harness.c - the IRC adapter with a stub core, for tests/irc_test.py.
 *
 *   irc_harness NETWORK.json [EARLY]
 *
 * NETWORK.json is one network object of the configuration ("name" names
 * the network; default "irc").  Every callback into the core is printed as
 * one JSON line on stdout ({"event": "message", ...}); commands are read
 * from stdin as JSON lines:
 *
 *   {"send_channel": CHANNEL, "text": T}   T may carry text.h marks
 *   {"send_private": USER_ID, "text": T}
 *   (either may add "id": N and "flow": F, the core's struct send_info,
 *   and "expires_in": MS for its expiry, MS from now;
 *   adapter_sent() is reported as {"event": "sent", "id": N})
 *   {"join": CHANNEL}  {"part": CHANNEL}
 *   {"queue_depth": true}                  prints {"event": "queue_depth"}
 *   {"self_name": true}                    prints {"event": "self_name"}
 *   {"busy": FLOW}                         prints {"event": "busy"}
 *   {"stop": GOODBYE}                      or the end of stdin
 *
 * EARLY is a file of such commands run before start(), as the core does
 * with the lines of games it restores before it connects.
 *
 * STICHBOT_LOG=debug makes the adapter's log (stderr) verbose.
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
#include "log.h"
#include "loop.h"
#include "text.h"

extern const struct adapter_impl irc_adapter;

/* config.c (linked for config_network_keys) looks adapters up here. */
const struct adapter_impl *const adapter_registry[] = {
	&irc_adapter,
	NULL,
};

const struct adapter_impl *
adapter_find(const char *name)
{
	return strcmp(name, "irc") == 0 ? &irc_adapter : NULL;
}

static struct loop *harness_loop;
static struct adapter harness_adapter;
static struct adapter_listener harness_listener;
static char input[1 << 16];
static size_t input_len;
static int stopping;

static void
stop(const char *goodbye)
{
	if (stopping)
		return;
	stopping = 1;
	irc_adapter.stop(&harness_adapter, goodbye);
	emit(json_pack("{s:s}", "event", "stopped"));
	loop_stop(harness_loop);
}

static void
command(const char *line)
{
	const struct adapter_impl *impl = &irc_adapter;
	json_error_t jerr;
	/* NUL is allowed: the adapter must never send one. */
	json_t *cmd = json_loads(line, JSON_ALLOW_NUL, &jerr), *v;
	struct text t;
	struct send_info info = { 0 };
	int rc = 0;

	if (cmd == NULL || !json_is_object(cmd)) {
		emit(json_pack("{s:s, s:s}", "event", "error", "error",
		    "bad command"));
		json_decref(cmd);
		return;
	}
	text_init(&t);
	/* The test's words are "our own": text.h marks pass. */
	if ((v = json_object_get(cmd, "text")) != NULL && json_is_string(v))
		text_addn(&t, json_string_value(v), json_string_length(v));
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
	else if (json_object_get(cmd, "queue_depth") != NULL)
		emit(json_pack("{s:s, s:I}", "event", "queue_depth", "depth",
		    (json_int_t)impl->queue_depth(&harness_adapter)));
	else if (json_object_get(cmd, "self_name") != NULL)
		emit(json_pack("{s:s, s:s?}", "event", "self_name", "name",
		    impl->self_name(&harness_adapter)));
	else if ((v = json_object_get(cmd, "busy")) != NULL)
		emit(json_pack("{s:s, s:b}", "event", "busy", "busy",
		    impl->busy(&harness_adapter, json_string_value(v))));
	else if ((v = json_object_get(cmd, "stop")) != NULL)
		stop(json_is_string(v) ? json_string_value(v) : NULL);
	if (rc != 0)
		emit(json_pack("{s:s, s:s}", "event", "error", "error", line));
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
	n = read(fd, input + input_len, sizeof(input) - input_len - 1);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_unwatch(loop, fd);
		stop(NULL);
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
	}
	if (input_len == sizeof(input) - 1)
		input_len = 0;
}

int
main(int argc, char **argv)
{
	const char *level = getenv("STICHBOT_LOG");
	json_error_t jerr;
	json_t *config, *name;
	char err[512];

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: irc_harness NETWORK.json [EARLY]\n");
		return 2;
	}
	log_setup(level != NULL && log_level_parse(level) >= 0 ?
	    (enum log_level)log_level_parse(level) : LOG_LEVEL_INFO, 0);
	if ((config = json_load_file(argv[1], 0, &jerr)) == NULL) {
		fprintf(stderr, "%s: %s\n", argv[1], jerr.text);
		return 2;
	}
	name = json_object_get(config, "name");
	harness_adapter.impl = &irc_adapter;
	harness_adapter.network = (char *)(json_is_string(name) ?
	    json_string_value(name) : "irc");
	harness_listener_init(&harness_listener, NULL);
	harness_adapter.listener = &harness_listener;
	if (irc_adapter.init(&harness_adapter, config, "networks[0]", err,
	    sizeof(err)) != 0) {
		emit(json_pack("{s:s, s:s}", "event", "init_failed", "error",
		    err));
		json_decref(config);
		return 1;
	}
	harness_loop = loop_create(0);
	harness_adapter.loop = harness_loop;
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	loop_watch(harness_loop, 0, LOOP_READ, on_stdin, NULL);
	if (argc == 3) {
		FILE *f = fopen(argv[2], "r");
		char line[8192];

		if (f == NULL) {
			fprintf(stderr, "%s: cannot open\n", argv[2]);
			return 2;
		}
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] != '\0')
				command(line);
		}
		fclose(f);
	}
	if (irc_adapter.start(&harness_adapter) != 0) {
		emit(json_pack("{s:s}", "event", "start_failed"));
		return 1;
	}
	emit(json_pack("{s:s}", "event", "started"));
	loop_run(harness_loop);
	irc_adapter.finish(&harness_adapter);
	loop_destroy(harness_loop);
	json_decref(config);
	return 0;
}

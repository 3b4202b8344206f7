/*
 * harness_events.h - the stub core the adapter harnesses share
 * (irc_harness.c, matrix_harness.c): every event an adapter reports is
 * printed as one JSON line on stdout, which the Python tests read.
 */
#ifndef STICHBOT_HARNESS_EVENTS_H
#define STICHBOT_HARNESS_EVENTS_H

#include <jansson.h>

#include "adapter.h"

/* Prints obj (stolen) as one line on stdout. */
void emit(json_t *obj);
/* {"id", "name"}, with "mask" and "guest" only when set; a new object. */
json_t *user_json(const struct user *u);
/* Prints a message event, as the listener's default message does. */
void harness_print_message(const char *channel, const struct user *from,
    const char *text);
/*
 * Fills out with callbacks that print each event; message is the
 * harness's own (NULL: harness_print_message()).
 */
void harness_listener_init(struct adapter_listener *out,
    void (*message)(void *data, struct adapter *adapter,
    const char *channel, const struct user *from, const char *text));

#endif

/*
 * json.h - running out of memory in jansson, handled one way for the
 * Matrix adapter: fatal, as xmalloc.h does for the adapter's own memory.
 *
 * A jansson call returns NULL (or -1) both when an allocation fails and
 * when its input is wrong (a string that is not UTF-8, a key missing).
 * The adapter tells the two apart where it calls jansson:
 *
 * - mx_json() and mx_json_rc() wrap calls whose input is known good (an
 *   empty object or array, a copy of a value, strings that came out of
 *   parsed JSON, the configuration or a checked user id): only memory can
 *   fail them, and that is fatal.
 * - mx_json_pack() is json_pack() for input that may be wrong (text from
 *   the core or a file): fatal when memory runs out, NULL when jansson
 *   refuses the input, which the caller then refuses too.
 *
 * Ownership is jansson's: each returns what the call it wraps returns (a
 * new reference from a constructor).
 */
#ifndef STICHBOT_MATRIX_JSON_H
#define STICHBOT_MATRIX_JSON_H

#include <jansson.h>

/* v, the result of a constructor that only memory can fail; never NULL. */
json_t *mx_json(json_t *v);
/* The result of json_object_set_new() and the like: -1 is fatal. */
void mx_json_rc(int rc);
/* json_pack(): fatal when memory runs out, NULL for input it refuses. */
json_t *mx_json_pack(const char *fmt, ...);
/* json_dumps(v, JSON_COMPACT), a new string; never NULL. */
char *mx_json_dump(const json_t *v);

#endif

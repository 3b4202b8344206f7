/*
 * json.c - jansson's failures to allocate made fatal for the Matrix
 * adapter (json.h), as xmalloc.c does with the adapter's own memory.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "json.h"
#include "log.h"

/* Logs and aborts, as xmalloc.c does (see there for why abort()). */
static void __attribute__((noreturn))
json_fatal(const char *what)
{
	log_error("out of memory: %s failed", what);
	abort();
}

json_t *
mx_json(json_t *v)
{
	if (v == NULL)
		json_fatal("a jansson value");
	return v;
}

void
mx_json_rc(int rc)
{
	if (rc != 0)
		json_fatal("adding to a jansson value");
}

json_t *
mx_json_pack(const char *fmt, ...)
{
	json_error_t error;
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	v = json_vpack_ex(&error, 0, fmt, ap);
	va_end(ap);
	if (v == NULL && json_error_code(&error) == json_error_out_of_memory)
		json_fatal("json_pack");
	return v;
}

char *
mx_json_dump(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);

	if (s == NULL)
		json_fatal("json_dumps");
	return s;
}

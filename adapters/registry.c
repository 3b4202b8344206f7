/*
 * registry.c - the chat adapters stichbot knows, by name.
 *
 * Each adapter lives in its own file and exports one const descriptor; a
 * network's "type" in the configuration picks one from this list.
 */
#include <string.h>

#include "adapter.h"
#include "console.h"
#include "memory.h"

extern const struct adapter_impl matrix_adapter;
extern const struct adapter_impl irc_adapter;

const struct adapter_impl *const adapter_registry[] = {
	&console_adapter,
	&memory_adapter,
	&matrix_adapter,
	&irc_adapter,
	NULL,
};

const struct adapter_impl *
adapter_find(const char *name)
{
	for (size_t i = 0; adapter_registry[i] != NULL; i++)
		if (strcmp(adapter_registry[i]->name, name) == 0)
			return adapter_registry[i];
	return NULL;
}

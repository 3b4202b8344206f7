/*
 * registry.c - the chat adapters stichbot knows, by name.
 *
 * Each adapter lives in its own file and exports one const descriptor; a
 * network's "type" in the configuration picks one from this list.
 */
#include <string.h>

#include "adapter.h"

const struct adapter_impl *const adapter_registry[] = {
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

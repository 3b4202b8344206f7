/*
 * cli_check_config.c - `stichbot check-config FILE`: checks a configuration
 * the way `stichbot run` would read it, including every network's adapter
 * keys, without connecting anywhere, so a change can be checked before
 * `systemctl reload`.
 */
#include <stdio.h>
#include <string.h>

#include "adapter.h"
#include "cli.h"
#include "config.h"

static void
usage(FILE *out)
{
	fprintf(out, "usage: stichbot check-config FILE\n\n"
	    "Checks a configuration file (the common keys and every "
	    "network's adapter\nkeys, secret files included) without "
	    "connecting anywhere.\n\n"
	    "Exit status: 0 when the file is fine, 1 when it is not "
	    "(the first problem\nis written to stderr), 2 for a wrong "
	    "argument.\n");
}

/*
 * Runs the adapter's init() on a network as bot_configure() will, on an
 * adapter that belongs to no bot: init() only reads its configuration.
 */
static int
check_network(const struct config_network *net, char *err, size_t errlen)
{
	const struct adapter_impl *impl = config_adapter_find(net->type);
	struct adapter adapter;
	int rc;

	if (impl == NULL) {
		snprintf(err, errlen, "%s.type: unknown adapter \"%s\"",
		    net->path, net->type);
		return -1;
	}
	memset(&adapter, 0, sizeof(adapter));
	adapter.impl = impl;
	adapter.network = net->name;
	rc = impl->init(&adapter, net->json, net->path, err, errlen);
	impl->finish(&adapter);
	return rc;
}

int
cli_check_adapters(const struct config *config, char *err, size_t errlen)
{
	for (size_t i = 0; i < config->nnetworks; i++)
		if (check_network(&config->networks[i], err, errlen) != 0)
			return -1;
	return 0;
}

int
cli_check_config(int argc, char **argv)
{
	struct config *config;
	char err[1024];
	size_t nchannels = 0;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	if ((config = config_load(argv[1], err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (cli_check_adapters(config, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		config_destroy(config);
		return 1;
	}
	for (size_t i = 0; i < config->nnetworks; i++)
		nchannels += config->networks[i].nchannels;
	printf("%s: ok (%zu network%s, %zu channel%s)\n", argv[1],
	    config->nnetworks, config->nnetworks == 1 ? "" : "s", nchannels,
	    nchannels == 1 ? "" : "s");
	config_destroy(config);
	return 0;
}

/*
 * cli_check_config.c - `stichbot check-config FILE`: checks a configuration
 * the way `stichbot run` would read it, including every network's adapter
 * keys, without connecting anywhere, so a change can be checked before
 * `systemctl reload`.
 *
 * Secrets named by a bare credential name live in $CREDENTIALS_DIRECTORY,
 * which only the service has (systemd's LoadCredential=).  Where it is
 * not set (a fresh checkout, an admin's shell) the check goes on with
 * stand-in files and says, for each such secret, how the service gets
 * it; --strict requires every secret to be readable.
 *
 * The store's path is checked as far as it can be from another user's
 * shell: a directory, or a file in a directory that does not exist, is
 * refused, since `run` would refuse it at start; whether the service's
 * user may write there is left to `run`.  ":memory:" passes with a
 * warning: such a bot keeps nothing, which only tests want.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapter.h"
#include "cli.h"
#include "config.h"

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

/*
 * Refuses a store path that `run` cannot open whoever runs it: a
 * directory, a missing directory, a file where a directory must be.  A
 * path this user may not look into (EACCES) passes: the service's user
 * may.  0, or -1 with the reason in err.
 */
static int
check_store(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	int n;

	if (strcmp(path, ":memory:") == 0)
		return 0;
	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return 0;
		snprintf(err, errlen, "store: \"%s\" is a directory; the "
		    "store is a file in it, e.g. \"%s%sstichbot.db\"", path,
		    path, path[strlen(path) - 1] == '/' ? "" : "/");
		return -1;
	}
	if (errno == ENOTDIR) {
		snprintf(err, errlen, "store: \"%s\": a part of the path is "
		    "not a directory", path);
		return -1;
	}
	if (errno != ENOENT || (slash = strrchr(path, '/')) == NULL)
		return 0;
	/* A missing file is made at the first start; its directory is not. */
	n = slash == path ? 1 : (int)(slash - path);
	snprintf(dir, sizeof(dir), "%.*s", n, path);
	if (stat(dir, &st) != 0 && errno == ENOENT) {
		snprintf(err, errlen, "store: \"%s\": the directory %.*s does "
		    "not exist (the bot makes the store file, not its "
		    "directory)", path, n, path);
		return -1;
	}
	return 0;
}

/* The stand-in credentials of a check without $CREDENTIALS_DIRECTORY. */
struct standins {
	char dir[64];
	int made;
	int count;
};

/*
 * Finds every KEY_file that names a credential (a bare name) under value,
 * at JSON path path; writes a stand-in file for it into the directory and
 * notes on stderr how the service is to get it.
 */
static int
standin_credentials(const json_t *value, const char *path,
    struct standins *s)
{
	const char *key;
	json_t *item;
	size_t i;
	char sub[512], file[PATH_MAX];

	if (json_is_array(value)) {
		json_array_foreach(value, i, item) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			if (standin_credentials(item, sub, s) != 0)
				return -1;
		}
		return 0;
	}
	json_object_foreach((json_t *)value, key, item) {
		const char *name = json_string_value(item);
		size_t n = strlen(key);
		int fd;

		if (strncmp(key, "//", 2) == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (json_is_object(item) || json_is_array(item)) {
			if (standin_credentials(item, sub, s) != 0)
				return -1;
			continue;
		}
		if (n < 5 || strcmp(key + n - 5, "_file") != 0 ||
		    name == NULL || name[0] == '\0' || strchr(name, '/') != NULL ||
		    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (!s->made) {
			snprintf(s->dir, sizeof(s->dir),
			    "/tmp/stichbot-check-XXXXXX");
			if (mkdtemp(s->dir) == NULL)
				return -1;
			s->made = 1;
		}
		snprintf(file, sizeof(file), "%s/%s", s->dir, name);
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, "stand-in\n", 9) != 9) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		s->count++;
		/* The name is not shown: it might be a secret typed there. */
		fprintf(stderr, "note: %s: credential not read "
		    "($CREDENTIALS_DIRECTORY is not set); the service gets it "
		    "with LoadCredential=NAME:/path/to/file, NAME being this "
		    "key's value (or give an absolute path)\n", sub);
	}
	return 0;
}

/* Removes the stand-in files and their private directory. */
static void
standins_remove(struct standins *s)
{
	char file[PATH_MAX];
	struct dirent *entry;
	DIR *dir;

	if (!s->made)
		return;
	if ((dir = opendir(s->dir)) != NULL) {
		while ((entry = readdir(dir)) != NULL) {
			if (strcmp(entry->d_name, ".") == 0 ||
			    strcmp(entry->d_name, "..") == 0)
				continue;
			snprintf(file, sizeof(file), "%s/%s", s->dir,
			    entry->d_name);
			unlink(file);
		}
		closedir(dir);
	}
	rmdir(s->dir);
	s->made = 0;
}

static int
check_config_main(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config *config;
	struct standins standins;
	const char *dir = getenv("CREDENTIALS_DIRECTORY"), *file;
	char err[1024];
	size_t nchannels = 0;
	int ch, strict = 0;

	while ((ch = cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case 's':
			strict = 1;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 1) {
		if (argc - optind > 1)
			cli_error(cmd, "too many arguments: one FILE, not "
			    "also \"%s\"", argv[optind + 1]);
		else
			cli_error(cmd, "the configuration FILE is missing");
		cli_usage(cmd, stderr);
		return 2;
	}
	file = argv[optind];
	/* Its errors start as run's do: "stichbot check-config: FILE...". */
	if ((config = config_load(file, err, sizeof(err))) == NULL) {
		cli_error(cmd, "%s", err);
		return 1;
	}
	if (check_store(config->store_path, err, sizeof(err)) != 0) {
		cli_error(cmd, "%s: %s", file, err);
		config_destroy(config);
		return 1;
	}
	if (strcmp(config->store_path, ":memory:") == 0)
		fprintf(stderr, "warning: %s: store: \":memory:\" keeps "
		    "nothing; every game, lobby and statistic is lost when the "
		    "bot stops (meant for tests)\n", file);
	memset(&standins, 0, sizeof(standins));
	if (!strict && (dir == NULL || *dir == '\0')) {
		for (size_t i = 0; i < config->nnetworks; i++) {
			if (standin_credentials(config->networks[i].json,
			    config->networks[i].path, &standins) != 0) {
				cli_error(cmd, "%s: cannot make stand-in "
				    "credentials: %s", file, strerror(errno));
				standins_remove(&standins);
				config_destroy(config);
				return 1;
			}
		}
		if (standins.made)
			setenv("CREDENTIALS_DIRECTORY", standins.dir, 1);
	}
	if (cli_check_adapters(config, err, sizeof(err)) != 0) {
		cli_error(cmd, "%s: %s", file, err);
		standins_remove(&standins);
		config_destroy(config);
		return 1;
	}
	standins_remove(&standins);
	for (size_t i = 0; i < config->nnetworks; i++)
		nchannels += config->networks[i].nchannels;
	printf("%s: ok (%zu network%s, %zu channel%s)\n", file,
	    config->nnetworks, config->nnetworks == 1 ? "" : "s", nchannels,
	    nchannels == 1 ? "" : "s");
	config_destroy(config);
	return 0;
}

const struct cli_command cli_check_config_command = {
	.name = "check-config",
	.usage = "stichbot check-config [--strict] FILE",
	.summary = "check a configuration file without connecting",
	.help = "Checks a configuration file (the common keys and every "
	    "network's adapter\nkeys, secret files included) without "
	    "connecting anywhere.  Secrets given as\ncredential names are "
	    "read from $CREDENTIALS_DIRECTORY; where it is not set,\nthey "
	    "are noted and not read, unless --strict.\n\n"
	    "  --strict    require every secret to be readable (default: "
	    "off)\n"
	    "  -h, --help  this help\n\n"
	    "Exit status: 0 when the file is fine, 1 when it is not "
	    "(the first problem\nis written to stderr), 2 for a wrong "
	    "argument.\n",
	.run = check_config_main,
};

/*
 * cli_export.c - `stichbot export`: writes stored games as records
 * (RECORD.md), one compact JSON object per line and oldest first, so that
 * `stichbot replay --lines` can check a whole history at once.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"
#include "store.h"

#define STORE_FILE "stichbot.db"

static void
usage(FILE *out)
{
	fprintf(out, "usage: stichbot export [--store PATH] [--channel C] "
	    "[--game ID] [--running]\n"
	    "       stichbot export [--store PATH] --damaged\n\n"
	    "Writes the stored games that ended (finished or abandoned) as "
	    "records,\none compact JSON object per line, oldest first.\n\n"
	    "  --store PATH  the store (default: $STATE_DIRECTORY/"
	    STORE_FILE ",\n"
	    "                or ./" STORE_FILE " without STATE_DIRECTORY)\n"
	    "  --channel C   only games of channel or room C\n"
	    "  --game ID     only the game with this id\n"
	    "  --running     also games still running\n"
	    "  --damaged     only the games set aside at start-up because "
	    "their rows\n"
	    "                could not be read or replayed, raw: the stored "
	    "texts\n"
	    "                as JSON strings, with the reason\n\n"
	    "Exit status: 0, or 2 when the store cannot be read or an "
	    "argument is wrong.\n");
}

/*
 * The default store: the bot's state directory under systemd, else the
 * current directory.  systemd lists several state directories separated
 * by colons; the bot uses the first.
 */
static int
default_path(char *buf, size_t len)
{
	const char *dir = getenv("STATE_DIRECTORY");
	size_t dirlen;
	int n;

	if (dir == NULL || dir[0] == '\0')
		n = snprintf(buf, len, "./%s", STORE_FILE);
	else {
		dirlen = strcspn(dir, ":");
		n = snprintf(buf, len, "%.*s/%s", (int)dirlen, dir,
		    STORE_FILE);
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Parses a game id: a whole positive decimal number. */
static int
parse_id(const char *text, int64_t *id)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v <= 0)
		return -1;
	*id = v;
	return 0;
}

struct export {
	FILE *out;
	int failed;
};

static int
write_json(const json_t *obj, void *arg)
{
	struct export *ex = arg;

	if (json_dumpf(obj, ex->out, JSON_COMPACT |
	    JSON_PRESERVE_ORDER) != 0 || fputc('\n', ex->out) == EOF) {
		ex->failed = 1;
		return 1;
	}
	return 0;
}

static int
write_game(const struct store_game *game, void *arg)
{
	return write_json(game->record, arg);
}

int
cli_export(int argc, char **argv)
{
	char path[PATH_MAX], err[512];
	const char *store_path = NULL, *channel = NULL;
	struct export ex = { stdout, 0 };
	struct store *store;
	struct stat st;
	int64_t id = 0;
	int running = 0, damaged = 0, rc;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(arg, "--running") == 0) {
			running = 1;
		} else if (strcmp(arg, "--damaged") == 0) {
			damaged = 1;
		} else if (strcmp(arg, "--store") == 0 ||
		    strcmp(arg, "--channel") == 0 ||
		    strcmp(arg, "--game") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "stichbot export: %s needs a "
				    "value\n", arg);
				return 2;
			}
			if (strcmp(arg, "--store") == 0)
				store_path = argv[++i];
			else if (strcmp(arg, "--channel") == 0)
				channel = argv[++i];
			else if (parse_id(argv[++i], &id) != 0) {
				fprintf(stderr, "stichbot export: --game needs "
				    "a game id (a positive number), not "
				    "\"%s\"\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "stichbot export: unknown argument "
			    "\"%s\" (try --help)\n", arg);
			return 2;
		}
	}
	if (damaged && (channel != NULL || id != 0 || running)) {
		fprintf(stderr, "stichbot export: --damaged takes no other "
		    "filter\n");
		return 2;
	}
	if (store_path == NULL) {
		if (default_path(path, sizeof(path)) != 0) {
			fprintf(stderr, "stichbot export: STATE_DIRECTORY is "
			    "too long\n");
			return 2;
		}
		store_path = path;
	}
	/* Opening would create a missing store; exporting one is a mistake. */
	if (stat(store_path, &st) != 0) {
		fprintf(stderr, "stichbot export: %s: %s\n", store_path,
		    strerror(errno));
		return 2;
	}
	store = store_open(store_path, err, sizeof(err));
	if (store == NULL) {
		fprintf(stderr, "stichbot export: %s\n", err);
		return 2;
	}
	if (damaged)
		rc = store_each_damaged(store, write_json, &ex);
	else
		rc = store_each_game(store, channel, id, running, write_game,
		    &ex);
	store_close(store);
	if (ex.failed || fflush(stdout) != 0) {
		fprintf(stderr, "stichbot export: cannot write: %s\n",
		    strerror(errno));
		return 2;
	}
	if (rc != 0) {
		fprintf(stderr, "stichbot export: some stored games could not "
		    "be read\n");
		return 2;
	}
	return 0;
}

/*
 * cli_export.c - `stichbot export`: writes stored games as records
 * (RECORD.md), one compact JSON object per line and oldest first, so that
 * `stichbot replay --lines` can check a whole history at once.  It only
 * reads the store, beside a running bot or from a copy it may not write.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"
#include "store.h"

#define STORE_FILE "stichbot.db"

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

struct export {
	FILE *out;
	int failed;
	int written;             /* records written */
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
	ex->written++;
	return 0;
}

/*
 * RECORD.md's players are the names as the game began: its history.  Who
 * holds each seat now is added as "seated" where that differs (a seat
 * taken over with !replace, a name changed since), so that a record
 * names whom the channel heard win.  RECORD.md allows added keys.
 */
static int
write_game(const struct store_game *game, void *arg)
{
	const json_t *players = json_object_get(game->record, "players");
	json_t *seated = json_array(), *record, *seat;
	size_t i;
	int differs = 0, rc;

	json_array_foreach(game->seats, i, seat) {
		json_t *name = json_object_get(seat, "name");

		json_array_append_new(seated, json_string(json_is_string(name) ?
		    json_string_value(name) : ""));
		differs |= !json_equal(json_array_get(seated, i),
		    json_array_get(players, i));
	}
	if (!differs || json_array_size(seated) != json_array_size(players)) {
		json_decref(seated);
		return write_json(game->record, arg);
	}
	/* A shallow copy, in the record's key order, "seated" last. */
	record = json_copy((json_t *)game->record);
	json_object_set_new(record, "seated", seated);
	rc = write_json(record, arg);
	json_decref(record);
	return rc;
}

static int
export_main(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "channel", required_argument, NULL, 'c' },
		{ "game", required_argument, NULL, 'g' },
		{ "running", no_argument, NULL, 'r' },
		{ "damaged", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[PATH_MAX], err[512];
	const char *store_path = NULL, *channel = NULL;
	struct export ex = { stdout, 0, 0 };
	struct store *store;
	struct stat st;
	unsigned long long id = 0;
	int ch, running = 0, damaged = 0, rc;

	while ((ch = cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case 's':
			store_path = optarg;
			break;
		case 'c':
			channel = optarg;
			break;
		case 'g':
			if (cli_number(cmd, "--game", optarg, 1, INT64_MAX,
			    &id) != 0)
				return 2;
			break;
		case 'r':
			running = 1;
			break;
		case 'd':
			damaged = 1;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unknown argument \"%s\" (try --help)",
		    argv[optind]);
		return 2;
	}
	if (damaged && (channel != NULL || id != 0 || running)) {
		cli_error(cmd, "--damaged takes no other filter");
		return 2;
	}
	if (store_path == NULL) {
		if (default_path(path, sizeof(path)) != 0) {
			cli_error(cmd, "STATE_DIRECTORY is too long");
			return 2;
		}
		store_path = path;
	}
	/* A path that names no file is a mistake worth its own message. */
	if (stat(store_path, &st) != 0) {
		cli_error(cmd, "%s: %s", store_path, strerror(errno));
		return 2;
	}
	if (S_ISDIR(st.st_mode)) {
		cli_error(cmd, "%s is a directory, not a store", store_path);
		return 2;
	}
	/*
	 * Read-only: export never creates, migrates or chmods the store, and
	 * reads one it may not write (another user's, a read-only mount).
	 */
	store = store_open_readonly(store_path, err, sizeof(err));
	if (store == NULL) {
		cli_error(cmd, "%s", err);
		return 2;
	}
	if (damaged)
		rc = store_each_damaged(store, write_json, &ex);
	else
		rc = store_each_game(store, channel, (int64_t)id, running,
		    write_game, &ex);
	store_close(store);
	if (ex.failed || fflush(stdout) != 0) {
		cli_error(cmd, "cannot write: %s", strerror(errno));
		return 2;
	}
	if (rc != 0) {
		cli_error(cmd, "some stored games could not be read");
		return 2;
	}
	/* A game asked for by id and not there is said so, not silence. */
	if (id != 0 && ex.written == 0 && !damaged) {
		cli_error(cmd, "no game %lld%s in %s", (long long)id, running ?
		    "" : " that ended (--running for one still running)",
		    store_path);
		return 1;
	}
	return 0;
}

const struct cli_command cli_export_command = {
	.name = "export",
	.usage = "stichbot export [--store PATH] [--channel C] [--game ID] "
	    "[--running]\n       stichbot export [--store PATH] --damaged",
	.summary = "write stored games as records, one per line",
	.help = "Writes the stored games that ended (finished or abandoned) "
	    "as records,\none compact JSON object per line, oldest first.\n\n"
	    "  --store PATH  the store (default: $STATE_DIRECTORY/"
	    STORE_FILE ",\n"
	    "                or ./" STORE_FILE " without STATE_DIRECTORY)\n"
	    "  --channel C   only games of channel or room C (default: all)\n"
	    "  --game ID     only the game with this id, 1 or more "
	    "(default: all)\n"
	    "  --running     also games still running (default: off)\n"
	    "  --damaged     only the games set aside at start-up because "
	    "their rows\n"
	    "                could not be read or replayed, raw: the stored "
	    "texts\n"
	    "                as JSON strings, with the reason (default: off)\n"
	    "  -h, --help    this help\n\n"
	    "Exit status: 0, 1 when --game names no such game, or 2 when "
	    "the store\ncannot be read or an argument is wrong.\n",
	.run = export_main,
};

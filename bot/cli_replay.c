/*
 * cli_replay.c - `stichbot replay [--lines] [FILE]`, the contract of
 * RECORD.md: one record in, one result or error object out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "record.h"

static int
print_json(FILE *out, json_t *obj)
{
	int rc = json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

/* The error object of a record that cannot be read. */
static json_t *
load_error(const char *reason)
{
	return json_pack("{s:s, s:n}", "error", reason, "action");
}

/* One record from the whole of in. */
static int
replay_one(FILE *in)
{
	char reason[RECORD_LOAD_ERR_LEN];
	json_t *record = record_loadf(in, reason, sizeof(reason));
	json_t *output;
	int status;

	if (record == NULL) {
		output = load_error(reason);
		status = 2;
	} else {
		status = replay_record(record, &output);
		json_decref(record);
	}
	if (print_json(stdout, output) != 0 || fflush(stdout) != 0) {
		fprintf(stderr, "stichbot replay: cannot write: %s\n",
		    strerror(errno));
		status = 2;
	}
	json_decref(output);
	return status;
}

/*
 * One record per line; every line gets exactly one line of output, so that
 * results match records by line number (RECORD.md).
 */
static int
replay_lines(FILE *in)
{
	char *line = NULL, reason[RECORD_LOAD_ERR_LEN];
	size_t cap = 0;
	ssize_t len;
	int status = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		json_t *record, *output;

		/*
		 * A blank line holds no record: it gets its error object like
		 * any other line that is not one.
		 */
		if (strspn(line, " \t\r\n") == (size_t)len) {
			output = load_error("The record is not valid JSON: the "
			    "line is blank.");
		} else if (replay_line(line, (size_t)len, &output) < 0) {
			/*
			 * Most records take the fast way, which reads deals
			 * and actions without a JSON value each; the others are
			 * parsed whole.
			 */
			record = record_load(line, (size_t)len, reason,
			    sizeof(reason));
			if (record == NULL) {
				output = load_error(reason);
			} else {
				(void)replay_record(record, &output);
				json_decref(record);
			}
		}
		if (print_json(stdout, output) != 0)
			status = 2;
		json_decref(output);
	}
	if (ferror(in)) {
		fprintf(stderr, "stichbot replay: cannot read: %s\n",
		    strerror(errno));
		status = 2;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "stichbot replay: cannot write: %s\n",
		    strerror(errno));
		status = 2;
	}
	free(line);
	return status;
}

static int
replay_main(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lines", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, lines = 0, status;
	FILE *in;

	while ((ch = cli_getopt(cmd, argc, argv, "lh", longopts)) != -1) {
		switch (ch) {
		case 'l':
			lines = 1;
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if ((in = cli_open_input(cmd, argc, argv)) == NULL) {
		/*
		 * One result on standard output, whatever the record
		 * (RECORD.md): a FILE that cannot be opened is one that
		 * cannot be read, as a directory is.
		 */
		if (!lines && errno != 0) {
			char reason[RECORD_LOAD_ERR_LEN];
			json_t *output;

			snprintf(reason, sizeof(reason), "The record cannot be "
			    "read: %s.", strerror(errno));
			output = load_error(reason);
			(void)print_json(stdout, output);
			json_decref(output);
		}
		return 2;
	}
	status = lines ? replay_lines(in) : replay_one(in);
	cli_close_input(in);
	return status;
}

const struct cli_command cli_replay_command = {
	.name = "replay",
	.usage = "stichbot replay [--lines] [FILE]",
	.summary = "check and score game records (RECORD.md)",
	.help = "Replays a game record (from FILE or standard input; - or no "
	    "FILE is standard\ninput) and prints its result.\n\n"
	    "  -l, --lines  one record per line in, one result per line out, "
	    "a blank line\n               included (default: the whole input "
	    "is one record)\n"
	    "  -h, --help   this help\n\n"
	    "Exit status: 0 a legal record, 1 an illegal action, 2 a "
	    "malformed record or\na wrong argument; with --lines 0 unless "
	    "I/O fails.\n",
	.run = replay_main,
};

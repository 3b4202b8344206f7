/*
 * log.c - level-filtered log lines on stderr, journald-aware.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static enum log_level log_max = LOG_LEVEL_INFO;
static int log_journal = 0;
static void (*log_capture_fn)(enum log_level, const char *, void *);
static void *log_capture_arg;

static const char *const log_names[] = { "error", "warn", "info", "debug" };
/* sd-daemon priorities: err, warning, info, debug. */
static const int log_priorities[] = { 3, 4, 6, 7 };

void
log_setup(enum log_level max, int journal)
{
	log_max = max;
	if (journal < 0) {
		const char *stream = getenv("JOURNAL_STREAM");
		journal = stream != NULL && *stream != '\0';
	}
	log_journal = journal;
}

int
log_level_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(name, log_names[i]) == 0)
			return i;
	return -1;
}

void
log_capture(void (*fn)(enum log_level, const char *, void *), void *arg)
{
	log_capture_fn = fn;
	log_capture_arg = arg;
}

/*
 * Secrets lines must not show, in static memory (nothing to free at
 * exit); one longer than a slot is matched by its first part.
 */
static char log_secrets[LOG_SECRETS][512];
static int log_secret_next;

void
log_secret(const char *secret)
{
	char *slot;

	if (secret == NULL || strlen(secret) < 4)
		return;
	for (int i = 0; i < LOG_SECRETS; i++)
		if (strncmp(log_secrets[i], secret,
		    sizeof(log_secrets[i]) - 1) == 0)
			return;
	slot = log_secrets[log_secret_next];
	log_secret_next = (log_secret_next + 1) % LOG_SECRETS;
	explicit_bzero(slot, sizeof(log_secrets[0]));
	snprintf(slot, sizeof(log_secrets[0]), "%s", secret);
}

/* Replaces each secret in line with a mark. */
static void
log_redact(char *line)
{
	static const char mark[] = "[secret]";

	for (int i = 0; i < LOG_SECRETS; i++) {
		size_t n = strlen(log_secrets[i]);
		char *at;

		if (n == 0)
			continue;
		while ((at = strstr(line, log_secrets[i])) != NULL) {
			size_t rest = strlen(at + n) + 1;

			/* The mark is never longer than a secret (4 bytes up). */
			if (n >= sizeof(mark) - 1) {
				memcpy(at, mark, sizeof(mark) - 1);
				memmove(at + sizeof(mark) - 1, at + n, rest);
			} else {
				memset(at, '*', n);
			}
		}
	}
}

void
log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char line[1024];

	if (level > log_max)
		return;
	vsnprintf(line, sizeof line, fmt, ap);
	log_redact(line);
	/* A log line stays one line whatever it quotes. */
	for (char *p = line; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if (log_capture_fn != NULL) {
		log_capture_fn(level, line, log_capture_arg);
		return;
	}
	if (log_journal) {
		fprintf(stderr, "<%d>%s\n", log_priorities[level], line);
	} else {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(stderr, "%s %s: %s\n", stamp, log_names[level], line);
	}
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

/*
 * log.h - the bot's log: one line per event on stderr, with a level.
 *
 * Under journald (JOURNAL_STREAM set) lines carry the sd-daemon "<N>"
 * priority prefix and no timestamp, since the journal adds its own;
 * elsewhere they start with an ISO 8601 time and the level's name.
 *
 * Never pass a secret (password, token) to these functions: logs are read
 * by people who must not learn them.  The logger is process-wide state, like
 * tmux's log.c, because every module logs and none should carry a handle.
 */
#ifndef STICHBOT_LOG_H
#define STICHBOT_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/*
 * Sets the most verbose level written (default LOG_LEVEL_INFO) and whether
 * lines are formatted for journald (-1: decide from JOURNAL_STREAM).
 */
void log_setup(enum log_level max, int journal);
/* Parses "error", "warn", "info" or "debug"; -1 when unknown. */
int log_level_parse(const char *name);
/* Sends log lines to a callback instead of stderr (tests); NULL restores. */
void log_capture(void (*fn)(enum log_level level, const char *line,
    void *arg), void *arg);

/*
 * Never writes secret (a password, a token; shorter than 4 bytes:
 * ignored) in a line, should a caller pass text that quotes it (a server
 * that echoes a request in its error).  The last LOG_SECRETS given are
 * kept, in static memory.
 */
#define LOG_SECRETS 8
void log_secret(const char *secret);

void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif

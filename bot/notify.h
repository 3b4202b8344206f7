/*
 * notify.h - the service manager's notification protocol (sd_notify(3)),
 * spoken directly: one datagram of "KEY=VALUE" lines to the AF_UNIX socket
 * named by $NOTIFY_SOCKET (a path, or "@name" for the abstract namespace).
 * No libsystemd, so the bot runs the same with or without systemd.
 *
 * Every function returns 0 when the message was sent, 1 when there is no
 * service manager to tell ($NOTIFY_SOCKET unset), and -1 when sending
 * failed (errno set); callers log a failure and carry on.
 */
#ifndef STICHBOT_NOTIFY_H
#define STICHBOT_NOTIFY_H

#include <stdint.h>

/* Sends state, e.g. "READY=1\nSTATUS=up"; the other functions use it. */
int notify_send(const char *state);

/* Start-up is complete (READY=1). */
int notify_ready(void);
/* A reload began (RELOADING=1 with MONOTONIC_USEC); finish with ready. */
int notify_reloading(void);
/* Shutting down (STOPPING=1). */
int notify_stopping(void);
/* A one-line status for `systemctl status`; line breaks become spaces. */
int notify_status(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* The watchdog keep-alive (WATCHDOG=1). */
int notify_watchdog(void);
/*
 * The watchdog interval in milliseconds from $WATCHDOG_USEC, or 0 when
 * the watchdog is off or meant for another process ($WATCHDOG_PID).
 * Keep-alives are due well within it, e.g. every half.
 */
uint64_t notify_watchdog_interval_ms(void);

#endif

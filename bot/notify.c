/*
 * notify.c - see notify.h.
 *
 * A socket is opened per message: messages are rare (start, reload, stop,
 * a watchdog ping every few seconds), and a fresh socket needs no care
 * after a fork or when the manager's socket comes and goes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "notify.h"

int
notify_send(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen;
	size_t len, statelen = strlen(state);
	ssize_t n;
	int fd, e;

	if (name == NULL || name[0] == '\0')
		return 1;
	len = strlen(name);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if ((name[0] != '/' && name[0] != '@') || len >= sizeof(sa.sun_path)) {
		/* Other kinds ("vsock:...") are for virtual machines. */
		errno = EAFNOSUPPORT;
		return -1;
	}
	memcpy(sa.sun_path, name, len);
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';  /* abstract: no terminating NUL */
	else
		salen++;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	do
		n = sendto(fd, state, statelen, MSG_NOSIGNAL,
		    (struct sockaddr *)&sa, salen);
	while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)n != statelen) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

int
notify_ready(void)
{
	return notify_send("READY=1");
}

int
notify_reloading(void)
{
	struct timespec ts;
	char buf[64];

	/*
	 * The manager matches MONOTONIC_USEC against the time it sent the
	 * reload signal (Type=notify-reload); it wants CLOCK_MONOTONIC.
	 */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return -1;
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
	    (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
	return notify_send(buf);
}

int
notify_stopping(void)
{
	return notify_send("STOPPING=1");
}

int
notify_status(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "STATUS=");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	/* The protocol is one KEY=VALUE per line. */
	for (char *p = buf; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return notify_send(buf);
}

int
notify_watchdog(void)
{
	return notify_send("WATCHDOG=1");
}

/* Parses a whole unsigned decimal number; -1 when text is not one. */
static int
parse_u64(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (text == NULL || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

uint64_t
notify_watchdog_interval_ms(void)
{
	uint64_t usec, pid;
	const char *s;

	if (parse_u64(getenv("WATCHDOG_USEC"), &usec) != 0 || usec == 0)
		return 0;
	/* Without WATCHDOG_PID the variable is meant for us. */
	s = getenv("WATCHDOG_PID");
	if (s != NULL && (parse_u64(s, &pid) != 0 ||
	    pid != (uint64_t)getpid()))
		return 0;
	return usec < 1000 ? 1 : usec / 1000;
}

/*
 * test_notify.c - the service notification protocol against a real
 * datagram socket standing in for the service manager: path and abstract
 * addresses, every message, status lines kept to one line, no socket, a
 * vanished socket, and the watchdog interval from the environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "notify.h"

struct manager {
	int fd;
	char dir[64];
	char path[160];
};

/* Binds a datagram socket and points $NOTIFY_SOCKET at it. */
static void
manager_open(struct manager *m, int abstract)
{
	struct sockaddr_un sa;
	socklen_t len;
	char name[128];
	struct timeval tv = { 5, 0 };

	memset(m, 0, sizeof(*m));
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	m->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(m->fd >= 0);
	/* A test that fails must not hang on recv(). */
	assert_int_equal(setsockopt(m->fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
	    sizeof(tv)), 0);
	if (abstract) {
		snprintf(name, sizeof(name), "stichbot-test-notify-%ld",
		    (long)getpid());
		memcpy(sa.sun_path + 1, name, strlen(name));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(name));
		snprintf(m->path, sizeof(m->path), "@%s", name);
	} else {
		snprintf(m->dir, sizeof(m->dir), "/tmp/test_notify.XXXXXX");
		assert_non_null(mkdtemp(m->dir));
		snprintf(m->path, sizeof(m->path), "%s/notify", m->dir);
		memcpy(sa.sun_path, m->path, strlen(m->path) + 1);
		len = sizeof(sa);
	}
	assert_int_equal(bind(m->fd, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(setenv("NOTIFY_SOCKET", m->path, 1), 0);
}

static void
manager_close(struct manager *m)
{
	close(m->fd);
	if (m->dir[0] != '\0') {
		unlink(m->path);
		rmdir(m->dir);
	}
	unsetenv("NOTIFY_SOCKET");
}

/* Receives one datagram as a string. */
static void
manager_recv(struct manager *m, char *buf, size_t len)
{
	ssize_t n = recv(m->fd, buf, len - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
}

static void
check_messages(int abstract)
{
	struct manager m;
	char buf[1024];
	unsigned long long usec;

	manager_open(&m, abstract);
	assert_int_equal(notify_ready(), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1");
	assert_int_equal(notify_stopping(), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_string_equal(buf, "STOPPING=1");
	assert_int_equal(notify_watchdog(), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_string_equal(buf, "WATCHDOG=1");
	assert_int_equal(notify_reloading(), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "RELOADING=1\nMONOTONIC_USEC=%llu",
	    &usec), 1);
	assert_true(usec > 0);
	assert_int_equal(notify_status("%d tables, %s", 3, "ok"), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=3 tables, ok");
	manager_close(&m);
}

static void
test_path_socket(void **unused)
{
	(void)unused;
	check_messages(0);
}

static void
test_abstract_socket(void **unused)
{
	(void)unused;
	check_messages(1);
}

/* A line break in a status would start a new assignment: never sent. */
static void
test_status_one_line(void **unused)
{
	struct manager m;
	char buf[1024];

	(void)unused;
	manager_open(&m, 0);
	assert_int_equal(notify_status("a\nREADY=1\r\nb"), 0);
	manager_recv(&m, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=a READY=1  b");
	manager_close(&m);
}

static void
test_no_manager(void **unused)
{
	(void)unused;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(notify_ready(), 1);
	assert_int_equal(notify_watchdog(), 1);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(notify_stopping(), 1);
	unsetenv("NOTIFY_SOCKET");
}

static void
test_send_failures(void **unused)
{
	(void)unused;
	/* Nobody listens there. */
	setenv("NOTIFY_SOCKET", "/nonexistent/stichbot/notify", 1);
	assert_int_equal(notify_ready(), -1);
	/* Neither a path nor an abstract name. */
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(notify_ready(), -1);
	unsetenv("NOTIFY_SOCKET");
}

static void
test_watchdog_interval(void **unused)
{
	char pid[32];

	(void)unused;
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	setenv("WATCHDOG_USEC", "60000000", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 60000);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_interval_ms(), 60000);
	/* Meant for another process (we were forked from the service). */
	snprintf(pid, sizeof(pid), "%ld", (long)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	setenv("WATCHDOG_PID", "x", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "0", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	setenv("WATCHDOG_USEC", "-5", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	setenv("WATCHDOG_USEC", "12abc", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 0);
	setenv("WATCHDOG_USEC", "500", 1);
	assert_int_equal(notify_watchdog_interval_ms(), 1);
	unsetenv("WATCHDOG_USEC");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_socket),
		cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_status_one_line),
		cmocka_unit_test(test_no_manager),
		cmocka_unit_test(test_send_failures),
		cmocka_unit_test(test_watchdog_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

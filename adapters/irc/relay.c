/*
 * relay.c - the bytes between libircclient and the server.  libircclient
 * (Debian's has no TLS) talks to a loopback socket; what it writes goes
 * to the server over the connection of tls.c, and what the server sends
 * is split into lines, cleaned (irc_relay_line()) and handed back to
 * libircclient.  On the way the relay reads what libircclient cannot:
 * the account tag, ISUPPORT past its ten parameters, and the PONG that
 * confirms the queue's lines.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <libircclient.h>

#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "queue.h"
#include "tls.h"
#include "xmalloc.h"

/* Bytes waiting in either direction of the relay before it stops reading. */
#define RELAY_MAX (256 * 1024)
/* The longest line (tags included) the relay reads from the server. */
#define RELAY_LINE_MAX 16384

/* Byte buffers. */

static void
buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap > 0 ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

static void
buf_consume(struct buf *b, size_t n)
{
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

static void
buf_free(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Bytes for the server ahead of what libircclient writes (CAP LS). */
void
irc_relay_write(struct irc *irc, const char *data, size_t n)
{
	buf_add(&irc->to_up, data, n);
}

/* Forgets what the relay held for a connection that is gone. */
void
irc_relay_reset(struct irc *irc)
{
	irc->to_up.len = irc->to_local.len = irc->line.len = 0;
	irc->discarding = 0;
}

void
irc_relay_free(struct irc *irc)
{
	buf_free(&irc->to_up);
	buf_free(&irc->to_local);
	buf_free(&irc->line);
}

void
irc_set_watch(struct irc *irc, int fd, int *current, int events,
    loop_fd_fn fn)
{
	if (fd < 0 || events == *current)
		return;
	if (events == 0)
		loop_unwatch(irc->loop, fd);
	else
		loop_watch(irc->loop, fd, events, fn, irc);
	*current = events;
}

/* Sends what waits for the server; -1 when the connection died. */
int
irc_relay_up_flush(struct irc *irc)
{
	char err[256];

	while (irc->to_up.len > 0) {
		long n = irc_tls_send(irc->up, irc->to_up.data,
		    irc->to_up.len, err, sizeof(err));

		if (n < 0) {
			irc_connection_lost(irc, "%s", err);
			return -1;
		}
		if (n == 0)
			break;
		buf_consume(&irc->to_up, (size_t)n);
	}
	return 0;
}

/*
 * account-tag: a line from someone logged in to services carries their
 * account.  Learnt here, before the line reaches libircclient (which
 * never sees tags), so that the message itself already comes from the
 * account: a person is known by account from their first command, even
 * while the WHO of a channel is still waiting its turn.
 */
static void
learn_tagged_account(struct irc *irc, const char *line, size_t len)
{
	char account[128], copy[RELAY_LINE_MAX + 1];
	struct irc_msg m;
	struct origin o;
	struct irc_user *u;

	if (irc_tag_value(line, len, "account", account,
	    sizeof(account)) != 1 || len >= sizeof(copy))
		return;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (irc_parse(copy, &m) != 0 || irc_origin_split(m.prefix, &o) != 0 ||
	    o.host[0] == '\0')
		return;
	if ((u = irc_user_find(irc, o.nick)) != NULL)
		irc_user_learn(irc, u, o.user, o.host, account);
}

/*
 * Whether out (n bytes, CR LF included), parsed into m from a copy in
 * copy, is the server's command: a cheap test found a likely line first.
 */
static int
relay_parsed(const char *out, size_t n, char *copy, struct irc_msg *m,
    const char *command)
{
	memcpy(copy, out, n - 2);
	copy[n - 2] = '\0';
	return irc_parse(copy, m) == 0 && strcmp(m->command, command) == 0;
}

/* Hands a cleaned line of the server to libircclient. */
static void
relay_line(struct irc *irc, const char *line, size_t len)
{
	char out[IRC_LINE_MAX * 2], copy[IRC_LINE_MAX * 2];
	struct irc_msg m;
	size_t n = irc_relay_line(line, len, out, sizeof(out));

	if ((irc->caps & CAP_ACCOUNT_TAG) && len > 0 && line[0] == '@')
		learn_tagged_account(irc, line, len);

	if (n == 0) {
		log_debug("irc %s: dropped a line libircclient cannot read",
		    irc->network);
		return;
	}
	/* libircclient keeps 10 parameters; ISUPPORT has up to 15. */
	if (n > 6 && memcmp(strchr(out, ' ') != NULL ? strchr(out, ' ') + 1 :
	    out, "005 ", 4) == 0 && relay_parsed(out, n, copy, &m, "005")) {
		irc_isupport_apply(&irc->is, &m);
		irc_casemap_learn(irc);
	}
	/*
	 * The answer to the queue's PING: the server has handled every
	 * line sent before it, and their messages are confirmed.
	 */
	if (irc->queue != NULL && strstr(out, " PONG ") != NULL &&
	    relay_parsed(out, n, copy, &m, "PONG") && m.nparams > 0)
		irc_queue_pong(irc->queue, m.params[m.nparams - 1]);
	/*
	 * The server's ERROR (why it closes: a wrong password, a ban) is
	 * logged here: the close that follows it at once would end the
	 * connection before libircclient read the line.
	 */
	if ((strncmp(out, "ERROR", 5) == 0 || strstr(out, " ERROR ") !=
	    NULL) && relay_parsed(out, n, copy, &m, "ERROR"))
		log_warn("irc %s: the server says: %s", irc->network,
		    m.nparams > 0 ? m.params[m.nparams - 1] : "");
	buf_add(&irc->to_local, out, n);
}

/* Splits what came from the server into lines. */
static void
relay_feed(struct irc *irc, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *nl = memchr(data + i, '\n', n - i);
		size_t end = nl != NULL ? (size_t)(nl - data) : n;

		if (!irc->discarding) {
			if (irc->line.len + (end - i) > RELAY_LINE_MAX) {
				log_warn("irc %s: skipped a line longer than "
				    "%d bytes", irc->network,
				    RELAY_LINE_MAX);
				irc->discarding = 1;
				irc->line.len = 0;
			} else {
				buf_add(&irc->line, data + i, end - i);
			}
		}
		if (nl == NULL)
			return;
		if (!irc->discarding)
			relay_line(irc, irc->line.data, irc->line.len);
		irc->line.len = 0;
		irc->discarding = 0;
		i = end;
	}
}

void
irc_relay_local_flush(struct irc *irc)
{
	while (irc->to_local.len > 0 && irc->local_fd >= 0) {
		ssize_t n = send(irc->local_fd, irc->to_local.data,
		    irc->to_local.len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			irc_connection_lost(irc, "the relay to libircclient "
			    "failed: %s", strerror(errno));
			return;
		}
		buf_consume(&irc->to_local, (size_t)n);
	}
}

/* Reads what the server sent, until nothing is left or the relay is full. */
static void
up_read(struct irc *irc)
{
	char data[16384], err[256];

	while (irc->up != NULL) {
		long n;

		if (irc->to_local.len >= RELAY_MAX) {
			irc->up_throttled = 1;
			return;
		}
		n = irc_tls_recv(irc->up, data, sizeof(data), err, sizeof(err));
		if (n == 0)
			break;
		if (n < 0) {
			irc_connection_lost(irc, "%s", err);
			return;
		}
		irc->last_recv = irc_now_ms(irc);
		irc->ping_sent = 0;
		relay_feed(irc, data, (size_t)n);
	}
	irc->up_throttled = 0;
}

static void
on_up(struct loop *loop, int fd, int events, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)fd;
	irc_enter(irc);
	if ((events & LOOP_WRITE) && irc->up != NULL)
		irc_relay_up_flush(irc);
	if ((events & LOOP_READ) && irc->up != NULL)
		up_read(irc);
	if (irc->up != NULL)
		irc_relay_local_flush(irc);
	irc_relay_update(irc);
	irc_leave(irc);
}

static void
on_local(struct loop *loop, int fd, int events, void *arg)
{
	struct irc *irc = arg;
	char data[4096];

	(void)loop;
	(void)fd;
	irc_enter(irc);
	if (events & LOOP_WRITE)
		irc_relay_local_flush(irc);
	/* Room again: read what TLS may already hold decrypted. */
	if (irc->up_throttled && irc->to_local.len < RELAY_MAX / 2) {
		up_read(irc);
		irc_relay_local_flush(irc);
	}
	if ((events & LOOP_READ) && irc->local_fd >= 0) {
		ssize_t n = recv(irc->local_fd, data, sizeof(data), 0);

		if (n == 0) {
			irc_connection_lost(irc, "libircclient closed its "
			    "connection");
		} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			irc_connection_lost(irc, "the relay from libircclient "
			    "failed: %s", strerror(errno));
		} else if (n > 0) {
			buf_add(&irc->to_up, data, (size_t)n);
			irc_relay_up_flush(irc);
		}
	}
	irc_relay_update(irc);
	irc_leave(irc);
}

/* Watches both ends of the relay for what each needs now. */
void
irc_relay_update(struct irc *irc)
{
	int ev;

	if (irc->up != NULL && irc->up_fd >= 0) {
		ev = (irc->up_throttled ? 0 : LOOP_READ) |
		    (irc->to_up.len > 0 ? LOOP_WRITE : 0);
		irc_set_watch(irc, irc->up_fd, &irc->up_events, ev, on_up);
	}
	if (irc->local_fd >= 0) {
		ev = (irc->to_up.len < RELAY_MAX ? LOOP_READ : 0) |
		    (irc->to_local.len > 0 ? LOOP_WRITE : 0);
		irc_set_watch(irc, irc->local_fd, &irc->local_events, ev,
		    on_local);
	}
}

/*
 * After the QUIT: reads what the server still says, for at most timeout
 * ms, until its PONG confirms every line in flight (irc_queue_ping_last()
 * sent the PING before the QUIT) or the connection ends.  What is read
 * goes no further than the relay: libircclient is done.
 */
void
irc_relay_await_sent(struct irc *irc, int timeout)
{
	uint64_t end = irc_now_ms(irc) + (uint64_t)timeout;

	while (irc->up != NULL && irc->queue != NULL &&
	    irc_queue_inflight(irc->queue) > 0) {
		uint64_t now = irc_now_ms(irc);
		struct pollfd pfd;

		if (now >= end)
			break;
		/* Nobody reads the libircclient side any more. */
		irc->to_local.len = 0;
		pfd.fd = irc->up_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		/* TLS may hold decrypted bytes the socket no longer shows. */
		up_read(irc);
		if (irc->up == NULL || irc_queue_inflight(irc->queue) == 0)
			break;
		if (poll(&pfd, 1, (int)(end - now < 50 ? end - now : 50)) < 0 &&
		    errno != EINTR)
			break;
	}
}

/* Pushes what waits (a QUIT) to the server for at most timeout ms. */
void
irc_relay_drain(struct irc *irc, int timeout)
{
	uint64_t end = irc_now_ms(irc) + (uint64_t)timeout;
	char data[4096];

	while (irc->session != NULL && irc->local_fd >= 0 && irc->up != NULL &&
	    irc_now_ms(irc) < end) {
		struct pollfd pfd;
		fd_set in, out;
		int maxfd = 0, pending;
		ssize_t n;

		FD_ZERO(&in);
		FD_ZERO(&out);
		if (irc_add_select_descriptors(irc->session, &in, &out,
		    &maxfd) != 0)
			break;
		pending = FD_ISSET(irc->irc_fd, &out);
		if (pending) {
			FD_ZERO(&in);
			irc->in_session = 1;
			irc_process_select_descriptors(irc->session, &in, &out);
			irc->in_session = 0;
		}
		while ((n = recv(irc->local_fd, data, sizeof(data), 0)) > 0)
			buf_add(&irc->to_up, data, (size_t)n);
		if (irc_relay_up_flush(irc) != 0)
			return;
		if (!pending && irc->to_up.len == 0)
			break;
		pfd.fd = irc->up_fd;
		pfd.events = POLLOUT;
		pfd.revents = 0;
		poll(&pfd, 1, 50);
	}
}

/*
 * conn.c - the IRC adapter's connection: connecting to the server
 * (tls.c), the loopback socket libircclient connects to and its session
 * watched in the bot's loop, registration and ping timeouts, and
 * reconnecting with backoff when the connection is lost.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libircclient.h>

#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "queue.h"
#include "rng.h"
#include "tls.h"
#include "xmalloc.h"

/* How long connecting (TCP and TLS) may take. */
#define CONNECT_TIMEOUT_MS 30000

static void
reconnect_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)id;
	irc->reconnect_timer = 0;
	irc_enter(irc);
	if (irc->phase == PHASE_WAIT)
		irc_connect_begin(irc);
	irc_leave(irc);
}

static void
schedule_reconnect(struct irc *irc)
{
	uint64_t min = (uint64_t)irc->cfg.reconnect_min * 1000;
	uint64_t max = (uint64_t)irc->cfg.reconnect_max * 1000;
	uint64_t delay = loop_backoff((unsigned)irc->attempts, min, max,
	    rng_next(&irc->rng));

	/* Never below the configured minimum. */
	if (delay < min)
		delay = min;
	irc->attempts++;
	irc->phase = PHASE_WAIT;
	loop_cancel(irc->loop, irc->reconnect_timer);
	irc->reconnect_timer = loop_timer(irc->loop, delay, reconnect_timer,
	    irc);
	log_info("irc %s: connecting again in %.1f s", irc->network,
	    (double)delay / 1000);
}

/* Closes everything of the current connection; tells nobody. */
void
irc_connection_close(struct irc *irc)
{
	size_t n;

	irc_tls_destroy(irc->up);
	irc->up = NULL;
	irc->up_fd = -1;
	irc->up_events = 0;
	irc->up_throttled = 0;
	if (irc->listen_fd >= 0) {
		loop_unwatch(irc->loop, irc->listen_fd);
		close(irc->listen_fd);
		irc->listen_fd = -1;
	}
	if (irc->local_fd >= 0) {
		loop_unwatch(irc->loop, irc->local_fd);
		close(irc->local_fd);
		irc->local_fd = -1;
	}
	irc->local_events = 0;
	if (irc->session != NULL) {
		if (irc->irc_events != 0)
			loop_unwatch(irc->loop, irc->irc_fd);
		irc_destroy_session(irc->session);
		irc->session = NULL;
	}
	irc->irc_fd = -1;
	irc->irc_fd_ok = 0;
	irc->irc_events = 0;
	free(irc->lost);
	irc->lost = NULL;
	loop_cancel(irc->loop, irc->ping_timer);
	loop_cancel(irc->loop, irc->register_timer);
	irc->ping_timer = irc->register_timer = 0;
	irc_relay_reset(irc);
	for (int i = 0; i < irc->nchans; i++) {
		struct irc_chan *c = irc->chans[i];

		irc_chan_clear(irc, c);
		c->joined = 0;
		c->who_at = 0;
		loop_cancel(irc->loop, c->rejoin_timer);
		c->rejoin_timer = 0;
	}
	for (int i = irc->nchans - 1; i >= 0; i--)
		if (!irc->chans[i]->wanted)
			irc_chan_drop(irc, irc->chans[i]);
	while (irc->nusers > 0)
		irc_user_free(irc->users[--irc->nusers]);
	text_clear(&irc->caps_offered);
	irc->caps = irc->cap_reqs = irc->cap_done = irc->sasl_state = 0;
	irc->account[0] = '\0';
	irc->self_user[0] = irc->self_host[0] = '\0';
	irc_isupport_init(&irc->is);
	irc->nglimpses = 0;
	irc->nverifies = 0;
	loop_cancel(irc->loop, irc->userhost_timer);
	irc->userhost_timer = 0;
	irc->userhost_sent = irc->userhost_answered = 0;
	loop_cancel(irc->loop, irc->reclaim_timer);
	irc->reclaim_timer = 0;
	irc->monitoring = irc->regain_sent = irc->ghost_sent = 0;
	irc->ns_waiting = irc->ns_asked = irc->ns_service = 0;
	irc->ns_verified = 0;
	if (irc->queue != NULL) {
		irc_queue_run(irc->queue, 0);
		/*
		 * Lines libircclient or the relay still held may never have
		 * reached the server: they go again, in order.
		 */
		irc_queue_requeue(irc->queue);
		/*
		 * A message that expires speaks of a clock that the core
		 * stops now and starts afresh on the next connection.
		 */
		n = irc_queue_expire(irc->queue, UINT64_MAX);
		if (n > 0)
			log_info("irc %s: %zu messages of no use after the "
			    "reconnection are dropped", irc->network, n);
		/* This connection's JOINs and WHOs mean nothing later. */
		irc_queue_clear(irc->queue, IRC_CLASS_CONTROL);
		irc_queue_clear(irc->queue, IRC_CLASS_BACKGROUND);
		irc_queue_clear(irc->queue, IRC_CLASS_LOW);
	}
}

void
irc_connection_lost(struct irc *irc, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	int was_ready = irc->phase == PHASE_READY;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	/* libircclient is running: close once it has returned. */
	if (irc->in_session) {
		if (irc->lost == NULL)
			irc->lost = xstrdup(reason);
		return;
	}
	if (irc->phase == PHASE_STOPPED || irc->phase == PHASE_IDLE)
		return;
	log_warn("irc %s: connection lost: %s", irc->network, reason);
	if (was_ready && irc_now_ms(irc) - irc->registered_at >= 60000)
		irc->attempts = 0;
	irc_connection_close(irc);
	schedule_reconnect(irc);
	if (was_ready && irc_alive(irc))
		adapter_connected(irc->adapter, 0);
}

/* libircclient's socket. */

static void
on_irc_fd(struct loop *loop, int fd, int events, void *arg)
{
	struct irc *irc = arg;
	fd_set in, out;
	int rc;

	(void)loop;
	irc_enter(irc);
	if (irc->session == NULL || fd != irc->irc_fd || fd >= FD_SETSIZE) {
		irc_leave(irc);
		return;
	}
	FD_ZERO(&in);
	FD_ZERO(&out);
	if (events & LOOP_READ)
		FD_SET(fd, &in);
	if (events & LOOP_WRITE)
		FD_SET(fd, &out);
	irc->in_session = 1;
	rc = irc_process_select_descriptors(irc->session, &in, &out);
	irc->in_session = 0;
	if (irc->phase == PHASE_STOPPED) {
		/* stop() was called from one of its callbacks. */
		irc_connection_close(irc);
	} else if (irc->lost != NULL) {
		char *reason = irc->lost;

		irc->lost = NULL;
		irc_connection_lost(irc, "%s", reason);
		free(reason);
	} else if (rc != 0 && irc->session != NULL) {
		irc_connection_lost(irc, "libircclient: %s",
		    irc_strerror(irc_errno(irc->session)));
	}
	irc_relay_update(irc);
	irc_leave(irc);
}

/*
 * Before each wait: asks libircclient what it waits for and watches its
 * socket for that.  The socket was checked to be below FD_SETSIZE.
 */
int
irc_hook(struct loop *loop, void *arg)
{
	struct irc *irc = arg;
	fd_set in, out;
	int maxfd = 0, ev = 0;

	(void)loop;
	if (irc->session == NULL || !irc->irc_fd_ok)
		return -1;
	if (irc->irc_fd >= FD_SETSIZE) {
		log_error("irc %s: libircclient's descriptor %d is past "
		    "FD_SETSIZE", irc->network, irc->irc_fd);
		return -1;
	}
	FD_ZERO(&in);
	FD_ZERO(&out);
	if (irc_add_select_descriptors(irc->session, &in, &out, &maxfd) != 0)
		return -1;
	if (FD_ISSET(irc->irc_fd, &in))
		ev |= LOOP_READ;
	if (FD_ISSET(irc->irc_fd, &out))
		ev |= LOOP_WRITE;
	irc_set_watch(irc, irc->irc_fd, &irc->irc_events, ev, on_irc_fd);
	return -1;
}

/* Connecting. */

static int
set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return -1;
	return 0;
}

static void
ping_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;
	uint64_t idle = irc_now_ms(irc) - irc->last_recv;
	uint64_t limit = (uint64_t)irc->cfg.ping_timeout * 1000;

	(void)loop;
	(void)id;
	irc->ping_timer = 0;
	irc_enter(irc);
	if (idle >= limit) {
		irc_connection_lost(irc, "nothing from the server for %d s",
		    irc->cfg.ping_timeout);
	} else if (irc->queue != NULL &&
	    irc_queue_ping_since(irc->queue) != 0 &&
	    irc_now_ms(irc) - irc_queue_ping_since(irc->queue) >= limit / 2) {
		/*
		 * A server that talks but never answers our PING would keep
		 * every line unconfirmed: reconnect, and they go again.
		 */
		irc_connection_lost(irc, "no answer to PING for %d s",
		    irc->cfg.ping_timeout / 2);
	} else {
		if (idle >= limit / 2 && !irc->ping_sent &&
		    irc->phase == PHASE_READY) {
			irc_send_now(irc, "PING :stichbot");
			irc->ping_sent = 1;
		}
		irc->ping_timer = loop_timer(irc->loop, limit / 10,
		    ping_timer, irc);
	}
	irc_leave(irc);
}

static void
register_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)id;
	irc->register_timer = 0;
	irc_enter(irc);
	if (irc->phase == PHASE_RELAY)
		irc_connection_lost(irc, "registration took longer than %d s",
		    irc->cfg.ping_timeout);
	irc_leave(irc);
}

/* Accepts libircclient's connection to the relay, and no other. */
static void
on_listen(struct loop *loop, int fd, int events, void *arg)
{
	struct irc *irc = arg;
	struct sockaddr_in peer, mine, theirs;
	socklen_t plen = sizeof(peer), mlen = sizeof(mine), tlen;
	int c;

	(void)loop;
	(void)events;
	irc_enter(irc);
	c = accept(fd, (struct sockaddr *)&peer, &plen);
	if (c < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			irc_connection_lost(irc, "accept: %s", strerror(errno));
		irc_leave(irc);
		return;
	}
	tlen = sizeof(theirs);
	if (getsockname(irc->irc_fd, (struct sockaddr *)&mine, &mlen) != 0 ||
	    mine.sin_family != AF_INET ||
	    getpeername(irc->irc_fd, (struct sockaddr *)&theirs, &tlen) != 0) {
		close(c);
		irc_connection_lost(irc, "libircclient's socket is not %d",
		    irc->irc_fd);
		irc_leave(irc);
		return;
	}
	if (peer.sin_port != mine.sin_port ||
	    peer.sin_addr.s_addr != mine.sin_addr.s_addr) {
		/* Another local process: refuse it, keep waiting. */
		log_warn("irc %s: refused a stranger on the relay socket",
		    irc->network);
		close(c);
		irc_leave(irc);
		return;
	}
	if (set_nonblock(c) != 0) {
		close(c);
		irc_connection_lost(irc, "fcntl: %s", strerror(errno));
		irc_leave(irc);
		return;
	}
	loop_unwatch(irc->loop, irc->listen_fd);
	close(irc->listen_fd);
	irc->listen_fd = -1;
	irc->local_fd = c;
	irc->irc_fd_ok = 1;
	irc_relay_local_flush(irc);
	irc_relay_update(irc);
	irc_leave(irc);
}

/*
 * The server is connected: opens the loopback listener and lets
 * libircclient connect to it.  libircclient's socket is the lowest free
 * descriptor when irc_connect() runs, found with a probe: it must be below
 * FD_SETSIZE, since libircclient puts it in an fd_set (and glibc's fortify
 * checks abort past it).
 */
static void
local_begin(struct irc *irc)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	int probe;

	irc->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = 0;
	if (irc->listen_fd < 0 || set_nonblock(irc->listen_fd) != 0 ||
	    bind(irc->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(irc->listen_fd, 4) != 0 ||
	    getsockname(irc->listen_fd, (struct sockaddr *)&addr, &len) != 0) {
		irc_connection_lost(irc, "cannot open the relay socket: %s",
		    strerror(errno));
		return;
	}
	if ((probe = socket(AF_INET, SOCK_STREAM, 0)) < 0) {
		irc_connection_lost(irc, "socket: %s", strerror(errno));
		return;
	}
	close(probe);
	if (probe >= FD_SETSIZE) {
		log_error("irc %s: descriptor %d is past FD_SETSIZE (%d), "
		    "which libircclient cannot use", irc->network,
		    probe, FD_SETSIZE);
		irc_connection_lost(irc, "too many open descriptors");
		return;
	}
	if ((irc->session = irc_session_create()) == NULL) {
		irc_connection_lost(irc, "libircclient could not start");
		return;
	}
	irc_set_ctx(irc->session, irc);
	snprintf(irc->nick, sizeof(irc->nick), "%s", irc->cfg.nick);
	snprintf(irc->nick_base, sizeof(irc->nick_base), "%s", irc->cfg.nick);
	irc->nick_try = 0;
	if (irc_connect(irc->session, "127.0.0.1", ntohs(addr.sin_port),
	    irc->cfg.server_password, irc->cfg.nick, irc->cfg.username,
	    irc->cfg.realname) != 0) {
		irc_connection_lost(irc, "libircclient: %s",
		    irc_strerror(irc_errno(irc->session)));
		return;
	}
	irc->irc_fd = probe;
	loop_watch(irc->loop, irc->listen_fd, LOOP_READ, on_listen, irc);
	/*
	 * CAP LS goes ahead of libircclient's NICK and USER, so the server
	 * holds registration until CAP END and SASL can run before it.
	 */
	irc_relay_write(irc, "CAP LS 302\r\n", 12);
	irc->phase = PHASE_RELAY;
	irc->last_recv = irc_now_ms(irc);
	irc->ping_sent = 0;
	irc->ping_timer = loop_timer(irc->loop,
	    (uint64_t)irc->cfg.ping_timeout * 100, ping_timer, irc);
	irc->register_timer = loop_timer(irc->loop,
	    (uint64_t)irc->cfg.ping_timeout * 1000, register_timer, irc);
	irc_relay_up_flush(irc);
	irc_relay_update(irc);
}

static void
on_up_ready(struct irc_tls *t, int ok, const char *err, void *arg)
{
	struct irc *irc = arg;

	irc_enter(irc);
	if (!ok) {
		log_warn("irc %s: cannot connect to %s:%d: %s",
		    irc->network, irc->cfg.host, irc->cfg.port, err);
		irc_tls_destroy(t);
		irc->up = NULL;
		irc_connection_close(irc);
		if (irc->phase == PHASE_UPSTREAM)
			schedule_reconnect(irc);
		irc_leave(irc);
		return;
	}
	irc->up_fd = irc_tls_fd(t);
	log_info("irc %s: connected to %s:%d%s", irc->network,
	    irc->cfg.host, irc->cfg.port, irc->cfg.tls ? " (TLS)" : "");
	local_begin(irc);
	irc_leave(irc);
}

void
irc_connect_begin(struct irc *irc)
{
	struct irc_tls_options o;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.host = irc->cfg.host;
	o.port = irc->cfg.port;
	o.tls = irc->cfg.tls;
	o.verify = irc->cfg.tls_verify;
	o.ca_file = irc->cfg.ca_file;
	o.fingerprint = irc->cfg.pin ? irc->cfg.fingerprint : NULL;
	o.timeout_ms = CONNECT_TIMEOUT_MS;
	irc->phase = PHASE_UPSTREAM;
	log_info("irc %s: connecting to %s:%d", irc->network,
	    irc->cfg.host, irc->cfg.port);
	irc->up = irc_tls_connect(irc->loop, &o, on_up_ready, irc, err,
	    sizeof(err));
	if (irc->up == NULL) {
		log_warn("irc %s: cannot connect: %s", irc->network,
		    err);
		schedule_reconnect(irc);
	}
}

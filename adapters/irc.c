/*
 * irc.c - the IRC adapter, on libircclient, driven by the bot's loop:
 * the connection and its relay, both ends of the send queue and the
 * adapter's operations.  Its other files: irc_config.c (the network's
 * configuration), irc_people.c (people and channels), irc_events.c
 * (libircclient's events), irc_register.c (capabilities, SASL, nicks),
 * irc_verify.c (who holds a nick, before private lines go there),
 * irc_proto.c (the pure protocol parts and the send queue), irc_tls.c
 * (the upstream connection), irc_int.h (their shared state).
 *
 * What an admin needs to know:
 *
 * - Connection.  libircclient (Debian's has no TLS) talks to a loopback
 *   socket that the adapter opens for each connection (127.0.0.1, an
 *   ephemeral port, one accepted peer: libircclient's own socket); the
 *   adapter relays the bytes to the server over a connection libcurl makes
 *   (CURLOPT_CONNECT_ONLY, non-blocking, no proxies).  With "tls" (the
 *   default, port 6697) the certificate chain and host name are checked
 *   against the system's CAs or "tls_ca_file", and SNI names the host.
 *   "tls_fingerprint" pins the SHA-256 fingerprint of the server's
 *   certificate (as `openssl x509 -noout -fingerprint -sha256` prints it,
 *   colons optional); with a fingerprint and no explicit "tls_verify" the
 *   pin alone is checked, so self-signed certificates work.  The relay
 *   also cleans what the server sends before libircclient reads it.
 * - Login.  The adapter asks for IRCv3 capabilities (CAP LS 302, sent
 *   ahead of NICK/USER) and enables multi-prefix, extended-join,
 *   account-notify, away-notify, userhost-in-names, chghost and
 *   account-tag when offered (libircclient cannot read message tags: the
 *   relay reads the account tag before it removes the tags).
 *   "sasl" logs in with SASL PLAIN before registration; when it is not
 *   offered or fails, "nickserv_password_file" sends NickServ IDENTIFY
 *   NICK PASSWORD after it.  "server_password_file" is sent as PASS.
 *   Secrets are read from files and never logged.
 * - Identities.  A person is "account:NAME" while the adapter knows their
 *   services account (SASL/NickServ login seen through WHOX, extended-join,
 *   account-notify or account-tag), otherwise "nick!user@host"; seats
 *   follow a person through nick and account changes, and so do the lines
 *   still queued for their old nick.  Admin globs match nick!user@host.
 *   "identity": "account" marks people without an account as guests, who
 *   may not sit.
 * - Private lines go only to a nick whose holder is known to be the
 *   seat's identity now: a member of a channel we share, or someone the
 *   server described (WHO/WHOX) or who spoke to us after the lines were
 *   queued; otherwise they wait for a WHO, and another holder never gets
 *   them (dropped, logged without their text).
 * - Our own nick, when taken, is watched (MONITOR, else ISON) and taken
 *   back once free; NickServ REGAIN/GHOST with a NickServ password.
 * - Flood control.  Lines leave through a token bucket: "flood.burst"
 *   lines at once, then one per "flood.interval_ms"; without "flood" the
 *   pace follows the server's software (irc_pace_for_server()).  Control
 *   lines first; then flows (a table's lines, private ones included, or
 *   one person's replies) round-robin, each in order; then the WHO of each
 *   joined channel (at most one a second) and CTCP replies.  A message
 *   with an outbox id is confirmed (adapter_sent) once the server is known
 *   to have it (its answer to a PING sent after it: one PING per batch of
 *   lines, taking its token of the budget) or when it can never leave;
 *   lines not confirmed when the connection drops go again, once, after
 *   the reconnect.  Long texts are
 *   split at UTF-8 boundaries so that the line the server relays stays
 *   within 512 bytes.  "private_messages": "notice" sends private text as
 *   NOTICE.
 * - Resilience.  The adapter sends PING when the server is quiet for half
 *   of "ping_timeout" (240 s) and reconnects when nothing came for all of
 *   it, with exponential backoff and jitter between "reconnect.min" and
 *   "reconnect.max" (2 and 300 s); channels are joined again.  A taken
 *   nick is replaced by "alt_nicks", then the nick with digits.  After a
 *   kick or a ban the adapter tries to join again later, with backoff.
 *   "join_on_invite" makes it follow invitations.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libircclient.h>

#include "adapter.h"
#include "array.h"
#include "irc_config.h"
#include "irc_int.h"
#include "irc_proto.h"
#include "irc_tls.h"
#include "log.h"
#include "loop.h"
#include "text.h"

/* Bytes waiting in either direction of the relay before it stops reading. */
#define RELAY_MAX (256 * 1024)
/* The longest line (tags included) the relay reads from the server. */
#define RELAY_LINE_MAX 16384
/* How long connecting (TCP and TLS) may take. */
#define CONNECT_TIMEOUT_MS 30000
/*
 * Private lines are split as if the nick they go to were at least this
 * long, so that they still fit when that person changes nick while they
 * wait (most networks' NICKLEN is 30 or less).
 */
#define NICK_ALLOWANCE 32
/* How long stop() may wait for queued lines to leave before QUIT. */
#define STOP_FLUSH_MS 2000

static void relay_update(struct irc *irc);
static void irc_free(struct irc *irc);

/* Byte buffers. */

static int
buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap > 0 ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		if ((p = realloc(b->data, cap)) == NULL)
			return -1;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
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

/* Cuts s to at most max bytes without splitting a UTF-8 character. */
static void
cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	s[n] = '\0';
}

/* Entering and leaving loop callbacks: finish() waits for the last one. */

void
irc_enter(struct irc *irc)
{
	irc->depth++;
}

/* Returns 1 when irc was freed. */
int
irc_leave(struct irc *irc)
{
	if (--irc->depth == 0 && irc->doomed) {
		irc_free(irc);
		return 1;
	}
	return 0;
}

/* The core is told nothing once finish() has been called. */
int
irc_alive(const struct irc *irc)
{
	return !irc->doomed && irc->adapter != NULL;
}

uint64_t
irc_now_ms(const struct irc *irc)
{
	return loop_now(irc->loop);
}

/* Sending. */

/* Sends a line now, past the queue (registration, PING); 0 or -1. */
int
irc_send_now(struct irc *irc, const char *line)
{
	if (irc->session == NULL || irc_send_raw(irc->session, "%s", line) != 0)
		return -1;
	return 0;
}

/* The queue's way out: libircclient's buffer (1 KiB) may be full. */
static int
queue_send(const char *line, void *arg)
{
	struct irc *irc = arg;

	if (irc->session == NULL || irc->phase != PHASE_READY)
		return 1;
	if (irc_send_raw(irc->session, "%s", line) == 0)
		return 0;
	if (irc_errno(irc->session) == LIBIRC_ERR_NOMEM)
		return 1;
	log_warn("irc %s: could not send a line: %s", irc->network,
	    irc_strerror(irc_errno(irc->session)));
	return -1;
}

/*
 * Reports the ids of messages that left (or never will) from a timer of
 * our own: the queue finds them while the core may be inside send_*(),
 * where adapter_sent() must not be called.
 */
static void
sent_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)id;
	irc->sent_timer = 0;
	irc_enter(irc);
	for (int i = 0; i < irc->nsent && irc_alive(irc); i++)
		adapter_sent(irc->adapter, irc->sent_ids[i]);
	irc->nsent = 0;
	irc_leave(irc);
}

static void
queue_done(uint64_t id, int dropped, void *arg)
{
	struct irc *irc = arg;

	(void)dropped;
	if (array_grow((void **)&irc->sent_ids, &irc->sent_cap, irc->nsent + 1,
	    sizeof(*irc->sent_ids)) != 0) {
		log_error("irc %s: out of memory: message %llu stays in the "
		    "outbox", irc->network, (unsigned long long)id);
		return;
	}
	irc->sent_ids[irc->nsent++] = id;
	if (irc->sent_timer == 0 && irc->loop != NULL)
		irc->sent_timer = loop_timer(irc->loop, 0, sent_timer, irc);
}

/* The queue, made at the first line: lines may come before start(). */
static struct irc_queue *
queue_get(struct irc *irc)
{
	struct irc_queue_ops ops = { queue_send, irc_line_gate, queue_done,
		queue_send, irc };

	if (irc->queue != NULL)
		return irc->queue;
	if (irc->loop == NULL && irc->adapter != NULL)
		irc->loop = irc->adapter->loop;
	if (irc->loop == NULL)
		return NULL;
	irc->queue = irc_queue_create(irc->loop, irc->cfg.burst,
	    irc->cfg.interval_ms, &ops);
	return irc->queue;
}

/* Queues "COMMAND target" lines (JOIN, WHO, PART, NOTICE ...). */
int
irc_queue_line(struct irc *irc, enum irc_class cls, const char *fmt, ...)
{
	char line[IRC_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 2 || queue_get(irc) == NULL)
		return -1;
	return irc_queue_push(irc->queue, cls, line);
}

/*
 * The longest prefix the server may put before our lines: our own
 * nick!user@host once it told us, allowances before.
 */
size_t
irc_self_mask_length(const struct irc *irc)
{
	size_t nick = strlen(irc->nick);

	if (irc->phase != PHASE_READY && nick < 32)
		nick = 32;
	return nick + 2 + (irc->self_user[0] != '\0' ?
	    strlen(irc->self_user) : IRC_USER_ALLOWANCE) +
	    (irc->self_host[0] != '\0' ? strlen(irc->self_host) :
	    IRC_HOST_ALLOWANCE);
}

/* The lines of one message, collected before they are queued. */
struct push_ctx {
	const char *command, *target;
	char **lines;
	int n, cap, failed;
};

static void
push_line(const char *line, size_t len, void *arg)
{
	struct push_ctx *ctx = arg;
	char out[IRC_LINE_MAX * 2];

	snprintf(out, sizeof(out), "%s %s :%.*s", ctx->command, ctx->target,
	    (int)len, line);
	if (array_grow((void **)&ctx->lines, &ctx->cap, ctx->n + 1,
	    sizeof(*ctx->lines)) != 0 ||
	    (ctx->lines[ctx->n] = strdup(out)) == NULL) {
		ctx->failed = 1;
		return;
	}
	ctx->n++;
}

/*
 * Queues text to target as one message of flow: channel lines are gated
 * on being in the channel, private lines (ident: the seat's identity) on
 * the nick's holder.
 */
static int
queue_text(struct irc *irc, const char *command, const char *target,
    const char *ident, const char *flow, uint64_t id,
    const struct text *text)
{
	struct push_ctx ctx = { command, target, NULL, 0, 0, 0 };
	struct text out;
	size_t overhead;
	int n, rc = -1;

	overhead = irc_overhead("", command, target) +
	    irc_self_mask_length(irc);
	if (ident != NULL && strlen(target) < NICK_ALLOWANCE)
		overhead += NICK_ALLOWANCE - strlen(target);
	if (overhead + 16 > IRC_LINE_MAX) {
		log_warn("irc %s: cannot send to %s: the name is too long",
		    irc->network, target);
		return -1;
	}
	text_init(&out);
	text_render(text, TEXT_FORMAT_IRC, &out);
	n = irc_split(text_str(&out), out.len, IRC_LINE_MAX - overhead,
	    push_line, &ctx);
	text_finish(&out);
	if (n >= 0 && !ctx.failed)
		rc = irc_queue_push_message(irc->queue, flow, ident, 1, id,
		    (const char *const *)ctx.lines, ctx.n);
	if (rc != 0)
		log_warn("irc %s: could not queue a message to %s",
		    irc->network, target);
	for (int i = 0; i < ctx.n; i++)
		free(ctx.lines[i]);
	free(ctx.lines);
	return rc;
}

/* Joins every channel we want and are not in, several per JOIN line. */
void
irc_join_wanted(struct irc *irc)
{
	char line[400];
	size_t len = 0;

	for (int i = 0; i < irc->nchans; i++) {
		struct irc_chan *c = irc->chans[i];
		size_t n = strlen(c->name);

		if (!c->wanted || c->joined || c->rejoin_timer != 0)
			continue;
		if (len > 0 && len + 1 + n >= sizeof(line)) {
			irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", line);
			len = 0;
		}
		if (n >= sizeof(line))
			continue;
		if (len > 0)
			line[len++] = ',';
		memcpy(line + len, c->name, n + 1);
		len += n;
	}
	if (len > 0)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", line);
}

static void
rejoin_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc_chan *c = arg;
	struct irc *irc = c->irc;

	(void)loop;
	(void)id;
	c->rejoin_timer = 0;
	if (c->wanted && !c->joined && irc->phase == PHASE_READY)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", c->name);
}

/* Tries to join c again later, waiting longer after each failure. */
void
irc_rejoin_later(struct irc *irc, struct irc_chan *c, uint64_t base)
{
	uint64_t delay = base;

	for (int i = 0; i < c->retries && delay < REJOIN_MAX_MS; i++)
		delay *= 2;
	if (delay > REJOIN_MAX_MS)
		delay = REJOIN_MAX_MS;
	c->retries++;
	loop_cancel(irc->loop, c->rejoin_timer);
	c->rejoin_timer = loop_timer(irc->loop, delay, rejoin_timer, c);
	log_info("irc %s: will try to join %s again in %llu s",
	    irc->network, c->name,
	    (unsigned long long)(delay / 1000));
}

/* The connection. */

static uint64_t
random_below(struct irc *irc, uint64_t n)
{
	/* splitmix64: jitter needs no more. */
	uint64_t z = (irc->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return n > 0 ? z % n : 0;
}

static void connect_begin(struct irc *irc);

static void
reconnect_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)id;
	irc->reconnect_timer = 0;
	irc_enter(irc);
	if (irc->phase == PHASE_WAIT)
		connect_begin(irc);
	irc_leave(irc);
}

static void
schedule_reconnect(struct irc *irc)
{
	uint64_t min = (uint64_t)irc->cfg.reconnect_min * 1000;
	uint64_t max = (uint64_t)irc->cfg.reconnect_max * 1000;
	uint64_t delay = min;

	for (int i = 0; i < irc->attempts && delay < max; i++)
		delay *= 2;
	if (delay > max)
		delay = max;
	/* Equal jitter: half fixed, half random, never below min. */
	delay = delay / 2 + random_below(irc, delay / 2 + 1);
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
static void
connection_close(struct irc *irc)
{
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
	irc->to_up.len = irc->to_local.len = irc->line.len = 0;
	irc->discarding = 0;
	for (int i = 0; i < irc->nchans; i++) {
		struct irc_chan *c = irc->chans[i];

		irc_chan_clear(irc, c);
		c->joined = 0;
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
	loop_cancel(irc->loop, irc->reclaim_timer);
	irc->reclaim_timer = 0;
	irc->monitoring = irc->regain_sent = irc->ghost_sent = 0;
	if (irc->queue != NULL) {
		irc_queue_run(irc->queue, 0);
		/*
		 * Lines libircclient or the relay still held may never have
		 * reached the server: they go again, in order.
		 */
		irc_queue_requeue(irc->queue);
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
			irc->lost = strdup(reason);
		return;
	}
	if (irc->phase == PHASE_STOPPED || irc->phase == PHASE_IDLE)
		return;
	log_warn("irc %s: connection lost: %s", irc->network, reason);
	if (was_ready && irc_now_ms(irc) - irc->registered_at >= 60000)
		irc->attempts = 0;
	connection_close(irc);
	schedule_reconnect(irc);
	if (was_ready && irc_alive(irc))
		adapter_connected(irc->adapter, 0);
}

/* The relay. */

static void
set_watch(struct irc *irc, int fd, int *current, int events, loop_fd_fn fn)
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
static int
up_flush(struct irc *irc)
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
	    out, "005 ", 4) == 0) {
		memcpy(copy, out, n - 2);
		copy[n - 2] = '\0';
		if (irc_parse(copy, &m) == 0 && strcmp(m.command, "005") == 0)
			irc_isupport_apply(&irc->is, &m);
	}
	/*
	 * The answer to the queue's PING: the server has handled every
	 * line sent before it, and their messages are confirmed.
	 */
	if (irc->queue != NULL && strstr(out, " PONG ") != NULL) {
		memcpy(copy, out, n - 2);
		copy[n - 2] = '\0';
		if (irc_parse(copy, &m) == 0 && strcmp(m.command, "PONG") ==
		    0 && m.nparams > 0)
			irc_queue_pong(irc->queue, m.params[m.nparams - 1]);
	}
	if (buf_add(&irc->to_local, out, n) != 0)
		irc_connection_lost(irc, "out of memory");
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
			} else if (buf_add(&irc->line, data + i, end - i) !=
			    0) {
				irc_connection_lost(irc, "out of memory");
				return;
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

static void
local_flush(struct irc *irc)
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
		up_flush(irc);
	if ((events & LOOP_READ) && irc->up != NULL)
		up_read(irc);
	if (irc->up != NULL)
		local_flush(irc);
	relay_update(irc);
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
		local_flush(irc);
	/* Room again: read what TLS may already hold decrypted. */
	if (irc->up_throttled && irc->to_local.len < RELAY_MAX / 2) {
		up_read(irc);
		local_flush(irc);
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
			if (buf_add(&irc->to_up, data, (size_t)n) != 0)
				irc_connection_lost(irc, "out of memory");
			else
				up_flush(irc);
		}
	}
	relay_update(irc);
	irc_leave(irc);
}

/* Watches both ends of the relay for what each needs now. */
static void
relay_update(struct irc *irc)
{
	int ev;

	if (irc->up != NULL && irc->up_fd >= 0) {
		ev = (irc->up_throttled ? 0 : LOOP_READ) |
		    (irc->to_up.len > 0 ? LOOP_WRITE : 0);
		set_watch(irc, irc->up_fd, &irc->up_events, ev, on_up);
	}
	if (irc->local_fd >= 0) {
		ev = (irc->to_up.len < RELAY_MAX ? LOOP_READ : 0) |
		    (irc->to_local.len > 0 ? LOOP_WRITE : 0);
		set_watch(irc, irc->local_fd, &irc->local_events, ev,
		    on_local);
	}
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
		connection_close(irc);
	} else if (irc->lost != NULL) {
		char *reason = irc->lost;

		irc->lost = NULL;
		irc_connection_lost(irc, "%s", reason);
		free(reason);
	} else if (rc != 0 && irc->session != NULL) {
		irc_connection_lost(irc, "libircclient: %s",
		    irc_strerror(irc_errno(irc->session)));
	}
	relay_update(irc);
	irc_leave(irc);
}

/*
 * Before each wait: asks libircclient what it waits for and watches its
 * socket for that.  The socket was checked to be below FD_SETSIZE.
 */
static int
hook(struct loop *loop, void *arg)
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
	set_watch(irc, irc->irc_fd, &irc->irc_events, ev, on_irc_fd);
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
	local_flush(irc);
	relay_update(irc);
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
	if (buf_add(&irc->to_up, "CAP LS 302\r\n", 12) != 0) {
		irc_connection_lost(irc, "out of memory");
		return;
	}
	irc->phase = PHASE_RELAY;
	irc->last_recv = irc_now_ms(irc);
	irc->ping_sent = 0;
	irc->ping_timer = loop_timer(irc->loop,
	    (uint64_t)irc->cfg.ping_timeout * 100, ping_timer, irc);
	irc->register_timer = loop_timer(irc->loop,
	    (uint64_t)irc->cfg.ping_timeout * 1000, register_timer, irc);
	up_flush(irc);
	relay_update(irc);
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
		connection_close(irc);
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

static void
connect_begin(struct irc *irc)
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

/* The adapter. */

static int
irc_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct irc *irc = calloc(1, sizeof(*irc));

	adapter->priv = NULL;
	if (irc == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (irc_config_read(&irc->cfg, config, path, err, errlen) != 0 ||
	    (irc->network = strdup(adapter->network != NULL ?
	    adapter->network : "irc")) == NULL) {
		if (irc->network == NULL && err[0] == '\0')
			snprintf(err, errlen, "%s: out of memory", path);
		irc_config_free(&irc->cfg);
		free(irc);
		return -1;
	}
	irc->adapter = adapter;
	irc->phase = PHASE_IDLE;
	irc->up_fd = irc->listen_fd = irc->local_fd = irc->irc_fd = -1;
	text_init(&irc->caps_offered);
	irc_isupport_init(&irc->is);
	snprintf(irc->nick, sizeof(irc->nick), "%s", irc->cfg.nick);
	irc->rng = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20 ^
	    (uint64_t)(uintptr_t)irc;
	adapter->priv = irc;
	return 0;
}

static void
irc_free(struct irc *irc)
{
	irc->phase = PHASE_STOPPED;
	if (irc->loop != NULL) {
		connection_close(irc);
		loop_cancel(irc->loop, irc->reconnect_timer);
		loop_cancel(irc->loop, irc->sent_timer);
		if (irc->hooked)
			loop_unhook(irc->loop, hook, irc);
	}
	while (irc->nchans > 0)
		irc_chan_drop(irc, irc->chans[0]);
	free(irc->chans);
	free(irc->users);
	irc_queue_destroy(irc->queue);
	free(irc->sent_ids);
	free(irc->verifies);
	text_finish(&irc->caps_offered);
	buf_free(&irc->to_up);
	buf_free(&irc->to_local);
	buf_free(&irc->line);
	irc_config_free(&irc->cfg);
	free(irc->network);
	free(irc);
}

static void
irc_finish(struct adapter *adapter)
{
	struct irc *irc = adapter->priv;

	if (irc == NULL)
		return;
	adapter->priv = NULL;
	/* Called from a callback we are in: free once it returns. */
	if (irc->depth > 0) {
		irc->doomed = 1;
		irc->adapter = NULL;
		return;
	}
	irc_free(irc);
}

static int
irc_start(struct adapter *adapter)
{
	struct irc *irc = adapter->priv;

	if (irc == NULL)
		return -1;
	if (irc->phase != PHASE_IDLE && irc->phase != PHASE_STOPPED)
		return 0;
	irc->loop = adapter->loop;
	if (queue_get(irc) == NULL)
		return -1;
	if (!irc->hooked) {
		if (loop_hook(irc->loop, hook, irc) != 0)
			return -1;
		irc->hooked = 1;
	}
	irc->attempts = 0;
	connect_begin(irc);
	return 0;
}

/* Pushes what waits (a QUIT) to the server for at most timeout ms. */
static void
drain(struct irc *irc, int timeout)
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
			if (buf_add(&irc->to_up, data, (size_t)n) != 0)
				return;
		if (up_flush(irc) != 0)
			return;
		if (!pending && irc->to_up.len == 0)
			break;
		pfd.fd = irc->up_fd;
		pfd.events = POLLOUT;
		pfd.revents = 0;
		poll(&pfd, 1, 50);
	}
}

static void
irc_stop(struct adapter *adapter, const char *goodbye)
{
	struct irc *irc = adapter->priv;

	if (irc == NULL || irc->phase == PHASE_IDLE ||
	    irc->phase == PHASE_STOPPED)
		return;
	if (irc->phase == PHASE_READY && irc->session != NULL) {
		char *g = text_sanitize(goodbye != NULL ? goodbye : "");

		/*
		 * What is still queued for tables and people (a goodbye)
		 * leaves before the QUIT, at the bucket's pace, for at most
		 * STOP_FLUSH_MS: the core gave the queue time to drain, and
		 * a stop must not hang on a long backlog.
		 */
		if (!irc->in_session && irc->queue != NULL) {
			uint64_t end = irc_now_ms(irc) + STOP_FLUSH_MS;

			irc_queue_flush(irc->queue);
			while (irc_queue_flows_waiting(irc->queue) > 0 &&
			    irc->session != NULL && irc_now_ms(irc) < end) {
				drain(irc, 20);
				poll(NULL, 0, 20);
				irc_queue_flush(irc->queue);
			}
		}
		if (g != NULL) {
			cut_utf8(g, 300);
			irc_send_raw(irc->session, "QUIT :%s", g);
			free(g);
		}
		if (!irc->in_session)
			drain(irc, 1000);
	}
	irc->phase = PHASE_STOPPED;
	loop_cancel(irc->loop, irc->reconnect_timer);
	irc->reconnect_timer = 0;
	/* Inside libircclient, on_irc_fd() closes once it returns. */
	if (!irc->in_session)
		connection_close(irc);
	irc_queue_run(irc->queue, 0);
	log_info("irc %s: stopped", irc->network);
}

static int
irc_join(struct adapter *adapter, const char *channel)
{
	struct irc *irc = adapter->priv;
	struct irc_chan *c;

	if (irc == NULL || !irc_valid_channel(channel)) {
		log_warn("irc %s: cannot join \"%s\": not a channel name",
		    irc != NULL ? irc->network : "?", channel);
		return -1;
	}
	if ((c = irc_chan_get(irc, channel)) == NULL)
		return -1;
	c->wanted = 1;
	c->retries = 0;
	if (irc->phase == PHASE_READY && !c->joined && c->rejoin_timer == 0)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", c->name);
	return 0;
}

static int
irc_part(struct adapter *adapter, const char *channel)
{
	struct irc *irc = adapter->priv;
	struct irc_chan *c;

	if (irc == NULL || (c = irc_chan_find(irc, channel)) == NULL)
		return 0;
	c->wanted = 0;
	if (irc->loop != NULL)
		loop_cancel(irc->loop, c->rejoin_timer);
	c->rejoin_timer = 0;
	if (c->joined && irc->phase == PHASE_READY) {
		char line[IRC_LINE_MAX];
		const char *lines[1] = { line };

		/* Behind the channel's lines, so that they still leave. */
		snprintf(line, sizeof(line), "PART %s", c->name);
		if (irc_queue_push_message(irc->queue, c->name, NULL, 0, 0,
		    lines, 1) != 0)
			irc_queue_line(irc, IRC_CLASS_CONTROL, "PART %s",
			    c->name);
	} else {
		irc_chan_drop(irc, c);
	}
	return 0;
}

static int
irc_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	struct irc *irc = adapter->priv;

	if (irc == NULL || queue_get(irc) == NULL ||
	    !irc_valid_channel(channel))
		return -1;
	return queue_text(irc, "PRIVMSG", channel, NULL, info != NULL &&
	    info->flow != NULL ? info->flow : channel, info != NULL ?
	    info->id : 0, text);
}

/*
 * The nick to reach user_id by, or NULL when it cannot be told.  Whether
 * the nick's holder now is that person is checked when each line leaves
 * (holder_gate()).
 */
static const char *
private_target(struct irc *irc, const char *user_id, struct origin *o)
{
	struct irc_user *u;

	if (strncmp(user_id, "account:", 8) == 0) {
		for (int i = 0; i < irc->nusers; i++) {
			u = irc->users[i];
			if (u->account != NULL &&
			    irc_nick_eq(irc, u->account, user_id + 8))
				return u->nick;
		}
		for (int i = 0; i < irc->nglimpses; i++)
			if (irc->glimpses[i].account[0] != '\0' &&
			    irc_nick_eq(irc, irc->glimpses[i].account,
			    user_id + 8))
				return irc->glimpses[i].nick;
		return NULL;
	}
	if (irc_origin_split(user_id, o) != 0 || o->user[0] == '\0' ||
	    o->host[0] == '\0' || strpbrk(o->nick, " ,:*?") != NULL ||
	    strspn(o->nick, "#&") > 0)
		return NULL;
	for (const char *p = o->nick; *p != '\0'; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			return NULL;
	return o->nick;
}

static int
irc_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	struct irc *irc = adapter->priv;
	uint64_t id = info != NULL ? info->id : 0;
	struct origin o;
	const char *nick;

	if (irc == NULL || queue_get(irc) == NULL)
		return -1;
	if ((nick = private_target(irc, user_id, &o)) == NULL) {
		log_warn("irc %s: cannot send privately to %s: not on a "
		    "channel with us", irc->network, user_id);
		/* It can never leave: the outbox may forget it. */
		if (id != 0)
			queue_done(id, 1, irc);
		return -1;
	}
	/*
	 * A table's private line goes in its table's flow (the core names
	 * it), behind that table's channel lines; a reply in the
	 * recipient's own.
	 */
	return queue_text(irc, irc->cfg.notice ? "NOTICE" : "PRIVMSG", nick,
	    user_id, info != NULL && info->flow != NULL ? info->flow : user_id,
	    id, text);
}

static size_t
irc_queue_depth_impl(const struct adapter *adapter)
{
	const struct irc *irc = adapter->priv;

	return irc != NULL && irc->queue != NULL ?
	    irc_queue_depth(irc->queue) : 0;
}

/* The nick we hold now (not the configured one while it is taken). */
static const char *
irc_self_name(struct adapter *adapter)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->phase == PHASE_READY ? irc->nick : NULL;
}

/* A flow with IRC_FLOW_BUSY lines waiting takes no more for now. */
static int
irc_busy(struct adapter *adapter, const char *flow)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->queue != NULL && flow != NULL &&
	    irc_queue_flow_depth(irc->queue, flow) >= IRC_FLOW_BUSY;
}

const struct adapter_impl irc_adapter = {
	.name = "irc",
	/* Confirmed by the server's PONG, so kept until then. */
	.reports_sent = 1,
	.init = irc_init,
	.finish = irc_finish,
	.start = irc_start,
	.stop = irc_stop,
	.join = irc_join,
	.part = irc_part,
	.send_channel = irc_send_channel,
	.send_private = irc_send_private,
	.queue_depth = irc_queue_depth_impl,
	.channel_admin = NULL,
	.self_name = irc_self_name,
	.busy = irc_busy,
};

/*
 * irc.c - the IRC adapter, on libircclient, driven by the bot's loop:
 * its operations (the const descriptor irc_adapter) and its life, from
 * init() to finish().  The files of adapters/irc/ and their concerns are
 * listed in irc_int.h, which holds their shared state.
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
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libircclient.h>

#include "adapter.h"
#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "queue.h"
#include "text.h"
#include "xmalloc.h"

/* How long stop() may wait for queued lines to leave before QUIT. */
#define STOP_FLUSH_MS 2000
/* How long a stop waits for the PONG that confirms the last lines. */
#define STOP_CONFIRM_MS 2000

static void irc_free(struct irc *irc);

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

/* The adapter. */

static int
irc_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct irc *irc = xcalloc(1, sizeof(*irc));

	adapter->priv = NULL;
	if (irc_config_read(&irc->cfg, config, path, err, errlen) != 0) {
		irc_config_free(&irc->cfg);
		free(irc);
		return -1;
	}
	irc->network = xstrdup(adapter->network != NULL ? adapter->network :
	    "irc");
	irc->adapter = adapter;
	irc->phase = PHASE_IDLE;
	irc->up_fd = irc->listen_fd = irc->local_fd = irc->irc_fd = -1;
	text_init(&irc->caps_offered);
	irc_isupport_init(&irc->is);
	irc_casemap_recall(irc);
	snprintf(irc->nick, sizeof(irc->nick), "%s", irc->cfg.nick);
	rng_seed(&irc->rng, (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20 ^
	    (uint64_t)(uintptr_t)irc);
	adapter->priv = irc;
	return 0;
}

static void
irc_free(struct irc *irc)
{
	irc->phase = PHASE_STOPPED;
	if (irc->loop != NULL) {
		irc_connection_close(irc);
		loop_cancel(irc->loop, irc->reconnect_timer);
		loop_cancel(irc->loop, irc->sent_timer);
		if (irc->hooked)
			loop_unhook(irc->loop, irc_hook, irc);
	}
	while (irc->nchans > 0)
		irc_chan_drop(irc, irc->chans[0]);
	free(irc->chans);
	free(irc->users);
	irc_queue_destroy(irc->queue);
	free(irc->sent_ids);
	free(irc->verifies);
	text_finish(&irc->caps_offered);
	irc_relay_free(irc);
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
	if (irc_queue_get(irc) == NULL)
		return -1;
	if (!irc->hooked) {
		if (loop_hook(irc->loop, irc_hook, irc) != 0)
			return -1;
		irc->hooked = 1;
	}
	irc->attempts = 0;
	irc_connect_begin(irc);
	return 0;
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
				irc_relay_drain(irc, 20);
				poll(NULL, 0, 20);
				irc_queue_flush(irc->queue);
			}
		}
		if (strlen(g) > 300)
			g[irc_utf8_cut(g, 300)] = '\0';
		/*
		 * A PING follows what is still unconfirmed, then the QUIT;
		 * its PONG confirms those lines, so that the next start does
		 * not say them again.  Without a PONG in time they stay
		 * unconfirmed and are said again: repeated, never lost.
		 */
		if (!irc->in_session && irc->queue != NULL &&
		    irc->session != NULL)
			(void)irc_queue_ping_last(irc->queue);
		/* Draining may have lost the connection (and the session). */
		if (irc->session != NULL)
			irc_send_raw(irc->session, "QUIT :%s", g);
		free(g);
		if (!irc->in_session) {
			irc_relay_drain(irc, 1000);
			irc_relay_await_sent(irc, STOP_CONFIRM_MS);
		}
	}
	irc->phase = PHASE_STOPPED;
	loop_cancel(irc->loop, irc->reconnect_timer);
	irc->reconnect_timer = 0;
	/* Inside libircclient, on_irc_fd() closes once it returns. */
	if (!irc->in_session)
		irc_connection_close(irc);
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
	c = irc_chan_get(irc, channel);
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
		if (irc_queue_push_message(irc->queue, c->name, NULL, 0, 0, 0,
		    lines, 1) != 0)
			irc_queue_line(irc, IRC_CLASS_CONTROL, "PART %s",
			    c->name);
	} else {
		irc_chan_drop(irc, c);
	}
	return 0;
}

/*
 * The lines that can still leave: a stop waits for these.  None can while
 * the bot is not connected, nor a table's lines (and the replies queued
 * behind them) for a channel that keeps the bot out (a kick, a ban, a
 * refused join: it tries again later).  Those keep their outbox rows, and
 * the next run says them; waiting for them would only delay the stop
 * by its whole drain time.
 */
static size_t
irc_queue_depth_impl(const struct adapter *adapter)
{
	const struct irc *irc = adapter->priv;
	char replies[IRC_LINE_MAX];
	size_t n;

	if (irc == NULL || irc->queue == NULL || irc->phase != PHASE_READY)
		return 0;
	n = irc_queue_depth(irc->queue);
	for (int i = 0; i < irc->nchans; i++) {
		const struct irc_chan *c = irc->chans[i];

		if (!c->wanted || c->joined || c->rejoin_timer == 0)
			continue;
		snprintf(replies, sizeof(replies), IRC_REPLIES_PREFIX "%s",
		    c->name);
		n -= irc_queue_flow_depth(irc->queue, c->name) +
		    irc_queue_flow_depth(irc->queue, replies);
	}
	return n;
}

/* The nick we hold now (not the configured one while it is taken). */
static const char *
irc_self_name(struct adapter *adapter)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->phase == PHASE_READY ? irc->nick : NULL;
}

/*
 * Seats stored before ids had their nick in one case, or restored before
 * the server said how it folds: the fold identities use now.
 */
static void
irc_canonical_id(struct adapter *adapter, char *user_id)
{
	const struct irc *irc = adapter->priv;

	irc_identity_fold(user_id, irc != NULL ? irc->id_casemap :
	    IRC_CASEMAP_RFC1459);
}

/* A flow with IRC_FLOW_BUSY lines waiting takes no more for now. */
static int
irc_busy(struct adapter *adapter, const char *flow)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->queue != NULL && flow != NULL &&
	    irc_queue_flow_depth(irc->queue, flow) >= IRC_FLOW_BUSY;
}

/* A flow's lines not yet handed to the server. */
static size_t
irc_flow_waiting(struct adapter *adapter, const char *flow)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->queue != NULL ?
	    irc_queue_flow_depth(irc->queue, flow) : 0;
}

/* The bot stops: the tables' backlog waits for the next start. */
static size_t
irc_withhold(struct adapter *adapter)
{
	struct irc *irc = adapter->priv;

	return irc != NULL && irc->queue != NULL ?
	    irc_queue_withhold(irc->queue) : 0;
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
	.flow_waiting = irc_flow_waiting,
	.channel_admin = NULL,
	.self_name = irc_self_name,
	.busy = irc_busy,
	.canonical_id = irc_canonical_id,
	.withhold = irc_withhold,
};

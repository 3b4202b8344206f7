/*
 * send.c - what the core says, into the queue (queue.c): text rendered
 * and split into lines that fit once the server has put its prefix
 * before them, private lines addressed to the nick that reaches a
 * person, lines that left reported to the core (adapter_sent()), and
 * the queue's way out through libircclient.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libircclient.h>

#include "adapter.h"
#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "queue.h"
#include "text.h"
#include "xmalloc.h"

/*
 * Private lines are split as if the nick they go to were at least this
 * long, so that they still fit when that person changes nick while they
 * wait (most networks' NICKLEN is 30 or less).
 */
#define NICK_ALLOWANCE 32

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
	xarray_grow((void **)&irc->sent_ids, &irc->sent_cap, irc->nsent + 1,
	    sizeof(*irc->sent_ids));
	irc->sent_ids[irc->nsent++] = id;
	if (irc->sent_timer == 0 && irc->loop != NULL)
		irc->sent_timer = loop_timer(irc->loop, 0, sent_timer, irc);
}

/* The queue, made at the first line: lines may come before start(). */
struct irc_queue *
irc_queue_get(struct irc *irc)
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

uint64_t
irc_mark(struct irc *irc)
{
	struct irc_queue *q = irc_queue_get(irc);

	return q != NULL ? irc_queue_mark(q) : 0;
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
	if (n < 0 || (size_t)n >= sizeof(line) - 2 || irc_queue_get(irc) == NULL)
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
	int n, cap;
};

static void
push_line(const char *line, size_t len, void *arg)
{
	struct push_ctx *ctx = arg;
	char out[IRC_LINE_MAX * 2];

	snprintf(out, sizeof(out), "%s %s :%.*s", ctx->command, ctx->target,
	    (int)len, line);
	xarray_grow((void **)&ctx->lines, &ctx->cap, ctx->n + 1, sizeof(*ctx->lines));
	ctx->lines[ctx->n++] = xstrdup(out);
}

/*
 * Queues text to target as one message of flow: channel lines are gated
 * on being in the channel, private lines (ident: the seat's identity) on
 * the nick's holder.
 */
static int
queue_text(struct irc *irc, const char *command, const char *target,
    const char *ident, const char *flow, uint64_t id, uint64_t expires,
    const struct text *text)
{
	struct push_ctx ctx = { command, target, NULL, 0, 0 };
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
	if (n >= 0)
		rc = irc_queue_push_message(irc->queue, flow, ident, 1, id,
		    expires, (const char *const *)ctx.lines, ctx.n);
	if (rc != 0)
		log_warn("irc %s: could not queue a message to %s",
		    irc->network, target);
	for (int i = 0; i < ctx.n; i++)
		free(ctx.lines[i]);
	free(ctx.lines);
	return rc;
}

int
irc_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	struct irc *irc = adapter->priv;
	const char *flow = info != NULL ? info->flow : NULL;
	char replies[IRC_LINE_MAX];

	if (irc == NULL || irc_queue_get(irc) == NULL ||
	    !irc_valid_channel(channel))
		return -1;
	/*
	 * A line of no table's flow (a reply that changed nothing) goes in
	 * the channel's flow of replies (IRC_REPLIES_PREFIX): questions
	 * never hold back a table's lines.
	 */
	if (flow == NULL) {
		snprintf(replies, sizeof(replies), IRC_REPLIES_PREFIX "%s",
		    channel);
		flow = replies;
	}
	return queue_text(irc, "PRIVMSG", channel, NULL, flow, info != NULL ?
	    info->id : 0, info != NULL ? info->expires : 0, text);
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
	/*
	 * The core names the nick the seat had when it queued the line; the
	 * person may have renamed since, and someone else taken the nick.
	 */
	return irc_rename_follow(irc, o->nick, o->user, o->host);
}

int
irc_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	struct irc *irc = adapter->priv;
	uint64_t id = info != NULL ? info->id : 0;
	struct origin o;
	const char *nick;

	if (irc == NULL || irc_queue_get(irc) == NULL)
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
	    id, info != NULL ? info->expires : 0, text);
}

/*
 * queue.h - the IRC adapter's outgoing queue: which line leaves next
 * (control lines, then the flows of tables and people round-robin, then
 * background and low lines), at the pace of a bucket.h bucket, and when
 * a message counts as said (the server's PONG after its last line).
 *
 * Nothing here does I/O; the queue only sets timers on a loop (loop.h),
 * so tests drive it with the loop's virtual clock.
 */
#ifndef STICHBOT_IRC_QUEUE_H
#define STICHBOT_IRC_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct loop;

/*
 * Background lines leave at most one per this many ms: servers charge a
 * WHO more than other lines (ngircd holds the client back a second for
 * each), and whatever the bot sends after it waits that long.
 */
#define IRC_BACKGROUND_GAP_MS 1000

/*
 * The outgoing queue.  Control lines (JOIN, PART, NICK, a WHO that
 * verifies who holds a nick) leave first; then the flows, round-robin;
 * then background lines (the WHO of each joined channel, which must not
 * hold the games back after joining many channels; at most one per
 * IRC_BACKGROUND_GAP_MS), and low ones (CTCP replies, dropped when a few
 * already wait).
 *
 * A flow is one table (its channel: its channel lines and its private
 * lines) or one person (replies to them).  Its messages leave in the
 * order they were queued.  Flows holding lines with an outbox id (tables)
 * go before reply-only flows, except that after IRC_TABLE_SHARE table
 * lines in a row a waiting reply gets the turn; within each kind flows
 * take turns line by line.  So with T tables busy, a table's next line
 * waits for at most T - 1 other tables' lines plus one reply per
 * IRC_TABLE_SHARE of them, whatever the replies' backlog; replies keep at
 * least 1 line in IRC_TABLE_SHARE + 1 of the budget.  The lines of a
 * gated message are shown to a gate first, which lets them go, holds the
 * flow (a nick's holder is being verified, a channel is not joined yet)
 * or drops the rest of the message (someone else holds the nick; the
 * channel was left).  While a private message waits for its gate (its
 * nick's holder is being verified), later messages of its flow to others
 * may leave before it: one person's verification does not hold a table's
 * channel lines back; each person's lines keep their order.
 *
 * A message queued with an id is never refused nor dropped silently: its
 * id is reported to done() once the server is known to have its last line
 * or when it was dropped.  Lines of a flow handed to send() stay "in
 * flight" until then; when the connection is lost they go back to the
 * front of their flows (irc_queue_requeue()), so each is sent at most
 * once more.  Lines of messages without an id (replies) are not kept
 * once handed on: at most once, and no PING for them.  Messages without
 * an id (replies) are refused past IRC_FLOW_UNTRACKED_MAX lines in their
 * flow or IRC_QUEUE_MAX in all.
 *
 * Known to the server: with a ping() operation the queue follows the
 * lines it handed on with a PING (through ping(), a token of its own),
 * and the server's PONG for that token (irc_queue_pong()) confirms every
 * line before it: a server handles a client's lines in order, so a line
 * that sat in a socket buffer when the bot died is never counted as
 * said.  At most one PING is outstanding; it covers every line handed on
 * since the previous one (a batch), and leaves when nothing else may
 * leave right now (after the current event: a zero-delay timer) or once
 * IRC_PING_BATCH lines wait for one.  Each PING takes a token of the
 * bucket like any line, so under a steady backlog PINGs take at most one
 * line in IRC_PING_BATCH + 1 of the budget.  Without ping() (tests),
 * irc_queue_written() confirms what was handed on.
 */
enum irc_class {
	IRC_CLASS_CONTROL,
	IRC_CLASS_BACKGROUND,
	IRC_CLASS_LOW,
	IRC_CLASSES,
};

/* Table lines in a row after which a waiting reply gets the turn. */
#define IRC_TABLE_SHARE 4

/*
 * The flow of a channel's replies (answers said there that changed
 * nothing) is this followed by the channel's name: it never holds back
 * the table's flow, and waits while that has lines waiting that were
 * queued before its own, so the channel reads its table's news (a
 * restart's lines said again among them) before the answers that came
 * after it, and the table's later lines do not hold the answers.  A
 * space is in no channel's name.
 */
#define IRC_REPLIES_PREFIX "replies "

/* Lines handed on after which a PING follows even with more waiting. */
#define IRC_PING_BATCH 10
/*
 * Table lines handed on but not yet confirmed beyond which no more leave
 * until the server answers a PING.  A server that charges commands (ngircd
 * holds a client back a second for each WHO) keeps what a client wrote in
 * its own buffer, and after a crash still says it for seconds; the window
 * bounds that backlog, and with it how many lines a crash may make the
 * next run say again.  Replies are not held: they are never said again.
 */
#define IRC_FLY_MAX (2 * IRC_PING_BATCH)

/* Waiting lines beyond which replies and class lines are refused. */
#define IRC_QUEUE_MAX 5000
/*
 * Waiting lines without an id (replies) one flow may hold.  Fairness
 * needs no small number here (a flow only gets its turn); this bounds the
 * memory a flood of replies may take.
 */
#define IRC_FLOW_UNTRACKED_MAX 1000
/*
 * A flow with at least this many lines waiting is busy (the adapter's
 * busy()): the core causes no more there until it drains.  About two
 * deals of a six-player table; at one line a second, 30 s of backlog.
 */
#define IRC_FLOW_BUSY 30
/* CTCP replies kept waiting at most. */
#define IRC_QUEUE_LOW_MAX 4

/*
 * Sends one line (no CR LF): 0 sent, 1 busy (the line stays first and is
 * retried shortly), -1 failed (the line is dropped).
 */
typedef int (*irc_send_fn)(const char *line, void *arg);

/* What a gate says of the next line of a gated message. */
enum irc_gate {
	IRC_GATE_GO,
	IRC_GATE_WAIT,
	IRC_GATE_DROP,
};

struct irc_queue_ops {
	irc_send_fn send;
	/*
	 * Of a gated line; ident as queued (NULL for channel lines), and
	 * its message's mark (irc_queue_mark()), taken when it was queued.
	 */
	int (*gate)(const char *line, const char *ident, uint64_t queued,
	    void *arg);
	/* A message with an id left (dropped 0) or never will (1). */
	void (*done)(uint64_t id, int dropped, void *arg);
	/*
	 * Sends "PING :" IRC_PING_PREFIX token right behind the lines
	 * handed to send() so far; returns as send() does.  NULL: no PINGs.
	 */
	irc_send_fn ping;
	void *arg;
};

/* The tokens of the queue's PINGs start with this. */
#define IRC_PING_PREFIX "sent-"

struct irc_queue;

struct irc_queue *irc_queue_create(struct loop *loop, int burst,
    int interval_ms, const struct irc_queue_ops *ops);
void irc_queue_destroy(struct irc_queue *q);
/* Appends a line (copied) of a class; 0, or -1 when refused. */
int irc_queue_push(struct irc_queue *q, enum irc_class cls, const char *line);
/*
 * Appends a message of n lines to flow.  ident (copied, may be NULL) is
 * handed to the gate with each line when gated.  id 0: a reply, refused
 * past the limits above (-1, logged); otherwise done(id) follows.
 * expires: 0, or the loop time after which the message, if it has not
 * begun to leave, is dropped (struct send_info).
 */
int irc_queue_push_message(struct irc_queue *q, const char *flow,
    const char *ident, int gated, uint64_t id, uint64_t expires,
    const char *const *lines, int n);
/*
 * Drops the waiting messages that expire at or before now and have not
 * begun to leave (UINT64_MAX: every one that expires, as the connection
 * is lost); returns how many.  The queue does it itself before sending.
 */
size_t irc_queue_expire(struct irc_queue *q, uint64_t now);
/*
 * A new mark: greater than that of every message queued so far and less
 * than that of every message queued later.  What the adapter learns
 * stamped with a mark holds for the messages queued before it; milliseconds
 * could not tell a message queued in the same one.
 */
uint64_t irc_queue_mark(struct irc_queue *q);
/*
 * The bot stops: drops the waiting messages with an id that have not
 * begun to leave, without done(): they are sent again after the next
 * start (adapter.h's withhold()).  Returns how many.  The messages
 * without one that have not begun (answers to questions, a reminder) go
 * too: a channel's answers wait behind its table's goodbye, queued next,
 * and after it they would only speak of a game that stopped.
 */
size_t irc_queue_withhold(struct irc_queue *q);
/* Starts (after registration) or pauses (disconnected) sending. */
void irc_queue_run(struct irc_queue *q, int running);
/* Sends what the bucket allows now and sets a timer for the rest. */
void irc_queue_flush(struct irc_queue *q);
/* Drops every waiting line of a class (old JOINs after a disconnect). */
void irc_queue_clear(struct irc_queue *q, enum irc_class cls);
/* Every line handed to send() so far reached the server: done() them. */
void irc_queue_written(struct irc_queue *q);
/*
 * The server answered a PING with token (the text after IRC_PING_PREFIX):
 * the lines handed on before that PING are done().  Returns 1 when the
 * token was the queue's outstanding one, 0 otherwise.
 */
int irc_queue_pong(struct irc_queue *q, const char *token);
/*
 * At a stop, before the QUIT: a PING now (outside the bucket) after the
 * lines in flight, so that its PONG confirms them before the connection
 * closes.  1: a PING follows them (sent now or earlier), 0: none is
 * needed (nothing in flight, or no ping()), -1: it could not be sent.
 */
int irc_queue_ping_last(struct irc_queue *q);
/* When the outstanding PING was sent (loop time), or 0: none is. */
uint64_t irc_queue_ping_since(const struct irc_queue *q);
/* The connection was lost: lines in flight go back, in order. */
void irc_queue_requeue(struct irc_queue *q);
size_t irc_queue_inflight(const struct irc_queue *q);
/*
 * Readdresses the waiting PRIVMSG and NOTICE lines of gated messages that
 * go to nick old (compared under map) to now: someone changed their nick
 * while lines for them waited.  A line that would grow beyond max bytes
 * loses the end of its text, cut at a UTF-8 boundary.  Returns the number
 * of lines changed.
 */
int irc_queue_retarget(struct irc_queue *q, enum irc_casemap map,
    const char *old, const char *now, size_t max);
/*
 * Private lines of tracked messages to nick (compared under map) handed
 * on but not yet known to have reached the server.
 */
size_t irc_queue_inflight_to(const struct irc_queue *q, enum irc_casemap map,
    const char *nick);
/* Every line not yet known written: waiting and in flight. */
size_t irc_queue_depth(const struct irc_queue *q);
/* The lines waiting in every flow (not yet handed to send()). */
size_t irc_queue_flows_waiting(const struct irc_queue *q);
/* The lines waiting in one flow. */
size_t irc_queue_flow_depth(const struct irc_queue *q, const char *flow);
/* Changes the bucket's pace, keeping the tokens left (no new burst). */
void irc_queue_set_pace(struct irc_queue *q, int burst, int interval_ms);
/*
 * The pace for a server without "flood" in the configuration: a burst of
 * IRC_PACE_BURST, then one line per IRC_PACE_INTERVAL_MS (RFC 1459's
 * limit), faster where the server's software (its version in RPL_MYINFO,
 * e.g. "ngircd-26.1", "solanum-1.0") is known to allow more.
 */
#define IRC_PACE_BURST 4
#define IRC_PACE_INTERVAL_MS 2000
void irc_pace_for_server(const char *version, int *burst, int *interval_ms);

#endif

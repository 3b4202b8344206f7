/*
 * queue_int.h - what the files of the IRC adapter's outgoing queue share
 * (queue.c, queue_private.c) and nothing else sees: a queued line, a
 * flow, and the queue itself.  See queue.h for what they do.
 */
#ifndef STICHBOT_IRC_QUEUE_INT_H
#define STICHBOT_IRC_QUEUE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "queue.h"

/* How long a line waits when libircclient's buffer is full. */
#define IRC_QUEUE_RETRY_MS 50
/* How often lines held by a gate are tried again, at the latest. */
#define IRC_QUEUE_GATE_RETRY_MS 1000

/*
 * A queued line.  Lines of a flow belong to messages: msg numbers them,
 * and the last line of a message carries its id.  ident (private lines)
 * points into the same allocation, after the line.
 */
struct qline {
	struct qline *next;
	struct qflow *flow;      /* NULL: a line of a class */
	uint64_t id;             /* on a message's last line; 0 elsewhere */
	uint64_t msg;            /* also its mark (irc_queue_mark()) */
	const char *ident;
	int gated, first, last;
	int tracked;             /* its message has an id */
	uint64_t batch;          /* in flight: the PING after it; 0 none yet */
	uint64_t expires;        /* its message's (struct send_info); 0 none */
	char line[];
};

/* The lines of one table or one person, in order. */
struct qflow {
	char *name;
	struct qline *head, *tail;
	size_t count;            /* waiting */
	size_t untracked;        /* waiting lines of messages without an id */
	size_t expiring;         /* of those, lines that expire (a reminder) */
	size_t inflight;         /* handed on, not yet known written */
	int warned;              /* dropped replies logged */
};

struct irc_queue {
	struct loop *loop;
	struct bucket bucket;
	struct irc_queue_ops ops;
	struct qline *head[IRC_CLASSES], *tail[IRC_CLASSES];
	size_t count[IRC_CLASSES];
	struct qflow **flows;
	int nflows, flows_cap;
	int rr;                  /* the table flow served last */
	int rr_reply;            /* the reply flow served last */
	int table_run;           /* table lines in a row while replies wait */
	int spare;               /* the bucket holds a token beyond this one */
	int reserved;            /* a reply waited for the table's token */
	/* Lines handed to send() and not yet known written, oldest first. */
	struct qline *fly_head, *fly_tail;
	size_t nfly;
	size_t unpinged;         /* of those, lines no PING follows yet */
	uint64_t ping_token;     /* the outstanding PING's; 0 none */
	uint64_t ping_at;        /* when it was sent */
	uint64_t next_token;
	int ping_soon;           /* a PING waits: 1 the event's end, 2 over */
	size_t total;            /* waiting, every class and flow */
	size_t untracked;        /* waiting flow lines without an id */
	size_t expiring;         /* waiting flow lines that expire */
	uint64_t next_msg;       /* the last message number or mark given */
	int running;
	int flushing;            /* flush() is on the stack */
	int warned;              /* "queue full" logged since it last emptied */
	uint64_t background_at;  /* when a background line may leave next */
	uint64_t timer;
};

#endif

/*
 * irc_int.h - what the files of the IRC adapter share: the adapter's
 * state (struct irc), the people and channels it knows, and the
 * functions more than one of its files calls.  Not for anything outside
 * adapters/irc/.
 *
 * irc.c: the adapter's operations and its life (init, start, stop).
 * conn.c: connecting, libircclient's session, timeouts, reconnecting.
 * relay.c: the bytes between libircclient and the server.
 * send.c: what the core says, into the queue.
 * events.c: libircclient's events.
 * people.c: the people and channels the bot shares with them.
 * register.c: capabilities, SASL, nicknames and taking our own nick back.
 * verify.c: who holds a nick now, before private lines go to it.
 * conf.c: the network's configuration.
 * The parts without state: proto.h (parsing, formatting, capabilities),
 * queue.h (the outgoing queue: queue.c, queue_private.c, and pace.c for
 * the pace each server allows), tls.h and fingerprint.h (the server
 * connection).
 */
#ifndef STICHBOT_IRC_INT_H
#define STICHBOT_IRC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <libircclient.h>

#include "adapter.h"
#include "conf.h"
#include "loop.h"
#include "proto.h"
#include "queue.h"
#include "rng.h"
#include "text.h"

/* Rejoining after a kick, and after a ban or a full channel. */
#define KICK_REJOIN_MS 10000
#define BAN_REJOIN_MS 60000
#define REJOIN_MAX_MS (30 * 60 * 1000)
/* The WHOX token that marks the replies to a channel's WHO. */
#define WHOX_TOKEN "163"
/* The WHOX token of a verification: who holds a nick now. */
#define VERIFY_TOKEN "164"
/* A verification unanswered for this long is asked again. */
#define VERIFY_TIMEOUT_MS 30000
/* Holders remembered of people outside our channels, at most. */
#define GLIMPSES_MAX 64

enum phase {
	PHASE_IDLE,              /* not started */
	PHASE_WAIT,              /* waiting to reconnect */
	PHASE_UPSTREAM,          /* libcurl connecting to the server */
	PHASE_RELAY,             /* relaying, registering */
	PHASE_READY,             /* registered (001 seen) */
	PHASE_STOPPED,
};

/* A byte buffer of the relay. */
struct buf {
	char *data;
	size_t len, cap;
};

/* Someone on a channel we share; user, host and account NULL: unknown. */
struct irc_user {
	char *nick, *user, *host, *account;
	int account_known;       /* account (or none) told by the server */
	int channels;            /* channels we share */
};

/*
 * Who held a nick when we last asked (WHOX) or heard from them, for
 * people outside our channels; absent: nobody did.
 */
struct glimpse {
	char nick[64], user[128], host[256], account[128];
	int account_known, absent;
	uint64_t mark;           /* learnt at (irc_mark()) */
};

/*
 * Where a person went: the holder of nick!user@host renamed to now.  The
 * core may still hand us private lines for the old identity (its queue
 * was filled before it heard of the NICK), and the old nick may already
 * be someone else's.
 */
struct rename {
	char nick[64], user[128], host[256], now[64];
};

/* Renames remembered, at most (the oldest makes room). */
#define RENAMES_MAX 32

/*
 * A verification waiting for its answer: a WHO nick (with the account),
 * or for nick!user@host seats a USERHOST, which asks for up to
 * USERHOST_MAX nicks in one line (ngircd holds a client back a second
 * for it, and four for each WHO of a nick).
 */
struct verify {
	char nick[64];
	uint64_t at;             /* asked (loop time) */
	uint64_t mark;           /* the question's mark, once queued */
	int answered;            /* a reply line came before the end */
	int userhost;            /* asked by USERHOST */
	uint64_t batch;          /* that USERHOST's number; 0: not sent yet */
};

/* Nicks one USERHOST asks about, at most (RFC 1459). */
#define USERHOST_MAX 5

struct irc_chan {
	struct irc *irc;
	char *name;
	int wanted;              /* join() asked: joined after reconnects */
	int joined;
	uint64_t joined_at;
	uint64_t rejoin_timer;
	int retries;
	int kicked;              /* out by a KICK until the next join */
	/* When its WHO was asked, until the answer ends; 0: none asked. */
	uint64_t who_at;
	struct irc_user **members;
	int nmembers, members_cap;
};

struct irc {
	struct adapter *adapter;
	char *network;           /* a copy: logs outlive a finished adapter */
	struct irc_config cfg;
	struct loop *loop;
	enum phase phase;
	int hooked;
	/* Loop callbacks on the stack, and finish() waiting for them. */
	int depth;
	int doomed;
	/* The connection. */
	struct irc_tls *up;
	int up_fd, up_events, up_throttled;
	int listen_fd;
	int local_fd, local_events;
	irc_session_t *session;
	int irc_fd, irc_fd_ok, irc_events;
	int in_session;          /* inside irc_process_select_descriptors() */
	char *lost;              /* why the connection died inside it */
	struct buf to_up, to_local, line;
	int discarding;          /* skipping an overlong line */
	uint64_t last_recv;
	int ping_sent;
	uint64_t ping_timer, register_timer, reconnect_timer;
	uint64_t registered_at;
	int attempts;
	struct rng rng;          /* the reconnect's jitter */
	/* Registration. */
	char nick[64];
	int nick_try;
	char nick_base[48];      /* nick + digits stays within nick[] */
	char self_user[128], self_host[256];
	char account[128];       /* our services account; "" none */
	struct text caps_offered;
	int caps, cap_reqs, cap_done, sasl_state;
	struct irc_isupport is;
	/*
	 * How identities fold nicks (irc_identity_fold()): the server's
	 * CASEMAPPING, remembered in the store so that seats restored before
	 * the next connection compare as the live ones (irc_casemap_learn()).
	 */
	enum irc_casemap id_casemap;
	/* People and channels. */
	struct irc_user **users;
	int nusers, users_cap;
	struct irc_chan **chans;
	int nchans, chans_cap;
	struct irc_queue *queue;
	/* Ids of messages that left, reported from a timer. */
	uint64_t *sent_ids;
	int nsent, sent_cap;
	uint64_t sent_timer;
	/* Verifying who holds a nick before private lines go to it. */
	struct glimpse glimpses[GLIMPSES_MAX];
	int nglimpses;
	struct verify *verifies;
	int nverifies, verifies_cap;
	/* USERHOSTs: the timer that sends them, sent and answered. */
	uint64_t userhost_timer;
	uint64_t userhost_sent, userhost_answered;
	/* Renames seen lately, oldest first. */
	struct rename renames[RENAMES_MAX];
	int nrenames;
	/* Taking our nick back. */
	uint64_t reclaim_timer;
	int monitoring, regain_sent, ghost_sent;
	/*
	 * The NickServ password goes only to a NickServ the server's WHOIS
	 * calls a network service (313): anyone may hold that nick where
	 * services are down or absent.  The commands waiting for the
	 * answer (bits of register.c's NS_*), whether a WHOIS is out,
	 * what it said, and whether a WHOIS of this connection said so.
	 */
	int ns_waiting, ns_asked, ns_service, ns_verified;
	/*
	 * Until this loop time (0: not at all), what this run says waits:
	 * our nick was taken when we registered, perhaps by our previous
	 * connection, whose last lines the server may still be handing on
	 * (see irc_reclaim_start()).
	 */
	uint64_t ghost_until;
};

/* Who sent a line: the parts of its prefix. */
struct origin {
	char nick[128], user[128], host[256];
};

/* Capabilities we enable, as bits. */
enum {
	CAP_MULTI_PREFIX = 1 << 0,
	CAP_EXTENDED_JOIN = 1 << 1,
	CAP_ACCOUNT_NOTIFY = 1 << 2,
	CAP_AWAY_NOTIFY = 1 << 3,
	CAP_USERHOST_IN_NAMES = 1 << 4,
	CAP_CHGHOST = 1 << 5,
	CAP_SASL = 1 << 6,
	CAP_ACCOUNT_TAG = 1 << 7,
};

/* irc.c: the adapter's operations and its life. */

/* Loop callbacks: irc_leave() returns 1 when finish() freed irc. */
void irc_enter(struct irc *irc);
int irc_leave(struct irc *irc);
/* The core is told nothing once finish() has been called. */
int irc_alive(const struct irc *irc);
/* Milliseconds of the bot's loop. */
uint64_t irc_now_ms(const struct irc *irc);

/* conn.c: the connection. */

/* Connects to the server; reconnects later when that cannot start. */
void irc_connect_begin(struct irc *irc);
/* Closes everything of the current connection; tells nobody. */
void irc_connection_close(struct irc *irc);
/* The connection died: close it and reconnect later. */
void irc_connection_lost(struct irc *irc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The loop's hook (loop_hook()): watches libircclient's socket. */
int irc_hook(struct loop *loop, void *arg);

/* relay.c: the bytes between libircclient and the server. */

/* Bytes for the server ahead of what libircclient writes (CAP LS). */
void irc_relay_write(struct irc *irc, const char *data, size_t n);
/* Sends what waits for the server; -1 when the connection died. */
int irc_relay_up_flush(struct irc *irc);
/* Hands libircclient what waits for it. */
void irc_relay_local_flush(struct irc *irc);
/* Watches both ends of the relay for what each needs now. */
void irc_relay_update(struct irc *irc);
/* Pushes what waits (a QUIT) to the server for at most timeout ms. */
void irc_relay_drain(struct irc *irc, int timeout);
/* Waits for the PONG that confirms the lines in flight (at a stop). */
void irc_relay_await_sent(struct irc *irc, int timeout);
/* Forgets what the relay held for a connection that is gone. */
void irc_relay_reset(struct irc *irc);
void irc_relay_free(struct irc *irc);
/* Watches fd for events (0: not at all) unless *current says so. */
void irc_set_watch(struct irc *irc, int fd, int *current, int events,
    loop_fd_fn fn);

/* send.c: what the core says, into the queue. */

/* Sends a line now, past the queue (registration, PING); 0 or -1. */
int irc_send_now(struct irc *irc, const char *line);
/* The queue, made at the first line; NULL before the loop is known. */
struct irc_queue *irc_queue_get(struct irc *irc);
/*
 * A mark of the queue (irc_queue_mark()), to stamp what is learnt of a
 * nick's holder with; 0 when there is no queue, which proves nothing.
 */
uint64_t irc_mark(struct irc *irc);
/* Queues "COMMAND target" lines (JOIN, WHO, PART, NOTICE ...). */
int irc_queue_line(struct irc *irc, enum irc_class cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The longest prefix the server may put before our lines. */
size_t irc_self_mask_length(const struct irc *irc);
/* The adapter's send_channel() and send_private(). */
int irc_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info);
int irc_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info);

/* people.c: the people and channels we share with them. */

/* Nicks (and channel names) compared under the server's case mapping. */
int irc_nick_eq(const struct irc *irc, const char *a, const char *b);
/* The nick we hold now is nick. */
int irc_is_self(const struct irc *irc, const char *nick);
/* A line's prefix split into nick, user and host; -1 when it has none. */
int irc_origin_split(const char *origin, struct origin *o);
/* Someone on a channel we share, or NULL. */
struct irc_user *irc_user_find(struct irc *irc, const char *nick);
/* Someone on a channel we share, made when unknown: never NULL. */
struct irc_user *irc_user_get(struct irc *irc, const char *nick);
void irc_user_free(struct irc_user *u);
/* Forgets u once it shares no channel with us. */
void irc_user_release(struct irc *irc, struct irc_user *u);
/* u quit: off every channel, and forgotten. */
void irc_user_quit(struct irc *irc, struct irc_user *u);
/* Replaces *field with s (NULL or "" clears it); 1 when it changed. */
int irc_set_field(char **field, const char *s);
/* u's identity for the core; -1 while it cannot be told. */
/*
 * The casemap identities fold by: recalled from the store at init (the
 * last server's; rfc1459 before any), and learnt from each connection's
 * ISUPPORT before anyone is seen.
 */
void irc_casemap_recall(struct irc *irc);
void irc_casemap_learn(struct irc *irc);
int irc_user_id(const struct irc *irc, const struct irc_user *u, char *out,
    size_t outlen);
/* The struct user of u; id and mask are buffers of the caller. */
int irc_user_struct(const struct irc *irc, const struct irc_user *u,
    char *id, size_t idlen, char *mask, size_t masklen, struct user *out);
/* Tells the core when u's id (old, NULL: none) or name changed. */
/* Tells the core everyone in c (its WHO has ended). */
void irc_notify_members(struct irc *irc, const struct irc_chan *c);
void irc_notify_rename(struct irc *irc, const struct irc_user *u,
    const char *old, int renamed);
/* Learns user@host and (account not NULL) the account of u. */
void irc_user_learn(struct irc *irc, struct irc_user *u, const char *user,
    const char *host, const char *account);
struct irc_chan *irc_chan_find(struct irc *irc, const char *name);
/* A channel we know of, made when unknown: never NULL. */
struct irc_chan *irc_chan_get(struct irc *irc, const char *name);
int irc_chan_has(const struct irc_chan *c, const struct irc_user *u);
void irc_chan_add(struct irc_chan *c, struct irc_user *u);
void irc_chan_remove(struct irc *irc, struct irc_chan *c,
    struct irc_user *u);
void irc_chan_clear(struct irc *irc, struct irc_chan *c);
/* Forgets a channel we no longer want nor are in. */
void irc_chan_drop(struct irc *irc, struct irc_chan *c);
/* Joins every channel we want and are not in; again later after a kick. */
void irc_join_wanted(struct irc *irc);
void irc_rejoin_later(struct irc *irc, struct irc_chan *c, uint64_t base);

/* events.c: libircclient's events. */

irc_session_t *irc_session_create(void);
/* A channel name we may join: #&!+, no spaces, commas or controls. */
int irc_valid_channel(const char *s);

/* register.c: capabilities, SASL, nicknames. */

/* CAP and AUTHENTICATE from the server; CAP END once negotiated. */
void irc_cap_message(struct irc *irc, const char **params,
    unsigned int count);
void irc_authenticate_message(struct irc *irc, const char **params,
    unsigned int count);
void irc_cap_end(struct irc *irc);
/* With a NickServ password and no account yet: NickServ IDENTIFY. */
void irc_nickserv_identify(struct irc *irc);
/* The answers to our WHOIS of NickServ (313, 318, 401). */
void irc_nickserv_whois(struct irc *irc, unsigned int code,
    const char *nick);
/* Tries the next nickname after ours was taken (433) or refused (432). */
void irc_next_nick(struct irc *irc, int erroneous);
/* Registered under another nick: watch ours and take it back. */
void irc_reclaim_start(struct irc *irc);
/* Our nick may be free (its holder left): ask for it. */
void irc_reclaim_now(struct irc *irc);
/* Our nick is ours again. */
void irc_reclaim_done(struct irc *irc);
/* ISON (303) and MONITOR offline (731) answers. */
void irc_ison_reply(struct irc *irc, const char *list);
void irc_monitor_reply(struct irc *irc, const char *list);

/* verify.c: who holds a nick, before private lines go there. */

/*
 * Remembers who holds nick (account NULL: not told; absent: nobody), as
 * learnt at mark (irc_mark()): it tells of the messages queued before.
 */
void irc_glimpse_note(struct irc *irc, const char *nick, const char *user,
    const char *host, const char *account, int absent, uint64_t mark);
/* nick changed hands (QUIT, NICK): what we knew of its holder is old. */
void irc_glimpse_forget(struct irc *irc, const char *nick);
/* The holder of old!user@host is now: their private lines follow. */
void irc_rename_note(struct irc *irc, const char *old, const char *user,
    const char *host, const char *now);
/*
 * The nick where nick!user@host is now: nick itself while a member of our
 * channels holds it as user@host, or where its renames led.
 */
const char *irc_rename_follow(struct irc *irc, const char *nick,
    const char *user, const char *host);
/* A WHO reply and the end of a WHO, for a verification asked. */
void irc_verify_reply(struct irc *irc, const char *nick, const char *user,
    const char *host, const char *account);
void irc_verify_end(struct irc *irc, const char *mask);
/* The answer to a USERHOST (302): "nick[*]=[+-]user@host ...". */
void irc_userhost_reply(struct irc *irc, const char *list);
/* The queue's gate (irc_queue_ops.gate): may this line leave now? */
int irc_line_gate(const char *line, const char *ident, uint64_t queued,
    void *arg);

#endif

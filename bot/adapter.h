/*
 * adapter.h - the boundary between the bot core and a chat medium.
 *
 * An adapter connects to one network (an IRC server, a Matrix account, the
 * terminal, or the in-memory test medium), registers the descriptors and
 * timers it needs with the bot's single event loop, renders structured text
 * (text.h) for its medium, and reports what people say and do to the
 * listener the core gives it (struct adapter_listener, as seatd does).
 *
 * Each implementation lives in adapters/NAME.c and exports one const
 * struct adapter_impl; adapter_find() picks one by name from a
 * NULL-terminated registry.  Implementation functions are static.
 */
#ifndef STICHBOT_ADAPTER_H
#define STICHBOT_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "text.h"

struct bot;
struct loop;
struct store;
struct adapter;

/*
 * A person as the adapter knows them.  id is stable for as long as the
 * adapter can tell (IRC: the services account when known, otherwise
 * nick!user@host; Matrix: the user id); seats are bound to ids.  name is
 * what the channel shows.  Both are borrowed for the call.
 */
struct user {
	const char *id;
	const char *name;
	/* IRC: nick!user@host, for admin hostmask globs; NULL elsewhere. */
	const char *mask;
	/*
	 * 1 when the network's configuration requires a services account
	 * for seats and this person is not known by one (IRC "identity":
	 * "account"): the core refuses them a seat and says why.
	 */
	int guest;
};

/*
 * What the core says about one outgoing message besides its text.
 *
 * id is the message's row in the store's outbox: a message caused by a
 * stored change is committed with that change and kept until the adapter
 * reports, with adapter_sent(), that it has left (IRC: written to the
 * socket; Matrix: the homeserver answered the PUT of its transaction) or
 * that it can never leave (the room was left; logged).  After a restart
 * the core hands unsent rows to the adapter again with the same id, so an
 * adapter that names its transactions after id (Matrix) lets the server
 * drop the duplicate.  id 0: nothing stored (a reply or a refusal), no
 * report wanted.
 *
 * flow names the table the message belongs to (its channel), private lines
 * included, or is NULL for a reply to one person.  An adapter keeps the
 * messages of one flow in order and serves flows fairly, so one busy table
 * cannot hold back another.
 */
struct send_info {
	uint64_t id;
	const char *flow;
	/*
	 * 0, or the loop time (loop_now(), ms) after which the message is no
	 * use: an adapter drops it if it has not begun to send it by then,
	 * and when it reports the connection lost (connected 0), since it
	 * speaks of a clock that the core stops then and starts afresh when
	 * the connection is back (the turn timer's half-time reminder).  Such
	 * a message is never stored (id 0).
	 */
	uint64_t expires;
};

struct adapter_impl {
	const char *name;
	/*
	 * 1 when the adapter reports tracked messages with adapter_sent();
	 * otherwise the core forgets an outbox row as soon as the adapter
	 * has taken the message (at most once, as for the terminal).
	 */
	int reports_sent;
	/*
	 * Sets up adapter->priv from the network's configuration object
	 * (borrowed; its JSON path is path, e.g. "networks[1]").  Checks every
	 * key the adapter knows with cfg.h and refuses unknown ones (the
	 * common keys in config_network_keys are allowed).  Allocates; does
	 * not connect, so `check-config` can call it.  -1 with a reason.
	 */
	int (*init)(struct adapter *adapter, const json_t *config,
	    const char *path, char *err, size_t errlen);
	/* Frees what init() allocated; safe after a failed init(). */
	void (*finish)(struct adapter *adapter);
	/* Connects and joins; registers fds and timers with the bot's loop. */
	int (*start)(struct adapter *adapter);
	/* Says goodbye (may be NULL) where it can and disconnects. */
	void (*stop)(struct adapter *adapter, const char *goodbye);
	/*
	 * Joins a channel or room now or once connected, and again after
	 * every reconnect; part() leaves it and forgets it.
	 */
	int (*join)(struct adapter *adapter, const char *channel);
	int (*part)(struct adapter *adapter, const char *channel);
	/*
	 * Sends text to a channel or room.  Sends are queued in order and
	 * never block; a failure is logged and survived by the adapter.
	 */
	int (*send_channel)(struct adapter *adapter, const char *channel,
	    const struct text *text, const struct send_info *info);
	/* Sends text privately to a user (IRC PRIVMSG/NOTICE, Matrix DM). */
	int (*send_private)(struct adapter *adapter, const char *user_id,
	    const struct text *text, const struct send_info *info);
	/*
	 * Messages waiting to be sent that can still leave (flood control,
	 * retries): a stop waits for these, and status counts them.  Not
	 * those that cannot leave before something outside the bot changes
	 * (an outage, a channel or room that keeps the bot out): the store
	 * keeps those for the next run.
	 */
	size_t (*queue_depth)(const struct adapter *adapter);
	/*
	 * Optional (NULL: 0): the messages of flow (a table's, struct
	 * send_info) the adapter still holds, tracked or not.  A turn's
	 * clock whose prompt was not stored (a resume) waits for 0.
	 */
	size_t (*flow_waiting)(struct adapter *adapter, const char *flow);
	/*
	 * Optional (NULL): 1 when the medium itself makes user_id an admin of
	 * channel (a Matrix room admin); configured admins need no help.
	 */
	int (*channel_admin)(struct adapter *adapter, const char *channel,
	    const char *user_id);
	/*
	 * Optional (NULL): the name people reach the bot by right now (the
	 * IRC nick it holds, the Matrix user id), so that instructions such
	 * as "/msg stichbot bid 2" name it; NULL or "" when not known yet.
	 */
	const char *(*self_name)(struct adapter *adapter);
	/*
	 * Optional (NULL: never): 1 when flow (see struct send_info) has so
	 * many messages waiting that the core should not cause more for now:
	 * commands at that table are refused with a "busy" reply and
	 * computers wait, instead of messages being dropped later.
	 */
	int (*busy)(struct adapter *adapter, const char *flow);
	/*
	 * Optional (NULL: the channel's name): what people call channel in
	 * private lines about it, e.g. a Matrix room's alias or name rather
	 * than its id.  Written into out (always NUL-terminated).
	 */
	void (*channel_title)(struct adapter *adapter, const char *channel,
	    char *out, size_t outlen);
	/*
	 * Optional (NULL: a chat, read by many): the id of the one person who
	 * reads everything said in channel (the terminal), so that the core
	 * speaks to them as "you", and tells them what to type on this
	 * medium for a private command (a line without a prefix).
	 */
	const char *(*reader)(struct adapter *adapter, const char *channel);
	/*
	 * Optional (NULL: ids never change form): rewrites in place a user
	 * id kept in the store by an older version into the form the
	 * adapter gives now (IRC: the nick folded to one case), so that a
	 * seat stored before still knows its owner.  Never longer.
	 */
	void (*canonical_id)(struct adapter *adapter, char *user_id);
	/*
	 * Optional (NULL: everything queued leaves in turn): the bot stops.
	 * Messages with an id that have not begun to leave are dropped
	 * without reporting them sent: their outbox rows go out after the
	 * next start, first.  The goodbyes queued next are then said at
	 * once, not after a backlog a slow pace needs minutes for.  Returns
	 * how many messages it withheld.
	 */
	size_t (*withhold)(struct adapter *adapter);
};

/*
 * What an adapter tells the core, as seatd's listeners: callbacks and
 * their data, handed to the adapter with its struct adapter before
 * init().  channel is NULL for a private message; the core never keeps
 * the pointers it is given.  Adapters call them through the adapter_*()
 * functions below, from their own event handlers (never from inside
 * send_channel() or send_private()); the core hands its own calls to the
 * adapter over from the loop, never inside one of these.
 */
struct adapter_listener {
	void (*message)(void *data, struct adapter *adapter,
	    const char *channel, const struct user *from, const char *text);
	/* Someone joined or left (part, quit, kick); channel NULL: quit. */
	void (*join)(void *data, struct adapter *adapter, const char *channel,
	    const struct user *who);
	void (*leave)(void *data, struct adapter *adapter, const char *channel,
	    const struct user *who);
	/* A user's id or name changed; seats follow the person. */
	void (*rename)(void *data, struct adapter *adapter, const char *old_id,
	    const struct user *now);
	/*
	 * The message queued with info->id has left, or can never leave
	 * (see struct send_info).
	 */
	void (*sent)(void *data, struct adapter *adapter, uint64_t id);
	/* The adapter lost (0) or regained (1) its connection. */
	void (*connected)(void *data, struct adapter *adapter, int up);
	/*
	 * Optional (NULL: ignored): lines sent privately to who may never
	 * have been read, since they left or rejected the private channel
	 * the adapter used for them (a Matrix direct room).  The next
	 * private line opens a new one; the core sends again what who
	 * needs to play.  Called from the loop, outside any other call.
	 */
	void (*private_lost)(void *data, struct adapter *adapter,
	    const struct user *who);
	/*
	 * Optional (NULL: ignored): everyone in channel (the bot itself
	 * excepted), as the adapter learnt them whole after joining it
	 * (IRC: the end of the channel's WHO; Matrix: joined_members), so
	 * that the core learns of comings and goings it could not see, as
	 * across a restart or a reconnect.  members is borrowed for the call.
	 */
	void (*members)(void *data, struct adapter *adapter,
	    const char *channel, const struct user *members, size_t n);
	/*
	 * Optional (NULL: ignored): the bot was put out of channel (in 0: a
	 * kick, a ban) while connected, or is in it (1: at every join,
	 * whether or not it was put out before).  Nothing said there in
	 * between reached it.
	 */
	void (*inside)(void *data, struct adapter *adapter,
	    const char *channel, int in);
	/*
	 * Optional (NULL: ignored): someone edited one of their messages
	 * into text (Matrix's m.replace).  The core acts on no edit, which
	 * would repeat or change a move, but tells the person when the
	 * edit reads as a command.  Arguments as for message.
	 */
	void (*edited)(void *data, struct adapter *adapter,
	    const char *channel, const struct user *from, const char *text);
	/*
	 * Hands what the core queued for the adapters over now: for a
	 * medium that runs no loop between the events it feeds the core
	 * (the in-memory medium of tests).
	 */
	void (*flush)(void *data);
};

struct adapter {
	const struct adapter_impl *impl;
	/* The core's listener; NULL where no core runs (check-config). */
	const struct adapter_listener *listener;
	void *listener_data;
	/* The loop and store the adapter uses (NULL without a core). */
	struct loop *loop;
	struct store *store;
	/* The network's name in the configuration and the store. */
	char *network;
	void *priv;
};

/* The registry of adapters (adapters/registry.c), NULL-terminated. */
extern const struct adapter_impl *const adapter_registry[];
const struct adapter_impl *adapter_find(const char *name);

/* What adapters call to tell the core (nothing without a listener). */
static inline void
adapter_message(struct adapter *a, const char *channel,
    const struct user *from, const char *text)
{
	if (a->listener != NULL)
		a->listener->message(a->listener_data, a, channel, from, text);
}

static inline void
adapter_edited(struct adapter *a, const char *channel,
    const struct user *from, const char *text)
{
	if (a->listener != NULL && a->listener->edited != NULL)
		a->listener->edited(a->listener_data, a, channel, from, text);
}

static inline void
adapter_join(struct adapter *a, const char *channel, const struct user *who)
{
	if (a->listener != NULL)
		a->listener->join(a->listener_data, a, channel, who);
}

static inline void
adapter_leave(struct adapter *a, const char *channel, const struct user *who)
{
	if (a->listener != NULL)
		a->listener->leave(a->listener_data, a, channel, who);
}

static inline void
adapter_rename(struct adapter *a, const char *old_id, const struct user *now)
{
	if (a->listener != NULL)
		a->listener->rename(a->listener_data, a, old_id, now);
}

static inline void
adapter_sent(struct adapter *a, uint64_t id)
{
	if (a->listener != NULL)
		a->listener->sent(a->listener_data, a, id);
}

static inline void
adapter_connected(struct adapter *a, int up)
{
	if (a->listener != NULL)
		a->listener->connected(a->listener_data, a, up);
}

static inline void
adapter_private_lost(struct adapter *a, const struct user *who)
{
	if (a->listener != NULL && a->listener->private_lost != NULL)
		a->listener->private_lost(a->listener_data, a, who);
}

static inline void
adapter_members(struct adapter *a, const char *channel,
    const struct user *members, size_t n)
{
	if (a->listener != NULL && a->listener->members != NULL)
		a->listener->members(a->listener_data, a, channel, members, n);
}

static inline void
adapter_inside(struct adapter *a, const char *channel, int in)
{
	if (a->listener != NULL && a->listener->inside != NULL)
		a->listener->inside(a->listener_data, a, channel, in);
}

static inline void
adapter_flush(struct adapter *a)
{
	if (a->listener != NULL)
		a->listener->flush(a->listener_data);
}

#endif

/*
 * memory.h - the in-memory test medium: what the bot sends is kept in a
 * list for tests to read, and tests speak for users through it.
 */
#ifndef STICHBOT_MEMORY_H
#define STICHBOT_MEMORY_H

#include <stddef.h>

#include "adapter.h"

extern const struct adapter_impl memory_adapter;

/* One message the bot sent. */
struct memory_line {
	char *channel;           /* the channel, or NULL for a private one */
	char *user_id;           /* the addressee of a private message */
	char *text;              /* rendered as plain text */
	char *marked;            /* the structured text with its marks */
	uint64_t id;             /* the outbox row (struct send_info), or 0 */
	char *flow;              /* the table it belongs to, or NULL */
	uint64_t expires;        /* struct send_info: kept, never applied */
};

size_t memory_count(const struct adapter *adapter);
const struct memory_line *memory_line(const struct adapter *adapter,
    size_t index);
void memory_clear(struct adapter *adapter);
/*
 * keep 0: what the bot sends is dropped instead of kept, so a benchmark
 * with thousands of tables does not grow the list (1, the default: kept).
 */
void memory_keep(struct adapter *adapter, int keep);
/* The channels joined and not parted, for tests of reloads. */
int memory_joined(const struct adapter *adapter, const char *channel);

/*
 * hold 1: lines are kept but not reported sent (adapter_sent), as when a
 * medium has not yet confirmed them, and the lines of a flow kept since
 * count as waiting (flow_waiting()); 0 reports what was held.  Otherwise
 * lines are reported after each memory_say() and from the loop.
 */
void memory_hold(struct adapter *adapter, int hold);

/* From now on the medium calls user_id an admin of channel (a Matrix
 * room moderator). */
void memory_room_admin(struct adapter *adapter, const char *channel,
    const char *user_id);

/* What private lines call channel from now on (channel_title()). */
void memory_title(struct adapter *adapter, const char *channel,
    const char *title);
/* The name the medium gives the bot from now on (self_name()). */
void memory_self_name(struct adapter *adapter, const char *name);
/* From now on flow (a table's channel; NULL: none) is busy (busy()). */
void memory_busy(struct adapter *adapter, const char *flow);
/* As memory_say(), with every field of the person given. */
void memory_say_as(struct adapter *adapter, const char *channel,
    const struct user *user, const char *text);

/* As memory_say(), a message the user edited into text (Matrix). */
void memory_edit(struct adapter *adapter, const char *channel,
    const char *user_id, const char *text);

/* A user says text in channel (NULL: privately to the bot). */
void memory_say(struct adapter *adapter, const char *channel,
    const char *user_id, const char *name, const char *text);

#endif

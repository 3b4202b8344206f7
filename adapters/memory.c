/*
 * memory.c - the in-memory adapter: the medium of the bot's own tests and
 * benchmarks.  Sends are appended to a list (rendered plain, and with their
 * marks); memory_say() speaks for a user.  It never touches the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "memory.h"
#include "xmalloc.h"

struct memory {
	struct adapter *adapter;
	struct memory_line *lines;
	int nlines, cap;
	/* Outbox ids of lines not yet reported sent (see memory_hold). */
	uint64_t *unsent;
	int nunsent, unsent_cap;
	int hold;
	int held_from;           /* the first line sent while hold is on */
	uint64_t report_timer;
	char **joined;
	int njoined, joined_cap;
	int started, connected;
	char *busy_flow;         /* memory_busy(): the flow called busy */
	char *self;              /* memory_self_name() */
	/* "channel user" pairs the medium calls room admins. */
	char **room_admins;
	int nroom_admins, room_admins_cap;
	int keep;                /* 0: sends are discarded (benchmarks) */
	/* memory_title(): "channel" and its title, in pairs. */
	char **titles;
	int ntitles, titles_cap;
};

static int
memory_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct memory *m = xcalloc(1, sizeof(struct memory));

	m->keep = 1;
	m->adapter = adapter;
	adapter->priv = m;
	return 0;
}

static void
memory_finish(struct adapter *adapter)
{
	struct memory *m = adapter->priv;

	if (m == NULL)
		return;
	memory_clear(adapter);
	free(m->lines);
	free(m->unsent);
	for (int i = 0; i < m->nroom_admins; i++)
		free(m->room_admins[i]);
	free(m->room_admins);
	for (int i = 0; i < 2 * m->ntitles; i++)
		free(m->titles[i]);
	free(m->titles);
	free(m->busy_flow);
	free(m->self);
	if (m->report_timer != 0)
		loop_cancel(adapter->loop, m->report_timer);
	for (int i = 0; i < m->njoined; i++)
		free(m->joined[i]);
	free(m->joined);
	free(m);
	adapter->priv = NULL;
}

/* Reports sent lines, outside the core's calls into the adapter. */
static void
report(struct memory *m)
{
	while (!m->hold && m->nunsent > 0) {
		uint64_t id = m->unsent[0];

		memmove(m->unsent, m->unsent + 1, (size_t)--m->nunsent *
		    sizeof(*m->unsent));
		adapter_sent(m->adapter, id);
	}
}

static void
report_cb(struct loop *loop, uint64_t id, void *arg)
{
	struct memory *m = arg;

	m->report_timer = 0;
	if (m->started && !m->connected) {
		m->connected = 1;
		adapter_connected(m->adapter, 1);
	}
	report(m);
}

static void
report_soon(struct memory *m)
{
	if (m->report_timer == 0 && m->adapter->listener != NULL)
		m->report_timer = loop_timer(m->adapter->loop, 0,
		    report_cb, m);
}

static int
memory_start(struct adapter *adapter)
{
	struct memory *m = adapter->priv;

	/* "Connected" at once, but said from the loop, as a medium would. */
	m->started = 1;
	m->connected = 0;
	report_soon(m);
	return 0;
}

static void
memory_stop(struct adapter *adapter, const char *goodbye)
{
	struct memory *m = adapter->priv;

	m->started = 0;
	m->connected = 0;
}

static int
memory_join(struct adapter *adapter, const char *channel)
{
	struct memory *m = adapter->priv;
	char *copy;

	if (memory_joined(adapter, channel))
		return 0;
	xarray_grow((void **)&m->joined, &m->joined_cap, m->njoined + 1,
	    sizeof(*m->joined));
	copy = xstrdup(channel);
	m->joined[m->njoined++] = copy;
	return 0;
}

static int
memory_part(struct adapter *adapter, const char *channel)
{
	struct memory *m = adapter->priv;

	for (int i = 0; i < m->njoined; i++) {
		if (strcmp(m->joined[i], channel) != 0)
			continue;
		free(m->joined[i]);
		m->joined[i] = m->joined[--m->njoined];
		return 0;
	}
	return 0;
}

static int
memory_add(struct adapter *adapter, const char *channel, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	struct memory *m = adapter->priv;
	struct memory_line *line;
	struct text plain;

	if (info->id != 0) {
		xarray_grow((void **)&m->unsent, &m->unsent_cap,
		    m->nunsent + 1, sizeof(*m->unsent));
		m->unsent[m->nunsent++] = info->id;
		report_soon(m);
	}

	text_init(&plain);
	text_render(text, TEXT_FORMAT_PLAIN, &plain);
	/* Rendered all the same, as a real medium would: benchmarks count it. */
	if (!m->keep) {
		text_finish(&plain);
		return 0;
	}
	xarray_grow((void **)&m->lines, &m->cap, m->nlines + 1,
	    sizeof(*m->lines));
	line = &m->lines[m->nlines];
	memset(line, 0, sizeof(*line));
	line->channel = channel != NULL ? xstrdup(channel) : NULL;
	line->user_id = user_id != NULL ? xstrdup(user_id) : NULL;
	line->text = xstrdup(text_str(&plain));
	line->marked = xstrdup(text_str(text));
	line->id = info->id;
	line->expires = info->expires;
	line->flow = info->flow != NULL ? xstrdup(info->flow) : NULL;
	text_finish(&plain);
	m->nlines++;
	return 0;
}

static int
memory_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	return memory_add(adapter, channel, NULL, text, info);
}

static int
memory_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	return memory_add(adapter, NULL, user_id, text, info);
}

static int
memory_channel_admin(struct adapter *adapter, const char *channel,
    const char *user_id)
{
	struct memory *m = adapter->priv;
	size_t n = strlen(channel);

	for (int i = 0; i < m->nroom_admins; i++)
		if (strncmp(m->room_admins[i], channel, n) == 0 &&
		    m->room_admins[i][n] == ' ' &&
		    strcmp(m->room_admins[i] + n + 1, user_id) == 0)
			return 1;
	return 0;
}

void
memory_room_admin(struct adapter *adapter, const char *channel,
    const char *user_id)
{
	struct memory *m = adapter->priv;
	size_t n = strlen(channel) + strlen(user_id) + 2;
	char *pair;

	xarray_grow((void **)&m->room_admins, &m->room_admins_cap,
	    m->nroom_admins + 1, sizeof(*m->room_admins));
	pair = xmalloc(n);
	snprintf(pair, n, "%s %s", channel, user_id);
	m->room_admins[m->nroom_admins++] = pair;
}

static int
memory_busy_impl(struct adapter *adapter, const char *flow)
{
	struct memory *m = adapter->priv;

	return m->busy_flow != NULL && flow != NULL &&
	    strcmp(m->busy_flow, flow) == 0;
}

static const char *
memory_self_name_impl(struct adapter *adapter)
{
	return ((struct memory *)adapter->priv)->self;
}

void
memory_self_name(struct adapter *adapter, const char *name)
{
	struct memory *m = adapter->priv;

	free(m->self);
	m->self = name != NULL ? xstrdup(name) : NULL;
}

void
memory_title(struct adapter *adapter, const char *channel, const char *title)
{
	struct memory *m = adapter->priv;

	xarray_grow((void **)&m->titles, &m->titles_cap, 2 * (m->ntitles + 1),
	    sizeof(*m->titles));
	m->titles[2 * m->ntitles] = xstrdup(channel);
	m->titles[2 * m->ntitles + 1] = xstrdup(title);
	m->ntitles++;
}

static void
memory_channel_title(struct adapter *adapter, const char *channel, char *out,
    size_t outlen)
{
	struct memory *m = adapter->priv;

	for (int i = m->ntitles; i-- > 0;)
		if (strcmp(m->titles[2 * i], channel) == 0) {
			snprintf(out, outlen, "%s", m->titles[2 * i + 1]);
			return;
		}
}

void
memory_busy(struct adapter *adapter, const char *flow)
{
	struct memory *m = adapter->priv;

	free(m->busy_flow);
	m->busy_flow = flow != NULL ? xstrdup(flow) : NULL;
}

static size_t
memory_queue_depth(const struct adapter *adapter)
{
	return 0;
}

/* While held, every line of flow kept since is still waiting. */
static size_t
memory_flow_waiting(struct adapter *adapter, const char *flow)
{
	const struct memory *m = adapter->priv;
	size_t n = 0;

	for (int i = m->hold ? m->held_from : m->nlines; i < m->nlines; i++)
		n += m->lines[i].flow != NULL &&
		    strcmp(m->lines[i].flow, flow) == 0;
	return n;
}

const struct adapter_impl memory_adapter = {
	.name = "memory",
	.reports_sent = 1,
	.init = memory_init,
	.finish = memory_finish,
	.start = memory_start,
	.stop = memory_stop,
	.join = memory_join,
	.part = memory_part,
	.send_channel = memory_send_channel,
	.send_private = memory_send_private,
	.queue_depth = memory_queue_depth,
	.flow_waiting = memory_flow_waiting,
	.channel_admin = memory_channel_admin,
	.busy = memory_busy_impl,
	.self_name = memory_self_name_impl,
	.channel_title = memory_channel_title,
};

size_t
memory_count(const struct adapter *adapter)
{
	const struct memory *m = adapter->priv;

	return (size_t)m->nlines;
}

const struct memory_line *
memory_line(const struct adapter *adapter, size_t index)
{
	const struct memory *m = adapter->priv;

	return index < (size_t)m->nlines ? &m->lines[index] : NULL;
}

void
memory_keep(struct adapter *adapter, int keep)
{
	struct memory *m = adapter->priv;

	m->keep = keep != 0;
}

void
memory_clear(struct adapter *adapter)
{
	struct memory *m = adapter->priv;

	for (int i = 0; i < m->nlines; i++) {
		free(m->lines[i].channel);
		free(m->lines[i].user_id);
		free(m->lines[i].text);
		free(m->lines[i].marked);
		free(m->lines[i].flow);
	}
	m->nlines = 0;
	m->held_from = 0;
}

int
memory_joined(const struct adapter *adapter, const char *channel)
{
	const struct memory *m = adapter->priv;

	for (int i = 0; i < m->njoined; i++)
		if (strcmp(m->joined[i], channel) == 0)
			return 1;
	return 0;
}

void
memory_say(struct adapter *adapter, const char *channel, const char *user_id,
    const char *name, const char *text)
{
	struct user user = { .id = user_id, .name = name, .mask = NULL };

	adapter_message(adapter, channel, &user, text);
	/* The loop's part, as a test drives no loop between its lines. */
	adapter_flush(adapter);
	report(adapter->priv);
}

void
memory_say_as(struct adapter *adapter, const char *channel,
    const struct user *user, const char *text)
{
	adapter_message(adapter, channel, user, text);
	adapter_flush(adapter);
	report(adapter->priv);
}

void
memory_edit(struct adapter *adapter, const char *channel, const char *user_id,
    const char *text)
{
	struct user user = { .id = user_id, .name = user_id, .mask = NULL };

	adapter_edited(adapter, channel, &user, text);
	adapter_flush(adapter);
	report(adapter->priv);
}

void
memory_hold(struct adapter *adapter, int hold)
{
	struct memory *m = adapter->priv;

	if (hold && !m->hold)
		m->held_from = m->nlines;
	m->hold = hold;
	if (!hold)
		report(m);
}


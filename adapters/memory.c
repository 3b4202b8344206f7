/*
 * memory.c - the in-memory adapter: the medium of the bot's own tests and
 * benchmarks.  Sends are appended to a list (rendered plain, and with their
 * marks); memory_say() speaks for a user.  It never touches the network.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "memory.h"

struct memory {
	struct memory_line *lines;
	int nlines, cap;
	char **joined;
	int njoined, joined_cap;
	int started;
	int keep;                /* 0: sends are discarded (benchmarks) */
};

static int
memory_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	struct memory *m = calloc(1, sizeof(struct memory));

	if (m == NULL)
		return -1;
	m->keep = 1;
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
	for (int i = 0; i < m->njoined; i++)
		free(m->joined[i]);
	free(m->joined);
	free(m);
	adapter->priv = NULL;
}

static int
memory_start(struct adapter *adapter)
{
	struct memory *m = adapter->priv;

	m->started = 1;
	return 0;
}

static void
memory_stop(struct adapter *adapter, const char *goodbye)
{
	struct memory *m = adapter->priv;

	m->started = 0;
}

static int
memory_join(struct adapter *adapter, const char *channel)
{
	struct memory *m = adapter->priv;
	char *copy;

	if (memory_joined(adapter, channel))
		return 0;
	if (array_grow((void **)&m->joined, &m->joined_cap, m->njoined + 1,
	    sizeof(*m->joined)) != 0 || (copy = strdup(channel)) == NULL)
		return -1;
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
    const struct text *text)
{
	struct memory *m = adapter->priv;
	struct memory_line *line;
	struct text plain;

	text_init(&plain);
	text_render(text, TEXT_FORMAT_PLAIN, &plain);
	/* Rendered all the same, as a real medium would: benchmarks count it. */
	if (!m->keep) {
		text_finish(&plain);
		return 0;
	}
	if (array_grow((void **)&m->lines, &m->cap, m->nlines + 1,
	    sizeof(*m->lines)) != 0) {
		text_finish(&plain);
		return -1;
	}
	line = &m->lines[m->nlines];
	memset(line, 0, sizeof(*line));
	line->channel = channel != NULL ? strdup(channel) : NULL;
	line->user_id = user_id != NULL ? strdup(user_id) : NULL;
	line->text = strdup(text_str(&plain));
	line->marked = strdup(text_str(text));
	text_finish(&plain);
	m->nlines++;
	return 0;
}

static int
memory_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	return memory_add(adapter, channel, NULL, text);
}

static int
memory_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	return memory_add(adapter, NULL, user_id, text);
}

static size_t
memory_queue_depth(const struct adapter *adapter)
{
	return 0;
}

const struct adapter_impl memory_adapter = {
	.name = "memory",
	.init = memory_init,
	.finish = memory_finish,
	.start = memory_start,
	.stop = memory_stop,
	.join = memory_join,
	.part = memory_part,
	.send_channel = memory_send_channel,
	.send_private = memory_send_private,
	.queue_depth = memory_queue_depth,
	.channel_admin = NULL,
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
	}
	m->nlines = 0;
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

int
memory_started(const struct adapter *adapter)
{
	const struct memory *m = adapter->priv;

	return m->started;
}

void
memory_say(struct adapter *adapter, const char *channel, const char *user_id,
    const char *name, const char *text)
{
	struct user user = { .id = user_id, .name = name, .mask = NULL };

	bot_on_message(adapter->bot, adapter, channel, &user, text);
}

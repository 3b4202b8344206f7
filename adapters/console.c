/*
 * console.c - the terminal adapter behind `stichbot play`.
 *
 * Standard input is the person's keyboard: a line starting with a command
 * prefix is said at the table (the channel "#table"), any other line is a
 * private message to the bot, exactly as in a chat.  Output goes to
 * standard output, with ANSI colours on a terminal; private messages are
 * marked as such.  The configuration object may give "name" (the person's
 * name; default $USER).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "cfg.h"
#include "loop.h"

struct console {
	char name[64];
	int ansi;
	int watching;
	char buf[1024];
	size_t len;
};

static int
console_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	static const char *const keys[] = { "name", NULL };
	struct console *c;
	const char *name = getenv("USER");

	if (config != NULL) {
		if (cfg_object(config, path, err, errlen) != 0 ||
		    cfg_keys(config, path, keys, NULL, err, errlen) != 0 ||
		    cfg_string(config, path, "name", 0, &name, err,
		    errlen) < 0)
			return -1;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(c->name, sizeof(c->name), "%s",
	    name != NULL && *name != '\0' ? name : "you");
	c->ansi = isatty(STDOUT_FILENO);
	adapter->priv = c;
	return 0;
}

static void
console_finish(struct adapter *adapter)
{
	free(adapter->priv);
	adapter->priv = NULL;
}

static void
console_print(struct console *c, const char *tag, const struct text *text)
{
	struct text out;
	const char *s;

	text_init(&out);
	text_render(text, c->ansi ? TEXT_FORMAT_ANSI : TEXT_FORMAT_PLAIN,
	    &out);
	s = text_str(&out);
	while (*s != '\0') {
		size_t n = strcspn(s, "\n");

		if (tag != NULL)
			printf(c->ansi ? "\033[2m%s\033[0m " : "%s ", tag);
		printf("%.*s\n", (int)n, s);
		s += n;
		if (*s == '\n')
			s++;
	}
	fflush(stdout);
	text_finish(&out);
}

static void
console_line(struct adapter *adapter, const char *line)
{
	struct console *c = adapter->priv;
	struct user user = { .id = CONSOLE_USER, .name = c->name, .mask = NULL };

	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0')
		return;
	if (strcmp(line, "quit") == 0 || strcmp(line, "exit") == 0) {
		loop_stop(bot_loop(adapter->bot));
		return;
	}
	bot_on_message(adapter->bot, adapter,
	    (line[0] == '!' || line[0] == '/') ? CONSOLE_CHANNEL : NULL,
	    &user, line);
}

void
console_type(struct adapter *adapter, const char *line)
{
	struct console *c = adapter->priv;

	printf(c->ansi ? "\033[2m> %s\033[0m\n" : "> %s\n", line);
	console_line(adapter, line);
}

static void
console_read(struct loop *loop, int fd, int events, void *arg)
{
	struct adapter *adapter = arg;
	struct console *c = adapter->priv;
	ssize_t n = read(fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	char *nl;

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		/* End of input: the person has left the table. */
		loop_unwatch(loop, fd);
		c->watching = 0;
		loop_stop(loop);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	while ((nl = strchr(c->buf, '\n')) != NULL) {
		*nl = '\0';
		if (nl > c->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		console_line(adapter, c->buf);
		c = adapter->priv;
		if (c == NULL)
			return;
		memmove(c->buf, nl + 1, c->len - (size_t)(nl + 1 - c->buf) + 1);
		c->len -= (size_t)(nl + 1 - c->buf);
	}
	if (c->len == sizeof(c->buf) - 1)
		c->len = 0;             /* an absurdly long line: dropped */
}

static int
console_start(struct adapter *adapter)
{
	struct console *c = adapter->priv;

	if (loop_watch(bot_loop(adapter->bot), STDIN_FILENO, LOOP_READ,
	    console_read, adapter) != 0)
		return -1;
	c->watching = 1;
	return 0;
}

static void
console_stop(struct adapter *adapter, const char *goodbye)
{
	struct console *c = adapter->priv;

	if (c->watching)
		loop_unwatch(bot_loop(adapter->bot), STDIN_FILENO);
	c->watching = 0;
}

static int
console_join(struct adapter *adapter, const char *channel)
{
	return 0;
}

static int
console_send_channel(struct adapter *adapter, const char *channel,
    const struct text *text, const struct send_info *info)
{
	console_print(adapter->priv, NULL, text);
	return 0;
}

static int
console_send_private(struct adapter *adapter, const char *user_id,
    const struct text *text, const struct send_info *info)
{
	/* Only the person at the keyboard has private messages to read. */
	if (strcmp(user_id, CONSOLE_USER) != 0)
		return 0;
	console_print(adapter->priv, "(private)", text);
	return 0;
}

static size_t
console_queue_depth(const struct adapter *adapter)
{
	return 0;
}

const struct adapter_impl console_adapter = {
	.name = "console",
	.init = console_init,
	.finish = console_finish,
	.start = console_start,
	.stop = console_stop,
	.join = console_join,
	.part = console_join,
	.send_channel = console_send_channel,
	.send_private = console_send_private,
	.queue_depth = console_queue_depth,
	.channel_admin = NULL,
};

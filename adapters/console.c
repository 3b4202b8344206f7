/*
 * console.c - the terminal adapter behind `stichbot play`.
 *
 * Standard input is the person's keyboard: a line starting with a command
 * prefix is said at the table (the channel "#table"), any other line is a
 * private message to the bot, exactly as in a chat; `/msg NAME TEXT`, the
 * chat habit, is a private message too.  The person is the one reader of
 * everything the table says, so the core speaks to them as "you" (the
 * reader() hook of adapter.h).
 *
 * On a terminal the line is edited with libedit (history, arrows), through
 * its readline-compatible callback interface, so that the keyboard stays
 * one descriptor of the bot's single event loop: when the table says
 * something while the person types, the input line is wiped, the message
 * printed, and the prompt and the half-typed line drawn again.  Colour is
 * used on a terminal unless NO_COLOR is set.  Without a terminal (a
 * script) lines are read from a pipe and private lines are tagged
 * "(private)" so that a script can tell them apart.
 *
 * The configuration object may give "name" (the person's name; default
 * $USER), "history" (a file keeping the typed lines between runs) and
 * "lang" (en or ja, of the console's own notes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <editline/readline.h>

#include "console.h"
#include "xmalloc.h"
#include "cfg.h"
#include "i18n.h"
#include "log.h"
#include "loop.h"

/* The prompt the person types at. */
#define PROMPT "> "

struct console {
	char name[64];
	enum lang lang;          /* of our own notes */
	char *history;           /* file of typed lines; NULL: none */
	int ansi;                /* colours and styles */
	int edit;                /* stdin and stdout are a terminal: libedit */
	int watching;
	int editing;             /* libedit's callback handler is installed */
	char *pending;           /* a line libedit finished, to run */
	int fresh;               /* the prompt shows an empty line */
	int ended;               /* libedit saw the end of input */
	int discarding;          /* (a pipe) skipping the rest of a long line */
	void (*again)(void *arg);
	void *again_arg;
	char buf[CONSOLE_LINE_MAX + 2];
	size_t len;
	uint64_t connected_timer; /* says "connected" once started */
};

/*
 * libedit's callback takes no argument, and a process has one keyboard:
 * the adapter whose line editor is installed.
 */
static struct adapter *console_editor;

static int
console_init(struct adapter *adapter, const json_t *config, const char *path,
    char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "history", "lang",
	    NULL };
	struct console *c;
	const char *name = getenv("USER");
	const char *history = NULL, *lang = "en";
	const char *no_color = getenv("NO_COLOR");

	if (config != NULL) {
		if (cfg_object(config, path, err, errlen) != 0 ||
		    cfg_keys(config, path, keys, NULL, err, errlen) != 0 ||
		    cfg_string(config, path, "name", 0, &name, err,
		    errlen) < 0 ||
		    cfg_string(config, path, "history", 0, &history, err,
		    errlen) < 0 ||
		    cfg_string(config, path, "lang", 0, &lang, err,
		    errlen) < 0)
			return -1;
	}
	c = xcalloc(1, sizeof(*c));
	if (history != NULL)
		c->history = xstrdup(history);
	snprintf(c->name, sizeof(c->name), "%s",
	    name != NULL && *name != '\0' ? name : "you");
	/* https://no-color.org: a set, non-empty NO_COLOR turns colour off. */
	c->ansi = isatty(STDOUT_FILENO) &&
	    (no_color == NULL || *no_color == '\0');
	c->edit = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	c->lang = lang_parse(lang) == LANG_JA ? LANG_JA : LANG_EN;
	adapter->priv = c;
	return 0;
}

static void
console_finish(struct adapter *adapter)
{
	struct console *c = adapter->priv;

	if (c != NULL) {
		free(c->history);
		free(c->pending);
	}
	free(c);
	adapter->priv = NULL;
}

/*
 * Wipes the prompt and the line being typed, however many rows it wraps
 * over, leaving the cursor at the start of the prompt's first row.  Wide
 * (CJK) characters take two columns, as the terminal draws them.
 */
static void
console_wipe(const struct console *c)
{
	struct winsize ws;
	int cols = 80, width = (int)strlen(PROMPT), up;
	/*
	 * After a line, libedit's rl_point and buffer keep the old line
	 * until the next key: the prompt shown is empty then.
	 */
	const unsigned char *p = c->fresh ? NULL :
	    (const unsigned char *)rl_line_buffer;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	for (int i = 0; p != NULL && i < rl_point && p[i] != '\0'; i++)
		if ((p[i] & 0xc0) != 0x80)
			width += p[i] >= 0xe3 && p[i] <= 0xef ? 2 : 1;
	up = width / cols;
	if (up > 0)
		printf("\033[%dA", up);
	fputs("\r\033[J", stdout);
}

/*
 * Prints a text, one terminal line per line of it.  While the person is
 * typing, their line is wiped first and drawn again afterwards, so that
 * what the table says never lands in the middle of it.
 */
static void
console_print(struct console *c, const char *tag, const struct text *text)
{
	struct text out;
	const char *s;

	text_init(&out);
	text_render(text, c->ansi ? TEXT_FORMAT_ANSI : TEXT_FORMAT_PLAIN,
	    &out);
	s = text_str(&out);
	/*
	 * There is one table, so the name of its channel that private lines
	 * carry for people at several tables says nothing here.
	 */
	if (strncmp(s, "[" CONSOLE_CHANNEL "] ",
	    strlen("[" CONSOLE_CHANNEL "] ")) == 0)
		s += strlen("[" CONSOLE_CHANNEL "] ");
	if (c->editing)
		console_wipe(c);
	while (*s != '\0') {
		size_t n = strcspn(s, "\n");

		if (tag != NULL)
			printf("%s ", tag);
		printf("%.*s\n", (int)n, s);
		s += n;
		if (*s == '\n')
			s++;
	}
	fflush(stdout);
	if (c->editing)
		rl_forced_update_display();
	text_finish(&out);
}

/* Prints one line of our own (not from the core), dimmed on a terminal. */
static void
console_note(struct console *c, const char *note)
{
	struct text t;

	text_init(&t);
	text_add(&t, note);
	if (c->ansi) {
		if (c->editing)
			console_wipe(c);
		printf("\033[2m%s\033[0m\n", note);
		fflush(stdout);
		if (c->editing)
			rl_forced_update_display();
	} else {
		console_print(c, NULL, &t);
	}
	text_finish(&t);
}

/* Refuses a line longer than any command, all of it. */
static void
console_too_long(struct console *c)
{
	struct text t;

	text_init(&t);
	SAY(&t, c->lang, MSG_LINE_TOO_LONG, "d", CONSOLE_LINE_MAX);
	console_note(c, text_str(&t));
	text_finish(&t);
}

/* Whether line is word (case-insensitive) followed by nothing or a space. */
static const char *
after_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	if (strncasecmp(line, word, n) != 0 ||
	    (line[n] != '\0' && line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	return line + strspn(line, " \t");
}

static void
console_line(struct adapter *adapter, const char *line)
{
	struct console *c = adapter->priv;
	struct user user = { .id = CONSOLE_USER, .name = c->name, .mask = NULL };
	const char *rest;

	line += strspn(line, " \t");
	if (*line == '\0')
		return;
	if (strlen(line) > CONSOLE_LINE_MAX) {
		console_too_long(c);
		return;
	}
	if (strcasecmp(line, "quit") == 0 || strcasecmp(line, "exit") == 0) {
		loop_stop(adapter->loop);
		return;
	}
	if (c->again != NULL) {
		/* The offer after a game: another one, or leave. */
		if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0 ||
		    strcasecmp(line, "again") == 0) {
			void (*again)(void *) = c->again;

			c->again = NULL;
			again(c->again_arg);
			return;
		}
		if (strcasecmp(line, "n") == 0 || strcasecmp(line, "no") == 0) {
			loop_stop(adapter->loop);
			return;
		}
	}
	/*
	 * `/msg bot bid 2` is how a chat sends a private line; here every
	 * line without a prefix is private already, so take it as meant.
	 */
	if ((rest = after_word(line, "/msg")) != NULL ||
	    (rest = after_word(line, "/query")) != NULL) {
		rest += strcspn(rest, " \t");
		rest += strspn(rest, " \t");
		if (*rest == '!' || *rest == '/')
			rest++;
		if (*rest == '\0')
			return;
		adapter_message(adapter, NULL, &user, rest);
		return;
	}
	adapter_message(adapter, (line[0] == '!' || line[0] == '/') ? CONSOLE_CHANNEL : NULL,
	    &user, line);
}

void
console_type(struct adapter *adapter, const char *line)
{
	struct console *c = adapter->priv;

	if (c->editing)
		console_wipe(c);
	printf(c->ansi ? "\033[2m> %s\033[0m\n" : "> %s\n", line);
	fflush(stdout);
	if (c->editing)
		rl_forced_update_display();
	console_line(adapter, line);
}

void
console_notice(struct adapter *adapter, enum msg id)
{
	struct console *c = adapter->priv;
	struct text t;

	text_init(&t);
	SAY0(&t, c->lang, id);
	console_note(c, text_str(&t));
	text_finish(&t);
}

void
console_offer_again(struct adapter *adapter, void (*again)(void *arg),
    void *arg)
{
	struct console *c = adapter->priv;

	c->again = again;
	c->again_arg = arg;
	console_notice(adapter, MSG_PLAY_AGAIN);
}

/*
 * libedit hands over a finished line (NULL at end of input).  It is only
 * kept here: libedit calls this with the terminal given back to its
 * normal mode and the old line still in its buffer, so the line is run
 * once libedit is ready for the next one (console_key).
 */
static void
console_edited(char *line)
{
	struct adapter *adapter = console_editor;
	struct console *c = adapter != NULL ? adapter->priv : NULL;

	if (c == NULL) {
		free(line);
		return;
	}
	free(c->pending);
	c->pending = line;
	c->ended = line == NULL;
	if (line != NULL && line[strspn(line, " \t")] != '\0')
		add_history(line);
}

/*
 * The keys read but not yet given to libedit.  libedit's callback mode
 * does not recognise key sequences (its unbuffered reading gives up on
 * ESC [ A and inserts it as text), so the cursor keys are translated
 * here into the single control keys its emacs map binds: Up ^P, Down ^N,
 * Right ^F, Left ^B, Home ^A, End ^E; other sequences are dropped.
 */
static struct {
	unsigned char buf[512];
	size_t len, pos;
	char seq[16];            /* an escape sequence not yet complete */
	size_t seqlen;
} keys;

/*
 * libedit reads its keys here, from the queue only: reading the terminal
 * when the queue is empty would block the whole loop (and the computers'
 * moves) until the next key.
 */
static int
console_getc(FILE *in)
{
	if (keys.pos < keys.len)
		return keys.buf[keys.pos++];
	return EOF;
}

static void
key_push(unsigned char ch)
{
	if (keys.len < sizeof(keys.buf))
		keys.buf[keys.len++] = ch;
}

/* Translates a finished escape sequence (see struct keys). */
static void
key_sequence(const char *seq, size_t len)
{
	char final = seq[len - 1];

	if (final == '~' && len >= 4) {
		if (seq[2] == '1' || seq[2] == '7')
			final = 'H';
		else if (seq[2] == '4' || seq[2] == '8')
			final = 'F';
	}
	switch (final) {
	case 'A': key_push('P' & 0x1f); break;
	case 'B': key_push('N' & 0x1f); break;
	case 'C': key_push('F' & 0x1f); break;
	case 'D': key_push('B' & 0x1f); break;
	case 'H': key_push('A' & 0x1f); break;
	case 'F': key_push('E' & 0x1f); break;
	default: break;
	}
}

/* Queues what the terminal sent, translating cursor keys. */
static void
key_feed(const unsigned char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = in[i];

		if (keys.seqlen == 0) {
			if (ch == 0x1b)
				keys.seq[keys.seqlen++] = (char)ch;
			else
				key_push(ch);
			continue;
		}
		if (keys.seqlen < sizeof(keys.seq))
			keys.seq[keys.seqlen++] = (char)ch;
		if (keys.seqlen == 2) {
			/* ESC [ and ESC O start sequences; ESC x is dropped. */
			if (ch != '[' && ch != 'O')
				keys.seqlen = 0;
			continue;
		}
		/* A sequence ends at its final byte, '@' to '~'. */
		if ((keys.seq[1] == 'O' || (ch >= 0x40 && ch <= 0x7e)) ||
		    keys.seqlen == sizeof(keys.seq)) {
			key_sequence(keys.seq, keys.seqlen);
			keys.seqlen = 0;
		}
	}
}

static void
console_key(struct loop *loop, int fd, int events, void *arg)
{
	struct adapter *adapter = arg;
	unsigned char in[256];
	ssize_t n = read(fd, in, sizeof(in));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		/* The terminal is gone: the person has left the table. */
		loop_unwatch(loop, fd);
		((struct console *)adapter->priv)->watching = 0;
		loop_stop(loop);
		return;
	}
	keys.len = keys.pos = 0;
	key_feed(in, (size_t)n);
	/* One call per key; a finished line may end the session. */
	while (keys.pos < keys.len && console_editor == adapter &&
	    !loop_stopped(loop)) {
		struct console *c = adapter->priv;
		char *line;

		c->fresh = 0;
		rl_callback_read_char();
		if (c->ended) {
			/* Ctrl-D: the person has left the table. */
			fputs("\n", stdout);
			loop_stop(loop);
			break;
		}
		if ((line = c->pending) == NULL)
			continue;
		c->pending = NULL;
		/*
		 * Installing the handler again puts the terminal back into
		 * libedit's mode and draws a fresh prompt under the line.
		 */
		rl_callback_handler_install(PROMPT, console_edited);
		c->fresh = 1;
		console_line(adapter, line);
		free(line);
	}
	keys.len = keys.pos = 0;
}

/* Reads a pipe: whole lines only; an over-long one is refused whole. */
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
	while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
		size_t used = (size_t)(nl + 1 - c->buf);

		*nl = '\0';
		if (nl > c->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		if (c->discarding) {
			/* The end of a line too long to keep: refused whole. */
			c->discarding = 0;
			console_too_long(c);
		} else {
			console_line(adapter, c->buf);
		}
		c = adapter->priv;
		if (c == NULL)
			return;
		memmove(c->buf, c->buf + used, c->len - used + 1);
		c->len -= used;
	}
	if (c->len == sizeof(c->buf) - 1) {
		/*
		 * Longer than any command: dropped up to its end, which is
		 * never taken for a command of its own.
		 */
		c->discarding = 1;
		c->len = 0;
	}
}

static void
console_connected(struct loop *loop, uint64_t id, void *arg)
{
	struct adapter *adapter = arg;
	struct console *c = adapter->priv;

	(void)loop;
	(void)id;
	c->connected_timer = 0;
	adapter_connected(adapter, 1);
}

static int
console_start(struct adapter *adapter)
{
	struct console *c = adapter->priv;

	if (c->edit && console_editor == NULL) {
		console_editor = adapter;
		/* Before anything initialises libedit, which reads it once. */
		rl_getc_function = console_getc;
		rl_initialize();
		if (c->history != NULL)
			read_history(c->history);
		stifle_history(500);
		rl_callback_handler_install(PROMPT, console_edited);
		c->editing = 1;
		c->fresh = 1;
		if (loop_watch(adapter->loop, STDIN_FILENO,
		    LOOP_READ, console_key, adapter) != 0)
			return -1;
	} else if (loop_watch(adapter->loop, STDIN_FILENO,
	    LOOP_READ, console_read, adapter) != 0) {
		return -1;
	}
	c->watching = 1;
	/* The terminal is there at once; said from the loop, as media do. */
	c->connected_timer = loop_timer(adapter->loop, 0,
	    console_connected, adapter);
	return 0;
}

static void
console_stop(struct adapter *adapter, const char *goodbye)
{
	struct console *c = adapter->priv;

	loop_cancel(adapter->loop, c->connected_timer);
	c->connected_timer = 0;

	if (c->watching)
		loop_unwatch(adapter->loop, STDIN_FILENO);
	c->watching = 0;
	if (c->editing) {
		/* Gives the terminal back as it was, on a fresh line. */
		rl_callback_handler_remove();
		c->editing = 0;
		console_editor = NULL;
		fputs("\r\033[K", stdout);
		fflush(stdout);
		if (c->history != NULL && write_history(c->history) != 0)
			log_warn("cannot keep the typed lines in %s",
			    c->history);
	}
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
	struct console *c = adapter->priv;

	/* Only the person at the keyboard has private messages to read. */
	if (strcmp(user_id, CONSOLE_USER) != 0)
		return 0;
	console_print(c, c->edit ? NULL : "(private)", text);
	return 0;
}

static size_t
console_queue_depth(const struct adapter *adapter)
{
	return 0;
}

/* The person at the keyboard reads everything the table says. */
static const char *
console_reader(struct adapter *adapter, const char *channel)
{
	return CONSOLE_USER;
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
	.reader = console_reader,
};

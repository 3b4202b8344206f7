/*
 * fuzz_commands.c - libFuzzer target: the bot core's command parser and
 * game flow, driven through the in-memory adapter (adapters/memory.h) on a
 * virtual clock with an in-memory store, as tests/test_bot.c drives it.
 *
 * The input is a script, one event per line (at most MAX_EVENTS):
 *
 *   USER|CHANNEL|TEXT   USER says TEXT in CHANNEL (empty: privately)
 *   USER|TEXT           ... in #c;  TEXT alone: alice says it in #c
 *   +SECONDS            the clock moves on (computers, turn timers, grace)
 *   ~OLD|NEW            OLD is now NEW (an IRC nick change)
 *   >USER|CHANNEL       USER joins CHANNEL
 *   <USER|CHANNEL       USER parts CHANNEL (empty: quits)
 *   ^0, ^1              the network goes down, comes back
 *   *                   the process dies; a new bot restores the store
 *   =                   the bot stops (saying goodbye) and starts again
 *
 * A user's name is the id up to a '!'; "root" is an admin.  Checked after
 * every event (and every second of clock), besides memory safety and leaks:
 *   - nothing is logged as an error;
 *   - every line the bot sends, rendered plain, is valid UTF-8 without
 *     control characters but '\n';
 *   - no channel line names a card that is still in some seat's hand
 *     (Wizard's suited cards and Sticheln's cards are unique), unless the
 *     card was played since the last check, appears in a score sheet, or
 *     people named it in public (a channel line since the last check, a
 *     user id or name, a channel name): the bot may echo what they say;
 *   - a bot that dies or stops and restarts restores every running game
 *     to the identical state;
 * and at the end every game in the store replays (replay_record() 0), as
 * finished exactly when the store says it finished.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "channel_lines.h"
#include "fuzz_check.h"
#include "bot_test.h"
#include "log.h"
#include "loop.h"
#include "memory.h"
#include "store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Work per input, so that executions stay fast. */
#define MAX_EVENTS 200
#define MAX_FIELD 64             /* bytes of a user id or channel name */
#define MAX_TEXT 600             /* bytes of what someone says */
#define MAX_ADVANCE 7200         /* seconds per "+SECONDS" */
#define MAX_CLOCK (3 * 3600)     /* seconds per input */
#define MAX_SENT 1500            /* lines sent, after which the clock stops */
#define MAX_RESTARTS 4

/* What the last check saw of a channel's game. */
struct watch {
	char *channel;
	int64_t game_id;         /* 0: no game */
	int nactions;
};

struct fx {
	struct loop *loop;
	struct store *store;
	struct bot *bot;
	struct adapter *adapter;
	size_t checked;          /* lines of this bot already checked */
	size_t sent;             /* lines of earlier bots of this input */
	struct watch *watches;
	int nwatches;
	struct text said;        /* said in channels since the last check */
	/* The last command and its author: it may be echoed back to them. */
	char last_author[64];
	struct text last_text;
	struct text names;       /* every id, name and channel of the input */
	uint64_t clock;          /* seconds advanced */
	int restarts;
};

static void
log_cb(enum log_level level, const char *line, void *arg)
{
	/* Errors are what the core logs when something went wrong inside. */
	if (level == LOG_LEVEL_ERROR) {
		fprintf(stderr, "logged an error: %s\n", line);
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_setup(LOG_LEVEL_WARN, 0);
	log_capture(log_cb, NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The bot. */

static void
fx_bot(struct fx *f)
{
	struct bot_settings settings;
	struct config_channel defaults;
	char err[256];

	memset(&settings, 0, sizeof(settings));
	settings.seed = 42;
	settings.computer_delay_ms = 500;
	settings.ai_budget_ms = 1;
	/* The limit would drop most of an input; tests/test_bot.c covers it. */
	settings.command_burst = -1;
	f->bot = bot_create(f->loop, f->store, &settings, err, sizeof(err));
	CHECK(f->bot != NULL);
	memset(&defaults, 0, sizeof(defaults));
	defaults.prefixes = "!/";
	defaults.turn_timer = 120;
	defaults.game = "wizard";
	f->adapter = bot_add_adapter(f->bot, &memory_adapter, "test", NULL,
	    &defaults, err, sizeof(err));
	CHECK(f->adapter != NULL);
	bot_add_admin(f->bot, f->adapter, "root");
	CHECK(bot_start(f->bot) == 0);
	f->checked = 0;
}

static struct watch *
watch_get(struct fx *f, const char *channel)
{
	struct watch *w;

	for (int i = 0; i < f->nwatches; i++)
		if (strcmp(f->watches[i].channel, channel) == 0)
			return &f->watches[i];
	f->watches = realloc(f->watches, (size_t)(f->nwatches + 1) *
	    sizeof(*f->watches));
	CHECK(f->watches != NULL);
	w = &f->watches[f->nwatches++];
	w->channel = strdup(channel);
	CHECK(w->channel != NULL);
	w->game_id = 0;
	w->nactions = 0;
	return w;
}

/* ------------------------------------------------------------------ */
/* What the bot says. */

/* Valid UTF-8 (RFC 3629) without C0 (but '\n'), DEL or C1 controls. */
static int
clean_utf8(const unsigned char *s)
{
	size_t n = strlen((const char *)s), len;
	unsigned cp;

	for (size_t i = 0; i < n; i += len)
		if ((len = fuzz_utf8_char(s + i, n - i, &cp)) == 0 ||
		    (cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp < 0xa0))
			return 0;
	return 1;
}

/*
 * A seat's hand (a new reference).  In a clairvoyant round a seat does
 * not see its own card; the next seat's view shows it.
 */
static json_t *
seat_hand(const struct table *table, int seat)
{
	const void *state = table_game(table)->state;
	json_t *view = table_impl(table)->view(state, seat), *hand;

	if (json_object_size(json_object_get(view, "others")) > 0 &&
	    table_nseats(table) > 1) {
		json_t *next = table_impl(table)->view(state,
		    (seat + 1) % table_nseats(table));
		char key[8];

		snprintf(key, sizeof(key), "%d", seat);
		hand = json_incref(json_object_get(json_object_get(next,
		    "others"), key));
		json_decref(next);
	} else {
		hand = json_incref(json_object_get(view, "hand"));
	}
	json_decref(view);
	return hand;
}

/*
 * The private lines of a table since the last check name no card held by
 * a seat other than their addressee's (under clairvoyance everyone sees
 * the others' cards by the rules, so those games are left out).
 */
static void
check_others_private(struct fx *f, struct table *table, const char *name,
    int from, size_t n)
{
	json_t *view = table_impl(table)->view(table_game(table)->state, 0);
	int clairvoyant = json_object_size(json_object_get(view, "others")) > 0;

	json_decref(view);
	if (clairvoyant)
		return;
	for (size_t k = f->checked; k < n; k++) {
		const struct memory_line *l = memory_line(f->adapter, k);
		size_t len;
		char *visible;

		if (l->channel != NULL || l->flow == NULL ||
		    strcmp(l->flow, name) != 0)
			continue;
		len = strlen(l->marked) + 1;
		visible = malloc(len);
		CHECK(visible != NULL);
		channel_outside_sheets(l->marked, visible, len);
		for (int seat = 0; seat < table_nseats(table); seat++) {
			json_t *hand, *code;
			size_t i;

			if (strcmp(table_seat(table, seat)->user_id, l->user_id) == 0)
				continue;
			hand = seat_hand(table, seat);
			json_array_foreach(hand, i, code) {
				const char *c = json_string_value(code);

				if (strcmp(c, "W") == 0 || strcmp(c, "J") == 0 ||
				    !channel_has_word(visible, c, 0) ||
				    (strcmp(l->user_id, f->last_author) == 0 &&
				    channel_has_word(text_str(&f->last_text), c,
				    1)) ||
				    channel_played_since(table, from, c) ||
				    channel_has_word(text_str(&f->said), c, 1) ||
				    channel_has_word(text_str(&f->names), c, 1))
					continue;
				fprintf(stderr, "%s: a private line to %s names "
				    "%s held by seat %d: %s\n", name,
				    l->user_id, c, seat, visible);
				abort();
			}
			json_decref(hand);
		}
		free(visible);
	}
}

/* The lines of a channel since the last check name no held card. */
static void
check_private(struct fx *f, struct table *table, const char *name, int from,
    size_t n)
{
	char **visible;
	size_t nvisible = 0;

	/* What the channel saw, marks and score sheets left out. */
	visible = calloc(n - f->checked + 1, sizeof(*visible));
	CHECK(visible != NULL);
	for (size_t k = f->checked; k < n; k++) {
		const struct memory_line *l = memory_line(f->adapter, k);
		size_t len = strlen(l->marked) + 1;

		if (l->channel == NULL || strcmp(l->channel, name) != 0)
			continue;
		visible[nvisible] = malloc(len);
		CHECK(visible[nvisible] != NULL);
		channel_outside_sheets(l->marked, visible[nvisible], len);
		nvisible++;
	}
	check_others_private(f, table, name, from, n);
	for (int seat = 0; seat < table_nseats(table) && nvisible > 0; seat++) {
		json_t *hand = seat_hand(table, seat);
		json_t *code;
		size_t i;

		json_array_foreach(hand, i, code) {
			const char *c = json_string_value(code);
			size_t k = 0;

			CHECK(c != NULL);
			while (k < nvisible &&
			    !channel_has_word(visible[k], c, 0))
				k++;
			if (k == nvisible || strcmp(c, "W") == 0 ||
			    strcmp(c, "J") == 0 ||
			    channel_played_since(table, from, c) ||
			    channel_has_word(text_str(&f->said), c, 1) ||
			    channel_has_word(text_str(&f->names), c, 1))
				continue;
			fprintf(stderr, "%s: a channel line names %s held by "
			    "seat %d: %s\n", name, c, seat,
			    visible[k]);
			abort();
		}
		json_decref(hand);
	}
	for (size_t k = 0; k < nvisible; k++)
		free(visible[k]);
	free(visible);
}

static void
check_lines(struct fx *f)
{
	size_t n = memory_count(f->adapter);

	if (n == f->checked)
		return;
	for (size_t k = f->checked; k < n; k++) {
		const struct memory_line *l = memory_line(f->adapter, k);

		if (!clean_utf8((const unsigned char *)l->text)) {
			fprintf(stderr, "not clean UTF-8: %s\n", l->text);
			abort();
		}
	}
	for (int c = 0; c < bot_channel_count(f->bot); c++) {
		const char *name = bot_channel_name(f->bot, c);
		struct table *table = bot_channel_table(f->bot, c);
		struct watch *w = watch_get(f, name);
		int running = table != NULL && table_game(table) != NULL;

		/*
		 * Cards are unique except in BirdHead.  A game that replaced
		 * another since the last check (a restart) cannot be told
		 * from the old one's lines.
		 */
		if (running && strcmp(table_impl(table)->name, "birdhead") != 0 &&
		    (w->game_id == 0 || w->game_id == table_game_id(table)))
			check_private(f, table, name, w->game_id == 0 ? 0 :
			    w->nactions, n);
		w->game_id = running ? table_game_id(table) : 0;
		w->nactions = running ? table_game(table)->nactions : 0;
	}
	f->checked = n;
	text_clear(&f->said);
}

/* ------------------------------------------------------------------ */
/* Restarts. */

struct snapshot {
	char *channel;
	int64_t game_id;
	int nactions, ndeals;
	void *state;
	size_t size;
};

static void
restart(struct fx *f, int graceful)
{
	struct snapshot *snap;
	int n = 0, restored;

	check_lines(f);
	snap = calloc((size_t)bot_channel_count(f->bot) + 1, sizeof(*snap));
	CHECK(snap != NULL);
	for (int c = 0; c < bot_channel_count(f->bot); c++) {
		struct table *table = bot_channel_table(f->bot, c);

		if (table == NULL || table_game(table) == NULL)
			continue;
		snap[n].channel = strdup(bot_channel_name(f->bot, c));
		snap[n].game_id = table_game_id(table);
		snap[n].nactions = table_game(table)->nactions;
		snap[n].ndeals = table_game(table)->ndeals;
		snap[n].size = table_impl(table)->state_size;
		snap[n].state = malloc(snap[n].size);
		CHECK(snap[n].channel != NULL && snap[n].state != NULL);
		memcpy(snap[n].state, table_game(table)->state, snap[n].size);
		n++;
	}
	if (graceful)
		bot_stop(f->bot, "restarting");
	f->sent += memory_count(f->adapter);
	bot_destroy(f->bot);
	fx_bot(f);
	restored = bot_restore(f->bot);
	adapter_flush(f->adapter);
	CHECK(restored == n);
	for (int i = 0; i < n; i++) {
		struct table *table = bot_table(f->bot, f->adapter,
		    snap[i].channel);

		CHECK(table != NULL && table_game(table) != NULL);
		CHECK(table_game_id(table) == snap[i].game_id);
		CHECK(table_game(table)->nactions == snap[i].nactions);
		CHECK(table_impl(table)->state_size == snap[i].size);
		/* A round that waited for its deal is dealt on restore. */
		CHECK(table_game(table)->ndeals == snap[i].ndeals ||
		    table_game(table)->ndeals == snap[i].ndeals + 1);
		if (table_game(table)->ndeals == snap[i].ndeals)
			CHECK(memcmp(table_game(table)->state, snap[i].state,
			    snap[i].size) == 0);
		free(snap[i].channel);
		free(snap[i].state);
	}
	free(snap);
	f->restarts++;
}

/* ------------------------------------------------------------------ */
/* The script. */

/* Copies at most max bytes of s[0..n) into out (max + 1 bytes). */
static void
field(char *out, size_t max, const char *s, size_t n)
{
	if (n > max)
		n = max;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* Splits "A|B" into a and b (b "" when there is no '|'). */
static void
two_fields(const char *s, char *a, char *b)
{
	const char *bar = strchr(s, '|');

	if (bar == NULL) {
		field(a, MAX_FIELD, s, strlen(s));
		b[0] = '\0';
		return;
	}
	field(a, MAX_FIELD, s, (size_t)(bar - s));
	field(b, MAX_FIELD, bar + 1, strlen(bar + 1));
}

/*
 * Notes what people said or are called, as typed and as the bot shows it
 * (without control bytes and invalid UTF-8, which can join two words).
 */
static void
note(struct text *t, const char *s)
{
	char *clean = text_sanitize(s);

	CHECK(clean != NULL);
	/* Names come again and again: each is kept once. */
	if (strstr(text_str(t), s) == NULL) {
		text_add(t, " ");
		text_add(t, s);
	}
	if (strstr(text_str(t), clean) == NULL) {
		text_add(t, " ");
		text_add(t, clean);
	}
	free(clean);
}

/* A person: the id, and the name an IRC client would show (the nick). */
static void
person(struct fx *f, const char *id, char *name, struct user *user)
{
	const char *bang = strchr(id, '!');

	field(name, MAX_FIELD, id, bang != NULL && bang > id ?
	    (size_t)(bang - id) : strlen(id));
	user->id = id;
	user->name = name;
	user->mask = NULL;
	note(&f->names, id);
	note(&f->names, name);
}

static void
advance(struct fx *f, const char *digits)
{
	uint64_t seconds = 0;

	for (int i = 0; i < 5 && digits[i] >= '0' && digits[i] <= '9'; i++)
		seconds = seconds * 10 + (uint64_t)(digits[i] - '0');
	if (seconds > MAX_ADVANCE)
		seconds = MAX_ADVANCE;
	/* A second at a time, checking what each second said. */
	for (uint64_t s = 0; s < seconds && f->clock < MAX_CLOCK; s++) {
		if (f->sent + memory_count(f->adapter) > MAX_SENT)
			break;
		loop_advance(f->loop, 1000);
		f->clock++;
		check_lines(f);
	}
}

static void
say(struct fx *f, const char *line)
{
	char id[MAX_FIELD + 1], channel[MAX_FIELD + 1], name[MAX_FIELD + 1];
	char text[MAX_TEXT + 1];
	const char *first = strchr(line, '|');
	const char *second = first != NULL ? strchr(first + 1, '|') : NULL;
	struct user user = { 0 };

	if (first == NULL) {
		snprintf(id, sizeof(id), "alice");
		snprintf(channel, sizeof(channel), "#c");
		field(text, MAX_TEXT, line, strlen(line));
	} else if (second == NULL) {
		field(id, MAX_FIELD, line, (size_t)(first - line));
		snprintf(channel, sizeof(channel), "#c");
		field(text, MAX_TEXT, first + 1, strlen(first + 1));
	} else {
		field(id, MAX_FIELD, line, (size_t)(first - line));
		field(channel, MAX_FIELD, first + 1,
		    (size_t)(second - first - 1));
		field(text, MAX_TEXT, second + 1, strlen(second + 1));
	}
	if (id[0] == '\0')
		snprintf(id, sizeof(id), "alice");
	person(f, id, name, &user);
	if (channel[0] != '\0') {
		note(&f->names, channel);
		/* What people say in public, the bot may repeat. */
		note(&f->said, text);
	}
	snprintf(f->last_author, sizeof(f->last_author), "%s", user.id);
	text_clear(&f->last_text);
	text_add(&f->last_text, text);
	/* Said through the medium, which then reports its lines sent. */
	memory_say_as(f->adapter, channel[0] != '\0' ? channel : NULL, &user,
	    text);
}

static void
event(struct fx *f, const char *line)
{
	char a[MAX_FIELD + 1], b[MAX_FIELD + 1], name[MAX_FIELD + 1];
	struct user user = { 0 };

	switch (line[0]) {
	case '+':
		advance(f, line + 1);
		return;
	case '~':
		two_fields(line + 1, a, b);
		if (a[0] == '\0' || b[0] == '\0')
			break;
		person(f, b, name, &user);
		adapter_rename(f->adapter, a, &user);
		adapter_flush(f->adapter);
		break;
	case '>':
	case '<':
		two_fields(line + 1, a, b);
		if (a[0] == '\0')
			break;
		person(f, a, name, &user);
		note(&f->names, b);
		if (line[0] == '>')
			adapter_join(f->adapter, b[0] != '\0' ? b :
			    NULL, &user);
		else
			adapter_leave(f->adapter, b[0] != '\0' ? b :
			    NULL, &user);
		adapter_flush(f->adapter);
		break;
	case '^':
		adapter_connected(f->adapter, line[1] != '0');
		adapter_flush(f->adapter);
		break;
	case '*':
	case '=':
		if (line[1] == '\0' && f->restarts < MAX_RESTARTS) {
			restart(f, line[0] == '=');
			break;
		}
		say(f, line);
		break;
	default:
		say(f, line);
		break;
	}
	check_lines(f);
}

/* ------------------------------------------------------------------ */
/* The store at the end. */

static int
replay_cb(const struct store_game *g, void *arg)
{
	json_t *output = NULL;
	int rc = replay_record(g->record, &output);

	if (rc != 0) {
		char *s = json_dumps(output, JSON_COMPACT);

		fprintf(stderr, "game %lld does not replay: %s\n",
		    (long long)g->id, s != NULL ? s : "?");
		abort();
	}
	if (g->finished == 1)
		CHECK(json_is_true(json_object_get(output, "finished")));
	else if (g->finished == 0)
		CHECK(!json_is_true(json_object_get(output, "finished")));
	json_decref(output);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fx f;
	char err[256];
	char line[MAX_TEXT + MAX_FIELD * 2 + 8];
	size_t start = 0;
	int events = 0;

	memset(&f, 0, sizeof(f));
	text_init(&f.said);
	text_init(&f.last_text);
	text_init(&f.names);
	f.loop = loop_create(1);
	CHECK(f.loop != NULL);
	f.store = store_open(":memory:", err, sizeof(err));
	CHECK(f.store != NULL);
	fx_bot(&f);
	for (size_t i = 0; i <= size && events < MAX_EVENTS; i++) {
		size_t n;

		if (i < size && data[i] != '\n')
			continue;
		/* A line ends at a NUL too: C strings cannot carry it. */
		n = i - start;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, data + start, n);
		line[n] = '\0';
		start = i + 1;
		event(&f, line);
		events++;
	}
	store_each_game(f.store, NULL, 0, 1, replay_cb, NULL);
	bot_stop(f.bot, NULL);
	bot_destroy(f.bot);
	store_close(f.store);
	loop_destroy(f.loop);
	for (int i = 0; i < f.nwatches; i++)
		free(f.watches[i].channel);
	free(f.watches);
	text_finish(&f.said);
	text_finish(&f.last_text);
	text_finish(&f.names);
	return 0;
}

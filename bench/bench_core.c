/*
 * bench_core.c - the bot core under many tables: command latency, memory
 * per table and the time to restore unfinished games, in one process.
 *
 * The bot runs on a virtual clock with the in-memory adapter (its lines
 * rendered and dropped) and a real store on disk, so every accepted action
 * is committed with synchronous=FULL before its command returns, exactly
 * as in service.  N channels each get three people who pick a game
 * (Wizard, BirdHead and Sticheln in turn), join and start; then every
 * table in turn gets commands from whoever is to act (privately in
 * simultaneous phases, otherwise in the channel), chosen at random among
 * the engine's legal actions, and each command is timed from its arrival
 * (memory_say) to its return, when its replies are queued.  Turn timers
 * are off and no computer plays, so nothing happens between commands.
 *
 * Allocations: on glibc without a sanitizer, malloc, calloc and realloc
 * are counted (this file interposes them over glibc's own), and each
 * command's count is kept with its times: what one move costs the heap,
 * everything included (the engine's views, the store, the outbox, the
 * texts).
 *
 * Memory is the resident set (/proc/self/statm) before the tables, with N
 * idle lobbies and with N running games; the peak is getrusage's
 * ru_maxrss.  Finally the bot is thrown away without a goodbye and a fresh
 * bot on a fresh store handle times bot_restore() over the N unfinished
 * games.
 *
 * usage: bench_core [--tables N] [--moves M] [--store PATH] [--seed S]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bot_test.h"
#include "rng.h"
#include "log.h"
#include "loop.h"
#include "memory.h"
#include "store.h"

static const char *const games[] = { "wizard", "birdhead", "sticheln" };

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define NO_COUNTING 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NO_COUNTING 1
#endif

/* Heap allocations since the start (0 when they cannot be counted). */
static unsigned long allocations;

#if defined(__GLIBC__) && !defined(NO_COUNTING)
#define COUNTING 1
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);

void *
malloc(size_t n)
{
	allocations++;
	return __libc_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
	allocations++;
	return __libc_calloc(n, size);
}

void *
realloc(void *p, size_t n)
{
	allocations++;
	return __libc_realloc(p, n);
}
#endif

struct bench {
	int ntables;
	int moves;               /* measured moves per table */
	const char *store_path;
	char path[256];          /* the store in use */
	int own_store;           /* 1: created here, removed at the end */
	uint64_t seed;
	struct loop *loop;
	struct store *store;
	struct bot *bot;
	struct adapter *adapter;
	struct rng rng;
};

struct times {
	double *us;
	long n, cap;
};

/* Wall-clock and on-CPU latencies of one kind of command. */
struct latency {
	struct times wall;
	struct times cpu;
	struct times allocs;     /* heap allocations per command */
};

static void
die(const char *what)
{
	fprintf(stderr, "bench_core: %s\n", what);
	exit(1);
}

static void
add(struct times *t, double us)
{
	if (t->n == t->cap) {
		t->cap = t->cap > 0 ? t->cap * 2 : 4096;
		t->us = realloc(t->us, (size_t)t->cap * sizeof(*t->us));
		if (t->us == NULL)
			die("out of memory");
	}
	t->us[t->n++] = us;
}

static int
compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
percentile(const struct times *t, double p)
{
	return t->us[(long)(p * (double)(t->n - 1) + 0.5)];
}

static double
clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double
now_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

/* The resident set now, in KiB (statm counts pages). */
static double
rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size, resident;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1024.0;
}

/* The peak resident set in KiB (Linux reports ru_maxrss in KiB). */
static double
peak_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss;
}

static void
user_of(int table, int who, char *out, size_t len)
{
	snprintf(out, len, "p%d%c", table, 'a' + who);
}

static void
channel_of(int table, char *out, size_t len)
{
	snprintf(out, len, "#t%d", table);
}

/*
 * A timed command; adds its latency to t (NULL: not measured): the wall
 * clock, and the thread's CPU time, which leaves out waiting for the disk.
 */
static void
say(struct bench *b, struct latency *t, const char *channel,
    const char *user, const char *line)
{
	double start = now_us();
	double cpu = clock_us(CLOCK_THREAD_CPUTIME_ID);
	unsigned long allocs = allocations;

	memory_say(b->adapter, channel, user, user, line);
	if (t != NULL) {
		add(&t->cpu, clock_us(CLOCK_THREAD_CPUTIME_ID) - cpu);
		add(&t->wall, now_us() - start);
		add(&t->allocs, (double)(allocations - allocs));
	}
}

static struct table *
table_at(struct bench *b, int i)
{
	char name[32];

	channel_of(i, name, sizeof(name));
	return bot_table(b->bot, b->adapter, name);
}

/* Three people pick the table's game and sit down: an idle lobby. */
static void
open_lobby(struct bench *b, int i, struct latency *t)
{
	char channel[32], user[32], line[32];

	channel_of(i, channel, sizeof(channel));
	user_of(i, 0, user, sizeof(user));
	snprintf(line, sizeof(line), "!game %s", games[i % 3]);
	say(b, t, channel, user, line);
	for (int who = 0; who < 3; who++) {
		user_of(i, who, user, sizeof(user));
		say(b, t, channel, user, "!join");
	}
}

static void
start_game(struct bench *b, int i, struct latency *t)
{
	char channel[32], user[32];

	channel_of(i, channel, sizeof(channel));
	user_of(i, 0, user, sizeof(user));
	say(b, t, channel, user, "!start");
	if (table_at(b, i) == NULL || table_game(table_at(b, i)) == NULL)
		die("a game did not start");
}

/*
 * One move at table i by whoever is to act; returns 0 when the action was
 * accepted.  A game that ended is started again, unmeasured.
 */
static int
move(struct bench *b, int i, struct latency *t, struct latency *private)
{
	struct table *table = table_at(b, i);
	struct action legal[GAME_MAX_ACTIONS];
	int acting[GAME_MAX_SEATS];
	enum game_phase phase;
	char channel[32], user[64], cmd[64], line[80];
	int n, seat, before;

	if (table == NULL || table_game(table) == NULL) {
		if (table == NULL)
			open_lobby(b, i, NULL);
		start_game(b, i, NULL);
		table = table_at(b, i);
	}
	phase = table_impl(table)->phase(table_game(table)->state);
	n = table_impl(table)->to_act(table_game(table)->state, acting);
	if (n <= 0)
		die("nobody is to act at a running table");
	seat = acting[rng_below(&b->rng, (uint32_t)n)];
	n = table_impl(table)->legal(table_game(table)->state, seat, legal,
	    GAME_MAX_ACTIONS);
	if (n <= 0)
		die("no legal action for the seat to act");
	commands_for_action(table_impl(table),
	    &legal[rng_below(&b->rng, (uint32_t)n)], cmd,
	    sizeof(cmd));
	snprintf(user, sizeof(user), "%s", table_seat(table, seat)->user_id);
	channel_of(i, channel, sizeof(channel));
	before = table_game(table)->nactions;
	if (phase == PHASE_BID_SIMULTANEOUS || phase == PHASE_SELECT) {
		say(b, t, NULL, user, cmd);
		add(&private->wall, t->wall.us[t->wall.n - 1]);
		add(&private->cpu, t->cpu.us[t->cpu.n - 1]);
	} else {
		snprintf(line, sizeof(line), "!%s", cmd);
		say(b, t, channel, user, line);
	}
	/* The table may be gone (the game ended) after the command. */
	table = table_at(b, i);
	return table == NULL || table_game(table) == NULL ||
	    table_game(table)->nactions > before ? 0 : -1;
}

static struct bot *
make_bot(struct bench *b)
{
	struct bot_settings settings;
	struct config_channel defaults;
	char err[256];
	struct bot *bot;

	memset(&settings, 0, sizeof(settings));
	settings.seed = b->seed;
	settings.lobby_idle = 86400;
	/*
	 * Thousands of people open tables at once: the network-wide command
	 * allowance would refuse them (each person's own never bites here).
	 */
	settings.command_burst = -1;
	bot = bot_create(b->loop, b->store, &settings, err, sizeof(err));
	if (bot == NULL)
		die(err);
	memset(&defaults, 0, sizeof(defaults));
	defaults.prefixes = "!";
	defaults.turn_timer = 0;
	defaults.game = "wizard";
	b->adapter = bot_add_adapter(bot, &memory_adapter, "bench", NULL,
	    &defaults, err, sizeof(err));
	if (b->adapter == NULL)
		die(err);
	memory_keep(b->adapter, 0);
	return bot;
}

static void
open_store(struct bench *b)
{
	char err[512];

	if ((b->store = store_open(b->path, err, sizeof(err))) == NULL)
		die(err);
}

static void
remove_store(struct bench *b)
{
	char side[300];

	if (!b->own_store)
		return;
	unlink(b->path);
	snprintf(side, sizeof(side), "%s-wal", b->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", b->path);
	unlink(side);
	/* The directory made for it. */
	if (strrchr(b->path, '/') != NULL) {
		*strrchr(b->path, '/') = '\0';
		rmdir(b->path);
	}
}

static void
print_times(const char *what, const char *clock, struct times *t)
{
	double sum = 0;

	if (t->n == 0)
		return;
	qsort(t->us, (size_t)t->n, sizeof(*t->us), compare);
	for (long i = 0; i < t->n; i++)
		sum += t->us[i];
	printf("%-14s %-4s %6ld commands  mean %7.1f us  p50 %7.1f us  "
	    "p99 %7.1f us  max %8.1f us\n", what, clock, t->n,
	    sum / (double)t->n, percentile(t, 0.5), percentile(t, 0.99),
	    t->us[t->n - 1]);
}

static void
print_latency(const char *what, struct latency *t)
{
	print_times(what, "wall", &t->wall);
	print_times("", "cpu", &t->cpu);
}

static void
free_latency(struct latency *t)
{
	free(t->wall.us);
	free(t->cpu.us);
	free(t->allocs.us);
}

#ifdef COUNTING
/* Heap allocations per command: mean and percentiles. */
static double
print_allocs(const char *what, struct times *t)
{
	double sum = 0;

	if (t->n == 0)
		return 0;
	for (long i = 0; i < t->n; i++)
		sum += t->us[i];
	qsort(t->us, (size_t)t->n, sizeof(*t->us), compare);
	printf("%-16s allocations: mean %.1f, p50 %.0f, p99 %.0f, max %.0f\n",
	    what, sum / (double)t->n, percentile(t, 0.50),
	    percentile(t, 0.99), t->us[t->n - 1]);
	return sum / (double)t->n;
}
#endif

static int
parse_args(struct bench *b, int argc, char **argv)
{
	/* Flags come in pairs: the name, then its value. */
	for (int i = 1; i < argc; i += 2) {
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (value == NULL)
			return -1;
		if (strcmp(argv[i], "--tables") == 0)
			b->ntables = (int)strtol(value, &end, 10);
		else if (strcmp(argv[i], "--moves") == 0)
			b->moves = (int)strtol(value, &end, 10);
		else if (strcmp(argv[i], "--seed") == 0)
			b->seed = strtoull(value, &end, 10);
		else if (strcmp(argv[i], "--store") == 0) {
			b->store_path = value;
			end = (char *)value + strlen(value);
		} else
			return -1;
		if (*end != '\0')
			return -1;
	}
	return b->ntables > 0 && b->moves >= 0 && b->seed > 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct bench b;
	struct latency lobby, start, moves, private;
	double rss_base, rss_idle, rss_games, t0, restore_s = 0, peak;
	double allocs_per_move = -1;
	long refused = 0;
	int restored = -1;

	memset(&b, 0, sizeof(b));
	memset(&lobby, 0, sizeof(lobby));
	memset(&start, 0, sizeof(start));
	memset(&moves, 0, sizeof(moves));
	memset(&private, 0, sizeof(private));
	b.ntables = 10000;
	b.moves = 5;
	b.seed = 1;
	if (parse_args(&b, argc, argv) != 0) {
		fprintf(stderr, "usage: bench_core [--tables N] [--moves M] "
		    "[--store PATH] [--seed S]\n");
		return 2;
	}
	log_setup(LOG_LEVEL_WARN, 0);
	if (b.store_path != NULL) {
		snprintf(b.path, sizeof(b.path), "%s", b.store_path);
	} else {
		const char *tmp = getenv("TMPDIR");
		char dir[200];

		snprintf(dir, sizeof(dir), "%s/bench_core_XXXXXX",
		    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
		if (mkdtemp(dir) == NULL)
			die("cannot make a directory for the store");
		snprintf(b.path, sizeof(b.path), "%s/store.db", dir);
		b.own_store = 1;
	}
	rng_seed(&b.rng, b.seed);
	if ((b.loop = loop_create(1)) == NULL)
		die("out of memory");
	open_store(&b);
	b.bot = make_bot(&b);
	if (bot_start(b.bot) != 0)
		die("the adapter did not start");
	printf("bench_core: %d tables of 3 people (Wizard, BirdHead, "
	    "Sticheln in turn), store %s\n", b.ntables, b.path);

	rss_base = rss_kib();
	for (int i = 0; i < b.ntables; i++)
		open_lobby(&b, i, &lobby);
	rss_idle = rss_kib();
	if (bot_table_count(b.bot) != (size_t)b.ntables)
		die("not every lobby opened");
	for (int i = 0; i < b.ntables; i++)
		start_game(&b, i, &start);
	rss_games = rss_kib();
	peak = rss_games;
	for (int m = 0; m < b.moves; m++)
		for (int i = 0; i < b.ntables; i++)
			if (move(&b, i, &moves, &private) != 0)
				refused++;

	print_latency("lobby commands", &lobby);
	print_latency("!start", &start);
	print_latency("moves", &moves);
	print_latency("private moves", &private);
	printf("refused moves    %ld (expected 0)\n", refused);
#ifdef COUNTING
	allocs_per_move = print_allocs("moves", &moves.allocs);
#endif
	printf("RSS              %.1f MiB before the tables, %.1f MiB with "
	    "idle lobbies, %.1f MiB with running games\n", rss_base / 1024,
	    rss_idle / 1024, rss_games / 1024);
	printf("per table        %.1f KiB idle lobby, %.1f KiB running game "
	    "(growth over the base / N)\n",
	    (rss_idle - rss_base) / b.ntables,
	    (rss_games - rss_base) / b.ntables);

	/* The crash: no goodbye, no flush beyond what each command stored. */
	bot_stop(b.bot, NULL);
	bot_destroy(b.bot);
	store_close(b.store);
	if (strcmp(b.path, ":memory:") != 0) {
		open_store(&b);
		b.bot = make_bot(&b);
		t0 = now_us();
		restored = bot_restore(b.bot);
		restore_s = (now_us() - t0) / 1e6;
		printf("restore          %d unfinished games in %.3f s "
		    "(%.1f us per game)\n", restored, restore_s,
		    restored > 0 ? restore_s * 1e6 / restored : 0.0);
		bot_stop(b.bot, NULL);
		bot_destroy(b.bot);
		store_close(b.store);
	} else {
		printf("restore          skipped (an in-memory store)\n");
	}
	/* ru_maxrss may lag behind statm by a few pages. */
	if (peak_kib() > peak)
		peak = peak_kib();
	printf("peak RSS         %.1f MiB (ru_maxrss)\n", peak / 1024);
	printf("targets          p99 < 1 ms: %s; idle table < 20 KB: %s; "
	    "allocations per move <= 20: %s; restore of 10,000 < 2 s: %s\n",
	    moves.wall.n > 0 && percentile(&moves.wall, 0.99) < 1000 ? "met" :
	    "MISSED",
	    (rss_idle - rss_base) / b.ntables * 1024 < 20000 ? "met" :
	    "MISSED",
	    allocs_per_move < 0 ? "n/a (not counted here)" :
	    allocs_per_move <= 20 ? "met" : "MISSED",
	    restored < 0 || b.ntables != 10000 ? "n/a (needs --tables 10000)" :
	    restore_s < 2 ? "met" : "MISSED");
	loop_destroy(b.loop);
	remove_store(&b);
	free_latency(&lobby);
	free_latency(&start);
	free_latency(&moves);
	free_latency(&private);
	if (restored >= 0 && restored != b.ntables) {
		fprintf(stderr, "bench_core: %d of %d games restored\n",
		    restored, b.ntables);
		return 1;
	}
	return refused > 0 ? 1 : 0;
}

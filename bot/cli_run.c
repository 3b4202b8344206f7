/*
 * cli_run.c - `stichbot run`: the bot itself, as a systemd service
 * (Type=notify) or in a terminal.
 *
 * A reload checks the new file completely (every adapter's keys and
 * secrets too) before the bot sees it, so a broken file changes nothing.
 *
 * Signals arrive through a self-pipe watched by the event loop: a handler
 * only writes the signal's number, and the loop does the work between two
 * events, where the bot's state is consistent.
 *   SIGHUP           reloads the configuration; a broken file is logged
 *                    and the running configuration stays;
 *   SIGTERM, SIGINT  say goodbye where games run, stop, exit 0.
 * With a watchdog (WatchdogSec=), keep-alives go out from a loop timer at
 * half the interval, so a loop that hangs gets the service restarted.
 *
 * One process per store: the store is opened with store_open_locked()
 * before any adapter exists, so a second `stichbot run` on the same store
 * exits 1 naming the holder's pid without saying anything anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot.h"
#include "cli.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "notify.h"
#include "store.h"

#define GOODBYE "stichbot is restarting; games will resume."
/*
 * How often the store's files are checked while nobody writes, so that a
 * store deleted or replaced under an idle bot is logged within seconds
 * (every write checks as well).
 */
#define STORE_CHECK_MS 10000

struct run {
	const char *file;        /* the configuration file, for reloads */
	int log_level;           /* from --log-level, or -1 */
	struct config *config;   /* owned: the configuration in use */
	struct loop *loop;
	struct store *store;
	struct bot *bot;
	uint64_t watchdog_ms;    /* keep-alive period; 0: no watchdog */
	int started;             /* bot_start() was called */
	int stopping;
	uint64_t backlog_until;  /* a clean stop lets the tables' lines go */
	uint64_t drain_until;    /* a clean stop waits for its goodbyes */
	int goodbye_queued;
	/* The counts the service manager last heard (report_status()). */
	size_t told_tables, told_games;
	int told;
};

/* The self-pipe: [0] read by the loop, [1] written by the handler. */
static int signal_pipe[2] = { -1, -1 };

static void
on_signal_caught(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	/* A full pipe already holds a wake-up; losing this byte is fine. */
	if (write(signal_pipe[1], &b, 1) < 0)
		(void)0;
	errno = saved;
}

static int
signals_setup(void)
{
	struct sigaction sa;

	if (pipe(signal_pipe) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC) != 0 ||
		    fcntl(signal_pipe[i], F_SETFL, O_NONBLOCK) != 0)
			return -1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_signal_caught;
	if (sigaction(SIGHUP, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGINT, &sa, NULL) != 0)
		return -1;
	/* A peer that goes away must be an error return, not a death. */
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}

static void
signals_restore(void)
{
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	for (int i = 0; i < 2; i++)
		if (signal_pipe[i] >= 0) {
			close(signal_pipe[i]);
			signal_pipe[i] = -1;
		}
}

/* The level to log at: --log-level wins over the configuration. */
static void
apply_log_level(const struct run *run, const struct config *config)
{
	int level = run->log_level;

	if (level < 0)
		level = log_level_parse(config->log_level);
	log_setup(level < 0 ? LOG_LEVEL_INFO : (enum log_level)level, -1);
}

/*
 * Tells the service manager how many tables and games there are, when
 * that changed: the watchdog's timer asks every few seconds, and the
 * manager keeps the last status anyway.
 */
static void
report_status(struct run *run)
{
	size_t tables = bot_table_count(run->bot);
	size_t games = bot_game_count(run->bot);

	if (run->told && tables == run->told_tables &&
	    games == run->told_games)
		return;
	if (notify_status("%zu tables, %zu games running", tables,
	    games) < 0) {
		log_debug("cannot send the status to the service manager: %s",
		    strerror(errno));
		return;
	}
	run->told = 1;
	run->told_tables = tables;
	run->told_games = games;
}

/* Settings fixed at start-up: a reload that changes them needs a restart. */
static void
warn_fixed(const struct config *old, const struct config *new)
{
	if (strcmp(old->store_path, new->store_path) != 0)
		log_warn("reload: store changes only on a restart");
	if (strcmp(old->computer_level, new->computer_level) != 0 ||
	    old->ai_budget_ms != new->ai_budget_ms ||
	    old->computer_delay_ms != new->computer_delay_ms ||
	    old->lobby_idle != new->lobby_idle || old->grace != new->grace ||
	    old->user_burst != new->user_burst ||
	    old->user_interval_ms != new->user_interval_ms)
		log_warn("reload: computer, lobby_idle, grace and user_flood "
		    "change only on a restart");
}

static int
reload(struct run *run, char *why, size_t whylen)
{
	struct config *config;
	char err[1024];
	int rc = -1;

	if (notify_reloading() < 0)
		log_warn("cannot tell the service manager about the reload: "
		    "%s", strerror(errno));
	log_info("reloading %s", run->file);
	if ((config = config_load(run->file, err, sizeof(err))) == NULL) {
		log_error("reload failed, keeping the running configuration: "
		    "%s", err);
		snprintf(why, whylen, "%s", err);
	} else if (cli_check_adapters(config, err, sizeof(err)) != 0 ||
	    bot_configure(run->bot, config, err, sizeof(err)) != 0) {
		log_error("reload failed, keeping the running configuration: "
		    "%s: %s", run->file, err);
		snprintf(why, whylen, "%s", err);
		config_destroy(config);
	} else {
		warn_fixed(run->config, config);
		apply_log_level(run, config);
		config_destroy(run->config);
		run->config = config;
		log_info("reloaded %s: %zu network%s", run->file,
		    config->nnetworks, config->nnetworks == 1 ? "" : "s");
		rc = 0;
	}
	notify_ready();
	report_status(run);
	return rc;
}

/* `!admin reload` in a channel: the same as SIGHUP, with the answer. */
static int
admin_reload(void *arg, char *err, size_t errlen)
{
	return reload(arg, err, errlen);
}


/*
 * A clean stop first lets the tables' lines leave for BACKLOG_MS: a short
 * backlog is said before the goodbye, as people expect.  What a slow pace
 * still holds back then is withheld for the next start, and the goodbye
 * goes as soon as the messages already begun are finished (a score sheet
 * of five lines at one line in two seconds takes ten; cut, the restart
 * would say its first lines again), DRAIN_MS after the stop at most.
 * With the adapters' own flush and confirmation it stays well within
 * systemd's TimeoutStopSec=30s.
 */
#define BACKLOG_MS 5000
#define DRAIN_MS 20000
#define DRAIN_STEP_MS 50

static void
on_stopped(struct loop *loop, uint64_t id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(loop);
}

static void
stop_now(struct run *run)
{
	bot_stop(run->bot, GOODBYE);
	/*
	 * The loop ends after the timers already due: an adapter reports
	 * the lines its stop confirmed from a zero-delay timer of its own
	 * (never from inside bot_stop()), and those reports must reach the
	 * store before it closes.  Timers due together run in the order
	 * they were set.
	 */
	loop_timer(run->loop, 0, on_stopped, run);
}

/*
 * The backlog leaves, or is withheld, then the goodbyes leave at the pace
 * of each network; then the adapters go.
 */
static void
on_drain(struct loop *loop, uint64_t id, void *arg)
{
	struct run *run = arg;
	uint64_t now = loop_now(loop);
	size_t depth = bot_queue_depth(run->bot);

	(void)id;
	if (!run->goodbye_queued && (depth == 0 || now >= run->backlog_until)) {
		bot_say_goodbye(run->bot, depth > 0);
		run->goodbye_queued = 1;
	} else if (run->goodbye_queued &&
	    (depth == 0 || now >= run->drain_until)) {
		stop_now(run);
		return;
	}
	loop_timer(loop, DRAIN_STEP_MS, on_drain, run);
}

static void
stop(struct run *run)
{
	if (run->stopping) {
		/* A second signal: no more waiting. */
		stop_now(run);
		return;
	}
	run->stopping = 1;
	log_info("stopping");
	notify_stopping();
	bot_hold(run->bot);
	run->backlog_until = loop_now(run->loop) + BACKLOG_MS;
	run->drain_until = loop_now(run->loop) + DRAIN_MS;
	loop_timer(run->loop, 0, on_drain, run);
}

static void
on_signal(struct loop *loop, int fd, int events, void *arg)
{
	struct run *run = arg;
	unsigned char buf[64];
	ssize_t n;
	int hup = 0, term = 0;

	(void)loop;
	(void)events;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == SIGHUP)
				hup = 1;
			else
				term = 1;
		}
	/* Several HUPs at once are one reload; a stop wins over reloads. */
	if (term)
		stop(run);
	else if (hup && !run->stopping) {
		char why[1024];

		reload(run, why, sizeof(why));
	}
}

static void
on_watchdog(struct loop *loop, uint64_t id, void *arg)
{
	struct run *run = arg;

	(void)id;
	if (notify_watchdog() < 0)
		log_warn("cannot send a watchdog keep-alive: %s",
		    strerror(errno));
	report_status(run);
	loop_timer(loop, run->watchdog_ms, on_watchdog, run);
}

/*
 * Checks the store's files; store.c logs a failure once, and the timer
 * stops then, since a failed store stays failed until a restart.
 */
static void
on_store_check(struct loop *loop, uint64_t id, void *arg)
{
	struct run *run = arg;

	(void)id;
	if (store_check(run->store) == 0)
		loop_timer(loop, STORE_CHECK_MS, on_store_check, run);
	else
		(void)bot_check_store(run->bot);
}

/* Parses the arguments into run; returns -1 (exit 2), 1 (--help) or 0. */
static int
parse_args(const struct cli_command *cmd, struct run *run, int argc,
    char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case 'c':
			run->file = optarg;
			break;
		case 'l':
			if ((run->log_level = log_level_parse(optarg)) < 0) {
				cli_error(cmd, "--log-level takes error, warn, "
				    "info or debug");
				return -1;
			}
			break;
		case 'h':
			cli_usage(cmd, stdout);
			return 1;
		default:
			return -1;
		}
	}
	if (optind < argc) {
		cli_error(cmd, "unknown argument \"%s\"", argv[optind]);
		return -1;
	}
	if (run->file == NULL) {
		cli_error(cmd, "--config FILE is required");
		return -1;
	}
	return 0;
}

/* Builds the bot and starts it; -1 with the reason logged. */
static int
start(struct run *run)
{
	struct bot_settings settings;
	char err[1024];
	int restored, fresh;

	run->loop = loop_create(0);
	/*
	 * A store that was there before and is gone (deleted, a wrong path
	 * after a move) loses every game: the operator must hear of it.
	 */
	fresh = strcmp(run->config->store_path, ":memory:") != 0 &&
	    access(run->config->store_path, F_OK) != 0 && errno == ENOENT;
	if ((run->store = store_open_locked(run->config->store_path, err,
	    sizeof(err))) == NULL) {
		log_error("%s", err);
		return -1;
	}
	if (fresh)
		log_warn("store: %s did not exist: a new, empty store was made "
		    "(no game to resume; right on a first start)",
		    run->config->store_path);
	/* Legitimate for tests; a service on it forgets all at each stop. */
	if (strcmp(run->config->store_path, ":memory:") == 0)
		log_warn("store \":memory:\" keeps nothing: every game, lobby "
		    "and statistic is lost when the bot stops (meant for "
		    "tests)");
	memset(&settings, 0, sizeof(settings));
	settings.computer_level = run->config->computer_level;
	settings.ai_budget_ms = run->config->ai_budget_ms;
	/* 0 in the file means at once; the bot takes 0 as "the default". */
	settings.computer_delay_ms = run->config->computer_delay_ms > 0 ?
	    run->config->computer_delay_ms : 1;
	settings.lobby_idle = run->config->lobby_idle;
	/* 0 in the file means at once, which the bot takes as a negative. */
	settings.grace = run->config->grace > 0 ? run->config->grace : -1;
	settings.command_burst = run->config->user_interval_ms > 0 ?
	    run->config->user_burst : -1;
	settings.command_interval_ms = run->config->user_interval_ms;
	settings.network_burst = run->config->network_interval_ms > 0 ?
	    run->config->network_burst : -1;
	settings.network_interval_ms = run->config->network_interval_ms;
	if ((run->bot = bot_create(run->loop, run->store, &settings, err,
	    sizeof(err))) == NULL) {
		log_error("%s", err);
		return -1;
	}
	bot_set_reload(run->bot, admin_reload, run);
	/* Adapter errors are JSON paths: name the file, as check-config. */
	if (bot_configure(run->bot, run->config, err, sizeof(err)) != 0) {
		log_error("%s: %s", run->file, err);
		return -1;
	}
	if ((restored = bot_restore(run->bot)) < 0) {
		log_error("cannot restore the unfinished games of %s",
		    run->config->store_path);
		return -1;
	}
	if (signals_setup() != 0 || loop_watch(run->loop, signal_pipe[0],
	    LOOP_READ, on_signal, run) != 0) {
		log_error("cannot set up signal handling: %s",
		    strerror(errno));
		return -1;
	}
	run->started = 1;
	if (bot_start(run->bot) != 0) {
		log_error("cannot start the adapters");
		return -1;
	}
	loop_timer(run->loop, STORE_CHECK_MS, on_store_check, run);
	if ((run->watchdog_ms = notify_watchdog_interval_ms()) > 0) {
		run->watchdog_ms = run->watchdog_ms > 1 ?
		    run->watchdog_ms / 2 : 1;
		loop_timer(run->loop, run->watchdog_ms, on_watchdog, run);
	}
	log_info("started: %zu network%s, %d unfinished game%s restored",
	    run->config->nnetworks, run->config->nnetworks == 1 ? "" : "s",
	    restored, restored == 1 ? "" : "s");
	if (notify_ready() < 0)
		log_warn("cannot tell the service manager we are ready: %s",
		    strerror(errno));
	report_status(run);
	return 0;
}

static int
run_main(const struct cli_command *cmd, int argc, char **argv)
{
	struct run run;
	char err[1024];
	int rc, status = 0;

	memset(&run, 0, sizeof(run));
	run.log_level = -1;
	if ((rc = parse_args(cmd, &run, argc, argv)) != 0)
		return rc > 0 ? 0 : 2;
	if ((run.config = config_load(run.file, err, sizeof(err))) == NULL) {
		cli_error(cmd, "%s", err);
		return 1;
	}
	apply_log_level(&run, run.config);
	/*
	 * Every network's keys are checked before the store is opened: a
	 * configuration refused must not leave a new, empty store behind
	 * (nor log that one was made).
	 */
	if (cli_check_adapters(run.config, err, sizeof(err)) != 0) {
		log_error("%s: %s", run.file, err);
		status = 1;
	} else if (start(&run) != 0)
		status = 1;
	else if (loop_run(run.loop) != 0) {
		log_error("the event loop failed: %s", strerror(errno));
		status = 1;
	}
	/* Adapters that may be connected are stopped before they are freed. */
	if (run.started && !run.stopping) {
		notify_stopping();
		bot_stop(run.bot, status == 0 ? GOODBYE : NULL);
	}
	bot_destroy(run.bot);
	/* Its last writes (sent rows, the WAL folded back) may still fail. */
	store_close(run.store);
	if (status == 0)
		log_info("stopped");
	signals_restore();
	loop_destroy(run.loop);
	config_destroy(run.config);
	return status;
}

const struct cli_command cli_run_command = {
	.name = "run",
	.usage = "stichbot run --config FILE [--log-level LEVEL]",
	.summary = "run the bot (the service) with a configuration",
	.help = "Runs the bot: connects to every network of the configuration "
	    "and hosts\ngames until SIGTERM or SIGINT.  SIGHUP reloads the "
	    "configuration.\n\n"
	    "  --config FILE      the configuration, required (see "
	    "stichbot(1) and\n"
	    "                     stichbot.example.json)\n"
	    "  --log-level LEVEL  error, warn, info or debug (default: the\n"
	    "                     configuration's log_level, else info)\n"
	    "  -h, --help         this help\n\n"
	    "Exit status: 0 after a clean stop, 1 when the bot cannot start, "
	    "2 for a\nwrong argument.\n",
	.run = run_main,
};

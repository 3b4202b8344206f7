#!/usr/bin/env python3
"""bench_fair.py - one real table while others try to crowd it out.

    bench_fair.py --stichbot PATH [--baseline PATH] [--seconds 40]
                  [--warmup 10] [--flooders 20] [--think-ms 1000]
                  [--seed 1] [--json]

The setting of bench_irc.py (ngircd on 127.0.0.1 with its default flood
penalties, the bot at its default pace for ngircd and its default command
allowances), with one real table: ann, ben and cat play Wizard in #real,
answering the bot's private prompts after a think time.  The same run is
done twice, quiet and crowded:

  - quiet: nothing else happens;
  - crowded: dan opens a computers-only table in #cpu (!join, !addbot
    twice, !start, !leave), and --flooders people (in no channel) each
    send the bot a private `help` every second, each within the
    per-person allowance (user_flood).

Measured in each: for every play sent in the measuring window, the time
until #real announces it (p50, p99), and the lines the bot logged as
dropped.  The goal (issue 15): the crowded p99 within twice the quiet
one, and no line of the real table dropped.  --baseline runs another
build the same way first (e.g. before a change), so both are measured
on the same machine in the same minutes.

Standard library only; everything on 127.0.0.1.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
import bench_irc  # noqa: E402
import irc_util  # noqa: E402

REAL = "#real"
CPU = "#cpu"


class Fair(bench_irc.Bench):
    """bench_irc's people and bookkeeping, with a real table and a crowd."""

    def __init__(self, args, tmp, crowded, stichbot):
        args.channels = 2
        args.active = 1
        super().__init__(args, tmp)
        self.channels = [REAL, CPU]
        self.active = [REAL]
        self.crowded = crowded
        self.stichbot = stichbot
        self.flooders = []

    def start_bot(self):
        config = {
            "store": os.path.join(self.tmp, "stichbot.db"),
            "log_level": "info",
            # The defaults: each person's allowance and the network's.
            "networks": [{
                "name": "bench", "type": "irc", "host": "127.0.0.1",
                "port": self.ircd.port, "tls": False,
                "nick": bench_irc.BOT,
                "defaults": {"game": "wizard", "turn_timer": 0},
                "channels": self.channels,
            }],
        }
        path = os.path.join(self.tmp, "stichbot.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.log = open(self.log_path, "ab")
        self.bot = subprocess.Popen([self.stichbot, "run", "--config",
                                     path], stdout=subprocess.DEVNULL,
                                    stderr=self.log)

    def flood(self, person):
        """One private help a second, for as long as the run lasts."""
        person.raw("PRIVMSG %s :help" % bench_irc.BOT)
        self.later(1.0, self.flood, person)

    def run(self):
        a = self.args
        names = ["ann", "ben", "cat"]
        if self.crowded:
            names.append("dan")
        self.people = [bench_irc.Person(self, n) for n in names]
        if self.crowded:
            self.flooders = [bench_irc.Person(self, "fl%02d" % i)
                             for i in range(a.flooders)]
            self.people += self.flooders
        self.wait(lambda: all(p.registered for p in self.people), 60,
                  "everyone connected")
        for p in self.people[:3]:
            p.join([REAL])
        if self.crowded:
            self.people[3].join([CPU])
        self.wait(lambda: all(REAL in p.joined for p in self.people[:3]),
                  30, "the players in #real")
        self.start_bot()
        self.wait(lambda: REAL in self.bot_in, 60, "the bot in #real")
        ann = self.people[0]
        for p in self.people[:3]:
            p.raw("PRIVMSG %s :!join" % REAL)
            self.wait(lambda: p.nick in self.seated.get(REAL, ()), 60,
                      "%s seated" % p.nick)
        ann.raw("PRIVMSG %s :!start" % REAL)
        self.wait(lambda: REAL in self.started, 60, "the game in #real")
        if self.crowded:
            dan = self.people[3]
            for line in ("!join", "!addbot", "!addbot", "!start", "!leave"):
                dan.raw("PRIVMSG %s :%s" % (CPU, line))
            rng = random.Random(a.seed)
            for f in self.flooders:
                self.later(rng.uniform(0, 1), self.flood, f)
        t0 = time.monotonic()
        self.wait(lambda: time.monotonic() - t0 >= a.warmup, a.warmup + 5,
                  "the end of the warm-up")
        self.measuring = True
        t0 = time.monotonic()
        self.wait(lambda: time.monotonic() - t0 >= a.seconds or
                  REAL in self.over, a.seconds + 5,
                  "the end of the measurement")
        self.measuring = False
        # The plays sent in the window are announced eventually.
        self.wait(lambda: not any(v[2] for v in self.pending.values()),
                  600, "the announcements of the last plays")
        lat = self.latencies
        self.bot.send_signal(signal.SIGTERM)
        exit_status = self.bot.wait(60)
        self.log.close()
        with open(self.log_path, errors="replace") as f:
            log = f.read()
        return {
            "crowded": self.crowded, "plays": len(lat),
            "p50_s": bench_irc.percentile(lat, 50),
            "p99_s": bench_irc.percentile(lat, 99),
            "max_s": max(lat) if lat else float("nan"),
            "dropped_log_lines": len([l for l in log.splitlines()
                                      if "dropping" in l]),
            "refusals": len(self.refusals), "exit": exit_status,
        }


def one_run(args, crowded, stichbot):
    tmp = tempfile.mkdtemp(prefix="bench-fair-")
    os.chmod(tmp, 0o755)
    bench = None
    try:
        bench = Fair(args, tmp, crowded, stichbot)
        return bench.run()
    finally:
        if bench is not None:
            if bench.bot is not None and bench.bot.poll() is None:
                bench.bot.kill()
                bench.bot.wait()
            bench.ircd.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stichbot", required=True)
    ap.add_argument("--baseline", help="another stichbot, measured first")
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--flooders", type=int, default=20)
    ap.add_argument("--think-ms", type=int, default=1000)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.stichbot = os.path.abspath(args.stichbot)
    # What bench_irc.Bench reads of its arguments.
    args.no_penalty = False
    args.default_pace = True
    args.burst = args.interval_ms = 0
    if shutil.which("ngircd") is None:
        print("ngircd is not installed")
        return 77
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    builds = [("new", args.stichbot)]
    if args.baseline:
        builds.insert(0, ("baseline", os.path.abspath(args.baseline)))
    results = {}
    status = 0
    for name, path in builds:
        quiet = one_run(args, False, path)
        crowded = one_run(args, True, path)
        ratio = crowded["p99_s"] / quiet["p99_s"] if quiet["p99_s"] > 0 \
            else float("nan")
        results[name] = {"quiet": quiet, "crowded": crowded,
                         "p99_ratio": ratio}
        if quiet["exit"] != 0 or crowded["exit"] != 0:
            status = 1
    for name, _ in builds:
        r = results[name]
        for run in (r["quiet"], r["crowded"]):
            print("%-8s %-8s plays %3d  play -> announcement p50 %.2f s  "
                  "p99 %.2f s  max %.2f s  dropping lines in the log %d  "
                  "refused %d" % (
                      name, "crowded" if run["crowded"] else "quiet",
                      run["plays"], run["p50_s"], run["p99_s"],
                      run["max_s"], run["dropped_log_lines"],
                      run["refusals"]))
        print("%-8s crowded p99 / quiet p99: %.2f (goal: at most 2)" % (
            name, r["p99_ratio"]))
    if args.json:
        print(json.dumps(results))
    return status


if __name__ == "__main__":
    sys.exit(main())

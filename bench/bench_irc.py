#!/usr/bin/env python3
"""bench_irc.py - one bot connection, hundreds of channels, against ngircd.

    bench_irc.py --stichbot PATH [--channels 500] [--active 50]
                 [--seconds 120] [--warmup 30] [--burst 4]
                 [--interval-ms 400] [--default-pace] [--think-ms 1000]
                 [--no-penalty] [--seed 1] [--json]
                 [--again] [--rss-every SECONDS]

ngircd runs on 127.0.0.1 with its limits raised so that everything fits
(MaxJoins, MaxConnections, MaxConnectionsIP) and, unless --no-penalty, its
default flood penalties for ordinary clients: about three lines a second
are processed, the rest waits.  `stichbot run` is configured with
--channels channels on one IRC network (one connection) and the given
flood settings (with --default-pace none: the adapter's default for the
server, see README).

Three scripted people (raw sockets; IRC operators with user mode +F, so
that ngircd does not throttle them) drive it:
  1. ann joins every channel and says !join in each: a table in every
     channel (the bot answers each);
  2. in --active of them ben and cat join too and ann says !start: Wizard
     games, standard rules;
  3. everyone acts after a think time (uniform around --think-ms) when
     the bot names them in the channel ("ben to play · lead r") or in the
     hand that comes privately with each deal, choosing among the plays
     the rules allow from the hand they were dealt less what the channel
     says they played; after --warmup seconds of that, plays are measured
     for --seconds.
With --again, a game that ends is followed by another in its channel
(all three !join, ann !start), so --seconds can be a soak of hours;
--rss-every samples the bot's resident set and open descriptors that
often while measuring, to show whether memory grows with the games
played.

Measured: how long the bot took to join every channel and to open every
table, and for each play command sent during step 3, the time until the
channel announces that play ("ann r7 · ben to play").  Also: lines the
bot sent per second, and whether the bot was ever disconnected (its log,
ngircd's log).

Prints one human-readable report and, with --json, a JSON object.
Standard library only; everything on 127.0.0.1.
"""

import argparse
import heapq
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
import irc_util  # noqa: E402
from bot_lines import (HAND_RE, played_by, plays_from_hint,  # noqa: E402
                       turn_in)
from irc_util import plain, split_line  # noqa: E402

BOT = "stichbot"
OPER = ("bench", "bench-oper-pw")
PLAY_RE = re.compile(r"^(\S+) (\S+)(?: ·|$)")


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


class Round:
    def __init__(self, number):
        self.number = number
        self.dealt = None
        self.hand = None         # the hand dealt (codes)
        self.announced = []      # our cards the channel said we played
        self.acted = set()       # len(announced) at each play we made
        self.played = 0
        self.bid = None
        self.trump = None


class Person:
    """A raw-socket client that acts on the bot's private prompts."""

    def __init__(self, bench, nick):
        self.bench = bench
        self.nick = nick
        self.rng = random.Random("%s-%s" % (bench.args.seed, nick))
        self.sock = socket.create_connection(("127.0.0.1",
                                              bench.ircd.port), 5)
        self.sock.setblocking(False)
        self.buf = b""
        self.out = b""
        self.registered = False
        self.oper = False
        self.joined = set()
        self.rounds = {}         # channel -> Round
        self.raw("NICK %s" % nick)
        self.raw("USER %s 0 * :bench %s" % (nick, nick))

    def raw(self, line):
        self.out += line.encode() + b"\r\n"
        self.flush()

    def flush(self):
        while self.out:
            try:
                n = self.sock.send(self.out)
            except BlockingIOError:
                return
            self.out = self.out[n:]

    def join(self, channels):
        line = []
        for c in channels:
            if sum(len(x) + 1 for x in line) + len(c) > 400:
                self.raw("JOIN %s" % ",".join(line))
                line = []
            line.append(c)
        if line:
            self.raw("JOIN %s" % ",".join(line))

    def readable(self):
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return
        if not data:
            raise RuntimeError("%s: ngircd closed the connection" %
                               self.nick)
        self.buf += data
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            self.line(raw.rstrip(b"\r").decode("utf-8", "replace"))

    def line(self, line):
        b = self.bench
        nick, command, params = split_line(line)
        if command == "PING":
            self.raw("PONG :%s" % (params[-1] if params else ""))
        elif command == "001":
            self.registered = True
            self.raw("OPER %s %s" % OPER)
        elif command == "381":
            self.raw("MODE %s +F" % self.nick)
        elif command == "MODE" and params[:1] == [self.nick] and \
                "F" in params[-1]:
            self.oper = True
        elif command == "JOIN" and params:
            if nick == self.nick:
                self.joined.add(params[0].lower())
            elif nick == BOT and self is b.people[0]:
                b.bot_in.add(params[0].lower())
        elif command == "353" and len(params) >= 4 and \
                self is b.people[0] and \
                BOT in [n.lstrip("@+") for n in params[3].split()]:
            b.bot_in.add(params[2].lower())
        elif command in ("PRIVMSG", "NOTICE") and nick == BOT and \
                len(params) == 2:
            b.bot_lines += 1
            target, text = params[0], plain(params[1])
            if target.startswith("#"):
                if self is b.people[0]:
                    b.channel_line(target.lower(), text)
                else:
                    b.bot_lines -= 1     # counted once, by ann
                self.channel_turn(target.lower(), text)
            else:
                self.prompt(text)

    def prompt(self, text):
        m = HAND_RE.match(text)
        if m is None:
            if "not your turn" in text or "is not" in text:
                self.bench.refusals.append((self.nick, text))
            return
        channel = m.group("label").lower()
        number = int(m.group("round"))
        parts = m.group("rest").split(" · ")
        hand = [] if parts[0] == "(no cards)" else parts[0].split()
        rnd = self.rounds.get(channel)
        if rnd is None or number > rnd.number:
            rnd = self.rounds[channel] = Round(number)
        elif number < rnd.number:
            return
        if rnd.dealt is None:
            rnd.dealt = len(hand)
            rnd.hand = list(hand)
        task = parts[-1]
        if not task.startswith("to "):
            return
        think = self.bench.args.think_ms / 1000.0 * self.rng.uniform(0.5, 1.5)
        self.bench.later(think, self.answer, channel, rnd, hand, task)

    def channel_turn(self, channel, text):
        """A channel line: what it says we played, and our turn if it
        names us (the hand dealt less our announced cards, and the public
        hint, give the plays allowed)."""
        rnd = self.rounds.get(channel)
        if rnd is None or rnd.hand is None:
            return
        rnd.announced += played_by(text, self.nick)
        found = turn_in(text, self.nick)
        if found is None:
            return
        task, hint = found
        left = list(rnd.hand)
        for c in rnd.announced:
            if c in left:
                left.remove(c)
        if task == "to bid":
            task = "to bid: " + " ".join(str(n) for n in
                                         range(rnd.dealt + 1))
        elif task == "to play":
            if len(rnd.announced) in rnd.acted:
                return
            rnd.acted.add(len(rnd.announced))
            plays = plays_from_hint("wizard", left, hint)
            if not plays:
                return
            task = "to play: " + ", ".join(" ".join(p) for p in plays)
            rnd.played = rnd.dealt - len(left)
        think = self.bench.args.think_ms / 1000.0 * self.rng.uniform(0.5, 1.5)
        self.bench.later(think, self.answer, channel, rnd, left, task)

    def answer(self, channel, rnd, hand, task):
        if self.rounds.get(channel) is not rnd:
            return
        if task.startswith("to bid"):
            if rnd.bid is not None:
                return
            rnd.bid = self.rng.choice(task.split(":")[1].split())
            self.raw("PRIVMSG %s :!bid %s" % (channel, rnd.bid))
        elif task == "to choose trump":
            if rnd.trump is not None:
                return
            rnd.trump = self.rng.choice("rygb")
            self.raw("PRIVMSG %s :!trump %s" % (channel, rnd.trump))
        elif task.startswith("to play"):
            if len(hand) != rnd.dealt - rnd.played:
                return           # sent before our last play was handled
            if ":" in task:
                card = self.rng.choice(task.split(":", 1)[1].split(","))
                card = card.strip()
            else:
                card = self.rng.choice(hand)
            rnd.played += 1
            self.raw("PRIVMSG %s :!play %s" % (channel, card))
            self.bench.played(channel, self.nick, card)


class Bench:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.channels = ["#c%03d" % i for i in range(args.channels)]
        self.active = self.channels[:args.active]
        limits = {"MaxJoins": args.channels + 10, "MaxConnections": 100,
                  "MaxConnectionsIP": 0}
        if args.no_penalty:
            limits["MaxPenaltyTime"] = 0
        self.ircd = irc_util.Ngircd(tmp, limits=limits, extra=[
            "[Operator]", "Name = %s" % OPER[0],
            "Password = %s" % OPER[1]])
        self.timers = []
        self.seq = 0
        self.bot_in = set()
        self.bot_lines = 0
        self.opened = set()      # channels whose table ann opened
        self.seated = {}         # channel -> nicks the bot seated
        self.started = set()     # active channels with a game
        self.pending = {}        # (channel, nick) -> (card, time sent)
        self.latencies = []
        self.measuring = False
        self.refusals = []
        self.over = set()
        self.restarting = set()  # --again: channels seating a new game
        self.games = 0           # --again: games started after the first
        self.samples = []        # --rss-every: (s, RSS KiB, fds)
        self.people = []
        self.bot = None
        self.log_path = os.path.join(tmp, "stichbot.log")

    # Timers and the loop.

    def sample(self, t0):
        """--rss-every: the bot's RSS and descriptors now, then again."""
        if not self.measuring or self.bot is None:
            return
        self.samples.append((round(time.monotonic() - t0),
                             rss_kib(self.bot.pid), open_fds(self.bot.pid)))
        self.later(self.args.rss_every, self.sample, t0)

    def later(self, delay, fn, *args):
        self.seq += 1
        heapq.heappush(self.timers, (time.monotonic() + delay, self.seq,
                                     fn, args))

    def restart_games(self):
        """--again: !start where the bot has seated all three again (a
        game over leaves no one seated)."""
        for c in [c for c in self.restarting
                  if {"ann", "ben", "cat"} <= self.seated.get(c, set())]:
            self.restarting.discard(c)
            self.games += 1
            self.people[0].raw("PRIVMSG %s :!start" % c)

    def pump(self, timeout=0.05):
        self.restart_games()
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, _, fn, args = heapq.heappop(self.timers)
            fn(*args)
        if self.timers:
            timeout = max(0.0, min(timeout, self.timers[0][0] - now))
        socks = {p.sock: p for p in self.people}
        wr = [p.sock for p in self.people if p.out]
        ready, writable, _ = select.select(list(socks), wr, [], timeout)
        for s in writable:
            socks[s].flush()
        for s in ready:
            socks[s].readable()
        if self.bot is not None and self.bot.poll() is not None:
            raise RuntimeError("the bot exited: %s" % self.logtail())

    def wait(self, pred, timeout, what, progress=None):
        start = time.monotonic()
        told = start
        while not pred():
            now = time.monotonic()
            if now > start + timeout:
                raise RuntimeError("timed out waiting for %s" % what)
            if progress is not None and now - told >= 30:
                told = now
                print("  ... %s after %.0f s" % (progress(), now - start))
                sys.stdout.flush()
            self.pump()

    def logtail(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-2000:]

    # What the channels say.

    def channel_line(self, channel, text):
        m = re.match(r"^(\S+) joins ", text)
        if m:
            self.seated.setdefault(channel, set()).add(m.group(1))
            if m.group(1) == "ann":
                self.opened.add(channel)
        elif text.startswith("Round 1/"):
            self.started.add(channel)
        elif text.startswith("Game over"):
            self.over.add(channel)
            if self.args.again and channel in self.active:
                # The next game: the same three, once the bot has them.
                self.seated[channel] = set()
                self.restarting.add(channel)
                for p in self.people:
                    # Its rounds count from 1 again.
                    p.rounds.pop(channel, None)
                    p.raw("PRIVMSG %s :!join" % channel)
        m = PLAY_RE.match(text)
        if m:
            key = (channel, m.group(1))
            sent = self.pending.get(key)
            if sent is not None and sent[0] == m.group(2):
                del self.pending[key]
                if sent[2]:
                    self.latencies.append(time.monotonic() - sent[1])

    def played(self, channel, nick, card):
        self.pending[(channel, nick)] = (card, time.monotonic(),
                                         self.measuring)

    # The run.

    def start_bot(self):
        config = {
            "store": os.path.join(self.tmp, "stichbot.db"),
            "log_level": os.environ.get("BENCH_LOG", "info"),
            # ann opens 500 tables and ben and cat play at 50 at once:
            # far more commands than one person types, so the per-person
            # limit is off (it is the bot's output that is measured).
            "user_flood": {"interval_ms": 0},
            "networks": [{
                "name": "bench", "type": "irc", "host": "127.0.0.1",
                "port": self.ircd.port, "tls": False, "nick": BOT,
                "defaults": {"game": "wizard", "turn_timer": 0},
                "channels": self.channels,
            }],
        }
        if not self.args.default_pace:
            config["networks"][0]["flood"] = {
                "burst": self.args.burst,
                "interval_ms": self.args.interval_ms}
        path = os.path.join(self.tmp, "stichbot.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.log = open(self.log_path, "ab")
        self.bot = subprocess.Popen([self.args.stichbot, "run", "--config",
                                     path], stdout=subprocess.DEVNULL,
                                    stderr=self.log)

    def run(self):
        a = self.args
        report = {"channels": a.channels, "active": a.active,
                  "burst": a.burst, "interval_ms": a.interval_ms,
                  "think_ms": a.think_ms, "penalty": not a.no_penalty}
        self.people = [Person(self, n) for n in ("ann", "ben", "cat")]
        self.wait(lambda: all(p.oper for p in self.people), 30,
                  "the people to become operators (+F)")
        ann, ben, cat = self.people
        ann.join(self.channels)
        ben.join(self.active)
        cat.join(self.active)
        self.wait(lambda: len(ann.joined) == a.channels and
                  len(ben.joined) == len(cat.joined) == a.active, 120,
                  "the people in their channels")

        t0 = time.monotonic()
        self.start_bot()
        self.wait(lambda: len(self.bot_in) == a.channels, 1800,
                  "the bot in every channel",
                  lambda: "the bot in %d channels" % len(self.bot_in))
        report["join_s"] = time.monotonic() - t0
        print("bot joined %d channels in %.2f s" % (a.channels,
                                                    report["join_s"]))
        sys.stdout.flush()

        t0 = time.monotonic()
        for c in self.channels:
            ann.raw("PRIVMSG %s :!join" % c)
        self.wait(lambda: len(self.opened) == a.channels, 3600,
                  "a table in every channel",
                  lambda: "%d tables open" % len(self.opened))
        report["open_s"] = time.monotonic() - t0
        print("%d tables opened in %.1f s" % (a.channels, report["open_s"]))
        sys.stdout.flush()

        t0 = time.monotonic()
        for c in self.active:
            ben.raw("PRIVMSG %s :!join" % c)
            cat.raw("PRIVMSG %s :!join" % c)
        # !start only once the bot has seated both: their commands come
        # through other connections and may overtake ann's.
        waiting = set(self.active)
        while waiting:
            for c in [c for c in waiting
                      if len(self.seated.get(c, ())) == 3]:
                ann.raw("PRIVMSG %s :!start" % c)
                waiting.discard(c)
            if time.monotonic() - t0 > 3600:
                raise RuntimeError("the bot did not seat everyone")
            self.pump()
        self.wait(lambda: len(self.started) == a.active, 3600,
                  "a game in every active channel",
                  lambda: "%d games started" % len(self.started))
        report["start_s"] = time.monotonic() - t0
        print("%d games started in %.1f s" % (a.active, report["start_s"]))
        sys.stdout.flush()

        # Warm up: the openings' lines drain, the games find their pace.
        t0 = time.monotonic()
        self.wait(lambda: time.monotonic() - t0 >= a.warmup, a.warmup + 5,
                  "the end of the warm-up")
        lines0 = self.bot_lines
        t0 = time.monotonic()
        self.measuring = True
        if a.rss_every > 0:
            self.sample(t0)
        self.wait(lambda: time.monotonic() - t0 >= a.seconds, a.seconds + 5,
                  "the end of the measurement")
        self.measuring = False
        took = time.monotonic() - t0
        report["bot_lines_per_s"] = (self.bot_lines - lines0) / took
        # The plays sent in the window are announced eventually.
        self.wait(lambda: not any(v[2] for v in self.pending.values()),
                  600, "the announcements of the last plays")
        lat = self.latencies
        report.update({
            "plays": len(lat), "plays_per_s": len(lat) / took,
            "latency_median_s": percentile(lat, 50),
            "latency_p90_s": percentile(lat, 90),
            "latency_p99_s": percentile(lat, 99),
            "latency_max_s": max(lat) if lat else float("nan"),
            "games_over": len(self.over), "refusals": len(self.refusals),
        })
        report["rss_kib"] = rss_kib(self.bot.pid)
        report["games_again"] = self.games
        report["samples"] = self.samples

        self.bot.send_signal(signal.SIGTERM)
        report["exit"] = self.bot.wait(60)
        self.log.close()
        with open(self.log_path, errors="replace") as f:
            log = f.read()
        ngircd = self.ircd.logtext()
        report["disconnects"] = log.count("connection lost")
        # Closed by ngircd for any reason but the bot's own goodbye (a QUIT
        # the penalty still held back when the bot hung up counts as one).
        report["ngircd_closed_bot"] = len([
            l for l in ngircd.splitlines()
            if '"%s!' % BOT in l and "unregistered" in l and
            "Got QUIT" not in l and "Client closed connection" not in l])
        report["flood_words"] = [w for w in ("exhausted", "Excess", "flood",
                                             "too long")
                                 if w in ngircd or w in log]
        return report


def open_fds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stichbot", required=True)
    ap.add_argument("--channels", type=int, default=500)
    ap.add_argument("--active", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--warmup", type=float, default=30)
    ap.add_argument("--burst", type=int, default=4)
    ap.add_argument("--interval-ms", type=int, default=400)
    ap.add_argument("--default-pace", action="store_true",
                    help="no flood settings: the adapter's default pace")
    ap.add_argument("--think-ms", type=int, default=1000)
    ap.add_argument("--no-penalty", action="store_true",
                    help="switch ngircd's flood penalties off")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--again", action="store_true",
                    help="start another game when one ends (a soak)")
    ap.add_argument("--rss-every", type=float, default=0,
                    help="sample the bot's RSS and fds every so many s")
    args = ap.parse_args()
    args.stichbot = os.path.abspath(args.stichbot)
    args.active = min(args.active, args.channels)
    if shutil.which("ngircd") is None:
        print("ngircd is not installed")
        return 77
    # Stopped from outside: through the finally below, which stops the
    # bot and ngircd.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    tmp = tempfile.mkdtemp(prefix="bench-irc-")
    os.chmod(tmp, 0o755)
    bench = None
    try:
        bench = Bench(args, tmp)
        report = bench.run()
    finally:
        if bench is not None:
            if bench.bot is not None and bench.bot.poll() is None:
                bench.bot.kill()
                bench.bot.wait()
            bench.ircd.kill()
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("files kept in %s" % tmp)
    print("%d channels, %d with games, flood %s, ngircd penalties %s, "
          "think %d ms" % (
              args.channels, args.active, "default" if args.default_pace
              else "burst %d / %d ms" % (args.burst, args.interval_ms),
              "on" if report["penalty"] else "off", args.think_ms))
    print("plays measured: %d in %.0f s (%.2f/s); bot lines: %.2f/s" % (
        report["plays"], args.seconds, report["plays_per_s"],
        report["bot_lines_per_s"]))
    print("play -> announcement: median %.2f s, p90 %.2f s, p99 %.2f s, "
          "max %.2f s" % (report["latency_median_s"],
                          report["latency_p90_s"], report["latency_p99_s"],
                          report["latency_max_s"]))
    print("disconnected: %d times (bot log), %d by ngircd; flood words in "
          "the logs: %s; refused commands: %d; bot RSS %s KiB; exit %s" % (
              report["disconnects"], report["ngircd_closed_bot"],
              report["flood_words"] or "none", report["refusals"],
              report["rss_kib"], report["exit"]))
    if report["samples"]:
        print("games started again: %d; RSS KiB and open fds over time:" %
              report["games_again"])
        for at, rss, fds in report["samples"]:
            print("  %6d s  %8s KiB  %4s fds" % (at, rss, fds))
    if args.json:
        print(json.dumps(report))
    ok = report["disconnects"] == 0 and report["ngircd_closed_bot"] == 0 \
        and not report["flood_words"] and report["exit"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

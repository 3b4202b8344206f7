#!/usr/bin/env python3
"""irc_crash_test.py - `stichbot run` killed with SIGKILL while two tables
play over IRC (ngircd on 127.0.0.1).

    irc_crash_test.py STICHBOT [--kills N] [--seed S]

Two tables on one connection, Wizard (rounds=4) in #wiz and Sticheln in
#stich, each with three people on raw sockets.  As in crash_test.py (the
same run on Matrix), a table's driver reads the game from the store as a
test may peek, picks a random legal move with the rules of
tools/reference.py, has the seat's person type it (in the channel, or
privately for Sticheln's penalty cards) and counts it acknowledged once
the channel announces it.  After each restart a driver asks `!status`
once the bot is back in its channel and waits for the answer, by which
time the new process has handled what was said before.  The bot is
killed at seeded moments of four kinds and restarted on the same store:
during start-up (connecting, restoring, joining); just after it is back
in a channel (the rows the last run left unsaid and the resume lines on
their way: the outbox flush); within 50 ms after a person typed a move
(between its commit and its send); and a random while into play.  The
last run stops with SIGTERM.  Then:
  - every acknowledged action is in the store, and every game replays
    (crash_test.verify_store);
  - each channel, as a person's client received it, against the store:
    every stored action announced, no move announced that was not
    stored.  On IRC the lines after the last PING the server answered
    may come again after the restart (nothing can tell whether the
    server had them): repeats are counted, not refused;
  - after each restart that got past start-up, every table whose game was
    running says where it stands ("The game resumes") within RESUME_S.

The adapter confirms a line only once the server answered a PING sent
after it, so a kill loses nothing the store holds (README, "What the bot
says is what it stored").  CRASH_DEBUG=1 prints what was missed;
IRC_TEST_KEEP=1 keeps the files and what each channel heard.

Exits 77 (skip) when ngircd is missing.  Standard library only.
"""

import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import crash_test  # noqa: E402
import irc_util  # noqa: E402
import reference  # noqa: E402
from irc_util import plain, split_line  # noqa: E402

BOTNICK = "crashbot"
ACK_TIMEOUT = 6.0
PROGRESS_TIMEOUT = 40.0
RESUME_S = 10.0
TABLES = [
    {"channel": "#wiz", "game": "wizard", "options": ["rounds=4"],
     "nicks": ["ann", "bob", "cy"]},
    {"channel": "#stich", "game": "sticheln", "options": [],
     "nicks": ["dee", "eve", "fay"]},
]


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


class Person:
    """A raw, non-blocking IRC client in one channel."""

    def __init__(self, port, nick, channel):
        self.nick = nick
        self.channel = channel
        self.sock = socket.create_connection(("127.0.0.1", port), 5)
        self.sock.setblocking(False)
        self.buf = b""
        self.joined = False
        self.bot_here = False
        self.heard = []          # (wall time, text) the bot said in channel
        self.send("NICK %s" % nick)
        self.send("USER %s 0 * :crash %s" % (nick, nick))

    def send(self, line):
        self.sock.setblocking(True)
        try:
            self.sock.sendall(line.encode() + b"\r\n")
        finally:
            self.sock.setblocking(False)

    def readable(self):
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        if not data:
            raise Failure("%s: the server closed the connection" % self.nick)
        self.buf += data
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            nick, command, params = split_line(
                raw.rstrip(b"\r").decode("utf-8", "replace"))
            if command == "PING":
                self.send("PONG :%s" % (params[-1] if params else ""))
            elif command == "001":
                self.send("JOIN %s" % self.channel)
            elif command == "366":
                self.joined = True
            elif command == "JOIN" and nick == BOTNICK:
                self.bot_here = True
            elif command in ("PART", "QUIT") and nick == BOTNICK:
                self.bot_here = False
            elif command == "353" and len(params) >= 4 and BOTNICK in [
                    n.lstrip("@+%&~") for n in params[3].split()]:
                self.bot_here = True
            # A run whose nick was still taken speaks as crashbot1.
            elif command in ("PRIVMSG", "NOTICE") and \
                    nick.rstrip("0123456789") == BOTNICK and \
                    len(params) == 2 and params[0] == self.channel:
                self.heard.append((time.time(), plain(params[1])))


class World:
    def __init__(self, stichbot, seed, burst=5, penalties=False):
        self.burst = burst
        self.stichbot = stichbot
        self.dir = tempfile.mkdtemp(prefix="irc-crash-")
        os.chmod(self.dir, 0o755)
        # ngircd's penalties (a second for a WHO, more for a flood) keep
        # what the bot wrote in the server's buffer: a killed run's lines
        # then still come out after the next run started.
        self.ircd = irc_util.Ngircd(self.dir, limits={} if penalties else
                                    {"MaxPenaltyTime": 0})
        self.store = os.path.join(self.dir, "stichbot.db")
        self.log_path = os.path.join(self.dir, "stichbot.log")
        self.proc = None
        self.starts = []         # [wall time, killed during start-up]
        self.people = [[Person(self.ircd.port, n, t["channel"])
                        for n in t["nicks"]] for t in TABLES]
        config = {
            "store": self.store, "log_level": "info",
            "lobby_idle": 86400,
            "user_flood": {"interval_ms": 0},
            "networks": [{
                "name": "irc", "type": "irc", "host": "127.0.0.1",
                "port": self.ircd.port, "tls": False, "nick": BOTNICK,
                "flood": {"burst": self.burst, "interval_ms": 100},
                "reconnect": {"min": 1, "max": 2},
                "defaults": {"turn_timer": 0},
                "channels": [{"name": t["channel"], "game": t["game"],
                              "options": t["options"]} for t in TABLES],
            }],
        }
        self.config = os.path.join(self.dir, "stichbot.json")
        with open(self.config, "w") as f:
            json.dump(config, f)

    def everyone(self):
        return [p for ps in self.people for p in ps]

    def pump(self, timeout=0.05):
        socks = {p.sock: p for p in self.everyone()}
        ready, _, _ = select.select(list(socks), [], [], timeout)
        for s in ready:
            socks[s].readable()

    def wait(self, pred, timeout, what):
        end = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > end:
                raise Failure("timed out waiting for " + what)
            self.pump()

    def start_bot(self):
        self.starts.append([time.time(), False])
        with open(self.log_path, "ab") as log:
            log.write(b"=== start\n")
            self.proc = subprocess.Popen(
                [self.stichbot, "run", "--config", self.config],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=log)

    def kill_bot(self):
        self.proc.send_signal(signal.SIGKILL)
        expect(self.proc.wait(30) == -signal.SIGKILL,
               "the bot died on its own before the kill")
        # ngircd tells the channels that the bot is gone: a JOIN seen
        # later is the new process's.
        self.wait(lambda: not any(p.bot_here for p in self.everyone()), 20,
                  "ngircd to see the bot go")

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.ircd.kill()
        if os.environ.get("IRC_TEST_KEEP"):
            # What each channel's first person heard, for a post-mortem.
            for ps in self.people:
                with open(os.path.join(self.dir, "%s.log" % ps[0].nick),
                          "w") as f:
                    for when, text in ps[0].heard:
                        f.write("%.3f %r\n" % (when, text))
            print("files kept in %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


class Driver:
    """Plays one table: one move at a time, waiting for its announcement."""

    def __init__(self, world, index, seed):
        self.world = world
        self.index = index
        self.spec = TABLES[index]
        self.people = world.people[index]
        self.rng = random.Random(seed * 100 + index)
        self.acked = []          # (game id, index typed for, action)
        self.waiting = None      # (name, action, mark, deadline, gid, at)
        self.barrier = None      # (mark, deadline) of a !status
        self.typed = 0           # moves typed
        self.opened = 0.0        # when the table was last asked for
        self.db = sqlite3.connect(world.store, timeout=10,
                                  isolation_level=None)

    def heard(self):
        return self.people[0].heard

    def running_game(self):
        db = self.db
        try:
            db.execute("BEGIN")
        except sqlite3.OperationalError:
            return None
        try:
            return self.read_game(db)
        except sqlite3.OperationalError:
            # The store is still being made (its schema), or busy.
            return None
        finally:
            db.execute("COMMIT")

    def read_game(self, db):
        """(id, record) of the table's running game, or None."""
        row = db.execute(
            "SELECT id, game, players, options, first FROM games "
            "WHERE channel = ? AND finished = 0 ORDER BY id DESC "
            "LIMIT 1", (self.spec["channel"],)).fetchone()
        if row is None:
            return None
        gid = row[0]
        deals = [json.loads(d) for (d,) in db.execute(
            "SELECT deal FROM deals WHERE game_id = ? ORDER BY idx",
            (gid,))]
        actions = [json.loads(a) for (a,) in db.execute(
            "SELECT action FROM actions WHERE game_id = ? ORDER BY idx",
            (gid,))]
        record = {"game": row[1], "players": json.loads(row[2]),
                  "options": json.loads(row[3]), "first": row[4],
                  "deals": deals, "actions": actions}
        return gid, record

    def say(self, who, text, private=False):
        person = self.people[who]
        target = BOTNICK if private else self.spec["channel"]
        person.send("PRIVMSG %s :%s" % (target, text))

    def restarted(self):
        """After a restart: once the bot is back in the channel, ask for
        the status and wait for the answer."""
        self.waiting = None
        self.barrier = (None, None)

    def step(self):
        heard = self.heard()
        if self.barrier is not None:
            mark, deadline = self.barrier
            if mark is None:
                if self.people[0].bot_here:
                    self.barrier = (len(heard),
                                    time.monotonic() + ACK_TIMEOUT)
                    self.say(0, "!status")
            elif any(t.startswith(crash_test.TITLES) for _, t in
                     heard[mark:]):
                self.barrier = None
            elif time.monotonic() > deadline:
                self.restarted()
            return
        if self.waiting is not None:
            name, action, mark, deadline, gid, at = self.waiting
            if any(crash_test.acknowledges(t, name, action)
                   for _, t in heard[mark:]):
                self.acked.append((gid, at, action))
                self.waiting = None
            elif time.monotonic() > deadline:
                self.waiting = None
            return
        found = self.running_game()
        if found is None:
            # Asked again if a kill took the lobby's commands along.
            if self.people[0].bot_here and \
                    time.monotonic() - self.opened > ACK_TIMEOUT:
                for who in range(3):
                    self.say(who, "!join")
                self.say(0, "!start")
                self.opened = time.monotonic()
            return
        gid, record = found
        game = reference.game_after(record, len(record["actions"]))
        if game.finished or game.waiting_for_deal():
            return
        legal = game.legal_actions()
        if not legal:
            return
        action = self.rng.choice(legal)
        name = record["players"][action["seat"]]
        who = self.spec["nicks"].index(name)
        private, text = crash_test.command(action)
        self.waiting = (name, action, len(heard),
                        time.monotonic() + ACK_TIMEOUT, gid,
                        len(record["actions"]))
        self.say(who, text, private)
        self.typed += 1


# What an announcement of a move looks like after the player's name: a
# bid, a hidden bid or selection, a choice of trump, or cards (Wizard's
# and Sticheln's codes) before the first " · ".
MOVE_RE = re.compile(r"(bids \d+|has bid \(|has selected \(|chooses trump )")
CARD_RE = re.compile(r"^(W|J|[rgbyn]\d{1,2})$")
# A line may come again after a kill: the lines of the last PING batch
# (IRC_PING_BATCH, 10) and those handed on after it.  Their moves lie at
# most this many actions back.
REPEAT_WINDOW = 24


def looks_like_move(line, nicks):
    """Whether a bot line announces a move, whichever."""
    for nick in nicks:
        if line.startswith(nick + " "):
            rest = line[len(nick) + 1:]
            cards = rest.split(" \u00b7 ", 1)[0].split(" ")
            return bool(MOVE_RE.match(rest)) or \
                all(CARD_RE.match(c) for c in cards)
    return False


def verify_channels(world):
    """(announced, unannounced, repeated, announced but not stored,
    resume lines missed, due)."""
    db = sqlite3.connect(world.store)
    announced = unannounced = repeated = unstored = missed = due = 0
    interleaved = 0
    resumes = []                 # s from a start to a table's resume line
    for i, spec in enumerate(TABLES):
        games = db.execute(
            "SELECT id, players, strftime('%s', started), "
            "strftime('%s', ended) FROM games WHERE channel = ? "
            "ORDER BY id", (spec["channel"],)).fetchall()
        actions, spans = [], []
        for gid, players, started, ended in games:
            names = json.loads(players)
            for (a,) in db.execute("SELECT action FROM actions WHERE "
                                   "game_id = ? ORDER BY idx", (gid,)):
                action = json.loads(a)
                actions.append((names[action["seat"]], action))
            spans.append((int(started), int(ended) if ended else None))
        lines = world.people[i][0].heard
        k = 0
        # Repeats come as one block per restart, in order: lines of the
        # last run said again among this run's new ones would mean the
        # two runs talked at once (a dead run's lines still on their way).
        block_windows, in_block = set(), False
        # The actions each line was heard for as news; within a block of
        # repeats, the actions the last line may have repeated.
        heard_for, last_repeats = {}, set()
        # In order: the next stored action, else a line sent again
        # after a kill (a move of the last few), else a line for a move a
        # little further on (the ones between were never said), else a
        # move that was never stored.  The next action is tried first:
        # a repeat may look like a later move (the same bid a round on),
        # except inside a block of repeats.  A block goes on with the
        # action after the last one repeated, up to the last one heard,
        # so there a line heard before for that very action is that
        # action again: a second Jester by the same player reads like the
        # first, and a game's first bids read like the last game's.
        for ts, line in lines:
            acks = [j for j in range(max(0, k - REPEAT_WINDOW),
                                     min(k + 8, len(actions)))
                    if crash_test.acknowledges(line, *actions[j])]
            before = [j for j in heard_for.get(line, ())
                      if k - REPEAT_WINDOW <= j < k]
            going_on = {j + 1 for j in last_repeats} & set(before)
            if in_block and going_on:
                repeated += 1
                last_repeats = going_on
            elif k in acks:
                heard_for.setdefault(line, []).append(k)
                announced += 1
                k += 1
                in_block = False
            elif any(j < k for j in acks):
                repeated += 1
                last_repeats = set(before) or {j for j in acks if j < k}
                if not in_block:
                    window = sum(1 for when, _ in world.starts
                                 if when <= ts)
                    if window in block_windows:
                        if os.environ.get("CRASH_DEBUG"):
                            print("repeated among new lines:", repr(line))
                        interleaved += 1
                    block_windows.add(window)
                    in_block = True
            elif acks:
                later = acks[0]
                if os.environ.get("CRASH_DEBUG"):
                    print("never announced:", actions[k:later], "before",
                          repr(line))
                unannounced += later - k
                heard_for.setdefault(line, []).append(later)
                announced += 1
                k = later + 1
            elif looks_like_move(line, spec["nicks"]):
                if os.environ.get("CRASH_DEBUG"):
                    print("announced, not stored:", repr(line))
                unstored += 1
        unannounced += len(actions) - k
        for when, early in world.starts[1:]:
            if early or not any(start < when - 1 and (
                    end is None or end > when + RESUME_S + 1)
                    for start, end in spans):
                continue
            due += 1
            after = [ts - when for ts, line in lines
                     if when <= ts <= when + RESUME_S and
                     line.startswith(crash_test.RESUMED)]
            if after:
                resumes.append(after[0])
            else:
                missed += 1
    db.close()
    return (announced, unannounced, repeated, unstored, missed, due,
            resumes, interleaved)


def pump_for(world, drivers, seconds):
    """Plays for a while."""
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        for d in drivers:
            d.step()
        world.pump()


def run(world, kills, rng):
    """Plays and kills: (drivers, {kind of kill: how many})."""
    drivers = []
    world.wait(lambda: all(p.joined for p in world.everyone()), 20,
               "everyone in their channel")
    world.start_bot()
    world.wait(lambda: os.path.exists(world.store), 20, "the store")
    drivers = [Driver(world, i, rng.randrange(1 << 30))
               for i in range(len(TABLES))]
    kinds = {"start-up": 0, "flush": 0, "command": 0, "play": 0}
    for k in range(kills + 1):
        acks = sum(len(d.acked) for d in drivers)
        end = time.monotonic() + PROGRESS_TIMEOUT
        last = k == kills
        r = rng.random()
        kind = "play" if last or k == 0 else \
            "start-up" if r < 0.15 else "flush" if r < 0.35 else \
            "command" if r < 0.65 else "play"
        if kind == "start-up":
            # Killed during start-up: connecting, restoring, joining.
            pump_for(world, drivers, rng.uniform(0.0, 0.3))
        elif kind == "flush":
            # Killed once the bot is back in a channel: the rows the last
            # run left unsaid and the resume lines are on their way.
            world.wait(lambda: any(p.bot_here for p in world.everyone()),
                       PROGRESS_TIMEOUT, "the bot back in a channel")
            pump_for(world, drivers, rng.uniform(0.0, 0.3))
        else:
            # Games go on: some moves acknowledged.
            while sum(len(d.acked) for d in drivers) < acks + 2:
                expect(time.monotonic() < end, "restart %d: no game went "
                       "on within %.0f s" % (k, PROGRESS_TIMEOUT))
                expect(world.proc.poll() is None, "the bot exited")
                for d in drivers:
                    d.step()
                world.pump()
            if kind == "command":
                # Killed right after a move is typed: between the commit
                # and the send, or while its lines are on their way.
                typed = sum(d.typed for d in drivers)
                while sum(d.typed for d in drivers) == typed:
                    expect(time.monotonic() < end, "restart %d: nobody "
                           "moved within %.0f s" % (k, PROGRESS_TIMEOUT))
                    for d in drivers:
                        d.step()
                    world.pump(0.005)
                pump_for(world, drivers, rng.uniform(0.0, 0.05))
            else:
                pump_for(world, drivers, rng.uniform(0.0, 2.0))
        if last:
            break
        kinds[kind] += 1
        # A start cut short need not have resumed its tables.
        world.starts[-1][1] = kind in ("start-up", "flush") and k > 0
        world.kill_bot()
        world.start_bot()
        for d in drivers:
            d.restarted()
    world.proc.send_signal(signal.SIGTERM)
    expect(world.proc.wait(60) == 0, "SIGTERM: exit status")
    # Whatever was on its way has arrived.
    end = time.monotonic() + 2
    while time.monotonic() < end:
        world.pump()
    return drivers, kinds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stichbot")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--burst", type=int, default=5,
                        help="the bot's flood burst (lines)")
    parser.add_argument("--penalties", action="store_true",
                        help="keep ngircd's penalties for busy clients")
    args = parser.parse_args()
    if shutil.which("ngircd") is None:
        print("skip: ngircd is not installed")
        return 77
    started = time.monotonic()
    world = World(os.path.abspath(args.stichbot), args.seed, args.burst,
                  args.penalties)
    status = 1
    try:
        drivers, kinds = run(world, args.kills, random.Random(args.seed))
        with open(world.log_path, errors="replace") as f:
            log = f.read()
        for bad in ("is damaged", "cannot be restored", "AddressSanitizer",
                    "runtime error:"):
            expect(bad not in log, "the bot's log says %r" % bad)
        ctx = type("Ctx", (), {"store": world.store,
                               "stichbot": world.stichbot})
        games, finished, acked = crash_test.verify_store(ctx, drivers)
        (announced, unannounced, repeated, unstored, missed, due, resumes,
         interleaved) = verify_channels(world)
        resumes.sort()
        print("%d kills (%s), %d games (%d finished), %d acknowledged "
              "actions all stored, %.1f s" % (
                  args.kills, ", ".join("%d %s" % (n, kind) for kind, n in
                                        kinds.items()),
                  games, finished, acked, time.monotonic() - started))
        print("channels against the store: %d actions announced, %d stored "
              "but never announced, %d announced but not stored, %d "
              "repeated after a kill (%d blocks out of order); resume "
              "lines: %d of %d within "
              "%.0f s (median %.1f s, max %.1f s after the start)" % (
                  announced, unannounced, unstored, repeated, interleaved,
                  due - missed,
                  due, RESUME_S, resumes[len(resumes) // 2] if resumes
                  else 0, resumes[-1] if resumes else 0))
        expect(unannounced == 0, "%d stored actions were never announced"
               % unannounced)
        expect(unstored == 0, "%d announced actions were never stored"
               % unstored)
        expect(interleaved == 0, "%d blocks of repeated lines came among "
               "new ones" % interleaved)
        expect(missed == 0, "%d of %d restarts left a running table "
               "without its resume line" % (missed, due))
        print("ok")
        status = 0
    except Failure as e:
        print("FAIL: %s" % e)
        try:
            with open(world.log_path, errors="replace") as f:
                print("\n".join(f.read().splitlines()[-40:]))
        except OSError:
            pass
    finally:
        if os.environ.get("CRASH_DEBUG"):
            with open(world.log_path, errors="replace") as f:
                for line in f:
                    if "dropping" in line or "not sent" in line or \
                            "=== start" in line or "restored" in line:
                        print("LOG", line.rstrip())
        world.close()
    return status


if __name__ == "__main__":
    sys.exit(main())

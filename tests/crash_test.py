#!/usr/bin/env python3
"""`stichbot run` killed with SIGKILL at random moments while three tables
play at once over Matrix (tests/matrix_homeserver.py, on 127.0.0.1).

Three scripted tables (Wizard with rounds=4, BirdHead, Sticheln), each with
three people, play through commands in their rooms and, for Sticheln's
penalty cards, in direct rooms with the bot.  A table's driver reads the
game from the store as a test may peek (the way tests/test_bot.c peeks at
the engine), picks a random legal move with the independent rules of
tools/reference.py, has the seat's client type it, and records the action
as acknowledged once its client sees the bot announce it in the room.
After a restart a driver first asks `!status` and waits for the answer, so
that commands the old process may have left unprocessed are handled before
it decides again.

A controller kills the bot at random moments (a seeded schedule: some
during start-up, most while games run) and restarts it on the same store,
at least --kills times; after each restart that is not killed during
start-up, games must go on (a new action is acknowledged).  The last run
stops with SIGTERM and must exit 0.  Then:
  - every acknowledged action is in the store, in order, at or after the
    index it was typed for (`stichbot export --game ID --running`);
  - every stored game, finished or running, replays with `stichbot replay`
    exit status 0 (no table is corrupted);
  - what the rooms received (the homeserver's timelines) against the
    store: every stored action was announced, none twice, and nothing was
    announced that is not stored (the outbox: a message committed with its
    change is sent again after a kill under its old transaction id, which
    the homeserver drops when it had the first);
  - after each restart that was not killed during start-up, every table
    whose game was running says where it stands ("The game resumes")
    within RESUME_S seconds;
  - the bot never logged a damaged or unrestorable game.

STICHBOT_WRAPPER (e.g. "valgrind --error-exitcode=99 ...") is put in front
of the bot's command line; timeouts grow under it.

usage: crash_test.py STICHBOT [--kills N] [--seed S]
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import reference  # noqa: E402
from matrix_client import MatrixClient  # noqa: E402
from matrix_homeserver import Homeserver  # noqa: E402

BOT = "@bot:localhost"
PASSWORD = "bot-password-crash-5c1e"
WRAPPER = shlex.split(os.environ.get("STICHBOT_WRAPPER", ""))
# A wrapper such as valgrind slows the bot down many times.
SLOW = 8 if WRAPPER else 1
ACK_TIMEOUT = 4.0 * SLOW
PROGRESS_TIMEOUT = 30.0 * SLOW
TITLES = ("Wizard \u00b7", "BirdHead \u00b7", "Sticheln \u00b7",
          "No game is running")
# A private `!status` from someone with no seat yet (the first start).
NO_SEAT = "You have no seat at any table."
RESUMED = "The game resumes"
# What the bot answers a move it cannot take: the drivers type only legal
# moves, so one of these means a command was handled twice.
REFUSED = ("not your turn", "Not now:", "Not allowed", "is not allowed",
           "You have already", "You do not hold")
# How soon after a restart a running table must hear where it stands.
RESUME_S = 10.0 * SLOW

TABLES = [
    {"alias": "#wiz:localhost", "game": "wizard", "options": ["rounds=4"]},
    {"alias": "#bird:localhost", "game": "birdhead", "options": []},
    {"alias": "#stich:localhost", "game": "sticheln", "options": []},
]


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


class Bot:
    """The bot's process across restarts; generation counts the starts."""

    def __init__(self, stichbot, config, log_path):
        self.stichbot = stichbot
        self.config = config
        self.log_path = log_path
        self.proc = None
        self.generation = 0
        self.cond = threading.Condition()
        self.starts = []         # (wall time, killed during start-up)

    def start(self):
        with open(self.log_path, "a") as log:
            log.write("=== start %d\n" % (self.generation + 1))
            log.flush()
            self.starts.append([time.time(), False])
            self.proc = subprocess.Popen(
                WRAPPER + [self.stichbot, "run", "--config", self.config,
                           "--log-level", "info"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=log)
        with self.cond:
            self.generation += 1
            self.cond.notify_all()

    def up(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        rc = self.proc.wait(timeout=30)
        expect(rc == -signal.SIGKILL,
               "the bot died on its own before the kill (status %s)" % rc)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60 * SLOW)

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()


def first_line(content):
    return (content.get("body") or "").split("\n", 1)[0]


def acknowledges(line, name, action):
    """Whether a bot line announces action by the player called name."""
    if "bid" in action:
        return re.match(r"%s bids %d( |$)" % (re.escape(name),
                                              action["bid"]), line) \
            or line.startswith("%s has bid (" % name)
    if "trump" in action:
        return line.startswith("%s chooses trump %s" % (name,
                                                        action["trump"]))
    if "select" in action:
        return line.startswith("%s has selected (" % name)
    if not line.startswith(name + " "):
        return False
    cards = line[len(name) + 1:].split(" \u00b7 ", 1)[0].split(" ")
    played = action["play"]
    played = played if isinstance(played, list) else [played]
    return sorted(cards) == sorted(played)


def normal(action):
    """An action with a BirdHead play's cards in a fixed order."""
    a = dict(action)
    if isinstance(a.get("play"), list):
        a["play"] = sorted(a["play"])
    return a


def command(action):
    """(private, text) that a person types for action."""
    if "bid" in action:
        return False, "!bid %d" % action["bid"]
    if "trump" in action:
        return False, "!trump %s" % action["trump"]
    if "select" in action:
        return True, "select %s" % action["select"]
    play = action["play"]
    if isinstance(play, list):
        return False, "!play " + " ".join(play)
    return False, "!play %s" % play


class Driver(threading.Thread):
    """Plays one table through its three people's clients."""

    def __init__(self, ctx, index, spec):
        super().__init__(daemon=True)
        self.ctx = ctx
        self.index = index
        self.spec = spec
        self.rng = random.Random(ctx.seed * 1000 + index)
        self.clients = ctx.table_clients[index]
        self.room = ctx.rooms[index]
        self.dms = ctx.dms[index]
        self.generation = 0
        self.acked = []          # (game id, index typed for, action)
        self.sent = 0
        self.error = None
        self.db = None

    # The store, read as a test may peek.

    def running_game(self):
        """(id, record, seat user ids) of the table's running game."""
        db = self.db
        db.execute("BEGIN")
        try:
            row = db.execute(
                "SELECT id, game, players, options, first FROM games "
                "WHERE channel = ? AND finished = 0 ORDER BY id DESC "
                "LIMIT 1", (self.spec["alias"],)).fetchone()
            if row is None:
                return None
            gid = row[0]
            deals = [json.loads(d) for (d,) in db.execute(
                "SELECT deal FROM deals WHERE game_id = ? ORDER BY idx",
                (gid,))]
            actions = [json.loads(a) for (a,) in db.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY idx",
                (gid,))]
            seats = [u for (u,) in db.execute(
                "SELECT user_id FROM seats WHERE game_id = ? ORDER BY seat",
                (gid,))]
        finally:
            db.execute("COMMIT")
        record = {"game": row[1], "players": json.loads(row[2]),
                  "options": json.loads(row[3]), "first": row[4],
                  "deals": deals, "actions": actions}
        return gid, record, seats

    # Talking.

    def bot_lines_after(self, client, mark, room=None):
        """First lines of the bot's messages in room (the table's room by
        default) after index mark."""
        events = client.timelines.get(room or self.room, [])
        return [(i, first_line(e["content"])) for i, e in
                enumerate(events) if i >= mark and e["sender"] == BOT
                and e["type"] == "m.room.message"]

    def wait_line(self, client, mark, predicate, timeout, room=None):
        """Syncs until a bot line after mark satisfies predicate; returns
        it, or None on a timeout or when the bot was restarted."""
        end = time.monotonic() + timeout
        while not self.ctx.stopping.is_set():
            for _, line in self.bot_lines_after(client, mark, room):
                if predicate(line):
                    return line
            left = end - time.monotonic()
            if left <= 0 or self.ctx.bot.generation != self.generation:
                return None
            client.sync(timeout_ms=int(min(left, 0.5) * 1000))
        return None

    def say(self, who, text, private=False):
        """Sends text; returns the timeline index after which the answer
        comes (the observer's timeline is brought up to date first)."""
        observer = self.clients[0]
        observer.sync(timeout_ms=0)
        mark = len(observer.timelines.get(self.room, []))
        client = self.clients[who]
        client.say(self.dms[who] if private else self.room, text)
        self.sent += 1
        return mark

    def barrier(self):
        """After a restart: wait until the new process answers `!status`,
        by which time it has handled everything said before.  It is asked
        privately: in the room, the bot does not repeat an answer it gave
        there in the last ten seconds (the README's "The same answer is
        not repeated"), such as one to the `!status` of the barrier before
        a kill, which the new process answers from its backlog."""
        while not self.ctx.stopping.is_set():
            with self.ctx.bot.cond:
                generation = self.ctx.bot.generation
            self.generation = generation
            self.clients[0].sync(timeout_ms=0)
            mark = len(self.clients[0].timelines.get(self.dms[0], []))
            self.say(0, "!status", private=True)
            line = self.wait_line(self.clients[0], mark,
                                  lambda l: l.startswith(TITLES) or
                                  l == NO_SEAT,
                                  ACK_TIMEOUT * 2, room=self.dms[0])
            if line is not None and self.ctx.bot.generation == generation:
                return
            time.sleep(0.05)

    def open_table(self):
        for who in range(3):
            self.say(who, "!join")
        self.say(0, "!start")
        end = time.monotonic() + ACK_TIMEOUT
        while time.monotonic() < end and \
                self.ctx.bot.generation == self.generation:
            if self.running_game() is not None:
                return
            time.sleep(0.05)

    def step(self):
        found = self.running_game()
        if found is None:
            self.open_table()
            return
        gid, record, seats = found
        game = reference.game_after(record, len(record["actions"]))
        # A game is stored before its first deal (a start or a deal may
        # be cut by a kill; the restore deals it then).
        if game.finished or game.waiting_for_deal():
            time.sleep(0.05)
            return
        legal = game.legal_actions()
        if not legal:
            time.sleep(0.05)
            return
        action = self.rng.choice(legal)
        seat = action["seat"]
        who = self.ctx.user_ids[self.index].index(seats[seat])
        name = record["players"][seat]
        private, text = command(action)
        mark = self.say(who, text, private)
        line = self.wait_line(self.clients[0], mark,
                              lambda l: acknowledges(l, name, action),
                              ACK_TIMEOUT)
        if line is not None:
            self.acked.append((gid, len(record["actions"]), action))
            self.ctx.progress()

    def run(self):
        try:
            self.db = sqlite3.connect(self.ctx.store, timeout=10,
                                      isolation_level=None)
            self.db.execute("PRAGMA query_only = 1")
            while not self.ctx.stopping.is_set():
                if self.generation != self.ctx.bot.generation:
                    self.barrier()
                    continue
                self.step()
        except Exception:
            self.error = traceback.format_exc()
            self.ctx.stopping.set()
        finally:
            if self.db is not None:
                self.db.close()


class Context:
    def __init__(self, stichbot, seed):
        self.stichbot = stichbot
        self.seed = seed
        self.dir = tempfile.mkdtemp(prefix="stichbot-crash-")
        self.store = os.path.join(self.dir, "stichbot.db")
        self.stopping = threading.Event()
        self.acks = 0
        self.ack_cond = threading.Condition()
        self.hs = Homeserver().start()
        st = self.hs.state
        st.register("bot", PASSWORD, "Stichbot")
        password_file = os.path.join(self.dir, "password")
        with open(password_file, "w") as f:
            f.write(PASSWORD + "\n")
        self.user_ids = []
        self.table_clients = []
        self.rooms = []
        self.dms = []
        for i, spec in enumerate(TABLES):
            ids = [st.register("%s%d" % (n.lower(), i), "secret",
                               "%s%d" % (n, i))
                   for n in ("Ann", "Bob", "Cy")]
            clients = [MatrixClient(self.hs.url, u).login() for u in ids]
            room = clients[0].create_room(
                preset="public_chat", room_alias_name=spec["alias"][1:]
                .split(":")[0])
            for c in clients[1:]:
                c.join(room)
            self.user_ids.append(ids)
            self.table_clients.append(clients)
            self.rooms.append(room)
        config = {
            "store": self.store,
            "log_level": "info",
            "lobby_idle": 86400,
            # Scripted people act faster than anyone types: no limit.
            "user_flood": {"interval_ms": 0},
            "networks": [{
                "name": "mx",
                "type": "matrix",
                "homeserver": self.hs.url,
                "user_id": BOT,
                "password_file": password_file,
                "sync_timeout_ms": 5000,
                "invites": {"allow_users": ["@*:localhost"]},
                "defaults": {"turn_timer": 0},
                "channels": [{"name": t["alias"], "game": t["game"],
                              "options": t["options"]} for t in TABLES],
            }],
        }
        self.config = os.path.join(self.dir, "stichbot.json")
        with open(self.config, "w") as f:
            json.dump(config, f)
        self.bot = Bot(stichbot, self.config,
                       os.path.join(self.dir, "bot.log"))

    def progress(self):
        with self.ack_cond:
            self.acks += 1
            self.ack_cond.notify_all()

    def wait_progress(self, since, timeout):
        end = time.monotonic() + timeout
        with self.ack_cond:
            while self.acks <= since and not self.stopping.is_set():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.ack_cond.wait(left)
        return self.acks > since

    def setup_rooms(self):
        """The bot in every room, and a direct room per person."""
        st = self.hs.state

        def joined(room_id):
            with st.cond:
                return st.rooms[room_id].membership(BOT) == "join"

        wait_until(lambda: all(joined(r) for r in self.rooms),
                   20 * SLOW, "the bot in every room")
        for clients in self.table_clients:
            self.dms.append([c.create_dm(BOT) for c in clients])
        wait_until(lambda: all(joined(r) for dms in self.dms for r in dms),
                   20 * SLOW, "the bot in every direct room")

    def close(self):
        self.stopping.set()
        if self.bot.up():
            self.bot.proc.kill()
            self.bot.proc.wait()
        self.hs.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_until(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise Failure("timed out waiting for " + what)
        time.sleep(0.05)


def run_cycles(ctx, kills, rng, drivers):
    """Kills and restarts; returns (early kills, kills while playing)."""
    early = late = 0
    for i in range(kills):
        since = ctx.acks
        ctx.bot.start()
        if rng.random() < 0.2:
            # During start-up: login, restore, the first sync.
            time.sleep(rng.uniform(0.0, 0.3 * SLOW))
            ctx.bot.starts[-1][1] = True
            early += 1
        else:
            if not ctx.wait_progress(since, PROGRESS_TIMEOUT):
                for d in drivers:
                    expect(d.error is None, "driver %d failed:\n%s" %
                           (d.index, d.error))
                raise Failure("restart %d: no game went on within %.0f s"
                              % (i + 1, PROGRESS_TIMEOUT))
            time.sleep(rng.uniform(0.0, 1.0 * SLOW))
            late += 1
        expect(ctx.bot.up(), "the bot died by itself after start %d" %
               ctx.bot.generation)
        ctx.bot.kill()
    return early, late


def stichbot_json(stichbot, args, stdin=None):
    proc = subprocess.run([stichbot] + args, input=stdin,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def verify_store(ctx, drivers):
    """Acknowledged actions are stored; every game replays."""
    db = sqlite3.connect(ctx.store)
    ids = [i for (i,) in db.execute("SELECT id FROM games ORDER BY id")]
    finished = db.execute("SELECT count(*) FROM games WHERE finished = 1"
                          ).fetchone()[0]
    db.close()
    rc, out, err = stichbot_json(ctx.stichbot, [
        "export", "--store", ctx.store, "--running"])
    expect(rc == 0, "export failed: %d %s" % (rc, err))
    records = [json.loads(line) for line in out.splitlines() if line]
    expect(len(records) == len(ids), "export gave %d records for %d games"
           % (len(records), len(ids)))
    for n, record in enumerate(records):
        rc, out, err = stichbot_json(ctx.stichbot, ["replay"],
                                     json.dumps(record))
        expect(rc == 0, "game %d does not replay: %d %s" % (ids[n], rc,
                                                           out + err))
    stored = {}
    for gid in ids:
        rc, out, err = stichbot_json(ctx.stichbot, [
            "export", "--store", ctx.store, "--running", "--game",
            str(gid)])
        expect(rc == 0 and out.strip(), "export --game %d failed" % gid)
        stored[gid] = [normal(a) for a in json.loads(out)["actions"]]
    total = 0
    for d in drivers:
        at = {}
        for gid, index, action in d.acked:
            actions = stored.get(gid)
            expect(actions is not None, "table %d: game %d was "
                   "acknowledged but is not stored" % (d.index, gid))
            j = max(at.get(gid, 0), index)
            want = normal(action)
            while j < len(actions) and actions[j] != want:
                j += 1
            expect(j < len(actions), "table %d: the acknowledged action "
                   "%s (typed for index %d of game %d) is not in the "
                   "store: %s" % (d.index, action, index, gid, actions))
            at[gid] = j + 1
            total += 1
    return len(ids), finished, total


def verify_transcripts(ctx):
    """Compares each room's timeline with the store: (announced actions,
    stored actions not announced, actions announced twice or not stored,
    restarts x tables that missed their resume line, resume lines due,
    refusals of the drivers' legal moves in rooms and direct rooms)."""
    db = sqlite3.connect(ctx.store)
    announced = unannounced = twice = missed = due = refused = 0
    with ctx.hs.state.cond:
        for room in [r for dms in ctx.dms for r in dms] + ctx.rooms:
            refused += sum(
                1 for _, e in ctx.hs.state.rooms[room].events
                if e["type"] == "m.room.message" and e["sender"] == BOT
                and any(r in e["content"].get("body", "")
                        for r in REFUSED))
    for i, spec in enumerate(TABLES):
        games = db.execute(
            "SELECT id, players, strftime('%s', started), "
            "strftime('%s', ended) FROM games WHERE channel = ? "
            "ORDER BY id", (spec["alias"],)).fetchall()
        actions = []
        spans = []
        for gid, players, started, ended in games:
            names = json.loads(players)
            for (a,) in db.execute("SELECT action FROM actions WHERE "
                                   "game_id = ? ORDER BY idx", (gid,)):
                action = json.loads(a)
                actions.append((names[action["seat"]], action))
            spans.append((int(started), int(ended) if ended else None))
        with ctx.hs.state.cond:
            events = [e for _, e in ctx.hs.state.rooms[ctx.rooms[i]].events
                      if e["type"] == "m.room.message" and
                      e["sender"] == BOT]
        lines = [(e["origin_server_ts"] / 1000.0, first_line(e["content"]))
                 for e in events]
        # In order: each stored action by a line of its own, once.  A
        # line for an action a little further on means the ones between
        # were never said.
        k = 0
        for _, line in lines:
            later = next((j for j in range(k, min(k + 8, len(actions)))
                          if acknowledges(line, *actions[j])), None)
            if later is not None:
                unannounced += later - k
                announced += 1
                k = later + 1
            elif k > 0 and acknowledges(line, *actions[k - 1]):
                twice += 1
        unannounced += len(actions) - k
        # A restart that got past start-up: a game running across it (by
        # the store's start and end times, a second's slack) is resumed.
        for when, early in ctx.bot.starts[1:]:
            if early:
                continue
            running = any(start < when - 1 and (end is None or
                                                end > when + RESUME_S + 1)
                          for start, end in spans)
            if not running:
                continue
            due += 1
            if not any(when <= ts <= when + RESUME_S and
                       line.startswith(RESUMED) for ts, line in lines):
                missed += 1
    db.close()
    return announced, unannounced, twice, missed, due, refused


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stichbot")
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    stichbot = os.path.abspath(args.stichbot)
    rng = random.Random(args.seed)
    started = time.monotonic()
    ctx = Context(stichbot, args.seed)
    drivers = []
    status = 1
    try:
        ctx.bot.start()
        ctx.setup_rooms()
        drivers = [Driver(ctx, i, spec) for i, spec in enumerate(TABLES)]
        for d in drivers:
            d.start()
        expect(ctx.wait_progress(0, PROGRESS_TIMEOUT),
               "no game went on at the first start")
        time.sleep(rng.uniform(0.0, 1.0))
        ctx.bot.kill()
        early, late = run_cycles(ctx, args.kills - 1, rng, drivers)
        # The last run: games go on, then a clean stop.
        since = ctx.acks
        ctx.bot.start()
        expect(ctx.wait_progress(since, PROGRESS_TIMEOUT),
               "no game went on after the last restart")
        time.sleep(0.5)
        ctx.stopping.set()
        for d in drivers:
            d.join(30 * SLOW)
            expect(d.error is None, "driver %d failed:\n%s" %
                   (d.index, d.error))
        rc = ctx.bot.stop()
        expect(rc == 0, "SIGTERM: exit status %d" % rc)
        log = ctx.bot.log()
        for bad in (r"is damaged", r"cannot be restored",
                    r"ERROR SUMMARY: [1-9]", r"AddressSanitizer",
                    r"runtime error:"):
            expect(re.search(bad, log) is None,
                   "the bot's log says %r" % bad)
        games, finished, acked = verify_store(ctx, drivers)
        announced, unannounced, twice, missed, due, refused = \
            verify_transcripts(ctx)
        print("rooms against the store: %d actions announced, %d stored "
              "but never announced, %d announced twice, %d commands "
              "handled twice; resume lines: %d of %d within %.0f s" % (
                  announced, unannounced, twice, refused, due - missed,
                  due, RESUME_S))
        expect(refused == 0, "%d legal commands were refused: handled "
               "twice" % refused)
        expect(unannounced == 0, "%d stored actions were never announced"
               % unannounced)
        expect(twice == 0, "%d actions were announced twice" % twice)
        expect(missed == 0, "%d of %d restarts left a running table "
               "without its resume line within %.0f s" % (missed, due,
                                                           RESUME_S))
        expect(all(len(d.acked) > 0 for d in drivers),
               "some table never had an action acknowledged")
        print("%d kills (%d during start-up), %d games (%d finished), "
              "%d acknowledged actions all stored, %d commands typed, "
              "%.1f s" % (args.kills, early, games, finished, acked,
                          sum(d.sent for d in drivers),
                          time.monotonic() - started))
        print("ok")
        status = 0
    except Failure as e:
        print("FAIL: %s" % e)
        for d in drivers:
            if d.error is not None:
                print("--- driver %d ---\n%s" % (d.index, d.error))
        print("--- bot log (last 40 lines) ---")
        try:
            print("\n".join(ctx.bot.log().splitlines()[-40:]))
        except OSError:
            pass
    finally:
        ctx.close()
    return status


if __name__ == "__main__":
    sys.exit(main())

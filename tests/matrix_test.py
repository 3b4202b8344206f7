#!/usr/bin/env python3
"""The Matrix adapter against a test homeserver (tests/matrix_homeserver.py)
with scripted players (tests/matrix_client.py), through tests/matrix_harness
(the adapter with a stub core that prints every callback as a JSON line).

    matrix_test.py MATRIX_HARNESS [TEST...]

Checks: password and token login, the first sync ignoring old messages,
room messages and direct messages reaching the core with the right
identity, invites, send_private opening a direct room recorded in m.direct
and reusing it after a restart, order and no duplicates through 429s, 500s,
cut connections and a homeserver restart, 10% and 30% of requests failing
without a disconnection and a 60 s outage as one, the next_batch contract
across a crash, duplicate delivery, HTML in display names, m.mentions,
encrypted rooms, membership callbacks, room admins, kicks and parts, and the
history of a room joined late (not commands), and a restart whose first
/sync comes back before the joins; the core's outbox rows reported sent
under transaction ids made from them (a row sent again after a restart
is one event), busy flows, no command handled twice after a kill right
after its effect was stored, members' names from /joined_members, room
titles that are never room ids, and a direct room the player opened.
Everything runs on 127.0.0.1 and each check is bounded by timeouts.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from urllib.parse import unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from matrix_client import MatrixClient, RequestError, quote  # noqa: E402
from matrix_homeserver import Homeserver  # noqa: E402
from matrix_players import wait_until  # noqa: E402

BOT = "@bot:localhost"
ALICE = "@alice:localhost"
BOB = "@bob:localhost"
CAROL = "@carol:localhost"
PASSWORD = "bot-password-7f3a"


class Harness:
    """One run of matrix_harness; events are its stdout lines, parsed."""

    def __init__(self, ctx, config, crash_on=None, crash_after=None):
        self.ctx = ctx
        path = os.path.join(ctx.dir, "network.json")
        with open(path, "w") as f:
            json.dump(config, f)
        args = [ctx.harness, path, ctx.store]
        if crash_on:
            args += ["--crash-on", crash_on]
        if crash_after:
            args += ["--crash-after", crash_after]
        self.log = open(ctx.log_path, "a")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1)
        self.events = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "garbage", "line": line}
            with self.cond:
                self.events.append(event)
                self.cond.notify_all()
        with self.cond:
            self.events.append({"event": "exit"})
            self.cond.notify_all()

    def command(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def wait(self, predicate, timeout=20, what="an event", start=0):
        """The first event from index start on that satisfies predicate."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for e in self.events[start:]:
                    if predicate(e):
                        return e
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError("timed out waiting for %s; events: "
                                         "%s" % (what, self.events[-10:]))
                self.cond.wait(left)

    def wait_connected(self, timeout=20):
        return self.wait(lambda e: e["event"] == "connected" and e["up"],
                         timeout, "connected")

    def wait_message(self, text, timeout=20):
        return self.wait(lambda e: e["event"] == "message" and
                         e["text"] == text, timeout, "message %r" % text)

    def messages(self):
        with self.cond:
            return [e for e in self.events if e["event"] == "message"]

    def texts(self):
        return [e["text"] for e in self.messages()]

    def stop(self):
        """Stops the harness cleanly; it must exit with status 0."""
        if self.proc.poll() is None:
            try:
                self.command(stop="bye")
            except OSError:
                pass
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(5)
        self.log.close()
        assert self.proc.returncode == 0, \
            "the harness exited with status %d" % self.proc.returncode
        assert self.events[-2]["event"] == "stopped", self.events[-3:]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.reader.join(5)
        self.log.close()


class Context:
    """A fresh homeserver, users, store and scratch directory per test."""

    def __init__(self, harness):
        self.harness = harness
        self.dir = tempfile.mkdtemp(prefix="matrix-test-")
        self.store = os.path.join(self.dir, "store.db")
        self.log_path = os.path.join(self.dir, "harness.log")
        self.hs = Homeserver().start()
        st = self.hs.state
        st.register("bot", PASSWORD, "Stichbot")
        st.register("alice", "secret", "Alice")
        st.register("bob", "secret", "Bob")
        st.register("carol", "secret", "Carol")
        self.password_file = os.path.join(self.dir, "password")
        with open(self.password_file, "w") as f:
            f.write(PASSWORD + "\n")
        self.runs = []

    def client(self, user_id):
        return MatrixClient(self.hs.url, user_id).login()

    def config(self, **extra):
        config = {
            "name": "mx",
            "type": "matrix",
            "homeserver": self.hs.url,
            "user_id": BOT,
            "password_file": self.password_file,
            "sync_timeout_ms": 5000,
            "invites": {"allow_users": [ALICE]},
        }
        config.update(extra)
        return config

    def run(self, crash_on=None, crash_after=None, **extra):
        h = Harness(self, self.config(**extra), crash_on, crash_after)
        self.runs.append(h)
        return h

    def close(self):
        for h in self.runs:
            if h.proc.poll() is None:
                h.kill()
        self.hs.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def harness_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""


def bot_bodies(ctx, room_id):
    return [e["content"].get("body") for e in
            ctx.hs.state.room_events(room_id, sender=BOT)]


def sent_privately(ctx, h, user_id, text, id_):
    """Has the bot send text to user_id privately and waits until it was
    sent; asserts that it went to the one room the bot made, alone there,
    and returns that room."""
    h.command(send_private=user_id, text=text, id=id_)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == id_, 30,
           "sent %d" % id_)
    mine = ctx.hs.state.rooms_created_by(BOT)
    assert len(mine) == 1, mine
    assert bot_bodies(ctx, mine[0]) == [text], bot_bodies(ctx, mine[0])
    return mine[0]


def public_room(ctx, owner, alias):
    return owner.create_room(preset="public_chat", room_alias_name=alias)


def joined_harness(ctx, alias, room, **extra):
    """A harness that has connected and joined alias (room's alias)."""
    h = ctx.run(**extra)
    h.wait_connected()
    h.command(join=alias)
    wait_until(lambda: ctx.hs.state.rooms[room].membership(BOT) == "join",
               what="the bot in the room")
    return h


def test_password_login_and_first_sync(ctx):
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "games")
    ctx.hs.state.join(BOT, room)
    alice.say(room, "!old command")
    h = ctx.run()
    h.wait_connected()
    login = ctx.hs.state.logins[-1]
    assert login["identifier"] == {"type": "m.id.user", "user": BOT}, login
    assert "device_id" not in login, login
    assert login["initial_device_display_name"] == "stichbot"
    h.command(join="#games:localhost")
    wait_until(lambda: any(unquote(p).endswith("/join/#games:localhost")
                           for _, p, u in ctx.hs.state.requests if u == BOT),
               what="the join request")
    alice.say(room, "!hello")
    m = h.wait_message("!hello")
    assert m["channel"] == "#games:localhost", m
    assert m["from"] == {"id": ALICE, "name": "Alice"}, m
    assert "!old command" not in h.texts()
    device = [d for _, (u, d) in ctx.hs.state.tokens.items() if u == BOT][0]
    h.stop()

    # A restart logs in with the same device and replays nothing.
    h = ctx.run()
    h.wait_connected()
    assert ctx.hs.state.logins[-1]["device_id"] == device
    h.command(join="#games:localhost")
    alice.say(room, "!again")
    m = h.wait_message("!again")
    assert m["channel"] == "#games:localhost", m
    assert h.texts() == ["!again"], h.texts()
    h.stop()
    log = ctx.harness_log()
    assert PASSWORD not in log
    for token in ctx.hs.state.tokens:
        assert token not in log


def test_token_login(ctx):
    token = ctx.hs.state.create_token(BOT, "TOKDEV")
    token_file = os.path.join(ctx.dir, "token")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "tok")
    config = ctx.config()
    del config["password_file"]
    config["access_token_file"] = token_file
    h = Harness(ctx, config)
    ctx.runs.append(h)
    h.wait_connected()
    assert not any(l["identifier"]["user"] == BOT
                   for l in ctx.hs.state.logins)
    assert ("GET", "/_matrix/client/v3/account/whoami", BOT) in \
        ctx.hs.state.requests
    h.command(join=room)
    wait_until(lambda: ctx.hs.state.rooms[room].membership(BOT) == "join",
               what="the bot in the room")
    alice.say(room, "!status")
    m = h.wait_message("!status")
    assert m["channel"] == room and m["from"]["id"] == ALICE, m
    h.stop()
    assert token not in ctx.harness_log()

    # A refused token never connects and is not logged either.
    with open(token_file, "w") as f:
        f.write("not-a-valid-token\n")
    h = Harness(ctx, config)
    ctx.runs.append(h)
    h.wait(lambda e: e["event"] == "started", 10, "start")
    time.sleep(1.5)
    assert not any(e["event"] == "connected" for e in h.events), h.events
    h.stop()
    log = ctx.harness_log()
    assert "refused the bot's access token" in log
    assert "not-a-valid-token" not in log


def test_direct_messages_and_invites(ctx):
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    h = ctx.run()
    h.wait_connected()
    dm = alice.create_dm(BOT)
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "join",
               what="the bot accepting alice's invite")
    alice.say(dm, "!hand")
    m = h.wait_message("!hand")
    assert m["channel"] is None, m
    assert m["from"] == {"id": ALICE, "name": "Alice"}, m

    # bob is not in invites.allow_users: his invite is left alone.
    bob_dm = bob.create_dm(BOT)
    time.sleep(1.5)
    assert ctx.hs.state.rooms[bob_dm].membership(BOT) == "invite"

    # A two-person room that is a configured channel is not private.
    lobby = public_room(ctx, alice, "lobby")
    h.command(join="#lobby:localhost")
    wait_until(lambda: ctx.hs.state.rooms[lobby].membership(BOT) == "join",
               what="the bot in the lobby")
    alice.say(lobby, "!start")
    m = h.wait_message("!start")
    assert m["channel"] == "#lobby:localhost", m

    # A two-person room the bot was invited to (not direct) is private.
    side = alice.create_room(preset="private_chat", invite=[BOT])
    wait_until(lambda: ctx.hs.state.rooms[side].membership(BOT) == "join",
               what="the bot in the side room")
    alice.say(side, "!help")
    m = h.wait_message("!help")
    assert m["channel"] is None, m
    h.stop()


def test_send_private(ctx):
    ctx.hs.state.set_account_data(BOT, "m.direct",
                                  {CAROL: ["!old:localhost"]})
    bob = ctx.client(BOB)
    h = ctx.run()
    h.wait_connected()
    for text in ["one", "two", "three"]:
        h.command(send_private=BOB, text=text)
    created = wait_until(lambda: ctx.hs.state.rooms_created_by(BOT),
                         what="a direct room")
    dm = created[0]
    wait_until(lambda: bot_bodies(ctx, dm) == ["one", "two", "three"],
               what="three messages in order")
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 1
    room = ctx.hs.state.rooms[dm]
    assert room.membership(BOB) == "invite"
    invite = room.state_content("m.room.member", BOB)
    assert invite.get("is_direct") is True, invite
    assert room.state_content("m.room.encryption") is None
    join_rule = room.state_content("m.room.join_rules")["join_rule"]
    assert join_rule == "invite"
    # Private lines (hands, prompts) are m.text mentioning the player:
    # notices are silenced by the default push rules.
    first = ctx.hs.state.room_events(dm, sender=BOT)[0]["content"]
    assert first["msgtype"] == "m.text", first
    assert first["m.mentions"] == {"user_ids": [BOB]}, first
    direct = wait_until(lambda: (lambda d: d if d and BOB in d else None)(
        ctx.hs.state.account_data(BOT, "m.direct")), what="m.direct")
    assert direct == {CAROL: ["!old:localhost"], BOB: [dm]}, direct

    # bob answers in the direct room: a private message.
    bob.join(dm)
    bob.say(dm, "!bid 2")
    m = h.wait_message("!bid 2")
    assert m["channel"] is None and m["from"]["id"] == BOB, m
    h.stop()

    # After a restart the same room is used.
    h = ctx.run()
    h.wait_connected()
    h.command(send_private=BOB, text="four")
    wait_until(lambda: bot_bodies(ctx, dm)[-1:] == ["four"],
               what="the message in the same room")
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 1

    # Once bob has left it, a new one is opened.
    bob.leave(dm)
    time.sleep(0.5)
    h.command(send_private=BOB, text="five")
    created = wait_until(
        lambda: [r for r in ctx.hs.state.rooms_created_by(BOT) if r != dm],
        what="a second direct room")
    wait_until(lambda: bot_bodies(ctx, created[0]) == ["five"],
               what="the message in the new room")
    direct = wait_until(lambda: (lambda d: d if len(d.get(BOB, [])) == 2
                                 else None)(
        ctx.hs.state.account_data(BOT, "m.direct")), what="m.direct")
    assert direct[CAROL] == ["!old:localhost"], direct
    assert direct[BOB] == [dm, created[0]], direct
    h.stop()


def test_order_through_faults(ctx):
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "faults")
    h = joined_harness(ctx, "#faults:localhost", room, outage_ms=2000)
    expected = ["m%02d" % i for i in range(24)]
    ctx.hs.limit_sends(3, 300)
    ctx.hs.fail_requests(2)
    ctx.hs.drop_sends(2)
    for text in expected[:8]:
        h.command(send_channel="#faults:localhost", text=text)
    wait_until(lambda: len(bot_bodies(ctx, room)) >= 3, 30,
               "the first messages")
    # The homeserver goes down mid-stream and comes back.
    ctx.hs.stop()
    for text in expected[8:16]:
        h.command(send_channel="#faults:localhost", text=text)
    h.wait(lambda e: e["event"] == "connected" and not e["up"], 20,
           "the disconnection")
    down = len(h.events)
    time.sleep(1.0)
    ctx.hs.start()
    h.wait(lambda e: e["event"] == "connected" and e["up"], 30,
           "the reconnection", start=down)
    ctx.hs.drop_syncs(2)
    alice.say(room, "!during faults")
    for text in expected[16:]:
        h.command(send_channel="#faults:localhost", text=text)
    ctx.hs.limit_sends(2, 500)
    wait_until(lambda: len(bot_bodies(ctx, room)) >= len(expected), 60,
               "every message")
    time.sleep(0.5)
    assert bot_bodies(ctx, room) == expected, bot_bodies(ctx, room)
    h.wait_message("!during faults")
    h.command(queue_depth=True)
    depth = h.wait(lambda e: e["event"] == "queue_depth", 5, "queue depth")
    assert depth["depth"] == 0, depth
    h.stop()
    assert h.texts().count("!during faults") == 1, h.texts()


def connected_events(h, start=0):
    with h.cond:
        return [e["up"] for e in h.events[start:]
                if e["event"] == "connected"]


def test_sync_failures(ctx):
    """Issue 14.7: a share of the bot's requests fail (10%, then 30%),
    /sync among them, while commands come in and lines go out.  Each
    failure is retried quietly: the core never hears "disconnected", and
    every command and line arrives once and in order."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "flaky")
    # The default outage_ms: what a real deployment gets.
    h = joined_harness(ctx, "#flaky:localhost", room)
    assert connected_events(h) == [True], h.events
    for share, seed in ((0.1, 1), (0.3, 2)):
        failed = ctx.hs.fail_share(share, [BOT], seed)
        said = ["!say %d %d" % (share * 100, i) for i in range(60)]
        lines = ["line %d %d" % (share * 100, i) for i in range(60)]
        before = len(bot_bodies(ctx, room))
        for text, line in zip(said, lines):
            alice.say(room, text)
            h.command(send_channel="#flaky:localhost", text=line)
            # The pace of a lively table, so that many /syncs happen.
            time.sleep(0.05)
        h.wait_message(said[-1], 60)
        wait_until(lambda: len(bot_bodies(ctx, room)) >= before + 60, 60,
                   "every line")
        ctx.hs.fail_share(0)
        syncs = sum(1 for p in failed if p.endswith("/sync"))
        assert syncs >= 2, (share, failed)
        got = [t for t in h.texts() if t in said]
        assert got == said, (share, got)
        assert bot_bodies(ctx, room)[before:] == lines, \
            bot_bodies(ctx, room)[before:]
        assert connected_events(h) == [True], (share, h.events[-5:])
        print("  %d%%: %d requests failed, %d of them /sync; no "
              "disconnection" % (share * 100, len(failed), syncs))
    h.stop()


def test_outage(ctx):
    """A real outage (the homeserver away for 60 s) is one "down" after
    outage_ms and one "up" when it answers again; lines said meanwhile
    go out after it, in order, and commands flow again."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "outage")
    h = joined_harness(ctx, "#outage:localhost", room, outage_ms=5000)
    h.command(send_channel="#outage:localhost", text="before")
    wait_until(lambda: bot_bodies(ctx, room) == ["before"],
               what="the first line")
    start = len(h.events)
    stopped = time.monotonic()
    ctx.hs.stop()
    h.command(send_channel="#outage:localhost", text="during")
    h.wait(lambda e: e["event"] == "connected" and not e["up"], 20,
           "the disconnection", start=start)
    down_after = time.monotonic() - stopped
    assert 4.0 <= down_after <= 12.0, down_after
    while time.monotonic() - stopped < 60:
        time.sleep(0.5)
    assert connected_events(h, start) == [False], h.events[start:]
    ctx.hs.start()
    h.wait(lambda e: e["event"] == "connected" and e["up"], 30,
           "the reconnection", start=start)
    wait_until(lambda: bot_bodies(ctx, room) == ["before", "during"], 30,
               "the line said during the outage")
    alice.say(room, "!after")
    h.wait_message("!after")
    assert connected_events(h, start) == [False, True], h.events[start:]
    h.stop()


def sent_ids(h):
    with h.cond:
        return [e["id"] for e in h.events if e["event"] == "sent"]


def said_row(h, channel, text, id_):
    """Has the bot say text in channel as its table's outbox row id_, and
    waits until the row is reported sent."""
    h.command(send_channel=channel, text=text, id=id_, flow=channel)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == id_, 20,
           "sent %d" % id_)


def bot_txns(ctx):
    """The transaction ids of the bot's sends, in the order they came."""
    return [unquote(p).rsplit("/", 1)[1]
            for m, p, u in ctx.hs.state.requests
            if m == "PUT" and "/send/" in p and u == BOT]


def test_outbox(ctx):
    """The core's outbox rows (send_info.id): each is reported sent once
    the homeserver answered its PUT, under a transaction id made from the
    row id, so a row the core sends again after a restart is dropped by
    the homeserver as the same transaction: one event in the room.
    Tracked messages keep their order through an outage, and wait,
    unreported, while the bot is kicked from the room, until it is
    invited back."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "outbox")
    h = joined_harness(ctx, "#outbox:localhost", room, outage_ms=2000)
    h.command(send_channel="#outbox:localhost", text="five", id=5,
              flow="#outbox:localhost")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 5, 20, "sent 5")
    txn5 = bot_txns(ctx)[-1]
    assert txn5.endswith(".5"), txn5
    # The answer to the PUT is lost: the retry is the same transaction,
    # and the row is reported once.
    ctx.hs.drop_sends(1)
    h.command(send_channel="#outbox:localhost", text="six", id=6,
              flow="#outbox:localhost")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 6, 20, "sent 6")
    txns = bot_txns(ctx)
    assert txns[-1] == txns[-2] and txns[-1].endswith(".6"), txns
    # Untracked lines are not reported.
    h.command(send_channel="#outbox:localhost", text="reply")
    wait_until(lambda: bot_bodies(ctx, room)[-1:] == ["reply"],
               what="the untracked line")
    h.stop()
    assert sent_ids(h) == [5, 6], h.events

    # After a restart (a new login, the same device) the core sends its
    # unconfirmed row 6 again: the homeserver keeps one event.
    h = ctx.run(outage_ms=2000)
    h.command(send_channel="#outbox:localhost", text="six", id=6,
              flow="#outbox:localhost")
    h.command(join="#outbox:localhost")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 6, 20, "sent 6")
    assert bot_txns(ctx)[-1] == txns[-1], bot_txns(ctx)
    assert bot_bodies(ctx, room) == ["five", "six", "reply"], \
        bot_bodies(ctx, room)

    # Queued through an outage, in order, each reported once.
    start = len(h.events)
    ctx.hs.stop()
    lines = ["t%02d" % i for i in range(10)]
    for i, text in enumerate(lines):
        h.command(send_channel="#outbox:localhost", text=text, id=10 + i,
                  flow="#outbox:localhost")
    h.wait(lambda e: e["event"] == "connected" and not e["up"], 20,
           "the disconnection", start=start)
    h.command(queue_depth=True)
    depth = h.wait(lambda e: e["event"] == "queue_depth", 5, "depth",
                   start=start)
    # Held, but none can leave in an outage: a stop does not wait.
    assert depth["depth"] == 0, depth
    ctx.hs.start()
    wait_until(lambda: bot_bodies(ctx, room)[3:] == lines, 40,
               "the lines queued during the outage")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 19, 20, "sent 19")
    assert sent_ids(h) == [6] + list(range(10, 20)), sent_ids(h)

    # A private line is tracked the same way.
    h.command(send_private=BOB, text="your hand", id=30,
              flow="#outbox:localhost")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 30, 20, "sent 30")

    dm = ctx.hs.state.rooms_created_by(BOT)[0]

    # Kicked: the table's rows wait, unreported, for an invitation (the
    # store keeps them); its private line waits behind them, in the
    # table's order, and so does its clock (flow_waiting).  A reply goes.
    kicked_at = len(h.events)
    alice.kick(room, BOT, "enough")
    wait_until(lambda: "removed from" in ctx.harness_log(),
               what="the kick")
    # The core hears it is out (its game then waits for its return).
    h.wait(lambda e: e == {"event": "inside", "channel": "#outbox:localhost",
                           "in": False}, 20, "out of the channel",
           kicked_at)
    h.command(send_channel="#outbox:localhost", text="kept", id=40,
              flow="#outbox:localhost")
    h.command(send_private=BOB, text="after kept", id=41,
              flow="#outbox:localhost")
    h.command(send_private=BOB, text="a reply")
    wait_until(lambda: bot_bodies(ctx, dm)[-1:] == ["a reply"],
               what="the reply, past the table's waiting line")
    h.command(flow_waiting="#outbox:localhost")
    waiting = h.wait(lambda e: e["event"] == "flow_waiting", 5, "waiting")
    assert waiting["n"] == 2, waiting
    assert 40 not in sent_ids(h) and 41 not in sent_ids(h), sent_ids(h)
    # Invited back (a configured channel is joined whoever invites), the
    # bot says them, in order.
    alice.invite(room, BOT)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 41, 30,
           "the rows said after the invitation")
    assert sent_ids(h)[-2:] == [40, 41], sent_ids(h)
    assert bot_bodies(ctx, room)[-1] == "kept", bot_bodies(ctx, room)
    # ... and that it is back, once (its table then resumes).
    back = [e for e in h.events[kicked_at:] if e["event"] == "inside"]
    assert back == [{"event": "inside", "channel": "#outbox:localhost",
                     "in": False},
                    {"event": "inside", "channel": "#outbox:localhost",
                     "in": True}], back
    assert bot_bodies(ctx, dm)[-2:] == ["a reply", "after kept"], \
        bot_bodies(ctx, dm)

    # Kicked again, then restarted: a restart does not undo the kick
    # (before, the configured channel was simply joined again); the
    # core's row waits, and an invitation brings the bot back.
    alice.kick(room, BOT, "again")
    wait_until(lambda: "removed from %s by %s: again" % (room, ALICE)
               in ctx.harness_log(), what="the second kick")
    h.stop()
    h = ctx.run()
    h.wait_connected()
    h.command(send_channel="#outbox:localhost", text="after a restart",
              id=50, flow="#outbox:localhost")
    h.command(join="#outbox:localhost")
    wait_until(lambda: "staying out of #outbox:localhost" in
               ctx.harness_log(), what="the bot staying out")
    assert ctx.hs.state.rooms[room].membership(BOT) == "leave"
    assert 50 not in sent_ids(h), sent_ids(h)
    alice.invite(room, BOT)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 50, 30,
           "the row said after the invitation")
    assert bot_bodies(ctx, room)[-1] == "after a restart"
    h.stop()
    # The stop ran the loop until queue_depth() was 0, as the core does
    # at SIGTERM: stop() itself had nothing left to flush.
    assert "still queued at stop" not in ctx.harness_log()


def test_busy(ctx):
    """A flow with a long backlog is busy (the core then holds back);
    other flows are not, and it clears once the backlog went out."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "busy1")
    h = joined_harness(ctx, "#busy1:localhost", room, outage_ms=2000)
    ctx.hs.stop()
    for i in range(45):
        h.command(send_channel="#busy1:localhost", text="b%d" % i,
                  id=i + 1, flow="#busy1:localhost")
    h.command(busy="#busy1:localhost")
    h.command(busy="#other:localhost")
    b = h.wait(lambda e: e["event"] == "busy", 5, "busy")
    assert b["busy"] is True, b
    b = h.wait(lambda e: e["event"] == "busy" and e is not b, 5, "busy")
    assert b["busy"] is False, b
    ctx.hs.start()
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 45, 60,
           "the backlog sent")
    start = len(h.events)
    h.command(busy="#busy1:localhost")
    b = h.wait(lambda e: e["event"] == "busy", 5, "busy", start=start)
    assert b["busy"] is False, b
    h.stop()


def test_withhold(ctx):
    """The bot stops: the stored messages waiting behind a backlog are
    dropped unreported (their outbox rows go out after the next start),
    the one being sent is finished, replies stay, and the goodbye queued
    next is said without waiting for the backlog."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "hold1")
    h = joined_harness(ctx, "#hold1:localhost", room, outage_ms=60000)
    ctx.hs.stop()
    for i in range(10):
        h.command(send_channel="#hold1:localhost", text="stored %d" % i,
                  id=i + 1, flow="#hold1:localhost")
    h.command(send_channel="#hold1:localhost", text="a reply")
    # The first is on its way (the homeserver is down): it stays.
    time.sleep(0.5)
    h.command(withhold=True)
    h.command(send_channel="#hold1:localhost", text="goodbye",
              flow="#hold1:localhost")
    ctx.hs.start()
    alice.wait_for(lambda c: any(m.get("body") == "goodbye" for m in
                                 c.messages(room, BOT)), 30)
    texts = [m.get("body") for m in alice.messages(room, BOT)]
    assert texts == ["stored 0", "a reply", "goodbye"], texts
    # The homeserver's answer to the last send may still be on its way.
    deadline = time.monotonic() + 10
    while True:
        start = len(h.events)
        h.command(queue_depth=True)
        d = h.wait(lambda e: e["event"] == "queue_depth", 5, "queue depth",
                   start=start)
        if d["depth"] == 0:
            break
        assert time.monotonic() < deadline, d
        time.sleep(0.1)
    sent = [e["id"] for e in h.events if e["event"] == "sent"]
    assert sent == [1], sent
    h.stop()


def test_silenced_room(ctx):
    """A room whose power levels leave the bot silent (a 403 on every
    send, as a room upgrade does to the old room) keeps the table's
    lines: unreported, with the table's private lines and its clock
    waiting behind them, until the power levels let the bot speak; then
    they are said at once, in order.  A stop does not wait for them, and
    after a restart they wait again."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "hush")
    flow = "#hush:localhost"
    h = joined_harness(ctx, flow, room)
    said_row(h, flow, "one", 1)
    power = ctx.hs.state.rooms[room].state_content("m.room.power_levels")
    silent = dict(power, events_default=50)
    alice.set_state(room, "m.room.power_levels", silent)
    h.command(send_channel=flow, text="two", id=2, flow=flow)
    wait_until(lambda: "refuses the bot's messages" in ctx.harness_log(),
               what="the refusal in the log")
    h.command(send_private=BOB, text="your hand", id=3, flow=flow)
    h.command(flow_waiting=flow)
    waiting = h.wait(lambda e: e["event"] == "flow_waiting", 5, "waiting")
    assert waiting["n"] == 2, waiting
    assert sent_ids(h) == [1], sent_ids(h)
    # Allowed again: said at once, not after the slow retry (15-30 s).
    start = time.monotonic()
    alice.set_state(room, "m.room.power_levels", power)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 3, 30, "sent 3")
    assert time.monotonic() - start < 10, time.monotonic() - start
    assert sent_ids(h) == [1, 2, 3], sent_ids(h)
    assert bot_bodies(ctx, room) == ["one", "two"], bot_bodies(ctx, room)
    assert "takes the bot's messages again" in ctx.harness_log()

    # Silent again: a stop does not wait for the room's line...
    alice.set_state(room, "m.room.power_levels", silent)
    wait_until(lambda: ctx.hs.state.rooms[room].state_content(
        "m.room.power_levels") == silent, what="the power levels")
    h.command(send_channel=flow, text="four", id=4, flow=flow)
    wait_until(lambda: ctx.harness_log().count(
        "refuses the bot's messages") == 2, what="the second refusal")
    h.stop()
    assert "still queued at stop" not in ctx.harness_log()
    assert 4 not in sent_ids(h), sent_ids(h)
    # ... and after a restart the core's row waits again, then goes.
    h = ctx.run()
    h.command(send_channel=flow, text="four", id=4, flow=flow)
    h.command(join=flow)
    wait_until(lambda: ctx.harness_log().count(
        "refuses the bot's messages") == 3, what="the refusal after a start")
    alice.set_state(room, "m.room.power_levels", power)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 4, 30, "sent 4")
    assert bot_bodies(ctx, room) == ["one", "two", "four"], \
        bot_bodies(ctx, room)
    h.stop()


def upgrade_room(ctx, alice, old, alias=None):
    """Upgrades old as Synapse does: a new room (the alias moves there),
    m.room.tombstone in the old one, whose power levels then leave
    everyone below 50 silent.  Returns the new room's id."""
    new = alice.create_room(preset="public_chat")
    st = ctx.hs.state
    if alias is not None:
        with st.cond:
            st.aliases[alias] = new
        alice.set_state(new, "m.room.canonical_alias", {"alias": alias})
    alice.set_state(old, "m.room.tombstone",
                    {"body": "This room has been replaced",
                     "replacement_room": new})
    power = st.rooms[old].state_content("m.room.power_levels")
    alice.set_state(old, "m.room.power_levels",
                    dict(power, events_default=50, invite=50))
    return new


def test_room_upgrade(ctx):
    """A channel's room upgraded mid-game (m.room.tombstone): the bot
    follows its people into the replacement room, says there what the
    table says from then on (what waited for the old room too, in order),
    reads commands there as the same channel's, and leaves the old room.
    Before, the old room refused every line and they were lost.  For a
    channel named by alias and one named by room id (a room the bot was
    invited to)."""
    alice = ctx.client(ALICE)
    old = public_room(ctx, alice, "up")
    alias = "#up:localhost"
    h = joined_harness(ctx, alias, old)
    said_row(h, alias, "one", 1)
    new = upgrade_room(ctx, alice, old, alias)
    wait_until(lambda: ctx.hs.state.rooms[new].membership(BOT) == "join",
               what="the bot in the new room")
    said_row(h, alias, "two", 2)
    assert bot_bodies(ctx, new) == ["two"], bot_bodies(ctx, new)
    assert bot_bodies(ctx, old) == ["one"], bot_bodies(ctx, old)
    alice.join(new)
    alice.say(new, "!status")
    msg = h.wait(lambda e: e["event"] == "message" and
                 e["text"] == "!status", 20, "a command in the new room")
    assert msg["channel"] == alias, msg
    wait_until(lambda: ctx.hs.state.rooms[old].membership(BOT) == "leave",
               what="the bot leaving the old room")
    assert "was upgraded to %s" % new in ctx.harness_log()

    # A channel named by its room id; a line queued as the upgrade comes
    # goes to the new room.
    other = public_room(ctx, alice, "up2")
    h.command(join=other)
    wait_until(lambda: ctx.hs.state.rooms[other].membership(BOT) == "join",
               what="the bot in the second room")
    newer = upgrade_room(ctx, alice, other)
    said_row(h, other, "three", 3)
    assert bot_bodies(ctx, newer) == ["three"], bot_bodies(ctx, newer)
    alice.join(newer)
    alice.say(newer, "!hand")
    msg = h.wait(lambda e: e["event"] == "message" and
                 e["text"] == "!hand", 20, "a command in the newer room")
    assert msg["channel"] == other, msg
    wait_until(lambda: ctx.hs.state.rooms[other].membership(BOT) ==
               "leave", what="the bot leaving the second room")
    h.stop()

    # After a restart the core names the channel by its old room id
    # again: the bot goes straight to the replacement (the store
    # remembers the upgrade), not back into the old room, and commands
    # there are the channel's.  Before, a join of the old room won over
    # the upgrade, and the table's commands went nowhere.
    mark = len(ctx.hs.state.requests)
    h = ctx.run()
    h.wait_connected()
    h.command(join=other)
    said_row(h, other, "four", 4)
    assert bot_bodies(ctx, newer)[-1] == "four", bot_bodies(ctx, newer)
    alice.say(newer, "!status")
    msg = h.wait(lambda e: e["event"] == "message" and
                 e["text"] == "!status", 20, "a command after a restart")
    assert msg["channel"] == other, msg
    assert ctx.hs.state.rooms[other].membership(BOT) == "leave"
    joins = [unquote(p) for m, p, u in ctx.hs.state.requests[mark:]
             if m == "POST" and "/join" in p and u == BOT]
    assert not any(other in p for p in joins), joins
    h.stop()


def test_expire(ctx):
    """A message that expires (the turn timer's reminder) is dropped when
    it cannot leave before its time, and when the homeserver's outage is
    declared (the core stops the clock it speaks of, and starts it afresh
    when the homeserver is back); the lines behind it go on, and one that
    leaves in time is said."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "exp1")
    h = joined_harness(ctx, "#exp1:localhost", room, outage_ms=2000)
    flow = "#exp1:localhost"
    h.command(send_channel=flow, text="in time", flow=flow,
              expires_in=60000)
    wait_until(lambda: bot_bodies(ctx, room) == ["in time"], 30,
               "the line in time")
    # The room refuses the bot's lines past the reminder's time.
    ctx.hs.fail_room_sends(room, True)
    h.command(send_channel=flow, text="too late", flow=flow,
              expires_in=1000)
    h.command(send_channel=flow, text="behind it", id=1, flow=flow)
    time.sleep(2.0)
    ctx.hs.fail_room_sends(room, False)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 1, 60,
           "the line behind the late one")
    assert bot_bodies(ctx, room) == ["in time", "behind it"], \
        bot_bodies(ctx, room)
    # An outage: what expires goes when it is declared, even in time.
    start = len(h.events)
    ctx.hs.stop()
    h.command(send_channel=flow, text="before the outage", flow=flow,
              expires_in=600000)
    h.command(send_channel=flow, text="kept", id=2, flow=flow)
    h.wait(lambda e: e["event"] == "connected" and not e["up"], 30,
           "the outage", start=start)
    ctx.hs.start()
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 2, 60,
           "the stored line after the outage", start=start)
    assert bot_bodies(ctx, room) == ["in time", "behind it", "kept"], \
        bot_bodies(ctx, room)
    h.stop()
    with open(ctx.log_path) as f:
        log = f.read()
    assert "could not leave in time" in log and \
        "no use after the outage" in log, log[-2000:]


def test_goodbye_past_failing_room(ctx):
    """The bot stops while a table's hand keeps failing in a player's
    direct room: the table's goodbye, queued after the withhold, still
    reaches the table's room (before, it waited behind that hand, in the
    table's order across rooms, and was never said)."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "bye")
    h = joined_harness(ctx, "#bye:localhost", room, outage_ms=60000)
    flow = "#bye:localhost"
    dm = sent_privately(ctx, h, ALICE, "hello", 1)

    def puts():
        return sum(1 for m, p, u in ctx.hs.state.requests
                   if m == "PUT" and u == BOT and
                   "/rooms/%s/send/" % dm in unquote(p))
    before = puts()
    ctx.hs.fail_room_sends(dm, True)
    h.command(send_private=ALICE, text="a hand", id=2, flow=flow)
    wait_until(lambda: puts() > before, 10, "the hand's first try")
    h.command(withhold=True)
    h.command(send_channel=flow, text="goodbye", flow=flow)
    wait_until(lambda: bot_bodies(ctx, room) == ["goodbye"], 15,
               "the goodbye while the direct room fails")
    assert bot_bodies(ctx, dm) == ["hello"], bot_bodies(ctx, dm)
    ctx.hs.fail_room_sends(dm, False)
    h.stop()


def test_shared_direct_room(ctx):
    """One direct room carries a player's private lines from two tables.
    Sends into table A's room fail for a while: A's lines wait (its hand
    behind its room's line), but table B's hand, queued behind A's hand
    in the same direct room, and B's room lines go on meanwhile."""
    alice = ctx.client(ALICE)
    room_a = public_room(ctx, alice, "share-a")
    room_b = public_room(ctx, alice, "share-b")
    h = joined_harness(ctx, "#share-a:localhost", room_a, outage_ms=60000)
    h.command(join="#share-b:localhost")
    wait_until(lambda: ctx.hs.state.rooms[room_b].membership(BOT) ==
               "join", what="the bot in room B")
    dm = sent_privately(ctx, h, ALICE, "hello", 1)
    ctx.hs.fail_room_sends(room_a, True)
    h.command(send_channel="#share-a:localhost", text="A line", id=2,
              flow="#share-a:localhost")
    h.command(send_private=ALICE, text="A hand", id=3,
              flow="#share-a:localhost")
    h.command(send_channel="#share-b:localhost", text="B line", id=4,
              flow="#share-b:localhost")
    h.command(send_private=ALICE, text="B hand", id=5,
              flow="#share-b:localhost")
    h.command(send_channel="#share-b:localhost", text="B after", id=6,
              flow="#share-b:localhost")
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 6, 15,
           "table B's lines while room A fails")
    assert bot_bodies(ctx, room_b) == ["B line", "B after"], \
        bot_bodies(ctx, room_b)
    assert bot_bodies(ctx, dm) == ["hello", "B hand"], bot_bodies(ctx, dm)
    assert bot_bodies(ctx, room_a) == [], bot_bodies(ctx, room_a)
    sent = [e["id"] for e in h.events if e["event"] == "sent"]
    assert 2 not in sent and 3 not in sent, sent
    ctx.hs.fail_room_sends(room_a, False)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 3, 60,
           "table A's hand once its room takes lines again")
    assert bot_bodies(ctx, room_a) == ["A line"], bot_bodies(ctx, room_a)
    assert bot_bodies(ctx, dm) == ["hello", "B hand", "A hand"], \
        bot_bodies(ctx, dm)
    h.stop()


def test_direct_room_answer_lost(ctx):
    """The homeserver made the direct room the bot asked for, but the
    answer never came (a timeout; a kill before it): the bot takes the
    room it made, in which the player is still invited, rather than
    opening a second one and leaving an invitation that leads nowhere.
    Within one run (the retry), and after a SIGKILL that came before the
    answer."""
    ctx.client(BOB)
    ctx.client(CAROL)
    ctx.hs.drop_creates(1)
    h = ctx.run()
    h.wait_connected()
    created = [sent_privately(ctx, h, BOB, "hand 1", 31)]
    assert ctx.hs.state.rooms[created[0]].membership(BOB) == "invite"
    direct = wait_until(lambda: (lambda d: d if d and BOB in d else None)(
        ctx.hs.state.account_data(BOT, "m.direct")), what="m.direct")
    assert direct == {BOB: created}, direct
    h.stop()

    ctx.hs.drop_creates(1)
    h = ctx.run()
    h.wait_connected()
    h.command(send_private=CAROL, text="hand 2", id=32)
    carols = wait_until(lambda: [r for r in ctx.hs.state.rooms_created_by(BOT)
                                 if r not in created],
                        what="carol's room made")
    # Killed before the retry: the line dies with the process.
    h.kill()
    h = ctx.run()
    h.wait_connected()
    h.command(send_private=CAROL, text="hand 3", id=33)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 33, 30, "sent 33")
    now = [r for r in ctx.hs.state.rooms_created_by(BOT) if r not in created]
    assert now == carols, (now, carols)
    assert bot_bodies(ctx, carols[0]) == ["hand 3"], \
        bot_bodies(ctx, carols[0])
    assert "using the direct room %s that the bot opened" % carols[0] in \
        ctx.harness_log(), ctx.harness_log()[-2000:]
    h.stop()

    # On a connection kept open from the request before, libcurl would
    # quietly send a createRoom whose answer was cut off again, and the
    # homeserver would make a second room: the player got two
    # invitations, and the lines went to the one they did not accept.
    h = ctx.run()
    h.wait_connected()
    for i in range(3):
        ctx.hs.drop_creates(1)
        user = "@warm%d:localhost" % i
        ctx.hs.state.register("warm%d" % i, "secret", "Warm %d" % i)
        h.command(send_private=user, text="warm %d" % i, id=40 + i)
        h.wait(lambda e: e["event"] == "sent" and e["id"] == 40 + i, 30,
               "sent %d" % (40 + i))
        rooms = [r for r in ctx.hs.state.rooms_created_by(BOT)
                 if ctx.hs.state.rooms[r].membership(user) is not None]
        assert len(rooms) == 1, (user, rooms)
        assert bot_bodies(ctx, rooms[0]) == ["warm %d" % i], \
            bot_bodies(ctx, rooms[0])
    h.stop()


def test_members_titles_and_dms(ctx):
    """Issue 16.4: people already in a room are known by their display
    names from GET /joined_members (here the homeserver lazy-loads
    members, so /sync alone would give raw user ids); a room's title in
    private lines is its alias or name, never its id; a direct room the
    player opened is reused; self_name is the bot's user id."""
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    room = public_room(ctx, alice, "names")
    bob.join(room)
    named = alice.create_room(preset="public_chat", name="Card Table")
    bare = alice.create_room(preset="public_chat")
    bob.join(bare)
    ctx.hs.state.faults.lazy_members = True
    h = ctx.run()
    h.wait_connected()
    # The channels by room id: titles must not be the ids.
    for r in (room, named, bare):
        h.command(join=r)
    for r in (room, named, bare):
        wait_until(lambda: ctx.hs.state.rooms[r].membership(BOT) == "join",
                   what="the bot in " + r)
    wait_until(lambda: sum(1 for m, p, u in ctx.hs.state.requests
                           if p.endswith("/joined_members") and u == BOT)
               >= 3, what="joined_members")
    bob.say(room, "!join")
    m = h.wait_message("!join")
    assert m["from"] == {"id": BOB, "name": "Bob"}, m
    titles = []
    for r in (room, named, bare):
        start = len(h.events)
        h.command(channel_title=r)
        titles.append(h.wait(lambda e: e["event"] == "channel_title", 5,
                             "title", start=start)["title"])
    assert titles == ["#names:localhost", "Card Table", "Alice and Bob"], \
        titles
    h.command(self_name=True)
    n = h.wait(lambda e: e["event"] == "self_name", 5, "self_name")
    assert n["name"] == BOT, n
    h.stop()

    # Carol opens a direct room with the bot; the bot's own m.direct is
    # lost (never written): her room is still the one used.
    ctx.hs.state.faults.lazy_members = False
    ctx.hs.state.users[BOT].account_data.pop("m.direct", None)
    carol = ctx.client(CAROL)
    dm = carol.create_room(preset="trusted_private_chat", is_direct=True,
                           invite=[BOT])
    h = ctx.run(invites={"allow_users": [CAROL]})
    h.wait_connected()
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "join",
               what="the bot accepting carol's invite")
    with ctx.hs.state.cond:
        ctx.hs.state.users[BOT].account_data.pop("m.direct", None)
    h.stop()
    h = ctx.run(invites={"allow_users": [CAROL]})
    h.wait_connected()
    h.command(send_private=CAROL, text="your turn", id=7)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 7, 20, "sent 7")
    assert bot_bodies(ctx, dm) == ["your turn"], bot_bodies(ctx, dm)
    assert ctx.hs.state.rooms_created_by(BOT) == []
    direct = wait_until(lambda: ctx.hs.state.account_data(BOT, "m.direct"),
                        what="m.direct")
    assert direct == {CAROL: [dm]}, direct
    h.stop()


def test_relogin_and_lost_position(ctx):
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "relogin")
    h = joined_harness(ctx, "#relogin:localhost", room)
    device = ctx.hs.state.logins[-1].get("device_id")
    # The server forgets the bot's token: it logs in again, same device.
    with ctx.hs.state.cond:
        for token, (user, dev) in list(ctx.hs.state.tokens.items()):
            if user == BOT:
                device = dev
                del ctx.hs.state.tokens[token]
    h.command(send_channel="#relogin:localhost", text="after relogin")
    alice.say(room, "!still there")
    h.wait_message("!still there")
    wait_until(lambda: bot_bodies(ctx, room) == ["after relogin"],
               what="the message after the new login")
    assert ctx.hs.state.logins[-1]["device_id"] == device
    assert [l["identifier"]["user"] for l in ctx.hs.state.logins].count(
        BOT) == 2
    h.stop()

    # A stored position the server refuses: start afresh, no replay.
    store = __import__("sqlite3").connect(ctx.store)
    store.execute("UPDATE kv SET value = 'bogus' WHERE key = "
                  "'matrix:mx:next_batch'")
    store.commit()
    store.close()
    h = ctx.run()
    h.wait_connected()
    h.command(join="#relogin:localhost")
    alice.say(room, "!fresh")
    h.wait_message("!fresh")
    assert h.texts() == ["!fresh"], h.texts()
    assert "refused the stored /sync position" in ctx.harness_log()
    h.stop()


def test_next_batch_contract(ctx):
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "crash")
    h = ctx.run(crash_on="CRASH")
    h.wait_connected()
    h.command(join="#crash:localhost")
    wait_until(lambda: ctx.hs.state.rooms[room].membership(BOT) == "join",
               what="the bot in the room")
    alice.say(room, "before")
    h.wait_message("before")
    # Three messages in one /sync batch; the core dies on the second.
    ctx.hs.hold_syncs(True)
    for text in ["A", "CRASH", "B"]:
        alice.say(room, text)
    ctx.hs.hold_syncs(False)
    h.wait(lambda e: e["event"] == "exit", 20, "the crash")
    assert h.proc.wait() == 3
    assert h.texts() == ["before", "A"], h.texts()
    h.kill()

    h = ctx.run()
    h.wait_connected()
    h.command(join="#crash:localhost")
    h.wait_message("B")
    alice.say(room, "after")
    h.wait_message("after")
    time.sleep(0.3)
    assert h.texts() == ["CRASH", "B", "after"], h.texts()
    h.stop()

    h = ctx.run()
    h.wait_connected()
    h.command(join="#crash:localhost")
    alice.say(room, "last")
    h.wait_message("last")
    time.sleep(0.3)
    assert h.texts() == ["last"], h.texts()
    h.stop()


def stored_moves(ctx):
    """What the harness's stub core stored, as the core stores moves."""
    db = __import__("sqlite3").connect(ctx.store)
    try:
        row = db.execute("SELECT value FROM kv WHERE key = "
                         "'harness:moves'").fetchone()
    finally:
        db.close()
    return json.loads(row[0]) if row else []


def test_exactly_once(ctx):
    """Issue 14.3: a command whose effect was committed is not handled
    again after a SIGKILL, however close the kill came after the commit:
    the event id is marked handled in the core's own transaction.  One
    killed before the commit comes again."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "once")
    h = joined_harness(ctx, "#once:localhost", room,
                       crash_after="!play b7")
    # Three commands in one /sync batch; the process dies right after
    # the second one's effect was committed.
    ctx.hs.hold_syncs(True)
    for text in ["!bid 3", "!play b7", "!play r2"]:
        alice.say(room, text)
    ctx.hs.hold_syncs(False)
    h.wait(lambda e: e["event"] == "exit", 20, "the crash")
    h.kill()
    assert h.proc.returncode == 3, h.proc.returncode
    assert stored_moves(ctx) == ["!bid 3", "!play b7"], stored_moves(ctx)

    h = ctx.run(crash_on="!play g5")
    h.command(join="#once:localhost")
    h.wait_message("!play r2")
    ctx.hs.hold_syncs(True)
    for text in ["!play y1", "!play g5", "!play n4"]:
        alice.say(room, text)
    ctx.hs.hold_syncs(False)
    h.wait(lambda e: e["event"] == "exit", 20, "the second crash")
    h.kill()

    h = ctx.run()
    h.command(join="#once:localhost")
    h.wait_message("!play n4")
    alice.say(room, "!status")
    h.wait_message("!status")
    assert h.texts() == ["!play g5", "!play n4", "!status"], h.texts()
    h.stop()
    assert stored_moves(ctx) == ["!bid 3", "!play b7", "!play r2",
                                 "!play y1", "!play g5", "!play n4",
                                 "!status"], stored_moves(ctx)


def test_duplicate_delivery(ctx):
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "dup")
    h = joined_harness(ctx, "#dup:localhost", room)
    time.sleep(0.3)
    ctx.hs.duplicate_syncs(1)
    alice.say(room, "dup me")
    h.wait_message("dup me")
    wait_until(lambda: ctx.hs.state.faults.duplicates_served >= 1, 20,
               "the duplicate delivery")
    alice.say(room, "next")
    h.wait_message("next")
    assert h.texts() == ["dup me", "next"], h.texts()
    h.stop()


def test_names_mentions_members_admins(ctx):
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    html_name = "<b>Bob</b> & <i>co</i>"
    bob.set_displayname(html_name)
    room = public_room(ctx, alice, "html")
    h = joined_harness(ctx, "#html:localhost", room)
    bob.join(room)
    j = h.wait(lambda e: e["event"] == "join", 20, "bob's join")
    assert j["channel"] == "#html:localhost", j
    assert j["user"] == {"id": BOB, "name": html_name}, j
    bob.say(room, "!join")
    m = h.wait_message("!join")
    assert m["from"]["name"] == html_name, m

    h.command(send_channel="#html:localhost",
              text="\x1e%s\x1f%s\x1e, your turn" % (BOB, html_name))
    wait_until(lambda: bot_bodies(ctx, room), what="the mention")
    # The line that tells a player to act alerts them: m.text with
    # m.mentions and a pill.
    content = ctx.hs.state.room_events(room, sender=BOT)[-1]["content"]
    assert content["msgtype"] == "m.text", content
    assert content["body"] == html_name + ", your turn", content
    assert content["format"] == "org.matrix.custom.html"
    assert content["formatted_body"] == (
        '<a href="https://matrix.to/#/@bob:localhost">&lt;b&gt;Bob&lt;/b&gt;'
        ' &amp; &lt;i&gt;co&lt;/i&gt;</a>, your turn'), content
    assert content["m.mentions"] == {"user_ids": [BOB]}, content

    h.command(send_channel="#html:localhost", text="no mention")
    wait_until(lambda: bot_bodies(ctx, room)[-1:] == ["no mention"],
               what="the plain message")
    content = ctx.hs.state.room_events(room, sender=BOT)[-1]["content"]
    assert "m.mentions" not in content, content
    assert content["msgtype"] == "m.notice", content

    bob.set_displayname("Robert")
    r = h.wait(lambda e: e["event"] == "rename", 20, "the rename")
    assert r["old_id"] == BOB and r["user"] == {"id": BOB,
                                                "name": "Robert"}, r

    h.command(channel_admin=["#html:localhost", ALICE])
    a = h.wait(lambda e: e["event"] == "channel_admin", 5, "admin check")
    assert a["admin"] is True, a
    h.command(channel_admin=["#html:localhost", BOB])
    a = h.wait(lambda e: e["event"] == "channel_admin" and
               e is not a, 5, "admin check")
    assert a["admin"] is False, a

    bob.leave(room)
    lv = h.wait(lambda e: e["event"] == "leave", 20, "bob's leave")
    assert lv["user"] == {"id": BOB, "name": "Robert"}, lv
    assert lv["channel"] == "#html:localhost", lv

    # part() leaves the room.
    h.command(part="#html:localhost")
    wait_until(lambda: ctx.hs.state.rooms[room].membership(BOT) == "leave",
               what="the bot leaving")

    # Kicked from a room: the bot does not come back by itself, and what
    # it is given for the room waits; a stop does not wait for it.
    kick_room = public_room(ctx, alice, "kick")
    h.command(join="#kick:localhost")
    wait_until(lambda: ctx.hs.state.rooms[kick_room].membership(BOT) ==
               "join", what="the bot in the room")
    time.sleep(0.3)
    alice.kick(kick_room, BOT, "enough")
    wait_until(lambda: "removed from %s by %s: enough" % (kick_room, ALICE)
               in ctx.harness_log(), what="the kick in the log")
    h.command(send_channel="#kick:localhost", text="still here?")
    h.command(queue_depth=True)
    depth = h.wait(lambda e: e["event"] == "queue_depth", 5, "depth")
    assert depth["depth"] == 0, depth
    h.stop()
    assert bot_bodies(ctx, kick_room) == []
    assert ctx.hs.state.rooms[kick_room].membership(BOT) == "leave"
    assert "still queued at stop" not in ctx.harness_log()


def test_joined_room_history(ctx):
    """A room joined late comes with its history (history_visibility
    shared): what was said before the bot was invited or joined is not a
    command, what was said after its invite is."""
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    room = public_room(ctx, alice, "hist")
    bob.join(room)
    alice.say(room, "!old one")
    bob.say(room, "!old two")
    h = joined_harness(ctx, "#hist:localhost", room)
    # Who was there before the bot joined is told whole (joined_members).
    m = h.wait(lambda e: e["event"] == "members", 20, "the room's members")
    assert m["channel"] == "#hist:localhost", m
    assert sorted(u["id"] for u in m["users"]) == sorted([ALICE, BOB]), m
    alice.say(room, "!new")
    h.wait_message("!new")
    time.sleep(0.3)
    assert h.texts() == ["!new"], h.texts()
    assert not [e for e in h.events if e["event"] == "join"], h.events

    # Invited to a room with old chat: only what follows the invite.
    side = alice.create_room(preset="private_chat")
    alice.say(side, "!before invite")
    ctx.hs.hold_syncs(True)
    alice.invite(side, BOT)
    alice.say(side, "!after invite")
    ctx.hs.hold_syncs(False)
    h.wait_message("!after invite")
    alice.say(side, "!joined")
    h.wait_message("!joined")
    time.sleep(0.3)
    assert h.texts() == ["!new", "!after invite", "!joined"], h.texts()
    h.stop()


def test_restart_before_joins(ctx):
    """A bot restarting with games says so before its adapter has joined
    anything: the message waits for the join.  The first /sync after a
    restart may come back before the joins: its messages must still name
    the channel as configured (the alias), not the room id."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "early")
    h = joined_harness(ctx, "#early:localhost", room)
    alice.say(room, "!first")
    h.wait_message("!first")
    h.stop()

    alice.say(room, "!while down")
    ctx.hs.slow_joins(1.0)
    h = ctx.run()
    # As the core does when it restores games: a send, then the join.
    h.command(send_channel="#early:localhost", text="resumes")
    h.command(join="#early:localhost")
    m = h.wait_message("!while down")
    assert m["channel"] == "#early:localhost", m
    wait_until(lambda: bot_bodies(ctx, room) == ["resumes"],
               what="the early message")
    assert not [e for e in h.events if e["event"] == "command_failed"], \
        h.events
    ctx.hs.slow_joins(0)
    alice.say(room, "!after")
    m = h.wait_message("!after")
    assert m["channel"] == "#early:localhost", m
    h.stop()


def test_rows_before_resume(ctx):
    """After a restart the rows the last run left unsent wait for the
    room's join; the first /sync may make the room known before the join
    answers, and the resume line sent then goes to the room at once.  It
    must still come after those rows, in the order the core gave them
    (before, it went first: "The game resumes" ahead of the bids the last
    run had stored)."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "rows")
    ctx.hs.state.join(BOT, room)
    ctx.hs.slow_joins(2.0)
    h = ctx.run()
    # As the core does at a start: the join, then the stored rows (the
    # loop hands them over), which wait for the join's answer.
    h.command(join=room)
    h.command(send_channel=room, text="stored 1", id=1, flow=room)
    h.command(send_channel=room, text="stored 2", id=2, flow=room)
    h.wait_connected()
    # Connected (the first /sync handled), the join not answered yet.
    h.command(send_channel=room, text="the game resumes", flow=room)
    wait_until(lambda: len(bot_bodies(ctx, room)) == 3, 30,
               "the three lines")
    assert bot_bodies(ctx, room) == ["stored 1", "stored 2",
                                     "the game resumes"], \
        bot_bodies(ctx, room)
    ctx.hs.slow_joins(0)
    h.stop()


def test_cut_timeline(ctx):
    """More messages than a /sync timeline holds (100) said while the bot
    was away: the adapter fetches the rest with /messages, page by page,
    so every command reaches the core once and in order.  When /messages
    fails, the missed ones are skipped with a warning and the bot goes
    on with the rest."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "busy")
    h = joined_harness(ctx, "#busy:localhost", room)
    alice.say(room, "!before")
    h.wait_message("!before")
    h.stop()

    said = ["!n%03d" % i for i in range(250)]
    for text in said:
        alice.say(room, text)
    h = ctx.run()
    h.command(join="#busy:localhost")
    h.wait_message(said[-1], 30)
    got = [t for t in h.texts() if t.startswith("!n")]
    assert got == said, (len(got), got[:3], got[-3:])
    # 150 left out of the timeline: two pages of 100 and 50.
    assert ctx.hs.state.messages_served == 2, ctx.hs.state.messages_served
    assert "fetched 150 messages" in ctx.harness_log(), \
        ctx.harness_log()[-2000:]
    h.stop()

    said = ["!m%03d" % i for i in range(120)]
    for text in said:
        alice.say(room, text)
    ctx.hs.fail_messages(1)
    h = ctx.run()
    h.command(join="#busy:localhost")
    h.wait_message(said[-1], 30)
    got = [t for t in h.texts() if t.startswith("!m")]
    assert got == said[-100:], (len(got), got[:3])
    assert "they are skipped" in ctx.harness_log()
    alice.say(room, "!after")
    h.wait_message("!after")
    h.stop()


def test_encrypted_rooms(ctx):
    alice = ctx.client(ALICE)
    room = alice.create_room(preset="private_chat", invite=[BOT, BOB],
                             initial_state=[{
                                 "type": "m.room.encryption",
                                 "state_key": "",
                                 "content": {"algorithm":
                                             "m.megolm.v1.aes-sha2"}}])
    h = ctx.run()
    h.wait_connected()
    wait_until(lambda: ctx.hs.state.rooms[room].membership(BOT) == "join",
               what="the bot in the encrypted room")
    alice.send_encrypted(room)
    alice.send_encrypted(room)
    notices = wait_until(lambda: bot_bodies(ctx, room), what="the notice")
    dm = wait_until(lambda: ctx.hs.state.rooms_created_by(BOT),
                    what="a direct room")[0]
    time.sleep(1.0)
    notices = bot_bodies(ctx, room)
    assert len(notices) == 1, notices
    assert "cannot read encrypted" in notices[0], notices
    dm_room = ctx.hs.state.rooms[dm]
    assert dm_room.membership(ALICE) == "invite"
    assert dm_room.state_content("m.room.encryption") is None
    wait_until(lambda: bot_bodies(ctx, dm), what="the greeting")
    assert not h.messages(), h.messages()
    assert "cannot read" in ctx.harness_log()
    direct = wait_until(lambda: ctx.hs.state.account_data(BOT, "m.direct"),
                        what="m.direct")
    assert direct == {ALICE: [dm]}, direct
    h.stop()

    # Told once also across a restart (the audit: again after each one).
    h = ctx.run()
    h.wait_connected()
    alice.send_encrypted(room)
    alice.join(dm)
    alice.say(dm, "after the restart")
    h.wait_message("after the restart")
    time.sleep(0.5)
    assert bot_bodies(ctx, room) == notices, bot_bodies(ctx, room)
    h.stop()


def carols_room(ctx, h, carol):
    """Carol's own invite-only direct room with the bot, where the
    private line "carol one" (outbox id 2) went; its id."""
    dm = carol.create_room(preset="trusted_private_chat", is_direct=True,
                           invite=[BOT])
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "join",
               what="the bot in carol's room")
    h.command(send_private=CAROL, text="carol one", id=2)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 2, 20, "sent 2")
    assert bot_bodies(ctx, dm) == ["carol one"], bot_bodies(ctx, dm)
    return dm


def test_shared_direct_rooms(ctx):
    bob = ctx.client(BOB)
    carol = ctx.client(CAROL)
    ctx.client(ALICE)
    h = ctx.run(invites={"allow_users": [CAROL]})
    h.wait_connected()

    # The bot's own direct room: the player cannot let anyone in, and
    # someone let in all the same reads nothing from before.
    h.command(send_private=BOB, text="bob one", id=1)
    mine = wait_until(lambda: ctx.hs.state.rooms_created_by(BOT),
                      what="bob's direct room")[0]
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 1, 20, "sent 1")
    room = ctx.hs.state.rooms[mine]
    assert room.power(BOB) == 0, room.power(BOB)
    assert room.state_content("m.room.power_levels")["invite"] == 100
    assert room.state_content("m.room.history_visibility") == \
        {"history_visibility": "invited"}
    bob.join(mine)
    expect_error(lambda: bob.invite(mine, ALICE), 403, "M_FORBIDDEN")

    # Carol's own direct room, where she may invite: once she lets Alice
    # in, nothing more for Carol goes there, not even the line that was
    # waiting to be sent (the homeserver holds it off with a 429).
    dm = carols_room(ctx, h, carol)
    ctx.hs.limit_sends(1, 20000)
    h.command(send_private=CAROL, text="carol two", id=3)
    wait_until(lambda: ctx.hs.state.faults.limit_sends == 0,
               what="the held send")
    carol.invite(dm, ALICE)
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "leave",
               what="the bot leaving the shared room")
    said = bot_bodies(ctx, dm)
    assert said[0] == "carol one" and len(said) == 2, said
    assert "Someone else is in or invited to this room" in said[1], said
    new = wait_until(lambda: [r for r in ctx.hs.state.rooms_created_by(BOT)
                              if r != mine], what="carol's new room")
    assert len(new) == 1, new
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 3, 20, "sent 3")
    h.command(send_private=CAROL, text="carol three", id=4)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 4, 20, "sent 4")
    assert bot_bodies(ctx, new[0]) == ["carol two", "carol three"], \
        bot_bodies(ctx, new[0])
    assert bot_bodies(ctx, dm) == said, bot_bodies(ctx, dm)
    assert "someone else is in" in ctx.harness_log()
    # Killed after saying why but before leaving (here: put back in the
    # room): the next start says it again under the same transaction id,
    # which the homeserver does not show twice.
    h.kill()
    ctx.hs.state.invite(CAROL, dm, BOT)
    ctx.hs.state.join(BOT, dm)
    repeated = ctx.hs.state.repeated_txns
    h = ctx.run(invites={"allow_users": [CAROL]})
    h.wait_connected()
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "leave",
               what="the bot leaving the shared room again")
    assert bot_bodies(ctx, dm) == said, bot_bodies(ctx, dm)
    assert ctx.hs.state.repeated_txns == repeated + 1, \
        (ctx.hs.state.repeated_txns, repeated)
    h.stop()


def test_foreign_direct_rooms(ctx):
    """Private lines go only to a room nobody else can ever read.  A
    stranger who makes a public room flagged is_direct, invites the bot
    and Alice, and leaves once Alice is in (all while the bot is down)
    gets nothing: that room is not Alice's direct room, though it holds
    just the two, for the stranger could join again and read it all (the
    Matrix restart audit saw hands readable there).  A direct room whose
    player opens it up later is left as if someone had come in."""
    alice = ctx.client(ALICE)
    carol = ctx.client(CAROL)
    ctx.hs.state.register("mallory", "secret", "Mallory")
    mallory = ctx.client("@mallory:localhost")
    trap = mallory.create_room(preset="public_chat", is_direct=True,
                               invite=[BOT, ALICE])
    alice.join(trap)
    mallory.leave(trap)
    # Alice's own room, but anyone may read it without joining.
    readable = alice.create_room(preset="trusted_private_chat",
                                 is_direct=True, invite=[BOT])
    alice.set_state(readable, "m.room.history_visibility",
                    {"history_visibility": "world_readable"})
    h = ctx.run(invites={"allow_users": [ALICE, CAROL,
                                         "@mallory:localhost"]})
    h.wait_connected()
    wait_until(lambda: ctx.hs.state.rooms[trap].membership(BOT) == "join",
               what="the bot in the stranger's room")
    # Alice's readable room is left, with why, as soon as it is joined.
    wait_until(lambda: ctx.hs.state.rooms[readable].membership(BOT) ==
               "leave", what="the bot leaving the readable room")
    assert len(bot_bodies(ctx, readable)) == 1 and "Others may read this " \
        "room," in bot_bodies(ctx, readable)[0], bot_bodies(ctx, readable)
    mine = [sent_privately(ctx, h, ALICE, "alice's hand", 1)]
    # The stranger's room may be left the same way (it is hers in the
    # bot's m.direct, as she invited it), but never gets a private line.
    for r in (trap, readable):
        assert all(b.startswith("Others may read this room,")
                   for b in bot_bodies(ctx, r)), bot_bodies(ctx, r)
    direct = ctx.hs.state.account_data(BOT, "m.direct") or {}
    assert trap not in direct.get(ALICE, []), direct

    # Carol's own invite-only direct room is hers; made public, it is
    # left, and the next line goes to a room the bot opens.
    dm = carols_room(ctx, h, carol)
    carol.set_state(dm, "m.room.join_rules", {"join_rule": "public"})
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "leave",
               what="the bot leaving the opened room")
    said = bot_bodies(ctx, dm)
    assert len(said) == 2 and "Others may read this room," in said[1], \
        said
    h.command(send_private=CAROL, text="carol two", id=3)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 3, 20, "sent 3")
    new = [r for r in ctx.hs.state.rooms_created_by(BOT) if r != mine[0]]
    assert len(new) == 1 and bot_bodies(ctx, new[0]) == ["carol two"], \
        [(r, bot_bodies(ctx, r)) for r in new]
    h.stop()


def test_rejected_direct_room(ctx):
    """A player who rejects (or leaves) their direct room: the core hears
    of it once per room (private_lost), from the loop; the bot leaves the
    room, and the next private line opens one new room, no more."""
    carol = ctx.client(CAROL)
    h = ctx.run()
    h.wait_connected()
    h.command(send_private=CAROL, text="hand one", id=1)
    first = wait_until(lambda: ctx.hs.state.rooms_created_by(BOT),
                       what="carol's direct room")[0]
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 1, 20, "sent 1")
    carol.leave(first)
    lost = h.wait(lambda e: e["event"] == "private_lost", 20,
                  "the private channel lost")
    assert lost["user"]["id"] == CAROL, lost
    wait_until(lambda: ctx.hs.state.rooms[first].membership(BOT) ==
               "leave", what="the bot leaving the rejected room")
    assert ctx.hs.state.rooms_created_by(BOT) == [first]
    start = len(h.events)
    h.command(send_private=CAROL, text="hand again", id=2)
    h.command(send_private=CAROL, text="prompt again", id=3)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 3, 20, "sent 3",
           start=start)
    rooms = ctx.hs.state.rooms_created_by(BOT)
    assert len(rooms) == 2, rooms
    second = rooms[1] if rooms[0] == first else rooms[0]
    assert bot_bodies(ctx, second) == ["hand again", "prompt again"], \
        bot_bodies(ctx, second)
    assert ctx.hs.state.rooms[second].membership(CAROL) == "invite"
    # Accepted, the room is kept and used; left later, told once more.
    carol.join(second)
    time.sleep(1)
    h.command(send_private=CAROL, text="in the room", id=4)
    h.wait(lambda e: e["event"] == "sent" and e["id"] == 4, 20, "sent 4")
    assert bot_bodies(ctx, second)[-1] == "in the room"
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 2
    carol.leave(second)
    h.wait(lambda e: e["event"] == "private_lost", 20, "lost again",
           start=start)
    time.sleep(1)
    with h.cond:
        losts = [e for e in h.events if e["event"] == "private_lost"]
    assert len(losts) == 2, losts
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 2
    assert "left or rejected the direct room" in ctx.harness_log()
    h.stop()


def test_refuses_every_room(ctx):
    """A player whose client rejects every invitation: after the first
    refusal one new room (for their hand again), after the second none,
    however many private lines follow, and none after a restart either;
    the core hears of the first refusal only; once they say something,
    one room more."""
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    room = public_room(ctx, alice, "refuse")
    bob.join(room)
    h = joined_harness(ctx, "#refuse:localhost", room)

    def sent(id_):
        h.wait(lambda e: e["event"] == "sent" and e["id"] == id_, 20,
               "sent %d" % id_)

    for n in (1, 2):
        h.command(send_private=BOB, text="line %d" % n, id=n)
        sent(n)
        rooms = ctx.hs.state.rooms_created_by(BOT)
        assert len(rooms) == n, rooms
        bob.leave(rooms[-1])
        wait_until(lambda: ctx.hs.state.rooms[rooms[-1]].membership(BOT) ==
                   "leave", what="the bot leaving refused room %d" % n)
    # Two refusals in a row: these lines open nothing (and are done),
    # and the core heard only of the first refusal (it asks Bob in the
    # game room to accept the invitation that then comes).
    h.command(send_private=BOB, text="line 3", id=3)
    h.command(send_private=BOB, text="line 4", id=4)
    sent(4)
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 2
    with h.cond:
        losts = [e for e in h.events if e["event"] == "private_lost"]
    assert len(losts) == 1, losts
    h.stop()
    h = joined_harness(ctx, "#refuse:localhost", room)
    h.command(send_private=BOB, text="line 5", id=5)
    sent(5)
    assert len(ctx.hs.state.rooms_created_by(BOT)) == 2
    assert "refused 2 direct rooms in a row" in ctx.harness_log()
    # Bob speaks: the answer may open one room again.
    bob.say(room, "!hand")
    h.wait_message("!hand")
    h.command(send_private=BOB, text="line 6", id=6)
    sent(6)
    rooms = ctx.hs.state.rooms_created_by(BOT)
    assert len(rooms) == 3, rooms
    assert bot_bodies(ctx, rooms[-1]) == ["line 6"], \
        bot_bodies(ctx, rooms[-1])
    h.stop()


def test_shared_display_names(ctx):
    """Two members called Sam are told apart as Matrix clients do: each
    is "Sam (@id)" to the core, in the room and privately; the first Sam
    is renamed when the second arrives, and again when that ends."""
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    carol = ctx.client(CAROL)
    room = public_room(ctx, alice, "names")
    bob.set_displayname("Sam")
    bob.join(room)
    h = joined_harness(ctx, "#names:localhost", room,
                       invites={"allow_users": [BOB]})
    bob.say(room, "!one")
    m = h.wait_message("!one")
    assert m["from"] == {"id": BOB, "name": "Sam"}, m
    start = len(h.events)
    carol.set_displayname("Sam")
    carol.join(room)
    e = h.wait(lambda e: e["event"] == "join", 20, "carol's join",
               start=start)
    assert e["user"] == {"id": CAROL, "name": "Sam (%s)" % CAROL}, e
    e = h.wait(lambda e: e["event"] == "rename", 20, "bob renamed",
               start=start)
    assert e["old_id"] == BOB and e["user"]["name"] == "Sam (%s)" % BOB, e
    bob.say(room, "!two")
    carol.say(room, "!three")
    assert h.wait_message("!two")["from"]["name"] == "Sam (%s)" % BOB
    assert h.wait_message("!three")["from"]["name"] == "Sam (%s)" % CAROL
    # Privately, the name that tells them apart at the table.
    dm = bob.create_dm(BOT)
    wait_until(lambda: ctx.hs.state.rooms[dm].membership(BOT) == "join",
               what="the bot in bob's room")
    bob.say(dm, "bid 1")
    m = h.wait_message("bid 1")
    assert m["channel"] is None and \
        m["from"] == {"id": BOB, "name": "Sam (%s)" % BOB}, m
    # Carol takes another name: both are plain again.
    start = len(h.events)
    carol.set_displayname("Carol")
    got = {}
    wait_until(lambda: len(renames(h, start, got)) >= 2, what="2 renames")
    assert got == {CAROL: "Carol", BOB: "Sam"}, got
    # A name that only reads as Sam (a Cyrillic S, an invisible isolate
    # the core strips) is told apart just the same.
    start = len(h.events)
    carol.set_displayname("\u0405am\u2066")
    got = {}
    wait_until(lambda: len(renames(h, start, got)) >= 2, what="2 renames")
    assert got == {CAROL: "\u0405am\u2066 (%s)" % CAROL,
                   BOB: "Sam (%s)" % BOB}, got
    # A name that shows nothing is the user id; bob is plain again.
    start = len(h.events)
    carol.set_displayname("\u200b\u2066 ")
    got = {}
    wait_until(lambda: len(renames(h, start, got)) >= 2, what="2 renames")
    assert got == {CAROL: CAROL, BOB: "Sam"}, got
    # A name cleared (the member event has none, or an empty one) is
    # gone: she is her user id again, not the name she had before.
    for cleared in (None, ""):
        carol.set_displayname("Carol")
        h.wait(lambda e: e["event"] == "rename" and
               e["user"] == {"id": CAROL, "name": "Carol"}, 20,
               "carol named")
        start = len(h.events)
        carol.set_displayname(cleared)
        h.wait(lambda e: e["event"] == "rename" and
               e["user"] == {"id": CAROL, "name": CAROL}, 20,
               "carol's name cleared (%r)" % cleared, start)
    h.stop()


def renames(h, start, got):
    with h.cond:
        for e in h.events[start:]:
            if e["event"] == "rename":
                got[e["old_id"]] = e["user"]["name"]
    return got


def test_flapping_connection(ctx):
    """Issue: "back online" 13 times in 2 minutes.  After one outage the
    core heard of, a connection that keeps failing now and then (60% of
    /syncs, then the homeserver away for 6 s) is no new outage for
    MX_FLAP_MS (5 min): one "down" and one "up" in all."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "flap")
    h = joined_harness(ctx, "#flap:localhost", room, outage_ms=1000,
                       sync_timeout_ms=1000)
    start = len(h.events)
    ctx.hs.stop()
    h.wait(lambda e: e["event"] == "connected" and not e["up"], 20,
           "the first outage", start=start)
    ctx.hs.start()
    h.wait(lambda e: e["event"] == "connected" and e["up"], 30,
           "the return", start=start)
    failed = ctx.hs.fail_share(0.6, [BOT], 3)
    end = time.monotonic() + 20
    i = 0
    while time.monotonic() < end:
        alice.say(room, "!flap %d" % i)
        i += 1
        time.sleep(0.5)
    ctx.hs.fail_share(0)
    syncs = sum(1 for p in failed if p.endswith("/sync"))
    assert syncs >= 5, failed
    ctx.hs.restart(downtime=6)
    alice.say(room, "!after")
    h.wait_message("!after", 30)
    assert connected_events(h, start) == [False, True], h.events[start:]
    print("  %d /sync requests failed, then 6 s away: no second outage"
          % syncs)
    h.stop()


def expect_error(call, status, errcode):
    try:
        call()
    except RequestError as e:
        assert e.status == status, (e.status, e.body)
        assert e.body["errcode"] == errcode, e.body
        assert isinstance(e.body["error"], str), e.body
        return e.body
    raise AssertionError("expected HTTP %d %s" % (status, errcode))


def test_hostile_json(ctx):
    """Anyone in a room chooses their events' content: an escaped NUL in a
    key (which jansson cannot hold), in a body, or a lone surrogate must
    not fail every /sync that carries it, for ever.  The bot reads them
    with U+FFFD in their place and goes on."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "hostile")
    h = joined_harness(ctx, "#hostile:localhost", room)
    alice.say(room, "!before")
    h.wait_message("!before")
    alice.send(room, {"msgtype": "m.text", "body": "nul\u0000body"})
    alice.send(room, {"msgtype": "m.text", "body": "key", "x\u0000y": 1})
    alice.send(room, {"msgtype": "m.text", "body": "lone \ud800 half"})
    alice.say(room, "!after")
    h.wait_message("!after", 30)
    texts = h.texts()
    assert texts[texts.index("!before"):] == [
        "!before", "nul\ufffdbody", "key", "lone \ufffd half", "!after"], \
        texts
    assert "/sync failed" not in ctx.harness_log(), ctx.harness_log()
    assert connected_events(h) == [True], h.events
    h.stop()


def test_edits(ctx):
    """An edit (m.replace) reaches the core as an edit, with its new text
    (not the "* " fallback body): the core never acts on one, but says so
    when it reads as a command.  An edit into a notice, or one without
    new content, is nothing; a reply's quoted fallback is still skipped."""
    alice = ctx.client(ALICE)
    room = public_room(ctx, alice, "edits")
    h = joined_harness(ctx, "#edits:localhost", room)
    first = alice.say(room, "!bid 1")
    h.wait_message("!bid 1")

    def edit(new, **extra):
        content = {"msgtype": "m.text", "body": "* " + new["body"],
                   "m.new_content": new,
                   "m.relates_to": {"rel_type": "m.replace",
                                    "event_id": first}}
        content.update(extra)
        return alice.send(room, content)
    edit({"msgtype": "m.text", "body": "!bid 2"})
    edit({"msgtype": "m.notice", "body": "!bid 3"})
    alice.send(room, {"msgtype": "m.text", "body": "* !bid 4",
                      "m.relates_to": {"rel_type": "m.replace",
                                       "event_id": first}})
    alice.send(room, {"msgtype": "m.text",
                      "body": "> <@alice:localhost> !bid 1\n\n!bid 5",
                      "m.relates_to": {"m.in_reply_to": {
                          "event_id": first}}})
    alice.say(room, "!after")
    h.wait_message("!after", 30)
    with h.cond:
        heard = [(e["event"], e["text"], e.get("channel")) for e in h.events
                 if e["event"] in ("message", "edited")]
    label = heard[0][2]
    assert label is not None, heard
    assert heard == [("message", "!bid 1", label), ("edited", "!bid 2", label),
                     ("message", "!bid 5", label),
                     ("message", "!after", label)], heard
    h.stop()


def test_homeserver_api(ctx):
    """The test homeserver itself answers in the spec's shapes."""
    alice = ctx.client(ALICE)
    bob = ctx.client(BOB)
    anon = MatrixClient(ctx.hs.url, BOB)
    assert "v1.1" in anon.request("GET", "/versions")["versions"]
    flows = anon.request("GET", "/v3/login")["flows"]
    assert {"type": "m.login.password"} in flows, flows
    expect_error(lambda: MatrixClient(ctx.hs.url, BOB, "wrong").login(),
                 403, "M_FORBIDDEN")
    expect_error(lambda: anon.request("GET", "/v3/account/whoami"), 401,
                 "M_MISSING_TOKEN")
    anon.token = "nope"
    expect_error(lambda: anon.request("GET", "/v3/account/whoami"), 401,
                 "M_UNKNOWN_TOKEN")
    me = alice.whoami()
    assert me["user_id"] == ALICE and me["device_id"] == alice.device_id
    expect_error(lambda: alice.request("GET", "/v3/nothing"), 404,
                 "M_UNRECOGNIZED")

    room = alice.create_room(preset="private_chat", name="Cards")
    expect_error(lambda: bob.say(room, "hi"), 403, "M_FORBIDDEN")
    expect_error(lambda: bob.join(room), 403, "M_FORBIDDEN")
    alice.invite(room, BOB)
    r = bob.sync()
    assert set(r) >= {"next_batch", "rooms", "account_data"}, r
    stripped = r["rooms"]["invite"][room]["invite_state"]["events"]
    assert {"type", "state_key", "content", "sender"} == set(stripped[0])
    assert any(e["type"] == "m.room.member" and e["state_key"] == BOB and
               e["content"]["membership"] == "invite" for e in stripped)
    assert bob.join(room) == room
    members = alice.request("GET", "/v3/rooms/%s/joined_members" %
                            quote(room))["joined"]
    assert set(members) == {ALICE, BOB}, members
    assert members[BOB]["display_name"] == "Bob"
    power = alice.request("GET", "/v3/rooms/%s/state/m.room.power_levels/" %
                          quote(room))
    assert power["users"][ALICE] == 100, power
    state = alice.request("GET", "/v3/rooms/%s/state" % quote(room))
    assert any(e["type"] == "m.room.name" and
               e["content"] == {"name": "Cards"} for e in state), state
    expect_error(lambda: alice.request(
        "GET", "/v3/rooms/%s/state/m.room.topic/" % quote(room)), 404,
        "M_NOT_FOUND")
    assert alice.request("GET", "/v3/profile/%s" % quote(BOB)) == \
        {"displayname": "Bob"}

    # A repeated transaction id is the same event, stored once.
    path = "/v3/rooms/%s/send/m.room.message/t1" % quote(room)
    body = {"msgtype": "m.text", "body": "once"}
    first = alice.request("PUT", path, body)["event_id"]
    assert alice.request("PUT", path, body)["event_id"] == first
    assert [e["content"]["body"] for e in
            ctx.hs.state.room_events(room)].count("once") == 1
    r = bob.sync()
    timeline = r["rooms"]["join"][room]["timeline"]
    event = timeline["events"][-1]
    assert event["event_id"] == first and event["sender"] == ALICE, event
    assert {"type", "content", "event_id", "sender", "origin_server_ts",
            "unsigned"} <= set(event), event
    assert "room_id" not in event

    # Account data, a filter, and a long poll that ends with an event.
    expect_error(lambda: bob.request(
        "GET", "/v3/user/%s/account_data/m.direct" % quote(BOB)), 404,
        "M_NOT_FOUND")
    expect_error(lambda: bob.request(
        "GET", "/v3/user/%s/account_data/m.direct" % quote(ALICE)), 403,
        "M_FORBIDDEN")
    fid = bob.request("POST", "/v3/user/%s/filter" % quote(BOB), {
        "room": {"timeline": {"types": ["m.room.message"]}}})["filter_id"]
    alice.set_state(room, "m.room.topic", {"topic": "filtered out"})
    threading.Timer(0.5, lambda: alice.say(room, "late")).start()
    start = time.monotonic()
    r = bob.request("GET", "/v3/sync", query={
        "since": bob.since, "timeout": "5000", "filter": fid})
    assert time.monotonic() - start < 4
    events = r["rooms"]["join"][room]["timeline"]["events"]
    assert [e["content"].get("body") for e in events] == ["late"], r


TESTS = [
    test_homeserver_api,
    test_password_login_and_first_sync,
    test_token_login,
    test_direct_messages_and_invites,
    test_send_private,
    test_order_through_faults,
    test_sync_failures,
    test_outbox,
    test_busy,
    test_withhold,
    test_silenced_room,
    test_room_upgrade,
    test_expire,
    test_rows_before_resume,
    test_goodbye_past_failing_room,
    test_shared_direct_room,
    test_members_titles_and_dms,
    test_direct_room_answer_lost,
    test_outage,
    test_relogin_and_lost_position,
    test_next_batch_contract,
    test_exactly_once,
    test_duplicate_delivery,
    test_names_mentions_members_admins,
    test_joined_room_history,
    test_restart_before_joins,
    test_cut_timeline,
    test_encrypted_rooms,
    test_shared_direct_rooms,
    test_foreign_direct_rooms,
    test_rejected_direct_room,
    test_refuses_every_room,
    test_shared_display_names,
    test_flapping_connection,
    test_hostile_json,
    test_edits,
]


def main():
    if len(sys.argv) < 2:
        print("usage: matrix_test.py MATRIX_HARNESS [TEST...]",
              file=sys.stderr)
        return 2
    harness = os.path.abspath(sys.argv[1])
    wanted = sys.argv[2:]
    failed = 0
    for test in TESTS:
        if wanted and test.__name__ not in wanted:
            continue
        ctx = Context(harness)
        start = time.monotonic()
        try:
            test(ctx)
            # Sanitizer reports (an ASan/UBSan build) fail the test too.
            log = ctx.harness_log()
            for mark in ("ERROR: AddressSanitizer", "runtime error:",
                         "ERROR: LeakSanitizer"):
                assert mark not in log, "sanitizer report in the harness log"
            print("ok   %s (%.1f s)" % (test.__name__,
                                        time.monotonic() - start))
        except Exception:
            failed += 1
            print("FAIL %s (%.1f s)" % (test.__name__,
                                        time.monotonic() - start))
            traceback.print_exc()
            print("--- harness log (last 40 lines) ---")
            print("\n".join(ctx.harness_log().splitlines()[-40:]))
        finally:
            ctx.close()
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`stichbot run` as a service on Matrix: reload and stop while a game
runs, against the test homeserver (tests/matrix_homeserver.py) with
scripted players (tests/matrix_players.py).

    service_test.py STICHBOT

A datagram socket stands in for systemd ($NOTIFY_SOCKET, with a watchdog
interval).  The bot starts in rooms A and C (READY=1, keep-alives); a
Wizard game runs in A.  The configuration is rewritten with room B added
and C removed, and SIGHUP sent: RELOADING=1 then READY=1, the homeserver
sees the bot join B and leave C, and the game in A goes on (and old chat
in B is not taken for commands); a BirdHead table is opened in B and two
people sit down.  SIGTERM mid-game: STOPPING=1, exit 0,
the goodbye in A (nowhere else); the store holds the unfinished game
(`stichbot export --running`, accepted by `stichbot replay`, every action
one of the players' commands).  Started again, the bot resumes the game in
A, which is played to its end and checked like the others (scores against
the replay, commands against actions, privacy), and the table in B still
has its game and both seats when a third person sits down.  Loopback
only; bounded by timeouts.
"""

import os
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matrix_players  # noqa: E402
from matrix_players import (BOT, Failure, check,  # noqa
                            check_commands, check_privacy, check_scores,
                            drive, wait_until)

ROOM_A = "#svc-a:localhost"
ROOM_B = "#svc-b:localhost"
ROOM_C = "#svc-c:localhost"
GOODBYE = "I am restarting"


class Manager:
    """The service manager's end of $NOTIFY_SOCKET, read by a thread."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.seen = []
        self.cond = threading.Condition()
        self.running = True
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while self.running:
            try:
                message = self.sock.recv(4096).decode()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.cond:
                self.seen.append(message)
                self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.seen)

    def wait_for(self, predicate, what, start=0, timeout=20):
        """The first message from index start on that satisfies
        predicate; its index."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(start, len(self.seen)):
                    if predicate(self.seen[i]):
                        return i
                left = end - time.monotonic()
                if left <= 0:
                    raise Failure("no %s from the bot; got %r" % (
                        what, self.seen[start:][-8:]))
                self.cond.wait(left)

    def describe(self):
        return "--- service manager: %r" % self.seen[-10:]

    def close(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()


def pos_now(world):
    with world.state.cond:
        return world.state.pos


def test_service(world, manager):
    st = world.state
    alice = world.person("alice", "Alice", 21)
    bob = world.person("bob", "Bob", 22)
    carol = world.person("carol", "Carol", 23)
    people = [alice, bob, carol]
    rooms = {}
    for name in (ROOM_A, ROOM_B, ROOM_C):
        rooms[name] = alice.client.create_room(
            preset="public_chat", room_alias_name=name[1:].split(":")[0])
    for p in (bob, carol):
        p.client.join(rooms[ROOM_A])
    a, b, c = rooms[ROOM_A], rooms[ROOM_B], rooms[ROOM_C]
    bob.client.join(b)
    # Chat in B long before the bot comes: not commands.
    alice.say(b, "!game sticheln")
    alice.say(b, "!join")

    env = {"NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "1000000"}
    world.write_config(world.config([ROOM_A, ROOM_C]))
    bot = world.run_bot(env)
    manager.wait_for(lambda m: m == "READY=1", "READY=1")
    for room in (a, c):
        wait_until(lambda: st.rooms[room].membership(BOT) == "join", 20,
                   "the bot in " + room)

    since = pos_now(world)
    alice.say(a, "!game wizard")
    alice.say(a, "!option rounds=5")
    for p in people:
        p.say(a, "!join")
    world.wait_bot_line(a, "(3 seated")
    alice.say(a, "!start")
    for p in people:
        p.sit(ROOM_A, a, "wizard", "wizard")

    steps = {"reloaded": None, "stopped": None}

    def commands():
        return sum(len(p.sent) for p in people)

    def on_step():
        if steps["reloaded"] is None and commands() >= 10:
            # B added, C removed; the game in A must not notice.
            steps["mark"] = manager.mark()
            world.write_config(world.config([ROOM_A, ROOM_B]))
            bot.proc.send_signal(signal.SIGHUP)
            steps["reloaded"] = commands()
        elif steps["reloaded"] is not None and "lobby" not in steps and \
                st.rooms[b].membership(BOT) == "join" and \
                st.rooms[c].membership(BOT) == "leave":
            # A table opened in B, not started: it must outlive the stop.
            alice.say(b, "!game birdhead")
            alice.say(b, "!join")
            bob.say(b, "!join")
            steps["lobby"] = commands()
        elif "lobby" in steps and steps["stopped"] is None \
                and commands() >= steps["reloaded"] + 12 and \
                any("(2 seated" in x for x in world.bot_lines(b)):
            steps["term_pos"] = pos_now(world)
            steps["term_mark"] = manager.mark()
            bot.proc.send_signal(signal.SIGTERM)
            steps["stopped"] = commands()

    drive(world, people, lambda: steps["stopped"] is not None, 60,
          "the game until the reload and the stop", on_step)
    check(not any("Game over" in x for x in world.bot_lines(a)),
          "the game ended before the stop; make it longer")
    check(st.rooms[b].membership(BOT) == "join", "the bot is not in B")
    check(st.rooms[c].membership(BOT) == "leave", "the bot is still in C")
    i = manager.wait_for(lambda m: m.startswith("RELOADING=1"),
                         "RELOADING=1", steps["mark"])
    check("\nMONOTONIC_USEC=" in manager.seen[i],
          "RELOADING=1 without MONOTONIC_USEC: %r" % manager.seen[i])
    manager.wait_for(lambda m: m == "READY=1", "READY=1 after the reload",
                     i + 1)
    manager.wait_for(lambda m: m == "STOPPING=1", "STOPPING=1",
                     steps["term_mark"])
    rc = bot.terminate()
    check(rc == 0, "SIGTERM: exit status %s" % rc)
    check(any(m == "WATCHDOG=1" for m in manager.seen),
          "no watchdog keep-alive in %r" % manager.seen[-5:])
    # Players keep reading: nothing may come while the bot is down.
    for p in people:
        p.poll(act=False)
    bye = [e["content"]["body"] for pos, e in world.room_log(a)
           if pos > steps["term_pos"] and e["sender"] == BOT]
    check(any(GOODBYE in x for x in bye), "no goodbye in A: %s" % bye)
    for room in (b, c):
        check(not any(GOODBYE in x for x in world.bot_lines(room)),
              "a goodbye where no game runs")
    # In B the bot answered the lobby's commands, not the old chat.
    check(world.bot_lines(b)[0].startswith("Next game: BirdHead"),
          "the bot took old chat in B for commands: %s" %
          world.bot_lines(b)[:3])
    check(any(pos > since and e["content"]["membership"] == "leave" for
              pos, e in st.rooms[c].events if e["type"] == "m.room.member"
              and e["state_key"] == BOT), "the bot did not leave C")

    # The store: the unfinished game, legal so far, holding exactly a
    # prefix of each player's commands.
    check(world.export() == [], "export without --running lists a game "
          "still running")
    running = world.export("--running", "--channel", ROOM_A)
    check(len(running) == 1, "export --running: %d games" % len(running))
    result = world.replay(running[0])
    check(not result["finished"], "the stored game is finished")
    for p in people:
        seat = running[0]["players"].index(p.name)
        acts = sum(1 for x in running[0]["actions"] if x["seat"] == seat)
        sent = len(p.sent)
        check(sent - 1 <= acts <= sent, "%s: %d commands, %d actions "
              "stored" % (p.name, sent, acts))

    # Started again: the game resumes in A and is played to its end.
    mark = manager.mark()
    lines = len(world.bot_lines(a))
    bot = world.run_bot(env)
    manager.wait_for(lambda m: m == "READY=1", "READY=1 after the restart",
                     mark)
    drive(world, people, lambda: any("Game over" in x for x in
                                     world.bot_lines(a)[lines:]), 60,
          "the resumed game")
    check(any("The game resumes" in x for x in world.bot_lines(a)[lines:]),
          "no resume line after the restart")
    # The lobby in B kept its game and its two seats.
    lines_b = len(world.bot_lines(b))
    carol.client.join(b)
    carol.say(b, "!join")
    joined = world.wait_bot_line(b, "Carol joins", after=lines_b)
    check("BirdHead" in joined[0] and "(3 seated" in joined[0],
          "the lobby in B was not kept: %r" % joined[0])
    records = world.export("--channel", ROOM_A)
    check(len(records) == 1, "export: %d games" % len(records))
    check_scores(world, a, records[0], ["Alice", "Bob", "Carol"])
    check_commands(records[0], people, "wizard")
    check_privacy(world, a, ROOM_A, "wizard", people, False, since)
    rc = bot.terminate()
    check(rc == 0, "SIGTERM: exit status %s" % rc)
    world.check_log()
    print("  reloaded after %d commands, stopped after %d, resumed to the "
          "end (%d actions)" % (steps["reloaded"], steps["stopped"],
                                len(records[0]["actions"])))


def main():
    return matrix_players.main("service on Matrix", "matrix-service-",
                               test_service, Manager)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""irc_impostor_test.py - private lines reach only the holder of a seat,
through `stichbot run` against ngircd on 127.0.0.1 (issue 15.1), and a
SIGTERM says goodbye at every running table (issue 15.5).

    irc_impostor_test.py STICHBOT

Two Wizard tables on one connection: #t1 (alice, bob, carol; a turn
lasts 10 s) and #t2 (dave, erin, frank), played by the scripted people of
irc_game_test.py, who act only on what the bot tells them privately.

  1. alice quits after her first hand; mallory connects, takes the nick
     alice with the user name mallory and joins no channel.  The game goes
     on: alice's turns come (prompts, half-time reminders) and a computer
     moves for her when they time out.  mallory never receives a private
     line from the bot, and the bot logs that it withheld lines for alice
     (without their text);
  2. mallory quits; mal, a stranger in #t1, cannot take alice's seat
     (`!replace alice`) while she may still come back (the grace time),
     nor once she is back in the channel before her `!back`; alice takes
     her seat back and asks for her hand: she gets it privately;
  3. before #t2 opens, a passer-by fills its lobby with six computers
     (`!addbot`); a `!join` then takes a computer's seat, and the lobby
     closes by that one person's `!stop`;
  4. SIGTERM while both games run (the people pause first, so that no
     backlog is queued): both channels hear the goodbye, and the bot
     exits 0.

Exits 77 (skip) when ngircd or openssl is missing.  Standard library only.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irc_game_test as game  # noqa: E402
import irc_util  # noqa: E402
from bot_lines import HAND_RE  # noqa: E402

check = game.check
GOODBYE = "I am restarting; this game resumes as soon as I am back."
ALICE_ID = "alice!~alice@127.0.0.1"


class Leaver(game.Player):
    """alice: quits the server as soon as she has seen her first hand."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.quit_at = None
        self.back = False        # reconnected after the impostor left
        self.hands_after = []    # hands received once back

    def private(self, text):
        if self.back:
            if HAND_RE.match(text):
                self.hands_after.append(text)
            return
        if self.quit_at is None and HAND_RE.match(text):
            self.raw("QUIT :bye")
            self.quit_at = time.monotonic()
            self.sock.close()
            self.sock = None
            return
        super().private(text)

    def readable(self):
        if self.sock is None:
            return True
        return super().readable()


class World(game.World):
    """Two tables on one network (one bot connection)."""

    def __init__(self, directory):
        self.dir = directory
        self.ircd = irc_util.Ngircd(directory, limits={"MaxPenaltyTime": 0})
        self.store = os.path.join(directory, "stichbot.db")
        self.log_path = os.path.join(directory, "stichbot.log")
        self.paused = False
        self.last_bot_line = time.monotonic()
        self.bot = None
        # The table hears through its first player: bob, who stays.
        t1 = game.Table(self, "net", "gatebot", "#t1", "wizard",
                        ["rounds=15"], ["bob", "alice", "carol"])
        t1.players[1] = Leaver(self, t1, "alice", seed=11)
        t2 = game.Table(self, "net", "gatebot", "#t2", "wizard",
                        ["rounds=20"], ["dave", "erin", "frank"])
        self.tables = [t1, t2]
        self.mallory = None
        self.bot_stopping = False

    def config(self):
        config = super().config()
        net = config["networks"][0]
        net["channels"] = [{"name": "#t1", "game": "wizard",
                            "turn_timer": 10},
                           {"name": "#t2", "game": "wizard"}]
        config["networks"] = [net]
        config.update(computer={"level": "easy", "delay_ms": 200})
        # The passer-by's commands (bots_lobby) come on top of both
        # lobbies': no network-wide allowance here (irc_faults_test.py
        # checks it).
        config["user_flood"] = {"interval_ms": 0, "network_interval_ms": 0}
        return config

    def pump(self, timeout=0.1):
        if self.bot_stopping:
            # After SIGTERM the bot may exit before its last lines are
            # read: read them without requiring it to run.
            socks = {p.sock: p for p in self.players if p.sock is not None}
            ready, _, _ = game.select.select(list(socks), [], [], timeout)
            for sock in ready:
                if not socks[sock].readable():
                    sock.close()
                    socks[sock].sock = None
            return
        super().pump(timeout)
        if self.mallory is not None:
            try:
                self.mallory.sock.settimeout(0.01)
                self.mallory._pump()
            except OSError:
                pass


def bot_lines_to(client, botnick):
    """Private lines from the bot that client received."""
    out = []
    for line in client.lines:
        nick, command, params = irc_util.split_line(line)
        if nick == botnick and command in ("PRIVMSG", "NOTICE") and \
                params and not params[0].startswith("#"):
            out.append(params[-1])
    return out


def ask(client, channel, botnick, text, wanted, timeout=20):
    """Says text in channel; returns the bot's next channel line that
    holds one of wanted (plain text), saying it again while the bot asks
    to try later (its queue for the table is full)."""
    for _ in range(10):
        client.send("PRIVMSG %s :%s" % (channel, text))
        line = client.wait(
            lambda l: l.startswith(":%s!" % botnick) and
            (("PRIVMSG %s :" % channel) in l and
             any(w in irc_util.plain(l) for w in wanted) or
             "try again in a few seconds" in l), timeout)
        if "try again in a few seconds" not in line:
            return irc_util.plain(irc_util.split_line(line)[2][-1])
        time.sleep(2)
    raise game.Failure("%s: the bot stayed busy" % channel)


# What the bot may answer to `!replace alice`.
REPLACE_WORDS = ("alice is still here", "takes over the seat of alice",
                 "alice plays their own seat", "no seat")
STILL_HERE = ("alice is still here or may come back soon: only they can "
              "take their seat back (!back).")


def bots_lobby(world, table):
    """A passer-by's six computers neither fill nor block #t2's lobby."""
    troll = irc_util.Client(world.ircd.port, "troll", "troll")
    troll.send("JOIN %s" % table.channel)
    troll.wait(lambda l: " 366 " in l)
    for i in range(6):
        ask(troll, table.channel, table.botnick, "!addbot",
            ["CPU%d (" % (i + 1)])
    got = ask(troll, table.channel, table.botnick, "!addbot",
              ["The table is full"])
    check(got == "troll: The table is full (6 seats).", got)
    got = ask(troll, table.channel, table.botnick, "!join",
              ["takes over the seat", "table is full"])
    check(got == "troll takes over the seat of CPU6.", got)
    got = ask(troll, table.channel, table.botnick, "!stop",
              ["The table is", "The game is", "votes to"])
    check(got == "The table is closed.", got)
    troll.close()
    print("ok - six computers in #t2's lobby: a !join took CPU6's seat and "
          "one !stop closed the table")


def run(world):
    world.start_bot()
    world.connect_all()
    t1, t2 = world.tables
    alice = t1.players[1]
    game.lobby(world, t1)
    world.wait(lambda: t2.bot_here, 20, "the bot in #t2")
    bots_lobby(world, t2)
    game.lobby(world, t2)
    world.wait(lambda: alice.quit_at is not None, 30, "alice's first hand")
    # The nick is free once ngircd has handled the QUIT.
    deadline = time.monotonic() + 10
    while True:
        try:
            world.mallory = irc_util.Client(world.ircd.port, "alice",
                                            "mallory")
            break
        except AssertionError:
            check(time.monotonic() < deadline, "mallory cannot take alice")
            world.pump(0.2)
    mark = len(t1.heard_lines)
    # alice's turns come and time out (10 s each): prompts, reminders.
    world.wait(lambda: t1.rounds_started >= 2 and
               "not sending private lines for %s" % ALICE_ID in
               world.bot_logtext(), 90, "round 2 at #t1, alice's lines "
               "withheld")
    check(any("alice" in t for _, t in t1.heard_lines[mark:]),
          "alice's turn never came")
    world.mallory.send("PING :sync")
    world.mallory.wait(lambda l: " PONG " in l, 10)
    got = bot_lines_to(world.mallory, t1.botnick)
    check(got == [], "mallory received private lines: %r" % got)
    log = world.bot_logtext()
    check("your hand" not in log, "private text in the bot's log")
    withheld = log.count("not sending private lines for %s" % ALICE_ID)
    print("ok - mallory, holding alice's nick, got nothing private; %d "
          "messages for alice withheld" % withheld)

    world.mallory.close()
    world.mallory = None
    # Her two turns timed out: a computer holds her seat, and the grace
    # time (600 s) after her quit has not passed.
    mal = irc_util.Client(world.ircd.port, "mal", "mal")
    mal.send("JOIN #t1")
    mal.wait(lambda l: " 366 " in l)
    got = ask(mal, "#t1", t1.botnick, "!replace alice", REPLACE_WORDS)
    check(got == "mal: " + STILL_HERE,
          "!replace alice within the grace: %r" % got)
    alice.back = True
    alice.connect()
    world.wait(lambda: alice.joined, 15, "alice back in #t1")
    got = ask(mal, "#t1", t1.botnick, "!replace alice", REPLACE_WORDS)
    check(got == "mal: " + STILL_HERE, "!replace alice, alice here: %r" % got)
    mal.close()
    print("ok - nobody took alice's seat while she could come back, nor "
          "once she was back")
    alice.say("!back")
    alice.say("!hand")
    world.wait(lambda: alice.hands_after, 20, "alice's hand")
    print("ok - alice, back with her own mask, got her hand: %r" %
          alice.hands_after[0][:40])

    # Both games run; a SIGTERM says goodbye at both tables.  The people
    # pause first, so that the goodbyes do not wait behind a backlog
    # longer than stop() may take (what a backlog holds stays in the
    # core's outbox for the restart).
    world.paused = True
    world.wait(lambda: time.monotonic() - world.last_bot_line > 1.5, 30,
               "the tables to fall quiet")
    check(not t1.over and not t2.over, "a game ended early")
    marks = {t.channel: len(t.heard_lines) for t in world.tables}
    world.bot_stopping = True
    world.bot.send_signal(game.signal.SIGTERM)
    world.wait(lambda: all(t.said(GOODBYE, marks[t.channel])
                           for t in world.tables), 15,
               "the goodbye in both channels")
    rc = world.bot.wait(20)
    world.bot_log.close()
    check(rc == 0, "the bot exited %d on SIGTERM" % rc)
    for word in ("Sanitizer", "runtime error"):
        check(word not in world.bot_logtext(), world.bot_logtext()[-3000:])
    print("ok - SIGTERM: the goodbye reached both running tables")


def main():
    return game.main(World, run, "irc-impostor-")


if __name__ == "__main__":
    sys.exit(main())

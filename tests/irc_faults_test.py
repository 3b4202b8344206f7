#!/usr/bin/env python3
"""irc_faults_test.py - a Wizard game through `stichbot run` against ngircd
on 127.0.0.1 while people misbehave.

    irc_faults_test.py STICHBOT

alice, bob and carol play Wizard (hiddentip, rounds=6) in #faults, knowing
only what the bot tells them privately (the scripted people of
irc_game_test.py).
Meanwhile:
  1. mallory, who has no seat, sends 200 commands in one burst
     ("!frob0" ... "!frob199", each answered 'Unknown command "frobN"'
     when answered at all).  The bot answers exactly its per-person burst
     (user_flood), the first ones, tells mallory once, privately, that it
     ignores the rest, and stays connected; the game goes on, and a second
     later mallory is answered again;
  2. trudy sends hostile lines: a NUL or control bytes inside a command,
     CTCP, and words long enough that an answer quoting them in full
     would not fit one IRC line (the answers quote 24 characters and
     "…").  (A CR inside a line never reaches the bot through
     ngircd, which ends the line there; irc_test.py feeds the adapter such
     lines directly.)  The bot stays connected, never sends CR, LF or NUL
     inside a line, never sends a line over 512 bytes, and every line it
     sends is valid UTF-8;
  3. bob quits the server while it is his turn to play.  After the grace
     time (3 s) a computer takes his seat, plays that turn and the rest of
     his game, and the game ends.
Afterwards: no held card or hidden bid reached the channel, `stichbot
export` replays to the channel's final score sheet, bob's own commands
are his seat's first actions and the computer's follow, the bot paced its
lines, it was never disconnected, and it stops cleanly on SIGTERM.

Exits 77 (skip) when ngircd or openssl is missing.  Standard library only.
"""

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irc_game_test as game  # noqa: E402
import irc_util  # noqa: E402
from bot_lines import seat_actions  # noqa: E402

check = game.check
Failure = game.Failure

GRACE = 3
# Each person's command allowance: fast enough for scripted players, who
# answer every prompt at once, and still a limit a flood runs into.
USER_BURST = 10
USER_INTERVAL_MS = 250
FROB = re.compile(r'^mallory: Unknown command "frob(\d+)"')
SLOW_DOWN = "Too many commands at once"
STANDIN = "bob is gone; a computer plays their seat"


class Quitter(game.Player):
    """A player who quits the server instead of making a play in round
    quit_round."""

    quit_round = 4

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.quit_at = None      # monotonic time of the QUIT
        self.quit_when_revealed = None   # the round to quit in
        self.revealed = None     # the last round whose bids bob heard

    def raw(self, line):
        if self.quit_at is None:
            super().raw(line)

    def answer(self, rnd, hand, task, current=False):
        if self.quit_at is not None:
            return
        if task.startswith("to play") and rnd.number >= self.quit_round:
            # The prompt overtakes the channel's bid reveal: quit once
            # bob has heard it (his privacy check follows his bid there).
            self.quit_when_revealed = rnd.number
            self.quit_if_revealed()
            return
        super().answer(rnd, hand, task, current)

    def line(self, line):
        super().line(line)
        if self.quit_at is None and self.log and \
                self.log[-1][1] == "chan" and \
                " bid for " in irc_util.plain(self.log[-1][2]):
            self.revealed = self.current.number
            self.quit_if_revealed()

    def quit_if_revealed(self):
        if self.quit_at is not None or self.quit_when_revealed is None or \
                self.revealed != self.quit_when_revealed:
            return
        super().raw("QUIT :gone fishing")
        self.quit_at = time.monotonic()
        self.quit_mark = len(self.table.heard_lines)
        self.log.append((self.quit_at, "sent", "QUIT"))
        self.sock.close()
        self.sock = None

    def readable(self):
        if self.sock is None:
            return True
        return super().readable()


class Watcher(irc_util.Client):
    """A raw client that is pumped along with the game (short reads)."""

    def __init__(self, port, nick, channel):
        super().__init__(port, nick)
        self.send("JOIN %s" % channel)
        self.wait(lambda l: " 366 " in l)
        self.sock.settimeout(0.01)

    def pump(self):
        try:
            self._pump()
        except OSError:
            pass

    def from_bot(self, botnick):
        """(kind, text, length on the wire) of every line from the bot."""
        out = []
        for line, length in zip(self.lines, self.raw_lengths):
            nick, command, params = irc_util.split_line(line)
            if nick == botnick and command in ("PRIVMSG", "NOTICE") and \
                    len(params) == 2:
                out.append(("chan" if params[0].startswith("#") else "priv",
                            params[1], length))
        return out


class World(game.World):
    """One table, #faults, on one network, with a short grace time."""

    def __init__(self, directory):
        self.dir = directory
        self.ircd = irc_util.Ngircd(directory, limits={"MaxPenaltyTime": 0})
        self.store = os.path.join(directory, "stichbot.db")
        self.log_path = os.path.join(directory, "stichbot.log")
        self.paused = False
        self.last_bot_line = time.monotonic()
        self.bot = None
        self.watchers = []
        table = game.Table(self, "net", "faultbot", "#faults", "wizard",
                           ["hiddentip", "rounds=6"],
                           ["alice", "bob", "carol"], private_bids=True)
        bob = table.players[1]
        table.players[1] = Quitter(self, table, "bob", seed=bob.rng.random())
        self.tables = [table]

    def config(self):
        config = super().config()
        config.update(grace=GRACE, computer={"level": "easy",
                                             "delay_ms": 200},
                      # The network-wide allowance is test_bot's: here
                      # each person's own allowance is what is measured.
                      user_flood={"burst": USER_BURST,
                                  "interval_ms": USER_INTERVAL_MS,
                                  "network_burst": 1000})
        return config

    def pump(self, timeout=0.1):
        super().pump(timeout)
        for w in self.watchers:
            w.pump()

    def settle(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump()


def flood(world, table):
    """mallory's 200 commands in one write."""
    mallory = Watcher(world.ircd.port, "mallory", table.channel)
    world.watchers.append(mallory)
    world.wait(lambda: table.rounds_started >= 2, 60, "round 2")
    burst = "".join("PRIVMSG %s :!frob%d\r\n" % (table.channel, i)
                    for i in range(200))
    mallory.sock.sendall(burst.encode())
    start = time.monotonic()
    world.wait(lambda: any(SLOW_DOWN in text for kind, text, _ in
                           mallory.from_bot(table.botnick)), 10,
               "the note to mallory")
    actions = table.actions

    def answered_now():
        return sum(1 for kind, text, _ in mallory.from_bot(table.botnick)
                   if kind == "chan" and FROB.match(irc_util.plain(text)))
    # The answers wait behind the table's backlog (a table's lines leave
    # in order): wait for them, and for the game to go on meanwhile.
    world.wait(lambda: answered_now() >= USER_BURST and
               table.actions >= actions + 3, 60,
               "the answers to mallory, and the game to go on")
    world.settle(2)
    lines = mallory.from_bot(table.botnick)
    answered = [int(FROB.match(irc_util.plain(text)).group(1))
                for kind, text, _ in lines
                if kind == "chan" and FROB.match(irc_util.plain(text))]
    notes = [text for kind, text, _ in lines if kind == "priv"]
    print("# %d of 200 commands answered, %d private notes, in %.1f s" % (
        len(answered), len(notes), time.monotonic() - start))
    # The burst arrives within milliseconds; a token or two may come back
    # while it is read.
    check(USER_BURST <= len(answered) <= USER_BURST + 2,
          "the bot answered %d of mallory's 200 commands" % len(answered))
    check(answered == list(range(len(answered))),
          "not the first commands were answered: %s" % answered)
    check(len(notes) == 1 and SLOW_DOWN in notes[0],
          "mallory's private lines: %s" % notes)
    check(re.search(r"net: mallory!\S+ sends commands too fast",
                    world.bot_logtext()),
          "the bot did not log the flood")
    # The allowance grows back.
    mallory.send("PRIVMSG %s :!frob999" % table.channel)
    world.wait(lambda: any(FROB.match(irc_util.plain(t)) and "frob999" in t
                           for _, t, _ in mallory.from_bot(table.botnick)),
               10, "mallory answered again")
    print("ok - 200 commands from mallory: %d answered, one private note, "
          "the rest ignored; answered again later" % len(answered))


def answers(client, table):
    """The bot's answers to a client's commands: its private lines to
    them and its refusals in the channel, which name them."""
    return [(kind, text, length) for kind, text, length in
            client.from_bot(table.botnick) if kind == "priv" or
            irc_util.plain(text).startswith((client.nick + ": Unknown command",
                                             client.nick + ": Usage:"))]


def hostile(world, table):
    """trudy's hostile lines, within her allowance."""
    trudy = Watcher(world.ircd.port, "trudy", table.channel)
    world.watchers.append(trudy)
    chan = table.channel
    # ngircd reads what a client sends as a C string: a NUL ends the
    # whole read, so the NUL line goes last, and each line on its own.
    lines = [
        "PRIVMSG %s :!frob\x01\x02\x03\x7f" % chan,
        # A word so long that the answer quoting it exceeds one line.
        "PRIVMSG %s :!%s" % (chan, "\u00e9" * 200),
        "PRIVMSG %s :!%s" % (chan, "x" * 400),
        "PRIVMSG faultbot :%s" % ("\u3042" * 140),
        "PRIVMSG faultbot :\x01VERSION\x01",
        "PRIVMSG %s :!frob\x00PRIVMSG %s :injected" % (chan, chan),
    ]
    for line in lines:
        trudy.sock.sendall(line.encode("utf-8") + b"\r\n")
        world.settle(0.3)
    world.wait(lambda: len(answers(trudy, table)) >= 5, 15,
               "answers to trudy")
    world.settle(2)
    got = trudy.from_bot(table.botnick)
    for kind, text, length in got:
        check(length <= 512, "a line of %d bytes: %r" % (length, text))
        check(not any(c in text for c in "\r\n\x00"),
              "CR, LF or NUL inside a line: %r" % text)
    # The lines trudy received, as the server relayed them: nothing the
    # bot sent began a new command.
    for line in trudy.lines:
        nick, command, params = irc_util.split_line(line)
        check(not (nick == table.botnick and command == "QUIT"),
              "the bot quit: %r" % line)
        check(not (nick == table.botnick and params[-1:] == ["injected"]),
              "the bot sent an injected line: %r" % line)
    mine = answers(trudy, table)
    said = " ".join(irc_util.plain(t) for _, t, _ in mine)
    # Each answer quotes the long word cut short: 24 characters and "…".
    check("\u00e9" * 24 + "\u2026" in said and "x" * 24 + "\u2026" in said
          and "\u3042" * 24 + "\u2026" in said,
          "no answer quoting the long commands short: %r" % mine)
    check("\u00e9" * 25 not in said and "x" * 25 not in said and
          "\u3042" * 25 not in said,
          "an answer quoting a long command in full: %r" % mine)
    check(re.search(r'Unknown command "frob', said),
          "no answer to the commands with control bytes: %r" % mine)
    # CTCP replies are the bot's least urgent lines: they wait for a gap.
    world.wait(lambda: any(" NOTICE trudy :\x01VERSION " in line
                           for line in trudy.lines), 20,
               "the CTCP VERSION reply")
    print("ok - trudy's NUL, control bytes, CTCP and over-long words: %d "
          "answers, every line clean and within 512 bytes" % len(mine))


def play(world, table):
    """Plays the game to its end, with the flood, trudy and bob's quit
    on the way."""
    flood(world, table)
    hostile(world, table)
    bob = table.players[1]
    world.wait(lambda: bob.quit_at is not None, 90, "bob's quit")
    mark = bob.quit_mark
    world.wait(lambda: table.said(STANDIN, mark), GRACE + 15, "the stand-in")
    took = next(t for t, text in table.heard_lines[mark:] if STANDIN in text)
    waited = took - bob.quit_at
    check(waited >= GRACE - 0.5, "the computer came after %.1f s, before "
          "the grace time" % waited)
    world.wait(lambda: table.over, 150, "the end of the game")
    print("ok - bob quit at his turn; after %.1f s a computer took his "
          "seat and the game ended" % waited)


def check_record(world, table):
    proc = world.stichbot("export", "--store", world.store)
    check(proc.returncode == 0, "export: exit %d: %s" % (proc.returncode,
                                                        proc.stderr))
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    check(len(records) == 1, "%d games exported" % len(records))
    record = records[0]
    bob = table.players[1]
    stored = seat_actions(record, record["players"].index("bob"))
    check(stored[:len(bob.sent)] == bob.sent and
          len(stored) > len(bob.sent) + 3,
          "bob sent %d commands; his seat has %d actions" % (
              len(bob.sent), len(stored)))
    # From here on the computer's moves count as bob's.
    own = len(bob.sent)
    bob.sent = stored
    result = game.check_record(world, table, record)
    print("ok - the export replays to the channel's result %s; bob's seat: "
          "%d actions of his, then %d of the computer" % (
              result["scores"], own, len(stored) - own))


def run(world):
    world.start_bot()
    world.connect_all()
    table = world.tables[0]
    game.lobby(world, table)
    start = time.monotonic()
    play(world, table)
    print("ok - the game ended (%.1f s)" % (time.monotonic() - start))
    lines = 0
    for p in table.players:
        lines += game.check_privacy(p)
    print("ok - no held card or hidden bid in %d channel lines" % lines)
    check_record(world, table)
    game.check_pacing(world)
    print("ok - the bot paced its lines: %d at once, then one per %d ms" % (
        game.BURST, game.INTERVAL_MS))
    log = world.bot_logtext()
    check("connection lost" not in log, "the bot lost its connection:\n" +
          log[-2000:])
    check("flood" not in world.ircd.logtext().lower(),
          "ngircd saw a flood:\n" + world.ircd.logtext()[-2000:])
    game.stop_bot(world)
    print("ok - never disconnected; stops cleanly")


def main():
    return game.main(World, run, "irc-faults-")


if __name__ == "__main__":
    sys.exit(main())

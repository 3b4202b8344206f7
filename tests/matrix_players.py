"""Whole games through `stichbot run` against the test homeserver: the
pieces tests/matrix_game_test.py and tests/service_test.py share.

- World: a test homeserver (tests/matrix_homeserver.py) with the bot's
  account and player accounts, a scratch directory, configuration files
  with the secret in a file, and `stichbot run` processes.
- Player: a scripted person (tests/matrix_client.py) who joins the direct
  rooms the bot opens and plays only from what the bot tells them: the
  hand that comes privately with each deal (with the task of whoever acts
  at once: "to bid: 0 1 2", "to choose trump", "to select a penalty
  card", "to play: r3, r9"), and the room's line that names them to act
  with what everyone knows constrains the play ("bob to play · lead r"),
  from which they work out their choices by the rules, as a person does;
  never the bot's internals.  Choices are random (seeded) among the legal
  ones.
- Checks on what was said: no card still in someone's hand and no hidden
  bid in a room before its reveal (privacy), the score sheet of the room
  against `stichbot export` + `stichbot replay`, and each person's
  commands against the actions of the stored record (none lost, none
  twice).

Standard library only; everything on 127.0.0.1.
"""

import html
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
import traceback

from bot_lines import (HAND_RE, REFUSALS, ROUND_START, UNIQUE_CARDS,
                       played_by, plays_from_hint, seat_actions,
                       turn_in)
from matrix_client import MatrixClient
from matrix_homeserver import Homeserver

BOT = "@bot:localhost"
PASSWORD = "bot-secret-5d1e"
# Players read their direct rooms whole: no timeline cut.
FILTER = {"room": {"timeline": {"limit": 1000}}}

class Failure(AssertionError):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def wait_until(predicate, timeout=20, what="a condition"):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise Failure("timed out waiting for " + what)
        time.sleep(0.05)


def plain(content):
    """A message's visible text outside score sheets (<table>, and <pre>
    blocks)."""
    body = content.get("formatted_body")
    if body is None:
        return content.get("body", "")
    # Blocks: what follows one starts a line of its own, as clients
    # show it (the sheet of a round's end is followed by the next round's
    # first line, with no <br> between).
    body = re.sub(r"<pre>.*?</pre>|<table>.*?</table>", "\n", body,
                  flags=re.S)
    body = re.sub(r"<br\s*/?>", "\n", body)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


class BotProcess:
    """One `stichbot run --config FILE`; its stderr goes to the log."""

    def __init__(self, world, config_path, env=None):
        self.log = open(world.log_path, "a")
        self.log.write("=== stichbot run --config %s\n" % config_path)
        self.log.flush()
        self.proc = subprocess.Popen(
            [world.stichbot, "run", "--config", config_path],
            stdout=subprocess.DEVNULL, stderr=self.log,
            env=dict(os.environ, **(env or {})))

    def kill(self):
        """SIGKILL: no goodbye, no flush, as a crash."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()

    def terminate(self, timeout=20):
        """SIGTERM; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = "hung"
        self.log.close()
        return rc

    def alive(self):
        return self.proc.poll() is None


class World:
    """A homeserver, the bot's account, people, files and bot runs."""

    def __init__(self, stichbot, directory):
        self.stichbot = stichbot
        self.dir = directory
        self.store = os.path.join(directory, "stichbot.db")
        self.log_path = os.path.join(directory, "stichbot.log")
        self.config_path = os.path.join(directory, "stichbot.json")
        self.hs = Homeserver().start()
        self.hs.state.register("bot", PASSWORD, "Stichbot")
        self.password_file = os.path.join(directory, "matrix-password")
        with open(self.password_file, "w") as f:
            f.write(PASSWORD + "\n")
        os.chmod(self.password_file, 0o600)
        self.bots = []
        self.players = []

    @property
    def state(self):
        return self.hs.state

    def person(self, localpart, name, seed):
        self.state.register(localpart, "secret", name)
        p = Player(self, localpart, name, seed)
        self.players.append(p)
        return p

    def config(self, channels, **network):
        net = {
            "name": "mx",
            "type": "matrix",
            "homeserver": self.hs.url,
            "user_id": BOT,
            "password_file": self.password_file,
            "device_name": "stichbot test",
            "sync_timeout_ms": 5000,
            "invites": {"allow_servers": ["localhost"]},
            "defaults": {"turn_timer": 0},
            "channels": channels,
        }
        net.update(network)
        # Scripted people answer every prompt at once, faster than any
        # person types: the per-person command limit is off here
        # (irc_faults_test.py checks it).
        return {"store": self.store, "log_level": "debug", "grace": 0,
                "computer": {"level": "easy"},
                "user_flood": {"interval_ms": 0}, "networks": [net]}

    def write_config(self, config):
        tmp = self.config_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(config, f, indent=1)
        os.replace(tmp, self.config_path)

    def run_bot(self, env=None):
        bot = BotProcess(self, self.config_path, env)
        self.bots.append(bot)
        return bot

    def bot_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def check_log(self):
        """The bot's log holds no secret (the password, an access token)
        and no sanitizer report."""
        log = self.bot_log()
        check(PASSWORD not in log, "the password is in the log")
        with self.state.cond:
            tokens = list(self.state.tokens)
        for token in tokens:
            check(token not in log, "an access token is in the log")
        for mark in ("ERROR: AddressSanitizer", "runtime error:",
                     "ERROR: LeakSanitizer"):
            check(mark not in log, "a sanitizer report in the log")

    def describe(self):
        """What each person last did and was told, for a failure."""
        out = []
        for p in self.players:
            out.append("%s sent %s" % (p.name, [s[:3] for s in
                                                p.sent[-3:]]))
            for dm in sorted(p.dms):
                for body in self.bot_lines(dm)[-3:]:
                    out.append("  %s <- %s" % (p.name, body[:200]))
            if p.refusals:
                out.append("  refused: %s" % p.refusals[-3:])
        dms = set().union(*(p.dms for p in self.players))
        with self.state.cond:
            rooms = [r for r in self.state.rooms if r not in dms]
        for room in rooms:
            for pos, e in self.room_log(room)[-8:]:
                out.append("%s %d %s: %s" % (room, pos, e["sender"],
                                             e["content"]["body"][:150]))
        return "\n".join(out)

    def close(self):
        for bot in self.bots:
            if bot.alive():
                bot.kill()
        self.hs.stop()

    # What the server holds, for checks (positions order everything).

    def room_log(self, room_id):
        """[(pos, event)] of m.room.message events in room_id."""
        with self.state.cond:
            return [(p, e) for p, e in self.state.rooms[room_id].events
                    if e["type"] == "m.room.message"]

    def bot_lines(self, room_id):
        return [e["content"].get("body", "") for _, e in
                self.room_log(room_id) if e["sender"] == BOT]

    def wait_bot_line(self, room_id, needle, timeout=30, after=0):
        return wait_until(
            lambda: [b for b in self.bot_lines(room_id)[after:]
                     if needle in b], timeout,
            "%r in %s" % (needle, room_id))

    def stichbot_json(self, *args, ok=(0,)):
        proc = subprocess.run([self.stichbot] + list(args),
                              capture_output=True, text=True, timeout=60)
        check(proc.returncode in ok, "stichbot %s: exit %d: %s" % (
            " ".join(args), proc.returncode, proc.stderr))
        return proc

    def export(self, *extra):
        out = self.stichbot_json("export", "--store", self.store,
                                 *extra).stdout
        return [json.loads(line) for line in out.splitlines() if line]

    def replay(self, record):
        proc = subprocess.run([self.stichbot, "replay"],
                              input=json.dumps(record),
                              capture_output=True, text=True, timeout=60)
        check(proc.returncode == 0, "replay refused the exported record "
              "(exit %d): %s" % (proc.returncode, proc.stdout))
        return json.loads(proc.stdout)


class Round:
    """A player's memory of one round at one table."""

    def __init__(self, number):
        self.number = number
        self.dealt = None        # cards in the first hand shown
        self.hand = None         # the first hand shown (codes)
        self.acted = set()       # cards announced at each turn we took
        self.played = []         # cards this player played
        self.bid = None
        self.trump = None
        self.selected = None


class Player:
    """A person at the tables, acting only on what the bot tells them."""

    def __init__(self, world, localpart, name, seed):
        self.world = world
        self.user_id = "@%s:localhost" % localpart
        self.name = name
        self.rng = random.Random(seed)
        self.client = MatrixClient(world.hs.url, self.user_id).login()
        self.client.filter = FILTER
        self.client.sync()
        self.dms = set()
        self.done = set()        # ids of the bot's events already read
        self.tables = {}         # label -> {"room", "game", "key", ...}
        self.rounds = {}         # label -> Round
        self.sent = []           # (table key, kind, value, event_id)
        self.refusals = []       # what the bot refused, with the command
        self.hands = []          # (event_id, label, round, [cards])
        self.acted = 0
        self.waiting = {}        # label -> a prompt that needs the room
        self.turn_pending = {}   # label -> a room turn ahead of its hand
        self.reject = 0          # the bot's next invitations to reject
        self.rejected = []       # the rooms rejected

    def sit(self, label, room_id, game, key, private_bids=False):
        """Plays at table label (the room's name in the configuration,
        as the bot's private lines say it); key names this game."""
        self.tables[label] = {"room": room_id, "game": game, "key": key,
                              "private_bids": private_bids}
        self.rounds.pop(label, None)

    def say(self, room_id, text):
        return self.client.say(room_id, text)

    def poll(self, act=True):
        """One sync: joins the bot's direct rooms, reads what the bot
        said there and answers prompts.  Returns whether anything new
        came."""
        r = self.client.sync(timeout_ms=0)
        news = False
        for room_id, room in r["rooms"]["invite"].items():
            for e in room["invite_state"]["events"]:
                if e["type"] == "m.room.member" and \
                        e["state_key"] == self.user_id and \
                        e["sender"] == BOT and room_id not in self.dms:
                    if room_id in self.rejected:
                        continue
                    if self.reject > 0:
                        self.reject -= 1
                        self.client.leave(room_id)
                        self.rejected.append(room_id)
                        news = True
                        continue
                    self.client.join(room_id)
                    self.dms.add(room_id)
                    news = True
        for room_id in list(self.dms):
            for e in self.client.timelines.get(room_id, []):
                if e["event_id"] in self.done:
                    continue
                self.done.add(e["event_id"])
                if e["type"] != "m.room.message" or e["sender"] != BOT:
                    continue
                news = True
                self.read(e, act)
        for label, table in self.tables.items():
            for e in self.client.timelines.get(table["room"], []):
                if e["event_id"] in self.done:
                    continue
                self.done.add(e["event_id"])
                if e["type"] == "m.room.message" and e["sender"] == BOT \
                        and act:
                    self.room_line(label, e["content"].get("body", ""))
        for label, (rnd, hand, task) in list(self.waiting.items()):
            if self.rounds.get(label) is rnd:
                self.answer(label, rnd, hand, task)
            else:
                del self.waiting[label]
        return news

    def read(self, event, act):
        body = event["content"].get("body", "")
        m = HAND_RE.match(body)
        if m is None:
            if any(r in body for r in REFUSALS):
                self.refusals.append((body, self.sent[-1:]))
            return
        label, number = m.group("label"), int(m.group("round"))
        parts = m.group("rest").split(" · ")
        hand = [] if parts[0] == "(no cards)" else parts[0].split()
        self.hands.append((event["event_id"], label, number, hand))
        rnd = self.rounds.get(label)
        if rnd is None or number > rnd.number:
            rnd = self.rounds[label] = Round(number)
        elif number < rnd.number:
            return               # an old prompt
        if rnd.dealt is None:
            rnd.dealt = len(hand)
            rnd.hand = list(hand)
        self.waiting.pop(label, None)
        task = parts[-1]
        if act and label in self.tables and task.startswith("to "):
            self.answer(label, rnd, hand, task)
        if act and label in self.turn_pending:
            self.room_turn(label, self.turn_pending.pop(label))

    def room_line(self, label, body):
        """A message of the bot in a table's room: notes the round and
        what it says we played (by round: the hand is what we were dealt
        less that, so a command lost or refused does not count), then
        acts if it names us."""
        table = self.tables[label]
        announced = table.setdefault("announced", {})
        for line in body.split("\n"):
            m = ROUND_START.match(line)
            if m:
                table["round"] = int(m.group(1))
            announced.setdefault(table.get("round", 0), []).extend(
                played_by(line, self.name))
        self.room_turn(label, body)

    def room_turn(self, label, body):
        """A room line that names us to act: the hand we were dealt, less
        what we played, and the public hint say what we may do (no
        private prompt comes per turn)."""
        table = self.tables[label]
        announced = table.setdefault("announced", {})
        found = turn_in(body, self.name)
        rnd = self.rounds.get(label)
        if found is None:
            return
        if rnd is None or rnd.hand is None or \
                rnd.number < table.get("round", 0):
            # The room is ahead of our direct room (each room has its own
            # order): act once this round's hand is here.
            self.turn_pending[label] = body
            return
        self.turn_pending.pop(label, None)
        task, hint = found
        ours = announced.get(rnd.number, [])
        left = list(rnd.hand)
        for c in ours + ([rnd.selected] if rnd.selected else []):
            if c in left:
                left.remove(c)
        if task == "to play":
            # A turn told twice (a resume line, then the move we had
            # sent before the restart) is taken once.
            if len(ours) in rnd.acted:
                return
            rnd.acted.add(len(ours))
        if task == "to bid":
            if table["private_bids"]:
                return           # hidden bids are prompted privately
            task = "to bid: " + " ".join(str(n) for n in
                                         range(rnd.dealt + 1))
        elif task == "to play":
            plays = plays_from_hint(table["game"], left, hint)
            check(plays, "%s: no play from %r after %r" % (self.name, left,
                                                           body))
            task = "to play: " + ", ".join(" ".join(p) for p in plays)
        self.answer(label, rnd, left, task, current=True)

    def answer(self, label, rnd, hand, task, current=False):
        """Acts on a task; hand is what a prompt showed, or (current) what
        we hold now by the room's account."""
        table = self.tables[label]
        several = len(self.tables) > 1
        if task.startswith("to bid"):
            if rnd.bid is not None:
                return           # asked again before our bid was seen
            rnd.bid = int(self.rng.choice(task.split(":")[1].split()))
            if table["private_bids"]:
                self.private(label, "bid", rnd.bid, several)
            else:
                self.public(label, "bid", rnd.bid)
        elif task == "to choose trump":
            if rnd.trump is not None:
                return
            rnd.trump = self.rng.choice("rygb")
            self.public(label, "trump", rnd.trump)
        elif task == "to select a penalty card":
            if rnd.selected is not None:
                return
            rnd.selected = self.rng.choice(hand)
            self.private(label, "select", rnd.selected, several)
        elif task.startswith("to play"):
            # A prompt sent before our last play was handled still shows
            # the card: the hand must be what is left after our plays.
            left = rnd.dealt - len(rnd.played) - \
                (1 if rnd.selected is not None else 0)
            if len(hand) != left and not current:
                return
            if not current:
                # A resume sends the hand with the task, and the room
                # names us too: the turn is taken once, whichever is
                # read first (a poll reads direct rooms first; before,
                # the room's line then played a second card).
                turn = rnd.dealt - len(hand) - \
                    (1 if rnd.selected is not None else 0)
                if turn in rnd.acted:
                    return
                rnd.acted.add(turn)
            example = re.search(r"\(\S+ cards, e\.g\. ([^)]*)\)$", task)
            if task == "to play (any card)":
                choice = self.rng.choice(hand)
            elif example:
                # Too many ways to play for the prompt to list them: it
                # says how many cards and gives one legal example.
                choice = example.group(1)
            elif task == "to play" and table["game"] == "birdhead":
                # Too many ways to follow for the prompt to list them:
                # as a person would, look at the room for how many cards
                # were led, and play that many of the lowest (always
                # allowed).
                count = self.cards_led(table["room"])
                if count is None:
                    self.waiting[label] = (rnd, hand, task)
                    return
                self.waiting.pop(label, None)
                choice = " ".join(sorted(hand, key=int)[:count])
            else:
                check(":" in task, "%s: a play prompt without choices: %r"
                      % (self.name, task))
                choice = self.rng.choice(task.split(":", 1)[1].split(","))
            cards = choice.split()
            rnd.played += cards
            self.public(label, "play", " ".join(cards))
        else:
            raise Failure("%s: unknown prompt %r" % (self.name, task))

    def cards_led(self, room_id):
        """How many cards each play of the trick holds, from the room's
        last line if it asks us to play; None while it does not yet."""
        said = [e["content"].get("body", "") for e in
                self.client.timelines.get(room_id, [])
                if e["type"] == "m.room.message" and e["sender"] == BOT]
        if not said:
            return None
        parts = said[-1].split("\n")[-1].split(" · ")
        if parts[-1] != "%s to play" % self.name or len(parts) < 2:
            return None
        cards = parts[0].split()[1:]
        if not cards or not all(c.isdigit() for c in cards):
            return None
        return len(cards)

    def public(self, label, kind, value):
        room = self.tables[label]["room"]
        event_id = self.say(room, "!%s %s" % (kind, value))
        self.sent.append((self.tables[label]["key"], kind, str(value),
                          event_id))
        self.acted += 1

    def private(self, label, kind, value, several):
        dm = self.dm_room()
        text = "%s %s %s" % (kind, label, value) if several else \
            "%s %s" % (kind, value)
        event_id = self.say(dm, text)
        self.sent.append((self.tables[label]["key"], kind, str(value),
                          event_id))
        self.acted += 1

    def dm_room(self):
        check(self.dms, "%s: no direct room with the bot" % self.name)
        return sorted(self.dms)[0]


def drive(world, players, done, timeout, what, on_step=None):
    """Lets players read and act until done() holds; on_step() may act
    (kill the bot, reload) between steps."""
    st = world.state
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise Failure("timed out: " + what)
        with st.cond:
            pos = st.pos
        news = False
        for p in players:
            news = p.poll() or news
        if on_step is not None:
            on_step()
        if not news:
            with st.cond:
                if st.pos == pos:
                    st.cond.wait(0.2)


# Checks on what was said.

def sheet_totals(content):
    """The Total row of the last score sheet in a bot message, or None."""
    rows = [line for line in content.get("body", "").split("\n")
            if line.startswith("Total ")]
    return [int(x) for x in rows[-1].split()[1:]] if rows else None


def sheet_header(content):
    """The header cells of the HTML table in a bot message, unescaped,
    or None when the message has no table."""
    m = re.search(r"<table><thead><tr>(.*?)</tr></thead>",
                  content.get("formatted_body", ""), re.S)
    if m is None:
        return None
    return [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>",
                                                 m.group(1), re.S)]


def check_sheet_table(content, names):
    """The score sheet in content is an HTML table headed by the seats'
    whole names, and the plain body keeps them whole too."""
    head = sheet_header(content)
    check(head is not None and head[1:] == names,
          "the score sheet's HTML header is %r, not the seats %r: %r" % (
              head, names, content.get("formatted_body", "")[:400]))
    rows = content.get("body", "").split("\n")
    check(any(all(n in r for n in names) for r in rows),
          "no row of the plain score sheet has the whole names %r: %r" % (
              names, content.get("body", "")[:400]))


def check_scores(world, room_id, record, names):
    """The room's last score sheet and winners agree with the replay of
    the exported record; the sheet is an HTML table with the seats'
    names."""
    result = world.replay(record)
    check(result["finished"], "the exported game is not finished: %s" %
          json.dumps(result)[:300])
    contents = [e["content"] for _, e in world.room_log(room_id)
                if e["sender"] == BOT and sheet_totals(e["content"])]
    check(contents, "no score sheet in the room")
    check_sheet_table(contents[-1], names)
    sheets = [sheet_totals(c) for c in contents]
    totals = sheets[-1]
    check(totals == result["scores"], "the room's last Total row %s, the "
          "replay %s" % (totals, result["scores"]))
    over = [b for b in world.bot_lines(room_id) if "Game over" in b][-1]
    winners = re.search(r"Game over\. Winner: (.*)$", over, re.M).group(1)
    said = sorted(re.findall(r"([A-Za-z0-9]+) \((-?\d+)\)", winners))
    want = sorted((record["players"][s], str(result["scores"][s]))
                  for s in result["winners"])
    check(said == want, "winners said %s, replay %s" % (said, want))
    check(record["players"] == names, "seats %s, expected %s" % (
        record["players"], names))
    return result


def check_commands(record, players, key):
    """Every command a person sent at this table is one action of the
    record, in order: none lost, none done twice."""
    for p in players:
        if p.name not in record["players"]:
            continue
        acts = seat_actions(record, record["players"].index(p.name))
        sent = [(k, v) for game, k, v, _ in p.sent if game == key]
        check(acts == sent, "%s: %d commands sent, %d actions stored; "
              "first difference at %s" % (
                  p.name, len(sent), len(acts),
                  next((i for i, (a, b) in enumerate(zip(acts, sent))
                        if a != b), min(len(acts), len(sent)))))
        check(not p.refusals, "%s: the bot refused %s" % (p.name,
                                                         p.refusals[:3]))


def check_privacy(world, room_id, label, game, players, private_bids,
                  since=0, until=None, extra=()):
    """Replays the server's history in order: at each bot message in the
    room, no card a person still holds (as their private hands said) and,
    during hidden bidding, no bid before the reveal.  Causal order per
    table: a hand of round N reaches a direct room only after the room
    has heard round N begin (so after everything of round N - 1).  Each
    line is held against the hands of the round the room is in.
    Only positions since..until count; extra adds (pos, event) to the
    room (the test of this check)."""
    st = world.state
    order = []               # (pos, kind, player, content)
    with st.cond:
        for p in players:
            for dm in p.dms:
                for pos, e in st.rooms[dm].events:
                    if e["type"] != "m.room.message":
                        continue
                    if e["sender"] == BOT:
                        order.append((pos, "hand", p, e["content"]))
                    elif e["sender"] == p.user_id:
                        order.append((pos, "said", p, e["content"]))
        for pos, e in list(st.rooms[room_id].events) + list(extra):
            if e["type"] != "m.room.message":
                continue
            who = next((p for p in players if p.user_id == e["sender"]),
                       None)
            if e["sender"] == BOT:
                order.append((pos, "room", None, e["content"]))
            elif who is not None:
                order.append((pos, "cmd", who, e["content"]))
    order = sorted((o for o in order if o[0] >= since and
                    (until is None or o[0] <= until)), key=lambda x: x[0])
    cards = UNIQUE_CARDS.get(game)
    held = {p.name: {} for p in players}     # name -> round -> cards
    # Cards a person played or selected, by round: a hand the bot sent
    # before it handled the command (say, just after a restart) still
    # shows them, but they are no longer the person's secret.
    gone = {p.name: {} for p in players}
    latest = {p.name: 0 for p in players}    # name -> round of last hand
    selected = {}            # name -> card selected, not yet revealed
    bids = {}                # name -> hidden bid, not yet revealed
    hidden = False           # hidden bidding under way
    names = [p.name for p in players] + ["CPU1", "CPU2", "CPU3"]
    room_round = 0
    checked = 0
    for pos, kind, p, content in order:
        body = content.get("body", "")
        if kind == "hand":
            m = HAND_RE.match(body)
            if m and m.group("label") == label:
                r = int(m.group("round"))
                check(r <= room_round or (since > 0 and room_round == 0),
                      "%s's hand of round %d came before the room heard "
                      "round %d begin (the room is in round %d)" % (
                          p.name, r, r, room_round))
                latest[p.name] = max(latest[p.name], r)
                if cards is not None:
                    hand = m.group("rest").split(" · ")[0].split()
                    held[p.name][r] = {c for c in hand
                                       if cards.fullmatch(c)} - \
                        gone[p.name].get(r, set())
            continue
        if kind == "said":
            words = body.split()
            if len(words) == 3 and words[1] != label:
                continue
            if len(words) >= 2 and words[0] == "select":
                r = latest[p.name]
                held[p.name].get(r, set()).discard(words[-1])
                gone[p.name].setdefault(r, set()).add(words[-1])
                selected[p.name] = words[-1]
            elif len(words) >= 2 and words[0] == "bid":
                bids[p.name] = words[-1]
            continue
        if kind == "cmd":
            words = body.split()
            if words and words[0] == "!play":
                r = latest[p.name]
                for c in words[1:]:
                    held[p.name].get(r, set()).discard(c)
                    gone[p.name].setdefault(r, set()).add(c)
            continue
        text = plain(content)
        checked += 1
        check("your hand" not in text and "to play:" not in text and
              "to bid:" not in text,
              "a private prompt in the room: %r" % body)
        if "penalty cards:" in text:
            for name, card in selected.items():
                check(re.search(r"(?<!\w)%s %s\b" % (re.escape(name),
                                                 re.escape(card)), text),
                      "%s's penalty card %s is not in the reveal %r" % (
                          name, card, text))
            selected = {}
        for line in text.split("\n"):
            m = ROUND_START.match(line)
            if m:
                room_round = int(m.group(1))
                # Hidden bidding opens with the round (after a trump
                # choice, if any) and ends with the reveal.
                hidden = private_bids
            if " bid for " in line:
                for name, bid in bids.items():
                    check(re.search(r"(?<!\w)%s %s\b" % (re.escape(name),
                                                           bid), line),
                          "%s's bid %s is not in the reveal %r" % (
                              name, bid, line))
                bids = {}
                hidden = False
                line = line.split(" · ")[0]
            if hidden:
                # "Bob bids 2", "Bob 2, ..." (the reveal), or a player
                # line with a bid ("Bob 10 (40) 0/2"; hidden: "0/?").
                check(not re.search(r"\bbids \d", line),
                      "a hidden bid before the reveal: %r" % line)
                for name in names:
                    n = re.escape(name)
                    check(not re.search(r"(?<!\w)%s \d+(,|$)" % n, line) and
                          not re.search(r"(?<!\w)%s -?\d+ (\(-?\d+\) )?"
                                        r"\d+/\d" % n, line),
                          "a hidden bid before the reveal: %r" % line)
            if cards is None:
                continue
            for name in held:
                hand = held[name].get(room_round, set())
                for c in cards.findall(line):
                    check(c not in hand and c != selected.get(name),
                          "%s still holds %s, yet the room reads %r" % (
                              name, c, text))
    check(checked > 0, "no bot message in the room")
    check(not private_bids or not bids, "hidden bids never revealed")
    return checked


def main(title, prefix, test, helper=None):
    """Runs test(world) (or test(world, helper(directory)) against a fresh
    homeserver in a scratch directory with the stichbot named on the
    command line; on failure prints the players, the helper's describe()
    and the bot's log.  Returns the exit status."""
    if len(sys.argv) != 2:
        print("usage: %s STICHBOT" % os.path.basename(sys.argv[0]),
              file=sys.stderr)
        return 2
    stichbot = os.path.abspath(sys.argv[1])
    directory = tempfile.mkdtemp(prefix=prefix)
    world = World(stichbot, directory)
    extra = helper(directory) if helper is not None else None
    start = time.monotonic()
    try:
        if extra is None:
            test(world)
        else:
            test(world, extra)
        print("ok   %s (%.1f s)" % (title, time.monotonic() - start))
        return 0
    except Exception:
        print("FAIL %s (%.1f s)" % (title, time.monotonic() - start))
        traceback.print_exc()
        if extra is not None:
            print(extra.describe())
        print("--- the players ---")
        print(world.describe())
        print("--- stichbot log (last 60 lines) ---")
        print("\n".join(world.bot_log().splitlines()[-60:]))
        return 1
    finally:
        if extra is not None:
            extra.close()
        world.close()
        shutil.rmtree(directory, ignore_errors=True)

#!/usr/bin/env python3
"""Whole games through `stichbot run` on Matrix: the real executable
against the test homeserver (tests/matrix_homeserver.py), with scripted
players (tests/matrix_players.py) who read their hands and legal choices
only from the bot's direct messages.

    matrix_game_test.py STICHBOT

1. Two rooms at once: Wizard with hiddentip (bids by direct message) for
   two people and a computer player (!addbot), and Sticheln (penalty
   selections by direct message) for three people.  Alice sits at both
   tables, so her private commands name the table ("bid #wizard:localhost
   2").  Midway the bot is killed (SIGKILL, right after a command was
   sent) and started again on the same store: both games resume ("The
   game resumes") and finish.
2. BirdHead for three people in the first room, to the end.
3. A Wizard table opened there by a person whose display name is long
   and full of HTML's specials: `!scores` shows it whole, escaped, as the
   header of an HTML table.
Before them: a half-time reminder held up until the homeserver's outage
is declared is dropped, and the fresh turn's reminder comes after "I am
back online"; and a bid typed while the bot was down (SIGTERM, SIGKILL)
is announced before the resume.
Checks, for every game: "Game over" in the room; no card a person still
holds and no hidden bid before its reveal in any room message (and this
check itself catches planted leaks); the export of the store replays to
the totals and winners the room was told, and its last score sheet is an
HTML table headed by the seats' names; every command a person sent is
exactly one action of the stored record (nothing lost or done twice
across the crash); the bot refused nothing; old chat in a room from
before the bot joined is not taken for commands; the password never
reaches the log.  Loopback only; bounded by timeouts.
"""

import os
import re
import sys
import time
from urllib.parse import unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matrix_players  # noqa: E402
from matrix_players import (BOT, Failure, check,  # noqa
                            check_commands, check_privacy, check_scores,
                            check_sheet_table, drive, wait_until)

WIZARD = "#wizard:localhost"
STICHELN = "#sticheln:localhost"


def game_over(world, room_id, after=0):
    return lambda: any("Game over" in b
                       for b in world.bot_lines(room_id)[after:])


def pos_now(world):
    with world.state.cond:
        return world.state.pos


def start_table(world, room_id, owner, game, options, people, addbot=0):
    """Opens a table by commands; returns the position it started at."""
    since = pos_now(world)
    lines = len(world.bot_lines(room_id))
    owner.say(room_id, "!game " + game)
    for o in options:
        owner.say(room_id, "!option " + o)
    for p in people:
        p.say(room_id, "!join")
    for _ in range(addbot):
        owner.say(room_id, "!addbot")
    seated = len(people) + addbot
    world.wait_bot_line(room_id, "(%d seated" % seated, after=lines)
    owner.say(room_id, "!start")
    return since


def self_test_privacy(world, room_id, label, players, since, until):
    """The privacy check must catch a card still in a hand and a hidden
    bid said in the room (planted in a copy of the room's history)."""
    st = world.state
    with st.cond:
        events = [(p, e) for p, e in st.rooms[room_id].events
                  if since <= p <= until and e["type"] == "m.room.message"
                  and e["sender"] == BOT]
    hidden = next(p for p, e in events
                  if "bids are hidden" in e["content"]["body"])
    alice = players[0]
    # Alice's first hand of a later round with a suited card in it, and
    # the room's start of that round.
    hand = next(h for h in alice.hands if h[1] == label and h[2] >= 2 and
                set(h[3]) - {"W", "J"})
    with st.cond:
        hand_pos = next(p for dm in alice.dms
                        for p, e in st.rooms[dm].events
                        if e["event_id"] == hand[0])
    start = next(p for p, e in events if "\nRound %d/" % hand[2] in
                 "\n" + e["content"]["body"])
    card = next(c for c in hand[3] if c not in ("W", "J"))
    plants = [
        (max(hand_pos, start) + 0.5, "a card", "Alice looks at " + card),
        (hidden + 0.5, "a hidden bid", "Alice 0 0/? · Bob 10 0/1"),
        (hidden + 0.5, "a hidden bid", "Bob bids 1"),
    ]
    for at, what, body in plants:
        fake = (at, {"type": "m.room.message", "sender": BOT,
                     "content": {"msgtype": "m.notice", "body": body}})
        try:
            check_privacy(world, room_id, label, "wizard", players, True,
                          since, until, extra=[fake])
        except Failure:
            continue
        raise Failure("the privacy check missed %s: %r" % (what, body))


PILL = re.compile(r'<a href="https://matrix\.to/#/(@[^"]+)">')
ROOM_ID = re.compile(r"![A-Za-z0-9_.=-]+:[A-Za-z0-9.-]+")


def check_line_kinds(world, room_ids, players):
    """Issue 16.4, as a Matrix user's client sees the lines: in a room,
    a line that mentions someone (the one telling a player to act) is an
    m.text with those people in m.mentions and a pill for each, and
    every other line is an m.notice (quiet under the default push
    rules); every private line is an m.text mentioning its reader, and
    none names a table by its raw room id.  Returns the number of turn
    lines seen."""
    turns = 0
    for room_id in room_ids:
        for _, e in world.room_log(room_id):
            if e["sender"] != BOT:
                continue
            c = e["content"]
            pills = PILL.findall(c.get("formatted_body", ""))
            if pills:
                turns += 1
                check(c["msgtype"] == "m.text",
                      "a line mentioning someone is %s: %r" %
                      (c["msgtype"], c["body"]))
                check(sorted(set(pills)) ==
                      sorted(c.get("m.mentions", {}).get("user_ids", [])),
                      "pills %s but m.mentions %s in %r" %
                      (pills, c.get("m.mentions"), c["body"]))
            else:
                check(c["msgtype"] == "m.notice" and "m.mentions" not in c,
                      "a room line without a mention is %s: %r" %
                      (c["msgtype"], c["body"]))
    for p in players:
        for dm in p.dms:
            for _, e in world.room_log(dm):
                if e["sender"] != BOT:
                    continue
                c = e["content"]
                check(c["msgtype"] == "m.text" and p.user_id in
                      c.get("m.mentions", {}).get("user_ids", []),
                      "a private line to %s is %s with %s: %r" %
                      (p.name, c["msgtype"], c.get("m.mentions"),
                       c["body"]))
                check(not ROOM_ID.search(c["body"]),
                      "a private line names a room id: %r" % c["body"])
    return turns


def check_long_name_sheet(world, room_id):
    """A display name far past an IRC nick, with HTML's specials, heads
    its column of the score sheet whole and escaped."""
    name = "Evangeline Featherstonehaugh <&>"
    eve = world.person("eve", name, 15)
    eve.client.join(room_id)
    start_table(world, room_id, eve, "wizard", [], [eve], addbot=2)
    lines = len(world.bot_lines(room_id))
    eve.say(room_id, "!scores")
    world.wait_bot_line(room_id, "Total", after=lines)
    content = [e["content"] for _, e in world.room_log(room_id)
               if e["sender"] == BOT and "Total" in
               e["content"].get("body", "")][-1]
    check_sheet_table(content, [name, "CPU1", "CPU2"])
    check("<th>Evangeline Featherstonehaugh &lt;&amp;&gt;</th>" in
          content["formatted_body"], "the long name is not escaped "
          "whole in %r" % content["formatted_body"][:400])


def test_games(world):
    st = world.state
    alice = world.person("alice", "Alice", 11)
    bob = world.person("bob", "Bob", 12)
    carol = world.person("carol", "Carol", 13)
    dave = world.person("dave", "Dave", 14)
    people = [alice, bob, carol, dave]
    wiz = alice.client.create_room(preset="public_chat",
                                   room_alias_name="wizard")
    sti = carol.client.create_room(preset="public_chat",
                                   room_alias_name="sticheln")
    for p in (bob, carol, dave):
        p.client.join(wiz)
    for p in (alice, dave):
        p.client.join(sti)
    # Said before the bot was there: history, not commands.
    bob.say(wiz, "!game birdhead")
    bob.say(wiz, "!join")

    world.write_config(world.config([
        {"name": WIZARD, "game": "wizard"},
        {"name": STICHELN, "game": "sticheln"},
    ]))
    bot = world.run_bot()
    for room in (wiz, sti):
        wait_until(lambda: st.rooms[room].membership(BOT) == "join", 20,
                   "the bot in " + room)

    wiz_since = start_table(world, wiz, alice, "wizard",
                            ["hiddentip", "rounds=4"], [alice, bob],
                            addbot=1)
    sti_since = start_table(world, sti, carol, "sticheln", [],
                            [carol, alice, dave])
    first = world.bot_lines(wiz)[0]
    check(first.startswith("Next game: Wizard"),
          "the bot acted on old chat: its first line is %r" % first)
    for p in (alice, bob):
        p.sit(WIZARD, wiz, "wizard", "wizard", private_bids=True)
    for p in (carol, alice, dave):
        p.sit(STICHELN, sti, "sticheln", "sticheln")

    # Midway through the Wizard game, right after a command went out,
    # the bot dies and starts again on the same store.
    crash = {"bot": bot, "at": None}

    def wizard_commands():
        return sum(1 for p in (alice, bob) for s in p.sent
                   if s[0] == "wizard")

    def on_step():
        if crash["at"] is None and wizard_commands() >= 12:
            last = [p.acted for p in people]
            if last != crash.get("acted"):
                crash["bot"].kill()
                crash["at"] = pos_now(world)
                crash["lines"] = (len(world.bot_lines(wiz)),
                                  len(world.bot_lines(sti)))
                # What the dead bot had stored, and what was typed.
                crash["stored"] = {r["game"]: r for r in
                                   world.export("--running")}
                crash["sent"] = sum(len(p.sent) for p in people)
                time.sleep(0.3)
                crash["bot"] = world.run_bot()
        crash["acted"] = [p.acted for p in people]

    drive(world, people, lambda: game_over(world, wiz)() and
          game_over(world, sti)(), 60, "the Wizard and Sticheln games",
          on_step)
    check(crash["at"] is not None, "the bot was never killed")
    for room, seen in zip((wiz, sti), crash["lines"]):
        later = world.bot_lines(room)[seen:]
        check(any("The game resumes" in b for b in later),
              "no resume line in %s after the restart: %s" % (room,
                                                              later[:3]))
    until = pos_now(world)

    records = {r["game"]: r for r in world.export()}
    check(set(records) == {"wizard", "sticheln"},
          "exported: %s" % sorted(records))
    check_scores(world, wiz, records["wizard"], ["Alice", "Bob", "CPU1"])
    check_scores(world, sti, records["sticheln"],
                 ["Carol", "Alice", "Dave"])
    check_commands(records["wizard"], [alice, bob], "wizard")
    check_commands(records["sticheln"], [carol, alice, dave], "sticheln")
    # Stored before the kill: kept, in order, under the final record.
    humans = 0
    for game, before in crash["stored"].items():
        after = records[game]["actions"]
        check(after[:len(before["actions"])] == before["actions"],
              "%s: the actions stored before the kill changed" % game)
        humans += sum(1 for x in before["actions"]
                      if before["players"][x["seat"]] != "CPU1")
    unhandled = crash["sent"] - humans
    check(unhandled >= 0, "more actions stored than commands typed")
    check_privacy(world, wiz, WIZARD, "wizard", [alice, bob], True,
                  wiz_since, until)
    check_privacy(world, sti, STICHELN, "sticheln", [carol, alice, dave],
                  False, sti_since, until)
    self_test_privacy(world, wiz, WIZARD, [alice, bob], wiz_since, until)

    # BirdHead in the first room, three people, to the end.
    lines = len(world.bot_lines(wiz))
    bh_since = start_table(world, wiz, bob, "birdhead", [],
                           [bob, carol, dave])
    for p in (bob, carol, dave):
        p.sit(WIZARD, wiz, "birdhead", "birdhead")
    drive(world, people, game_over(world, wiz, lines), 90,
          "the BirdHead game")
    record = [r for r in world.export() if r["game"] == "birdhead"]
    check(len(record) == 1, "exported BirdHead games: %d" % len(record))
    check_scores(world, wiz, record[0], ["Bob", "Carol", "Dave"])
    check_commands(record[0], [bob, carol, dave], "birdhead")
    check_privacy(world, wiz, WIZARD, "birdhead", [bob, carol, dave],
                  False, bh_since)

    # A message edited into a command, as Element sends it: answered in
    # the room, never acted on (the game is over: "!join" would open a
    # lobby).
    lines = len(world.bot_lines(wiz))
    typo = bob.say(wiz, "!jion")
    world.wait_bot_line(wiz, "jion", after=lines)
    bob.client.send(wiz, {"msgtype": "m.text", "body": "* !join",
                          "m.new_content": {"msgtype": "m.text",
                                            "body": "!join"},
                          "m.relates_to": {"rel_type": "m.replace",
                                           "event_id": typo}})
    world.wait_bot_line(wiz, "I do not act on edited messages", after=lines)
    # What the bot answers next comes after anything the edit caused.
    answered = len(world.bot_lines(wiz))
    bob.say(wiz, "!scores")
    wait_until(lambda: len(world.bot_lines(wiz)) > answered, 30,
               "the answer to !scores")
    said = world.bot_lines(wiz)[lines:]
    check(not [b for b in said if " joins " in b or
               b.startswith("Next game")],
          "an edit was acted on: %r" % said)

    turns = check_line_kinds(world, (wiz, sti), people)
    check(turns > 0, "no line mentioned a player")
    check_long_name_sheet(world, wiz)

    rc = crash["bot"].terminate()
    check(rc == 0, "SIGTERM: exit status %s" % rc)
    # The core let the goodbyes leave before it stopped the adapter.
    check("still queued at stop" not in world.bot_log() and
          "messages were not sent" not in world.bot_log(),
          "the adapter was stopped with messages queued")
    world.check_log()
    print("  Wizard, Sticheln and BirdHead: %d actions stored; killed "
          "with %d command(s) typed but not yet handled, each handled "
          "once after the restart; %d send(s) repeated a transaction "
          "the homeserver had (one event each)" % (
              sum(len(r["actions"]) for r in list(records.values()) +
                  record), unhandled, st.repeated_txns))


NAMES = "#names:localhost"
LOST = "I could not reach you privately"


def test_rejected_and_namesakes(world):
    """Audit items through `stichbot run`: two members called Sam sit as
    "Sam (@id)" each, and `!admin kick @id` takes the one named; once
    the other Sam has left the room, the first is plain "Sam" again.  A
    player (Rita) who rejects her direct room is asked once in the room
    to accept or say !hand, and gets her hand in one new room, where
    she plays the game to its end."""
    st = world.state
    sam1 = world.person("sam1", "Sam", 31)
    sam2 = world.person("sam2", "Sam", 32)
    rita = world.person("rita", "Rita", 33)
    room = sam1.client.create_room(preset="public_chat",
                                   room_alias_name="names")
    for p in (sam2, rita):
        p.client.join(room)
    world.write_config(world.config([
        {"name": WIZARD, "game": "wizard"},
        {"name": STICHELN, "game": "sticheln"},
        {"name": NAMES, "game": "wizard"},
    ]))
    bot = world.run_bot()
    wait_until(lambda: st.rooms[room].membership(BOT) == "join", 20,
               "the bot in " + room)
    sam1.say(room, "!option rounds=2")
    for p in (sam1, sam2, rita):
        p.say(room, "!join")
    world.wait_bot_line(room, "(3 seated")
    joins = [b for b in world.bot_lines(room) if " joins Wizard" in b]
    check([b.split(" joins")[0] for b in joins] ==
          ["Sam (@sam1:localhost)", "Sam (@sam2:localhost)", "Rita"],
          "the lobby does not tell the Sams apart: %r" % joins)
    lines = len(world.bot_lines(room))
    sam1.say(room, "!admin kick @sam2:localhost")
    sam1.say(room, "!addbot")
    world.wait_bot_line(room, "(3 seated", after=lines)
    kicked = world.bot_lines(room)[lines]
    check(kicked.startswith("Sam (@sam2:localhost) "),
          "kicked by id: %r" % kicked)
    sam2.client.leave(room)
    for _ in range(20):
        lines = len(world.bot_lines(room))
        sam1.say(room, "!status")
        status = world.wait_bot_line(room, "Rita", after=lines)[0]
        if "@sam1" not in status:
            break
        time.sleep(0.5)
    check("@sam1" not in status and "Sam" in status,
          "the only Sam left is still %r" % status)
    rita.reject = 1
    for p in (sam1, rita):
        p.sit(NAMES, room, "wizard", "names")
    lines = len(world.bot_lines(room))
    sam1.say(room, "!start")
    drive(world, [sam1, rita], game_over(world, room, lines), 60,
          "the Wizard game of a player who rejected her room")
    notices = [b for b in world.bot_lines(room)[lines:] if LOST in b]
    check(notices == ["Rita: %s; accept my invitation or say !hand." %
                      LOST], "the room was told %r" % notices)
    check(len(rita.rejected) == 1 and len(rita.dms) == 1,
          "Rita rejected %s and plays in %s" % (rita.rejected, rita.dms))
    check(any(h[2] == 1 for h in rita.hands),
          "Rita never got her first hand: %s" % rita.hands)
    created = [r for r in st.rooms_created_by(BOT)
               if st.rooms[r].membership(rita.user_id) is not None]
    check(len(created) == 2, "rooms opened for Rita: %s" % created)
    check(st.rooms[rita.rejected[0]].membership(BOT) == "leave",
          "the bot stayed in the room Rita rejected")
    record = [r for r in world.export() if "Rita" in r["players"]][-1]
    check_scores(world, room, record, ["Sam", "Rita", "CPU1"])
    check_commands(record, [sam1, rita], "names")
    rc = bot.terminate()
    check(rc == 0, "SIGTERM: exit status %s" % rc)
    world.check_log()
    print("  Rita rejected her room: told once, one new room, %d actions;"
          " the Sams told apart, kicked by id" % len(record["actions"]))


DOWN = "#down:localhost"


def hands_since(world, person, pos):
    """How many hands the bot sent person after position pos."""
    st = world.state
    return sum(1 for r in st.rooms_created_by(BOT)
               if st.rooms[r].membership(person.user_id) is not None
               for p, e in world.room_log(r)
               if p > pos and e["sender"] == BOT and
               "your hand" in e["content"].get("body", ""))


def people_in_room(world, names, seed, alias):
    """(people called names, a public room #alias they are all in)."""
    people = [world.person(n.lower(), n, seed + i)
              for i, n in enumerate(names)]
    room = people[0].client.create_room(preset="public_chat",
                                        room_alias_name=alias)
    for p in people[1:]:
        p.client.join(room)
    return people, room


def run_and_start(world, room, people, options):
    """Starts the bot and, once it is in room, a game of everyone there
    with options; (the bot, the room's lines before !start, the first
    prompt)."""
    bot = world.run_bot()
    wait_until(lambda: world.state.rooms[room].membership(BOT) == "join",
               20, "the bot in " + room)
    for o in options:
        people[0].say(room, "!option " + o)
    for p in people:
        p.say(room, "!join")
    world.wait_bot_line(room, "(%d seated" % len(people))
    lines = len(world.bot_lines(room))
    people[0].say(room, "!start")
    return bot, lines, world.wait_bot_line(room, " to ", after=lines)[-1]


def test_moved_while_down(world):
    """A bid typed while the bot is down (after a SIGTERM, then after a
    SIGKILL) is handled before the game resumes: the room hears the bid
    first, and the resume line asks the next bidder, not the one who has
    just bid; nobody is prompted before it.  Someone who took a new
    display name meanwhile is called by it in the resume line, and someone
    who rejected their direct room meanwhile gets their hand once, in a
    new room."""
    st = world.state
    people, room = people_in_room(world, ("Mo", "Ned", "Ola"), 40, "down")
    world.write_config(world.config([{"name": DOWN, "game": "wizard"}]))
    bot, lines, prompt = run_and_start(world, room, people, ["rounds=3"])
    chooser = re.search(r"(\w+) to choose trump", prompt)
    if chooser is not None:
        # A Wizard was turned up: the dealer names trump first.
        lines = len(world.bot_lines(room))
        [p for p in people if p.name == chooser.group(1)][0].say(
            room, "!trump r")
        prompt = world.wait_bot_line(room, " to bid", after=lines)[-1]
    for how in ("SIGTERM", "SIGKILL"):
        mover = re.search(r"(\w+) to bid", prompt).group(1)
        if how == "SIGTERM":
            check(bot.terminate() == 0, "SIGTERM: not a clean exit")
        else:
            bot.kill()
        lines = len(world.bot_lines(room))
        [p for p in people if p.name == mover][0].say(room, "!bid 0")
        # Someone else takes a new name meanwhile.
        other = [p for p in people if p.name != mover][0]
        old_name, other.name = other.name, other.name + "x"
        other.client.set_displayname(other.name)
        leaver, since = None, pos_now(world)
        if how == "SIGKILL":
            # The third rejects the invitation to their direct room.
            leaver = [p for p in people if p.name != mover and
                      p is not other][0]
            for r in st.rooms_created_by(BOT):
                if st.rooms[r].membership(leaver.user_id) == "invite":
                    leaver.client.leave(r)
        bot = world.run_bot()
        world.wait_bot_line(room, "The game resumes", after=lines)
        if leaver is not None:
            # Their hand comes in a new room, once: not also again when
            # the bot hears that the old room was left.
            wait_until(lambda: hands_since(world, leaver, since) >= 1, 20,
                       "%s's hand in a new room" % leaver.name)
            world.wait_bot_line(room, "could not reach you privately",
                                after=lines)
            time.sleep(2)
            check(hands_since(world, leaver, since) == 1,
                  "%s got %d hands after leaving their room" %
                  (leaver.name, hands_since(world, leaver, since)))
        said = world.bot_lines(room)[lines:]
        bid = [i for i, b in enumerate(said) if b.startswith(mover +
                                                           " bids 0")]
        resume = [i for i, b in enumerate(said)
                  if b.startswith("The game resumes")]
        check(bid and bid[0] < resume[0],
              "after a %s, the bid typed meanwhile was not announced "
              "before the resume: %r" % (how, said))
        check(not [b for b in said[:resume[0]] if " to bid" in b],
              "after a %s, someone was prompted before the resume: %r" %
              (how, said))
        prompt = said[resume[0]]
        check(" to bid" in prompt and mover + " to bid" not in prompt,
              "after a %s, the resume asks %s to bid again: %r" %
              (how, mover, prompt))
        check(other.name in prompt and
              not re.search(r"\b%s\b" % old_name, prompt),
              "after a %s, the resume calls %s by the old name %s: %r" %
              (how, other.name, old_name, prompt))
    check(bot.terminate() == 0, "SIGTERM: not a clean exit")
    world.check_log()
    print("  a bid typed while the bot was down (SIGTERM, SIGKILL) is "
          "announced before the resume, which asks the next bidder")


REMIND = "#remind:localhost"
REMINDER = "seconds left before a computer"


def send_puts(world, room_id):
    """How many times the bot has asked to send into room_id."""
    with world.state.cond:
        return sum(1 for m, path, user in world.state.requests
                   if m == "PUT" and user == BOT and
                   "/rooms/%s/send/" % room_id in unquote(path))


def test_reminder_after_outage(world):
    """The turn timer's half-time reminder that could not leave before
    the homeserver's outage was declared is dropped, not said after it:
    the clock it spoke of stopped, and "I am back online" starts the turn
    afresh, whose own reminder then comes in time (before, the stale one
    came first, ahead of the room's "back online")."""
    st = world.state
    people, room = people_in_room(world, ("Pia", "Quin", "Rue"), 60,
                                  "remind")
    world.write_config(world.config(
        [{"name": REMIND, "game": "wizard", "turn_timer": 30}],
        outage_ms=3000))
    bot, lines, prompt = run_and_start(world, room, people, [])
    mover = [p for p in people
             if re.search(r"%s to (bid|choose trump)" % p.name, prompt)][0]
    # The mover's direct room refuses the bot's lines from now on, so
    # the reminder (at 15 s) keeps failing until the outage.
    def mover_dms():
        return [r for r in st.rooms_created_by(BOT) if r != room and
                st.rooms[r].membership(mover.user_id) in ("join", "invite")]
    # The prompt may reach the room before the bot has opened every
    # direct room (a loaded machine).
    dm = wait_until(mover_dms, 30, "%s's direct room" % mover.name)[0]
    # Her hand first: its clock starts once it has been said.
    wait_until(lambda: [e for _, e in world.room_log(dm)
                        if "your hand" in e["content"].get("body", "")],
               30, "%s's hand" % mover.name)
    tries = send_puts(world, dm)
    world.hs.fail_room_sends(dm, True)
    wait_until(lambda: send_puts(world, dm) > tries, 40,
               "the reminder's first try")
    world.hs.stop()
    wait_until(lambda: "matrix mx: disconnected" in world.bot_log(), 30,
               "the outage declared")
    world.hs.fail_room_sends(dm, False)
    world.hs.start()
    back = world.wait_bot_line(room, "I am back online", 60,
                               after=lines)[-1]
    check(mover.name + " to " in back,
          "the line after the outage does not prompt %s: %r" %
          (mover.name, back))
    # The fresh turn's reminder comes 15 s after it.
    wait_until(lambda: [e for _, e in world.room_log(dm)
                        if REMINDER in e["content"].get("body", "")],
               45, "the fresh turn's reminder")
    with st.cond:
        back_pos = [p for p, e in st.rooms[room].events
                    if e["type"] == "m.room.message" and
                    "I am back online" in e["content"].get("body", "")][0]
    reminders = [p for p, e in world.room_log(dm)
                 if REMINDER in e["content"].get("body", "")]
    check(reminders and min(reminders) > back_pos,
          "a reminder came before \"I am back online\" (positions %r, "
          "back at %d)" % (reminders, back_pos))
    check("of no use after the outage are dropped" in world.bot_log(),
          "the log does not say the stale reminder was dropped")
    check(bot.terminate() == 0, "SIGTERM: not a clean exit")
    world.check_log()
    print("  a reminder held up by an outage is dropped; the fresh turn's "
          "comes after \"I am back online\"")


OUTAGE = "#outage:localhost"


def test_stop_in_outage(world):
    """SIGTERM while the homeserver is down: the bot stops at once, since
    nothing can leave (before, it waited the core's whole drain time,
    about 20 s), and the next run resumes the game."""
    people, room = people_in_room(world, ("Sal", "Tom", "Uma"), 70,
                                  "outage")
    world.write_config(world.config(
        [{"name": OUTAGE, "game": "wizard"}], outage_ms=2000))
    bot, lines, _ = run_and_start(world, room, people, ["rounds=3"])
    seen = world.bot_log().count("matrix mx: disconnected")
    world.hs.stop()
    wait_until(lambda: world.bot_log().count("matrix mx: disconnected") >
               seen, 30, "the outage declared")
    started = time.monotonic()
    check(bot.terminate(40) == 0, "SIGTERM: not a clean exit")
    took = time.monotonic() - started
    check(took < 8, "the stop took %.1f s in an outage" % took)
    world.hs.start()
    lines = len(world.bot_lines(room))
    bot = world.run_bot()
    world.wait_bot_line(room, "The game resumes", 60, after=lines)
    check(bot.terminate() == 0, "SIGTERM: not a clean exit")
    world.check_log()
    print("  stopped in %.1f s in an outage; the next run resumed the game"
          % took)


def test_all(world):
    test_reminder_after_outage(world)
    test_stop_in_outage(world)
    test_moved_while_down(world)
    test_games(world)
    test_rejected_and_namesakes(world)


def main():
    return matrix_players.main("matrix games", "matrix-game-", test_all)


if __name__ == "__main__":
    sys.exit(main())

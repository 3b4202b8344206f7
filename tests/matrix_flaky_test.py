#!/usr/bin/env python3
"""Issue 14.7 through the real path: `stichbot run` plays whole Wizard
games on the test homeserver (tests/matrix_homeserver.py) while a share
of the bot's own requests fail with 500 (10% for the first game, 30% for
the second), /sync among them.  Scripted players (tests/matrix_players.py)
read only the bot's direct rooms.

    matrix_flaky_test.py STICHBOT

Checks: both games end; the room never hears "I am back online" and the
bot's log never says "disconnected" (one failed request is not an
outage); private lines name the table (configured by its room id) by the
room's alias, never its id; every command a person sent is exactly one
action of the stored record (none lost, none done twice); no private
prompt is repeated (the same hand and task twice in a row); the bot
refused nothing.
Loopback only; bounded by timeouts.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matrix_players  # noqa: E402
from matrix_game_test import game_over, start_table  # noqa: E402
from matrix_players import (BOT, check, check_commands,  # noqa: E402
                            check_scores, drive, wait_until)

# The table is configured by its room id; private lines must name it by
# the room's alias (the adapter's channel_title), never by that id.
ROOM = "#flaky:localhost"
ROOM_ID = re.compile(r"![A-Za-z0-9_.=-]+:[A-Za-z0-9.-]+")
RECONNECTED = "I am back online"


def private_prompts(world, players):
    """The bot's lines in the players' direct rooms, per player."""
    return {p.name: [e["content"].get("body", "")
                     for dm in p.dms for _, e in world.room_log(dm)
                     if e["sender"] == BOT]
            for p in players}


def test_flaky(world):
    st = world.state
    alice = world.person("alice", "Alice", 21)
    bob = world.person("bob", "Bob", 22)
    people = [alice, bob]
    room = alice.client.create_room(preset="public_chat",
                                    room_alias_name="flaky")
    bob.client.join(room)
    world.write_config(world.config([{"name": room, "game": "wizard"}]))
    bot = world.run_bot()
    wait_until(lambda: st.rooms[room].membership(BOT) == "join", 20,
               "the bot in the room")
    records = []
    for share, seed in ((0.1, 7), (0.3, 8)):
        lines = len(world.bot_lines(room))
        failed = world.hs.fail_share(share, [BOT], seed)
        start_table(world, room, alice, "wizard", ["rounds=3"],
                    [alice, bob], addbot=1)
        for p in people:
            p.sit(ROOM, room, "wizard", "wizard-%d" % seed)
        drive(world, people, game_over(world, room, lines), 180,
              "the Wizard game with %d%% of requests failing" %
              (share * 100))
        world.hs.fail_share(0)
        syncs = sum(1 for p in failed if p.endswith("/sync"))
        check(syncs >= 2, "only %d /sync requests failed at %d%%" %
              (syncs, share * 100))
        said = world.bot_lines(room)[lines:]
        check(not [b for b in said if RECONNECTED in b],
              "the room heard %d reconnections at %d%%" % (
                  sum(1 for b in said if RECONNECTED in b), share * 100))
        game = [r for r in world.export() if r["game"] == "wizard"]
        check(len(game) == len(records) + 1, "exported %d Wizard games" %
              len(game))
        record = game[-1]
        check_scores(world, room, record, ["Alice", "Bob", "CPU1"])
        check_commands(record, people, "wizard-%d" % seed)
        records.append(record)
        print("  %d%% of the bot's requests failed (%d, %d of them "
              "/sync): %d actions, no reconnection" % (
                  share * 100, len(failed), syncs,
                  len(record["actions"])))
    # A repeated prompt is the other symptom of a false reconnection:
    # the same hand and task twice in a row, with no move between.
    for name, lines in private_prompts(world, people).items():
        check(any("your hand" in b for b in lines),
              "%s got no private prompt" % name)
        repeated = [b for i, b in enumerate(lines) if i > 0 and
                    b == lines[i - 1]]
        check(not repeated, "%s was told the same twice in a row: %r" % (
            name, repeated[:2]))
        check(not [b for b in lines if ROOM_ID.search(b)],
              "%s was told a room id: %r" % (
                  name, [b for b in lines if ROOM_ID.search(b)][:2]))
        check(all(b.startswith("[%s] " % ROOM) for b in lines
                  if "your hand" in b),
              "%s: a hand does not name the table %s" % (name, ROOM))
    check("disconnected" not in world.bot_log(),
          "the bot logged a disconnection")
    rc = bot.terminate()
    check(rc == 0, "SIGTERM: exit status %s" % rc)
    world.check_log()


def main():
    return matrix_players.main("matrix flaky", "matrix-flaky-", test_flaky)


if __name__ == "__main__":
    sys.exit(main())

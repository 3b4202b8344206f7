"""bot_lines.py - what the bot says, as the scripted people of the IRC
and Matrix tests (and the IRC benchmark) read it: the private hand and
prompt line, the start of a round, the card codes that exist once per
deck, the answers
that mean a command was refused (bot/catalog_en.c), and a record's
actions as the commands that made them.  Standard library
only.
"""

import re

# "[#chan] Round N, your hand: ... · to play: a, b"
HAND_RE = re.compile(r"^\[(?P<label>[^\]]+)\] Round (?P<round>\d+), "
                     r"your hand: (?P<rest>.*)$")
# Card codes that exist once per deck (Wizard suited cards, Sticheln).
UNIQUE_CARDS = {
    "wizard": re.compile(r"(?<![A-Za-z0-9])[rygb](?:1[0-3]|[1-9])"
                         r"(?![A-Za-z0-9])"),
    "sticheln": re.compile(r"(?<![A-Za-z0-9])[rygbnp](?:1[0-4]|[0-9])"
                           r"(?![A-Za-z0-9])"),
}
# The channel line that starts a round: "Round 3/20 · ..." or "Round 3".
ROUND_START = re.compile(r"^Round (\d+)(?:/\d+)?(?: ·|$)")
# What the bot answers to a command it refuses.
REFUSALS = ("not your turn", "is not a card", "is not a number",
            "is not a suit", "Refused", "Unknown command", "Usage:",
            "You have no seat", "No game is running", "name one",
            "Say that in the table", "This is secret", "could not",
            "Too many commands")


def seat_actions(record, seat):
    """The actions of a seat in a record (RECORD.md) as the commands that
    make them: [(kind, value)], a play's cards joined by spaces."""
    acts = []
    for a in record["actions"]:
        if a["seat"] != seat:
            continue
        for kind in ("bid", "trump", "select", "play"):
            if kind in a:
                v = a[kind]
                acts.append((kind, " ".join(v) if isinstance(v, list)
                             else str(v)))
    return acts

"""bot_lines.py - what the bot says, as the scripted people of the IRC
and Matrix tests (and the IRC benchmark) read it: the private hand and
prompt line, the start of a round, the channel line that tells a person
it is their turn (and what the public knows constrains the play), the
plays a person may make worked out by the rules, the card codes that
exist once per deck, the answers that mean a command was refused
(bot/catalog_en.c), and a record's actions as the commands that made
them.  Standard library only.
"""

import itertools
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
            "Too many commands", "You have already", "You do not hold")


TASKS = ("to play", "to bid", "to choose trump")


def turn_in(text, name):
    """(task, hint) when the bot's channel text asks name alone to act:
    "alice r7 · bob to play · lead r" gives ("to play", "lead r") for bob.
    None otherwise, and for the line that starts a round: the hand that
    comes with the deal carries the task of whoever acts at once."""
    for line in text.split("\n"):
        if ROUND_START.match(line):
            continue
        parts = line.split(" · ")
        for i, part in enumerate(parts):
            for task in TASKS:
                if part == "%s %s" % (name, task):
                    return task, parts[i + 1] if i + 1 < len(parts) \
                        else None
    return None


CARD = re.compile(r"^(?:[rygbnp]?\d{1,2}|W|J)$")


def played_by(line, name):
    """The cards a channel line says name played ("alice r7 · bob to
    play" gives ["r7"] for alice), or []: the first part of the line is
    the name and nothing but card codes."""
    first = line.split(" · ")[0].split(" — ")[0]
    if not first.startswith(name + " "):
        return []
    cards = first[len(name) + 1:].split()
    return cards if cards and all(CARD.match(c) for c in cards) else []


def birdhead_plays(hand, trick):
    """The legal BirdHead plays (sorted lists of ranks) of a hand (codes)
    after the plays of the trick so far (RULES.md 2): a lead is one card
    or two or three of a rank, keeping a card; a follower plays as many
    cards as the lead, meeting the standard (the last play that met it,
    card by card in ascending order) or their lowest cards."""
    cards = sorted(int(c) for c in hand)
    if not trick:
        return [[r] * k for r in sorted(set(cards)) for k in (1, 2, 3)
                if cards.count(r) >= k and len(cards) > k]
    standard = sorted(trick[0])
    for play in trick[1:]:
        if all(a >= b for a, b in zip(sorted(play), standard)):
            standard = sorted(play)
    k = len(standard)
    out = {tuple(cards[:k])}
    for combo in itertools.combinations(cards, k):
        if all(a >= b for a, b in zip(combo, standard)):
            out.add(combo)
    return [list(c) for c in sorted(out)]


def plays_from_hint(game, hand, hint):
    """The plays (lists of codes) a person may make from hand (codes) by
    the rules, knowing only what the channel says: Wizard's "lead r"
    (follow red if you can; Wizards and Jesters always), BirdHead's "to
    meet 7 9 (or your lowest)" (nothing: a lead), Sticheln anything."""
    if game == "birdhead":
        m = re.match(r"to meet ([0-9 ]+) \(", hint or "")
        trick = [[int(c) for c in m.group(1).split()]] if m else []
        return [[str(c) for c in play] for play in
                birdhead_plays(hand, trick)]
    if game == "wizard" and hint and hint.startswith("lead "):
        suit = hint[len("lead "):]
        follow = [c for c in hand if len(c) > 1 and c[0] == suit]
        if follow:
            return [[c] for c in hand if c in follow or c in ("W", "J")]
    return [[c] for c in hand]


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

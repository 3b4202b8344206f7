#!/usr/bin/env python3
"""Reference implementation of Wizard, BirdHead and Sticheln, for tests only.

This file is an independent reading of shared/RULES.md (the game rules) and
shared/RECORD.md (the game record format and the `replay` contract), plus the
project's written decisions where those two files are silent. It is not part
of the bot: it exists only to differentially test `stichbot replay`, so it
favours plain, rule-by-rule code over speed or cleverness. Standard library
only.

Command line:

    reference.py replay [--lines] [FILE]
        Same contract as `stichbot replay`: one record in, one result (or
        error object) out, exit status 0 (ok), 1 (illegal action) or 2
        (malformed record). With --lines: one record per line in, one
        result per line out, exit status 0.

    reference.py gen --game wizard|birdhead|sticheln --count N --seed S
                     [--players K] [--option NAME[=V] ...] [--random-options]
                     [--illegal] [--truncate] [--malformed]
        Prints N records, one JSON object per line, dealt with
        random.Random(S) and played with uniformly random legal actions.
        --truncate cuts the actions, --illegal slips in one illegal action,
        --malformed corrupts the record so that it must be refused. Given
        several of these, each record picks one of them at random.

Library use: `replay_text(text)` returns `(exit_status, output_object)`;
`generate(...)` returns a list of (record_text, expectation) pairs.
"""

import argparse
import copy
import itertools
import json
import random
import sys
from collections import Counter


# ---------------------------------------------------------------------------
# Errors and small helpers
# ---------------------------------------------------------------------------

class Malformed(Exception):
    """The record itself is broken: exit status 2, action null."""


class Illegal(Exception):
    """An action breaks the rules: exit status 1, action = its index."""


def is_int(value):
    """A JSON integer (Python's bool is an int subclass, JSON's is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def seats_after(seat, n):
    """All n seats in play order, starting with the seat after `seat`."""
    return [(seat + i) % n for i in range(1, n + 1)]


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

WIZARD_SUITS = "rygb"
WIZARD_RANK = {}          # canonical code -> rank (Jester 0 .. Wizard 14)
WIZARD_SUIT = {}          # canonical code -> suit letter, None for W and J
WIZARD_INPUT = {}         # lower-case accepted text -> canonical code
for _suit in WIZARD_SUITS:
    for _rank in range(1, 14):
        _code = "%s%d" % (_suit, _rank)
        WIZARD_RANK[_code] = _rank
        WIZARD_SUIT[_code] = _suit
        WIZARD_INPUT[_code] = _code
WIZARD_RANK["W"], WIZARD_SUIT["W"] = 14, None
WIZARD_RANK["J"], WIZARD_SUIT["J"] = 0, None
WIZARD_INPUT.update({"w": "W", "z": "W", "j": "J", "n": "J"})
WIZARD_DECK = [c for c in WIZARD_RANK if c not in ("W", "J")] + ["W"] * 4 + ["J"] * 4


def wizard_copies(card):
    """How many copies of a card the 60-card Wizard deck holds."""
    return 4 if card in ("W", "J") else 1


def wizard_card(text):
    """Canonical Wizard code for input text, or None if unknown."""
    return WIZARD_INPUT.get(text.lower()) if isinstance(text, str) else None


BIRDHEAD_RANKS = list(range(2, 12))
BIRDHEAD_DECK = [r for r in BIRDHEAD_RANKS for _ in range(5)]


BIRDHEAD_CODES = {str(r): r for r in BIRDHEAD_RANKS}


def birdhead_card(text):
    """BirdHead rank (int) for input text "2".."11", or None if unknown."""
    return BIRDHEAD_CODES.get(text) if isinstance(text, str) else None


def sticheln_colours(n):
    """Sticheln colours in use: five, plus purple for six players."""
    return "rygbnp" if n == 6 else "rygbn"


def sticheln_max_rank(n):
    """Highest Sticheln rank for n players (ranks start at 0)."""
    return {3: 8, 4: 11, 5: 14, 6: 14}[n]


def sticheln_deck(n):
    """The Sticheln deck for n players, one card of each colour and rank."""
    return ["%s%d" % (c, r) for c in sticheln_colours(n)
            for r in range(sticheln_max_rank(n) + 1)]


STICHELN_CODES = {n: frozenset(sticheln_deck(n)) for n in range(3, 7)}


def sticheln_card(text, n):
    """Canonical Sticheln code for input text, or None if unknown."""
    if not isinstance(text, str):
        return None
    low = text.lower()
    return low if low in STICHELN_CODES[n] else None


def sticheln_colour(card):
    return card[0]


def sticheln_rank(card):
    return int(card[1:])


# ---------------------------------------------------------------------------
# Wizard options and schedules
# ---------------------------------------------------------------------------

WIZARD_BID_RULES = ("notequal", "evenbid", "canadian", "hardcore")
WIZARD_HIDDEN = ("hiddentip", "secret")
WIZARD_SCHEDULES = ("quick", "amigo", "custom6", "nannie")
WIZARD_FLAGS = WIZARD_BID_RULES + WIZARD_HIDDEN + (
    "quick", "amigo", "custom6", "jesterbid", "clairvoyance")
WIZARD_OPTION_NAMES = WIZARD_FLAGS + ("rounds", "nannie")

AMIGO = {3: list(range(2, 21, 2)),
         4: [1, 3, 5, 7, 9, 11, 12, 13, 14, 15],
         5: [2, 4, 5, 6, 7, 8, 9, 10, 11, 12]}
CUSTOM6 = {3: [1, 2, 4, 11, 16, 20], 4: [1, 2, 3, 9, 13, 15],
           5: [1, 2, 3, 8, 10, 12], 6: [1, 2, 3, 7, 9, 10]}


def wizard_full_schedule(n, opts):
    """Cards per player for every round, before `rounds=N` shortens it."""
    most = 60 // n
    if "quick" in opts:
        return list(range(1, 16, 2)) if n == 4 else list(range(2, most + 1, 2))
    if "amigo" in opts:
        return list(AMIGO[n])
    if "custom6" in opts:
        return list(CUSTOM6[n])
    if "nannie" in opts:
        return list(range(most, 0, -1))
    return list(range(1, most + 1))


def wizard_schedule(n, opts):
    """Cards per player for every round actually played."""
    full = wizard_full_schedule(n, opts)
    return full[:opts["rounds"]] if "rounds" in opts else full


def read_wizard_options(raw, n):
    """Normalise and check a record's Wizard options; raise Malformed."""
    opts = {}
    for name, value in raw.items():
        if name not in WIZARD_OPTION_NAMES:
            raise Malformed("Unknown Wizard option '%s'." % name)
        if value is False:
            continue
        if name in WIZARD_FLAGS:
            if value is not True:
                raise Malformed("Option '%s' takes true or false." % name)
            opts[name] = True
        elif name == "rounds":
            if not is_int(value):
                raise Malformed("Option 'rounds' takes a number.")
            opts[name] = value
        else:  # nannie
            value = 3 if value is True else value
            if not is_int(value) or value not in (2, 3):
                raise Malformed("Option 'nannie' takes 2 or 3.")
            opts[name] = value
    check_wizard_combination(opts, n)
    return opts


def check_wizard_combination(opts, n):
    """The combination rules of RULES.md's Wizard options table."""
    def refuse(names, why="cannot be combined"):
        raise Malformed("Options %s %s." % (" and ".join(names), why))

    bid_rules = [o for o in WIZARD_BID_RULES if o in opts]
    hidden = [o for o in WIZARD_HIDDEN if o in opts]
    schedules = [o for o in WIZARD_SCHEDULES if o in opts]
    if len(bid_rules) > 1:
        refuse(bid_rules)
    if len(hidden) > 1:
        refuse(hidden)
    if hidden and bid_rules:
        refuse(hidden + bid_rules)
    if "jesterbid" in opts and (hidden or bid_rules):
        refuse(["jesterbid"] + hidden + bid_rules)
    if len(schedules) > 1:
        refuse(schedules)
    if "amigo" in opts and not 3 <= n <= 5:
        raise Malformed("Option amigo needs 3 to 5 players.")
    full = wizard_full_schedule(n, opts)
    if "rounds" in opts and not 1 <= opts["rounds"] <= len(full):
        raise Malformed("Option rounds must be between 1 and %d here." % len(full))
    if "clairvoyance" in opts and full[0] != 1:
        raise Malformed("Option clairvoyance needs a first round of one card.")


def read_sticheln_options(raw):
    opts = {}
    for name, value in raw.items():
        if name != "dm":
            raise Malformed("Unknown Sticheln option '%s'." % name)
        if value is True:
            opts["dm"] = True
        elif value is not False:
            raise Malformed("Option 'dm' takes true or false.")
    return opts


def read_birdhead_options(raw):
    if raw:
        raise Malformed("BirdHead has no option '%s'." % next(iter(raw)))
    return {}


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------

ACTION_KEYS = ("bid", "trump", "play", "select")


def read_action(raw, n):
    """(seat, kind, value) of an action object, or Illegal if it is broken."""
    if not isinstance(raw, dict):
        raise Illegal("An action must be a JSON object.")
    seat = raw.get("seat")
    if not is_int(seat) or not 0 <= seat < n:
        raise Illegal("An action needs a seat number from 0 to %d." % (n - 1))
    kinds = [k for k in ACTION_KEYS if k in raw]
    if len(kinds) != 1:
        raise Illegal("An action needs exactly one of bid, trump, play, select.")
    return seat, kinds[0], raw[kinds[0]]


# ---------------------------------------------------------------------------
# Shared game driver
# ---------------------------------------------------------------------------

class Game:
    """State shared by the three games; subclasses hold the rules.

    `deals` are already checked and in canonical form. A round starts once
    its deal exists and the previous round is complete (`advance`).
    """

    name = ""      # as in records: wizard, birdhead, sticheln
    title = ""     # for error messages
    kinds = ()     # the action kinds this game knows

    def __init__(self, n, first, deals):
        self.n = n
        self.first = first
        self.deals = deals
        self.rounds = []          # result entries, one per started round
        self.totals = [0] * n
        self.finished = False
        self.winners = []
        self.cur = None           # the state of the round in progress

    def round_over(self):
        return self.cur is None or self.cur.done

    def waiting_for_deal(self):
        return not self.finished and self.round_over()

    def advance(self):
        """Start every round whose deal is there and whose turn has come."""
        while (not self.finished and self.round_over()
               and len(self.rounds) < len(self.deals)):
            self.start_round(self.deals[len(self.rounds)])

    def step(self, raw):
        """Apply one record action, or raise Illegal / Malformed."""
        if self.finished:
            raise Illegal("The game is already over.")
        if self.waiting_for_deal():
            raise Malformed("Round %d has no deal in the record." % (len(self.rounds) + 1))
        seat, kind, value = read_action(raw, self.n)
        if kind not in self.kinds:
            raise Illegal("%s has no '%s' action." % (self.title, kind))
        self.act(seat, kind, value)
        self.advance()

    def result(self):
        return {"game": self.name, "rounds": self.rounds, "scores": list(self.totals),
                "finished": self.finished, "winners": list(self.winners)}

    # Overridden by each game:

    def start_round(self, deal):
        raise NotImplementedError

    def act(self, seat, kind, value):
        raise NotImplementedError

    def legal_actions(self):
        raise NotImplementedError


class Round:
    """Plain attribute bag for the round in progress."""

    def __init__(self, **fields):
        self.done = False
        self.__dict__.update(fields)


# ---------------------------------------------------------------------------
# Wizard
# ---------------------------------------------------------------------------

def wizard_lead_suit(cards):
    """Suit of the first suited card, or None if a Wizard came before it."""
    for card in cards:
        if card == "W":
            return None
        if card != "J":
            return WIZARD_SUIT[card]
    return None


def wizard_must_follow(hand, played, card):
    """True if playing `card` breaks the duty to follow the lead suit."""
    lead = wizard_lead_suit(played)
    suit = WIZARD_SUIT[card]
    if lead is None or suit is None or suit == lead:
        return False
    return any(WIZARD_SUIT[c] == lead for c in hand)


def wizard_trick_winner(plays, trump, jesterbid):
    """Index (into plays) of the card that wins a complete trick."""
    cards = [c for _, c in plays]
    if jesterbid and "J" in cards:
        return cards.index("J")
    if "W" in cards:
        return cards.index("W")
    for suit in (trump, wizard_lead_suit(cards)):
        if suit is None:
            continue
        suited = [i for i, c in enumerate(cards) if WIZARD_SUIT[c] == suit]
        if suited:
            return max(suited, key=lambda i: WIZARD_RANK[cards[i]])
    return cards.index("J")  # every card a Jester


def wizard_points(bid, won):
    return 20 + 10 * won if bid == won else -10 * abs(won - bid)


class Wizard(Game):
    name, title = "wizard", "Wizard"
    kinds = ("bid", "trump", "play")

    def __init__(self, n, first, deals, opts):
        super().__init__(n, first, deals)
        self.opts = opts
        self.schedule = wizard_schedule(n, opts)
        self.hidden = any(o in opts for o in WIZARD_HIDDEN)
        self.jesterbid = "jesterbid" in opts
        self.active = [True] * n
        self.dealer = first

    # -- seats --------------------------------------------------------------

    def active_after(self, seat):
        """Active seats in play order starting after `seat`."""
        return [s for s in seats_after(seat, self.n) if self.active[s]]

    def next_active(self, seat):
        return self.active_after(seat)[0]

    def dealer_sole_leader(self):
        """The dealer's total beats every other active player's total."""
        return all(self.totals[self.dealer] > self.totals[s]
                   for s in range(self.n) if self.active[s] and s != self.dealer)

    # -- round start ----------------------------------------------------------

    def start_round(self, deal):
        number = len(self.rounds) + 1
        hands = deal["hands"]
        for seat in range(self.n):
            if self.active[seat] and not hands[seat]:
                raise Malformed("Deal %d gives seat %d no cards." % (number, seat))
            if not self.active[seat] and hands[seat]:
                raise Malformed("Deal %d gives cards to eliminated seat %d." % (number, seat))
        size = self.schedule[number - 1]
        dealt = size * sum(self.active)
        trump, phase = self.trump_from_turned(deal.get("turned"), dealt)
        order = self.active_after(self.dealer)
        self.cur = Round(size=size, hands=[list(h) for h in hands], trump=trump,
                         phase=phase, order=order, bid_pos=0, plays=[],
                         leader=order[0], turn=order[0],
                         sole_leader=self.dealer_sole_leader())
        bids = [(0 if self.jesterbid else None) if self.active[s] else None
                for s in range(self.n)]
        self.cur.bids = bids
        self.cur.won = [0] * self.n
        self.rounds.append({"tricks": [], "bids": bids, "won": self.cur.won, "points": None})
        if phase == "bid" and self.jesterbid:
            self.cur.phase = "play"

    @staticmethod
    def trump_from_turned(turned, dealt):
        """(trump suit or None, first phase) from the turned card."""
        if turned is None or dealt == 60 or turned == "J":
            return None, "bid"
        if turned == "W":
            return None, "trump"
        return WIZARD_SUIT[turned], "bid"

    # -- actions --------------------------------------------------------------

    def act(self, seat, kind, value):
        phase = self.cur.phase
        if phase == "trump":
            if kind != "trump":
                raise Illegal("The dealer must choose trump first.")
            self.choose_trump(seat, value)
        elif phase == "bid":
            if kind != "bid":
                raise Illegal("Bidding is not over yet.")
            self.bid(seat, value)
        else:
            if kind != "play":
                raise Illegal("Only card play is allowed now.")
            self.play(seat, value)

    def choose_trump(self, seat, value):
        if seat != self.dealer:
            raise Illegal("Only the dealer chooses trump.")
        if not isinstance(value, str) or value.lower() not in WIZARD_SUITS:
            raise Illegal("Trump must be one of r, y, g, b.")
        self.cur.trump = value.lower()
        self.cur.phase = "play" if self.jesterbid else "bid"

    def bid_forbidden(self, value):
        """Whether the dealer's (last) bid is forbidden by the bid rule."""
        r = self.cur
        if sum(b for b in r.bids if b is not None) + value != r.size:
            return False
        if "notequal" in self.opts:
            return True
        if "hardcore" in self.opts:
            return r.size >= 4
        if "evenbid" in self.opts:
            return r.sole_leader
        if "canadian" in self.opts:
            return r.sole_leader and value != 0
        return False

    def bid(self, seat, value):
        r = self.cur
        if self.hidden:
            if not self.active[seat]:
                raise Illegal("Seat %d is out of the game." % seat)
            if r.bids[seat] is not None:
                raise Illegal("Seat %d has already bid." % seat)
        elif seat != r.order[r.bid_pos]:
            raise Illegal("It is not seat %d's turn to bid." % seat)
        if not is_int(value):
            raise Illegal("A bid must be a whole number.")
        if not 0 <= value <= r.size:
            raise Illegal("A bid must be from 0 to %d." % r.size)
        if not self.hidden and r.bid_pos == len(r.order) - 1 and self.bid_forbidden(value):
            raise Illegal("The dealer may not make the bids add up to %d." % r.size)
        r.bids[seat] = value
        r.bid_pos += 1
        if r.bid_pos == len(r.order):
            r.phase = "play"

    def play(self, seat, value):
        r = self.cur
        if seat != r.turn:
            raise Illegal("It is not seat %d's turn." % seat)
        card = wizard_card(value)
        if card is None:
            raise Illegal("Unknown card.")
        hand = r.hands[seat]
        if card not in hand:
            raise Illegal("Seat %d does not hold %s." % (seat, card))
        if wizard_must_follow(hand, [c for _, c in r.plays], card):
            raise Illegal("Seat %d must follow the lead suit." % seat)
        hand.remove(card)
        r.plays.append((seat, card))
        if len(r.plays) < len(r.order):
            r.turn = self.next_active(seat)
        else:
            self.finish_trick()

    def finish_trick(self):
        r = self.cur
        winner = r.plays[wizard_trick_winner(r.plays, r.trump, self.jesterbid)][0]
        r.won[winner] += 1
        self.rounds[-1]["tricks"].append({"leader": r.leader, "winner": winner})
        r.plays, r.leader, r.turn = [], winner, winner
        if not r.hands[winner]:
            self.finish_round()

    def finish_round(self):
        r = self.cur
        points = [wizard_points(r.bids[s], r.won[s]) if self.active[s] else 0
                  for s in range(self.n)]
        for s in range(self.n):
            self.totals[s] += points[s]
        self.rounds[-1]["points"] = points
        r.done = True
        played = len(self.rounds)
        if played == len(self.schedule):
            self.finished = True
            best = max(self.totals[s] for s in range(self.n) if self.active[s])
            self.winners = [s for s in range(self.n)
                            if self.active[s] and self.totals[s] == best]
            return
        k = self.opts.get("nannie")
        if k and played % k == 0 and sum(self.active) > 2:
            self.eliminate_lowest()
        self.dealer = self.next_active(self.dealer)

    def eliminate_lowest(self):
        """Nannie: drop the lowest total; ties: latest after the dealer."""
        order = self.active_after(self.dealer)  # dealer comes last
        low = min(self.totals[s] for s in order)
        self.active[[s for s in order if self.totals[s] == low][-1]] = False

    # -- for the generator ------------------------------------------------------

    def legal_actions(self):
        r = self.cur
        if r.phase == "trump":
            return [{"seat": self.dealer, "trump": s} for s in WIZARD_SUITS]
        if r.phase == "bid":
            if self.hidden:
                return [{"seat": s, "bid": b} for s in r.order if r.bids[s] is None
                        for b in range(r.size + 1)]
            seat = r.order[r.bid_pos]
            last = r.bid_pos == len(r.order) - 1
            return [{"seat": seat, "bid": b} for b in range(r.size + 1)
                    if not (last and self.bid_forbidden(b))]
        hand = r.hands[r.turn]
        lead = wizard_lead_suit([c for _, c in r.plays])
        if lead and any(WIZARD_SUIT[c] == lead for c in hand):
            hand = [c for c in hand if WIZARD_SUIT[c] in (None, lead)]
        return [{"seat": r.turn, "play": c} for c in sorted(set(hand))]


# ---------------------------------------------------------------------------
# BirdHead
# ---------------------------------------------------------------------------

def birdhead_hand_size(n):
    """10 cards each, or the largest equal share of 50 if 10 is too many."""
    return min(10, 50 // n)


def birdhead_meets(play, standard):
    """Sorted ascending, every played card >= the standard's card there."""
    return all(p >= s for p, s in zip(sorted(play), sorted(standard)))


def birdhead_lowest(hand, k):
    return sorted(hand)[:k]


def birdhead_holds(hand, cards):
    have = Counter(hand)
    return all(have[c] >= k for c, k in Counter(cards).items())


def birdhead_trick_winner(plays):
    """The seat that played the strongest card; ties: the latest of them."""
    best, winner = -1, None
    for seat, cards in plays:
        if max(cards) >= best:
            best, winner = max(cards), seat
    return winner


class BirdHead(Game):
    name, title = "birdhead", "BirdHead"
    kinds = ("play",)
    LIMIT = 22

    def __init__(self, n, first, deals):
        super().__init__(n, first, deals)
        self.starter = first

    def start_round(self, deal):
        self.cur = Round(hands=[list(h) for h in deal["hands"]], leader=self.starter,
                         turn=self.starter, plays=[], standard=None)
        self.rounds.append({"tricks": [], "points": None, "losers": []})

    def act(self, seat, kind, value):
        r = self.cur
        if seat != r.turn:
            raise Illegal("It is not seat %d's turn." % seat)
        if not isinstance(value, list) or not value:
            raise Illegal("A BirdHead play is a non-empty list of cards.")
        cards = [birdhead_card(v) for v in value]
        if None in cards:
            raise Illegal("Unknown card.")
        hand = r.hands[seat]
        if not birdhead_holds(hand, cards):
            raise Illegal("Seat %d does not hold those cards." % seat)
        if not r.plays:
            self.check_lead(hand, cards)
            r.standard = sorted(cards)
        else:
            self.check_follow(hand, cards, r.standard)
            if birdhead_meets(cards, r.standard):
                r.standard = sorted(cards)
        for c in cards:
            hand.remove(c)
        r.plays.append((seat, cards))
        if len(r.plays) < self.n:
            r.turn = (seat + 1) % self.n
        else:
            self.finish_trick()

    @staticmethod
    def check_lead(hand, cards):
        if len(cards) > 3:
            raise Illegal("A lead is one card, or two or three of a rank.")
        if len(set(cards)) != 1:
            raise Illegal("Led cards must all have the same rank.")
        if len(cards) >= len(hand):
            raise Illegal("The leader must keep at least one card.")

    def check_follow(self, hand, cards, standard):
        if len(cards) != len(standard):
            raise Illegal("Play exactly %d card(s)." % len(standard))
        if birdhead_meets(cards, standard):
            return
        if sorted(cards) != birdhead_lowest(hand, len(cards)):
            raise Illegal("Meet the standard or play your lowest cards.")

    def finish_trick(self):
        r = self.cur
        winner = birdhead_trick_winner(r.plays)
        self.rounds[-1]["tricks"].append({"leader": r.leader, "winner": winner})
        r.plays, r.standard, r.leader, r.turn = [], None, winner, winner
        if len(r.hands[winner]) == 1:
            self.reveal(winner)

    def reveal(self, start):
        """Final one-card trick, in order from the last trick's winner."""
        r = self.cur
        order = [(start + i) % self.n for i in range(self.n)]
        high = max(r.hands[s][0] for s in order)
        losers = [s for s in order if r.hands[s][0] == high]
        points = [high if s in losers else 0 for s in range(self.n)]
        for s in range(self.n):
            self.totals[s] += points[s]
        self.rounds[-1]["points"] = points
        self.rounds[-1]["losers"] = sorted(losers)
        self.starter = (losers[-1] + 1) % self.n
        r.done = True
        if max(self.totals) >= self.LIMIT:
            self.finished = True
            low = min(self.totals)
            self.winners = [s for s in range(self.n) if self.totals[s] == low]

    def legal_actions(self):
        r = self.cur
        hand = sorted(r.hands[r.turn])
        if not r.plays:
            counts = Counter(hand)
            plays = [[c] * k for c in sorted(counts)
                     for k in range(1, min(3, counts[c]) + 1) if k < len(hand)]
        else:
            k = len(r.standard)
            found = {tuple(hand[:k])}
            found.update(combo for combo in itertools.combinations(hand, k)
                         if birdhead_meets(combo, r.standard))
            plays = [list(p) for p in sorted(found)]
        return [{"seat": r.turn, "play": [str(c) for c in p]} for p in plays]


# ---------------------------------------------------------------------------
# Sticheln
# ---------------------------------------------------------------------------

def sticheln_trick_winner(plays):
    """Index (into plays) of the winning card of a complete trick."""
    cards = [c for _, c in plays]
    lead = sticheln_colour(cards[0])
    trumps = [i for i, c in enumerate(cards)
              if sticheln_rank(c) > 0 and sticheln_colour(c) != lead]
    if trumps:
        best = max(sticheln_rank(cards[i]) for i in trumps)
        return [i for i in trumps if sticheln_rank(cards[i]) == best][0]
    followers = [i for i, c in enumerate(cards)
                 if sticheln_rank(c) > 0 and sticheln_colour(c) == lead]
    if followers:
        return max(followers, key=lambda i: sticheln_rank(cards[i]))
    return 0  # every card a 0: the leader


def sticheln_points(selected, captured):
    """+1 per captured card off the penalty colour, minus penalty ranks."""
    colour = sticheln_colour(selected)
    points = -sticheln_rank(selected)
    for card in captured:
        points += -sticheln_rank(card) if sticheln_colour(card) == colour else 1
    return points


class Sticheln(Game):
    name, title = "sticheln", "Sticheln"
    kinds = ("select", "play")

    def __init__(self, n, first, deals, opts):
        super().__init__(n, first, deals)
        self.round_count = 4 if "dm" in opts else 5

    def start_round(self, deal):
        index = len(self.rounds)
        leader = (self.first + index) % self.n
        selected = [None] * self.n
        self.cur = Round(hands=[list(h) for h in deal["hands"]], phase="select",
                         selected=selected, leader=leader, turn=leader, plays=[],
                         captured=[[] for _ in range(self.n)])
        self.rounds.append({"tricks": [], "points": None, "selected": selected})

    def act(self, seat, kind, value):
        r = self.cur
        if r.phase == "select":
            if kind != "select":
                raise Illegal("Every player must select a penalty card first.")
            self.select(seat, value)
        else:
            if kind != "play":
                raise Illegal("Penalty cards are already selected.")
            self.play(seat, value)

    def select(self, seat, value):
        r = self.cur
        if r.selected[seat] is not None:
            raise Illegal("Seat %d has already selected." % seat)
        card = sticheln_card(value, self.n)
        if card is None:
            raise Illegal("Unknown card.")
        if card not in r.hands[seat]:
            raise Illegal("Seat %d does not hold %s." % (seat, card))
        r.selected[seat] = card
        if None not in r.selected:
            for s in range(self.n):
                r.hands[s].remove(r.selected[s])
            r.phase = "play"

    def play(self, seat, value):
        r = self.cur
        if seat != r.turn:
            raise Illegal("It is not seat %d's turn." % seat)
        card = sticheln_card(value, self.n)
        if card is None:
            raise Illegal("Unknown card.")
        if card not in r.hands[seat]:
            raise Illegal("Seat %d does not hold %s." % (seat, card))
        r.hands[seat].remove(card)
        r.plays.append((seat, card))
        if len(r.plays) < self.n:
            r.turn = (seat + 1) % self.n
        else:
            self.finish_trick()

    def finish_trick(self):
        r = self.cur
        winner = r.plays[sticheln_trick_winner(r.plays)][0]
        r.captured[winner].extend(c for _, c in r.plays)
        self.rounds[-1]["tricks"].append({"leader": r.leader, "winner": winner})
        r.plays, r.leader, r.turn = [], winner, winner
        if not r.hands[winner]:
            self.finish_round()

    def finish_round(self):
        r = self.cur
        points = [sticheln_points(r.selected[s], r.captured[s]) for s in range(self.n)]
        for s in range(self.n):
            self.totals[s] += points[s]
        self.rounds[-1]["points"] = points
        r.done = True
        if len(self.rounds) == self.round_count:
            self.finished = True
            best = max(self.totals)
            self.winners = [s for s in range(self.n) if self.totals[s] == best]

    def legal_actions(self):
        r = self.cur
        if r.phase == "select":
            return [{"seat": s, "select": c} for s in range(self.n)
                    if r.selected[s] is None for c in sorted(r.hands[s])]
        return [{"seat": r.turn, "play": c} for c in sorted(r.hands[r.turn])]


# ---------------------------------------------------------------------------
# Reading a record (every check that needs no play is done here)
# ---------------------------------------------------------------------------

PLAYER_RANGE = {"wizard": (3, 6), "birdhead": (3, 6), "sticheln": (3, 6)}


def read_hands(deal, index, n, parse):
    """Canonical hands of a deal, checking its shape and card codes."""
    if not isinstance(deal, dict):
        raise Malformed("Deal %d is not a JSON object." % (index + 1))
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise Malformed("Deal %d must hold one hand per seat (%d)." % (index + 1, n))
    result = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            raise Malformed("Deal %d: the hand of seat %d is not a list." % (index + 1, seat))
        cards = [parse(c) for c in hand]
        if None in cards:
            raise Malformed("Deal %d: seat %d has an unknown card." % (index + 1, seat))
        result.append(cards)
    return result


def check_copies(cards, copies, index):
    """No card more often in one deal than the deck holds it."""
    for card, count in Counter(cards).items():
        if count > copies(card):
            raise Malformed("Deal %d holds card %s too often." % (index + 1, card))


def check_sizes(hands, size, index, allow_empty=False):
    for seat, hand in enumerate(hands):
        if len(hand) != size and not (allow_empty and not hand):
            raise Malformed("Deal %d: seat %d must get %d cards." % (index + 1, seat, size))


def read_wizard_deals(raw, n, opts):
    schedule = wizard_schedule(n, opts)
    nannie = "nannie" in opts
    if len(raw) > len(schedule) and not nannie:
        raise Malformed("The record has more deals than the game has rounds.")
    deals = []
    for i, deal in enumerate(raw):
        hands = read_hands(deal, i, n, wizard_card)
        turned = deal.get("turned")
        if turned is not None:
            turned = wizard_card(turned)
            if turned is None:
                raise Malformed("Deal %d: unknown turned card." % (i + 1))
        if i < len(schedule):
            check_sizes(hands, schedule[i], i, allow_empty=nannie)
        # RECORD.md: turned is null or absent only when no card is left.
        if turned is None and sum(len(h) for h in hands) < 60:
            raise Malformed("Deal %d: cards are left but none is turned up." % (i + 1))
        cards = [c for h in hands for c in h] + ([turned] if turned else [])
        check_copies(cards, wizard_copies, i)
        deals.append({"hands": hands, "turned": turned})
    return deals


def check_no_turned(deal, index):
    """RECORD.md: `turned` is Wizard's only."""
    if deal.get("turned") is not None:
        raise Malformed("Deal %d: only Wizard turns up a card." % (index + 1))


def read_birdhead_deals(raw, n):
    deals = []
    for i, deal in enumerate(raw):
        hands = read_hands(deal, i, n, birdhead_card)
        check_no_turned(deal, i)
        check_sizes(hands, birdhead_hand_size(n), i)
        check_copies([c for h in hands for c in h], lambda c: 5, i)
        deals.append({"hands": hands})
    return deals


def read_sticheln_deals(raw, n):
    deals = []
    for i, deal in enumerate(raw):
        hands = read_hands(deal, i, n, lambda c: sticheln_card(c, n))
        check_no_turned(deal, i)
        check_sizes(hands, 15, i)
        check_copies([c for h in hands for c in h], lambda c: 1, i)
        deals.append({"hands": hands})
    return deals


def load_record(rec):
    """A Game ready for the record's actions; raise Malformed if broken."""
    if not isinstance(rec, dict):
        raise Malformed("The record must be a JSON object.")
    game = rec.get("game")
    if game not in PLAYER_RANGE:
        raise Malformed("Unknown game; use wizard, birdhead or sticheln.")
    players = rec.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise Malformed("Players must be a list of names.")
    n = len(players)
    low, high = PLAYER_RANGE[game]
    if not low <= n <= high:
        raise Malformed("This game needs %d to %d players." % (low, high))
    raw_opts = rec.get("options")
    raw_opts = {} if raw_opts is None else raw_opts
    if not isinstance(raw_opts, dict):
        raise Malformed("Options must be a JSON object.")
    first = rec.get("first")
    if not is_int(first) or not 0 <= first < n:
        raise Malformed("First must be a seat number from 0 to %d." % (n - 1))
    raw_deals = rec.get("deals")
    if not isinstance(raw_deals, list):
        raise Malformed("Deals must be a list.")
    record_actions(rec)
    if game == "wizard":
        opts = read_wizard_options(raw_opts, n)
        return Wizard(n, first, read_wizard_deals(raw_deals, n, opts), opts)
    if game == "birdhead":
        read_birdhead_options(raw_opts)
        return BirdHead(n, first, read_birdhead_deals(raw_deals, n))
    opts = read_sticheln_options(raw_opts)
    return Sticheln(n, first, read_sticheln_deals(raw_deals, n), opts)


def record_actions(rec):
    actions = rec.get("actions")
    if not isinstance(actions, list):
        raise Malformed("Actions must be a list.")
    return actions


def replay_record(rec):
    """(exit status, output object) for a parsed record."""
    index = None
    try:
        game = load_record(rec)
        actions = record_actions(rec)
        game.advance()
        for index, action in enumerate(actions):
            game.step(action)
    except Malformed as e:
        return 2, {"error": str(e), "action": None}
    except Illegal as e:
        return 1, {"error": str(e), "action": index}
    return 0, game.result()


def replay_text(text):
    """(exit status, output object) for a record's JSON text."""
    try:
        rec = json.loads(text)
    except ValueError:
        return 2, {"error": "The record is not valid JSON.", "action": None}
    return replay_record(rec)


# ---------------------------------------------------------------------------
# Generator: dealing and random play
# ---------------------------------------------------------------------------

def deal_wizard(rng, game):
    size = game.schedule[len(game.rounds)]
    deck = list(WIZARD_DECK)
    rng.shuffle(deck)
    hands, pos = [], 0
    for seat in range(game.n):
        if game.active[seat]:
            hands.append(deck[pos:pos + size])
            pos += size
        else:
            hands.append([])
    turned = deck[pos] if pos < len(deck) else None
    return {"hands": hands, "turned": turned}


def deal_birdhead(rng, game):
    deck = list(BIRDHEAD_DECK)
    rng.shuffle(deck)
    size = birdhead_hand_size(game.n)
    return {"hands": [deck[i * size:(i + 1) * size] for i in range(game.n)]}


def deal_sticheln(rng, game):
    deck = sticheln_deck(game.n)
    rng.shuffle(deck)
    return {"hands": [deck[i * 15:(i + 1) * 15] for i in range(game.n)]}


DEALERS = {"wizard": deal_wizard, "birdhead": deal_birdhead, "sticheln": deal_sticheln}


def new_game(name, n, opts, first):
    """An empty game for the generator (options already normalised)."""
    if name == "wizard":
        return Wizard(n, first, [], opts)
    if name == "birdhead":
        return BirdHead(n, first, [])
    return Sticheln(n, first, [], opts)


def choose_action(rng, actions):
    """Uniformly random seat among those who may act, then its action."""
    seats = sorted(set(a["seat"] for a in actions))
    seat = rng.choice(seats)
    return rng.choice([a for a in actions if a["seat"] == seat])


def play_out(rng, name, n, opts, first):
    """Deal and play a whole game at random.

    Returns (deals, actions, deals_before, done_after, situations):
    deals_before[i] is how many deals exist when action i is made;
    done_after[c] is how many rounds are complete after the first c actions;
    situations[i] labels the state action i was made in.
    """
    game = new_game(name, n, opts, first)
    actions, deals_before, done_after, situations = [], [], [0], []
    while not game.finished:
        if game.waiting_for_deal():
            game.deals.append(DEALERS[name](rng, game))
            game.advance()
            continue
        action = choose_action(rng, game.legal_actions())
        if name == "birdhead" and rng.random() < 0.2:
            rng.shuffle(action["play"])
        deals_before.append(len(game.deals))
        situations.append(situation(game))
        game.step(action)
        actions.append(action)
        done_after.append(len(game.rounds) - (0 if game.round_over() else 1))
    return game.deals, actions, deals_before, done_after, situations


def situation(game):
    """A label for the state before an action, to aim illegal actions."""
    r = game.cur
    if game.name == "wizard":
        if r.phase != "bid":
            if r.phase == "play":
                hand, lead = r.hands[r.turn], wizard_lead_suit([c for _, c in r.plays])
                if lead and any(WIZARD_SUIT[c] == lead for c in hand) and \
                        any(WIZARD_SUIT[c] not in (None, lead) for c in hand):
                    return "follow duty"
            return r.phase
        if game.hidden:
            return "hidden bid, some made" if any(
                r.bids[s] is not None for s in r.order) else "hidden bid"
        if r.bid_pos == len(r.order) - 1 and any(
                game.bid_forbidden(b) for b in range(r.size + 1)):
            return "forbidden bid"
        return "bid"
    if game.name == "birdhead":
        hand = r.hands[r.turn]
        if r.plays:
            return "follow"
        return "lead of whole hand" if len(hand) <= 3 and len(set(hand)) == 1 else "lead"
    if r.phase == "select":
        return "select, some made" if any(r.selected) else "select"
    return "play"


# The illegality preferred (half of the time) in each situation.
AIMED = {"trump": ["trump by non-dealer", "bad trump", "bid before trump", "play before trump"],
         "follow duty": ["failure to follow suit"],
         "hidden bid, some made": ["duplicate hidden bid", "eliminated seat bids"],
         "forbidden bid": ["bid forbidden by option"],
         "bid": ["bid out of turn", "bid out of range"],
         "lead of whole hand": ["lead leaves no card"],
         "lead": ["lead of unequal cards", "lead of four", "more copies than held"],
         "follow": ["follow with wrong count", "follow neither meeting nor lowest"],
         "select, some made": ["duplicate selection"],
         "select": ["play during selection", "select card not held"]}


def deal_to_json(name, deal, rng, alias):
    """A deal as written in a record (Wizard: sometimes without `turned`)."""
    hands = [[alias(c) for c in h] for h in deal["hands"]]
    if name != "wizard":
        return {"hands": [[str(c) for c in h] for h in hands]}
    out = {"hands": hands}
    if deal["turned"] is not None or rng.random() < 0.5:
        out["turned"] = alias(deal["turned"]) if deal["turned"] else None
    return out


def make_alias(rng, name):
    """A card spelling: usually canonical, sometimes other case or alias."""
    if rng.random() > 0.1:
        return lambda c: c
    if name == "wizard":
        other = {"W": ["w", "Z", "z"], "J": ["j", "N", "n"]}
        return lambda c: rng.choice(other[c]) if c in other else c.upper()
    if name == "sticheln":
        return lambda c: c.upper()
    return lambda c: c


# ---------------------------------------------------------------------------
# Generator: players and options
# ---------------------------------------------------------------------------

def parse_option_args(items):
    """`--option NAME[=V]` strings to a record options object."""
    opts = {}
    for item in items:
        name, _, value = item.partition("=")
        if not value:
            opts[name] = True
        elif value in ("true", "false"):
            opts[name] = value == "true"
        else:
            opts[name] = int(value)
    return opts


def normalise_options(name, raw, n):
    if name == "wizard":
        return read_wizard_options(raw, n)
    if name == "birdhead":
        return read_birdhead_options(raw)
    return read_sticheln_options(raw)


def random_wizard_options(rng, n):
    """A random valid Wizard option combination for n players."""
    while True:
        raw = {}
        rule = rng.choice([None, None, None] + list(WIZARD_BID_RULES)
                          + list(WIZARD_HIDDEN) + ["jesterbid"])
        if rule:
            raw[rule] = True
        schedule = rng.choice([None, None, "quick", "amigo", "custom6", "nannie"])
        if schedule == "nannie":
            raw["nannie"] = rng.choice([True, 2, 3])
        elif schedule:
            raw[schedule] = True
        if rng.random() < 0.25:
            raw["clairvoyance"] = True
        if rng.random() < 0.1:
            raw[rng.choice(WIZARD_FLAGS)] = False
        try:
            full = wizard_full_schedule(n, read_wizard_options(raw, n))
        except Malformed:
            continue
        if rng.random() < 0.6:
            raw["rounds"] = rng.randint(1, len(full))
        return raw


def random_options(rng, name, n):
    if name == "wizard":
        return random_wizard_options(rng, n)
    if name == "sticheln":
        return rng.choice([{}, {}, {"dm": True}, {"dm": False}])
    return {}


def choose_setup(rng, name, players, fixed, randomize):
    """(n, raw options, normalised options) for one record."""
    for _ in range(1000):
        n = players or rng.randint(*PLAYER_RANGE[name])
        raw = random_options(rng, name, n) if randomize else dict(fixed)
        try:
            return n, raw, normalise_options(name, raw, n)
        except Malformed:
            continue
    raise SystemExit("no valid player count for these options")


# ---------------------------------------------------------------------------
# Generator: record kinds
# ---------------------------------------------------------------------------

def base_record(rng, name, players, fixed, randomize):
    """A complete random game, with bookkeeping for truncation."""
    n, raw_opts, opts = choose_setup(rng, name, players, fixed, randomize)
    first = rng.randrange(n)
    deals, actions, deals_before, done_after, situations = play_out(rng, name, n, opts, first)
    alias = make_alias(rng, name)
    record = {"game": name, "players": ["p%d" % i for i in range(n)],
              "options": raw_opts, "first": first,
              "deals": [deal_to_json(name, d, rng, alias) for d in deals],
              "actions": [spell_action(a, alias) for a in actions]}
    return record, {"deals_before": deals_before, "done_after": done_after,
                    "situations": situations + ["end"]}


def spell_action(action, alias):
    out = dict(action)
    for key in ("play", "select"):
        if key in out:
            v = out[key]
            out[key] = [alias(c) for c in v] if isinstance(v, list) else alias(v)
    return out


def truncate(rng, record, info):
    """Cut the actions; keep the deals the remaining play needs."""
    actions = record["actions"]
    deals_before, done_after = info["deals_before"], info["done_after"]
    boundaries = [c for c in range(len(actions) + 1)
                  if c == 0 or done_after[c] > done_after[c - 1]]
    if rng.random() < 0.3:
        cut = rng.choice(boundaries)
    else:
        cut = rng.randint(0, len(actions))
    keep = deals_before[cut] if cut < len(actions) else len(record["deals"])
    if cut in boundaries and cut < len(actions) and rng.random() < 0.5:
        keep -= 1          # stop exactly at the end of a round
    if rng.random() < 0.2:
        keep = len(record["deals"])  # more deals than the actions reach
    record["deals"] = record["deals"][:keep]
    record["actions"] = actions[:cut]
    return record


def game_after(record, count):
    """The reference game after the first `count` actions of a record."""
    game = load_record(json.loads(json.dumps(record)))
    game.advance()
    for action in record["actions"][:count]:
        game.step(action)
    return game


def is_illegal(game, action):
    try:
        copy.deepcopy(game).step(action)
    except Illegal:
        return True
    return False


def some_card(game, seat=None):
    """A card code this game knows (from `seat`'s hand when possible)."""
    if game.name == "wizard":
        deck = WIZARD_DECK
    elif game.name == "birdhead":
        deck = [str(c) for c in BIRDHEAD_RANKS]
    else:
        deck = sticheln_deck(game.n)
    if seat is not None and game.cur and not game.cur.done and game.cur.hands[seat]:
        return str(game.cur.hands[seat][0])
    return str(deck[0])


def not_held(rng, game, seat):
    """A valid card code that `seat` does not hold right now."""
    hand = game.cur.hands[seat] if game.cur else []
    if game.name == "wizard":
        options = [c for c in WIZARD_DECK if c not in hand]
    elif game.name == "sticheln":
        options = [c for c in sticheln_deck(game.n) if c not in hand]
    else:
        options = [str(c) for c in BIRDHEAD_RANKS if c not in hand]
    return rng.choice(options) if options else None


def unknown_code(rng, game):
    if game.name == "wizard":
        return rng.choice(["r14", "x5", "r0", "b", "WW", "g-1"])
    if game.name == "birdhead":
        return rng.choice(["1", "12", "0", "x", "A"])
    bad = ["x1", "r%d" % (sticheln_max_rank(game.n) + 1), "n-1", "g"]
    if game.n < 6:
        bad.append("p1")
    return rng.choice(bad)


def wrap_play(game, card):
    """A `play` value of the right shape for the game."""
    return [card] if game.name == "birdhead" else card


def generic_illegal(rng, game, legal):
    """Broken actions that are wrong in every game and phase."""
    a = dict(rng.choice(legal)) if legal else {"seat": 0, "play": wrap_play(game, some_card(game))}
    kind = [k for k in ACTION_KEYS if k in a][0]
    other = {"wizard": "select", "birdhead": rng.choice(["bid", "trump", "select"]),
             "sticheln": rng.choice(["bid", "trump"])}[game.name]
    two = dict(a)
    two[rng.choice([k for k in ACTION_KEYS if k != kind])] = a[kind]
    return {
        "not object": rng.choice([[], "play", 3, None]),
        "seat not integer": dict(a, seat=rng.choice([str(a["seat"]), None, True])),
        "seat out of range": dict(a, seat=rng.choice([game.n, -1, 99])),
        "no action key": {"seat": a["seat"]},
        "two action keys": two,
        "kind not in game": {"seat": a["seat"], other: 0 if other == "bid" else "r"},
    }


def wizard_illegal(rng, game, legal):
    r = game.cur
    cands = {}
    if r.phase == "trump":
        other = rng.choice([s for s in range(game.n) if s != game.dealer])
        cands["trump by non-dealer"] = {"seat": other, "trump": "r"}
        cands["bad trump"] = {"seat": game.dealer, "trump": rng.choice(["x", "W", 1, "rr"])}
        cands["bid before trump"] = {"seat": game.dealer, "bid": 0}
        cands["play before trump"] = {"seat": game.dealer, "play": some_card(game, game.dealer)}
    elif r.phase == "bid":
        if game.hidden:
            done = [s for s in r.order if r.bids[s] is not None]
            waiting = [s for s in r.order if r.bids[s] is None]
            if done:
                cands["duplicate hidden bid"] = {"seat": rng.choice(done), "bid": 0}
            out = [s for s in range(game.n) if not game.active[s]]
            if out:
                cands["eliminated seat bids"] = {"seat": rng.choice(out), "bid": 0}
            seat = rng.choice(waiting)
        else:
            seat = r.order[r.bid_pos]
            others = [s for s in range(game.n) if s != seat]
            cands["bid out of turn"] = {"seat": rng.choice(others), "bid": 0}
            forbidden = [b for b in range(r.size + 1)
                         if r.bid_pos == len(r.order) - 1 and game.bid_forbidden(b)]
            if forbidden:
                cands["bid forbidden by option"] = {"seat": seat, "bid": forbidden[0]}
        cands["bid out of range"] = {"seat": seat, "bid": rng.choice([-1, r.size + 1, 99])}
        cands["bid not integer"] = {"seat": seat, "bid": rng.choice(["1", True, None, [0]])}
        cands["trump not allowed"] = {"seat": rng.choice([seat, game.dealer]), "trump": "g"}
        cands["play during bidding"] = {"seat": seat, "play": some_card(game, seat)}
    else:
        seat = r.turn
        hand = r.hands[seat]
        others = [s for s in range(game.n) if s != seat]
        o = rng.choice(others)
        cands["play out of turn"] = {"seat": o, "play": some_card(game, o)}
        card = not_held(rng, game, seat)
        if card:
            cands["card not held"] = {"seat": seat, "play": card}
        lead = wizard_lead_suit([c for _, c in r.plays])
        if lead and any(WIZARD_SUIT[c] == lead for c in hand):
            off = [c for c in hand if WIZARD_SUIT[c] not in (None, lead)]
            if off:
                cands["failure to follow suit"] = {"seat": seat, "play": rng.choice(off)}
        cands["unknown card"] = {"seat": seat, "play": unknown_code(rng, game)}
        cands["play not a string"] = {"seat": seat, "play": rng.choice([[hand[0]], 7, None])}
        cands["bid during play"] = {"seat": seat, "bid": 0}
        cands["trump during play"] = {"seat": rng.choice([seat, game.dealer]), "trump": "b"}
    return cands


def birdhead_illegal(rng, game, legal):
    r = game.cur
    seat = r.turn
    hand = sorted(r.hands[seat])
    counts = Counter(hand)
    cands = {}
    others = [s for s in range(game.n) if s != seat]
    o = rng.choice(others)
    cands["play out of turn"] = {"seat": o, "play": [str(min(r.hands[o]))]}
    k = len(r.standard) if r.plays else 1
    missing = [c for c in BIRDHEAD_RANKS if counts[c] == 0]
    if missing:
        cands["card not held"] = {"seat": seat, "play": [str(rng.choice(missing))] * k}
    many = [c for c in counts if counts[c] < 3]
    if many and not r.plays:
        c = rng.choice(many)
        cands["more copies than held"] = {"seat": seat, "play": [str(c)] * (counts[c] + 1)}
    cands["empty play"] = {"seat": seat, "play": []}
    cands["play not a list"] = {"seat": seat, "play": rng.choice([str(hand[0]), hand[0]])}
    cands["card not a string"] = {"seat": seat, "play": [hand[0]]}
    cands["unknown card"] = {"seat": seat, "play": [unknown_code(rng, game)]}
    if not r.plays:
        if len(counts) > 1:
            a, b = rng.sample(sorted(counts), 2)
            cands["lead of unequal cards"] = {"seat": seat, "play": [str(a), str(b)]}
        if len(counts) == 1 and len(hand) <= 3:
            cands["lead leaves no card"] = {"seat": seat, "play": [str(c) for c in hand]}
        quads = [c for c in counts if counts[c] >= 4]
        if quads:
            cands["lead of four"] = {"seat": seat, "play": [str(quads[0])] * 4}
    else:
        for size in (k - 1, k + 1):
            if 1 <= size < len(hand):
                cands["follow with wrong count"] = {
                    "seat": seat, "play": [str(c) for c in hand[-size:]]}
        bad = [combo for combo in set(itertools.combinations(hand, k))
               if not birdhead_meets(combo, r.standard)
               and list(combo) != hand[:k]]
        if bad:
            cands["follow neither meeting nor lowest"] = {
                "seat": seat, "play": [str(c) for c in rng.choice(sorted(bad))]}
    return cands


def sticheln_illegal(rng, game, legal):
    r = game.cur
    cands = {}
    if r.phase == "select":
        done = [s for s in range(game.n) if r.selected[s] is not None]
        waiting = [s for s in range(game.n) if r.selected[s] is None]
        seat = rng.choice(waiting)
        if done:
            d = rng.choice(done)
            cands["duplicate selection"] = {"seat": d, "select": r.hands[d][0]}
        cands["play during selection"] = {"seat": rng.choice([seat, r.turn]),
                                          "play": some_card(game, seat)}
        cands["select card not held"] = {"seat": seat, "select": not_held(rng, game, seat)}
        cands["unknown card"] = {"seat": seat, "select": unknown_code(rng, game)}
        cands["select not a string"] = {"seat": seat, "select": rng.choice([[r.hands[seat][0]], 5])}
    else:
        seat = r.turn
        o = rng.choice([s for s in range(game.n) if s != seat])
        cands["play out of turn"] = {"seat": o, "play": some_card(game, o)}
        cands["card not held"] = {"seat": seat, "play": not_held(rng, game, seat)}
        cands["unknown card"] = {"seat": seat, "play": unknown_code(rng, game)}
        cands["select during play"] = {"seat": seat, "select": r.hands[seat][0]}
        cands["play not a string"] = {"seat": seat, "play": rng.choice([[r.hands[seat][0]], 3])}
    return cands


ILLEGAL_BY_GAME = {"wizard": wizard_illegal, "birdhead": birdhead_illegal,
                   "sticheln": sticheln_illegal}


def illegal_candidates(rng, game):
    """name -> action for every kind of illegality that fits this state."""
    if game.finished:
        seat = rng.randrange(game.n)
        card = some_card(game)
        return {"action after the game ended": rng.choice([
            {"seat": seat, "play": wrap_play(game, card)},
            {"seat": seat, "select" if game.name == "sticheln" else "bid":
             card if game.name == "sticheln" else 0}])}
    legal = game.legal_actions()
    cands = generic_illegal(rng, game, legal)
    if rng.random() < 0.75:   # favour the game's own rules over broken shapes
        cands = {}
    cands.update(ILLEGAL_BY_GAME[game.name](rng, game, legal))
    return cands


def insert_illegal(rng, record, info):
    """Put one illegal action at a random index; returns (record, index, kind).

    The index is drawn by situation first (bidding, trump choice, leading,
    ...) so that rare situations get their share of illegal actions.
    """
    actions = record["actions"]
    by_situation = {}
    for index, label in enumerate(info["situations"]):
        by_situation.setdefault(label, []).append(index)
    while True:
        pick = rng.random()
        if pick < 0.05:
            cut = len(actions)          # after the end of the game
        elif pick < 0.3:
            cut = rng.randint(0, len(actions))
        else:
            label = rng.choice(sorted(k for k in by_situation if k != "end"))
            cut = rng.choice(by_situation[label])
        game = game_after(record, cut)
        cands = illegal_candidates(rng, game)
        names = sorted(cands)
        rng.shuffle(names)
        aimed = [k for k in AIMED.get(info["situations"][cut], []) if k in cands]
        if aimed and rng.random() < 0.5:
            names.insert(0, rng.choice(aimed))
        for name in names:
            if is_illegal(game, cands[name]):
                tail = actions[cut:cut + rng.choice([0, 0, 1, 5])]
                record["actions"] = actions[:cut] + [cands[name]] + tail
                return record, cut, name


# -- malformed records --------------------------------------------------------

def deal_card_slots(record):
    """(deal index, seat, position) of every card in every deal."""
    return [(d, s, i) for d, deal in enumerate(record["deals"])
            for s, hand in enumerate(deal["hands"]) for i in range(len(hand))]


def corrupt_duplicate(rng, record):
    slots = deal_card_slots(record)
    d = rng.choice(slots)[0]
    deal = record["deals"][d]
    slots = [x for x in slots if x[0] == d]
    game = record["game"]
    if game == "wizard":
        suited = [deal["hands"][s][i] for _, s, i in slots
                  if wizard_card(deal["hands"][s][i]) not in ("W", "J")]
        if not suited:
            return None
        card, need = rng.choice(suited), 2
    elif game == "birdhead":
        card, need = str(rng.choice(BIRDHEAD_RANKS)), 6
    else:
        card, need = rng.choice([deal["hands"][s][i] for _, s, i in slots]), 2

    def count():
        return sum(1 for _, s, i in slots if str(deal["hands"][s][i]).lower() == card.lower())
    rng.shuffle(slots)
    for _, s, i in slots:
        if count() >= need:
            break
        if str(deal["hands"][s][i]).lower() != card.lower():
            deal["hands"][s][i] = card
    return record if count() >= need else None


def corrupt_unknown_card(rng, record):
    d, s, i = rng.choice(deal_card_slots(record))
    n = len(record["players"])
    bad = {"wizard": ["r14", "x5", "r0", "WW", ""],
           "birdhead": ["1", "12", "0", "x", ""],
           "sticheln": ["x1", "r%d" % (sticheln_max_rank(n) + 1), "n-1", ""]}[record["game"]]
    if record["game"] == "sticheln" and n < 6:
        bad.append("p1")
    record["deals"][d]["hands"][s][i] = rng.choice(bad)
    return record


def corrupt_hand_size(rng, record):
    d = rng.randrange(len(record["deals"]))
    hands = record["deals"][d]["hands"]
    seat = rng.choice([s for s in range(len(hands)) if hands[s]])
    if len(hands[seat]) >= 2 and rng.random() < 0.5:
        hands[seat].pop(rng.randrange(len(hands[seat])))
    else:
        others = [c for h in hands for c in h]
        hands[seat].append(rng.choice(others))  # a wrong count, maybe a duplicate too
    return record


def corrupt_hand_count(rng, record):
    d = rng.randrange(len(record["deals"]))
    hands = record["deals"][d]["hands"]
    if rng.random() < 0.5:
        hands.pop(rng.randrange(len(hands)))
    else:
        hands.append([])
    return record


def corrupt_player_count(rng, record):
    low, high = PLAYER_RANGE[record["game"]]
    n = rng.choice([low - 1, high + 1, 0])
    record["players"] = ["p%d" % i for i in range(n)]
    return record


def corrupt_players_type(rng, record):
    record["players"] = rng.choice([[1, 2, 3, 4], "p0,p1,p2", None])
    return record


def corrupt_unknown_option(rng, record):
    name = {"wizard": rng.choice(["dm", "foo", "nannies", "trump"]),
            "birdhead": rng.choice(["dm", "quick", "foo"]),
            "sticheln": rng.choice(["notequal", "quick", "foo"])}[record["game"]]
    record["options"] = dict(record["options"], **{name: True})
    return record


def corrupt_option_value(rng, record):
    if record["game"] == "birdhead":
        return None
    if record["game"] == "sticheln":
        record["options"] = {"dm": rng.choice(["yes", 1, [True]])}
        return record
    name, value = rng.choice([("rounds", 0), ("rounds", 999), ("rounds", True),
                              ("rounds", "5"), ("nannie", 4), ("nannie", 1),
                              ("nannie", "3"), ("quick", "yes"), ("secret", 1),
                              ("amigo", "true")])
    record["options"] = {name: value}
    return record


REFUSED_WIZARD = [
    {"notequal": True, "evenbid": True}, {"canadian": True, "hardcore": True},
    {"evenbid": True, "notequal": True, "rounds": 3},
    {"hiddentip": True, "secret": True}, {"secret": True, "hardcore": True},
    {"hiddentip": True, "notequal": True}, {"secret": True, "canadian": True},
    {"jesterbid": True, "notequal": True}, {"jesterbid": True, "hiddentip": True},
    {"jesterbid": True, "secret": True}, {"quick": True, "amigo": True},
    {"custom6": True, "nannie": True}, {"amigo": True, "nannie": 2},
    {"quick": True, "custom6": True}, {"clairvoyance": True, "nannie": True},
]


def corrupt_option_combination(rng, record):
    if record["game"] != "wizard":
        return None
    n = len(record["players"])
    choices = list(REFUSED_WIZARD)
    if n == 6:
        choices.append({"amigo": True})
    if n != 4:
        choices += [{"clairvoyance": True, "quick": True},
                    {"clairvoyance": True, "amigo": True} if n < 6 else {"amigo": True}]
    record["options"] = dict(rng.choice(choices))
    return record


def corrupt_turned(rng, record):
    if record["game"] != "wizard":
        return None
    deals = [d for d in record["deals"]
             if any(wizard_card(c) not in ("W", "J") for h in d["hands"] for c in h)]
    if not deals:
        return None
    deal = rng.choice(deals)
    deal["turned"] = rng.choice([c for h in deal["hands"] for c in h
                                 if wizard_card(c) not in ("W", "J")])
    return record


def corrupt_turned_missing(rng, record):
    """A Wizard deal without its turned card though cards are left."""
    deals = [d for d in record["deals"] if d.get("turned") is not None]
    if record["game"] != "wizard" or not deals:
        return None
    deal = rng.choice(deals)
    if rng.random() < 0.5:
        deal["turned"] = None
    else:
        del deal["turned"]
    return record


def corrupt_turned_given(rng, record):
    """A turned card in a game that turns none up."""
    if record["game"] == "wizard":
        return None
    deal = rng.choice(record["deals"])
    deal["turned"] = deal["hands"][0][0]
    return record


def corrupt_lists(rng, record):
    """No list of deals or of actions (RECORD.md always has both)."""
    key = rng.choice(["deals", "actions"])
    if rng.random() < 0.5:
        del record[key]
    else:
        record[key] = None
    return record


def corrupt_game(rng, record):
    record["game"] = rng.choice(["skat", "doppelkopf", "", None, 3])
    return record


def corrupt_first(rng, record):
    record["first"] = rng.choice([len(record["players"]), -1, "0", None, 1.5])
    return record


def corrupt_extra_deal(rng, record):
    if record["game"] != "wizard" or "nannie" in record["options"]:
        return None
    n = len(record["players"])
    opts = read_wizard_options(record["options"], n)
    schedule = wizard_schedule(n, opts)
    while len(record["deals"]) <= len(schedule):
        record["deals"].append(copy.deepcopy(record["deals"][-1]))
    return record


def corrupt_missing_deal(rng, record):
    """Drop the deals from some round on while keeping the actions."""
    if len(record["deals"]) < 2:
        return None
    record["deals"] = record["deals"][:rng.randint(1, len(record["deals"]) - 1)]
    return record


def corrupt_nannie_seats(rng, record):
    """Under nannie: give the cards of an active seat to an eliminated one."""
    if "nannie" not in record["options"]:
        return None
    for d, deal in enumerate(record["deals"]):
        empty = [s for s, h in enumerate(deal["hands"]) if not h]
        if empty:
            full = [s for s, h in enumerate(deal["hands"]) if h]
            a, b = rng.choice(empty), rng.choice(full)
            hands = deal["hands"]
            if rng.random() < 0.5:
                hands[a], hands[b] = hands[b], hands[a]
            else:
                hands[b] = []   # an active seat left without cards
            return record
    return None


def corrupt_deal_shape(rng, record):
    d = rng.randrange(len(record["deals"]))
    record["deals"][d] = rng.choice([None, [], {"hands": None}, {"hands": "r1"},
                                     {"hands": [None] * len(record["players"])}])
    return record


def corrupt_not_object(rng, record):
    return rng.choice([[record], "wizard", 42, None])


MALFORMED = {
    "duplicate card": corrupt_duplicate,
    "unknown card": corrupt_unknown_card,
    "wrong hand size": corrupt_hand_size,
    "wrong number of hands": corrupt_hand_count,
    "wrong player count": corrupt_player_count,
    "players not names": corrupt_players_type,
    "unknown option": corrupt_unknown_option,
    "bad option value": corrupt_option_value,
    "refused option combination": corrupt_option_combination,
    "turned card also in a hand": corrupt_turned,
    "turned card missing": corrupt_turned_missing,
    "turned card in a game without one": corrupt_turned_given,
    "deals or actions missing": corrupt_lists,
    "unknown game": corrupt_game,
    "first out of range": corrupt_first,
    "more deals than rounds": corrupt_extra_deal,
    "action needs a missing deal": corrupt_missing_deal,
    "nannie hands do not match eliminations": corrupt_nannie_seats,
    "deal not well formed": corrupt_deal_shape,
    "record not an object": corrupt_not_object,
    "not JSON": None,
}


WIZARD_ONLY = ("refused option combination", "turned card also in a hand",
               "turned card missing",
               "more deals than rounds", "nannie hands do not match eliminations")


def malformed_record(rng, name, players, fixed, randomize):
    """(record text, kind) of a record that replay must refuse (exit 2)."""
    kinds = [k for k in sorted(MALFORMED) if name == "wizard" or k not in WIZARD_ONLY]
    while True:
        kind = rng.choice(kinds)
        if kind == "nannie hands do not match eliminations":
            # needs eliminations: play a nannie game whatever the options
            n = players or rng.randint(3, 6)
            record, _ = base_record(rng, name, n, {"nannie": rng.choice([2, 3])}, False)
        else:
            record, _ = base_record(rng, name, players, fixed, randomize)
        if kind == "not JSON":
            text = json.dumps(record)
            return text[:rng.randint(1, len(text) - 1)], kind
        out = MALFORMED[kind](rng, record)
        if out is not None:
            return json.dumps(out), kind


# -- putting it together --------------------------------------------------------

def generate(name, count, seed, players=None, fixed=None, randomize=False,
             illegal=False, truncated=False, malformed=False):
    """A list of (record text, expectation) pairs.

    expectation: {"mode": ..., "kind": ..., "exit": 0/1/2, "action": K}
    (exit/action are what the generator intends; replay decides).
    """
    rng = random.Random(seed)
    fixed = fixed or {}
    modes = [m for m, on in (("illegal", illegal), ("truncate", truncated),
                             ("malformed", malformed)) if on] or ["full"]
    out = []
    for _ in range(count):
        mode = rng.choice(modes)
        if mode == "malformed":
            text, kind = malformed_record(rng, name, players, fixed, randomize)
            out.append((text, {"mode": mode, "kind": kind, "exit": 2, "action": None}))
            continue
        record, info = base_record(rng, name, players, fixed, randomize)
        expect = {"mode": mode, "kind": None, "exit": 0, "action": None}
        if mode == "truncate":
            record = truncate(rng, record, info)
        elif mode == "illegal":
            record, index, kind = insert_illegal(rng, record, info)
            expect.update(kind=kind, exit=1, action=index)
        out.append((json.dumps(record), expect))
    return out


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def dump(obj):
    return json.dumps(obj, separators=(",", ":"))


def cmd_replay(args):
    try:
        if args.file:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        else:
            text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as e:
        print("replay: cannot read input: %s" % e, file=sys.stderr)
        return 2 if not args.lines else 1
    if not args.lines:
        status, obj = replay_text(text)
        print(dump(obj))
        return status
    # One answer per line, a blank one included (RECORD.md).
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for line in lines:
        print(dump(replay_text(line)[1]))
    return 0


def cmd_gen(args):
    if args.random_options and args.option:
        raise SystemExit("gen: --option and --random-options exclude each other")
    fixed = parse_option_args(args.option or [])
    if args.players is not None:
        low, high = PLAYER_RANGE[args.game]
        if not low <= args.players <= high:
            raise SystemExit("gen: %s needs %d to %d players" % (args.game, low, high))
        try:
            normalise_options(args.game, fixed, args.players)
        except Malformed as e:
            raise SystemExit("gen: %s" % e)
    records = generate(args.game, args.count, args.seed, args.players, fixed,
                       args.random_options, args.illegal, args.truncate, args.malformed)
    for text, _ in records:
        print(text)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="check and score game records")
    rep.add_argument("--lines", action="store_true")
    rep.add_argument("file", nargs="?")
    gen = sub.add_parser("gen", help="generate random game records")
    gen.add_argument("--game", required=True, choices=sorted(PLAYER_RANGE))
    gen.add_argument("--count", type=int, default=1)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--players", type=int)
    gen.add_argument("--option", action="append", metavar="NAME[=V]")
    gen.add_argument("--random-options", action="store_true")
    gen.add_argument("--illegal", action="store_true")
    gen.add_argument("--truncate", action="store_true")
    gen.add_argument("--malformed", action="store_true")
    args = parser.parse_args(argv)
    return cmd_replay(args) if args.command == "replay" else cmd_gen(args)


if __name__ == "__main__":
    sys.exit(main())

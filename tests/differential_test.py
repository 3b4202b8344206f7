#!/usr/bin/env python3
"""Differential test of `stichbot replay` against tools/reference.py.

    differential_test.py --stichbot PATH [--count N] [--seed S] [--ignore-extra-keys]
    differential_test.py --self-check [--count N] [--seed S]

With --stichbot: for every game, generate random records with the
reference's generator (complete games, truncated games, games with one
illegal action, malformed records; random option combinations and one run
per single Wizard option and per Sticheln option), send each batch through
`PATH replay --lines` (one process per batch, records on stdin) and through
the reference, and compare: results of valid records must be equal as
parsed JSON; for errors, both must be errors with the same `action`. One
small batch also goes through `PATH replay FILE`, record by record, and
the exit status (and output) must match. Records at the edges RECORD.md
draws (numbers beyond 64 bits, spellings, missing or extra parts) go both
ways too, and through --lines with blank lines between them.

With --self-check (no binary needed): the reference must reproduce every
golden example in shared/examples, every generated record must replay to
what the generator intended (exit status and illegal action index), and
the whole harness is run once against the reference's own command line.

The last line is always `N passed, M failed` (counts of records); the exit
status is non-zero when anything failed.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import reference  # noqa: E402

REFERENCE_CLI = [sys.executable, os.path.join(ROOT, "tools", "reference.py")]
EXAMPLES = os.path.join(os.path.dirname(ROOT), "shared", "examples")
GAMES = ("wizard", "birdhead", "sticheln")
MODES = ("full", "truncate", "illegal", "malformed")
WIZARD_SINGLE_OPTIONS = ("notequal", "evenbid", "canadian", "hardcore", "hiddentip",
                         "secret", "quick", "rounds=4", "amigo", "custom6", "nannie",
                         "nannie=2", "nannie=3", "jesterbid", "clairvoyance")
SHOW = 5          # mismatches printed in full
TIMEOUT = 600     # seconds for one batch


# ---------------------------------------------------------------------------
# Building batches
# ---------------------------------------------------------------------------

def mode_flags(mode):
    return {"illegal": mode == "illegal", "truncated": mode == "truncate",
            "malformed": mode == "malformed"}


def batches(count, seed):
    """(name, [(record text, expectation)]) for every batch of the run."""
    out = []
    n = 0
    for game in GAMES:
        for mode in MODES:
            n += 1
            out.append(("%s %s (random options)" % (game, mode),
                        reference.generate(game, count, seed * 1000 + n,
                                           randomize=True, **mode_flags(mode))))
    singles = [("wizard", o) for o in WIZARD_SINGLE_OPTIONS] + [("sticheln", "dm")]
    small = max(1, count // 4)
    for game, option in singles:
        fixed = reference.parse_option_args([option])
        records = []
        for mode in ("full", "truncate", "illegal"):
            n += 1
            records += reference.generate(game, small, seed * 1000 + n, fixed=fixed,
                                          **mode_flags(mode))
        out.append(("%s option %s" % (game, option), records))
    return out


def single_mode_batch(seed):
    """A few records of every game and kind, for `replay FILE`."""
    records = []
    for i, game in enumerate(GAMES):
        for j, mode in enumerate(MODES):
            records += reference.generate(game, 1, seed * 1000 + 900 + 10 * i + j,
                                          randomize=True, **mode_flags(mode))
    return records


# ---------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------

def run_lines(command, texts):
    """Outputs of `command replay --lines` for texts, or an error string."""
    data = "".join(t + "\n" for t in texts)
    try:
        proc = subprocess.run(command + ["replay", "--lines"], input=data,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "could not run: %s" % e
    if proc.returncode != 0:
        return None, "replay --lines exited %d: %s" % (proc.returncode, proc.stderr[-500:])
    lines = proc.stdout.splitlines()
    if len(lines) != len(texts):
        return lines, "printed %d lines for %d records" % (len(lines), len(texts))
    return lines, None


def run_single(command, text):
    """(exit status, stdout) of `command replay FILE` for one record."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run(command + ["replay", path], capture_output=True,
                              text=True, timeout=60)
        return proc.returncode, proc.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "could not run: %s" % e
    finally:
        os.unlink(path)


def strip_extra(got, want):
    """`got` without keys that `want` lacks (at every level)."""
    if isinstance(got, dict) and isinstance(want, dict):
        return {k: strip_extra(got[k], want[k]) for k in got if k in want}
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [strip_extra(g, w) for g, w in zip(got, want)]
    return got


def compare(status, want, got_text, ignore_extra=False, got_status=None):
    """None if the binary's output agrees with the reference, else why not."""
    try:
        got = json.loads(got_text)
    except (TypeError, ValueError):
        return "output is not JSON"
    if got_status is not None and got_status != status:
        return "exit status %s, reference %d" % (got_status, status)
    if not isinstance(got, dict):
        return "output is not a JSON object"
    if status == 0:
        if "error" in got:
            return "error, but the reference accepts the record"
        if ignore_extra:
            got = strip_extra(got, want)
        return None if got == want else "results differ"
    if "error" not in got:
        return "no error, but the reference gives exit %d" % status
    if got.get("action", "missing") != want["action"]:
        return "error at action %r, reference at %r" % (got.get("action", "missing"),
                                                        want["action"])
    return None


def shorten(text, limit=600):
    return text if len(text) <= limit else text[:limit // 2] + " ... " + text[-limit // 2:]


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.shown = 0
        self.by_batch = {}

    def add(self, batch, problem, record="", want=None, got=""):
        ok, bad = self.by_batch.get(batch, (0, 0))
        if problem is None:
            self.passed += 1
            self.by_batch[batch] = (ok + 1, bad)
            return
        self.failed += 1
        self.by_batch[batch] = (ok, bad + 1)
        if self.shown < SHOW:
            self.shown += 1
            print("MISMATCH [%s]: %s" % (batch, problem))
            print("  record:    %s" % shorten(record))
            print("  reference: %s" % shorten(json.dumps(want)))
            print("  stichbot:  %s" % shorten(str(got).strip()))

    def summary(self):
        for name, (ok, bad) in self.by_batch.items():
            print("  %-52s %5d passed %5d failed" % (name, ok, bad))
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0


def differential(command, count, seed, ignore_extra, tally):
    """Compare `command` with the reference on generated records."""
    for name, records in batches(count, seed):
        texts = [t for t, _ in records]
        lines, error = run_lines(command, texts)
        if error:
            print("BATCH [%s]: %s" % (name, error))
        for i, text in enumerate(texts):
            status, want = reference.replay_text(text)
            got = lines[i] if lines is not None and i < len(lines) else None
            problem = "no output line" if got is None else compare(status, want, got, ignore_extra)
            tally.add(name, problem, text, want, got)
    name = "single record mode (replay FILE)"
    for text, _ in single_mode_batch(seed):
        status, want = reference.replay_text(text)
        got_status, got = run_single(command, text)
        tally.add(name, compare(status, want, got, ignore_extra, got_status), text, want, got)
    contract_edges(command, seed, ignore_extra, tally)


def edge_records(seed):
    """Records at the edges RECORD.md draws, from one full game of each game:
    numbers beyond 64 bits (valid JSON: a seat or bid out of range), a game
    or option in another case, a missing turned card, a turned card where
    the game has none, a missing list."""
    out = []
    for i, game in enumerate(GAMES):
        text, _ = reference.generate(game, 1, seed * 1000 + 950 + i)[0]
        base = json.loads(text)

        def edit(change):
            record = json.loads(text)
            change(record)
            out.append(json.dumps(record))

        for seat in (2 ** 63, -1, 2 ** 62, -(10 ** 30), len(base["players"])):
            edit(lambda r, seat=seat: r["actions"].__setitem__(0, dict(r["actions"][0], seat=seat)))
        edit(lambda r: r.update(game=game.capitalize()))
        edit(lambda r: r.pop("actions"))
        edit(lambda r: r.update(deals=None))
        if game == "wizard":
            for bid in (10 ** 20, 10 ** 18, -(10 ** 20)):
                edit(lambda r, bid=bid: r["actions"].__setitem__(
                    0, {"seat": r["actions"][0]["seat"], "bid": bid}))
            edit(lambda r: r["options"].update(rounds=10 ** 30))
            edit(lambda r: r["options"].update(NotEqual=True))
            edit(lambda r: r["deals"][0].update(turned=None))
            edit(lambda r: r["deals"][0].pop("turned"))
        else:
            edit(lambda r: r["deals"][0].update(turned=r["deals"][0]["hands"][0][0]))
        out.append(text)
    return out


def contract_edges(command, seed, ignore_extra, tally):
    """The edge records, each alone and all in one --lines batch with blank
    lines between them: every input line, a blank one too, gets its line."""
    name = "contract edges"
    texts = []
    for text in edge_records(seed):
        texts += [text, ["", "   ", "\r", "\t"][len(texts) % 4]]
        status, want = reference.replay_text(text)
        got_status, got = run_single(command, text)
        tally.add(name, compare(status, want, got, ignore_extra, got_status), text, want, got)
    name = "contract edges (--lines, blank lines between)"
    lines, error = run_lines(command, texts)
    if error:
        print("BATCH [%s]: %s" % (name, error))
    for i, text in enumerate(texts):
        status, want = reference.replay_text(text)
        got = lines[i] if lines is not None and i < len(lines) else None
        problem = "no output line" if got is None else compare(status, want, got, ignore_extra)
        tally.add(name, problem, text, want, got)


# ---------------------------------------------------------------------------
# Self-check (no binary)
# ---------------------------------------------------------------------------

def check_examples(tally):
    paths = sorted(glob.glob(os.path.join(EXAMPLES, "*.record.json")))
    if not paths:
        print("no examples found in %s" % EXAMPLES)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path.replace(".record.json", ".expected.json"), encoding="utf-8") as f:
            expected = json.load(f)
        status, got = reference.replay_text(text)
        want = expected["output"]
        problem = compare(expected["exit"], want, json.dumps(got), got_status=status)
        tally.add("example " + os.path.basename(path), problem, text, want, got)


def rule_scenarios():
    """(name, ok) for hand-made rule cases the examples do not cover."""
    R = reference

    def trick(*cards):
        return list(enumerate(cards))

    def wizard(opts, n=3, first=0, totals=None, size=1, bids=None):
        g = R.Wizard(n, first, [], R.read_wizard_options(opts, n))
        g.totals = totals or [0] * n
        g.cur = R.Round(size=size, bids=bids or [None] * n, sole_leader=g.dealer_sole_leader())
        return g

    def refused(opts, n):
        try:
            R.read_wizard_options(opts, n)
        except R.Malformed:
            return True
        return False

    def eliminated(n, dealer, totals):
        g = wizard({"nannie": 2}, n, dealer, totals)
        g.eliminate_lowest()
        return [s for s in range(n) if not g.active[s]]

    return [
        ("jester led, then suit sets the lead", R.wizard_lead_suit(["J", "r5", "W"]) == "r"),
        ("wizard before any suit: no lead suit", R.wizard_lead_suit(["J", "W", "r5"]) is None),
        ("wizard after a suit keeps the duty", R.wizard_must_follow(["r2", "g3"], ["r5", "W"], "g3")),
        ("no duty after a leading wizard", not R.wizard_must_follow(["r2", "g3"], ["W", "r5"], "g3")),
        ("first wizard wins", R.wizard_trick_winner(trick("r5", "W", "W"), "g", False) == 1),
        ("highest trump wins", R.wizard_trick_winner(trick("r5", "g2", "r13"), "g", False) == 1),
        ("highest lead card wins", R.wizard_trick_winner(trick("r5", "y13", "r6"), "g", False) == 2),
        ("all jesters: first jester", R.wizard_trick_winner(trick("J", "J", "J"), "g", False) == 0),
        ("jesterbid: first jester beats wizard",
         R.wizard_trick_winner(trick("W", "J", "J"), None, True) == 1),
        ("notequal forbids the dealer's sum", wizard({"notequal": True}, bids=[None, 0, 0]).bid_forbidden(1)),
        ("hardcore allows the sum below 4 cards",
         not wizard({"hardcore": True}, size=3, bids=[None, 1, 1]).bid_forbidden(1)),
        ("hardcore forbids the sum from 4 cards",
         wizard({"hardcore": True}, size=4, bids=[None, 1, 1]).bid_forbidden(2)),
        ("evenbid: no rule for a shared lead",
         not wizard({"evenbid": True}, totals=[10, 10, 0], size=4, bids=[None, 1, 1]).bid_forbidden(2)),
        ("evenbid: rule for a sole leader",
         wizard({"evenbid": True}, totals=[20, 10, 0], size=4, bids=[None, 1, 1]).bid_forbidden(2)),
        ("canadian: 0 always allowed",
         not wizard({"canadian": True}, totals=[20, 10, 0], size=2, bids=[None, 1, 1]).bid_forbidden(0)),
        ("nannie tie: dealer counts last", eliminated(4, 1, [0, 0, 0, 0]) == [1]),
        ("nannie tie: latest after the dealer", eliminated(4, 1, [-10, 0, -10, 0]) == [0]),
        ("quick with 5 players", R.wizard_full_schedule(5, {"quick": True}) == [2, 4, 6, 8, 10, 12]),
        ("amigo refused for 6", refused({"amigo": True}, 6)),
        ("clairvoyance refused under nannie", refused({"clairvoyance": True, "nannie": True}, 4)),
        ("clairvoyance with amigo for 4", not refused({"clairvoyance": True, "amigo": True}, 4)),
        ("secret refused with hardcore", refused({"secret": True, "hardcore": True}, 4)),
        ("birdhead meets the standard sorted", R.birdhead_meets([5, 3], [3, 4])),
        ("birdhead tie: latest strongest card",
         R.birdhead_trick_winner([(0, [9]), (1, [11]), (2, [11, 2])]) == 2),
        ("sticheln equal trumps: first played",
         R.sticheln_trick_winner(trick("r5", "y3", "g3", "r9")) == 1),
        ("sticheln zero never trumps", R.sticheln_trick_winner(trick("r5", "y0", "r9")) == 2),
        ("sticheln all zeros: the leader", R.sticheln_trick_winner(trick("r0", "y0", "g0")) == 0),
        ("sticheln score", R.sticheln_points("r3", ["r5", "y0", "r0", "g7"]) == -3 - 5 + 1 + 0 + 1),
    ]


def check_rules(tally):
    for name, ok in rule_scenarios():
        tally.add("rule scenarios", None if ok else "rule scenario failed: " + name)


def check_intentions(count, seed, tally):
    """Every generated record replays as the generator meant it to."""
    for name, records in batches(count, seed):
        for text, expect in records:
            status, got = reference.replay_text(text)
            problem = None
            if status != expect["exit"]:
                problem = "exit %d, generator meant %d (%s)" % (status, expect["exit"],
                                                                expect["kind"])
            elif status != 0 and got["action"] != expect["action"]:
                problem = "action %r, generator meant %r (%s)" % (
                    got["action"], expect["action"], expect["kind"])
            tally.add("generator: " + name, problem, text, expect, json.dumps(got))


def self_check(count, seed):
    tally = Tally()
    check_examples(tally)
    check_rules(tally)
    check_intentions(count, seed, tally)
    # The harness itself, end to end, against the reference's command line.
    differential(REFERENCE_CLI, max(2, count // 8), seed + 1, False, tally)
    return tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stichbot", metavar="PATH", help="the stichbot binary")
    parser.add_argument("--self-check", action="store_true",
                        help="check the reference against shared/examples (no binary)")
    parser.add_argument("--count", type=int, default=40, help="records per batch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ignore-extra-keys", action="store_true",
                        help="allow keys in stichbot's results that the contract lacks")
    args = parser.parse_args()
    if args.self_check == bool(args.stichbot):
        parser.error("give exactly one of --stichbot PATH and --self-check")
    if args.self_check:
        tally = self_check(args.count, args.seed)
    else:
        tally = Tally()
        differential([os.path.abspath(args.stichbot)], args.count, args.seed,
                     args.ignore_extra_keys, tally)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""One CLI style (issue 18): every subcommand of `stichbot`, as its
descriptor in bot/cli_*.c declares it, is listed by `stichbot --help`,
answers -h and --help with exit 0 and a usage naming every long flag it
takes, refuses an unknown option with exit 2, and refuses a wrong number
for each numeric flag with exit 2 and a message naming the flag.

The commands and flags are read from the sources, so a subcommand or a
numeric flag added without being covered here fails this test.

Then the refusals that must name their problem: `stichbot help COMMAND`
is the command's help; check-config with two files says there are too
many; play's --players names the games' range (3-6); arena refuses a
repeated option as play does, an empty level (two commas, one at either
end), an unknown level and a player count the game does not take, each
with its own message, and says "1 game" for one.

Then what `replay` and `decide` answer where RECORD.md is exact: one line
out per line in under `replay --lines`, a blank line included, and
reasons written as sentences (a count's plural, a number however large).

    cli_test.py STICHBOT BOT_SOURCE_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys

TIMEOUT = 30
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def run(stichbot, args, data=None):
    proc = subprocess.run([stichbot] + args, capture_output=True, text=True,
                          timeout=TIMEOUT, input=data,
                          stdin=subprocess.DEVNULL if data is None else None)
    return proc.returncode, proc.stdout, proc.stderr


# A 3-seat Wizard record with one deal; dealer 0, so seat 1 bids first.
RECORD = ('{"game":"wizard","players":["a","b","c"],"first":0,'
          '"deals":[{"hands":[%s],"turned":"b4"}],"actions":[%s]}')
HANDS = '["r1"],["r2"],["r3"]'


def check_record_answers(stichbot):
    """replay and decide where RECORD.md says exactly what to answer."""
    text = "{}\n\n   \n\r\n" + RECORD % (HANDS, "") + "\n"
    rc, out, err = run(stichbot, ["replay", "--lines"], text)
    lines = out.splitlines()
    expect(rc == 0 and len(lines) == 5,
           "replay --lines: exit %d, %d lines for 5: %r" % (rc, len(lines), out))
    for i in (1, 2, 3):
        expect(i < len(lines) and '"action":null' in lines[i]
               and "blank" in lines[i],
               "replay --lines: blank line %d: %r" % (i, lines[i:i + 1]))
    expect(len(lines) == 5 and '"error"' not in lines[4],
           "replay --lines: the record after the blank lines: %r" % lines[4:])

    cases = [
        (RECORD % ('["r1"],[],["r3"]', ""), 2,
         "Deal 1: Seat 1 holds 0 cards instead of 1."),
        (RECORD % ('["r1"],["r2","r4"],["r3"]', ""), 2,
         "Deal 1: Seat 1 holds 2 cards instead of 1."),
        (RECORD % ('["r1"],["r2"],["r3"]', '{"seat":4611686018427387904,'
                   '"bid":0}'), 1,
         "There is no seat 4611686018427387904 (seats 0-2)."),
        (RECORD % (HANDS, '{"seat":9223372036854775808,"bid":0}'), 1,
         "There is no seat 9223372036854775808 or more (seats 0-2)."),
        (RECORD % (HANDS, '{"seat":1,"bid":1000000000000000000}'), 1,
         "A bid must be 0 to 1."),
        (RECORD % (HANDS, '{"seat":1,"bid":100000000000000000000}'), 1,
         "A bid must be 0 to 1."),
    ]
    # A turned Wizard: the dealer (seat 0) chooses trump before any bid.
    cases.append((RECORD.replace('"b4"', '"W"') % (HANDS,
                                                  '{"seat":1,"bid":0}'), 1,
                  "The dealer (seat 0) must choose trump first."))
    # Under nannie a seat may be dealt nothing once it is out, never in
    # round 1 (before: "The turned card is missing").
    deck = ['"%s%d"' % (c, n) for c in "rygb" for n in range(1, 14)]
    deck += ['"W"'] * 4 + ['"J"'] * 4
    cases.append((RECORD.replace('"first"', '"options":{"nannie":2},'
                                 '"first"').replace(',"turned":"b4"', "")
                  % ("[%s],[],[%s]" % (",".join(deck[:20]),
                                       ",".join(deck[40:])), ""), 2,
                  "Deal 1: Seat 1 holds 0 cards instead of 20."))
    for text, status, reason in cases:
        rc, out, err = run(stichbot, ["replay"], text)
        expect(rc == status and json.loads(out or "{}").get("error") == reason,
               "replay %s: exit %d %r, expected %d %r"
               % (text[-60:], rc, out, status, reason))

    # One result on standard output, also for a FILE that cannot be
    # opened (before, only a line on standard error).
    rc, out, err = run(stichbot, ["replay", "/nonexistent/record.json"])
    expect(rc == 2 and json.loads(out or "{}") == {
        "error": "The record cannot be read: No such file or directory.",
        "action": None}, "replay of a missing file: exit %d %r" % (rc, out))

    rc, out, err = run(stichbot, ["decide"],
                       RECORD % (HANDS, '{"seat":2,"bid":0}'))
    want = ("Action 0 of the record is illegal. It is seat 1's turn to bid, "
            "not seat 2's.")
    expect(rc == 2 and json.loads(out or "{}").get("error") == want,
           "decide with an illegal action: exit %d %r" % (rc, out))
    rc, out, err = run(stichbot, ["decide"], RECORD % (HANDS, ""))
    action = json.loads(out or "{}")
    expect(rc == 0 and sorted(action) == ["bid", "seat"]
           and action["seat"] == 1 and action["bid"] in (0, 1),
           "decide for the first bid: exit %d %r" % (rc, out))


def descriptors(src):
    """{name: (long flags, numeric flags)} from each cli_*.c."""
    found = {}
    for path in sorted(glob.glob(os.path.join(src, "cli_*.c"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"const struct cli_command cli_\w+_command = \{\s*"
                      r'\.name = "([^"]+)"', text)
        if m is None:
            continue
        longs = re.findall(r'\{ "([a-z-]+)", (?:no|required)_argument',
                           text)
        numeric = re.findall(r'cli_number\(cmd, "(--[a-z-]+)"', text)
        found[m.group(1)] = (longs, numeric)
    return found


def refused(stichbot, args, message, rc_want=2):
    rc, out, err = run(stichbot, args)
    expect(rc == rc_want and message in err,
           "%s: exit %d %r, want %d and %r" % (" ".join(args), rc, err,
                                              rc_want, message))


def specific(stichbot):
    """Refusals that must say what is wrong, and help COMMAND."""
    rc, out, err = run(stichbot, ["help", "run"])
    rc2, out2, err2 = run(stichbot, ["run", "--help"])
    expect(rc == 0 and out == out2 and out.startswith("usage: stichbot "
                                                      "run"),
           "help run: exit %d %r" % (rc, out[:80]))
    refused(stichbot, ["help", "no-such"], 'unknown command "no-such"')
    # --help COMMAND is help COMMAND; help help is help.
    rc3, out3, _ = run(stichbot, ["--help", "run"])
    expect(rc3 == 0 and out3 == out, "--help run: exit %d %r"
           % (rc3, out3[:80]))
    rc3, out3, _ = run(stichbot, ["help", "help"])
    rc4, out4, _ = run(stichbot, ["help"])
    expect(rc3 == 0 and out3 == out4 and "Commands:" in out3,
           "help help: exit %d %r" % (rc3, out3[:80]))
    refused(stichbot, ["--help", "run", "x"], 'not also "x"')
    # The second of a flag would silently win: refused, by its name.
    refused(stichbot, ["run", "--config", "a", "--config", "b"],
            "--config given twice")
    refused(stichbot, ["export", "--game", "1", "--game=2"],
            "--game given twice")
    refused(stichbot, ["play", "--players", "3", "--players", "4"],
            "--players given twice")
    refused(stichbot, ["check-config", "a.json", "b.json"],
            'too many arguments: one FILE, not also "b.json"')
    refused(stichbot, ["check-config"], "the configuration FILE is missing")
    for n in ("7", "2"):
        refused(stichbot, ["play", "--players", n],
                '--players "%s": expected a whole number from 3 to 6' % n)
    refused(stichbot, ["play", "--option", "rounds=1", "--option",
                       "rounds=2"], "option rounds given twice")
    arena = ["arena", "wizard", "--games", "1", "--budget-ms", "1"]
    refused(stichbot, arena + ["--seats", "easy,easy,easy", "--option",
                               "rounds=1", "--option", "rounds=2"],
            "option rounds given twice")
    refused(stichbot, arena + ["--seats", "easy,easy,easy", "--option",
                               "hiddentip", "--option", "hiddentip"],
            "option hiddentip given twice")
    refused(stichbot, arena + ["--seats", ",".join(["easy"] * 7)],
            "wizard takes 3 to 6 players; --seats lists 7")
    refused(stichbot, arena + ["--seats", "easy,easy"],
            "wizard takes 3 to 6 players; --seats lists 2")
    for seats, k in (("easy,,easy", 2), ("easy,easy,easy,", 4),
                     (",easy,easy,easy", 1)):
        refused(stichbot, arena + ["--seats", seats],
                '--seats "%s": level %d is empty' % (seats, k))
    refused(stichbot, arena + ["--seats", "easy,wise,easy"],
            'unknown level "wise"')
    rc, out, err = run(stichbot, arena + ["--seats", "easy,easy,easy",
                                          "--option", "rounds=1"])
    expect(rc == 0 and out.startswith("wizard, 3 players, 1 game, "),
           "arena of one game: exit %d %r" % (rc, out[:80]))


def main():
    stichbot, src = sys.argv[1], sys.argv[2]
    commands = descriptors(src)
    expect(len(commands) >= 7, "only %d descriptors found in %s: %s"
           % (len(commands), src, sorted(commands)))

    rc, out, err = run(stichbot, ["--help"])
    expect(rc == 0, "stichbot --help: exit %d" % rc)
    listed = re.findall(r"^  (\S+)\s+\S", out, re.M)
    expect(sorted(listed) == sorted(commands),
           "stichbot --help lists %s, the descriptors are %s"
           % (sorted(listed), sorted(commands)))
    rc, out, err = run(stichbot, ["no-such-command"])
    expect(rc == 2 and "unknown command" in err,
           "an unknown command: exit %d %r" % (rc, err))

    for name, (longs, numeric) in sorted(commands.items()):
        for flag in ("-h", "--help"):
            rc, out, err = run(stichbot, [name, flag])
            expect(rc == 0, "%s %s: exit %d %r" % (name, flag, rc, err))
            expect(out.startswith("usage: stichbot " + name),
                   "%s %s: no usage line: %r" % (name, flag, out[:80]))
            for long in longs:
                expect("--" + long in out, "%s %s: the usage does not "
                       "name --%s" % (name, flag, long))
            for long in longs:
                if long != "help":
                    # Each flag's line says its default (or that it is
                    # required), possibly on a continuation line.
                    block = re.search(r"^  (?:-\w, )?--%s\b.*?(?=^  [-A-Z]|"
                                      r"\Z|^\n)" % re.escape(long), out,
                                      re.M | re.S)
                    expect(block is not None and
                           re.search(r"default|required", block.group(0)),
                           "%s --help: --%s has no default: %r"
                           % (name, long, block and block.group(0)))
        rc, out, err = run(stichbot, [name, "--no-such-flag"])
        expect(rc == 2 and "--no-such-flag" in err,
               "%s --no-such-flag: exit %d %r" % (name, rc, err))
        for flag in numeric:
            for bad in ("abc", "-1", "12x", "99999999999999999999999"):
                rc, out, err = run(stichbot, [name, flag, bad])
                expect(rc == 2 and flag in err and bad in err,
                       "%s %s %s: exit %d %r" % (name, flag, bad, rc, err))

    specific(stichbot)
    check_record_answers(stichbot)

    if failures:
        for f in failures:
            print("FAIL:", f)
        sys.exit(1)
    print("ok: %d subcommands, %d numeric flags" % (
        len(commands), sum(len(n) for _, n in commands.values())))


if __name__ == "__main__":
    main()

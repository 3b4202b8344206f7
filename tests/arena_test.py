#!/usr/bin/env python3
"""A short `stichbot arena` smoke test for every game: the command plays
whole games between the three levels and reports every seat, with a
finite mean and a win rate between 0 and 100%.  Not a timing test and not
a strength test (the README's arena figures are those)."""
import re
import subprocess
import sys

STICHBOT = sys.argv[1]

for game, seats in (("wizard", "hard,normal,easy"),
                    ("birdhead", "hard,normal,easy"),
                    ("sticheln", "hard,normal,easy,normal")):
    run = subprocess.run([STICHBOT, "arena", game, "--seats", seats,
                          "--games", "4", "--seed", "3", "--budget-ms", "5"],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise SystemExit("%s: exit %d: %s" % (game, run.returncode,
                                              run.stderr))
    levels = seats.split(",")
    for k, level in enumerate(levels):
        line = re.search(r"^\s*%d\s+%s\s+(-?[0-9.]+) \+- ([0-9.]+)\s+"
                         r"([0-9.]+)%%" % (k, level), run.stdout, re.M)
        if line is None:
            raise SystemExit("%s: no line for player %d (%s):\n%s"
                             % (game, k, level, run.stdout))
        if not 0.0 <= float(line.group(3)) <= 100.0:
            raise SystemExit("%s: win rate out of range: %s"
                             % (game, line.group(0)))
    if "decision time per level" not in run.stdout:
        raise SystemExit("%s: no decision times:\n%s" % (game, run.stdout))
print("arena_test: ok")

#!/usr/bin/env python3
"""Golden tests for `stichbot replay`: every NAME.record.json in a folder is
replayed, and the exit status and output must match NAME.expected.json (for
errors only the `action` index must match, as ../shared/examples/README.md
says). The same records then go through `replay --lines` in one batch and
must give the same answers line by line.

usage: golden_test.py STICHBOT GOLDEN_DIR
"""
import json
import os
import subprocess
import sys


def check(name, status, output, expected):
    """Returns a list of problems (empty when the answer is right)."""
    problems = []
    if status is not None and status != expected["exit"]:
        problems.append(f"{name}: exit {status}, expected {expected['exit']}")
    want = expected["output"]
    if "error" in want:
        if not isinstance(output, dict) or "error" not in output:
            problems.append(f"{name}: expected an error, got {output}")
        elif output.get("action") != want.get("action"):
            problems.append(f"{name}: error at action {output.get('action')}, "
                            f"expected {want.get('action')}")
    elif output != want:
        problems.append(f"{name}: output differs\n  got:  {json.dumps(output)}"
                        f"\n  want: {json.dumps(want)}")
    return problems


def main():
    stichbot, folder = sys.argv[1], sys.argv[2]
    names = sorted(f[:-len(".record.json")] for f in os.listdir(folder)
                   if f.endswith(".record.json"))
    problems, passed = [], 0
    records, expectations = [], []
    for name in names:
        path = os.path.join(folder, name + ".record.json")
        with open(os.path.join(folder, name + ".expected.json")) as f:
            expected = json.load(f)
        run = subprocess.run([stichbot, "replay", path], capture_output=True,
                             text=True, timeout=60)
        try:
            output = json.loads(run.stdout)
        except ValueError:
            output = run.stdout
        found = check(name, run.returncode, output, expected)
        problems += found
        passed += not found
        with open(path) as f:
            # --lines takes one record per line: re-encode compactly.
            text = f.read()
        try:
            records.append(json.dumps(json.loads(text)))
        except ValueError:
            records.append(text.replace("\n", " "))
        expectations.append((name, expected))
    run = subprocess.run([stichbot, "replay", "--lines"], capture_output=True,
                         text=True, input="\n".join(records) + "\n",
                         timeout=60)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or len(lines) != len(records):
        problems.append(f"--lines: exit {run.returncode}, {len(lines)} lines "
                        f"for {len(records)} records")
    else:
        for line, (name, expected) in zip(lines, expectations):
            found = check(name + " (--lines)", None, json.loads(line), expected)
            problems += found
            passed += not found
    for p in problems:
        print(p)
    print(f"{passed} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

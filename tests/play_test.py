#!/usr/bin/env python3
"""`stichbot play` end to end: a scripted person plays whole games of every
game in the terminal against computer players, reading only what the
terminal shows (the hand and the choices arrive as private lines), in
English and in Japanese.  Bounded in time; loopback only (no network)."""
import os
import re
import select
import subprocess
import sys
import time

STICHBOT = sys.argv[1]


def play(game, players, options=(), lang="en", seed=1, limit=120):
    args = [STICHBOT, "play", game, "--players", str(players), "--delay",
            "1", "--seed", str(seed), "--lang", lang, "--level", "easy",
            "--store", ":memory:"]
    for o in options:
        args += ["--option", o]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    deadline = time.time() + limit
    out = []
    answered = set()
    pending = []
    buf = b""
    eof = False
    while time.time() < deadline:
        if not pending:
            if eof:
                break
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                eof = True
                buf += b"\n"
            buf += data
            *lines, buf = buf.split(b"\n")
            pending += [x.decode("utf-8", "replace") for x in lines]
            continue
        line = pending.pop(0)
        out.append(line)
        if "Another game?" in line or "もう一度遊びますか" in line:
            # The offer after the game: leave.
            proc.stdin.write(b"n\n")
            continue
        if not line.startswith("(private)"):
            continue
        # A prompt: "... · to play: r3, r9" / "to bid: 0 1 2" / ...
        reply = None
        m = re.search(r"[:：]\s*([^·]*)$", line.strip())
        hand = re.search(r"(?:hand:|手札[：:]?)\s*(.*?)(?: ·|$)", line)
        if "!trump" in line or "trump" in line.split("·")[-1] or \
                "切り札を選" in line:
            reply = "trump r"
        if ("to bid" in line or "宣言" in line.split("·")[-1]) and m:
            reply = "bid " + m.group(1).split()[0]
        example = re.search(r"(?:e\.g\.|例:) ([^)）]*)[)）]", line)
        if ("to play" in line or "出す" in line.split("·")[-1]) and example:
            reply = "play " + example.group(1)
        elif ("to play" in line or "出す" in line.split("·")[-1]) and \
                ("any card" in line or "どのカード" in line) and hand:
            reply = "play " + hand.group(1).split()[0]
        elif ("to play" in line or "出す" in line.split("·")[-1]) and m:
            reply = "play " + m.group(1).split(",")[0].strip()
        elif ("penalty" in line.split("·")[-1] or "ペナルティ" in
              line.split("·")[-1]) and hand:
            reply = "select " + hand.group(1).split()[0]
        if reply and (len(out), reply) not in answered:
            answered.add((len(out), reply))
            try:
                proc.stdin.write((reply + "\n").encode())
            except BrokenPipeError:
                pass
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("%s: stichbot play did not exit" % game)
    out += proc.stdout.read().decode("utf-8", "replace").splitlines()
    text = "\n".join(out)
    if proc.returncode != 0:
        raise SystemExit("%s: exit %d\n%s\n%s" % (game, proc.returncode,
                                                  text[-3000:],
                                                  proc.stderr.read().decode()))
    return text


def main():
    text = play("wizard", 4, ["rounds=3"])
    assert "Game over" in text, text[-2000:]
    assert "(private) Round 1, your hand:" in text, text[:2000]
    # After each trick the reader sees the table at a glance (issue 17).
    assert "(private) Your hand: " in text and "(private) Wizard · Round " \
        in text, text[:3000]
    assert "Ranking: 1. " in text, text[-2000:]
    assert "You join Wizard" in text, text[:2000]
    text = play("birdhead", 3)
    assert "Game over" in text, text[-2000:]
    text = play("sticheln", 3, ["dm"])
    assert "Game over" in text, text[-2000:]
    text = play("wizard", 3, ["hiddentip", "rounds=2"], lang="ja")
    assert "Game over" not in text and "トリック" in text, text[-2000:]
    print("play_test: ok")


main()

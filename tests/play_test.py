#!/usr/bin/env python3
"""`stichbot play` end to end: a scripted person plays whole games of every
game in the terminal against computer players, reading only what the
terminal shows (the hand and the choices arrive as private lines), in
English and in Japanese.

Then the store of `play`: a second `play` on a store that one holds is
refused (exit 1, naming the holder's pid), as is one that a running
`stichbot run` holds, and once the first is gone the next one
resumes its game.  `stichbot export` reads that store from a 0444 copy
and from a copy in a read-only directory, and leaves both as they were;
beside a live writer it reads through the -wal and -shm files, and says
which one it may not read; it refuses an empty file without giving it a
schema.

Bounded in time; loopback only (no network)."""
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

STICHBOT = sys.argv[1]


def play(game, players, options=(), lang="en", seed=1, limit=120,
         store=":memory:"):
    args = [STICHBOT, "play", game, "--players", str(players), "--delay",
            "1", "--seed", str(seed), "--lang", lang, "--level", "easy",
            "--store", store]
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


def read_until(proc, needle, timeout=30):
    """Reads proc's stdout until a line holds needle; all read so far."""
    deadline = time.time() + timeout
    buf = b""
    while needle.encode() not in buf:
        left = deadline - time.time()
        if left <= 0:
            raise SystemExit("no %r within %ds:\n%s" % (
                needle, timeout, buf.decode("utf-8", "replace")[-2000:]))
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                raise SystemExit("exit %s before %r:\n%s" % (
                    proc.wait(), needle, buf.decode("utf-8", "replace")))
            buf += data
    return buf.decode("utf-8", "replace")


def free_port():
    """A loopback port nobody listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_play(store, env):
    return subprocess.Popen(
        [STICHBOT, "play", "wizard", "--players", "3", "--option",
         "rounds=2", "--delay", "1", "--seed", "5", "--level", "easy",
         "--store", store], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, bufsize=0)


def leave(proc):
    """Ctrl-D: the table closes, the unfinished game stays."""
    proc.stdin.close()
    try:
        rc = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("stichbot play did not exit at end of input")
    assert rc == 0, (rc, proc.stderr.read())


def play_refused(store, env, pid):
    proc = subprocess.run([STICHBOT, "play", "--store", store],
                          stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=env, timeout=30)
    assert proc.returncode == 1, (proc.returncode, proc.stdout,
                                  proc.stderr)
    assert "(pid %d) is using it" % pid in proc.stderr, proc.stderr
    assert store + ".lock" in proc.stderr, proc.stderr
    assert proc.stdout == "", proc.stdout


def snapshot(directory):
    """{name: (mode, bytes)} of every file in directory."""
    out = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        with open(path, "rb") as f:
            out[name] = (stat.S_IMODE(os.stat(path).st_mode), f.read())
    return out


def export(store, user):
    return subprocess.run([STICHBOT, "export", "--running", "--store",
                           store], capture_output=True, text=True,
                          timeout=30, user=user)


def test_store(tmp):
    env = dict(os.environ, XDG_STATE_HOME=tmp)
    store = os.path.join(tmp, "play.db")
    first = start_play(store, env)
    read_until(first, "(private)")
    # The same store while the first play holds it: refused, nothing said.
    play_refused(store, env, first.pid)
    leave(first)
    # While `stichbot run` holds it (its one network's port is closed: it
    # only tries to connect): the same refusal, naming run's pid.
    config = os.path.join(tmp, "run.json")
    with open(config, "w") as f:
        json.dump({"store": store, "networks": [{
            "name": "t", "type": "irc", "host": "127.0.0.1",
            "port": free_port(), "tls": False, "nick": "stichbot",
            "channels": ["#t"]}]}, f)
    bot = subprocess.Popen([STICHBOT, "run", "--config", config],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    try:
        log = ""
        while "started:" not in log:
            line = bot.stderr.readline()
            assert line != "", "run exited: " + log
            log += line
        play_refused(store, env, bot.pid)
    finally:
        bot.send_signal(signal.SIGTERM)
        rest = bot.communicate(timeout=30)[1]
    assert bot.returncode == 0, (bot.returncode, log + rest)
    # Free again: the game resumes.
    second = start_play(store, env)
    read_until(second, "unfinished game from last time")
    leave(second)
    assert not os.path.exists(store + "-wal"), os.listdir(tmp)
    want = export(store, None)
    assert want.returncode == 0 and want.stdout.count("\n") == 1, want

    # Root writes anything: the read-only copies are read as nobody.
    user = 65534 if os.geteuid() == 0 else None
    os.chmod(tmp, 0o711)
    for name, file_mode, dir_mode in (("ro-file", 0o444, 0o755),
                                      ("ro-dir", 0o444, 0o555)):
        directory = os.path.join(tmp, name)
        os.mkdir(directory)
        copy = os.path.join(directory, "stichbot.db")
        shutil.copyfile(store, copy)
        os.chmod(copy, file_mode)
        if user is not None:
            os.chown(copy, user, -1)
            os.chown(directory, user, -1)
        os.chmod(directory, dir_mode)
        before = snapshot(directory)
        got = export(copy, user)
        assert got.returncode == 0, (name, got.stderr)
        assert got.stdout == want.stdout, (name, got.stdout[:200])
        assert snapshot(directory) == before, (name, os.listdir(directory))
        os.chmod(directory, 0o755)
    # Beside a live writer (its -wal and -shm there): read through them,
    # and when they are unreadable, said so.
    directory = os.path.join(tmp, "live")
    os.mkdir(directory)
    copy = os.path.join(directory, "stichbot.db")
    shutil.copyfile(store, copy)
    os.chmod(copy, 0o644)
    writer = sqlite3.connect(copy)
    try:
        writer.execute("INSERT INTO kv (key, value) VALUES ('k', 'v')")
        writer.commit()
        for mode in (0o644, 0o000):
            for suffix in ("-wal", "-shm"):
                os.chmod(copy + suffix, mode)
            got = export(copy, user)
            if mode:
                assert got.returncode == 0, got.stderr
                assert got.stdout == want.stdout, got.stdout[:200]
            else:
                assert got.returncode == 2 and "%s-wal: Permission denied;" \
                    " a reader needs the -wal and -shm files too" % copy \
                    in got.stderr, got.stderr
    finally:
        for suffix in ("-wal", "-shm"):
            os.chmod(copy + suffix, 0o600)
        writer.close()
    # An empty file is no store: refused, and no schema is written in it.
    empty = os.path.join(tmp, "empty.db")
    open(empty, "w").close()
    got = export(empty, None)
    assert got.returncode == 2 and "no schema" in got.stderr, got
    assert os.path.getsize(empty) == 0 and os.listdir(tmp).count(
        "empty.db-wal") == 0, os.listdir(tmp)


def test_options_as_asked(tmp):
    """A fresh start plays the options of its command line, whatever the
    last game in the store had (a lobby opened after a game has that
    game's options, and a bare name toggles: before, --option notequal
    after a notequal game turned it off, and --option evenbid, refused
    beside the kept notequal, let the game start without it)."""
    store = os.path.join(tmp, "options.db")
    played = []
    for options in (["notequal", "rounds=2"], ["notequal", "rounds=2"],
                    ["evenbid", "rounds=2"], ["rounds=2"]):
        text = play("wizard", 3, options, store=store)
        assert "Game over" in text and "Refused" not in text, text[-2000:]
        out = subprocess.run([STICHBOT, "export", "--store", store],
                             capture_output=True, text=True, timeout=30)
        played.append(json.loads(out.stdout.splitlines()[-1])["options"])
    assert played == [{"notequal": True, "rounds": 2},
                      {"notequal": True, "rounds": 2},
                      {"evenbid": True, "rounds": 2},
                      {"rounds": 2}], played
    # A seat taken over (as !replace leaves it: the seat's name is its
    # new holder's): the record keeps the names as the game began, and
    # names who holds each seat now as "seated"; the others have none.
    db = sqlite3.connect(store)
    last = db.execute("SELECT max(id) FROM games").fetchone()[0]
    db.execute("UPDATE seats SET name = 'dan' WHERE game_id = ? AND "
               "seat = 1", (last,))
    db.commit()
    db.close()
    out = subprocess.run([STICHBOT, "export", "--store", store],
                         capture_output=True, text=True, timeout=30)
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert all("seated" not in r for r in records[:-1]), records[:-1]
    last = records[-1]
    assert list(last)[-1] == "seated" and last["seated"] == [
        last["players"][0], "dan", last["players"][2]] and \
        last["players"][1] != "dan", last
    replayed = subprocess.run([STICHBOT, "replay"], input=json.dumps(last),
                              capture_output=True, text=True, timeout=30)
    assert replayed.returncode == 0, replayed.stdout


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
    tmp = tempfile.mkdtemp(prefix="play_test.")
    try:
        test_store(tmp)
        test_options_as_asked(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("play_test: ok")


main()

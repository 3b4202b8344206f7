#!/usr/bin/env python3
"""The store's faults through `stichbot run` on the test homeserver
(tests/matrix_homeserver.py), with scripted players
(tests/matrix_players.py).

    store_faults_test.py STICHBOT

1. A damaged game: two Wizard games run in rooms A and B; the bot is
   stopped and one action of A's game is made unreadable JSON with
   sqlite3.  Started again, the bot starts (READY=1), B's game resumes and
   goes on, A's does not; the log names A's game as damaged and set aside,
   and `stichbot export --damaged` gives its rows as they are.  A lobby
   that cannot be read is logged, and does not stop the start either.
2. The store deleted while the bot runs: the next move is refused ("could
   not save"), the log says the store file was deleted, the bot lives on,
   and nothing more reaches the file (kept through a hard link).
3. A full disk: the store on a small tmpfs (root only; skipped with a
   note elsewhere), filled up while a game runs.  The move is refused,
   the log says the disk is full, the bot lives on; once there is room
   again, a new game is stored.
4. A file size limit (RLIMIT_FSIZE, `ulimit -f`) reached while a game
   runs: the bot ignores SIGXFSZ, so the write fails with EFBIG and is
   handled as on a full disk: the move is refused, the log says the limit
   was reached, the bot lives on; with the limit raised, a new game is
   stored and the outbox empties (sent rows whose deletion a refused
   commit took with it are deleted by the next one).
5. A read-only store file: `stichbot run` exits 1 saying so, before it
   says anything to the homeserver.

Loopback only; bounded by timeouts.
"""

import errno
import hashlib
import os
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matrix_players  # noqa: E402
from matrix_players import (BOT, Failure, World, check,  # noqa: E402
                            drive, wait_until)

STORE_FAILED = "could not save"
# Once the store is gone for good, every running table hears this once.
STORE_LOST = "I can no longer save games"
NOT_SAVED_LOST = "I cannot save games any more"
SAVE_AGAIN = "as soon as I can save again"


class Manager:
    """The service manager's end of $NOTIFY_SOCKET (READY=1 only)."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "notify")
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def wait_ready(self, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                if self.sock.recv(4096) == b"READY=1":
                    return
            except socket.timeout:
                break
        raise Failure("no READY=1 from the bot")

    def close(self):
        self.sock.close()


def commands(people):
    return sum(len(p.sent) for p in people)


def bot_said(world, needle):
    """Whether the bot said needle anywhere (rooms and direct rooms)."""
    return times_said(world, needle) > 0


def times_said(world, needle):
    """How many of the bot's lines, anywhere, hold needle."""
    with world.state.cond:
        rooms = list(world.state.rooms)
    return sum(needle in line for r in rooms for line in world.bot_lines(r))


def open_table(world, alias, people):
    """A room made by the first person, everyone in it, the bot too."""
    room_id = people[0].client.create_room(
        preset="public_chat", room_alias_name=alias[1:].split(":")[0])
    for p in people[1:]:
        p.client.join(room_id)
    return room_id


def start_wizard(world, room_id, alias, people):
    wait_until(lambda: world.state.rooms[room_id].membership(BOT) ==
               "join", 20, "the bot in " + alias)
    lines = len(world.bot_lines(room_id))
    people[0].say(room_id, "!game wizard")
    for p in people:
        p.say(room_id, "!join")
    world.wait_bot_line(room_id, "(%d seated" % len(people), after=lines)
    people[0].say(room_id, "!start")
    for p in people:
        p.sit(alias, room_id, "wizard", "wizard-" + alias)


def game_ids(store):
    """{channel: [game id, ...]} of the running games, read with sqlite3."""
    db = sqlite3.connect(store)
    try:
        rows = db.execute("SELECT channel, id FROM games WHERE finished = 0"
                          " ORDER BY id").fetchall()
    finally:
        db.close()
    out = {}
    for channel, gid in rows:
        out.setdefault(channel, []).append(gid)
    return out


def count_actions(store, gid):
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT count(*) FROM actions WHERE game_id = ?",
                          (gid,)).fetchone()[0]
    finally:
        db.close()


def outbox_rows(store):
    db = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    try:
        return db.execute("SELECT count(*) FROM outbox").fetchone()[0]
    finally:
        db.close()


def games_stored(store):
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT count(*) FROM games").fetchone()[0]
    finally:
        db.close()


def people3(world, seed):
    return [world.person("alice", "Alice", seed),
            world.person("bob", "Bob", seed + 1),
            world.person("carol", "Carol", seed + 2)]


def test_damaged(world, manager):
    """One unreadable action: that game is set aside, the other resumes."""
    room_a, room_b = "#dmg-a:localhost", "#dmg-b:localhost"
    people = people3(world, 31)
    a = open_table(world, room_a, people)
    b = open_table(world, room_b, people)
    env = {"NOTIFY_SOCKET": manager.path}
    world.write_config(world.config([room_a, room_b]))
    bot = world.run_bot(env)
    manager.wait_ready()
    start_wizard(world, a, room_a, people)
    start_wizard(world, b, room_b, people)
    drive(world, people, lambda: commands(people) >= 14, 60,
          "moves in both games")
    check(bot.terminate() == 0, "SIGTERM: exit status")
    ids = game_ids(world.store)
    check(len(ids.get(room_a, [])) == 1 and len(ids.get(room_b, [])) == 1,
          "running games: %r" % ids)
    ga, gb = ids[room_a][0], ids[room_b][0]
    check(count_actions(world.store, ga) >= 2 and
          count_actions(world.store, gb) >= 2, "too few actions stored")
    db = sqlite3.connect(world.store)
    db.execute("UPDATE actions SET action = '{\"seat\": 0, \"play' WHERE"
                " game_id = ? AND idx = 1", (ga,))
    # A lobby that cannot be read must not stop the start either.
    db.execute("INSERT INTO lobbies (network, channel, lobby) VALUES"
               " ('mx', '#dmg-c:localhost', '{\"game\": ')")
    db.commit()
    db.close()

    lines_a = len(world.bot_lines(a))
    lines_b = len(world.bot_lines(b))
    bot = world.run_bot(env)
    manager.wait_ready()
    world.wait_bot_line(b, "The game resumes", after=lines_b)
    time.sleep(1.0)
    check(bot.alive(), "the bot exited because of one damaged game")
    check(not any("The game resumes" in x for x in
                  world.bot_lines(a)[lines_a:]),
          "the damaged game resumed")
    log = world.bot_log()
    check("store: game %d (mx %s): action 1 is damaged" % (ga, room_a)
          in log, "the log does not name the damaged game:\n" + log[-3000:])
    check("store: game %d (mx %s): set aside" % (ga, room_a) in log,
          "the log does not say the game was set aside")
    check("mx #dmg-c:localhost: the stored lobby cannot be restored" in log,
          "the damaged lobby is not logged")
    # B's game goes on.
    before = commands(people)
    drive(world, people, lambda: commands(people) >= before + 4, 60,
          "moves in the resumed game")
    raw = world.export("--damaged")
    check(len(raw) == 1 and raw[0]["id"] == ga and
          raw[0]["actions"][1] == '{"seat": 0, "play' and
          "action 1 is damaged" in raw[0]["damaged"],
          "export --damaged: %r" % raw)
    check(bot.terminate() == 0, "SIGTERM: exit status")
    # Set aside for good: not restored, nor logged, at the next start.
    ids = game_ids(world.store)
    check(ga in ids.get(room_a, []), "the damaged game's row is gone")
    print("  game %d set aside, game %d resumed and went on" % (ga, gb))


def test_deleted(world, manager):
    """The store file deleted under the running bot."""
    room_a = "#del-a:localhost"
    people = people3(world, 41)
    a = open_table(world, room_a, people)
    env = {"NOTIFY_SOCKET": manager.path}
    world.write_config(world.config([room_a]))
    bot = world.run_bot(env)
    manager.wait_ready()
    start_wizard(world, a, room_a, people)
    drive(world, people, lambda: commands(people) >= 5, 60, "a few moves")
    time.sleep(0.5)
    gid = game_ids(world.store)[room_a][0]
    stored = count_actions(world.store, gid)
    # Hard links keep the deleted files readable for the check below.
    kept = os.path.join(world.dir, "kept.db")
    os.link(world.store, kept)
    os.link(world.store + "-wal", kept + "-wal")
    os.unlink(world.store)
    drive(world, people, lambda: bot_said(world, STORE_LOST), 60,
          "the table told that games cannot be saved")
    wait_until(lambda: "the store file was deleted" in world.bot_log(), 20,
               "the log line")
    # A move typed now is refused (and nothing moves); the table hears
    # of the loss only once.
    drive(world, people, lambda: bot_said(world, STORE_FAILED), 60,
          "the refusal of a move")
    check(sum(STORE_LOST in x for x in world.bot_lines(a)) == 1,
          "the store's loss told more than once")
    # Never "as soon as I can save again" beside it; the refused move is
    # told what the loss means.
    check(not any(SAVE_AGAIN in x for x in world.bot_lines(a)),
          "the table told both that the game goes on and that it waits")
    check(bot_said(world, NOT_SAVED_LOST), "the refused move was not told "
          "that games cannot be saved any more")
    check(bot.alive(), "the bot died")
    log = world.bot_log()
    check("store: game %d (mx %s): not stored: the store file was deleted"
          % (gid, room_a) in log, "the refused write does not name the "
          "game:\n" + log[-3000:])
    check(bot.terminate() == 0, "SIGTERM: exit status")
    # The goodbye promises no resume the store cannot give (before: "this
    # game resumes as soon as I am back", and after the restart nothing).
    said = world.bot_lines(a)
    check(any("it goes on only once my operator has repaired the store"
              in x for x in said) and
          not any("resumes as soon as I am back" in x for x in said),
          "the goodbye after the store's loss: %r" % said[-2:])
    # The deleted file and its WAL hold the actions from before the
    # deletion, and not one more.
    check(count_actions(kept, gid) == stored, "actions stored after the "
          "deletion: %d, before %d" % (count_actions(kept, gid), stored))
    # Started again, the bot says it made a new, empty store.
    bot = world.run_bot(env)
    manager.wait_ready()
    wait_until(lambda: "did not exist: a new, empty store was made" in
               world.bot_log(), 20, "the new store logged")
    check(bot.terminate() == 0, "SIGTERM: exit status")
    print("  deleted after %d actions; the next move was refused, nothing "
          "more stored; the goodbye promised no resume" % stored)


def mount_tmpfs(path, size):
    os.makedirs(path)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size,
                           "tmpfs", path], capture_output=True, text=True)
    return proc.returncode == 0


def fill(directory):
    """Fills the file system of directory; returns the filler's path."""
    path = os.path.join(directory, "filler")
    block = b"\0" * 4096
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                f.write(block)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                break
    return path


def test_full_disk(world, manager):
    """The store on a tmpfs that fills up while a game runs."""
    fs = os.path.join(world.dir, "fs")
    if os.geteuid() != 0 or not mount_tmpfs(fs, "2m"):
        print("  skip: cannot mount a tmpfs here (not root); the full disk "
              "is not tested")
        return
    try:
        room_a = "#full-a:localhost"
        people = people3(world, 51)
        a = open_table(world, room_a, people)
        env = {"NOTIFY_SOCKET": manager.path}
        world.store = os.path.join(fs, "stichbot.db")
        world.write_config(world.config([room_a]))
        bot = world.run_bot(env)
        manager.wait_ready()
        start_wizard(world, a, room_a, people)
        drive(world, people, lambda: commands(people) >= 4, 60,
              "a few moves")
        time.sleep(0.5)
        filler = fill(fs)
        drive(world, people, lambda: bot_said(world, STORE_FAILED), 60,
              "the refusal of a move on a full disk")
        # The table hears it once; each later refused change is told to
        # whoever asked for it (here a seat given up, twice).
        told = times_said(world, STORE_FAILED)
        for _ in range(2):
            people[0].say(a, "!leave")
        wait_until(lambda: times_said(world, STORE_FAILED) >= told + 2, 20,
                   "each later refusal told why")
        check(sum(STORE_FAILED in x for x in world.bot_lines(a)) == 1,
              "the table told more than once")
        check(bot.alive(), "the bot died of a full disk")
        wait_until(lambda: "database or disk is full" in world.bot_log(),
                   10, "the full disk in the log")
        # Said once for the run of refusals, not once per refused write.
        check(world.bot_log().count("database or disk is full") == 1 and
              world.bot_log().count("were not stored") == 1,
              "the full disk logged per refusal:\n" +
              world.bot_log()[-2000:])
        # Room again: the store was not failed, a new game is stored.
        os.unlink(filler)
        before = games_stored(world.store)
        lines = len(world.bot_lines(a))
        for p in people:
            p.say(a, "!stop")
        world.wait_bot_line(a, "The game is stopped.", after=lines)
        lines = len(world.bot_lines(a))
        people[0].say(a, "!game wizard")
        for p in people:
            p.say(a, "!join")
        world.wait_bot_line(a, "(3 seated", after=lines)
        people[0].say(a, "!start")
        wait_until(lambda: games_stored(world.store) > before, 20,
                   "a new game stored")
        # Said once writes have been stored for 30 s with none refused.
        drive(world, people, lambda: "writes are stored again, after" in
              world.bot_log(), 90, "the end of the full disk in the log")
        check(bot.alive(), "the bot died")
        check(bot.terminate() == 0, "SIGTERM: exit status")
        print("  full disk: move refused (logged once), bot alive; room "
              "again: stored, and logged")
    finally:
        subprocess.run(["umount", "-l", fs])


def test_file_size(world, manager):
    """RLIMIT_FSIZE reached while a game runs: as a full disk, no death."""
    room_a = "#fsize-a:localhost"
    people = people3(world, 61)
    a = open_table(world, room_a, people)
    env = {"NOTIFY_SOCKET": manager.path}
    config = world.config([room_a])
    # The limit holds for the log too: info keeps it short.
    config["log_level"] = "info"
    world.write_config(config)
    bot = world.run_bot(env)
    manager.wait_ready()
    start_wizard(world, a, room_a, people)
    drive(world, people, lambda: commands(people) >= 4, 60, "a few moves")
    time.sleep(0.5)
    # A soft limit just above the files as they are: the WAL grows by a
    # few pages a move, and reaches it within a few moves.  The soft limit
    # alone, so that it can be raised again without privileges.
    limit = max(os.path.getsize(world.store + "-wal"),
                os.path.getsize(world.log_path)) + 48 * 1024
    resource.prlimit(bot.proc.pid, resource.RLIMIT_FSIZE,
                     (limit, resource.RLIM_INFINITY))
    drive(world, people, lambda: bot_said(world, STORE_FAILED), 60,
          "the refusal of a move past the file size limit")
    check(bot.alive(), "the bot died at the file size limit (exit %r)"
          % bot.proc.poll())
    wait_until(lambda: "the store reached the file size limit" in
               world.bot_log(), 10, "the file size limit in the log")
    # More refused changes (a seat given up, twice): each is told to
    # whoever asked, while the log says it once for the run.
    told = times_said(world, STORE_FAILED)
    for _ in range(2):
        people[0].say(a, "!leave")
    wait_until(lambda: times_said(world, STORE_FAILED) >= told + 2, 20,
               "each later refusal told why")
    check(world.bot_log().count("the store reached the file size limit")
          == 1, "the file size limit logged per refusal:\n" +
          world.bot_log()[-2000:])
    check("nothing more is stored until a restart" not in world.bot_log(),
          "the file size limit failed the store:\n" +
          world.bot_log()[-2000:])
    # The limit raised: the store was not failed, a new game is stored.
    resource.prlimit(bot.proc.pid, resource.RLIMIT_FSIZE,
                     (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    before = games_stored(world.store)
    lines = len(world.bot_lines(a))
    for p in people:
        p.say(a, "!stop")
    world.wait_bot_line(a, "The game is stopped.", after=lines)
    lines = len(world.bot_lines(a))
    people[0].say(a, "!game wizard")
    for p in people:
        p.say(a, "!join")
    world.wait_bot_line(a, "(3 seated", after=lines)
    people[0].say(a, "!start")
    wait_until(lambda: games_stored(world.store) > before, 20,
               "a new game stored")
    # Every row sent is forgotten, also those whose deletion a refused
    # commit took with it: a restart must not say them again.
    wait_until(lambda: outbox_rows(world.store) == 0, 20,
               "an empty outbox")
    # Said once writes have been stored for 30 s with none refused.
    drive(world, people, lambda: "writes are stored again, after" in
          world.bot_log(), 90, "the end of the refusals in the log")
    check(bot.alive(), "the bot died")
    check(bot.terminate() == 0, "SIGTERM: exit status")
    print("  file size limit %d: move refused, bot alive; limit raised: "
          "stored, outbox empty" % limit)


def test_read_only(world, manager):
    """A read-only store: exit 1 with the reason, nothing said."""
    env = {"NOTIFY_SOCKET": manager.path}
    world.write_config(world.config(["#ro:localhost"]))
    bot = world.run_bot(env)
    manager.wait_ready()
    check(bot.terminate() == 0, "SIGTERM: exit status")
    os.chmod(world.store, 0o444)
    user = None
    if os.geteuid() == 0:
        # Root writes read-only files: run as nobody, who owns it all.
        user = 65534
        for root, dirs, files in os.walk(world.dir):
            for name in dirs + files:
                os.chown(os.path.join(root, name), user, -1)
        os.chown(world.dir, user, -1)
    with world.state.cond:
        since = len(world.state.requests)
        logins = len(world.state.logins)
    proc = subprocess.run([world.stichbot, "run", "--config",
                           world.config_path], capture_output=True,
                          text=True, timeout=30, user=user,
                          env=dict(os.environ, **env))
    check(proc.returncode == 1 and "it is read-only" in proc.stderr,
          "a read-only store: exit %d, %r" % (proc.returncode, proc.stderr))
    with world.state.cond:
        check(len(world.state.logins) == logins and not any(
            r[2] is None for r in world.state.requests[since:]),
              "the bot talked to the homeserver")
    print("  read-only store refused: %s" % proc.stderr.strip()[-90:])


def main():
    if len(sys.argv) != 2:
        print("usage: store_faults_test.py STICHBOT", file=sys.stderr)
        return 2
    stichbot = os.path.abspath(sys.argv[1])
    status = 0
    for test in (test_damaged, test_deleted, test_full_disk,
                 test_file_size, test_read_only):
        directory = tempfile.mkdtemp(prefix="stichbot-faults-")
        world = World(stichbot, directory)
        manager = Manager(directory)
        start = time.monotonic()
        try:
            test(world, manager)
            print("ok   %s (%.1f s)" % (test.__name__,
                                        time.monotonic() - start))
        except Exception:
            status = 1
            print("FAIL %s (%.1f s)" % (test.__name__,
                                        time.monotonic() - start))
            traceback.print_exc()
            print("--- the players ---")
            print(world.describe())
            print("--- stichbot log (last 60 lines) ---")
            print("\n".join(world.bot_log().splitlines()[-60:]))
        finally:
            manager.close()
            world.close()
            shutil.rmtree(directory, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

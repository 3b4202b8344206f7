#!/usr/bin/env python3
"""`stichbot run` as systemd runs it, on the test Matrix homeserver
(tests/matrix_homeserver.py; the in-memory adapter is for code only, and a
configuration file that names it is refused).

A datagram socket stands in for the service manager ($NOTIFY_SOCKET):
the bot must report READY=1 once started, send watchdog keep-alives within
the interval ($WATCHDOG_USEC), announce a reload on SIGHUP (RELOADING=1
with MONOTONIC_USEC, then READY=1) whether the new file is good or broken
(a broken one is logged and the running configuration kept), and stop
cleanly with exit status 0 on SIGTERM and SIGINT (STOPPING=1).  Start-up
errors exit 1 with the reason, wrong arguments exit 2.

One process per store: a second `stichbot run` on the store of a running
one exits 1 naming the first one's pid, before it says anything to any
server.  A reload is all or nothing: a file whose last network cannot be
applied (its type changes) leaves every network and room as it was.

STICHBOT_WRAPPER (e.g. "valgrind --log-file=... --error-exitcode=99")
is put in front of every `stichbot run` command line (tools/valgrind.sh).

usage: run_test.py STICHBOT
"""
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from matrix_homeserver import Homeserver  # noqa: E402

TIMEOUT = 15
WRAPPER = shlex.split(os.environ.get("STICHBOT_WRAPPER", ""))
BOT = "@bot:localhost"
PASSWORD = "bot-secret-run-7c2"
# The homeserver of the whole run, started by main().
HS = None


def expect(cond, message):
    if not cond:
        print("FAIL: " + message)
        sys.exit(1)


def matrix_network(directory, channels, name="mx"):
    password_file = os.path.join(directory, "matrix-password")
    with open(password_file, "w", encoding="utf-8") as f:
        f.write(PASSWORD + "\n")
    return {"name": name, "type": "matrix", "homeserver": HS.url,
            "user_id": BOT, "password_file": password_file,
            "sync_timeout_ms": 2000, "channels": channels}


def write_config(path, store, channels, extra=None, networks=None):
    """A configuration with one Matrix network (or networks) in rooms
    channels; the secret sits beside it."""
    config = {
        "store": store,
        "log_level": "debug",
        "networks": networks or [matrix_network(os.path.dirname(path),
                                                channels)],
    }
    config.update(extra or {})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f)


def room(alias):
    """A public room with alias #alias:localhost, made by someone."""
    HS.state.register("owner", "secret", "Owner")
    r = HS.state.create_room("@owner:localhost", {
        "preset": "public_chat", "room_alias_name": alias})
    return r.room_id


def wait_until(predicate, what, timeout=TIMEOUT):
    end = time.monotonic() + timeout
    while not predicate():
        expect(time.monotonic() < end, "timed out waiting for " + what)
        time.sleep(0.05)


class Manager:
    """The service manager's end of the notification socket."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.seen = []

    def wait_for(self, predicate, what):
        """Receives messages until one satisfies predicate; returns it."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                message = self.sock.recv(4096).decode()
            except socket.timeout:
                break
            self.seen.append(message)
            if predicate(message):
                return message
        expect(False, "no %s from the bot; got %r" % (what, self.seen))
        return None

    def close(self):
        self.sock.close()


def run_bot(stichbot, args, env, stderr):
    return subprocess.Popen(WRAPPER + [stichbot, "run"] + args, env=env,
                            stdout=subprocess.DEVNULL, stderr=stderr)


def check_arguments(stichbot, tmp):
    def status(args):
        proc = subprocess.run(WRAPPER + [stichbot, "run"] + args,
                              capture_output=True, text=True,
                              timeout=TIMEOUT)
        return proc.returncode, proc.stdout, proc.stderr

    rc, out, err = status([])
    expect(rc == 2 and "--config FILE is required" in err,
           "no --config: got %d %r" % (rc, err))
    rc, out, err = status(["--help"])
    expect(rc == 0 and "usage: stichbot run" in out, "--help")
    rc, out, err = status(["--config", "x.json", "--log-level", "loud"])
    expect(rc == 2 and "--log-level takes" in err,
           "bad --log-level: got %d %r" % (rc, err))
    rc, out, err = status(["--bogus"])
    expect(rc == 2, "unknown argument: got %d" % rc)

    bad = os.path.join(tmp, "bad.json")
    write_config(bad, os.path.join(tmp, "s.db"), ["#a"], {"grace": -1})
    rc, out, err = status(["--config", bad])
    expect(rc == 1 and err.strip() == "stichbot run: %s: grace: expected "
           "an integer 0-3600" % bad, "bad config: got %d %r" % (rc, err))

    # A network's key refused by its adapter: no store is made (before,
    # a new, empty one was, and the log said so, before the refusal).
    keys = os.path.join(tmp, "keys.json")
    net = matrix_network(tmp, ["#a:localhost"])
    net["sync_timeout_ms"] = "soon"
    write_config(keys, os.path.join(tmp, "keys.db"), [], networks=[net])
    rc, out, err = status(["--config", keys])
    expect(rc == 1 and "networks[0].sync_timeout_ms" in err and
           "store" not in err and
           not os.path.exists(os.path.join(tmp, "keys.db")),
           "a refused network key: got %d %r, store made: %s" % (
               rc, err, os.path.exists(os.path.join(tmp, "keys.db"))))

    nostore = os.path.join(tmp, "nostore.json")
    write_config(nostore, os.path.join(tmp, "no", "such", "dir", "s.db"),
                 ["#a:localhost"])
    rc, out, err = status(["--config", nostore])
    expect(rc == 1 and "cannot open the store" in err.lower(),
           "store in a missing directory: got %d %r" % (rc, err))

    # The test adapters are not for configuration files.
    memory = os.path.join(tmp, "memory.json")
    write_config(memory, os.path.join(tmp, "s.db"), [], networks=[
        {"name": "mem", "type": "memory", "channels": ["#a"]}])
    want = ('networks[0].type: "memory" is for tests and the terminal '
            'only, not for a configuration (use one of "matrix", "irc")')
    rc, out, err = status(["--config", memory])
    expect(rc == 1 and want in err, "run with the memory adapter: got "
           "%d %r" % (rc, err))
    proc = subprocess.run([stichbot, "check-config", memory],
                          capture_output=True, text=True, timeout=TIMEOUT)
    expect(proc.returncode == 1 and want in proc.stderr,
           "check-config with the memory adapter: got %d %r" % (
               proc.returncode, proc.stderr))


def check_service(stichbot, tmp):
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    store = os.path.join(tmp, "stichbot.db")
    write_config(config, store, ["#a:localhost"])
    env = dict(os.environ, NOTIFY_SOCKET=manager.path,
               WATCHDOG_USEC="400000", WATCHDOG_PID=str(os.getpid()))
    log_path = os.path.join(tmp, "run.log")
    # WATCHDOG_PID names the test, not the bot: no keep-alives expected.
    with open(log_path, "w") as log:
        bot = run_bot(stichbot, ["--config", config], env, log)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1")
        expect(os.path.exists(store), "the store was not created")

        write_config(config, store, ["#a:localhost", "#b:localhost"])
        bot.send_signal(signal.SIGHUP)
        reloading = manager.wait_for(lambda m: m.startswith("RELOADING=1"),
                                     "RELOADING=1")
        expect("\nMONOTONIC_USEC=" in reloading,
               "RELOADING=1 without MONOTONIC_USEC: %r" % reloading)
        manager.wait_for(lambda m: m == "READY=1", "READY=1 after a reload")

        with open(config, "w", encoding="utf-8") as f:
            f.write('{"networks": [\n')
        bot.send_signal(signal.SIGHUP)
        manager.wait_for(lambda m: m.startswith("RELOADING=1"),
                         "RELOADING=1 for a broken file")
        manager.wait_for(lambda m: m == "READY=1",
                         "READY=1 after a failed reload")
        expect(bot.poll() is None, "the bot died of a broken reload")

        bot.send_signal(signal.SIGTERM)
        manager.wait_for(lambda m: m == "STOPPING=1", "STOPPING=1")
        rc = bot.wait(timeout=TIMEOUT)
        expect(rc == 0, "SIGTERM: exit status %d" % rc)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    expect("WATCHDOG=1" not in manager.seen,
           "keep-alives for a watchdog meant for another process")
    with open(log_path, encoding="utf-8") as f:
        log = f.read()
    expect("reloaded %s" % config in log, "no reload in the log:\n" + log)
    expect("reload failed, keeping the running configuration: %s:2:0: "
           % config in log, "the failed reload is not logged:\n" + log)
    # The last line: after the store's last writes, which may fail.
    expect(log.rstrip("\n").splitlines()[-1].endswith("info: stopped"),
           "no clean stop at the end of the log:\n" + log)
    manager.close()


def check_watchdog_and_sigint(stichbot, tmp):
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    write_config(config, os.path.join(tmp, "stichbot.db"), ["#a:localhost"])
    env = dict(os.environ, NOTIFY_SOCKET=manager.path,
               WATCHDOG_USEC="400000")
    env.pop("WATCHDOG_PID", None)
    bot = run_bot(stichbot, ["--config", config, "--log-level", "error"],
                  env, subprocess.DEVNULL)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1")
        # Keep-alives come every 200 ms: three arrive well within 2 s.
        start = time.monotonic()
        for _ in range(3):
            manager.wait_for(lambda m: m == "WATCHDOG=1", "WATCHDOG=1")
        expect(time.monotonic() - start < 2.0, "keep-alives too slow")
        # The status is sent when it changes, not with every keep-alive.
        statuses = [m for m in manager.seen if m.startswith("STATUS=")]
        expect(len(statuses) == 1, "STATUS= sent %d times, nothing "
               "changed: %r" % (len(statuses), statuses))
        bot.send_signal(signal.SIGINT)
        manager.wait_for(lambda m: m == "STOPPING=1", "STOPPING=1")
        rc = bot.wait(timeout=TIMEOUT)
        expect(rc == 0, "SIGINT: exit status %d" % rc)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    manager.close()


def check_one_process(stichbot, tmp):
    """A second bot on the same store exits 1 naming the first one's pid,
    before it says anything to any network."""
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    store = os.path.join(tmp, "stichbot.db")
    write_config(config, store, ["#a:localhost"])
    # The second bot's configuration is the same but for its homeserver: a
    # listener of this test's own that nothing else knows, so any
    # connection it ever gets came from the second bot (the first one may
    # log in again whenever it likes, however slowly it runs).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    second_config = os.path.join(tmp, "second.json")
    with open(config, encoding="utf-8") as f:
        second = json.load(f)
    second["networks"][0]["homeserver"] = "http://127.0.0.1:%d" % (
        listener.getsockname()[1])
    with open(second_config, "w", encoding="utf-8") as f:
        json.dump(second, f)
    env = dict(os.environ, NOTIFY_SOCKET=manager.path)
    log_path = os.path.join(tmp, "first.log")
    with open(log_path, "w") as log:
        first = run_bot(stichbot, ["--config", config], env, log)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1")
        wait_until(lambda: HS.state.logins, "the first bot's login")
        # The second one has its own service manager, which must hear
        # nothing either.
        os.mkdir(os.path.join(tmp, "second"))
        second_manager = Manager(os.path.join(tmp, "second"))
        second_env = dict(os.environ, NOTIFY_SOCKET=second_manager.path)
        proc = subprocess.run(WRAPPER + [stichbot, "run", "--config",
                                         second_config],
                              capture_output=True, text=True,
                              timeout=TIMEOUT, env=second_env)
        expect(proc.returncode == 1, "the second bot: exit %d, %r" % (
            proc.returncode, proc.stderr))
        expect("another stichbot (pid %d) is using it" % first.pid
               in proc.stderr and store in proc.stderr,
               "the second bot does not name the first one's pid: %r"
               % proc.stderr)
        # It has exited: a connection it opened would wait in the backlog.
        try:
            conn, _ = listener.accept()
            conn.close()
            expect(False, "the second bot connected to its homeserver")
        except BlockingIOError:
            pass
        listener.close()
        second_manager.sock.settimeout(0.2)
        try:
            message = second_manager.sock.recv(4096)
        except socket.timeout:
            message = None
        expect(message is None, "the second bot notified %r" % message)
        second_manager.close()
        expect(first.poll() is None, "the first bot died")
        # Readers are not locked out.
        proc = subprocess.run([stichbot, "export", "--store", store,
                               "--running"], capture_output=True,
                              text=True, timeout=TIMEOUT)
        expect(proc.returncode == 0, "export beside the bot: %d %r" % (
            proc.returncode, proc.stderr))
        # A game asked for by id and not there is said so (before: no
        # output, exit status 0).
        proc = subprocess.run([stichbot, "export", "--store", store,
                               "--game", "99"], capture_output=True,
                              text=True, timeout=TIMEOUT)
        expect(proc.returncode == 1 and proc.stdout == "" and
               "no game 99 that ended" in proc.stderr,
               "export --game 99: %d %r" % (proc.returncode, proc.stderr))
        first.send_signal(signal.SIGTERM)
        expect(first.wait(timeout=TIMEOUT) == 0, "SIGTERM: exit status")
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    manager.close()
    os.unlink(manager.path)
    # Once the first one is gone, the store is free again.
    manager = Manager(tmp)
    env = dict(os.environ, NOTIFY_SOCKET=manager.path)
    with open(log_path, "a") as log:
        again = run_bot(stichbot, ["--config", config], env, log)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1 after the "
                         "first one stopped")
        again.send_signal(signal.SIGTERM)
        expect(again.wait(timeout=TIMEOUT) == 0, "SIGTERM: exit status")
    finally:
        if again.poll() is None:
            again.kill()
            again.wait()
    manager.close()


def check_reload_atomic(stichbot, tmp):
    """A reload whose last network cannot be applied changes nothing: the
    new room is not joined, the new network does not log in, the error
    is logged, and the bot goes on as it was."""
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    store = os.path.join(tmp, "stichbot.db")
    room_a = room("atomic-a")
    room_b = room("atomic-b")
    first = matrix_network(tmp, ["#atomic-a:localhost"])
    write_config(config, store, None, networks=[first])
    env = dict(os.environ, NOTIFY_SOCKET=manager.path)
    log_path = os.path.join(tmp, "run.log")
    with open(log_path, "w") as log:
        bot = run_bot(stichbot, ["--config", config], env, log)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1")
        wait_until(lambda: HS.state.rooms[room_a].membership(BOT) ==
                   "join", "the bot in room A")
        with HS.state.cond:
            logins = len(HS.state.logins)
        # Room B added to mx, a new network mx2, and mx's type changed
        # last: check-config cannot see the type change, bot_configure
        # must refuse the whole file.
        changed = matrix_network(tmp, ["#atomic-a:localhost",
                                       "#atomic-b:localhost"])
        extra = matrix_network(tmp, ["#atomic-b:localhost"], name="mx2")
        write_config(config, store, None, networks=[
            extra, dict(changed, name="mx0"),
            {"name": "mx", "type": "irc", "host": "127.0.0.1",
             "port": 6667, "tls": False, "nick": "bot",
             "channels": ["#x"]}])
        mark = len(manager.seen)
        bot.send_signal(signal.SIGHUP)
        manager.wait_for(lambda m: m.startswith("RELOADING=1"),
                         "RELOADING=1")
        manager.wait_for(lambda m: m == "READY=1", "READY=1 after the "
                         "failed reload")
        expect(len(manager.seen) > mark, "no notification")
        time.sleep(1.0)
        with HS.state.cond:
            expect(len(HS.state.logins) == logins,
                   "a network of the refused file logged in")
        expect(HS.state.rooms[room_b].membership(BOT) is None,
               "the bot joined room B from a refused file")
        expect(HS.state.rooms[room_a].membership(BOT) == "join",
               "the bot left room A")
        expect(bot.poll() is None, "the bot died of a refused reload")
        # The same file without the type change is applied whole.
        write_config(config, store, None, networks=[changed])
        bot.send_signal(signal.SIGHUP)
        wait_until(lambda: HS.state.rooms[room_b].membership(BOT) ==
                   "join", "the bot in room B after a good reload")
        # Nothing of the refused file was kept to start now: its networks
        # mx2 and mx0 would log in.
        time.sleep(1.0)
        with HS.state.cond:
            expect(len(HS.state.logins) == logins, "networks of the "
                   "refused file started with the next reload")
        bot.send_signal(signal.SIGTERM)
        expect(bot.wait(timeout=TIMEOUT) == 0, "SIGTERM: exit status")
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    manager.close()
    with open(log_path, encoding="utf-8") as f:
        log = f.read()
    expect("reload failed, keeping the running configuration: %s: "
           "networks[2].type: a running network cannot change its type "
           "(\"mx\" is matrix)" % config in log,
           "the refused reload is not logged:\n" + log)


def main():
    global HS
    stichbot = sys.argv[1]
    HS = Homeserver().start()
    HS.state.register("bot", PASSWORD, "Stichbot")
    try:
        for check in (check_arguments, check_service,
                      check_watchdog_and_sigint, check_one_process,
                      check_reload_atomic):
            with tempfile.TemporaryDirectory(prefix="stichbot-run-") as tmp:
                check(stichbot, tmp)
    finally:
        HS.stop()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`stichbot run` as systemd runs it, with the in-memory adapter.

A datagram socket stands in for the service manager ($NOTIFY_SOCKET):
the bot must report READY=1 once started, send watchdog keep-alives within
the interval ($WATCHDOG_USEC), announce a reload on SIGHUP (RELOADING=1
with MONOTONIC_USEC, then READY=1) whether the new file is good or broken
(a broken one is logged and the running configuration kept), and stop
cleanly with exit status 0 on SIGTERM and SIGINT (STOPPING=1).  Start-up
errors exit 1 with the reason, wrong arguments exit 2.

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

TIMEOUT = 15
WRAPPER = shlex.split(os.environ.get("STICHBOT_WRAPPER", ""))


def expect(cond, message):
    if not cond:
        print("FAIL: " + message)
        sys.exit(1)


def write_config(path, store, channels, extra=None):
    config = {
        "store": store,
        "log_level": "debug",
        "networks": [{"name": "mem", "type": "memory",
                      "channels": channels}],
    }
    config.update(extra or {})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f)


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

    nostore = os.path.join(tmp, "nostore.json")
    write_config(nostore, os.path.join(tmp, "no", "such", "dir", "s.db"),
                 ["#a"])
    rc, out, err = status(["--config", nostore])
    expect(rc == 1 and "cannot open the store" in err,
           "store in a missing directory: got %d %r" % (rc, err))


def check_service(stichbot, tmp):
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    store = os.path.join(tmp, "stichbot.db")
    write_config(config, store, ["#a"])
    env = dict(os.environ, NOTIFY_SOCKET=manager.path,
               WATCHDOG_USEC="400000", WATCHDOG_PID=str(os.getpid()))
    log_path = os.path.join(tmp, "run.log")
    # WATCHDOG_PID names the test, not the bot: no keep-alives expected.
    with open(log_path, "w") as log:
        bot = run_bot(stichbot, ["--config", config], env, log)
    try:
        manager.wait_for(lambda m: m == "READY=1", "READY=1")
        expect(os.path.exists(store), "the store was not created")

        write_config(config, store, ["#a", "#b"])
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
    expect("stopped" in log, "no clean stop in the log:\n" + log)
    manager.close()


def check_watchdog_and_sigint(stichbot, tmp):
    manager = Manager(tmp)
    config = os.path.join(tmp, "stichbot.json")
    write_config(config, os.path.join(tmp, "stichbot.db"), ["#a"])
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
        bot.send_signal(signal.SIGINT)
        manager.wait_for(lambda m: m == "STOPPING=1", "STOPPING=1")
        rc = bot.wait(timeout=TIMEOUT)
        expect(rc == 0, "SIGINT: exit status %d" % rc)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    manager.close()


def main():
    stichbot = sys.argv[1]
    for check in (check_arguments, check_service, check_watchdog_and_sigint):
        with tempfile.TemporaryDirectory(prefix="stichbot-run-") as tmp:
            check(stichbot, tmp)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

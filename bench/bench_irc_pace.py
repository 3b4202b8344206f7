#!/usr/bin/env python3
"""bench_irc_pace.py - which send rate does ngircd (default settings, its
flood penalty on) let a client hold without holding it back?

    python3 bench/bench_irc_pace.py --harness build/tests/irc_harness \
        [--lines 60] [--burst 5] [--intervals 250,300,350,400,500,1000]

For each interval the IRC adapter (tests/irc_harness) joins a channel on a
fresh ngircd on 127.0.0.1 and queues --lines channel lines at once; its
bucket sends --burst at once, then one per interval.  A listener in the
channel records when each line arrives.  Printed per interval: the rate
the lines arrived at, and the lag of the last line behind the bucket's
schedule (what the server's penalty added), and whether ngircd
disconnected the bot.  A rate the server holds without penalty shows a lag
near zero.  Standard library only; everything stays on 127.0.0.1.
"""

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests"))
import irc_util  # noqa: E402


def run_one(harness, tmp, lines, burst, interval_ms):
    ircd = irc_util.Ngircd(tmp, name="pace%d" % interval_ms)
    config = {"name": "pace", "type": "irc", "host": "127.0.0.1",
              "port": ircd.port, "tls": False, "nick": "pacebot",
              "flood": {"burst": burst, "interval_ms": interval_ms}}
    path = os.path.join(tmp, "pace%d.json" % interval_ms)
    with open(path, "w") as f:
        json.dump(config, f)
    events = queue.Queue()
    proc = subprocess.Popen([harness, path], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def read():
        for line in proc.stdout:
            events.put(json.loads(line))
        events.put(None)
    threading.Thread(target=read, daemon=True).start()

    def wait(kind, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                ev = events.get(timeout=0.5)
            except queue.Empty:
                continue
            if ev is None:
                raise SystemExit("the harness ended")
            if ev.get("event") == kind:
                return ev
        raise SystemExit("no %s event" % kind)

    def send(cmd):
        proc.stdin.write((json.dumps(cmd) + "\n").encode())
        proc.stdin.flush()

    listener = irc_util.Client(ircd.port, "listener")
    try:
        wait("connected")
        listener.send("JOIN #pace")
        listener.wait(lambda l: " 366 " in l)
        send({"join": "#pace"})
        listener.wait(lambda l: l.startswith(":pacebot!") and " JOIN " in l)
        # Let the bucket fill again after the JOIN and the WHO.
        time.sleep(burst * interval_ms / 1000 + 1.5)
        start = time.monotonic()
        for i in range(lines):
            send({"send_channel": "#pace", "id": i + 1,
                  "text": "%03d %s" % (i, "x" * 100)})
        arrivals = []
        timeout = lines * interval_ms / 1000 * 4 + 30
        for _ in range(lines):
            listener.privmsgs("#pace", 1, timeout, "pacebot")
            arrivals.append(time.monotonic() - start)
        expected = max(0, lines - burst) * interval_ms / 1000
        lag = arrivals[-1] - expected
        span = arrivals[-1] - arrivals[burst - 1] if lines > burst else 0
        rate = (lines - burst) / span if span > 0 else float("inf")
        dropped = "ERROR" in " ".join(listener.lines) or \
            "Excess" in ircd.logtext()
        return rate, lag, dropped
    finally:
        try:
            send({"stop": "bye"})
            proc.stdin.close()
            proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
        listener.close()
        ircd.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", required=True)
    ap.add_argument("--lines", type=int, default=60)
    ap.add_argument("--burst", type=int, default=5)
    ap.add_argument("--intervals", default="250,300,350,400,500,1000")
    args = ap.parse_args()
    if shutil.which("ngircd") is None:
        print("skip: ngircd is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="irc-pace-")
    os.chmod(tmp, 0o755)
    try:
        print("| interval | bucket rate | arrival rate | lag of the last "
              "line | disconnected |")
        print("| --- | --- | --- | --- | --- |")
        for interval in (int(x) for x in args.intervals.split(",")):
            rate, lag, dropped = run_one(os.path.abspath(args.harness), tmp,
                                         args.lines, args.burst, interval)
            print("| %d ms | %.2f/s | %.2f/s | %.2f s | %s |" % (
                interval, 1000 / interval, rate, lag,
                "yes" if dropped else "no"))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

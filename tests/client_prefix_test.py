#!/usr/bin/env python3
"""What irssi and WeeChat send for the ways of typing a line that starts
with "/", so that the docs can say which one gets "/join" to the bot.

    client_prefix_test.py

Both clients are the Debian packages, each run in its own tmux server
against ngircd on 127.0.0.1; the test types into them as a person would
(`tmux send-keys`).  A raw socket client sitting in the channel records
what reaches it.  After each candidate the client says a marker line, so
everything the recorder hears between two markers is what that candidate
sent: nothing (the client ran a command of its own), "/join" (what the
bot needs), or some other text.

The expected table is what these clients do by default (irssi 1.4,
WeeChat 3.8); README.md and docs/ quote it.  Exit status 77 (skipped)
when a client, tmux or ngircd is not installed (tools/deps.sh installs
them).  Every wait is bounded and polls; nothing sleeps and hopes.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from irc_util import Client, Ngircd, split_line  # noqa: E402

CHANNEL = "#prefix"
DEADLINE = 60            # seconds for any one thing to happen

# What reaches the channel for each way of typing "/join": a list of the
# texts sent, empty when the client keeps the line to itself.
EXPECTED = {
    "irssi": [
        # irssi's "//" runs its own command, skipping aliases.
        ("//join", []),
        ("/ /join", ["/join"]),
        ("/say /join", ["/join"]),
        ("/msg %s /join" % CHANNEL, ["/join"]),
    ],
    "weechat": [
        ("//join", ["/join"]),
        # "/ " is no command in WeeChat: the whole line goes as text.
        ("/ /join", ["/ /join"]),
        # /say is one of WeeChat's default aliases (for /msg *).
        ("/say /join", ["/join"]),
        ("/msg %s /join" % CHANNEL, ["/join"]),
    ],
}


class Failure(Exception):
    pass


class Terminal:
    """One tmux server with one window running a client."""

    def __init__(self, directory, name):
        self.socket = os.path.join(directory, "tmux-" + name)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.socket] + list(args),
                              capture_output=True, text=True,
                              timeout=30).stdout

    def start(self, home, argv):
        env = "HOME=%s TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8" % \
            shlex.quote(home)
        cmd = "%s %s; echo EXIT=$?; sleep 600" % (
            env, " ".join(shlex.quote(a) for a in argv))
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "c", "-x",
                  "160", "-y", "40", "sh", "-c", cmd)

    def type(self, text):
        self.tmux("send-keys", "-t", "c", "-l", text)
        self.tmux("send-keys", "-t", "c", "Enter")

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "c")

    def stop(self):
        self.tmux("kill-server")


def client_argv(client, home, port, nick):
    if client == "irssi":
        return ["irssi", "--home=" + os.path.join(home, "irssi"), "-n", nick,
                "-c", "127.0.0.1", "-p", str(port)]
    commands = ";".join([
        "/set weechat.startup.display_logo off",
        "/set irc.server_default.tls off",
        "/server add test 127.0.0.1/%d" % port,
        "/set irc.server.test.nicks " + nick,
        "/connect test",
    ])
    return ["weechat", "--dir", os.path.join(home, "weechat"), "-r",
            commands]


def wait_online(rec, nick):
    """Polls ISON until the server knows nick."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        rec.send("ISON " + nick)
        try:
            line = rec.wait(lambda l: " 303 " in l, 2)
        except AssertionError:
            continue
        if nick in line.split(":")[-1].split():
            return
        time.sleep(0.2)
    raise Failure("%s never connected" % nick)


def heard(rec, nick, marker):
    """The texts nick said in the channel up to its line marker."""
    said = []
    while True:
        try:
            line = rec.wait(lambda l: l.startswith(":%s!" % nick) and
                            " PRIVMSG " in l, DEADLINE)
        except AssertionError:
            raise Failure("%s: no %r within %d s (heard %r)" % (
                nick, marker, DEADLINE, said))
        _, _, params = split_line(line)
        if params[0] != CHANNEL:
            continue
        if params[1] == marker:
            return said
        said.append(params[1])


def try_client(directory, port, rec, client):
    """Types each candidate into client; returns [(candidate, heard)]."""
    nick = {"irssi": "ir1", "weechat": "wc1"}[client]
    home = os.path.join(directory, client)
    os.makedirs(home)
    term = Terminal(directory, client)
    term.start(home, client_argv(client, home, port, nick))
    try:
        wait_online(rec, nick)
        term.type("/join " + CHANNEL)
        try:
            rec.wait(lambda l: l.startswith(":%s!" % nick) and
                     " JOIN " in l, DEADLINE)
        except AssertionError:
            raise Failure("%s did not join %s" % (nick, CHANNEL))
        results = []
        for i, (candidate, _) in enumerate(EXPECTED[client]):
            marker = "marker %d" % i
            term.type(candidate)
            term.type(marker)
            results.append((candidate, heard(rec, nick, marker)))
        return results
    except Failure as e:
        raise Failure("%s\n%s's screen:\n%s" % (e, client, term.screen()))
    finally:
        term.stop()


def main():
    missing = [p for p in ("irssi", "weechat", "tmux", "ngircd")
               if shutil.which(p) is None]
    if missing:
        print("client_prefix_test: not installed: %s (tools/deps.sh)" %
              ", ".join(missing))
        return 77
    directory = tempfile.mkdtemp(prefix="stichbot-prefix-")
    os.chmod(directory, 0o755)
    server = None
    failures = []
    try:
        server = Ngircd(directory)
        rec = Client(server.port, "rec")
        rec.send("JOIN " + CHANNEL)
        rec.wait(lambda l: " 366 " in l)
        for client in EXPECTED:
            version = subprocess.run([client, "--version"],
                                     capture_output=True, text=True,
                                     timeout=30).stdout.strip()
            print("  %s %s" % (client, version.split("\n")[0]))
            got = try_client(directory, server.port, rec, client)
            for (candidate, want), (_, said) in zip(EXPECTED[client], got):
                verdict = "ok" if said == want else "WRONG, expected %r" % (
                    want,)
                print("  %-8s %-20s -> %-14r %s" % (client, candidate,
                                                    said, verdict))
                if said != want:
                    failures.append((client, candidate))
        rec.close()
    except Failure as e:
        print("client_prefix_test: FAIL: %s" % e)
        return 1
    finally:
        if server is not None:
            server.kill()
        shutil.rmtree(directory, ignore_errors=True)
    if failures:
        print("client_prefix_test: FAIL: %s" % failures)
        return 1
    print("client_prefix_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""irc_settings_test.py - channel settings changed while `stichbot run`
runs survive its restarts, against ngircd on 127.0.0.1.

    irc_settings_test.py STICHBOT

In #t an admin sets the prefix to "?" (and is told the allowed values of
a prefix and a timer he gets wrong), three people sit down, one of them
switches the table to Japanese with "?lang ja" (an option refused is
then told in Japanese) and starts a game; in the
empty channel #e the admin sets the language to Japanese.  Then the bot
is stopped with SIGTERM and started again, then killed with SIGKILL and
started again.  After each restart, from what the clients receive only:
  - #t hears the goodbye (SIGTERM) and the resume line in Japanese;
  - "!help" gets no answer in #t and "?rules" does, in Japanese;
  - #e answers "!rules" in Japanese.
Last, with "grace": 0, a player who leaves #t is stood in for at once.

Exits 77 (skip) when ngircd is missing.  Every wait is bounded and
polls; nothing sleeps and hopes.  Standard library only.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irc_util  # noqa: E402
from irc_util import Client, plain, split_line  # noqa: E402

BOTNICK = "setbot"
WAIT = 20                # seconds for any one answer
GOODBYE_JA = "再起動します。戻りしだいこのゲームを再開します。"
RESUMED_JA = "中断したところからゲームを再開します。"
RULES_JA = "ウィザード: "
HELP = ("Commands:", "コマンド:")


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


class World:
    def __init__(self, directory, stichbot):
        self.dir = directory
        self.stichbot = stichbot
        self.ircd = irc_util.Ngircd(directory, limits={"MaxPenaltyTime": 0})
        self.store = os.path.join(directory, "stichbot.db")
        self.log_path = os.path.join(directory, "stichbot.log")
        self.bot = None
        self.clients = {}

    def config(self):
        return {
            "store": self.store, "log_level": "info",
            "user_flood": {"interval_ms": 0}, "grace": 0,
            "networks": [{
                "name": "net", "type": "irc", "host": "127.0.0.1",
                "port": self.ircd.port, "tls": False, "nick": BOTNICK,
                "alt_nicks": [BOTNICK + "_"],
                "reconnect": {"min": 1, "max": 2},
                "admins": ["root!*@*"],
                "defaults": {"turn_timer": 3600},
                "channels": [{"name": "#t", "game": "wizard"},
                             {"name": "#e"}],
            }],
        }

    def start_bot(self):
        path = os.path.join(self.dir, "stichbot.json")
        with open(path, "w") as f:
            json.dump(self.config(), f, indent=1)
        with open(self.log_path, "ab") as log:
            self.bot = subprocess.Popen(
                [self.stichbot, "run", "--config", path],
                stdout=subprocess.DEVNULL, stderr=log)

    def logtext(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def client(self, nick):
        c = Client(self.ircd.port, nick)
        self.clients[nick] = c
        for channel in ("#t", "#e"):
            c.send("JOIN %s" % channel)
            c.wait(lambda l: " JOIN " in l and l.startswith(":%s!" % nick)
                   and channel in l)
        return c


def from_bot(line, channel):
    """The text of a PRIVMSG from the bot to channel, else None."""
    nick, command, params = split_line(line)
    if nick is None or not nick.startswith(BOTNICK) or \
            command != "PRIVMSG" or not params or params[0] != channel:
        return None
    return plain(params[-1])


def heard(client, channel, needle, timeout=WAIT):
    """Waits for the bot's line in channel containing needle; returns the
    texts the bot said in channel before it, since the last wait."""
    before = []

    def pred(line):
        text = from_bot(line, channel)
        if text is None:
            return False
        if needle in text:
            return True
        before.append(text)
        return False
    try:
        client.wait(pred, timeout)
    except AssertionError as e:
        raise Failure("%s never heard %r in %s: %s" % (
            client.nick, needle, channel, e))
    return before


def bot_joined(client, channel, timeout=WAIT):
    client.wait(lambda l: " JOIN " in l and l.startswith(":" + BOTNICK)
                and channel in l, timeout)


def stop(world, sig):
    world.bot.send_signal(sig)
    rc = world.bot.wait(20)
    if sig == signal.SIGTERM:
        check(rc == 0, "the bot exited %d on SIGTERM" % rc)


def after_restart(world, how):
    """What must hold once the bot is back: Japanese and "?"."""
    amy, root = world.clients["amy"], world.clients["root"]
    world.start_bot()
    bot_joined(amy, "#t")
    heard(amy, "#t", RESUMED_JA)
    # The bot handles lines in order: "!help" first, then "?rules";
    # nothing may answer the first before the second is answered.
    amy.send("PRIVMSG #t :!help")
    amy.send("PRIVMSG #t :?rules")
    before = heard(amy, "#t", RULES_JA)
    check(not any(t.startswith(HELP) for t in before),
          "#t answered !help after %s: %r" % (how, before))
    root.send("PRIVMSG #e :!rules")
    heard(root, "#e", RULES_JA)
    print("ok - after %s: prefix ? and Japanese in #t, Japanese in #e" %
          how)


def run(world):
    world.start_bot()
    root = world.client("root")
    amy = world.client("amy")
    world.client("bea")
    bot_joined(root, "#t")
    bot_joined(root, "#e")

    root.send("PRIVMSG #t :!admin set prefix ?")
    heard(root, "#t", "Channel setting prefix = ?.")
    root.send("PRIVMSG #t :?admin set prefix !!!!!")
    heard(root, "#t", "1-4 punctuation characters")
    root.send("PRIVMSG #t :?admin set timer 5")
    heard(root, "#t", "0 (no timer) or 10-3600 seconds")
    print("ok - !admin set: refusals say the allowed values")
    for nick in ("amy", "bea", "root"):
        world.clients[nick].send("PRIVMSG #t :?join")
        heard(amy, "#t", nick)
    amy.send("PRIVMSG #t :?lang ja")
    heard(amy, "#t", "言語: 日本語。")
    amy.send("PRIVMSG #t :?option bogus")
    heard(amy, "#t", "受け付けられません: wizard に「bogus」というオプションは"
          "ありません。")
    print("ok - a Japanese table is told why an option is refused in "
          "Japanese")
    amy.send("PRIVMSG #t :?start")
    heard(amy, "#t", "ラウンド")
    root.send("PRIVMSG #e :!admin set lang ja")
    heard(root, "#e", "チャンネル設定 lang = ja。")

    stop(world, signal.SIGTERM)
    heard(amy, "#t", GOODBYE_JA)
    after_restart(world, "SIGTERM")
    stop(world, signal.SIGKILL)
    after_restart(world, "SIGKILL")
    # "grace": 0: a computer takes the seat of someone who leaves at once
    # (the default would wait a minute, longer than WAIT).
    world.clients["bea"].send("PART #t")
    heard(amy, "#t", "beaがいなくなりました。")
    print("ok - grace 0: a computer stood in for bea at once")
    stop(world, signal.SIGTERM)
    for word in ("Sanitizer", "runtime error"):
        check(word not in world.logtext(), world.logtext()[-3000:])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if shutil.which("ngircd") is None:
        print("skip: ngircd is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="irc-settings-")
    os.chmod(tmp, 0o755)
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(
        Failure("the test ran out of time")))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(
        Failure("stopped by SIGTERM")))
    signal.alarm(150)
    world = World(tmp, os.path.abspath(sys.argv[1]))
    ok = False
    try:
        run(world)
        ok = True
    except (Failure, AssertionError) as e:
        print("FAIL: %s" % e)
        try:
            print(world.logtext()[-3000:])
        except OSError:
            pass
    finally:
        signal.alarm(0)
        if world.bot is not None and world.bot.poll() is None:
            world.bot.kill()
            world.bot.wait()
        for c in world.clients.values():
            c.close()
        world.ircd.kill()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("files kept in %s" % tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

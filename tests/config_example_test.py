#!/usr/bin/env python3
"""`stichbot check-config` against config/stichbot.example.json.

The example documents every key, so it must pass check-config as shipped,
including each network's adapter keys: its secrets are bare credential
names, so the test points CREDENTIALS_DIRECTORY at a directory of made-up
secret files.  Also checks the command's usage errors, a missing file, a
typo, and that no secret reaches the output; that a "store" that `run`
cannot open (a directory, a file in a missing directory) is refused, and
that ":memory:" passes with a warning, which `run` logs as well.

While an adapter type used by the example is not built yet, check-config
refuses the example with "unknown adapter": the test then reports a skip
(exit 77) with the reason, after the checks that do not need adapters.

usage: config_example_test.py STICHBOT EXAMPLE_JSON
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile

SKIP = 77
SECRET = "not-a-real-secret-4242"


def run(stichbot, args, env=None):
    proc = subprocess.run([stichbot, "check-config"] + args,
                          capture_output=True, text=True, timeout=30,
                          env=env)
    return proc.returncode, proc.stdout, proc.stderr


def credential_names(value):
    """The bare names given to *_file keys, anywhere in the document."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.startswith("//"):
                continue
            if (key.endswith("_file") and isinstance(item, str)
                    and "/" not in item):
                yield item
            yield from credential_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from credential_names(item)


def count(document):
    networks = document["networks"]
    return len(networks), sum(len(n.get("channels", [])) for n in networks)


def expect(cond, message):
    if not cond:
        print("FAIL: " + message)
        sys.exit(1)


def free_port():
    """A loopback port nobody listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_store(stichbot, tmp):
    """check-config refuses a store `run` cannot open; both warn about
    ":memory:"."""
    network = {"name": "t", "type": "irc", "host": "127.0.0.1",
               "port": free_port(), "tls": False, "nick": "stichbot",
               "channels": ["#t"]}
    path = os.path.join(tmp, "store.json")

    def check(store):
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"store": store, "networks": [network]}, f)
        return run(stichbot, [path])

    rc, out, err = check(tmp)
    expect(rc == 1 and err.strip() == 'stichbot check-config: %s: store: '
           '"%s" is a directory; the store is a file in it, e.g. '
           '"%s/stichbot.db"' % (path, tmp, tmp), "store a directory: got %d %r" % (rc, err))
    missing = os.path.join(tmp, "no-such-dir", "stichbot.db")
    rc, out, err = check(missing)
    expect(rc == 1 and ('store: "%s": the directory %s does not exist'
                        % (missing, os.path.dirname(missing))) in err,
           "store in a missing directory: got %d %r" % (rc, err))
    rc, out, err = check(os.path.join(path, "stichbot.db"))
    expect(rc == 1 and "a part of the path is not a directory" in err,
           "store under a file: got %d %r" % (rc, err))
    rc, out, err = check(os.path.join(tmp, "new.db"))
    expect(rc == 0 and err == "", "a new store: got %d %r" % (rc, err))
    rc, out, err = check(":memory:")
    expect(rc == 0 and 'store: ":memory:" keeps nothing' in err,
           "store :memory:: got %d %r" % (rc, err))
    # run says it too, in its log, as it starts (the network's port is
    # closed: it only tries to connect).
    proc = subprocess.Popen([stichbot, "run", "--config", path],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        log = ""
        while "started:" not in log:
            line = proc.stderr.readline()
            expect(line != "", "run on :memory: exited: %r" % log)
            log += line
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=30)[1]
    expect('warn: store ":memory:" keeps nothing' in log,
           "run on :memory: does not warn: %r" % (log + rest))
    expect(proc.returncode == 0, "run on :memory:: exit %d" % proc.returncode)


def main():
    stichbot, example = sys.argv[1], sys.argv[2]
    with open(example, encoding="utf-8") as f:
        document = json.load(f)
    names = sorted(set(credential_names(document)))
    expect(names, "the example names no credential")

    rc, out, err = run(stichbot, [])
    expect(rc == 2 and "usage:" in err, "no argument: exit 2 with usage")
    rc, out, err = run(stichbot, ["--help"])
    expect(rc == 0 and "usage:" in out, "--help: exit 0 with usage")
    rc, out, err = run(stichbot, ["a.json", "b.json"])
    expect(rc == 2, "two files: exit 2")

    with tempfile.TemporaryDirectory(prefix="stichbot-cfg-") as tmp:
        missing = os.path.join(tmp, "missing.json")
        rc, out, err = run(stichbot, [missing])
        expect(rc == 1 and err.strip() == "stichbot check-config: " +
               missing + ": No such file or directory",
               "missing file: got %d %r" % (rc, err))

        # A typo at the top level is caught before any adapter is asked.
        typo = dict(document)
        typo["log_levle"] = typo.pop("log_level", "info")
        typo_path = os.path.join(tmp, "typo.json")
        with open(typo_path, "w", encoding="utf-8") as f:
            json.dump(typo, f)
        rc, out, err = run(stichbot, [typo_path])
        expect(rc == 1 and err.strip() == "stichbot check-config: " +
               typo_path + ": log_levle: unknown key",
               "typo: got %d %r" % (rc, err))

        # A syntax error names the line and column.
        broken = os.path.join(tmp, "broken.json")
        with open(broken, "w", encoding="utf-8") as f:
            f.write('{\n  "grace": 60,\n  "networks": [\n}\n')
        rc, out, err = run(stichbot, [broken])
        expect(rc == 1 and err.startswith("stichbot check-config: " +
                                          broken + ":4:1: "),
               "syntax error: got %d %r" % (rc, err))

        check_store(stichbot, tmp)

        creds = os.path.join(tmp, "creds")
        os.mkdir(creds, 0o700)
        for name in names:
            with open(os.path.join(creds, name), "w",
                      encoding="utf-8") as f:
                f.write(SECRET + "\n")
        env = dict(os.environ, CREDENTIALS_DIRECTORY=creds)
        rc, out, err = run(stichbot, [example], env)
        expect(SECRET not in out + err, "a secret reached the output")
        if rc != 0 and "unknown adapter" in err:
            print("SKIP: the example needs an adapter not built yet: "
                  + err.strip())
            return SKIP
        networks, channels = count(document)
        expect(rc == 0, "the example is refused: " + err.strip())
        expect(out.strip() == "%s: ok (%d networks, %d channels)" %
               (example, networks, channels), "unexpected output " + out)

        # Without the credentials, the first secret is named, not shown.
        env = dict(os.environ)
        env.pop("CREDENTIALS_DIRECTORY", None)
        # A fresh checkout has no credentials: the check passes, noting
        # how the service gets each one; --strict requires them.
        # The note names the key, never its value: a secret typed where
        # its name belongs must not reach the terminal or a log.
        rc, out, err = run(stichbot, [example], env)
        notes = [line for line in err.splitlines()
                 if "credential not read" in line
                 and "LoadCredential=NAME:" in line]
        expect(rc == 0 and len(notes) == len(list(credential_names(
            document))), "no credentials: got %d %r" % (rc, err))
        expect(not any(n in out + err for n in names),
               "a credential name was shown: %r" % err)
        rc, out, err = run(stichbot, ["--strict", example], env)
        expect(rc == 1 and "CREDENTIALS_DIRECTORY is not set" in err,
               "--strict without credentials: got %d %r" % (rc, err))
    print("ok: %s passes check-config" % example)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""irc_util.py - what the IRC tests and the IRC benchmark share: free
ports, ngircd in the foreground with a generated configuration, a
throwaway certificate authority made with the openssl CLI, a raw IRC
client on a socket, and reading raw lines (prefix, command, parameters;
text without mIRC codes).

Used by tests/irc_test.py (the adapter through its harness),
tests/irc_game_test.py (whole games through `stichbot run`) and
bench/bench_irc.py (500 channels).  Everything listens on and connects to
127.0.0.1 only.  Standard library only.
"""

import os
import re
import socket
import subprocess
import time

# mIRC formatting: bold, colours (with their numbers), reset, italics ...
CODES_RE = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|[\x02\x0f\x11\x16"
                      r"\x1d\x1e\x1f]")


def plain(text):
    """text without mIRC formatting codes."""
    return CODES_RE.sub("", text)


def split_line(line):
    """(prefix nick, command, params) of a raw IRC line."""
    prefix = ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    if " :" in line:
        head, _, trailing = line.partition(" :")
        params = head.split() + [trailing]
    else:
        params = line.split()
    command = params.pop(0) if params else ""
    return prefix.split("!", 1)[0], command, params


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, timeout=10):
    """Waits until something accepts connections on port."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("nothing listens on port %d" % port)


class Ngircd:
    """ngircd in the foreground (-n) with a generated configuration in
    directory/name.  ssl is (ssl_port, cert, key) or None; limits adds
    lines to the [Limits] section (e.g. {"MaxJoins": 0}), options to
    [Options]; extra lines (e.g. an [Operator] section) go at the end.
    The directory must be readable by "nobody": as root, ngircd drops to
    that user."""

    def __init__(self, directory, port=None, ssl=None, name="ngircd",
                 limits=None, options=None, extra=()):
        self.port = port or free_port()
        self.ssl = ssl
        self.dir = os.path.join(directory, name)
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.conf = os.path.join(self.dir, "ngircd.conf")
        self.log_path = os.path.join(self.dir, "ngircd.log")
        lines = [
            "[Global]", "Name = irc.test", "Info = stichbot test server",
            "Listen = 127.0.0.1", "Ports = %d" % self.port,
            "MotdPhrase = Welcome to the test server",
        ]
        if os.geteuid() == 0:
            lines.append("ServerUID = nobody")
        limit = {"MaxConnectionsIP": 0, "MaxNickLength": 30,
                 "PingTimeout": 120, "PongTimeout": 20}
        limit.update(limits or {})
        option = {"PAM": "no", "Ident": "no", "DNS": "no"}
        option.update(options or {})
        lines.append("[Limits]")
        lines += ["%s = %s" % kv for kv in limit.items()]
        lines.append("[Options]")
        lines += ["%s = %s" % kv for kv in option.items()]
        if ssl is not None:
            lines += ["[SSL]", "Ports = %d" % ssl[0], "CertFile = %s" % ssl[1],
                      "KeyFile = %s" % ssl[2]]
        lines += list(extra)
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(self.conf, 0o644)
        self.proc = None
        self.log = None
        self.start()

    def start(self):
        """Starts (or restarts) the server on the same ports."""
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(["ngircd", "-n", "-f", self.conf],
                                     stdout=self.log, stderr=self.log)
        wait_port(self.port)
        if self.ssl is not None:
            wait_port(self.ssl[0])

    def kill(self):
        """SIGKILL: every connection drops at once."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.log is not None and not self.log.closed:
            self.log.close()

    def logtext(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")


def openssl(directory, *args):
    subprocess.run(["openssl"] + list(args), check=True, cwd=directory,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_ca(directory, name):
    """A self-signed CA: directory/name.pem and name.key."""
    openssl(directory, "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            name + ".key", "-out", name + ".pem", "-days", "2",
            "-subj", "/CN=%s test CA" % name)


def make_server_cert(directory, ca="ca"):
    """server.pem/server.key for 127.0.0.1 and localhost, signed by ca.
    Returns (cert, key, SHA-256 fingerprint as openssl prints it)."""
    with open(os.path.join(directory, "san.cnf"), "w") as f:
        f.write("subjectAltName = IP:127.0.0.1, DNS:localhost\n")
    openssl(directory, "req", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    openssl(directory, "x509", "-req", "-in", "server.csr", "-CA",
            ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial", "-out",
            "server.pem", "-days", "2", "-extfile", "san.cnf")
    for f in ("server.key", "server.pem", ca + ".pem"):
        os.chmod(os.path.join(directory, f), 0o644)
    fp = subprocess.run(["openssl", "x509", "-in", "server.pem", "-noout",
                         "-fingerprint", "-sha256"], cwd=directory,
                        check=True, capture_output=True, text=True).stdout
    return (os.path.join(directory, "server.pem"),
            os.path.join(directory, "server.key"),
            fp.strip().split("=", 1)[1])


class Client:
    """A raw IRC client on a socket, read on demand."""

    def __init__(self, port, nick, user=None):
        self.nick = nick
        self.sock = socket.create_connection(("127.0.0.1", port), 5)
        self.sock.settimeout(0.2)
        self.buf = b""
        self.lines = []          # every raw line received, CR LF stripped
        self.raw_lengths = []    # their lengths on the wire, CR LF included
        self.pos = 0
        self.send("NICK %s" % nick)
        self.send("USER %s 0 * :Test %s" % (user or nick, nick))
        self.wait(lambda l: " 001 " in l)

    def send(self, line):
        self.sock.sendall(line.encode() + b"\r\n")

    def _pump(self):
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return
        if not data:
            raise AssertionError("%s: the server closed the connection"
                                 % self.nick)
        self.buf += data
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            self.raw_lengths.append(len(raw) + 1)
            line = raw.rstrip(b"\r").decode("utf-8", "strict")
            if line.startswith("PING "):
                self.send("PONG " + line[5:])
            self.lines.append(line)

    def wait(self, pred, timeout=10):
        """The next line (after those already waited for) pred accepts."""
        end = time.monotonic() + timeout
        while True:
            while self.pos < len(self.lines):
                line = self.lines[self.pos]
                self.pos += 1
                if pred(line):
                    return line
            if time.monotonic() > end:
                raise AssertionError("%s: no such line within %ss; last: %r" %
                                     (self.nick, timeout, self.lines[-8:]))
            self._pump()

    def privmsgs(self, target, count, timeout, sender="stichbot"):
        """count PRIVMSG lines from sender to target, in order: (text,
        the line's length on the wire)."""
        out = []
        while len(out) < count:
            line = self.wait(lambda l: l.startswith(":%s!" % sender) and
                             (" PRIVMSG %s :" % target) in l, timeout)
            out.append((line.split(" PRIVMSG %s :" % target, 1)[1],
                        self.raw_lengths[self.pos - 1]))
        return out

    def close(self):
        try:
            self.send("QUIT :done")
        except OSError:
            pass
        self.sock.close()

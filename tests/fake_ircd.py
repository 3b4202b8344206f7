"""fake_ircd.py - a tiny scripted IRC server for tests/irc_test.py.

It speaks just enough IRC for the adapter's login and identity paths that
ngircd cannot show: CAP LS 302 with IRCv3 capabilities, SASL PLAIN (with
400-byte AUTHENTICATE chunks), services accounts (extended-join,
account-notify, WHOX), NickServ IDENTIFY and a server password.  It serves
one client at a time on 127.0.0.1, records every line the client sent, and
lets the test inject raw lines.  Standard library only.
"""

import base64
import socket
import threading
import time

CAPS = ("multi-prefix extended-join account-notify away-notify "
        "userhost-in-names chghost sasl=PLAIN,EXTERNAL server-time "
        "account-tag")


class FakeIrcd:
    def __init__(self, accounts=None, password=None, caps=CAPS, nick_taken=(),
                 whox=True, banned=()):
        """accounts: {name: password} for SASL and NickServ; password: the
        server password (PASS) required, if any; caps: what CAP LS offers
        (None: the server does not know CAP); nick_taken: nicks that get
        433."""
        self.accounts = dict(accounts or {})
        self.password = password
        self.caps = caps
        self.nick_taken = set(nick_taken)
        self.banned = set(banned)  # channels that answer JOIN with 474
        self.whox = whox
        # Who holds the nick NickServ: "service" (WHOIS says 313),
        # "user" (anyone who took the nick), None (nobody).
        self.nickserv = "service"
        self.lines = []          # every line a client sent, in order
        self.connections = 0
        self.silent = False      # stop answering (ping timeout tests)
        # Leave the bot's PINGs that confirm lines ("sent-N") unanswered.
        self.hold_pongs = False
        self.channel_members = {}  # channel -> [(nick, user, host, account)]
        self.users = {}          # nick -> (user, host, account): no channel
        # Hold USERHOST answers, as they stood when asked, until released.
        self.hold_userhost = False
        self.held = []
        self.lock = threading.Lock()
        self.conn = None
        self.nick = None
        self.account = None
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.port = self.srv.getsockname()[1]
        self.stopped = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    # The test's side.

    def release_userhost(self):
        """Sends the USERHOST answers held so far, and stops holding."""
        with self.lock:
            held, self.held = self.held, []
            self.hold_userhost = False
        for line in held:
            self.send(line)

    def send(self, line):
        """Sends a raw line to the connected client."""
        with self.lock:
            conn = self.conn
        if conn is not None:
            try:
                conn.sendall(line.encode() + b"\r\n")
            except OSError:
                pass

    def wait_line(self, pred, timeout=10, start=0):
        """The first recorded line from index start on that pred accepts."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                for i in range(start, len(self.lines)):
                    if pred(self.lines[i]):
                        return self.lines[i]
            time.sleep(0.02)
        raise AssertionError("no such line from the client; got %r"
                             % self.lines[-20:])

    def drop(self):
        """Closes the client's connection."""
        with self.lock:
            conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def close(self):
        self.stopped = True
        self.drop()
        self.srv.close()

    # The server's side.

    def _serve(self):
        while not self.stopped:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            with self.lock:
                self.conn = conn
                self.connections += 1
            try:
                self._client(conn)
            except OSError:
                pass
            with self.lock:
                if self.conn is conn:
                    self.conn = None
            conn.close()

    def _reply(self, conn, line):
        conn.sendall(line.encode() + b"\r\n")

    def _client(self, conn):
        buf = b""
        state = {"nick": None, "user": None, "cap": False, "registered": False,
                 "pass": None, "sasl": None, "sasl_buf": ""}
        self.account = None
        while True:
            data = conn.recv(4096)
            if not data:
                return
            buf += data
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.rstrip(b"\r").decode("utf-8", "replace")
                with self.lock:
                    self.lines.append(line)
                if not self.silent:
                    self._line(conn, state, line)

    def _welcome(self, conn, st):
        if st["registered"] or st["cap"] or not st["nick"] or not st["user"]:
            return
        if self.password is not None and st["pass"] != self.password:
            self._reply(conn, ":fake.test 464 * :Password incorrect")
            self._reply(conn, "ERROR :Closing link (bad password)")
            conn.shutdown(socket.SHUT_RDWR)
            return
        st["registered"] = True
        n = st["nick"]
        self._reply(conn, ":fake.test 001 %s :Welcome to the Fake Network "
                    "%s!~%s@fake.host" % (n, n, st["user"]))
        isupport = "CHANTYPES=# PREFIX=(ov)@+ CASEMAPPING=rfc1459"
        if self.whox:
            isupport += " WHOX"
        self._reply(conn, ":fake.test 005 %s %s :are supported" % (n, isupport))
        self._reply(conn, ":fake.test 422 %s :No MOTD" % n)

    def _line(self, conn, st, line):
        parts = line.split(" :", 1)
        words = parts[0].split()
        if not words:
            return
        cmd = words[0].upper()
        trailing = parts[1] if len(parts) > 1 else None
        args = words[1:] + ([trailing] if trailing is not None else [])
        n = st["nick"] or "*"
        if cmd == "CAP" and args:
            if self.caps is None:
                self._reply(conn, ":fake.test 421 %s CAP :Unknown command" % n)
                return
            sub = args[0].upper()
            if sub == "LS":
                st["cap"] = True
                self._reply(conn, ":fake.test CAP %s LS :%s" % (n, self.caps))
            elif sub == "REQ":
                self._reply(conn, ":fake.test CAP %s ACK :%s" % (n, args[-1]))
            elif sub == "END":
                st["cap"] = False
                self._welcome(conn, st)
        elif cmd == "PASS" and args:
            st["pass"] = args[-1]
        elif cmd == "NICK" and args:
            if args[0] in self.nick_taken:
                self._reply(conn, ":fake.test 433 %s %s :Nickname is already "
                            "in use" % (n, args[0]))
                return
            old = st["nick"]
            st["nick"] = args[0]
            self.nick = args[0]
            if st["registered"]:
                self._reply(conn, ":%s!~%s@fake.host NICK :%s"
                            % (old, st["user"], args[0]))
            else:
                self._welcome(conn, st)
        elif cmd == "USER" and args:
            st["user"] = args[0]
            self._welcome(conn, st)
        elif cmd == "AUTHENTICATE" and args:
            self._authenticate(conn, st, args[0])
        elif cmd == "PING" and args and self.hold_pongs and \
                args[-1].startswith("sent-"):
            pass
        elif cmd == "PING" and args:
            self._reply(conn, ":fake.test PONG fake.test :%s" % args[-1])
        elif cmd == "JOIN" and args and st["registered"]:
            for chan in args[0].split(","):
                self._join(conn, st, chan)
        elif cmd == "WHO" and args and st["registered"]:
            self._who(conn, st, args)
        elif cmd == "USERHOST" and args and st["registered"]:
            self._userhost(conn, st, args)
        elif cmd == "WHOIS" and args and st["registered"]:
            self._whois(conn, st, args[-1])
        elif cmd == "PRIVMSG" and len(args) >= 2 and args[0].lower() == \
                "nickserv":
            if self.nickserv == "service":
                self._nickserv(conn, st, args[1])

    def _authenticate(self, conn, st, arg):
        n = st["nick"] or "*"
        if st["sasl"] is None:
            if arg.upper() != "PLAIN":
                self._reply(conn, ":fake.test 908 %s PLAIN :are available" % n)
                self._reply(conn, ":fake.test 904 %s :SASL failed" % n)
                return
            st["sasl"] = "PLAIN"
            st["sasl_buf"] = ""
            self._reply(conn, "AUTHENTICATE +")
            return
        if arg == "*":
            st["sasl"] = None
            self._reply(conn, ":fake.test 906 %s :SASL aborted" % n)
            return
        if arg != "+":
            st["sasl_buf"] += arg
        if len(arg) == 400:
            return
        st["sasl"] = None
        try:
            authz, authc, pw = base64.b64decode(st["sasl_buf"]).split(b"\0")
        except ValueError:
            self._reply(conn, ":fake.test 904 %s :SASL failed" % n)
            return
        user = authc.decode()
        if self.accounts.get(user) == pw.decode():
            self.account = user
            self._reply(conn, ":fake.test 900 %s %s!~u@fake.host %s :You are "
                        "now logged in as %s" % (n, n, user, user))
            self._reply(conn, ":fake.test 903 %s :SASL authentication "
                        "successful" % n)
        else:
            self._reply(conn, ":fake.test 904 %s :SASL authentication failed"
                        % n)

    def _whois(self, conn, st, nick):
        n = st["nick"]
        if nick.lower() != "nickserv" or self.nickserv is None:
            self._reply(conn, ":fake.test 401 %s %s :No such nick" % (n, nick))
            return
        user, host = (("services", "services.fake") if
                      self.nickserv == "service" else ("~x", "fake.host"))
        self._reply(conn, ":fake.test 311 %s NickServ %s %s * :Nick"
                    % (n, user, host))
        self._reply(conn, ":fake.test 312 %s NickServ %s :Server"
                    % (n, host))
        if self.nickserv == "service":
            self._reply(conn, ":fake.test 313 %s NickServ :is a Network "
                        "Service" % n)
        self._reply(conn, ":fake.test 318 %s NickServ :End of WHOIS list"
                    % n)

    def _nickserv(self, conn, st, text):
        words = text.split()
        if len(words) == 3 and words[0].upper() == "IDENTIFY" and \
                self.accounts.get(words[1]) == words[2]:
            self.account = words[1]
            self._reply(conn, ":NickServ!services@services.fake NOTICE %s :You "
                        "are now identified for %s." % (st["nick"], words[1]))
            self._reply(conn, ":fake.test 900 %s %s!~u@fake.host %s :You are "
                        "now logged in as %s" % (st["nick"], st["nick"],
                                                 words[1], words[1]))
        else:
            self._reply(conn, ":NickServ!services@services.fake NOTICE %s "
                        ":Invalid password." % st["nick"])

    def _join(self, conn, st, chan):
        n, u = st["nick"], st["user"]
        if chan in self.banned:
            self._reply(conn, ":fake.test 474 %s %s :Cannot join channel (+b)"
                        % (n, chan))
            return
        self._reply(conn, ":%s!~%s@fake.host JOIN %s %s :%s"
                    % (n, u, chan, self.account or "*", "real name"))
        members = self.channel_members.get(chan, [])
        names = " ".join(["@%s!%s@%s" % m[:3] for m in members[:1]] +
                         ["%s!%s@%s" % m[:3] for m in members[1:]] + [n])
        self._reply(conn, ":fake.test 353 %s = %s :%s" % (n, chan, names))
        self._reply(conn, ":fake.test 366 %s %s :End of /NAMES list." % (n, chan))

    def _userhost(self, conn, st, args):
        """USERHOST of up to five nicks: nick=+user@host for each one
        someone holds, in one 302 line."""
        out = []
        for mask in args[:5]:
            found = [m[:3] for ms in self.channel_members.values()
                     for m in ms if m[0].lower() == mask.lower()]
            found += [(nick,) + u[:2] for nick, u in self.users.items()
                      if nick.lower() == mask.lower()]
            if found:
                out.append("%s=+%s@%s" % found[0])
        line = ":fake.test 302 %s :%s" % (st["nick"], " ".join(out))
        with self.lock:
            if self.hold_userhost:
                self.held.append(line)
                return
        self._reply(conn, line)

    def _who(self, conn, st, args):
        """WHO of a channel or of one nick; WHOX fields come in the
        standard order (token, channel, user, host, nick, account)."""
        n = st["nick"]
        mask = args[0]
        fields = args[1] if len(args) > 1 else ""
        token = fields.split(",")[1] if "," in fields else ""
        wanted = fields[1:].split(",")[0] if fields.startswith("%") else ""
        if mask.startswith("#"):
            rows = [(mask,) + m for m in self.channel_members.get(mask, [])]
        else:
            rows = [(c,) + m for c, ms in self.channel_members.items()
                    for m in ms if m[0].lower() == mask.lower()][:1]
            rows += [("*", nick) + u for nick, u in self.users.items()
                     if nick.lower() == mask.lower()][:1 - len(rows)]
        for chan, nick, user, host, account in rows:
            if fields.startswith("%"):
                values = {"t": token, "c": chan, "u": user, "h": host,
                          "n": nick, "a": account or "0"}
                out = [values[f] for f in "tcuhna" if f in wanted]
                self._reply(conn, ":fake.test 354 %s %s" % (n, " ".join(out)))
            else:
                self._reply(conn, ":fake.test 352 %s %s %s %s fake.test %s H "
                            ":0 real" % (n, chan, user, host, nick))
        self._reply(conn, ":fake.test 315 %s %s :End of /WHO list." % (n, mask))

"""A small Matrix homeserver for tests: the part of the client-server API
v3 that stichbot's Matrix adapter uses, with the spec's request and
response shapes, on 127.0.0.1, in memory, with switches to inject faults.

Standard library only.  One process: the test creates a Homeserver, talks
to it over HTTP through clients (tests/matrix_client.py) and the adapter
under test, reads its state directly for assertions, and flips its fault
switches.  State lives in a State object that survives restart(), the way
a real server keeps its database across a restart.

Endpoints (under /_matrix/client):
  GET  versions
  GET  v3/login, POST v3/login (m.login.password, identifier m.id.user)
  GET  v3/account/whoami
  POST v3/user/{u}/filter, GET v3/user/{u}/filter/{id}
  GET  v3/sync (since, timeout long-poll, filter id or inline, full_state)
  POST v3/join/{roomIdOrAlias}, v3/rooms/{r}/join, v3/rooms/{r}/leave,
       v3/rooms/{r}/invite, v3/rooms/{r}/kick, v3/rooms/{r}/ban
  POST v3/createRoom (preset, is_direct, invite, initial_state, name,
       room_alias_name, power_level_content_override)
  PUT  v3/rooms/{r}/send/{type}/{txnId} (the sender's power level must
       reach the type's or events_default; idempotent per device and txnId,
       as the spec scopes transaction ids since v1.7: a client that logs
       in again on the same device may repeat a transaction)
  PUT  v3/rooms/{r}/state/{type}/{key}, GET v3/rooms/{r}/state(/{type}/{key})
  GET/PUT v3/user/{u}/account_data/{type}
  GET  v3/profile/{u}, PUT v3/profile/{u}/displayname
  GET  v3/rooms/{r}/joined_members
Errors are {"errcode": ..., "error": ...} with the spec's status codes.
A /sync that first shows a room as joined gives its history as
history_visibility allows (rooms are created "shared": everything), cut to
the filter's timeline limit, as Synapse does: a client that joins late, or
the bot joining a room with old chat in it, sees what was said before.

Fault switches (Faults, on State.faults; set them under State.cond or with
the helper methods of Homeserver):
  fail_requests   the next N requests get 500 M_UNKNOWN
  fail_share      a share (0..1) of the requests of fail_users (all users
                  when empty) get 500 M_UNKNOWN, drawn from a seeded
                  generator; failed_paths lists them
  limit_sends     the next N sends get 429 M_LIMIT_EXCEEDED, retry_after_ms
  drop_syncs      the next N /sync requests are cut off mid-response
  drop_sends      the next N sends are stored, then the connection is cut
                  before the answer (the client must retry, same txnId)
  drop_creates    the next N createRoom requests make their room, then the
                  connection is cut before the answer (as a client killed
                  or timed out meanwhile sees it)
  duplicate_syncs the next N /sync responses with events also repeat the
                  previous response's events
  hold_syncs      /sync answers nothing until released
  slow_joins      joins are answered only after this many seconds
  lazy_members    /sync leaves other members out of rooms' state sections,
                  as servers that lazy-load members do until they speak
"""

import itertools
import json
import random
import re
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SERVER_NAME = "localhost"


class MatrixError(Exception):
    def __init__(self, status, errcode, error, **extra):
        super().__init__(error)
        self.status = status
        self.body = {"errcode": errcode, "error": error}
        self.body.update(extra)


class Dropped(Exception):
    """The connection is to be closed without (the rest of) an answer."""

    def __init__(self, partial=b""):
        super().__init__("dropped")
        self.partial = partial


class Faults:
    def __init__(self):
        self.fail_requests = 0
        self.limit_sends = 0
        self.retry_after_ms = 200
        self.drop_syncs = 0
        self.drop_sends = 0
        self.drop_creates = 0
        self.duplicate_syncs = 0
        self.duplicates_served = 0
        self.hold_syncs = False
        self.slow_joins = 0
        self.fail_messages = 0
        self.fail_share = 0.0
        self.lazy_members = False
        self.fail_users = set()
        self.fail_rng = random.Random(0)
        self.failed_paths = []
        self.fail_rooms = set()   # sends into these rooms get 500


class User:
    def __init__(self, user_id, password, displayname):
        self.user_id = user_id
        self.password = password
        self.displayname = displayname
        self.account_data = {}  # type -> (content, pos)
        self.filters = {}


class Room:
    def __init__(self, room_id):
        self.room_id = room_id
        self.events = []  # (pos, event), in order
        self.state = {}  # (type, state_key) -> (pos, event)

    def membership(self, user_id):
        entry = self.state.get(("m.room.member", user_id))
        return entry[1]["content"].get("membership") if entry else None

    def membership_pos(self, user_id):
        entry = self.state.get(("m.room.member", user_id))
        return entry[0] if entry else 0

    def state_content(self, type_, key=""):
        entry = self.state.get((type_, key))
        return entry[1]["content"] if entry else None

    def members(self, membership="join"):
        return sorted(k for (t, k), (_, e) in self.state.items()
                      if t == "m.room.member"
                      and e["content"].get("membership") == membership)

    def power(self, user_id):
        pl = self.state_content("m.room.power_levels") or {}
        return pl.get("users", {}).get(user_id, pl.get("users_default", 0))

    def history_start(self, user_id):
        """The stream position after which a member who just joined sees
        the room's events (None: from the start): history_visibility
        shared and world_readable show everything, invited shows what
        came after the member's invite, joined what came after the join."""
        vis = (self.state_content("m.room.history_visibility") or
               {}).get("history_visibility", "shared")
        if vis in ("shared", "world_readable"):
            return None
        since = self.membership_pos(user_id) - 1
        if vis == "invited":
            for p, e in reversed(self.events):
                if p >= since:
                    continue
                if e["type"] == "m.room.member" and \
                        e.get("state_key") == user_id:
                    if e["content"].get("membership") != "invite":
                        break
                    since = p - 1
        return since

    def state_at(self, pos):
        """The state before stream position pos: {key: (pos, event)}."""
        state = {}
        for p, e in self.events:
            if p >= pos:
                break
            if "state_key" in e:
                state[(e["type"], e["state_key"])] = (p, e)
        return state


class State:
    """Everything the server knows; survives Homeserver.restart()."""

    def __init__(self):
        self.cond = threading.Condition(threading.RLock())
        self.users = {}
        self.tokens = {}  # token -> (user_id, device_id)
        self.rooms = {}
        self.aliases = {}
        self.pos = 0
        self.txns = {}  # (user_id, device_id, txn_id) -> event_id
        self.faults = Faults()
        self.requests = []  # (method, path, user_id or None)
        self.logins = []  # login bodies without the password
        self.last_since = {}  # token -> since of the previous /sync
        self.messages_served = 0  # /messages pages answered
        self.repeated_txns = 0  # sends answered as a transaction seen before
        self.counter = itertools.count(1)

    # Administration, for tests (no HTTP).

    def register(self, localpart, password="secret", displayname=None):
        with self.cond:
            user_id = "@%s:%s" % (localpart, SERVER_NAME)
            self.users[user_id] = User(user_id, password,
                                       displayname or localpart)
            return user_id

    def create_token(self, user_id, device_id=None):
        with self.cond:
            token = "tok_%d_%s" % (next(self.counter), user_id[1:4])
            self.tokens[token] = (user_id, device_id or
                                  "DEV%d" % next(self.counter))
            return token

    def new_id(self, sigil):
        return "%s%d_%s:%s" % (sigil, next(self.counter),
                               format(int(time.time() * 1000) % 100000, "x"),
                               SERVER_NAME)

    def add_event(self, room, sender, type_, content, state_key=None):
        with self.cond:
            self.pos += 1
            event = {
                "type": type_,
                "content": content,
                "sender": sender,
                "event_id": self.new_id("$"),
                "origin_server_ts": int(time.time() * 1000),
                "room_id": room.room_id,
            }
            if state_key is not None:
                event["state_key"] = state_key
                # As Synapse does: a state event carries what it replaced.
                prev = room.state.get((type_, state_key))
                if prev is not None:
                    event["unsigned"] = {"prev_content":
                                         prev[1]["content"]}
                room.state[(type_, state_key)] = (self.pos, event)
            room.events.append((self.pos, event))
            self.cond.notify_all()
            return event

    def set_account_data(self, user_id, type_, content):
        with self.cond:
            self.pos += 1
            self.users[user_id].account_data[type_] = (content, self.pos)
            self.cond.notify_all()

    def account_data(self, user_id, type_):
        with self.cond:
            entry = self.users[user_id].account_data.get(type_)
            return json.loads(json.dumps(entry[0])) if entry else None

    def room_events(self, room_id, type_="m.room.message", sender=None):
        with self.cond:
            return [e for _, e in self.rooms[room_id].events
                    if e["type"] == type_
                    and (sender is None or e["sender"] == sender)]

    def rooms_created_by(self, user_id):
        with self.cond:
            return [r.room_id for r in self.rooms.values()
                    if r.events and r.events[0][1]["type"] == "m.room.create"
                    and r.events[0][1]["sender"] == user_id]

    def resolve(self, room_or_alias):
        if room_or_alias.startswith("#"):
            room_id = self.aliases.get(room_or_alias)
            if room_id is None:
                raise MatrixError(404, "M_NOT_FOUND", "Room alias not found")
            return self.rooms[room_id]
        room = self.rooms.get(room_or_alias)
        if room is None:
            raise MatrixError(404, "M_NOT_FOUND", "Unknown room")
        return room

    # Room operations shared by the HTTP API and the tests.

    def create_room(self, creator, body):
        with self.cond:
            preset = body.get("preset") or (
                "public_chat" if body.get("visibility") == "public"
                else "private_chat")
            room = Room(self.new_id("!"))
            self.rooms[room.room_id] = room
            invite = list(body.get("invite", []))
            for user_id in invite:
                if user_id not in self.users:
                    raise MatrixError(400, "M_INVALID_PARAM",
                                      "Unknown user %s" % user_id)
            alias = None
            if body.get("room_alias_name"):
                alias = "#%s:%s" % (body["room_alias_name"], SERVER_NAME)
                if alias in self.aliases:
                    raise MatrixError(400, "M_ROOM_IN_USE",
                                      "Room alias already taken")
            self.add_event(room, creator, "m.room.create",
                           {"creator": creator, "room_version": "10"}, "")
            self.add_event(room, creator, "m.room.member",
                           self.member_content(creator, "join"), creator)
            users = {creator: 100}
            if preset == "trusted_private_chat":
                for user_id in invite:
                    users[user_id] = 100
            power = {"users": users, "users_default": 0, "events_default": 0,
                     "state_default": 50, "ban": 50, "kick": 50,
                     "redact": 50, "invite": 0}
            power.update(body.get("power_level_content_override", {}))
            self.add_event(room, creator, "m.room.power_levels", power, "")
            join_rule = "public" if preset == "public_chat" else "invite"
            self.add_event(room, creator, "m.room.join_rules",
                           {"join_rule": join_rule}, "")
            self.add_event(room, creator, "m.room.history_visibility",
                           {"history_visibility": "shared"}, "")
            for ev in body.get("initial_state", []):
                self.add_event(room, creator, ev["type"], ev["content"],
                               ev.get("state_key", ""))
            if body.get("name"):
                self.add_event(room, creator, "m.room.name",
                               {"name": body["name"]}, "")
            if alias:
                self.aliases[alias] = room.room_id
                self.add_event(room, creator, "m.room.canonical_alias",
                               {"alias": alias}, "")
            for user_id in invite:
                content = self.member_content(user_id, "invite")
                if body.get("is_direct"):
                    content["is_direct"] = True
                self.add_event(room, creator, "m.room.member", content,
                               user_id)
            return room

    def member_content(self, user_id, membership):
        content = {"membership": membership}
        user = self.users.get(user_id)
        if user is not None and membership in ("join", "invite"):
            content["displayname"] = user.displayname
        return content

    def join(self, user_id, room_or_alias):
        with self.cond:
            room = self.resolve(room_or_alias)
            now = room.membership(user_id)
            if now == "ban":
                raise MatrixError(403, "M_FORBIDDEN", "You are banned")
            rule = (room.state_content("m.room.join_rules") or
                    {}).get("join_rule", "invite")
            if now not in ("join", "invite") and rule != "public":
                raise MatrixError(403, "M_FORBIDDEN",
                                  "You are not invited to this room")
            if now != "join":
                self.add_event(room, user_id, "m.room.member",
                               self.member_content(user_id, "join"), user_id)
            return room

    def leave(self, user_id, room_id):
        with self.cond:
            room = self.resolve(room_id)
            if room.membership(user_id) not in ("join", "invite"):
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            self.add_event(room, user_id, "m.room.member",
                           {"membership": "leave"}, user_id)

    def invite(self, sender, room_id, user_id, is_direct=False):
        with self.cond:
            room = self.resolve(room_id)
            if room.membership(sender) != "join":
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            need = (room.state_content("m.room.power_levels") or
                    {}).get("invite", 0)
            if room.power(sender) < need:
                raise MatrixError(403, "M_FORBIDDEN",
                                  "Not allowed to invite")
            if user_id not in self.users:
                raise MatrixError(404, "M_NOT_FOUND", "Unknown user")
            if room.membership(user_id) in ("join", "ban"):
                raise MatrixError(403, "M_FORBIDDEN",
                                  "Already in the room or banned")
            content = self.member_content(user_id, "invite")
            if is_direct:
                content["is_direct"] = True
            self.add_event(room, sender, "m.room.member", content, user_id)

    def kick(self, sender, room_id, user_id, reason=None, ban=False):
        with self.cond:
            room = self.resolve(room_id)
            if room.power(sender) < 50 or room.power(sender) <= \
                    room.power(user_id):
                raise MatrixError(403, "M_FORBIDDEN",
                                  "Not allowed to kick or ban")
            content = {"membership": "ban" if ban else "leave"}
            if reason:
                content["reason"] = reason
            self.add_event(room, sender, "m.room.member", content, user_id)

    def set_displayname(self, user_id, name):
        with self.cond:
            self.users[user_id].displayname = name
            for room in self.rooms.values():
                if room.membership(user_id) == "join":
                    self.add_event(room, user_id, "m.room.member",
                                   self.member_content(user_id, "join"),
                                   user_id)


def type_matches(patterns, type_):
    if patterns is None:
        return True
    for p in patterns:
        if p == type_ or (p.endswith("*") and type_.startswith(p[:-1])):
            return True
    return False


def client_event(event):
    e = {k: v for k, v in event.items() if k != "room_id"}
    e["unsigned"] = dict(event.get("unsigned", {}))
    e["unsigned"]["age"] = max(0, int(time.time() * 1000) -
                               event["origin_server_ts"])
    return e


def stripped(event):
    return {k: event[k] for k in ("type", "state_key", "content", "sender")}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "matrix-test-homeserver/1"

    routes = [
        ("GET", r"/_matrix/client/versions", "versions"),
        ("GET", r"/_matrix/client/v3/login", "login_flows"),
        ("POST", r"/_matrix/client/v3/login", "login"),
        ("GET", r"/_matrix/client/v3/account/whoami", "whoami"),
        ("POST", r"/_matrix/client/v3/user/([^/]+)/filter", "filter_post"),
        ("GET", r"/_matrix/client/v3/user/([^/]+)/filter/([^/]+)",
         "filter_get"),
        ("GET", r"/_matrix/client/v3/sync", "sync"),
        ("POST", r"/_matrix/client/v3/join/([^/]+)", "join"),
        ("POST", r"/_matrix/client/v3/rooms/([^/]+)/join", "join"),
        ("POST", r"/_matrix/client/v3/rooms/([^/]+)/leave", "leave"),
        ("POST", r"/_matrix/client/v3/rooms/([^/]+)/invite", "invite"),
        ("POST", r"/_matrix/client/v3/rooms/([^/]+)/kick", "kick"),
        ("POST", r"/_matrix/client/v3/rooms/([^/]+)/ban", "ban"),
        ("POST", r"/_matrix/client/v3/createRoom", "create_room"),
        ("PUT", r"/_matrix/client/v3/rooms/([^/]+)/send/([^/]+)/([^/]+)",
         "send"),
        ("PUT", r"/_matrix/client/v3/rooms/([^/]+)/state/([^/]+)/?([^/]*)",
         "state_put"),
        ("GET", r"/_matrix/client/v3/rooms/([^/]+)/state", "state_all"),
        ("GET", r"/_matrix/client/v3/rooms/([^/]+)/state/([^/]+)/?([^/]*)",
         "state_get"),
        ("GET", r"/_matrix/client/v3/rooms/([^/]+)/joined_members",
         "joined_members"),
        ("GET", r"/_matrix/client/v3/rooms/([^/]+)/messages", "messages"),
        ("GET", r"/_matrix/client/v3/user/([^/]+)/account_data/([^/]+)",
         "account_data_get"),
        ("PUT", r"/_matrix/client/v3/user/([^/]+)/account_data/([^/]+)",
         "account_data_put"),
        ("GET", r"/_matrix/client/v3/profile/([^/]+)", "profile"),
        ("PUT", r"/_matrix/client/v3/profile/([^/]+)/displayname",
         "displayname_put"),
    ]

    def log_message(self, format, *args):
        pass

    def setup(self):
        super().setup()
        self.server.track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    @property
    def state(self):
        return self.server.state

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429 and "retry_after_ms" in body:
            self.send_header("Retry-After",
                             str((body["retry_after_ms"] + 999) // 1000))
        self.end_headers()
        self.wfile.write(data)

    def drop(self, partial=b""):
        try:
            if partial:
                self.wfile.write(partial)
                self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    def dispatch(self, method):
        url = urllib.parse.urlsplit(self.path)
        self.query = urllib.parse.parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            if self.server.stopping:
                raise Dropped()
            self.body = json.loads(raw) if raw else {}
            if not isinstance(self.body, dict):
                raise MatrixError(400, "M_NOT_JSON", "Content not JSON")
            for m, pattern, name in self.routes:
                match = re.fullmatch(pattern, url.path)
                if match and m == method:
                    args = [urllib.parse.unquote(a) for a in match.groups()]
                    break
            else:
                raise MatrixError(404, "M_UNRECOGNIZED",
                                  "Unrecognized request")
            self.user_id = None
            with self.state.cond:
                self.state.requests.append((method, url.path,
                                            self.token_user()))
                faults = self.state.faults
                if faults.fail_requests > 0:
                    faults.fail_requests -= 1
                    raise MatrixError(500, "M_UNKNOWN",
                                      "Internal server error (injected)")
                if faults.fail_share > 0 and (
                        not faults.fail_users or
                        self.token_user() in faults.fail_users) and \
                        faults.fail_rng.random() < faults.fail_share:
                    faults.failed_paths.append(url.path)
                    raise MatrixError(500, "M_UNKNOWN",
                                      "Internal server error (injected)")
            status, body = getattr(self, "r_" + name)(*args)
            self.reply(status, body)
        except MatrixError as e:
            self.reply(e.status, e.body)
        except Dropped as e:
            self.drop(e.partial)
        except json.JSONDecodeError:
            self.reply(400, {"errcode": "M_NOT_JSON",
                             "error": "Content not JSON"})

    def token(self):
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:]
        return (self.query.get("access_token") or [None])[0]

    def token_user(self):
        entry = self.state.tokens.get(self.token())
        return entry[0] if entry else None

    def auth(self):
        token = self.token()
        if token is None:
            raise MatrixError(401, "M_MISSING_TOKEN", "Missing access token")
        with self.state.cond:
            entry = self.state.tokens.get(token)
        if entry is None:
            raise MatrixError(401, "M_UNKNOWN_TOKEN",
                              "Unknown access token", soft_logout=False)
        self.user_id, self.device_id = entry
        return token

    def own(self, user_id):
        if user_id != self.user_id:
            raise MatrixError(403, "M_FORBIDDEN",
                              "Cannot act for other users")

    # Routes: each returns (status, body) or raises MatrixError.

    def r_versions(self):
        return 200, {"versions": ["r0.6.1", "v1.1", "v1.2", "v1.3", "v1.4",
                                  "v1.5", "v1.6", "v1.7", "v1.8"]}

    def r_login_flows(self):
        return 200, {"flows": [{"type": "m.login.password"}]}

    def r_login(self):
        b = self.body
        if b.get("type") != "m.login.password":
            raise MatrixError(400, "M_UNKNOWN", "Unknown login type")
        ident = b.get("identifier", {})
        if ident.get("type") != "m.id.user" or "user" not in ident:
            raise MatrixError(400, "M_UNKNOWN", "Bad identifier")
        user = ident["user"]
        if not user.startswith("@"):
            user = "@%s:%s" % (user, SERVER_NAME)
        with self.state.cond:
            self.state.logins.append({k: v for k, v in b.items()
                                      if k != "password"})
            u = self.state.users.get(user)
            if u is None or b.get("password") != u.password:
                raise MatrixError(403, "M_FORBIDDEN",
                                  "Invalid username or password")
            device = b.get("device_id") or "DEV%d" % next(self.state.counter)
            # A login with a device id replaces the device's old token.
            for t, (uid, dev) in list(self.state.tokens.items()):
                if uid == user and dev == device:
                    del self.state.tokens[t]
            token = self.state.create_token(user, device)
        return 200, {"user_id": user, "access_token": token,
                     "device_id": device, "home_server": SERVER_NAME}

    def r_whoami(self):
        self.auth()
        return 200, {"user_id": self.user_id, "device_id": self.device_id,
                     "is_guest": False}

    def r_filter_post(self, user_id):
        self.auth()
        self.own(user_id)
        with self.state.cond:
            fid = str(next(self.state.counter))
            self.state.users[user_id].filters[fid] = self.body
        return 200, {"filter_id": fid}

    def r_filter_get(self, user_id, fid):
        self.auth()
        self.own(user_id)
        f = self.state.users[user_id].filters.get(fid)
        if f is None:
            raise MatrixError(404, "M_NOT_FOUND", "No such filter")
        return 200, f

    def r_join(self, room_or_alias):
        self.auth()
        room = self.state.join(self.user_id, room_or_alias)
        # Joined already: only the answer is late.
        time.sleep(self.state.faults.slow_joins)
        return 200, {"room_id": room.room_id}

    def r_leave(self, room_id):
        self.auth()
        self.state.leave(self.user_id, room_id)
        return 200, {}

    def r_invite(self, room_id):
        self.auth()
        self.state.invite(self.user_id, room_id, self.body.get("user_id"))
        return 200, {}

    def r_kick(self, room_id):
        self.auth()
        self.state.kick(self.user_id, room_id, self.body.get("user_id"),
                        self.body.get("reason"))
        return 200, {}

    def r_ban(self, room_id):
        self.auth()
        self.state.kick(self.user_id, room_id, self.body.get("user_id"),
                        self.body.get("reason"), ban=True)
        return 200, {}

    def r_create_room(self):
        self.auth()
        room = self.state.create_room(self.user_id, self.body)
        with self.state.cond:
            if self.state.faults.drop_creates > 0:
                self.state.faults.drop_creates -= 1
                raise Dropped()
        return 200, {"room_id": room.room_id}

    def r_send(self, room_id, type_, txn_id):
        self.auth()
        st = self.state
        with st.cond:
            if st.faults.limit_sends > 0:
                st.faults.limit_sends -= 1
                raise MatrixError(429, "M_LIMIT_EXCEEDED", "Too many requests",
                                  retry_after_ms=st.faults.retry_after_ms)
            if room_id in st.faults.fail_rooms:
                raise MatrixError(500, "M_UNKNOWN", "injected: room failing")
            key = (self.user_id, self.device_id, txn_id)
            if key in st.txns:
                st.repeated_txns += 1
                return 200, {"event_id": st.txns[key]}
            room = st.resolve(room_id)
            if room.membership(self.user_id) != "join":
                raise MatrixError(403, "M_FORBIDDEN",
                                  "User %s not in room %s" %
                                  (self.user_id, room_id))
            # The spec's authorization rules: the sender's power level
            # must reach the event type's level, else events_default.
            pl = room.state_content("m.room.power_levels") or {}
            need = pl.get("events", {}).get(type_,
                                            pl.get("events_default", 0))
            if room.power(self.user_id) < need:
                raise MatrixError(403, "M_FORBIDDEN",
                                  "You don't have permission to post "
                                  "that to the room")
            event = st.add_event(room, self.user_id, type_, self.body)
            st.txns[key] = event["event_id"]
            if st.faults.drop_sends > 0:
                st.faults.drop_sends -= 1
                raise Dropped()
        return 200, {"event_id": event["event_id"]}

    def r_state_put(self, room_id, type_, key):
        self.auth()
        with self.state.cond:
            room = self.state.resolve(room_id)
            if room.membership(self.user_id) != "join" or \
                    room.power(self.user_id) < 50:
                raise MatrixError(403, "M_FORBIDDEN",
                                  "Not allowed to send state")
            event = self.state.add_event(room, self.user_id, type_,
                                         self.body, key)
        return 200, {"event_id": event["event_id"]}

    def r_state_all(self, room_id):
        self.auth()
        with self.state.cond:
            room = self.state.resolve(room_id)
            if room.membership(self.user_id) != "join":
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            return 200, [client_event(e) for _, e in room.state.values()]

    def r_state_get(self, room_id, type_, key):
        self.auth()
        with self.state.cond:
            room = self.state.resolve(room_id)
            if room.membership(self.user_id) != "join":
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            content = room.state_content(type_, key)
        if content is None:
            raise MatrixError(404, "M_NOT_FOUND", "Event not found")
        return 200, content

    def r_joined_members(self, room_id):
        self.auth()
        with self.state.cond:
            room = self.state.resolve(room_id)
            if room.membership(self.user_id) != "join":
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            joined = {}
            for user_id in room.members("join"):
                content = room.state_content("m.room.member", user_id)
                joined[user_id] = {"display_name": content.get("displayname"),
                                   "avatar_url": None}
        return 200, {"joined": joined}

    @staticmethod
    def stream_pos(token):
        """The position a /sync or /messages token stands for: "sN" (a
        next_batch) and "tN" (a prev_batch or an end) both mean after
        position N."""
        if token is None or not re.fullmatch(r"[st]\d+", token):
            raise MatrixError(400, "M_INVALID_PARAM", "Bad token")
        return int(token[1:])

    def r_messages(self, room_id):
        """Backwards pagination only (dir=b), as the bot uses it: the
        room's events at or before from and after to, newest first."""
        self.auth()
        q = self.query
        with self.state.cond:
            room = self.state.resolve(room_id)
            if room.membership(self.user_id) != "join":
                raise MatrixError(403, "M_FORBIDDEN", "Not in the room")
            if (q.get("dir") or ["f"])[0] != "b":
                raise MatrixError(400, "M_INVALID_PARAM", "dir=b only")
            start = self.stream_pos((q.get("from") or [None])[0])
            to = q.get("to")
            stop = self.stream_pos(to[0]) if to else -1
            limit = int((q.get("limit") or ["10"])[0])
            if self.state.faults.fail_messages > 0:
                self.state.faults.fail_messages -= 1
                raise MatrixError(500, "M_UNKNOWN",
                                  "Internal server error (injected)")
            events = [(p, e) for p, e in room.events if stop < p <= start]
            events.reverse()
            chunk = events[:limit]
            self.state.messages_served += 1
        body = {"start": q["from"][0],
                "chunk": [client_event(e) for _, e in chunk]}
        if len(events) > limit:
            body["end"] = "t%d" % (chunk[-1][0] - 1)
        return 200, body

    def r_account_data_get(self, user_id, type_):
        self.auth()
        self.own(user_id)
        content = self.state.account_data(user_id, type_)
        if content is None:
            raise MatrixError(404, "M_NOT_FOUND", "Account data not found")
        return 200, content

    def r_account_data_put(self, user_id, type_):
        self.auth()
        self.own(user_id)
        self.state.set_account_data(user_id, type_, self.body)
        return 200, {}

    def r_profile(self, user_id):
        user = self.state.users.get(user_id)
        if user is None:
            raise MatrixError(404, "M_NOT_FOUND", "Profile not found")
        return 200, {"displayname": user.displayname}

    def r_displayname_put(self, user_id):
        self.auth()
        self.own(user_id)
        self.state.set_displayname(user_id, self.body.get("displayname"))
        return 200, {}

    def r_sync(self):
        token = self.auth()
        st = self.state
        q = self.query
        since = (q.get("since") or [None])[0]
        since_pos = None
        if since is not None:
            if not re.fullmatch(r"s\d+", since):
                raise MatrixError(400, "M_INVALID_PARAM", "Bad since token")
            since_pos = int(since[1:])
        timeout = int((q.get("timeout") or ["0"])[0]) / 1000.0
        full_state = (q.get("full_state") or ["false"])[0] == "true"
        flt = self.load_filter((q.get("filter") or [None])[0])
        deadline = time.monotonic() + timeout
        with st.cond:
            drop = st.faults.drop_syncs > 0
            if drop:
                st.faults.drop_syncs -= 1
            effective = since_pos
            duplicate = (st.faults.duplicate_syncs > 0 and
                         since_pos is not None and
                         st.last_since.get(token) is not None)
            if duplicate:
                effective = st.last_since[token]
            while True:
                if self.server.stopping:
                    raise Dropped()
                if st.faults.hold_syncs:
                    st.cond.wait(0.05)
                    continue
                body, changed = self.build_sync(effective, full_state, flt)
                if duplicate and not self.has_timeline(body):
                    # Nothing to repeat yet: wait for fresh events.
                    body, changed = self.build_sync(since_pos, full_state,
                                                    flt)
                    if changed:
                        break
                elif since_pos is None or full_state or changed:
                    if duplicate:
                        st.faults.duplicate_syncs -= 1
                        st.faults.duplicates_served += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                st.cond.wait(min(left, 0.25))
            st.last_since[token] = since_pos
        if drop:
            time.sleep(0.05)
            data = json.dumps(body).encode()
            head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    "Content-Length: %d\r\n\r\n" % len(data)).encode()
            raise Dropped(head + data[:len(data) // 2])
        return 200, body

    @staticmethod
    def has_timeline(body):
        return any(r["timeline"]["events"]
                   for r in body["rooms"]["join"].values())

    def load_filter(self, fid):
        if fid is None:
            return {}
        if fid.startswith("{"):
            return json.loads(fid)
        f = self.state.users[self.user_id].filters.get(fid)
        if f is None:
            raise MatrixError(400, "M_INVALID_PARAM", "Unknown filter")
        return f

    def build_sync(self, since, full_state, flt):
        """The /sync response since stream position since (None: initial);
        changed tells whether it holds anything new."""
        st = self.state
        me = self.user_id
        room_f = flt.get("room", {})
        tl_types = room_f.get("timeline", {}).get("types")
        tl_limit = room_f.get("timeline", {}).get("limit", 10)
        st_types = room_f.get("state", {}).get("types")
        ad_types = flt.get("account_data", {}).get("types")
        join, invite, leave = {}, {}, {}
        changed = False
        for room in st.rooms.values():
            membership = room.membership(me)
            mpos = room.membership_pos(me)
            if membership == "join":
                newly = since is not None and mpos > since
                # A room joined since the last sync shows the history its
                # history_visibility allows, as Synapse does.
                start = room.history_start(me) if newly else since
                events = [(p, e) for p, e in room.events
                          if (start is None or p > start)
                          and type_matches(tl_types, e["type"])]
                limited = len(events) > tl_limit
                events = events[-tl_limit:] if tl_limit > 0 else []
                if since is not None and not events and not full_state \
                        and not newly:
                    continue
                if events:
                    first = events[0][0]
                elif start is not None:
                    first = start + 1
                else:
                    first = st.pos + 1
                before = room.state_at(first)
                whole = since is None or full_state or newly or limited
                state = [client_event(e) for p, e in before.values()
                         if (whole or p > since)
                         and type_matches(st_types, e["type"])]
                if since is not None and not whole:
                    state = []
                if st.faults.lazy_members:
                    state = [e for e in state
                             if e["type"] != "m.room.member"
                             or e["state_key"] == me]
                join[room.room_id] = {
                    "timeline": {"events": [client_event(e)
                                            for _, e in events],
                                 "limited": limited,
                                 "prev_batch": "t%d" % (first - 1)},
                    "state": {"events": state},
                    "account_data": {"events": []},
                    "ephemeral": {"events": []},
                    "summary": {"m.joined_member_count":
                                len(room.members("join")),
                                "m.invited_member_count":
                                len(room.members("invite"))},
                    "unread_notifications": {"highlight_count": 0,
                                             "notification_count": 0},
                }
                changed = changed or bool(events) or newly
            elif membership == "invite":
                if since is not None and mpos <= since and not full_state:
                    continue
                events = [stripped(e) for (t, k), (p, e) in
                          room.state.items()
                          if t in ("m.room.create", "m.room.name",
                                   "m.room.join_rules",
                                   "m.room.canonical_alias",
                                   "m.room.encryption")
                          or (t == "m.room.member" and k == me)]
                invite[room.room_id] = {"invite_state": {"events": events}}
                changed = changed or since is None or mpos > since
            elif membership in ("leave", "ban"):
                if since is None or mpos <= since:
                    continue
                events = [client_event(e) for p, e in room.events
                          if since < p <= mpos
                          and type_matches(tl_types, e["type"])]
                leave[room.room_id] = {"timeline": {"events": events,
                                                    "limited": False},
                                       "state": {"events": []},
                                       "account_data": {"events": []}}
                changed = True
        account = []
        user = st.users[me]
        for type_, (content, pos) in user.account_data.items():
            if (since is None or pos > since) and \
                    type_matches(ad_types, type_):
                account.append({"type": type_, "content": content})
                changed = True
        body = {
            "next_batch": "s%d" % st.pos,
            "rooms": {"join": join, "invite": invite, "leave": leave,
                      "knock": {}},
            "account_data": {"events": account},
            "presence": {"events": []},
            "to_device": {"events": []},
            "device_lists": {"changed": [], "left": []},
            "device_one_time_keys_count": {},
        }
        return body, changed


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, state):
        self.state = state
        self.stopping = False
        self.connections = set()
        self.conn_lock = threading.Lock()
        super().__init__(address, Handler)

    def handle_error(self, request, client_address):
        # Cut connections are part of the tests, not errors to print.
        pass

    def track(self, conn, add):
        with self.conn_lock:
            if add:
                self.connections.add(conn)
            else:
                self.connections.discard(conn)


class Homeserver:
    """The server: start(), stop(), restart() keeping its State."""

    def __init__(self, state=None, port=0):
        self.state = state or State()
        self.port = port
        self.server = None
        self.thread = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self):
        for attempt in range(50):
            try:
                self.server = Server(("127.0.0.1", self.port), self.state)
                break
            except OSError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()
        return self

    def stop(self):
        """Stops like a killed process: open connections are cut."""
        server = self.server
        if server is None:
            return
        server.stopping = True
        with self.state.cond:
            self.state.cond.notify_all()
        server.shutdown()
        server.server_close()
        with server.conn_lock:
            for conn in list(server.connections):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.thread.join(5)
        self.server = None

    def restart(self, downtime=0.5):
        self.stop()
        time.sleep(downtime)
        self.start()

    # Fault switches.

    def fail_requests(self, n):
        with self.state.cond:
            self.state.faults.fail_requests = n

    def fail_share(self, share, users=(), seed=1):
        """A share of the requests of users (everyone: empty) fail with
        500 from now on, drawn from a generator seeded with seed; 0 ends
        it.  Returns the list the failed request paths are added to."""
        with self.state.cond:
            f = self.state.faults
            f.fail_share = share
            f.fail_users = set(users)
            f.fail_rng = random.Random(seed)
            f.failed_paths = []
            return f.failed_paths

    def fail_messages(self, n):
        """The next n /messages requests fail with 500."""
        with self.state.cond:
            self.state.faults.fail_messages = n

    def limit_sends(self, n, retry_after_ms=200):
        with self.state.cond:
            self.state.faults.limit_sends = n
            self.state.faults.retry_after_ms = retry_after_ms

    def fail_room_sends(self, room_id, on):
        """Sends into room_id (its id) fail with 500 while on."""
        with self.state.cond:
            if on:
                self.state.faults.fail_rooms.add(room_id)
            else:
                self.state.faults.fail_rooms.discard(room_id)

    def drop_syncs(self, n):
        with self.state.cond:
            self.state.faults.drop_syncs = n

    def drop_sends(self, n):
        with self.state.cond:
            self.state.faults.drop_sends = n

    def drop_creates(self, n):
        with self.state.cond:
            self.state.faults.drop_creates = n

    def duplicate_syncs(self, n):
        with self.state.cond:
            self.state.faults.duplicate_syncs = n

    def slow_joins(self, seconds):
        with self.state.cond:
            self.state.faults.slow_joins = seconds

    def hold_syncs(self, hold):
        with self.state.cond:
            self.state.faults.hold_syncs = hold
            self.state.cond.notify_all()


if __name__ == "__main__":
    import sys

    hs = Homeserver(port=int(sys.argv[1]) if len(sys.argv) > 1 else 8008)
    hs.state.register("bot", "secret", "Stichbot")
    hs.state.register("alice", "secret", "Alice")
    hs.start()
    print("listening on", hs.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        hs.stop()

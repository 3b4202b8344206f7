"""A scripted Matrix player for tests: logs in, syncs, joins rooms, opens
direct rooms and writes messages, over the client-server API v3 with the
standard library only (urllib)."""

import itertools
import json
import time
import urllib.error
import urllib.parse
import urllib.request


class RequestError(Exception):
    def __init__(self, status, body):
        super().__init__("HTTP %d: %s" % (status, body))
        self.status = status
        self.body = body


def quote(s):
    return urllib.parse.quote(s, safe="")


class MatrixClient:
    _txn = itertools.count(1)

    def __init__(self, base_url, user_id, password="secret"):
        self.base = base_url.rstrip("/")
        self.user_id = user_id
        self.password = password
        self.token = None
        self.device_id = None
        self.since = None
        # room id -> timeline events seen by sync(), in order
        self.timelines = {}
        self.invites = set()
        self.account_data = {}
        # An inline /sync filter (a dict), e.g. a longer timeline limit.
        self.filter = None
        self.seen_ids = set()

    def request(self, method, path, body=None, query=None, timeout=10):
        url = self.base + "/_matrix/client" + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else None
        if data is None and method in ("POST", "PUT"):
            data = b"{}"
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            raise RequestError(e.code, json.loads(e.read() or b"{}"))

    def login(self):
        r = self.request("POST", "/v3/login", {
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": self.user_id},
            "password": self.password,
            "initial_device_display_name": "test client",
        })
        self.token = r["access_token"]
        self.device_id = r["device_id"]
        return self

    def whoami(self):
        return self.request("GET", "/v3/account/whoami")

    def create_room(self, **body):
        return self.request("POST", "/v3/createRoom", body)["room_id"]

    def create_dm(self, user_id, encrypted=False):
        body = {"preset": "trusted_private_chat", "is_direct": True,
                "invite": [user_id]}
        if encrypted:
            body["initial_state"] = [{
                "type": "m.room.encryption", "state_key": "",
                "content": {"algorithm": "m.megolm.v1.aes-sha2"}}]
        room_id = self.create_room(**body)
        direct = self.get_account_data("m.direct") or {}
        direct.setdefault(user_id, []).append(room_id)
        self.put_account_data("m.direct", direct)
        return room_id

    def join(self, room):
        return self.request("POST", "/v3/join/" + quote(room))["room_id"]

    def leave(self, room_id):
        self.request("POST", "/v3/rooms/%s/leave" % quote(room_id))

    def invite(self, room_id, user_id):
        self.request("POST", "/v3/rooms/%s/invite" % quote(room_id),
                     {"user_id": user_id})

    def kick(self, room_id, user_id, reason=None):
        body = {"user_id": user_id}
        if reason:
            body["reason"] = reason
        self.request("POST", "/v3/rooms/%s/kick" % quote(room_id), body)

    def send(self, room_id, content, type_="m.room.message"):
        txn = "c%d.%d" % (int(time.time() * 1000), next(self._txn))
        return self.request("PUT", "/v3/rooms/%s/send/%s/%s" % (
            quote(room_id), quote(type_), txn), content)["event_id"]

    def say(self, room_id, body):
        return self.send(room_id, {"msgtype": "m.text", "body": body})

    def send_encrypted(self, room_id):
        return self.send(room_id, {
            "algorithm": "m.megolm.v1.aes-sha2",
            "ciphertext": "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg",
            "device_id": self.device_id or "X",
            "sender_key": "IlRMeOPX2e0MurIyfWEucYBRVOEEUMrOHqn/8mLqMjA",
            "session_id": "X3lUlvLELLYxeTx4yOVu6UDpasGEVO0Jbu+QFnm0cKQ",
        }, "m.room.encrypted")

    def set_state(self, room_id, type_, content, key=""):
        self.request("PUT", "/v3/rooms/%s/state/%s/%s" % (
            quote(room_id), quote(type_), quote(key)), content)

    def set_displayname(self, name):
        self.request("PUT", "/v3/profile/%s/displayname" %
                     quote(self.user_id), {"displayname": name})

    def get_account_data(self, type_):
        try:
            return self.request("GET", "/v3/user/%s/account_data/%s" % (
                quote(self.user_id), quote(type_)))
        except RequestError as e:
            if e.status == 404:
                return None
            raise

    def put_account_data(self, type_, content):
        self.request("PUT", "/v3/user/%s/account_data/%s" % (
            quote(self.user_id), quote(type_)), content)

    def sync(self, timeout_ms=0):
        query = {"timeout": str(timeout_ms)}
        if self.since:
            query["since"] = self.since
        if self.filter is not None:
            query["filter"] = json.dumps(self.filter)
        r = self.request("GET", "/v3/sync", query=query,
                         timeout=timeout_ms / 1000 + 10)
        self.since = r["next_batch"]
        for room_id, room in r["rooms"]["join"].items():
            self.invites.discard(room_id)
            timeline = self.timelines.setdefault(room_id, [])
            for ev in room["timeline"]["events"]:
                # A room joined late repeats nothing, but be safe.
                if ev["event_id"] not in self.seen_ids:
                    self.seen_ids.add(ev["event_id"])
                    timeline.append(ev)
        for room_id in r["rooms"]["invite"]:
            self.invites.add(room_id)
        for room_id in r["rooms"]["leave"]:
            self.invites.discard(room_id)
        for ev in r["account_data"]["events"]:
            self.account_data[ev["type"]] = ev["content"]
        return r

    def messages(self, room_id, sender=None):
        """The contents of m.room.message events seen in room_id."""
        return [e["content"] for e in self.timelines.get(room_id, [])
                if e["type"] == "m.room.message"
                and (sender is None or e["sender"] == sender)]

    def wait_for(self, predicate, timeout=15):
        """Syncs until predicate(self) holds; returns its value."""
        end = time.monotonic() + timeout
        while True:
            value = predicate(self)
            if value:
                return value
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("%s: timed out waiting" % self.user_id)
            self.sync(timeout_ms=int(min(left, 1) * 1000))

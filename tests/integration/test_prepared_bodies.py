"""Prepared bodies (docs/performance.md): GET /schemas/ids/{id} and
GET /subjects/{s}/versions/{v|latest} are rendered once per variant and then
served as kept. Every variant a long-running node serves, before and after a
soft delete, a new version and config changes, must be byte-identical to
what a node started afterwards on the same database renders fresh."""

import http.client
import json
import re
import threading
import time

import harness
from harness import avro_record, quote

EXT = {"Confluent-Accept-Unknown-Properties": "true"}
PROFILES = (("classic", None), ("extended", EXT))
# Every ?format= with a prepared body of its own, and some rendered every time.
FORMATS = (None, "", "resolved", "serialized", "ignore_extensions", "RESOLVED", "no-such-format")

PROTO = 'syntax = "proto3";\npackage bodies;\n\nmessage Order {\n  int64 id = 1;\n  string note = 2;\n}\n'
JSON_SCHEMA = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})


class PreparedBodies(harness.RegistryTestCase):

    def setUp(self):
        super().setUp()
        self.ids, self.versions = set(), []   # (subject, version text, deleted param)

    def reg(self, subject, schema, **kw):
        schema_id = self.register_ok(subject, schema, **kw)
        self.ids.add(schema_id)
        return schema_id

    def urls(self, subjects):
        """Every (path, params, headers) whose body could be prepared, and a few that never are."""
        out = []
        for schema_id in sorted(self.ids):
            extras = ({}, {"subject": subjects[0]}, {"fetchMaxId": "true"}, {"deleted": "true"})
            for extra in extras:
                out += self.variants(f"/schemas/ids/{schema_id}", extra)
        for subject in subjects:
            listed = self.get(f"/subjects/{quote(subject)}/versions", params={"deleted": "true"})
            for v in (listed.body if listed.status == 200 else []):
                for extra in ({}, {"deleted": "true"}):
                    out += self.variants(f"/subjects/{quote(subject)}/versions/{v}", extra)
            for latest in ("latest", "-1"):
                out += self.variants(f"/subjects/{quote(subject)}/versions/{latest}", {})
        return out

    @staticmethod
    def variants(path, extra):
        out = []
        for _, headers in PROFILES:
            for fmt in FORMATS:
                params = dict(extra)
                if fmt is not None:
                    params["format"] = fmt
                out.append((path, params, headers))
        return out

    def served(self, client, urls):
        return [(r.status, r.text) for r in
                (client.get(path, params=params, headers=headers) for path, params, headers in urls)]

    def compare_with_a_fresh_node(self, subjects, what):
        urls = self.urls(subjects)
        first = self.served(self.http, urls)      # rendered now, or kept from before the change
        again = self.served(self.http, urls)      # kept
        fresh_node = harness.Server(database_url=self.db.url, name="fresh").start()
        try:
            fresh = self.served(fresh_node.client(), urls)
        finally:
            fresh_node.stop()
        for (path, params, headers), a, b, f in zip(urls, first, again, fresh):
            with self.subTest(what=what, path=path, params=params, extended=bool(headers)):
                self.assertEqual(a, f)
                self.assertEqual(b, f)
        self.assertTrue(any(status == 200 for status, _ in fresh))

    def test_prepared_bodies_match_fresh_renders_across_changes(self):
        base, user, proto, js = self.sub("base"), self.sub("user"), self.sub("proto"), self.sub("json")
        subjects = [user, base, proto, js]
        self.reg(base, avro_record("Money", [("cents", "long")], namespace="bodies"))
        refs = [{"name": "bodies.Money", "subject": base, "version": 1}]
        self.reg(user, avro_record("Payment", [("amount", "bodies.Money")], namespace="bodies"),
                 references=refs)
        self.reg(proto, PROTO, schema_type="PROTOBUF")
        self.reg(js, JSON_SCHEMA, schema_type="JSON")
        self.compare_with_a_fresh_node(subjects, "registered")

        # A new version changes latest; a soft delete changes `deleted` and
        # which version is latest; config changes touch no body.
        self.put("/config/" + quote(user), {"compatibility": "NONE"})
        self.reg(user, avro_record("Payment", [("amount", "bodies.Money"), ("memo", "string", "")],
                                   namespace="bodies"), references=refs)
        self.reg(proto, PROTO.replace("string note = 2;", "string note = 2;\n  int32 qty = 3;"),
                 schema_type="PROTOBUF")
        self.compare_with_a_fresh_node(subjects, "new versions")

        self.assertEqual(self.delete_version(user, 2).status, 200)
        self.assertEqual(self.delete_subject(js).status, 200)
        self.compare_with_a_fresh_node(subjects, "soft deletes")

        self.assertEqual(self.put("/config", {"compatibility": "FORWARD"}).status, 200)
        self.assertEqual(self.put("/config/" + quote(proto), {"normalize": True}).status, 200)
        self.reg(js, JSON_SCHEMA, schema_type="JSON")      # live again, as a new version
        self.compare_with_a_fresh_node(subjects, "config changes, re-registration")

    def test_head_of_a_prepared_body_has_its_length_and_no_body(self):
        s = self.sub()
        schema_id = self.reg(s, avro_record("Head", [("a", "long")]))
        for path in (f"/schemas/ids/{schema_id}", f"/subjects/{quote(s)}/versions/latest"):
            body = self.get(path).text
            self.assertEqual(self.get(path).text, body)            # now served as kept
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
            try:
                for _ in range(2):                                  # and the connection goes on
                    conn.request("HEAD", path)
                    r = conn.getresponse()
                    self.assertEqual((r.status, r.read()), (200, b""), path)
                    self.assertEqual(r.getheader("Content-Length"), str(len(body.encode())), path)
                conn.request("GET", path)
                self.assertEqual(conn.getresponse().read().decode(), body)
            finally:
                conn.close()

    def test_every_request_has_one_whole_log_line(self):
        """The request log is written in batches (one write per turn of an
        event loop, server/http_server.c): still one whole line per request,
        in the format of every other line, from several threads at once."""
        schema_id = self.reg(self.sub(), avro_record("Logged", [("a", "long")]))
        tag = f"log{time.monotonic_ns()}"

        def hammer(n):
            client = self.http
            for i in range(200):
                self.assertEqual(client.get(f"/schemas/ids/{schema_id}?{tag}={n}-{i}").status, 200)
        threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(self.get(f"/schemas/ids/{schema_id}/x?{tag}=bad%0a\\").status, 404)
        line = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO GET /schemas/ids/%d(/x)?\?%s="
                          r"(\d+-\d+ 200|bad%%0a\\x5c 404) \d+us from=127\.0\.0\.1 principal=- rid=[0-9a-f]{32}"
                          % (schema_id, tag))
        deadline = time.monotonic() + 5
        while True:
            mine = [l for l in self.server.log_text().splitlines() if tag in l]
            if len(mine) >= 801 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(len(mine), 801)
        for l in mine:
            self.assertRegex(l, "^" + line.pattern + "$")
        seen = sorted(re.search(tag + r"=(\S+) ", l).group(1) for l in mine)
        expected = sorted([f"{n}-{i}" for n in range(4) for i in range(200)] + ["bad%0a\\x5c"])
        self.assertEqual(seen, expected)


if __name__ == "__main__":
    harness.main()

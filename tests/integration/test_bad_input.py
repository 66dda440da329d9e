"""Bad requests: malformed bodies, wrong types, invalid schemas, size limits,
invalid subject names (docs/api.md). Every refusal is
followed by a check that nothing changed: the subject list and the database."""

import json
import socket

import harness
from harness import avro_record, quote

MAX_SCHEMA = 1024


class BadInput(harness.RegistryTestCase):

    server_args = ("--max-schema-bytes", str(MAX_SCHEMA))

    def setUp(self):
        super().setUp()
        # Something to not change.
        self.existing = self.sub("existing")
        self.register_ok(self.existing, avro_record("Keep", [("a", "string")]))
        self.before = (self.subjects({"deleted": "true"}), self.db.state())

    def assert_unchanged(self):
        self.assertEqual((self.subjects({"deleted": "true"}), self.db.state()), self.before)

    def post_raw(self, subject, data, headers=None):
        return self.post(f"/subjects/{quote(subject)}/versions", data, headers=headers)

    def test_malformed_json_is_400(self):
        for data in ('{"schema": ', "{'schema': 'x'}", "not json", '{"schema": "\\"string\\""',
                     '{"schema": "\\"string\\""} trailing', "[1, 2", b'{"schema": "\xff"}'):
            with self.subTest(data=data):
                self.assert_error(self.post_raw(self.sub(), data), 400, 400)
                self.assert_error(self.post_raw(self.existing, data), 400, 400)
        self.assert_unchanged()

    def test_malformed_json_on_other_endpoints_is_400(self):
        s = self.existing
        for method, path in (("POST", f"/subjects/{quote(s)}"),
                             ("POST", f"/compatibility/subjects/{quote(s)}/versions/latest"),
                             ("PUT", "/config"), ("PUT", f"/config/{quote(s)}"),
                             ("PUT", "/mode"), ("PUT", f"/mode/{quote(s)}")):
            with self.subTest(method=method, path=path):
                self.assert_error(self.http.request(method, path, body='{"x": '), 400, 400)
        self.assert_unchanged()

    def test_wrong_field_types_are_400(self):
        bodies = [
            {"schema": {"type": "string"}},
            {"schema": 5},
            {"schema": ["string"]},
            {"schema": True},
            {"schema": '"string"', "schemaType": 5},
            {"schema": '"string"', "schemaType": ["AVRO"]},
            {"schema": '"string"', "references": "none"},
            {"schema": '"string"', "references": {"name": "x"}},
            {"schema": '"string"', "version": "one"},
            {"schema": '"string"', "id": "seven"},
        ]
        for body in bodies:
            with self.subTest(body=body):
                self.assert_error(self.post_raw(self.sub(), body), 400, 400)
        for body in ({"compatibility": 5}, {"compatibility": ["FULL"]}, {"normalize": "yes"}):
            with self.subTest(config=body):
                self.assert_error(self.put(f"/config/{quote(self.existing)}", body), 400, 400)
        self.assert_error(self.put("/mode", {"mode": 1}), 400, 400)
        self.assert_unchanged()

    def test_missing_body_is_422(self):
        for data in (None, b""):
            with self.subTest(data=data):
                self.assert_error(self.post_raw(self.sub(), data), 422, 422)
                self.assert_error(self.post(f"/subjects/{quote(self.existing)}", data), 422, 422)
                self.assert_error(self.post(
                    f"/compatibility/subjects/{quote(self.existing)}/versions/latest", data),
                    422, 422)
                self.assert_error(self.put("/config", data), 422, 422)
                self.assert_error(self.put("/mode", data), 422, 422)
        self.assert_unchanged()

    def test_invalid_avro_is_42201(self):
        # (An empty schema is not here: for an existing subject it means "the
        # latest schema again", docs/api.md.)
        schemas = [
            "not json at all",
            '{"type": "record"}',
            '{"type": "record", "name": "R"}',
            '{"type": "recordz", "name": "R", "fields": []}',
            '"strin"',
            '{"type": "enum", "name": "E", "symbols": ["A", "A"]}',
            '{"type": "fixed", "name": "F", "size": -1}',
            '["int", "int"]',
            '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "Undefined"}]}',
            '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"},'
            ' {"name": "a", "type": "int"}]}',
            # "Validate as new": a default that does not match its type.
            '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int", '
            '"default": "x"}]}',
            '{"type": "record", "name": "R-1", "fields": []}',
        ]
        for schema in schemas:
            with self.subTest(schema=schema):
                self.assert_error(self.register(self.sub(), schema), 422, 42201)
                self.assert_error(self.register(self.existing, schema), 422, 42201)
        self.assert_unchanged()

    def test_unknown_schema_type_is_42201(self):
        for schema_type in ("avro", "Avro", "XML", "", "PROTOBUF3", "json"):
            with self.subTest(schema_type=schema_type):
                self.assert_error(self.register(self.sub(), '"string"', schema_type=schema_type),
                                  422, 42201)
        self.assert_unchanged()

    def test_invalid_json_schema_and_protobuf_are_42201(self):
        self.assert_error(self.register(self.sub(), "{not json", schema_type="JSON"), 422, 42201)
        self.assert_error(self.register(self.sub(), "message { broken", schema_type="PROTOBUF"),
                          422, 42201)
        self.assert_error(self.register(self.sub(), 'syntax = "proto3";\nmessage M { string a = ; }',
                                        schema_type="PROTOBUF"), 422, 42201)
        self.assert_unchanged()

    def test_bad_references_are_42201(self):
        main = avro_record("Main", [("d", "com.bad.Dep")])
        for refs in ([{"name": "com.bad.Dep", "subject": self.sub("nowhere"), "version": 1}],
                     [{"name": "com.bad.Dep", "subject": self.existing, "version": 9}],
                     [{"name": "com.bad.Dep", "subject": self.existing}],
                     [{"subject": self.existing, "version": 1}],
                     [{"name": "com.bad.Dep", "version": 1}]):
            with self.subTest(refs=refs):
                self.assert_error(self.register(self.sub(), main, references=refs), 422, 42201)
        self.assert_unchanged()

    def test_oversized_schema_is_42209(self):
        big = json.dumps({"type": "record", "name": "Big", "doc": "d" * (3 * MAX_SCHEMA),
                          "fields": [{"name": "a", "type": "string"}]})
        self.assertLess(len(json.dumps({"schema": big})), 8 * MAX_SCHEMA)
        self.assert_error(self.register(self.sub(), big), 422, 42209)
        self.assert_unchanged()
        # Just under the limit is fine.
        small = json.dumps({"type": "record", "name": "Small", "doc": "d" * (MAX_SCHEMA // 2),
                            "fields": [{"name": "a", "type": "string"}]})
        self.register_ok(self.sub("small"), small)

    def test_oversized_body_is_413(self):
        huge = json.dumps({"schema": '"string"', "padding": "p" * (9 * MAX_SCHEMA)})
        self.assertGreater(len(huge), 8 * MAX_SCHEMA)
        self.assert_error(self.post_raw(self.sub(), huge), 413, 413)
        self.assert_error(self.post_raw(self.existing, huge), 413, 413)
        self.assert_error(self.put("/config", json.dumps({"compatibility": "NONE",
                                                          "pad": "p" * (9 * MAX_SCHEMA)})),
                          413, 413)
        self.assert_unchanged()
        self.assert_ok(self.get("/"), {})        # the server is still fine

    def test_control_characters_in_subject_are_42208(self):
        for raw in ("bad%00name", "bad%01name", "bad%0Aname", "bad%1Fname", "bad%7Fname",
                    "bad%C2%80name", "bad%C2%9Fname", "__GLOBAL", "__EMPTY"):
            with self.subTest(subject=raw):
                r = self.post(f"/subjects/{raw}/versions", {"schema": '"string"'})
                self.assert_error(r, 422, 42208)
        self.assert_unchanged()

    def test_invalid_utf8_in_subject_is_refused(self):
        # The spec says subjects are UTF-8 but names no code; only "refused
        # as a client error, nothing stored" is asserted.
        for raw in ("bad%FFname", "bad%C3name", "bad%ED%A0%80name", "%80"):
            with self.subTest(subject=raw):
                r = self.post(f"/subjects/{raw}/versions", {"schema": '"string"'})
                self.assertTrue(400 <= r.status < 500, r)
                body = json.loads(r.text)
                self.assertEqual(set(body), {"error_code", "message"})
                self.assertEqual(int(str(body["error_code"])[:3]), r.status)
        self.assert_unchanged()

    def raw_exchange(self, head_lines, body):
        """Sends one hand-built HTTP/1.1 request; returns (status, headers, body,
        closed): closed is whether the server ended the connection after it."""
        sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        try:
            sock.sendall(("\r\n".join(head_lines) + "\r\n\r\n").encode() + body)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                self.assertTrue(chunk, data)
                data += chunk
            head, rest = data.split(b"\r\n\r\n", 1)
            lines = head.decode().split("\r\n")
            headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
            while len(rest) < int(headers["content-length"]):
                rest += sock.recv(65536)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # a follow-up on the same connection
            try:
                closed = sock.recv(65536) == b""
            except ConnectionResetError:
                closed = True
            return int(lines[0].split()[1]), headers, json.loads(rest), closed
        finally:
            sock.close()

    def test_two_different_content_lengths_are_400(self):
        # RFC 9112 6.3: a framing error; h2o alone would frame by the first.
        body = json.dumps({"schema": '"string"'}).encode()
        subject = self.sub("framing")
        for second in (len(body) + 7, 0):
            with self.subTest(second=second):
                status, headers, reply, closed = self.raw_exchange(
                    [f"POST /subjects/{subject}/versions HTTP/1.1", "Host: x",
                     "Content-Type: application/vnd.schemaregistry.v1+json",
                     f"Content-Length: {len(body)}", f"Content-Length: {second}"], body)
                self.assertEqual(status, 400)
                self.assertEqual(reply["error_code"], 400)
                self.assertIn("Content-Length", reply["message"])
                self.assertTrue(closed, "the connection must not be reused")
        self.assert_unchanged()
        # The same length twice is the RFC's allowed case.
        status, _, reply, closed = self.raw_exchange(
            [f"POST /subjects/{subject}/versions HTTP/1.1", "Host: x",
             "Content-Type: application/vnd.schemaregistry.v1+json",
             f"Content-Length: {len(body)}", f"content-length: {len(body)}"], body)
        self.assertEqual((status, closed), (200, False))
        self.assertIn("id", reply)

    def test_star_subject_is_allowed(self):
        self.register_ok("*", '"string"')
        self.assertIn("*", self.subjects())
        self.assert_ok(self.delete_subject("*"), [1])
        self.assert_ok(self.delete_subject("*", permanent=True), [1])

    def test_unicode_subject_round_trips(self):
        s = self.sub("ünïcødé-✓-日本")
        schema_id = self.register_ok(s, '"string"')
        self.assertIn(s, self.subjects())
        body = self.assert_ok(self.version(s, 1))
        self.assertEqual((body["subject"], body["id"]), (s, schema_id))
        self.assertEqual(self.db.count("subject_versions", f"subject = {harness.sql_literal(s)}"), 1)


if __name__ == "__main__":
    harness.main()

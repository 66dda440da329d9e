"""Two servers on one database (docs/api.md): a new id is readable on the
other node at once; listings, versions, config, mode and deletes converge
within the change-feed delay."""

import json
import threading
import time

import harness
from harness import avro_record, quote

CONVERGE_SECONDS = 2.5


class TwoNodes(harness.TwoNodeTestCase):

    @property
    def a(self):
        return self.server.client()

    @property
    def b(self):
        return self.node_b.client()

    def eventually(self, fn, expected, what):
        """Polls fn() until it returns expected or CONVERGE_SECONDS pass."""
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            got = fn()
            if got == expected or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(got, expected, f"{what} did not converge within {CONVERGE_SECONDS} s")

    def reg(self, client, subject, schema):
        r = client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema})
        self.assertEqual(r.status, 200, r)
        return r.body["id"]

    def test_new_id_is_readable_on_the_other_node_at_once(self):
        for i in range(5):
            with self.subTest(i=i):
                schema = avro_record("Now", [(f"n{i}", "string")])
                schema_id = self.reg(self.a, self.sub(), schema)
                r = self.b.get(f"/schemas/ids/{schema_id}")  # no waiting
                self.assertEqual(r.status, 200, r)
                self.assertEqual(json.loads(r.body["schema"]), json.loads(schema))
                raw = self.b.get(f"/schemas/ids/{schema_id}/schema")
                self.assertEqual(raw.status, 200, raw)

    def test_subject_listing_converges(self):
        s = self.sub()
        self.reg(self.a, s, avro_record("List", [("a", "string")]))
        self.eventually(lambda: s in self.b.get("/subjects").body, True, "GET /subjects on B")
        self.eventually(lambda: self.b.get(f"/subjects/{quote(s)}/versions").body, [1],
                        "versions on B")
        self.reg(self.b, s, avro_record("List", [("a", "string"), ("b", "string", "")]))
        self.eventually(lambda: self.a.get(f"/subjects/{quote(s)}/versions").body, [1, 2],
                        "versions on A")
        self.eventually(lambda: self.a.get(f"/subjects/{quote(s)}/versions/latest").body["version"],
                        2, "latest on A")

    def test_same_schema_on_both_nodes_at_once_gets_one_id(self):
        schema = avro_record("Both", [("x", "long")])
        subjects = [self.sub("a"), self.sub("b")]
        barrier = threading.Barrier(2)
        ids = {}

        def go(client, subject):
            barrier.wait()
            ids[subject] = self.reg(client, subject, schema)

        threads = [threading.Thread(target=go, args=(c, s))
                   for c, s in zip((self.a, self.b), subjects)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(len(ids), 2)
        self.assertEqual(len(set(ids.values())), 1, ids)

    def test_config_and_mode_converge(self):
        s = self.sub()
        self.assertEqual(self.a.put(f"/config/{quote(s)}", {"compatibility": "NONE"}).status, 200)
        self.eventually(lambda: self.b.get(f"/config/{quote(s)}").body,
                        {"compatibilityLevel": "NONE"}, "subject config on B")
        self.assertEqual(self.b.put(f"/mode/{quote(s)}", {"mode": "READONLY"}).status, 200)
        self.eventually(lambda: self.a.get(f"/mode/{quote(s)}").body, {"mode": "READONLY"},
                        "subject mode on A")
        # A enforces the mode B set (one attempt: a success would register).
        r = self.a.post(f"/subjects/{quote(s)}/versions", {"schema": '"string"'})
        self.assert_error(r, 422, 42205)

    def test_deletes_converge(self):
        s = self.sub()
        schema_id = self.reg(self.a, s, avro_record("Gone", [("g", "string")]))
        self.eventually(lambda: self.b.get(f"/subjects/{quote(s)}/versions").body, [1],
                        "versions on B")
        self.assertEqual(self.b.delete(f"/subjects/{quote(s)}").body, [1])
        self.eventually(lambda: s in self.a.get("/subjects").body, False, "soft delete on A")
        self.assertEqual(self.a.delete(f"/subjects/{quote(s)}", params={"permanent": "true"}).body,
                         [1])
        self.eventually(lambda: self.b.get(f"/schemas/ids/{schema_id}").status, 404,
                        "hard delete on B")

    def test_second_id_of_one_content_converges(self):
        """IMPORT on A stores content B already knows under a second id (the
        new canonical one, tests/integration/test_import_ids.py): B answers
        lookups with each subject's own id and registers new subjects with
        the id imported last."""
        x = avro_record("TwinNodes", [("t", "int")])
        a, b, c = self.sub("a"), self.sub("b"), self.sub("c")
        for client, s in ((self.a, a), (self.a, b)):
            self.assertEqual(client.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}).status, 200)
        r = self.a.post(f"/subjects/{quote(a)}/versions", {"schema": x, "id": 30020})
        self.assertEqual(r.body, {"id": 30020}, r)

        def lookup(client, s):
            r = client.post(f"/subjects/{quote(s)}", {"schema": x})
            return (r.status, r.body.get("id"))
        self.eventually(lambda: lookup(self.b, a), (200, 30020), "first import on B")
        r = self.a.post(f"/subjects/{quote(b)}/versions", {"schema": x, "id": 30010})
        self.assertEqual(r.body, {"id": 30010}, r)
        self.eventually(lambda: lookup(self.b, b), (200, 30010), "second import on B")
        self.assertEqual(lookup(self.b, a), (200, 30020))
        for s in (a, b):
            self.assertEqual(self.a.delete(f"/mode/{quote(s)}").status, 200)
        self.assertEqual(self.reg(self.b, c, x), 30010)
        self.eventually(lambda: lookup(self.a, c), (200, 30010), "registration on A")
        for client in (self.a, self.b):
            for schema_id in (30010, 30020):
                self.assertEqual(client.get(f"/schemas/ids/{schema_id}").status, 200)


if __name__ == "__main__":
    harness.main()

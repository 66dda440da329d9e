"""Concurrent registrations (docs/api.md): one id per content across
subjects, gap-free versions within a subject; checked over HTTP and in SQL."""

import threading

import harness
from harness import avro_record, quote, sql_literal

N = 24


def run_concurrently(fns):
    """Runs every fn on its own thread, released together; returns results in order."""
    barrier = threading.Barrier(len(fns))
    results = [None] * len(fns)

    def worker(i, fn):
        barrier.wait()
        try:
            results[i] = fn()
        except Exception as exc:     # reported by the caller's assertions
            results[i] = exc

    threads = [threading.Thread(target=worker, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return results


class Concurrency(harness.RegistryTestCase):

    def register_many(self, pairs):
        """pairs: [(subject, schema)] registered at once; returns the responses."""
        results = run_concurrently([lambda s=s, sc=sc: self.register(s, sc) for s, sc in pairs])
        for r in results:
            self.assertNotIsInstance(r, Exception, r)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(set(r.body), {"id"}, r)
        return results

    def test_one_new_schema_into_many_subjects_gets_one_id(self):
        schema = avro_record("Shared", [("a", "string"), ("b", "long")])
        subjects = [self.sub(f"s{i}") for i in range(N)]
        results = self.register_many([(s, schema) for s in subjects])
        ids = {r.body["id"] for r in results}
        self.assertEqual(len(ids), 1, ids)
        schema_id = ids.pop()
        for s in subjects:
            self.assert_ok(self.versions(s), [1])
        self.assert_ok(self.get(f"/schemas/ids/{schema_id}/subjects"), sorted(subjects))
        in_list = ", ".join(sql_literal(s) for s in subjects)
        self.assertEqual(self.db.sql("SELECT count(*), count(DISTINCT schema_id), min(version), "
                                     f"max(version) FROM subject_versions "
                                     f"WHERE subject IN ({in_list})"),
                         [(str(N), "1", "1", "1")])
        self.assertEqual(self.db.count("schemas", f"id = {schema_id}"), 1)

    def test_many_schemas_into_one_subject_get_versions_without_gaps(self):
        s = self.sub()
        # Each field has a default, so every order is BACKWARD compatible.
        schemas = [avro_record("Many", [(f"f{i}", "string", "")]) for i in range(N)]
        results = self.register_many([(s, sc) for sc in schemas])
        ids = [r.body["id"] for r in results]
        self.assertEqual(len(set(ids)), N)
        self.assert_ok(self.versions(s), list(range(1, N + 1)))
        rows = self.db.sql("SELECT version, schema_id FROM subject_versions "
                           f"WHERE subject = {sql_literal(s)} ORDER BY version")
        self.assertEqual([int(v) for v, _ in rows], list(range(1, N + 1)))
        self.assertEqual(sorted(int(i) for _, i in rows), sorted(ids))
        # Each schema maps back to its own version.
        for schema, schema_id in zip(schemas, ids):
            body = self.assert_ok(self.lookup(s, schema))
            self.assertEqual(body["id"], schema_id)

    def test_same_schema_into_one_subject_creates_one_version(self):
        s = self.sub()
        schema = avro_record("Same", [("x", "int")])
        results = self.register_many([(s, schema)] * N)
        self.assertEqual(len({r.body["id"] for r in results}), 1)
        self.assert_ok(self.versions(s), [1])
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(s)}"), 1)

    def test_mixed_readers_and_writers(self):
        s = self.sub()
        base = self.register_ok(s, avro_record("Mixed", [("a", "string")]))
        writes = [lambda i=i: self.register(self.sub(f"w{i}"), avro_record("W", [(f"w{i}", "int")]))
                  for i in range(N // 2)]
        reads = [lambda: self.get(f"/schemas/ids/{base}") for _ in range(N // 2)]
        results = run_concurrently(writes + reads)
        for r in results:
            self.assertNotIsInstance(r, Exception, r)
            self.assertEqual(r.status, 200, r)
        self.assertEqual(len({r.body["id"] for r in results[:N // 2]}), N // 2)
        self.assertEqual(len({r.text for r in results[N // 2:]}), 1)
        self.assert_ok(self.versions(s), [1])
        self.assertEqual(self.get(f"/subjects/{quote(s)}/versions/1").body["id"], base)


if __name__ == "__main__":
    harness.main()

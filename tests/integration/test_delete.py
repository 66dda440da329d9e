"""Soft and hard deletes of subjects and versions, their error order, and
version numbering afterwards (docs/api.md); every effect is
also checked in the database."""

import json

import harness
from harness import avro_record, quote, sql_literal


def rec(n):
    return avro_record("Del", [(f"f{i}", "string", "") for i in range(n)])


class DeleteTestCase(harness.RegistryTestCase):

    def subject_with(self, n, tag="s"):
        s = self.sub(tag)
        ids = [self.register_ok(s, rec(i)) for i in range(1, n + 1)]
        return s, ids

    def rows(self, subject):
        """[(version, deleted)] as stored."""
        return [(int(v), d == "t") for v, d in self.db.sql(
            "SELECT version, deleted FROM subject_versions "
            f"WHERE subject = {sql_literal(subject)} ORDER BY version")]


class DeleteSubject(DeleteTestCase):

    def test_soft_delete(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assertEqual(self.rows(s), [(1, True), (2, True)])
        self.assertNotIn(s, self.subjects())
        self.assertIn(s, self.subjects({"deleted": "true"}))
        self.assertIn(s, self.subjects({"deletedOnly": "true"}))

    def test_soft_delete_returns_only_live_versions(self):
        s, _ = self.subject_with(3)
        self.assertEqual(self.assert_ok(self.delete_version(s, 2)), 2)
        self.assert_ok(self.delete_subject(s), [1, 3])
        self.assertEqual(self.rows(s), [(1, True), (2, True), (3, True)])

    def test_soft_delete_twice_is_40404(self):
        s, _ = self.subject_with(1)
        self.assert_ok(self.delete_subject(s), [1])
        before = self.db.state()
        self.assert_error(self.delete_subject(s), 404, 40404)
        self.assertEqual(self.db.state(), before)

    def test_unknown_subject_is_40401(self):
        s = self.sub()
        self.assert_error(self.delete_subject(s), 404, 40401)
        self.assert_error(self.delete_subject(s, permanent=True), 404, 40401)

    def test_hard_delete_of_live_subject_is_40405(self):
        s, _ = self.subject_with(2)
        before = self.db.state()
        self.assert_error(self.delete_subject(s, permanent=True), 404, 40405)
        self.assertEqual(self.rows(s), [(1, False), (2, False)])
        self.assertEqual(self.db.state(), before)

    def test_hard_delete_with_one_live_version_is_40405(self):
        s, _ = self.subject_with(2)
        self.assertEqual(self.assert_ok(self.delete_version(s, 1)), 1)
        self.assert_error(self.delete_subject(s, permanent=True), 404, 40405)
        self.assertEqual(self.rows(s), [(1, True), (2, False)])

    def test_hard_delete_after_soft_delete(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assert_ok(self.delete_subject(s, permanent=True), [1, 2])
        self.assertEqual(self.rows(s), [])
        self.assertNotIn(s, self.subjects({"deleted": "true"}))
        self.assert_error(self.versions(s, {"deleted": "true"}), 404, 40401)
        self.assert_error(self.delete_subject(s), 404, 40401)
        self.assert_error(self.delete_subject(s, permanent=True), 404, 40401)

    def test_subject_config_survives_soft_delete_not_hard_delete(self):
        s, _ = self.subject_with(1)
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibility": "NONE"}))
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "READWRITE"}))
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_ok(self.get(f"/config/{quote(s)}"), {"compatibilityLevel": "NONE"})
        self.assert_ok(self.get(f"/mode/{quote(s)}"), {"mode": "READWRITE"})
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 1)
        self.assert_ok(self.delete_subject(s, permanent=True), [1])
        self.assert_error(self.get(f"/config/{quote(s)}"), 404, 40408)
        self.assert_error(self.get(f"/mode/{quote(s)}"), 404, 40409)
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 0)
        self.assertEqual(self.db.count("modes", f"scope = {sql_literal(s)}"), 0)

    def test_referenced_subject_cannot_be_deleted(self):
        dep, main = self.sub("dep"), self.sub("main")
        dep_schema = json.dumps({"type": "record", "name": "Leaf", "namespace": "com.itest.del",
                                 "fields": [{"name": "x", "type": "int"}]})
        self.register_ok(dep, dep_schema)
        refs = [{"name": "com.itest.del.Leaf", "subject": dep, "version": 1}]
        self.register_ok(main, avro_record("Root", [("leaf", "com.itest.del.Leaf")]),
                         references=refs)
        before = self.db.state()
        self.assert_error(self.delete_subject(dep), 422, 42206)
        self.assert_error(self.delete_version(dep, 1), 422, 42206)
        self.assertEqual(self.db.state(), before)
        # Once the referrer is soft-deleted, a soft delete is allowed but not a hard one.
        self.assert_ok(self.delete_subject(main), [1])
        self.assert_ok(self.delete_subject(dep), [1])
        self.assert_error(self.delete_subject(dep, permanent=True), 422, 42206)
        self.assert_error(self.delete_version(dep, 1, permanent=True), 422, 42206)
        self.assert_ok(self.delete_subject(main, permanent=True), [1])
        self.assert_ok(self.delete_subject(dep, permanent=True), [1])


class DeleteVersion(DeleteTestCase):

    def test_soft_delete_version(self):
        s, ids = self.subject_with(3)
        r = self.delete_version(s, 2)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.text.strip(), "2")              # a bare JSON integer
        self.assertEqual(self.rows(s), [(1, False), (2, True), (3, False)])
        self.assert_ok(self.versions(s), [1, 3])

    def test_soft_delete_latest(self):
        s, _ = self.subject_with(3)
        self.assertEqual(self.assert_ok(self.delete_version(s, "latest")), 3)
        self.assertEqual(self.assert_ok(self.delete_version(s, "-1")), 2)
        self.assertEqual(self.rows(s), [(1, False), (2, True), (3, True)])

    def test_soft_delete_twice_is_40406(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_version(s, 1))
        before = self.db.state()
        self.assert_error(self.delete_version(s, 1), 404, 40406)
        self.assertEqual(self.db.state(), before)

    def test_missing_version_and_subject(self):
        s, _ = self.subject_with(1)
        self.assert_error(self.delete_version(s, 5), 404, 40402)
        self.assert_error(self.delete_version(s, 5, permanent=True), 404, 40402)
        unknown = self.sub("unknown")
        for v in ("1", "latest"):
            with self.subTest(version=v):
                self.assert_error(self.delete_version(unknown, v), 404, 40401)
                self.assert_error(self.delete_version(unknown, v, permanent=True), 404, 40401)

    def test_invalid_version_is_42202(self):
        s, _ = self.subject_with(1)
        for v in ("abc", "0", "-2", "2147483648"):
            with self.subTest(version=v):
                self.assert_error(self.delete_version(s, v), 422, 42202)
                self.assert_error(self.delete_version(self.sub("u"), v), 422, 42202)
        self.assertEqual(self.rows(s), [(1, False)])

    def test_latest_without_live_version_is_40402(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assert_error(self.delete_version(s, "latest"), 404, 40402)
        self.assert_error(self.delete_version(s, "latest", permanent=True), 404, 40402)

    def test_hard_delete_of_live_version_is_40407(self):
        s, _ = self.subject_with(2)
        before = self.db.state()
        self.assert_error(self.delete_version(s, 1, permanent=True), 404, 40407)
        self.assert_error(self.delete_version(s, "latest", permanent=True), 404, 40407)
        self.assertEqual(self.db.state(), before)

    def test_hard_delete_after_soft_delete(self):
        s, ids = self.subject_with(2)
        self.assert_ok(self.delete_version(s, 2))
        self.assertEqual(self.assert_ok(self.delete_version(s, 2, permanent=True)), 2)
        self.assertEqual(self.rows(s), [(1, False)])
        self.assert_error(self.version(s, 2, {"deleted": "true"}), 404, 40402)
        # Gone entirely now: a soft or hard delete of it again is "not found".
        self.assert_error(self.delete_version(s, 2), 404, 40402)
        self.assert_error(self.delete_version(s, 2, permanent=True), 404, 40402)

    def test_hard_deleting_last_version_removes_subject_config(self):
        s, _ = self.subject_with(1)
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibility": "FULL"}))
        self.assert_ok(self.delete_version(s, 1))
        self.assert_ok(self.get(f"/config/{quote(s)}"), {"compatibilityLevel": "FULL"})
        self.assert_ok(self.delete_version(s, 1, permanent=True))
        self.assert_error(self.get(f"/config/{quote(s)}"), 404, 40408)
        self.assertEqual(self.rows(s), [])
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 0)


class NumberingAfterDeletes(DeleteTestCase):

    def test_hard_deleted_number_is_reused(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_version(s, 2))
        self.assert_ok(self.delete_version(s, 2, permanent=True))
        self.register_ok(s, rec(7))
        self.assert_ok(self.versions(s), [1, 2])
        self.assertEqual(self.rows(s), [(1, False), (2, False)])

    def test_soft_deleted_numbers_are_not_reused(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_subject(s), [1, 2])
        new_id = self.register_ok(s, rec(8))
        self.assert_ok(self.versions(s), [3])
        self.assertEqual(self.assert_ok(self.version(s, 3))["id"], new_id)
        self.assertEqual(self.rows(s), [(1, True), (2, True), (3, False)])

    def test_reregistering_soft_deleted_content_reuses_the_id(self):
        s, ids = self.subject_with(2)
        self.assert_ok(self.delete_version(s, 1))
        again = self.register_ok(s, rec(1))
        self.assertEqual(again, ids[0])
        self.assert_ok(self.versions(s), [2, 3])
        self.assertEqual(self.assert_ok(self.version(s, 3))["id"], ids[0])
        # The older soft-deleted version with that id was hard-deleted.
        self.assertEqual(self.rows(s), [(2, False), (3, False)])
        self.assert_error(self.version(s, 1, {"deleted": "true"}), 404, 40402)

    def test_reregistering_after_subject_soft_delete(self):
        s, ids = self.subject_with(1)
        self.assert_ok(self.delete_subject(s), [1])
        self.assertEqual(self.register_ok(s, rec(1)), ids[0])
        self.assert_ok(self.versions(s), [2])
        self.assertEqual(self.rows(s), [(2, False)])

    def test_ids_are_never_reused(self):
        s, ids = self.subject_with(1)
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_ok(self.delete_subject(s, permanent=True), [1])
        highest = int(self.db.value("SELECT coalesce(max(id), 0) FROM schemas"))
        fresh = self.register_ok(self.sub("fresh"),
                                 avro_record("Fresh", [("g", "string", "")]))
        self.assertGreater(fresh, ids[0])
        self.assertGreater(fresh, highest)


if __name__ == "__main__":
    harness.main()

"""Evolution history (docs/evolution.md, "History"): the change list and summary
recorded in each new version's audit row (audit_log.details), for the three
formats and for both write paths (the one-statement append and the general
transaction, which a soft-deleted version forces: docs/architecture.md).
GET /subjects/{s}/history and POST /subjects/{s}/rollback are extensions too.
The classification is this registry's own; Confluent's community registry has
no audit trail, history or rollback. What is Confluent's: ?deleted=true as in
SubjectVersionsResource.listVersions, the 409 (40901) a registration gets
(KafkaSchemaRegistry.register), the 42206 of a referenced version's delete
(KafkaSchemaRegistry.deleteSchemaVersion, ReferenceExistsException) and 42205
for a mode that forbids writes (OperationNotPermittedException)."""

import json
import time

import harness
from harness import avro_record, quote
from test_changes import (AVRO_CHANGES, AVRO_SUMMARY, AVRO_V1, AVRO_V2, JSON_CHANGES, JSON_V1, JSON_V2,
                          PROTO_CHANGES, PROTO_V1, PROTO_V2, change)


def details_of(db, subject):
    """{version: details} of the subject's ok register rows, oldest first."""
    rows = db.sql("SELECT version, coalesce(details::text, 'null') FROM audit_log"
                  f" WHERE subject = {harness.sql_literal(subject)} AND action = 'register'"
                  " AND outcome = 'ok' ORDER BY id")
    return {int(v): json.loads(d) for v, d in rows}


class AuditDetails(harness.RegistryTestCase):

    def two_versions(self, v1, v2, schema_type=None):
        s = self.sub()
        self.set_level(s, "NONE")
        self.register_ok(s, v1, schema_type=schema_type)
        self.register_ok(s, v2, schema_type=schema_type)
        return s

    def test_each_format(self):
        s = self.two_versions(AVRO_V1, AVRO_V2)
        self.assertEqual(details_of(self.db, s),
                         {1: None, 2: {"changes": AVRO_CHANGES, "summary": AVRO_SUMMARY}})
        s = self.two_versions(JSON_V1, JSON_V2, "JSON")
        self.assertEqual(details_of(self.db, s), {1: None, 2: {
            "changes": JSON_CHANGES,
            "summary": "1 column renamed, 1 widened, 1 retyped, 1 nullability changed; incompatible"}})
        s = self.two_versions(PROTO_V1, PROTO_V2, "PROTOBUF")
        self.assertEqual(details_of(self.db, s), {1: None, 2: {
            "changes": PROTO_CHANGES,
            "summary": "1 column added, 1 renamed, 2 retyped, 1 nullability changed; incompatible"}})

    def test_against_the_previous_live_version_on_the_general_path(self):
        # A soft-deleted version sends the registration through the general transaction.
        s = self.sub()
        self.register_ok(s, avro_record("R", [("a", "int")]))
        self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int", 0)]))
        self.assert_ok(self.delete_version(s, 2))
        self.register_ok(s, avro_record("R", [("a", "long")]))
        widened = {"changes": [change("TYPE_WIDENED", "a", "int", "long", forward=False)],
                   "summary": "1 column widened; backward compatible"}
        self.assertEqual(details_of(self.db, s), {
            1: None,
            2: {"changes": [change("FIELD_ADDED_WITH_DEFAULT", "b", None, "int")],
                "summary": "1 column added; fully compatible"},
            3: widened})
        # The content already there: no new version, no row.
        self.register_ok(s, avro_record("R", [("a", "long")]))
        self.assertEqual(len(details_of(self.db, s)), 3)


def version_time(db, subject, version):
    """A version's created_at as the history shows it (RFC 3339 UTC, milliseconds)."""
    ms = int(db.value("SELECT (extract(epoch from created_at) * 1000)::bigint FROM subject_versions"
                      f" WHERE subject = {harness.sql_literal(subject)} AND version = {version}"))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


class History(harness.RegistryTestCase):

    def history(self, s, **params):
        return self.get(f"/subjects/{quote(s)}/history", params=params or None)

    def entry(self, s, version, sid, summary, deleted=False, principal=None, action="register"):
        return {"version": version, "id": sid, "deleted": deleted, "time": version_time(self.db, s, version),
                "principal": principal, "action": action, "summary": summary}

    def test_versions_with_summaries_deleted_and_paged(self):
        s = self.sub()
        self.set_level(s, "NONE")
        ids = [self.register_ok(s, avro_record("R", [("a", "int")])),
               self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int", 0)])),
               self.register_ok(s, avro_record("R", [("a", "long"), ("b", "int", 0)]))]
        self.assert_ok(self.delete_version(s, 2))
        e1 = self.entry(s, 1, ids[0], None)
        e2 = self.entry(s, 2, ids[1], "1 column added; fully compatible", deleted=True)
        e3 = self.entry(s, 3, ids[2], "1 column widened; backward compatible")
        self.assert_ok(self.history(s), {"subject": s, "total": 2, "versions": [e1, e3]})
        self.assert_ok(self.history(s, deleted="true"), {"subject": s, "total": 3, "versions": [e1, e2, e3]})
        self.assert_ok(self.history(s, deleted="true", offset="1", limit="1"),
                       {"subject": s, "total": 3, "versions": [e2]})
        self.assert_ok(self.history(s, offset="5"), {"subject": s, "total": 2, "versions": []})

    def test_versions_from_before_the_audit_trail(self):
        s = self.sub()
        sid = self.register_ok(s, avro_record("R", [("a", "int")]))
        sid2 = self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int", 0)]))
        # As a database migrated from before 0009 holds them: versions without rows.
        self.db.sql(f"DELETE FROM audit_log WHERE subject = {harness.sql_literal(s)} AND version = 1")
        self.assert_ok(self.history(s), {"subject": s, "total": 2, "versions": [
            self.entry(s, 1, sid, None, action=None),
            self.entry(s, 2, sid2, "1 column added; fully compatible")]})

    def test_errors(self):
        s = self.sub()
        self.assert_error(self.history(s), 404, 40401)
        self.register_ok(s, avro_record("R", [("a", "int")]))
        self.assert_ok(self.delete_subject(s))
        self.assert_error(self.history(s), 404, 40401)
        self.assertEqual(self.history(s, deleted="true").status, 200)
        r = self.history(s, limit="x")
        self.assertEqual((r.status, r.body["error_code"]), (400, 400), r)
        r = self.history(s, limit="0")
        self.assertEqual((r.status, r.body["error_code"]), (422, 422), r)


V1 = avro_record("R", [("a", "int")])
V2 = avro_record("R", [("a", "int"), ("b", "int", 0)])
V3 = avro_record("R", [("a", "int"), ("b", "int", 0), ("c", "string", "")])


def audit_rows(db, subject, action):
    """(version, schema_id, outcome, details) of the subject's rows of action, oldest first."""
    rows = db.sql("SELECT version, schema_id, outcome, coalesce(details::text, 'null') FROM audit_log"
                  f" WHERE subject = {harness.sql_literal(subject)} AND action = {harness.sql_literal(action)}"
                  " ORDER BY id")
    return [(None if v is None else int(v), None if i is None else int(i), o, json.loads(d))
            for v, i, o, d in rows]


def wait_rows(db, subject, action, n, timeout=20):
    """A refusal's row is written after the reply: wait (bounded) for n rows."""
    deadline = time.monotonic() + timeout
    while True:
        rows = audit_rows(db, subject, action)
        if len(rows) >= n or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


class Rollback(harness.RegistryTestCase):
    maxDiff = None

    def rollback(self, s, body, mode=None):
        return self.post(f"/subjects/{quote(s)}/rollback", body, params={"mode": mode} if mode else None)

    def three(self):
        s = self.sub()
        return s, [self.register_ok(s, V1), self.register_ok(s, V2), self.register_ok(s, V3)]

    def test_register_mode(self):
        s, ids = self.three()
        self.assert_ok(self.rollback(s, {"version": 1}), {
            "subject": s, "mode": "register", "from": 3, "to": 1, "version": 4, "id": ids[0], "changed": True,
            "deleted": []})
        latest = self.version(s, "latest")
        self.assertEqual((latest.body["version"], latest.body["id"]), (4, ids[0]))
        self.assert_ok(self.versions(s), [1, 2, 3, 4])
        removed = {"changes": [change("FIELD_REMOVED", "b", "int", None, forward=True, backward=True),
                               change("FIELD_REMOVED", "c", "string", None, forward=True, backward=True)],
                   "summary": "2 columns dropped; fully compatible"}
        self.assertEqual(audit_rows(self.db, s, "rollback"),
                         [(4, ids[0], "ok", dict(removed, mode="register", **{"from": 3, "to": 1}))])
        h = self.get(f"/subjects/{quote(s)}/history").body["versions"][-1]
        self.assertEqual((h["version"], h["id"], h["action"], h["summary"]),
                         (4, ids[0], "rollback", removed["summary"]))
        # Rolling back to the latest changes nothing and writes nothing.
        before = self.db.state()
        self.assert_ok(self.rollback(s, {"version": 4}), {
            "subject": s, "mode": "register", "from": 4, "to": 4, "version": 4, "id": ids[0], "changed": False,
            "deleted": []})
        self.assertEqual(self.db.count("subject_versions", f"subject = {harness.sql_literal(s)}"), 4)
        self.assertEqual(len(audit_rows(self.db, s, "rollback")), 1)
        self.assertEqual(before["subject_versions"], self.db.state()["subject_versions"])

    def incompatible(self):
        # v2 dropped b (backward compatible); back to v1 a reader needs b, which v2's data lacks.
        s = self.sub()
        self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int")]))
        self.register_ok(s, avro_record("R", [("a", "int")]))
        return s

    def test_refused_by_the_level_in_both_modes(self):
        s = self.incompatible()
        for mode in (None, "delete"):
            before = self.db.state()
            r = self.rollback(s, {"version": 1}, mode)
            self.assertEqual(r.status, 409, r)
            self.assertEqual(r.body, {
                "error_code": 40901,
                "message": r.body["message"],
                "changes": [change("FIELD_ADDED", "b", None, "int", backward=False)],
                "summary": "1 column added; forward compatible"}, r)
            self.assertTrue(r.body["message"].startswith(
                "Schema being registered is incompatible with an earlier schema for subject"), r)
            self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1, 2])
        self.assertEqual([(v, i, o) for v, i, o, _ in wait_rows(self.db, s, "rollback", 2)],
                         [(None, None, "refused"), (None, None, "refused")])
        # Under NONE the same rollback goes through.
        self.set_level(s, "NONE")
        self.assertEqual(self.rollback(s, {"version": 1}).body["version"], 3)

    def test_delete_mode(self):
        s, ids = self.three()
        self.assert_ok(self.rollback(s, {"version": 1}, "delete"), {
            "subject": s, "mode": "delete", "from": 3, "to": 1, "version": 1, "id": ids[0], "changed": True,
            "deleted": [2, 3]})
        self.assert_ok(self.versions(s), [1])
        self.assert_ok(self.versions(s, params={"deleted": "true"}), [1, 2, 3])
        self.assertEqual(audit_rows(self.db, s, "rollback"), [
            (1, ids[0], "ok", {"mode": "delete", "from": 3, "to": 1, "deleted": [2, 3]})])
        self.assertEqual([(v["version"], v["deleted"]) for v in
                          self.get(f"/subjects/{quote(s)}/history", params={"deleted": "true"}).body["versions"]],
                         [(1, False), (2, True), (3, True)])

    def test_delete_mode_refused_by_a_reference(self):
        s = self.sub()
        self.register_ok(s, avro_record("Ref", [("a", "int")]))
        self.register_ok(s, avro_record("Ref", [("a", "int"), ("b", "int", 0)]))
        self.register_ok(self.sub("outer"), avro_record("Outer", [("r", "Ref")]),
                         references=[{"name": "Ref", "subject": s, "version": 2}])
        before = self.db.state()
        self.assert_error(self.rollback(s, {"version": 1}, "delete"), 422, 42206)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1, 2])
        # Register mode keeps version 2: allowed.
        self.assertEqual(self.rollback(s, {"version": 1}).body["version"], 3)

    def test_errors(self):
        s, _ = self.three()
        before = self.db.state()
        self.assert_error(self.rollback(self.sub("none"), {"version": 1}), 404, 40401)
        self.assert_error(self.rollback(s, {"version": 9}), 404, 40402)
        self.assert_ok(self.delete_version(s, 2))
        mid = self.db.state()
        self.assert_error(self.rollback(s, {"version": 2}), 404, 40402)
        for body in ({}, {"version": "1"}, {"version": 0}, {"version": 1.5}, {"version": 2 ** 31}):
            self.assert_error(self.rollback(s, body), 422, 42202)
        r = self.rollback(s, {"version": 1}, "sideways")
        self.assertEqual((r.status, r.body["error_code"]), (400, 400), r)
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "READONLY"}))
        self.assert_error(self.rollback(s, {"version": 1}), 422, 42205)
        self.assert_error(self.rollback(s, {"version": 1}, "delete"), 422, 42205)
        self.assertEqual(self.db.state()["subject_versions"], mid["subject_versions"])
        self.assertEqual(before["subject_versions"], mid["subject_versions"])


from test_authz import AuthzCase, assert_forbidden  # noqa: E402


class RollbackPermissions(AuthzCase):
    """WRITE on the subject for a rollback (routes.c); DELETE too for mode=delete."""
    rules = ("auth.rule = root admin *\nauth.rule = alice read,write orders-*\n"
             "auth.rule = carol read,delete orders-*\nauth.rule = dave read,write,delete orders-*\n")

    def test_permissions(self):
        alice, carol, dave = self.as_user("alice"), self.as_user("carol"), self.as_user("dave")
        s = "orders-rollback"
        for v in (V1, V2, V3):
            self.assertEqual(alice.post(f"/subjects/{s}/versions", {"schema": v}).status, 200)
        before = self.db.state()
        assert_forbidden(self, alice.post(f"/subjects/{s}/rollback", {"version": 1}, params={"mode": "delete"}))
        assert_forbidden(self, carol.post(f"/subjects/{s}/rollback", {"version": 1}))
        assert_forbidden(self, carol.post(f"/subjects/{s}/rollback", {"version": 1}, params={"mode": "delete"}))
        self.assertEqual(self.db.state(), before)
        self.assertEqual(alice.post(f"/subjects/{s}/rollback", {"version": 2}).body["version"], 4)
        r = dave.post(f"/subjects/{s}/rollback", {"version": 1}, params={"mode": "delete"})
        self.assertEqual((r.status, r.body["deleted"]), (200, [2, 3, 4]), r)
        # The history names who did each.
        h = self.as_user("root").get(f"/subjects/{s}/history", params={"deleted": "true"}).body
        self.assertEqual([(v["version"], v["principal"], v["action"]) for v in h["versions"]],
                         [(1, "alice", "register"), (2, "alice", "register"), (3, "alice", "register"),
                          (4, "alice", "rollback")])
        self.assertEqual([(p, d["deleted"]) for p, d in
                          ((r[0], json.loads(r[1])) for r in self.db.sql(
                              "SELECT principal, details::text FROM audit_log WHERE action = 'rollback'"
                              " AND outcome = 'ok' AND details->>'mode' = 'delete'"))], [("dave", [2, 3, 4])])


if __name__ == "__main__":
    harness.main()

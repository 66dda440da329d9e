"""Evolution history (docs/evolution.md, "History"): the change list and summary
recorded in each new version's audit row (audit_log.details), for the three
formats and for both write paths (the one-statement append and the general
transaction, which a soft-deleted version forces: docs/architecture.md).
The classification is this registry's own; Confluent's community registry has
no audit trail or history."""

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

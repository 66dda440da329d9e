"""Evolution history (docs/evolution.md, "History"): the change list and summary
recorded in each new version's audit row (audit_log.details), for the three
formats and for both write paths (the one-statement append and the general
transaction, which a soft-deleted version forces: docs/architecture.md).
The classification is this registry's own; Confluent's community registry has
no audit trail or history."""

import json

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

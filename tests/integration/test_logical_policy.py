"""compatibilityPolicy LOGICAL (issue 13; docs/compatibility.md, "compatibilityPolicy"), as
Confluent's AbstractSchemaRegistry.isCompatibleWithPrevious applies it: the format's own check,
then LogicalPolicyChecker.check (the Flink and Iceberg v2 logical-type checks), whose findings go
after the native messages and before the summary line. So LOGICAL only refuses more: a field
drop Avro allows is a FIELD_DELETED for Iceberg, and a schema no consumer can use (an empty
record) is refused even as a subject's first version, at level NONE.
"""

import json

import harness
from harness import avro_record, quote

RECORD_A = avro_record("R", [("a", "int")])
RECORD_A_B = avro_record("R", [("a", "int"), ("b", "int")])
EMPTY = avro_record("E", [])
DELETED_B = ("Logical compatibility (ICEBERG_V2, backward): FIELD_DELETED at 'b': field present in the "
             "original schema is missing from the update")


class LogicalPolicy(harness.RegistryTestCase):

    def config(self, subject, body):
        path = f"/config/{quote(subject)}" if subject else "/config"
        self.assert_ok(self.put(path, body))

    def refused(self, subject, schema, details, **kw):
        before = self.db.state()
        r = self.register(subject, schema, **kw)
        self.assert_error(r, 409, 40901)
        self.assertEqual(r.body["message"],
                         f'Schema being registered is incompatible with an earlier schema for subject "{subject}", '
                         f"details: [{', '.join(details)}]")
        self.assertEqual(self.db.state(), before)

    def test_a_drop_avro_allows_is_refused_and_strict_accepts_it(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "LOGICAL"})
        self.register_ok(s, RECORD_A_B)
        self.refused(s, RECORD_A, [DELETED_B, "{validateFields: 'false', compatibility: 'BACKWARD'}"])
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "STRICT"})
        self.register_ok(s, RECORD_A)

    def test_native_messages_come_first(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "LOGICAL"})
        self.register_ok(s, RECORD_A)
        self.refused(s, RECORD_A_B, [
            "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in "
            "the new schema has no default value and is missing in the old schema', additionalInfo:'b'}",
            "{oldSchemaVersion: 1}",
            f"{{oldSchema: '{json.dumps(json.loads(RECORD_A), separators=(',', ':'))}'}}",
            "Logical compatibility (FLINK, backward): REQUIRED_FIELD_ADDED at 'b': added column is neither "
            "nullable nor defaulted, so rows written before it existed have no value for it",
            "Logical compatibility (ICEBERG_V2, backward): REQUIRED_FIELD_ADDED at 'b': added field is neither "
            "nullable nor defaulted, so pre-existing rows have no value for it; format-version 2 cannot store a "
            "column default",
            "{validateFields: 'false', compatibility: 'BACKWARD'}"])

    def test_validity_refuses_a_first_version_even_at_none(self):
        s = self.sub()
        self.config(s, {"compatibility": "NONE", "compatibilityPolicy": "LOGICAL"})
        self.refused(s, EMPTY, ["Logical validity (ICEBERG_V2): EMPTY_STRUCT: a struct must have at least one "
                                "field", "{validateFields: 'false', compatibility: 'NONE'}"])
        recursive = json.dumps({"type": "record", "name": "Node", "fields": [
            {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"], "default": None}]})
        cyclic = ("CYCLIC_TYPE: named type 'Node' refers to itself, and cannot be represented by a "
                  "non-recursive type system")
        self.refused(s, recursive, [f"Logical validity (FLINK): {cyclic}", f"Logical validity (ICEBERG_V2): {cyclic}",
                                    "{validateFields: 'false', compatibility: 'NONE'}"])
        self.refused(s, avro_record("N", [("n", "null")]),
                     ["Schema cannot be represented as a logical type: Standalone NULL type is not supported",
                      "{validateFields: 'false', compatibility: 'NONE'}"])
        self.config(s, {"compatibility": "NONE", "compatibilityPolicy": "STRICT"})
        self.register_ok(s, EMPTY)

    def test_compatible_changes_are_accepted(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD_TRANSITIVE", "compatibilityPolicy": "LOGICAL"})
        v1 = self.register_ok(s, RECORD_A)
        # The same schema again: its version, no check.
        self.assertEqual(self.register_ok(s, RECORD_A), v1)
        # A nullable field with a null default is optional for both consumers; int -> long widens.
        self.register_ok(s, avro_record("R", [("a", "int"), ("c", ["null", "string"], None)]))
        with_c = avro_record("R", [("a", "long"), ("c", ["null", "string"], None)])
        self.register_ok(s, with_c)
        self.assertEqual(self.assert_ok(self.versions(s)), [1, 2, 3])
        # Under FULL the forward half sees c as an Iceberg delete: the old schema lacks it.
        self.config(s, {"compatibility": "FULL", "compatibilityPolicy": "LOGICAL"})
        self.refused(s, avro_record("R", [("a", "long"), ("c", ["null", "string"], None), ("d", ["null", "int"], None)]),
                     ["Logical compatibility (ICEBERG_V2, forward): FIELD_DELETED at 'd': field present in the "
                      "original schema is missing from the update", "{validateFields: 'false', compatibility: 'FULL'}"])

    def test_compatibility_endpoint(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "LOGICAL"})
        self.register_ok(s, RECORD_A_B)
        body = {"schema": RECORD_A}
        for path in (f"/compatibility/subjects/{quote(s)}/versions/latest", f"/compatibility/subjects/{quote(s)}/versions"):
            self.assert_ok(self.post(path, body), {"is_compatible": False})
            self.assert_ok(self.post(path, body, params={"verbose": "true"}),
                           {"is_compatible": False,
                            "messages": [DELETED_B, "{validateFields: 'false', compatibility: 'BACKWARD'}"]})
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/latest", {"schema": RECORD_A_B},
                                 params={"verbose": "true"}), {"is_compatible": True, "messages": []})
        # Validity on a subject without versions.
        t = self.sub("t")
        self.config(t, {"compatibilityPolicy": "LOGICAL"})
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(t)}/versions/latest", {"schema": EMPTY},
                                 params={"verbose": "true"}),
                       {"is_compatible": False,
                        "messages": ["Logical validity (ICEBERG_V2): EMPTY_STRUCT: a struct must have at least one "
                                     "field", "{validateFields: 'false', compatibility: 'BACKWARD'}"]})

    def test_global_policy_applies(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD"})
        self.register_ok(s, RECORD_A_B)
        self.config(None, {"compatibilityPolicy": "LOGICAL"})
        self.addCleanup(lambda: self.put("/config", {"compatibilityPolicy": None}))
        self.refused(s, RECORD_A, [DELETED_B, "{validateFields: 'false', compatibility: 'BACKWARD'}"])

    def test_protobuf_converts(self):
        # ProtoToLogicalTypeConverter: a dropped field is an Iceberg FIELD_DELETED, which the native
        # Protobuf check allows; an added repeated field reads as empty, so it is accepted.
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "LOGICAL"})
        self.register_ok(s, 'syntax = "proto3"; message M { int32 a = 1; int32 b = 2; }', schema_type="PROTOBUF")
        before = self.db.state()
        r = self.register(s, 'syntax = "proto3"; message M { int32 a = 1; }', schema_type="PROTOBUF")
        self.assert_error(r, 409, 40901)
        self.assertIn(f"details: [{DELETED_B}, {{validateFields: 'false', compatibility: 'BACKWARD'}}]",
                      r.body["message"])
        self.assertEqual(self.db.state(), before)
        self.register_ok(s, 'syntax = "proto3"; message M { int32 a = 1; int32 b = 2; repeated string c = 3; }',
                         schema_type="PROTOBUF")

    def test_json_schema_converts(self):
        # JsonToLogicalTypeConverter: an optional property dropped is an Iceberg FIELD_DELETED, which
        # the native JSON Schema check allows (the object is open); STRICT then accepts it.
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "LOGICAL"})
        props = {"a": {"type": "integer"}, "b": {"type": "integer"}}
        self.register_ok(s, json.dumps({"type": "object", "properties": props}), schema_type="JSON")
        del props["b"]
        before = self.db.state()
        r = self.register(s, json.dumps({"type": "object", "properties": props}), schema_type="JSON")
        self.assert_error(r, 409, 40901)
        self.assertEqual(r.body["message"],
                         f'Schema being registered is incompatible with an earlier schema for subject "{s}", '
                         f"details: [{DELETED_B}, {{validateFields: 'false', compatibility: 'BACKWARD'}}]")
        self.assertEqual(self.db.state(), before)
        self.config(s, {"compatibility": "BACKWARD", "compatibilityPolicy": "STRICT"})
        self.register_ok(s, json.dumps({"type": "object", "properties": props}), schema_type="JSON")

    def test_json_schema_conditional_is_refused_even_first(self):
        # The converter throws on if/then/else (CombinedSchemaUtils); the new schema then has no
        # logical type, which refuses it at any level.
        s = self.sub()
        self.config(s, {"compatibility": "NONE", "compatibilityPolicy": "LOGICAL"})
        schema = {"type": "object", "properties": {"a": {"type": "integer"}},
                  "if": {"required": ["a"]}, "then": {"required": ["a"]}}
        self.refused(s, json.dumps(schema), [
            "Schema cannot be represented as a logical type: JSON Schema if/then/else and `not` are not "
            "supported: a property declared only under a condition has no column to be read into, so its "
            "values would be silently dropped",
            "{validateFields: 'false', compatibility: 'NONE'}"], schema_type="JSON")

if __name__ == "__main__":
    harness.main()

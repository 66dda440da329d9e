"""validateFields, applied as Confluent applies it (issue 10, section 6).

Confluent's AbstractSchemaRegistry calls ParsedSchema.validate(validateFields)
on every registration, lookup and compatibility test outside IMPORT mode, and
names the effective value in incompatibility messages:
- JSON Schema (JsonSchema.validate(true)): a top-level object may not have a
  property whose name starts with "$$" -> 42201.
- Avro (AvroSchema keeps ParsedSchema's empty validate) and Protobuf
  (ProtobufSchema.validate(true) builds the descriptor, which every parse here
  does): nothing more is refused.
Subject-level config wins over global; unset means false.
"""

import json

import harness
from harness import avro_record, quote

DOLLARS = json.dumps({"type": "object", "properties": {"$$meta": {"type": "string"},
                                                       "id": {"type": "integer"}}})
NESTED_DOLLARS = json.dumps({"type": "object", "properties": {
    "inner": {"type": "object", "properties": {"$$meta": {"type": "string"}}}}})


class ValidateFields(harness.RegistryTestCase):

    def config(self, subject, value):
        path = f"/config/{quote(subject)}" if subject else "/config"
        self.assert_ok(self.put(path, {"validateFields": value}))

    def test_dollar_dollar_property_refused_only_when_on(self):
        s = self.sub()
        before = self.db.state()
        self.config(s, True)
        r = self.register(s, DOLLARS, schema_type="JSON")
        self.assert_error(r, 422, 42201)
        self.assertIn("Field names cannot start with $$ prefix", r.body["message"])
        self.assertEqual(self.db.state()["subject_versions"], before["subject_versions"])
        # Lookup and the compatibility test validate the same way.
        self.assert_error(self.lookup(s, DOLLARS, schema_type="JSON"), 422, 42201)
        r = self.post(f"/compatibility/subjects/{quote(s)}/versions",
                      self.schema_body(DOLLARS, "JSON"))
        self.assert_error(r, 422, 42201)
        # Off: the same schema registers; only the top level is checked.
        self.config(s, False)
        self.assertEqual(self.register(s, DOLLARS, schema_type="JSON").status, 200)
        other = self.sub()
        self.config(other, True)
        self.assertEqual(self.register(other, NESTED_DOLLARS, schema_type="JSON").status, 200)

    def test_subject_level_wins_over_global(self):
        s = self.sub()
        self.config(None, True)
        self.addCleanup(lambda: self.put("/config", {"validateFields": None}))
        self.assert_error(self.register(s, DOLLARS, schema_type="JSON"), 422, 42201)
        self.config(s, False)
        self.assertEqual(self.register(s, DOLLARS, schema_type="JSON").status, 200)

    def test_import_mode_stores_what_it_is_given(self):
        s = self.sub()
        self.config(s, True)
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}))
        imported = json.dumps({"type": "object", "properties": {"$$imported": {"type": "string"}}})
        r = self.register(s, imported, schema_type="JSON", id=9001)
        self.assertEqual((r.status, r.body), (200, {"id": 9001}))

    def test_avro_and_protobuf_have_no_extra_rule(self):
        s = self.sub()
        self.config(s, True)
        self.assertEqual(self.register(s, avro_record("Plain", [("a", "string")])).status, 200)
        p = self.sub()
        self.config(p, True)
        r = self.register(p, 'syntax = "proto3";\nmessage M { string a = 1; }\n', schema_type="PROTOBUF")
        self.assertEqual(r.status, 200, r)

    def test_messages_name_the_effective_value(self):
        s = self.sub()
        self.assertEqual(self.register(s, avro_record("Msg", [("a", "string")])).status, 200)
        broken = avro_record("Msg", [("a", "int")])
        for value in (True, False):
            self.config(s, value)
            r = self.post(f"/compatibility/subjects/{quote(s)}/versions/latest",
                          self.schema_body(broken), params={"verbose": "true"})
            self.assertEqual(r.status, 200, r)
            self.assertFalse(r.body["is_compatible"])
            self.assertEqual(r.body["messages"][-1],
                             f"{{validateFields: '{str(value).lower()}', compatibility: 'BACKWARD'}}")
            r = self.register(s, broken)
            self.assert_error(r, 409, 40901)
            self.assertIn(f"validateFields: '{str(value).lower()}'", r.body["message"])


if __name__ == "__main__":
    harness.main()

"""Wide unions through the compatibility API (docs/compatibility.md "Limits"):
an Avro union of 1,000 records is matched branch by branch by name, and a
JSON Schema oneOf of 1,500 branches pairs its equal branches first, so both
get the reference's answer instead of stopping at the work limit."""

import json

import harness
from harness import quote

N = 1000
JSON_N = 1500


def avro_union(n, changed=None):
    """n records U0..U(n-1); record `changed` gains a field without default."""
    branches = []
    for i in range(n):
        fields = [{"name": "x", "type": "int"},
                  {"name": f"note{i}", "type": ["null", "string"], "default": None}]
        if i == changed:
            fields.append({"name": "extra", "type": "int"})
        branches.append({"type": "record", "name": f"U{i}", "fields": fields})
    return json.dumps(branches)


def json_one_of(n, changed=None):
    """n objects told apart by a const; branch `changed` has another one."""
    return json.dumps({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": f"{'x' if i == changed else 'k'}{i}"}},
         "required": ["kind"]}
        for i in range(n)]})


class WideUnionTestCase(harness.RegistryTestCase):
    server_args = ("--max-schema-bytes", "4194304")

    def check(self, subject, schema, schema_type=None):
        path = f"/compatibility/subjects/{quote(subject)}/versions/latest"
        return self.assert_ok(self.post(path, self.schema_body(schema, schema_type),
                                        params={"verbose": "true"}))

    def subject_with(self, schema, schema_type=None):
        s = self.sub()
        self.register_ok(s, schema, schema_type=schema_type)
        return s


class AvroUnions(WideUnionTestCase):

    def test_same_union_is_compatible(self):
        s = self.subject_with(avro_union(N))
        self.assertEqual(self.check(s, avro_union(N)), {"is_compatible": True, "messages": []})

    def test_appended_branch_is_backward_compatible(self):
        s = self.subject_with(avro_union(N))
        self.assertEqual(self.check(s, avro_union(N + 1)), {"is_compatible": True, "messages": []})

    def test_one_changed_branch_is_reported(self):
        s = self.subject_with(avro_union(N))
        body = self.check(s, avro_union(N, changed=617))
        self.assertIs(body["is_compatible"], False)
        issues = [m for m in body["messages"] if m.startswith("{errorType:")]
        self.assertEqual(len(issues), 1, body["messages"])
        self.assertIn("'MISSING_UNION_BRANCH'", issues[0])
        self.assertIn("'/617'", issues[0])
        self.assertIn("reader union lacking writer type: RECORD", issues[0])


class JsonOneOf(WideUnionTestCase):

    def test_same_one_of_is_compatible(self):
        s = self.subject_with(json_one_of(JSON_N), "JSON")
        self.assertEqual(self.check(s, json_one_of(JSON_N), "JSON"), {"is_compatible": True, "messages": []})

    def test_appended_branch_is_backward_compatible(self):
        # SUM_TYPE_EXTENDED: compatible under Confluent's rules.
        s = self.subject_with(json_one_of(JSON_N), "JSON")
        self.assertEqual(self.check(s, json_one_of(JSON_N + 1), "JSON"),
                         {"is_compatible": True, "messages": []})

    def test_one_changed_branch_is_reported(self):
        s = self.subject_with(json_one_of(JSON_N), "JSON")
        body = self.check(s, json_one_of(JSON_N, changed=700), "JSON")
        self.assertIs(body["is_compatible"], False)
        issues = [m for m in body["messages"] if m.startswith("{errorType:")]
        self.assertEqual(len(issues), 1, body["messages"])
        self.assertIn('"COMBINED_TYPE_SUBSCHEMAS_CHANGED"', issues[0])


if __name__ == "__main__":
    harness.main()

"""Wide unions through the compatibility API (compatibility.md "Limits"):
an Avro union of 1,000 records is matched branch by branch by name, so it
gets Avro's answer instead of stopping at the work limit."""

import json

import harness
from harness import quote

N = 1000


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


if __name__ == "__main__":
    harness.main()

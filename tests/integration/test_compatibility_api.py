"""The compatibility endpoints and the levels, driven through the API with
Avro schemas (docs/api.md; docs/compatibility.md)."""

import json

import harness
from harness import avro_record, quote

# Field building blocks: (name, type) or (name, type, default).
F1 = ("f1", "string")
F2 = ("f2", "string")
F2_DEFAULT = ("f2", "string", "x")


def rec(*fields):
    return avro_record("Compat", list(fields))


class CompatTestCase(harness.RegistryTestCase):

    def check(self, subject, schema, version="latest", verbose=None, schema_type=None):
        path = f"/compatibility/subjects/{quote(subject)}/versions"
        if version is not None:
            path += f"/{version}"
        params = {"verbose": verbose} if verbose is not None else None
        return self.post(path, self.schema_body(schema, schema_type), params=params)

    def is_compatible(self, subject, schema, version="latest"):
        body = self.assert_ok(self.check(subject, schema, version))
        self.assertEqual(set(body), {"is_compatible"})
        return body["is_compatible"]

    def subject_with(self, *schemas, level=None):
        s = self.sub()
        if level:
            self.set_level(s, "NONE")
        for schema in schemas:
            self.register_ok(s, schema)
        if level:
            self.set_level(s, level)
        return s


class Endpoints(CompatTestCase):

    def test_compatible_and_incompatible(self):
        s = self.subject_with(rec(F1))
        self.assert_ok(self.check(s, rec(F1, F2_DEFAULT)), {"is_compatible": True})
        self.assert_ok(self.check(s, rec(F1, F2)), {"is_compatible": False})
        self.assert_ok(self.check(s, rec(F1, F2), version=None), {"is_compatible": False})
        self.assert_ok(self.check(s, rec(F1, F2_DEFAULT), version=None), {"is_compatible": True})
        self.assert_ok(self.check(s, rec(F1, F2), version="1"), {"is_compatible": False})
        self.assert_ok(self.check(s, rec(F1, F2), version="-1"), {"is_compatible": False})

    def test_verbose_messages(self):
        s = self.subject_with(rec(F1))
        body = self.assert_ok(self.check(s, rec(F1, F2), verbose="true"))
        self.assertEqual(set(body), {"is_compatible", "messages"})
        self.assertIs(body["is_compatible"], False)
        self.assertIsInstance(body["messages"], list)
        self.assertGreater(len(body["messages"]), 0)
        for m in body["messages"]:
            self.assertIsInstance(m, str)
        self.assert_ok(self.check(s, rec(F1, F2_DEFAULT), verbose="true"),
                       {"is_compatible": True, "messages": []})
        self.assert_ok(self.check(s, rec(F1, F2), version=None, verbose="true"))
        self.assert_ok(self.check(s, rec(F1, F2), verbose="false"), {"is_compatible": False})

    def test_checks_register_nothing(self):
        s = self.subject_with(rec(F1))
        before = self.db.state()
        for version in ("latest", None, "1"):
            self.check(s, rec(F1, F2_DEFAULT), version=version)
            self.check(s, rec(F1, F2), version=version)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1])

    def test_unknown_subject(self):
        s = self.sub()
        self.assert_ok(self.check(s, rec(F1)), {"is_compatible": True})
        self.assert_ok(self.check(s, rec(F1), version="-1"), {"is_compatible": True})
        self.assert_ok(self.check(s, rec(F1), version=None), {"is_compatible": True})
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/",
                                 {"schema": rec(F1)}), {"is_compatible": True})
        # A numbered version of a subject that does not exist: 40402, not 40401 [Ref].
        self.assert_error(self.check(s, rec(F1), version="1"), 404, 40402)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_missing_or_soft_deleted_version_is_40402(self):
        s = self.subject_with(rec(F1), rec(F1, F2_DEFAULT))
        self.assert_error(self.check(s, rec(F1), version="3"), 404, 40402)
        self.assert_ok(self.delete_version(s, 1))
        self.assert_error(self.check(s, rec(F1), version="1"), 404, 40402)
        self.assert_ok(self.check(s, rec(F1), version="2"), {"is_compatible": True})

    def test_invalid_version_is_42202(self):
        s = self.subject_with(rec(F1))
        for v in ("0", "-2", "abc", "2147483648"):
            with self.subTest(version=v):
                self.assert_error(self.check(s, rec(F1), version=v), 422, 42202)

    def test_invalid_schema(self):
        s = self.subject_with(rec(F1))
        for version in ("latest", None):
            with self.subTest(version=version):
                self.assert_error(self.check(s, '{"type": "record", "name": "X"}', version),
                                  422, 42201)
                body = self.assert_ok(self.check(s, '{"type": "record", "name": "X"}', version,
                                                 verbose="true"))
                self.assertIs(body["is_compatible"], False)
                self.assertGreater(len(body["messages"]), 0)

    def test_only_live_versions_are_checked(self):
        s = self.subject_with(rec(F1))
        self.assert_ok(self.delete_version(s, 1))
        changed = avro_record("Compat", [("f1", "int")])
        self.assert_ok(self.check(s, changed), {"is_compatible": True})
        self.assert_ok(self.check(s, changed, version=None), {"is_compatible": True})
        self.register_ok(s, changed)
        self.assert_ok(self.versions(s, {"deleted": "true"}), [1, 2])

    def test_different_schema_type_is_incompatible(self):
        s = self.subject_with(rec(F1))
        json_schema = json.dumps({"type": "object", "properties": {"f1": {"type": "string"}}})
        self.assert_ok(self.check(s, json_schema, schema_type="JSON"), {"is_compatible": False})
        self.assert_error(self.register(s, json_schema, schema_type="JSON"), 409, 40901)
        self.set_level(s, "NONE")
        self.assert_ok(self.check(s, json_schema, schema_type="JSON"), {"is_compatible": True})

    def test_check_ignores_mode(self):
        s = self.subject_with(rec(F1))
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "READONLY"}))
        self.assert_ok(self.check(s, rec(F1, F2)), {"is_compatible": False})
        self.assert_ok(self.check(s, rec(F1, F2_DEFAULT), version=None), {"is_compatible": True})

    def test_incompatible_register_is_409(self):
        s = self.subject_with(rec(F1))
        before = self.db.state()
        r = self.register(s, rec(F1, F2))
        self.assert_error(r, 409, 40901)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1])
        self.assertEqual(self.assert_ok(self.version(s, "latest"))["version"], 1)


class Levels(CompatTestCase):
    """One previous version: the direction of each level (docs/compatibility.md)."""

    def verdicts(self, old, new):
        """{level: is_compatible} for new against a subject holding old."""
        out = {}
        for level in ("NONE", "BACKWARD", "FORWARD", "FULL",
                      "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL_TRANSITIVE"):
            s = self.subject_with(old, level=level)
            out[level] = (self.is_compatible(s, new), self.is_compatible(s, new, version=None))
            self.assertEqual(out[level][0], out[level][1], f"{level}: endpoints disagree")
            out[level] = out[level][0]
        return out

    def expect(self, old, new, backward, forward):
        got = self.verdicts(old, new)
        full = backward and forward
        self.assertEqual(got, {
            "NONE": True,
            "BACKWARD": backward, "BACKWARD_TRANSITIVE": backward,
            "FORWARD": forward, "FORWARD_TRANSITIVE": forward,
            "FULL": full, "FULL_TRANSITIVE": full,
        })

    def test_add_field_with_default(self):
        self.expect(rec(F1), rec(F1, F2_DEFAULT), backward=True, forward=True)

    def test_add_field_without_default(self):
        self.expect(rec(F1), rec(F1, F2), backward=False, forward=True)

    def test_remove_field_without_default(self):
        self.expect(rec(F1, F2), rec(F1), backward=True, forward=False)

    def test_remove_field_with_default(self):
        self.expect(rec(F1, F2_DEFAULT), rec(F1), backward=True, forward=True)

    def test_int_to_long(self):
        self.expect(avro_record("Compat", [("n", "int")]), avro_record("Compat", [("n", "long")]),
                    backward=True, forward=False)

    def test_long_to_int(self):
        self.expect(avro_record("Compat", [("n", "long")]), avro_record("Compat", [("n", "int")]),
                    backward=False, forward=True)

    def test_string_to_int(self):
        self.expect(rec(F1), avro_record("Compat", [("f1", "int")]), backward=False, forward=False)

    def test_record_rename(self):
        self.expect(rec(F1), avro_record("Renamed", [F1]), backward=False, forward=False)

    def test_nullable(self):
        self.expect(rec(F1), avro_record("Compat", [("f1", ["null", "string"])]),
                    backward=True, forward=False)

    def test_register_enforces_the_level(self):
        s = self.subject_with(rec(F1), level="FORWARD")
        self.assert_error(self.register(s, rec()), 409, 40901)      # drops f1, no default
        self.register_ok(s, rec(F1, F2))                            # adding is forward-safe
        self.assert_ok(self.versions(s), [1, 2])


class Transitive(CompatTestCase):
    """Several previous versions: the transitive levels check all live ones,
    the others only the latest; /versions/{v} checks exactly one."""

    def test_backward_transitive(self):
        v1 = rec(F1)
        v2 = rec(F1, F2_DEFAULT)
        cand = rec(F1, F2)              # reads v2 data, not v1 data (f2 has no default)
        for level, expected in (("BACKWARD", True), ("BACKWARD_TRANSITIVE", False)):
            with self.subTest(level=level):
                s = self.subject_with(v1, v2, level=level)
                self.assertIs(self.is_compatible(s, cand, version=None), expected)
                self.assertIs(self.is_compatible(s, cand, version="latest"), True)
                self.assertIs(self.is_compatible(s, cand, version="2"), True)
                self.assertIs(self.is_compatible(s, cand, version="1"), False)
                r = self.register(s, cand)
                if expected:
                    self.assertEqual(r.status, 200, r)
                else:
                    self.assert_error(r, 409, 40901)

    def test_forward_transitive(self):
        v1 = rec(F1, F2_DEFAULT)
        v2 = rec(F1)
        cand = avro_record("Compat", [F1, ("f2", "int", 0)])   # v1 cannot read f2 as int
        for level, expected in (("FORWARD", True), ("FORWARD_TRANSITIVE", False)):
            with self.subTest(level=level):
                s = self.subject_with(v1, v2, level=level)
                self.assertIs(self.is_compatible(s, cand, version=None), expected)
                self.assertIs(self.is_compatible(s, cand, version="latest"), True)
                self.assertIs(self.is_compatible(s, cand, version="1"), False)

    def test_full_transitive(self):
        v1 = rec(F1, F2_DEFAULT)
        v2 = rec(F1)
        cand = avro_record("Compat", [F1, ("f2", "int", 0)])
        for level, expected in (("FULL", True), ("FULL_TRANSITIVE", False)):
            with self.subTest(level=level):
                s = self.subject_with(v1, v2, level=level)
                self.assertIs(self.is_compatible(s, cand, version=None), expected)
                self.assertIs(self.is_compatible(s, cand, version="2"), True)
                self.assertIs(self.is_compatible(s, cand, version="1"), False)

    def test_transitive_skips_soft_deleted_versions(self):
        s = self.subject_with(rec(F1), rec(F1, F2_DEFAULT), level="BACKWARD_TRANSITIVE")
        cand = rec(F1, F2)
        self.assertIs(self.is_compatible(s, cand, version=None), False)
        self.assert_ok(self.delete_version(s, 1))
        self.assertIs(self.is_compatible(s, cand, version=None), True)
        self.register_ok(s, cand)


if __name__ == "__main__":
    harness.main()

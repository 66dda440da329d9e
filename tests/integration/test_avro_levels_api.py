"""Avro compatibility levels through the HTTP API: every level on the
register path, the exact verbose message list and the 409 body, soft-deleted
versions left out of the history (docs/api.md;
docs/compatibility.md).

Message lists are compared string for string: their format is specified
exactly in docs/compatibility.md (they are not free wording)."""

import json
import os

import harness
from harness import quote

LEVELS = ("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
          "FULL", "FULL_TRANSITIVE")

CONFORMANCE = os.environ.get("SR_CONFORMANCE_DIR") or os.path.join(
    harness.HERE, "..", "..", "..", "shared", "conformance")
AVRO_CASES = os.path.join(CONFORMANCE, "avro", "compatibility-cases.json")


def rec(*fields, name="Lv"):
    """Compact record text (the canonical form for these simple records):
    fields are (name, type) or (name, type, default) or dicts."""
    out = []
    for f in fields:
        if isinstance(f, dict):
            out.append(f)
            continue
        field = {"name": f[0], "type": f[1]}
        if len(f) > 2:
            field["default"] = f[2]
        out.append(field)
    return json.dumps({"type": "record", "name": name, "fields": out}, separators=(",", ":"))


def summary(level):
    return f"{{validateFields: 'false', compatibility: '{level}'}}"


def old_schema(text):
    return f"{{oldSchema: '{text}'}}"


def missing_default(field, position, reader, writer):
    return (f"{{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field '{field}' "
            f"at path '/fields/{position}' in the {reader} schema has no default value and is "
            f"missing in the {writer} schema', additionalInfo:'{field}'}}")


def type_mismatch(path, reader, writer, reader_type, writer_type):
    return (f"{{errorType:'TYPE_MISMATCH', description:'The type (path '{path}') of a field in "
            f"the {reader} schema does not match with the {writer} schema', "
            f"additionalInfo:'reader type: {reader_type} not compatible with writer type: "
            f"{writer_type}'}}")


class LevelTestCase(harness.RegistryTestCase):

    def history(self, level, *schemas):
        """A new subject holding schemas as versions 1..n, then set to level."""
        s = self.sub()
        self.set_level(s, "NONE")
        for n, schema in enumerate(schemas, start=1):
            self.register_ok(s, schema)
            self.assert_ok(self.versions(s), list(range(1, n + 1)))
        self.set_level(s, level)
        return s

    def verbose(self, subject, schema, version=None):
        path = f"/compatibility/subjects/{quote(subject)}/versions"
        if version is not None:
            path += f"/{version}"
        body = self.assert_ok(self.post(path, {"schema": schema}, params={"verbose": "true"}))
        self.assertEqual(set(body), {"is_compatible", "messages"}, body)
        return body["is_compatible"], body["messages"]


class EveryLevel(LevelTestCase):
    """A history where the level decides the outcome, on the register path."""

    # v1 lacks f2; v2 adds it with a default; the candidate needs it without one.
    BACK_V1 = rec(("f1", "string"))
    BACK_V2 = rec(("f1", "string"), ("f2", "string", ""))
    BACK_CAND = rec(("f1", "string"), ("f2", "string"))
    # v1 has f2 without a default; v2 gives it one; the candidate drops it.
    FWD_V1 = rec(("f1", "string"), ("f2", "string"))
    FWD_V2 = rec(("f1", "string"), ("f2", "string", ""))
    FWD_CAND = rec(("f1", "string"))

    def outcome(self, level, v1, v2, cand):
        s = self.history(level, v1, v2)
        ok, _ = self.verbose(s, cand)
        r = self.register(s, cand)
        if ok:
            self.assertEqual(r.status, 200, r)
            self.assert_ok(self.versions(s), [1, 2, 3])
        else:
            self.assert_error(r, 409, 40901)
            self.assert_ok(self.versions(s), [1, 2])
        return ok

    def test_backward_family(self):
        got = {lv: self.outcome(lv, self.BACK_V1, self.BACK_V2, self.BACK_CAND) for lv in LEVELS}
        self.assertEqual(got, {"NONE": True,
                               "BACKWARD": True, "BACKWARD_TRANSITIVE": False,
                               # FORWARD: v2 (reader) ignores nothing it needs.
                               "FORWARD": True, "FORWARD_TRANSITIVE": True,
                               "FULL": True, "FULL_TRANSITIVE": False})

    def test_forward_family(self):
        got = {lv: self.outcome(lv, self.FWD_V1, self.FWD_V2, self.FWD_CAND) for lv in LEVELS}
        self.assertEqual(got, {"NONE": True,
                               "BACKWARD": True, "BACKWARD_TRANSITIVE": True,
                               "FORWARD": True, "FORWARD_TRANSITIVE": False,
                               "FULL": True, "FULL_TRANSITIVE": False})

    def test_none_accepts_a_type_change(self):
        s = self.history("NONE", rec(("f1", "string")))
        self.register_ok(s, rec(("f1", "int")))
        self.register_ok(s, '"bytes"')
        self.assert_ok(self.versions(s), [1, 2, 3])

    def test_level_names_are_case_insensitive_and_echoed_upper_case(self):
        s = self.sub()
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibility": "full_transitive"}),
                       {"compatibility": "FULL_TRANSITIVE"})
        self.assert_ok(self.get(f"/config/{quote(s)}"), {"compatibilityLevel": "FULL_TRANSITIVE"})
        self.assert_error(self.put(f"/config/{quote(s)}", {"compatibility": "SIDEWAYS"}),
                          422, 42203)


class FieldChanges(LevelTestCase):
    """docs/compatibility.md, one previous version, register path."""

    F1 = ("f1", "string")
    CHANGES = {
        # name: (old, new, BACKWARD, FORWARD)
        "add field with default": (rec(F1), rec(F1, ("f2", "string", "")), True, True),
        "add field without default": (rec(F1), rec(F1, ("f2", "string")), False, True),
        "rename via alias": (rec(F1, ("f2", "string")),
                             rec(F1, {"name": "g2", "type": "string", "aliases": ["f2"]}),
                             True, False),
        "rename without alias": (rec(F1, ("f2", "string")), rec(F1, ("g2", "string")),
                                 False, False),
        "drop field without default": (rec(F1, ("f2", "string")), rec(F1), True, False),
        "drop field with default": (rec(F1, ("f2", "string", "")), rec(F1), True, True),
        "widen int to long": (rec(("n", "int")), rec(("n", "long")), True, False),
        "narrow long to int": (rec(("n", "long")), rec(("n", "int")), False, True),
        "string to bytes": (rec(F1), rec(("f1", "bytes")), True, True),
    }

    def test_changes_under_backward_forward_full(self):
        for name, (old, new, backward, forward) in self.CHANGES.items():
            expected = {"BACKWARD": backward, "FORWARD": forward, "FULL": backward and forward}
            for level, ok in expected.items():
                with self.subTest(change=name, level=level):
                    s = self.history(level, old)
                    verdict, messages = self.verbose(s, new)
                    self.assertIs(verdict, ok, messages)
                    r = self.register(s, new)
                    if ok:
                        self.assertEqual(messages, [])
                        self.assertEqual(r.status, 200, r)
                    else:
                        self.assertEqual(messages[-1], summary(level))
                        self.assert_error(r, 409, 40901)

    def test_rename_via_alias_keeps_reading_old_data(self):
        # The renamed field is found through its alias: no missing-default error.
        s = self.history("BACKWARD", rec(("f1", "string"), ("f2", "int")))
        renamed = rec(("f1", "string"), {"name": "g2", "type": "long", "aliases": ["f2"]})
        self.assertEqual(self.verbose(s, renamed), (True, []))
        # An alias does not hide a type clash.
        clash = rec(("f1", "string"), {"name": "g2", "type": "boolean", "aliases": ["f2"]})
        ok, messages = self.verbose(s, clash)
        self.assertIs(ok, False)
        self.assertEqual(messages[0], type_mismatch("/fields/1/type", "new", "old",
                                                    "BOOLEAN", "INT"))


class Messages(LevelTestCase):
    """Exact verbose lists (docs/compatibility.md) and the 409 body."""

    def test_backward_missing_default(self):
        old = rec(("f1", "string"), name="myrecord")
        new = rec(("f1", "string"), ("f2", "string"), name="myrecord")
        s = self.history("BACKWARD", old)
        expected = [
            missing_default("f2", 1, "new", "old"),
            "{oldSchemaVersion: 1}",
            old_schema('{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}]}'),
            summary("BACKWARD"),
        ]
        self.assertEqual(self.verbose(s, new), (False, expected))
        self.assertEqual(self.verbose(s, new, version="latest"), (False, expected))
        self.assertEqual(self.verbose(s, new, version="1"), (False, expected))
        self.assert_register_refused(s, new, expected)

    def test_forward_swaps_old_and_new(self):
        old = rec(("f1", "string"), ("f2", "string"))
        new = rec(("f1", "string"))
        s = self.history("FORWARD", old)
        expected = [missing_default("f2", 1, "old", "new"), "{oldSchemaVersion: 1}",
                    old_schema(old), summary("FORWARD")]
        self.assertEqual(self.verbose(s, new), (False, expected))
        self.assert_register_refused(s, new, expected)

    def test_full_forward_half_only_has_no_appendix(self):
        old = rec(("n", "int"))
        new = rec(("n", "long"))
        s = self.history("FULL", old)
        expected = [type_mismatch("/fields/0/type", "old", "new", "INT", "LONG"), summary("FULL")]
        self.assertEqual(self.verbose(s, new), (False, expected))
        self.assert_register_refused(s, new, expected)

    def test_full_both_halves(self):
        old = rec(("f1", "string"))
        new = rec(("f1", "int"))
        s = self.history("FULL", old)
        expected = [type_mismatch("/fields/0/type", "old", "new", "STRING", "INT"),
                    type_mismatch("/fields/0/type", "new", "old", "INT", "STRING"),
                    "{oldSchemaVersion: 1}", old_schema(old), summary("FULL")]
        self.assertEqual(self.verbose(s, new), (False, expected))
        self.assert_register_refused(s, new, expected)

    def test_several_problems_in_one_schema(self):
        old = rec(("a", "string"), ("b", "int"))
        new = rec(("a", "int"), ("b", "int"), ("c", "string"))
        s = self.history("BACKWARD", old)
        expected = [type_mismatch("/fields/0/type", "new", "old", "INT", "STRING"),
                    missing_default("c", 2, "new", "old"),
                    "{oldSchemaVersion: 1}", old_schema(old), summary("BACKWARD")]
        self.assertEqual(self.verbose(s, new), (False, expected))

    def test_transitive_reports_the_version_that_failed(self):
        v1 = rec(("f1", "string"))
        v2 = rec(("f1", "string"), ("f2", "string", ""))
        v3 = rec(("f1", "string"), ("f2", "string", ""), ("f3", "string", ""))
        cand = rec(("f1", "string"), ("f2", "string"), ("f3", "string", ""))
        s = self.history("BACKWARD_TRANSITIVE", v1, v2, v3)
        expected = [missing_default("f2", 1, "new", "old"), "{oldSchemaVersion: 1}",
                    old_schema(v1), summary("BACKWARD_TRANSITIVE")]
        self.assertEqual(self.verbose(s, cand), (False, expected))
        self.assert_register_refused(s, cand, expected)

    def test_single_version_check_names_the_configured_level(self):
        """/versions/{v} checks one version, so the transitive flag plays no
        part in the verdict; the summary still names the configured level (1.4 step 5)."""
        v1 = rec(("f1", "string"))
        v2 = rec(("f1", "string"), ("f2", "string", ""))
        cand = rec(("f1", "string"), ("f2", "string"))
        s = self.history("BACKWARD_TRANSITIVE", v1, v2)
        self.assertEqual(self.verbose(s, cand, version="latest"), (True, []))
        expected = [missing_default("f2", 1, "new", "old"), "{oldSchemaVersion: 1}",
                    old_schema(v1), summary("BACKWARD_TRANSITIVE")]
        self.assertEqual(self.verbose(s, cand, version="1"), (False, expected))

    def test_long_old_schema_is_truncated(self):
        old = json.dumps({"type": "record", "name": "Big", "doc": "d" * 12000,
                          "fields": [{"name": "f1", "type": "string"}]}, separators=(",", ":"))
        new = json.dumps({"type": "record", "name": "Big", "doc": "d" * 12000,
                          "fields": [{"name": "f1", "type": "int"}]}, separators=(",", ":"))
        s = self.history("BACKWARD", old)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], old)
        expected = [type_mismatch("/fields/0/type", "new", "old", "INT", "STRING"),
                    "{oldSchemaVersion: 1}",
                    "{oldSchema: <truncated> '" + old[:10240] + "...'}",
                    summary("BACKWARD")]
        self.assertEqual(self.verbose(s, new), (False, expected))

    def test_old_schema_at_the_limit_is_not_truncated(self):
        base = {"type": "record", "name": "Edge", "doc": "",
                "fields": [{"name": "f1", "type": "string"}]}
        overhead = len(json.dumps(base, separators=(",", ":")))
        base["doc"] = "e" * (10240 - overhead)
        old = json.dumps(base, separators=(",", ":"))
        self.assertEqual(len(old), 10240)
        new = old.replace('"type":"string"', '"type":"int"')
        s = self.history("BACKWARD", old)
        ok, messages = self.verbose(s, new)
        self.assertIs(ok, False)
        self.assertEqual(messages[2], old_schema(old))

    def test_compatible_verbose_is_an_empty_list(self):
        s = self.history("FULL_TRANSITIVE", rec(("f1", "string")))
        self.assertEqual(self.verbose(s, rec(("f1", "string"), ("f2", "int", 0))), (True, []))


class SoftDeleted(LevelTestCase):
    """docs/compatibility.md: soft-deleted versions are neither latest nor history."""

    V1 = rec(("f1", "string"))
    V2 = rec(("f1", "string"), ("f2", "int", 0))
    CAND = rec(("f1", "string"), ("f2", "string", ""))   # reads v1 data, not v2 data

    def test_latest_live_version_is_used(self):
        s = self.history("BACKWARD", self.V1, self.V2)
        expected = [type_mismatch("/fields/1/type", "new", "old", "STRING", "INT"),
                    "{oldSchemaVersion: 2}", old_schema(self.V2), summary("BACKWARD")]
        self.assertEqual(self.verbose(s, self.CAND), (False, expected))
        self.assert_register_refused(s, self.CAND, expected)
        self.assertEqual(self.assert_ok(self.delete_version(s, 2)), 2)
        self.assertEqual(self.verbose(s, self.CAND), (True, []))
        self.assertEqual(self.verbose(s, self.CAND, version="latest"), (True, []))
        self.register_ok(s, self.CAND)
        self.assert_ok(self.versions(s), [1, 3])

    def test_transitive_history_skips_soft_deleted(self):
        v1 = rec(("f1", "string"))
        v2 = rec(("f1", "string"), ("f2", "string", ""))
        cand = rec(("f1", "string"), ("f2", "string"))
        for level in ("BACKWARD_TRANSITIVE", "FULL_TRANSITIVE"):
            with self.subTest(level=level):
                s = self.history(level, v1, v2)
                ok, messages = self.verbose(s, cand)
                self.assertIs(ok, False)
                self.assertIn("{oldSchemaVersion: 1}", messages)
                self.assertEqual(self.assert_ok(self.delete_version(s, 1)), 1)
                self.assertEqual(self.verbose(s, cand), (True, []))
                self.register_ok(s, cand)
                self.assert_ok(self.versions(s), [2, 3])

    def test_subject_without_live_versions_accepts_anything(self):
        s = self.history("FULL_TRANSITIVE", rec(("f1", "string")), rec(("f1", "string"),
                                                                         ("f2", "int", 0)))
        other = rec(("f1", "int"), name="Other")
        self.assertIs(self.verbose(s, other)[0], False)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assertEqual(self.verbose(s, other), (True, []))
        self.register_ok(s, other)
        self.assert_ok(self.versions(s), [3])


class Conformance(LevelTestCase):
    """The level-based cases of conformance/avro/compatibility-cases.json:
    previous schemas stored as versions 1..n, then the candidate checked with
    verbose=true and registered."""

    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(CONFORMANCE):
            print(f"SKIP: conformance dir absent ({CONFORMANCE})")
            raise harness.unittest.SkipTest("conformance dir absent")
        super().setUpClass()

    def test_level_cases(self):
        with open(AVRO_CASES) as f:
            cases = [c for c in json.load(f) if "level" in c]
        self.assertGreater(len(cases), 40)
        for case in cases:
            with self.subTest(case=case["name"]):
                self.run_case(case)

    def run_case(self, case):
        previous = [json.dumps(p) for p in case["previous"]]
        candidate = json.dumps(case["candidate"])
        s = self.history(case["level"], *previous)
        ok, messages = self.verbose(s, candidate)
        self.assertIs(ok, case["compatible"], messages)
        self.assertEqual(messages, case.get("messages", []))
        if case["candidate"] in case["previous"]:
            return      # already registered: returned without a check
        if ok:
            r = self.register(s, candidate)
            self.assertEqual(r.status, 200, r)
        else:
            self.assert_register_refused(s, candidate, case["messages"])


if __name__ == "__main__":
    harness.main()

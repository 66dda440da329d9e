"""JSON Schema through the HTTP API: registration and canonical text,
normalize, invalid documents, $ref to other subjects through references,
remote $ref refused, and compatibility, including the Confluent diff vectors
(docs/api.md; docs/compatibility.md)."""

import json
import os
import re

import harness
from harness import quote

CONFORMANCE = os.environ.get("SR_CONFORMANCE_DIR") or os.path.join(
    harness.HERE, "..", "..", "..", "shared", "conformance")
VECTOR_FILES = ("diff-schema-examples.json", "diff-combined-schema-examples.json",
                "diff-schema-examples-2020-12.json", "diff-combined-schema-examples-2020-12.json")


def compact(doc):
    return json.dumps(doc, separators=(",", ":"))


def load_vectors(name):
    with open(os.path.join(CONFORMANCE, "json", name)) as f:
        text = f.read()
    # One upstream file has a trailing comma (conformance README).
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))


ADDRESS = compact({"type": "object", "properties": {"street": {"type": "string"},
                                                    "city": {"type": "string"}}})


class JsonTestCase(harness.RegistryTestCase):

    def register_json(self, subject, schema, **kw):
        return self.register(subject, schema, schema_type="JSON", **kw)

    def register_json_ok(self, subject, schema, **kw):
        return self.register_ok(subject, schema, schema_type="JSON", **kw)

    def lookup_json(self, subject, schema, **kw):
        return self.lookup(subject, schema, schema_type="JSON", **kw)

    def verbose(self, subject, schema, references=None):
        body = self.assert_ok(self.post(
            f"/compatibility/subjects/{quote(subject)}/versions/latest",
            self.schema_body(schema, "JSON", references), params={"verbose": "true"}))
        return body["is_compatible"], body["messages"]


class Register(JsonTestCase):

    def test_schema_type_in_responses(self):
        s = self.sub()
        schema_id = self.register_json_ok(s, ADDRESS)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schemaType"], "JSON")
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schemaType"], "JSON")
        body = self.assert_ok(self.lookup_json(s, ADDRESS))
        self.assertEqual((body["schemaType"], body["id"]), ("JSON", schema_id))

    def test_canonical_text_is_compact_with_key_order_kept(self):
        s = self.sub()
        messy = ('{ "type" : "object",\n  "properties": {\n    "zeta": {"type": "string"},\n'
                 '    "alpha": { "type": "number", "minimum": 1.50 }\n  },\n'
                 '  "required": [ "zeta" ], "$comment": "kept" }\n')
        expected = ('{"type":"object","properties":{"zeta":{"type":"string"},'
                    '"alpha":{"type":"number","minimum":1.50}},"required":["zeta"],'
                    '"$comment":"kept"}')
        schema_id = self.register_json_ok(s, messy)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], expected)
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schema"], expected)
        raw = self.get(f"/schemas/ids/{schema_id}/schema")
        self.assertEqual((raw.status, raw.text), (200, expected))
        self.assertEqual(self.register_json_ok(s, expected), schema_id)
        self.assert_ok(self.versions(s), [1])

    def test_boolean_documents(self):
        for doc in ("true", "false", "{}"):
            with self.subTest(doc=doc):
                s = self.sub()
                self.register_json_ok(s, doc)
                self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], doc)

    def test_invalid_schema_is_42201(self):
        s = self.sub()
        before = self.db.state()
        for doc in ('{"type": 12}', '{"type": "strin"}', '{"type": ["string", 12]}',
                    '{"type": "object"', "[1, 2]", "12", '"string"', ""):
            with self.subTest(doc=doc):
                self.assert_error(self.register_json(s, doc), 422, 42201)
        self.assertEqual(self.db.state(), before)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_invalid_schema_on_lookup_and_check_is_42201(self):
        s = self.sub()
        self.register_json_ok(s, ADDRESS)
        self.assert_error(self.lookup_json(s, '{"type": 12}'), 422, 42201)
        self.assert_error(self.post(f"/compatibility/subjects/{quote(s)}/versions/latest",
                                    {"schema": '{"type": 12}', "schemaType": "JSON"}), 422, 42201)

    def test_local_ref_is_fine(self):
        s = self.sub()
        doc = compact({"type": "object", "properties": {"home": {"$ref": "#/definitions/addr"}},
                       "definitions": {"addr": {"type": "string"}}})
        self.register_json_ok(s, doc)

    def test_remote_ref_without_reference_is_42201(self):
        s = self.sub()
        before = self.db.state()
        for target in ("https://schemas.example.invalid/address.json",
                       "http://schemas.example.invalid/address.json#/definitions/street",
                       "address.json"):
            with self.subTest(target=target):
                top = compact({"$ref": target})
                nested = compact({"type": "object", "properties": {"home": {"$ref": target}}})
                self.assert_error(self.register_json(s, top), 422, 42201)
                self.assert_error(self.register_json(s, nested), 422, 42201)
        self.assertEqual(self.db.state(), before)

    def test_same_text_as_other_type_is_another_schema(self):
        a, j = self.sub("avro"), self.sub("json")
        self.assertNotEqual(self.register_ok(a, '{"type":"string"}'),
                            self.register_json_ok(j, '{"type":"string"}'))
        self.assertEqual(self.assert_ok(self.version(j, 1))["schema"], '{"type":"string"}')


# The same schema with keys in another order; normalize sorts every object's keys.
KEYS_1 = ('{"type":"object","required":["b"],'
          '"properties":{"b":{"type":"integer","minimum":0},"a":{"type":"string"}}}')
KEYS_2 = ('{"properties":{"a":{"type":"string"},"b":{"minimum":0,"type":"integer"}},'
          '"required":["b"],"type":"object"}')
KEYS_SORTED = ('{"properties":{"a":{"type":"string"},"b":{"minimum":0,"type":"integer"}},'
               '"required":["b"],"type":"object"}')


class Normalize(JsonTestCase):

    def test_without_normalize_key_order_matters(self):
        self.assertNotEqual(self.register_json_ok(self.sub("a"), KEYS_1),
                            self.register_json_ok(self.sub("b"), KEYS_2 + " "))

    def test_normalize_on_register(self):
        a, b = self.sub("a"), self.sub("b")
        id_a = self.register_json_ok(a, KEYS_1, params={"normalize": "true"})
        self.assertEqual(self.assert_ok(self.version(a, 1))["schema"], KEYS_SORTED)
        self.assertEqual(self.register_json_ok(b, json.dumps(json.loads(KEYS_2), indent=2),
                                               params={"normalize": "true"}), id_a)

    def test_normalize_sorts_references(self):
        deps = []
        for name in ("a", "b"):
            subject = self.sub(f"dep{name}")
            self.register_json_ok(subject, compact({"type": "string", "title": name}))
            deps.append({"name": f"{name}.json", "subject": subject, "version": 1})
        main = compact({"type": "object", "properties": {"a": {"$ref": "a.json"},
                                                         "b": {"$ref": "b.json"}}})
        s1, s2 = self.sub("n1"), self.sub("n2")
        id1 = self.register_json_ok(s1, main, references=deps[::-1], params={"normalize": "true"})
        self.assertEqual(self.assert_ok(self.version(s1, 1))["references"], deps)
        self.assertEqual(self.register_json_ok(s2, main, references=deps,
                                               params={"normalize": "true"}), id1)

    def test_normalize_on_lookup(self):
        s = self.sub()
        schema_id = self.register_json_ok(s, KEYS_1, params={"normalize": "true"})
        body = self.assert_ok(self.lookup_json(s, KEYS_2, params={"normalize": "true"}))
        self.assertEqual((body["id"], body["version"]), (schema_id, 1))


class References(JsonTestCase):

    def address_subject(self):
        s = self.sub("address")
        return s, self.register_json_ok(s, ADDRESS)

    def test_ref_by_relative_name(self):
        dep, dep_id = self.address_subject()
        refs = [{"name": "address.json", "subject": dep, "version": 1}]
        main = compact({"type": "object", "properties": {"home": {"$ref": "address.json"}}})
        s = self.sub("customer")
        main_id = self.register_json_ok(s, main, references=refs)
        self.assertNotEqual(main_id, dep_id)
        body = self.assert_ok(self.version(s, 1))
        self.assertEqual((body["schemaType"], body["references"], body["schema"]),
                         ("JSON", refs, main))
        self.assert_ok(self.get(f"/subjects/{quote(dep)}/versions/1/referencedby"), [main_id])
        self.assertEqual(self.assert_ok(self.lookup_json(s, main, references=refs))["id"], main_id)
        self.assert_error(self.delete_version(dep, 1), 422, 42206)
        self.assert_error(self.delete_subject(dep), 422, 42206)

    def test_ref_by_absolute_url_needs_no_network(self):
        dep, _ = self.address_subject()
        url = "https://schemas.example.invalid/common/address.json"
        refs = [{"name": url, "subject": dep, "version": 1}]
        main = compact({"$id": "https://schemas.example.invalid/shop/customer.json",
                        "type": "object",
                        "properties": {"home": {"$ref": url}, "work": {"$ref": url}}})
        s = self.sub("customer")
        self.register_json_ok(s, main, references=refs)
        self.assertEqual(self.assert_ok(self.version(s, 1))["references"], refs)

    def test_ref_into_a_definition_of_the_referenced_schema(self):
        dep = self.sub("defs")
        self.register_json_ok(dep, compact({"definitions": {"zip": {"type": "string",
                                                                     "pattern": "^[0-9]{5}$"}}}))
        refs = [{"name": "defs.json", "subject": dep, "version": 1}]
        main = compact({"type": "object",
                        "properties": {"zip": {"$ref": "defs.json#/definitions/zip"}}})
        self.register_json_ok(self.sub("main"), main, references=refs)

    def test_transitive_references(self):
        dep, _ = self.address_subject()
        mid = self.sub("customer")
        customer = compact({"type": "object", "properties": {"home": {"$ref": "address.json"}}})
        self.register_json_ok(mid, customer,
                              references=[{"name": "address.json", "subject": dep, "version": 1}])
        top = self.sub("order")
        order = compact({"type": "object", "properties": {"buyer": {"$ref": "customer.json"}}})
        self.register_json_ok(top, order,
                              references=[{"name": "customer.json", "subject": mid, "version": 1}])

    def test_missing_reference_is_42201(self):
        dep, _ = self.address_subject()
        main = compact({"type": "object", "properties": {"home": {"$ref": "address.json"}}})
        s = self.sub("customer")
        for refs in ([{"name": "address.json", "subject": dep, "version": 2}],
                     [{"name": "address.json", "subject": self.sub("nosuch"), "version": 1}],
                     [{"name": "address.json", "subject": dep}],
                     [{"subject": dep, "version": 1}]):
            with self.subTest(refs=refs):
                self.assert_error(self.register_json(s, main, references=refs), 422, 42201)

    def test_change_in_referenced_schema_is_checked(self):
        dep, _ = self.address_subject()
        self.set_level(dep, "NONE")
        self.register_json_ok(dep, compact({"type": "object",
                                            "properties": {"street": {"type": "integer"},
                                                           "city": {"type": "string"}}}))
        main = compact({"type": "object", "properties": {"home": {"$ref": "address.json"}}})
        s = self.sub("customer")
        self.register_json_ok(s, main, references=[{"name": "address.json", "subject": dep,
                                                    "version": 1}])
        refs2 = [{"name": "address.json", "subject": dep, "version": 2}]
        ok, messages = self.verbose(s, main, references=refs2)
        self.assertIs(ok, False)
        self.assertTrue(messages[0].startswith('{errorType:"TYPE_CHANGED"'), messages)
        self.assert_error(self.register_json(s, main, references=refs2), 409, 40901)


CLOSED_AB = compact({"type": "object", "properties": {"a": {"type": "string"},
                                                      "b": {"type": "string"}},
                     "additionalProperties": False})
CLOSED_A = compact({"type": "object", "properties": {"a": {"type": "string"}},
                    "additionalProperties": False})
OPEN_AB = compact({"type": "object", "properties": {"a": {"type": "string"},
                                                    "b": {"type": "string"}}})
OPEN_A = compact({"type": "object", "properties": {"a": {"type": "string"}}})


class Compatibility(JsonTestCase):
    """docs/compatibility.md, on the register path under each direction."""

    CASES = {
        # name: (old, new, BACKWARD, FORWARD)
        "closed model: add optional property": (CLOSED_A, CLOSED_AB, True, False),
        "closed model: remove property": (CLOSED_AB, CLOSED_A, False, True),
        "open model: add optional property": (OPEN_A, OPEN_AB, False, True),
        "open model: remove property": (OPEN_AB, OPEN_A, True, False),
        "integer to number": (compact({"type": "integer"}), compact({"type": "number"}),
                              True, False),
        "string to number": (compact({"type": "string"}), compact({"type": "number"}),
                             False, False),
        "string to string or null": (compact({"type": "string"}),
                                     compact({"type": ["string", "null"]}), True, False),
        "enum add value": (compact({"enum": ["a", "b"]}), compact({"enum": ["a", "b", "c"]}),
                           True, False),
        "add maxLength": (compact({"type": "string"}),
                          compact({"type": "string", "maxLength": 5}), False, True),
        # issue 12 item 6: EXCLUSIVE_MAXIMUM_DECREASED (NumberSchemaDiff), accepted before
        "lower exclusiveMaximum": (compact({"type": "number", "exclusiveMaximum": 29}),
                                   compact({"type": "number", "exclusiveMaximum": 23}), False, True),
        "raise exclusiveMaximum": (compact({"type": "number", "exclusiveMaximum": 23}),
                                   compact({"type": "number", "exclusiveMaximum": 29}), True, False),
        "description change": (compact({"type": "string", "description": "x"}),
                               compact({"type": "string", "description": "y"}), True, True),
    }

    def test_cases_by_level(self):
        for name, (old, new, backward, forward) in self.CASES.items():
            expected = {"BACKWARD": backward, "FORWARD": forward, "FULL": backward and forward,
                        "NONE": True}
            for level, ok in expected.items():
                with self.subTest(change=name, level=level):
                    s = self.sub()
                    self.set_level(s, level)
                    self.register_json_ok(s, old)
                    verdict, messages = self.verbose(s, new)
                    self.assertIs(verdict, ok, messages)
                    r = self.register_json(s, new)
                    if ok:
                        self.assertEqual(messages, [])
                        self.assertEqual(r.status, 200, r)
                    else:
                        self.assertEqual(messages[-1],
                                         f"{{validateFields: 'false', compatibility: '{level}'}}")
                        self.assert_error(r, 409, 40901)

    def test_exact_message_list(self):
        s = self.sub()
        self.register_json_ok(s, CLOSED_AB)
        # Note the mismatched quotes around the description (docs/compatibility.md).
        expected = [
            '{errorType:"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", description:"The new has a '
            "closed content model and is missing a property or item present at path "
            "'#/properties/b' in the old schema'}",
            "{oldSchemaVersion: 1}",
            "{oldSchema: '" + CLOSED_AB + "'}",
            "{validateFields: 'false', compatibility: 'BACKWARD'}",
        ]
        self.assertEqual(self.verbose(s, CLOSED_A), (False, expected))
        self.assert_register_refused(s, CLOSED_A, expected, schema_type="JSON")

    def test_type_change_against_avro_subject(self):
        s = self.sub()
        self.register_ok(s, '"string"')
        self.assert_error(self.register_json(s, compact({"type": "string"})), 409, 40901)


class Vectors(JsonTestCase):
    """Every case of the Confluent JSON diff vectors: the original registered
    under BACKWARD, the update checked with POST .../versions/latest; the
    verdict must be the vector's strict `compatible`."""

    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(CONFORMANCE):
            print(f"SKIP: conformance dir absent ({CONFORMANCE})")
            raise harness.unittest.SkipTest("conformance dir absent")
        super().setUpClass()

    def run_file(self, name):
        cases = load_vectors(name)
        self.assertGreater(len(cases), 10)
        for n, case in enumerate(cases):
            with self.subTest(file=name, case=n, description=case["description"]):
                self.run_case(case)

    def run_case(self, case):
        s = self.sub("v")
        self.set_level(s, "BACKWARD")
        r = self.register_json(s, compact(case["original_schema"]))
        self.assertEqual(r.status, 200, r)
        ok, messages = self.verbose(s, compact(case["update_schema"]))
        self.assertIs(ok, case["compatible"], messages)
        if not ok:
            types = {change.split(" ", 1)[0] for change in case["changes"]}
            reported = {m.split('"')[1] for m in messages if m.startswith('{errorType:"')}
            self.assertTrue(reported, messages)
            self.assertLessEqual(reported, types, messages)

    def test_diff_schema_examples(self):
        self.run_file("diff-schema-examples.json")

    def test_diff_combined_schema_examples(self):
        self.run_file("diff-combined-schema-examples.json")

    def test_diff_schema_examples_2020_12(self):
        self.run_file("diff-schema-examples-2020-12.json")

    def test_diff_combined_schema_examples_2020_12(self):
        self.run_file("diff-combined-schema-examples-2020-12.json")


if __name__ == "__main__":
    harness.main()

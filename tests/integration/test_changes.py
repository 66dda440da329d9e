"""Change reports (docs/evolution.md): GET /subjects/{s}/versions/{v}/changes,
POST /changes, and the ?verbose=true&changes=true extension of 409s and of
the compatibility routes, with exact bodies for the three formats. The
classification is this registry's own (Confluent only answers yes or no);
the directions are its compatibility checks' answers (Avro's
SchemaCompatibility, Confluent's JSON Schema and Protobuf SchemaDiff)."""

import json

import harness
from harness import avro_record, quote


def change(kind, path, old=None, new=None, detail=None, forward=True, backward=True):
    return {"kind": kind, "path": path, "oldType": old, "newType": new, "detail": detail,
            "forward": forward, "backward": backward}


# The columns: name -> full_name via an alias, INT -> DOUBLE widened,
# INT -> STRING changed, nullable false -> true, a column added with a default.
AVRO_V1 = avro_record("Customer", [("name", "string"), ("age", "int"), ("code", "int"),
                                   ("email", "string")])
AVRO_V2 = json.dumps({"type": "record", "name": "Customer", "fields": [
    {"name": "full_name", "type": "string", "aliases": ["name"]},
    {"name": "age", "type": "double"},
    {"name": "code", "type": "string"},
    {"name": "email", "type": ["null", "string"], "default": None},
    {"name": "city", "type": "string", "default": ""}]})
AVRO_CHANGES = [
    change("FIELD_RENAMED", "full_name", "string", "string", "name", forward=False),
    change("TYPE_WIDENED", "age", "int", "double", forward=False),
    change("TYPE_CHANGED", "code", "int", "string", forward=False, backward=False),
    change("NULLABILITY_CHANGED", "email", "string", "union<null,string>", "required -> nullable",
           forward=False),
    change("DEFAULT_CHANGED", "email", "string", "union<null,string>"),
    change("FIELD_ADDED_WITH_DEFAULT", "city", None, "string"),
]
AVRO_SUMMARY = ("1 column added, 1 renamed, 1 widened, 1 retyped, 1 nullability changed, "
                "1 default changed; incompatible")

JSON_V1 = json.dumps({"type": "object", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer"}, "code": {"type": "integer"},
    "email": {"type": "string"}}, "required": ["email"]})
JSON_V2 = json.dumps({"type": "object", "properties": {
    "full_name": {"type": "string"}, "age": {"type": "number"}, "code": {"type": "string"},
    "email": {"type": ["string", "null"]}}})
JSON_CHANGES = [
    change("NULLABILITY_CHANGED", "email", "string", "string|null",
           "REQUIRED_ATTRIBUTE_REMOVED, SUM_TYPE_EXTENDED", forward=False),
    change("TYPE_WIDENED", "age", "integer", "number", forward=False),
    change("TYPE_CHANGED", "code", "integer", "string", forward=False, backward=False),
    # Confluent's open content model: a property added breaks new readers, one dropped old ones.
    change("FIELD_RENAMED", "full_name", "string", "string", "name", forward=False, backward=False),
]

PROTO_V1 = ('syntax = "proto3";\nmessage Customer {\n  string name = 1;\n  int32 age = 2;\n'
            '  int32 code = 3;\n  string email = 4;\n}\n')
PROTO_V2 = ('syntax = "proto3";\nimport "google/protobuf/wrappers.proto";\nmessage Customer {\n'
            '  string full_name = 1;\n  double age = 2;\n  string code = 3;\n'
            '  google.protobuf.StringValue email = 4;\n  string city = 5;\n}\n')
PROTO_CHANGES = [
    change("FIELD_RENAMED", "Customer.full_name", "string", "string", "name"),
    # On the wire int32 -> double is another encoding: no reader survives it.
    change("TYPE_CHANGED", "Customer.age", "int32", "double", forward=False, backward=False),
    change("TYPE_CHANGED", "Customer.code", "int32", "string", forward=False, backward=False),
    change("NULLABILITY_CHANGED", "Customer.email", "string", "google.protobuf.StringValue",
           "FIELD_KIND_CHANGED", forward=False, backward=False),
    change("FIELD_ADDED", "Customer.city", None, "string"),
]


def side(schema, schema_type=None, references=None):
    body = {"schema": schema}
    if schema_type:
        body["schemaType"] = schema_type
    if references is not None:
        body["references"] = references
    return body


class VersionChanges(harness.RegistryTestCase):

    def two_versions(self, v1, v2, schema_type=None):
        s = self.sub()
        self.set_level(s, "NONE")
        self.register_ok(s, v1, schema_type=schema_type)
        self.register_ok(s, v2, schema_type=schema_type)
        return s

    def changes(self, s, version, **params):
        return self.get(f"/subjects/{quote(s)}/versions/{version}/changes", params=params or None)

    def test_avro_seed_cases(self):
        s = self.two_versions(AVRO_V1, AVRO_V2)
        want = {"subject": s, "version": 2, "from": 1, "schemaType": "AVRO", "summary": AVRO_SUMMARY,
                "backward": False, "forward": False, "changes": AVRO_CHANGES}
        self.assert_ok(self.changes(s, 2), want)
        self.assert_ok(self.changes(s, "latest"), want)
        self.assert_ok(self.changes(s, 2, **{"from": "1"}), want)

    def test_json_and_protobuf_versions(self):
        s = self.two_versions(JSON_V1, JSON_V2, "JSON")
        self.assert_ok(self.changes(s, 2), {
            "subject": s, "version": 2, "from": 1, "schemaType": "JSON",
            "summary": "1 column renamed, 1 widened, 1 retyped, 1 nullability changed; incompatible",
            "backward": False, "forward": False, "changes": JSON_CHANGES})
        s = self.two_versions(PROTO_V1, PROTO_V2, "PROTOBUF")
        self.assert_ok(self.changes(s, 2), {
            "subject": s, "version": 2, "from": 1, "schemaType": "PROTOBUF",
            "summary": "1 column added, 1 renamed, 2 retyped, 1 nullability changed; incompatible",
            "backward": False, "forward": False, "changes": PROTO_CHANGES})

    def test_from_defaults_to_the_previous_live_version(self):
        s = self.sub()
        self.set_level(s, "NONE")
        self.register_ok(s, avro_record("R", [("a", "int")]))
        self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int")]))
        self.register_ok(s, avro_record("R", [("a", "long")]))
        self.assert_ok(self.delete(f"/subjects/{quote(s)}/versions/2"))
        self.assert_ok(self.changes(s, 3), {
            "subject": s, "version": 3, "from": 1, "schemaType": "AVRO",
            "summary": "1 column widened; backward compatible", "backward": True, "forward": False,
            "changes": [change("TYPE_WIDENED", "a", "int", "long", forward=False)]})
        # Newer to older is a comparison too: the other direction's answer.
        self.assert_ok(self.changes(s, 1, **{"from": "3"}), {
            "subject": s, "version": 1, "from": 3, "schemaType": "AVRO",
            "summary": "1 column narrowed; forward compatible", "backward": False, "forward": True,
            "changes": [change("TYPE_NARROWED", "a", "long", "int", backward=False)]})
        self.assert_ok(self.changes(s, 1, **{"from": "1"}), {
            "subject": s, "version": 1, "from": 1, "schemaType": "AVRO",
            "summary": "no changes; fully compatible", "backward": True, "forward": True, "changes": []})

    def test_errors(self):
        s = self.two_versions(AVRO_V1, AVRO_V2)
        before = self.db.state()
        self.assert_error(self.changes("missing-subject", 1), 404, 40401)
        self.assert_error(self.changes(s, 7), 404, 40402)
        self.assert_error(self.changes(s, 2, **{"from": "7"}), 404, 40402)
        r = self.changes(s, 1)
        self.assert_error(r, 404, 40402)
        self.assertEqual(r.body["message"], f"Version 1 is the first live version of subject '{s}': "
                                             "name one to compare with in ?from=")
        self.assert_error(self.changes(s, "x"), 422, 42202)
        self.assert_error(self.changes(s, 2, **{"from": "0"}), 422, 42202)
        self.assertEqual(self.db.state(), before)
        # Soft-deleted versions are not compared.
        self.assert_ok(self.delete(f"/subjects/{quote(s)}/versions/1"))
        self.assert_error(self.changes(s, 2, **{"from": "1"}), 404, 40402)
        self.assert_error(self.changes(s, 2), 404, 40402)


class PostChanges(harness.RegistryTestCase):

    def compare(self, old, new):
        return self.post("/changes", {"old": old, "new": new})

    def test_three_formats(self):
        self.assert_ok(self.compare(side(AVRO_V1), side(AVRO_V2)), {
            "schemaType": "AVRO", "summary": AVRO_SUMMARY, "backward": False, "forward": False,
            "changes": AVRO_CHANGES})
        self.assert_ok(self.compare(side(JSON_V1, "JSON"), side(JSON_V2, "JSON")), {
            "schemaType": "JSON",
            "summary": "1 column renamed, 1 widened, 1 retyped, 1 nullability changed; incompatible",
            "backward": False, "forward": False, "changes": JSON_CHANGES})
        self.assert_ok(self.compare(side(PROTO_V1, "PROTOBUF"), side(PROTO_V2, "PROTOBUF")), {
            "schemaType": "PROTOBUF",
            "summary": "1 column added, 1 renamed, 2 retyped, 1 nullability changed; incompatible",
            "backward": False, "forward": False, "changes": PROTO_CHANGES})
        self.assert_ok(self.compare(side(AVRO_V1), side(JSON_V1, "JSON")), {
            "schemaType": "JSON", "summary": "1 other change; incompatible", "backward": False,
            "forward": False,
            "changes": [change("OTHER", "", "AVRO", "JSON", "SCHEMA_TYPE_CHANGED", False, False)]})

    def test_references(self):
        addr = self.sub("address")
        self.register_ok(addr, avro_record("Address", [("zip", "int")]))
        refs = [{"name": "Address", "subject": addr, "version": 1}]
        old = avro_record("Home", [("home", "Address")])
        new = json.dumps({"type": "record", "name": "Home", "fields": [
            {"name": "home", "type": "Address"}, {"name": "since", "type": "long"}]})
        self.assert_ok(self.compare(side(old, references=refs), side(new, references=refs)), {
            "schemaType": "AVRO", "summary": "1 column added; forward compatible", "backward": False,
            "forward": True, "changes": [change("FIELD_ADDED", "since", None, "long", backward=False)]})
        # JSON Schema: a $ref to a registered schema; the column through it is named by the referrer.
        jaddr = self.sub("jaddress")
        self.register_ok(jaddr, json.dumps({"type": "object", "properties": {"zip": {"type": "integer"}}}),
                         schema_type="JSON")
        jrefs = [{"name": "address.json", "subject": jaddr, "version": 1}]
        jold = json.dumps({"type": "object", "properties": {"home": {"$ref": "address.json"}}})
        jnew = json.dumps({"type": "object", "properties": {"home": {"$ref": "address.json"},
                                                            "since": {"type": "integer"}}})
        self.assert_ok(self.compare(side(jold, "JSON", jrefs), side(jnew, "JSON", jrefs)), {
            "schemaType": "JSON", "summary": "1 column added; forward compatible", "backward": False,
            "forward": True, "changes": [change("FIELD_ADDED", "since", None, "integer", backward=False)]})
        # Protobuf: an import of a registered file.
        money = self.sub("money")
        self.register_ok(money, 'syntax = "proto3";\nmessage Money {\n  int64 units = 1;\n}\n',
                         schema_type="PROTOBUF")
        prefs = [{"name": "money.proto", "subject": money, "version": 1}]
        pold = 'syntax = "proto3";\nimport "money.proto";\nmessage Order {\n  Money total = 1;\n}\n'
        pnew = ('syntax = "proto3";\nimport "money.proto";\nmessage Order {\n  Money total = 1;\n'
                '  repeated string notes = 2;\n}\n')
        self.assert_ok(self.compare(side(pold, "PROTOBUF", prefs), side(pnew, "PROTOBUF", prefs)), {
            "schemaType": "PROTOBUF", "summary": "1 column added; fully compatible", "backward": True,
            "forward": True, "changes": [change("FIELD_ADDED", "Order.notes", None, "repeated string")]})
        missing = [{"name": "Address", "subject": self.sub("nowhere"), "version": 1}]
        r = self.compare(side(old, references=missing), side(new, references=refs))
        self.assert_error(r, 422, 42201)

    def test_references_in_a_context(self):
        """References resolve in the request's context, as a registration in that context
        resolves them (docs/api.md "Contexts"): ?context=.c, or POST /contexts/.c/changes."""
        ctx = f".{self.sub('ctx')}"
        name = self.sub("money")
        # The same subject name in the default context and in ctx, with other contents.
        self.assert_ok(self.put(f"/config/{quote(name)}", {"compatibility": "NONE"}))  # long -> int
        for subject, types in ((name, ("long", "int")), (f":{ctx}:{name}", ("int", "long"))):
            for t in types:
                self.register_ok(subject, avro_record("Money", [("units", t)]))
        old_refs = [{"name": "Money", "subject": name, "version": 1}]
        new_refs = [{"name": "Money", "subject": name, "version": 2}]
        order = avro_record("Order", [("total", "Money")])
        body = {"old": side(order, references=old_refs), "new": side(order, references=new_refs)}
        widened = {"schemaType": "AVRO", "summary": "1 column widened; backward compatible", "backward": True,
                   "forward": False, "changes": [change("TYPE_WIDENED", "total.units", "int", "long",
                                                        forward=False)]}
        only = self.sub("only")  # a subject only the context has
        self.register_ok(f":{ctx}:{only}", avro_record("Money", [("units", "int")]))
        before = self.db.state()
        for spelling in (ctx, ctx[1:], f":{ctx}:"):
            self.assert_ok(self.post("/changes", body, params={"context": spelling}), widened)
        self.assert_ok(self.post(f"/contexts/{ctx}/changes", body), widened)
        # A qualified reference reaches its own context from any other.
        qualified = {"old": side(order, references=[dict(old_refs[0], subject=f":{ctx}:{name}")]),
                     "new": side(order, references=[dict(new_refs[0], subject=f":{ctx}:{name}")])}
        self.assert_ok(self.post("/changes", qualified), widened)
        # Without a context, or with the default one, the default context's subject.
        narrowed = {"schemaType": "AVRO", "summary": "1 column narrowed; forward compatible", "backward": False,
                    "forward": True, "changes": [change("TYPE_NARROWED", "total.units", "long", "int",
                                                         backward=False)]}
        self.assert_ok(self.post("/changes", body), narrowed)
        for default in (".", ":.:", ""):
            self.assert_ok(self.post("/changes", body, params={"context": default}), narrowed)
        self.assert_ok(self.post("/contexts/./changes", body), narrowed)
        # A subject only the context has is not found from the default one.
        refs = [{"name": "Money", "subject": only, "version": 1}]
        one = {"old": side(order, references=refs), "new": side(order, references=refs)}
        self.assert_error(self.post("/changes", one), 422, 42201)
        self.assertEqual(self.post("/changes", one, params={"context": ctx}).body["changes"], [])
        r = self.post("/changes", body, params={"context": "a:b"})
        self.assert_error(r, 400, 400)
        self.assertEqual(r.body["message"], "Context name 'a:b' cannot contain a colon")
        self.assertEqual(self.db.state(), before)

    def test_bad_bodies(self):
        before = self.db.state()
        self.assert_error(self.post("/changes", {}), 422, 422)
        self.assert_error(self.post("/changes", {"old": side(AVRO_V1)}), 422, 422)
        self.assert_error(self.post("/changes", {"old": "x", "new": side(AVRO_V1)}), 422, 422)
        self.assert_error(self.post("/changes", {"old": {"schema": 1}, "new": side(AVRO_V1)}), 400, 400)
        self.assert_error(self.compare(side("{"), side(AVRO_V1)), 422, 42201)
        self.assert_error(self.compare(side(""), side(AVRO_V1)), 422, 42201)
        self.assert_error(self.compare(side(AVRO_V1, "XML"), side(AVRO_V1)), 422, 42201)
        r = self.http.request("POST", "/changes", body=b"{nope", headers={"Content-Type": "application/json"})
        self.assert_error(r, 400, 400)
        self.assertEqual(self.db.state(), before)


class ConflictExtension(harness.RegistryTestCase):

    def test_registration_409_lists_changes_when_asked(self):
        s = self.sub()
        self.register_ok(s, avro_record("R", [("a", "int")]))
        new = avro_record("R", [("a", "int"), ("b", "string")])
        before = self.db.state()
        plain = self.register(s, new)
        self.assert_error(plain, 409, 40901)
        asked = self.register(s, new, params={"verbose": "true", "changes": "true"})
        self.assertEqual(asked.status, 409, asked)
        self.assertEqual(asked.body, {
            "error_code": 40901, "message": plain.body["message"],
            "changes": [change("FIELD_ADDED", "b", None, "string", backward=False)],
            "summary": "1 column added; forward compatible"})
        # One of the two alone is not asking.
        self.assert_error(self.register(s, new, params={"changes": "true"}), 409, 40901)
        self.assert_error(self.register(s, new, params={"verbose": "true"}), 409, 40901)
        self.assertEqual(self.db.state(), before)

    def test_compatibility_routes_list_changes_when_asked(self):
        s = self.sub()
        self.set_level(s, "FORWARD")
        self.register_ok(s, avro_record("R", [("a", "int")]))
        self.register_ok(s, avro_record("R", [("a", "int"), ("b", "int", 0)]))
        new = avro_record("R", [("a", "long"), ("b", "int", 0)])
        params = {"verbose": "true", "changes": "true"}
        listed = [change("TYPE_WIDENED", "a", "int", "long", forward=False)]
        for version in ("latest", "2", None):
            with self.subTest(version=version):
                path = f"/compatibility/subjects/{quote(s)}/versions"
                if version:
                    path += f"/{version}"
                body = self.assert_ok(self.post(path, {"schema": new}, params=params))
                self.assertEqual(set(body), {"is_compatible", "messages", "changes", "summary"})
                self.assertIs(body["is_compatible"], False)
                self.assertEqual(body["changes"], listed)
                self.assertEqual(body["summary"], "1 column widened; backward compatible")
        body = self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/1", {"schema": new},
                                        params=params))
        self.assertEqual(body["changes"], listed + [change("FIELD_ADDED_WITH_DEFAULT", "b", None, "int")])
        self.assertEqual(set(self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions",
                                                      {"schema": new}, params={"verbose": "true"}))),
                         {"is_compatible", "messages"})


if __name__ == "__main__":
    harness.main()

"""Avro schema references, reference-aware deletes, format=resolved and
normalization, through the HTTP API (docs/api.md,
5; docs/compatibility.md).

Named types live in their own subjects; a referring schema names them by full
name and lists them in `references`. Every test uses subjects of its own."""

import json

import harness
from harness import quote

NS = "com.itest.ref"


def named(name, fields):
    """A record in NS; fields are (name, type) or (name, type, default)."""
    out = []
    for f in fields:
        field = {"name": f[0], "type": f[1]}
        if len(f) > 2:
            field["default"] = f[2]
        out.append(field)
    return json.dumps({"type": "record", "name": name, "namespace": NS, "fields": out})


def ref(name, subject, version):
    return {"name": name, "subject": subject, "version": version}


def full(name):
    return f"{NS}.{name}"


def field_types(schema_text):
    """{field name: field type} of a record schema's JSON text."""
    return {f["name"]: f["type"] for f in json.loads(schema_text)["fields"]}


class RefTestCase(harness.RegistryTestCase):

    def chain(self):
        """Subjects C <- B <- A: A uses B, B uses C. Returns (subjects, ids)."""
        sc, sb, sa = self.sub("c"), self.sub("b"), self.sub("a")
        id_c = self.register_ok(sc, named("C", [("c", "int")]))
        id_b = self.register_ok(sb, named("B", [("c", full("C"))]),
                                references=[ref(full("C"), sc, 1)])
        id_a = self.register_ok(sa, named("A", [("b", full("B"))]),
                                references=[ref(full("B"), sb, 1)])
        return (sa, sb, sc), (id_a, id_b, id_c)

    def referencedby(self, subject, version, params=None):
        return self.get(f"/subjects/{quote(subject)}/versions/{version}/referencedby",
                        params=params)

    def dep_and_user(self):
        """A subject with type Dep (v1) and another whose v1 uses it."""
        dep, user = self.sub("dep"), self.sub("user")
        dep_id = self.register_ok(dep, named("Dep", [("x", "int")]))
        user_id = self.register_ok(user, named("User", [("d", full("Dep"))]),
                                   references=[ref(full("Dep"), dep, 1)])
        return dep, user, dep_id, user_id


class Register(RefTestCase):

    def test_named_type_from_another_subject(self):
        dep, user, dep_id, user_id = self.dep_and_user()
        self.assertNotEqual(dep_id, user_id)
        body = self.assert_ok(self.version(user, 1))
        self.assertEqual(body["references"], [ref(full("Dep"), dep, 1)])
        # The referring schema keeps the name (relative to its own namespace,
        # docs/compatibility.md); the type is not copied into it.
        self.assertEqual(field_types(body["schema"])["d"], "Dep")
        by_id = self.assert_ok(self.get(f"/schemas/ids/{user_id}"))
        self.assertEqual(by_id["references"], [ref(full("Dep"), dep, 1)])
        self.assertEqual(by_id["schema"], body["schema"])
        # The referenced subject itself carries no references.
        self.assertNotIn("references", self.assert_ok(self.version(dep, 1)))

    def test_reregistration_and_lookup_with_references(self):
        dep, user, _, user_id = self.dep_and_user()
        refs = [ref(full("Dep"), dep, 1)]
        schema = named("User", [("d", full("Dep"))])
        before = self.db.state()
        self.assertEqual(self.register_ok(user, schema, references=refs), user_id)
        self.assertEqual(self.db.state(), before)
        body = self.assert_ok(self.lookup(user, schema, references=refs))
        self.assertEqual((body["subject"], body["version"], body["id"]), (user, 1, user_id))
        self.assertEqual(body["references"], refs)

    def test_same_text_without_its_references_is_42201(self):
        dep, user, _, _ = self.dep_and_user()
        schema = named("User", [("d", full("Dep"))])
        before = self.db.state()
        self.assert_error(self.register(self.sub("other"), schema), 422, 42201)
        self.assert_error(self.lookup(user, schema), 422, 42201)
        self.assertEqual(self.db.state(), before)

    def test_same_text_with_other_references_is_another_schema(self):
        dep, user, _, user_id = self.dep_and_user()
        dep2 = self.sub("dep2")
        self.register_ok(dep2, named("Dep", [("x", "int")]))
        other = self.sub("other")
        other_id = self.register_ok(other, named("User", [("d", full("Dep"))]),
                                    references=[ref(full("Dep"), dep2, 1)])
        self.assertNotEqual(other_id, user_id)

    def test_transitive_references(self):
        (sa, sb, sc), (id_a, id_b, id_c) = self.chain()
        self.assertEqual(len({id_a, id_b, id_c}), 3)
        # A lists only B; C comes in through B's own references.
        self.assertEqual(self.assert_ok(self.version(sa, 1))["references"],
                         [ref(full("B"), sb, 1)])
        self.assertEqual(self.assert_ok(self.version(sb, 1))["references"],
                         [ref(full("C"), sc, 1)])
        self.assert_ok(self.referencedby(sc, 1), [id_b])
        self.assert_ok(self.referencedby(sb, 1), [id_a])
        self.assert_ok(self.referencedby(sa, 1), [])
        body = self.assert_ok(self.lookup(sa, named("A", [("b", full("B"))]),
                                          references=[ref(full("B"), sb, 1)]))
        self.assertEqual(body["id"], id_a)

    def test_transitive_delete_is_refused_at_each_level(self):
        (sa, sb, sc), _ = self.chain()
        self.assert_error(self.delete_version(sc, 1), 422, 42206)
        self.assert_error(self.delete_version(sb, 1), 422, 42206)
        self.assertEqual(self.assert_ok(self.delete_version(sa, 1)), 1)
        # B's referrer is gone (soft), C's referrer B is still live.
        self.assert_error(self.delete_version(sc, 1), 422, 42206)
        self.assertEqual(self.assert_ok(self.delete_version(sb, 1)), 1)
        self.assertEqual(self.assert_ok(self.delete_version(sc, 1)), 1)

    def test_version_minus_one_is_stored_as_the_latest(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dep", [("x", "int")]))
        self.register_ok(dep, named("Dep", [("x", "int"), ("y", "string", "")]))
        user = self.sub("user")
        schema = named("User", [("d", full("Dep"))])
        user_id = self.register_ok(user, schema, references=[ref(full("Dep"), dep, -1)])
        body = self.assert_ok(self.version(user, 1))
        self.assertEqual(body["references"], [ref(full("Dep"), dep, 2)])
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{user_id}"))["references"],
                         [ref(full("Dep"), dep, 2)])
        self.assertEqual(self.db.sql("SELECT name, ref_subject, ref_version FROM schema_references "
                                     f"WHERE schema_id = {user_id}"),
                         [(full("Dep"), dep, "2")])
        self.assert_ok(self.referencedby(dep, 2), [user_id])
        self.assert_ok(self.referencedby(dep, 1), [])
        # -1 and the concrete number are the same schema.
        self.assertEqual(self.register_ok(user, schema, references=[ref(full("Dep"), dep, 2)]),
                         user_id)
        self.assertEqual(self.register_ok(user, schema, references=[ref(full("Dep"), dep, -1)]),
                         user_id)
        self.assert_ok(self.versions(user), [1])
        # A newer Dep makes -1 mean version 3: a new schema and version.
        self.register_ok(dep, named("Dep", [("x", "int"), ("y", "string", ""),
                                            ("z", "string", "")]))
        new_id = self.register_ok(user, schema, references=[ref(full("Dep"), dep, -1)])
        self.assertNotEqual(new_id, user_id)
        body = self.assert_ok(self.version(user, 2))
        self.assertEqual(body["references"], [ref(full("Dep"), dep, 3)])

    def test_version_minus_one_skips_soft_deleted_latest(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dep", [("x", "int")]))
        self.register_ok(dep, named("Dep", [("x", "int"), ("y", "string", "")]))
        self.assertEqual(self.assert_ok(self.delete_version(dep, 2)), 2)
        user = self.sub("user")
        self.register_ok(user, named("User", [("d", full("Dep"))]),
                         references=[ref(full("Dep"), dep, -1)])
        self.assertEqual(self.assert_ok(self.version(user, 1))["references"],
                         [ref(full("Dep"), dep, 1)])

    def test_compatibility_sees_the_referenced_types(self):
        """A new version that points at an incompatible version of the
        referenced type is refused (the check runs on resolved schemas)."""
        dep, user, _, _ = self.dep_and_user()
        self.assert_ok(self.put(f"/config/{quote(dep)}", {"compatibility": "NONE"}))
        self.register_ok(dep, named("Dep", [("x", "string")]))
        schema = named("User", [("d", full("Dep"))])
        refs2 = [ref(full("Dep"), dep, 2)]
        body = self.assert_ok(self.post(f"/compatibility/subjects/{quote(user)}/versions",
                                        self.schema_body(schema, references=refs2),
                                        params={"verbose": "true"}))
        self.assertIs(body["is_compatible"], False, body)
        self.assertIn("{oldSchemaVersion: 1}", body["messages"])
        self.assert_error(self.register(user, schema, references=refs2), 409, 40901)
        self.assert_ok(self.versions(user), [1])

    def test_missing_reference_target_is_42201(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dep", [("x", "int")]))
        schema = named("User", [("d", full("Dep"))])
        user = self.sub("user")
        before = self.db.state()
        for refs in ([ref(full("Dep"), self.sub("nosuch"), 1)],       # no such subject
                     [ref(full("Dep"), self.sub("nosuch"), -1)],      # no latest either
                     [ref(full("Dep"), dep, 2)],                      # no such version
                     [ref(full("Dep"), dep, 1), ref("x.Y", dep, 7)]):  # one bad of two
            with self.subTest(refs=refs):
                self.assert_error(self.register(user, schema, references=refs), 422, 42201)
        self.assertEqual(self.db.state(), before)
        self.assertNotIn(user, self.subjects({"deleted": "true"}))

    def test_reference_missing_a_field_is_42201(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dep", [("x", "int")]))
        schema = named("User", [("d", full("Dep"))])
        complete = ref(full("Dep"), dep, 1)
        user = self.sub("user")
        before = self.db.state()
        for missing in ("name", "subject", "version"):
            with self.subTest(missing=missing):
                partial = {k: v for k, v in complete.items() if k != missing}
                self.assert_error(self.register(user, schema, references=[partial]), 422, 42201)
        self.assertEqual(self.db.state(), before)
        # The complete reference works (so the failures above were about the field).
        self.register_ok(user, schema, references=[complete])

    def test_reference_to_soft_deleted_version(self):
        """Registering needs a live target; a lookup accepts a soft-deleted one (2.4)."""
        dep, user, _, user_id = self.dep_and_user()
        refs = [ref(full("Dep"), dep, 1)]
        schema = named("User", [("d", full("Dep"))])
        self.assertEqual(self.assert_ok(self.delete_version(user, 1)), 1)
        self.assertEqual(self.assert_ok(self.delete_version(dep, 1)), 1)
        self.assert_error(self.register(self.sub("again"), schema, references=refs), 422, 42201)
        body = self.assert_ok(self.lookup(user, schema, references=refs,
                                          params={"deleted": "true"}))
        self.assertEqual((body["version"], body["id"]), (1, user_id))


class ReferencedBy(RefTestCase):

    def test_lists_every_referrer_in_id_order(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dep", [("x", "int")]))
        refs = [ref(full("Dep"), dep, 1)]
        # Explicit ids in IMPORT mode, registered high id first, so that the
        # storage order is not the id order.
        imported = []
        for schema_id, name in ((700003, "U3"), (700001, "U1"), (700002, "U2")):
            s = self.sub(name)
            self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}))
            r = self.register(s, named(name, [("d", full("Dep"))]), references=refs,
                              id=schema_id, version=1)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.body["id"], schema_id)
            imported.append(schema_id)
        plain = self.register_ok(self.sub("plain"), named("U4", [("d", full("Dep"))]),
                                 references=refs)
        self.assert_ok(self.referencedby(dep, 1), sorted(imported + [plain]))
        self.assert_ok(self.referencedby(dep, "latest"), sorted(imported + [plain]))
        # Paging applies after sorting (docs/api.md).
        everything = sorted(imported + [plain])
        self.assert_ok(self.referencedby(dep, 1, params={"offset": "1", "limit": "2"}),
                       everything[1:3])

    def test_one_id_in_two_subjects_is_listed_once(self):
        dep, user, _, user_id = self.dep_and_user()
        second = self.sub("second")
        self.assertEqual(self.register_ok(second, named("User", [("d", full("Dep"))]),
                                          references=[ref(full("Dep"), dep, 1)]), user_id)
        self.assert_ok(self.referencedby(dep, 1), [user_id])

    def test_soft_deleted_referrers(self):
        dep, user, _, user_id = self.dep_and_user()
        self.assert_ok(self.delete_subject(user), [1])
        self.assert_ok(self.referencedby(dep, 1), [])
        self.assert_ok(self.referencedby(dep, 1, params={"deleted": "true"}), [user_id])

    def test_errors(self):
        dep, _, _, _ = self.dep_and_user()
        self.assert_error(self.referencedby(dep, 2), 404, 40402)
        self.assert_error(self.referencedby(dep, "zero"), 422, 42202)
        self.assert_error(self.referencedby(self.sub("nosuch"), 1), 404, 40401)


class Deletes(RefTestCase):

    def test_soft_delete_of_referenced_version_is_42206(self):
        dep, user, _, _ = self.dep_and_user()
        before = self.db.state()
        self.assert_error(self.delete_version(dep, 1), 422, 42206)
        self.assert_error(self.delete_version(dep, "latest"), 422, 42206)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(dep), [1])

    def test_unreferenced_version_of_the_same_subject_can_go(self):
        dep, user, _, _ = self.dep_and_user()
        self.register_ok(dep, named("Dep", [("x", "int"), ("y", "string", "")]))
        self.assertEqual(self.assert_ok(self.delete_version(dep, 2)), 2)
        self.assertEqual(self.assert_ok(self.delete_version(dep, 2, permanent=True)), 2)

    def test_hard_delete_of_referenced_soft_deleted_version_is_42206(self):
        dep, user, _, _ = self.dep_and_user()
        self.assertEqual(self.assert_ok(self.delete_version(user, 1)), 1)
        # The only referrer is soft-deleted: a soft delete is allowed now...
        self.assertEqual(self.assert_ok(self.delete_version(dep, 1)), 1)
        before = self.db.state()
        # ...but not a hard one while any referrer still exists.
        self.assert_error(self.delete_version(dep, 1, permanent=True), 422, 42206)
        self.assertEqual(self.db.state(), before)
        self.assertEqual(self.assert_ok(self.delete_version(user, 1, permanent=True)), 1)
        self.assertEqual(self.assert_ok(self.delete_version(dep, 1, permanent=True)), 1)
        self.assert_error(self.version(dep, 1, params={"deleted": "true"}), 404, 40401)

    def test_deleting_the_referenced_subject_is_42206(self):
        dep, user, _, _ = self.dep_and_user()
        before = self.db.state()
        self.assert_error(self.delete_subject(dep), 422, 42206)
        self.assertEqual(self.db.state(), before)
        self.assertIn(dep, self.subjects())
        self.assert_ok(self.delete_subject(user), [1])
        self.assert_ok(self.delete_subject(dep), [1])
        self.assert_error(self.delete_subject(dep, permanent=True), 422, 42206)
        self.assert_ok(self.delete_subject(user, permanent=True), [1])
        self.assert_ok(self.delete_subject(dep, permanent=True), [1])
        self.assertNotIn(dep, self.subjects({"deleted": "true"}))

    def test_references_inside_one_subject(self):
        """A subject may be deleted when only its own versions refer to it;
        a single version still may not (2.5)."""
        s = self.sub()
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibility": "NONE"}))
        self.register_ok(s, named("Inner", [("x", "int")]))
        self.register_ok(s, named("Outer", [("i", full("Inner"))]),
                         references=[ref(full("Inner"), s, 1)])
        self.assert_error(self.delete_version(s, 1), 422, 42206)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assert_ok(self.delete_subject(s, permanent=True), [1, 2])


class Resolved(RefTestCase):

    def test_format_resolved_inlines_referenced_types(self):
        (sa, sb, sc), (id_a, _, _) = self.chain()
        plain = self.assert_ok(self.get(f"/schemas/ids/{id_a}"))
        self.assertEqual(field_types(plain["schema"])["b"], "B")
        resolved = self.assert_ok(self.get(f"/schemas/ids/{id_a}",
                                           params={"format": "resolved"}))
        doc = json.loads(resolved["schema"])
        self.assertEqual((doc["type"], doc["name"]), ("record", "A"))
        b = field_types(resolved["schema"])["b"]
        self.assertIsInstance(b, dict, resolved)
        self.assertEqual((b["type"], b["name"]), ("record", "B"))
        c = {f["name"]: f["type"] for f in b["fields"]}["c"]
        self.assertIsInstance(c, dict, resolved)
        self.assertEqual((c["type"], c["name"]), ("record", "C"))
        self.assertEqual(c["fields"], [{"name": "c", "type": "int"}])
        # The resolved text is a self-contained schema: it registers without references.
        inline = self.sub("inline")
        self.register_ok(inline, resolved["schema"])
        self.assertNotIn("references", self.assert_ok(self.version(inline, 1)))

    def test_format_resolved_across_namespaces(self):
        dep = self.sub("far")
        far = json.dumps({"type": "record", "name": "Far", "namespace": "com.other",
                          "fields": [{"name": "e", "type": {"type": "enum", "name": "Color",
                                                            "symbols": ["RED", "GREEN"]}}]})
        self.register_ok(dep, far)
        user = self.sub("near")
        schema_id = self.register_ok(user, named("Near", [("f", "com.other.Far"),
                                                          ("c", "com.other.Color")]),
                                     references=[ref("com.other.Far", dep, 1)])
        resolved = self.assert_ok(self.get(f"/schemas/ids/{schema_id}",
                                           params={"format": "resolved"}))["schema"]
        types = field_types(resolved)
        self.assertEqual((types["f"]["name"], types["f"].get("namespace")), ("Far", "com.other"))
        self.assertEqual(types["c"], "com.other.Color")
        self.register_ok(self.sub("copy"), resolved)

    def test_format_resolved_on_the_raw_schema_endpoint(self):
        (_, _, _), (id_a, _, _) = self.chain()
        raw = self.get(f"/schemas/ids/{id_a}/schema", params={"format": "resolved"})
        self.assertEqual(raw.status, 200, raw)
        self.assertIsInstance(field_types(raw.text)["b"], dict, raw)

    def test_format_resolved_on_the_version_endpoint(self):
        (sa, _, _), _ = self.chain()
        body = self.assert_ok(self.version(sa, 1, params={"format": "resolved"}))
        self.assertIsInstance(field_types(body["schema"])["b"], dict, body)

    def test_format_resolved_without_references_is_the_schema(self):
        s = self.sub()
        schema_id = self.register_ok(s, named("Solo", [("x", "int")]))
        plain = self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))
        resolved = self.assert_ok(self.get(f"/schemas/ids/{schema_id}",
                                           params={"format": "resolved"}))
        self.assertEqual(json.loads(resolved["schema"]), json.loads(plain["schema"]))

    def test_referenced_type_used_twice_is_inlined_once(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Twice", [("x", "int")]))
        user = self.sub("user")
        schema_id = self.register_ok(user, named("Pair", [("l", full("Twice")),
                                                          ("r", full("Twice"))]),
                                     references=[ref(full("Twice"), dep, 1)])
        resolved = self.assert_ok(self.get(f"/schemas/ids/{schema_id}",
                                           params={"format": "resolved"}))
        types = field_types(resolved["schema"])
        self.assertIsInstance(types["l"], dict, resolved)
        # Avro names a type once; the second use is a name reference.
        self.assertIsInstance(types["r"], str, resolved)
        self.assertIn(types["r"], ("Twice", full("Twice")))


# A record written two ways that normalization (docs/compatibility.md) makes
# equal: custom property order, alias order, {"type": "string"} vs "string",
# whitespace. Plain canonicalization keeps the property and alias order.
VARIANT_1 = ('{"type": "record", "name": "Norm", "namespace": "com.itest.norm",'
             ' "zeta": 1, "alpha": 2, "aliases": ["Q", "P"],'
             ' "fields": [{"name": "s", "type": {"type": "string"}, "aliases": ["y", "x"],'
             ' "zprop": "z", "aprop": "a"}]}')
VARIANT_2 = json.dumps({"fields": [{"aprop": "a", "aliases": ["x", "y"], "type": "string",
                                    "name": "s", "zprop": "z"}],
                        "aliases": ["P", "Q"], "alpha": 2, "name": "Norm",
                        "namespace": "com.itest.norm", "zeta": 1, "type": "record"},
                       indent=3)
CANONICAL_1 = ('{"type":"record","name":"Norm","namespace":"com.itest.norm",'
               '"fields":[{"name":"s","type":"string","aliases":["y","x"],'
               '"zprop":"z","aprop":"a"}],"zeta":1,"alpha":2,"aliases":["Q","P"]}')
NORMALIZED = ('{"type":"record","name":"Norm","namespace":"com.itest.norm",'
              '"fields":[{"name":"s","type":"string","aliases":["x","y"],'
              '"aprop":"a","zprop":"z"}],"alpha":2,"zeta":1,"aliases":["P","Q"]}')


class Canonical(RefTestCase):

    def test_canonical_text_is_stored(self):
        s = self.sub()
        messy = (' {\n  "type" : "record", "name":"Canon",\t"namespace": "com.itest",\n'
                 '  "fields": [ {"name":"s", "type": {"type":"string"}},\n'
                 '    {"name": "n", "type": {"type": "int"}, "default": 0} ] } ')
        expected = ('{"type":"record","name":"Canon","namespace":"com.itest",'
                    '"fields":[{"name":"s","type":"string"},{"name":"n","type":"int","default":0}]}')
        schema_id = self.register_ok(s, messy)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], expected)
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schema"], expected)
        raw = self.get(f"/schemas/ids/{schema_id}/schema")
        self.assertEqual((raw.status, raw.text), (200, expected))
        self.assertEqual(self.register_ok(s, expected), schema_id)

    def test_primitive_in_type_object_is_stored_bare(self):
        s = self.sub()
        self.register_ok(s, '{"type": "string"}')
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], '"string"')

    def test_plain_canonical_form_keeps_property_and_alias_order(self):
        s = self.sub()
        self.register_ok(s, VARIANT_1)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], CANONICAL_1)


class Normalize(RefTestCase):

    def test_normalize_on_register_gives_one_id(self):
        a, b = self.sub("a"), self.sub("b")
        id_a = self.register_ok(a, VARIANT_1, params={"normalize": "true"})
        id_b = self.register_ok(b, VARIANT_2, params={"normalize": "true"})
        self.assertEqual(id_a, id_b)
        self.assertEqual(self.assert_ok(self.version(a, 1))["schema"], NORMALIZED)
        self.assertEqual(self.assert_ok(self.version(b, 1))["schema"], NORMALIZED)

    def test_without_normalize_the_variants_are_two_schemas(self):
        # Identity is the canonical text (2.3), which keeps property order.
        c, d = self.sub("c"), self.sub("d")
        self.assertNotEqual(self.register_ok(c, VARIANT_1), self.register_ok(d, VARIANT_2))

    def test_normalize_on_lookup(self):
        s = self.sub()
        schema_id = self.register_ok(s, VARIANT_1, params={"normalize": "true"})
        body = self.assert_ok(self.lookup(s, VARIANT_2, params={"normalize": "true"}))
        self.assertEqual((body["version"], body["id"]), (1, schema_id))
        self.assertEqual(body["schema"], NORMALIZED)

    def test_normalize_from_subject_config(self):
        s, t = self.sub("s"), self.sub("t")
        for subject in (s, t):
            self.assert_ok(self.put(f"/config/{quote(subject)}", {"normalize": True}))
        schema_id = self.register_ok(s, VARIANT_1)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], NORMALIZED)
        self.assertEqual(self.assert_ok(self.lookup(s, VARIANT_2))["id"], schema_id)
        self.assertEqual(self.register_ok(t, VARIANT_2), schema_id)

    def test_normalize_sorts_references(self):
        nb, nc = self.sub("nb"), self.sub("nc")
        self.register_ok(nb, named("NB", [("x", "int")]))
        self.register_ok(nc, named("NC", [("y", "int")]))
        schema = named("Both", [("b", full("NB")), ("c", full("NC"))])
        backwards = [ref(full("NC"), nc, 1), ref(full("NB"), nb, 1)]
        ordered = [ref(full("NB"), nb, 1), ref(full("NC"), nc, 1)]
        s1, s2 = self.sub("n1"), self.sub("n2")
        # (Sorted by name or by subject: both give the same order here.)
        id1 = self.register_ok(s1, schema, references=backwards, params={"normalize": "true"})
        self.assertEqual(self.assert_ok(self.version(s1, 1))["references"], ordered)
        id2 = self.register_ok(s2, schema, references=ordered, params={"normalize": "true"})
        self.assertEqual(id1, id2)
        # Without normalization the reference order is part of the identity.
        p1, p2 = self.sub("p1"), self.sub("p2")
        plain1 = self.register_ok(p1, schema, references=backwards)
        plain2 = self.register_ok(p2, schema, references=ordered)
        self.assertNotEqual(plain1, plain2)
        self.assertEqual(self.assert_ok(self.version(p1, 1))["references"], backwards)

    def test_normalize_dedupes_references(self):
        dep = self.sub("dep")
        self.register_ok(dep, named("Dup", [("x", "int")]))
        schema = named("UsesDup", [("d", full("Dup"))])
        once = [ref(full("Dup"), dep, 1)]
        s1, s2 = self.sub("n1"), self.sub("n2")
        id1 = self.register_ok(s1, schema, references=once + once, params={"normalize": "true"})
        self.assertEqual(self.assert_ok(self.version(s1, 1))["references"], once)
        self.assertEqual(self.register_ok(s2, schema, references=once,
                                          params={"normalize": "true"}), id1)


if __name__ == "__main__":
    harness.main()

"""Contexts (docs/api.md, "Contexts"): each context its own subject namespace
and its own id sequence, as Confluent's QualifiedSubject, IncrementalIdGenerator
(one counter per context, from 1), AbstractSchemaRegistry
(getSchemaKeyUsingContexts, getIdUsingContexts, listContexts), ContextsResource,
ConfigResource/ModeResource (context scopes, recursive) and InMemoryCache
(config and mode fall back to the context) define them."""

import json
import os

import harness
from harness import avro_record, quote

MIGRATIONS = os.path.join(harness.HERE, "..", "..", "migrations")


def rec(name, n=1):
    """An Avro record in its canonical (compact) form, as the registry answers it."""
    return json.dumps(json.loads(avro_record(name, [(f"f{i}", "string", "") for i in range(n)])),
                      separators=(",", ":"))


class Contexts(harness.RegistryTestCase):

    def ctx(self):
        """A context no other test uses, without its delimiters: ".name"."""
        return "." + self.sub("c").replace("_", "")

    def q(self, ctx, subject):
        return f":{ctx}:{subject}"

    # -- ids per context (IncrementalIdGenerator) --

    def test_each_context_numbers_its_own_ids_from_one(self):
        c1, c2 = self.ctx(), self.ctx()
        a, b = self.q(c1, "s"), self.q(c2, "s")
        self.assertEqual(self.register_ok(a, rec("A")), 1)
        self.assertEqual(self.register_ok(b, rec("B")), 1)
        self.assertEqual(self.register_ok(a, rec("A", 2)), 2)
        # The same number, two contents: ?subject= picks the context.
        self.assertEqual(self.assert_ok(self.get("/schemas/ids/1", params={"subject": a}))["schema"],
                         rec("A"))
        self.assertEqual(self.assert_ok(self.get("/schemas/ids/1", params={"subject": b}))["schema"],
                         rec("B"))
        self.assertEqual(self.get("/schemas/ids/1/schema", params={"subject": b}).text, rec("B"))
        # The same content in another context gets that context's next id.
        self.assertEqual(self.register_ok(self.q(c2, "t"), rec("A")), 2)
        # The database holds (context, id) rows.
        self.assertEqual(self.db.value(
            f"SELECT string_agg(id::text, ',' ORDER BY id) FROM schemas WHERE context = '{c1}'"), "1,2")
        # The default context's ids are untouched by them.
        d = self.register_ok(self.sub(), rec("D"))
        self.assert_ok(self.get(f"/schemas/ids/{d}"))
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{d}"))["schema"], rec("D"))

    def test_a_kept_body_is_the_default_contexts_only(self):
        # GET /schemas/ids/{id} bodies are kept per id of the default context
        # (registry/bodies.c); the same number in a named context is another schema.
        d = self.register_ok(self.sub(), rec("KeptD"))
        c = self.ctx()
        s = self.q(c, "imp")
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}))
        r = self.register(s, rec("KeptC"), id=d)
        self.assertEqual((r.status, r.body), (200, {"id": d}), r)
        ext = {"Confluent-Accept-Unknown-Properties": "true"}
        for headers in ({}, ext):
            for _ in range(2):  # the second answer is the kept one
                self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{d}", headers=headers))["schema"],
                                 rec("KeptD"))
                self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{d}", params={"subject": s},
                                                         headers=headers))["schema"], rec("KeptC"))

    def test_subject_parameter_selects_the_context(self):
        c = self.ctx()
        s = self.q(c, "value")
        self.register_ok(s, rec("Sel"))
        # Not in the default context: no subject, or a default subject carrying nothing.
        self.assert_error(self.get("/schemas/ids/1", params={"subject": self.q(c, "other")}), 404, 40403)
        # An unqualified subject is tried in each named context (getSchemaKeyUsingContexts).
        plain = self.sub("plain")
        s2 = self.q(c, plain)
        self.register_ok(s2, rec("Sel"))
        body = self.assert_ok(self.get("/schemas/ids/1", params={"subject": plain}))
        self.assertEqual(body["schema"], rec("Sel"))
        # A context alone: any subject of it.
        self.assertEqual(self.assert_ok(self.get("/schemas/ids/1", params={"subject": f":{c}:"}))["schema"],
                         rec("Sel"))
        ext = {"Confluent-Accept-Unknown-Properties": "true"}
        body = self.assert_ok(self.get("/schemas/ids/1", params={"subject": s}, headers=ext))
        self.assertEqual((body["subject"], body["version"]), (s, 1))
        # subjects and versions of the id are the context's, with qualified names.
        self.assert_ok(self.get("/schemas/ids/1/subjects", params={"subject": s}), sorted([s, s2]))
        self.assert_ok(self.get("/schemas/ids/1/versions", params={"subject": s}),
                       sorted([{"subject": s, "version": 1}, {"subject": s2, "version": 1}],
                              key=lambda x: x["subject"]))
        # fetchMaxId is the context's.
        body = self.assert_ok(self.get("/schemas/ids/1", params={"subject": s, "fetchMaxId": "true"}))
        self.assertEqual(body["maxId"], 1)

    # -- names (QualifiedSubject) --

    def test_qualified_names_in_every_endpoint(self):
        c = self.ctx()
        s = self.q(c, "orders")
        self.register_ok(s, rec("Ord"))
        self.assert_ok(self.versions(s), [1])
        v = self.assert_ok(self.version(s, 1))
        self.assertEqual((v["subject"], v["id"], v["version"]), (s, 1, 1))
        self.assertEqual(self.assert_ok(self.lookup(s, rec("Ord")))["subject"], s)
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/latest",
                                 {"schema": rec("Ord", 2)}), {"is_compatible": True})
        self.assertIn(s, self.subjects())
        self.assert_ok(self.get("/subjects", params={"subjectPrefix": f":{c}:"}), [s])
        self.assert_ok(self.get("/subjects", params={"subjectPrefix": f":*:orders"}),
                       [x for x in self.subjects() if x.endswith(":orders") or x == "orders"])
        # An explicit empty prefix is the default context only.
        self.assertNotIn(s, self.assert_ok(self.get("/subjects", params={"subjectPrefix": ""})))
        # GET /schemas: the default context unless the prefix names another.
        self.assertNotIn(s, [x["subject"] for x in self.assert_ok(self.get("/schemas"))])
        self.assertEqual([x["subject"] for x in self.assert_ok(self.get("/schemas",
                                                                         params={"subjectPrefix": f":{c}:"}))],
                         [s])
        self.assertIn(s, [x["subject"] for x in self.assert_ok(self.get("/schemas",
                                                                          params={"subjectPrefix": ":*:"}))])
        # The delete endpoints take the qualified name too.
        self.assert_ok(self.delete_version(s, 1), 1)
        self.assert_ok(self.delete_subject(s, permanent=True), [1])
        self.assert_error(self.versions(s), 404, 40401)

    def test_default_context_prefix_is_the_plain_name(self):
        name = self.sub()
        self.register_ok(f":.:{name}", rec("Dflt"))
        self.assert_ok(self.versions(name), [1])
        self.assertEqual(self.assert_ok(self.version(f":.:{name}", 1))["subject"], name)
        self.assertEqual(self.db.value(f"SELECT count(*) FROM subject_versions WHERE subject = '{name}'"), "1")
        # /config/:.: and /mode/:.: are the global scopes.
        self.assert_ok(self.get("/config/:.:"), self.assert_ok(self.get("/config")))
        self.assert_ok(self.get("/mode/:.:"), {"mode": "READWRITE"})

    # -- references (qualifySubjectWithParent) --

    def test_references_resolve_in_the_referrer_context_and_across(self):
        c1, c2 = self.ctx(), self.ctx()
        ref = {"type": "record", "name": "Ref", "fields": [{"name": "x", "type": "int"}]}
        self.register_ok(self.q(c1, "ref"), json.dumps(ref))
        main = json.dumps({"type": "record", "name": "Main", "fields": [{"name": "r", "type": "Ref"}]})
        # Unqualified: the referrer's own context.
        mid = self.register_ok(self.q(c1, "main"), main,
                               references=[{"name": "Ref", "subject": "ref", "version": 1}])
        self.assertEqual(mid, 2)
        # The same reference from a context without "ref" does not resolve.
        self.assert_error(self.register(self.q(c2, "main"), main,
                                        references=[{"name": "Ref", "subject": "ref", "version": 1}]),
                          422, 42201)
        # Qualified: another context.
        xid = self.register_ok(self.q(c2, "main"), main,
                               references=[{"name": "Ref", "subject": self.q(c1, "ref"), "version": 1}])
        self.assertEqual(xid, 1)
        self.assert_ok(self.get(f"/subjects/{quote(self.q(c1, 'ref'))}/versions/1/referencedby"), [2, 1])
        # referenceFormat=qualified names the context; as stored otherwise.
        body = self.assert_ok(self.get(f"/schemas/ids/{mid}", params={"subject": self.q(c1, "main"),
                                                                   "referenceFormat": "qualified"}))
        self.assertEqual(body["references"], [{"name": "Ref", "subject": self.q(c1, "ref"), "version": 1}])
        body = self.assert_ok(self.get(f"/schemas/ids/{mid}", params={"subject": self.q(c1, "main")}))
        self.assertEqual(body["references"], [{"name": "Ref", "subject": "ref", "version": 1}])
        # A referenced version cannot go.
        self.assert_error(self.delete_version(self.q(c1, "ref"), 1), 422, 42206)

    # -- GET /contexts, DELETE /contexts/{c} (ContextsResource) --

    def test_list_and_delete_contexts(self):
        base = self.ctx()
        names = [base + "-a", base + "-b", base + "-c"]
        for n in names:
            self.register_ok(self.q(n, "s"), rec("L"))
        listed = self.assert_ok(self.get("/contexts"))
        self.assertEqual(listed[0], ".")
        self.assertEqual(listed, sorted(listed[1:]) and ["."] + sorted(listed[1:]))
        self.assert_ok(self.get("/contexts", params={"contextPrefix": base}), names)
        self.assert_ok(self.get("/contexts", params={"contextPrefix": base, "offset": "1", "limit": "1"}),
                       names[1:2])
        # Not empty: 42211, soft-deleted versions count.
        r = self.delete(f"/contexts/{names[0]}")
        self.assert_error(r, 422, 42211)
        self.assertEqual(r.body["message"], f"The specified context ':{names[0]}:' is not empty.")
        self.assert_ok(self.delete_subject(self.q(names[0], "s")), [1])
        self.assert_error(self.delete(f"/contexts/{names[0]}"), 422, 42211)
        self.assert_ok(self.delete_subject(self.q(names[0], "s"), permanent=True), [1])
        # Empty: 204, and no longer listed; every spelling names the same context.
        # (ContextFilter reads the raw path: an escaped colon is not a delimiter,
        # and the name it makes has a colon inside.)
        before = self.db.state()
        self.assert_error(self.delete(f"/contexts/{quote(':' + names[0] + ':')}"), 400, 400)
        self.assertEqual(self.db.state(), before)
        r = self.delete(f"/contexts/:{names[0]}:")
        self.assertEqual(r.status, 204, r)
        self.assert_ok(self.get("/contexts", params={"contextPrefix": base}), names[1:])
        self.assertEqual(self.delete(f"/contexts/{names[0]}").status, 204)    # unknown: 204 too
        self.assertEqual(self.delete(f"/contexts/{base[1:]}-none").status, 204)
        self.assert_error(self.delete(f"/contexts/{quote('a:b')}"), 400, 400)
        # A new version lists it again, and its ids go on (never reused).
        self.assertEqual(self.register_ok(self.q(names[0], "s"), rec("L", 2)), 2)
        self.assert_ok(self.get("/contexts", params={"contextPrefix": base}), names)

    # -- GUIDs (getIdUsingContexts, listIdsForGuid) --

    def test_guid_across_contexts(self):
        c = self.ctx()
        content = rec("Guid")
        cid = self.register_ok(self.q(c, "g"), content)
        ext = {"Confluent-Accept-Unknown-Properties": "true"}
        guid = self.assert_ok(self.get(f"/schemas/ids/{cid}", params={"subject": self.q(c, "g")},
                                       headers=ext))["guid"]
        # Only in the named context: found there.
        self.assertEqual(self.assert_ok(self.get(f"/schemas/guids/{guid}"))["schema"], content)
        self.assert_ok(self.get(f"/schemas/guids/{guid}/ids"), [{"context": c, "id": cid}])
        did = self.register_ok(self.sub(), content)
        self.assert_ok(self.get(f"/schemas/guids/{guid}/ids"),
                       [{"context": ".", "id": did}, {"context": c, "id": cid}])

    # -- config and mode of a context (InMemoryCache.config/mode) --

    def test_context_config_and_mode(self):
        c = self.ctx()
        s = self.q(c, "cfg")
        self.register_ok(s, rec("Cfg"))
        self.assert_ok(self.put(f"/config/{quote(':' + c + ':')}", {"compatibility": "NONE"}),
                       {"compatibility": "NONE"})
        self.assert_ok(self.get(f"/config/{quote(':' + c + ':')}"), {"compatibilityLevel": "NONE"})
        self.assertEqual(self.assert_ok(self.get(f"/config/{quote(s)}",
                                                 params={"defaultToGlobal": "true"}))["compatibilityLevel"],
                         "NONE")
        # NONE lets an incompatible change in (BACKWARD, the default, would refuse it).
        self.register_ok(s, avro_record("Cfg", [("other", "int")]))
        self.assert_error(self.get(f"/config/{quote(s)}"), 404, 40408)
        # The mode of the context applies to its subjects only.
        self.assert_ok(self.put(f"/mode/{quote(':' + c + ':')}", {"mode": "READONLY"}), {"mode": "READONLY"})
        self.assert_error(self.register(s, rec("Cfg", 3)), 422, 42205)
        self.assert_ok(self.get(f"/mode/{quote(s)}", params={"defaultToGlobal": "true"}), {"mode": "READONLY"})
        self.register_ok(self.sub(), rec("Cfg", 3))
        self.assert_ok(self.delete(f"/mode/{quote(':' + c + ':')}"), {"mode": "READONLY"})
        self.register_ok(s, rec("Cfg", 3))

    def test_delete_mode_recursive(self):
        c = self.ctx()
        inside, plain = self.q(c, "m"), self.sub("m")
        for scope in (inside, plain):
            self.assert_ok(self.put(f"/mode/{quote(scope)}", {"mode": "READONLY"}))
        # Not recursive: a context without a mode is 40401.
        self.assert_error(self.delete(f"/mode/{quote(':' + c + ':')}"), 404, 40401)
        # Recursive: the context's own (none: {}) and every subject's in it.
        self.assert_ok(self.delete(f"/mode/{quote(':' + c + ':')}", params={"recursive": "true"}), {})
        self.assert_error(self.get(f"/mode/{quote(inside)}"), 404, 40409)
        self.assert_ok(self.get(f"/mode/{quote(plain)}"), {"mode": "READONLY"})
        # On the global scope: the default context's subjects, not the named ones.
        self.assert_ok(self.put(f"/mode/{quote(inside)}", {"mode": "READONLY"}))
        self.assert_ok(self.delete("/mode", params={"recursive": "true"}), {"mode": "READWRITE"})
        self.assert_error(self.get(f"/mode/{quote(plain)}"), 404, 40409)
        self.assert_ok(self.get(f"/mode/{quote(inside)}"), {"mode": "READONLY"})
        self.assert_ok(self.delete(f"/mode/{quote(inside)}"))

    # -- restart --

    def test_ids_per_context_survive_a_restart(self):
        c = self.ctx()
        self.register_ok(self.q(c, "r"), rec("R1"))
        self.server.stop()
        self.server.start()
        self.assertEqual(self.assert_ok(self.get("/schemas/ids/1", params={"subject": self.q(c, "r")}))["schema"],
                         rec("R1"))
        self.assertEqual(self.register_ok(self.q(c, "r"), rec("R1", 2)), 2)


class ContextPaths(harness.RegistryTestCase):
    """/contexts/{c}/... as Confluent's ContextFilter rewrites it (a pre-matching
    filter over the raw path): the rest of the path, with the context put into
    every subject it names (after "subjects", after a leading "config"/"mode"),
    into ?subject= on /schemas/ids/..., and into ?subjectPrefix= on /schemas and
    /subjects. The context is QualifiedSubject.normalizeContext's."""

    def ctx(self):
        return "." + self.sub("p").replace("_", "")

    def test_subject_paths_name_the_qualified_subject(self):
        c = self.ctx()
        q = f":{c}:s"
        r = self.post(f"/contexts/{c}/subjects/s/versions", {"schema": rec("P")})
        self.assertEqual((r.status, r.body), (200, {"id": 1}), r)
        self.assert_ok(self.versions(q), [1])
        want = {"subject": q, "version": 1, "id": 1, "schema": rec("P")}
        # ".c", "c" and ":.c:" name the same context.
        for spelled in (c, c[1:], f":{c}:"):
            self.assert_ok(self.get(f"/contexts/{spelled}/subjects/s/versions/1"), want)
        self.assert_ok(self.get(f"/contexts/{c}/subjects/s/versions"), [1])
        self.assertEqual(self.get(f"/contexts/{c}/subjects/s/versions/latest/schema").text, rec("P"))
        self.assert_ok(self.post(f"/contexts/{c}/subjects/s", {"schema": rec("P")}), want)
        self.assert_ok(self.post(f"/contexts/{c}/compatibility/subjects/s/versions/latest",
                                 {"schema": rec("P", 2)}), {"is_compatible": True})
        self.assert_ok(self.get(f"/contexts/{c}/subjects/s/versions/1/referencedby"), [])
        # A subject that names its context keeps it; "." is the default context.
        other = self.ctx()
        self.assert_ok(self.post(f"/contexts/{c}/subjects/:{other}:t/versions", {"schema": rec("O")}), {"id": 1})
        self.assert_ok(self.versions(f":{other}:t"), [1])
        plain = self.sub()
        self.assert_ok(self.post(f"/contexts/./subjects/{plain}/versions", {"schema": rec("Plain")}))
        self.assert_ok(self.versions(plain), [1])
        self.assertEqual(self.db.value(f"SELECT count(*) FROM subject_versions WHERE subject = '{q}'"), "1")
        # Deletes too.
        self.assert_ok(self.delete(f"/contexts/{c}/subjects/s/versions/1"), 1)
        self.assert_ok(self.delete(f"/contexts/{c}/subjects/s", params={"permanent": "true"}), [1])
        self.assert_error(self.versions(q), 404, 40401)

    def test_reads_by_id_and_listings_stay_in_the_context(self):
        c = self.ctx()
        q = f":{c}:s"
        self.register_ok(q, rec("InCtx"))
        d = self.sub()
        self.register_ok(d, rec("InDefault"))
        # ?subject= gets the context (absent: the context itself).
        self.assertEqual(self.assert_ok(self.get(f"/contexts/{c}/schemas/ids/1"))["schema"], rec("InCtx"))
        self.assertEqual(self.assert_ok(self.get(f"/contexts/{c}/schemas/ids/1",
                                                 params={"subject": "s"}))["schema"], rec("InCtx"))
        self.assertEqual(self.get(f"/contexts/{c}/schemas/ids/1/schema").text, rec("InCtx"))
        self.assert_ok(self.get(f"/contexts/{c}/schemas/ids/1/subjects"), [q])
        self.assert_ok(self.get(f"/contexts/{c}/schemas/ids/1/versions"), [{"subject": q, "version": 1}])
        self.assert_error(self.get(f"/contexts/{c}/schemas/ids/2"), 404, 40403)
        # ?subjectPrefix= likewise; "." is an explicit empty prefix: the default context.
        self.assert_ok(self.get(f"/contexts/{c}/subjects"), [q])
        self.assert_ok(self.get(f"/contexts/{c}/subjects", params={"subjectPrefix": "x"}), [])
        self.assertEqual([s["subject"] for s in self.assert_ok(self.get(f"/contexts/{c}/schemas"))], [q])
        listed = self.assert_ok(self.get("/contexts/./subjects"))
        self.assertIn(d, listed)
        self.assertNotIn(q, listed)
        # A prefix that names a context is kept as it is.
        self.assert_ok(self.get(f"/contexts/{c}/subjects", params={"subjectPrefix": f":{c}:s"}), [q])

    def test_config_and_mode_of_the_context_and_its_subjects(self):
        c = self.ctx()
        self.assert_ok(self.put(f"/contexts/{c}/config", {"compatibility": "NONE"}), {"compatibility": "NONE"})
        self.assert_ok(self.get(f"/config/:{c}:"), {"compatibilityLevel": "NONE"})
        self.assert_ok(self.get(f"/contexts/{c}/config"), {"compatibilityLevel": "NONE"})
        self.assert_ok(self.put(f"/contexts/{c}/config/s", {"compatibility": "FULL"}), {"compatibility": "FULL"})
        self.assert_ok(self.get(f"/config/:{c}:s"), {"compatibilityLevel": "FULL"})
        self.assert_ok(self.delete(f"/contexts/{c}/config/s"), {"compatibilityLevel": "FULL"})
        # "." is the global scope.
        self.assert_ok(self.get("/contexts/./config"), self.assert_ok(self.get("/config")))
        self.assert_ok(self.put(f"/contexts/{c}/mode/s", {"mode": "READONLY"}), {"mode": "READONLY"})
        self.assert_ok(self.get(f"/mode/:{c}:s"), {"mode": "READONLY"})
        self.assert_error(self.register(f":{c}:s", rec("M")), 422, 42205)
        self.assert_ok(self.delete(f"/contexts/{c}/mode", params={"recursive": "true"}), {})
        self.assert_ok(self.get(f"/mode/:{c}:s", params={"defaultToGlobal": "true"}), {"mode": "READWRITE"})

    def test_what_is_left_of_the_path(self):
        c = self.ctx()
        # Nothing after the context: DELETE /contexts/:.c: (GET has no such route).
        self.assertEqual(self.delete(f"/contexts/{c}").status, 204)
        self.assert_error(self.get(f"/contexts/{c}"), 405, 405)
        # "." and nothing after it: the root resource.
        self.assert_ok(self.get("/contexts/."), {})
        # Paths without a subject are the plain ones.
        self.assert_ok(self.get(f"/contexts/{c}/schemas/types"), ["AVRO", "JSON", "PROTOBUF"])
        self.assertEqual(self.assert_ok(self.get(f"/contexts/{c}/contexts"))[0], ".")
        self.assert_error(self.get(f"/contexts/{c}/nothing"), 404, 404)
        # A colon inside the context is the filter's 400, where a prefix is made only.
        r = self.get("/contexts/a:b/subjects/s/versions")
        self.assertEqual((r.status, r.body), (400, {"error_code": 400,
                                                    "message": "Context name 'a:b' cannot contain a colon"}), r)
        r = self.get("/contexts/:a:b:/config")
        self.assertEqual((r.status, r.body), (400, {"error_code": 400,
                                                    "message": "Context name 'a:b' cannot contain a colon"}), r)
        self.assert_ok(self.get("/contexts/a:b/schemas/types"), ["AVRO", "JSON", "PROTOBUF"])
        # The raw path: an escaped context is taken as typed ("%2Ex" is ".%2Ex", decoded "..x").
        x = self.sub("x").replace("_", "")
        self.assert_ok(self.post(f"/contexts/%2E{x}/subjects/s/versions", {"schema": rec("Raw")}))
        self.assert_ok(self.versions(f":..{x}:s"), [1])
        before = self.db.state()
        r = self.post("/contexts/a:b/subjects/s/versions", {"schema": rec("Never")})
        self.assertEqual(r.status, 400, r)
        self.assertEqual(self.db.state(), before)


class ContextsTwoNodes(harness.TwoNodeTestCase):

    def test_an_id_of_a_context_is_readable_on_the_other_node_at_once(self):
        c = "." + self.sub("c").replace("_", "")
        s = f":{c}:s"
        a, b = self.server.client(), self.node_b.client()
        # The default context's id 1 is another content.
        self.assertEqual(a.post(f"/subjects/{quote(self.sub())}/versions", {"schema": rec("One")}).body, {"id": 1})
        r = a.post(f"/subjects/{quote(s)}/versions", {"schema": rec("Two")})
        self.assertEqual(r.body, {"id": 1}, r)
        body = b.get("/schemas/ids/1", params={"subject": s})
        self.assertEqual(body.status, 200, body)
        self.assertEqual(body.body["schema"], rec("Two"))
        # node B continues the context's sequence from the database.
        r = b.post(f"/subjects/{quote(s)}/versions", {"schema": rec("Two", 2)})
        self.assertEqual(r.body, {"id": 2}, r)
        self.assertEqual(a.get("/schemas/ids/2", params={"subject": s}).body["schema"], rec("Two", 2))


class MigrationKeepsEveryId(harness.RegistryTestCase):
    """migrations/0006 on a database written under 0001..0005: every id answers
    as before, and subjects named ":.ctx:..." keep their ids in their context."""

    @classmethod
    def setUpClass(cls):
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.db.sql("CREATE TABLE schema_migrations (name text PRIMARY KEY,"
                   " applied_at timestamptz NOT NULL DEFAULT now())")
        for name in sorted(os.listdir(MIGRATIONS)):
            if name < "0006":
                with open(os.path.join(MIGRATIONS, name)) as f:
                    cls.db.sql(f.read())
                cls.db.sql(f"INSERT INTO schema_migrations (name) VALUES ('{name}')")
        # Rows as the 0005 server wrote them: one id space for every name.
        key = "decode(md5(schema_text), 'hex')"
        for i, text in enumerate([rec("Old1"), rec("Old2"), rec("Old3")], start=1):
            t = text.replace("'", "''")
            cls.db.sql(f"INSERT INTO schemas (id, schema_type, schema_text, identity_key) "
                       f"VALUES ({i}, 'AVRO', '{t}', decode(md5('{t}'), 'hex'))")
        cls.db.sql("SELECT setval('schema_ids', 3)")
        for subject, version, sid in (("plain", 1, 1), ("plain", 2, 2), (":.old:x", 1, 2), (":.old:x", 2, 3)):
            cls.db.sql(f"INSERT INTO subject_versions (subject, version, schema_id) "
                       f"VALUES ('{subject}', {version}, {sid})")
        cls.server = harness.Server(database_url=cls.db.url, name="migrated")
        cls.server.start()

    def test_every_id_answers_as_before(self):
        for i, name in ((1, "Old1"), (2, "Old2"), (3, "Old3")):
            self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{i}", params={"subject": "plain"}))["schema"]
                             if i < 3 else self.assert_ok(self.get(f"/schemas/ids/{i}",
                                                                   params={"subject": ":.old:x"}))["schema"],
                             rec(name))
        self.assertEqual(self.assert_ok(self.version("plain", 2))["id"], 2)
        self.assertEqual([self.assert_ok(self.version(":.old:x", v))["id"] for v in (1, 2)], [2, 3])
        self.assertEqual(self.assert_ok(self.version(":.old:x", 2))["schema"], rec("Old3"))
        # The default context still holds every row; the named one copies what it uses.
        self.assertEqual(self.db.value("SELECT string_agg(context || '/' || id, ',' ORDER BY context, id)"
                                       " FROM schemas"), "./1,./2,./3,.old/2,.old/3")
        self.assert_ok(self.get("/contexts"), [".", ".old"])
        # New ids continue above the old ones in each context.
        self.assertEqual(self.register_ok("plain-2", rec("New", 2)), 4)
        self.assertEqual(self.register_ok(":.old:y", rec("New", 3)), 4)


if __name__ == "__main__":
    harness.main()

"""Schema metadata and rule sets, as Confluent's community server handles them
(issue 13, "Metadata"; docs/api.md, "Metadata" and "Rule sets").

- Metadata (client/rest/entities/Metadata.java: tags, properties, sensitive) belongs
  to the schema: it is part of the MD5 identity (MD5.ofSchema, Schema.updateHash), so
  the same text with other metadata is another id and another version.
- A registration without metadata takes the latest live version's, merged over the
  config's defaultMetadata and under its overrideMetadata
  (AbstractSchemaRegistry.maybeSetMetadataRuleSet, Metadata.mergeMetadata); an explicit
  version sets confluent:version.
- Lookup tries the request as sent, then with the metadata registration would give it
  (AbstractSchemaRegistry.lookUpSchemaUnderSubject); confluent:version on one side only is
  ignored (AbstractSchemaProvider.canLookupIgnoringVersion).
- GET /subjects/{s}/metadata (SubjectsResource.getLatestWithMetadata).
- ruleSet, defaultRuleSet, overrideRuleSet are dropped (RuleSetHandler of the community
  build), so nothing stores or returns them.
"""

import hashlib
import json
import time
import uuid

import harness
from harness import avro_record, quote, sql_literal

REC1 = avro_record("Meta", [("a", "string")])
REC2 = avro_record("Meta", [("a", "string"), ("b", "string", "x")])
REC3 = avro_record("Meta", [("a", "string"), ("c", "string", "y")])
EXT = {"Confluent-Accept-Unknown-Properties": "true"}

META = {"tags": {"f": ["PII", "A", "PII"], "a": ["x"]},
        "properties": {"owner": "team-a", "b": "2"},
        "sensitive": ["s2", "s1"],
        "ignored": "unknown keys are ignored"}
# Sorted maps and sets, in Metadata's field order, duplicates gone.
META_CANON = {"tags": {"a": ["x"], "f": ["A", "PII"]},
              "properties": {"b": "2", "owner": "team-a"},
              "sensitive": ["s1", "s2"]}


def guid(canonical, metadata=None):
    """MD5.ofSchema: the text, (no references here), then 1 and Metadata.updateHash."""
    md = hashlib.md5(canonical.encode())
    if metadata is not None:
        md.update(b"\x01")
        for k, vs in metadata.get("tags", {}).items():
            md.update(k.encode())
            for v in vs:
                md.update(v.encode())
        for k, v in metadata.get("properties", {}).items():
            md.update(k.encode() + v.encode())
        for v in metadata.get("sensitive", []):
            md.update(v.encode())
    return str(uuid.UUID(bytes=md.digest()))


class Metadata(harness.RegistryTestCase):

    def config(self, subject, body):
        path = f"/config/{quote(subject)}" if subject else "/config"
        return self.assert_ok(self.put(path, body))

    def version_body(self, subject, version, **kw):
        return self.assert_ok(self.version(subject, version, **kw))

    def test_returned_in_every_schema_response_in_canonical_form(self):
        s = self.sub()
        r = self.register(s, REC1, metadata=META)
        self.assert_ok(r)
        sid = r.body["id"]
        v = self.assert_ok(self.get(f"/subjects/{quote(s)}/versions/1"))
        # Key order as Jackson renders the Schema entity (metadata before schema), and inside
        # the metadata too (json.loads keeps the order of the text).
        self.assertEqual(list(v), ["subject", "version", "id", "metadata", "schema"])
        self.assertEqual(json.dumps(v["metadata"]), json.dumps(META_CANON))
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{sid}"))["metadata"], META_CANON)
        self.assertEqual(self.assert_ok(self.lookup_with(s, REC1, META))["metadata"], META_CANON)
        listed = self.assert_ok(self.get("/schemas", params={"subjectPrefix": s}))
        self.assertEqual([x["metadata"] for x in listed], [META_CANON])
        ext = self.post(f"/subjects/{quote(s)}/versions", {"schema": REC1, "metadata": META}, headers=EXT)
        self.assertEqual(self.assert_ok(ext)["metadata"], META_CANON)
        self.assertEqual(ext.body["guid"], guid(ext.body["schema"], META_CANON))
        # Stored once, canonical, on the schema row (migrations/0007).
        self.assertEqual(json.loads(self.db.value(f"SELECT metadata FROM schemas WHERE id = {sid}")),
                         META_CANON)
        # Without metadata nothing is added to a response.
        other = self.sub()
        self.register_ok(other, REC2)
        self.assertNotIn("metadata", self.version_body(other, 1))

    def lookup_with(self, subject, schema, metadata, params=None):
        body = {"schema": schema}
        if metadata is not None:
            body["metadata"] = metadata
        return self.post(f"/subjects/{quote(subject)}", body, params=params)

    def test_prepared_bodies_carry_the_metadata(self):
        """By-id and version reads are rendered once and kept (registry/bodies.c): the
        kept body is the one with the metadata, in both profiles."""
        s = self.sub()
        sid = self.register_ok(s, REC1, metadata={"properties": {"k": "kept"}})
        for headers in (None, EXT):
            for _ in range(3):
                for path in (f"/schemas/ids/{sid}", f"/subjects/{quote(s)}/versions/1",
                             f"/subjects/{quote(s)}/versions/latest"):
                    r = self.get(path, headers=headers)
                    self.assertEqual(self.assert_ok(r)["metadata"], {"properties": {"k": "kept"}}, path)
        # A new latest version (another metadata) replaces the kept "latest".
        self.register_ok(s, REC2, metadata={"properties": {"k": "new"}})
        r = self.get(f"/subjects/{quote(s)}/versions/latest")
        self.assertEqual(self.assert_ok(r)["metadata"], {"properties": {"k": "new"}})

    def test_same_schema_other_metadata_is_a_new_version_and_id(self):
        s = self.sub()
        plain = self.register_ok(s, REC1)
        m1 = self.register_ok(s, REC1, metadata={"properties": {"k": "1"}})
        m1_again = self.register_ok(s, REC1, metadata={"properties": {"k": "1"}})
        m2 = self.register_ok(s, REC1, metadata={"properties": {"k": "2"}})
        empty = self.register_ok(s, REC1, metadata={})
        self.assertEqual(m1, m1_again)
        self.assertEqual(len({plain, m1, m2, empty}), 4)
        self.assert_ok(self.versions(s), [1, 2, 3, 4])
        # An empty metadata is present ({}), not the same content as none (Schema.updateHash).
        self.assertEqual(self.version_body(s, 4)["metadata"], {})
        self.assertNotIn("metadata", self.version_body(s, 1))
        # The GUID is Confluent's MD5 with the metadata in it.
        for sid, md in ((plain, None), (m1, {"properties": {"k": "1"}}), (empty, {})):
            r = self.get(f"/schemas/ids/{sid}", headers=EXT)
            self.assertEqual(self.assert_ok(r)["guid"], guid(r.body["schema"], md))
        # The same text and metadata in another subject shares the id.
        self.assertEqual(self.register_ok(self.sub("t"), REC1, metadata={"properties": {"k": "2"}}), m2)

    def test_inherited_from_the_latest_live_version(self):
        s = self.sub()
        self.register_ok(s, REC1, metadata={"properties": {"owner": "a"}})
        self.register_ok(s, REC2)
        self.assertEqual(self.version_body(s, 2)["metadata"], {"properties": {"owner": "a"}})
        # Re-registering version 1's text without metadata inherits the latest's, which
        # makes it version 1's content again: the same version.
        r = self.post(f"/subjects/{quote(s)}/versions", {"schema": REC1}, headers=EXT)
        self.assertEqual(self.assert_ok(r)["version"], 1)
        self.assert_ok(self.versions(s), [1, 2])
        # Metadata sent replaces the inherited one wholesale (no merge with the previous).
        self.register_ok(s, REC3, metadata={"properties": {"team": "b"}})
        self.assertEqual(self.version_body(s, 3)["metadata"], {"properties": {"team": "b"}})
        # A soft-deleted latest is not inherited from.
        self.assert_ok(self.delete_version(s, 3))
        self.register_ok(s, avro_record("Meta", [("a", "string"), ("d", "string", "z")]))
        self.assertEqual(self.version_body(s, 4)["metadata"], {"properties": {"owner": "a"}})

    def test_default_under_and_override_over_the_request(self):
        s = self.sub()
        self.config(s, {"defaultMetadata": {"properties": {"a": "d", "b": "d"}, "tags": {"t": ["d"]},
                                            "sensitive": ["sd"]},
                        "overrideMetadata": {"properties": {"b": "o"}, "sensitive": ["so"]}})
        self.register_ok(s, REC1, metadata={"properties": {"a": "r", "c": "r"}, "tags": {"u": ["r"]},
                                            "sensitive": ["sr"]})
        self.assertEqual(self.version_body(s, 1)["metadata"],
                         {"tags": {"t": ["d"], "u": ["r"]},
                          "properties": {"a": "r", "b": "o", "c": "r"},
                          "sensitive": ["sd", "so", "sr"]})
        # The stored config keeps them canonical, and GET answers them.
        got = self.assert_ok(self.get(f"/config/{quote(s)}"))
        self.assertEqual(got["defaultMetadata"], {"tags": {"t": ["d"]}, "properties": {"a": "d", "b": "d"},
                                                  "sensitive": ["sd"]})
        # A global default applies to subjects without their own.
        g = self.sub("g")
        self.config(None, {"defaultMetadata": {"properties": {"env": "prod"}}})
        self.addCleanup(lambda: self.put("/config", {"defaultMetadata": None}))
        self.register_ok(g, REC1)
        self.assertEqual(self.version_body(g, 1)["metadata"], {"properties": {"env": "prod"}})

    def test_explicit_version_sets_confluent_version(self):
        s = self.sub()
        self.register_ok(s, REC1, version=1)
        self.assertEqual(self.version_body(s, 1)["metadata"], {"properties": {"confluent:version": "1"}})
        # Inherited, the property follows the new version number.
        self.register_ok(s, REC2)
        self.assertEqual(self.version_body(s, 2)["metadata"], {"properties": {"confluent:version": "2"}})
        # A lookup without it finds the version that has it (canLookupIgnoringVersion).
        r = self.lookup_with(s, REC1, None)
        self.assertEqual(self.assert_ok(r)["version"], 1)
        # One naming another version number finds nothing.
        plain = self.sub("p")
        self.register_ok(plain, REC1)
        self.assertEqual(self.assert_ok(self.lookup_with(
            plain, REC1, {"properties": {"confluent:version": "1"}}))["version"], 1)
        self.assert_error(self.lookup_with(plain, REC1, {"properties": {"confluent:version": "7"}}),
                          404, 40403)

    def test_lookup_as_sent_then_as_registration_would_store_it(self):
        s = self.sub()
        self.register_ok(s, REC1, metadata={"properties": {"k": "1"}})
        self.register_ok(s, REC2, metadata={"properties": {"k": "2"}})
        self.assertEqual(self.assert_ok(self.lookup_with(s, REC1, {"properties": {"k": "1"}}))["version"], 1)
        # Without metadata: the latest version's is tried (version 2 has it, with REC2).
        self.assertEqual(self.assert_ok(self.lookup_with(s, REC2, None))["version"], 2)
        # REC1 with the latest's metadata is no stored content.
        self.assert_error(self.lookup_with(s, REC1, None), 404, 40403)
        self.assert_error(self.lookup_with(s, REC1, {"properties": {"k": "3"}}), 404, 40403)
        # A rule set never matches: no stored schema has one.
        r = self.post(f"/subjects/{quote(s)}", {"schema": REC1, "metadata": {"properties": {"k": "1"}},
                                                "ruleSet": {"domainRules": []}})
        self.assert_error(r, 404, 40403)

    def test_get_latest_with_metadata(self):
        s = self.sub()
        self.register_ok(s, REC1, metadata={"properties": {"app": "x", "major": "1"}})
        self.register_ok(s, REC2, metadata={"properties": {"app": "x", "major": "2"}})
        self.register_ok(s, REC3)  # inherits major=2
        path = f"/subjects/{quote(s)}/metadata"
        self.assertEqual(self.assert_ok(self.get(path, params=[("key", "major"), ("value", "1")]))["version"], 1)
        self.assertEqual(self.assert_ok(self.get(path, params=[("key", "major"), ("value", "2")]))["version"], 3)
        both = [("key", "app"), ("value", "x"), ("key", "major"), ("value", "1"), ("key", "extra")]
        got = self.assert_ok(self.get(path, params=both))
        self.assertEqual((got["subject"], got["version"], got["metadata"]),
                         (s, 1, {"properties": {"app": "x", "major": "1"}}))
        # No filter: the newest version that has metadata at all.
        self.assertEqual(self.assert_ok(self.get(path))["version"], 3)
        self.assert_error(self.get(path, params=[("key", "major"), ("value", "9")]), 404, 40403)
        self.assert_error(self.get(f"/subjects/{quote(self.sub('none'))}/metadata"), 404, 40401)
        # Soft-deleted versions only with deleted=true.
        self.assert_ok(self.delete_version(s, 1))
        self.assert_error(self.get(path, params=[("key", "major"), ("value", "1")]), 404, 40403)
        got = self.get(path, params=[("key", "major"), ("value", "1"), ("deleted", "true")])
        self.assertEqual(self.assert_ok(got)["version"], 1)
        # format applies as on version reads.
        r = self.get(path, params=[("key", "major"), ("value", "2"), ("format", "resolved")])
        self.assertEqual(json.loads(self.assert_ok(r)["schema"]), json.loads(REC3))
        # A subject whose versions have no metadata: 40403, not 40401.
        bare = self.sub("bare")
        self.register_ok(bare, REC1)
        self.assert_error(self.get(f"/subjects/{quote(bare)}/metadata"), 404, 40403)

    def test_bad_metadata_refused_and_nothing_changes(self):
        s = self.sub()
        self.register_ok(s, REC1, metadata={"properties": {"k": "1"}})
        before = self.db.state()
        for bad in ("x", 5, ["a"], {"properties": {"a": 1}}, {"properties": {"a": None}},
                    {"properties": ["a"]}, {"tags": {"t": "PII"}}, {"tags": {"t": [1]}},
                    {"tags": ["t"]}, {"sensitive": "s"}, {"sensitive": [None]},
                    {"properties": {"a": "nul\u0000"}}):
            r = self.register(s, REC2, metadata=bad)
            self.assert_error(r, 400, 400)
            self.assertIn("metadata", r.body["message"])
            self.assert_error(self.lookup_with(s, REC1, bad), 400, 400)
            self.assert_error(self.put(f"/config/{quote(s)}", {"defaultMetadata": bad}), 400, 400)
            self.assert_error(self.put("/config", {"overrideMetadata": bad}), 400, 400)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1])
        self.assert_error(self.get(f"/config/{quote(s)}"), 404, 40408)

    def test_import_stores_the_metadata_as_sent(self):
        s = self.sub()
        self.config(s, {"overrideMetadata": {"properties": {"o": "1"}}})
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}))
        r = self.register(s, REC1, id=9001, version=1, metadata={"properties": {"k": "v"}})
        self.assert_ok(r, {"id": 9001})
        self.assertEqual(self.version_body(s, 1)["metadata"], {"properties": {"k": "v"}})
        # The same id with other metadata is other content: 42205.
        r = self.register(s, REC1, id=9001, version=2, metadata={"properties": {"k": "w"}})
        self.assert_error(r, 422, 42205)

    def test_in_a_context(self):
        s = f":.mdmeta:{self.sub()}"
        sid = self.register_ok(s, REC1, metadata={"properties": {"k": "ctx"}})
        self.assertEqual(self.assert_ok(self.version(s, 1))["metadata"], {"properties": {"k": "ctx"}})
        self.assertEqual(self.db.sql(f"SELECT context, metadata FROM schemas WHERE context = '.mdmeta' AND id = {sid}"),
                         [(".mdmeta", '{"properties":{"k":"ctx"}}')])
        self.register_ok(s, REC2)
        self.assertEqual(self.assert_ok(self.version(s, 2))["metadata"], {"properties": {"k": "ctx"}})

    def test_survives_a_restart(self):
        s = self.sub()
        sid = self.register_ok(s, REC1, metadata=META)
        self.server.stop()
        self.server.start()
        self.assertEqual(self.version_body(s, 1)["metadata"], META_CANON)
        self.assertEqual(self.register_ok(s, REC1, metadata=META), sid)
        self.assert_ok(self.versions(s), [1])


class RuleSets(harness.RegistryTestCase):
    """The community server's RuleSetHandler drops every rule set it is sent."""

    RULES = {"domainRules": [{"name": "r", "kind": "CONDITION", "mode": "WRITE", "type": "CEL",
                              "expr": "message.a != ''"}]}

    def test_registration_drops_the_rule_set(self):
        s = self.sub()
        sid = self.register_ok(s, REC1, ruleSet=self.RULES)
        self.assertEqual(self.register_ok(s, REC1), sid)
        body = self.assert_ok(self.version(s, 1))
        self.assertNotIn("ruleSet", body)
        self.assertNotIn("ruleset", body)
        # Even one Confluent would refuse as invalid (42210) is dropped unread.
        self.assertEqual(self.register_ok(s, REC1, ruleSet={"domainRules": [{"kind": "BOGUS"}]}), sid)
        self.assert_error(self.register(s, REC1, ruleSet="x"), 400, 400)

    def test_config_rule_sets_are_not_stored(self):
        s = self.sub()
        r = self.put(f"/config/{quote(s)}", {"compatibility": "NONE", "defaultRuleSet": self.RULES,
                                             "overrideRuleSet": self.RULES})
        self.assert_ok(r, {"compatibility": "NONE"})
        self.assert_ok(self.get(f"/config/{quote(s)}"), {"compatibilityLevel": "NONE"})
        stored = json.loads(self.db.value(f"SELECT config FROM configs WHERE scope = {sql_literal(s)}"))
        self.assertEqual(stored, {"compatibility": "NONE"})
        self.assert_error(self.put(f"/config/{quote(s)}", {"defaultRuleSet": 3}), 400, 400)
        # Registration under that config stores none either.
        self.register_ok(s, REC1)
        self.assertNotIn("ruleSet", self.assert_ok(self.version(s, 1)))


class ConfigFields(harness.RegistryTestCase):
    """alias, compatibilityGroup, compatibilityPolicy and validateRules as Confluent applies them."""

    def config(self, subject, body):
        path = f"/config/{quote(subject)}" if subject else "/config"
        return self.assert_ok(self.put(path, body))

    def test_alias_answers_for_its_target(self):
        target, alias = self.sub("target"), self.sub("alias")
        sid = self.register_ok(target, REC1)
        self.config(alias, {"alias": target})
        self.assert_ok(self.versions(alias), [1])
        self.assertEqual(self.assert_ok(self.version(alias, 1))["subject"], target)
        # Writes go to the target too (AliasFilter rewrites the path before routing).
        self.register_ok(alias, REC2)
        self.assert_ok(self.versions(target), [1, 2])
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(alias)}"), 0)
        self.assertEqual(self.assert_ok(self.post(f"/subjects/{quote(alias)}", {"schema": REC1}))["subject"],
                         target)
        r = self.post(f"/compatibility/subjects/{quote(alias)}/versions/latest", {"schema": REC3})
        self.assert_ok(r, {"is_compatible": True})
        self.assertEqual(self.assert_ok(self.get(f"/subjects/{quote(alias)}/versions/1/referencedby")), [])
        # ?subject= on by-id reads (extended profile shows which subject answered).
        r = self.get(f"/schemas/ids/{sid}", params={"subject": alias}, headers=EXT)
        self.assertEqual((r.body["subject"], r.body["version"]), (target, 1))
        # The alias's own config is still its own; /subjects lists only the target.
        self.assertEqual(self.assert_ok(self.get(f"/config/{quote(alias)}"))["alias"], target)
        self.assertNotIn(alias, self.subjects())
        # One hop only, and a global alias is ignored (AliasFilter reads the subject's config).
        hop = self.sub("hop")
        self.config(hop, {"alias": alias})
        self.assert_error(self.versions(hop), 404, 40401)
        # Deleting through the alias deletes the target's versions.
        self.assert_ok(self.delete(f"/subjects/{quote(alias)}"), [1, 2])
        self.assert_error(self.versions(target), 404, 40401)
        # In a context, an unqualified alias names a subject of that context
        # (QualifiedSubject.qualifySubjectWithParent).
        ctx_target, ctx_alias = f":.mdctx:{self.sub('t')}", f":.mdctx:{self.sub('a')}"
        self.register_ok(ctx_target, REC1)
        self.config(ctx_alias, {"alias": ctx_target.split(":", 2)[2]})
        self.assertEqual(self.assert_ok(self.version(ctx_alias, 1))["subject"], ctx_target)
        # Without the alias the subject is itself again.
        self.assert_ok(self.put(f"/config/{quote(alias)}", {"alias": None}))
        self.assert_error(self.versions(alias), 404, 40401)

    def test_compatibility_group_checks_only_the_same_group(self):
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD", "compatibilityGroup": "application.major.version"})
        v1 = avro_record("G", [("a", "string")])
        breaking = avro_record("G", [("z", "int")])
        self.register_ok(s, v1, metadata={"properties": {"application.major.version": "1"}})
        before = self.db.state()
        r = self.register(s, breaking, metadata={"properties": {"application.major.version": "1"}})
        self.assert_error(r, 409, 40901)
        self.assertEqual(self.db.state(), before)
        # The same break in another group (inherited metadata would be group 1: send group 2).
        self.register_ok(s, breaking, metadata={"properties": {"application.major.version": "2"}})
        # Without the property: the group of "absent", which no version is in here... after
        # inheritance from the latest (group 2), the check is against group 2 only.
        r = self.register(s, avro_record("G", [("y", "long")]))
        self.assert_error(r, 409, 40901)
        self.register_ok(s, avro_record("G", [("z", "int"), ("w", "string", "d")]))
        # The compatibility test endpoint uses the request's metadata as sent.
        body = {"schema": avro_record("G", [("q", "int")]),
                "metadata": {"properties": {"application.major.version": "3"}}}
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions", body),
                       {"is_compatible": True})
        body["metadata"] = {"properties": {"application.major.version": "1"}}
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions", body),
                       {"is_compatible": False})
        # Without the config key every version is checked.
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibilityGroup": None}))
        r = self.register(s, avro_record("G", [("k", "int")]),
                          metadata={"properties": {"application.major.version": "4"}})
        self.assert_error(r, 409, 40901)

    def test_compatibility_policy_stored_as_confluent_stores_it(self):
        s = self.sub()
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibilityPolicy": "lenient"}),
                       {"compatibilityPolicy": "LENIENT"})
        self.assertEqual(self.assert_ok(self.get(f"/config/{quote(s)}"))["compatibilityPolicy"], "LENIENT")
        # A name CompatibilityPolicy.forName does not know clears it.
        self.assert_ok(self.put(f"/config/{quote(s)}", {"compatibilityPolicy": "bogus"}), {})
        self.assertNotIn("compatibilityPolicy", self.assert_ok(self.get(f"/config/{quote(s)}")))

    def test_lenient_policy_widens_json_schema_compatible_changes(self):
        # An optional property added to an open content model: incompatible under STRICT
        # (SchemaDiff.COMPATIBLE_CHANGES_STRICT), compatible under LENIENT.
        old = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})
        new = json.dumps({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
        s = self.sub()
        self.config(s, {"compatibility": "BACKWARD"})
        self.register_ok(s, old, schema_type="JSON")
        r = self.register(s, new, schema_type="JSON")
        self.assert_error(r, 409, 40901)
        self.assertIn("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", r.body["message"])
        for policy in ("STRICT", "LOGICAL"):
            self.config(s, {"compatibilityPolicy": policy})
            self.assert_error(self.register(s, new, schema_type="JSON"), 409, 40901)
        self.config(s, {"compatibilityPolicy": "LENIENT"})
        body = {"schema": new, "schemaType": "JSON"}
        self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/latest", body),
                       {"is_compatible": True})
        self.register_ok(s, new, schema_type="JSON")
        # A global policy applies to subjects without their own.
        g = self.sub("g")
        self.register_ok(g, old, schema_type="JSON")
        self.config(None, {"compatibilityPolicy": "LENIENT"})
        self.addCleanup(lambda: self.put("/config", {"compatibilityPolicy": None}))
        self.register_ok(g, new, schema_type="JSON")

    def test_reserved_fields_under_validate_fields(self):
        """AbstractSchemaRegistry.validateReservedFields: with validateFields on, a
        confluent:reserved field may not be dropped from the metadata nor be a field."""
        s = self.sub()
        self.config(s, {"compatibility": "NONE", "validateFields": True})
        reserved = {"properties": {"confluent:reserved": " x , y,"}}
        self.register_ok(s, avro_record("R", [("a", "string")]), metadata=reserved)
        before = self.db.state()
        r = self.register(s, avro_record("R", [("b", "string")]), metadata={"properties": {"confluent:reserved": "y"}})
        self.assert_error(r, 409, 40901)
        self.assertIn("[The new schema has reserved field x removed from its metadata which is present in the "
                      "old schema's metadata., {validateFields: 'true', compatibility: 'NONE'}]", r.body["message"])
        r = self.register(s, avro_record("R", [("a", "string"), ("x", "string", "")]))  # inherits x, y
        self.assert_error(r, 409, 40901)
        self.assertIn("[The new schema has field that conflicts with the reserved field x., "
                      "{validateFields: 'true', compatibility: 'NONE'}]", r.body["message"])
        self.assertEqual(self.db.state(), before)
        # JSON Schema: top-level properties; Protobuf: fields of top-level messages.
        j = self.sub("json")
        self.config(j, {"validateFields": True})
        r = self.register(j, json.dumps({"type": "object", "properties": {"x": {"type": "string"}}}),
                          schema_type="JSON", metadata=reserved)
        self.assert_error(r, 409, 40901)
        p = self.sub("proto")
        self.config(p, {"validateFields": True})
        r = self.register(p, 'syntax = "proto3";\nmessage M {\n  string y = 1;\n}\n', schema_type="PROTOBUF",
                          metadata=reserved)
        self.assert_error(r, 409, 40901)
        self.assertIn("reserved field y", r.body["message"])
        # Without validateFields nothing is checked.
        self.config(s, {"validateFields": False})
        self.register_ok(s, avro_record("R", [("a", "string"), ("x", "string", "")]))

    def test_validate_rules_is_stored_and_does_nothing_without_rule_sets(self):
        s = self.sub()
        self.assert_ok(self.put(f"/config/{quote(s)}", {"validateRules": True}), {"validateRules": True})
        self.register_ok(s, REC1, ruleSet={"domainRules": [{"kind": "BOGUS"}]})
        self.assertEqual(self.assert_ok(self.get(f"/config/{quote(s)}"))["validateRules"], True)


class FastPath(harness.RegistryTestCase):
    """The one-statement registration (sr_register_append_many) stores the metadata too."""

    database_settings = ("track_functions = 'pl'",)

    def fast_calls(self):
        return int(self.db.value("SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions "
                                 "WHERE funcname = 'sr_register_append_many'"))

    def test_metadata_goes_through_the_one_statement(self):
        subjects = [self.sub() for _ in range(3)]
        for i, s in enumerate(subjects):
            self.register_ok(s, REC1, metadata={"properties": {"n": str(i)}})
            self.register_ok(s, REC2)  # inherited: the second statement carries it too
        deadline = time.monotonic() + 20
        while self.fast_calls() < 6 and time.monotonic() < deadline:
            time.sleep(0.25)
        self.assertEqual(self.fast_calls(), 6)
        for i, s in enumerate(subjects):
            for v in (1, 2):
                self.assertEqual(self.assert_ok(self.version(s, v))["metadata"], {"properties": {"n": str(i)}})
        rows = self.db.sql("SELECT metadata FROM schemas ORDER BY id")
        self.assertEqual([json.loads(r[0]) for r in rows],
                         [{"properties": {"n": str(i)}} for i in range(3) for _ in (1, 2)])



class TwoNodes(harness.TwoNodeTestCase):
    """Another node reads the metadata from the database (the id-miss fallback, the feed)."""

    def test_the_other_node_answers_the_metadata(self):
        s = self.sub()
        sid = self.register_ok(s, REC1, metadata=META)
        b = self.node_b.client()
        self.assertEqual(self.assert_ok(b.get(f"/schemas/ids/{sid}"))["metadata"], META_CANON)
        deadline = time.monotonic() + 10
        while b.get(f"/subjects/{quote(s)}/versions/1").status != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.assert_ok(b.get(f"/subjects/{quote(s)}/versions/1"))["metadata"], META_CANON)
        # Node B inherits it too, from what it loaded.
        r = b.post(f"/subjects/{quote(s)}/versions", {"schema": REC2})
        self.assert_ok(r)
        self.assertEqual(self.assert_ok(b.get(f"/subjects/{quote(s)}/versions/2"))["metadata"], META_CANON)
        self.assertEqual(json.loads(self.db.value(f"SELECT metadata FROM schemas WHERE id = {r.body['id']}")),
                         META_CANON)

if __name__ == "__main__":
    harness.main()

"""Inline schema tags, as Confluent's community server handles them (issue 13; docs/api.md, "Tags").

- POST /subjects/{s}/versions/{v}/tags (SubjectVersionsResource.modifyTags,
  AbstractSchemaRegistry.modifySchemaTags): the live version's schema with the
  TagSchemaRequest's tagsToAdd/tagsToRemove edited into its text
  (ParsedSchema.copy(tagsToAdd, tagsToRemove): AvroSchema with
  AvroSchemaUtils.findMatchingEntity, JsonSchema with JsonSchemaUtils.findMatchingEntity),
  registered as a new version with the request's metadata, else the version's, and
  confluent:version; the answer is RegisterSchemaResponse, as a registration's.
- ?findTags= on GET /subjects/{s}/versions/{v} and GET /schemas/ids/{id}
  (AbstractSchemaRegistry.extractSchemaTags): "schemaTags", the tagged entities
  (ParsedSchema.inlineTaggedEntities) carrying one of the tags, or all with "*".
Expected texts are those of Confluent's RestApiRegisterSchemaTagsTest.
"""

import json

import harness
from harness import quote

REC = '{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}]}'
TAGGED = ('{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}],'
          '"confluent:tags":["TAG1","TAG2"]}')
EXT = {"Confluent-Accept-Unknown-Properties": "true"}
# protobuf.RestApiTest.testRegisterSchemaTagsBasic's schema, and it with f1 tagged.
PROTO = 'syntax = "proto3";\npackage com.example;\n\nmessage Message1 {\n  string f1 = 1;\n  string f2 = 2;\n}\n'
PROTO_TAGGED = ('syntax = "proto3";\npackage com.example;\n\nmessage Message1 {{\n'
                '  string f1 = 1 [(confluent.field_meta) = {{\n    tags: [\n{tags}    ]\n  }}];\n'
                '  string f2 = 2;\n}}\n')


def entity(path, kind, tags):
    """One SchemaTags as Jackson renders it (SchemaTags, SchemaEntity: NON_EMPTY)."""
    return {"schemaEntity": {"entityPath": path, "entityType": kind}, "tags": tags}


class Tags(harness.RegistryTestCase):

    def tags(self, subject, version, body, **kw):
        return self.post(f"/subjects/{quote(subject)}/versions/{version}/tags", body, **kw)

    def latest(self, subject, find=None):
        params = [("findTags", t) for t in find] if find else None
        return self.assert_ok(self.get(f"/subjects/{quote(subject)}/versions/latest", params=params))

    def count_versions(self, subject):
        return self.db.value(
            f"SELECT count(*) FROM subject_versions WHERE subject = {harness.sql_literal(subject)}")

    def test_record_tags_added_then_removed(self):
        """RestApiRegisterSchemaTagsTest.testRegisterSchemaTagsDeprecated and
        ...WithoutNewVersionInputDeprecated: record tags after the fields, confluent:version
        set to the new version, with or without newVersion."""
        s = self.sub()
        first = self.register_ok(s, REC)
        r = self.tags(s, "latest", {"newVersion": 2, "tagsToAdd": [
            entity("myrecord", "sr_record", ["TAG1", "TAG2"])]})
        sid = self.assert_ok(r)["id"]
        self.assertEqual(r.body, {"id": sid})
        self.assertNotEqual(sid, first)
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], TAGGED)
        self.assertEqual(v["version"], 2)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "2"}})
        self.assertEqual(v["schemaTags"], [entity("myrecord", "sr_record", ["TAG1", "TAG2"])])

        r = self.tags(s, "latest", {"tagsToRemove": [entity("myrecord", "sr_record", ["TAG2"])]})
        third = self.assert_ok(r)["id"]
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], TAGGED.replace(',"TAG2"', ""))
        self.assertEqual(v["version"], 3)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "3"}})
        self.assertEqual(v["schemaTags"], [entity("myrecord", "sr_record", ["TAG1"])])
        # The same by id (SchemasResource.getSchema with findTags), and filtered by tag.
        by_id = self.assert_ok(self.get(f"/schemas/ids/{third}", params={"findTags": "TAG1"}))
        self.assertEqual(by_id["schemaTags"], [entity("myrecord", "sr_record", ["TAG1"])])
        self.assertNotIn("schemaTags", self.assert_ok(
            self.get(f"/schemas/ids/{third}", params={"findTags": "OTHER"})))
        # Without findTags the answer has no schemaTags.
        self.assertNotIn("schemaTags", self.latest(s))
        # The extended profile answers the whole RegisterSchemaResponse.
        r = self.tags(s, "1", {"tagsToAdd": [entity("myrecord.f1", "sr_field", ["PII"])]}, headers=EXT)
        body = self.assert_ok(r)
        self.assertEqual(body["version"], 4)
        self.assertEqual(body["schema"], REC.replace('"string"}', '"string","confluent:tags":["PII"]}'))

    def test_field_tags_and_find_filters(self):
        """testRegisterSchemaTagsBasic's last step: record and field tags, listed in
        inlineTaggedEntities' order, filtered by findTags (any of the tags)."""
        s = self.sub()
        self.register_ok(s, REC)
        r = self.tags(s, "1", {"tagsToAdd": [entity("myrecord", "sr_record", ["TAG1"]),
                                             entity(".myrecord.f1", "sr_field", ["TAG2"])]})
        sid = self.assert_ok(r)["id"]
        v = self.latest(s, ["TAG1", "TAG2"])
        self.assertEqual(v["schema"], '{"type":"record","name":"myrecord","fields":[{"name":"f1",'
                                      '"type":"string","confluent:tags":["TAG2"]}],'
                                      '"confluent:tags":["TAG1"]}')
        both = [entity("myrecord", "sr_record", ["TAG1"]), entity("myrecord.f1", "sr_field", ["TAG2"])]
        self.assertEqual(v["schemaTags"], both)
        self.assertEqual(self.latest(s, ["TAG2"])["schemaTags"], both[1:])
        r = self.get(f"/schemas/ids/{sid}", params=[("findTags", "TAG1"), ("findTags", "TAG2")])
        self.assertEqual(self.assert_ok(r)["schemaTags"], both)
        # An entity named twice (".x" and "x" are one SchemaEntity): tags merged, added, then removed.
        r = self.tags(s, "latest", {"tagsToAdd": [entity("myrecord.f1", "sr_field", ["A"]),
                                                  entity(".myrecord.f1", "sr_field", ["B"])],
                                    "tagsToRemove": [entity("myrecord.f1", "sr_field", ["TAG2", "B"])]})
        self.assert_ok(r)
        self.assertEqual(self.latest(s, ["*"])["schemaTags"],
                         [entity("myrecord", "sr_record", ["TAG1"]), entity("myrecord.f1", "sr_field", ["A"])])

    def test_metadata_of_the_request_or_the_version(self):
        """modifySchemaTags: request.getMetadata() if given, else the edited version's,
        with confluent:version (Metadata.setConfluentVersion); a ruleSet is dropped
        (RuleSetHandler.handle(Schema, TagSchemaRequest))."""
        s = self.sub()
        self.register_ok(s, REC, metadata={"properties": {"owner": "a"}})
        self.assert_ok(self.tags(s, "1", {"tagsToAdd": [entity("myrecord", "sr_record", ["T"])]}))
        self.assertEqual(self.latest(s)["metadata"], {"properties": {"confluent:version": "2", "owner": "a"}})
        self.assert_ok(self.tags(s, "2", {"tagsToAdd": [entity("myrecord", "sr_record", ["U"])],
                                          "metadata": {"properties": {"owner": "b"}},
                                          "ruleSet": {"domainRules": []}}))
        v = self.latest(s)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "3", "owner": "b"}})
        self.assertNotIn("ruleSet", v)

    def test_subject_in_a_context(self):
        """testRegisterSchemaTagsInDiffContextDeprecated: a qualified subject."""
        s = f":.tagctx:{self.sub()}"
        self.register_ok(s, REC)
        r = self.tags(s, "latest", {"newVersion": 2, "tagsToAdd": [
            entity("myrecord", "sr_record", ["TAG1", "TAG2"])]})
        self.assert_ok(r)
        v = self.latest(s)
        self.assertEqual((v["subject"], v["version"], v["schema"]), (s, 2, TAGGED))
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "2"}})

    def test_json_schema_field_tags(self):
        """JsonSchema.copy with JsonSchemaUtils.findMatchingEntity: "object.<property>"."""
        s = self.sub()
        schema = '{"type":"object","properties":{"name":{"type":"string"}}}'
        self.register_ok(s, schema, schema_type="JSON")
        r = self.tags(s, "1", {"tagsToAdd": [entity("object.name", "sr_field", ["PII"]),
                                             entity("object", "sr_record", ["R"])]})
        self.assert_ok(r)
        v = self.latest(s)
        self.assertEqual(v["schemaType"], "JSON")
        self.assertEqual(json.loads(v["schema"]), {
            "type": "object", "properties": {"name": {"type": "string", "confluent:tags": ["PII"]}},
            "confluent:tags": ["R"]})
        self.assertEqual(v["version"], 2)
        # JsonSchema.inlineTaggedEntities: the record, then its properties.
        v = self.latest(s, ["*"])
        self.assertEqual(v["schemaTags"], [entity("object", "sr_record", ["R"]),
                                           entity("object.name", "sr_field", ["PII"])])
        sid = v["id"]
        r = self.get(f"/schemas/ids/{sid}", params=[("findTags", "PII")])
        self.assertEqual(self.assert_ok(r)["schemaTags"], [entity("object.name", "sr_field", ["PII"])])

    def test_json_schema_tags_below_combinations(self):
        """JsonSchemaTest.testAddTags: entities below a oneOf, numbered in JsonSchemaComparator
        order (JsonSchemaUtils.findSubSchemasFromIndex, JsonSchema.inlineTaggedEntities): the
        object (OBJECT) before the string (STRING) written first. Added by POST .../tags,
        listed by findTags, removed again; a registration's schemaTagsToAdd with an index
        leading to the string is 42201 and registers nothing."""
        s = self.sub()
        schema = ('{"type":"object","properties":{"pay":{"oneOf":[{"type":"string"},'
                  '{"type":"object","title":"card","properties":{"number":{"type":"string"}}}]}}}')
        self.register_ok(s, schema, schema_type="JSON")
        entities = [entity("object.pay.oneof.0.object.number", "sr_field", ["PII"]),
                    entity("object.pay.oneof.0.object", "sr_record", ["CARD"])]
        self.assert_ok(self.tags(s, "1", {"tagsToAdd": entities}))
        v = self.latest(s, ["*"])
        self.assertEqual(json.loads(v["schema"]), {"type": "object", "properties": {"pay": {"oneOf": [
            {"type": "string"},
            {"type": "object", "title": "card",
             "properties": {"number": {"type": "string", "confluent:tags": ["PII"]}},
             "confluent:tags": ["CARD"]}]}}})
        self.assertEqual(v["version"], 2)
        self.assertEqual(v["schemaTags"], [entity("object.pay.oneof.0.object", "sr_record", ["CARD"]),
                                           entity("object.pay.oneof.0.object.number", "sr_field",
                                                  ["PII"])])
        r = self.get(f"/schemas/ids/{v['id']}", params=[("findTags", "PII")])
        self.assertEqual(self.assert_ok(r)["schemaTags"],
                         [entity("object.pay.oneof.0.object.number", "sr_field", ["PII"])])
        self.assert_ok(self.tags(s, "2", {"tagsToRemove": entities}))
        v = self.latest(s, ["*"])
        self.assertEqual((v["schema"], v["version"]), (schema, 3))
        self.assertNotIn("schemaTags", v)
        before = self.db.state()
        r = self.register(s, schema, schema_type="JSON", schemaTagsToAdd=[
            entity("object.pay.oneof.1.object.number", "sr_field", ["PII"])])
        self.assert_error(r, 422, 42201)
        self.assertEqual(r.body["message"], "java.lang.IllegalArgumentException: No matching path "
                                            "'object.pay.oneof.1.object.number' found in the schema")
        self.assertEqual(self.db.state(), before)

    def test_errors_change_nothing(self):
        """modifyTags' errors: 40401 / 40402 (getUsingContexts, hasSubjects), 42202
        (VersionId), 42201 for a path not in the schema (InvalidSchemaException wrapping
        the IllegalArgumentException of findMatchingEntity, message = its toString),
        42201 for a newVersion that is not the next one (register)."""
        s = self.sub()
        add = {"newVersion": 2, "tagsToAdd": [entity("myrecord", "sr_record", ["TAG1"])]}
        self.assert_error(self.tags("non-exist", "1", add), 404, 40401)
        self.register_ok(s, REC)
        self.assert_error(self.tags(s, "2", add), 404, 40402)
        self.assert_error(self.tags(s, "abc", add), 422, 42202)
        bad = {"newVersion": 2, "tagsToAdd": [entity("does.not.exist", "sr_field", ["TAG1"])]}
        r = self.tags(s, "1", bad)
        self.assert_error(r, 422, 42201)
        self.assertEqual(r.body["message"],
                         "java.lang.IllegalArgumentException: No matching path 'does.not.exist' found in the schema")
        r = self.tags(s, "1", {"tagsToAdd": [entity("f1", "sr_field", ["T"])]})
        self.assert_error(r, 422, 42201)
        self.assertEqual(r.body["message"], "java.lang.IllegalArgumentException: 0 > -1")
        r = self.tags(s, "1", dict(add, newVersion=1))
        self.assert_error(r, 422, 42201)
        self.assertEqual(r.body["message"], "Version is not one more than previous version")
        self.assertEqual(self.count_versions(s), "1")
        # Bodies Jackson would not read.
        self.assert_error(self.tags(s, "1", {"tagsToAdd": {}}), 400, 400)
        self.assert_error(self.tags(s, "1", {"tagsToAdd": [{"tags": ["x"]}]}), 400, 400)
        self.assert_error(self.tags(s, "1", {"tagsToAdd": [
            {"schemaEntity": {"entityPath": "myrecord", "entityType": "sr_other"}, "tags": []}]}), 400, 400)
        self.assert_error(self.tags(s, "1", {"newVersion": "2"}), 400, 400)
        self.assertEqual(self.count_versions(s), "1")

    def test_protobuf_field_tags(self):
        """protobuf.RestApiTest.testRegisterSchemaTagsBasicDeprecated: "Message1.f1" and
        ".Message1.f1" are one entity, the tags land in (confluent.field_meta), printed as
        Confluent's canonical printer prints them (ProtobufSchema.copy); then removed."""
        s = self.sub()
        self.register_ok(s, PROTO, schema_type="PROTOBUF")
        r = self.tags(s, "latest", {"tagsToAdd": [
            entity("Message1.f1", "sr_field", ["TAG1"]), entity(".Message1.f1", "sr_field", ["TAG2"])]})
        self.assert_ok(r)
        v = self.latest(s, ["TAG2"])
        self.assertEqual(v["schema"], PROTO_TAGGED.format(tags='      "TAG1",\n      "TAG2"\n'))
        self.assertEqual(v["schemaType"], "PROTOBUF")
        self.assertEqual(v["version"], 2)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "2"}})
        # ProtobufSchema.inlineTaggedEntities: message names from the top, no package.
        self.assertEqual(v["schemaTags"], [entity("Message1.f1", "sr_field", ["TAG1", "TAG2"])])
        r = self.tags(s, "latest", {"newVersion": 3, "tagsToRemove": [
            entity("Message1.f1", "sr_field", ["TAG2"])]})
        self.assert_ok(r)
        v = self.latest(s)
        self.assertEqual(v["schema"], PROTO_TAGGED.format(tags='      "TAG1"\n'))
        self.assertEqual(v["version"], 3)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "3"}})
        self.assertEqual(self.count_versions(s), "3")

    def test_protobuf_record_tags_and_bad_paths(self):
        """ProtobufSchemaTest.testBasicAddAndRemoveSchemaTags (records: option
        (confluent.message_meta)) and testInvalidPath (findMatchingElement's messages,
        42201, nothing registered)."""
        s = self.sub()
        self.register_ok(s, PROTO, schema_type="PROTOBUF")
        r = self.tags(s, "1", {"tagsToAdd": [entity(".Message1", "sr_record", ["PII"])]})
        self.assert_ok(r)
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], 'syntax = "proto3";\npackage com.example;\n\nmessage Message1 {\n'
                                      '  option (confluent.message_meta) = {\n    tags: [\n      "PII"\n'
                                      '    ]\n  };\n\n  string f1 = 1;\n  string f2 = 2;\n}\n')
        self.assertEqual(v["schemaTags"], [entity("Message1", "sr_record", ["PII"])])
        for path, kind, message in [
                ("com.example.Message1", "sr_record", "No matching Message with name 'com' found in the schema"),
                ("Message1.f3", "sr_field", "No matching Field with name 'f3' found in the schema"),
                ("Message1", "sr_field", "No matching Field with name 'Message1' found in the schema")]:
            r = self.tags(s, "latest", {"tagsToAdd": [entity(path, kind, ["X"])]})
            self.assert_error(r, 422, 42201)
            self.assertEqual(r.body["message"], "java.lang.IllegalArgumentException: " + message)
        self.assertEqual(self.count_versions(s), "2")


    def test_registration_tag_fields(self):
        """RestApiRegisterSchemaTagsTest.testRegisterSchemaTagsBasic: schemaTagsToAdd and
        schemaTagsToRemove on a registration edit the sent schema (toSchemaWithTags) and
        set confluent:version; propagateSchemaTags adds the latest version's inline tags
        to the new schema (maybePropagateSchemaTags)."""
        s = self.sub()
        self.register_ok(s, REC)
        r = self.register(s, REC, version=2, schemaTagsToAdd=[entity("myrecord", "sr_record", ["TAG1", "TAG2"])])
        self.assert_ok(r)
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], TAGGED)
        self.assertEqual(v["version"], 2)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "2"}})
        self.assertEqual(v["schemaTags"], [entity("myrecord", "sr_record", ["TAG1", "TAG2"])])
        tag1 = TAGGED.replace(',"TAG2"', "")
        r = self.register(s, TAGGED, version=3,
                          schemaTagsToRemove=[entity("myrecord", "sr_record", ["TAG2"])])
        self.assert_ok(r)
        v = self.latest(s, ["*"])
        self.assertEqual((v["schema"], v["version"]), (tag1, 3))
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "3"}})
        evolved = ('{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"},'
                   '{"name":"f2","type":"string","default":"hi"}]}')
        r = self.register(s, evolved, propagateSchemaTags=True)
        self.assert_ok(r)
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], evolved[:-1] + ',"confluent:tags":["TAG1"]}')
        self.assertEqual(v["version"], 4)
        self.assertEqual(v["schemaTags"], [entity("myrecord", "sr_record", ["TAG1"])])
        evolved = evolved.replace('"string"}', '"string","confluent:tags":["TAG2"]}', 1)
        r = self.register(s, evolved, propagateSchemaTags=True)
        self.assert_ok(r)
        v = self.latest(s, ["*"])
        self.assertEqual(v["schema"], evolved[:-1] + ',"confluent:tags":["TAG1"]}')
        self.assertEqual(v["version"], 5)
        self.assertEqual(v["schemaTags"], [entity("myrecord", "sr_record", ["TAG1"]),
                                           entity("myrecord.f1", "sr_field", ["TAG2"])])

    def test_registration_tag_fields_without_version(self):
        """RestApiRegisterSchemaTagsTest.testRegisterSchemaWithoutNewVersionInput and
        protobuf.RestApiTest.testRegisterSchemaTagsBasic: no version sent, confluent:version
        set all the same; a bad path is 42201 and registers nothing."""
        s = self.sub()
        self.register_ok(s, PROTO, schema_type="PROTOBUF")
        r = self.register(s, PROTO, schema_type="PROTOBUF", schemaTagsToAdd=[
            entity("Message1.f1", "sr_field", ["TAG1"]), entity(".Message1.f1", "sr_field", ["TAG2"])])
        self.assert_ok(r)
        v = self.latest(s)
        self.assertEqual(v["schema"], PROTO_TAGGED.format(tags='      "TAG1",\n      "TAG2"\n'))
        self.assertEqual(v["version"], 2)
        self.assertEqual(v["metadata"], {"properties": {"confluent:version": "2"}})
        r = self.register(s, PROTO, schema_type="PROTOBUF", schemaTagsToAdd=[entity("Message1.f9", "sr_field", ["X"])])
        self.assert_error(r, 422, 42201)
        self.assertEqual(r.body["message"], "java.lang.IllegalArgumentException: "
                                            "No matching Field with name 'f9' found in the schema")
        r = self.register(s, PROTO, schema_type="PROTOBUF", propagateSchemaTags="yes")
        self.assert_error(r, 400, 400)
        # A schema that does not parse fails as its registration would (parseSchema before copy).
        bad = 'syntax = "proto3";\nmessage Message1 {\n  string f1 = ;\n}\n'
        plain = self.register(s, bad, schema_type="PROTOBUF")
        self.assert_error(plain, 422, 42201)
        r = self.register(s, bad, schema_type="PROTOBUF", schemaTagsToAdd=[entity("Message1.f1", "sr_field", ["X"])])
        self.assertEqual((r.status, r.body), (plain.status, plain.body))
        self.assertEqual(self.count_versions(s), "2")

if __name__ == "__main__":
    harness.main()

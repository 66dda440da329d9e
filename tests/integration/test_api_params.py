"""Operations and query parameters Confluent's API has that an earlier build
missed or ignored: GET /v1/metadata/deployment, GET /schemas with aliases,
ruleType and the association filters, deletedAsNegative
(tests/integration/api_operations.json lists every parameter)."""

import harness
from harness import quote


class Deployment(harness.RegistryTestCase):

    def test_community_deployment_has_no_attributes(self):
        # ServerMetadataResource.getSchemaRegistryDeployment: Props finds no
        # deployment attributes in a community server's properties.
        self.assert_ok(self.get("/v1/metadata/deployment"), {"attributes": []})


class SchemasListing(harness.RegistryTestCase):
    """SchemasResource.getSchemas and AbstractSchemaRegistry's
    allVersionsIncludingAliasesWithSubjectPrefix."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        c = cls.server.client()
        for subject, schema in (("tgt", '"string"'), ("tgt", '["string","null"]'), ("other", '"int"')):
            assert c.post(f"/subjects/{subject}/versions", {"schema": schema}).status == 200
        # a-alias and b-alias are aliases of tgt; c-alias of a subject without versions
        for alias, target in (("b-alias", "tgt"), ("a-alias", "tgt"), ("c-alias", "nothing")):
            assert c.put(f"/config/{alias}", {"alias": target}).status == 200

    @staticmethod
    def rows(body):
        return [(s["subject"], s["version"], s.get("aliases")) for s in body]

    def test_without_aliases_no_alias_field(self):
        body = self.assert_ok(self.get("/schemas"))
        self.assertEqual(self.rows(body), [("other", 1, None), ("tgt", 1, None), ("tgt", 2, None)])

    def test_aliases_name_the_alias_subjects_on_the_target(self):
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true"}))
        self.assertEqual(self.rows(body), [("other", 1, None), ("tgt", 1, ["a-alias", "b-alias"]),
                                           ("tgt", 2, ["a-alias", "b-alias"])])

    def test_aliases_under_a_prefix_bring_their_target(self):
        # The prefix selects the alias configs; their target's versions come
        # along although "tgt" does not start with "a-".
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true", "subjectPrefix": "a-"}))
        self.assertEqual(self.rows(body), [("tgt", 1, ["a-alias"]), ("tgt", 2, ["a-alias"])])
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true", "subjectPrefix": "a-",
                                                            "latestOnly": "true"}))
        self.assertEqual(self.rows(body), [("tgt", 2, ["a-alias"])])
        self.assert_ok(self.get("/schemas", params={"aliases": "false", "subjectPrefix": "a-"}), [])

    def test_an_alias_is_in_its_config_subject_context(self):
        # getAliases qualifies the alias with the config's subject as parent
        # (QualifiedSubject.qualifySubjectWithParent): "tgt" named from
        # :.ctx:alias is :.ctx:tgt, not the default context's tgt.
        self.register_ok(":.ctx:tgt", '"long"')
        self.assert_ok(self.put("/config/:.ctx:alias", {"alias": "tgt"}))
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true", "subjectPrefix": ":.ctx:"}))
        self.assertEqual(self.rows(body), [(":.ctx:tgt", 1, [":.ctx:alias"])])
        # The default context's tgt is not its target (and the prefix "" selects
        # only the default context's configs: a-alias and b-alias).
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true", "subjectPrefix": ""}))
        self.assertEqual(self.rows(body), [("other", 1, None), ("tgt", 1, ["a-alias", "b-alias"]),
                                           ("tgt", 2, ["a-alias", "b-alias"])])
        self.assert_ok(self.delete_subject(":.ctx:tgt"))
        self.assert_ok(self.delete_subject(":.ctx:tgt", permanent=True))
        self.assert_ok(self.delete("/config/:.ctx:alias"))

    def test_rule_type_matches_nothing_without_rule_sets(self):
        # No version has a rule set (RuleSetHandler drops them), so a ruleType
        # filter keeps none; an empty one filters nothing.
        self.assert_ok(self.get("/schemas", params={"ruleType": "DOMAIN"}), [])
        self.assertEqual(len(self.assert_ok(self.get("/schemas", params={"ruleType": ""}))), 3)

    def test_association_filters_without_associations(self):
        # No association is stored here: only lifecycle NONE ("not associated") keeps versions
        # (with associations: test_associations.py).
        self.assert_ok(self.get("/schemas", params={"resourceType": "topic"}), [])
        self.assert_ok(self.get("/schemas", params={"associationType": "value"}), [])
        self.assert_ok(self.get("/schemas", params={"lifecycle": "STRONG"}), [])
        self.assertEqual(len(self.assert_ok(self.get("/schemas", params={"lifecycle": "NONE"}))), 3)
        self.assertEqual(len(self.assert_ok(self.get("/schemas?lifecycle=WEAK&lifecycle=NONE"))), 3)
        self.assert_error(self.get("/schemas", params={"lifecycle": "none"}), 404, 404)

    def test_paging_after_filters(self):
        body = self.assert_ok(self.get("/schemas", params={"aliases": "true", "offset": "1", "limit": "1"}))
        self.assertEqual(self.rows(body), [("tgt", 1, ["a-alias", "b-alias"])])


class DeletedAsNegative(harness.RegistryTestCase):

    def test_soft_deleted_versions_are_negative(self):
        # SubjectVersionsResource.listVersions, LookupFilter.DELETED_AS_NEGATIVE.
        s = self.sub()
        for schema in ('"string"', '["string","null"]', '["string","null","int"]'):
            self.register_ok(s, schema)
        self.assert_ok(self.delete_version(s, 2), 2)
        self.assert_ok(self.versions(s, params={"deletedAsNegative": "true"}), [1, -2, 3])
        self.assert_ok(self.versions(s), [1, 3])

    def test_only_deleted_versions_is_subject_not_found(self):
        # hasSubjects looks at deleted ones only for deleted/deletedOnly.
        s = self.sub()
        self.register_ok(s, '"string"')
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_error(self.versions(s, params={"deletedAsNegative": "true"}), 404, 40401)
        self.assert_ok(self.versions(s, params={"deletedAsNegative": "true", "deleted": "true"}), [-1])


class FormatLogical(harness.RegistryTestCase):
    """?format=logical on SubjectVersionsResource (LogicalFormat): Confluent
    converts a registration's logical-type DDL to the native schemaType, and
    answers a version's schema as DDL. Without logical types here, each is an
    explicit 42201 (LogicalFormat's InvalidSchemaException), never the native
    schema as if converted, and nothing is stored."""

    def test_registration_is_refused_as_convertToNative_refuses_it(self):
        s = self.sub()
        before = self.db.state()
        cases = [
            ({"schema": "ROW<a INT>"}, "schemaType is required when format=logical, and must be one of "
                                       "AVRO, JSON, PROTOBUF"),
            ({"schema": "ROW<a INT>", "schemaType": " "}, "schemaType is required when format=logical, "
                                                          "and must be one of AVRO, JSON, PROTOBUF"),
            ({"schema": " ", "schemaType": "AVRO"}, "Schema is required when format=logical"),
            ({"schemaType": "AVRO"}, "Schema is required when format=logical"),
            ({"schema": '"string"', "schemaType": "AVRO"},
             "format=logical is not supported by this registry: register the schema in its native format"),
        ]
        for body, message in cases:
            for fmt in ("logical", "LOGICAL"):
                with self.subTest(body=body, format=fmt):
                    r = self.post(f"/subjects/{quote(s)}/versions", body, params={"format": fmt})
                    self.assertEqual((r.status, r.body), (422, {"error_code": 42201, "message": message}), r)
        self.assertEqual(self.db.state(), before)
        # The subject name is checked before.
        self.assert_error(self.post("/subjects/__GLOBAL/versions", {"schema": '"string"'},
                                    params={"format": "logical"}), 422, 42208)
        # Other formats leave a registration as it is (formattedString of the stored schema).
        self.assert_ok(self.post(f"/subjects/{quote(s)}/versions", {"schema": '"string"'},
                                 params={"format": "resolved"}), {"id": 1})

    def test_reading_a_version_as_logical_is_refused(self):
        s = self.sub()
        i = self.register_ok(s, '"string"')
        message = ("Stored schema cannot be represented as a logical type: format=logical is not "
                   "supported by this registry")
        for path in (f"/subjects/{quote(s)}/versions/1", f"/subjects/{quote(s)}/versions/latest/schema"):
            with self.subTest(path=path):
                r = self.get(path, params={"format": "Logical"})
                self.assertEqual((r.status, r.body), (422, {"error_code": 42201, "message": message}), r)
        # A missing version is still 40402 first, a missing subject 40401.
        self.assert_error(self.get(f"/subjects/{quote(s)}/versions/2", params={"format": "logical"}), 404, 40402)
        self.assert_error(self.get("/subjects/none-such/versions/1", params={"format": "logical"}), 404, 40401)
        # SchemasResource has no logical format: an unknown format is the stored schema.
        self.assert_ok(self.get(f"/schemas/ids/{i}", params={"format": "logical"}), {"schema": '"string"'})


if __name__ == "__main__":
    harness.main()

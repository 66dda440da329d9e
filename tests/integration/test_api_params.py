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
        # No association is stored: only lifecycle NONE ("not associated") keeps versions.
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


if __name__ == "__main__":
    harness.main()

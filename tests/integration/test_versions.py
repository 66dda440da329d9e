"""Subject versions: listing, fetching, version strings, the raw schema
endpoint (docs/api.md)."""

import json

import harness
from harness import avro_record, quote


def rec(n):
    return avro_record("Ver", [(f"f{i}", "string", "") for i in range(n)])


class Versions(harness.RegistryTestCase):

    def subject_with(self, n):
        s = self.sub()
        ids = [self.register_ok(s, rec(i)) for i in range(1, n + 1)]
        return s, ids

    def test_list_versions(self):
        s, _ = self.subject_with(3)
        self.assert_ok(self.versions(s), [1, 2, 3])

    def test_list_versions_of_unknown_subject_is_40401(self):
        s = self.sub()
        self.assert_error(self.versions(s), 404, 40401)
        self.assert_error(self.versions(s, {"deleted": "true"}), 404, 40401)

    def test_get_version_classic_fields(self):
        s, ids = self.subject_with(2)
        body = self.assert_ok(self.version(s, 2))
        self.assertEqual(set(body), {"subject", "version", "id", "schema"})
        self.assertEqual((body["subject"], body["version"], body["id"]), (s, 2, ids[1]))
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(2)))

    def test_get_version_extended_fields(self):
        s, ids = self.subject_with(1)
        r = self.version(s, 1)
        ext = self.get(f"/subjects/{quote(s)}/versions/1",
                       headers={"Confluent-Accept-Unknown-Properties": "true"})
        body = self.assert_ok(ext)
        self.assertEqual(body["schemaType"], "AVRO")
        self.assertIs(body["deleted"], False)
        self.assertIsInstance(body["ts"], int)
        if "guid" in body:                       # GUIDs are Tier 2
            self.assertRegex(body["guid"], r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        for key in ("subject", "version", "id", "schema"):
            self.assertEqual(body[key], r.body[key])

    def test_latest_and_minus_one(self):
        s, ids = self.subject_with(3)
        for v in ("latest", "-1", "LATEST", "Latest"):
            with self.subTest(version=v):
                body = self.assert_ok(self.version(s, v))
                self.assertEqual((body["version"], body["id"]), (3, ids[2]))

    def test_tolerated_number_forms(self):
        s, ids = self.subject_with(2)
        for v in ("02", "0002", "%202", "2%20", "%202%20"):
            with self.subTest(version=v):
                body = self.assert_ok(self.version(s, v))
                self.assertEqual(body["version"], 2)

    def test_invalid_version_strings_are_42202(self):
        s, _ = self.subject_with(1)
        bad = ["0", "-2", "-10", "2147483648", "99999999999999999999", "abc", "1.0", "1e3",
               "0x1", "latest1", "--1", "1abc", "1%202"]
        for v in bad:
            with self.subTest(version=v):
                self.assert_error(self.version(s, v), 422, 42202)
                self.assert_error(self.get(f"/subjects/{quote(s)}/versions/{v}/schema"), 422, 42202)

    def test_invalid_version_wins_over_unknown_subject(self):
        s = self.sub()
        for v in ("0", "abc", "-2"):
            with self.subTest(version=v):
                self.assert_error(self.version(s, v), 422, 42202)

    def test_missing_versions(self):
        s, _ = self.subject_with(2)
        for v in ("3", "99", "2147483647"):
            with self.subTest(version=v):
                self.assert_error(self.version(s, v), 404, 40402)
        unknown = self.sub("unknown")
        for v in ("1", "latest", "-1"):
            with self.subTest(subject="unknown", version=v):
                self.assert_error(self.version(unknown, v), 404, 40401)

    def test_raw_schema_endpoint(self):
        s, _ = self.subject_with(2)
        for v in ("1", "2", "latest"):
            with self.subTest(version=v):
                stored = self.assert_ok(self.version(s, v))["schema"]
                raw = self.get(f"/subjects/{quote(s)}/versions/{v}/schema")
                self.assertEqual(raw.status, 200, raw)
                self.assertEqual(raw.text, stored)      # not JSON-quoted
        self.assert_error(self.get(f"/subjects/{quote(s)}/versions/7/schema"), 404, 40402)
        self.assert_error(self.get(f"/subjects/{quote(self.sub())}/versions/1/schema"), 404, 40401)

    def test_raw_schema_of_a_primitive(self):
        s = self.sub()
        self.register_ok(s, '{"type": "string"}')
        raw = self.get(f"/subjects/{quote(s)}/versions/1/schema")
        self.assertEqual(raw.status, 200, raw)
        self.assertEqual(raw.text, '"string"')

    def test_soft_deleted_version_needs_deleted_true(self):
        s, ids = self.subject_with(3)
        self.assertEqual(self.assert_ok(self.delete_version(s, 2)), 2)
        self.assert_error(self.version(s, 2), 404, 40402)
        self.assert_error(self.version(s, 2, {"deleted": "false"}), 404, 40402)
        body = self.assert_ok(self.version(s, 2, {"deleted": "true"}))
        self.assertEqual((body["version"], body["id"]), (2, ids[1]))
        raw = self.get(f"/subjects/{quote(s)}/versions/2/schema", params={"deleted": "true"})
        self.assertEqual(raw.text, body["schema"])
        self.assert_error(self.get(f"/subjects/{quote(s)}/versions/2/schema"), 404, 40402)

    def test_latest_skips_soft_deleted_versions(self):
        s, ids = self.subject_with(3)
        self.assertEqual(self.assert_ok(self.delete_version(s, 3)), 3)
        self.assertEqual(self.assert_ok(self.version(s, "latest"))["version"], 2)
        # Latest means the highest live version even with deleted=true.
        self.assertEqual(self.assert_ok(self.version(s, "latest", {"deleted": "true"}))["version"], 2)
        self.assertEqual(self.assert_ok(self.version(s, "-1"))["id"], ids[1])

    def test_listing_flags(self):
        s, _ = self.subject_with(3)
        self.assert_ok(self.delete_version(s, 2))
        self.assert_ok(self.versions(s), [1, 3])
        self.assert_ok(self.versions(s, {"deleted": "true"}), [1, 2, 3])
        self.assert_ok(self.versions(s, {"deleted": "TRUE"}), [1, 2, 3])
        self.assert_ok(self.versions(s, {"deleted": "yes"}), [1, 3])
        self.assert_ok(self.versions(s, {"deleted": ""}), [1, 3])
        self.assert_ok(self.versions(s, {"deletedOnly": "true"}), [2])
        self.assert_ok(self.versions(s, {"deleted": "true", "deletedOnly": "true"}), [2])
        self.assert_ok(self.versions(s, {"deletedAsNegative": "true"}), [1, -2, 3])
        self.assert_ok(self.versions(s, {"deletedAsNegative": "true", "deletedOnly": "true"}),
                       [1, -2, 3])

    def test_all_versions_soft_deleted(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_subject(s), [1, 2])
        self.assert_error(self.versions(s), 404, 40401)
        self.assert_ok(self.versions(s, {"deleted": "true"}), [1, 2])
        self.assert_ok(self.versions(s, {"deletedOnly": "true"}), [1, 2])
        # deletedAsNegative alone does not widen the existence check [Ref].
        self.assert_error(self.versions(s, {"deletedAsNegative": "true"}), 404, 40401)
        self.assert_ok(self.versions(s, {"deletedAsNegative": "true", "deleted": "true"}), [-1, -2])
        self.assert_error(self.version(s, 1), 404, 40401)
        self.assert_error(self.version(s, "latest"), 404, 40401)
        self.assertEqual(self.assert_ok(self.version(s, 1, {"deleted": "true"}))["version"], 1)
        self.assert_error(self.version(s, "latest", {"deleted": "true"}), 404, 40402)

    def test_repeated_parameter_first_wins(self):
        s, _ = self.subject_with(2)
        self.assert_ok(self.delete_version(s, 1))
        self.assert_ok(self.get(f"/subjects/{quote(s)}/versions?deleted=true&deleted=false"), [1, 2])
        self.assert_ok(self.get(f"/subjects/{quote(s)}/versions?deleted=false&deleted=true"), [2])

    def test_unknown_query_parameters_are_ignored(self):
        s, _ = self.subject_with(1)
        self.assert_ok(self.versions(s, {"whatever": "1", "format": "x"}), [1])


if __name__ == "__main__":
    harness.main()

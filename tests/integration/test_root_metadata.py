"""Root, server metadata, schema types, routing, media types, path decoding
(docs/api.md)."""

import json

import harness
from harness import JAVA_DEFAULT_ACCEPT, SR_V1, avro_record, quote

SR = "application/vnd.schemaregistry+json"
JSON = "application/json"


def media_type(resp):
    return resp.headers.get("Content-Type", "").split(";")[0].strip().lower()


class RootAndMetadata(harness.RegistryTestCase):

    def test_get_root_is_empty_object(self):
        self.assert_ok(self.get("/"), {})

    def test_post_root_ignores_body(self):
        self.assert_ok(self.post("/", {"anything": [1, 2, 3]}), {})

    def test_metadata_id(self):
        body = self.assert_ok(self.get("/v1/metadata/id"))
        self.assertLessEqual(set(body), {"scope", "id"})
        if "id" in body:
            self.assertEqual(body["id"], "")
        self.assertEqual(body["scope"]["path"], [])
        clusters = body["scope"]["clusters"]
        self.assertEqual(set(clusters), {"kafka-cluster", "schema-registry-cluster"})
        self.assertIsInstance(clusters["kafka-cluster"], str)
        self.assertNotEqual(clusters["kafka-cluster"], "")
        self.assertEqual(clusters["schema-registry-cluster"], "schema-registry")

    def test_metadata_id_is_stable(self):
        first = self.assert_ok(self.get("/v1/metadata/id"))
        self.assertEqual(self.assert_ok(self.get("/v1/metadata/id")), first)

    def test_metadata_version(self):
        body = self.assert_ok(self.get("/v1/metadata/version"))
        self.assertEqual(set(body), {"version", "commitId"})
        self.assertIsInstance(body["version"], str)
        self.assertNotEqual(body["version"], "")
        self.assertIsInstance(body["commitId"], str)

    def test_schema_types(self):
        body = self.assert_ok(self.get("/schemas/types"))
        self.assertEqual(sorted(body), ["AVRO", "JSON", "PROTOBUF"])


class Routing(harness.RegistryTestCase):

    def test_unknown_routes_are_404(self):
        for path in ("/nope", "/subjects/a/versions/1/nope", "/schemas/ids/1/nope/more",
                     "/v1/metadata", "/v2/metadata/id"):
            with self.subTest(path=path):
                self.assert_error(self.get(path), 404, 404)

    def test_wrong_method_is_405(self):
        cases = [("DELETE", "/schemas/types"), ("PUT", "/subjects"), ("POST", "/subjects"),
                 ("PUT", "/schemas/ids/1"), ("POST", "/v1/metadata/version"),
                 ("PUT", "/subjects/x/versions")]
        for method, path in cases:
            with self.subTest(method=method, path=path):
                self.assert_error(self.http.request(method, path, body={}), 405, 405)

    def test_tier3_routes_answer_like_unknown_routes(self):
        topic = self.sub("topic")
        cases = [
            ("GET", "/dek-registry/v1/keys"),
            ("GET", "/exporters"),
        ]
        for method, path in cases:
            with self.subTest(method=method, path=path):
                self.assert_error(self.http.request(method, path, body={} if method == "POST"
                                                    else None), 404, 404)
        # Routed now (docs/api.md, "Associations"): a resource without associations lists none.
        for path in (f"/associations/resources/-/{topic}?resourceType=topic&associationType=value",
                     f"/associations/resources/lkc-1/{topic}?resourceType=topic&associationType=key"):
            r = self.get(path)
            self.assertEqual((r.status, r.body), (200, []), path)
        # Routed now (docs/api.md, "Associations"): an empty body is refused by validate
        # (createOrUpdateAssociation), a batchGet without requests likewise; the colon in
        # "associations:batchGet" is part of its one path segment.
        self.assert_error(self.put(f"/associations/resources/{topic}", {}), 422, 42212)
        self.assert_error(self.post("/associations:batchGet", {}), 422, 42212)
        self.assert_error(self.post("/associations:batchMutate", {}), 422, 42212)
        self.assert_error(self.post("/associations:batchget", {}), 404, 404)
        self.assert_error(self.post("/associations:batchGet/x", {}), 404, 404)
        self.assert_error(self.get("/associations:batchGet"), 405, 405)
        # Routed now (docs/api.md, "Tags"): the subject is what is not found.
        self.assert_error(self.post(f"/subjects/{topic}/versions/1/tags", {}), 404, 40401)
        # Context paths are rewritten as Confluent's ContextFilter does (docs/api.md,
        # "Contexts"; test_contexts.py): what answers is the route they name.
        r = self.get("/contexts/.staging/subjects")
        self.assertEqual((r.status, r.body), (200, []))
        self.assert_error(self.get("/contexts/.staging/config"), 404, 40408)
        self.assert_error(self.get("/contexts/.staging/schemas/ids/1"), 404, 40403)

    def test_trailing_slash_is_ignored(self):
        s = self.sub()
        self.register_ok(s, '"string"')
        self.assertIn(s, self.assert_ok(self.get("/subjects/")))
        self.assertIn("AVRO", self.assert_ok(self.get("/schemas/types/")))
        self.assert_ok(self.get(f"/subjects/{quote(s)}/versions/"), [1])
        self.assertEqual(self.assert_ok(self.get(f"/subjects/{quote(s)}/versions/1/"))["version"], 1)
        self.assertIn("compatibilityLevel", self.assert_ok(self.get("/config/")))
        # The Java client really sends this form (docs/api.md).
        r = self.post(f"/compatibility/subjects/{quote(s)}/versions/",
                      {"schema": '"string"'}, params={"normalize": "false", "verbose": "false"})
        self.assert_ok(r, {"is_compatible": True})

    def test_percent_encoded_slash_in_subject(self):
        s = f"com/acme/{self.sub()}.proto"
        encoded = quote(s)
        self.assertIn("%2F", encoded)
        schema_id = self.register_ok(s, '"string"')
        self.assertIn(s, self.subjects())
        body = self.assert_ok(self.version(s, 1))
        self.assertEqual(body["subject"], s)
        self.assertEqual(body["id"], schema_id)
        self.assertEqual(self.db.count("subject_versions", f"subject = {harness.sql_literal(s)}"), 1)

    def test_plus_in_path_is_literal(self):
        s = self.sub("a+b")
        self.assertIn("+", s)
        # Sent raw: '+' must not become a space in a path segment.
        r = self.post(f"/subjects/{s}/versions", {"schema": '"string"'})
        self.assertEqual(r.status, 200, r)
        subjects = self.subjects()
        self.assertIn(s, subjects)
        self.assertNotIn(s.replace("+", " "), subjects)
        # %2B names the same subject.
        self.assert_ok(self.get(f"/subjects/{quote(s)}/versions"), [1])

    def test_percent_decoding_is_per_segment(self):
        s = self.sub("seg")
        self.register_ok(s + "/versions", '"string"')
        # The subject "<s>/versions" is not the subject "<s>".
        self.assert_error(self.versions(s), 404, 40401)
        self.assert_ok(self.versions(s + "/versions"), [1])


class MediaTypes(harness.RegistryTestCase):

    def test_accepted_request_content_types(self):
        for ctype in (SR_V1, SR, JSON, "application/octet-stream", "application/json; charset=utf-8",
                      None):
            with self.subTest(content_type=ctype):
                s = self.sub("ct")
                r = self.post(f"/subjects/{quote(s)}/versions", {"schema": '"string"'},
                              headers={"Content-Type": ctype})
                self.assertEqual(r.status, 200, r)
                self.assertIsInstance(r.body["id"], int)

    def test_unsupported_request_content_type_is_415(self):
        for ctype in ("text/plain", "application/xml", "application/x-www-form-urlencoded"):
            with self.subTest(content_type=ctype):
                s = self.sub("ct415")
                before = self.db.state()
                r = self.post(f"/subjects/{quote(s)}/versions", {"schema": '"string"'},
                              headers={"Content-Type": ctype})
                self.assert_error(r, 415, 415)
                self.assertNotIn(s, self.subjects({"deleted": "true"}))
                self.assertEqual(self.db.state(), before)

    def test_unsupported_content_type_on_put_config_is_415(self):
        s = self.sub()
        r = self.put(f"/config/{quote(s)}", {"compatibility": "NONE"},
                     headers={"Content-Type": "text/plain"})
        self.assert_error(r, 415, 415)
        self.assert_error(self.get(f"/config/{quote(s)}"), 404, 40408)

    def test_response_type_negotiation(self):
        cases = [
            (None, SR_V1),
            ("*/*", SR_V1),
            ("application/*", SR_V1),
            (JAVA_DEFAULT_ACCEPT, SR_V1),
            (SR_V1, SR_V1),
            (SR, SR),
            (JSON, JSON),
            (f"{JSON}, {SR}", SR),
            (f"{SR_V1}, {SR}, {JSON}", SR_V1),       # confluent-kafka-python
            (f"text/html, {JSON}; q=0.5", JSON),
        ]
        for accept, expected in cases:
            with self.subTest(accept=accept):
                r = self.get("/schemas/types", headers={"Accept": accept})
                self.assertEqual(r.status, 200, r)
                self.assertEqual(media_type(r), expected)

    def test_error_responses_are_negotiated_json_too(self):
        r = self.get("/subjects/" + quote(self.sub()) + "/versions",
                     headers={"Accept": JSON})
        self.assert_error(r, 404, 40401)
        self.assertEqual(media_type(r), JSON)

    def test_unacceptable_accept_is_406(self):
        for accept in ("text/html", "image/png", "application/xml", "text/*"):
            with self.subTest(accept=accept):
                r = self.get("/schemas/types", headers={"Accept": accept})
                self.assertEqual(r.status, 406, r)
                # Whatever type it is labelled with, the body is the Confluent error.
                body = json.loads(r.text)
                self.assertEqual(set(body), {"error_code", "message"})
                self.assertEqual(body["error_code"], 406)

    def test_raw_schema_endpoint_keeps_json_content_type(self):
        s = self.sub()
        self.register_ok(s, avro_record("Raw", [("a", "string")]))
        r = self.get(f"/subjects/{quote(s)}/versions/1/schema")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(media_type(r), SR_V1)


if __name__ == "__main__":
    harness.main()

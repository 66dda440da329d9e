"""HTTP/2: h2c with prior knowledge, and TLS with ALPN offering h2 or
http/1.1 (docs/architecture.md; dependencies.md 1). Driven by the curl CLI."""

import json

import harness
from harness import avro_record, curl, quote

MAX_SCHEMA = 1024


class H2c(harness.RegistryTestCase):

    server_args = ("--max-schema-bytes", str(MAX_SCHEMA))

    def url(self, path):
        return self.server.base_url + path

    def test_get_root(self):
        r = curl(self.url("/"), mode="h2c")
        self.assertEqual((r.status, r.http_version, r.body), (200, "2", {}))

    def test_register_and_read_back(self):
        s = self.sub()
        schema = avro_record("H2", [("a", "string")])
        r = curl(self.url(f"/subjects/{quote(s)}/versions"), "POST", {"schema": schema}, mode="h2c")
        self.assertEqual((r.status, r.http_version), (200, "2"), r)
        schema_id = r.body["id"]
        got = curl(self.url(f"/schemas/ids/{schema_id}"), mode="h2c")
        self.assertEqual(got.status, 200, got)
        self.assertEqual(json.loads(got.body["schema"]), json.loads(schema))
        latest = curl(self.url(f"/subjects/{quote(s)}/versions/latest"), mode="h2c")
        self.assertEqual((latest.body["id"], latest.body["version"]), (schema_id, 1))
        # Same answer over HTTP/1.1 on the same port.
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}")), got.body)

    def test_errors_over_h2(self):
        r = curl(self.url("/subjects/" + quote(self.sub()) + "/versions"), mode="h2c")
        self.assertEqual((r.status, r.http_version), (404, "2"), r)
        self.assertEqual(r.body["error_code"], 40401)
        r = curl(self.url("/nope"), mode="h2c")
        self.assertEqual((r.status, r.body["error_code"]), (404, 404))

    def test_oversized_body_is_a_json_413_over_h2(self):
        s = self.sub()
        body = json.dumps({"schema": '"string"', "pad": "p" * (9 * MAX_SCHEMA)})
        r = curl(self.url(f"/subjects/{quote(s)}/versions"), "POST", body, mode="h2c")
        self.assertEqual((r.status, r.http_version), (413, "2"), r)
        self.assertEqual(set(r.body), {"error_code", "message"})
        self.assertEqual(r.body["error_code"], 413)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_plain_http11_still_works(self):
        r = curl(self.url("/schemas/types"), mode="http1.1")
        self.assertEqual((r.status, r.http_version), (200, "1.1"), r)
        self.assertIn("AVRO", r.body)


class Tls(harness.RegistryTestCase):

    @classmethod
    def setUpClass(cls):
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        certs = harness.make_temp_dir("certs")
        cls.server = harness.Server(database_url=cls.db.url, name="tls",
                                    tls=harness.make_self_signed_cert(certs))
        cls.server.start()

    def url(self, path):
        self.assertTrue(self.server.base_url.startswith("https://"))
        return self.server.base_url + path

    def test_alpn_h2(self):
        r = curl(self.url("/"), mode="h2")
        self.assertEqual((r.status, r.http_version, r.body), (200, "2", {}))

    def test_alpn_http11(self):
        r = curl(self.url("/"), mode="http1.1")
        self.assertEqual((r.status, r.http_version, r.body), (200, "1.1", {}))

    def test_register_over_tls_both_protocols(self):
        s = self.sub()
        schema = avro_record("Tls", [("a", "string")])
        r2 = curl(self.url(f"/subjects/{quote(s)}/versions"), "POST", {"schema": schema}, mode="h2")
        self.assertEqual((r2.status, r2.http_version), (200, "2"), r2)
        r1 = curl(self.url(f"/subjects/{quote(s)}/versions"), "POST", {"schema": schema},
                  mode="http1.1")
        self.assertEqual((r1.status, r1.http_version), (200, "1.1"), r1)
        self.assertEqual(r1.body, r2.body)
        # And through Python's TLS client.
        self.assert_ok(self.versions(s), [1])


if __name__ == "__main__":
    harness.main()

"""Request bodies in UTF-16 and UTF-32, with and without a byte-order mark, and
UTF-8 with one (docs/api.md, "Request bodies"). Confluent reads bodies with
Jackson (rest-utils' JacksonMessageBodyProvider), which detects the encoding
from the bytes and ignores the Content-Type's charset; so do we. A body that is
not exactly valid in its encoding is 400 and changes nothing."""

import json

import harness
from harness import quote

SR_V1 = "application/vnd.schemaregistry.v1+json"


def record(name, doc):
    """Compact Avro record text with its doc as raw (unescaped) characters."""
    return json.dumps({"type": "record", "name": name, "doc": doc,
                       "fields": [{"name": "price", "type": "string"}]},
                      ensure_ascii=False, separators=(",", ":"))


# Non-ASCII of every UTF-8 length, one of them outside the BMP (a surrogate pair in UTF-16).
SCHEMA = record("Cafe", "\u00e9 \u20ac \U0001F600")


def body_text(schema):
    return json.dumps({"schema": schema}, ensure_ascii=False)


# name -> the body's bytes, from its text
ENCODINGS = {
    "UTF-8 with a mark": lambda t: t.encode("utf-8-sig"),
    "UTF-16LE": lambda t: t.encode("utf-16-le"),
    "UTF-16BE": lambda t: t.encode("utf-16-be"),
    "UTF-16LE with a mark": lambda t: b"\xff\xfe" + t.encode("utf-16-le"),
    "UTF-16BE with a mark": lambda t: b"\xfe\xff" + t.encode("utf-16-be"),
    "UTF-32LE": lambda t: t.encode("utf-32-le"),
    "UTF-32BE": lambda t: t.encode("utf-32-be"),
    "UTF-32LE with a mark": lambda t: b"\xff\xfe\x00\x00" + t.encode("utf-32-le"),
    "UTF-32BE with a mark": lambda t: b"\x00\x00\xfe\xff" + t.encode("utf-32-be"),
}


class RequestCharsets(harness.RegistryTestCase):

    def post_bytes(self, path, data, content_type=SR_V1):
        return self.post(path, data, headers={"Content-Type": content_type})

    def test_every_encoding_registers_the_same_id(self):
        s = self.sub()
        first = self.register_ok(s, SCHEMA)
        text = body_text(SCHEMA)
        for name, encode in ENCODINGS.items():
            with self.subTest(encoding=name):
                r = self.post_bytes(f"/subjects/{quote(s)}/versions", encode(text))
                self.assertEqual((r.status, r.body), (200, {"id": first}), r)
                r = self.post_bytes(f"/subjects/{quote(s)}", encode(text))
                self.assertEqual(r.status, 200, r)
                self.assertEqual((r.body["id"], r.body["version"]), (first, 1), r)
        self.assertEqual(self.versions(s).body, [1])
        self.assertEqual(self.get(f"/schemas/ids/{first}").body["schema"], SCHEMA)

    def test_a_new_schema_sent_as_utf16_is_stored_as_sent(self):
        s = self.sub()
        schema = record("Gruesse", "\u4e2d\u6587 \U0001F680")
        r = self.post_bytes(f"/subjects/{quote(s)}/versions", body_text(schema).encode("utf-16"))
        self.assertEqual(r.status, 200, r)
        stored = self.get(f"/schemas/ids/{r.body['id']}").body["schema"]
        self.assertEqual(stored, schema)
        self.assertEqual(self.register_ok(s, schema), r.body["id"])

    def test_charset_parameter_is_not_read(self):
        # Jackson's provider never reads it: the bytes decide, whatever is declared.
        s = self.sub()
        first = self.register_ok(s, SCHEMA)
        text = body_text(SCHEMA)
        for declared, data in (("UTF-16LE", text.encode("utf-16-le")),
                               ("utf-16", text.encode("utf-16-be")),
                               ("UTF-8", text.encode("utf-32-le")),
                               ("UTF-16", text.encode("utf-8")),
                               ("no-such-charset", text.encode("utf-16-le"))):
            with self.subTest(declared=declared):
                r = self.post_bytes(f"/subjects/{quote(s)}/versions", data,
                                    content_type=f"{SR_V1}; charset={declared}")
                self.assertEqual((r.status, r.body), (200, {"id": first}), r)
        r = self.put(f"/config/{quote(s)}", json.dumps({"compatibility": "FULL"}).encode("utf-16"),
                     headers={"Content-Type": "application/json; charset=UTF-16"})
        self.assertEqual((r.status, r.body), (200, {"compatibility": "FULL"}), r)

    def test_invalid_units_are_400_and_change_nothing(self):
        s = self.sub()
        self.register_ok(s, SCHEMA)
        before = (self.subjects({"deleted": "true"}), self.db.state())
        good = body_text('"string"').encode("utf-16-le")
        lone = ('{"schema": "\\"str\ud800\\""}').encode("utf-16-le", "surrogatepass")
        bodies = {
            "UTF-16 of odd length": good + b"\x00",
            "unpaired high surrogate": lone,
            "unpaired low surrogate": b"\xff\xfe" + b'{\x00"\x00' + b"\x00\xdc" + b'"\x00}\x00',
            "truncated UTF-32": body_text('"string"').encode("utf-32-be")[:-1],
            "UTF-32 above U+10FFFF": b"{\x00\x00\x00" + b"\x00\x00\x11\x00" + b"}\x00\x00\x00",
            "UTF-32 surrogate": b"\x00\x00\x00{" + b"\x00\x00\xd8\x00" + b"\x00\x00\x00}",
            "UCS-4 2143": b"\x00\x00{\x00" + b"\x00\x00}\x00",
            "UCS-4 3412": b"\x00{\x00\x00" + b"\x00}\x00\x00",
        }
        for name, data in bodies.items():
            with self.subTest(body=name):
                for path in (f"/subjects/{quote(s)}/versions", f"/subjects/{quote(s)}",
                             f"/compatibility/subjects/{quote(s)}/versions/latest"):
                    self.assert_error(self.post_bytes(path, data), 400, 400)
                self.assert_error(self.put(f"/config/{quote(s)}", data), 400, 400)
        r = self.post_bytes(f"/subjects/{quote(s)}/versions", lone)
        self.assertIn("Invalid UTF-16LE request body: unpaired UTF-16 surrogate 0xd800", r.body["message"])
        self.assertEqual((self.subjects({"deleted": "true"}), self.db.state()), before)


if __name__ == "__main__":
    harness.main()

"""Avro answers that follow Confluent's AvroSchema (docs/compatibility.md,
"Avro"): U+0000 in JSON strings and integers beyond int64 kept byte-exact in
the stored text, the lookup of a schema sent with its references' types
inlined (AbstractSchemaRegistry.lookUpSchemaUnderSubject, ParsedSchema.canLookup,
AvroSchema.equivalent), and normalize=true sorting the keys of JSON objects in
property values and defaults (AvroSchemaUtils.toNormalizedString)."""

import json

import harness
from harness import quote


def record(name, fields, **extra):
    return json.dumps({"type": "record", "name": name, "fields": fields, **extra})


class NulInStrings(harness.RegistryTestCase):
    """Jackson decodes \\u0000 in the body and in the schema text; Avro keeps it."""

    FIXED = ('{"type":"record","name":"Nul","fields":[{"name":"f","type":'
             '{"type":"fixed","name":"F4","size":4},"default":"\\u0000\\u0000\\u0000\\u0000"},'
             '{"name":"b","type":"bytes","doc":"a\\u0000b","default":"x\\u0000"}]}')

    def test_register_get_lookup_byte_exact(self):
        subject = self.sub()
        sid = self.register_ok(subject, self.FIXED)
        # Avro's Schema.toString writes U+0000 as \u0000: the stored text is the input here.
        by_id = self.assert_ok(self.get(f"/schemas/ids/{sid}"))
        self.assertEqual(by_id["schema"], self.FIXED)
        self.assertEqual(self.db.value(f"SELECT schema_text FROM schemas WHERE id = {sid}"),
                         self.FIXED)
        version = self.assert_ok(self.version(subject, 1))
        self.assertEqual(version["schema"], self.FIXED)
        self.assertEqual(json.loads(version["schema"])["fields"][0]["default"], "\x00" * 4)
        found = self.assert_ok(self.lookup(subject, self.FIXED))
        self.assertEqual((found["id"], found["version"]), (sid, 1))
        # The same content again: the same id and version, nothing new.
        again = self.register(subject, self.FIXED)
        self.assert_ok(again, {"id": sid})
        self.assertEqual(self.assert_ok(self.versions(subject)), [1])

    def test_nul_in_a_name_is_refused(self):
        subject = self.sub()
        before = self.db.state()
        # The schema text holds the escape \u0000, a U+0000 once parsed.
        r = self.register(subject, '{"type":"record","name":"A\\u0000B","fields":[]}')
        self.assert_error(r, 422, 42201)
        # Avro's name validator; the message shows the character as \u0000.
        self.assertIn("Illegal character in: A\\u0000B", r.body["message"])
        self.assertEqual(self.db.state(), before)

    def test_schema_text_is_not_cut_at_a_decoded_nul(self):
        # The body's \u0000 puts a NUL byte into the schema text: Jackson refuses
        # it after the document, so must we (cut there, the text would be valid).
        subject = self.sub()
        before = self.db.state()
        r = self.register(subject, '{"type":"string"}\x00{')
        self.assert_error(r, 422, 42201)
        self.assertEqual(self.db.state(), before)
        # Inside a comment, which Avro's parser skips, the NUL byte is harmless.
        sid = self.register_ok(subject, '{"type":"string"} /* \x00 */')
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{sid}"))["schema"], '"string"')

    def test_nul_in_other_body_fields_is_refused(self):
        subject = self.sub()
        before = self.db.state()
        r = self.register(subject, '"string"', schema_type="AVRO\x00")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(self.db.state(), before)


class BigIntegers(harness.RegistryTestCase):
    """Jackson reads integers beyond int64 as BigIntegerNode; Avro writes their digits back."""

    BIG = 123456789012345678901234567890

    def test_double_default_and_properties_keep_their_digits(self):
        subject = self.sub()
        text = ('{"type":"record","name":"Big","fields":[{"name":"d","type":"double",'
                f'"default":{self.BIG}}}],"max":{self.BIG},"list":[1,-{self.BIG}]}}')
        sid = self.register_ok(subject, text)
        body = self.assert_ok(self.get(f"/schemas/ids/{sid}"))
        self.assertEqual(body["schema"], text)
        doc = json.loads(body["schema"])
        self.assertEqual(doc["fields"][0]["default"], self.BIG)
        self.assertEqual(doc["list"], [1, -self.BIG])
        found = self.assert_ok(self.lookup(subject, text))
        self.assertEqual((found["id"], found["version"]), (sid, 1))

    def test_long_default_beyond_int64_is_invalid(self):
        # Schema.isValidDefault: a LONG default must canConvertToLong().
        subject = self.sub()
        before = self.db.state()
        r = self.register(subject, record("L", [{"name": "l", "type": "long",
                                                 "default": 2 ** 64}]))
        self.assert_error(r, 422, 42201)
        self.assertIn(f"Invalid default for field l: {2 ** 64} not a \\\"long\\\"",
                      json.dumps(r.body["message"]))
        self.assertEqual(self.db.state(), before)


class LookupResolved(harness.RegistryTestCase):
    """A schema sent with its references' types written out finds the version
    that refers to them (ParsedSchema.canLookup: no references in the request,
    some in the version, AvroSchema.equivalent)."""

    MONEY = {"type": "record", "name": "Money", "namespace": "m",
             "fields": [{"name": "units", "type": "long"}]}

    def order(self, money):
        return json.dumps({"type": "record", "name": "Order", "namespace": "o",
                           "fields": [{"name": "a", "type": money},
                                      {"name": "b", "type": "m.Money"}]})

    def test_inlined_references_find_the_version(self):
        money, orders = self.sub("money"), self.sub("order")
        self.register_ok(money, json.dumps(self.MONEY))
        refs = [{"name": "m.Money", "subject": money, "version": 1}]
        oid = self.register_ok(orders, self.order("m.Money"), references=refs)
        stored = self.assert_ok(self.version(orders, 1))
        found = self.assert_ok(self.lookup(orders, self.order(self.MONEY)))
        # The version as stored: its id, version, text and references.
        self.assertEqual(found, {"subject": orders, "version": 1, "id": oid,
                                 "references": refs, "schema": stored["schema"]})

    def test_registering_inlined_references_answers_the_version(self):
        # KafkaSchemaRegistry.register: the canLookup pass over undeleted versions.
        money, orders = self.sub("money"), self.sub("order")
        self.register_ok(money, json.dumps(self.MONEY))
        refs = [{"name": "m.Money", "subject": money, "version": 1}]
        oid = self.register_ok(orders, self.order("m.Money"), references=refs)
        before = self.db.state()
        self.assertEqual(self.register_ok(orders, self.order(self.MONEY)), oid)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(orders), [1])
        # A different inlined type is a new version, as before.
        other = dict(self.MONEY, fields=[{"name": "units", "type": "long"}, {"name": "c", "type": "int",
                                                                             "default": 0}])
        self.assertNotEqual(self.register_ok(orders, self.order(other)), oid)
        self.assert_ok(self.versions(orders), [1, 2])

    def test_a_different_inlined_type_is_not_found(self):
        money, orders = self.sub("money"), self.sub("order")
        self.register_ok(money, json.dumps(self.MONEY))
        refs = [{"name": "m.Money", "subject": money, "version": 1}]
        self.register_ok(orders, self.order("m.Money"), references=refs)
        other = dict(self.MONEY, fields=[{"name": "units", "type": "int"}])
        self.assert_error(self.lookup(orders, self.order(other)), 404, 40403)
        # A doc is part of AvroSchema.equivalent (metaEqual) too.
        with_doc = dict(self.MONEY, doc="cents")
        self.assert_error(self.lookup(orders, self.order(with_doc)), 404, 40403)

    def test_soft_deleted_versions_count_with_deleted(self):
        money, orders = self.sub("money"), self.sub("order")
        self.register_ok(money, json.dumps(self.MONEY))
        refs = [{"name": "m.Money", "subject": money, "version": 1}]
        oid = self.register_ok(orders, self.order("m.Money"), references=refs)
        self.assert_ok(self.delete_version(orders, 1))
        inlined = self.order(self.MONEY)
        self.assert_error(self.lookup(orders, inlined), 404, 40401)
        found = self.assert_ok(self.post(f"/subjects/{quote(orders)}",
                                         {"schema": inlined}, params={"deleted": "true"}))
        self.assertEqual((found["id"], found["version"]), (oid, 1))

    def test_property_order_is_not_a_difference(self):
        # Schema.equals compares properties as maps, whatever the order.
        subject = self.sub()
        sid = self.register_ok(subject, '{"type":"string","a":1,"b":{"x":1,"y":2}}')
        found = self.assert_ok(self.lookup(subject, '{"type":"string","b":{"y":2,"x":1},"a":1}'))
        self.assertEqual((found["id"], found["version"]), (sid, 1))
        self.assertEqual(found["schema"], '{"type":"string","a":1,"b":{"x":1,"y":2}}')


class NormalizeSortsValues(harness.RegistryTestCase):
    """AvroSchemaUtils.toJsonNode keeps object members in a TreeMap."""

    def test_property_object_keys_are_sorted(self):
        subject = self.sub()
        unsorted = '{"type":"string","p":{"b":2,"a":{"d":[{"z":1,"y":2}],"c":1}}}'
        sid = self.register_ok(subject, unsorted, params={"normalize": "true"})
        body = self.assert_ok(self.get(f"/schemas/ids/{sid}"))
        self.assertEqual(body["schema"],
                         '{"type":"string","p":{"a":{"c":1,"d":[{"y":2,"z":1}]},"b":2}}')
        resorted = '{"type":"string","p":{"a":{"c":1,"d":[{"y":2,"z":1}]},"b":2}}'
        found = self.assert_ok(self.lookup(subject, resorted, params={"normalize": "true"}))
        self.assertEqual((found["id"], found["version"]), (sid, 1))
        # Registering the other order, normalized: the same content, the same id.
        self.assert_ok(self.register(subject, resorted, params={"normalize": "true"}), {"id": sid})

    def test_record_default_keys_are_sorted(self):
        subject = self.sub()
        text = record("R", [{"name": "m", "type": {"type": "map", "values": "int"},
                             "default": {"b": 1, "a": 2}}])
        sid = self.register_ok(subject, text, params={"normalize": "true"})
        doc = json.loads(self.assert_ok(self.get(f"/schemas/ids/{sid}"))["schema"])
        self.assertEqual(json.dumps(doc["fields"][0]["default"]), '{"a": 2, "b": 1}')

    def test_big_integer_in_a_property_cannot_be_normalized(self):
        # toObject has no Java object for it, and toJsonNode then throws.
        subject = self.sub()
        before = self.db.state()
        r = self.register(subject, '{"type":"string","p":[18446744073709551616]}',
                          params={"normalize": "true"})
        self.assert_error(r, 422, 42201)
        self.assertEqual(self.db.state(), before)


if __name__ == "__main__":
    harness.main()

"""The real confluent-kafka-python SchemaRegistryClient (Debian's
python3-confluent-kafka) against the server (docs/api.md)."""

import json

import harness
from harness import avro_record

try:
    import confluent_kafka
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
    from confluent_kafka.schema_registry.error import SchemaRegistryError
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"confluent_kafka is not importable ({exc}); "
                     "run scripts/install-deps.sh") from exc

try:
    import fastavro                             # noqa: F401  (the Avro serdes need it)
    HAVE_FASTAVRO = True
except ImportError:
    HAVE_FASTAVRO = False

V1 = avro_record("Interop", [("name", "string")], namespace="com.itest")
V2 = avro_record("Interop", [("name", "string"), ("age", "int", 0)], namespace="com.itest")
BROKEN = avro_record("Interop", [("name", "int")], namespace="com.itest")


class ConfluentClient(harness.RegistryTestCase):

    def client(self):
        c = SchemaRegistryClient({"url": self.server.base_url})
        self.addCleanup(c.__exit__)              # closes its HTTP session
        return c

    def test_client_version(self):
        self.assertTrue(confluent_kafka.version()[0].startswith("1."), confluent_kafka.version())

    def test_register_get_lookup(self):
        c, s = self.client(), self.sub()
        schema_id = c.register_schema(s, Schema(V1, "AVRO"))
        self.assertIsInstance(schema_id, int)
        # A fresh client has no cache: these go over the wire.
        c = self.client()
        got = c.get_schema(schema_id)
        self.assertEqual(got.schema_type, "AVRO")
        self.assertEqual(json.loads(got.schema_str), json.loads(V1))
        found = c.lookup_schema(s, Schema(V1, "AVRO"))
        self.assertEqual((found.schema_id, found.subject, found.version), (schema_id, s, 1))
        self.assertEqual(c.register_schema(s, Schema(V1, "AVRO")), schema_id)
        self.assertIn(s, c.get_subjects())
        with self.assertRaises(SchemaRegistryError) as ctx:
            c.lookup_schema(s, Schema(V2, "AVRO"))
        self.assertEqual((ctx.exception.http_status_code, ctx.exception.error_code), (404, 40403))

    def test_versions(self):
        c, s = self.client(), self.sub()
        id1 = c.register_schema(s, Schema(V1, "AVRO"))
        id2 = c.register_schema(s, Schema(V2, "AVRO"))
        latest = c.get_latest_version(s)
        self.assertEqual((latest.schema_id, latest.version, latest.subject), (id2, 2, s))
        first = c.get_version(s, 1)
        self.assertEqual((first.schema_id, first.version), (id1, 1))
        self.assertEqual(json.loads(first.schema.schema_str), json.loads(V1))
        self.assertEqual(c.get_versions(s), [1, 2])

    def test_compatibility(self):
        c, s = self.client(), self.sub()
        c.register_schema(s, Schema(V1, "AVRO"))
        self.assertIs(c.test_compatibility(s, Schema(V2, "AVRO")), True)
        self.assertIs(c.test_compatibility(s, Schema(BROKEN, "AVRO")), False)
        self.assertIs(c.test_compatibility(s, Schema(BROKEN, "AVRO"), version=1), False)
        with self.assertRaises(SchemaRegistryError) as ctx:
            c.register_schema(s, Schema(BROKEN, "AVRO"))
        self.assertEqual(ctx.exception.http_status_code, 409)

    def test_config(self):
        c, s = self.client(), self.sub()
        self.assertEqual(c.get_compatibility(), "BACKWARD")
        result = c.set_compatibility(subject_name=s, level="full")
        self.assertEqual(result, {"compatibility": "FULL"})
        self.assertEqual(c.get_compatibility(s), "FULL")
        with self.assertRaises(SchemaRegistryError) as ctx:
            c.set_compatibility(subject_name=s, level="nonsense")
        self.assertEqual(ctx.exception.error_code, 42203)

    def test_delete(self):
        c, s = self.client(), self.sub()
        c.register_schema(s, Schema(V1, "AVRO"))
        c.register_schema(s, Schema(V2, "AVRO"))
        self.assertEqual(c.delete_version(s, 2), 2)
        self.assertEqual(c.get_versions(s), [1])
        self.assertEqual(c.delete_subject(s, permanent=True), [1])
        self.assertNotIn(s, c.get_subjects())
        # permanent=True is a soft then a hard delete: every version is gone.
        self.assert_error(self.versions(s, {"deleted": "true"}), 404, 40401)
        with self.assertRaises(SchemaRegistryError) as ctx:
            c.get_versions(s)
        self.assertEqual(ctx.exception.error_code, 40401)

    def test_json_schema_through_client(self):
        c, s = self.client(), self.sub()
        text = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})
        schema_id = c.register_schema(s, Schema(text, "JSON"))
        got = self.client().get_schema(schema_id)
        self.assertEqual(got.schema_type, "JSON")
        self.assertEqual(json.loads(got.schema_str), json.loads(text))

    def test_avro_serializer_round_trip(self):
        if not HAVE_FASTAVRO:
            self.skipTest("SKIP: fastavro is not importable; the Avro serdes round trip needs it")
        from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
        from confluent_kafka.serialization import MessageField, SerializationContext
        topic = self.sub("topic")
        ser = AvroSerializer(self.client(), V2)
        ctx = SerializationContext(topic, MessageField.VALUE)
        data = ser({"name": "ada", "age": 36}, ctx)
        self.assertEqual(data[0], 0)                               # magic byte
        schema_id = int.from_bytes(data[1:5], "big")
        latest = self.assert_ok(self.version(f"{topic}-value", "latest"))
        self.assertEqual(latest["id"], schema_id)
        de = AvroDeserializer(self.client())
        self.assertEqual(de(data, ctx), {"name": "ada", "age": 36})


if __name__ == "__main__":
    harness.main()

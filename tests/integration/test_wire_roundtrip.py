"""A Kafka record's life through the registry, as real producers and
consumers live it: the producer registers its schema with the Confluent
client and frames Avro binary as magic byte 0 + 4-byte big-endian id; a
consumer that knows nothing but the bytes fetches the writer schema by id
(GET /schemas/ids/{id}, and subjects/{s}/versions/latest for the reader)
and decodes with Apache Avro (Debian's python3-avro) -- the from_avro path."""

import io
import json
import struct

import harness
from harness import avro_record

try:
    import avro.io
    import avro.schema
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"python3-avro / confluent_kafka not importable ({exc}); "
                     "run scripts/install-deps.sh") from exc

V1 = avro_record("Order", [("id", "long"), ("note", "string")], namespace="com.shop")
V2 = json.dumps({"type": "record", "name": "Order", "namespace": "com.shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "note", "type": "string"},
    {"name": "qty", "type": "int", "default": 1}]})


def encode(schema_text, schema_id, datum):
    """Confluent framing: 0x00, the id as a signed 32-bit big-endian int, Avro binary."""
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    avro.io.DatumWriter(avro.schema.parse(schema_text)).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


class WireRoundTrip(harness.RegistryTestCase):

    def client(self):
        c = SchemaRegistryClient({"url": self.server.base_url})
        self.addCleanup(c.__exit__)
        return c

    def decode(self, frame, reader_text=None):
        """What a consumer does with nothing but the record bytes."""
        magic, schema_id = struct.unpack(">bI", frame[:5])
        self.assertEqual(magic, 0)
        r = self.server.client().get(f"/schemas/ids/{schema_id}?fetchMaxId=false&subject=")
        self.assertEqual(r.status, 200, r)
        writer = avro.schema.parse(r.body["schema"])
        reader = avro.schema.parse(reader_text) if reader_text else writer
        return avro.io.DatumReader(writer, reader).read(avro.io.BinaryDecoder(io.BytesIO(frame[5:])))

    def test_producer_to_consumer(self):
        s = self.sub("orders-value")
        schema_id = self.client().register_schema(s, Schema(V1, "AVRO"))
        frame = encode(V1, schema_id, {"id": 42, "note": "two apples"})
        self.assertEqual(self.decode(frame), {"id": 42, "note": "two apples"})

    def test_old_records_read_with_the_latest_schema(self):
        """BACKWARD evolution: a consumer on the latest schema reads v1 records."""
        c, s = self.client(), self.sub("orders-value")
        id1 = c.register_schema(s, Schema(V1, "AVRO"))
        id2 = c.register_schema(s, Schema(V2, "AVRO"))
        self.assertNotEqual(id1, id2)
        latest = self.server.client().get(f"/subjects/{harness.quote(s)}/versions/latest")
        self.assertEqual((latest.status, latest.body["id"]), (200, id2), latest)
        old = encode(V1, id1, {"id": 7, "note": "old"})
        new = encode(V2, id2, {"id": 8, "note": "new", "qty": 3})
        self.assertEqual(self.decode(old, latest.body["schema"]), {"id": 7, "note": "old", "qty": 1})
        self.assertEqual(self.decode(new, latest.body["schema"]), {"id": 8, "note": "new", "qty": 3})

    def test_record_with_an_unknown_id_gets_40403(self):
        """The client caches this 404 per id; any other status would break it."""
        r = self.server.client().get("/schemas/ids/987654?fetchMaxId=false&subject=orders-value")
        self.assert_error(r, 404, 40403)


if __name__ == "__main__":
    harness.main()

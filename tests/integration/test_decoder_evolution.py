"""The evolution matrix of `schema-registry decode` (docs/decoding.md): each
schema change registered as a new version of one subject on the real server,
records of the older version read with the newer reader by the real CLI, and
`--evolution restart` firing on the first record of a newer version.

Expected rows are derived independently of our decoder: for Avro from Apache
Avro's Python DatumReader(writer, reader) (python3-avro) where its resolution
follows the Avro specification ("Schema Resolution"), and from the
specification itself, stated here, where python3-avro 1.11.1 does not (it
ignores the reader's field aliases and enum defaults, and hands a promoted int
to a float reader unrounded); for Protobuf from python3-protobuf parsing the
same bytes with the newer version's _pb2 module (protoc --python_out at test
time); JSON Schema records pass through unchanged. Each literal row is also
checked against the derived value, so a literal cannot drift from its
reference."""

import base64
import io
import json
import os
import struct
import subprocess

import harness

try:
    import avro.io
    import avro.schema
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"python3-avro not importable ({exc}); run scripts/install-deps.sh") from exc
try:
    from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
except ImportError as exc:
    raise SystemExit(f"python3-protobuf not importable ({exc}); run scripts/install-deps.sh") from exc

RESTART = 3  # decode's exit status for --evolution restart (cmd/decode.c's usage)


def rec(name, fields, namespace="evo"):
    return json.dumps({"type": "record", "name": name, "namespace": namespace, "fields": fields})


def avro_frame(schema_text, schema_id, datum):
    """A record as Confluent's KafkaAvroSerializer frames it: magic 0, the id
    big-endian in 4 bytes, the Avro binary of the datum, written by python3-avro."""
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    avro.io.DatumWriter(avro.schema.parse(schema_text)).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def avro_resolve(writer_text, reader_text, frame):
    """python3-avro's reading of a frame's payload with writer and reader schemas."""
    reader = avro.io.DatumReader(avro.schema.parse(writer_text), avro.schema.parse(reader_text))
    return reader.read(avro.io.BinaryDecoder(io.BytesIO(frame[5:])))


def hexlines(frames):
    return "".join(f.hex() + "\n" for f in frames)


def run_cli(*args, input_text=""):
    return subprocess.run([harness.server_binary(), *args], input=input_text.encode(), capture_output=True,
                          timeout=60)


class EvolutionCase(harness.RegistryTestCase):

    def evolve(self, tag, versions, schema_type=None, level="BACKWARD"):
        """A subject with `level` set on it and each schema registered in turn
        (the server checks each version against the previous one); returns the
        subject and the ids."""
        subject = self.sub(tag)
        r = self.put(f"/config/{subject}", {"compatibility": level})
        self.assertEqual((r.status, r.body), (200, {"compatibility": level}), r)
        kw = {"schema_type": schema_type} if schema_type else {}
        ids = [self.register_ok(subject, v, **kw) for v in versions]
        self.assertEqual(len(set(ids)), len(ids))
        return subject, ids

    def decode(self, subject, lines, *args):
        return run_cli("decode", "--registry", self.server.base_url, "--subject", subject, *args,
                       input_text=lines)

    def rows(self, subject, lines, *args):
        r = self.decode(subject, lines, *args)
        self.assertEqual((r.returncode, r.stderr.decode()), (0, ""))
        return r.stdout.decode().splitlines()

    def restart_message(self, where, schema_id, version, subject, reader_version):
        return (f"schema-registry decode: restart: {where}: schema id {schema_id} is version {version} of "
                f"subject {subject}, newer than the reader's version {reader_version}\n")


# ---------------------------------------------------------------- Avro

ADD_V1 = rec("Added", [{"name": "id", "type": "long"}])
ADD_V2 = rec("Added", [{"name": "id", "type": "long"},
                       {"name": "note", "type": "string", "default": "none"},
                       {"name": "n", "type": "int", "default": 7},
                       {"name": "opt", "type": ["null", "string"], "default": None},
                       {"name": "raw", "type": "bytes", "default": "\u00ff\u0001"},
                       {"name": "xs", "type": {"type": "array", "items": "int"}, "default": [1, 2]}])

REN_V1 = rec("Renamed", [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}])
REN_V2 = rec("Renamed", [{"name": "id", "type": "long"},
                         {"name": "full_name", "type": "string", "aliases": ["name"]}])

DROP_V1 = rec("Dropped", [{"name": "id", "type": "long"},
                          {"name": "gone", "type": {"type": "map", "values": "string"}},
                          {"name": "name", "type": "string"},
                          {"name": "gone2", "type": ["null", "long"]}])
DROP_V2 = rec("Dropped", [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}])

# int -> long -> double, int -> long -> float, string <-> bytes.
PROMO_V1 = rec("Promo", [{"name": "n", "type": "int"}, {"name": "m", "type": "int"},
                         {"name": "s", "type": "string"}, {"name": "b", "type": "bytes"}])
PROMO_V2 = rec("Promo", [{"name": "n", "type": "long"}, {"name": "m", "type": "long"},
                         {"name": "s", "type": "bytes"}, {"name": "b", "type": "string"}])
PROMO_V3 = rec("Promo", [{"name": "n", "type": "double"}, {"name": "m", "type": "float"},
                         {"name": "s", "type": "bytes"}, {"name": "b", "type": "string"}])


def color(symbols):
    return {"type": "enum", "name": "Color", "symbols": symbols, "default": "UNKNOWN"}


ENUM_V1 = rec("Paint", [{"name": "c", "type": color(["UNKNOWN", "RED", "GREEN"])}])
ENUM_V2 = rec("Paint", [{"name": "c", "type": color(["UNKNOWN", "RED", "GREEN", "BLUE"])}])

UNION_V1 = rec("Choice", [{"name": "u", "type": ["null", "string"]}])
UNION_V2 = rec("Choice", [{"name": "u", "type": ["null", "string", "long"]}])


class AvroEvolution(EvolutionCase):
    """Every scenario is BACKWARD-compatible as Confluent's AvroSchema
    (Avro's SchemaCompatibility) judges it, so each subject is BACKWARD and no
    scenario needs NONE: the server itself vouches that the newer reader can
    read the older records."""

    def check(self, subject, frames, writer, reader, expected, *args):
        got = self.rows(subject, hexlines(frames), *args)
        self.assertEqual(got, expected)
        return got

    def test_field_added_with_a_default(self):
        subject, (i1, i2) = self.evolve("added", [ADD_V1, ADD_V2])
        frames = [avro_frame(ADD_V1, i1, {"id": 1}), avro_frame(ADD_V1, i1, {"id": -2 ** 63})]
        expected = ['{"id":1,"note":"none","n":7,"opt":null,"raw":"/wE=","xs":[1,2]}',
                    '{"id":-9223372036854775808,"note":"none","n":7,"opt":null,"raw":"/wE=","xs":[1,2]}']
        self.check(subject, frames, ADD_V1, ADD_V2, expected, "--reader", "latest")
        # python3-avro fills the same defaults, but for bytes: the spec reads a
        # bytes default's string as ISO-8859-1 code points ("\u00ff\u0001" is
        # ff 01, "/wE="), python3-avro 1.11.1 as UTF-8 (c3 bf 01), so raw is
        # stated here.
        for frame, row in zip(frames, expected):
            want = avro_resolve(ADD_V1, ADD_V2, frame)
            self.assertEqual(want.pop("raw"), "\u00ff\u0001".encode())
            got = json.loads(row)
            self.assertEqual(base64.b64decode(got.pop("raw")), "\u00ff\u0001".encode("latin-1"))
            self.assertEqual(got, want)
        # The older reader reads the newer record by skipping the added fields.
        v2 = avro_frame(ADD_V2, i2, {"id": 3, "note": "x", "n": 1, "opt": "o", "raw": b"", "xs": []})
        self.assertEqual(self.rows(subject, hexlines([v2]), "--reader", "1"), ['{"id":3}'])
        self.assertEqual(avro_resolve(ADD_V2, ADD_V1, v2), {"id": 3})

    def test_field_renamed_with_an_alias(self):
        subject, (i1, i2) = self.evolve("renamed", [REN_V1, REN_V2])
        frames = [avro_frame(REN_V1, i1, {"id": 1, "name": "Ann"}),
                  avro_frame(REN_V2, i2, {"id": 2, "full_name": "Bo"})]
        # The spec: a reader field matches the writer field named by one of its
        # aliases. (python3-avro 1.11.1 ignores reader aliases, so stated here.)
        self.check(subject, frames, REN_V1, REN_V2, ['{"id":1,"full_name":"Ann"}', '{"id":2,"full_name":"Bo"}'],
                   "--reader", "latest")
        # The old reader has no alias for full_name and no default for name: bad.
        r = self.decode(subject, hexlines(frames[1:]), "--reader", "1")
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()), (1, b"",
            f"schema-registry decode: stdin line 1: schema {i2}: evo.Renamed: the reader's field name is not in "
            f"the writer's schema and has no default\n"))

    def test_field_dropped(self):
        subject, (i1, _) = self.evolve("dropped", [DROP_V1, DROP_V2])
        datums = [{"id": 1, "gone": {"a": "x", "b": "y"}, "name": "n1", "gone2": 5},
                  {"id": 2, "gone": {}, "name": "", "gone2": None}]
        frames = [avro_frame(DROP_V1, i1, d) for d in datums]
        got = self.check(subject, frames, DROP_V1, DROP_V2, ['{"id":1,"name":"n1"}', '{"id":2,"name":""}'],
                         "--reader", "latest")
        self.assertEqual([json.loads(x) for x in got], [avro_resolve(DROP_V1, DROP_V2, f) for f in frames])

    def test_int_long_double_float_and_string_bytes_promotions(self):
        subject, (i1, i2, i3) = self.evolve("promo", [PROMO_V1, PROMO_V2, PROMO_V3])
        v1 = [avro_frame(PROMO_V1, i1, {"n": 2 ** 31 - 1, "m": 16777217, "s": "h\u00e9", "b": "h\u00e9".encode()}),
              avro_frame(PROMO_V1, i1, {"n": -5, "m": 3, "s": "", "b": b""})]
        v2 = [avro_frame(PROMO_V2, i2, {"n": 2 ** 53 + 1, "m": -(2 ** 40), "s": b"\x00\xff", "b": "z"})]
        sb = base64.b64encode("h\u00e9".encode()).decode()
        # v1 read with v2: int -> long, string -> bytes (its UTF-8), bytes -> string.
        got = self.check(subject, v1, PROMO_V1, PROMO_V2,
                         ['{"n":2147483647,"m":16777217,"s":"' + sb + '","b":"h\u00e9"}',
                          '{"n":-5,"m":3,"s":"","b":""}'], "--reader", "2")
        # python3-avro 1.11.1 does not resolve string <-> bytes (the spec does:
        # the bytes are the string's UTF-8), so s and b are stated here; n and m
        # are its int -> long.
        for row, frame in zip(got, v1):
            want = avro_resolve(PROMO_V1, rec("Promo", json.loads(PROMO_V2)["fields"][:2]), frame)
            self.assertEqual({k: v for k, v in json.loads(row).items() if k in ("n", "m")}, want)
        # v1 and v2 read with v3: int and long -> double, int and long -> float.
        # The spec promotes to a float as Java's (float) cast does, so 16777217
        # reads as 16777216.0 and 2^53 + 1 as a double is 2^53 (python3-avro hands
        # back the int unchanged, so these are stated here); a float row is the
        # double it widens to (docs/decoding.md section 2).
        got = self.check(subject, v1 + v2, PROMO_V1, PROMO_V3,
                         ['{"n":2147483647,"m":16777216,"s":"' + sb + '","b":"h\u00e9"}',
                          '{"n":-5,"m":3,"s":"","b":""}',
                          '{"n":9007199254740992,"m":-1099511627776,"s":"AP8=","b":"z"}'], "--reader", "latest")
        self.assertEqual([json.loads(x)["n"] for x in got], [float(2 ** 31 - 1), -5.0, float(2 ** 53 + 1)])
        self.assertEqual([json.loads(x)["m"] for x in got],
                         [struct.unpack("<f", struct.pack("<f", float(v)))[0] for v in (16777217, 3, -(2 ** 40))])

    def test_enum_symbol_added(self):
        subject, (i1, i2) = self.evolve("enum", [ENUM_V1, ENUM_V2])
        old = [avro_frame(ENUM_V1, i1, {"c": s}) for s in ("RED", "GREEN", "UNKNOWN")]
        got = self.check(subject, old, ENUM_V1, ENUM_V2, ['{"c":"RED"}', '{"c":"GREEN"}', '{"c":"UNKNOWN"}'],
                         "--reader", "latest")
        self.assertEqual([json.loads(x) for x in got], [avro_resolve(ENUM_V1, ENUM_V2, f) for f in old])
        # A new symbol read by the old reader takes the reader's enum default (the
        # spec since 1.9; python3-avro 1.11.1 raises instead, so stated here); old
        # symbols keep their names even where their positions differ.
        new = [avro_frame(ENUM_V2, i2, {"c": s}) for s in ("BLUE", "GREEN")]
        self.assertEqual(self.rows(subject, hexlines(new), "--reader", "1"), ['{"c":"UNKNOWN"}', '{"c":"GREEN"}'])

    def test_union_branch_added(self):
        subject, (i1, i2) = self.evolve("union", [UNION_V1, UNION_V2])
        old = [avro_frame(UNION_V1, i1, {"u": v}) for v in (None, "x")]
        got = self.check(subject, old, UNION_V1, UNION_V2, ['{"u":null}', '{"u":"x"}'], "--reader", "latest")
        self.assertEqual([json.loads(x) for x in got], [avro_resolve(UNION_V1, UNION_V2, f) for f in old])
        # The new branch read by the old reader: no reader branch matches long, an
        # error when a record reaches it (the spec); other branches still read.
        new = [avro_frame(UNION_V2, i2, {"u": "y"}), avro_frame(UNION_V2, i2, {"u": 9})]
        r = self.decode(subject, hexlines(new), "--reader", "1")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout.decode(), '{"u":"y"}\n')
        self.assertEqual(r.stderr.decode(), f"schema-registry decode: stdin line 2: schema {i2}: the writer's long "
                         f"matches no branch of the reader's union\n")

    def test_restart_on_the_first_newer_record(self):
        subject, (i1, i2) = self.evolve("restart", [ADD_V1, ADD_V2])
        a, b, c = (avro_frame(ADD_V1, i1, {"id": k}) for k in (1, 2, 3))
        new = avro_frame(ADD_V2, i2, {"id": 9, "note": "", "n": 0, "opt": None, "raw": b"", "xs": []})
        r = self.decode(subject, hexlines([a, b, new, c, new]), "--reader", "1", "--evolution", "restart")
        self.assertEqual((r.returncode, r.stdout.decode()), (RESTART, '{"id":1}\n{"id":2}\n'))
        self.assertEqual(r.stderr.decode(), self.restart_message("stdin line 3", i2, 2, subject, 1))
        # Files: the line counts within the file that holds the record.
        workdir = harness.make_temp_dir("evo")
        first, second = os.path.join(workdir, "first.hex"), os.path.join(workdir, "second.hex")
        with open(first, "w") as f:
            f.write(hexlines([a, b]))
        with open(second, "w") as f:
            f.write(hexlines([c, new, a]))
        r = self.decode(subject, "", "--reader", "1", "--evolution", "restart", first, second)
        self.assertEqual((r.returncode, r.stdout.decode()), (RESTART, '{"id":1}\n{"id":2}\n{"id":3}\n'))
        self.assertEqual(r.stderr.decode(), self.restart_message(f"{second} line 2", i2, 2, subject, 1))
        # With the latest reader nothing is newer: all five rows.
        self.assertEqual(len(self.rows(subject, hexlines([a, b, new, c, new]), "--evolution", "restart")), 5)


# ---------------------------------------------------------------- Protobuf

PROTO_V1 = """syntax = "proto3";
package evo;

enum Kind {
  KIND_UNKNOWN = 0;
  KIND_A = 1;
}

message Item {
  int32 id = 1;
  string name = 2;
  int32 count = 3;
  Kind kind = 4;
  string legacy = 5;
  oneof pick {
    string text = 6;
  }
}
"""
# v2: note and flags added, name renamed title (same number), legacy removed
# (its number reserved), count widened to int64, KIND_B added, number added to
# the oneof.
PROTO_V2 = """syntax = "proto3";
package evo;

enum Kind {
  KIND_UNKNOWN = 0;
  KIND_A = 1;
  KIND_B = 2;
}

message Item {
  reserved 5;
  int32 id = 1;
  string title = 2;
  int64 count = 3;
  Kind kind = 4;
  oneof pick {
    string text = 6;
    int64 number = 8;
  }
  string note = 7;
  repeated bool flags = 9;
}
"""


def message_class(proto_text, name):
    """python3-protobuf's class for message `name` of proto_text, built from
    protoc's descriptor set in a pool of its own: both versions define
    evo.Item, which one pool (the default one --python_out modules share)
    cannot hold twice."""
    workdir = harness.make_temp_dir("pb")
    with open(os.path.join(workdir, "item.proto"), "w") as f:
        f.write(proto_text)
    out = os.path.join(workdir, "item.desc")
    subprocess.run(["protoc", "-I" + workdir, "--descriptor_set_out=" + out, os.path.join(workdir, "item.proto")],
                   check=True, timeout=60)
    fds = descriptor_pb2.FileDescriptorSet()
    with open(out, "rb") as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    desc = pool.FindMessageTypeByName(name)
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def pb_json(cls, data):
    """python3-protobuf's proto3 JSON mapping of data parsed as cls, fields
    without presence included (as our rows include them)."""
    m = cls()
    m.ParseFromString(data)
    try:
        return json_format.MessageToDict(m, always_print_fields_with_no_presence=True)
    except TypeError:                           # python3-protobuf before 26
        return json_format.MessageToDict(m, including_default_value_fields=True)


class ProtobufEvolution(EvolutionCase):
    """v1 -> v2 under BACKWARD: every change in PROTO_V2 is compatible as
    Confluent's ProtobufSchema judges it (a removed field, a renamed one, int32
    -> int64, an enum value and a oneof member added), so no NONE is needed."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.v1 = message_class(PROTO_V1, "evo.Item")
        cls.v2 = message_class(PROTO_V2, "evo.Item")

    def frame(self, schema_id, message):
        # magic, id, message indexes [0] (written as the single byte 0), message
        return struct.pack(">bI", 0, schema_id) + b"\x00" + message.SerializeToString()

    def test_old_records_with_the_new_reader(self):
        subject, (i1, _) = self.evolve("item", [PROTO_V1, PROTO_V2], schema_type="PROTOBUF")
        msgs = [self.v1(id=1, name="pen", count=-7, kind=1, legacy="old", text="t"),
                self.v1(),
                self.v1(id=2 ** 31 - 1, count=2 ** 31 - 1, legacy="only")]
        frames = [self.frame(i1, m) for m in msgs]
        # Added: note "" and flags [] (no presence: their defaults); renamed:
        # title; removed: legacy's bytes are unknown to the reader and dropped
        # (the decoder has no option to keep them: cmd/decode.c --help); widened:
        # count as an int64, a string in the JSON mapping; the oneof member set
        # in the record is kept, an unset oneof is left out. Keys come in the
        # declaration order of the schema as the registry stores it, which is
        # Confluent's canonical text (ProtobufSchemaUtils.toString prints a
        # message's oneofs after its other fields), so text
        # follows flags although PROTO_V2 declares it first.
        expected = ['{"id":1,"title":"pen","count":"-7","kind":"KIND_A","note":"","flags":[],"text":"t"}',
                    '{"id":0,"title":"","count":"0","kind":"KIND_UNKNOWN","note":"","flags":[]}',
                    '{"id":2147483647,"title":"","count":"2147483647","kind":"KIND_UNKNOWN","note":"","flags":[]}']
        got = self.rows(subject, hexlines(frames), "--reader", "latest")
        self.assertEqual(got, expected)
        self.assertEqual([json.loads(x) for x in got], [pb_json(self.v2, f[6:]) for f in frames])

    def test_new_records_with_the_old_reader(self):
        subject, (_, i2) = self.evolve("item", [PROTO_V1, PROTO_V2], schema_type="PROTOBUF")
        msgs = [self.v2(id=3, title="cup", count=2 ** 40 + 5, kind=2, number=12, note="n", flags=[True]),
                self.v2(kind=1, count=-1, text="x")]
        frames = [self.frame(i2, m) for m in msgs]
        # The old reader: KIND_B is a number its enum lacks (the number); count
        # read as int32 keeps the low 32 bits (2^40 + 5 -> 5); the oneof member
        # and fields it does not know are dropped.
        expected = ['{"id":3,"name":"cup","count":5,"kind":2,"legacy":""}',
                    '{"id":0,"name":"","count":-1,"kind":"KIND_A","legacy":"","text":"x"}']
        got = self.rows(subject, hexlines(frames), "--reader", "1")
        self.assertEqual(got, expected)
        self.assertEqual([json.loads(x) for x in got], [pb_json(self.v1, f[6:]) for f in frames])

    def test_restart(self):
        subject, (i1, i2) = self.evolve("item", [PROTO_V1, PROTO_V2], schema_type="PROTOBUF")
        old, new = self.frame(i1, self.v1(id=1)), self.frame(i2, self.v2(id=2))
        r = self.decode(subject, hexlines([old, new, old]), "--reader", "1", "--evolution", "restart")
        self.assertEqual((r.returncode, r.stdout.decode()), (RESTART, '{"id":1,"name":"","count":0,"kind":'
                                                             '"KIND_UNKNOWN","legacy":""}\n'))
        self.assertEqual(r.stderr.decode(), self.restart_message("stdin line 2", i2, 2, subject, 1))


# ---------------------------------------------------------------- JSON Schema

JSON_V1 = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})
JSON_V2 = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}})


class JsonSchemaEvolution(EvolutionCase):

    def test_property_added_passes_through_and_restart(self):
        # NONE: Confluent's JsonSchema (JsonSchemaDiff) rejects an optional
        # property added to an open content model as BACKWARD-incompatible
        # (OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL: an old record may hold
        # "s" of any type), yet that is the change whose rows must pass through.
        subject, (i1, i2) = self.evolve("events", [JSON_V1, JSON_V2], schema_type="JSON", level="NONE")
        old = [struct.pack(">bI", 0, i1) + b'{"n": 1}', struct.pack(">bI", 0, i1) + b'{"n":2,"s":"x"}']
        new = [struct.pack(">bI", 0, i2) + b'{ "n" : 3, "s" : "y" }']
        # A JSON Schema reader does not transform: every row is its record, compact.
        self.assertEqual(self.rows(subject, hexlines(old + new), "--reader", "latest"),
                         ['{"n":1}', '{"n":2,"s":"x"}', '{"n":3,"s":"y"}'])
        r = self.decode(subject, hexlines(old + new + old), "--reader", "1", "--evolution", "restart")
        self.assertEqual((r.returncode, r.stdout.decode()), (RESTART, '{"n":1}\n{"n":2,"s":"x"}\n'))
        self.assertEqual(r.stderr.decode(), self.restart_message("stdin line 3", i2, 2, subject, 1))


if __name__ == "__main__":
    harness.main()

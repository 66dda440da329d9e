"""`schema-registry decode` and `encode` against the real server
(docs/decoding.md): framed records in, JSON rows out, the reader chosen as
Spark's from_avro chooses it, evolution "restart", FAILFAST and PERMISSIVE,
Basic auth and TLS. Records come from our encoder and from Apache Avro's
Python implementation (Debian's python3-avro) framed as Confluent's
AbstractKafkaSchemaSerDe frames them; our records are read back by Avro."""

import importlib
import io
import json
import os
import pty
import struct
import subprocess
import sys
import threading
import time

import harness
from test_auth_basic import make_users

try:
    import avro.io
    import avro.schema
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"python3-avro not importable ({exc}); run scripts/install-deps.sh") from exc

V1 = json.dumps({"type": "record", "name": "User", "namespace": "app", "fields": [
    {"name": "id", "type": "long"},
    {"name": "name", "type": "string"}]})
# v2 renames name (the alias keeps old records readable) and adds qty with a default.
V2 = json.dumps({"type": "record", "name": "User", "namespace": "app", "fields": [
    {"name": "id", "type": "long"},
    {"name": "full_name", "type": "string", "aliases": ["name"]},
    {"name": "qty", "type": "int", "default": 1}]})


def run(*args, input_text=""):
    return subprocess.run([harness.server_binary(), *args], input=input_text.encode(), capture_output=True,
                          timeout=60)


def avro_frame(schema_text, schema_id, datum):
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    avro.io.DatumWriter(avro.schema.parse(schema_text)).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


class Decode(harness.RegistryTestCase):

    def setUp(self):
        super().setUp()
        self.subject = self.sub("users-value")
        self.id1 = self.register_ok(self.subject, V1)
        self.id2 = self.register_ok(self.subject, V2)

    def cli(self, command, *args, input_text=""):
        return run(command, "--registry", self.server.base_url, *args, input_text=input_text)

    def encode(self, version, rows):
        r = self.cli("encode", "--subject", self.subject, "--version", str(version),
                     input_text="".join(json.dumps(x) + "\n" for x in rows))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode()

    def test_v1_records_read_with_the_latest_reader(self):
        lines = self.encode(1, [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}])
        self.assertEqual(lines.splitlines()[0], "00" + f"{self.id1:08x}" + "02" + "06" + "Ann".encode().hex())
        r = self.cli("decode", "--subject", self.subject, "--reader", "latest", input_text=lines)
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.assertEqual(r.stdout.decode(), '{"id":1,"full_name":"Ann","qty":1}\n{"id":2,"full_name":"Bob","qty":1}\n')
        # Without a subject each record is read with its own writer schema.
        r = self.cli("decode", input_text=lines)
        self.assertEqual(r.stdout.decode(), '{"id":1,"name":"Ann"}\n{"id":2,"name":"Bob"}\n')
        # A reader from a file, and base64 lines.
        path = os.path.join(harness.make_temp_dir("reader"), "reader.avsc")
        with open(path, "w") as f:
            f.write(json.dumps({"type": "record", "name": "User", "namespace": "app", "fields": [
                {"name": "name", "type": "bytes"}, {"name": "id", "type": "double"}]}))
        b64 = self.cli("encode", "--subject", self.subject, "--version", "1", "--output", "base64",
                       input_text='{"id": 3, "name": "Cy"}\n')
        self.assertEqual(b64.returncode, 0, b64.stderr)
        r = self.cli("decode", "--reader", path, "--input", "base64", input_text=b64.stdout.decode())
        self.assertEqual((r.returncode, r.stdout.decode()), (0, '{"name":"Q3k=","id":3}\n'), r.stderr)

    def test_python_avro_records_and_ours_read_by_avro(self):
        frames = [avro_frame(V1, self.id1, {"id": -5, "name": "\u00e9\u2603"}),
                  avro_frame(V2, self.id2, {"id": 2 ** 40, "full_name": "Z", "qty": 7})]
        r = self.cli("decode", "--subject", self.subject, input_text="".join(f.hex() + "\n" for f in frames))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([json.loads(x) for x in r.stdout.decode().splitlines()],
                         [{"id": -5, "full_name": "\u00e9\u2603", "qty": 1},
                          {"id": 2 ** 40, "full_name": "Z", "qty": 7}])
        ours = self.encode(2, [{"id": 9, "full_name": "W"}]).strip()
        raw = bytes.fromhex(ours)
        self.assertEqual(struct.unpack(">bI", raw[:5]), (0, self.id2))
        got = avro.io.DatumReader(avro.schema.parse(V2)).read(avro.io.BinaryDecoder(io.BytesIO(raw[5:])))
        self.assertEqual(got, {"id": 9, "full_name": "W", "qty": 1})

    def test_the_library_example_of_the_docs(self):
        """docs/decoding.md's program, built from the document (the decoder-example target)."""
        example = os.path.join(os.path.dirname(harness.server_binary()), "decoder-example")
        lines = self.encode(1, [{"id": 4, "name": "Dee"}])
        r = subprocess.run([example, self.server.base_url, self.subject], input=lines.encode(),
                           capture_output=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout.decode(), r.stderr), (0, '{"id":4,"full_name":"Dee","qty":1}\n', b""))
        r = subprocess.run([example, self.server.base_url, self.subject], input=b"0100\n", capture_output=True,
                           timeout=60)
        self.assertEqual((r.returncode, r.stderr.decode()), (1, "unknown magic byte 0x01 (expected 0x00)\n"))

    def test_evolution_restart(self):
        old = self.encode(1, [{"id": 1, "name": "a"}])
        new = self.encode(2, [{"id": 2, "full_name": "b", "qty": 3}])
        stream = old + new + old
        r = self.cli("decode", "--subject", self.subject, "--reader", "1", "--evolution", "restart",
                     input_text=stream)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.stdout.decode(), '{"id":1,"name":"a"}\n')
        self.assertEqual(r.stderr.decode(),
                         f"schema-registry decode: restart: stdin line 2: schema id {self.id2} is version 2 of "
                         f"subject {self.subject}, newer than the reader's version 1\n")
        # The latest reader does not restart on its own version.
        r = self.cli("decode", "--subject", self.subject, "--evolution", "restart", input_text=stream)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.decode().splitlines()), 3)
        # Evolution none with the v1 reader: v2 has no field "name" (the alias is
        # v2's, the reader's is what counts), so the record is bad.
        r = self.cli("decode", "--subject", self.subject, "--reader", "1", input_text=stream)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout.decode(), '{"id":1,"name":"a"}\n')
        self.assertEqual(r.stderr.decode(),
                         f"schema-registry decode: stdin line 2: schema {self.id2}: app.User: the reader's field "
                         f"name is not in the writer's schema and has no default\n")

    def test_bad_records_failfast_and_permissive(self):
        good = self.encode(1, [{"id": 1, "name": "a"}]).strip()
        bad = {
            "01" + good[2:]: "unknown magic byte 0x01 (expected 0x00)",
            "000000": "a record shorter than its 5-byte header (3 bytes)",
            "00" + "0098967f" + good[10:]: "Schema 9999999 not found",
            good[:-2]: f"schema {self.id1}: truncated: a length of 1 bytes with 0 left",
            good + "00": f"schema {self.id1}: 1 trailing bytes after the record",
            "zz": "not a hex line",
        }
        for line, message in bad.items():
            r = self.cli("decode", "--subject", self.subject, input_text=good + "\n" + line + "\n" + good + "\n")
            self.assertEqual(r.returncode, 1, line)
            self.assertEqual(r.stdout.decode(), '{"id":1,"full_name":"a","qty":1}\n', line)
            self.assertEqual(r.stderr.decode(), f"schema-registry decode: stdin line 2: {message}\n", line)
        r = self.cli("decode", "--subject", self.subject, "--mode", "PERMISSIVE",
                     input_text="\n".join([good, *bad, good]) + "\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(),
                         ['{"id":1,"full_name":"a","qty":1}'] + ["null"] * len(bad) + ['{"id":1,"full_name":"a","qty":1}'])
        self.assertEqual(r.stderr.decode(),
                         f"schema-registry decode: {len(bad)} bad records of {len(bad) + 2} (PERMISSIVE: a null row each)\n")

    def test_json_schema_records_pass_through(self):
        subject = self.sub("events-value")
        schema = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})
        jid = self.register_ok(subject, schema, schema_type="JSON")
        enc = self.cli("encode", "--subject", subject, input_text='{ "n": 1,  "s": ["a", {"b": null}] }\n')
        self.assertEqual(enc.returncode, 0, enc.stderr)
        body = b'{"n":1,"s":["a",{"b":null}]}'
        self.assertEqual(enc.stdout.decode(), "00" + f"{jid:08x}" + body.hex() + "\n")
        # Python frames its own record the way Confluent's JSONSerializer does.
        theirs = struct.pack(">bI", 0, jid) + b'{"n": 2}'
        bad = struct.pack(">bI", 0, jid) + b'{"n": 2'
        r = self.cli("decode", "--subject", subject, "--mode", "PERMISSIVE",
                     input_text=enc.stdout.decode() + theirs.hex() + "\n" + bad.hex() + "\n")
        self.assertEqual((r.returncode, r.stdout.decode()), (0, body.decode() + '\n{"n":2}\nnull\n'), r.stderr)
        r = self.cli("decode", "--subject", subject, input_text=bad.hex() + "\n")
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stderr.decode().startswith(
            f"schema-registry decode: stdin line 1: schema {jid}: not one JSON value: "), r.stderr)
        # An Avro record cannot be read into a JSON reader.
        avro_line = self.encode(1, [{"id": 1, "name": "a"}])
        r = self.cli("decode", "--subject", subject, input_text=avro_line)
        self.assertEqual((r.returncode, r.stderr.decode()),
                         (1, f"schema-registry decode: stdin line 1: schema {self.id1} is Avro and the reader is not\n"))

    def test_kcat_key_value_lines(self):
        """`kcat -C -K:` lines: the key passed through, the record after the last
        delimiter decoded (a key may hold the delimiter, hex never does)."""
        recs = self.encode(1, [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]).splitlines()
        r = self.cli("decode", "--subject", self.subject, "--key-delimiter", ":",
                     input_text=f"k1:{recs[0]}\nuser:2:{recs[1]}\n:{recs[0]}\n")
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.assertEqual(r.stdout.decode().splitlines(), ['k1:{"id":1,"full_name":"a","qty":1}',
                                                          'user:2:{"id":2,"full_name":"b","qty":1}',
                                                          ':{"id":1,"full_name":"a","qty":1}'])
        r = self.cli("decode", "--subject", self.subject, "--key-delimiter", "::", "--mode", "PERMISSIVE",
                     input_text=f"k::zz\n{recs[0]}\nk2::{recs[1]}\n")
        self.assertEqual((r.returncode, r.stdout.decode()),
                         (0, 'k::null\nnull\nk2::{"id":2,"full_name":"b","qty":1}\n'))
        r = self.cli("decode", "--subject", self.subject, "--key-delimiter", "\t", input_text=recs[0] + "\n")
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()),
                         (1, b"", "schema-registry decode: stdin line 1: no key delimiter\n"))
        r = self.cli("decode", "--key-delimiter", "", input_text=recs[0] + "\n")
        self.assertEqual((r.returncode, r.stderr.decode()), (2,
            "schema-registry decode: --key-delimiter is one or more characters (see --help)\n"))

    def test_stats(self):
        lines = self.encode(1, [{"id": i, "name": "n"} for i in range(50)])
        r = self.cli("decode", "--subject", self.subject, "--stats", input_text=lines)
        self.assertEqual((r.returncode, len(r.stdout.decode().splitlines())), (0, 50), r.stderr)
        self.assertRegex(r.stderr.decode(), r"^schema-registry decode: 50 records, %d bytes in \d+\.\d{3} s: "
                         r"\d+ records/s, \d+\.\d\d MB/s\n$" % len(lines))

    def test_progress_line_on_a_terminal(self):
        """stderr a terminal (a pty): the progress line is rewritten in place and erased at the end."""
        lines = self.encode(1, [{"id": 1, "name": "n"}]) * 300000
        master, slave = pty.openpty()
        p = subprocess.Popen([harness.server_binary(), "decode", "--registry", self.server.base_url,
                              "--subject", self.subject, "--stats"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        out = []

        def drain():
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                out.append(chunk)
        reader = threading.Thread(target=drain)
        reader.start()
        # Slowly enough that at least one second passes while records flow.
        chunk = 60000 * len(lines.splitlines()[0].encode() + b"\n")
        data = lines.encode()
        for i in range(0, len(data), chunk):
            p.stdin.write(data[i:i + chunk])
            p.stdin.flush()
            time.sleep(0.3)
        p.stdin.close()
        self.assertEqual(p.wait(60), 0)
        reader.join(10)
        os.close(master)
        text = b"".join(out).decode()
        self.assertRegex(text, r"\rschema-registry decode: \d+ records, \d+ records/s ")
        self.assertRegex(text, r"\r\x1b\[Kschema-registry decode: 300000 records, ")


        for args, message in [
            ((), "--registry URL is required"),
            (("--registry", "http://x", "--mode", "lenient"), "--mode is FAILFAST or PERMISSIVE"),
            (("--registry", "http://x", "--evolution", "restart"), "--evolution restart needs --subject"),
            (("--registry", "http://x", "--reader", "2"), "--reader latest or VERSION needs --subject"),
            (("--registry", "http://x", "--bogus"), None),
        ]:
            r = run("decode", *args)
            self.assertEqual(r.returncode, 2, args)
            if message:
                self.assertEqual(r.stderr.decode(), f"schema-registry decode: {message} (see --help)\n")
        r = run("decode", "--registry")
        self.assertEqual((r.returncode, r.stderr.decode()),
                         (2, "schema-registry decode: --registry needs a value (see --help)\n"))
        for command in ("decode", "encode"):
            r = run(command, "--help")
            self.assertEqual(r.returncode, 0)
            self.assertTrue(r.stdout.decode().startswith(f"Usage: schema-registry {command} --registry URL"))
            self.assertIn("Exit status: 0 done", r.stdout.decode())
        top = run("--help").stdout.decode()
        self.assertIn("schema-registry decode [flags]", top)
        self.assertIn("schema-registry encode [flags]", top)
        r = self.cli("decode", "--subject", "no-such-subject")
        self.assertEqual((r.returncode, r.stderr.decode()),
                         (1, "schema-registry decode: Subject 'no-such-subject' not found.\n"))
        r = self.cli("encode", "--subject", self.subject, "--version", "1", input_text='{"id": "x", "name": "a"}\n')
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()),
                         (1, b"", "schema-registry encode: stdin line 1: field id: long: expected an integer\n"))


ORDER_V1 = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  int64 id = 1;
  string item = 2;
  google.protobuf.Timestamp at = 3;
  map<string, int32> tags = 4;
  Line line = 5;
  message Line { string sku = 1; repeated uint32 qty = 2; }
}
message Refund { int64 order_id = 1; }
"""
# v2: item renamed (fields match by number), qty added, Refund unchanged.
ORDER_V2 = ORDER_V1.replace("string item = 2;", "string item_name = 2; int32 qty = 6;")


def protoc_encode(proto_text, message, text):
    """Debian's protoc writes the message from text format (its own
    google/protobuf includes resolve the imports)."""
    workdir = harness.make_temp_dir("protoc")
    with open(os.path.join(workdir, "x.proto"), "w") as f:
        f.write(proto_text)
    r = subprocess.run(["protoc", "-I" + workdir, "--encode=" + message, os.path.join(workdir, "x.proto")],
                       input=text.encode(), capture_output=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode())
    return r.stdout


class DecodeProtobuf(harness.RegistryTestCase):
    """Protobuf records written by protoc, framed as KafkaProtobufSerializer
    frames them (id, message indexes, message), read by `decode`."""

    def setUp(self):
        super().setUp()
        self.subject = self.sub("orders-value")
        self.id1 = self.register_ok(self.subject, ORDER_V1, schema_type="PROTOBUF")
        self.id2 = self.register_ok(self.subject, ORDER_V2, schema_type="PROTOBUF")

    def cli(self, *args, input_text=""):
        return run("decode", "--registry", self.server.base_url, *args, input_text=input_text)

    def record(self, schema_id, indexes, proto_text, message, text):
        return (struct.pack(">bI", 0, schema_id) + bytes.fromhex(indexes)
                + protoc_encode(proto_text, message, text)).hex() + "\n"

    def test_rows_in_the_proto3_json_mapping(self):
        v1 = self.record(self.id1, "00", ORDER_V1, "shop.Order",
                         'id: 7 item: "pen" at { seconds: 1706702400 nanos: 5000000 } tags { key: "red" value: 1 }'
                         ' line { sku: "p-1" qty: [1, 2] }')
        refund = self.record(self.id1, "0202", ORDER_V1, "shop.Refund", "order_id: -3")
        line = self.record(self.id1, "040000", ORDER_V1, "shop.Order.Line", 'sku: "s"')
        # Each record read with its own schema; the message indexes pick the message.
        r = self.cli(input_text=v1 + refund + line)
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.assertEqual(r.stdout.decode().splitlines(), [
            '{"id":"7","item":"pen","at":"2024-01-31T12:00:00.005Z","tags":{"red":1},'
            '"line":{"sku":"p-1","qty":[1,2]}}',
            '{"orderId":"-3"}',
            '{"sku":"s","qty":[]}'])
        # The v1 record read with the latest version: by field number, the renamed
        # field keeps its value and the added one takes its default (declaration order).
        r = self.cli("--subject", self.subject, input_text=v1)
        self.assertEqual((r.returncode, r.stdout.decode()), (0,
            '{"id":"7","itemName":"pen","qty":0,"at":"2024-01-31T12:00:00.005Z","tags":{"red":1},'
            '"line":{"sku":"p-1","qty":[1,2]}}\n'), r.stderr)

    def test_restart_and_bad_records(self):
        v1 = self.record(self.id1, "00", ORDER_V1, "shop.Order", "id: 1")
        v2 = self.record(self.id2, "00", ORDER_V2, "shop.Order", "id: 2 qty: 5")
        r = self.cli("--subject", self.subject, "--reader", "1", "--evolution", "restart", input_text=v1 + v2)
        self.assertEqual((r.returncode, r.stdout.decode()), (3, '{"id":"1","item":"","tags":{}}\n'))
        self.assertEqual(r.stderr.decode(), f"schema-registry decode: restart: stdin line 2: schema id {self.id2} "
                         f"is version 2 of subject {self.subject}, newer than the reader's version 1\n")
        # A string claiming more bytes than the record has; indexes naming no message.
        truncated = struct.pack(">bI", 0, self.id1).hex() + "00" + "1205" + b"ab".hex() + "\n"
        nowhere = struct.pack(">bI", 0, self.id1).hex() + "0208" + "\n"
        r = self.cli("--mode", "PERMISSIVE", input_text=truncated + nowhere + v1)
        self.assertEqual((r.returncode, r.stdout.decode()), (0, 'null\nnull\n{"id":"1","item":"","tags":{}}\n'))
        r = self.cli(input_text=truncated)
        self.assertEqual((r.returncode, r.stderr.decode()), (1,
            f"schema-registry decode: stdin line 1: schema {self.id1}: a length of 5 with 2 bytes left\n"))
        # An Avro reader does not read Protobuf records.
        avro_subject = self.sub("users-value")
        self.register_ok(avro_subject, V1)
        r = self.cli("--subject", avro_subject, input_text=v1)
        self.assertEqual((r.returncode, r.stderr.decode()), (1,
            f"schema-registry decode: stdin line 1: schema {self.id1} is Protobuf and the reader is not\n"))


class DocExamples(harness.RegistryTestCase):
    """docs/decoding.md's shell examples, run as written against a new server
    (so its ids are 1 and 2): stdout and stderr are its "#" lines."""

    def test_shell_examples(self):
        with open(os.path.join(harness.HERE, "..", "..", "docs", "decoding.md")) as f:
            doc = f.read()
        # Every sh block, in order, as one script.
        block = "".join(part.split("```\n", 1)[0] for part in doc.split("```sh\n")[1:])
        out, err = [], []
        for line in block.splitlines():
            if line.startswith("# stderr: "):
                err.append(line[len("# stderr: "):])
            elif line.startswith("# {") or line in ("# null", "# exit status 3"):
                out.append(line[2:])
        workdir = harness.make_temp_dir("doc-examples")
        env = dict(os.environ, PATH=os.path.dirname(harness.server_binary()) + ":" + os.environ["PATH"])
        script = block.replace("http://localhost:8081", self.server.base_url)
        r = subprocess.run(["bash", "-c", script], cwd=workdir, env=env, capture_output=True, timeout=120)
        self.assertEqual(r.stdout.decode().splitlines(), out, r.stderr.decode())
        self.assertEqual(r.stderr.decode().splitlines(), err)


class DecodeTlsBasic(harness.RegistryTestCase):
    """The client over TLS (HTTP/2 by ALPN) with Basic credentials."""

    @classmethod
    def setUpClass(cls):
        cls.dir = harness.make_temp_dir("decode-tls")
        cls.cert = harness.make_self_signed_cert(cls.dir)
        users = make_users(cls.dir, {"reader": "s3cret:x"})
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.server = harness.Server(database_url=cls.db.url, name="decode-tls", tls=cls.cert,
                                    args=("--auth-basic-users-file", users))
        cls.server.start()

    def test_tls_and_basic_auth(self):
        subject = "tls-value"
        r = harness.curl(self.server.base_url + f"/subjects/{subject}/versions", method="POST",
                         body={"schema": V1}, mode="h2", args=("--cacert", self.cert[0], "-u", "reader:s3cret:x"))
        self.assertEqual(r.status, 200, r)
        base = ("--registry", self.server.base_url, "--ca", self.cert[0])
        enc = run("encode", *base, "--basic-auth", "reader:s3cret:x", "--subject", subject,
                  input_text='{"id": 5, "name": "t"}\n')
        self.assertEqual(enc.returncode, 0, enc.stderr)
        dec = run("decode", *base, "--basic-auth", "reader:s3cret:x", "--subject", subject,
                  input_text=enc.stdout.decode())
        self.assertEqual((dec.returncode, dec.stdout.decode()), (0, '{"id":5,"name":"t"}\n'), dec.stderr)
        wrong = run("decode", *base, "--basic-auth", "reader:nope", "--subject", subject)
        self.assertEqual(wrong.returncode, 1)
        self.assertIn("schema-registry decode: ", wrong.stderr.decode())
        # Without a subject nothing is fetched at start: the first record's id
        # is. A 401 then is no bad record, in PERMISSIVE mode neither.
        wrong = run("decode", *base, "--basic-auth", "reader:nope", "--mode", "PERMISSIVE",
                    input_text=enc.stdout.decode())
        self.assertEqual((wrong.returncode, wrong.stdout), (1, b""))
        self.assertTrue(wrong.stderr.decode().startswith("schema-registry decode: stdin line 1: "), wrong.stderr)
        untrusted = run("decode", "--registry", self.server.base_url, "--basic-auth", "reader:s3cret:x",
                        "--subject", subject)
        self.assertEqual(untrusted.returncode, 1)
        self.assertIn("SSL", untrusted.stderr.decode())


class DecodeMtls(harness.unittest.TestCase):
    """The client's certificate (--cert, --key) where the server requires one."""

    @classmethod
    def setUpClass(cls):
        cls.ca = harness.Pki(os.path.join(harness.make_temp_dir("decode-pki"), "ca"), "Decoder CA")
        cls.good = cls.ca.issue("consumer")
        cls.db = harness.cluster().new_database("decmtls")
        cls.server = harness.Server(database_url=cls.db.url, name="decode-mtls", tls=cls.ca.server_cert(),
                                    args=["--tls-client-auth", "required", "--tls-client-ca", cls.ca.cert],
                                    client_cert=cls.good).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_client_certificate(self):
        r = self.server.client().post("/subjects/m-value/versions", {"schema": V1})
        self.assertEqual(r.status, 200, r)
        base = ("--registry", self.server.base_url, "--ca", self.ca.cert, "--subject", "m-value")
        mine = ("--cert", self.good[0], "--key", self.good[1])
        enc = run("encode", *base, *mine, input_text='{"id": 1, "name": "m"}\n')
        self.assertEqual(enc.returncode, 0, enc.stderr)
        dec = run("decode", *base, *mine, input_text=enc.stdout.decode())
        self.assertEqual((dec.returncode, dec.stdout.decode()), (0, '{"id":1,"name":"m"}\n'), dec.stderr)
        without = run("decode", *base, input_text=enc.stdout.decode())
        self.assertEqual(without.returncode, 1)
        self.assertTrue(without.stderr.decode().startswith("schema-registry decode: https://"), without.stderr)
        half = run("decode", *base, "--cert", self.good[0])
        self.assertEqual((half.returncode, half.stderr.decode()),
                         (2, "schema-registry decode: a client certificate needs its key and a key its certificate\n"))


# -- encode: Protobuf, --auto-register, JSON Schema --validate (docs/decoding.md, sections 8 to 10) --

ALL_TYPES = """syntax = "proto3";
package kit;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
message Every {
  enum Color { RED = 0; GREEN = 1; BLUE = 2; }
  double d = 1; float f = 2; int64 i64 = 3; uint64 u64 = 4; int32 i32 = 5; fixed64 fx64 = 6;
  fixed32 fx32 = 7; bool b = 8; string s = 9; bytes raw = 10; uint32 u32 = 11; Color color = 12;
  sfixed32 sf32 = 13; sfixed64 sf64 = 14; sint32 si32 = 15; sint64 si64 = 16;
  repeated int32 nums = 17; repeated string names = 18; map<int32, string> by_id = 19;
  Inner inner = 20; repeated Inner inners = 21;
  oneof pick { string label = 22; int32 code = 23; }
  optional int32 maybe = 24;
  google.protobuf.Timestamp at = 25; google.protobuf.Duration took = 26;
  google.protobuf.Int64Value big = 27; google.protobuf.StringValue note = 28;
  google.protobuf.Struct extra = 29; google.protobuf.Value any_value = 30;
  message Inner { string sku = 1; repeated sint64 deltas = 2; }
}
message Other { string id = 1; }
"""

# Rows as decode prints them (the proto3 JSON mapping, fields without presence printed).
ALL_ROWS = [
    {"d": 1.5, "f": 0.25, "i64": "-9000000000", "u64": "18446744073709551615", "i32": -7, "fx64": "12",
     "fx32": 4294967295, "b": True, "s": "h\u00e9llo", "raw": "AAEC/w==", "u32": 3, "color": "BLUE", "sf32": -2,
     "sf64": "-3", "si32": -2147483648, "si64": "-9223372036854775808", "nums": [1, -1, 300], "names": ["a", ""],
     "byId": {"7": "seven"}, "inner": {"sku": "p-1", "deltas": ["-1", "2"]},
     "inners": [{"sku": "", "deltas": []}, {"sku": "x", "deltas": []}], "code": 0, "maybe": 0,
     "at": "2024-01-31T12:00:00.005Z", "took": "-1.500s", "big": "5", "note": "", "extra": {"k": [1, "v", None, True]},
     "anyValue": None},
    {"d": 0, "f": 0, "i64": "0", "u64": "0", "i32": 0, "fx64": "0", "fx32": 0, "b": False, "s": "", "raw": "",
     "u32": 0, "color": "RED", "sf32": 0, "sf64": "0", "si32": 0, "si64": "0", "nums": [], "names": [], "byId": {},
     "inners": [], "label": "L"},
]

ALL_TEXT = [  # what protoc --decode prints for each row
    """d: 1.5
f: 0.25
i64: -9000000000
u64: 18446744073709551615
i32: -7
fx64: 12
fx32: 4294967295
b: true
s: "h\\303\\251llo"
raw: "\\000\\001\\002\\377"
u32: 3
color: BLUE
sf32: -2
sf64: -3
si32: -2147483648
si64: -9223372036854775808
nums: 1
nums: -1
nums: 300
names: "a"
names: ""
by_id {
  key: 7
  value: "seven"
}
inner {
  sku: "p-1"
  deltas: -1
  deltas: 2
}
inners {
}
inners {
  sku: "x"
}
code: 0
maybe: 0
at {
  seconds: 1706702400
  nanos: 5000000
}
took {
  seconds: -1
  nanos: -500000000
}
big {
  value: 5
}
note {
}
extra {
  fields {
    key: "k"
    value {
      list_value {
        values {
          number_value: 1
        }
        values {
          string_value: "v"
        }
        values {
          null_value: NULL_VALUE
        }
        values {
          bool_value: true
        }
      }
    }
  }
}
any_value {
  null_value: NULL_VALUE
}
""",
    'label: "L"\n',
]


def protoc_decode(proto_text, message, data):
    workdir = harness.make_temp_dir("protoc")
    with open(os.path.join(workdir, "x.proto"), "w") as f:
        f.write(proto_text)
    r = subprocess.run(["protoc", "-I" + workdir, "--decode=" + message, os.path.join(workdir, "x.proto")],
                       input=data, capture_output=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode())
    return r.stdout.decode()


def python_message_class(proto_text, message):
    """python3-protobuf's class for message, from protoc's descriptor set of the file."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError as exc:                  # a missing dependency is a failure, not a skip
        raise SystemExit(f"python3-protobuf not importable ({exc}); run scripts/install-deps.sh") from exc
    workdir = harness.make_temp_dir("protoc")
    with open(os.path.join(workdir, "x.proto"), "w") as f:
        f.write(proto_text)
    out = os.path.join(workdir, "x.desc")
    subprocess.run(["protoc", "-I" + workdir, "--include_imports", "--descriptor_set_out=" + out,
                    os.path.join(workdir, "x.proto")], check=True, timeout=60)
    fds = descriptor_pb2.FileDescriptorSet()
    with open(out, "rb") as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    desc = pool.FindMessageTypeByName(message)
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def python_row(cls, data):
    from google.protobuf import json_format
    m = cls()
    m.ParseFromString(data)
    try:
        return json_format.MessageToDict(m, always_print_fields_with_no_presence=True)
    except TypeError:                           # python3-protobuf 3.x's name for it
        return json_format.MessageToDict(m, including_default_value_fields=True)


class EncodeProtobuf(harness.RegistryTestCase):
    """`encode` of Protobuf rows: what it writes protoc and python3-protobuf
    read as the same values, and `decode` gives the rows back."""

    def setUp(self):
        super().setUp()
        self.subject = self.sub("kit-value")
        self.id = self.register_ok(self.subject, ALL_TYPES, schema_type="PROTOBUF")

    def cli(self, command, *args, input_text=""):
        return run(command, "--registry", self.server.base_url, *args, input_text=input_text)

    def test_round_trip_with_protoc_and_python(self):
        rows = "".join(json.dumps(r) + "\n" for r in ALL_ROWS)
        enc = self.cli("encode", "--subject", self.subject, input_text=rows)
        self.assertEqual((enc.returncode, enc.stderr), (0, b""))
        records = [bytes.fromhex(x) for x in enc.stdout.decode().splitlines()]
        self.assertEqual(len(records), 2)
        cls = python_message_class(ALL_TYPES, "kit.Every")
        for record, row, text in zip(records, ALL_ROWS, ALL_TEXT):
            # 00, the id, the message indexes [0] as the single byte 0 (MessageIndexes), the message.
            self.assertEqual(record[:6], struct.pack(">bI", 0, self.id) + b"\x00")
            self.assertEqual(protoc_decode(ALL_TYPES, "kit.Every", record[6:]), text)
            self.assertEqual(python_row(cls, record[6:]), row)
            # protoc's own serialization of the same message is the same bytes
            # (fields in number order, defaults left out, packed repeated scalars).
            from google.protobuf import json_format
            m = json_format.Parse(json.dumps(row), cls())
            self.assertEqual(m.SerializeToString(deterministic=True), record[6:])
        dec = self.cli("decode", input_text=enc.stdout.decode())
        self.assertEqual((dec.returncode, dec.stderr), (0, b""))
        self.assertEqual([json.loads(x) for x in dec.stdout.decode().splitlines()], ALL_ROWS)

    def test_message_choice_and_input_forms(self):
        # --message by full name or within the package; nested messages count per level.
        for name, full, indexes, row in (("kit.Other", "kit.Other", "0202", {"id": "x"}),
                                         ("Other", "kit.Other", "0202", {"id": "y"}),
                                         ("Every.Inner", "kit.Every.Inner", "040000", {"sku": "s", "deltas": ["-4"]}),
                                         ("kit.Every", "kit.Every", "00", {"s": "t"})):
            enc = self.cli("encode", "--subject", self.subject, "--message", name, input_text=json.dumps(row) + "\n")
            self.assertEqual(enc.returncode, 0, enc.stderr)
            record = bytes.fromhex(enc.stdout.decode().strip())
            self.assertEqual(record[5:5 + len(indexes) // 2].hex(), indexes, name)
            got = python_row(python_message_class(ALL_TYPES, full), record[5 + len(indexes) // 2:])
            self.assertEqual({k: got[k] for k in row}, row, name)
            dec = self.cli("decode", input_text=enc.stdout.decode())
            self.assertEqual(dec.returncode, 0, dec.stderr)
            self.assertEqual({k: v for k, v in json.loads(dec.stdout).items() if k in row}, row, name)
        # Field names as well as json_names, 64-bit integers as numbers, enums by number,
        # NaN as a string, url-safe unpadded base64: the rows decode prints.
        enc = self.cli("encode", "--subject", self.subject,
                       input_text='{"by_id": {"-1": "m"}, "i64": 5, "color": 1, "d": "NaN", "raw": "-_8"}\n')
        self.assertEqual(enc.returncode, 0, enc.stderr)
        dec = self.cli("decode", input_text=enc.stdout.decode())
        row = json.loads(dec.stdout)
        self.assertEqual((row["byId"], row["i64"], row["color"], row["d"], row["raw"]),
                         ({"-1": "m"}, "5", "GREEN", "NaN", "+/8="))

    def test_bad_rows(self):
        cases = [
            ('{"nope": 1}', "kit.Every has no field \"nope\""),
            ('{"i32": 2147483648}', "field \"i32\": 2147483648 is out of range"),
            ('{"u64": "-1"}', "field \"u64\": \"-1\" is not an unsigned integer in range"),
            ('{"color": "PINK"}', "field \"color\": enum Color has no value \"PINK\""),
            ('{"label": "a", "code": 1}', "kit.Every: two members of one oneof are set"),
            ('{"nums": [1, null]}', "field \"nums\": null in a repeated field"),
            ('{"at": "2024-02-30T00:00:00Z"}', "a Timestamp with no such day: \"2024-02-30T00:00:00Z\""),
            ('{"s": 1}', "field \"s\": expected a string"),
            ('[1]', "kit.Every is a JSON object"),
        ]
        for row, message in cases:
            r = self.cli("encode", "--subject", self.subject, input_text=row + "\n")
            self.assertEqual((r.returncode, r.stdout, r.stderr.decode()),
                             (1, b"", f"schema-registry encode: stdin line 1: {message}\n"), row)
        r = self.cli("encode", "--subject", self.subject, "--message", "kit.Nope", input_text="{}\n")
        self.assertEqual((r.returncode, r.stderr.decode()), (1,
            "schema-registry encode: stdin line 1: message kit.Nope is not a message of the schema's file\n"))
        r = self.cli("encode", "--subject", self.subject, "--mode", "PERMISSIVE", input_text='{"nope": 1}\n{}\n')
        self.assertEqual((r.returncode, r.stdout.decode()),
                         (0, struct.pack(">bI", 0, self.id).hex() + "00\n"))
        self.assertEqual(r.stderr.decode().splitlines()[-1],
                         "schema-registry encode: 1 bad rows of 2 (PERMISSIVE: not written)")


# Schema references (issue 16): refs_a.proto imports refs_b.proto, which
# imports refs_c.proto, each registered under its own subject, as Confluent's
# KafkaProtobufSerializer registers imports (AbstractKafkaSchemaSerDe
# resolves a schema's references by subject and version, recursively); the
# google/protobuf files are built in and need no reference.
REF_C = """syntax = "proto3";
package common.level;
enum Level { LOW = 0; HIGH = 1; }
"""
REF_B = """syntax = "proto3";
package common;
import "google/protobuf/timestamp.proto";
import "refs_c.proto";
message Money { string currency = 1; int64 units = 2; google.protobuf.Timestamp at = 3; common.level.Level level = 4; }
"""
REF_A = """syntax = "proto3";
package shop;
import "refs_b.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/any.proto";
message Payment {
  string id = 1;
  common.Money amount = 2;
  repeated common.Money parts = 3;
  map<string, common.Money> by_key = 4;
  google.protobuf.Duration took = 5;
  google.protobuf.StringValue note = 6;
  google.protobuf.Struct extra = 7;
  google.protobuf.Empty nothing = 8;
  google.protobuf.FieldMask mask = 9;
  google.protobuf.Any any = 10;
  repeated google.protobuf.Any anys = 11;
}
"""


def protoc_python_files(files, module):
    """The _pb2 module `module` of files ({name: text}), by protoc --python_out."""
    workdir = harness.make_temp_dir("pb2")
    for name, text in files.items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(text)
    subprocess.run(["protoc", "-I" + workdir, "--python_out=" + workdir,
                    *[os.path.join(workdir, n) for n in files]], check=True, timeout=60)
    sys.path.insert(0, workdir)
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(workdir)


class ProtobufReferences(harness.RegistryTestCase):
    """A schema whose types come from other subjects' files: records that
    python3-protobuf writes decode, and what `encode` writes it parses."""

    def test_imported_types_decode_and_encode(self):
        from google.protobuf import json_format
        sc, sb, sa = self.sub("refs_c"), self.sub("refs_b"), self.sub("payments-value")
        self.register_ok(sc, REF_C, schema_type="PROTOBUF")
        self.register_ok(sb, REF_B, schema_type="PROTOBUF",
                         references=[{"name": "refs_c.proto", "subject": sc, "version": 1}])
        ida = self.register_ok(sa, REF_A, schema_type="PROTOBUF",
                               references=[{"name": "refs_b.proto", "subject": sb, "version": 1}])
        pb2 = protoc_python_files({"refs_a.proto": REF_A, "refs_b.proto": REF_B, "refs_c.proto": REF_C},
                                  "refs_a_pb2")
        money = sys.modules["refs_b_pb2"].Money  # imported by refs_a_pb2
        msgs = [pb2.Payment(),
                pb2.Payment(id="p-1", amount=money(currency="EUR", units=-5, level=1),
                            parts=[money(currency="a"), money()], by_key={"k": money(units=2)}),
                pb2.Payment(id="p-2")]
        msgs[1].amount.at.FromJsonString("2024-01-31T12:00:00.005Z")
        msgs[1].took.FromJsonString("3.005s")
        msgs[1].note.value = "hi"
        msgs[1].extra.update({"a": [1, "x", None, True], "b": {"c": 2.5}})
        msgs[2].nothing.SetInParent()
        msgs[1].mask.paths.extend(["amount.units", "by_key", "parts.at"])
        msgs[2].mask.SetInParent()
        # Any unpacks the types the schema's plan holds: its file's and those they reach.
        msgs[1].any.Pack(money(currency="USD", units=3))
        msgs[1].anys.add().Pack(msgs[1].took)
        msgs[1].anys.add().Pack(pb2.Payment(id="inner"))
        msgs[1].anys.add()
        records = [struct.pack(">bI", 0, ida) + b"\x00" + m.SerializeToString() for m in msgs]
        dec = run("decode", "--registry", self.server.base_url, input_text="".join(r.hex() + "\n" for r in records))
        self.assertEqual((dec.returncode, dec.stderr), (0, b""))
        rows = [json.loads(x) for x in dec.stdout.decode().splitlines()]
        self.assertEqual(rows, [python_row(pb2.Payment, m.SerializeToString()) for m in msgs])
        self.assertEqual(rows[1]["amount"], {"currency": "EUR", "units": "-5", "at": "2024-01-31T12:00:00.005Z",
                                             "level": "HIGH"})
        self.assertEqual((rows[1]["mask"], rows[2]["mask"], rows[2]["nothing"]),
                         ("amount.units,byKey,parts.at", "", {}))
        self.assertEqual(rows[1]["any"], {"@type": "type.googleapis.com/common.Money", "currency": "USD",
                                          "units": "3", "level": "LOW"})
        self.assertEqual(rows[1]["anys"][0], {"@type": "type.googleapis.com/google.protobuf.Duration",
                                              "value": "3.005s"})
        self.assertEqual((rows[1]["anys"][1]["id"], rows[1]["anys"][2]), ("inner", {}))
        # Ours encoded: python3-protobuf parses the same messages.
        enc = run("encode", "--registry", self.server.base_url, "--subject", sa,
                  input_text="".join(json.dumps(r) + "\n" for r in rows))
        self.assertEqual((enc.returncode, enc.stderr), (0, b""))
        ours = [bytes.fromhex(x) for x in enc.stdout.decode().splitlines()]
        for m, rec in zip(msgs, ours):
            self.assertEqual(rec[:6], struct.pack(">bI", 0, ida) + b"\x00")
            self.assertEqual(pb2.Payment.FromString(rec[6:]), m)
        # A FieldMask path in JSON is lowerCamelCase (json_format refuses "_" too).
        bad = run("encode", "--registry", self.server.base_url, "--subject", sa, input_text='{"mask": "a_b"}\n')
        self.assertEqual((bad.returncode, bad.stderr.decode()), (1, "schema-registry encode: stdin line 1: "
                                                                    "a FieldMask path in JSON has no \"_\": \"a_b\"\n"))
        bad = run("encode", "--registry", self.server.base_url, "--subject", sa,
                  input_text='{"any": {"@type": "type.googleapis.com/x.Nope"}}\n')
        self.assertEqual((bad.returncode, bad.stderr.decode()), (1, "schema-registry encode: stdin line 1: an Any of a "
                                                                    "type the schema's plan does not hold: "
                                                                    "type.googleapis.com/x.Nope\n"))


class EncodeAutoRegister(harness.RegistryTestCase):
    """Where encode's id comes from, as Confluent's serializers get it
    (AbstractKafkaAvroSerializer.serializeImpl): --auto-register registers
    --schema FILE (auto.register.schemas), without it FILE is looked up
    (POST /subjects/{s}), and without a FILE the subject's version is used."""

    def cli(self, *args, input_text=""):
        return run("encode", "--registry", self.server.base_url, *args, input_text=input_text)

    def write(self, name, text):
        path = os.path.join(harness.make_temp_dir("encode-schemas"), name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_register_lookup_latest(self):
        subject = self.sub("users-value")
        v1 = self.write("v1.avsc", V1)
        row = '{"id": 1, "name": "a"}\n'
        # Not registered: the lookup's 40401, and nothing is registered.
        r = self.cli("--subject", subject, "--schema", v1, input_text=row)
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()), (1, b"",
            f"schema-registry encode: Subject '{subject}' not found.: the schema in {v1} is not a version of "
            f"subject {subject} (--auto-register registers it)\n"))
        self.assertEqual(self.get("/subjects").body, [])
        # --auto-register: version 1, and the records carry its id.
        r = self.cli("--subject", subject, "--schema", v1, "--auto-register", input_text=row)
        self.assertEqual(r.returncode, 0, r.stderr)
        versions = self.versions(subject)
        self.assertEqual(versions.body, [1])
        sid = self.version(subject, 1).body["id"]
        self.assertEqual(r.stdout.decode(), struct.pack(">bI", 0, sid).hex() + "02" + "02" + b"a".hex() + "\n")
        # Registering again is the same id, no new version; the lookup finds it too.
        again = self.cli("--subject", subject, "--schema", v1, "--auto-register", input_text=row)
        looked = self.cli("--subject", subject, "--schema", v1, input_text=row)
        self.assertEqual((again.stdout, looked.stdout, looked.returncode), (r.stdout, r.stdout, 0))
        self.assertEqual(self.versions(subject).body, [1])
        # A schema the subject does not have: the lookup's 40403; registered, version 2.
        v2 = self.write("v2.avsc", V2)
        r = self.cli("--subject", subject, "--schema", v2, input_text='{"id": 2, "full_name": "b"}\n')
        self.assertEqual((r.returncode, r.stderr.decode()), (1,
            f"schema-registry encode: Schema not found: the schema in {v2} is not a version of subject {subject} "
            "(--auto-register registers it)\n"))
        r = self.cli("--subject", subject, "--schema", v2, "--auto-register", input_text='{"id": 2, "full_name": "b"}\n')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.versions(subject).body, [1, 2])
        id2 = self.version(subject, 2).body["id"]
        self.assertEqual(r.stdout.decode()[:10], struct.pack(">bI", 0, id2).hex())
        # No FILE: the latest version, or the one asked for.
        latest = self.cli("--subject", subject, input_text='{"id": 3, "full_name": "c"}\n')
        first = self.cli("--subject", subject, "--version", "1", input_text=row)
        self.assertEqual((latest.stdout.decode()[:10], first.stdout.decode()[:10]),
                         (struct.pack(">bI", 0, id2).hex(), struct.pack(">bI", 0, sid).hex()))

    def test_schema_types_and_usage(self):
        order = self.write("order.proto", ORDER_V1)
        doc = self.write("doc.json", json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}}))
        for path, kind, row in ((order, "PROTOBUF", '{"id": "5"}'), (doc, "JSON", '{"n": 5}')):
            subject = self.sub("typed")
            r = self.cli("--subject", subject, "--schema", path, "--auto-register", input_text=row + "\n")
            self.assertEqual(r.returncode, 0, r.stderr)
            got = self.version(subject, 1).body
            self.assertEqual(got.get("schemaType"), kind)
            dec = run("decode", "--registry", self.server.base_url, input_text=r.stdout.decode())
            self.assertEqual((dec.returncode, json.loads(dec.stdout)), (0, json.loads(row)) if kind == "JSON"
                             else (0, {"id": "5", "item": "", "tags": {}}), dec.stderr)
        # --schema-type overrides the name: a JSON schema in a .txt file.
        subject = self.sub("typed")
        txt = self.write("doc.txt", json.dumps({"type": "string"}))
        r = self.cli("--subject", subject, "--schema", txt, "--schema-type", "json", "--auto-register",
                     input_text='"s"\n')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.version(subject, 1).body.get("schemaType"), "JSON")
        for args, message in ((("--auto-register",), "--auto-register needs --schema FILE"),
                              (("--schema", txt, "--version", "1"), "--version and --schema exclude each other"),
                              (("--schema", txt, "--schema-type", "XML"), "--schema-type is AVRO, PROTOBUF or JSON"),
                              (("--schema-type", "AVRO"), "--schema-type needs --schema FILE"),
                              (("--mode", "LAX"), "--mode is FAILFAST or PERMISSIVE")):
            r = self.cli("--subject", subject, *args)
            self.assertEqual((r.returncode, r.stderr.decode()),
                             (2, f"schema-registry encode: {message} (see --help)\n"), args)
        r = self.cli("--subject", subject, "--message", "x.Y", input_text='"s"\n')
        self.assertEqual((r.returncode, r.stderr.decode()), (2,
            f"schema-registry encode: --message is for Protobuf schemas; schema {self.version(subject, 1).body['id']}"
            " is not one\n"))
        self.assertEqual(self.versions(subject).body, [1])


D2020 = "https://json-schema.org/draft/2020-12/schema"
# (schema, instances as JSON text): each instance validated by our validator
# (decode --validate, encode --validate) and by Debian's python3-jsonschema.
VALIDATION_CASES = [
    ({"type": "object", "required": ["id", "name"], "additionalProperties": False,
      "properties": {"id": {"type": "integer", "minimum": 1}, "name": {"type": "string", "minLength": 1, "maxLength": 5},
                     "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3}}},
     ['{"id": 1, "name": "a"}', '{"id": 1}', '{"id": 0, "name": "a"}', '{"id": 1.0, "name": "a"}',
      '{"id": 1.5, "name": "a"}', '{"id": 2, "name": "h\u00e9llo"}', '{"id": 2, "name": "h\u00e9llo!"}',
      '{"id": 2, "name": ""}', '{"id": 2, "name": "a", "tags": ["x", "x"]}', '{"id": 2, "name": "a", "more": 1}',
      '{"id": 2, "name": "a", "tags": ["a", "b", "c", "d"]}', '"x"', 'null', '{"id": 2, "name": "a", "tags": []}']),
    ({"type": "number", "exclusiveMinimum": 0, "maximum": 10, "multipleOf": 0.5},
     ['0', '0.5', '10', '10.5', '3.3', '7', '"7"', '-1']),
    ({"type": "integer", "multipleOf": 3}, ['9', '10', '9.0', '-3', 'true']),
    ({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer", "minimum": 1, "exclusiveMinimum": True,
      "maximum": 5, "exclusiveMaximum": False},
     ['1', '2', '2.0', '5', '6']),
    ({"type": "string", "pattern": "^[a-z]+-\\d{2,3}$"}, ['"ab-12"', '"ab-1234"', '"AB-12"', '"x-123"', '"-12"']),
    ({"type": "string", "pattern": "(?:ab)+\\.json$", "format": "email"}, ['"abab.json"', '"a.json"', '"x abxjson"']),
    ({"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": {"type": "string"},
      "propertyNames": {"maxLength": 4}, "minProperties": 1, "maxProperties": 2},
     ['{"x-a": 1, "b": "s"}', '{"x-a": "s"}', '{"b": 2}', '{}', '{"long-name": "s"}', '{"a": "1", "b": "2", "c": "3"}']),
    ({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}, ['"s"', '3', '-3', '1.5', 'null']),
    ({"oneOf": [{"multipleOf": 3}, {"multipleOf": 5}], "not": {"const": 30}}, ['9', '10', '15', '7', '30', '"x"']),
    ({"allOf": [{"type": "object"}, {"required": ["a"]}],
      "if": {"properties": {"kind": {"const": "big"}}, "required": ["kind"]},
      "then": {"properties": {"a": {"minimum": 100}}}, "else": {"properties": {"a": {"maximum": 10}}}},
     ['{"a": 5}', '{"a": 50}', '{"kind": "big", "a": 500}', '{"kind": "big", "a": 5}', '{"kind": "small", "a": 5}',
      '{"kind": "big"}']),
    ({"$schema": D2020, "type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/pos"}],
      "items": False, "contains": {"type": "string"}, "$defs": {"pos": {"type": "integer", "minimum": 1}}},
     ['["a", 1]', '["a"]', '["a", 0]', '["a", 1, 2]', '[1, 1]', '[]']),
    ({"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
     ['["a", 1]', '["a", 1, 2]', '[1]', '["a"]']),
    ({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object",
      "dependentRequired": {"card": ["billing"]}, "dependentSchemas": {"gift": {"required": ["to"]}},
      "properties": {"list": {"type": "array", "contains": {"const": 1}, "minContains": 2, "maxContains": 3}}},
     ['{"card": 1, "billing": 2}', '{"card": 1}', '{"gift": true}', '{"gift": true, "to": "x"}',
      '{"list": [1, 2, 1]}', '{"list": [1, 2]}', '{"list": [1, 1, 1, 1]}']),
    ({"definitions": {"node": {"type": "object", "properties": {
        "v": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}},
      "$ref": "#/definitions/node"},
     ['{"v": 1, "children": [{"v": 2, "children": [{"v": 3}]}]}', '{"v": 1, "children": [{"children": [{"v": "x"}]}]}',
      '{"children": {}}']),
    ({"enum": [1, "a", {"k": [1, 2]}, None]}, ['1.0', 'true', '{"k": [1, 2]}', '{"k": [2, 1]}', 'null', '"b"']),
    ({"$schema": "http://json-schema.org/draft-06/schema#", "const": {"a": [True, 2]}, "type": ["object", "null"]},
     ['{"a": [true, 2]}', '{"a": [true, 2.0]}', '{"a": [1, 2]}', 'null']),
    ({"type": "integer", "maximum": 100}, ['1e2', '1.5e2', '101', '-0']),
    ({"type": "string", "maxLength": 2, "minLength": 2}, ['"\U0001F600\U0001F600"', '"\U0001F600"', '"ab"', '"abc"']),
    ({"type": "array", "items": {"type": "string", "pattern": "^\\w+\\s[\\d.]+\\u00e9?$"}},
     ['["ab_1 2.5"]', '["ab 2.5\u00e9"]', '["ab-1 2"]', '["ab  2"]', '["ab 2x"]']),
    # Keywords of other drafts are not keywords: draft 4 has no propertyNames or const, draft 7
    # no dependentRequired, 2019-09 no prefixItems, 2020-12 no dependencies.
    ({"$schema": "http://json-schema.org/draft-04/schema#", "propertyNames": {"maxLength": 1}, "const": 1},
     ['{"long": 1}', '2']),
    ({"dependentRequired": {"a": ["b"]}, "dependencies": {"c": ["d"]}}, ['{"a": 1}', '{"c": 1}']),
    ({"$schema": "https://json-schema.org/draft/2019-09/schema", "prefixItems": [{"type": "string"}],
      "dependencies": {"c": ["d"]}, "dependentRequired": {"a": ["b"]}}, ['[1]', '{"c": 1}', '{"a": 1}']),
    ({"$schema": D2020, "dependencies": {"c": ["d"]}, "dependentSchemas": {"a": {"required": ["b"]}}},
     ['{"c": 1}', '{"a": 1}']),
    ({"$schema": D2020, "$defs": {"name": {"$anchor": "nm", "type": "string", "maxLength": 3}},
      "properties": {"n": {"$ref": "#nm"}, "m": {"$ref": "#/$defs/name", "minLength": 2}}},
     ['{"n": "abc"}', '{"n": "abcd"}', '{"m": "a"}', '{"m": "ab"}']),
]

ADDRESS = {"definitions": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "type": "object",
           "required": ["city"], "properties": {"city": {"type": "string"}, "zip": {"$ref": "#/definitions/zip"}}}
CUSTOMER = {"type": "object", "properties": {"home": {"$ref": "address.json"},
                                             "zips": {"type": "array", "items": {"$ref": "address.json#/definitions/zip"}}}}


def python_verdicts(schema, instances, store=None):
    """python3-jsonschema's verdict for each instance (draft 7 without $schema, as Confluent's JsonSchema)."""
    try:
        import jsonschema
    except ImportError as exc:                  # a missing dependency is a failure, not a skip
        raise SystemExit(f"python3-jsonschema not importable ({exc}); run scripts/install-deps.sh") from exc
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store or {})
    v = cls(schema, resolver=resolver)
    return [v.is_valid(json.loads(i)) for i in instances]


class ValidateJsonSchema(harness.RegistryTestCase):
    """decode --validate and encode --validate against the writer schema,
    verdicts cross-checked with python3-jsonschema on the same instances."""

    def cli(self, *args, input_text=""):
        return run(*args[:1], "--registry", self.server.base_url, *args[1:], input_text=input_text)

    def verdicts(self, subject, instances):
        rows = "".join(i + "\n" for i in instances)
        # Every row written without --validate...
        enc = self.cli("encode", "--subject", subject, input_text=rows)
        self.assertEqual(enc.returncode, 0, enc.stderr)
        # ...read with --validate: a null row for each invalid one (and the
        # count), a row for each valid one (a valid null too: read alone).
        records = enc.stdout.decode().splitlines()
        dec = self.cli("decode", "--validate", "--mode", "PERMISSIVE", input_text=enc.stdout.decode())
        self.assertEqual(dec.returncode, 0, dec.stderr)
        decoded = [line != "null" or self.cli("decode", "--validate", input_text=record + "\n").returncode == 0
                   for line, record in zip(dec.stdout.decode().splitlines(), records)]
        bad = decoded.count(False)
        self.assertEqual(dec.stderr.decode(), f"schema-registry decode: {bad} bad records of {len(instances)} "
                         "(PERMISSIVE: a null row each)\n" if bad else "")
        # encode --validate: the bad rows are named on stderr by line.
        enc = self.cli("encode", "--subject", subject, "--validate", "--mode", "PERMISSIVE", input_text=rows)
        self.assertEqual(enc.returncode, 0, enc.stderr)
        bad = {int(line.split(" line ")[1].split(":")[0]) for line in enc.stderr.decode().splitlines()
               if " line " in line}
        encoded = [n not in bad for n in range(1, len(instances) + 1)]
        self.assertEqual(decoded, encoded, rows)
        return decoded

    def test_verdicts_equal_python_jsonschema(self):
        for schema, instances in VALIDATION_CASES:
            subject = self.sub("js")
            self.register_ok(subject, json.dumps(schema), schema_type="JSON")
            self.assertEqual(self.verdicts(subject, instances), python_verdicts(schema, instances),
                             json.dumps(schema))

    def test_references(self):
        self.register_ok("address", json.dumps(ADDRESS), schema_type="JSON")
        subject = self.sub("customer")
        self.register_ok(subject, json.dumps(CUSTOMER), schema_type="JSON",
                         references=[{"name": "address.json", "subject": "address", "version": 1}])
        instances = ['{"home": {"city": "x", "zip": "12345"}}', '{"home": {"zip": "12345"}}',
                     '{"home": {"city": "x", "zip": "1234"}}', '{"zips": ["12345", "9"]}', '{"zips": []}']
        self.assertEqual(self.verdicts(subject, instances), python_verdicts(CUSTOMER, instances, {"address.json": ADDRESS}))
        self.assertEqual(self.verdicts(subject, instances), [True, False, False, False, True])

    def test_failfast_names_line_and_pointer(self):
        schema, _ = VALIDATION_CASES[0]
        subject = self.sub("js")
        sid = self.register_ok(subject, json.dumps(schema), schema_type="JSON")
        rows = '{"id": 1, "name": "a"}\n\n{"id": 2, "name": "a", "tags": ["x", 3]}\n{"id": 3}\n'
        enc = self.cli("encode", "--subject", subject, input_text=rows)
        dec = self.cli("decode", "--validate", input_text=enc.stdout.decode())
        self.assertEqual((dec.returncode, dec.stdout.decode(), dec.stderr.decode()), (1, '{"id":1,"name":"a"}\n',
            f"schema-registry decode: stdin line 2: schema {sid}: not valid: /tags/1: a number, not of type string\n"))
        enc = self.cli("encode", "--subject", subject, "--validate", input_text=rows)
        self.assertEqual((enc.returncode, len(enc.stdout.decode().splitlines()), enc.stderr.decode()), (1, 1,
            "schema-registry encode: stdin line 3: not valid: /tags/1: a number, not of type string\n"))
        enc = self.cli("encode", "--subject", subject, "--validate", input_text='{"id": 3}\n')
        self.assertEqual(enc.stderr.decode(), 'schema-registry encode: stdin line 1: not valid: "" (the root): '
                         'the required property "name" is missing\n')
        # Without --validate the record passes through, as before.
        dec = self.cli("decode", input_text=self.cli("encode", "--subject", subject, input_text='{"id": 3}\n')
                       .stdout.decode())
        self.assertEqual((dec.returncode, dec.stdout.decode()), (0, '{"id":3}\n'))

    def test_limits(self):
        # Nesting: a recursive schema and a value nested 200 deep (each level
        # applies items and the $ref: the 257th application is at depth 128).
        subject = self.sub("js")
        self.register_ok(subject, json.dumps({"type": "array", "items": {"$ref": "#"}}), schema_type="JSON")
        deep, shallow = "[" * 200 + "]" * 200, "[" * 100 + "]" * 100
        r = self.cli("encode", "--subject", subject, "--validate", input_text=shallow + "\n" + deep + "\n")
        self.assertEqual((r.returncode, len(r.stdout.splitlines())), (1, 1))
        self.assertEqual(r.stderr.decode(), "schema-registry encode: stdin line 2: not valid: " + "/0" * 128
                         + ": schemas applied deeper than 256\n")
        # Work: anyOf of two failing branches, 25 levels deep, is 2^25 evaluations.
        subject = self.sub("js")
        defs = {f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]} for i in range(25)}
        defs["l25"] = {"type": "null"}
        self.register_ok(subject, json.dumps({"$defs": defs, "$ref": "#/$defs/l0"}), schema_type="JSON")
        r = self.cli("encode", "--subject", subject, "--validate", input_text='1\n')
        self.assertEqual((r.returncode, r.stderr.decode()), (1, 'schema-registry encode: stdin line 1: not valid: '
                         '"" (the root): more than 1048576 validation steps\n'))
        # A pattern POSIX has no form for is an error, never a silent pass.
        subject = self.sub("js")
        self.register_ok(subject, json.dumps({"type": "string", "pattern": "^(?!x)"}), schema_type="JSON")
        r = self.cli("encode", "--subject", subject, "--validate", input_text='"a"\n')
        self.assertEqual((r.returncode, r.stderr.decode()), (1, 'schema-registry encode: stdin line 1: not valid: '
                         '"" (the root): pattern "^(?!x)" is not supported: lookaround and named groups have no '
                         'POSIX form\n'))


# Fields unknown to the reader (issue 16: "unknown fields kept or dropped on
# request"): v2 adds fields of wire types 0, 1, 2 and 5 (a packed repeated
# one too) at the top and in a nested message; its records read with v1.
UNK_V1 = """syntax = "proto3";
package unk;
message Event {
  int64 id = 1;
  Detail detail = 2;
  message Detail { string note = 1; }
}
"""
UNK_V2 = """syntax = "proto3";
package unk;
message Event {
  int64 id = 1;
  Detail detail = 2;
  message Detail { string note = 1; int32 level = 2; bytes blob = 3; }
  sint64 delta = 3; fixed64 big = 4; string tag = 5; float ratio = 6; repeated uint32 codes = 7;
}
"""


class DecodeProtobufUnknownFields(harness.RegistryTestCase):
    """`decode --unknown-fields drop|keep` of records python3-protobuf wrote
    with the newer descriptor, read with the older version (docs/decoding.md)."""

    def setUp(self):
        super().setUp()
        self.subject = self.sub("events-value")
        self.id1 = self.register_ok(self.subject, UNK_V1, schema_type="PROTOBUF")
        self.id2 = self.register_ok(self.subject, UNK_V2, schema_type="PROTOBUF")

    def cli(self, command, *args, input_text=""):
        return run(command, "--registry", self.server.base_url, *args, input_text=input_text)

    def test_drop_and_keep(self):
        cls = python_message_class(UNK_V2, "unk.Event")
        m = cls(id=7, delta=-2, big=2**63 + 1, tag="t", ratio=1.5, codes=[1, 300])
        m.detail.note, m.detail.level, m.detail.blob = "n", 3, b"\x01\x02"
        record = (struct.pack(">bI", 0, self.id2) + b"\x00" + m.SerializeToString()).hex() + "\n"
        dropped = '{"id":"7","detail":{"note":"n"}}\n'
        for args in ((), ("--unknown-fields", "drop")):
            r = self.cli("decode", "--subject", self.subject, "--reader", "1", *args, input_text=record)
            self.assertEqual((r.returncode, r.stdout.decode(), r.stderr), (0, dropped, b""), args)
        r = self.cli("decode", "--subject", self.subject, "--reader", "1", "--unknown-fields", "keep",
                     input_text=record)
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        # Per message, in wire order: varints (sint64 -2 is zigzag 3) and fixed64 as
        # decimal strings, fixed32 (the float 1.5's bits) as a number, length-delimited
        # values (a string, bytes, a packed run) in base64.
        self.assertEqual(r.stdout.decode(),
                         '{"id":"7","detail":{"note":"n","@unknown":[{"number":2,"wireType":0,"value":"3"},'
                         '{"number":3,"wireType":2,"value":"AQI="}]},'
                         '"@unknown":[{"number":3,"wireType":0,"value":"3"},'
                         '{"number":4,"wireType":1,"value":"9223372036854775809"},'
                         '{"number":5,"wireType":2,"value":"dA=="},'
                         '{"number":6,"wireType":5,"value":1069547520},'
                         '{"number":7,"wireType":2,"value":"AawC"}]}\n')
        # A reader that knows every field has nothing to keep.
        r = self.cli("decode", "--subject", self.subject, "--unknown-fields", "keep", input_text=record)
        self.assertEqual((r.returncode, r.stdout.decode()), (0,
            '{"id":"7","detail":{"note":"n","level":3,"blob":"AQI="},"delta":"-2","big":"9223372036854775809",'
            '"tag":"t","ratio":1.5,"codes":[1,300]}\n'), r.stderr)
        r = self.cli("decode", "--unknown-fields", "maybe", input_text=record)
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()), (2, b"",
            "schema-registry decode: --unknown-fields is drop or keep (see --help)\n"))
        # encode writes "@unknown" back after the known fields, as protoc serializes
        # them: with v1 the same message bytes python3-protobuf wrote with v2.
        kept = self.cli("decode", "--subject", self.subject, "--reader", "1", "--unknown-fields", "keep",
                        input_text=record).stdout.decode()
        r = self.cli("encode", "--subject", self.subject, "--version", "1", input_text=kept)
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.assertEqual(r.stdout.decode(), struct.pack(">bI", 0, self.id1).hex() + record[10:])
        r = self.cli("encode", "--subject", self.subject, "--version", "1",
                     input_text='{"id":"7","@unknown":[{"number":3,"wireType":4,"value":"3"}]}\n')
        self.assertEqual((r.returncode, r.stdout, r.stderr.decode()), (1, b"",
            'schema-registry encode: stdin line 1: unk.Event: "@unknown"[0]: wire type 4 is not 0, 1, 2, 3 or 5\n'))


if __name__ == "__main__":
    harness.main()

"""`schema-registry decode` and `encode` against the real server
(docs/decoding.md): framed records in, JSON rows out, the reader chosen as
Spark's from_avro chooses it, evolution "restart", FAILFAST and PERMISSIVE,
Basic auth and TLS. Records come from our encoder and from Apache Avro's
Python implementation (Debian's python3-avro) framed as Confluent's
AbstractKafkaSchemaSerDe frames them; our records are read back by Avro."""

import io
import json
import os
import pty
import struct
import subprocess
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


if __name__ == "__main__":
    harness.main()

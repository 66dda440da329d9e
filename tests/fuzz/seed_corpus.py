#!/usr/bin/python3
"""
seed_corpus: starting inputs for the fuzz targets, made from the tests' own
data, so that libFuzzer begins at valid schemas of every shape instead of
at random bytes (which never reach a parser's deep paths).

  seed_corpus.py OUTDIR      writes OUTDIR/fuzz_avro, fuzz_jsonschema, fuzz_proto, fuzz_decoder

- fuzz_avro: every reader and writer schema of tests/data/avro/*.json.
- fuzz_jsonschema: tests/data/jsonschema/*.json, and each of their subschemas.
- fuzz_proto (first byte: parse flags, then the schema): every
  tests/data/protobuf/*.proto as text, and protoc's own FileDescriptorProto
  of each, base64 as a client sends it; plus a descriptor of messages nested
  80 deep, past the depth limit, so the limit's paths are in the corpus.
- fuzz_decoder (tests/fuzz_client/): the Avro records of
  tests/data/client/python_avro_cases.py behind the index of their pair (the
  pairs are named in fuzz_decoder.c's comments), and Protobuf payloads of
  its message R: one field of each number with its wire type, then all;
  and JSON values behind 0xc0 for its JSON Schema validator.
"""

import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def write(outdir, target, payload):
    folder = os.path.join(outdir, target)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(payload).hexdigest()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(payload)


def avro_seeds(outdir):
    for name in sorted(os.listdir(os.path.join(DATA, "avro"))):
        with open(os.path.join(DATA, "avro", name)) as f:
            cases = json.load(f)
        for case in cases:
            for key in ("reader", "writer", "schema"):
                if key in case:
                    write(outdir, "fuzz_avro", json.dumps(case[key]).encode())


def json_subschemas(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from json_subschemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from json_subschemas(value)


def jsonschema_seeds(outdir):
    for name in sorted(os.listdir(os.path.join(DATA, "jsonschema"))):
        with open(os.path.join(DATA, "jsonschema", name)) as f:
            text = f.read()
        write(outdir, "fuzz_jsonschema", text.encode())
        for sub in json_subschemas(json.loads(text)):
            write(outdir, "fuzz_jsonschema", json.dumps(sub).encode())


def varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def first_file_of_set(data):
    """The first FileDescriptorProto of a FileDescriptorSet (field 1, bytes)."""
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        length, pos = varint(data, pos)
        if key == (1 << 3 | 2):
            return data[pos:pos + length]
        pos += length
    raise ValueError("no file in the descriptor set")


def ld(field, payload):
    """One length-delimited field."""
    out, n = bytearray([field << 3 | 2]), len(payload)
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out) + payload


def nested_descriptor(depth):
    message = ld(1, b"M")                               # DescriptorProto.name
    for _ in range(depth):
        message = ld(1, b"M") + ld(3, message)           # nested_type
    return ld(1, b"deep.proto") + ld(4, message)         # FileDescriptorProto.message_type


def proto_seeds(outdir):
    folder = os.path.join(DATA, "protobuf")
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                text = f.read()
            for flags in (0, 1):
                write(outdir, "fuzz_proto", bytes([flags]) + text)
            out = os.path.join(tmp, name + ".pb")
            run = subprocess.run(["protoc", f"-I{folder}", f"--descriptor_set_out={out}", name],
                                 capture_output=True)
            if run.returncode == 0:
                with open(out, "rb") as f:
                    descriptor = first_file_of_set(f.read())
                write(outdir, "fuzz_proto", b"\0" + base64.b64encode(descriptor))
    write(outdir, "fuzz_proto", b"\0" + base64.b64encode(nested_descriptor(80)))


def decoder_seeds(outdir):
    import re
    with open(os.path.join(HERE, "..", "fuzz_client", "fuzz_decoder.c")) as f:
        source = f.read()
    body = source.split("pairs[][2] = {", 1)[1].split("};", 1)[0]
    names = re.findall(r"^    /\* (\w+) \*/$", body, re.M)
    # The cases need Debian's python3-avro: the system interpreter, whatever python3 runs this.
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    cases = subprocess.run([python, os.path.join(DATA, "client", "python_avro_cases.py")],
                           capture_output=True, check=True, text=True).stdout
    for line in cases.splitlines():
        case = json.loads(line)
        base = case["name"].split("[", 1)[0]
        if base in names:
            write(outdir, "fuzz_decoder", bytes([names.index(base)]) + bytes.fromhex(case["hex"]))

    def tag(number, wire):
        v, out = number << 3 | wire, b""
        while True:
            out += bytes([v & 0x7F | (0x80 if v > 0x7F else 0)])
            v >>= 7
            if not v:
                return out

    fixed64, fixed32, lendel = {8, 10, 12}, {7, 9, 11}, {14, 15, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 31}
    fields = []
    for n in range(1, 32):
        if n in fixed64:
            fields.append(tag(n, 1) + b"\x01" * 8)
        elif n in fixed32:
            fields.append(tag(n, 5) + b"\x01" * 4)
        elif n in lendel:
            fields.append(tag(n, 2) + b"\x04" + tag(1, 0) + b"\x05" + tag(2, 0) + b"\x03")
        else:
            fields.append(tag(n, 0) + b"\x2a")
    for pick in (0x80, 0x81):
        for field in fields:
            write(outdir, "fuzz_decoder", bytes([pick, 0]) + field)
        write(outdir, "fuzz_decoder", bytes([pick, 0]) + b"".join(fields))
    # Bit 0x02: unknown fields kept too; fields 40 to 44 are unknown to both
    # readers (wire types 0, 1, 2, 5 and a group), after the known ones.
    unknown = (tag(40, 0) + b"\x96\x01" + tag(41, 1) + b"\xff" * 8 + tag(42, 2) + b"\x02hi"
               + tag(43, 5) + b"\x07\x00\x00\x00" + tag(44, 3) + tag(1, 0) + b"\x02" + tag(44, 4))
    for pick in (0x82, 0x83):
        write(outdir, "fuzz_decoder", bytes([pick, 0]) + b"".join(fields) + unknown)
    # The JSON Schema validator's path (first byte 0xc0): values for both of its schemas.
    for value in ('{"a": 2, "b": [{"a": 4}, {"a": -4, "z": "s"}], "c": {"k": [null]}, "d": "ab1", "x-ab": 1}',
                  '[null, [null, null]]', '[[null, [null, null]], null]', '{"a": 3, "x-ba": "q"}', '"s"'):
        write(outdir, "fuzz_decoder", b"\xc0" + value.encode())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    avro_seeds(outdir)
    jsonschema_seeds(outdir)
    proto_seeds(outdir)
    decoder_seeds(outdir)
    for target in sorted(os.listdir(outdir)):
        print(f"seed_corpus: {target}: {len(os.listdir(os.path.join(outdir, target)))} inputs")


if __name__ == "__main__":
    main()

"""Hostile and invalid Protobuf input over HTTP (issue 9, items 2 and 5):
descriptors nested past the text parser's depth limit (the 10,000-deep one
used to crash the server in protobuf-c's recursive unpack), a deep but
allowed descriptor that must stay usable as a reference and re-registrable,
protoc's field number rules, unknown field types, malformed base64, and
imports no reference provides (accepted when unused, as Confluent does).
Every refusal is 422/42201 and leaves the database as it was."""

import base64
import time

import harness

MAX_DEPTH = 64  # PROTO_MAX_DEPTH in compat/protobuf/protobuf.h


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, payload):
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def int_field(number, value):
    return varint(number << 3) + varint(value)


def field_proto(name, number, type_, label=1, type_name=None):
    """FieldDescriptorProto: name 1, number 3, label 4, type 5, type_name 6."""
    body = field(1, name.encode()) + int_field(3, number) + int_field(4, label) + int_field(5, type_)
    if type_name:
        body += field(6, type_name.encode())
    return body


def file_proto(messages):
    """FileDescriptorProto: message_type 4, syntax 12 ("proto3")."""
    return b"".join(field(4, m) for m in messages) + field(12, b"proto3")


def deep_descriptor(depth, with_map=False):
    """One chain of depth messages named M, the innermost with an int32 x =
    1 (and a map<string, int32> tags = 2, whose entry is one level deeper).
    Built inside out without recursion."""
    inner = field(1, b"M") + field(2, field_proto("x", 1, 5))
    if with_map:
        entry = (field(1, b"TagsEntry") + field(2, field_proto("key", 1, 9)) +
                 field(2, field_proto("value", 2, 5)) + field(7, int_field(7, 1)))
        inner += field(2, field_proto("tags", 2, 11, label=3,
                                      type_name=".M" * depth + ".TagsEntry"))
        inner += field(3, entry)
    for _ in range(depth - 1):
        inner = field(1, b"M") + field(3, inner)
    return base64.b64encode(file_proto([inner])).decode("ascii")


def one_field_descriptor(number, type_=5):
    return base64.b64encode(file_proto([field(1, b"M") + field(2, field_proto("x", number, type_))])
                            ).decode("ascii")


class ProtoLimitsTest(harness.RegistryTestCase):

    def register_proto(self, subject, text, **kw):
        return self.register(subject, text, schema_type="PROTOBUF", **kw)

    def assert_refused(self, subject, text, message_part, **kw):
        """422/42201 whose message says message_part, and nothing stored."""
        before = self.db.state()
        resp = self.register_proto(subject, text, **kw)
        self.assert_error(resp, 422, 42201)
        self.assertIn(message_part, resp.body["message"])
        self.assertEqual(self.db.state(), before)
        return resp

    def test_10000_deep_descriptor_is_refused_quickly_and_the_server_stays_up(self):
        hostile = deep_descriptor(10000)
        self.assertLess(len(hostile), 200000)
        start = time.monotonic()
        self.assert_refused(self.sub(), hostile, f"messages nested deeper than {MAX_DEPTH}")
        self.assertLess(time.monotonic() - start, 5.0)
        self.server.assert_running()
        self.assert_ok(self.get("/subjects"))

    def test_5000_deep_descriptor_is_refused_quickly(self):
        start = time.monotonic()
        self.assert_refused(self.sub(), deep_descriptor(5000), f"messages nested deeper than {MAX_DEPTH}")
        self.assertLess(time.monotonic() - start, 5.0)
        self.server.assert_running()

    def test_one_past_the_depth_limit_is_refused(self):
        self.assert_refused(self.sub(), deep_descriptor(MAX_DEPTH + 1),
                            f"messages nested deeper than {MAX_DEPTH}")

    def test_deep_but_allowed_descriptor_registers_references_and_re_registers(self):
        deep = self.sub("deep")
        descriptor = deep_descriptor(MAX_DEPTH, with_map=True)
        deep_id = self.register_ok(deep, descriptor, schema_type="PROTOBUF")
        stored = self.assert_ok(self.version(deep, 1))["schema"]
        self.assertIn("map<string, int32> tags = 2;", stored)
        # The stored text parses again: the same schema under the same id in
        # both forms, and as format=serialized.
        self.assertEqual(self.register_ok(deep, descriptor, schema_type="PROTOBUF"), deep_id)
        self.assertEqual(self.register_ok(deep, stored, schema_type="PROTOBUF"), deep_id)
        serialized = self.assert_ok(self.get(f"/schemas/ids/{deep_id}",
                                             params={"format": "serialized"}))["schema"]
        self.assertEqual(self.register_ok(deep, serialized, schema_type="PROTOBUF"), deep_id)
        # Used as a reference, the deep file's types resolve.
        refs = [{"name": "deep.proto", "subject": deep, "version": 1}]
        user = ('syntax = "proto3";\npackage user;\n\nimport "deep.proto";\n\n'
                'message U {\n  .M outer = 1;\n  .' + ".".join(["M"] * MAX_DEPTH) + ' inner = 2;\n}\n')
        user_subject = self.sub("user")
        user_id = self.register_ok(user_subject, user, schema_type="PROTOBUF", references=refs)
        self.assertEqual(self.register_ok(user_subject, user, schema_type="PROTOBUF", references=refs),
                         user_id)
        # Later registrations on the deep subject still work.
        self.assertEqual(self.register_ok(deep, descriptor, schema_type="PROTOBUF"), deep_id)

    def test_field_numbers_protoc_refuses(self):
        # protoc's messages; Confluent reaches them through protobuf-java's
        # Descriptors (ProtobufSchema.toDynamicSchema).
        cases = [(0, "Field numbers must be positive integers."),
                 (-5, "Field numbers must be positive integers."),
                 (19000, "Field numbers 19000 through 19999 are reserved"),
                 (19999, "Field numbers 19000 through 19999 are reserved"),
                 (536870912, "exceeds maximum of 536870911")]
        for number, message in cases:
            with self.subTest(number=number):
                text = f'syntax = "proto3";\nmessage M {{\n  int32 x = {number};\n}}\n'
                self.assert_refused(self.sub(), text, message)
                self.assert_refused(self.sub(), one_field_descriptor(number), message)
        for number in (1, 18999, 20000, 536870911):
            with self.subTest(number=number):
                self.register_ok(self.sub(), one_field_descriptor(number), schema_type="PROTOBUF")

    def test_unknown_field_type_in_descriptor(self):
        for type_ in (0, 19, 1000):
            with self.subTest(type=type_):
                self.assert_refused(self.sub(), one_field_descriptor(1, type_),
                                    f"field x has unknown type {type_}")

    def test_malformed_base64_says_what_is_wrong(self):
        self.assert_refused(self.sub(), "CgV0ZXN", "Invalid base64 descriptor: its length is not a multiple of 4")
        self.assert_refused(self.sub(), "bm90IGEgc2NoZW1h", "Invalid FileDescriptorProto: malformed wire data")
        truncated = base64.b64encode(bytes([0x22, 0x10, 0x0A, 0x01, ord("M")])).decode("ascii")
        self.assert_refused(self.sub(), truncated, "Invalid FileDescriptorProto: malformed wire data")
        # .proto text keeps the text parser's message.
        self.assert_refused(self.sub(), "message M { int32 x = 1 }", "Syntax error")

    def test_imports_no_reference_provides(self):
        """Confluent refuses a missing import only through its types:
        ProtobufSchema.toDynamicSchema skips an import with no dependency
        (`if (dep != null)`), and normalize() then fails to resolve a type
        from it. An unused one is kept, as Confluent keeps it."""
        used = ('syntax = "proto3";\npackage shop;\n\nimport "common/money.proto";\n\n'
                'message Order {\n  common.Money total = 1;\n}\n')
        self.assert_refused(self.sub(), used, "common.Money")
        unused = ('syntax = "proto3";\npackage shop;\n\nimport "common/money.proto";\n\n'
                  'message Order {\n  string id = 1;\n}\n')
        subject = self.sub()
        self.register_ok(subject, unused, schema_type="PROTOBUF")
        self.assertIn('import "common/money.proto";', self.assert_ok(self.version(subject, 1))["schema"])


if __name__ == "__main__":
    harness.main()

"""Protobuf through the HTTP API: .proto text and base64 FileDescriptorProto
input, format=serialized, import references, built-in well-known imports,
invalid input, compatibility and normalize (docs/api.md,
4.3.5; docs/compatibility.md).

Descriptors are produced here with protoc from temporary .proto files, the
way a Python client's generated code carries them."""

import base64
import os
import subprocess

import harness
from harness import quote

PROTOC = "protoc"
WKT_INCLUDE = "/usr/include"      # google/protobuf/*.proto from libprotobuf-dev

PING = ('syntax = "proto3";\n'
        'package itest;\n'
        '\n'
        'message Ping {\n'
        '  string text = 1;\n'
        '  int64 sent_at = 2;\n'
        '}\n')
PING_MESSY = ('// a comment\nsyntax="proto3" ;package itest;'
              'message Ping{string text=1;  /* c */ int64 sent_at = 2 ;}')

MONEY = ('syntax = "proto3";\n'
         'package common;\n'
         '\n'
         'message Money {\n'
         '  string currency = 1;\n'
         '  int64 units = 2;\n'
         '}\n')
ORDER = ('syntax = "proto3";\n'
         'package shop;\n'
         '\n'
         'import "common/money.proto";\n'
         '\n'
         'message Order {\n'
         '  string id = 1;\n'
         '  common.Money total = 2;\n'
         '}\n')

WELL_KNOWN = ('syntax = "proto3";\n'
              'package itest.wkt;\n'
              '\n'
              'import "google/protobuf/timestamp.proto";\n'
              'import "google/protobuf/duration.proto";\n'
              'import "google/protobuf/wrappers.proto";\n'
              'import "google/protobuf/struct.proto";\n'
              'import "google/protobuf/any.proto";\n'
              '\n'
              'message Event {\n'
              '  google.protobuf.Timestamp at = 1;\n'
              '  google.protobuf.Duration took = 2;\n'
              '  google.protobuf.StringValue note = 3;\n'
              '  google.protobuf.Struct extra = 4;\n'
              '  google.protobuf.Any payload = 5;\n'
              '}\n')


def proto(body, package="itest"):
    return f'syntax = "proto3";\npackage {package};\n\n{body}'


def read_varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def file_descriptor(files, main):
    """Compiles files ({path: text}) with protoc and returns the serialized
    FileDescriptorProto of main, unwrapped from its one-file FileDescriptorSet."""
    work = harness.make_temp_dir("protoc")
    for path, text in files.items():
        full = os.path.join(work, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    out = os.path.join(work, "set.pb")
    subprocess.run([PROTOC, f"-I{work}", f"-I{WKT_INCLUDE}", f"--descriptor_set_out={out}", main],
                   check=True, capture_output=True)
    with open(out, "rb") as f:
        data = f.read()
    # FileDescriptorSet { repeated FileDescriptorProto file = 1; }: one entry.
    if data[0] != 0x0A:
        raise AssertionError(f"unexpected FileDescriptorSet tag {data[0]:#x}")
    length, pos = read_varint(data, 1)
    if pos + length != len(data):
        raise AssertionError("FileDescriptorSet holds more than one file")
    return data[pos:]


def b64(raw):
    return base64.b64encode(raw).decode("ascii")


def decode_file_descriptor(raw):
    """protoc's text rendering of a serialized FileDescriptorProto (fails if it
    is not one)."""
    run = subprocess.run([PROTOC, f"-I{WKT_INCLUDE}",
                          "--decode=google.protobuf.FileDescriptorProto",
                          "google/protobuf/descriptor.proto"],
                         input=raw, capture_output=True)
    if run.returncode != 0:
        raise AssertionError(f"not a FileDescriptorProto: {run.stderr.decode(errors='replace')}")
    return run.stdout.decode()


class ProtoTestCase(harness.RegistryTestCase):

    def register_proto(self, subject, text, **kw):
        return self.register(subject, text, schema_type="PROTOBUF", **kw)

    def register_proto_ok(self, subject, text, **kw):
        return self.register_ok(subject, text, schema_type="PROTOBUF", **kw)

    def lookup_proto(self, subject, text, **kw):
        return self.lookup(subject, text, schema_type="PROTOBUF", **kw)

    def verbose(self, subject, text):
        body = self.assert_ok(self.post(
            f"/compatibility/subjects/{quote(subject)}/versions/latest",
            {"schema": text, "schemaType": "PROTOBUF"}, params={"verbose": "true"}))
        return body["is_compatible"], body["messages"]


class Text(ProtoTestCase):

    def test_schema_type_in_every_response(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, PING)
        body = self.assert_ok(self.version(s, 1))
        self.assertEqual((body["schemaType"], body["id"], body["version"]), ("PROTOBUF", schema_id, 1))
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schemaType"],
                         "PROTOBUF")
        self.assertEqual(self.assert_ok(self.lookup_proto(s, PING))["schemaType"], "PROTOBUF")
        self.assertEqual(self.assert_ok(self.get("/schemas/types")),
                         ["AVRO", "JSON", "PROTOBUF"])
        ext = self.assert_ok(self.post(f"/subjects/{quote(self.sub('ext'))}/versions",
                                       {"schema": PING, "schemaType": "PROTOBUF"},
                                       headers={"Confluent-Accept-Unknown-Properties": "true"}))
        self.assertEqual((ext["id"], ext["schemaType"]), (schema_id, "PROTOBUF"))
        self.assertEqual(self.db.value(f"SELECT schema_type FROM schemas WHERE id = {schema_id}"),
                         "PROTOBUF")

    def test_canonical_text_is_stored(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, PING_MESSY)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], PING)
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schema"], PING)
        raw = self.get(f"/schemas/ids/{schema_id}/schema")
        self.assertEqual((raw.status, raw.text), (200, PING))
        self.assertEqual(self.register_proto_ok(s, PING), schema_id)
        self.assert_ok(self.versions(s), [1])

    def test_same_text_as_avro_subject_is_409(self):
        s = self.sub()
        self.register_ok(s, '"string"')
        self.assert_error(self.register_proto(s, PING), 409, 40901)

    def test_invalid_proto_is_42201(self):
        s = self.sub()
        bad = {
            "garbage": "this is not protobuf",
            "missing semicolon": proto("message M {\n  int32 x = 1\n}\n"),
            "unknown type": proto("message M {\n  Missing x = 1;\n}\n"),
            "duplicate message": proto("message M {}\nmessage M {}\n"),
            "proto3 required": proto("message M {\n  required int32 x = 1;\n}\n"),
            # (Base64 starting with "//" would be a proto comment: a valid empty file.)
            "base64 of garbage": b64(b"\x00\x01garbage\xff"),
        }
        before = self.db.state()
        for name, text in bad.items():
            with self.subTest(case=name):
                self.assert_error(self.register_proto(s, text), 422, 42201)
        self.assert_error(self.register(s, PING, schema_type="protobuf"), 422, 42201)
        self.assertEqual(self.db.state(), before)

    def test_invalid_proto_on_lookup_is_42201(self):
        s = self.sub()
        self.register_proto_ok(s, PING)
        self.assert_error(self.lookup_proto(s, "message {"), 422, 42201)


class Serialized(ProtoTestCase):

    def test_descriptor_gets_the_same_id_as_text(self):
        raw = file_descriptor({"itest/ping.proto": PING}, "itest/ping.proto")
        s, t = self.sub("text"), self.sub("desc")
        text_id = self.register_proto_ok(s, PING)
        self.assertEqual(self.register_proto_ok(t, b64(raw)), text_id)
        # Stored as proto text, not as base64.
        self.assertEqual(self.assert_ok(self.version(t, 1))["schema"], PING)
        # And the other way round: descriptor first, then text, in a fresh subject.
        self.assertEqual(self.register_proto_ok(self.sub("again"), PING), text_id)
        self.assertEqual(self.assert_ok(self.lookup_proto(s, b64(raw)))["id"], text_id)

    def test_descriptor_first(self):
        text = proto("message Pong {\n  repeated string tags = 1;\n  map<string, int32> counts = 2;\n"
                     "  oneof choice {\n    string name = 3;\n    int32 number = 4;\n  }\n}\n",
                     package="itest.first")
        raw = file_descriptor({"itest/pong.proto": text}, "itest/pong.proto")
        s, t = self.sub("desc"), self.sub("text")
        desc_id = self.register_proto_ok(s, b64(raw))
        self.assertEqual(self.register_proto_ok(t, text), desc_id)
        stored = self.assert_ok(self.version(s, 1))["schema"]
        self.assertEqual(self.assert_ok(self.version(t, 1))["schema"], stored)
        self.assertIn("oneof choice {", stored)
        self.assertIn("map<string, int32> counts = 2;", stored)

    def test_format_serialized(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, PING)
        body = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"format": "serialized"}))
        self.assertEqual(body["schemaType"], "PROTOBUF")
        raw = base64.b64decode(body["schema"], validate=True)
        decoded = decode_file_descriptor(raw)
        self.assertIn('package: "itest"', decoded)
        self.assertIn('name: "Ping"', decoded)
        self.assertIn('name: "sent_at"', decoded)
        self.assertIn('syntax: "proto3"', decoded)
        # The serialized form is the same schema.
        self.assertEqual(self.register_proto_ok(self.sub("back"), body["schema"]), schema_id)
        # Without format the text comes back.
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))["schema"], PING)

    def test_format_serialized_of_a_schema_with_imports(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, WELL_KNOWN)
        body = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"format": "serialized"}))
        decoded = decode_file_descriptor(base64.b64decode(body["schema"], validate=True))
        self.assertIn('dependency: "google/protobuf/timestamp.proto"', decoded)
        self.assertEqual(self.register_proto_ok(self.sub("back"), body["schema"]), schema_id)

    def test_descriptor_with_well_known_import(self):
        raw = file_descriptor({"itest/wkt.proto": WELL_KNOWN}, "itest/wkt.proto")
        text_id = self.register_proto_ok(self.sub("text"), WELL_KNOWN)
        self.assertEqual(self.register_proto_ok(self.sub("desc"), b64(raw)), text_id)


class References(ProtoTestCase):

    def money_subject(self):
        """The dependency under its import path; a fresh name per test."""
        tag = self.sub("m")
        return f"{tag}/common/money.proto"

    def register_pair(self, money_subject, order_text=ORDER, import_path="common/money.proto"):
        money_id = self.register_proto_ok(money_subject, MONEY)
        refs = [{"name": import_path, "subject": money_subject, "version": 1}]
        order = self.sub("order")
        order_id = self.register_proto_ok(order, order_text, references=refs)
        return money_id, order, order_id, refs

    def test_import_path_subject_with_slashes(self):
        money_id, order, order_id, refs = self.register_pair("common/money.proto")
        # The client encodes '/' as %2F (docs/api.md).
        body = self.assert_ok(self.get("/subjects/common%2Fmoney.proto/versions/1"))
        self.assertEqual((body["subject"], body["id"], body["schemaType"]),
                         ("common/money.proto", money_id, "PROTOBUF"))
        self.assertIn("common/money.proto", self.subjects())
        main = self.assert_ok(self.version(order, 1))
        self.assertEqual(main["references"], refs)
        self.assertEqual(main["schema"], ORDER)
        self.assertEqual(self.assert_ok(self.get(f"/schemas/ids/{order_id}"))["references"], refs)
        self.assert_ok(self.get("/subjects/common%2Fmoney.proto/versions/1/referencedby"),
                       [order_id])
        self.assertEqual(self.assert_ok(self.lookup_proto(order, ORDER, references=refs))["id"],
                         order_id)

    def test_import_without_reference_is_42201(self):
        money = self.money_subject()
        self.register_proto_ok(money, MONEY)
        before = self.db.state()
        self.assert_error(self.register_proto(self.sub("order"), ORDER), 422, 42201)
        missing = [{"name": "common/money.proto", "subject": money, "version": 2}]
        self.assert_error(self.register_proto(self.sub("order"), ORDER, references=missing),
                          422, 42201)
        self.assertEqual(self.db.state(), before)

    def test_format_serialized_keeps_the_import(self):
        money = self.money_subject()
        _, _, order_id, refs = self.register_pair(money)
        body = self.assert_ok(self.get(f"/schemas/ids/{order_id}", params={"format": "serialized"}))
        self.assertEqual(body["references"], refs)
        decoded = decode_file_descriptor(base64.b64decode(body["schema"], validate=True))
        self.assertIn('dependency: "common/money.proto"', decoded)
        self.assertIn('type_name: ".common.Money"', decoded)
        self.assertEqual(self.register_proto_ok(self.sub("back"), body["schema"], references=refs),
                         order_id)

    def test_referenced_dependency_cannot_be_deleted(self):
        money = self.money_subject()
        self.register_pair(money)
        self.assert_error(self.delete_version(money, 1), 422, 42206)
        self.assert_error(self.delete_subject(money), 422, 42206)

    def test_descriptor_with_dependency_gets_the_same_id(self):
        money = self.money_subject()
        _, _, order_id, refs = self.register_pair(money)
        raw = file_descriptor({"common/money.proto": MONEY, "shop/order.proto": ORDER},
                              "shop/order.proto")
        self.assertEqual(self.register_proto_ok(self.sub("desc"), b64(raw), references=refs),
                         order_id)

    def test_change_inside_the_dependency_is_checked(self):
        """A new Money version with a changed field kind makes the new Order
        version incompatible (docs/compatibility.md F5)."""
        money = self.money_subject()
        _, order, _, refs = self.register_pair(money)
        self.set_level(money, "NONE")
        self.register_proto_ok(money, MONEY.replace("int64 units", "string units"))
        refs2 = [dict(refs[0], version=2)]
        r = self.register_proto(order, ORDER, references=refs2)
        self.assert_error(r, 409, 40901)

    def test_well_known_imports_need_no_reference(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, WELL_KNOWN)
        body = self.assert_ok(self.version(s, 1))
        self.assertNotIn("references", body)
        self.assertIn('import "google/protobuf/timestamp.proto";', body["schema"])
        self.assertEqual(self.register_proto_ok(s, WELL_KNOWN), schema_id)

    def test_every_known_dependency_needs_no_reference(self):
        """Confluent's ProtobufSchema.KNOWN_DEPENDENCIES beyond google/protobuf:
        the google/type files and confluent/type/variant.proto resolve without a
        reference, and their types are usable (format=serialized names them,
        a change of one is checked)."""
        uses = {
            "google/type/calendar_period.proto": "google.type.CalendarPeriod",
            "google/type/color.proto": "google.type.Color",
            "google/type/date.proto": "google.type.Date",
            "google/type/datetime.proto": "google.type.DateTime",
            "google/type/dayofweek.proto": "google.type.DayOfWeek",
            "google/type/decimal.proto": "google.type.Decimal",
            "google/type/expr.proto": "google.type.Expr",
            "google/type/fraction.proto": "google.type.Fraction",
            "google/type/interval.proto": "google.type.Interval",
            "google/type/latlng.proto": "google.type.LatLng",
            "google/type/money.proto": "google.type.Money",
            "google/type/month.proto": "google.type.Month",
            "google/type/phone_number.proto": "google.type.PhoneNumber",
            "google/type/postal_address.proto": "google.type.PostalAddress",
            "google/type/quaternion.proto": "google.type.Quaternion",
            "google/type/timeofday.proto": "google.type.TimeOfDay",
            "confluent/type/variant.proto": "confluent.type.Variant",
        }
        imports = "".join(f'import "{path}";\n' for path in uses)
        fields = "".join(f"  {t} f{i} = {i};\n" for i, t in enumerate(uses.values(), 1))
        text = f'syntax = "proto3";\npackage itest.known;\n\n{imports}\nmessage All {{\n{fields}}}\n'
        s = self.sub()
        schema_id = self.register_proto_ok(s, text)
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], text)
        body = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"format": "serialized"}))
        decoded = decode_file_descriptor(base64.b64decode(body["schema"], validate=True))
        for path, t in uses.items():
            self.assertIn(f'dependency: "{path}"', decoded)
            self.assertIn(f'type_name: ".{t}"', decoded)
        # An enum stays an enum, a message a message: each is resolved.
        self.assertIn('type: TYPE_ENUM\n    type_name: ".google.type.Month"', decoded)
        self.assertIn('type: TYPE_MESSAGE\n    type_name: ".google.type.PostalAddress"', decoded)
        # Money -> Color is a named type change (BACKWARD, the default).
        before = self.db.state()
        changed = text.replace("  google.type.Money f11 = 11;", "  google.type.Color f11 = 11;")
        self.assert_error(self.register_proto(s, changed), 409, 40901)
        self.assertEqual(self.db.state(), before)


class Compatibility(ProtoTestCase):

    def test_adding_a_field_is_backward_compatible(self):
        s = self.sub()
        self.register_proto_ok(s, PING)
        longer = PING.replace("  int64 sent_at = 2;\n", "  int64 sent_at = 2;\n  bool urgent = 3;\n")
        self.assertEqual(self.verbose(s, longer), (True, []))
        self.register_proto_ok(s, longer)
        self.assert_ok(self.versions(s), [1, 2])

    def test_removing_a_field_is_backward_compatible(self):
        # FIELD_REMOVED is in the compatible set (docs/compatibility.md).
        s = self.sub()
        self.register_proto_ok(s, PING)
        shorter = PING.replace("  int64 sent_at = 2;\n", "")
        self.assertEqual(self.verbose(s, shorter), (True, []))
        self.register_proto_ok(s, shorter)

    def test_changing_a_field_kind_is_409(self):
        s = self.sub()
        self.register_proto_ok(s, PING)
        changed = PING.replace("int64 sent_at", "string sent_at")
        expected = [
            '{errorType:"FIELD_SCALAR_KIND_CHANGED", description:"The kind of a SCALAR field at '
            "path '#/Ping/2' in the new schema does not match its kind in the old schema\"}",
            "{oldSchemaVersion: 1}",
            "{oldSchema: '" + PING + "'}",
            "{validateFields: 'false', compatibility: 'BACKWARD'}",
        ]
        self.assertEqual(self.verbose(s, changed), (False, expected))
        self.assert_register_refused(s, changed, expected, schema_type="PROTOBUF")

    def test_scalar_to_message_is_409(self):
        s = self.sub()
        v1 = proto("message Box {\n  string item = 1;\n}\n")
        v2 = proto("message Box {\n  Item item = 1;\n}\n\nmessage Item {\n  string name = 1;\n}\n")
        self.register_proto_ok(s, v1)
        ok, messages = self.verbose(s, v2)
        self.assertIs(ok, False)
        self.assertTrue(messages[0].startswith('{errorType:"FIELD_KIND_CHANGED"'), messages)
        self.assert_error(self.register_proto(s, v2), 409, 40901)

    def test_removing_a_message_is_409(self):
        s = self.sub()
        v1 = proto("message A {\n  int32 x = 1;\n}\n\nmessage B {\n  int32 y = 1;\n}\n")
        v2 = proto("message A {\n  int32 x = 1;\n}\n")
        self.register_proto_ok(s, v1)
        ok, messages = self.verbose(s, v2)
        self.assertIs(ok, False)
        self.assertEqual(messages[0],
                         '{errorType:"MESSAGE_REMOVED", description:"The new schema is missing '
                         "a MESSAGE type at path '#/B' in the old schema\"}")
        self.assert_error(self.register_proto(s, v2), 409, 40901)

    def test_compatible_scalar_changes(self):
        s = self.sub()
        v1 = proto("message N {\n  int32 a = 1;\n  string b = 2;\n  fixed32 c = 3;\n}\n")
        v2 = proto("message N {\n  int64 a = 1;\n  bytes b = 2;\n  sfixed32 c = 3;\n}\n")
        self.register_proto_ok(s, v1)
        self.assertEqual(self.verbose(s, v2), (True, []))

    def test_package_change_is_409(self):
        s = self.sub()
        self.register_proto_ok(s, PING)
        self.assert_error(self.register_proto(s, PING.replace("package itest;", "package other;")),
                          409, 40901)

    def test_level_none_accepts_anything(self):
        s = self.sub()
        self.register_proto_ok(s, PING)
        self.set_level(s, "NONE")
        self.register_proto_ok(s, PING.replace("int64 sent_at", "string sent_at"))


# Field order, option order and import order differ; normalization
# (docs/compatibility.md) makes them one schema.
NORM_1 = ('syntax = "proto3";\n'
          'package itest.norm;\n'
          '\n'
          'import "google/protobuf/timestamp.proto";\n'
          'import "google/protobuf/duration.proto";\n'
          '\n'
          'option java_package = "com.itest.norm";\n'
          'option java_multiple_files = true;\n'
          '\n'
          'message M {\n'
          '  string a = 1;\n'
          '  int64 b = 2;\n'
          '  google.protobuf.Timestamp at = 3;\n'
          '  google.protobuf.Duration took = 4;\n'
          '}\n')
NORM_2 = ('syntax = "proto3";\n'
          'package itest.norm;\n'
          '\n'
          'import "google/protobuf/duration.proto";\n'
          'import "google/protobuf/timestamp.proto";\n'
          '\n'
          'option java_multiple_files = true;\n'
          'option java_package = "com.itest.norm";\n'
          '\n'
          'message M {\n'
          '  google.protobuf.Duration took = 4;\n'
          '  int64 b = 2;\n'
          '  google.protobuf.Timestamp at = 3;\n'
          '  string a = 1;\n'
          '}\n')


class Normalize(ProtoTestCase):

    def test_variants_are_two_schemas_without_normalize(self):
        self.assertNotEqual(self.register_proto_ok(self.sub("a"), NORM_1),
                            self.register_proto_ok(self.sub("b"), NORM_2))

    def test_normalize_on_register(self):
        a, b = self.sub("a"), self.sub("b")
        id_a = self.register_proto_ok(a, NORM_1, params={"normalize": "true"})
        id_b = self.register_proto_ok(b, NORM_2, params={"normalize": "true"})
        self.assertEqual(id_a, id_b)
        text = self.assert_ok(self.version(a, 1))["schema"]
        self.assertEqual(self.assert_ok(self.version(b, 1))["schema"], text)
        # Fields come out by number.
        positions = [text.index(f" = {n};") for n in (1, 2, 3, 4)]
        self.assertEqual(positions, sorted(positions), text)

    def test_normalize_on_lookup(self):
        s = self.sub()
        schema_id = self.register_proto_ok(s, NORM_1, params={"normalize": "true"})
        body = self.assert_ok(self.lookup_proto(s, NORM_2, params={"normalize": "true"}))
        self.assertEqual((body["id"], body["version"], body["schemaType"]),
                         (schema_id, 1, "PROTOBUF"))

    def test_normalize_sorts_references(self):
        deps = {}
        prefix = self.sub("dep")      # one prefix: name and subject order agree
        for name in ("a", "b"):
            subject = f"{prefix}/{name}.proto"
            self.register_proto_ok(subject, proto(f"message {name.upper()} {{\n  int32 v = 1;\n}}\n",
                                                  package=f"dep{name}"))
            deps[name] = {"name": f"dep/{name}.proto", "subject": subject, "version": 1}
        main = proto('message Main {\n  depa.A a = 1;\n  depb.B b = 2;\n}\n').replace(
            "\n\n", '\n\nimport "dep/a.proto";\nimport "dep/b.proto";\n\n', 1)
        ordered, backwards = [deps["a"], deps["b"]], [deps["b"], deps["a"]]
        s1, s2 = self.sub("n1"), self.sub("n2")
        id1 = self.register_proto_ok(s1, main, references=backwards, params={"normalize": "true"})
        self.assertEqual(self.assert_ok(self.version(s1, 1))["references"], ordered)
        self.assertEqual(self.register_proto_ok(s2, main, references=ordered,
                                                params={"normalize": "true"}), id1)

    def test_normalize_from_config(self):
        s = self.sub()
        self.assert_ok(self.put(f"/config/{quote(s)}", {"normalize": True}))
        schema_id = self.register_proto_ok(s, NORM_2)
        self.assertEqual(self.assert_ok(self.lookup_proto(s, NORM_1))["id"], schema_id)
        self.assertEqual(self.register_proto_ok(s, NORM_1), schema_id)
        self.assert_ok(self.versions(s), [1])


if __name__ == "__main__":
    harness.main()



# protoc keeps every field where it was declared: oneof members (a group among
# them), maps, nested types and plain fields interleaved. The stored text is
# Confluent's canonical one (fields, then oneofs, groups, nested types), so
# format=serialized is protoc's descriptor of that text; protoc's descriptor of
# the file as written registers under the same id. The unit oracle
# (tests/unit/test_proto_oracle.c) compares tests/data/protobuf/interleaved.proto whole.
INTERLEAVED = (
    'syntax = "proto2";\n'
    "package itest.order;\n"
    "\n"
    "message Mixed {\n"
    "  optional int32 first = 1 [default = 7];\n"
    "  oneof choice {\n"
    "    string as_text = 2;\n"
    "    group Inline = 3 {\n"
    "      optional bool on = 1;\n"
    "    }\n"
    "  }\n"
    "  message Sub {\n"
    "    optional double ratio = 1;\n"
    "  }\n"
    "  map<string, Sub> subs = 4;\n"
    "  repeated group Entry = 5 {\n"
    "    optional string key = 1;\n"
    "  }\n"
    "  enum Level {\n"
    "    LOW = 0;\n"
    "    HIGH = 1;\n"
    "  }\n"
    "  optional Level level = 6 [default = HIGH];\n"
    "  oneof other {\n"
    "    Sub picked = 7;\n"
    "  }\n"
    "  required string last = 8;\n"
    "}\n")


class DeclarationOrder(ProtoTestCase):
    maxDiff = None

    def test_protocs_descriptor_gets_the_texts_id(self):
        raw = file_descriptor({"itest/order.proto": INTERLEAVED}, "itest/order.proto")
        text = self.sub("text")
        text_id = self.register_proto_ok(text, INTERLEAVED)
        self.assertEqual(self.register_proto_ok(self.sub("desc"), b64(raw)), text_id)
        self.assertEqual(self.assert_ok(self.lookup_proto(text, b64(raw)))["id"], text_id)
        stored = self.assert_ok(self.get(f"/schemas/ids/{text_id}"))["schema"]
        self.assertIn("  oneof choice {\n    string as_text = 2;\n  \n    group Inline = 3 {\n",
                      stored)

    def test_serialized_is_protocs_descriptor_of_the_stored_text(self):
        text_id = self.register_proto_ok(self.sub("text"), INTERLEAVED)
        stored = self.assert_ok(self.get(f"/schemas/ids/{text_id}"))["schema"]
        body = self.assert_ok(self.get(f"/schemas/ids/{text_id}", params={"format": "serialized"}))
        # The whole FileDescriptorProto, field by field; only the file's name
        # differs (protoc names it by its path, the registry "default").
        ours = decode_file_descriptor(base64.b64decode(body["schema"], validate=True))
        theirs = decode_file_descriptor(file_descriptor({"itest/order.proto": stored},
                                                        "itest/order.proto"))
        self.assertEqual(ours, theirs.replace('name: "itest/order.proto"\n', 'name: "default"\n', 1))
        self.assertEqual(self.register_proto_ok(self.sub("back"), body["schema"]), text_id)

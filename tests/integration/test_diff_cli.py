"""`schema-registry diff OLD NEW` (docs/evolution.md, "In CI"): the change
report of two schema files as text or --json, exit 0 when NEW may follow OLD
under --level (default BACKWARD), 1 when not, 2 for bad usage or a file that
cannot be read or parsed. No database and no server: pure compat. The
verdicts are Confluent's (Avro SchemaCompatibility, Protobuf and JSON Schema
SchemaDiff) as the registry's own checks give them."""

import json
import os
import subprocess
import tempfile

import harness
from harness import avro_record
from test_changes import (AVRO_CHANGES, AVRO_SUMMARY, AVRO_V1, AVRO_V2, JSON_CHANGES, JSON_V1, JSON_V2,
                          PROTO_CHANGES, PROTO_V1, PROTO_V2, change)


class Diff(harness.unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="sr-diff-")
        self.addCleanup(self.dir.cleanup)

    def file(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def diff(self, *argv):
        # No database URL, no data dir: the command must not need either.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        return subprocess.run([harness.server_binary(), "diff", *argv], capture_output=True, text=True,
                              timeout=60, env=env)

    def report(self, *argv):
        run = self.diff("--json", *argv)
        return run.returncode, json.loads(run.stdout)

    def test_json_report_for_each_format(self):
        old, new = self.file("v1.avsc", AVRO_V1), self.file("v2.avsc", AVRO_V2)
        rc, body = self.report("--level", "NONE", old, new)
        self.assertEqual((rc, body), (0, {
            "schemaType": "AVRO", "summary": AVRO_SUMMARY, "backward": False, "forward": False,
            "changes": AVRO_CHANGES, "level": "NONE", "compatible": True, "messages": []}))
        rc, body = self.report(self.file("v1.json", JSON_V1), self.file("v2.json", JSON_V2))
        self.assertEqual((rc, body["schemaType"], body["changes"], body["level"], body["compatible"]),
                         (1, "JSON", JSON_CHANGES, "BACKWARD", False))
        rc, body = self.report(self.file("v1.proto", PROTO_V1), self.file("v2.proto", PROTO_V2))
        self.assertEqual((rc, body["schemaType"], body["changes"], body["compatible"]),
                         (1, "PROTOBUF", PROTO_CHANGES, False))
        self.assertEqual(body["messages"][-1], "{validateFields: 'false', compatibility: 'BACKWARD'}")

    def test_exit_status_follows_the_level(self):
        old = self.file("old.avsc", avro_record("R", [("a", "int")]))
        new = self.file("new.avsc", avro_record("R", [("a", "long")]))
        widened = [change("TYPE_WIDENED", "a", "int", "long", forward=False)]
        self.assertEqual(self.report(old, new), (0, {
            "schemaType": "AVRO", "summary": "1 column widened; backward compatible", "backward": True,
            "forward": False, "changes": widened, "level": "BACKWARD", "compatible": True, "messages": []}))
        for level, rc in (("FORWARD", 1), ("FULL", 1), ("BACKWARD_TRANSITIVE", 0), ("NONE", 0)):
            self.assertEqual(self.diff("--level", level, old, new).returncode, rc, level)
        # The other way round, an int reader cannot read longs.
        rc, body = self.report(new, old)
        self.assertEqual((rc, body["compatible"], body["messages"][0][:41]),
                         (1, False, "{errorType:'TYPE_MISMATCH', description:'"))

    def test_text_report(self):
        old = self.file("old.avsc", avro_record("R", [("a", "int")]))
        new = self.file("new.avsc", avro_record("R", [("a", "long"), ("b", "string", "")]))
        run = self.diff(old, new)
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        self.assertEqual(run.stdout, (
            f"{old} -> {new}: 1 column added, 1 widened; backward compatible\n"
            "  TYPE_WIDENED             a  int -> long  old readers: no, new readers: yes\n"
            "  FIELD_ADDED_WITH_DEFAULT b  - -> string  old readers: yes, new readers: yes\n"
            "BACKWARD: compatible\n"))

    def test_protobuf_worked_examples(self):
        """docs/evolution.md, "Protobuf: presence, defaults, widening": the files it shows,
        and the report it prints is this command's, line by line ("..." ends a line early)."""
        files = {
            "v1.proto": 'syntax = "proto3";\nmessage Reading {\n  int32 count = 1;\n  string unit = 2;\n'
                        '  int64 total = 3;\n  double level = 4;\n}\n',
            "v2.proto": 'syntax = "proto3";\nimport "google/protobuf/wrappers.proto";\nmessage Reading {\n'
                        '  int64 count = 1;\n  optional string unit = 2;\n  int32 total = 3;\n'
                        '  google.protobuf.DoubleValue level = 4;\n}\n',
            "d1.proto": 'syntax = "proto2";\nmessage Reading {\n  optional int32 count = 1 [default = 1];\n'
                        '  optional string unit = 2;\n}\n',
            "d2.proto": 'syntax = "proto2";\nmessage Reading {\n  optional int32 count = 1 [default = 10];\n'
                        '  optional string unit = 2 [default = "m"];\n}\n',
            "r1.proto": 'syntax = "proto2";\nmessage Order {\n  enum Status {\n    NEW = 0;\n    PAID = 1;\n  }\n'
                        '  required string id = 1;\n  optional Status status = 2;\n}\n',
            "r2.proto": 'syntax = "proto2";\nmessage Order {\n  enum Status {\n    NEW = 0;\n    PAID = 1;\n  }\n'
                        '  optional string id = 1;\n  optional int32 status = 2;\n}\n',
        }
        for name, text in files.items():
            self.file(name, text)
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "evolution.md")
        with open(doc, encoding="utf-8") as f:
            blocks = [b.split("\n```", 1)[0].splitlines()
                      for b in f.read().split("```sh\n$ schema-registry diff ")[1:]]
        shown = {tuple(b[0].split()): b[1:] for b in blocks if b[0].endswith(".proto")}
        self.assertEqual(set(shown), {("v1.proto", "v2.proto"), ("d1.proto", "d2.proto"),
                                      ("r1.proto", "r2.proto")})
        for (old, new), want in shown.items():
            run = subprocess.run([harness.server_binary(), "diff", old, new], capture_output=True, text=True,
                                 timeout=60, cwd=self.dir.name, env={"PATH": os.environ.get("PATH", "")})
            got = run.stdout.splitlines()
            self.assertEqual(run.returncode, 1 if old == "v1.proto" else 0, run.stderr)
            for i, line in enumerate(want):
                cut = line.find("...")
                self.assertEqual(got[i][:cut] if cut >= 0 else got[i], line[:cut] if cut >= 0 else line)
        # FULL takes r2 after r1, as Confluent's level does (its FieldSchemaDiff accepts a string's
        # label change and sees no difference for an enum to int32), while both changes say old
        # readers do not survive.
        rc, body = self.report("--level", "FULL", os.path.join(self.dir.name, "r1.proto"),
                               os.path.join(self.dir.name, "r2.proto"))
        self.assertEqual((rc, body["compatible"], body["forward"], body["backward"]), (0, True, False, True))
        # With an int32 made optional Confluent refuses the label change: the change says neither.
        self.file("n1.proto", 'syntax = "proto2";\nmessage Order {\n  required int32 n = 1;\n}\n')
        self.file("n2.proto", 'syntax = "proto2";\nmessage Order {\n  optional int32 n = 1;\n}\n')
        rc, body = self.report(os.path.join(self.dir.name, "n1.proto"), os.path.join(self.dir.name, "n2.proto"))
        self.assertEqual((rc, body["compatible"], body["changes"]), (1, False, [
            change("NULLABILITY_CHANGED", "Order.n", "required int32", "optional int32", "required -> nullable",
                   forward=False, backward=False)]))
        # FULL takes the widening alone, as Confluent's level does: the wire reads both ways.
        self.file("w1.proto", 'syntax = "proto3";\nmessage Reading {\n  int32 count = 1;\n}\n')
        self.file("w2.proto", 'syntax = "proto3";\nmessage Reading {\n  int64 count = 1;\n}\n')
        rc, body = self.report("--level", "FULL", os.path.join(self.dir.name, "w1.proto"),
                               os.path.join(self.dir.name, "w2.proto"))
        self.assertEqual((rc, body["compatible"], body["summary"], body["changes"]), (
            0, True, "1 column widened; backward compatible",
            [change("TYPE_WIDENED", "Reading.count", "int32", "int64", forward=False)]))

    def test_type_from_flag_and_usage_errors(self):
        old = self.file("old.txt", avro_record("R", [("a", "int")]))
        new = self.file("new.txt", avro_record("R", [("a", "int"), ("b", "int", 1)]))
        self.assertEqual(self.diff("--type", "AVRO", old, new).returncode, 0)
        bad = self.file("bad.avsc", "{not json")
        for argv in ((old, new), (old,), (), (old, new, new), ("--type", "XML", old, new),
                     ("--level", "SIDEWAYS", "--type", "AVRO", old, new), ("--bogus", old, new),
                     ("--type",), ("--type", "AVRO", old, os.path.join(self.dir.name, "missing.avsc")),
                     (self.file("ok.avsc", avro_record("R", [("a", "int")])), bad)):
            run = self.diff(*argv)
            self.assertEqual((run.returncode, run.stdout), (2, ""), argv)
            self.assertTrue(run.stderr.startswith("schema-registry diff: "), (argv, run.stderr))
        run = self.diff("--help")
        self.assertEqual(run.returncode, 0)
        self.assertTrue(run.stdout.startswith("Usage: schema-registry diff [flags] OLD NEW\n"))
        # The binary's own --help lists the command.
        self.assertIn("schema-registry diff", subprocess.run([harness.server_binary(), "--help"],
                                                            capture_output=True, text=True).stdout)


if __name__ == "__main__":
    harness.main()

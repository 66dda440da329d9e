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

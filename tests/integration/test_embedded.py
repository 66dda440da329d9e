"""Embedded PostgreSQL: without --database-url the server runs its own
cluster under --data-dir, keeps data across restarts and stops it on exit
(docs/architecture.md)."""

import json
import os
import signal
import time
import unittest

import harness
from harness import avro_record, quote


def stop_leftovers(pattern):
    """Cleanup only: SIGQUIT what still runs from our own temp dir."""
    for pid in harness.pgrep(pattern):
        try:
            os.kill(pid, signal.SIGQUIT)
        except ProcessLookupError:
            pass


class Embedded(unittest.TestCase):

    def setUp(self):
        parent = harness.make_temp_dir("embedded")
        self.data_dir = os.path.join(parent, "var")      # the server creates it
        harness.at_exit(lambda: stop_leftovers(self.data_dir))

    def start(self):
        server = harness.Server(data_dir=self.data_dir, name="embedded")
        server.start()
        return server

    def assert_no_process_uses_data_dir(self):
        deadline = time.monotonic() + 5
        while harness.pgrep(self.data_dir) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(harness.pgrep(self.data_dir), [],
                         f"processes still running on {self.data_dir}")

    def test_data_survives_restart_and_postgres_stops(self):
        s = "embedded-value"
        schema = avro_record("Embedded", [("a", "string")])

        server = self.start()
        self.assertTrue(harness.pgrep(self.data_dir), "no embedded PostgreSQL process seen")
        client = server.client()
        r = client.post(f"/subjects/{quote(s)}/versions", {"schema": schema})
        self.assertEqual(r.status, 200, r)
        schema_id = r.body["id"]
        self.assertEqual(client.put("/config", {"compatibility": "FULL"}).status, 200)
        server.stop()
        self.assertTrue(os.listdir(self.data_dir))
        self.assert_no_process_uses_data_dir()

        server = self.start()
        client = server.client()
        got = client.get(f"/schemas/ids/{schema_id}")
        self.assertEqual(got.status, 200, got)
        self.assertEqual(json.loads(got.body["schema"]), json.loads(schema))
        latest = client.get(f"/subjects/{quote(s)}/versions/latest")
        self.assertEqual((latest.body["id"], latest.body["version"]), (schema_id, 1))
        self.assertEqual(client.get("/config").body, {"compatibilityLevel": "FULL"})
        r = client.post(f"/subjects/{quote('other-value')}/versions",
                        {"schema": avro_record("Other", [("b", "int")])})
        self.assertEqual(r.status, 200, r)
        self.assertGreater(r.body["id"], schema_id)
        server.stop()
        self.assert_no_process_uses_data_dir()


if __name__ == "__main__":
    harness.main()

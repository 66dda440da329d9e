"""Persistence across a server restart: schemas, versions, deletes, config,
mode; ids continue above the old ones (docs/api.md)."""

import json

import harness
from harness import avro_record, quote


def rec(n):
    return avro_record("Restart", [(f"f{i}", "string", "") for i in range(n)])


class Restart(harness.RegistryTestCase):

    def tearDown(self):
        self.delete("/config")

    def restart(self):
        self.server.stop()                       # asserts a clean exit
        self.server.start()

    def test_everything_survives_a_restart(self):
        a, b, c = self.sub("a"), self.sub("b"), self.sub("c")
        ids = [self.register_ok(a, rec(n)) for n in (1, 2, 3)]
        shared = self.register_ok(b, rec(2))
        self.assertEqual(shared, ids[1])
        self.register_ok(c, rec(1))
        self.assert_ok(self.delete_version(a, 2))
        self.assert_ok(self.delete_subject(c), [1])
        self.assert_ok(self.put(f"/config/{quote(a)}", {"compatibility": "FULL", "normalize": True}))
        self.assert_ok(self.put("/config", {"compatibility": "FORWARD"}))
        self.assert_ok(self.put(f"/mode/{quote(b)}", {"mode": "READONLY"}))
        # Scopes with settings and no versions, one with both, and a subject in a context:
        # the start-up load reads all subjects in one query (store_load_subjects).
        d, e, f = self.sub("d"), self.sub("e"), self.sub("f")
        ctx = f":.restart:{self.sub('g')}"
        self.assert_ok(self.put(f"/config/{quote(d)}", {"compatibility": "NONE"}))
        self.assert_ok(self.put(f"/mode/{quote(e)}", {"mode": "READONLY"}))
        self.assert_ok(self.put(f"/config/{quote(f)}", {"compatibility": "FULL_TRANSITIVE"}))
        self.assert_ok(self.put(f"/mode/{quote(f)}", {"mode": "READONLY"}))
        ctx_id = self.register_ok(ctx, rec(2))
        self.assert_ok(self.put(f"/config/{quote(ctx)}", {"compatibility": "BACKWARD_TRANSITIVE"}))

        def snapshot():
            return {
                "subjects": self.subjects(),
                "subjects_deleted": self.subjects({"deleted": "true"}),
                "a_versions": self.assert_ok(self.versions(a, {"deleted": "true"})),
                "a_live": self.assert_ok(self.versions(a)),
                "a_latest": self.assert_ok(self.version(a, "latest")),
                "a_2": self.assert_ok(self.version(a, 2, {"deleted": "true"})),
                "by_id": [self.assert_ok(self.get(f"/schemas/ids/{i}")) for i in ids],
                "id_subjects": self.assert_ok(self.get(f"/schemas/ids/{ids[1]}/subjects")),
                "config_a": self.assert_ok(self.get(f"/config/{quote(a)}")),
                "config": self.assert_ok(self.get("/config")),
                "mode_b": self.assert_ok(self.get(f"/mode/{quote(b)}")),
                "mode": self.assert_ok(self.get("/mode")),
                "settings_only": [self.assert_ok(self.get(f"/config/{quote(d)}")),
                                  self.assert_ok(self.get(f"/mode/{quote(e)}")),
                                  self.assert_ok(self.get(f"/config/{quote(f)}")),
                                  self.assert_ok(self.get(f"/mode/{quote(f)}"))],
                "ctx": [self.assert_ok(self.version(ctx, "latest")),
                        self.assert_ok(self.get(f"/config/{quote(ctx)}")),
                        self.assert_ok(self.get(f"/schemas/ids/{ctx_id}?subject={quote(ctx)}"))],
                "db": self.db.state(),
            }

        before = snapshot()
        self.restart()
        self.assertEqual(snapshot(), before)

        # Still enforced after the restart.
        self.assert_error(self.register(b, rec(4)), 422, 42205)
        self.assert_error(self.get(f"/subjects/{quote(c)}/versions"), 404, 40401)

        # Ids continue above every id handed out before.
        fresh = self.register_ok(self.sub("fresh"), avro_record("Fresh", [("z", "string")]))
        self.assertGreater(fresh, max(ids))
        self.assertEqual(self.register_ok(a, rec(3)), ids[2])            # nothing new
        self.assert_ok(self.versions(a), [1, 3])

    def test_restart_twice_keeps_latest_state(self):
        s = self.sub()
        first = self.register_ok(s, rec(1))
        self.restart()
        second = self.register_ok(s, rec(2))
        self.assertGreater(second, first)
        self.restart()
        self.assert_ok(self.versions(s), [1, 2])
        body = self.assert_ok(self.version(s, "latest"))
        self.assertEqual((body["version"], body["id"]), (2, second))
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(2)))
        self.assertEqual(self.server.exit_codes[-2:], [0, 0])


if __name__ == "__main__":
    harness.main()

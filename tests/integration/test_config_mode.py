"""Config and mode, global and per subject (docs/api.md).
Classes that change global settings each have their own server and database
and put the defaults back after every test."""

import harness
from harness import avro_record, quote, sql_literal


def rec(n, name="Cfg"):
    return avro_record(name, [(f"f{i}", "string", "") for i in range(n)])


LEVELS = ["NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
          "FULL", "FULL_TRANSITIVE"]


class GlobalConfig(harness.RegistryTestCase):

    def tearDown(self):
        self.delete("/mode")
        self.delete("/config")

    def test_default_is_backward(self):
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "BACKWARD"})
        self.assert_ok(self.get("/config", params={"defaultToGlobal": "true"}),
                       {"compatibilityLevel": "BACKWARD"})

    def test_put_every_level(self):
        for level in LEVELS:
            with self.subTest(level=level):
                self.assert_ok(self.put("/config", {"compatibility": level}),
                               {"compatibility": level})
                self.assert_ok(self.get("/config"), {"compatibilityLevel": level})

    def test_level_is_case_insensitive_and_upper_cased(self):
        self.assert_ok(self.put("/config", {"compatibility": "full_transitive"}),
                       {"compatibility": "FULL_TRANSITIVE"})
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "FULL_TRANSITIVE"})

    def test_partial_update_and_null_clears(self):
        self.assert_ok(self.put("/config", {"compatibility": "FULL"}), {"compatibility": "FULL"})
        self.assert_ok(self.put("/config", {"normalize": True}),
                       {"compatibility": "FULL", "normalize": True})
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "FULL", "normalize": True})
        self.assert_ok(self.put("/config", {"normalize": None}), {"compatibility": "FULL"})
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "FULL"})

    def test_compatibility_level_key_in_put_is_ignored(self):
        self.assert_ok(self.put("/config", {"compatibility": "FORWARD"}))
        self.assert_ok(self.put("/config", {"compatibilityLevel": "NONE"}),
                       {"compatibility": "FORWARD"})
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "FORWARD"})

    def test_invalid_level_is_42203(self):
        self.assert_ok(self.put("/config", {"compatibility": "FULL"}))
        before = self.db.state()
        for level in ("BOGUS", "", "FULLY", "backwards"):
            with self.subTest(level=level):
                self.assert_error(self.put("/config", {"compatibility": level}), 422, 42203)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "FULL"})

    def test_delete_returns_previous_and_restores_default(self):
        self.assert_ok(self.put("/config", {"compatibility": "FORWARD_TRANSITIVE"}))
        self.assert_ok(self.delete("/config"), {"compatibilityLevel": "FORWARD_TRANSITIVE"})
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "BACKWARD"})
        self.assert_ok(self.delete("/config"), {"compatibilityLevel": "BACKWARD"})

    def test_stored_in_database(self):
        self.assert_ok(self.put("/config", {"compatibility": "NONE"}))
        self.assertEqual(self.db.count("configs", "scope = ''"), 1)
        self.assertEqual(self.db.value("SELECT config->>'compatibility' FROM configs "
                                       "WHERE scope = ''"), "NONE")

    def test_global_level_applies_to_subjects(self):
        s = self.sub()
        self.register_ok(s, avro_record("G", [("a", "string")]))
        incompatible = avro_record("G", [("a", "int")])
        self.assertEqual(self.register(s, incompatible).status, 409)
        self.assert_ok(self.put("/config", {"compatibility": "NONE"}))
        self.register_ok(s, incompatible)
        self.assert_ok(self.versions(s), [1, 2])


class SubjectConfig(harness.RegistryTestCase):

    def cfg(self, subject):
        return f"/config/{quote(subject)}"

    def test_unset_subject_config_is_40408(self):
        s = self.sub()
        self.assert_error(self.get(self.cfg(s)), 404, 40408)
        self.assert_error(self.get(self.cfg(s), params={"defaultToGlobal": "false"}), 404, 40408)

    def test_default_to_global(self):
        s = self.sub()
        self.assert_ok(self.get(self.cfg(s), params={"defaultToGlobal": "true"}),
                       {"compatibilityLevel": "BACKWARD"})
        self.assert_ok(self.put(self.cfg(s), {"compatibility": "FULL"}))
        self.assert_ok(self.get(self.cfg(s), params={"defaultToGlobal": "true"}),
                       {"compatibilityLevel": "FULL"})

    def test_put_does_not_need_the_subject(self):
        s = self.sub()
        self.assert_ok(self.put(self.cfg(s), {"compatibility": "none"}), {"compatibility": "NONE"})
        self.assert_ok(self.get(self.cfg(s)), {"compatibilityLevel": "NONE"})
        self.assertNotIn(s, self.subjects({"deleted": "true"}))
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 1)

    def test_partial_update_and_null_clears(self):
        s = self.sub()
        self.assert_ok(self.put(self.cfg(s), {"compatibility": "FORWARD"}))
        self.assert_ok(self.put(self.cfg(s), {"normalize": True}),
                       {"compatibility": "FORWARD", "normalize": True})
        self.assert_ok(self.get(self.cfg(s)), {"compatibilityLevel": "FORWARD", "normalize": True})
        self.assert_ok(self.put(self.cfg(s), {"normalize": None}), {"compatibility": "FORWARD"})
        self.assert_ok(self.get(self.cfg(s)), {"compatibilityLevel": "FORWARD"})

    def test_config_without_level_reports_the_default(self):
        s = self.sub()
        self.assert_ok(self.put(self.cfg(s), {"normalize": True}), {"normalize": True})
        self.assert_ok(self.get(self.cfg(s)), {"compatibilityLevel": "BACKWARD", "normalize": True})

    def test_invalid_level_is_42203(self):
        s = self.sub()
        self.assert_error(self.put(self.cfg(s), {"compatibility": "SIDEWAYS"}), 422, 42203)
        self.assert_error(self.get(self.cfg(s)), 404, 40408)
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 0)

    def test_invalid_subject_is_42208(self):
        for raw in ("bad%01name", "bad%7Fname", "__GLOBAL", "__EMPTY"):
            with self.subTest(subject=raw):
                before = self.db.state()
                self.assert_error(self.put(f"/config/{raw}", {"compatibility": "NONE"}), 422, 42208)
                self.assertEqual(self.db.state(), before)

    def test_delete(self):
        s = self.sub()
        self.assert_ok(self.put(self.cfg(s), {"compatibility": "FULL"}))
        self.assert_ok(self.delete(self.cfg(s)), {"compatibilityLevel": "FULL"})
        self.assert_error(self.get(self.cfg(s)), 404, 40408)
        self.assertEqual(self.db.count("configs", f"scope = {sql_literal(s)}"), 0)
        # Nothing to delete: 40401, not 40408 [Ref].
        self.assert_error(self.delete(self.cfg(s)), 404, 40401)

    def test_subject_level_overrides_global(self):
        s = self.sub()
        self.register_ok(s, avro_record("S", [("a", "string")]))
        incompatible = avro_record("S", [("a", "int")])
        r = self.register(s, incompatible)
        self.assert_error(r, 409, 40901)
        self.assert_ok(self.put(self.cfg(s), {"compatibility": "NONE"}))
        self.register_ok(s, incompatible)
        self.assert_ok(self.get("/config"), {"compatibilityLevel": "BACKWARD"})
        # Other subjects still get the global level.
        t = self.sub("t")
        self.register_ok(t, avro_record("S", [("a", "string")]))
        self.assert_error(self.register(t, incompatible), 409, 40901)


class Modes(harness.RegistryTestCase):

    def tearDown(self):
        self.delete("/mode")

    def mode(self, subject):
        return f"/mode/{quote(subject)}"

    def test_default_mode(self):
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})
        s = self.sub()
        self.assert_error(self.get(self.mode(s)), 404, 40409)
        self.assert_ok(self.get(self.mode(s), params={"defaultToGlobal": "true"}),
                       {"mode": "READWRITE"})

    def test_put_global_mode_echoes_request(self):
        self.assert_ok(self.put("/mode", {"mode": "READONLY"}), {"mode": "READONLY"})
        self.assert_ok(self.get("/mode"), {"mode": "READONLY"})
        self.assert_ok(self.put("/mode", {"mode": "readwrite"}), {"mode": "readwrite"})
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})

    def test_invalid_modes_are_42204(self):
        before = self.db.state()
        for body in ({"mode": "BOGUS"}, {"mode": "FORWARD"}, {"mode": ""}, {}):
            with self.subTest(body=body):
                self.assert_error(self.put("/mode", body), 422, 42204)
                self.assert_error(self.put(self.mode(self.sub()), body), 422, 42204)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})

    def test_readonly_rules(self):
        s = self.sub()
        existing = self.register_ok(s, rec(1))
        for mode in ("READONLY", "READONLY_OVERRIDE"):
            with self.subTest(mode=mode):
                self.assert_ok(self.put("/mode", {"mode": mode}))
                before = self.db.state()
                self.assert_error(self.register(s, rec(2)), 422, 42205)
                self.assert_error(self.register(self.sub("new"), rec(2)), 422, 42205)
                self.assertEqual(self.register_ok(s, rec(1)), existing)   # returns existing
                self.assert_error(self.delete_version(s, 1), 422, 42205)
                self.assert_error(self.delete_subject(s), 422, 42205)
                self.assert_error(self.put("/config", {"compatibility": "NONE"}), 422, 42205)
                self.assert_error(self.delete("/config"), 422, 42205)
                self.assert_error(self.put(f"/config/{quote(s)}", {"compatibility": "NONE"}),
                                  422, 42205)
                self.assertEqual(self.db.state(), before)
                # Reads, lookups and compatibility checks still work.
                self.assert_ok(self.versions(s), [1])
                self.assertEqual(self.assert_ok(self.lookup(s, rec(1)))["id"], existing)
                self.assert_ok(self.get(f"/schemas/ids/{existing}"))
                self.assert_ok(self.post(f"/compatibility/subjects/{quote(s)}/versions/latest",
                                         {"schema": rec(2)}), {"is_compatible": True})
                self.assert_ok(self.put("/mode", {"mode": "READWRITE"}))
        self.register_ok(s, rec(2))

    def test_subject_mode(self):
        s = self.sub()
        self.register_ok(s, rec(1))
        self.assert_ok(self.put(self.mode(s), {"mode": "READONLY"}), {"mode": "READONLY"})
        self.assert_ok(self.get(self.mode(s)), {"mode": "READONLY"})
        self.assertEqual(self.db.value(f"SELECT mode FROM modes WHERE scope = {sql_literal(s)}"),
                         "READONLY")
        self.assert_error(self.register(s, rec(2)), 422, 42205)
        self.register_ok(self.sub("other"), rec(2))        # only that subject is read-only
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})
        self.assert_ok(self.delete(self.mode(s)), {"mode": "READONLY"})
        self.assert_error(self.get(self.mode(s)), 404, 40409)
        self.assert_error(self.delete(self.mode(s)), 404, 40401)
        self.register_ok(s, rec(2))

    def test_subject_mode_wins_over_global_readonly(self):
        s = self.sub()
        self.assert_ok(self.put(self.mode(s), {"mode": "READWRITE"}))
        self.assert_ok(self.put("/mode", {"mode": "READONLY"}))
        self.register_ok(s, rec(1))
        self.assert_error(self.register(self.sub("other"), rec(1)), 422, 42205)
        self.assert_ok(self.get(self.mode(s), params={"defaultToGlobal": "true"}),
                       {"mode": "READWRITE"})
        self.assert_ok(self.get(self.mode(self.sub("x")), params={"defaultToGlobal": "true"}),
                       {"mode": "READONLY"})

    def test_global_readonly_override_wins_over_subject_mode(self):
        s = self.sub()
        self.assert_ok(self.put(self.mode(s), {"mode": "READWRITE"}))
        self.assert_ok(self.put("/mode", {"mode": "READONLY_OVERRIDE"}))
        self.assert_error(self.register(s, rec(1)), 422, 42205)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_delete_global_mode(self):
        self.assert_ok(self.put("/mode", {"mode": "READONLY"}))
        self.assert_ok(self.delete("/mode"), {"mode": "READONLY"})
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})
        self.assert_ok(self.delete("/mode"), {"mode": "READWRITE"})

    def test_invalid_subject_is_42208(self):
        for raw in ("bad%01name", "bad%C2%85name", "__GLOBAL", "__EMPTY"):
            with self.subTest(subject=raw):
                self.assert_error(self.put(f"/mode/{raw}", {"mode": "READONLY"}), 422, 42208)

    def test_null_mode_deletes_it(self):
        """{"mode": null} is Optional.empty() in Confluent's ModeUpdateRequest:
        KafkaSchemaRegistry.setMode writes a null ModeValue, i.e. deletes the
        scope's mode (the global one then reads READWRITE). The request is
        echoed. Without a stored mode it is a no-op, not 40401."""
        s = self.sub()
        scope = sql_literal(s)
        self.assert_ok(self.put(self.mode(s), {"mode": "READONLY"}))
        self.assert_ok(self.put(self.mode(s), {"mode": None}), {"mode": None})
        self.assertEqual(self.db.count("modes", f"scope = {scope}"), 0)
        self.assert_error(self.get(self.mode(s)), 404, 40409)
        self.register_ok(s, rec(1))                    # no longer read-only
        self.assert_ok(self.put(self.mode(s), {"mode": None}), {"mode": None})   # nothing stored
        self.assert_ok(self.put("/mode", {"mode": "READONLY"}))
        self.assert_ok(self.put("/mode", {"mode": None}), {"mode": None})
        self.assertEqual(self.db.count("modes", "scope = ''"), 0)
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})
        self.register_ok(s, rec(2))
        self.assert_error(self.put(f"/mode/bad%01name", {"mode": None}), 422, 42208)

    def test_explicit_id_outside_import_mode_is_42205(self):
        s = self.sub()
        self.assert_error(self.register(s, rec(1), id=123456), 422, 42205)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_entering_import_with_live_subjects_needs_force(self):
        s = self.sub()
        self.register_ok(s, rec(1))
        self.assert_error(self.put(self.mode(s), {"mode": "IMPORT"}), 422, 42205)
        self.assert_error(self.put("/mode", {"mode": "IMPORT"}), 422, 42205)
        self.assert_ok(self.get("/mode"), {"mode": "READWRITE"})
        self.assert_ok(self.put(self.mode(s), {"mode": "IMPORT"}, params={"force": "true"}),
                       {"mode": "IMPORT"})
        self.assert_ok(self.get(self.mode(s)), {"mode": "IMPORT"})
        self.assert_ok(self.put(self.mode(s), {"mode": "READWRITE"}))


class SubjectImport(harness.RegistryTestCase):

    def test_import_with_explicit_ids_and_versions(self):
        s = self.sub()
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}), {"mode": "IMPORT"})
        self.assert_error(self.register(s, rec(1)), 422, 42205)          # no id in IMPORT
        self.assert_ok(self.register(s, rec(1), id=5000, version=3), {"id": 5000})
        self.assert_ok(self.register(s, rec(2), id=5007, version=7), {"id": 5007})
        # Compatibility is not checked in IMPORT mode.
        self.assert_ok(self.register(s, avro_record("Other", [("x", "int")]), id=4000),
                       {"id": 4000})
        self.assert_ok(self.versions(s), [3, 7, 8])
        self.assertEqual(self.assert_ok(self.version(s, 3))["id"], 5000)
        self.assertEqual(self.assert_ok(self.version(s, 7))["id"], 5007)
        self.assertEqual(self.assert_ok(self.version(s, 8))["id"], 4000)
        self.assert_ok(self.get("/schemas/ids/5000"))
        self.assertEqual(self.db.sql("SELECT version, schema_id FROM subject_versions WHERE "
                                     f"subject = {sql_literal(s)} ORDER BY version"),
                         [("3", "5000"), ("7", "5007"), ("8", "4000")])

        # An id bound to other content cannot be overwritten.
        before = self.db.state()
        self.assert_error(self.register(s, rec(3), id=5000), 422, 42205)
        self.assertEqual(self.db.state(), before)

        # Back to READWRITE: new ids are allocated above every imported one.
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "READWRITE"}))
        fresh = self.register_ok(self.sub("after"), avro_record("Fresh", [("y", "long")]))
        self.assertGreater(fresh, 5007)
        self.assertEqual(self.register_ok(s, rec(2)), 5007)              # already there


class GlobalImport(harness.RegistryTestCase):
    """Needs an empty registry: global IMPORT without force is only allowed then."""

    def test_global_import_then_readwrite(self):
        self.assert_ok(self.put("/mode", {"mode": "IMPORT"}), {"mode": "IMPORT"})
        self.assert_ok(self.get("/mode"), {"mode": "IMPORT"})
        a, b = self.sub("a"), self.sub("b")
        self.assert_ok(self.register(a, rec(1), id=77), {"id": 77})
        self.assert_ok(self.register(b, rec(1), id=77), {"id": 77})      # same content, same id
        self.assert_error(self.register(b, rec(2)), 422, 42205)
        self.assert_error(self.register(b, rec(2), id=77), 422, 42205)  # 77 is other content
        self.assert_ok(self.register(b, rec(2), id=12), {"id": 12})
        self.assert_ok(self.versions(b), [1, 2])
        self.assert_ok(self.put("/mode", {"mode": "READWRITE"}))
        fresh = self.register_ok(self.sub("c"), rec(3))
        self.assertGreater(fresh, 77)
        # Leaving IMPORT and coming back needs force now that subjects exist.
        self.assert_error(self.put("/mode", {"mode": "IMPORT"}), 422, 42205)
        self.assert_ok(self.put("/mode", {"mode": "IMPORT"}, params={"force": "true"}))
        self.assert_ok(self.put("/mode", {"mode": "READWRITE"}))


if __name__ == "__main__":
    harness.main()

"""Authorization: rules on subjects and global resources (issue 14;
docs/security.md "Authorization").

- Every route declares a permission (server/routes.c; tests/unit/test_authz.c
  holds the table to it); the check is one step after routing, so an unknown
  path is 404 and a known path with another method 405 before any 403, and
  401 (no or bad credentials) comes before both.
- 403 is {"error_code":403,"message":...}, the body of rest-utils' JSON error
  handler for a refused request (Confluent's authorizer plugins answer 403 the
  same way: io.confluent.rest.exceptions.RestException with status 403).
- Listings show only subjects the principal may read; a by-id read is allowed
  when a readable subject carries the id, else 403.
- Rules are reloaded on SIGHUP; a broken rule keeps the previous rules.
- No rule at all: every authenticated principal may do everything.
"""

import json
import os
import signal
import subprocess
import time

import harness
from harness import avro_record, quote
from test_auth_basic import basic, make_users

V1 = harness.SR_V1

USERS = {"root": "r00t", "alice": "a11ce", "bob": "b0b", "carol": "car0l", "dave": "dav3", "ops": "0ps",
         "erin": "er1n"}

RULES = """\
# the rules of the matrix below
auth.group = readers bob,erin
auth.rule = root admin *
auth.rule = root admin /*
auth.rule = alice read,write orders-*
auth.rule = alice read common-value
auth.rule = @readers read *-value
auth.rule = carol read,delete orders-*
auth.rule = ops admin /config
auth.rule = ops read /mode
"""


def start_server(cls, rules, extra=()):
    cls.dir = harness.make_temp_dir("authz")
    cls.users_file = make_users(cls.dir, USERS)
    cls.config = os.path.join(cls.dir, "registry.conf")
    with open(cls.config, "w") as f:
        # No failure cap: the matrix sends a wrong password to every route.
        f.write(f"auth.basic.users.file = {cls.users_file}\nauth.max.failures = 0\n" + rules)
    cls.pg = harness.cluster()
    cls.db = cls.pg.new_database()
    cls.server = harness.Server(database_url=cls.db.url, name=cls.__name__.lower(),
                                args=("--config", cls.config, *extra))
    cls.server.start()


class AuthzCase(harness.RegistryTestCase):
    rules = RULES

    @classmethod
    def setUpClass(cls):
        start_server(cls, cls.rules)

    def as_user(self, user):
        if user is None:
            return harness.Client("127.0.0.1", self.server.port)
        password = USERS.get(user, "wrong")
        return harness.Client("127.0.0.1", self.server.port, headers=basic(user, password))

    def wait_log(self, text, count):
        deadline = time.monotonic() + 20
        while self.server.log_text().count(text) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(self.server.log_text().count(text), count)


def assert_forbidden(test, r):
    test.assertEqual(r.status, 403, r)
    test.assertEqual(set(r.body), {"error_code", "message"}, r)
    test.assertEqual(r.body["error_code"], 403, r)
    test.assertTrue(r.body["message"].startswith("Forbidden: principal '"), r)
    test.assertEqual(r.headers.get("Content-Type"), V1)


class Matrix(AuthzCase):
    """Principals x routes x methods, every status exact."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        root = harness.Client("127.0.0.1", cls.server.port, headers=basic("root", USERS["root"]))

        def register(subject, schema, references=None):
            body = {"schema": schema}
            if references:
                body["references"] = references
            r = root.post(f"/subjects/{quote(subject)}/versions", body)
            assert r.status == 200, r
            return r.body["id"]

        cls.orders_id = register("orders-value", avro_record("Order", [("a", "string")]))
        cls.secret_id = register("secret", avro_record("Secret", [("s", "string")]))
        shared = avro_record("Shared", [("x", "int")])
        cls.shared_id = register("payments-value", shared)
        assert register("internal", shared) == cls.shared_id
        register("common-value", avro_record("Common", [("c", "string")]))
        ref = [{"name": "Common", "subject": "common-value", "version": 1}]
        cls.orders_ref_id = register("orders-refs", json.dumps(
            {"type": "record", "name": "OR", "fields": [{"name": "c", "type": "Common"}]}), ref)
        cls.secret_ref_id = register("secret-refs", json.dumps(
            {"type": "record", "name": "SR", "fields": [{"name": "c", "type": "Common"}]}), ref)

    PRINCIPALS = ("root", "alice", "bob", "carol", "dave", "ops")

    def check(self, method, path, body, expected, params=None):
        """expected: principal -> status; every principal not named gets 403;
        no credentials and a wrong password always get 401."""
        for user in (None, "mallory") + self.PRINCIPALS:
            want = 401 if user in (None, "mallory") else expected.get(user, 403)
            with self.subTest(method=method, path=path, user=user):
                r = self.as_user(user).request(method, path, body=body, params=params)
                self.assertEqual(r.status, want, r)
                if want == 403:
                    assert_forbidden(self, r)
                if want == 401:
                    self.assertEqual(r.body, {"error_code": 401, "message": "Unauthorized"})

    def test_open_routes(self):
        everyone = {u: 200 for u in self.PRINCIPALS}
        for path in ("/", "/v1/metadata/id", "/v1/metadata/version", "/schemas/types"):
            self.check("GET", path, None, everyone)
        # Listings answer everyone (filtered: test_listings).
        for path in ("/subjects", "/schemas"):
            self.check("GET", path, None, everyone)
        # The probes stay open even without credentials.
        for path in ("/health/live", "/health/ready"):
            for user in (None,) + self.PRINCIPALS:
                self.assertEqual(self.as_user(user).get(path).status, 200)

    def test_subject_routes(self):
        readers = {"root": 200, "alice": 200, "bob": 200, "carol": 200}
        schema = {"schema": avro_record("Order", [("a", "string")])}
        self.check("GET", "/subjects/orders-value/versions", None, readers)
        self.check("GET", "/subjects/orders-value/versions/1", None, readers)
        self.check("GET", "/subjects/orders-value/versions/latest/schema", None, readers)
        self.check("GET", "/subjects/orders-value/metadata", None, {**readers, "root": 404, "alice": 404,
                                                                     "bob": 404, "carol": 404})
        self.check("POST", "/subjects/orders-value", schema, readers)  # lookup is a read
        self.check("POST", "/compatibility/subjects/orders-value/versions/latest", schema, readers)
        self.check("POST", "/compatibility/subjects/orders-value/versions", schema, readers)
        self.check("GET", "/config/orders-value", None, readers, params={"defaultToGlobal": "true"})
        self.check("GET", "/mode/orders-value", None, readers, params={"defaultToGlobal": "true"})
        # Registering the same schema again changes nothing: 200 for a writer.
        self.check("POST", "/subjects/orders-value/versions", schema, {"root": 200, "alice": 200})
        # Deletes of what does not exist: 404 once authorized, 403 before.
        self.check("DELETE", "/subjects/orders-none", None, {"root": 404, "carol": 404})
        self.check("DELETE", "/subjects/orders-none/versions/1", None, {"root": 404, "carol": 404})
        # Only root may read "secret".
        self.check("GET", "/subjects/secret/versions", None, {"root": 200})
        self.check("POST", "/subjects/secret/versions", {"schema": avro_record("Secret", [("s", "string")])},
                   {"root": 200})
        # Subject config and mode: admin on the subject.
        self.check("PUT", "/config/orders-value", {"compatibility": "BACKWARD"}, {"root": 200})
        self.check("PUT", "/mode/orders-value", {"mode": "READWRITE"}, {"root": 200})
        self.check("DELETE", "/config/orders-value", None, {"root": 200})
        self.check("DELETE", "/mode/orders-value", None, {"root": 200})

    def test_global_routes(self):
        self.check("GET", "/config", None, {"root": 200, "ops": 200})
        self.check("PUT", "/config", {"compatibility": "BACKWARD"}, {"root": 200, "ops": 200})
        self.check("GET", "/mode", None, {"root": 200, "ops": 200})
        self.check("PUT", "/mode", {"mode": "READWRITE"}, {"root": 200})
        self.check("GET", "/contexts", None, {"root": 200})
        self.check("DELETE", "/contexts/.nothing", None, {"root": 204})  # ContextsResource: nothing to delete is fine
        self.check("GET", "/schemas/guids/00000000-0000-0000-0000-000000000000", None, {"root": 404})
        self.check("GET", "/schemas/guids/00000000-0000-0000-0000-000000000000/ids", None, {"root": 200})

    def test_change_routes(self):
        # docs/evolution.md: a version's changes need READ on the subject (version 1 has no
        # earlier one: 404 once authorized); POST /changes reads nothing stored, so any
        # principal may, but each subject its references name must be readable.
        self.check("GET", "/subjects/orders-value/versions/1/changes", None,
                   {"root": 404, "alice": 404, "bob": 404, "carol": 404})
        plain = {"schema": avro_record("Order", [("a", "string")])}
        self.check("POST", "/changes", {"old": plain, "new": plain}, {u: 200 for u in self.PRINCIPALS})
        ref = [{"name": "Common", "subject": "common-value", "version": 1}]
        with_ref = {"schema": json.dumps({"type": "record", "name": "OR", "fields": [
            {"name": "c", "type": "Common"}]}), "references": ref}
        self.check("POST", "/changes", {"old": plain, "new": with_ref}, {"root": 200, "alice": 200, "bob": 200})
        r = self.as_user("carol").post("/changes", {"old": with_ref, "new": plain})
        self.assertEqual(r.body, {"error_code": 403, "message":
                                  "Forbidden: principal 'carol' has no read permission on subject 'common-value'"})
        # In a context the reference names the context's subject, and that is the one checked.
        r = self.as_user("carol").post("/changes", {"old": with_ref, "new": plain}, params={"context": ".x"})
        self.assertEqual(r.body, {"error_code": 403, "message":
                                  "Forbidden: principal 'carol' has no read permission on subject ':.x:common-value'"})

    def test_by_id_reads(self):
        readers = {"root": 200, "alice": 200, "bob": 200, "carol": 200}
        for suffix in ("", "/schema", "/subjects", "/versions"):
            self.check("GET", f"/schemas/ids/{self.orders_id}{suffix}", None, readers)
            self.check("GET", f"/schemas/ids/{self.secret_id}{suffix}", None, {"root": 200})
            # "internal" hides it from bob, "payments-value" gives it to him.
            self.check("GET", f"/schemas/ids/{self.shared_id}{suffix}", None, {"root": 200, "bob": 200})
        # An unknown id stays 404 for everyone authenticated.
        self.check("GET", "/schemas/ids/999999", None, {u: 404 for u in self.PRINCIPALS})
        # The 403 names the id, never a subject.
        r = self.as_user("alice").get(f"/schemas/ids/{self.secret_id}")
        self.assertEqual(r.body["message"],
                         f"Forbidden: principal 'alice' may read no subject that carries schema {self.secret_id}")

    def test_every_route_is_guarded(self):
        """Every (method, route) of server/routes.c, from the table itself: no
        credentials is 401 (the probes aside); a principal no rule names (dave)
        gets 403 wherever the route's scope is a subject or a global resource,
        and no 401/403 where it needs only a principal. FILTERED routes judge
        what they hold (test_listings, test_by_id_reads): no 401 there."""
        from test_openapi import routes_c
        fill = {"{subject}": "secret", "{version}": "1", "{id}": str(self.secret_id),
                "{guid}": "00000000-0000-0000-0000-000000000000", "{context}": ".nothing",
                "{resourceId}": "res-1", "{resourceNamespace}": "ns", "{resourceName}": "n", "{file}": "x"}
        routes = routes_c()
        self.assertGreater(len(routes), 40)
        for (method, pattern), (_, scope) in sorted(routes.items()):
            path = pattern
            for k, v in fill.items():
                path = path.replace(k, v)
            self.assertNotIn("{", path)
            body = {} if method in ("POST", "PUT") else None
            with self.subTest(method=method, path=pattern):
                anonymous = self.as_user(None).request(method, path, body=body)
                if pattern.startswith("/health/"):
                    self.assertEqual(anonymous.status, 200, anonymous)
                    continue
                self.assertEqual((anonymous.status, anonymous.body), (401, {"error_code": 401,
                                                                          "message": "Unauthorized"}))
                r = self.as_user("dave").request(method, path, body=body)
                if scope == "ANY":
                    self.assertNotIn(r.status, (401, 403), r)
                elif scope == "FILTERED":
                    self.assertNotEqual(r.status, 401, r)
                else:
                    assert_forbidden(self, r)

    def test_forbidden_message(self):
        r = self.as_user("bob").post("/subjects/orders-value/versions",
                                     {"schema": avro_record("Order", [("a", "string")])})
        self.assertEqual(r.body, {"error_code": 403, "message":
                                  "Forbidden: principal 'bob' has no write permission on subject 'orders-value'"})
        r = self.as_user("ops").put("/mode", {"mode": "READONLY"})
        self.assertEqual(r.body, {"error_code": 403,
                                  "message": "Forbidden: principal 'ops' has no admin permission on /mode"})
        self.assertEqual(self.as_user("root").get("/mode").body, {"mode": "READWRITE"})

    def test_404_and_405_before_403(self):
        self.assertEqual(self.as_user("dave").get("/nope").status, 404)
        self.assertEqual(self.as_user("dave").request("PATCH", "/subjects").status, 405)
        self.assertEqual(self.as_user("dave").put("/subjects/secret/versions", {}).status, 405)

    def test_listings(self):
        def get(user, path, **kw):
            r = self.as_user(user).get(path, **kw)
            self.assertEqual(r.status, 200, r)
            return r.body

        every = ["common-value", "internal", "orders-refs", "orders-value", "payments-value", "secret",
                 "secret-refs"]
        self.assertEqual(get("root", "/subjects"), every)
        self.assertEqual(get("alice", "/subjects"), ["common-value", "orders-refs", "orders-value"])
        self.assertEqual(get("bob", "/subjects"), ["common-value", "orders-value", "payments-value"])
        self.assertEqual(get("erin", "/subjects"), ["common-value", "orders-value", "payments-value"])
        self.assertEqual(get("dave", "/subjects"), [])
        self.assertEqual(get("ops", "/subjects"), [])
        # Paging counts what the principal sees.
        self.assertEqual(get("bob", "/subjects", params={"offset": "1", "limit": "1"}), ["orders-value"])

        self.assertEqual(sorted({s["subject"] for s in get("root", "/schemas")}), every)
        self.assertEqual(sorted(s["subject"] for s in get("bob", "/schemas")),
                         ["common-value", "orders-value", "payments-value"])
        self.assertEqual([s["subject"] for s in get("bob", "/schemas", params={"offset": "2"})],
                         ["payments-value"])
        self.assertEqual(get("dave", "/schemas"), [])

        ids = f"/schemas/ids/{self.shared_id}"
        self.assertEqual(get("root", ids + "/subjects"), ["internal", "payments-value"])
        self.assertEqual(get("bob", ids + "/subjects"), ["payments-value"])
        self.assertEqual(get("root", ids + "/versions"), [{"subject": "internal", "version": 1},
                                                           {"subject": "payments-value", "version": 1}])
        self.assertEqual(get("bob", ids + "/versions"), [{"subject": "payments-value", "version": 1}])

        refby = "/subjects/common-value/versions/1/referencedby"
        self.assertEqual(get("root", refby), sorted([self.orders_ref_id, self.secret_ref_id]))
        self.assertEqual(get("alice", refby), [self.orders_ref_id])
        self.assertEqual(get("bob", refby), [])
        assert_forbidden(self, self.as_user("carol").get(refby))


class ContextsAndDeleted(AuthzCase):
    """Rules on qualified names (":.team:*" is a whole context) and by-id reads
    through soft-deleted versions (docs/security.md, section 6)."""
    rules = ("auth.rule = root admin *\nauth.rule = root admin /*\n"
             "auth.rule = alice read :.team:*\nauth.rule = bob read keep-*\n")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        root = harness.Client("127.0.0.1", cls.server.port, headers=basic("root", USERS["root"]))
        cls.ids = {}
        for subject, name in ((":.team:a", "TeamA"), ("b", "DefaultB"), ("keep-s", "Kept"), ("other", "Kept")):
            r = root.post(f"/subjects/{quote(subject)}/versions", {"schema": avro_record(name, [("a", "string")])})
            assert r.status == 200, r
            cls.ids[subject] = r.body["id"]
        r = root.delete("/subjects/keep-s/versions/1")
        assert r.status == 200, r

    def test_a_context_rule(self):
        alice = self.as_user("alice")
        # Each context numbers its own ids: the team's first schema and the default one's share id 1.
        self.assertEqual(self.ids[":.team:a"], self.ids["b"])
        self.assertEqual(alice.get("/subjects").body, [":.team:a"])
        self.assertEqual(alice.get(f"/subjects/{quote(':.team:a')}/versions").body, [1])
        self.assertEqual(alice.get("/contexts/.team/subjects/a/versions").body, [1])
        assert_forbidden(self, alice.get("/subjects/b/versions"))
        sid = self.ids[":.team:a"]
        # By id in the team's context: readable; the same number in the default context is b's: not.
        r = alice.get(f"/contexts/.team/schemas/ids/{sid}")
        self.assertEqual((r.status, json.loads(r.body["schema"])["name"]), (200, "TeamA"), r)
        r = alice.get(f"/schemas/ids/{sid}", params={"subject": ":.team:"})
        self.assertEqual((r.status, json.loads(r.body["schema"])["name"]), (200, "TeamA"), r)
        assert_forbidden(self, alice.get(f"/schemas/ids/{sid}"))
        self.assertEqual(alice.get(f"/contexts/.team/schemas/ids/{sid}/subjects").body, [":.team:a"])

    def test_soft_deleted_versions_count_for_by_id(self):
        bob = self.as_user("bob")
        kept = self.ids["keep-s"]
        self.assertEqual(kept, self.ids["other"])
        self.assertEqual(bob.get("/subjects").body, [])
        self.assertEqual(bob.get("/subjects", params={"deleted": "true"}).body, ["keep-s"])
        r = bob.get(f"/schemas/ids/{kept}")
        self.assertEqual((r.status, json.loads(r.body["schema"])["name"]), (200, "Kept"), r)
        self.assertEqual(bob.get(f"/schemas/ids/{kept}/subjects", params={"deleted": "true"}).body, ["keep-s"])
        self.assertEqual(bob.get(f"/schemas/ids/{kept}/subjects").body, [])
        assert_forbidden(self, self.as_user("alice").get(f"/schemas/ids/{kept}"))


class Reload(AuthzCase):
    """SIGHUP reloads the rules while requests keep coming; none fails."""
    rules = "auth.rule = alice read *\n"

    def test_sighup_reloads_rules_under_load(self):
        load = harness.BackgroundLoad(self.as_user("alice"), "/subjects")
        try:
            self.wait_log("authz: 1 rules and 0 groups from", 1)
            assert_forbidden(self, self.as_user("dave").get("/config"))
            with open(self.config) as f:
                good = f.read()
            with open(self.config, "a") as f:
                f.write("auth.group = admins dave\nauth.rule = @admins read /config\n")
            self.server.proc.send_signal(signal.SIGHUP)
            self.wait_log("authz: 2 rules and 1 groups from", 1)
            self.assertEqual(self.as_user("dave").get("/config").status, 200)

            # A broken rule: logged with its line, the previous rules stay.
            with open(self.config, "a") as f:
                f.write("auth.rule = dave steal /config\n")
            self.server.proc.send_signal(signal.SIGHUP)
            self.wait_log("the previous rules stay in use", 1)
            self.assertIn("registry.conf:6: permissions:", self.server.log_text())
            self.assertEqual(self.as_user("dave").get("/config").status, 200)

            with open(self.config, "w") as f:
                f.write(good)
            self.server.proc.send_signal(signal.SIGHUP)
            self.wait_log("authz: 1 rules and 0 groups from", 2)
            assert_forbidden(self, self.as_user("dave").get("/config"))
        finally:
            # Each SIGHUP also reloads the users file, which empties the
            # verification cache (see BackgroundLoad.stop).
            load.stop(at_least=11)
        self.assertEqual(load.failures, [])
        self.assertGreater(load.ok, 10)


class NoRules(AuthzCase):
    """Authentication on, no rule: every authenticated principal may do everything."""
    rules = ""

    def test_everything_allowed(self):
        self.assertIn("authz: no auth.rule: every authenticated principal may do everything",
                      self.server.log_text())
        dave = self.as_user("dave")
        self.assertEqual(dave.put("/config", {"compatibility": "FULL"}).status, 200)
        self.assertEqual(dave.post("/subjects/x/versions", {"schema": '"string"'}).status, 200)
        self.assertEqual(dave.get("/subjects").body, ["x"])
        self.assertEqual(self.as_user(None).get("/subjects").status, 401)


class Anonymous(AuthzCase):
    """The anonymous principal is named in rules like any other."""
    rules = "auth.rule = guest read public-*\n"

    @classmethod
    def setUpClass(cls):
        start_server(cls, cls.rules, extra=("--auth-anonymous", "guest"))

    def test_anonymous_reads_only_what_it_is_given(self):
        self.assertEqual(self.as_user(None).get("/subjects").body, [])
        self.assertEqual(self.as_user(None).get("/subjects/public-x/versions").status, 404)
        r = self.as_user(None).post("/subjects/public-x/versions", {"schema": '"string"'})
        self.assertEqual(r.body, {"error_code": 403, "message":
                                  "Forbidden: principal 'guest' has no write permission on subject 'public-x'"})
        self.assertEqual(self.as_user("mallory").get("/subjects").status, 401)


class CertificateNames(harness.RegistryTestCase):
    """Client-certificate principals (tls.client.principal = cn) in rules and groups."""

    @classmethod
    def setUpClass(cls):
        d = harness.make_temp_dir("authz-mtls")
        cls.ca = harness.Pki(os.path.join(d, "ca"), "Authz CA")
        cls.writer = cls.ca.issue("writer.example.com")
        cls.reader = cls.ca.issue("reader.example.com")
        cls.nobody = cls.ca.issue("nobody.example.com")
        config = os.path.join(d, "registry.conf")
        with open(config, "w") as f:
            f.write(f"tls.client.auth = required\ntls.client.ca = {cls.ca.cert}\n"
                    "auth.group = apps writer.example.com,reader.example.com\n"
                    "auth.rule = writer.example.com write app-*\n"
                    "auth.rule = @apps read app-*\n")
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.server = harness.Server(database_url=cls.db.url, name="authz-mtls", tls=cls.ca.server_cert(),
                                    args=("--config", config), client_cert=cls.writer).start()

    def client(self, cert):
        return harness.Client("127.0.0.1", self.server.port, tls=True, cert=cert)

    def test_certificate_names_and_groups(self):
        body = {"schema": '"string"'}
        self.assertEqual(self.client(self.writer).post("/subjects/app-x/versions", body).status, 200)
        r = self.client(self.reader).post("/subjects/app-x/versions", body)
        self.assertEqual(r.body, {"error_code": 403, "message": "Forbidden: principal 'reader.example.com' "
                                  "has no write permission on subject 'app-x'"})
        self.assertEqual(self.client(self.reader).get("/subjects/app-x/versions").body, [1])
        self.assertEqual(self.client(self.reader).get("/subjects").body, ["app-x"])
        self.assertEqual(self.client(self.nobody).get("/subjects").body, [])
        assert_forbidden(self, self.client(self.nobody).get("/subjects/app-x/versions"))
        assert_forbidden(self, self.client(self.nobody).get("/schemas/ids/1"))
        self.assertEqual(self.client(self.reader).get("/schemas/ids/1").status, 200)


class RulesNeedAuthentication(harness.RegistryTestCase):
    """Rules without authentication could name nobody: the server does not start."""

    @classmethod
    def setUpClass(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        pass

    def setUp(self):
        pass

    def test_refused_at_start(self):
        d = harness.make_temp_dir("authz-noauth")
        config = os.path.join(d, "registry.conf")
        with open(config, "w") as f:
            f.write("auth.rule = alice read *\n")
        run = subprocess.run([harness.server_binary(), "serve", "--listen", "127.0.0.1:0", "--config", config,
                              "--database-url", "postgresql://127.0.0.1:1/none"],
                             capture_output=True, timeout=60)
        self.assertEqual(run.returncode, 1)
        self.assertIn(b"authz: auth.rule and auth.group need authentication", run.stderr)


if __name__ == "__main__":
    harness.main()

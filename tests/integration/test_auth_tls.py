"""TLS defaults and client certificates (issue 14; docs/security.md).

- TLS 1.2+ only, ECDHE + AEAD suites only for TLS 1.2, the server's order wins.
- SIGHUP reloads the certificate without dropping open connections, under load.
- tls.client.auth=required: a certificate from the CA is the principal (its CN);
  one from another CA, an expired one, a revoked one (CRL) and none fail the
  handshake. optional: no certificate is fine (then Basic or 401), a bad one
  still fails; tls.client.principal=san-dns takes the SAN.
- curl --http2 (ALPN h2) and --http1.1, and the real confluent_kafka client
  with ssl.ca.location + ssl.certificate.location/ssl.key.location and with
  basic.auth.user.info.
"""

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time

import harness
from harness import avro_record, curl, quote
from test_auth_basic import UNAUTHORIZED, assert_logged, basic, make_users

try:
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
    from confluent_kafka.schema_registry.error import SchemaRegistryError
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"confluent_kafka is not importable ({exc}); run scripts/install-deps.sh") from exc


def s_client(port, *args):
    """openssl s_client: (return code, output). The client's own floor is lowered
    (SECLEVEL=0) so that a refusal is the server's."""
    run = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername",
                          "localhost", *args], input=b"Q\n", capture_output=True, timeout=30)
    return run.returncode, (run.stdout + run.stderr).decode(errors="replace")


def negotiated(out):
    for line in out.splitlines():
        if line.strip().startswith("Cipher    :"):
            return line.split(":", 1)[1].strip()
    return None


class Pkis:
    """Two CAs: ours (server and client certificates) and a stranger's."""

    @classmethod
    def make(cls):
        root = harness.make_temp_dir("pki")
        ours = harness.Pki(os.path.join(root, "ours"), "Our CA")
        other = harness.Pki(os.path.join(root, "other"), "Other CA")
        return ours, other


class TlsDefaults(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.ca, _ = Pkis.make()
        cls.db = harness.cluster().new_database("tlsdef")
        cls.server = harness.Server(database_url=cls.db.url, name="tlsdef", tls=cls.ca.server_cert()).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_old_protocols_refused(self):
        for flag in ("-tls1", "-tls1_1"):
            rc, out = s_client(self.server.port, flag, "-cipher", "DEFAULT@SECLEVEL=0")
            self.assertNotEqual(rc, 0, out)
            self.assertIn(negotiated(out), (None, "0000", "(NONE)"), out)

    def test_weak_tls12_ciphers_refused(self):
        for cipher in ("AES128-SHA", "AES256-GCM-SHA384", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384",
                       "DES-CBC3-SHA"):
            rc, out = s_client(self.server.port, "-tls1_2", "-cipher", cipher + "@SECLEVEL=0")
            self.assertNotEqual(rc, 0, (cipher, out))

    def test_modern_suites_and_the_servers_order(self):
        rc, out = s_client(self.server.port, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256")
        self.assertEqual((rc, negotiated(out)), (0, "ECDHE-RSA-AES128-GCM-SHA256"), out)
        # The client prefers ChaCha20; the server's order (AES-GCM first) wins.
        rc, out = s_client(self.server.port, "-tls1_2", "-cipher",
                           "ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384")
        self.assertEqual((rc, negotiated(out)), (0, "ECDHE-RSA-AES256-GCM-SHA384"), out)
        rc, out = s_client(self.server.port, "-tls1_3")
        self.assertEqual(rc, 0, out)
        self.assertIn("TLSv1.3", out)

    def test_alpn(self):
        url = self.server.base_url + "/schemas/types"
        r2, r1 = curl(url, mode="h2"), curl(url, mode="http1.1")
        self.assertEqual((r2.status, r2.http_version, r1.status, r1.http_version), (200, "2", 200, "1.1"))

    def test_sighup_keeps_open_connections(self):
        """Persistent connections made before each of several reloads keep working
        after it, and connections opened during the reloads all succeed."""
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        failures, done = [], threading.Event()

        def fresh_connections():
            c = self.server.client()
            for _ in range(1000):          # bounded
                if done.is_set():
                    return
                try:
                    if c.get("/schemas/types").status != 200:
                        failures.append("status")
                except OSError as exc:
                    failures.append(exc)

        before = self.server.log_text().count("SIGHUP: TLS certificate")
        worker = threading.Thread(target=fresh_connections)
        worker.start()
        try:
            held = []
            for i in range(4):
                conn = harness.http.client.HTTPSConnection("127.0.0.1", self.server.port, context=ctx,
                                                           timeout=30)
                conn.request("GET", "/schemas/types")
                self.assertEqual(conn.getresponse().read(), b'["AVRO","JSON","PROTOBUF"]')
                held.append((conn, conn.sock))
                self.server.proc.send_signal(signal.SIGHUP)
                deadline = time.monotonic() + 10
                while self.server.log_text().count("SIGHUP: TLS certificate") < before + i + 1 and \
                        time.monotonic() < deadline:
                    time.sleep(0.05)
                for conn, sock in held:    # every connection made before any of the reloads
                    conn.request("GET", "/schemas/types")
                    r = conn.getresponse()
                    self.assertEqual((r.status, r.read()), (200, b'["AVRO","JSON","PROTOBUF"]'))
                    self.assertIs(conn.sock, sock)      # the same connection, not a reconnect
            for conn, _ in held:
                conn.close()
        finally:
            done.set()
            worker.join()
        self.assertEqual(failures, [])
        self.assertEqual(self.server.log_text().count("SIGHUP: TLS certificate"), before + 4)


    def test_sighup_keeps_an_http2_connection(self):
        """One curl, one HTTP/2 connection, 8 requests spread over 2 s while SIGHUPs arrive."""
        url = self.server.base_url + "/schemas/types"
        argv = ["curl", "-s", "-S", "-k", "--http2", "--rate", "4/s", "--max-time", "60",
                "-w", "%{http_code} %{http_version} %{num_connects}\\n"] + [url, "-o", "/dev/null"] * 8
        before = self.server.log_text().count("SIGHUP: TLS certificate")
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3):
            time.sleep(0.5)
            self.server.proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        rows = [line.split() for line in out.decode().splitlines()]
        self.assertEqual([r[:2] for r in rows], [["200", "2"]] * 8, out)
        self.assertEqual(sum(int(r[2]) for r in rows), 1, out)     # one connection for all
        deadline = time.monotonic() + 10
        while self.server.log_text().count("SIGHUP: TLS certificate") < before + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.server.log_text().count("SIGHUP: TLS certificate"), before + 3)


class MtlsCase(harness.unittest.TestCase):
    mode = "required"
    extra = ()
    users = None

    @classmethod
    def setUpClass(cls):
        cls.ca, cls.other = Pkis.make()
        cls.good = cls.ca.issue("svc-a", san="DNS:svc-a.example,email:a@example.com")
        cls.no_san = cls.ca.issue("svc-b")
        cls.expired = cls.ca.issue("svc-old", expired=True)
        cls.revoked = cls.ca.issue("svc-gone")
        cls.ca.revoke(cls.revoked[0])
        cls.stranger = cls.other.issue("svc-a")
        args = ["--tls-client-auth", cls.mode, "--tls-client-ca", cls.ca.cert,
                "--tls-client-crl", cls.ca.crl(), *cls.extra]
        if cls.users:
            args += ["--auth-basic-users-file", make_users(harness.make_temp_dir("mtls-users"), cls.users)]
        cls.db = harness.cluster().new_database("mtls")
        cls.server = harness.Server(database_url=cls.db.url, name="mtls-" + cls.mode, tls=cls.ca.server_cert(),
                                    args=args, client_cert=cls.good).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, cert, headers=None):
        return harness.Client("127.0.0.1", self.server.port, tls=True, cert=cert, headers=headers)

    def assert_handshake_fails(self, cert):
        with self.assertRaises((ssl.SSLError, ConnectionError)) as ctx:
            self.client(cert).get("/schemas/types")
        return ctx.exception

    def curl_args(self, cert):
        return ("--cert", cert[0], "--key", cert[1])

    def confluent(self, **conf):
        # requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override the session's
        # verify (ssl.ca.location): a known requests behaviour (docs/security.md).
        for var in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            if var in os.environ:
                self.addCleanup(os.environ.__setitem__, var, os.environ.pop(var))
        c = SchemaRegistryClient(dict({"url": self.server.base_url, "ssl.ca.location": self.ca.cert}, **conf))
        self.addCleanup(c.__exit__)
        return c


class MtlsRequired(MtlsCase):

    def test_good_certificate_is_the_principal(self):
        r = self.client(self.good).get("/schemas/types")
        self.assertEqual(r.status, 200, r)
        assert_logged(self, self.server, r"GET /schemas/types 200 \d+us from=127\.0\.0\.1 principal=svc-a rid=")

    def test_bad_certificates_fail_the_handshake(self):
        for cert in (self.stranger, self.expired, self.revoked, None):
            self.assert_handshake_fails(cert)
        self.assertEqual(self.client(self.good).get("/").status, 200)

    def test_curl_both_protocols(self):
        url = self.server.base_url + "/subjects"
        r2 = curl(url, mode="h2", args=self.curl_args(self.good))
        r1 = curl(url, mode="http1.1", args=self.curl_args(self.good))
        self.assertEqual((r2.status, r2.http_version, r1.status, r1.http_version), (200, "2", 200, "1.1"))
        with self.assertRaises(AssertionError):       # no certificate: curl fails, no status
            curl(url, mode="h2")

    def test_confluent_client(self):
        c = self.confluent(**{"ssl.certificate.location": self.good[0], "ssl.key.location": self.good[1]})
        s = "mtls-confluent"
        schema = avro_record("Mtls", [("a", "string")])
        schema_id = c.register_schema(s, Schema(schema, "AVRO"))
        self.assertEqual(json.loads(c.get_schema(schema_id).schema_str), json.loads(schema))
        self.assertIn(s, c.get_subjects())
        # Without a certificate the same client cannot connect.
        with self.assertRaises(Exception) as ctx:
            self.confluent().get_subjects()
        self.assertNotIsInstance(ctx.exception, SchemaRegistryError)


class MtlsOptionalWithBasic(MtlsCase):
    mode = "optional"
    extra = ("--tls-client-principal", "san-dns")
    users = {"alice": "tls-and-basic"}

    def test_san_dns_is_the_principal(self):
        self.assertEqual(self.client(self.good).get("/schemas/types").status, 200)
        assert_logged(self, self.server, r"GET /schemas/types 200 \d+us from=127\.0\.0\.1 principal=svc-a\.example")

    def test_certificate_without_that_name_is_401(self):
        r = self.client(self.no_san).get("/schemas/types")
        self.assertEqual(r.status, 401, r)
        self.assertEqual(r.body["error_code"], 401)
        self.assertIn("tls.client.principal", r.body["message"])

    def test_no_certificate_needs_credentials(self):
        r = self.client(None).get("/subjects")
        self.assertEqual((r.status, r.body), (401, UNAUTHORIZED))
        self.assertEqual(r.headers["WWW-Authenticate"], 'Basic realm="SchemaRegistry"')
        r = self.client(None, headers=basic("alice", "tls-and-basic")).get("/subjects")
        self.assertEqual(r.status, 200, r)
        # Basic credentials, when sent, decide even next to a good certificate.
        r = self.client(self.good, headers=basic("alice", "wrong")).get("/subjects")
        self.assertEqual(r.status, 401, r)

    def test_bad_certificates_still_fail_the_handshake(self):
        for cert in (self.stranger, self.expired, self.revoked):
            self.assert_handshake_fails(cert)

    def test_confluent_client_with_basic_auth(self):
        c = self.confluent(**{"basic.auth.user.info": "alice:tls-and-basic"})
        s = "basic-confluent"
        schema = avro_record("Basic", [("a", "string")])
        schema_id = c.register_schema(s, Schema(schema, "AVRO"))
        self.assertEqual(c.get_latest_version(s).schema_id, schema_id)
        with self.assertRaises(SchemaRegistryError) as ctx:
            self.confluent(**{"basic.auth.user.info": "alice:wrong"}).get_subjects()
        self.assertEqual((ctx.exception.http_status_code, ctx.exception.error_code), (401, 401))

    def test_curl_basic_over_h2(self):
        r = curl(self.server.base_url + "/subjects", mode="h2", args=("-u", "alice:tls-and-basic"))
        self.assertEqual((r.status, r.http_version), (200, "2"), r)


class Rotation(harness.unittest.TestCase):
    """SIGHUP under load (docs/security.md, sections 2 and 3): a replaced server
    certificate is what new connections get while open ones keep theirs; a
    replaced CRL revokes and a replaced client CA file admits at once; a file
    that does not load keeps the previous certificate. No request of the load
    fails."""

    @classmethod
    def setUpClass(cls):
        cls.ca, cls.other = Pkis.make()
        live = harness.make_temp_dir("tls-live")
        cls.cert, cls.key = os.path.join(live, "server.pem"), os.path.join(live, "server.key")
        cls.client_ca, cls.client_crl = os.path.join(live, "clients-ca.pem"), os.path.join(live, "clients.crl")
        cls.install(cls.ca.server_cert())
        cls.good = cls.ca.issue("svc-load")
        cls.later = cls.ca.issue("svc-later")
        cls.stranger = cls.other.issue("svc-other")
        cls.install_clients([cls.ca])
        cls.db = harness.cluster().new_database("tlsrot")
        cls.server = harness.Server(database_url=cls.db.url, name="tlsrot", tls=(cls.cert, cls.key),
                                    args=("--tls-client-auth", "required", "--tls-client-ca", cls.client_ca,
                                          "--tls-client-crl", cls.client_crl), client_cert=cls.good).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    @classmethod
    def install(cls, pair):
        """Replaces the live files the way an operator's tool would: new files renamed over."""
        for src, dst in zip(pair, (cls.cert, cls.key)):
            with open(src, "rb") as f, open(dst + ".new", "wb") as out:
                out.write(f.read())
            os.replace(dst + ".new", dst)

    @classmethod
    def install_clients(cls, cas):
        """tls.client.ca and tls.client.crl: the certificates and fresh CRLs of cas, concatenated."""
        for dst, parts in ((cls.client_ca, [ca.cert for ca in cas]), (cls.client_crl, [ca.crl() for ca in cas])):
            text = ""
            for part in parts:
                with open(part) as f:
                    text += f.read()
            with open(dst + ".new", "w") as out:
                out.write(text)
            os.replace(dst + ".new", dst)

    @staticmethod
    def der(path):
        with open(path) as f:
            return ssl.PEM_cert_to_DER_cert(f.read())

    def connect(self, cert):
        ctx = ssl.create_default_context(cafile=self.ca.cert)
        ctx.check_hostname = False
        ctx.load_cert_chain(*cert)
        conn = harness.http.client.HTTPSConnection("127.0.0.1", self.server.port, context=ctx, timeout=30)
        conn.request("GET", "/schemas/types")
        r = conn.getresponse()
        self.assertEqual((r.status, r.read()), (200, b'["AVRO","JSON","PROTOBUF"]'))
        return conn

    def sighup(self, text):
        before = self.server.log_text().count(text)
        self.server.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while self.server.log_text().count(text) <= before and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.server.log_text().count(text), before + 1)

    def test_a_handshake_after_a_reload_has_the_context_it_was_accepted_with(self):
        """A connection accepted before a SIGHUP whose ClientHello comes after it. h2o
        makes a connection's SSL object from the context the connection was accepted
        with only when its first bytes arrive, so that context must outlive the reload:
        before each connection held a reference to it, both loops letting it go first
        made this a heap-use-after-free (ASan). Named to run before the test below,
        which leaves a certificate file that does not load."""
        raw = socket.create_connection(("127.0.0.1", self.server.port), timeout=30)
        try:
            time.sleep(0.3)  # accepted by a loop; not a byte sent yet
            self.sighup("SIGHUP: TLS certificate")
            time.sleep(0.5)  # every loop has taken the new context and let the old one go
            ctx = ssl.create_default_context(cafile=self.ca.cert)
            ctx.check_hostname = False
            ctx.load_cert_chain(*self.good)
            with ctx.wrap_socket(raw) as tls:
                tls.sendall(b"GET /schemas/types HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                reply = b""
                while chunk := tls.recv(65536):
                    reply += chunk
            self.assertTrue(reply.startswith(b"HTTP/1.1 200 "), reply[:200])
            self.assertTrue(reply.endswith(b'["AVRO","JSON","PROTOBUF"]'), reply[-200:])
        finally:
            raw.close()
        self.server.assert_running()

    def test_certificate_ca_and_crl_replaced_under_load(self):
        first = self.der(self.cert)
        load = harness.BackgroundLoad(self.server.client(), "/schemas/types")
        try:
            held = self.connect(self.good)
            self.assertEqual(held.sock.getpeercert(binary_form=True), first)
            self.assertEqual(self.server.client().get("/").status, 200)

            # A new certificate: new connections get it, the held one goes on.
            self.install(self.ca.issue("localhost", san="DNS:localhost,IP:127.0.0.1", name="server-2"))
            second = self.der(self.cert)
            self.assertNotEqual(second, first)
            self.sighup("SIGHUP: TLS certificate")
            fresh = self.connect(self.good)
            self.assertEqual(fresh.sock.getpeercert(binary_form=True), second)
            sock = held.sock
            held.request("GET", "/schemas/types")
            self.assertEqual(held.getresponse().status, 200)
            self.assertIs(held.sock, sock)

            # A new CRL: a certificate that worked is refused from the next handshake on.
            self.connect(self.later).close()
            self.ca.revoke(self.later[0])
            self.install_clients([self.ca])
            self.sighup("SIGHUP: TLS certificate")
            with self.assertRaises((ssl.SSLError, ConnectionError)):
                self.connect(self.later)
            self.connect(self.good).close()

            # A second client CA (and its CRL): its certificates pass from the next handshake on.
            with self.assertRaises((ssl.SSLError, ConnectionError)):
                self.connect(self.stranger)
            self.install_clients([self.ca, self.other])
            self.sighup("SIGHUP: TLS certificate")
            self.connect(self.stranger).close()
            with self.assertRaises((ssl.SSLError, ConnectionError)):
                self.connect(self.later)

            # A file that does not load: logged, the previous certificate stays.
            with open(self.cert, "w") as f:
                f.write("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n")
            self.sighup("the previous certificate stays in use")
            again = self.connect(self.good)
            self.assertEqual(again.sock.getpeercert(binary_form=True), second)
            for conn in (held, fresh, again):
                conn.close()
        finally:
            load.stop(at_least=11)
        self.assertEqual(load.failures, [])
        self.assertGreater(load.ok, 10)


class SanKinds(harness.unittest.TestCase):
    """tls.client.principal: the common name or the first subjectAltName of one
    kind; a name holding a control character is no principal."""

    def test_each_kind_is_the_principal(self):
        ca, _ = Pkis.make()
        cert = ca.issue("svc-cn", san="DNS:svc.example,email:svc@example.com,URI:spiffe://example.org/svc,"
                                      "URI:spiffe://example.org/second")
        bare = ca.issue("svc-bare")
        forged = "\n2026-01-01T00:00:00.000Z INFO forged"
        evil = ca.issue("evil" + forged, san="DNS:evil.example", name="evil")
        db = harness.cluster().new_database("sankinds")
        for kind, principal in (("cn", "svc-cn"), ("san-dns", "svc.example"), ("san-email", "svc@example.com"),
                                ("san-uri", "spiffe://example.org/svc")):
            with self.subTest(kind=kind):
                server = harness.Server(database_url=db.url, name="san-" + kind, tls=ca.server_cert(),
                                        args=("--tls-client-auth", "required", "--tls-client-ca", ca.cert,
                                              "--tls-client-principal", kind), client_cert=cert).start()
                try:
                    r = server.client().get("/schemas/types")
                    self.assertEqual(r.status, 200, r)
                    assert_logged(self, server, r"GET /schemas/types 200 \d+us from=127\.0\.0\.1 principal="
                                  + re.escape(principal) + " rid=")
                    r = harness.Client("127.0.0.1", server.port, tls=True, cert=bare).get("/schemas/types")
                    want = 200 if kind == "cn" else 401
                    self.assertEqual(r.status, want, r)
                    if want == 401:
                        self.assertEqual(r.body["error_code"], 401)
                        self.assertIn("tls.client.principal", r.body["message"])
                    if kind == "cn":
                        # A name with a control character does not count (nor forge a log line).
                        r = harness.Client("127.0.0.1", server.port, tls=True, cert=evil).get("/subjects")
                        self.assertEqual((r.status, r.body["error_code"]), (401, 401), r)
                        self.assertIn("tls.client.principal", r.body["message"])
                        assert_logged(self, server, r"GET /subjects 401 \d+us from=127\.0\.0\.1 principal=- rid=")
                        self.assertNotIn("\n2026-01-01T00:00:00.000Z", server.log_text())
                finally:
                    server.stop()


def config_blocks(path):
    """[(line, text)]: every ``` block of path that starts with '# /etc/schema-registry.conf'."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```") and i + 1 < len(lines) and lines[i + 1] == "# /etc/schema-registry.conf":
            end = lines.index("```", i + 1)
            blocks.append((i + 2, "\n".join(lines[i + 2:end])))
            i = end
        i += 1
    return blocks


class DocExamples(harness.unittest.TestCase):
    """Every configuration example of docs/security.md, as written, with its
    /etc paths pointed at real files: the server starts with it and answers as
    the section says (credentials, none, a rule)."""

    USERS = {"alice": "alice pass", "bob": "bob pass", "ops": "ops pass"}

    def test_every_example_starts_and_authenticates(self):
        ca, _ = Pkis.make()
        d = harness.make_temp_dir("sec-doc")
        server_pair = ca.server_cert()
        client = ca.issue("alice", san="DNS:alice")
        files = {"tls.cert": server_pair[0], "tls.key": server_pair[1], "tls.client.ca": ca.cert,
                 "tls.client.crl": ca.crl(), "auth.basic.users.file": make_users(d, self.USERS)}
        blocks = config_blocks(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "security.md"))
        self.assertGreaterEqual(len(blocks), 6)
        db = harness.cluster().new_database("secdoc")
        for n, (line, text) in enumerate(blocks):
            with self.subTest(line=line):
                keys, out = {}, []
                for raw in text.split("\n"):
                    if not raw.strip() or raw.startswith("#"):
                        continue
                    key, _, value = (part.strip() for part in raw.partition("="))
                    keys.setdefault(key, value)
                    if key == "listen":          # the harness picks the port
                        continue
                    if value.startswith("/etc/"):
                        self.assertIn(key, files, f"line {line}: a path the test does not know")
                        value = files[key]
                    out.append(f"{key} = {value}")
                config = os.path.join(d, f"registry-{n}.conf")
                with open(config, "w") as f:
                    f.write("\n".join(out) + "\n")
                tls = "tls.cert" in keys
                mode = keys.get("tls.client.auth", "none")
                users = "auth.basic.users.file" in keys
                server = harness.Server(database_url=db.url, name=f"secdoc-{n}",
                                        tls=server_pair if tls else None,
                                        client_cert=client if mode != "none" else None,
                                        args=("--config", config)).start()
                try:
                    def get(path, cert=None, user=None):
                        headers = basic(user, self.USERS[user]) if user else None
                        return harness.Client("127.0.0.1", server.port, tls=tls, cert=cert,
                                              headers=headers).get(path)

                    if mode != "none":
                        self.assertEqual(get("/schemas/types", cert=client).status, 200)
                    if users:
                        self.assertEqual(get("/schemas/types", user="alice").status, 200)
                    if mode == "required":
                        with self.assertRaises((ssl.SSLError, ConnectionError)):
                            get("/schemas/types")
                    else:
                        r = get("/schemas/types")
                        open_ = "auth.anonymous" in keys or (mode == "none" and not users)
                        self.assertEqual(r.status, 200 if open_ else 401, r)
                    if "auth.rule" in keys:          # section 6: alice is an admin, bob is not
                        self.assertEqual(get("/config", user="alice").status, 200)
                        self.assertEqual(get("/config", user="bob").status, 403)
                        self.assertEqual(get("/config", user="ops").status, 200)
                        self.assertEqual(get("/subjects").body, [])
                finally:
                    server.stop()


class ConfigRefusals(harness.unittest.TestCase):

    def run_server(self, *args):
        return subprocess.run([harness.server_binary(), "serve", "--listen", "127.0.0.1:0", *args],
                              capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
                              env={k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")})

    def test_refused(self):
        for args, message in [
            (["--tls-client-auth", "required"], b"tls.client.auth needs tls.cert"),
            (["--tls-client-auth", "sometimes"], b"none, optional or required"),
            (["--tls-client-principal", "ou"], b"cn, san-dns, san-email or san-uri"),
            (["--tls-client-ca", "/nonexistent"], b"need tls.client.auth"),
            (["--auth-realm", 'a"b'], b"auth.realm"),
        ]:
            run = self.run_server(*args)
            self.assertEqual(run.returncode, 2, (args, run.stderr))
            self.assertIn(message, run.stderr)

    def test_unreadable_users_file_stops_the_start(self):
        run = self.run_server("--auth-basic-users-file", "/nonexistent/users", "--database-url",
                              "postgresql://nobody@127.0.0.1:1/none")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn(b"cannot open the users file /nonexistent/users", run.stderr)


if __name__ == "__main__":
    harness.main()

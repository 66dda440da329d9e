"""The systemd unit deploy/schema-registry.service and the notify protocol it
relies on (Type=notify, sd_notify(3), docs/operations.md section 11): one
datagram "READY=1" to $NOTIFY_SOCKET (a path, or '@' and an abstract name)
once the port answers and the registry is loaded, "STOPPING=1" when a stop
begins, all from the server's own process (not from the embedded PostgreSQL
it starts)."""

import os
import shutil
import signal
import socket
import struct
import subprocess
import time

import harness

ROOT = os.path.join(harness.HERE, "..", "..")
UNIT = os.path.join(ROOT, "deploy", "schema-registry.service")
SAMPLE_CONF = os.path.join(ROOT, "deploy", "schema-registry.conf")


class NotifySocket:
    """A unix datagram socket like systemd's, which learns each sender's pid (SO_PASSCRED)."""

    def __init__(self, abstract):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        if abstract:
            name = f"sr-test-notify-{os.getpid()}-{time.monotonic_ns()}"
            self.sock.bind("\0" + name)
            self.env = "@" + name
        else:
            self.env = os.path.join(harness.make_temp_dir("notify"), "notify.sock")
            self.sock.bind(self.env)

    def receive(self, timeout):
        """(text, sender pid), or None after timeout seconds."""
        self.sock.settimeout(timeout)
        try:
            data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
        except socket.timeout:
            return None
        pid = None
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", payload[:12])[0]
        return data.decode(), pid

    def close(self):
        self.sock.close()


class Notify(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database("notify")
        # Something in the registry, so "loaded" means something.
        first = harness.Server(database_url=cls.db.url, name="notify-seed").start()
        r = first.client().post("/subjects/seed-value/versions", {"schema": '"string"'})
        assert r.status == 200, r
        cls.seed_id = r.body["id"]
        first.stop()

    def serve_and_watch(self, abstract, **server_kw):
        """Starts a server with NOTIFY_SOCKET set; returns every datagram as (text, pid,
        whether the port answered and the seed schema was served right then)."""
        notify = NotifySocket(abstract)
        server = harness.Server(name="notify", env={"NOTIFY_SOCKET": notify.env}, **server_kw)
        server.port = harness.free_port()
        logf = open(server.log, "ab")
        proc = subprocess.Popen(server._argv(), stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                env=server._env(), cwd=server.dir)
        logf.close()
        harness.at_exit(lambda: proc.poll() is None and proc.kill())
        got = []
        try:
            deadline = time.monotonic() + harness.STARTUP_TIMEOUT
            while not any(text == "READY=1" for text, _, _ in got):
                self.assertIsNone(proc.poll(), harness.tail(server.log))
                self.assertLess(time.monotonic(), deadline, harness.tail(server.log))
                message = notify.receive(0.2)
                if message is not None:
                    got.append(message + (self.serving(server),))
            proc.send_signal(signal.SIGTERM)
            message = notify.receive(30)
            self.assertIsNotNone(message, harness.tail(server.log))
            got.append(message + (None,))
            self.assertEqual(proc.wait(timeout=harness.SHUTDOWN_TIMEOUT), 0, harness.tail(server.log))
            while (message := notify.receive(0.1)) is not None:
                got.append(message + (None,))
        finally:
            notify.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return got, proc.pid, server

    def serving(self, server):
        """The port answers and, with the seeded database, the registry is loaded."""
        path = f"/schemas/ids/{self.seed_id}" if server.database_url else "/"
        try:
            return server.client().request("GET", path, timeout=5).status == 200
        except OSError:
            return False

    def check(self, got, pid):
        self.assertEqual([(text, sender) for text, sender, _ in got], [("READY=1", pid), ("STOPPING=1", pid)])
        self.assertTrue(got[0][2], "READY=1 came before the port answered with the loaded registry")

    def test_ready_after_the_port_answers_then_stopping_on_a_path_socket(self):
        got, pid, _ = self.serve_and_watch(False, database_url=self.db.url)
        self.check(got, pid)

    def test_abstract_socket_name(self):
        got, pid, _ = self.serve_and_watch(True, database_url=self.db.url)
        self.check(got, pid)

    def test_the_embedded_postgresql_does_not_notify(self):
        """PostgreSQL built with systemd support (Debian's is) sends its own READY=1 to
        $NOTIFY_SOCKET; the server keeps the variable from the processes it starts."""
        data_dir = os.path.join(harness.make_temp_dir("notify-embedded"), "var")
        # Abstract: no file mode keeps PostgreSQL (the user postgres when the tests run as root) out.
        got, pid, _ = self.serve_and_watch(True, data_dir=data_dir)
        self.check(got, pid)

    def test_a_socket_that_is_no_path_only_warns(self):
        server = harness.Server(database_url=self.db.url, name="notify-bad",
                                env={"NOTIFY_SOCKET": "relative/notify.sock"}).start()
        server.stop()
        self.assertIn("NOTIFY_SOCKET is no unix socket path or @name that fits; no readiness sent",
                      server.log_text())


def unit_settings():
    """[(section, key, value)] of the unit file, in order (keys may repeat)."""
    out, section = [], None
    with open(UNIT, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            key, _, value = line.partition("=")
            out.append((section, key, value))
    return out


class Unit(harness.unittest.TestCase):

    def setting(self, key):
        values = [v for s, k, v in unit_settings() if k == key]
        self.assertEqual(len(values), 1, key)
        return values[0]

    def test_type_notify_and_hardening(self):
        self.assertEqual(self.setting("Type"), "notify")
        self.assertEqual(self.setting("KillMode"), "mixed")  # PostgreSQL is stopped by the server
        self.assertEqual(self.setting("RestartPreventExitStatus"), "2")
        for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("DynamicUser", "yes"),
                           ("StateDirectory", "schema-registry"), ("ProtectHome", "yes"),
                           ("PrivateTmp", "yes"), ("CapabilityBoundingSet", "")):
            self.assertEqual(self.setting(key), value, key)
        self.assertIn("/var/lib/schema-registry", [p.lstrip("-") for p in self.setting("ReadWritePaths").split()])
        self.assertEqual(self.setting("WorkingDirectory"), "/var/lib/schema-registry")
        exec_start = self.setting("ExecStart").split()
        self.assertEqual(exec_start[:2], ["/usr/local/bin/schema-registry", "serve"])

    def test_its_command_line_and_sample_config_load(self):
        """ExecStart's flags with deploy/schema-registry.conf pass the loader: `migrate` with
        them reads the whole configuration, then fails on the unreachable database (1, not 2)."""
        exec_start = self.setting("ExecStart").split()
        args = [SAMPLE_CONF if a == "/etc/schema-registry/schema-registry.conf" else a for a in exec_start[2:]]
        self.assertIn(SAMPLE_CONF, args)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
        r = subprocess.run([harness.server_binary(), "migrate", *args, "--database-url",
                            "postgresql://127.0.0.1:1/none?connect_timeout=1"], capture_output=True, text=True,
                           env=env, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cannot connect to the database", r.stderr)

    @harness.unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
    def test_systemd_analyze_verify(self):
        """systemd's own check, with ExecStart on the built binary and the built man page
        (Documentation=man:schema-registry(1)) where man finds it."""
        work = harness.make_temp_dir("unit")
        man1 = os.path.join(work, "man", "man1")
        os.makedirs(man1)
        shutil.copy(os.path.join(os.path.dirname(harness.server_binary()), "schema-registry.1"), man1)
        with open(UNIT, encoding="utf-8") as f:
            text = f.read().replace("/usr/local/bin/schema-registry", harness.server_binary())
        unit = os.path.join(work, "schema-registry.service")
        with open(unit, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, MANPATH=os.path.join(work, "man")))
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))


if __name__ == "__main__":
    harness.main()

"""The binary's command line (issue 2): --help, --version, `migrate`, settings
from a config file and SCHEMA_REGISTRY_* variables with flags winning, and the
one-line-per-request log on stderr (method, path, status, microseconds)."""

import os
import re
import subprocess
import time

import harness

PG = None


def setUpModule():
    global PG
    PG = harness.cluster()


def run(*argv, env=None, timeout=60):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
    full_env.update(env or {})
    return subprocess.run([harness.server_binary(), *argv], capture_output=True, text=True,
                          env=full_env, timeout=timeout, stdin=subprocess.DEVNULL)


class CommandLine(harness.unittest.TestCase):

    def test_version(self):
        r = run("--version")
        self.assertEqual(r.returncode, 0, r)
        self.assertRegex(r.stdout + r.stderr, r"^schema-registry \d+\.\d+\.\d+ \(commit \S+\)")

    def test_help_lists_every_flag_and_its_variable(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0, r)
        text = r.stdout + r.stderr
        for flag in ("serve", "migrate", "--config", "--listen", "--database-url", "--data-dir",
                     "--threads", "--tls-cert", "--tls-key", "SCHEMA_REGISTRY_LISTEN",
                     "SCHEMA_REGISTRY_DATABASE_URL"):
            self.assertIn(flag, text)

    def test_help_tells_exit_codes_signals_and_root(self):
        text = run("--help").stdout
        for words in ("Exit status", "SIGINT", "SIGTERM", "SIGHUP", "root", "sudo", "postgres"):
            self.assertIn(words, text)

    def test_unknown_flag_fails(self):
        r = run("serve", "--no-such-flag")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn("unknown flag --no-such-flag", r.stderr)
        self.assertNotIn("needs a value", r.stderr)

    def test_known_flag_without_value_says_so(self):
        r = run("serve", "--listen")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn("--listen needs a value", r.stderr)

    def test_taken_port_fails_before_any_database_is_made(self):
        """The listener is checked first: no cluster is created for a server
        that cannot serve (issue 8)."""
        with harness.socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            data_dir = os.path.join(harness.make_temp_dir("taken"), "var")
            r = run("serve", "--listen", f"127.0.0.1:{port}", "--data-dir", data_dir)
        self.assertEqual(r.returncode, 1, r)
        self.assertIn("Address already in use", r.stderr)
        self.assertFalse(os.path.exists(data_dir), os.listdir(data_dir) if os.path.exists(data_dir) else "")
        self.assertNotIn("initdb", r.stderr)

    def test_migrate_applies_each_file_once(self):
        db = PG.new_database("migrate")
        for attempt in range(2):
            r = run("migrate", "--database-url", db.url)
            self.assertEqual(r.returncode, 0, r)
            names = [row[0] for row in db.sql("SELECT name FROM schema_migrations ORDER BY name")]
            self.assertEqual(names, sorted(os.listdir(os.path.join(harness.HERE, "..", "..",
                                                                   "migrations"))))
        self.assertEqual(db.value("SELECT count(*) FROM schemas"), "0")

    def test_migrate_against_an_unreachable_database_fails(self):
        r = run("migrate", "--database-url", f"postgresql://postgres@127.0.0.1:{harness.free_port()}/x",
                env={"PGCONNECT_TIMEOUT": "3"})
        self.assertNotEqual(r.returncode, 0, r)


class Settings(harness.unittest.TestCase):
    """Precedence: flags > environment > config file > defaults."""

    def serve(self, argv, env):
        log = os.path.join(harness.make_temp_dir("cli"), "stderr.log")
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
        full_env.update(env)
        with open(log, "wb") as out:
            proc = subprocess.Popen([harness.server_binary(), "serve", *argv], env=full_env,
                                    stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        return proc, log

    def wait_port(self, port, proc):
        client = harness.Client("127.0.0.1", port)
        deadline = time.monotonic() + harness.STARTUP_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                return client.get("/")
            except OSError:
                time.sleep(0.1)
        return None

    def stop(self, proc):
        proc.terminate()
        self.assertEqual(proc.wait(harness.SHUTDOWN_TIMEOUT), 0)

    def test_env_beats_file_and_flag_beats_env(self):
        db = PG.new_database("settings")
        file_port, env_port, flag_port = harness.free_port(), harness.free_port(), harness.free_port()
        conf = os.path.join(harness.make_temp_dir("conf"), "registry.conf")
        with open(conf, "w") as f:
            f.write(f"# a comment\nlisten = 127.0.0.1:{file_port}\ndatabase.url = {db.url}\n"
                    "threads = 1\nschema.compatibility.level = FULL\n")
        # The file alone: its port and its default level.
        proc, _ = self.serve(["--config", conf], {})
        r = self.wait_port(file_port, proc)
        self.assertIsNotNone(r, "did not listen on the config file's port")
        self.assertEqual(harness.Client("127.0.0.1", file_port).get("/config").body,
                         {"compatibilityLevel": "FULL"})
        self.stop(proc)
        # The environment overrides the file.
        proc, _ = self.serve([], {"SCHEMA_REGISTRY_CONFIG": conf,
                                  "SCHEMA_REGISTRY_LISTEN": f"127.0.0.1:{env_port}"})
        self.assertIsNotNone(self.wait_port(env_port, proc), "did not listen on the env port")
        self.stop(proc)
        # A flag overrides both.
        proc, _ = self.serve(["--config", conf, "--listen", f"127.0.0.1:{flag_port}"],
                             {"SCHEMA_REGISTRY_LISTEN": f"127.0.0.1:{env_port}"})
        self.assertIsNotNone(self.wait_port(flag_port, proc), "did not listen on the flag's port")
        self.stop(proc)


class RequestLog(harness.RegistryTestCase):

    def test_one_line_per_request_with_status_and_microseconds(self):
        s = self.sub()
        self.register_ok(s, '"string"')
        self.assertEqual(self.get(f"/subjects/{harness.quote(s)}/versions/7").status, 404)
        path = f"/subjects/{harness.quote(s)}"
        wanted = [re.escape(f"POST {path}/versions 200 ") + r"\d+us",
                  re.escape(f"GET {path}/versions/7 404 ") + r"\d+us"]
        # The line is written once the reply is on its way: give it a moment.
        deadline = time.monotonic() + 5
        while True:
            with open(self.server.log, errors="replace") as f:
                log = f.read()
            if all(re.search(w, log) for w in wanted) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for w in wanted:
            self.assertRegex(log, w)


if __name__ == "__main__":
    harness.main()

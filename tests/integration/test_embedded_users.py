"""The embedded database for every kind of user and directory (issue 8).

`make run` and `schema-registry serve` without a database URL must start,
keep data across a restart, stop on Ctrl-C and leave nothing running:
  - an ordinary user, from a clone in a home of mode 700 (Debian's adduser);
  - root, from a directory of mode 700 (/root/..., mktemp -d);
  - root, with --data-dir inside a mode-700 directory;
  - through sudo, where the server becomes the invoking user.
A path that cannot work gets one line naming the cause. Creating users needs
root (CI runs as root); as an ordinary user only the first case runs, as
that user.
"""

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import harness
from harness import avro_record, quote

SCHEMA = avro_record("Users", [("a", "string")])


def private_dir(prefix, owner=None):
    """A fresh mode-700 directory (like mktemp -d or an adduser home)."""
    path = tempfile.mkdtemp(prefix=f"sr-it-{prefix}-")
    os.chmod(path, 0o700)
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)
    harness.at_exit(lambda: shutil.rmtree(path, ignore_errors=True))
    return path


def make_user():
    """A throwaway login with a mode-700 home and a sudo rule; removed at exit."""
    name = f"srit{os.getpid()}"
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True,
                   capture_output=True)
    harness.at_exit(lambda: subprocess.run(["userdel", "--remove", "--force", name],
                                           capture_output=True))
    user = pwd.getpwnam(name)
    os.chmod(user.pw_dir, 0o700)
    rule = f"/etc/sudoers.d/{name}"
    with open(rule, "w") as f:
        f.write(f"{name} ALL=(root) NOPASSWD: ALL\n")
    os.chmod(rule, 0o440)
    harness.at_exit(lambda: os.path.exists(rule) and os.unlink(rule))
    return user


def as_user(user):
    """An argv prefix that becomes user without a fork (signals reach the server)."""
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
            "env", f"HOME={user.pw_dir}", f"USER={user.pw_name}"]


def clone_into(directory, owner=None):
    """A stand-in for a clone: the built binary at DIR/build/schema-registry."""
    build = os.path.join(directory, "build")
    os.makedirs(build, exist_ok=True)
    binary = os.path.join(build, "schema-registry")
    shutil.copy2(harness.server_binary(), binary)
    if owner is not None:
        for path in (directory, build, binary):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    return binary


def cluster_home(data_dir):
    """Where the cluster of data_dir lives: the data dir, or what DATA_DIR/cluster names."""
    pointer = os.path.join(data_dir, "cluster")
    if os.path.exists(pointer):
        with open(pointer) as f:
            return f.read().strip()
    return data_dir


class EveryUser(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.user = make_user() if harness.IS_ROOT else None

    def need_root(self):
        if not harness.IS_ROOT:
            self.skipTest("creating users and sudo rules needs root")

    def forget_cluster_at_exit(self, data_dir):
        def forget():
            home = cluster_home(data_dir)
            for pid in harness.pgrep(home):
                try:
                    os.kill(pid, signal.SIGQUIT)
                except ProcessLookupError:
                    pass
            if home.startswith("/var/lib/schema-registry/"):
                shutil.rmtree(home, ignore_errors=True)
        harness.at_exit(forget)

    def assert_nothing_left(self, data_dir):
        home = cluster_home(data_dir)
        deadline = time.monotonic() + 10
        while harness.pgrep(home) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(harness.pgrep(home), [], f"processes still running on {home}")

    def round_trip(self, var, **server_kw):
        """Start, register, Ctrl-C, start again, read it back, Ctrl-C; returns the servers."""
        self.forget_cluster_at_exit(var)
        first = harness.Server(name="users", **server_kw).start()
        r = first.client().post(f"/subjects/{quote('users-value')}/versions", {"schema": SCHEMA})
        self.assertEqual(r.status, 200, r)
        schema_id = r.body["id"]
        first.stop(sig=signal.SIGINT)
        self.assert_nothing_left(var)

        second = harness.Server(name="users", **server_kw).start()
        latest = second.client().get(f"/subjects/{quote('users-value')}/versions/latest")
        self.assertEqual(latest.status, 200, latest)
        self.assertEqual((latest.body["id"], latest.body["version"]), (schema_id, 1))
        second.stop(sig=signal.SIGINT)
        self.assert_nothing_left(var)
        return first, second

    def test_ordinary_user_from_a_clone_in_a_private_home(self):
        if harness.IS_ROOT:
            home, owner, wrap = self.user.pw_dir, self.user, as_user(self.user)
        else:
            home, owner, wrap = private_dir("home"), None, []
        clone = os.path.join(home, "clone")
        os.makedirs(clone, exist_ok=True)
        if owner:
            os.chown(clone, owner.pw_uid, owner.pw_gid)
        binary = clone_into(clone, owner)
        var = os.path.join(clone, "var")
        self.round_trip(var, binary=binary, cwd=clone, wrap=wrap)
        self.assertTrue(os.path.exists(os.path.join(var, "pgdata", "PG_VERSION")))
        self.assertFalse(os.path.exists(os.path.join(var, "cluster")))
        if owner:
            self.assertEqual(os.stat(os.path.join(var, "pgdata")).st_uid, owner.pw_uid)

    def test_root_from_a_private_directory(self):
        self.need_root()
        clone = private_dir("root-clone")
        var = os.path.join(clone, "var")
        first, _ = self.round_trip(var, cwd=clone)
        home = cluster_home(var)
        self.assertTrue(home.startswith("/var/lib/schema-registry/clusters/"), home)
        self.assertTrue(os.path.exists(os.path.join(home, "pgdata", "PG_VERSION")))
        self.assertIn("cannot enter", first.log_text())
        self.assertIn("first start: creating the PostgreSQL cluster", first.log_text())

    def test_root_with_data_dir_in_a_private_directory(self):
        self.need_root()
        var = os.path.join(private_dir("root-data"), "deep", "var")
        self.round_trip(var, data_dir=var)
        self.assertTrue(cluster_home(var).startswith("/var/lib/schema-registry/clusters/"))

    def test_root_with_a_reachable_data_dir_keeps_the_cluster_inside(self):
        self.need_root()
        var = os.path.join(harness.make_temp_dir("root-open"), "var")
        self.round_trip(var, data_dir=var)
        self.assertFalse(os.path.exists(os.path.join(var, "cluster")))
        self.assertEqual(os.stat(os.path.join(var, "pgdata")).st_uid, pwd.getpwnam("postgres").pw_uid)

    def test_sudo_runs_the_server_as_the_invoking_user(self):
        self.need_root()
        if shutil.which("sudo") is None:
            self.fail("sudo is not installed (scripts/install-deps.sh installs it)")
        clone = os.path.join(self.user.pw_dir, "sudo-clone")
        os.makedirs(clone)
        os.chown(clone, self.user.pw_uid, self.user.pw_gid)
        binary = clone_into(clone, self.user)
        var = os.path.join(clone, "var")
        wrap = as_user(self.user) + ["sudo", "-n"]
        first, _ = self.round_trip(var, binary=binary, cwd=clone, wrap=wrap)
        self.assertIn(f"started through sudo: running as {self.user.pw_name}", first.log_text())
        for path in (var, os.path.join(var, "pgdata")):
            self.assertEqual(os.stat(path).st_uid, self.user.pw_uid, path)
        self.assertFalse(os.path.exists(os.path.join(var, "cluster")))

    def test_a_data_dir_that_cannot_work_gets_one_clear_line(self):
        self.need_root()
        forbidden = private_dir("forbidden")           # root's, mode 700
        clone = os.path.join(self.user.pw_dir, "forbidden-clone")
        os.makedirs(clone)
        binary = clone_into(clone, self.user)
        r = subprocess.run(as_user(self.user) + [binary, "serve", "--listen",
                           f"127.0.0.1:{harness.free_port()}", "--data-dir",
                           os.path.join(forbidden, "var")],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r)
        errors = [line for line in r.stderr.splitlines() if " ERROR " in line]
        self.assertEqual(len(errors), 1, r.stderr)
        self.assertIn("cannot create data directory", errors[0])
        self.assertIn("Permission denied", errors[0])
        self.assertNotIn("initdb", r.stderr)


if __name__ == "__main__":
    harness.main()

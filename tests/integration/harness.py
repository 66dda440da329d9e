"""
harness: the world an integration test runs in -- a private PostgreSQL, the
real server binary, and small HTTP clients. Standard library only; runs with
/usr/bin/python3 as root (CI) or as an ordinary user.

Contents
  1. Environment (binary path, temp dirs, free ports, cleanup on exit)
  2. PostgreSQL: a private cluster per test module, a database per test class
  3. Server: start, wait until it answers, stop with SIGTERM and a clean exit
  4. HTTP/1.1 client (http.client) and Response
  5. curl (h2c, TLS + ALPN) and TLS certificates (openssl CLI)
  6. RegistryTestCase: one database + one server per class, helpers, asserts
  7. main()

The server contract used here (docs/api.md, server/config.h):
  $SR_BINARY serve --listen HOST:PORT [--database-url URL] [--data-dir DIR]
                   [--threads N] [--max-schema-bytes N] [--tls-cert F --tls-key F]
"""

import atexit
import http.client
import itertools
import json
import os
import pwd
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

# ---- 1. Environment ---------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))
IS_ROOT = os.geteuid() == 0
# PostgreSQL refuses to run as root; as root every server-side PostgreSQL
# command runs as this user instead.
PG_USER = "postgres"
KEEP_TMP = os.environ.get("SR_KEEP_TMP") == "1"

# The media type every Confluent client sends, and the Accept header Java's
# HttpURLConnection adds when the client sets none (docs/api.md).
SR_V1 = "application/vnd.schemaregistry.v1+json"
JAVA_DEFAULT_ACCEPT = "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"

STARTUP_TIMEOUT = float(os.environ.get("SR_STARTUP_TIMEOUT", "90"))
SHUTDOWN_TIMEOUT = float(os.environ.get("SR_SHUTDOWN_TIMEOUT", "60"))
REQUEST_TIMEOUT = 60


def server_binary():
    """The server under test: $SR_BINARY (set by ctest), else build/."""
    path = os.environ.get("SR_BINARY") or os.path.join(HERE, "..", "..", "build", "schema-registry")
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"server binary not found or not executable: {path} (set SR_BINARY)")
    return path


def pg_bindir():
    out = subprocess.run(["pg_config", "--bindir"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


_cleanups = []          # LIFO, run at exit even when a test run is interrupted
_cleanup_lock = threading.Lock()


def at_exit(fn):
    with _cleanup_lock:
        _cleanups.append(fn)


def cleanup():
    """Runs every pending cleanup now (also registered with atexit)."""
    while True:
        with _cleanup_lock:
            if not _cleanups:
                return
            fn = _cleanups.pop()
        try:
            fn()
        except Exception as exc:  # cleanup must go on: a stray cluster outlives the test
            print(f"harness: cleanup failed: {exc!r}", file=sys.stderr)


atexit.register(cleanup)


def _on_sigterm(signum, frame):
    # ctest kills a test that times out with SIGTERM; turn that into a normal
    # exit so atexit stops PostgreSQL and the servers.
    raise SystemExit(128 + signum)


signal.signal(signal.SIGTERM, _on_sigterm)


def make_temp_dir(prefix):
    """A fresh directory, removed at exit unless SR_KEEP_TMP=1. Mode 0755 so
    the postgres user can reach what the tests place inside it."""
    path = tempfile.mkdtemp(prefix=f"sr-it-{prefix}-")
    os.chmod(path, 0o755)
    if not KEEP_TMP:
        at_exit(lambda: shutil.rmtree(path, ignore_errors=True))
    return path


def give_to_pg_user(path):
    """Make path (recursively) owned by the PostgreSQL user when running as root."""
    if not IS_ROOT:
        return
    pw = pwd.getpwnam(PG_USER)
    for dirpath, dirnames, filenames in os.walk(path):
        os.chown(dirpath, pw.pw_uid, pw.pw_gid)
        for name in filenames:
            os.chown(os.path.join(dirpath, name), pw.pw_uid, pw.pw_gid)


def as_pg_user(argv):
    return ["runuser", "-u", PG_USER, "--"] + argv if IS_ROOT else argv


def free_port():
    """A port that was free a moment ago. Racy by nature: callers retry."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, limit=6000):
    try:
        with open(path, "r", errors="replace") as f:
            text = f.read()
    except OSError:
        return "(no log)"
    return text[-limit:]


def pgrep(pattern):
    """Pids of processes whose full command line contains pattern (pgrep -f)."""
    out = subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


# ---- 2. PostgreSQL ---------------------------------------------------------

class Postgres:
    """A private cluster: initdb into a temp dir, trust auth, 127.0.0.1 and a
    unix socket dir, a random free port."""

    def __init__(self, durable=False, opts="", primary=None):
        self.durable = durable         # fsync and synchronous commit on (benchmarks)
        self.opts = opts               # more "-c name=value" server options
        self.primary = primary         # a Postgres to stream from (standby()), or None
        self.bindir = pg_bindir()
        self.dir = make_temp_dir("pg")
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "sock")
        self.log = os.path.join(self.dir, "postgres.log")
        self.port = None
        self._dbs = itertools.count(1)

    def _bin(self, name):
        return os.path.join(self.bindir, name)

    def start(self):
        os.mkdir(self.sock)
        give_to_pg_user(self.dir)
        if self.primary is not None:
            # A streaming standby: a base backup with standby.signal and
            # primary_conninfo written by -R (initdb's pg_hba trusts replication
            # from 127.0.0.1).
            subprocess.run(as_pg_user([self._bin("pg_basebackup"), "-h", "127.0.0.1",
                                       "-p", str(self.primary.port), "-U", "postgres",
                                       "-D", self.data, "-R", "-X", "stream", "--no-sync",
                                       "--checkpoint=fast"]),
                           check=True, capture_output=True)
        else:
            subprocess.run(as_pg_user([self._bin("initdb"), "-D", self.data, "-A", "trust",
                                       "-U", "postgres", "--no-sync", "-E", "UTF8",
                                       "--locale=C.UTF-8"]),
                           check=True, capture_output=True)
        for attempt in range(5):
            self.port = free_port()
            speed = ("" if self.durable else
                     "-c fsync=off -c synchronous_commit=off -c full_page_writes=off ")
            opts = (f"-k {self.sock} -p {self.port} -c listen_addresses=127.0.0.1 "
                    f"{speed}-c max_connections=200 {self.opts}")
            run = subprocess.run(as_pg_user([self._bin("pg_ctl"), "-D", self.data, "-l", self.log,
                                             "-o", opts, "-w", "-t", "60", "start"]),
                                 capture_output=True, text=True)
            if run.returncode == 0:
                self._opts = opts
                at_exit(self.stop)
                return self
        raise RuntimeError(f"PostgreSQL did not start:\n{run.stdout}{run.stderr}\n{tail(self.log)}")

    def stop(self):
        if self.port is None:
            return
        subprocess.run(as_pg_user([self._bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop"]),
                       capture_output=True)
        self.port = None

    def standby(self, opts=""):
        """A streaming standby of this (started) cluster, not yet started."""
        return Postgres(durable=self.durable, opts=opts, primary=self)

    def pg_ctl(self, *args, timeout=120):
        run = subprocess.run(as_pg_user([self._bin("pg_ctl"), "-D", self.data, *args]),
                             capture_output=True, text=True, timeout=timeout)
        if run.returncode != 0:
            raise RuntimeError(f"pg_ctl {args} failed: {run.stdout}{run.stderr}\n{tail(self.log)}")

    def start_again(self):
        """Starts a cluster stop() or crash() stopped, on its old port."""
        self.pg_ctl("-l", self.log, "-o", self._opts, "-w", "-t", "60", "start")
        self.port = int(self._opts.split(" -p ")[1].split()[0])

    def crash(self):
        """Stops at once, as a lost machine would: no shutdown checkpoint."""
        self.pg_ctl("-m", "immediate", "-w", "stop")
        self.port = None

    def promote(self):
        self.pg_ctl("-w", "promote")

    def url(self, dbname="postgres"):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def sql(self, query, dbname="postgres"):
        """Runs one statement; returns the rows as tuples of strings (NULL -> None)."""
        run = subprocess.run([self._bin("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                              "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                              "-d", dbname, "-P", "null=\x1d", "-F", "\x1f", "-R", "\x1e",
                              "-c", query],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"psql failed ({query!r}): {run.stderr}")
        out = run.stdout.rstrip("\n")
        if not out:
            return []
        return [tuple(None if v == "\x1d" else v for v in rec.split("\x1f"))
                for rec in out.split("\x1e") if rec != ""]

    def new_database(self, prefix="sr"):
        name = f"{prefix}_{os.getpid()}_{next(self._dbs)}"
        self.sql(f'CREATE DATABASE "{name}"')
        return Database(self, name)


class PgBouncer:
    """Debian's pgbouncer in front of a Postgres on loopback, in pool_mode
    "session" or "transaction"; trust auth, no unix socket."""

    def __init__(self, cluster, pool_mode):
        self.cluster = cluster
        self.pool_mode = pool_mode
        self.dir = make_temp_dir("pgbouncer")
        self.log = os.path.join(self.dir, "pgbouncer.log")
        self.port = None
        self.proc = None

    def start(self):
        with open(os.path.join(self.dir, "users.txt"), "w") as f:
            f.write('"postgres" ""\n')
        for attempt in range(3):
            self.port = free_port()
            ini = os.path.join(self.dir, "pgbouncer.ini")
            with open(ini, "w") as f:
                f.write(f"[databases]\n* = host=127.0.0.1 port={self.cluster.port}\n"
                        f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {self.port}\n"
                        f"unix_socket_dir =\nauth_type = trust\n"
                        f"auth_file = {self.dir}/users.txt\npool_mode = {self.pool_mode}\n"
                        f"max_client_conn = 500\ndefault_pool_size = 20\n"
                        f"logfile = {self.log}\n")
            give_to_pg_user(self.dir)
            self.proc = subprocess.Popen(as_pg_user(["pgbouncer", ini]), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    at_exit(self.stop)
                    return self
                except OSError:
                    time.sleep(0.1)
            self.stop()
        raise RuntimeError(f"pgbouncer did not start:\n{tail(self.log)}")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def url(self, dbname):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def repoint(self, cluster, dbname="postgres", server_dbname=None):
        """Sends new server connections to another cluster (a failover done by
        repointing the pooler): the [databases] line rewritten, then SIGHUP,
        PgBouncer's RELOAD; returns once dbname's pool reaches it. Client
        connections stay open. server_dbname: dbname's pool goes to that
        database of cluster instead (a line of its own before the "*" one)."""
        ini = os.path.join(self.dir, "pgbouncer.ini")
        with open(ini) as f:
            text = f.read()
        text = re.sub(r"(?m)^(\* = host=127\.0\.0\.1 port=)\d+$", rf"\g<1>{cluster.port}", text, count=1)
        if server_dbname is not None:
            text = text.replace("[databases]\n", f"[databases]\n{dbname} = host=127.0.0.1 port={cluster.port} "
                                f"dbname={server_dbname}\n", 1)
        with open(ini, "w") as f:
            f.write(text)
        self.cluster = cluster
        pids = pgrep(f"^pgbouncer {ini}")  # not the runuser wrapping it
        if not pids:
            raise RuntimeError("pgbouncer is not running")
        for pid in pids:
            os.kill(pid, signal.SIGHUP)
        # Until a query through it reaches the new cluster: the reload has been
        # read, and a login PgBouncer tried against the old one before (which
        # makes it wait server_login_retry) is behind us.
        deadline = time.monotonic() + 60
        while True:
            run = subprocess.run([cluster._bin("psql"), "-X", "-q", "-A", "-t", "-h", "127.0.0.1",
                                  "-p", str(self.port), "-U", "postgres", "-d", dbname,
                                  "-c", "SELECT pg_is_in_recovery()::text || ' ' || current_database()"],
                                 capture_output=True, text=True, timeout=30,
                                 env={**os.environ, "PGCONNECT_TIMEOUT": "5"})
            if run.returncode == 0 and run.stdout.strip() == f"false {server_dbname or dbname}":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer does not reach the new cluster: {run.stderr}\n{tail(self.log)}")
            time.sleep(0.2)


class Database:
    def __init__(self, cluster, name):
        self.cluster = cluster
        self.name = name

    @property
    def url(self):
        return self.cluster.url(self.name)

    def sql(self, query):
        return self.cluster.sql(query, self.name)

    def value(self, query):
        """The single value of a one-row, one-column query (as a string)."""
        rows = self.sql(query)
        if len(rows) != 1 or len(rows[0]) != 1:
            raise AssertionError(f"expected one value from {query!r}, got {rows!r}")
        return rows[0][0]

    def count(self, table, where="true"):
        return int(self.value(f"SELECT count(*) FROM {table} WHERE {where}"))

    def state(self):
        """Row counts of every registry table and the last change-feed seq:
        what must stay the same after a refused request."""
        counts = {t: self.count(t) for t in
                  ("schemas", "subject_versions", "schema_references", "configs", "modes")}
        counts["changes.max_seq"] = self.value("SELECT coalesce(max(seq), 0) FROM changes")
        return counts


_cluster = None


def cluster():
    """The test module's cluster, started on first use, stopped at exit."""
    global _cluster
    if _cluster is None:
        _cluster = Postgres().start()
    return _cluster


# ---- 3. Server -------------------------------------------------------------

class ServerError(AssertionError):
    pass


class Server:
    """One schema-registry process. stop() asserts a clean exit (status 0): a
    sanitizer report makes the status non-zero and so fails the test."""

    def __init__(self, database_url=None, args=(), data_dir=None, tls=None, name="server",
                 threads=2, binary=None, cwd=None, wrap=(), env=None, client_cert=None):
        self.binary = binary or server_binary()
        self.cwd = cwd                 # default: the server's own temp dir
        self.wrap = list(wrap)         # argv prefix: setpriv, sudo, ...
        self.extra_env = dict(env or {})
        self.database_url = database_url
        self.args = list(args)
        self.data_dir = data_dir
        self.tls = tls                 # (cert_path, key_path) or None
        self.client_cert = client_cert # (cert_path, key_path) that client() presents, or None
        self.threads = threads
        self.dir = make_temp_dir(name)
        self.log = os.path.join(self.dir, "stderr.log")
        self.port = None
        self.proc = None
        self.exit_codes = []           # one per stop(), for tests that look
        self._death_reported = False

    @property
    def scheme(self):
        return "https" if self.tls else "http"

    @property
    def base_url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def client(self):
        return Client("127.0.0.1", self.port, tls=bool(self.tls), cert=self.client_cert)

    def _argv(self):
        argv = self.wrap + [self.binary, "serve", "--listen", f"127.0.0.1:{self.port}",
                "--threads", str(self.threads)]
        if self.database_url:
            argv += ["--database-url", self.database_url]
        if self.data_dir:
            argv += ["--data-dir", self.data_dir]
        if self.tls:
            argv += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        return argv + self.args

    def _env(self):
        env = dict(os.environ)
        # Leak checking is the point of the sanitizer build; make sure it is on.
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        for key in [k for k in env if k.startswith("SCHEMA_REGISTRY_")]:
            del env[key]       # the flags above must be the whole configuration
        env.update(self.extra_env)
        return env

    def start(self, timeout=STARTUP_TIMEOUT):
        for attempt in range(3):
            self.port = free_port()
            logf = open(self.log, "ab")
            try:
                self.proc = subprocess.Popen(self._argv(), stdin=subprocess.DEVNULL, stdout=logf,
                                             stderr=logf, env=self._env(), cwd=self.cwd or self.dir)
            finally:
                logf.close()
            if self._wait_ready(timeout):
                at_exit(self.kill)
                return self
            if self.proc.poll() is None:
                self.kill()
                raise ServerError(f"server did not answer GET / within {timeout} s\n"
                                  f"--- server log ---\n{tail(self.log)}")
            if "in use" not in tail(self.log, 2000).lower():
                break
        raise ServerError(f"server exited during start-up with status {self.proc.returncode}\n"
                          f"argv: {self._argv()}\n--- server log ---\n{tail(self.log)}")

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        probe = self.client()
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                # 401: up, with authentication on (docs/security.md).
                if probe.request("GET", "/", timeout=2).status in (200, 401):
                    return True
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.1)
        return False

    def stop(self, check=True, sig=signal.SIGTERM):
        """sig (SIGTERM; SIGINT is Ctrl-C), wait, and (check=True) assert exit status 0."""
        if self.proc is None:
            return None
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise ServerError(f"server ignored {signal.Signals(sig).name} for {SHUTDOWN_TIMEOUT} s\n"
                                  f"--- server log ---\n{tail(self.log)}")
        self.exit_codes.append(proc.returncode)
        if check and proc.returncode != 0:
            raise ServerError(f"server exited with status {proc.returncode} after SIGTERM "
                              f"(sanitizer report or crash?)\n--- server log ---\n{tail(self.log)}")
        return proc.returncode

    def assert_running(self):
        if self.proc is not None and self.proc.poll() is not None:
            log = "" if self._death_reported else f"\n--- server log ---\n{tail(self.log)}"
            self._death_reported = True
            raise ServerError(f"server died with status {self.proc.returncode}{log}")

    def kill(self):
        """Last-resort cleanup: no assertion, no waiting for a clean shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log_text(self):
        return tail(self.log, 1 << 20)


# ---- 4. HTTP/1.1 client ----------------------------------------------------

class Response:
    """Unpacks as (status, body, headers). body is parsed JSON when the reply
    is JSON, else text; .text is always the raw text."""

    def __init__(self, status, text, headers):
        self.status = status
        self.text = text
        self.headers = headers
        self.body = self._parse(text, headers.get("Content-Type", ""))

    @staticmethod
    def _parse(text, content_type):
        if text == "":
            return None
        if "json" in content_type:
            try:
                return json.loads(text)
            except ValueError:
                pass
        return text

    def __iter__(self):
        return iter((self.status, self.body, self.headers))

    def __repr__(self):
        return f"Response({self.status}, {self.text[:500]!r})"


def quote(segment):
    """Percent-encodes one path segment the way Confluent clients do ('/' -> %2F)."""
    return urllib.parse.quote(segment, safe="")


def path_with_query(path, params):
    if not params:
        return path
    return path + "?" + urllib.parse.urlencode(params)


class Client:
    """cert: (cert_path, key_path) presented over TLS; source: the local address to
    connect from (any 127.x.y.z reaches the server: a second "client address")."""

    def __init__(self, host, port, tls=False, headers=None, cert=None, source=None):
        self.host = host
        self.port = port
        self.tls = tls
        self.cert = cert
        self.source = (source, 0) if source else None
        self.headers = {"Content-Type": SR_V1, "Accept": JAVA_DEFAULT_ACCEPT}
        self.headers.update(headers or {})

    def _connection(self, timeout):
        if self.tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            if self.cert:
                ctx.load_cert_chain(*self.cert)
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=ctx,
                                               source_address=self.source)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout,
                                          source_address=self.source)

    def request(self, method, path, body=None, headers=None, params=None, timeout=REQUEST_TIMEOUT):
        """body: dict/list (sent as JSON), str, bytes, or None (no body).
        headers: merged over the defaults; a value of None removes a default."""
        merged = dict(self.headers)
        for k, v in (headers or {}).items():
            merged.pop(k, None)
            if v is not None:
                merged[k] = v
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode("utf-8")
        conn = self._connection(timeout)
        try:
            conn.request(method, path_with_query(path, params), body=body, headers=merged)
            resp = conn.getresponse()
            raw = resp.read()
            return Response(resp.status, raw.decode("utf-8", errors="replace"), resp.headers)
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


# ---- 5. curl and TLS -------------------------------------------------------

class CurlResult:
    def __init__(self, status, http_version, text):
        self.status = status
        self.http_version = http_version
        self.text = text
        try:
            self.body = json.loads(text) if text else None
        except ValueError:
            self.body = text

    def __repr__(self):
        return f"CurlResult({self.status}, HTTP/{self.http_version}, {self.text[:300]!r})"


def curl(url, method="GET", body=None, headers=None, mode="h2c", args=()):
    """mode: 'h2c' (HTTP/2 prior knowledge), 'h2' (TLS, ALPN offering h2),
    'http1.1' (plain or TLS, HTTP/1.1 only). TLS certificates are not verified.
    args: more curl arguments (-u USER:PASS, --cert F --key F)."""
    marker = "\n--curl-status--"
    argv = ["curl", "-s", "-S", "-X", method, "-w", marker + "%{http_code} %{http_version}",
            "-H", f"Content-Type: {SR_V1}", "--max-time", "60"]
    argv += {"h2c": ["--http2-prior-knowledge"], "h2": ["--http2"], "http1.1": ["--http1.1"]}[mode]
    if url.startswith("https:"):
        argv.append("-k")
    for k, v in (headers or {}).items():
        argv += ["-H", f"{k}: {v}"]
    argv += list(args)
    data = None
    if body is not None:
        data = (json.dumps(body) if isinstance(body, (dict, list)) else body)
        data = data.encode() if isinstance(data, str) else data
        argv += ["--data-binary", "@-"]
    run = subprocess.run(argv + [url], input=data, capture_output=True)
    out = run.stdout.decode("utf-8", errors="replace")
    if run.returncode != 0 or marker not in out:
        raise AssertionError(f"curl failed ({run.returncode}): {run.stderr.decode(errors='replace')}")
    text, _, status_line = out.rpartition(marker)
    code, version = status_line.split()
    return CurlResult(int(code), version, text)


class H2Client:
    """A bare h2c connection (prior knowledge) driven by python3-h2."""

    def __init__(self, port):
        try:
            import h2.config
            import h2.connection
        except ImportError as exc:  # a missing dependency is a failure, not a skip
            raise SystemExit(f"python3-h2 is not importable ({exc}); run scripts/install-deps.sh") from exc
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.flush()
        self.responses = {}                     # stream id -> status
        self.bodies = {}

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def headers(self, path):
        return [(":method", "POST"), (":scheme", "http"), (":authority", "localhost"),
                (":path", path), ("content-type", SR_V1)]

    def post(self, path, body, reset=False, flush=True, headers=()):
        """Sends one request (headers: more (name, value) pairs, names in lower
        case); flush=False keeps its frames for the next flush(), so that several
        requests reach the server in one write."""
        sid = self.conn.get_next_available_stream_id()
        data = json.dumps(body).encode()
        self.conn.send_headers(sid, self.headers(path) + [("content-length", str(len(data)))] + list(headers))
        while self.conn.local_flow_control_window(sid) < len(data):
            self.pump(0.5)
        self.conn.send_data(sid, data, end_stream=True)
        if reset:
            self.conn.reset_stream(sid)
        if flush:
            self.flush()
        return sid

    def pump(self, timeout):
        """Reads what the server sent within timeout; records statuses."""
        import h2.events
        self.sock.settimeout(timeout if timeout > 0 else 0.001)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError):
            return False
        if not data:
            raise ConnectionError("server closed the connection")
        for ev in self.conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                self.responses[ev.stream_id] = int(dict(ev.headers)[b":status"])
            elif isinstance(ev, h2.events.DataReceived):
                self.bodies[ev.stream_id] = self.bodies.get(ev.stream_id, b"") + ev.data
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        self.flush()
        return True

    def wait_responses(self, sids, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not all(s in self.responses for s in sids):
            self.pump(0.2)
        return [self.responses.get(s) for s in sids]

    def close(self):
        self.sock.close()


def make_self_signed_cert(directory):
    """A throwaway key and certificate for 127.0.0.1/localhost; returns (cert, key)."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256",
                    "-days", "2", "-subj", "/CN=localhost", "-keyout", key, "-out", cert,
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class Pki:
    """A throwaway certificate authority (openssl CLI): certificates for servers
    and clients, expired ones, revocations and a CRL. issue() returns (cert, key)."""

    CONFIG = """[ca]
default_ca = ca_default
[ca_default]
dir = {dir}
database = {dir}/index.txt
new_certs_dir = {dir}/issued
certificate = {dir}/ca.pem
private_key = {dir}/ca.key
serial = {dir}/serial
crlnumber = {dir}/crlnumber
default_md = sha256
default_days = 2
default_crl_days = 2
policy = policy_any
copy_extensions = copy
unique_subject = no
[policy_any]
commonName = supplied
[leaf]
basicConstraints = CA:FALSE
keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
"""

    def __init__(self, directory, name="Test CA"):
        self.dir = directory
        os.makedirs(os.path.join(directory, "issued"), exist_ok=True)
        self.cert = os.path.join(directory, "ca.pem")
        self.key = os.path.join(directory, "ca.key")
        self.config = os.path.join(directory, "ca.cnf")
        with open(self.config, "w") as f:
            f.write(self.CONFIG.format(dir=directory))
        open(os.path.join(directory, "index.txt"), "w").close()
        for name_ in ("serial", "crlnumber"):
            with open(os.path.join(directory, name_), "w") as f:
                f.write("1000\n")
        self._run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
                  "-subj", f"/CN={name}", "-keyout", self.key, "-out", self.cert,
                  "-addext", "basicConstraints=critical,CA:TRUE",
                  "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    @staticmethod
    def _run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    def issue(self, cn, san=None, expired=False, name=None):
        """A leaf certificate for CN=cn with subjectAltName san ("DNS:a,IP:1.2.3.4"),
        valid for two days from now, or (expired) only in 2020."""
        base = os.path.join(self.dir, name or cn.replace("/", "_"))
        key, csr, cert = base + ".key", base + ".csr", base + ".pem"
        req = ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}",
               "-keyout", key, "-out", csr]
        if san:
            req += ["-addext", f"subjectAltName={san}"]
        self._run(*req)
        sign = ["ca", "-batch", "-config", self.config, "-extensions", "leaf", "-in", csr,
                "-out", cert, "-notext"]
        if expired:
            sign += ["-startdate", "20200101000000Z", "-enddate", "20200102000000Z"]
        self._run(*sign)
        return cert, key

    def server_cert(self):
        return self.issue("localhost", san="DNS:localhost,IP:127.0.0.1", name="server")

    def revoke(self, cert):
        self._run("ca", "-config", self.config, "-revoke", cert)

    def crl(self):
        path = os.path.join(self.dir, "crl.pem")
        self._run("ca", "-config", self.config, "-gencrl", "-out", path)
        return path


# ---- 6. RegistryTestCase ---------------------------------------------------

def sql_literal(text):
    """A SQL string literal (for assertions on subject names)."""
    return "'" + text.replace("'", "''") + "'"


def avro_record(name, fields, **extra):
    """Avro record schema text; fields are (name, type) or (name, type, default)."""
    out = []
    for f in fields:
        field = {"name": f[0], "type": f[1]}
        if len(f) > 2:
            field["default"] = f[2]
        out.append(field)
    return json.dumps(dict({"type": "record", "name": name, "fields": out}, **extra))


class RegistryTestCase(unittest.TestCase):
    """Each subclass gets its own database and its own server process.
    server_args: extra command-line flags for that server. database_settings:
    "name = value" settings of that database (ALTER DATABASE ... SET), in force
    for every connection the server opens."""

    server_args = ()
    database_settings = ()
    _names = itertools.count(1)

    @classmethod
    def setUpClass(cls):
        cls.pg = cluster()
        cls.db = cls.pg.new_database()
        for setting in cls.database_settings:
            cls.pg.sql(f'ALTER DATABASE "{cls.db.name}" SET {setting}')
        cls.server = Server(database_url=cls.db.url, args=cls.server_args,
                            name=cls.__name__.lower())
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        # A server that died in an earlier test would make every later test
        # fail with "connection refused"; say what happened instead.
        self.server.assert_running()

    # -- names and requests --

    @property
    def http(self):
        """A client for the class's server (its port changes when it restarts)."""
        return self.server.client()

    def sub(self, tag="s"):
        """A subject name no other test uses."""
        return f"{self._testMethodName}-{tag}-{next(self._names)}"

    def get(self, path, **kw):
        return self.http.get(path, **kw)

    def post(self, path, body=None, **kw):
        return self.http.post(path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.http.put(path, body, **kw)

    def delete(self, path, **kw):
        return self.http.delete(path, **kw)

    # -- registry operations (paths built with per-segment encoding) --

    @staticmethod
    def schema_body(schema, schema_type=None, references=None, **extra):
        body = {"schema": schema}
        if schema_type is not None:
            body["schemaType"] = schema_type
        if references is not None:
            body["references"] = references
        body.update(extra)
        return body

    def register(self, subject, schema, schema_type=None, references=None, params=None, **extra):
        return self.post(f"/subjects/{quote(subject)}/versions",
                         self.schema_body(schema, schema_type, references, **extra), params=params)

    def register_ok(self, subject, schema, **kw):
        """Registers and returns the id, failing the test on anything but 200."""
        r = self.register(subject, schema, **kw)
        self.assertEqual(r.status, 200, r)
        self.assertIsInstance(r.body.get("id"), int, r)
        return r.body["id"]

    def lookup(self, subject, schema, schema_type=None, references=None, params=None):
        return self.post(f"/subjects/{quote(subject)}",
                         self.schema_body(schema, schema_type, references), params=params)

    def version(self, subject, version, params=None):
        return self.get(f"/subjects/{quote(subject)}/versions/{version}", params=params)

    def versions(self, subject, params=None):
        return self.get(f"/subjects/{quote(subject)}/versions", params=params)

    def delete_subject(self, subject, permanent=False):
        return self.delete(f"/subjects/{quote(subject)}",
                           params={"permanent": "true"} if permanent else None)

    def delete_version(self, subject, version, permanent=False):
        return self.delete(f"/subjects/{quote(subject)}/versions/{version}",
                           params={"permanent": "true"} if permanent else None)

    def subjects(self, params=None):
        r = self.get("/subjects", params=params)
        self.assertEqual(r.status, 200, r)
        return r.body

    # -- assertions --

    def assert_error(self, resp, status, error_code):
        """A Confluent error: the status, and a body of exactly error_code + message."""
        self.assertEqual(resp.status, status, resp)
        self.assertIsInstance(resp.body, dict, resp)
        self.assertEqual(set(resp.body), {"error_code", "message"}, resp)
        self.assertEqual(resp.body["error_code"], error_code, resp)
        self.assertIsInstance(resp.body["message"], str, resp)

    def set_level(self, subject, level):
        """PUT /config/{subject} with a compatibility level; must succeed."""
        self.assert_ok(self.put(f"/config/{quote(subject)}", {"compatibility": level}))

    def assert_register_refused(self, subject, schema, messages, **kw):
        """409/40901 whose message carries the list Java List.toString style
        (docs/compatibility.md), and nothing stored."""
        before = self.db.state()
        r = self.register(subject, schema, **kw)
        self.assert_error(r, 409, 40901)
        self.assertIn("[" + ", ".join(messages) + "]", r.body["message"])
        self.assertEqual(self.db.state(), before)

    def assert_ok(self, resp, body=None):
        self.assertEqual(resp.status, 200, resp)
        if body is not None:
            self.assertEqual(resp.body, body, resp)
        return resp.body


# ---- 7. main ---------------------------------------------------------------

class TwoNodeTestCase(RegistryTestCase):
    """RegistryTestCase with a second server, node_b, on the same database."""

    node_b_args = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()                     # node A: cls.server
        cls.node_b = Server(database_url=cls.db.url, name="node-b", args=cls.node_b_args).start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.node_b.stop()
        finally:
            super().tearDownClass()


class BackgroundLoad:
    """GETs path with client on a thread until stop(): at most `limit` requests,
    5 ms apart (bounded in count and time). ok counts 200s; failures keeps the rest."""

    def __init__(self, client, path, limit=2000):
        self.ok, self.failures = 0, []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(client, path, limit))
        self._thread.start()

    def _run(self, client, path, limit):
        for _ in range(limit):
            if self._done.is_set():
                return
            try:
                r = client.get(path)
                if r.status != 200:
                    self.failures.append(r)
                else:
                    self.ok += 1
            except OSError as exc:
                self.failures.append(exc)
            time.sleep(0.005)

    def stop(self, at_least=0, timeout=60):
        """Lets the load run on (bounded by timeout) until at_least requests
        succeeded, so a count says the load ran, not how fast (a slow hash under
        the sanitizers takes seconds); then stops it."""
        deadline = time.monotonic() + timeout
        while (self.ok < at_least and not self.failures and self._thread.is_alive()
               and time.monotonic() < deadline):
            time.sleep(0.1)
        self._done.set()
        self._thread.join()


def main():
    """unittest.main with cleanup guaranteed and a non-zero status on failure."""
    try:
        unittest.main(verbosity=2, buffer=False)
    finally:
        cleanup()

#!/usr/bin/python3
"""
bench: the registry's figures next to baselines measured in the same run.

Every workload is printed with a baseline that ran on the same machine, the
same cores and the same minute, and the ratio between them; absolute numbers
from different machines do not compare, ratios do (docs/performance.md).
Nothing is asserted: benchmarks report, tests judge.

  /usr/bin/python3 bench/bench.py --binary build-release/schema-registry
                                  --constant build-release/bench-constant
                                  --decode build-release/bench-decode
                                  [--seconds 10] [--quick]
                                  [--only reads,writes,startup,compat,decode] [--repeat N]
                                  [--against OTHER_BINARY]

Workloads and baselines
  by-id read, HTTP/1.1   wrk, 100 connections    nginx serving the identical bytes from a file
  by-id read, h2c        h2load, 16 x 10 streams the bench's own constant libh2o handler
  latest version, h2c    h2load, 16 x 10 streams the constant handler
  new registrations      wrk, 16 connections     pgbench, 16 clients, one single-row INSERT
                         (new subject + new        per transaction, same PostgreSQL, fsync and
                         schema each)              synchronous commit on; the two take turns
                                                   of about 2 s
  start-up               10k and 100k schemas in 1k and 10k subjects: seconds from process
                         start to the last id answering 200, RSS per schema above an empty
                         registry, and how long one GET /metrics takes then
  compatibility          a 10,000-field record against its previous version, and
                         FULL_TRANSITIVE over 1,000 versions, for Avro, Protobuf, JSON Schema
  Avro decode            bench-decode (bench/decode.c): client/'s decoder, JSON rows, with the
                         writer schema and with a projecting reader, against avro-c's own
                         reader (avro_value_read) on the same records in the same run

Load generators: wrk and h2load (Debian's wrk, nghttp2-client); every run is
bounded by --seconds. --quick shrinks the start-up and compatibility sizes
tenfold for a fast look. --only runs some of the five groups; --repeat N
runs the read and write workloads N times, each next to its baseline again, to show
how much the figures move on a busy machine.
"""

import argparse
import concurrent.futures
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))

import harness  # noqa: E402  (the integration harness: PostgreSQL + server)
from harness import SR_V1, avro_record, quote  # noqa: E402

ROWS = []


def row(name, value, unit, baseline=None, base_value=None, p50=None, p99=None, note=""):
    """One line of the table; ratio = value / base_value (higher is better)."""
    ratio = f"{value / base_value:6.3f}" if base_value else "     -"
    lat = f"{p50 or '-':>9} {p99 or '-':>9}"
    line = (f"{name:44} {value:12.1f} {unit:7} {ratio}  {lat}  "
            f"{(baseline or '-'):34} {base_value or 0:12.1f}  {note}")
    ROWS.append(line)
    print(line, flush=True)


def cpu_speeds(loops=3_000_000):
    """One line: the same scalar loop pinned to each CPU, best of three, as speeds relative
    to the fastest. Virtual CPUs need not be equal (docs/performance.md, "The two virtual
    CPUs are not equal"): a single-threaded figure, or a serial phase, depends on the one it
    ran on, and the line says how far apart they were in this run."""
    code = f"import time\nt = time.perf_counter()\nx = 0\nfor i in range({loops}): x += i * i\n" \
           "print(time.perf_counter() - t)"
    secs = {}
    for cpu in sorted(os.sched_getaffinity(0)):
        runs = [subprocess.run(["taskset", "-c", str(cpu), sys.executable, "-c", code],
                               capture_output=True, text=True, check=True).stdout for _ in range(3)]
        secs[cpu] = min(float(r) for r in runs)
    best = min(secs.values())
    return ", ".join(f"cpu{cpu} {best / t:.2f}" for cpu, t in secs.items()) + f" (fastest {best * 1e3:.0f} ms)"


# ---- load generators -------------------------------------------------------

def wrk(url, seconds, connections, script=None):
    """wrk --latency; returns (req/s, p50, p99, non-2xx, requests)."""
    argv = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency"]
    if script:
        argv += ["-s", script]
    out = subprocess.run(argv + [url], capture_output=True, text=True, timeout=seconds + 60).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"\s50%\s+(\S+)", out)
    p99 = re.search(r"\s99%\s+(\S+)", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not rate:
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    return (float(rate.group(1)), p50 and p50.group(1), p99 and p99.group(1), int(bad.group(1)) if bad else 0,
            int(total.group(1)) if total else 0)


def h2load(url, seconds, clients=16, streams=10):
    """h2load over h2c; returns (req/s, mean latency, failed, requests done)."""
    argv = ["h2load", "-D", str(seconds), "-c", str(clients), "-m", str(streams), "-t", "2"]
    out = subprocess.run(argv + [url], capture_output=True, text=True, timeout=seconds + 60).stdout
    rate = re.search(r"finished in [\d.]+s, ([\d.]+) req/s", out)
    mean = re.search(r"time for request:\s+\S+\s+\S+\s+(\S+)", out)
    reqs = re.search(r"(\d+) succeeded, (\d+) failed, (\d+) errored", out)
    codes = re.search(r"status codes: (\d+) 2xx", out)
    if not rate or not reqs:
        raise RuntimeError(f"cannot read h2load output:\n{out}")
    ok = int(codes.group(1)) if codes else 0
    return float(rate.group(1)), mean and mean.group(1), int(reqs.group(1)) - ok + int(reqs.group(2)), ok


class PgbenchTurns:
    """pgbench's single-row INSERTs in turns: one pgbench whose 16 clients connect once
    and are stopped (SIGSTOP) between turns, the rows of each turn counted in the table.
    Short pgbench runs one after another would each start 16 new backends: five runs of
    2 s read 6 - 19% fewer rows per second than one of 10 s on the same database, a bias
    against the baseline that turns of one run do not have."""

    def __init__(self, pg, dbname, seconds, clients=16, warmup=1.0):
        """seconds: the turns' sum; pgbench's own -T bounds it (stopped time counts) to that
        twice over plus a minute, so a bench that dies between turns leaves nothing running
        for long."""
        self.pg, self.dbname = pg, dbname
        pg.sql("CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, payload text NOT NULL)",
               dbname)
        self.dir = tempfile.mkdtemp(prefix="sr-bench-")
        script = os.path.join(self.dir, "insert.sql")
        with open(script, "w") as f:
            f.write("\\set r random(1, 1000000000)\nINSERT INTO bench_rows (payload) VALUES (:r);\n")
        self.first = self.rows()
        self.clients = clients
        argv = [os.path.join(pg.bindir, "pgbench"), "-n", "-c", str(clients), "-j", "2",
                "-T", str(int(warmup + 2 * seconds + 60)), "-f", script,
                "-h", "127.0.0.1", "-p", str(pg.port), "-U", "postgres", dbname]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(warmup)  # its clients connect and run, not counted: as wrk's first second
        self.stop()

    def rows(self):
        return int(self.pg.sql("SELECT coalesce(max(id), 0) FROM bench_rows", self.dbname)[0][0])

    def stop(self):
        self.proc.send_signal(signal.SIGSTOP)
        time.sleep(0.05)  # the transactions sent before the stop finish

    def turn(self, seconds):
        """One turn: (rows, seconds, PostgreSQL's CPU seconds)."""
        rows0 = self.rows()
        pg0, t0 = pg_cpu_seconds(self.pg), time.monotonic()
        self.proc.send_signal(signal.SIGCONT)
        time.sleep(seconds)
        t1 = time.monotonic()
        self.stop()
        pg_s = pg_cpu_since(self.pg, pg0)
        return self.rows() - rows0, t1 - t0, pg_s

    def end(self):
        """pgbench's own CPU seconds per row over its whole run (its first second too),
        read from /proc while it still runs: other children are reaped meanwhile."""
        used = cpu_seconds([self.proc.pid])
        self.close()
        return used / max(self.rows() - self.first, 1)

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


NEW_REGISTRATION_LUA = r'''
local n = 0
function setup(thread) n = n + 1; thread:set("tid", n) end
counter = 0
function request()
  counter = counter + 1
  local k = RUN .. tid .. "x" .. counter
  local body = [==[{"schema":"{\"type\":\"record\",\"name\":\"New]==] .. k ..
               [==[\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}"}]==]
  return wrk.format("POST", "/subjects/bench-new-" .. k .. "/versions",
                    {["Content-Type"] = "application/vnd.schemaregistry.v1+json"}, body)
end
'''


def cpu_seconds(pids):
    """User + system CPU time of the processes (all their threads) so far."""
    ticks = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """User + system CPU time of this script's children that have been waited for (the
    load generators run to their end with subprocess.run, so each counts once it exits)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cores_note(rate, us):
    """What the machine's cores allow at us of CPU per operation, and how busy rate kept them."""
    cores = len(os.sched_getaffinity(0))
    return f"the {cores} cores allow {cores * 1e6 / max(us, 1):.0f}/s, busy {rate * us / (cores * 1e4):.0f}%"


def with_cpu(pids, run):
    """run()'s result and the server's CPU microseconds per request it served.
    Throughput on 2 cores shared with the load generator (and whatever else
    runs) moves a lot between runs; CPU time per request moves much less."""
    before = cpu_seconds(pids)
    result = run()
    used = cpu_seconds(pids) - before
    return result, (used * 1e6 / result[-1] if result[-1] else 0)


# ---- baselines ---------------------------------------------------------------

class Nginx:
    """nginx-light serving one file for every path, with the registry's media type."""

    def __init__(self, body_path):
        self.dir = harness.make_temp_dir("nginx")
        self.port = harness.free_port()
        shutil.copy(body_path, os.path.join(self.dir, "body.json"))
        conf = os.path.join(self.dir, "nginx.conf")
        user = "user root;\n" if harness.IS_ROOT else ""
        with open(conf, "w") as f:
            f.write(f"""{user}worker_processes 2;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 100000000;
    client_body_temp_path {self.dir}; proxy_temp_path {self.dir}; fastcgi_temp_path {self.dir};
    uwsgi_temp_path {self.dir}; scgi_temp_path {self.dir};
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            default_type {SR_V1};
            root {self.dir};
            try_files /body.json =404;
        }}
    }}
}}
""")
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        harness.at_exit(self.stop)
        wait_port(self.port)

    def pids(self):
        """The master and its workers."""
        with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
            return [self.proc.pid] + [int(p) for p in f.read().split()]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            self.proc.wait(timeout=30)


class Constant:
    """bench-constant: the same libh2o build answering the same bytes."""

    def __init__(self, binary, body_path, threads):
        self.port = harness.free_port()
        self.proc = subprocess.Popen([binary, str(self.port), body_path, str(threads)])
        harness.at_exit(self.stop)
        wait_port(self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def wait_port(port, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with harness.socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


# ---- data ----------------------------------------------------------------------

def twelve_field_record():
    """A realistic value schema: 12 fields with docs, about 700 bytes."""
    fields = [("order_id", "long"), ("customer_id", "long"), ("created_at", "long"),
              ("status", "string"), ("currency", "string"), ("amount_cents", "long"),
              ("items", "int"), ("country", "string"), ("channel", "string"),
              ("coupon", "string"), ("notes", "string"), ("version", "int")]
    return json.dumps({"type": "record", "name": "Order", "namespace": "com.example.shop",
                       "doc": "An order as the shop service emits it",
                       "fields": [{"name": n, "type": t, "doc": f"the {n.replace('_', ' ')}"}
                                  for n, t in fields]}, separators=(",", ":"))


def register_many(server, first, end, subjects, workers=32):
    """Distinct schemas first..end-1, round robin over subjects; returns the highest id."""
    def part(indices):
        client, top = server.client(), 0
        for i in indices:
            schema = avro_record(f"Load{i}", [("id", "long")])
            r = client.post(f"/subjects/{quote(f'load-{i % subjects}')}/versions", {"schema": schema})
            if r.status != 200:
                raise RuntimeError(f"load registration failed: {r}")
            top = max(top, r.body["id"])
        return top
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return max(pool.map(part, [range(first + w, end, workers) for w in range(workers)]))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def start_timed(server, last_id):
    """Starts server; returns seconds until /schemas/ids/last_id answers 200."""
    server.port = harness.free_port()
    logf = open(server.log, "ab")
    t0 = time.monotonic()
    server.proc = subprocess.Popen(server._argv(), stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                   env=server._env(), cwd=server.dir)
    logf.close()
    harness.at_exit(server.kill)
    probe = server.client()
    while True:
        if server.proc.poll() is not None:
            raise RuntimeError(f"server died during start-up:\n{harness.tail(server.log)}")
        try:
            if probe.request("GET", f"/schemas/ids/{last_id}", timeout=2).status == 200:
                return time.monotonic() - t0
        except (OSError, harness.http.client.HTTPException):
            pass
        time.sleep(0.005)


# ---- compatibility at the extremes ---------------------------------------------

def wide(fmt, n, extra=0):
    """A schema with n fields (plus `extra` more) in one of the three formats."""
    total = n + extra
    if fmt == "AVRO":
        fields = [{"name": f"f{i}", "type": "long", "default": 0} for i in range(total)]
        return json.dumps({"type": "record", "name": "Wide", "fields": fields})
    if fmt == "PROTOBUF":
        body = "".join(f"  int64 f{i} = {i + 1};\n" for i in range(total))
        return f'syntax = "proto3";\nmessage Wide {{\n{body}}}\n'
    # JSON Schema: a new property in an open content model breaks BACKWARD
    # (Confluent's PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL), so versions differ by title.
    props = {f"f{i}": {"type": "integer"} for i in range(n)}
    return json.dumps({"type": "object", "title": f"v{extra}", "properties": props})


def median_ms(fn, times=5):
    samples = []
    for _ in range(times):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return sorted(samples)[len(samples) // 2]


def compat_extremes(server, fields, versions):
    client = server.client()
    for fmt in ("AVRO", "PROTOBUF", "JSON"):
        subject = f"wide-{fmt.lower()}"
        r = client.post(f"/subjects/{subject}/versions", {"schema": wide(fmt, fields), "schemaType": fmt})
        assert r.status == 200, r
        body = {"schema": wide(fmt, fields, extra=1), "schemaType": fmt}
        check = f"/compatibility/subjects/{subject}/versions/latest"
        ms = median_ms(lambda: client.post(check, body))
        verdict = client.post(check, body).body.get("is_compatible")
        row(f"compat {fmt:8} {fields}-field vs previous", ms, "ms", note=f"is_compatible={verdict}")

        subject = f"deep-{fmt.lower()}"
        client.put(f"/config/{subject}", {"compatibility": "NONE"})
        for v in range(versions):
            r = client.post(f"/subjects/{subject}/versions",
                            {"schema": wide(fmt, 1, extra=v), "schemaType": fmt})
            assert r.status == 200, r
        client.put(f"/config/{subject}", {"compatibility": "FULL_TRANSITIVE"})
        body = {"schema": wide(fmt, 1, extra=versions), "schemaType": fmt}
        check = f"/compatibility/subjects/{subject}/versions"
        ms = median_ms(lambda: client.post(check, body))
        verdict = client.post(check, body).body.get("is_compatible")
        row(f"compat {fmt:8} FULL_TRANSITIVE x{versions}", ms, "ms", note=f"is_compatible={verdict}")


def read_workloads(server, sid, by_id, latest, nginx, constant, S):
    """The three read rows, each registry run right before its baseline."""
    ours, theirs = [server.proc.pid], nginx.pids()
    (rate, p50, p99, bad, _), cpu = with_cpu(ours, lambda: wrk(f"{server.base_url}/schemas/ids/{sid}", S, 100))
    (brate, bp50, bp99, _, _), bcpu = with_cpu(
        theirs, lambda: wrk(f"http://127.0.0.1:{nginx.port}/schemas/ids/{sid}", S, 100))
    row("GET /schemas/ids/{id} HTTP/1.1 (wrk c100)", rate, "req/s", "nginx, same bytes from a file", brate,
        p50, p99, f"{len(by_id)} B body; nginx p50 {bp50} p99 {bp99}; CPU {cpu:.2f} us/req, nginx {bcpu:.2f}; "
        f"non-2xx {bad}")
    (rate, mean, bad, _), cpu = with_cpu(ours, lambda: h2load(f"{server.base_url}/schemas/ids/{sid}", S))
    (brate, bmean, _, _), bcpu = with_cpu(
        [constant.proc.pid], lambda: h2load(f"http://127.0.0.1:{constant.port}/schemas/ids/{sid}", S))
    row("GET /schemas/ids/{id} h2c (h2load 16x10)", rate, "req/s", "constant libh2o handler", brate,
        mean, None, f"mean; baseline mean {bmean}; CPU {cpu:.2f} us/req, constant {bcpu:.2f}; failed {bad}")
    (rate, mean, bad, _), cpu = with_cpu(
        ours, lambda: h2load(f"{server.base_url}/subjects/orders-value/versions/latest", S))
    row("GET .../versions/latest h2c (h2load 16x10)", rate, "req/s", "constant libh2o handler", brate,
        mean, None, f"{len(latest)} B body; CPU {cpu:.2f} us/req; failed {bad}")


# ---- main --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build-release", "schema-registry"))
    ap.add_argument("--constant", default=os.path.join(HERE, "..", "build-release", "bench-constant"))
    ap.add_argument("--decode", default=os.path.join(HERE, "..", "build-release", "bench-decode"))
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--db-threads", type=int, default=0,
                    help="the server's db.threads for the read and write workloads (0: its default)")
    ap.add_argument("--only", default="reads,writes,startup,compat,decode",
                    help="comma-separated sections to run (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="run the read and write rows this many times")
    ap.add_argument("--against", metavar="BINARY",
                    help="another build of the server: only the write row runs, for each build in "
                         "turn, --repeat rounds, each on a new database; a last line per build "
                         "gives its mean ratio")
    args = ap.parse_args()
    only = set(args.only.split(","))
    os.environ["SR_BINARY"] = os.path.abspath(args.binary)
    scale = 10 if args.quick else 1
    S = args.seconds

    print(f"CPU speeds at the start (a scalar loop pinned to each CPU): {cpu_speeds()}", flush=True)
    pg = harness.Postgres(durable=True).start()
    print(f"{'workload':44} {'value':>12} {'unit':7} {'ratio'}  {'p50':>9} {'p99':>9}  "
          f"{'baseline':34} {'baseline':>12}  note")

    if args.against:
        writes_against(pg, args, S)
        only = set()
    if "reads" in only or "writes" in only:
        reads_and_writes(pg, args, S, only)
    if "startup" in only:
        startup(pg, args, scale)
    if "compat" in only:
        compat(pg, args, scale)
    if "decode" in only:
        decode(args.decode, 200000 // scale)
    print(f"CPU speeds at the end: {cpu_speeds()}", flush=True)


def writes_against(pg, args, S):
    """The write row of two builds in alternation, each round on new databases: an A/B
    whose rounds meet the same machine (docs/performance.md, "How to run it")."""
    builds = {"binary": os.path.abspath(args.binary), "against": os.path.abspath(args.against)}
    extra = ["--db-threads", str(args.db_threads)] if args.db_threads else []
    ratios = {name: [] for name in builds}
    for _ in range(args.repeat):
        for name, path in builds.items():
            db = pg.new_database("ab")
            server = harness.Server(database_url=db.url, name="ab", threads=args.threads, binary=path,
                                    args=extra).start()
            ratios[name].append(writes(pg, db, server, S, label=name))
            server.stop()
    for name, got in ratios.items():
        print(f"{name} ({builds[name]}): ratio mean {sum(got) / len(got):.3f}, "
              f"min {min(got):.3f}, max {max(got):.3f} over {len(got)} rounds", flush=True)


def reads_and_writes(pg, args, S, only):
    """Reads: one registered 12-field record, served from memory; writes: new subjects."""
    db = pg.new_database("reads")
    extra = ["--db-threads", str(args.db_threads)] if args.db_threads else []
    server = harness.Server(database_url=db.url, name="bench", threads=args.threads, args=extra).start()
    client = server.client()
    sid = client.post("/subjects/orders-value/versions", {"schema": twelve_field_record()}).body["id"]
    by_id = client.get(f"/schemas/ids/{sid}").text
    body_path = os.path.join(server.dir, "by-id.json")
    with open(body_path, "w") as f:
        f.write(by_id)
    latest = client.get("/subjects/orders-value/versions/latest").text
    if "reads" in only:
        nginx, constant = Nginx(body_path), Constant(args.constant, body_path, args.threads)
        for _ in range(args.repeat):
            read_workloads(server, sid, by_id, latest, nginx, constant, S)
        nginx.stop()
        constant.stop()
    if "writes" in only:
        for _ in range(args.repeat):
            writes(pg, db, server, S)
    server.stop()


def pg_cpu_seconds(pg):
    """CPU time of the cluster so far: the postmaster, its live children (backends,
    walwriter, checkpointer), and the children it has reaped (pgbench's backends
    exit before the run ends), from /proc/PID/stat."""
    with open(os.path.join(pg.data, "postmaster.pid")) as f:
        pid = int(f.readline())
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime
    live = []
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        live = [int(p) for p in f.read().split()]
    alive = []
    for p in live:
        try:
            alive.append((p, cpu_seconds([p])))
        except OSError:
            pass  # exited since: in cutime next time
    return cpu_seconds([pid]) + reaped, dict(alive)


def pg_cpu_since(pg, before):
    """Seconds of cluster CPU since before (a pg_cpu_seconds result)."""
    (own0, kids0), (own1, kids1) = before, pg_cpu_seconds(pg)
    # A child alive at both points counts by difference; one that exited in
    # between is in cutime (own1) whole, so only its part before is subtracted.
    return own1 - own0 + sum(t - kids0.get(p, 0) for p, t in kids1.items()) - \
        sum(t for p, t in kids0.items() if p not in kids1)


def group_counters(server):
    """(group commits, registrations in them) from /metrics."""
    text, found = server.client().get("/metrics").text, {}
    for name in ("schema_registry_group_commits_total", "schema_registry_group_registrations_total"):
        m = re.search(rf"^{name} (\S+)$", text, re.M)
        found[name] = float(m.group(1)) if m else 0
    return found["schema_registry_group_commits_total"], found["schema_registry_group_registrations_total"]


def writes(pg, db, server, S, label=None):
    """New subject + new schema per request, against single-row INSERTs. Next to the
    rates, the CPU time per registration (the registry process, and PostgreSQL) and
    per insert: rates follow whatever else has the cores, CPU per operation much less.
    The two loads take turns in slices of about two seconds, S seconds each in all: the
    machine's speed changes within seconds (docs/performance.md, "The two virtual CPUs are
    not equal, nor constant"), and turns give both sides the same mix of it."""
    writes.runs = getattr(writes, "runs", 0) + 1
    slices = max(1, S // 2)
    took = [S // slices + (1 if i < S % slices else 0) for i in range(slices)]
    scripts = []
    for phase in ["w"] + [f"r{i}" for i in range(slices)]:
        scripts.append(os.path.join(server.dir, f"new{writes.runs}{phase}.lua"))
        with open(scripts[-1], "w") as f:
            # Each run and each turn its own names (wrk's counters start again with every
            # run): a repeat must register new subjects, not find old ones.
            f.write(f'local RUN = "{phase}_{writes.runs}x"\n' + NEW_REGISTRATION_LUA)
    # One second of the same load first, not measured: the first registrations open the
    # group connection and plan the group statement on it and on each worker's connection
    # (a few hundred milliseconds of wrk's first requests, which made the p99 a start-up
    # figure; pgbench's tps leaves its connections' start out too).
    wrk(f"{server.base_url}", 1, 16, script=scripts[0])
    w = {"done": 0, "secs": 0.0, "bad": 0, "pg": 0.0, "sr": 0.0, "wrk": 0.0, "p50": [], "p99": []}
    b = {"rows": 0, "secs": 0.0, "pg": 0.0}
    commits0, items0 = group_counters(server)
    inserts = PgbenchTurns(pg, db.name, S)
    try:
        for secs, script in zip(took, scripts[1:]):
            registration_turn(pg, server, secs, script, w)
            rows, took_s, pg_s = inserts.turn(secs)
            b["rows"] += rows
            b["secs"] += took_s
            b["pg"] += pg_s
        client_us = inserts.end() * 1e6
    finally:
        inserts.close()
    commits1, items1 = group_counters(server)
    group = (items1 - items0) / (commits1 - commits0) if commits1 > commits0 else 0
    done, rate, tps = w["done"], w["done"] / max(w["secs"], 1e-9), b["rows"] / max(b["secs"], 1e-9)
    wrk_us, sr_us, pg_us = (w[k] * 1e6 / max(done, 1) for k in ("wrk", "sr", "pg"))
    ins_us = b["pg"] * 1e6 / max(b["rows"], 1)
    # All three parties share the cores, so the CPU of each operation, all parties counted,
    # bounds its rate whatever the overlap (docs/performance.md, "what two shared cores allow").
    reg_all, ins_all = pg_us + sr_us + wrk_us, ins_us + client_us
    name = "POST new registration (wrk c16)" + (f" [{label}]" if label else "")
    row(name, rate, "req/s", "pgbench c16 single-row INSERT", tps,
        median_text(w["p50"]), max_latency(w["p99"]),
        f"{slices} turns; p50 the turns' median, p99 the worst turn's; pgbench mean {inserts.clients * 1e3 / max(tps, 1):.3f}ms "
        f"({inserts.clients} clients over its rate); "
        f"non-2xx {w['bad']}; CPU/registration: PostgreSQL {pg_us:.0f} us, "
        f"registry {sr_us:.0f} us, wrk {wrk_us:.0f} us (all {reg_all:.0f} us: {cores_note(rate, reg_all)}); "
        f"PostgreSQL CPU/insert {ins_us:.0f} us, pgbench {client_us:.0f} us (all {ins_all:.0f} us: "
        f"{cores_note(tps, ins_all)}); mean group {group:.1f}")
    return rate / max(tps, 1e-9)


def registration_turn(pg, server, secs, script, w):
    """One turn of wrk's new registrations, added into w (writes' sums)."""
    pg0, sr0, wrk0 = pg_cpu_seconds(pg), cpu_seconds([server.proc.pid]), children_cpu_seconds()
    rate, p50, p99, bad, done = wrk(f"{server.base_url}", secs, 16, script=script)
    w["wrk"] += children_cpu_seconds() - wrk0
    w["sr"] += cpu_seconds([server.proc.pid]) - sr0
    w["pg"] += pg_cpu_since(pg, pg0)
    w["done"] += done
    w["secs"] += done / max(rate, 1e-9)
    w["bad"] += bad
    w["p50"].append(p50)
    w["p99"].append(p99)


def latency_ms(text):
    """wrk's latency text ("812.00us", "2.93ms", "1.2s") in ms."""
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text or "")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)] if m else None


def median_text(texts):
    """The median of latency texts, as the text it came from."""
    known = sorted((t for t in texts if latency_ms(t) is not None), key=latency_ms)
    return known[(len(known) - 1) // 2] if known else None


def max_latency(texts):
    known = [t for t in texts if latency_ms(t) is not None]
    return max(known, key=latency_ms) if known else None


def read_all(server, first, end, workers=32):
    """GET /schemas/ids/{id} once for every id first..end-1 (each body prepared once)."""
    def part(ids):
        client = server.client()
        for i in ids:
            client.get(f"/schemas/ids/{i}")  # a gap in the ids is a 404, and costs nothing
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(part, [range(first + w, end, workers) for w in range(workers)]))


def startup(pg, args, scale):
    """Time from process start to the last id served, and memory per schema."""
    db = pg.new_database("startup")
    # Loading is not what is measured here; commits need not wait for the disk.
    pg.sql(f'ALTER DATABASE "{db.name}" SET synchronous_commit = off')
    server = harness.Server(database_url=db.url, name="startup", threads=args.threads).start()
    empty_kib = rss_kib(server.proc.pid)
    server.client().put("/config", {"compatibility": "NONE"})
    loaded = 0
    for count in (10000 // scale, 100000 // scale):
        last = register_many(server, loaded, count, count // 10)
        loaded = count
        server.stop()
        seconds = start_timed(server, last)
        per_schema = (rss_kib(server.proc.pid) - empty_kib) * 1024 / count
        read_all(server, 1, last + 1)
        served = (rss_kib(server.proc.pid) - empty_kib) * 1024 / count
        client = server.client()
        scrape = median_ms(lambda: client.get("/metrics"))
        row(f"start-up, {count} schemas / {count // 10} subjects", seconds, "s", note=
            f"RSS {per_schema:.0f} B per schema above an empty registry ({empty_kib} KiB); "
            f"{served:.0f} B once every id was read; GET /metrics {scrape:.2f} ms")
    server.stop()


def compat(pg, args, scale):
    """Compatibility checks at the extremes."""
    db = pg.new_database("compat")
    pg.sql(f'ALTER DATABASE "{db.name}" SET synchronous_commit = off')
    server = harness.Server(database_url=db.url, name="compat", threads=args.threads,
                            args=["--max-schema-bytes", str(8 << 20)]).start()
    compat_extremes(server, 10000 // scale, 1000 // scale)
    server.stop()


def decode(binary, records):
    """bench-decode's two rows (best of five passes each, its own figures) as table rows."""
    r = subprocess.run([binary, str(records)], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(f"bench-decode failed ({r.returncode}): {r.stderr.strip()}", flush=True)
        return
    lines = r.stdout.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(writer schema|projection \(drop\))\s+([\d.]+) rec/s\s+([\d.]+) rec/s\s+([\d.]+) rec/s", line)
        if not m:
            continue
        mbs = re.findall(r"([\d.]+) MB/s", lines[i + 1]) if i + 1 < len(lines) else []
        ours, avroc, avroc_json = (float(m.group(k)) for k in (2, 3, 4))
        note = f"{mbs[0]} MB/s; avro-c to JSON {avroc_json:.0f} rec/s" if mbs else ""
        row(f"Avro decode to JSON rows, {m.group(1)}", ours, "rec/s", "avro-c avro_value_read", avroc,
            note=note)


if __name__ == "__main__":
    try:
        main()
    finally:
        harness.cleanup()

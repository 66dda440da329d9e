"""HTTP/2 and HTTP/1.1 abuse (issue 14; docs/security.md section 8).

- Rapid reset (CVE-2023-44487): a connection that resets more requests than
  max.connection.resets beyond the replies it read is closed by the server,
  while a client on another connection keeps getting 200; a client that
  cancels now and then is not.
- HPACK bomb: a request that names one 3000-byte table entry thousands of
  times is refused and its connection closed (max.request.headers).
- CONTINUATION flood: h2o refuses a header block past its request limit and
  closes the connection; the server's memory stays bounded.
- SETTINGS and PING floods whose ACKs are never read: h2o stops reading the
  connection (Debian's backport of the 2019 fixes), so the flooder stalls,
  memory stays bounded and another client keeps getting 200.
- Slowloris on HTTP/1.1: a request dripped a byte at a time is closed after
  http1.request.timeout.ms.
After each, the server still serves and exits cleanly.
Frames are written raw with python3-hyperframe and hpack; every loop is
bounded in count and time.
"""

import re
import socket
import threading
import time

import harness
from harness import avro_record

try:
    import hpack
    from hyperframe.frame import (ContinuationFrame, Frame, HeadersFrame, PingFrame, RstStreamFrame,
                                  SettingsFrame)
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"python3-h2 (hyperframe, hpack) is not importable ({exc}); run scripts/install-deps.sh")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def rss_bound_mb(pid, mb):
    """An RSS growth bound of mb, four times it when the server is a sanitizer build, where RSS
    overstates the registry's own memory: ThreadSanitizer's shadow memory grows with what the
    process touches, several times as much (its documentation gives 5-10x for a whole process),
    and AddressSanitizer keeps freed memory in a quarantine (256 MB by default) before reuse, so
    RSS follows what was allocated and freed, not only what is held. (Measured: the PING flood
    grows the plain build by about 1 MB, the TSan build by 68 - 116; the SETTINGS flood the
    plain build by 16, the ASan build by 53.)"""
    with open(f"/proc/{pid}/maps") as f:
        maps = f.read()
    return mb * 4 if "/libtsan" in maps or "/libasan" in maps else mb


class RawH2:
    """One h2c connection written frame by frame; read() parses what comes back."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(PREFACE + SettingsFrame(0).serialize())
        self.enc = hpack.Encoder()
        self.dec = hpack.Decoder()
        self.buf = b""
        self.statuses = {}                      # stream id -> :status
        self.goaway = None
        self.next_sid = 1

    def block(self, path, method="GET", extra=()):
        return self.enc.encode([(":method", method), (":scheme", "http"), (":authority", "localhost"),
                                (":path", path)] + list(extra))

    def get(self, path, reset=False, send=True):
        sid, self.next_sid = self.next_sid, self.next_sid + 2
        data = HeadersFrame(sid, self.block(path), flags=["END_HEADERS", "END_STREAM"]).serialize()
        if reset:
            data += RstStreamFrame(sid, error_code=8).serialize()
        if send:
            self.sock.sendall(data)
        return sid, data

    def read(self, seconds):
        """Reads for up to seconds; returns False once the server closed the connection."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                return True
            except ConnectionResetError:
                return False
            if not data:
                return False
            self.buf += data
            while len(self.buf) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(self.buf[:9]))
                if len(self.buf) < 9 + length:
                    break
                frame.parse_body(memoryview(self.buf[9:9 + length]))
                self.buf = self.buf[9 + length:]
                if frame.type == 0x01:          # HEADERS: decode to keep the HPACK table in step
                    headers = dict(self.dec.decode(frame.data))
                    if ":status" in headers:
                        self.statuses[frame.stream_id] = int(headers[":status"])
                elif frame.type == 0x07:        # GOAWAY
                    self.goaway = frame.error_code
        return True

    def closed_within(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.read(0.2):
                return True
        return False

    def close(self):
        self.sock.close()


class Reader(threading.Thread):
    """A well-behaved HTTP/1.1 client reading by id until stopped; keeps the statuses."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server, self.statuses, self.stopped = server, [], threading.Event()

    def run(self):
        client = self.server.client()
        while not self.stopped.is_set() and len(self.statuses) < 5000:
            self.statuses.append(client.get("/schemas/ids/1", timeout=10).status)
            time.sleep(0.005)

    def finish(self):
        self.stopped.set()
        self.join(timeout=30)
        return self.statuses


class AbuseCase(harness.unittest.TestCase):
    server_args = []

    def setUp(self):
        self.db = harness.cluster().new_database("abuse")
        self.server = harness.Server(database_url=self.db.url, name="abuse", threads=1,
                                     args=self.server_args).start()
        self.addCleanup(self.server.kill)
        r = self.server.client().post("/subjects/seed/versions",
                                      {"schema": avro_record("Seed", [("a", "string")])})
        self.assertEqual(r.status, 200, r)

    def assert_still_serves(self):
        self.server.assert_running()
        self.assertEqual(self.server.client().get("/schemas/ids/1").status, 200)
        h2 = RawH2(self.server.port)
        sid, _ = h2.get("/schemas/ids/1")
        h2.read(2)
        self.assertEqual(h2.statuses.get(sid), 200)
        h2.close()
        self.server.stop()                      # exit status 0: no crash, no sanitizer report


class RapidReset(AbuseCase):

    def test_reset_flood_is_closed_and_others_are_served(self):
        reader = Reader(self.server)
        reader.start()
        h2 = RawH2(self.server.port)
        # 300 requests each reset at once, well past the budget of 100, in batches of 50.
        sent = 0
        try:
            for _ in range(6):
                h2.sock.sendall(b"".join(h2.get("/schemas/ids/1", reset=True, send=False)[1] for _ in range(50)))
                sent += 50
                h2.read(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass                                # closed while we were still writing: what we want
        closed = h2.closed_within(3)            # well before h2o's 10 s idle timeout
        statuses = reader.finish()
        h2.close()
        self.assertTrue(closed, f"the server kept a connection open after {sent} resets")
        self.assertGreater(len(statuses), 0)
        self.assertEqual(set(statuses), {200}, "the other client must keep getting 200")
        self.assertTrue(re.search(r"WARN http: closing a connection from 127\.0\.0\.1: \d+ of its \d+ requests went away "
                                  r"before their reply \(max\.connection\.resets 100\)", self.server.log_text()),
                        "no 'closing a connection' line in the server's log")
        self.assert_still_serves()

    def test_occasional_cancels_are_not_closed(self):
        # 300 requests, one in three reset: the replies read refill the budget.
        h2 = RawH2(self.server.port)
        sids = []
        for i in range(300):
            sid, _ = h2.get("/schemas/ids/1", reset=(i % 3 == 0))
            if i % 3:
                sids.append(sid)
            self.assertTrue(h2.read(0.01 if i % 3 else 0), "the server closed a well-behaved connection")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(s in h2.statuses for s in sids):
            self.assertTrue(h2.read(0.2), "the server closed a well-behaved connection")
        self.assertEqual({h2.statuses.get(s) for s in sids}, {200})
        h2.close()
        self.assertNotIn("closing a connection", self.server.log_text())
        self.assert_still_serves()


class HeaderBombs(AbuseCase):

    def test_hpack_bomb_is_refused_and_closed(self):
        h2 = RawH2(self.server.port)
        before = rss_mb(self.server.proc.pid)
        # x-bomb enters the HPACK table (index 62); the next request names it 16,000 times.
        sid1 = 1
        h2.sock.sendall(HeadersFrame(sid1, h2.block("/schemas/ids/1", extra=[("x-bomb", "b" * 3000)]),
                                     flags=["END_HEADERS", "END_STREAM"]).serialize())
        h2.read(1)
        self.assertEqual(h2.statuses.get(sid1), 200)   # 2 headers: within the limits
        bomb = h2.block("/schemas/ids/1")
        self.assertEqual(h2.enc.header_table.dynamic_entries[0][0], b"x-bomb")  # the newest: index 62
        bomb += b"\xbe" * 16000
        h2.sock.sendall(HeadersFrame(3, bomb, flags=["END_HEADERS", "END_STREAM"]).serialize())
        self.assertTrue(h2.closed_within(3), "a 16,000-header request did not close its connection")
        self.assertNotEqual(h2.statuses.get(3), 200)
        self.assertTrue(re.search(r"WARN http: closing a connection from 127\.0\.0\.1: a request with 160\d\d header "
                                  r"fields of \d+ bytes \(max\.request\.headers 100, max\.request\.header\.bytes 65536\)",
                                  self.server.log_text()), "no 'closing a connection' line in the server's log")
        # The warning names the request's id, as the request's own line does (docs/operations.md section 5).
        rid = re.search(r"WARN http: closing a connection from .* header fields .* rid=([0-9a-f]{32})\n",
                        self.server.log_text())
        self.assertIsNotNone(rid, self.server.log_text()[-2000:])
        # Request lines are written once per turn of the loop, warnings at once: wait (bounded).
        line = r"GET /schemas/ids/1 431 \d+us .* rid=" + rid.group(1) + "\n"
        deadline = time.monotonic() + 10
        while not re.search(line, self.server.log_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertRegex(self.server.log_text(), line)
        h2.close()
        self.assertLess(rss_mb(self.server.proc.pid) - before, rss_bound_mb(self.server.proc.pid, 200))
        self.assert_still_serves()

    def test_continuation_flood_is_closed_and_memory_bounded(self):
        pid = self.server.proc.pid
        before = rss_mb(pid)
        chunk = ContinuationFrame(1, b"\xbe" * 16384).serialize()
        for _ in range(20):                     # 20 connections, each ~1 MB of CONTINUATION offered
            h2 = RawH2(self.server.port)
            try:
                h2.sock.sendall(HeadersFrame(1, h2.block("/schemas/ids/1"), flags=["END_STREAM"]).serialize())
                for _ in range(64):
                    h2.sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.assertTrue(h2.closed_within(3), "an endless header block did not close its connection")
            h2.close()
        grown = rss_mb(pid) - before
        self.assertLess(grown, rss_bound_mb(pid, 64), f"RSS grew {grown:.0f} MB over 20 CONTINUATION floods")
        self.assert_still_serves()


class ControlFloods(AbuseCase):

    def flood(self, frame):
        """Sends frame up to four million times without reading a byte back; returns
        how many went out before the server stopped reading (None: it never did)."""
        h2 = RawH2(self.server.port)
        self.addCleanup(h2.close)
        batch, sent = frame * 1000, 0
        h2.sock.settimeout(5)                   # no progress for 5 s: the server reads no more
        try:
            while sent < 4000000:
                h2.sock.sendall(batch)
                sent += 1000
        except socket.timeout:
            return sent
        return None

    def test_settings_and_ping_floods_stall_with_memory_bounded(self):
        pid = self.server.proc.pid
        before = rss_mb(pid)
        reader = Reader(self.server)
        reader.start()
        for name, frame in (("PING", PingFrame(0, opaque_data=b"flooding").serialize()),
                            ("SETTINGS", SettingsFrame(0, settings={SettingsFrame.MAX_CONCURRENT_STREAMS: 100})
                             .serialize())):
            with self.subTest(frame=name):
                sent = self.flood(frame)
                self.assertIsNotNone(sent, f"{name}: the server read four million frames with no ACK read")
                grown = rss_mb(pid) - before
                self.assertLess(grown, rss_bound_mb(pid, 64), f"{name}: RSS grew {grown:.0f} MB")
        served = len(reader.statuses)
        deadline = time.monotonic() + 30
        while len(reader.statuses) < served + 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        statuses = reader.finish()
        self.assertGreaterEqual(len(statuses), served + 10)   # served while both floods stall, open
        self.assertEqual(set(statuses), {200})
        self.assert_still_serves()


class Slowloris(AbuseCase):
    server_args = ["--http1-request-timeout-ms", "1500"]

    def test_dripped_request_is_closed_after_the_timeout(self):
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        s.sendall(b"GET /schemas/ids/1 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        started, closed_at = time.monotonic(), None
        while time.monotonic() - started < 8:
            try:
                s.sendall(b"a")
                s.settimeout(0.3)
                if s.recv(100) == b"":
                    closed_at = time.monotonic() - started
                    break
            except socket.timeout:
                pass
            except (BrokenPipeError, ConnectionResetError):
                closed_at = time.monotonic() - started
                break
        s.close()
        self.assertIsNotNone(closed_at, "a request dripped for 8 s was not closed")
        self.assertGreater(closed_at, 1.0)
        self.assertLess(closed_at, 4.0)
        self.assert_still_serves()

    def test_limit_keys_are_validated(self):
        for flag, value, message in (
                ("--http1-request-timeout-ms", "0", "http1.request.timeout.ms and http2.idle.timeout.ms: at least 100"),
                ("--http2-idle-timeout-ms", "99", "http1.request.timeout.ms and http2.idle.timeout.ms: at least 100"),
                ("--http2-max-concurrent-requests", "101", "http2.max.concurrent.requests: at most 100"),
                ("--max-connection-resets", "-1", "--max-connection-resets: invalid value '-1'"),
                ("--max-request-header-bytes", "0", "--max-request-header-bytes: invalid value '0'")):
            run = harness.subprocess.run([harness.server_binary(), "serve", flag, value],
                                         capture_output=True, text=True, timeout=30)
            self.assertEqual(run.returncode, 2, (flag, run.stderr))   # a configuration error
            self.assertIn(message, run.stderr)
        self.server.stop()


if __name__ == "__main__":
    harness.main()

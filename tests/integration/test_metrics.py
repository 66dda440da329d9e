"""GET /metrics (docs/operations.md "Metrics"): Prometheus text exposition
format 0.0.4, scraped and parsed line by line.

- Every line is held to the format by a strict checker of our own (the
  format's grammar: HELP and TYPE once per family and before its samples,
  names, label syntax and escapes, numbers, one family's samples together,
  no series twice, histogram buckets ascending and cumulative with +Inf last
  and _count equal to it, counters named _total) and then parsed with
  Debian's python3-prometheus-client (prometheus_client.parser), which must
  read the same samples.
- Values move exactly: registrations by outcome and refusal reason,
  compatibility checks by type, level and outcome, requests by route
  template (the pattern of server/routes.c, never the raw path), method and
  status, histogram counts, the pool's jobs.
- Gauges equal the database: schemas, subjects and versions by what the
  tables hold; the change feed catches up with the log's last sequence number,
  and while it cannot apply another node's changes it is exactly that many
  sequence numbers and a growing number of seconds behind.
- With one database worker: a registration held by a table lock is the busy
  worker and the next one the waiting job; a cut connection that the store
  resets counts one reconnect; a database refusing connections counts
  connection errors.
- With authentication on: 401 without credentials; 403 for a principal
  without admin on /metrics; 200 for one with it.
Confluent's registry has no such endpoint (it exports JMX); names follow
Prometheus's conventions (prometheus.io/docs/practices/naming).
"""

import json
import math
import os
import re
import socket
import subprocess
import threading
import time
import unittest

from prometheus_client.parser import text_string_to_metric_families

import harness
from harness import avro_record, quote
from test_auth_basic import basic, make_users

MEDIA = "text/plain; version=0.0.4; charset=utf-8"
# What Prometheus 2.x sends when it scrapes.
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                     "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

FAMILIES = {
    "schema_registry_http_requests_total": "counter",
    "schema_registry_http_request_duration_seconds": "histogram",
    "schema_registry_http_connections": "gauge",
    "schema_registry_http_thread_connections": "gauge",
    "schema_registry_db_pool_workers": "gauge",
    "schema_registry_db_pool_connected_workers": "gauge",
    "schema_registry_db_pool_busy_workers": "gauge",
    "schema_registry_db_pool_waiting_jobs": "gauge",
    "schema_registry_db_pool_jobs_total": "counter",
    "schema_registry_db_pool_connect_errors_total": "counter",
    "schema_registry_db_pool_reconnects_total": "counter",
    "schema_registry_registrations_total": "counter",
    "schema_registry_registrations_refused_total": "counter",
    "schema_registry_compatibility_checks_total": "counter",
    "schema_registry_schemas": "gauge",
    "schema_registry_subjects": "gauge",
    "schema_registry_versions": "gauge",
    "schema_registry_index_memory_bytes": "gauge",
    "schema_registry_group_commits_total": "counter",
    "schema_registry_group_registrations_total": "counter",
    "schema_registry_group_declined_total": "counter",
    "schema_registry_group_connection_up": "gauge",
    "schema_registry_group_connection_reconnects_total": "counter",
    "schema_registry_change_feed_running": "gauge",
    "schema_registry_change_feed_connected": "gauge",
    "schema_registry_change_feed_applied_sequence": "gauge",
    "schema_registry_change_feed_lag_changes": "gauge",
    "schema_registry_change_feed_lag_seconds": "gauge",
    "schema_registry_change_feed_last_poll_timestamp_seconds": "gauge",
    "schema_registry_change_feed_polls_total": "counter",
    "schema_registry_build_info": "gauge",
    "process_start_time_seconds": "gauge",
    "process_cpu_seconds_total": "counter",
    "process_resident_memory_bytes": "gauge",
    "process_open_fds": "gauge",
    "process_max_fds": "gauge",
}

# ---- The strict checker ----------------------------------------------------------

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
# Go's strconv.ParseFloat as the format allows it, and the three specials.
VALUE = r"(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)"
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?\}})? ({VALUE})(?: (-?\d+))?$")
HELP = re.compile(rf"^# HELP ({NAME}) ((?:[^\\\n]|\\[\\n])*)$")
TYPE = re.compile(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$")
LABEL_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')


def unescape(v):
    return re.sub(r'\\([\\"n])', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def strict_parse(test, text):
    """{(sample name, sorted label items): value}, failing the test on any
    line the 0.0.4 format does not allow or any family rule broken."""
    test.assertTrue(text.endswith("\n"), "the text ends with a line feed")
    samples, helps, types, done, sampled = {}, {}, {}, set(), set()
    current = None                      # the family whose samples may follow
    order = []
    for n, line in enumerate(text[:-1].split("\n"), 1):
        where = f"line {n}: {line!r}"
        test.assertNotEqual(line, "", f"{where}: no blank lines")
        if line.startswith("#"):
            m = HELP.match(line) or TYPE.match(line)
            test.assertIsNotNone(m, f"{where}: a comment is HELP or TYPE")
            name = m.group(1)
            test.assertNotIn(name, done, f"{where}: a family's lines are together")
            table = helps if line.startswith("# HELP") else types
            test.assertNotIn(name, table, f"{where}: once per family")
            test.assertNotIn(name, sampled, f"{where}: HELP and TYPE before the family's samples")
            table[name] = m.group(2)
            if current is not None and current != name:
                done.add(current)
            current = name
            if name not in order:
                order.append(name)
            continue
        m = SAMPLE.match(line)
        test.assertIsNotNone(m, f"{where}: a sample line")
        name, labels_text, value, timestamp = m.groups()
        test.assertIsNone(timestamp, f"{where}: no timestamps")
        test.assertIsNotNone(current, f"{where}: a sample after its TYPE")
        test.assertIn(current, types, f"{where}: TYPE before samples")
        kind = types[current]
        allowed = {current} if kind in ("counter", "gauge") else \
            {current + "_bucket", current + "_sum", current + "_count"}
        test.assertIn(name, allowed, f"{where}: a sample of family {current} ({kind})")
        labels = []
        if labels_text:
            labels = [(k, unescape(v)) for k, v in LABEL_PAIR.findall(labels_text)]
            names = [k for k, _ in labels]
            test.assertEqual(len(names), len(set(names)), f"{where}: a label once")
            test.assertFalse(any(k.startswith("__") for k in names), f"{where}: no reserved label")
        key = (name, tuple(sorted(labels)))
        sampled.add(current)
        test.assertNotIn(key, samples, f"{where}: a series once")
        samples[key] = float(value)
    if current is not None:
        done.add(current)
    for name, kind in types.items():
        test.assertIn(name, helps, f"{name}: HELP and TYPE")
        if kind == "counter":
            test.assertTrue(name.endswith("_total"), f"{name}: a counter's name ends in _total")
        test.assertTrue(name.startswith(("schema_registry_", "process_")), name)
    for name in helps:
        test.assertIn(name, types, f"{name}: HELP and TYPE")
    for (name, labels), v in samples.items():
        test.assertFalse(math.isnan(v), name)
        if types.get(name) == "counter" or name.endswith(("_bucket", "_count")):
            test.assertGreaterEqual(v, 0, name)
    check_histograms(test, samples, types)
    return samples, types


def check_histograms(test, samples, types):
    for family, kind in types.items():
        if kind != "histogram":
            continue
        series = {}
        for (name, labels), v in samples.items():
            if name == family + "_bucket":
                d = dict(labels)
                le = d.pop("le")
                series.setdefault(tuple(sorted(d.items())), []).append((float(le), v))
        for key, buckets in series.items():
            where = f"{family}{dict(key)}"
            test.assertEqual(buckets, sorted(buckets), f"{where}: buckets in ascending le order")
            test.assertEqual(buckets[-1][0], math.inf, f"{where}: +Inf last")
            counts = [v for _, v in buckets]
            test.assertEqual(counts, sorted(counts), f"{where}: cumulative")
            test.assertEqual(samples[(family + "_count", key)], counts[-1], f"{where}: _count = +Inf")
            test.assertIn((family + "_sum", key), samples, f"{where}: _sum")
        for (name, labels) in samples:
            if name in (family + "_sum", family + "_count"):
                test.assertIn(labels, series, f"{name}{dict(labels)} has buckets")


def client_parse(text):
    """The same text through prometheus_client: {(sample name, labels): value}."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def route_patterns():
    with open(os.path.join(ROOT, "server", "routes.c"), encoding="utf-8") as f:
        return set(re.findall(r'ROUTE\(\s*"([^"]+)"', f.read())) | {"unmatched"}


class Scrapes:
    """Mixin: scrape, parse strictly and with prometheus_client, and read values."""

    def scrape(self, client=None):
        r = (client or self.http).get("/metrics", headers={"Accept": PROMETHEUS_ACCEPT})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.headers.get("Content-Type"), MEDIA)
        samples, types = strict_parse(self, r.text)
        self.assertEqual(client_parse(r.text), samples, "prometheus_client reads the same samples")
        return Scrape(samples, types)


class Scrape:
    def __init__(self, samples, types):
        self.samples, self.types = samples, types

    def value(self, name, **labels):
        """The sample's value; 0 for a series not shown yet (they appear when first counted)."""
        return self.samples.get((name, tuple(sorted(labels.items()))), 0.0)

    def total(self, name, **labels):
        """The sum over every series of name whose labels include these."""
        want = set(labels.items())
        return sum(v for (n, ls), v in self.samples.items() if n == name and want <= set(ls))

    def series(self, name):
        return [dict(ls) for (n, ls) in self.samples if n == name]


def delta(after, before, name, **labels):
    return after.value(name, **labels) - before.value(name, **labels)


REQ = "schema_registry_http_requests_total"
DUR = "schema_registry_http_request_duration_seconds"
REG = "schema_registry_registrations_total"
REFUSED = "schema_registry_registrations_refused_total"
CHECKS = "schema_registry_compatibility_checks_total"


class Format(Scrapes, harness.RegistryTestCase):

    def test_every_family_with_help_and_type(self):
        self.register_ok(self.sub(), avro_record("F", [("a", "int")]))
        s = self.scrape()
        self.assertEqual({n: t for n, t in s.types.items()}, FAMILIES)

    def test_any_accept_gets_the_text(self):
        """Accept negotiates the JSON types; /metrics has one type and answers it to any Accept."""
        for accept in ("text/plain", "text/plain;version=0.0.4", PROMETHEUS_ACCEPT, None,
                       "application/vnd.schemaregistry.v1+json"):
            with self.subTest(accept=accept):
                r = self.http.get("/metrics", headers={"Accept": accept})
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.headers.get("Content-Type"), MEDIA)
                strict_parse(self, r.text)
        # Another route still answers 406 to an Accept it cannot meet.
        self.assert_error(self.http.get("/", headers={"Accept": "text/plain"}), 406, 406)

    def test_other_methods_are_405(self):
        self.assert_error(self.post("/metrics", {}), 405, 405)

    def test_build_info(self):
        version = self.assert_ok(self.get("/v1/metadata/version"))
        s = self.scrape()
        self.assertEqual(s.series("schema_registry_build_info"),
                         [{"version": version["version"], "commit": version["commitId"]}])
        self.assertEqual(s.value("schema_registry_build_info", version=version["version"],
                                 commit=version["commitId"]), 1)
        now = time.time()
        start = s.value("process_start_time_seconds")
        self.assertLess(start, now + 1)
        self.assertGreater(start, now - 3600)
        self.assertGreater(s.value("process_open_fds"), 0)
        self.assertGreater(s.value("process_resident_memory_bytes"), 1 << 20)


class Counting(Scrapes, harness.RegistryTestCase):

    def test_registrations_by_outcome_exactly(self):
        subject = self.sub()
        v1 = avro_record("R", [("a", "int")])
        v2 = avro_record("R", [("a", "int"), ("b", "string", "x")])
        bad = avro_record("R", [("a", "string")])
        before = self.scrape()
        self.register_ok(subject, v1)                                    # new
        self.register_ok(subject, v2)                                    # new, checked: compatible
        self.register_ok(subject, v1)                                    # existing
        self.assert_error(self.register(subject, bad), 409, 40901)       # refused: incompatible
        self.assert_error(self.register(subject, "{not json"), 422, 42201)  # refused: invalid_schema
        after = self.scrape()
        self.assertEqual(delta(after, before, REG, outcome="new_version"), 2)
        self.assertEqual(delta(after, before, REG, outcome="existing"), 1)
        self.assertEqual(delta(after, before, REG, outcome="refused"), 2)
        self.assertEqual(delta(after, before, REFUSED, reason="incompatible"), 1)
        self.assertEqual(delta(after, before, REFUSED, reason="invalid_schema"), 1)
        self.assertEqual(after.total(REFUSED) - before.total(REFUSED), 2)
        # One check per registration that had a version to check against, with its final outcome
        # (the refused one is checked in memory, then again against the database: counted once).
        self.assertEqual(delta(after, before, CHECKS, type="AVRO", level="BACKWARD", outcome="compatible"), 1)
        self.assertEqual(delta(after, before, CHECKS, type="AVRO", level="BACKWARD", outcome="incompatible"), 1)
        self.assertEqual(after.total(CHECKS) - before.total(CHECKS), 2)
        route = "/subjects/{subject}/versions"
        self.assertEqual(delta(after, before, REQ, route=route, method="POST", status="200"), 3)
        self.assertEqual(delta(after, before, REQ, route=route, method="POST", status="409"), 1)
        self.assertEqual(delta(after, before, REQ, route=route, method="POST", status="422"), 1)

    def test_compatibility_checks_by_type_level_and_outcome(self):
        subject = self.sub()
        self.set_level(subject, "FULL_TRANSITIVE")
        v1 = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})
        self.register_ok(subject, v1, schema_type="JSON")
        before = self.scrape()
        path = f"/compatibility/subjects/{quote(subject)}/versions/latest"
        ok = {"schemaType": "JSON", "schema": v1}
        no = {"schemaType": "JSON", "schema": json.dumps({"type": "string"})}
        for body, expected in ((ok, True), (ok, True), (no, False)):
            self.assertEqual(self.assert_ok(self.post(path, body)), {"is_compatible": expected})
        after = self.scrape()
        key = dict(type="JSON", level="FULL_TRANSITIVE")
        self.assertEqual(delta(after, before, CHECKS, outcome="compatible", **key), 2)
        self.assertEqual(delta(after, before, CHECKS, outcome="incompatible", **key), 1)
        self.assertEqual(after.total(CHECKS) - before.total(CHECKS), 3)
        self.assertEqual(after.total(REG) - before.total(REG), 0, "a check is no registration")
        self.assertEqual(delta(after, before, REQ, route="/compatibility/subjects/{subject}/versions/{version}",
                               method="POST", status="200"), 3)

    def test_by_id_read_counts_under_its_route_template(self):
        sid = self.register_ok(self.sub(), avro_record("ById", [("a", "int")]))
        route = "/schemas/ids/{id}"
        before = self.scrape()
        for _ in range(3):
            self.assert_ok(self.get(f"/schemas/ids/{sid}"))
        self.assert_error(self.get("/schemas/ids/987654"), 404, 40403)
        self.assert_error(self.get("/no/such/route"), 404, 404)
        self.assertEqual(self.http.request("HEAD", f"/schemas/ids/{sid}").status, 200)
        after = self.scrape()
        self.assertEqual(delta(after, before, REQ, route=route, method="GET", status="200"), 3)
        self.assertEqual(delta(after, before, REQ, route=route, method="GET", status="404"), 1)
        self.assertEqual(delta(after, before, REQ, route=route, method="HEAD", status="200"), 1)
        self.assertEqual(delta(after, before, REQ, route="unmatched", method="GET", status="404"), 1)
        self.assertEqual(delta(after, before, DUR + "_count", route=route, method="GET"), 4)
        self.assertGreater(delta(after, before, DUR + "_sum", route=route, method="GET"), 0)
        # Only templates, never a raw path: every route label is a pattern of routes.c.
        patterns = route_patterns()
        for name in (REQ, DUR + "_count", DUR + "_bucket"):
            for labels in after.series(name):
                self.assertIn(labels["route"], patterns, labels)
        self.assertNotIn(f"/schemas/ids/{sid}", {ls["route"] for ls in after.series(REQ)})

    def test_histogram_count_equals_requests(self):
        route = "/schemas/types"
        before = self.scrape()
        for _ in range(7):
            self.assert_ok(self.get(route))
        after = self.scrape()
        self.assertEqual(delta(after, before, REQ, route=route, method="GET", status="200"), 7)
        self.assertEqual(delta(after, before, DUR + "_count", route=route, method="GET"), 7)
        self.assertEqual(delta(after, before, DUR + "_bucket", route=route, method="GET", le="+Inf"), 7)
        # Cumulative: each bucket holds at least the one below it (strict_parse checks), and the
        # requests counted per status add up to the histogram's count.
        self.assertEqual(after.total(REQ, route=route, method="GET"),
                         after.value(DUR + "_count", route=route, method="GET"))

    def test_the_scrape_counts_itself_next_time(self):
        a = self.scrape()
        b = self.scrape()
        self.assertEqual(delta(b, a, REQ, route="/metrics", method="GET", status="200"), 1)

    def test_pool(self):
        # Workers connect in the background after start: wait (bounded) for all eight.
        deadline = time.monotonic() + 30
        while True:
            s = self.scrape()
            workers = s.value("schema_registry_db_pool_workers")
            if s.value("schema_registry_db_pool_connected_workers") == workers or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(workers, 16, "db.threads' default")
        self.assertEqual(s.value("schema_registry_db_pool_connected_workers"), workers)
        self.assertEqual(s.value("schema_registry_db_pool_busy_workers"), 0)
        self.assertEqual(s.value("schema_registry_db_pool_waiting_jobs"), 0)
        self.assertEqual(s.value("schema_registry_db_pool_connect_errors_total"), 0)
        self.assertEqual(s.value("schema_registry_db_pool_reconnects_total"), 0)
        # One new registration is one database job; reads from memory and the scrape are none.
        self.register_ok(self.sub(), avro_record("Pool", [("a", "int")]))
        self.assert_ok(self.get("/subjects"))
        after = self.scrape()
        self.assertEqual(delta(after, s, "schema_registry_db_pool_jobs_total"), 1)
        self.assertGreaterEqual(after.value("schema_registry_http_connections"), 1)


class Gauges(Scrapes, harness.RegistryTestCase):

    def db_counts(self):
        schemas = dict(self.db.sql(
            "SELECT s.schema_type, count(*) FROM schemas s WHERE EXISTS (SELECT 1 FROM subject_versions v "
            "WHERE v.context = s.context AND v.schema_id = s.id) GROUP BY 1"))
        subjects = dict(self.db.sql(
            "SELECT s.schema_type, count(*) FROM (SELECT DISTINCT ON (subject) subject, context, schema_id "
            "FROM subject_versions WHERE NOT deleted ORDER BY subject, version DESC) l "
            "JOIN schemas s ON s.context = l.context AND s.id = l.schema_id GROUP BY 1"))
        versions = dict(self.db.sql("SELECT deleted::text, count(*) FROM subject_versions GROUP BY 1"))
        return schemas, subjects, versions

    def assert_gauges_equal_database(self):
        s = self.scrape()
        schemas, subjects, versions = self.db_counts()
        for t in ("AVRO", "JSON", "PROTOBUF"):
            with self.subTest(type=t):
                self.assertEqual(s.value("schema_registry_schemas", type=t), int(schemas.get(t, 0)))
                self.assertEqual(s.value("schema_registry_subjects", type=t), int(subjects.get(t, 0)))
        self.assertEqual(s.value("schema_registry_versions", state="live"), int(versions.get("false", 0)))
        self.assertEqual(s.value("schema_registry_versions", state="soft_deleted"), int(versions.get("true", 0)))
        return s

    def test_schemas_subjects_and_versions_equal_the_database(self):
        self.assert_gauges_equal_database()
        a, b, c, d = (self.sub(t) for t in "abcd")
        self.register_ok(a, avro_record("A", [("x", "int")]))
        self.register_ok(a, avro_record("A", [("x", "int"), ("y", "int", 0)]))
        self.register_ok(b, avro_record("A", [("x", "int")]))                       # same id as a's v1
        self.register_ok(c, json.dumps({"type": "object"}), schema_type="JSON")
        self.register_ok(d, 'syntax = "proto3";\nmessage M { int32 a = 1; }\n', schema_type="PROTOBUF")
        self.assert_ok(self.delete_version(a, 2))                                   # soft-deleted
        self.assert_ok(self.delete_subject(c))                                      # no live version left
        s = self.assert_gauges_equal_database()
        self.assertGreaterEqual(s.value("schema_registry_subjects", type="AVRO"), 2)
        self.assertGreaterEqual(s.value("schema_registry_versions", state="soft_deleted"), 2)
        self.assertGreaterEqual(s.value("schema_registry_schemas", type="PROTOBUF"), 1)

    def test_index_memory_grows_with_what_it_holds(self):
        before = self.scrape().value("schema_registry_index_memory_bytes")
        self.assertGreater(before, 0)
        doc = "x" * 100000
        self.register_ok(self.sub(), avro_record("Big", [("a", "int")], doc=doc))
        after = self.scrape().value("schema_registry_index_memory_bytes")
        self.assertGreaterEqual(after - before, len(doc))

    def test_change_feed_catches_up_with_the_log(self):
        polls = self.scrape().value("schema_registry_change_feed_polls_total")
        self.register_ok(self.sub(), avro_record("Feed", [("a", "int")]))
        head = int(self.db.value("SELECT coalesce(max(seq), 0) FROM changes"))
        self.assertGreater(head, 0)
        deadline = time.monotonic() + 20
        while True:
            s = self.scrape()
            if s.value("schema_registry_change_feed_applied_sequence") == head or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(s.value("schema_registry_change_feed_running"), 1)
        self.assertEqual(s.value("schema_registry_change_feed_connected"), 1)
        self.assertEqual(s.value("schema_registry_change_feed_applied_sequence"), head)
        self.assertEqual(s.value("schema_registry_change_feed_lag_changes"), 0)
        self.assertLess(s.value("schema_registry_change_feed_lag_seconds"), 5)
        self.assertLess(abs(time.time() - s.value("schema_registry_change_feed_last_poll_timestamp_seconds")), 10)
        # Only a poll after the registration applies its change (the feed skips
        # reloading it, but still moves past it).
        self.assertGreaterEqual(s.value("schema_registry_change_feed_polls_total"), polls + 1)


class ThreadConnections(Scrapes, harness.RegistryTestCase):
    """Connections opened together are spread over the HTTP threads: the loop that
    accepts one hands it to the loop serving the fewest (server/http_server.c,
    http_hand_over). Before, the first loop awake kept what it accepted, and a burst of
    16 connections often all landed on one of two loops (docs/performance.md)."""

    def open_connections(self, n):
        socks = []
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
            self.addCleanup(s.close)
            socks.append(s)
        for s in socks:                      # sent together, answered once each is adopted
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        for s in socks:
            self.assertTrue(s.recv(4096).startswith(b"HTTP/1.1 200"))
        return socks

    def per_thread(self, scrape):
        return sorted(int(scrape.value("schema_registry_http_thread_connections", thread=str(i)))
                      for i in range(self.server.threads))

    def test_a_burst_of_connections_is_spread_evenly(self):
        # Every loop set up (the server answers GET / as soon as one is): a loop still
        # starting takes no hand-over, and the connections stay where they were accepted.
        deadline = time.monotonic() + 30
        while " listening on " not in self.server.log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        for burst in (16, 7):
            with self.subTest(burst=burst):
                socks = self.open_connections(burst)
                s = self.scrape()                # its own connection is one more
                counts = self.per_thread(s)
                self.assertEqual(sum(counts), s.value("schema_registry_http_connections"))
                self.assertGreaterEqual(sum(counts), burst + 1)
                self.assertLessEqual(counts[-1] - counts[0], 1, counts)
                for c in socks:
                    c.close()
                deadline = time.monotonic() + 10      # the closes reach the loops
                while self.scrape().value("schema_registry_http_connections") > 1 and time.monotonic() < deadline:
                    time.sleep(0.05)


class FeedBehind(Scrapes, harness.RegistryTestCase):
    """A node that cannot apply what the log holds: another node's two changes are in
    the log, but reading the subject fails (its table is renamed away for a while), so
    the feed stays two sequence numbers behind and the seconds since it was current
    grow, until the table is back and it catches up."""
    server_args = ("--feed-interval-ms", "100")

    def wait_for(self, name, done):
        deadline = time.monotonic() + 30
        while True:
            s = self.scrape()
            if done(s.value(name)) or time.monotonic() > deadline:
                return s
            time.sleep(0.05)

    def test_lag_in_changes_and_seconds(self):
        subject = self.sub()
        self.register_ok(subject, avro_record("Lag", [("a", "int")]))
        head = int(self.db.value("SELECT max(seq) FROM changes"))
        scope = self.db.value(f"SELECT scope FROM changes WHERE seq = {head}")
        s = self.wait_for("schema_registry_change_feed_applied_sequence", lambda v: v == head)
        self.assertEqual(s.value("schema_registry_change_feed_lag_changes"), 0)
        self.db.sql("ALTER TABLE subject_versions RENAME TO subject_versions_away")
        self.addCleanup(lambda: self.db.sql("ALTER TABLE IF EXISTS subject_versions_away RENAME TO subject_versions"))
        self.db.sql(f"INSERT INTO changes (scope) VALUES ('{scope}'), ('{scope}')")
        s = self.wait_for("schema_registry_change_feed_lag_changes", lambda v: v == 2)
        self.assertEqual(s.value("schema_registry_change_feed_lag_changes"), 2)
        self.assertEqual(s.value("schema_registry_change_feed_applied_sequence"), head)
        s = self.wait_for("schema_registry_change_feed_lag_seconds", lambda v: v >= 1)
        self.assertGreaterEqual(s.value("schema_registry_change_feed_lag_seconds"), 1)
        self.assertEqual(s.value("schema_registry_change_feed_lag_changes"), 2)
        self.db.sql("ALTER TABLE subject_versions_away RENAME TO subject_versions")
        s = self.wait_for("schema_registry_change_feed_applied_sequence", lambda v: v == head + 2)
        self.assertEqual(s.value("schema_registry_change_feed_applied_sequence"), head + 2)
        self.assertEqual(s.value("schema_registry_change_feed_lag_changes"), 0)
        s = self.wait_for("schema_registry_change_feed_lag_seconds", lambda v: v < 1)
        self.assertLess(s.value("schema_registry_change_feed_lag_seconds"), 1)


class FeedOff(Scrapes, harness.RegistryTestCase):
    """feed.interval.ms = 0: no feed thread, and the feed's gauges say so."""
    server_args = ("--feed-interval-ms", "0")

    def test_feed_not_running(self):
        s = self.scrape()
        self.assertEqual(s.value("schema_registry_change_feed_running"), 0)
        self.assertNotIn("schema_registry_change_feed_lag_seconds", s.types)


class OneWorker(Scrapes, harness.RegistryTestCase):
    """db.threads 1, so the pool's gauges and counters have one exact value: a
    registration held by a lock is the busy worker, the next one the waiting
    job; a worker whose connection was cut reconnects, and that counts."""
    server_args = ("--db-threads", "1", "--feed-interval-ms", "0")

    def wait_for_pool(self, busy, waiting):
        deadline = time.monotonic() + 30
        while True:
            s = self.scrape()
            now = (s.value("schema_registry_db_pool_busy_workers"), s.value("schema_registry_db_pool_waiting_jobs"))
            if now == (busy, waiting) or time.monotonic() > deadline:
                return now
            time.sleep(0.05)

    def test_busy_worker_and_waiting_job(self):
        self.register_ok(self.sub(), avro_record("First", [("a", "int")]))
        self.assertEqual(self.wait_for_pool(0, 0), (0, 0))
        holder = subprocess.Popen(
            [self.pg._bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.pg.port),
             "-U", "postgres", "-d", self.db.name], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: holder.poll() is None and holder.kill())
        holder.stdin.write(b"BEGIN; LOCK TABLE subject_versions IN ACCESS EXCLUSIVE MODE; SELECT 1;\n")
        holder.stdin.flush()
        deadline = time.monotonic() + 30
        locked = "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation " \
                 "WHERE c.relname = 'subject_versions' AND l.mode = 'AccessExclusiveLock' AND l.granted"
        while self.db.value(locked) != "1" and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.db.value(locked), "1")
        before = self.scrape()
        results = []
        threads = [threading.Thread(target=lambda i=i: results.append(
            self.register(self.sub(f"held{i}"), avro_record(f"Held{i}", [("a", "int")])).status)) for i in range(2)]
        threads[0].start()
        self.assertEqual(self.wait_for_pool(1, 0), (1, 0))    # the first holds the worker, blocked
        threads[1].start()
        self.assertEqual(self.wait_for_pool(1, 1), (1, 1))    # the second waits for it
        holder.stdin.write(b"COMMIT;\n")
        holder.stdin.close()
        self.assertEqual(holder.wait(timeout=60), 0)
        for t in threads:
            t.join(timeout=60)
        self.assertEqual(results, [200, 200])
        self.assertEqual(self.wait_for_pool(0, 0), (0, 0))
        self.assertEqual(delta(self.scrape(), before, "schema_registry_db_pool_jobs_total"), 2)

    def test_a_cut_connection_counts_as_a_reconnect(self):
        """Every backend of the server's database is terminated while idle (the worker's and
        the registry's own): the worker's next statement finds its connection dead outside a
        transaction, the store resets it and runs the statement again (store/store.c), the
        client gets 200, and the pool counts one reconnect, as it counts a connection found
        broken after a job."""
        self.register_ok(self.sub(), avro_record("Before", [("a", "int")]))
        before = self.scrape()
        self.assertGreaterEqual(int(self.db.value(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity "
            f"WHERE datname = '{self.db.name}' AND pid <> pg_backend_pid()) t")), 1)   # waits for the exits
        self.register_ok(self.sub(), avro_record("After", [("a", "int")]))
        after = self.scrape()
        self.assertEqual(delta(after, before, "schema_registry_db_pool_reconnects_total"), 1)
        self.assertEqual(delta(after, before, "schema_registry_db_pool_connect_errors_total"), 0)
        self.assertEqual(after.value("schema_registry_db_pool_connected_workers"), 1)

    def test_connection_attempts_that_fail_count_as_errors(self):
        """The database refuses connections (ALLOW_CONNECTIONS false) when the worker's is
        cut: the registration fails with 50001, the worker's attempts to connect fail and
        count, and once connections are allowed again it connects."""
        self.register_ok(self.sub(), avro_record("Up", [("a", "int")]))
        before = self.scrape()
        self.pg.sql(f'ALTER DATABASE "{self.db.name}" ALLOW_CONNECTIONS false')
        self.addCleanup(lambda: self.pg.sql(f'ALTER DATABASE "{self.db.name}" ALLOW_CONNECTIONS true'))
        self.assertGreaterEqual(int(self.pg.sql(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity "
            f"WHERE datname = '{self.db.name}') t")[0][0]), 1)
        self.assert_error(self.register(self.sub(), avro_record("Down", [("a", "int")])), 500, 50001)
        # The worker tries again at once, in the background: wait (bounded) for its first attempt.
        deadline = time.monotonic() + 30
        while True:
            down = self.scrape()
            if delta(down, before, "schema_registry_db_pool_connect_errors_total") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(down.value("schema_registry_db_pool_connected_workers"), 0)
        self.assertGreaterEqual(delta(down, before, "schema_registry_db_pool_connect_errors_total"), 1)
        self.assertEqual(delta(down, before, "schema_registry_db_pool_reconnects_total"), 1)
        self.pg.sql(f'ALTER DATABASE "{self.db.name}" ALLOW_CONNECTIONS true')
        deadline = time.monotonic() + 30
        while self.scrape().value("schema_registry_db_pool_connected_workers") != 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.scrape().value("schema_registry_db_pool_connected_workers"), 1)
        self.register_ok(self.sub(), avro_record("Back", [("a", "int")]))


# ---- Authentication and authorization ------------------------------------------------------

USERS = {"root": "r00t", "prom": "pr0m", "alice": "a11ce"}
RULES = """\
auth.rule = root admin /*
auth.rule = prom admin /metrics
auth.rule = alice admin *
auth.rule = alice read,write /config
"""


def start_auth_server(cls, rules):
    cls.dir = harness.make_temp_dir("metrics-auth")
    users = make_users(cls.dir, USERS)
    config = os.path.join(cls.dir, "registry.conf")
    with open(config, "w") as f:
        f.write(f"auth.basic.users.file = {users}\nauth.max.failures = 0\n" + rules)
    cls.pg = harness.cluster()
    cls.db = cls.pg.new_database()
    cls.server = harness.Server(database_url=cls.db.url, name=cls.__name__.lower(), args=("--config", config))
    cls.server.start()


class WithRules(Scrapes, harness.RegistryTestCase):

    @classmethod
    def setUpClass(cls):
        start_auth_server(cls, RULES)

    def as_user(self, user):
        return harness.Client("127.0.0.1", self.server.port, headers=basic(user, USERS[user]))

    def test_without_credentials_401(self):
        r = harness.Client("127.0.0.1", self.server.port).get("/metrics")
        self.assert_error(r, 401, 401)
        self.assertEqual(r.headers.get("WWW-Authenticate"), 'Basic realm="SchemaRegistry"')
        r = harness.Client("127.0.0.1", self.server.port, headers=basic("prom", "wrong")).get("/metrics")
        self.assert_error(r, 401, 401)

    def test_without_admin_on_metrics_403(self):
        """alice is admin on every subject and may write /config: neither is /metrics."""
        r = self.as_user("alice").get("/metrics")
        self.assert_error(r, 403, 403)
        self.assertEqual(r.body["message"], "Forbidden: principal 'alice' has no admin permission on /metrics")
        self.assertEqual(r.headers.get("Content-Type"), harness.SR_V1)

    def test_admin_on_metrics_or_everything_200(self):
        for user in ("prom", "root"):
            with self.subTest(user=user):
                s = self.scrape(self.as_user(user))
                self.assertEqual(s.types, FAMILIES)

    def test_admin_on_metrics_grants_nothing_else(self):
        self.assert_error(self.as_user("prom").get("/config"), 403, 403)
        self.assert_error(self.as_user("prom").get(f"/subjects/{quote('s')}/versions"), 403, 403)

    def test_refusals_are_counted_by_status(self):
        before = self.scrape(self.as_user("prom"))
        self.as_user("alice").get("/metrics")
        harness.Client("127.0.0.1", self.server.port).get("/metrics")
        after = self.scrape(self.as_user("prom"))
        self.assertEqual(delta(after, before, REQ, route="/metrics", method="GET", status="403"), 1)
        # 401 comes before routing (docs/security.md), yet counts under the route its path names
        # (docs/operations.md "Metrics"); nothing under "unmatched".
        self.assertEqual(delta(after, before, REQ, route="/metrics", method="GET", status="401"), 1)
        self.assertEqual(delta(after, before, REQ, route="unmatched", method="GET", status="401"), 0)


class WithoutRules(Scrapes, harness.RegistryTestCase):
    """Authentication without any auth.rule: every authenticated principal may do everything."""

    @classmethod
    def setUpClass(cls):
        start_auth_server(cls, "")

    def test_any_principal_200_none_401(self):
        self.scrape(harness.Client("127.0.0.1", self.server.port, headers=basic("alice", USERS["alice"])))
        self.assert_error(harness.Client("127.0.0.1", self.server.port).get("/metrics"), 401, 401)


if __name__ == "__main__":
    harness.main()

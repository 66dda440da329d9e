#!/usr/bin/python3
"""
bench: repeatable load runs against a private PostgreSQL and the real server.

Every figure is printed next to its ratio to a baseline measured in the same
run (GET / over h2c: the server's HTTP ceiling on this machine right now), so
results from different machines compare as ratios, not as absolute numbers.
Nothing is asserted: benchmarks report, tests judge.

  /usr/bin/python3 bench/bench.py [--binary build/schema-registry] [--seconds 10]
                                  [--clients 16] [--streams 10] [--threads 2]

Load generator: h2load (nghttp2-client). New registrations, whose bodies must
differ, are driven from Python threads and so measure less precisely.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))

import harness  # noqa: E402  (the integration harness: PostgreSQL + server)
from harness import SR_V1, avro_record, quote  # noqa: E402


def h2load(url, seconds, clients, streams, threads, h1=False, body_file=None):
    """Runs h2load; returns (req_per_s, succeeded, failed)."""
    argv = ["h2load", "-D", str(seconds), "-c", str(clients), "-t", str(threads),
            "-H", f"Content-Type: {SR_V1}"]
    argv += ["--h1"] if h1 else ["-m", str(streams)]
    if body_file:
        argv += ["-d", body_file]
    out = subprocess.run(argv + [url], capture_output=True, text=True).stdout
    rate = re.search(r"finished in [\d.]+s, ([\d.]+) req/s", out)
    reqs = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", out)
    codes = re.search(r"status codes: (\d+) 2xx", out)
    if not rate or not reqs:
        raise RuntimeError(f"cannot read h2load output:\n{out}")
    ok = int(codes.group(1)) if codes else int(reqs.group(1))
    return float(rate.group(1)), ok, int(reqs.group(2)) + int(reqs.group(1)) - ok


def new_registrations(client, count, workers):
    """Registers count distinct schemas from worker threads; returns (req/s, ok, failed)."""
    counter = iter(range(count))
    lock = threading.Lock()
    tally = {"ok": 0, "failed": 0}

    def work():
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            schema = avro_record("Bench", [(f"f{i}", "string")])
            r = client.post(f"/subjects/{quote(f'bench-new-{i}')}/versions", {"schema": schema})
            with lock:
                tally["ok" if r.status == 200 else "failed"] += 1

    threads = [threading.Thread(target=work) for _ in range(workers)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count / (time.monotonic() - start), tally["ok"], tally["failed"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "schema-registry"))
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--streams", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--registrations", type=int, default=2000)
    args = ap.parse_args()
    os.environ["SR_BINARY"] = os.path.abspath(args.binary)

    pg = harness.cluster()
    db = pg.new_database("bench")
    server = harness.Server(database_url=db.url, name="bench", threads=args.threads).start()
    client = server.client()
    subject = "bench-value"
    schema = avro_record("Bench", [("id", "long"), ("name", "string")])
    schema_id = client.post(f"/subjects/{subject}/versions", {"schema": schema}).body["id"]
    body_file = os.path.join(tempfile.mkdtemp(prefix="sr-bench-"), "body.json")
    with open(body_file, "w") as f:
        json.dump({"schema": schema}, f)

    base = server.base_url
    run = dict(seconds=args.seconds, clients=args.clients, streams=args.streams,
               threads=args.threads)
    rows = [
        ("GET / (baseline, h2c)", lambda: h2load(f"{base}/", **run)),
        ("GET /schemas/ids/{id} (h2c)", lambda: h2load(f"{base}/schemas/ids/{schema_id}", **run)),
        ("GET /schemas/ids/{id} (HTTP/1.1)",
         lambda: h2load(f"{base}/schemas/ids/{schema_id}", h1=True, **run)),
        ("GET .../versions/latest (h2c)",
         lambda: h2load(f"{base}/subjects/{subject}/versions/latest", **run)),
        ("POST register, already there (h2c)",
         lambda: h2load(f"{base}/subjects/{subject}/versions", body_file=body_file, **run)),
        ("POST lookup (h2c)", lambda: h2load(f"{base}/subjects/{subject}", body_file=body_file,
                                             **run)),
        (f"POST register, new ({args.registrations}, Python threads)",
         lambda: new_registrations(client, args.registrations, args.clients)),
    ]
    print(f"{'scenario':48} {'req/s':>12} {'x baseline':>11} {'ok':>9} {'failed':>7}")
    baseline = None
    for name, fn in rows:
        rate, ok, failed = fn()
        baseline = baseline or rate
        print(f"{name:48} {rate:12.0f} {rate / baseline:11.3f} {ok:9d} {failed:7d}", flush=True)
    server.stop()


if __name__ == "__main__":
    try:
        main()
    finally:
        harness.cleanup()

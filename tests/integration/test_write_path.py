"""The registration path of docs/architecture.md ("The write path"): the common
registration is one statement (sr_register_append_many, one call per group of
registrations: migrations/0010) checked against the
versions the node holds; a node whose memory is behind the database falls back
to the general transaction and still answers what the database says. Mixed
concurrent batches keep every refusal and every success exact, checked in SQL."""

import json
import os
import re
import subprocess
import threading
import time

import harness
from harness import avro_record, quote, sql_literal
from test_concurrency import run_concurrently

# A node that never follows the feed on its own within a test: what it knows
# comes from its own writes (and their reloads) only.
DEAF = ("--feed-interval-ms", "600000")


def versions_in(db, subject):
    """(version, schema_id, deleted) rows of the subject, in SQL."""
    return db.sql("SELECT version, schema_id, deleted FROM subject_versions "
                  f"WHERE subject = {sql_literal(subject)} ORDER BY version")


def group_counters(case):
    """(group commits, registrations written in groups, of those declined) from the
    server's /metrics."""
    text = case.get("/metrics").text
    return tuple(int(float(re.search(rf"^schema_registry_{name}_total (\S+)$", text, re.M).group(1)))
                 for name in ("group_commits", "group_registrations", "group_declined"))


def wait_for_first_poll(server, timeout=30):
    """Until the node's change feed has polled once: a deaf node polls at start
    and then not again within a test, so a first poll that comes late (a slow
    start) would still read what the other node wrote meanwhile. The poll count,
    not the last poll's time: the load at start sets that time too."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = server.client().get("/metrics").text
        m = re.search(r"^schema_registry_change_feed_polls_total (\S+)$", text, re.M)
        if m and float(m.group(1)) >= 1:
            return
        time.sleep(0.05)
    raise AssertionError(f"no change feed poll within {timeout} s")


class WritePath(harness.TwoNodeTestCase):

    server_args = node_b_args = DEAF

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for node in (cls.server, cls.node_b):
            wait_for_first_poll(node)

    @property
    def b(self):
        return self.node_b.client()

    def reg(self, client, subject, schema):
        return client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema})

    def test_a_node_behind_the_database_appends_after_what_it_missed(self):
        s = self.sub()
        v1 = avro_record("Behind", [("a", "string")])
        v2 = avro_record("Behind", [("a", "string"), ("b", "string", "x")])
        v3 = avro_record("Behind", [("a", "string"), ("c", "string", "y")])
        self.assertEqual(self.reg(self.b, s, v1).status, 200)
        r2 = self.reg(self.http, s, v2)                 # node B does not know about this one
        self.assertEqual(r2.status, 200, r2)
        self.assertEqual(self.b.get(f"/subjects/{quote(s)}/versions").body, [1])
        r3 = self.reg(self.b, s, v3)
        self.assertEqual(r3.status, 200, r3)
        rows = versions_in(self.db, s)
        self.assertEqual([v for v, _, _ in rows], ["1", "2", "3"])
        self.assertEqual(rows[2][1], str(r3.body["id"]))
        self.assertEqual(len({sid for _, sid, _ in rows}), 3)
        # B published what the database holds, the version it missed included.
        self.assertEqual(self.b.get(f"/subjects/{quote(s)}/versions").body, [1, 2, 3])
        self.assertEqual(self.b.get(f"/subjects/{quote(s)}/versions/latest").body["id"], r3.body["id"])

    def test_an_incompatibility_only_in_stale_memory_is_not_refused(self):
        # B still holds v1 as live; the database has it soft-deleted, so the
        # subject has no live history and anything is compatible (BACKWARD).
        s = self.sub()
        self.assertEqual(self.reg(self.b, s, avro_record("Stale", [("a", "string")])).status, 200)
        d = self.http.delete(f"/subjects/{quote(s)}/versions/1")
        self.assertEqual(d.status, 200, d)
        new = avro_record("Stale", [("c", "long")])      # no default: BACKWARD-incompatible with v1
        r = self.reg(self.b, s, new)
        self.assertEqual(r.status, 200, r)
        self.assertEqual([(v, d) for v, _, d in versions_in(self.db, s)], [("1", "t"), ("2", "f")])
        # The same registration against a live v1 is refused, on either node.
        s2 = self.sub()
        self.assertEqual(self.reg(self.b, s2, avro_record("Stale", [("a", "string")])).status, 200)
        for client in (self.b, self.http):
            r = self.reg(client, s2, new)
            self.assertEqual((r.status, r.body["error_code"]), (409, 40901), r)
        self.assertEqual(len(versions_in(self.db, s2)), 1)

    def test_mixed_batch_keeps_each_answer(self):
        # Successes, 409s and 422s arrive together on both nodes.
        guarded = self.sub("guarded")
        self.assertEqual(self.reg(self.http, guarded, avro_record("G", [("a", "string")])).status, 200)
        shared = avro_record("Shared", [("x", "int")])
        jobs, expect = [], []
        for i in range(8):
            node = self.http if i % 2 else self.b
            fresh = self.sub(f"ok{i}")
            jobs.append(lambda n=node, s=fresh, i=i: self.reg(n, s, avro_record("Ok", [(f"o{i}", "int")])))
            expect.append((200, fresh))
            many = self.sub(f"shared{i}")
            jobs.append(lambda n=node, s=many: self.reg(n, s, shared))
            expect.append((200, many))
            jobs.append(lambda n=node, i=i: self.reg(
                n, guarded, avro_record("G", [(f"z{i}", "long")])))      # incompatible
            expect.append((409, guarded))
            jobs.append(lambda n=node, i=i: n.post(
                f"/subjects/{quote(self.sub(f'bad{i}'))}/versions",
                {"schema": json.dumps({"type": "record", "name": "Bad", "fields": [{"name": "q"}]})}))
            expect.append((422, None))
        results = run_concurrently(jobs)
        for r, (status, _) in zip(results, expect):
            self.assertNotIsInstance(r, Exception, r)
            self.assertEqual(r.status, status, r)
            if status == 422:
                self.assertEqual(r.body["error_code"], 42201, r)
            if status == 409:
                self.assertEqual(r.body["error_code"], 40901, r)
        shared_ids = {r.body["id"] for r, (st, s) in zip(results, expect)
                      if st == 200 and "shared" in s}
        self.assertEqual(len(shared_ids), 1, shared_ids)
        # In SQL: the guarded subject is untouched, every success is version 1
        # of its subject, and no content has two ids.
        self.assertEqual(len(versions_in(self.db, guarded)), 1)
        for r, (status, s) in zip(results, expect):
            if status == 200:
                self.assertEqual(versions_in(self.db, s), [("1", str(r.body["id"]), "f")])
        self.assertEqual(self.db.sql("SELECT count(*) FROM (SELECT schema_type, identity_key FROM schemas "
                                     "GROUP BY 1, 2 HAVING count(*) > 1) t"), [("0",)])
        self.assertEqual(self.db.count("subject_versions", "subject LIKE '%bad%'"), 0)


class OneStatement(harness.RegistryTestCase):
    """Its own database, so the function's call count is this test's alone."""

    # track_functions makes the fast path visible in pg_stat_user_functions; one
    # registration at a time is one call (a group of one).
    database_settings = ("track_functions = 'pl'",)

    def fast_calls(self):
        rows = self.db.sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions "
                           "WHERE funcname = 'sr_register_append_many'")
        return int(rows[0][0])

    def test_new_subjects_take_one_statement(self):
        for i in range(5):
            s = self.sub()
            self.register_ok(s, avro_record("Fast", [(f"f{i}", "string")]))
            self.assert_ok(self.versions(s), [1])
        # Backends flush function statistics within PostgreSQL's idle interval (10 s).
        deadline = time.monotonic() + 20
        while self.fast_calls() < 5 and time.monotonic() < deadline:
            time.sleep(0.25)
        self.assertEqual(self.fast_calls(), 5)


class NoJit(harness.RegistryTestCase):
    """The group statement never pays for JIT compilation (migrations/0014). The
    database here compiles every statement (jit_above_cost 0) and auto_explain logs
    every plan, nested ones included: the statement that calls the function is
    compiled, which shows JIT works on this PostgreSQL, and none inside it is.
    Before 0014 the subject lookup inside was compiled on every call once
    subject_versions held about 170,000 rows without statistics (docs/performance.md)."""

    database_settings = ("jit = on", "jit_above_cost = 0", "jit_optimize_above_cost = -1",
                         "jit_inline_above_cost = -1", "session_preload_libraries = 'auto_explain'",
                         "auto_explain.log_min_duration = 0", "auto_explain.log_nested_statements = on")

    def plans(self, start):
        """auto_explain's entries logged since offset start, each as one string."""
        with open(self.pg.log, errors="replace") as f:
            f.seek(start)
            text = f.read()
        return re.split(r"\n(?=\S[^\n]*LOG:  duration: )", text)

    def test_nothing_inside_the_group_statement_is_compiled(self):
        self.assertEqual(self.db.sql("SELECT pg_jit_available()"), [("t",)])
        start = os.path.getsize(self.pg.log)
        subjects = [self.sub() for _ in range(3)]
        for i, s in enumerate(subjects):
            self.register_ok(s, avro_record(f"NoJit{i}", [("f", "string")]))
            self.assert_ok(self.versions(s), [1])
        plans = self.plans(start)
        outer = [p for p in plans if "FROM sr_register_append_fenced(" in p and "Query Text" in p]
        inner = [p for p in plans if "Query Text: WITH " in p and "Insert on subject_versions" in p]
        self.assertEqual(len(outer), 3, plans)
        self.assertEqual(len(inner), 3, plans)
        self.assertTrue(all("JIT:" in p for p in outer), outer)
        self.assertEqual([p for p in inner if "JIT:" in p], [])


def poison_subject(case):
    """A subject every write of which fails inside PostgreSQL; the sequence
    poison_attempts (not rolled back) counts the attempts."""
    poison = case.sub("poison")
    case.db.sql("CREATE SEQUENCE poison_attempts")
    case.db.sql("CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF NEW.subject = {sql_literal(poison)} THEN PERFORM nextval('poison_attempts'); "
                "RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$")
    case.db.sql("CREATE TRIGGER poison BEFORE INSERT ON subject_versions "
                "FOR EACH ROW EXECUTE FUNCTION poison()")
    return poison


class GroupCommit(harness.RegistryTestCase):
    """Registrations that arrive together are written as one group (registry/group.c);
    a group that fails is retried item by item, so one bad item fails alone."""

    server_args = ("--db-threads", "16")

    def hold_subject_lock(self, subject, seconds):
        """A psql session holding the subject's write lock (store_lock_scope's key)."""
        lit = sql_literal(subject)
        return subprocess.Popen(
            [self.pg._bin("psql"), "-X", "-q", "-h", "127.0.0.1", "-p", str(self.pg.port), "-U", "postgres",
             "-d", self.db.name, "-c",
             f"BEGIN; SELECT pg_advisory_xact_lock(hashtextextended({lit}, 7)); "
             f"SELECT pg_sleep({seconds}); COMMIT;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def test_a_failing_item_fails_alone(self):
        poison = poison_subject(self)
        # The leader waits on a held subject lock (registry/group.c writes one group
        # at a time; the second blocked registration waits in the queue), so what
        # comes next queues up and is written as one group when it is done.
        blocked = [self.sub("blocked") for _ in range(2)]
        holders = [self.hold_subject_lock(s, 3) for s in blocked]
        time.sleep(0.5)
        out = {}

        def reg(subject, name):
            out[subject] = self.register(subject, avro_record(name, [("f", "string")]))

        first = [threading.Thread(target=reg, args=(s, f"B{i}")) for i, s in enumerate(blocked)]
        for t in first:
            t.start()
        time.sleep(0.5)
        others = [self.sub("ok") for _ in range(8)]
        rest = [threading.Thread(target=reg, args=(s, f"G{i}")) for i, s in enumerate(others + [poison])]
        for t in rest:
            t.start()
        for t in first + rest:
            t.join(timeout=60)
        for h in holders:
            h.wait(timeout=30)
        for s in blocked + others:
            self.assertEqual(out[s].status, 200, out[s])
            self.assertEqual(versions_in(self.db, s), [("1", str(out[s].body["id"]), "f")])
        self.assertEqual((out[poison].status, out[poison].body["error_code"]), (500, 50001), out[poison])
        self.assertEqual(versions_in(self.db, poison), [])
        # Once in the group, once alone: the group did form and was retried.
        self.assertEqual(self.db.value("SELECT last_value FROM poison_attempts"), "2")


    def test_refusals_inside_a_group_keep_each_answer(self):
        # A group (the leader held on a subject lock, as above, so what comes next
        # queues up and is written together) holding: new subjects, one new content under
        # three subjects, and two registrations of one subject that are each
        # compatible with what the node holds (nothing) but not with each other.
        # The group writes one of the pair (migrations/0012 skips an item of a
        # subject the group already wrote); the other is decided by the general
        # path against the database: 409. Invalid schemas next to them: 422.
        commits0, items0, declined0 = group_counters(self)
        blocked = [self.sub("blocked") for _ in range(2)]
        holders = [self.hold_subject_lock(s, 3) for s in blocked]
        time.sleep(0.5)
        out = {}

        def send(key, subject, body):
            out[key] = self.post(f"/subjects/{quote(subject)}/versions", body)

        first = [threading.Thread(target=send, args=(s, s, {"schema": avro_record(f"B{i}", [("f", "string")])}))
                 for i, s in enumerate(blocked)]
        for t in first:
            t.start()
        time.sleep(0.5)
        fresh = [self.sub("fresh") for _ in range(5)]
        shared = [self.sub("shared") for _ in range(3)]
        pair = self.sub("pair")
        shared_schema = avro_record("Shared", [("s", "long")])
        jobs = [(s, s, {"schema": avro_record(f"F{i}", [("f", "string")])}) for i, s in enumerate(fresh)]
        jobs += [(s, s, {"schema": shared_schema}) for s in shared]
        jobs += [("pair-a", pair, {"schema": avro_record("P", [("a", "string")])}),
                 ("pair-b", pair, {"schema": avro_record("P", [("b", "long")])})]  # no default: BACKWARD-incompatible
        bad = json.dumps({"type": "record", "name": "Bad", "fields": [{"name": "q"}]})
        jobs += [(f"bad{i}", self.sub("bad"), {"schema": bad}) for i in range(2)]
        rest = [threading.Thread(target=send, args=job) for job in jobs]
        for t in rest:
            t.start()
        for t in first + rest:
            t.join(timeout=60)
        for h in holders:
            h.wait(timeout=30)
        for s in blocked + fresh + shared:
            self.assertEqual(out[s].status, 200, out[s])
            self.assertEqual(versions_in(self.db, s), [("1", str(out[s].body["id"]), "f")])
        self.assertEqual(len({out[s].body["id"] for s in shared}), 1)
        self.assertEqual(self.db.count("schemas", f"id = {out[shared[0]].body['id']}"), 1)
        answers = sorted((out[k].status, out[k].body.get("error_code")) for k in ("pair-a", "pair-b"))
        self.assertEqual(answers, [(200, None), (409, 40901)], (out["pair-a"], out["pair-b"]))
        won = out["pair-a"] if out["pair-a"].status == 200 else out["pair-b"]
        self.assertEqual(versions_in(self.db, pair), [("1", str(won.body["id"]), "f")])
        for i in range(2):
            self.assertEqual((out[f"bad{i}"].status, out[f"bad{i}"].body["error_code"]), (422, 42201), out[f"bad{i}"])
        self.assertEqual(self.db.count("subject_versions", "subject LIKE '%bad%'"), 0)
        # The first blocked registration alone, then the 11 others (the pair's loser
        # included) in one group: the refusal came from inside a group, the loser's
        # append the one the group declined.
        commits, items, declined = group_counters(self)
        self.assertEqual((commits - commits0, items - items0, declined - declined0), (2, 12, 1))
        # Every acknowledged version has its audit row and its change row.
        for s in blocked + fresh + shared + [pair]:
            self.assertEqual(self.db.count("audit_log", f"subject = {sql_literal(s)} AND action = 'register' AND outcome = 'ok'"), 1)
            self.assertEqual(self.db.count("changes", f"scope = {sql_literal(s)}"), 1)
        # Each audit row names its own request, though one worker wrote the whole group
        # (each append is rendered by its own worker: store_append_text).
        for s in fresh + shared:
            rid = out[s].headers.get("X-Request-Id")
            self.assertTrue(rid, out[s].headers)
            self.assertEqual(self.db.sql(f"SELECT request_id, remote FROM audit_log WHERE subject = {sql_literal(s)} "
                                         "AND action = 'register'"), [(rid, "127.0.0.1")])


class OnePass(harness.RegistryTestCase):
    """Registrations that reach a loop in one read (HTTP/2 streams sent in one write)
    go to one worker together, which writes their appends as one group
    (server/http_server.c, http_on_staged_flush; registry_register_queue)."""

    def send_together(self, jobs):
        """POSTs (key, subject, body) as streams of one connection in one write;
        {key: (status, body)}."""
        client = harness.H2Client(self.server.port)
        self.addCleanup(client.close)
        sids = {key: client.post(f"/subjects/{quote(subject)}/versions", body, flush=False)
                for key, subject, body in jobs}
        client.flush()
        client.wait_responses(list(sids.values()), 30)
        return {key: (client.responses.get(sid), json.loads(client.bodies.get(sid, b"null")))
                for key, sid in sids.items()}

    def test_failures_next_to_successes_keep_each_answer(self):
        commits0, items0, declined0 = group_counters(self)
        fresh = [self.sub("fresh") for _ in range(5)]
        shared = [self.sub("shared") for _ in range(2)]
        pair, tagged = self.sub("pair"), self.sub("tagged")
        jobs = [(s, s, {"schema": avro_record(f"F{i}", [("f", "string")])}) for i, s in enumerate(fresh)]
        jobs += [(s, s, {"schema": avro_record("Shared", [("s", "long")])}) for s in shared]
        jobs += [("pair-a", pair, {"schema": avro_record("P", [("a", "string")])}),
                 ("pair-b", pair, {"schema": avro_record("P", [("b", "long")])})]  # BACKWARD-incompatible
        bad = json.dumps({"type": "record", "name": "Bad", "fields": [{"name": "q"}]})
        jobs += [(f"bad{i}", self.sub("bad"), {"schema": bad}) for i in range(2)]
        # With tag fields a registration runs alone inside the batch (register_db).
        jobs += [(tagged, tagged, {"schema": avro_record("T", [("t", "string")]), "schemaTagsToAdd": [
            {"schemaEntity": {"entityPath": "T", "entityType": "sr_record"}, "tags": ["PII"]}]})]
        out = self.send_together(jobs)
        for s in fresh + shared + [tagged]:
            self.assertEqual(out[s][0], 200, out[s])
            self.assertEqual(versions_in(self.db, s), [("1", str(out[s][1]["id"]), "f")])
        self.assertEqual(out[shared[0]][1]["id"], out[shared[1]][1]["id"])
        self.assertEqual(len({out[s][1]["id"] for s in fresh + shared + [tagged]}), 7)
        self.assertIn('"PII"', self.get(f"/subjects/{quote(tagged)}/versions/1").body["schema"])
        answers = sorted((out[k][0], (out[k][1] or {}).get("error_code")) for k in ("pair-a", "pair-b"))
        self.assertEqual(answers, [(200, None), (409, 40901)], (out["pair-a"], out["pair-b"]))
        won = out["pair-a"] if out["pair-a"][0] == 200 else out["pair-b"]
        self.assertEqual(versions_in(self.db, pair), [("1", str(won[1]["id"]), "f")])
        for i in range(2):
            self.assertEqual((out[f"bad{i}"][0], out[f"bad{i}"][1]["error_code"]), (422, 42201), out[f"bad{i}"])
        self.assertEqual(self.db.count("subject_versions", "subject LIKE '%-bad-%'"), 0)
        # One group: the five fresh subjects, the shared content's two and the pair's
        # two (its loser declined, then decided on the general path); the tagged one
        # was written alone.
        commits, items, declined = group_counters(self)
        self.assertEqual((commits - commits0, items - items0, declined - declined0), (2, 10, 1))
        for s in fresh + shared + [pair, tagged]:
            self.assertEqual(self.db.count("audit_log", f"subject = {sql_literal(s)} AND action = 'register' "
                                                        "AND outcome = 'ok'"), 1)
            self.assertEqual(self.db.count("changes", f"scope = {sql_literal(s)}"), 1)

    def test_a_failing_append_fails_alone(self):
        poison = poison_subject(self)
        commits0, items0, declined0 = group_counters(self)
        others = [self.sub("ok") for _ in range(4)]
        out = self.send_together([(s, s, {"schema": avro_record(f"G{i}", [("f", "string")])})
                                  for i, s in enumerate(others + [poison])])
        for s in others:
            self.assertEqual(out[s][0], 200, out[s])
            self.assertEqual(versions_in(self.db, s), [("1", str(out[s][1]["id"]), "f")])
        self.assertEqual((out[poison][0], out[poison][1]["error_code"]), (500, 50001), out[poison])
        self.assertEqual(versions_in(self.db, poison), [])
        # In the group of five, then alone: the batch's appends were retried one by one.
        self.assertEqual(self.db.value("SELECT last_value FROM poison_attempts"), "2")
        commits, items, declined = group_counters(self)
        self.assertEqual((commits - commits0, items - items0, declined - declined0), (1, 5, 0))

    def test_failing_appends_keep_their_own_errors(self):
        """A failed group's appends are retried one after another on one connection:
        each failing registration answers with its own error, not the last one's."""
        victims = [self.sub("victim") for _ in range(2)]
        self.db.sql("CREATE FUNCTION named_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    f"IF NEW.subject IN ({sql_literal(victims[0])}, {sql_literal(victims[1])}) THEN "
                    "RAISE EXCEPTION 'poisoned %', NEW.subject; END IF; RETURN NEW; END $$")
        self.db.sql("CREATE TRIGGER named_poison BEFORE INSERT ON subject_versions "
                    "FOR EACH ROW EXECUTE FUNCTION named_poison()")
        others = [self.sub("ok") for _ in range(3)]
        subjects = [others[0], victims[0], others[1], victims[1], others[2]]
        out = self.send_together([(s, s, {"schema": avro_record(f"E{i}", [("f", "string")])})
                                  for i, s in enumerate(subjects)])
        for s in others:
            self.assertEqual(out[s][0], 200, out[s])
        for s in victims:
            self.assertEqual((out[s][0], out[s][1]["error_code"]), (500, 50001), out[s])
            self.assertIn(f"poisoned {s}", out[s][1]["message"])
            self.assertNotIn("SQL statement", out[s][1]["message"])  # no CONTEXT lines quoting our SQL
            self.assertEqual(versions_in(self.db, s), [])


class GroupConnection(harness.RegistryTestCase):
    """A group of two or more appends is written on the registry's own group connection,
    the same backend for every group, not on whichever worker leads it; a lone append on
    its worker's connection (registry/group.c, docs/performance.md "New registrations: one
    backend for every group"). The database logs every statement with its backend's pid."""

    database_settings = ("log_min_duration_statement = 0",)

    GROUP_STATEMENT = re.compile(r"\[(\d+)\] LOG:  duration: [\d.]+ ms  execute [^:\n]*: "
                                 r"SELECT o_timeline, o_ord.* FROM sr_register_append_fenced\(")

    def group_pids(self, start):
        """The backend pid of each group statement logged since offset start, in order."""
        with open(self.pg.log, errors="replace") as f:
            f.seek(start)
            return [int(m.group(1)) for m in self.GROUP_STATEMENT.finditer(f.read())]

    def metric(self, name):
        return FeedSkipsOwnWrites.metric(self, name)

    def passes(self, rounds, clients=3, per_client=4):
        """Each round, clients HTTP/2 connections at once each send per_client new
        registrations in one write (one worker's batch of per_client appends); all 200."""
        for r in range(rounds):
            conns = [harness.H2Client(self.server.port) for _ in range(clients)]
            sent = []
            for c in conns:
                subjects = [self.sub("pass") for _ in range(per_client)]
                sids = [c.post(f"/subjects/{quote(s)}/versions",
                               {"schema": avro_record(f"P{r}x{i}", [(s.replace("-", "_"), "string")])}, flush=False)
                        for i, s in enumerate(subjects)]
                sent.append((c, subjects, sids))
            for c in conns:
                c.flush()
            for c, subjects, sids in sent:
                c.wait_responses(sids, 30)
                for s, sid in zip(subjects, sids):
                    self.assertEqual(c.responses.get(sid), 200, (s, c.bodies.get(sid)))
                    self.assertEqual(versions_in(self.db, s),
                                     [("1", str(json.loads(c.bodies[sid])["id"]), "f")])
                c.close()

    def test_groups_share_one_backend_and_lone_appends_keep_their_own(self):
        start = os.path.getsize(self.pg.log)
        self.passes(4)
        groups = self.group_pids(start)
        self.assertGreaterEqual(len(groups), 4, groups)
        self.assertEqual(len(set(groups)), 1, groups)
        self.assertEqual(self.metric("schema_registry_group_connection_up"), 1)
        start = os.path.getsize(self.pg.log)
        for i in range(3):
            self.register_ok(self.sub("lone"), avro_record(f"Lone{i}", [("f", "string")]))
        lone = self.group_pids(start)
        self.assertEqual(len(lone), 3, lone)
        self.assertNotIn(groups[0], lone)

    def test_texts_that_need_escaping_are_stored_as_sent(self):
        """The group's argument is JSON the registry writes itself (store/store.c,
        append_text): quotes, backslashes, control characters and non-ASCII in a subject
        and a schema come back byte for byte, from the API and from the database."""
        doc = 'quote " back\\slash tab\t newline\n bell\u0007 snow\u2603 clef\U0001d11e'
        subjects = [self.sub('es"c\\aped ☃'), self.sub("plain")]
        client = harness.H2Client(self.server.port)
        self.addCleanup(client.close)
        sids = []
        for i, s in enumerate(subjects):
            schema = json.dumps({"type": "record", "name": f"Esc{i}", "doc": doc,
                                 "fields": [{"name": "f", "type": "string", "doc": doc}]})
            sids.append((s, client.post(f"/subjects/{quote(s)}/versions", {"schema": schema}, flush=False)))
        start = os.path.getsize(self.pg.log)
        client.flush()
        client.wait_responses([sid for _, sid in sids], 30)
        self.assertEqual(len(set(self.group_pids(start))), 1)     # one group of two
        for s, sid in sids:
            self.assertEqual(client.responses.get(sid), 200, client.bodies.get(sid))
            got = self.get(f"/subjects/{quote(s)}/versions/1")
            self.assertEqual(got.status, 200, got)
            self.assertEqual(got.body["subject"], s)
            self.assertEqual(json.loads(got.body["schema"])["doc"], doc)
            self.assertEqual(json.loads(got.body["schema"])["fields"][0]["doc"], doc)
            stored = self.db.value(f"SELECT s.schema_text FROM schemas s JOIN subject_versions v "
                                   f"ON v.schema_id = s.id WHERE v.subject = {sql_literal(s)}")
            self.assertEqual(stored, got.body["schema"])
            self.assertEqual(self.db.count("audit_log", f"subject = {sql_literal(s)} AND action = 'register'"), 1)

    def test_a_cut_group_connection_is_replaced_and_counted(self):
        start = os.path.getsize(self.pg.log)
        self.passes(1)
        first = set(self.group_pids(start))
        self.assertEqual(len(first), 1, first)
        before = self.metric("schema_registry_group_connection_reconnects_total")
        self.assertEqual(self.db.value(f"SELECT pg_terminate_backend({first.pop()}, 30000)"), "t")
        start = os.path.getsize(self.pg.log)
        self.passes(2)
        after = self.group_pids(start)
        self.assertEqual(len(set(after)), 1, after)
        self.assertEqual(self.metric("schema_registry_group_connection_reconnects_total") - before, 1)
        self.assertEqual(self.metric("schema_registry_group_connection_up"), 1)


class FeedSkipsOwnWrites(harness.RegistryTestCase):
    """A one-statement registration is published by the node that wrote it, from what
    it wrote; its own change feed then does not read the subject back (registry_feed_own,
    docs/performance.md). The feed's reload of a subject reads its config and mode rows
    (store_load_subject), which the registration itself never reads, so the scans of
    those tables count the feed's reloads. Other nodes' changes are still reloaded
    (test_multinode.py). A poll landing between a registration's commit and its
    publication still reloads it (a saving missed, never a stale subject); one poll a
    second makes that a rare window next to a few milliseconds per registration."""

    server_args = ("--feed-interval-ms", "1000")

    def scans(self):
        return int(self.db.value("SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) "
                                 "FROM pg_stat_user_tables WHERE relname IN ('configs', 'modes')"))

    def metric(self, name):
        for line in self.get("/metrics").text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        self.fail(f"{name} missing from /metrics")

    def settle(self):
        """Waits until the feed has applied the whole log, then past a statistics flush
        (the feed's backend flushes at most once a second while it polls)."""
        last = int(self.db.value("SELECT coalesce(max(seq), 0) FROM changes"))
        deadline = time.monotonic() + 20
        while self.metric("schema_registry_change_feed_applied_sequence") < last:
            self.assertLess(time.monotonic(), deadline, "the feed did not catch up")
            time.sleep(0.1)
        time.sleep(3.5)

    def test_own_registrations_are_not_read_back(self):
        self.settle()
        before = self.scans()
        subjects = [self.sub("own") for _ in range(10)]
        for i, s in enumerate(subjects):
            self.register_ok(s, avro_record(f"Own{i}", [("f", "string")]))
        self.settle()
        self.assertEqual(self.scans() - before, 0)
        for s in subjects:
            self.assertEqual([v for v, _, _ in versions_in(self.db, s)], ["1"])
            self.assert_ok(self.get(f"/subjects/{quote(s)}/versions"), [1])

    def test_groups_are_counted(self):
        commits = self.metric("schema_registry_group_commits_total")
        items = self.metric("schema_registry_group_registrations_total")
        for i in range(3):
            self.register_ok(self.sub("counted"), avro_record(f"Counted{i}", [("f", "string")]))
        # One at a time: three groups of one.
        self.assertEqual(self.metric("schema_registry_group_commits_total") - commits, 3)
        self.assertEqual(self.metric("schema_registry_group_registrations_total") - items, 3)

    def test_a_change_from_elsewhere_is_still_reloaded(self):
        # The same subject changed behind this node's back (as another node would):
        # the feed reloads it, one reload per change row.
        s = self.sub("elsewhere")
        self.register_ok(s, avro_record("Else", [("f", "string")]))
        self.settle()
        before = self.scans()
        self.db.sql(f"UPDATE subject_versions SET deleted = true WHERE subject = {sql_literal(s)}")
        self.db.sql(f"INSERT INTO changes (scope) VALUES ({sql_literal(s)})")
        self.settle()
        self.assertGreater(self.scans() - before, 0)
        r = self.get(f"/subjects/{quote(s)}/versions")
        self.assertEqual((r.status, r.body["error_code"]), (404, 40401), r.body)


if __name__ == "__main__":
    harness.main()

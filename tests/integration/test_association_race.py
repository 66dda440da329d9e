"""A STRONG association and a schema reference exclude each other (docs/api.md,
"Associations"): a STRONG create on a referenced subject is 42206, a reference to a subject a
STRONG association holds is 42205 (Confluent's AbstractSchemaRegistry.createOrUpdateAssociation
and KafkaSchemaRegistry.register). Here the two race, on two nodes sharing the database: the
registration holds the shared reference-target lock of each subject it names from before its
42205 check to its commit, the STRONG create the exclusive one from before its 42206 check, so
the later of the two sees the earlier's commit and refuses. The locks are transaction-level
advisory locks with the two keys (12, hashtext(subject)) (store_lock_referenced).
"""

import os
import subprocess
import threading
import time

import harness
from harness import quote, sql_literal


def rec(name):
    return '{"type":"record","name":"%s","fields":[{"name":"f1","type":"string"}]}' % name


PAYMENT = '{"type":"record","name":"Payment","fields":[{"name":"order","type":"Order"}]}'


def lock_count(db, subject, mode, granted):
    """Advisory locks on subject's reference-target key in mode ('ShareLock' or
    'ExclusiveLock'), granted or waited for."""
    return int(db.value(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 12"
        f" AND objsubid = 2 AND objid::bigint = (hashtext({sql_literal(subject)})::bigint & 4294967295)"
        f" AND mode = '{mode}' AND granted = {'true' if granted else 'false'}"))


def wait_until(what, cond, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Session:
    """A psql session kept open: each statement sent runs as it arrives, in one transaction
    until commit() or rollback()."""

    def __init__(self, pg, db):
        self.pg, self.app = pg, f"sr-it-race-{os.getpid()}-{id(self)}"
        self.proc = subprocess.Popen(
            [pg._bin("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
             "-p", str(pg.port), "-U", "postgres", "-d", db.name],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
            env=dict(os.environ, PGAPPNAME=self.app))
        harness.at_exit(self.kill)
        self.send("BEGIN;")

    def send(self, sql):
        self.proc.stdin.write(sql + "\n")
        self.proc.stdin.flush()

    def end(self, how):
        self.send(f"{how};")
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        if self.proc.returncode != 0:
            raise AssertionError(f"psql failed ({self.proc.returncode})")

    def commit(self):
        self.end("COMMIT")

    def rollback(self):
        self.end("ROLLBACK")

    def kill(self):
        if self.proc.poll() is None:
            self.pg.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        f"WHERE application_name = '{self.app}'")
            self.proc.kill()
            self.proc.wait(timeout=30)


class Call(threading.Thread):
    """One request on its own thread; .response once joined."""

    def __init__(self, fn):
        super().__init__(daemon=True)
        self.fn, self.response = fn, None
        self.start()

    def run(self):
        self.response = self.fn()

    def result(self):
        self.join(timeout=60)
        if self.is_alive():
            raise AssertionError("the request did not finish")
        return self.response


class StrongReferenceRace(harness.TwoNodeTestCase):
    # Node A follows the feed slowly: what node B registers, node A learns only from the
    # database within a test.
    server_args = ("--feed-interval-ms", "20000")

    def strong_body(self, name, rid):
        """POST /associations: a topic's key subject, STRONG and frozen, with its schema."""
        return {"resourceName": name, "resourceNamespace": "default", "resourceId": rid,
                "associations": [{"associationType": "key", "lifecycle": "STRONG", "frozen": True,
                                  "schema": {"schema": rec("Order")}}]}

    def target(self):
        """A topic's default key subject, registered on node A and known to node B."""
        name = self.sub("t")
        subject = f":.default:{name}-key"
        self.register_ok(subject, rec("Order"))
        b = self.node_b.client()
        wait_until("node B to know the subject",
                   lambda: b.get(f"/subjects/{quote(subject)}/versions/1").status == 200)
        return name, subject

    def refs(self, subject):
        return [{"name": "Order", "subject": subject, "version": 1}]

    def strong_rows(self, subject):
        return self.db.count("associations", f"subject = {sql_literal(subject)}")

    def test_registration_waits_for_strong_create(self):
        """A STRONG create that holds the subject's exclusive lock and has not committed yet
        makes a registration referring to the subject wait, then answer 42205 once the create
        commits; nothing of the registration is stored."""
        name, target = self.target()
        referrer = self.sub("payment")
        create = Session(self.pg, self.db)
        # What the create's transaction has done when it is about to commit.
        create.send(f"SELECT pg_advisory_xact_lock(12, hashtext({sql_literal(target)}));")
        create.send("INSERT INTO associations (resource_id, resource_type, association_type,"
                    " resource_name, resource_namespace, subject, guid, lifecycle, frozen,"
                    " created_ms, updated_ms) VALUES"
                    f" ({sql_literal(self.sub('rid'))}, 'topic', 'key', {sql_literal(name)},"
                    f" 'default', {sql_literal(target)}, gen_random_uuid()::text, 'STRONG', true,"
                    " 0, 0);")
        wait_until("the create's lock", lambda: lock_count(self.db, target, "ExclusiveLock", True) == 1)
        before = self.db.state()
        b = self.node_b.client()
        call = Call(lambda: b.post(f"/subjects/{quote(referrer)}/versions",
                                   self.schema_body(PAYMENT, references=self.refs(target))))
        wait_until("the registration to wait for the lock",
                   lambda: lock_count(self.db, target, "ShareLock", False) == 1)
        time.sleep(0.3)
        self.assertTrue(call.is_alive(), call.response)
        create.commit()
        r = call.result()
        self.assert_error(r, 422, 42205)
        self.assertEqual(r.body["message"],
                         f"Subject '{target}' has a strong association and cannot be referenced")
        self.assertEqual(self.db.state(), before)
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(referrer)}"), 0)
        self.assert_error(b.get(f"/subjects/{quote(referrer)}/versions"), 404, 40401)

    def strong_waits_for_registration(self, strong, prepare=None):
        """A registration on node B holds the shared lock of the subject it refers to while it
        waits for its own subject (held here); strong(name, target), a STRONG write of that
        subject on node A, waits for it, and once the registration commits answers 42206, read
        from the database (node A has not loaded the referrer); no association is stored.
        prepare(target), if given, runs first."""
        name, target = self.target()
        if prepare:
            prepare(target)
        referrer = self.sub("payment")
        stuck = Session(self.pg, self.db)
        self.addCleanup(stuck.kill)
        stuck.send(f"SELECT pg_advisory_xact_lock(hashtextextended({sql_literal(referrer)}, 7));")
        wait_until("the referrer's subject lock",
                   lambda: self.db.value("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a"
                                         " USING (pid) WHERE l.locktype = 'advisory' AND l.granted"
                                         f" AND a.application_name = '{stuck.app}'") == "1")
        b = self.node_b.client()
        register = Call(lambda: b.post(f"/subjects/{quote(referrer)}/versions",
                                       self.schema_body(PAYMENT, references=self.refs(target))))
        wait_until("the registration's shared lock",
                   lambda: lock_count(self.db, target, "ShareLock", True) == 1)
        associations = self.db.count("associations")
        write = Call(lambda: strong(name, target))
        wait_until("the STRONG write to wait for the lock",
                   lambda: lock_count(self.db, target, "ExclusiveLock", False) == 1)
        time.sleep(0.3)
        self.assertTrue(write.is_alive(), write.response)
        self.assertTrue(register.is_alive(), register.response)
        stuck.rollback()
        r = register.result()
        self.assertEqual(r.status, 200, r)
        r = write.result()
        self.assert_error(r, 422, 42206)
        self.assertEqual(r.body["message"], f"One or more references exist to the schema {target}.")
        self.assertEqual(self.db.count("associations"), associations)
        self.assertEqual(self.strong_rows(target), 0)
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(referrer)}"), 1)

    def test_strong_create_waits_for_registration(self):
        a = self.server.client()
        self.strong_waits_for_registration(
            lambda name, target: a.post("/associations", self.strong_body(name, self.sub("rid"))))

    def test_import_upsert_waits_for_registration(self):
        """The STRONG upsert (PUT /associations/resources/{id}, allowed in IMPORT mode only:
        it replicates an association established on a source registry) takes the same
        exclusive lock as a STRONG create."""
        a = self.server.client()

        def upsert(name, target):
            body = {"resourceName": name, "resourceNamespace": "default", "resourceType": "topic",
                    "associations": [{"subject": target, "associationType": "key", "lifecycle": "STRONG"}]}
            return a.put(f"/associations/resources/{quote(self.sub('rid'))}", body)

        self.strong_waits_for_registration(upsert, prepare=lambda target: self.assert_ok(
            self.put(f"/mode/{quote(target)}", {"mode": "IMPORT"}, params={"force": "true"})))

    def test_referrer_only_in_the_database(self):
        """The 42206 check reads the references from the database: a referrer node B has
        just registered, in a named context with the reference's subject bare (read in the
        referrer's context), refuses a STRONG create of the subject on node A, which has not
        loaded the referrer."""
        name = self.sub("t")
        target = f":.myctx:{name}-key"
        self.register_ok(target, rec("Order"))
        b = self.node_b.client()
        wait_until("node B to know the subject",
                   lambda: b.get(f"/subjects/{quote(target)}/versions/1").status == 200)
        referrer = f":.myctx:{self.sub('payment')}"
        r = b.post(f"/subjects/{quote(referrer)}/versions",
                   self.schema_body(PAYMENT, references=[
                       {"name": "Order", "subject": f"{name}-key", "version": 1}]))
        self.assertEqual(r.status, 200, r)
        self.assert_error(self.get(f"/subjects/{quote(referrer)}/versions"), 404, 40401)
        body = dict(self.strong_body(name, self.sub("rid")), resourceNamespace="myctx")
        before = self.db.count("associations")
        r = self.post("/associations", body)
        self.assert_error(r, 422, 42206)
        self.assertEqual(r.body["message"], f"One or more references exist to the schema {target}.")
        self.assertEqual(self.db.count("associations"), before)

    def test_storm(self):
        """Pairs of a registration referring to a subject and a STRONG create of it, all at
        once, each of a pair on another node: exactly one of each pair is done, the other is
        its refusal (42205 or 42206), nothing else (no deadlock, no 500), and no STRONG
        association's subject is referenced by a stored version."""
        pairs = [self.target() for _ in range(10)]
        a, b = self.server.client(), self.node_b.client()
        start = threading.Barrier(2 * len(pairs))
        calls = []
        for i, (name, target) in enumerate(pairs):
            reg_node, assoc_node = (a, b) if i % 2 else (b, a)
            referrer = self.sub("payment")

            def register(node=reg_node, referrer=referrer, target=target):
                start.wait()
                return node.post(f"/subjects/{quote(referrer)}/versions",
                                 self.schema_body(PAYMENT, references=self.refs(target)))

            def create(node=assoc_node, name=name):
                start.wait()
                return node.post("/associations", self.strong_body(name, self.sub("rid")))

            calls.append((target, Call(register), Call(create)))
        for target, register, create in calls:
            r, c = register.result(), create.result()
            outcome = (r.status, c.status)
            self.assertIn(outcome, ((200, 422), (422, 200)), (target, r, c))
            if r.status == 422:
                self.assertEqual(r.body["error_code"], 42205, r)
                self.assertEqual(self.strong_rows(target), 1)
            else:
                self.assertEqual(c.body["error_code"], 42206, c)
                self.assertEqual(self.strong_rows(target), 0)
        # The invariant, from the database: no STRONG association on a subject a schema that
        # some version carries refers to (all references here are written qualified).
        self.assertEqual(self.db.value(
            "SELECT count(*) FROM associations s JOIN schema_references r ON r.ref_subject = s.subject"
            " WHERE s.lifecycle = 'STRONG' AND EXISTS (SELECT 1 FROM subject_versions v"
            "  WHERE v.context = r.context AND v.schema_id = r.schema_id)"), "0")


# The key every association write and every delete guarded by the associations take first
# (REG_ASSOC_LOCK, registry/internal.h): store_lock_scope's one-key advisory lock.
ASSOC_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended(E'\\x01associations', 7));"


def assoc_lock_waiters(db):
    """Backends waiting for the associations' lock."""
    return int(db.value(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1"
        " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(E'\\x01associations', 7)"))


class DeleteAssociationRace(harness.TwoNodeTestCase):
    """A subject's delete refuses while an association names it (40904), a soft version delete
    keeps the last live version of such a subject (40907), and an association needs a live
    version of its subject (40907) (KafkaSchemaRegistry.deleteSubject, deleteSchemaVersion,
    AbstractSchemaRegistry.createOrUpdateAssociation). Here each races the other, across two
    nodes: the delete takes the associations' lock before its guard, the create reads its
    subject's versions from the database under that lock, so the later one sees the earlier's
    commit and refuses (docs/api.md, "Associations")."""
    # Node A follows the feed slowly: it learns of node B's writes only from the database.
    server_args = ("--feed-interval-ms", "20000")

    def subject(self):
        """A subject registered on node A and known to node B, with one version."""
        subject = self.sub("s")
        self.register_ok(subject, rec("Order"))
        b = self.node_b.client()
        wait_until("node B to know the subject",
                   lambda: b.get(f"/subjects/{quote(subject)}/versions/1").status == 200)
        return subject

    def association_in_flight(self, subject):
        """A psql session that has done what an association create does before its commit."""
        create = Session(self.pg, self.db)
        self.addCleanup(create.kill)  # a failed test's open transaction would hold the lock
        create.send(ASSOC_LOCK_SQL)
        create.send("INSERT INTO associations (resource_id, resource_type, association_type,"
                    " resource_name, resource_namespace, subject, guid, lifecycle, frozen,"
                    " created_ms, updated_ms) VALUES"
                    f" ({sql_literal(self.sub('rid'))}, 'topic', 'key', {sql_literal(self.sub('t'))},"
                    f" 'default', {sql_literal(subject)}, gen_random_uuid()::text, 'WEAK', false,"
                    " 0, 0);")
        self.wait_done(create, "INSERT")
        return create

    def wait_done(self, session, statement):
        """Until the session has run its last statement (which begins with `statement`)."""
        wait_until(f"the session's {statement}", lambda: self.db.value(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
            f"{sql_literal(session.app)} AND state = 'idle in transaction'"
            f" AND query LIKE {sql_literal(statement + '%')}") == "1")

    def versions(self, subject):
        return self.db.sql("SELECT version, deleted::int FROM subject_versions WHERE subject = "
                           f"{sql_literal(subject)} ORDER BY version")

    def wait_behind_the_lock(self, call):
        wait_until("the request to wait for the associations' lock",
                   lambda: assoc_lock_waiters(self.db) == 1)
        time.sleep(0.3)
        self.assertTrue(call.is_alive(), call.response)

    def delete_waits_for_association_create(self, path, code, message):
        """A delete of path (under the subject) sent while an association create holds the
        lock waits for it, then is refused as the committed association says."""
        subject = self.subject()
        create = self.association_in_flight(subject)
        b = self.node_b.client()
        call = Call(lambda: b.delete(f"/subjects/{quote(subject)}{path}"))
        self.wait_behind_the_lock(call)
        create.commit()
        r = call.result()
        self.assert_error(r, 409, code)
        self.assertEqual(r.body["message"], message.format(subject=subject))
        self.assertEqual(self.versions(subject), [("1", "0")])

    def test_subject_delete_waits_for_association_create(self):
        self.delete_waits_for_association_create(
            "", 40904, "An association already exists for subject '{subject}'")

    def test_version_delete_waits_for_association_create(self):
        self.delete_waits_for_association_create(
            "/versions/1", 40907, "No active (non-deleted) version exists for subject '{subject}'")

    def test_association_create_reads_the_delete_from_the_database(self):
        """Node A's memory still holds the subject live (its feed is slow); the create reads
        the versions the delete committed."""
        subject = self.subject()
        delete = Session(self.pg, self.db)
        self.addCleanup(delete.kill)
        delete.send(ASSOC_LOCK_SQL)
        delete.send(f"UPDATE subject_versions SET deleted = true WHERE subject = {sql_literal(subject)};")
        self.wait_done(delete, "UPDATE")
        a = self.server.client()
        body = {"resourceName": self.sub("t"), "resourceNamespace": "default", "resourceId": self.sub("rid"),
                "resourceType": "topic",
                "associations": [{"subject": subject, "associationType": "key", "lifecycle": "WEAK",
                                  "frozen": False}]}
        call = Call(lambda: a.post("/associations", body))
        self.wait_behind_the_lock(call)
        delete.commit()
        r = call.result()
        self.assert_error(r, 409, 40907)
        self.assertEqual(r.body["message"], f"No active (non-deleted) version exists for subject '{subject}'")
        self.assertEqual(self.db.count("associations", f"subject = {sql_literal(subject)}"), 0)


    def test_storm(self):
        """Pairs of a subject's delete and an association create naming it, all at once, each
        of a pair on another node: exactly one of each pair is done and the other is its
        refusal (40907 or 40904), nothing else (no deadlock, no 500), and no association names
        a subject without a live version."""
        subjects = [self.subject() for _ in range(10)]
        a, b = self.server.client(), self.node_b.client()
        start = threading.Barrier(2 * len(subjects))
        calls = []
        for i, subject in enumerate(subjects):
            del_node, assoc_node = (a, b) if i % 2 else (b, a)
            body = {"resourceName": self.sub("t"), "resourceNamespace": "default",
                    "resourceId": self.sub("rid"), "resourceType": "topic",
                    "associations": [{"subject": subject, "associationType": "key", "lifecycle": "WEAK",
                                      "frozen": False}]}

            def delete(node=del_node, subject=subject):
                start.wait()
                return node.delete(f"/subjects/{quote(subject)}")

            def create(node=assoc_node, body=body):
                start.wait()
                return node.post("/associations", body)

            calls.append((subject, Call(delete), Call(create)))
        for subject, delete, create in calls:
            d, c = delete.result(), create.result()
            self.assertIn((d.status, c.status), ((200, 409), (409, 200)), (subject, d, c))
            if d.status == 200:
                self.assertEqual(c.body["error_code"], 40907, c)
                self.assertEqual(self.db.count("associations", f"subject = {sql_literal(subject)}"), 0)
            else:
                self.assertEqual(d.body["error_code"], 40904, d)
                self.assertEqual(self.versions(subject), [("1", "0")])
        self.assertEqual(self.db.value(
            "SELECT count(*) FROM associations s WHERE NOT EXISTS (SELECT 1 FROM subject_versions v"
            " WHERE v.subject = s.subject AND NOT v.deleted)"), "0")


if __name__ == "__main__":
    harness.main()

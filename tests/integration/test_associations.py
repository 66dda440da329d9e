"""Associations: a subject tied to a resource (a Kafka topic) as its key or value schema,
as Confluent's community server answers them (issue 13; docs/api.md, "Associations").

The routes are AssociationsResource's; the rules are AssociationCreateOrUpdateRequest.validate,
AssociationCreateOrUpdateInfo.validate/applyDefaults and
AbstractSchemaRegistry.createOrUpdateAssociation / deleteAssociations; the subject and version
delete guards are KafkaSchemaRegistry.deleteSubject / deleteSchemaVersion. The flows follow
Confluent's RestApiAssociationTest (testBasicAssociation, testAssociationFrozen,
testAssociationDuplicateTypes, testAssociationForResourceExists, testNoActiveSubjectVersionExists,
testIdempotentValidateAndCreateRetry, testCreateWithSchemaDefaultsToStrongFrozen, ...); that test
only asserts that the refusals throw, so the codes and messages here are those of Errors and
RestInvalidAssociationException.
"""

import re
import time

import harness
from harness import quote

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def rec(name):
    return '{"type":"record","name":"%s","fields":[{"name":"f1","type":"string"}]}' % name


def invalid(prop, detail):
    return ("The association specified an invalid value for property: '%s', detail: %s"
            % (prop, detail))


class Associations(harness.RegistryTestCase):

    def create(self, body, **params):
        return self.post("/associations", body, params=params or None)

    def by_subject(self, subject, **params):
        return self.get(f"/associations/subjects/{quote(subject)}", params=params or None)

    def by_id(self, rid, **params):
        return self.get(f"/associations/resources/{quote(rid)}", params=params or None)

    def by_name(self, ns, name, **params):
        return self.get(f"/associations/resources/{quote(ns)}/{quote(name)}", params=params or None)

    def delete_assoc(self, rid, **params):
        return self.delete(f"/associations/resources/{quote(rid)}", params=params or None)

    def stripped(self, resp):
        """The list with guid and times checked for shape, then left out."""
        body = self.assert_ok(resp)
        out = []
        for a in body:
            a = dict(a)
            self.assertRegex(a.pop("guid"), UUID)
            self.assertIsInstance(a.pop("createTimestamp"), int)
            self.assertIsInstance(a.pop("updateTimestamp"), int)
            out.append(a)
        return out

    def state(self):
        s = self.db.state()
        s["associations"] = self.db.count("associations")
        s["audit"] = self.db.count("audit_log", "outcome = 'ok'")
        return s

    def assert_refused(self, resp, status, code, message):
        self.assert_error(resp, status, code)
        self.assertEqual(resp.body["message"], message)

    def rid(self, n):
        """A resource id no other test uses."""
        return f"{self._testMethodName}-{n}"

    def weak(self, name, rid, subject, atype="key"):
        return {"resourceName": name, "resourceNamespace": "default", "resourceId": rid,
                "resourceType": "topic",
                "associations": [{"subject": subject, "associationType": atype,
                                  "lifecycle": "WEAK", "frozen": False}]}

    def test_basic_association(self):
        """testBasicAssociation: a dry run without a resource id answers the resource alone; the
        create answers what it wrote; the three listings find it; deleting a WEAK association,
        with cascadeLifecycle or without, leaves its subject's schemas alone."""
        s1, s2 = self.sub("a"), self.sub("b")
        self.register_ok(s1, rec("r1"))
        self.register_ok(s2, rec("r2"))
        name = self.sub("topic")
        body = {"resourceName": name, "resourceNamespace": "default", "resourceType": "topic",
                "associations": [
                    {"subject": s1, "associationType": "key", "lifecycle": "WEAK", "frozen": False},
                    {"subject": s2, "associationType": "value", "lifecycle": "WEAK",
                     "frozen": False}]}
        before = self.state()
        self.assert_ok(self.create(body, dryRun="true"),
                       {"resourceName": name, "resourceNamespace": "default",
                        "resourceType": "topic"})
        self.assertEqual(self.state(), before)
        body["resourceId"] = "123-45-6789"
        self.assert_ok(self.create(body), {
            "resourceName": name, "resourceNamespace": "default", "resourceId": "123-45-6789",
            "resourceType": "topic",
            "associations": [
                {"subject": s1, "associationType": "key", "lifecycle": "WEAK"},
                {"subject": s2, "associationType": "value", "lifecycle": "WEAK"}]})

        def entry(subject, atype):
            return {"subject": subject, "resourceName": name, "resourceNamespace": "default",
                    "resourceId": "123-45-6789", "resourceType": "topic",
                    "associationType": atype, "lifecycle": "WEAK"}
        both = [entry(s1, "key"), entry(s2, "value")]
        self.assertEqual(self.stripped(self.by_subject(s1, resourceType="topic",
                                                       associationType="key")),
                         [entry(s1, "key")])
        self.assertEqual(self.stripped(self.by_subject(s2, associationType="key")), [])
        types = [("associationType", "key"), ("associationType", "value")]
        self.assertEqual(self.stripped(self.get("/associations/resources/123-45-6789",
                                                params=types + [("resourceType", "topic")])),
                         both)
        self.assertEqual(self.stripped(self.by_name("-", name)), both)
        self.assertEqual(self.stripped(self.by_name("default", name)), both)
        self.assertEqual(self.stripped(self.by_name("default", "-")), both)
        self.assertEqual(self.stripped(self.by_name("other", name)), [])
        self.assertEqual(self.stripped(self.by_id("123-45-6789", lifecycle="STRONG")), [])
        self.assertEqual(self.stripped(self.by_id("123-45-6789", offset="1", limit="1")),
                         [entry(s2, "value")])
        self.assertEqual(self.db.count("audit_log", "action = 'association_create'"), 2)

        r = self.delete_assoc("123-45-6789", resourceType="topic", associationType="key")
        self.assertEqual(r.status, 204, r)
        self.assertEqual(self.stripped(self.by_subject(s1)), [])
        r = self.delete_assoc("123-45-6789", associationType="value", cascadeLifecycle="true")
        self.assertEqual(r.status, 204, r)
        self.assertEqual(self.stripped(self.by_id("123-45-6789")), [])
        self.assertEqual(len(self.assert_ok(self.get("/schemas",
                                                     params={"subjectPrefix": s1}))), 1)
        self.assertEqual(len(self.assert_ok(self.get("/schemas",
                                                     params={"subjectPrefix": s2}))), 1)
        rows = self.db.sql("SELECT subject, details->>'associationType' FROM audit_log"
                           " WHERE action = 'association_delete' ORDER BY id")
        self.assertEqual(rows, [(s1, "key"), (s2, "value")])

    def test_refused_creates_change_nothing(self):
        """AssociationCreateOrUpdateRequest.validate and AssociationCreateOrUpdateInfo.validate:
        42212 with RestInvalidAssociationException's message, nothing stored."""
        s = self.sub()
        self.register_ok(s, rec("r"))
        name = self.sub("t")
        dflt = f":.default:{name}-value"
        schema = {"schema": rec("r2")}

        def req(entries, **over):
            b = {"resourceName": name, "resourceNamespace": "default",
                 "resourceId": self.rid("1"),
                 "associations": entries}
            b.update(over)
            return b
        cases = [
            (req([{"subject": s}], resourceName=None),
             invalid("resourceName", "cannot be null or empty")),
            (req([{"subject": s}], resourceName="bad name"),
             invalid("resourceName", "illegal character ' '")),
            (req([{"subject": s}], resourceNamespace="x" * 257),
             invalid("resourceNamespace", "exceeds max length of 256")),
            (req([{"subject": s}], resourceId=""),
             invalid("resourceId", "cannot be null or empty")),
            (req([{"subject": s}], resourceType="group"),
             invalid("resourceType", "must be 'topic'")),
            (req([]), invalid("associations", "cannot be null or empty")),
            (req([{"subject": s, "associationType": "other"}]),
             invalid("associationType", "must be either 'key' or 'value'")),
            (req([{"associationType": "key"}]),
             invalid("subject", "must be provided for WEAK associations")),
            (req([{"subject": dflt}]),
             invalid("subject", f"WEAK associations cannot use subject '{dflt}'")),
            (req([{"subject": s, "frozen": True}]),
             invalid("frozen", "association with lifecycle of WEAK cannot be frozen=true")),
            (req([{"lifecycle": "STRONG", "frozen": False}]),
             invalid("frozen", "association with lifecycle of STRONG cannot be frozen=false")),
            # testNonImportFrozenAssociationWithoutSchemaStillFails
            (req([{"lifecycle": "STRONG"}]),
             invalid("schema", "schema must be provided when creating a frozen association")),
            # testCreateWithSchemaAndWeakLifecycleFails, ...AndFrozenFalseFails
            (req([{"subject": s, "lifecycle": "WEAK", "schema": schema}]),
             invalid("lifecycle", "cannot be WEAK when schema is provided")),
            (req([{"frozen": False, "schema": schema}]),
             invalid("frozen", "cannot be false when a schema is provided")),
            # testCreateFrozenWithCustomSubjectFails
            (req([{"subject": s, "schema": schema}]),
             invalid("subject", f"frozen associations must use subject '{dflt}'")),
            # testAssociationDuplicateTypes
            (req([{"subject": s, "associationType": "key"},
                  {"subject": s, "associationType": "key"}]),
             invalid("associationType",
                     "may only appear once per request, but 'key' appears more than once")),
            # testCreateMixedLifecyclesInOneRequestFails
            (req([{"subject": s, "associationType": "key"}, {"schema": schema}]),
             invalid("lifecycle", "all associations for a resource must have the same lifecycle,"
                     " but got key=WEAK, value=STRONG")),
            (req([{"subject": " "}]), None),
            (req([{"subject": "a\tb"}]), invalid("subject", "must not be empty")),
        ]
        before = self.state()
        for body, message in cases:
            with self.subTest(body=body):
                r = self.create(body)
                if message is None:  # a blank subject is a subject: no version there
                    self.assert_refused(r, 409, 40907, "No active (non-deleted) version exists"
                                        " for subject ' '")
                else:
                    self.assert_refused(r, 422, 42212, message)
                self.assertEqual(self.state(), before)
        for body in ({"associations": {}}, {"associations": [1]},
                     {"resourceName": name, "resourceNamespace": "default", "resourceId": "x",
                      "associations": [{"subject": s, "lifecycle": "weak"}]},
                     {"resourceName": name, "resourceNamespace": "default", "resourceId": "x",
                      "associations": [{"schema": "not an object"}]}):
            with self.subTest(body=body):
                self.assertEqual(self.create(body).status, 400)
                self.assertEqual(self.state(), before)

    def test_conflicts(self):
        """testNoActiveSubjectVersionExists (40907), testAssociationForResourceExists (40903),
        testStrongAssociationForSubjectExists (40905) and a STRONG association on a subject that
        another resource holds already (40904)."""
        s = self.sub()
        missing = self.sub("missing")
        name = self.sub("t")
        self.register_ok(s, rec("r"))
        before = self.state()
        self.assert_refused(self.create(self.weak(name, self.rid("1"), missing)), 409, 40907,
                            f"No active (non-deleted) version exists for subject '{missing}'")
        self.assertEqual(self.state(), before)
        self.assert_ok(self.create(self.weak(name, self.rid("1"), s)))
        before = self.state()
        other = self.sub("other")
        self.register_ok(other, rec("o"))
        before = self.state()
        self.assert_refused(self.create(self.weak(name, self.rid("1"), other)), 409, 40903,
                            f"An association of type 'key' already exists for resource '{name}'")
        self.assertEqual(self.state(), before)
        # A STRONG association (with its schema, on the default subject) whose subject is
        # already weakly associated elsewhere: 40904.
        name2 = self.sub("t2")
        dflt = f":.default:{name2}-value"
        self.register_ok(dflt, rec("d"))
        self.assert_ok(self.create(self.weak(name, self.rid("9"), dflt, "value")))
        before = self.state()
        r = self.create({"resourceName": name2, "resourceNamespace": "default",
                         "resourceId": self.rid("2"),
                         "associations": [{"schema": {"schema": rec("d")}}]})
        self.assert_refused(r, 409, 40904, f"An association already exists for subject '{dflt}'")
        self.assertEqual(self.state(), before)

        # testStrongAssociationForSubjectExists: a WEAK one on a STRONG one's subject.
        name3 = self.sub("t3")
        strong = f":.default:{name3}-value"
        self.assert_ok(self.create({"resourceName": name3, "resourceNamespace": "default",
                                    "resourceId": self.rid("3"),
                                    "associations": [{"schema": {"schema": rec("x")}}]}))
        before = self.state()
        self.assert_refused(self.create(self.weak(self.sub("t4"), self.rid("4"), strong)), 409, 40905,
                            f"A strong association already exists for subject '{strong}'")
        self.assertEqual(self.state(), before)

    def upsert(self, rid, body, **params):
        return self.put(f"/associations/resources/{quote(rid)}", body, params=params or None)

    def test_create_or_update(self):
        """PUT /associations/resources/{resourceId}: AssociationsResource.createOrUpdateAssociation
        and AbstractSchemaRegistry.createOrUpdateAssociation(isCreate = false). It adds WEAK
        associations to an existing topic (the id from the path), is idempotent, and refuses
        STRONG or schema-carrying new ones, changes of subject, lifecycle or frozen, and updates
        of a frozen one, each refusal leaving the database as it was."""
        s, s2 = self.sub("a"), self.sub("b")
        self.register_ok(s, rec("r"))
        self.register_ok(s2, rec("r2"))
        name = self.sub("t")
        rid = self.rid("1")
        body = {"resourceName": name, "resourceNamespace": "default",
                "associations": [{"subject": s, "associationType": "key"}]}
        before = self.state()
        # A dry run checks and writes nothing.
        self.assert_ok(self.upsert(rid, body, dryRun="true"),
                       {"resourceName": name, "resourceNamespace": "default", "resourceId": rid,
                        "resourceType": "topic"})
        self.assertEqual(self.state(), before)
        # The lifecycle defaults to WEAK (applyDefaults(false)); the id comes from the path.
        self.assert_ok(self.upsert(rid, body), {
            "resourceName": name, "resourceNamespace": "default", "resourceId": rid,
            "resourceType": "topic",
            "associations": [{"subject": s, "associationType": "key", "lifecycle": "WEAK"}]})
        self.assertEqual(self.stripped(self.by_id(rid)), [
            {"subject": s, "resourceName": name, "resourceNamespace": "default",
             "resourceId": rid, "resourceType": "topic", "associationType": "key",
             "lifecycle": "WEAK"}])
        self.assertEqual(self.db.sql("SELECT subject, details->>'resourceId' FROM audit_log"
                                     " WHERE action = 'association_update' AND outcome = 'ok'"),
                         [(s, rid)])
        # The same again, with or without the subject: equivalent, nothing written.
        before = self.state()
        same = {"resourceName": name, "resourceNamespace": "default", "resourceId": rid,
                "resourceType": "topic"}
        self.assert_ok(self.upsert(rid, body), same)
        self.assert_ok(self.upsert(rid, {"resourceName": name, "resourceNamespace": "default",
                                         "associations": [{"associationType": "key",
                                                           "lifecycle": "WEAK"}]}), same)
        self.assertEqual(self.state(), before)

        dflt = f":.default:{name}-value"
        refusals = [
            ({"resourceId": "other"}, [{"subject": s2, "associationType": "value"}],
             invalid("resourceId", "Resource ID in the path parameter does not match the "
                                   "resource ID in the request body")),
            ({}, [{"subject": s2, "associationType": "value", "lifecycle": "STRONG",
                   "frozen": True}],
             invalid("subject", f"frozen associations must use subject '{dflt}'")),
            ({}, [{"associationType": "value", "lifecycle": "STRONG"}],
             invalid("lifecycle", "cannot be STRONG when creating an association; STRONG "
                                  "associations must be created with the topic")),
            ({}, [{"associationType": "value", "schema": {"schema": rec("v")}}],
             invalid("schema", "cannot be provided when adding an association to an existing "
                               "topic; an association with a schema must be created with the "
                               "topic")),
            ({}, [{"associationType": "value"}],
             invalid("subject", "must be provided for WEAK associations")),
            ({}, [{"subject": s2, "associationType": "value", "lifecycle": "WEAK",
                   "frozen": True}],
             invalid("frozen", "association with lifecycle of WEAK cannot be frozen")),
            ({}, [{"subject": s2, "associationType": "key"}],
             invalid("lifecycle", "at least lifecycle or schema must be provided for update")),
            ({}, [{"subject": s2, "associationType": "key", "lifecycle": "WEAK"}],
             invalid("subject", f"subject of association cannot be changed from '{s}' to "
                                f"'{s2}'")),
            ({}, [{"subject": s, "associationType": "key", "lifecycle": "STRONG"}],
             invalid("frozen", "association with lifecycle of STRONG cannot be frozen=false")),
            ({}, [{"subject": s, "associationType": "key", "lifecycle": "WEAK", "frozen": True}],
             invalid("frozen", "association with lifecycle of WEAK cannot be frozen")),
            ({}, [{"subject": s2, "associationType": "value"},
                  {"subject": s2, "associationType": "value"}],
             invalid("associationType", "may only appear once per request, but 'value' appears "
                                        "more than once")),
        ]
        before = self.state()
        for extra, entries, message in refusals:
            req = {"resourceName": name, "resourceNamespace": "default", **extra,
                   "associations": entries}
            with self.subTest(req=req):
                self.assert_refused(self.upsert(rid, req), 422, 42212, message)
                self.assertEqual(self.state(), before)

        # A frozen (STRONG) association, created with its topic, cannot be updated: 40908.
        name2 = self.sub("t2")
        strong = f":.default:{name2}-value"
        rid2 = self.rid("2")
        self.assert_ok(self.create({"resourceName": name2, "resourceNamespace": "default",
                                    "resourceId": rid2,
                                    "associations": [{"schema": {"schema": rec("x")}}]}))
        before = self.state()
        # Re-stating it is equivalent and writes nothing.
        self.assert_ok(self.upsert(rid2, {"resourceName": name2, "resourceNamespace": "default",
                                          "associations": [{"lifecycle": "STRONG"}]}),
                       {"resourceName": name2, "resourceNamespace": "default",
                        "resourceId": rid2, "resourceType": "topic"})
        self.assert_refused(
            self.upsert(rid2, {"resourceName": name2, "resourceNamespace": "default",
                               "associations": [{"lifecycle": "WEAK", "frozen": False}]}),
            422, 42212, invalid("subject", f"WEAK associations cannot use subject '{strong}'"))
        self.assertEqual(self.state(), before)
        # A WEAK one on the STRONG one's subject, through PUT: 40905.
        self.assert_refused(
            self.upsert(self.rid("3"), {"resourceName": self.sub("t3"),
                                        "resourceNamespace": "default",
                                        "associations": [{"subject": strong}]}),
            409, 40905, f"A strong association already exists for subject '{strong}'")
        self.assertEqual(self.state(), before)

    def test_batch_get(self):
        """POST /associations:batchGet (AssociationsResource.batchGetAssociations,
        AbstractSchemaRegistry.batchGetAssociations): 207 with one result per request, by
        resource id or by name and namespace; a request that fails validation is an entry with
        error_code 500 (RestServerErrorException.DEFAULT_ERROR_CODE), not a failed call;
        includeSchemas adds each subject's latest version. Reads change nothing."""
        s = self.sub("a")
        self.register_ok(s, rec("r"))
        name, name2 = self.sub("t"), self.sub("t2")
        rid, rid2 = self.rid("1"), self.rid("2")
        self.assert_ok(self.create(self.weak(name, rid, s)))
        self.assert_ok(self.create({"resourceName": name2, "resourceNamespace": "default",
                                    "resourceId": rid2,
                                    "associations": [{"schema": {"schema": rec("x")}}]}))
        strong = f":.default:{name2}-value"
        before = self.state()
        weak_info = {"subject": s, "associationType": "key", "lifecycle": "WEAK"}
        r = self.post("/associations:batchGet", {"requests": [
            {"resourceId": rid},
            {"resourceName": name2, "resourceNamespace": "default"},
            {"resourceId": rid, "associationTypes": ["value"]},
            {"resourceId": rid2, "lifecycle": "WEAK"},
            {"resourceNamespace": "default"},
            {"resourceName": name},
            {"resourceId": "nothing-here"},
            {"resourceId": rid, "resourceName": "another-name", "resourceNamespace": "default"},
        ]})
        self.assertEqual(r.status, 207, r)
        self.maxDiff = None
        err = "Error while getting associations: "
        self.assertEqual(r.body, {"results": [
            {"result": {"resourceName": name, "resourceNamespace": "default",
                        "resourceId": rid, "resourceType": "topic",
                        "associations": [weak_info]}},
            {"result": {"resourceName": name2, "resourceNamespace": "default",
                        "resourceId": rid2, "resourceType": "topic",
                        "associations": [{"subject": strong, "associationType": "value",
                                          "lifecycle": "STRONG"}]}},
            # Nothing found: only what the request named (NON_EMPTY drops the rest).
            {"result": {"resourceId": rid, "resourceType": "topic"}},
            {"result": {"resourceId": rid2, "resourceType": "topic"}},
            {"error": {"error_code": 500, "message": err + "property: resourceId; detail: either "
                       "resourceId or resourceName must be specified"}},
            {"error": {"error_code": 500, "message": err + "property: resourceNamespace; detail: "
                       "resourceNamespace is required when resourceName is specified"}},
            {"result": {"resourceId": "nothing-here", "resourceType": "topic"}},
            {"error": {"error_code": 500, "message": err + "All associations must have the same "
                       "resourceName, resourceNamespace, resourceId, and resourceType."}},
        ]})
        # The path may come percent-encoded; includeSchemas adds the latest version.
        r = self.post("/associations%3AbatchGet", {"requests": [{"resourceId": rid2}]},
                      params={"includeSchemas": "true"})
        self.assertEqual(r.status, 207, r)
        latest = self.assert_ok(self.get(f"/subjects/{quote(strong)}/versions/latest"))
        self.assertEqual(r.body["results"][0]["result"]["associations"],
                         [{"subject": strong, "associationType": "value", "lifecycle": "STRONG",
                           "schema": latest}])
        # The whole call is refused: no requests (42212), a body Jackson refuses (400).
        self.assert_refused(self.post("/associations:batchGet", {"requests": []}), 422, 42212,
                            invalid("requests", "cannot be null or empty"))
        self.assert_refused(self.post("/associations:batchGet", {}), 422, 42212,
                            invalid("requests", "cannot be null or empty"))
        self.assert_error(self.post("/associations:batchGet",
                                    {"requests": [{"resourceId": rid, "lifecycle": "SOFT"}]}),
                          400, 400)
        self.assert_error(self.post("/associations:batchGet", {"requests": "x"}), 400, 400)
        self.assertEqual(self.state(), before)

    def mutate(self, requests, **params):
        return self.post("/associations:batchMutate", {"requests": requests},
                         params=params or None)

    def test_batch_mutate(self):
        """POST /associations:batchMutate (AssociationsResource.mutateAssociations,
        AbstractSchemaRegistry.mutateAssociations): 207 with one result per request, each the
        resource's associations after its ops, or its error with the code Confluent's catch
        clauses give it. Requests are independent, and within one the ops run in order, each
        run of CREATE (or UPSERT) ops and each DELETE committed on its own: a failing op leaves
        the ones before it done, as in Confluent. A body Jackson refuses, or no requests,
        refuses the whole call and changes nothing."""
        s = self.sub("a")
        missing = self.sub("missing")
        self.register_ok(s, rec("r"))
        name, name2, name3 = self.sub("t"), self.sub("t2"), self.sub("t3")
        rid, rid2, rid3 = self.rid("1"), self.rid("2"), self.rid("3")
        strong = f":.default:{name2}-value"

        def req(nm, rid_, *ops):
            return {"resourceName": nm, "resourceNamespace": "default", "resourceId": rid_,
                    "associations": list(ops)}
        weak_key = {"opType": "CREATE", "subject": s, "associationType": "key",
                    "lifecycle": "WEAK"}
        before = self.state()
        # Refused whole: nothing runs, not even the valid first request.
        self.assert_error(self.mutate([req(name, rid, weak_key),
                                       req(name3, rid3, {"opType": "RENAME"})]), 400, 400)
        self.assert_error(self.mutate([req(name, rid, dict(weak_key, frozen="no"))]), 400, 400)
        self.assert_refused(self.mutate([]), 422, 42212,
                            invalid("requests", "cannot be null or empty"))
        # A dry run checks and writes nothing.
        r = self.mutate([req(name, rid, weak_key)], dryRun="true")
        self.assertEqual((r.status, r.body), (207, {"results": [{"result": {
            "resourceName": name, "resourceNamespace": "default", "resourceId": rid,
            "resourceType": "topic"}}]}))
        self.assertEqual(self.state(), before)

        first_row = int(self.db.sql("SELECT coalesce(max(id), 0) FROM audit_log")[0][0])
        r = self.mutate([
            req(name, rid, weak_key),
            req(name2, rid2, {"opType": "CREATE", "schema": {"schema": rec("x")}}),
            req(name3, rid3, {"opType": "UPSERT", "associationType": "value"}),
            req(name3, rid3, {"opType": "CREATE", "subject": s, "associationType": "key",
                              "lifecycle": "WEAK"},
                {"opType": "DELETE", "associationType": "key"}),
            req(name, rid, {"opType": "DELETE", "associationType": "key"},
                {"opType": "CREATE", "subject": missing, "associationType": "value",
                 "lifecycle": "WEAK"}),
        ])
        self.assertEqual(r.status, 207, r)
        latest = self.assert_ok(self.get(f"/subjects/{quote(strong)}/versions/latest"))
        self.maxDiff = None
        self.assertEqual(r.body, {"results": [
            {"result": {"resourceName": name, "resourceNamespace": "default", "resourceId": rid,
                        "resourceType": "topic",
                        "associations": [{"subject": s, "associationType": "key",
                                          "lifecycle": "WEAK"}]}},
            {"result": {"resourceName": name2, "resourceNamespace": "default",
                        "resourceId": rid2, "resourceType": "topic",
                        "associations": [{"subject": strong, "associationType": "value",
                                          "lifecycle": "STRONG", "schema": latest}]}},
            {"error": {"error_code": 42212, "message": invalid(
                "subject", "must be provided for WEAK associations")}},
            {"error": {"error_code": 42212, "message": invalid(
                "associationType", "may only appear once per request, but 'key' appears more "
                                   "than once")}},
            {"error": {"error_code": 40907, "message":
                       f"No active (non-deleted) version exists for subject '{missing}'"}},
        ]})
        # The last request's DELETE ran before its CREATE failed.
        self.assertEqual(self.stripped(self.by_id(rid)), [])
        self.assertEqual([a["subject"] for a in self.stripped(self.by_id(rid2))], [strong])
        self.assertEqual(self.stripped(self.by_id(rid3)), [])
        self.assertEqual(self.db.sql("SELECT action, subject FROM audit_log WHERE action LIKE"
                                     " 'association%%' AND outcome = 'ok' AND id > %d ORDER BY id"
                                     % first_row),
                         [("association_create", s), ("association_create", strong),
                          ("association_delete", s)])
        # An UPSERT re-stating the STRONG one writes nothing; a frozen one cannot be
        # deleted without cascadeLifecycle (40908), with it its subject goes too.
        before = self.state()
        r = self.mutate([req(name2, rid2, {"opType": "UPSERT", "lifecycle": "STRONG"}),
                         req(name2, rid2, {"opType": "DELETE"})])
        self.assertEqual(r.body, {"results": [
            {"result": {"resourceName": name2, "resourceNamespace": "default",
                        "resourceId": rid2, "resourceType": "topic",
                        "associations": [{"subject": strong, "associationType": "value",
                                          "lifecycle": "STRONG"}]}},
            {"error": {"error_code": 40908, "message":
                       f"The association of type  'value' is frozen for subject '{strong}'"}}]})
        self.assertEqual(self.state(), before)
        r = self.mutate([req(name2, rid2, {"opType": "DELETE", "cascadeLifecycle": True})])
        self.assertEqual(r.body, {"results": [{"result": {
            "resourceName": name2, "resourceNamespace": "default", "resourceId": rid2,
            "resourceType": "topic"}}]})
        self.assert_error(self.get(f"/subjects/{quote(strong)}/versions"), 404, 40401)

    def test_idempotent_create(self):
        """testIdempotentValidateAndCreateRetry: the same create again is no error and writes
        nothing (no "associations" in the answer)."""
        s = self.sub()
        name = self.sub("t")
        self.register_ok(s, rec("r"))
        body = self.weak(name, self.rid("1"), s)
        self.assert_ok(self.create(body))
        before = self.state()
        self.assert_ok(self.create(body), {"resourceName": name, "resourceNamespace": "default",
                                           "resourceId": self.rid("1"), "resourceType": "topic"})
        self.assertEqual(self.state(), before)

    def test_strong_with_schema(self):
        """testCreateWithSchemaDefaultsToStrongFrozen and testAssociationFrozen: a schema makes
        the association STRONG and frozen on the default subject, registered with it; a frozen
        association is deleted only with cascadeLifecycle, which deletes its subject too; while
        it exists the subject cannot be deleted."""
        name = self.sub("t")
        dflt = f":.default:{name}-key"
        # testAssociationFrozen: a frozen association where the subject holds other schemas.
        self.register_ok(dflt, rec("other"))
        before = self.state()
        r = self.create({"resourceName": name, "resourceNamespace": "default",
                         "resourceId": "frozen-0",
                         "associations": [{"associationType": "key", "lifecycle": "STRONG",
                                           "frozen": True, "schema": {"schema": rec("k")}}]})
        self.assert_refused(r, 422, 42212, invalid(
            "frozen", "cannot create a frozen association when schemas already exist in the subject"))
        self.assertEqual(self.state(), before)

        name = self.sub("t")
        dflt = f":.default:{name}-key"
        # A dry run parses the schema as the registration would.
        before = self.state()
        r = self.create({"resourceName": name, "resourceNamespace": "default",
                         "associations": [{"associationType": "key",
                                           "schema": {"schema": "{not json"}}]}, dryRun="true")
        self.assert_error(r, 422, 42201)
        self.assertEqual(self.state(), before)
        r = self.create({"resourceName": name, "resourceNamespace": "default",
                         "resourceId": "frozen-1",
                         "associations": [{"associationType": "key",
                                           "schema": {"schema": rec("k")}}]})
        body = self.assert_ok(r)
        schema = body["associations"][0].pop("schema")
        self.assertEqual(body, {"resourceName": name, "resourceNamespace": "default",
                                "resourceId": "frozen-1", "resourceType": "topic",
                                "associations": [{"subject": dflt, "associationType": "key",
                                                  "lifecycle": "STRONG"}]})
        self.assertEqual((schema["subject"], schema["version"], schema["schema"]),
                         (dflt, 1, rec("k")))
        got = self.assert_ok(self.get(f"/subjects/{quote(dflt)}/versions/1"))
        self.assertEqual(got["id"], schema["id"])
        self.assertEqual([a["lifecycle"] for a in self.stripped(self.by_subject(dflt))],
                         ["STRONG"])

        before = self.state()
        self.assert_refused(self.delete_assoc("frozen-1"), 409, 40908,
                            f"The association of type  'key' is frozen for subject '{dflt}'")
        self.assert_refused(self.delete(f"/subjects/{quote(dflt)}"), 409, 40904,
                            f"An association already exists for subject '{dflt}'")
        self.assert_refused(self.delete(f"/subjects/{quote(dflt)}/versions/1"), 409, 40907,
                            f"No active (non-deleted) version exists for subject '{dflt}'")
        r = self.delete_assoc("frozen-1", cascadeLifecycle="true", dryRun="true")
        self.assertEqual(r.status, 204, r)
        self.assertEqual(self.state(), before)

        r = self.delete_assoc("frozen-1", cascadeLifecycle="true")
        self.assertEqual(r.status, 204, r)
        self.assertEqual(self.stripped(self.by_subject(dflt)), [])
        self.assertEqual(self.db.count("subject_versions",
                                       f"subject = {harness.sql_literal(dflt)}"), 0)

    def test_schemas_filtered_by_association(self):
        """testGetSchemasWithSubjectPrefixAndAssociations, ...AndLifecycleFilter,
        ...AndAssociationTypeFilter (SchemasResource.getSchemas): with an association filter a
        version is listed with its subject's matching associations; lifecycle=NONE lists the
        subjects without any."""
        p = self.sub("prefix")
        s1, s2, s3 = p + "1", p + "2", self.sub("other")
        for i, s in enumerate((s1, s2, s3)):
            self.register_ok(s, rec(f"r{i}"))
        name = self.sub("t")
        self.assert_ok(self.create({
            "resourceName": name, "resourceNamespace": "default", "resourceId": self.rid("1"),
            "associations": [{"subject": s1, "associationType": "key"},
                             {"subject": s2, "associationType": "value"}]}))
        self.assert_ok(self.create(self.weak(self.sub("t"), self.rid("2"), s3)))
        strong = self.sub("ts")
        self.assert_ok(self.create({"resourceName": strong, "resourceNamespace": "default",
                                    "resourceId": self.rid("3"),
                                    "associations": [{"schema": {"schema": rec("x")}}]}))
        unassociated = p + "3"
        self.register_ok(unassociated, rec("u"))

        def listed(*params):
            body = self.assert_ok(self.get("/schemas", params=list(params)))
            return [(v["subject"], [(a["associationType"], a["lifecycle"], a["resourceId"])
                                    for a in v.get("associations", [])]) for v in body]
        self.assertEqual(listed(("subjectPrefix", p), ("resourceType", "topic"),
                                ("associationType", "key"), ("associationType", "value")),
                         [(s1, [("key", "WEAK", self.rid("1"))]),
                          (s2, [("value", "WEAK", self.rid("1"))])])
        self.assertEqual(listed(("subjectPrefix", p), ("associationType", "key")),
                         [(s1, [("key", "WEAK", self.rid("1"))])])
        self.assertEqual(listed(("subjectPrefix", p), ("lifecycle", "NONE")), [(unassociated, [])])
        self.assertEqual(listed(("subjectPrefix", p), ("lifecycle", "STRONG")), [])
        self.assertEqual(listed(("subjectPrefix", p), ("lifecycle", "WEAK"), ("lifecycle", "NONE")),
                         [(s1, [("key", "WEAK", self.rid("1"))]),
                          (s2, [("value", "WEAK", self.rid("1"))]), (unassociated, [])])
        self.assertEqual(listed(("subjectPrefix", f":.default:{strong}"), ("lifecycle", "STRONG")),
                         [(f":.default:{strong}-value", [("value", "STRONG", self.rid("3"))])])
        # Without a filter no associations are shown.
        self.assertNotIn("associations", self.assert_ok(self.get("/schemas",
                                                                 params={"subjectPrefix": s1}))[0])

    def test_strong_on_referenced_subject(self):
        """AbstractSchemaRegistry.createOrUpdateAssociation: a STRONG association and a schema
        reference exclude each other, so a STRONG one whose subject is a reference target is
        42206 "One or more references exist to the schema <subject>." (isSubjectReferenced:
        every version, soft-deleted ones and soft-deleted referrers too;
        requestReferencesSubject: a reference declared by a schema of the same request).
        RestApiAssociationTest's testCreateStrongAssociationOnReferencedSubjectIsRejected,
        ...WithSoftDeletedReferrerIsRejected, ...WhenSoftDeletedHigherVersionIsReferenced and
        testMultiAssociationCreateRejectsIntraRequestReferenceToStrongSubject. A WEAK
        association on a referenced subject is allowed. Nothing stored changes on a refusal."""
        payment = ('{"type":"record","name":"Payment","fields":'
                   '[{"name":"order","type":"Order"}]}')

        def strong(nm, rid, **schema):
            return {"resourceName": nm, "resourceNamespace": "default", "resourceId": rid,
                    "associations": [{"associationType": "key", "lifecycle": "STRONG",
                                      "frozen": True,
                                      "schema": dict({"schema": rec("Order")}, **schema)}]}

        def refused(body, subject):
            before = self.state()
            self.assert_refused(self.create(body), 422, 42206,
                                f"One or more references exist to the schema {subject}.")
            self.assertEqual(self.state(), before)
            self.assertEqual(self.stripped(self.by_subject(subject)), [])
            # batchMutate answers the same error in the request's result.
            r = self.mutate([dict(body, associations=[dict(e, opType="CREATE")
                                                      for e in body["associations"]])])
            self.assertEqual((r.status, r.body), (207, {"results": [{"error": {
                "error_code": 42206,
                "message": f"One or more references exist to the schema {subject}."}}]}))
            self.assertEqual(self.state(), before)

        # A live referrer.
        name = self.sub("t")
        target = f":.default:{name}-key"
        self.register_ok(target, rec("Order"))
        self.register_ok(self.sub("payment"), payment,
                         references=[{"name": "Order", "subject": target, "version": 1}])
        refused(strong(name, self.rid("1")), target)

        # A soft-deleted referrer still counts (a soft delete can be undone).
        name = self.sub("t")
        target = f":.default:{name}-key"
        referrer = self.sub("payment")
        self.register_ok(target, rec("Order"))
        self.register_ok(referrer, payment,
                         references=[{"name": "Order", "subject": target, "version": 1}])
        r = self.delete(f"/subjects/{quote(referrer)}/versions/1")
        self.assertEqual(r.status, 200, r)
        refused(strong(name, self.rid("2")), target)

        # A soft-deleted higher version that is referenced blocks too, though version 1,
        # the only live one, is not referenced.
        name = self.sub("t")
        target = f":.default:{name}-key"
        referrer = self.sub("payment")
        self.register_ok(target, rec("Order"))
        order2 = ('{"type":"record","name":"Order","fields":[{"name":"f1","type":"string"},'
                  '{"name":"f2","type":"string","default":""}]}')
        self.register_ok(target, order2)
        self.register_ok(referrer, payment,
                         references=[{"name": "Order", "subject": target, "version": 2}])
        self.assertEqual(self.delete(f"/subjects/{quote(referrer)}/versions/1").status, 200)
        self.assertEqual(self.delete(f"/subjects/{quote(target)}/versions/2").status, 200)
        refused(strong(name, self.rid("3")), target)

        # A reference declared in the same request: the key's schema refers to the value
        # subject, which both become STRONG.
        name = self.sub("t")
        value = f":.default:{name}-value"
        self.register_ok(value, rec("Order"))
        body = {"resourceName": name, "resourceNamespace": "default", "resourceId": self.rid("4"),
                "associations": [
                    {"associationType": "value", "lifecycle": "STRONG", "frozen": True,
                     "schema": {"schema": rec("Order")}},
                    {"associationType": "key", "lifecycle": "STRONG", "frozen": True,
                     "schema": {"schema": payment, "references": [
                         {"name": "Order", "subject": value, "version": 1}]}}]}
        refused(body, value)

        # WEAK is allowed on a referenced subject.
        s = self.sub("order")
        self.register_ok(s, rec("Order"))
        self.register_ok(self.sub("payment"), payment,
                         references=[{"name": "Order", "subject": s, "version": 1}])
        self.assert_ok(self.create(self.weak(self.sub("t"), self.rid("5"), s)))
        self.assertEqual([a["lifecycle"] for a in self.stripped(self.by_subject(s))], ["WEAK"])

    def test_reference_to_strong_subject(self):
        """KafkaSchemaRegistry.register: a reference to a subject a STRONG association holds is
        42205 "Subject '<reference's subject>' has a strong association and cannot be
        referenced", in IMPORT mode too, for any of the references, with a bare name read in
        the referrer's context; a WEAK association's subject can be referenced.
        RestApiAssociationTest's testRegisterReferenceToStrongAssociationSubjectIsRejected,
        testReferenceToStrongAssociationSubjectRejectedInImportMode,
        testMultiReferenceRejectedWhenAnyTargetHasStrongAssociation,
        testReferenceToStrongAssociationSubjectResolvesByReferrerContext and
        testReferenceToWeaklyAssociatedSubjectIsAllowed. Nothing stored changes."""
        payment = ('{"type":"record","name":"Payment","fields":'
                   '[{"name":"order","type":"Order"}]}')

        def strong(nm, ns, rid):
            self.assert_ok(self.create({
                "resourceName": nm, "resourceNamespace": ns, "resourceId": rid,
                "associations": [{"associationType": "key", "schema": {"schema": rec("Order")}}]}))

        def refused(subject, refs, message, **extra):
            before = self.state()
            r = self.register(subject, payment, references=refs, **extra)
            self.assert_refused(r, 422, 42205, message)
            self.assertEqual(self.state(), before)

        name = self.sub("t")
        target = f":.default:{name}-key"
        strong(name, "default", self.rid("1"))
        refused(self.sub("payment"), [{"name": "Order", "subject": target, "version": 1}],
                f"Subject '{target}' has a strong association and cannot be referenced")
        # The second of two references.
        common = self.sub("common")
        self.register_ok(common, rec("Common"))
        two = ('{"type":"record","name":"Payment","fields":[{"name":"c","type":"Common"},'
               '{"name":"order","type":"Order"}]}')
        before = self.state()
        r = self.register(self.sub("payment"), two, references=[
            {"name": "Common", "subject": common, "version": 1},
            {"name": "Order", "subject": target, "version": 1}])
        self.assert_refused(r, 422, 42205,
                            f"Subject '{target}' has a strong association and cannot be referenced")
        self.assertEqual(self.state(), before)
        # In IMPORT mode, with an explicit id and version.
        imp = self.sub("import")
        self.assert_ok(self.put(f"/mode/{quote(imp)}", {"mode": "IMPORT"}))
        refused(imp, [{"name": "Order", "subject": target, "version": 1}],
                f"Subject '{target}' has a strong association and cannot be referenced",
                id=100000, version=1)
        # A bare name in the referrer's context.
        name = self.sub("t")
        strong(name, "myctx", self.rid("2"))
        refused(f":.myctx:{self.sub('payment')}",
                [{"name": "Order", "subject": f"{name}-key", "version": 1}],
                f"Subject '{name}-key' has a strong association and cannot be referenced")
        # WEAK does not block.
        s = self.sub("order")
        self.register_ok(s, rec("Order"))
        self.assert_ok(self.create(self.weak(self.sub("t"), self.rid("3"), s)))
        self.register_ok(self.sub("payment"), payment,
                         references=[{"name": "Order", "subject": s, "version": 1}])

    def test_not_found_and_bad_parameters(self):
        """40410 for a resource without associations; a lifecycle or int query parameter that
        does not convert is JAX-RS's plain 404."""
        self.assert_refused(self.delete_assoc("nope"), 404, 40410, "Association for 'nope' not found.")
        self.assert_ok(self.by_id("nope"), [])
        for r in (self.by_id("x", lifecycle="weak"), self.by_subject("s", offset="a"),
                  self.by_name("ns", "n", limit="z")):
            self.assert_refused(r, 404, 404, "HTTP 404 Not Found")


class Authorization(harness.RegistryTestCase):
    """docs/security.md "Authorization": the listings show only the associations of readable
    subjects; a create needs write on every subject it names, a delete delete on every subject
    it unbinds, checked before anything is written."""

    RULES = ("auth.rule = root admin *\nauth.rule = root admin /*\n"
             "auth.rule = alice read,write orders-*\n"
             "auth.rule = carol read,write,delete orders-*\nauth.rule = carol read,write pay-*\n")

    @classmethod
    def setUpClass(cls):
        from test_authz import start_server
        start_server(cls, cls.RULES)

    def as_user(self, user):
        from test_auth_basic import basic
        from test_authz import USERS
        return harness.Client("127.0.0.1", self.server.port, headers=basic(user, USERS[user]))

    def test_permissions(self):
        root, alice, carol = self.as_user("root"), self.as_user("alice"), self.as_user("carol")
        for s in ("orders-key", "pay-value"):
            self.assertEqual(root.post(f"/subjects/{s}/versions", {"schema": rec("r")}).status, 200)
        body = {"resourceName": "t1", "resourceNamespace": "ns", "resourceId": "id-1",
                "associations": [{"subject": "orders-key", "associationType": "key"},
                                 {"subject": "pay-value", "associationType": "value"}]}
        before = self.db.count("associations")
        r = alice.post("/associations", body)
        self.assert_error(r, 403, 403)
        self.assertEqual(r.body["message"],
                         "Forbidden: principal 'alice' has no write permission on subject 'pay-value'")
        self.assertEqual(self.db.count("associations"), before)
        self.assertEqual(carol.post("/associations", body).status, 200)
        # alice reads orders-* only: the listings leave pay-value's association out.
        r = alice.get("/associations/resources/id-1")
        self.assertEqual([a["subject"] for a in self.assert_ok(r)], ["orders-key"])
        r = alice.get("/associations/resources/ns/t1")
        self.assertEqual([a["subject"] for a in self.assert_ok(r)], ["orders-key"])
        self.assert_error(alice.get("/associations/subjects/pay-value"), 403, 403)
        # batchGet filters each result as the listings do.
        r = alice.post("/associations:batchGet", {"requests": [{"resourceId": "id-1"}]})
        self.assertEqual(r.status, 207, r)
        self.assertEqual([a["subject"] for a in r.body["results"][0]["result"]["associations"]],
                         ["orders-key"])
        # batchMutate needs write on what its ops name, before anything runs.
        r = alice.post("/associations:batchMutate", {"requests": [
            {"resourceName": "t9", "resourceNamespace": "ns", "resourceId": "id-9",
             "associations": [{"opType": "CREATE", "subject": "orders-key",
                               "associationType": "key", "lifecycle": "WEAK"}]},
            {"resourceName": "t1", "resourceNamespace": "ns", "resourceId": "id-1",
             "associations": [{"opType": "UPSERT", "subject": "pay-value",
                               "associationType": "value"}]}]})
        self.assert_error(r, 403, 403)
        self.assertEqual(r.body["message"],
                         "Forbidden: principal 'alice' has no write permission on subject 'pay-value'")
        self.assertEqual(self.db.count("associations"), before + 2)
        # PUT needs write on the subjects it names, as POST.
        put_body = {"resourceName": "t1", "resourceNamespace": "ns",
                    "associations": [{"subject": "pay-value", "associationType": "value"}]}
        r = alice.put("/associations/resources/id-1", put_body)
        self.assert_error(r, 403, 403)
        self.assertEqual(r.body["message"],
                         "Forbidden: principal 'alice' has no write permission on subject 'pay-value'")
        # carol may delete under orders-* only.
        r = carol.delete("/associations/resources/id-1")
        self.assert_error(r, 403, 403)
        self.assertEqual(r.body["message"],
                         "Forbidden: principal 'carol' has no delete permission on subject 'pay-value'")
        self.assertEqual(self.db.count("associations"), before + 2)
        r = carol.delete("/associations/resources/id-1", params={"associationType": "key"})
        self.assertEqual(r.status, 204, r)
        self.assertEqual(self.db.count("associations"), before + 1)
        # Refused attempts on the write routes have their audit rows (written after the
        # reply, by a worker: waited for).
        want = sorted([("association_create", "alice", "403"),
                       ("POST /associations:batchMutate", "alice", "403"),
                       ("association_update", "alice", "403"),
                       ("association_delete", "carol", "403")])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # Each written after its reply, by a worker: in any order.
            rows = sorted(self.db.sql("SELECT action, principal, status FROM audit_log"
                                      " WHERE outcome = 'refused'"))
            if rows == want:
                break
            time.sleep(0.05)
        self.assertEqual(rows, want)


if __name__ == "__main__":
    harness.main()

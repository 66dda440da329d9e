"""docs/openapi.yaml against the route table, the operation list, an OpenAPI
3.1 validator and the running server.

- Every (method, path) of server/routes.c is documented and every documented one
  is routed; the x-permission of each operation is the route's ON(handler,
  PERMISSION, SCOPE); the query parameters of each operation are those
  tests/integration/api_operations.json lists for it (params and extra_params).
  routes.c is parsed (as test_api_operations.py does), and a ROUTE( the
  pattern does not read fails the test instead of being skipped.
- The error codes named in an error response's description (`40401`) belong to
  its status (status = code / 100 for five-digit codes).
- @seriousme/openapi-schema-validator (pinned in tests/openapi/package.json and
  package-lock.json, installed with `npm ci` into the build directory) validates
  the document against the OpenAPI 3.1 schema and resolves every $ref; a broken
  copy must be refused, so a validator that checks nothing fails here too.
  Debian 12 has no OpenAPI 3.1 validator; scripts/install-deps.sh installs node
  and npm (group test).
- Real answers of the server (register, lookups, config, mode, errors, ...)
  validate against the response schemas of their operation, status and media
  type (python3-jsonschema, draft 2020-12, which OpenAPI 3.1 uses), and an
  error's code is one its response names.
"""

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import harness
from harness import quote

try:
    import jsonschema
    import yaml
except ImportError as exc:
    raise SystemExit(f"{exc}; run scripts/install-deps.sh (python3-jsonschema, python3-yaml)") from exc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SPEC = os.path.join(ROOT, "docs", "openapi.yaml")
NPM_DIR = os.path.join(ROOT, "tests", "openapi")
METHODS = ("GET", "POST", "PUT", "DELETE")    # the order of ROUTE()'s handler columns
SLOT = r'\s*(NO|ON\(\s*&?\s*\w+\s*,\s*(\w+)\s*,\s*(\w+)\s*\))\s*'
ROUTE = re.compile(r'ROUTE\(\s*"([^"]+)"\s*,' + ",".join([SLOT] * 4) + r'\)')
CODE = re.compile(r"`(\d{3,5})`")
EXTENDED = {"Confluent-Accept-Unknown-Properties": "true"}


def load_spec():
    with open(SPEC, encoding="utf-8") as f:
        return yaml.safe_load(f)


def routes_c():
    """{(method, path): (permission, scope)} of server/routes.c's http_routes."""
    with open(os.path.join(ROOT, "server", "routes.c"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("http_routes[] = {")
    table = text[start:text.index("\n};", start)]
    matches = list(ROUTE.finditer(table))
    # A route written in a form the pattern does not read must not go unchecked.
    written = len(re.findall(r"\b[A-Z][A-Z0-9_]*\s*\(\s*\"", table))
    if written != len(matches):
        parsed = {m.group(1) for m in matches}
        raise AssertionError(f"server/routes.c has {written} route entries, {len(matches)} parse "
                             f"(parsed: {sorted(parsed)}); teach test_openapi.py the new form")
    out = {}
    for m in matches:
        for i, method in enumerate(METHODS):
            slot, perm, scope = m.group(2 + 3 * i), m.group(3 + 3 * i), m.group(4 + 3 * i)
            if slot != "NO":
                out[(method, m.group(1))] = (perm, scope)
    return out


def documented(spec):
    """{(method, path): operation} of the document."""
    return {(method.upper(), path): op
            for path, item in spec["paths"].items()
            for method, op in item.items() if method.upper() in METHODS}


def deref(spec, obj):
    """obj with a local $ref followed (one level at a time, to the end); the
    Reference Object's own description, if any, wins (OpenAPI 3.1)."""
    description = obj.get("description")
    while "$ref" in obj:
        node = spec
        for part in obj["$ref"].lstrip("#/").split("/"):
            node = node[part]
        obj = node
        description = description or obj.get("description")
    return obj, description


def error_codes(description):
    return [int(c) for c in CODE.findall(description or "")]


def status_of(code):
    return code // 100 if code >= 10000 else code


class DocumentAgainstRoutes(unittest.TestCase):
    """The document, the route table and the operation list agree."""

    @classmethod
    def setUpClass(cls):
        cls.spec = load_spec()
        cls.ops = documented(cls.spec)
        cls.routes = routes_c()

    def test_every_route_is_documented(self):
        self.assertGreater(len(self.routes), 30, "routes.c no longer parses as expected")
        missing = sorted(set(self.routes) - set(self.ops))
        self.assertEqual(missing, [], "routes of server/routes.c missing from docs/openapi.yaml: " +
                         ", ".join(f"{m} {p}" for m, p in missing))

    def test_every_documented_route_exists(self):
        extra = sorted(set(self.ops) - set(self.routes))
        self.assertEqual(extra, [], "operations of docs/openapi.yaml that server/routes.c does not route: " +
                         ", ".join(f"{m} {p}" for m, p in extra))

    def test_permissions_are_the_route_table_s(self):
        for key, (perm, scope) in sorted(self.routes.items()):
            if key in self.ops:
                with self.subTest(route=key):
                    self.assertEqual(self.ops[key].get("x-permission"), {"permission": perm, "scope": scope})

    def test_query_parameters_are_the_operation_list_s(self):
        with open(os.path.join(HERE, "api_operations.json"), encoding="utf-8") as f:
            listed = {(op["method"], op["path"]): set(op["params"]) | set(op.get("extra_params", {}))
                      for op in json.load(f)["operations"] if op["status"] in ("implemented", "extension")}
        for key, op in sorted(self.ops.items()):
            with self.subTest(op=key):
                params = [deref(self.spec, p)[0] for p in op.get("parameters", [])]
                query = {p["name"] for p in params if p["in"] == "query"}
                self.assertIn(key, listed, "not in api_operations.json as implemented or extension")
                self.assertEqual(query, listed[key])

    def test_path_parameters_are_declared(self):
        for (method, path), op in sorted(self.ops.items()):
            with self.subTest(op=(method, path)):
                params = [deref(self.spec, p)[0] for p in op.get("parameters", [])]
                declared = {p["name"] for p in params if p["in"] == "path"}
                self.assertEqual(declared, set(re.findall(r"\{(\w+)\}", path)))
                self.assertTrue(all(p["required"] for p in params if p["in"] == "path"))

    def test_operation_ids_are_unique(self):
        ids = [op["operationId"] for op in self.ops.values()]
        self.assertEqual(len(ids), len(set(ids)))

    def test_error_responses_name_codes_of_their_status(self):
        for key, op in sorted(self.ops.items()):
            self.assertIn("default", op["responses"], key)
            for status, resp in op["responses"].items():
                if status == "default" or status.startswith("2"):
                    continue
                with self.subTest(op=key, status=status):
                    _, description = deref(self.spec, resp)
                    codes = error_codes(description)
                    self.assertTrue(codes, f"names no error code: {description!r}")
                    for code in codes:
                        self.assertEqual(status_of(code), int(status), code)


class Validator(unittest.TestCase):
    """An OpenAPI 3.1 validator from npm, as pinned in tests/openapi/."""

    @classmethod
    def setUpClass(cls):
        node, npm = shutil.which("node"), shutil.which("npm")
        if not node or not npm:
            raise AssertionError("node and npm are needed: run scripts/install-deps.sh (group test)")
        cls.node = node
        where = os.environ.get("SR_OPENAPI_DIR") or os.path.join(
            os.path.dirname(harness.server_binary()), "openapi-validator")
        os.makedirs(where, exist_ok=True)
        with open(os.path.join(NPM_DIR, "package-lock.json"), "rb") as f:
            lock = hashlib.sha256(f.read()).hexdigest()
        stamp = os.path.join(where, ".installed")
        installed = open(stamp).read() if os.path.exists(stamp) else ""
        if installed != lock:
            for name in ("package.json", "package-lock.json"):
                shutil.copy(os.path.join(NPM_DIR, name), where)
            # npm ci: exactly the locked versions, no install scripts run.
            r = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=where,
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise AssertionError(f"npm ci in {where} failed:\n{r.stdout}\n{r.stderr}")
            with open(stamp, "w") as f:
                f.write(lock)
        cls.cli = os.path.join(where, "node_modules", "@seriousme", "openapi-schema-validator",
                               "bin", "validate-api-cli.js")

    def validate(self, path):
        r = subprocess.run([self.node, self.cli, path], capture_output=True, text=True, timeout=120)
        try:
            result = json.loads(r.stdout)
        except ValueError:
            self.fail(f"validator said: {r.stdout}\n{r.stderr}")
        return r.returncode, result

    def test_document_is_valid_openapi_3_1(self):
        rc, result = self.validate(SPEC)
        self.assertEqual((rc, result), (0, {"valid": True}), json.dumps(result, indent=1)[:4000])

    def test_validator_refuses_a_broken_document(self):
        spec = load_spec()
        broken = [copy.deepcopy(spec) for _ in range(3)]
        broken[0]["paths"]["/subjects"]["get"]["responses"]["200"] = {"$ref": "#/components/responses/Nope"}
        broken[1]["components"]["parameters"]["subject"]["in"] = "segment"
        broken[2]["openapi"] = "3.1"
        with tempfile.TemporaryDirectory() as tmp:
            for i, doc in enumerate(broken):
                with self.subTest(broken=i):
                    path = os.path.join(tmp, f"broken{i}.yaml")
                    with open(path, "w", encoding="utf-8") as f:
                        yaml.safe_dump(doc, f)
                    rc, result = self.validate(path)
                    self.assertNotEqual(rc, 0)
                    self.assertFalse(result["valid"])


class ResponsesMatchSchemas(harness.RegistryTestCase):
    """Real answers against the document's response schemas."""

    server_args = ("--max-schema-bytes", "4096")    # 42209 without a megabyte of schema

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.spec = load_spec()
        cls.resolver = jsonschema.RefResolver(base_uri="", referrer=cls.spec)

    def check(self, method, template, resp):
        """resp, checked against (method, template)'s response for its status."""
        op = self.spec["paths"][template][method.lower()]
        status = str(resp.status)
        specific = status in op["responses"]
        self.assertTrue(specific or not status.startswith("2"), f"{method} {template}: {resp}")
        declared, description = deref(self.spec, op["responses"][status if specific else "default"])
        if "content" not in declared:
            self.assertEqual(resp.text, "", f"{method} {template} {status} has no body")
            return resp
        media = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
        self.assertIn(media, declared["content"], f"{method} {template} {status}")
        schema = declared["content"][media]["schema"]
        # The schema text itself, and any non-JSON media type (text/plain), is checked as a string.
        raw = (op["responses"].get(status, {}).get("$ref") == "#/components/responses/SchemaText"
               or "json" not in media)
        instance = resp.text if raw else json.loads(resp.text)
        validator = jsonschema.Draft202012Validator(
            schema, resolver=self.resolver, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]
        self.assertEqual(errors, [], f"{method} {template} {status}: {resp.text[:500]}")
        if not status.startswith("2") and specific:
            self.assertIn(instance["error_code"], error_codes(description),
                          f"{method} {template} {status} answers a code its description does not name")
        return resp

    def call(self, method, template, path=None, body=None, headers=None, params=None, expect=None):
        """expect: the error_code (or, for 204, the status) the request must get; else a 2xx."""
        resp = self.http.request(method, path or template, body=body, headers=headers, params=params)
        if expect is None:
            self.assertLess(resp.status, 300, f"{method} {path or template}: {resp}")
        elif expect < 300:
            self.assertEqual(resp.status, expect, resp)
        else:
            self.assertEqual((resp.status, resp.body["error_code"]), (status_of(expect), expect), resp)
        return self.check(method, template, resp)

    def test_root_metadata_and_health(self):
        self.call("GET", "/")
        self.call("POST", "/", body={"ignored": 1})
        self.call("GET", "/health/live")
        self.call("GET", "/health/ready")
        self.call("GET", "/v1/metadata/id")
        self.call("GET", "/v1/metadata/version")
        self.call("GET", "/v1/metadata/deployment")
        self.call("GET", "/schemas/types")

    def test_change_reports(self):
        # docs/evolution.md: the change routes and the ?verbose=true&changes=true extension.
        s = self.sub("changes")
        q = quote(s)
        v1 = harness.avro_record("C", [("a", "int")])
        v2 = harness.avro_record("C", [("a", "long"), ("b", "string")])
        self.call("POST", "/subjects/{subject}/versions", f"/subjects/{q}/versions", body={"schema": v1})
        self.call("POST", "/subjects/{subject}/versions", f"/subjects/{q}/versions", body={"schema": v2},
                  params={"verbose": "true", "changes": "true"}, expect=40901)
        self.call("POST", "/compatibility/subjects/{subject}/versions", f"/compatibility/subjects/{q}/versions",
                  body={"schema": v2}, params={"verbose": "true", "changes": "true"})
        self.call("PUT", "/config/{subject}", f"/config/{q}", body={"compatibility": "NONE"})
        self.call("POST", "/subjects/{subject}/versions", f"/subjects/{q}/versions", body={"schema": v2})
        t = "/subjects/{subject}/versions/{version}/changes"
        self.call("GET", t, f"/subjects/{q}/versions/2/changes")
        self.call("GET", t, f"/subjects/{q}/versions/1/changes", expect=40402)
        self.call("GET", t, f"/subjects/{q}/versions/x/changes", expect=42202)
        self.call("GET", t, f"/subjects/{quote(self.sub('none'))}/versions/1/changes", expect=40401)
        self.call("POST", "/changes", body={"old": {"schema": v1}, "new": {"schema": v2}})
        self.call("POST", "/changes", body={"old": {"schema": v1}}, expect=422)
        self.call("POST", "/changes", body={"old": {"schema": "{"}, "new": {"schema": v2}}, expect=42201)

    def test_subjects_versions_and_schemas(self):
        common, envelope, proto = self.sub("common"), self.sub("envelope"), self.sub("proto")
        sv, svv = "/subjects/{subject}/versions", "/subjects/{subject}/versions/{version}"
        record = {"type": "record", "name": "Common", "fields": []}
        r = self.call("POST", sv, f"/subjects/{quote(common)}/versions", {"schema": json.dumps(record)})
        self.assertEqual(list(r.body), ["id"])
        cid = r.body["id"]
        ref = [{"name": "Common", "subject": common, "version": 1}]
        env_schema = {"type": "record", "name": "Envelope", "fields": [{"name": "c", "type": "Common"}]}
        r = self.call("POST", sv, f"/subjects/{quote(envelope)}/versions",
                      {"schema": json.dumps(env_schema), "references": ref,
                       "metadata": {"properties": {"owner": "payments"}, "tags": {"f": ["PII"]}}},
                      headers=EXTENDED)
        self.assertEqual(r.body["references"], ref)
        eid = r.body["id"]
        r = self.call("POST", sv, f"/subjects/{quote(proto)}/versions",
                      {"schema": 'syntax = "proto3"; message M { string a = 1; }', "schemaType": "PROTOBUF"},
                      headers=EXTENDED)
        pid = r.body["id"]
        self.assertEqual(r.body["schemaType"], "PROTOBUF")

        self.call("POST", "/subjects/{subject}", f"/subjects/{quote(common)}", {"schema": json.dumps(record)})
        self.call("POST", "/subjects/{subject}", f"/subjects/{quote(envelope)}", {"schema": json.dumps(env_schema),
                                                                                "references": ref})
        self.call("GET", sv, f"/subjects/{quote(common)}/versions")
        self.call("GET", svv, f"/subjects/{quote(envelope)}/versions/latest")
        self.call("GET", svv, f"/subjects/{quote(envelope)}/versions/1", headers=EXTENDED)
        r = self.call("GET", svv + "/schema", f"/subjects/{quote(proto)}/versions/1/schema")
        self.assertTrue(r.text.startswith('syntax = "proto3";'), r)
        self.call("GET", svv + "/referencedby", f"/subjects/{quote(common)}/versions/1/referencedby")
        self.call("GET", "/subjects/{subject}/metadata", f"/subjects/{quote(envelope)}/metadata",
                  params={"key": "owner", "value": "payments"})
        self.call("GET", "/subjects")
        self.call("GET", "/subjects", headers={"Accept": "application/json"})

        self.call("GET", "/schemas", params={"subjectPrefix": envelope, "aliases": "true"}, headers=EXTENDED)
        self.call("GET", "/schemas", params={"subjectPrefix": common, "latestOnly": "true"})
        self.call("GET", "/schemas/ids/{id}", f"/schemas/ids/{eid}", params={"subject": envelope},
                  headers=EXTENDED)
        self.call("GET", "/schemas/ids/{id}", f"/schemas/ids/{cid}", params={"fetchMaxId": "true"})
        self.call("GET", "/schemas/ids/{id}/schema", f"/schemas/ids/{pid}/schema")
        self.call("GET", "/schemas/ids/{id}/subjects", f"/schemas/ids/{cid}/subjects")
        self.call("GET", "/schemas/ids/{id}/versions", f"/schemas/ids/{cid}/versions")
        guid = self.get(f"/schemas/ids/{cid}", headers=EXTENDED).body["guid"]
        self.call("GET", "/schemas/guids/{guid}", f"/schemas/guids/{guid}", headers=EXTENDED)
        self.call("GET", "/schemas/guids/{guid}/ids", f"/schemas/guids/{guid}/ids")

        cs, csv = "/compatibility/subjects/{subject}/versions", "/compatibility/subjects/{subject}/versions/{version}"
        self.call("POST", csv, f"/compatibility/subjects/{quote(common)}/versions/latest",
                  {"schema": '"long"'}, params={"verbose": "true"})
        self.call("POST", cs, f"/compatibility/subjects/{quote(common)}/versions", {"schema": json.dumps(record)})

        # Deleting: referenced (42206), soft, permanent, already soft-deleted (40406).
        self.call("DELETE", svv, f"/subjects/{quote(common)}/versions/1", expect=42206)
        self.call("DELETE", svv, f"/subjects/{quote(envelope)}/versions/1")
        self.call("DELETE", svv, f"/subjects/{quote(envelope)}/versions/1", expect=40406)
        self.call("DELETE", svv, f"/subjects/{quote(envelope)}/versions/1", params={"permanent": "true"})
        self.call("DELETE", "/subjects/{subject}", f"/subjects/{quote(proto)}")
        self.call("DELETE", "/subjects/{subject}", f"/subjects/{quote(proto)}", params={"permanent": "true"})
        self.call("DELETE", "/subjects/{subject}", f"/subjects/{quote(proto)}", expect=40401)

    def test_errors(self):
        s = self.sub()
        sv, svv = "/subjects/{subject}/versions", "/subjects/{subject}/versions/{version}"
        self.call("POST", sv, f"/subjects/{quote(s)}/versions", {"schema": "{not avro"}, expect=42201)
        self.call("POST", sv, f"/subjects/{quote(s)}/versions", "not json", expect=400)
        self.call("POST", sv, f"/subjects/{quote(s)}/versions", {"schema": '"int"'},
                  headers={"Content-Type": "text/plain"}, expect=415)
        self.call("GET", svv, f"/subjects/{quote(s)}/versions/1", expect=40401)
        taken = self.call("POST", sv, f"/subjects/{quote(s)}/versions", {"schema": '"int"'}).body["id"]
        self.call("POST", sv, f"/subjects/{quote(s)}/versions", {"schema": '"string"'}, expect=40901)
        self.call("GET", svv, f"/subjects/{quote(s)}/versions/7", expect=40402)
        self.call("GET", svv, f"/subjects/{quote(s)}/versions/x", expect=42202)
        self.call("GET", sv, f"/subjects/{quote(s)}/versions", headers={"Accept": "text/html"}, expect=406)
        self.call("POST", "/subjects/{subject}", f"/subjects/{quote(s)}", {"schema": '"long"'}, expect=40403)
        self.call("GET", "/schemas/ids/{id}", "/schemas/ids/999999", expect=40403)
        self.call("GET", "/schemas/ids/{id}", "/schemas/ids/abc", expect=404)
        self.call("GET", "/schemas", params={"lifecycle": "BAD"}, expect=404)
        self.call("GET", "/config/{subject}", f"/config/{quote(s)}", expect=40408)
        self.call("GET", "/mode/{subject}", f"/mode/{quote(s)}", expect=40409)
        self.call("PUT", "/config", body={"compatibility": "SOMETIMES"}, expect=42203)
        self.call("PUT", "/mode", body={"mode": "SLEEPING"}, expect=42204)
        self.call("PUT", "/mode", body={"mode": "IMPORT"}, expect=42205)
        self.call("DELETE", "/contexts/{context}", "/contexts/a:b", expect=400)
        long_name = "x" * 3000
        self.call("POST", sv, f"/subjects/{long_name}/versions", {"schema": '"int"'}, expect=42208)
        big = {"type": "record", "name": "Big", "doc": "x" * 5000, "fields": []}
        self.call("POST", sv, f"/subjects/{quote(self.sub('big'))}/versions", {"schema": json.dumps(big)},
                  expect=42209)
        self.call("PUT", "/mode/{subject}", f"/mode/{quote(s)}", {"mode": "READONLY"})
        self.call("DELETE", svv, f"/subjects/{quote(s)}/versions/1", expect=42205)
        self.call("DELETE", "/subjects/{subject}", f"/subjects/{quote(s)}", expect=42205)
        imp = self.sub("import")
        self.call("PUT", "/mode/{subject}", f"/mode/{quote(imp)}", {"mode": "IMPORT"})
        self.call("POST", sv, f"/subjects/{quote(imp)}/versions", {"schema": '"long"', "id": taken}, expect=42205)

    def test_config_mode_and_contexts(self):
        s = self.sub()
        ctx = ".c" + hashlib.sha1(s.encode()).hexdigest()[:8]
        self.call("GET", "/config")
        self.call("PUT", "/config", body={"compatibility": "FULL"})
        self.call("PUT", "/config/{subject}", f"/config/{quote(s)}",
                  {"compatibility": "NONE", "normalize": True, "compatibilityGroup": "app.major",
                   "defaultMetadata": {"properties": {"a": "b"}}, "validateFields": None})
        self.call("GET", "/config/{subject}", f"/config/{quote(s)}")
        self.call("GET", "/config/{subject}", f"/config/{quote(s + 'x')}", params={"defaultToGlobal": "true"})
        self.call("DELETE", "/config/{subject}", f"/config/{quote(s)}")
        self.call("DELETE", "/config/{subject}", f"/config/{quote(s)}", expect=40401)
        self.call("DELETE", "/config")

        self.call("GET", "/mode")
        self.call("PUT", "/mode/{subject}", f"/mode/{quote(s)}", {"mode": "READONLY"})
        self.call("GET", "/mode/{subject}", f"/mode/{quote(s)}")
        self.call("PUT", "/config/{subject}", f"/config/{quote(s)}", {"compatibility": "NONE"}, expect=42205)
        self.call("PUT", "/mode/{subject}", f"/mode/{quote(s)}", {"mode": None})
        self.call("DELETE", "/mode/{subject}", f"/mode/{quote(s)}", expect=40401)
        self.call("PUT", "/mode/{subject}", f"/mode/{quote(s)}", {"mode": "IMPORT"}, params={"force": "true"})
        self.call("DELETE", "/mode/{subject}", f"/mode/{quote(s)}")
        self.call("DELETE", "/mode/{subject}", f"/mode/:{ctx}:", params={"recursive": "true"})
        self.call("PUT", "/mode", body={"mode": "READWRITE"})
        self.call("DELETE", "/mode")

        self.call("POST", "/subjects/{subject}/versions", f"/subjects/:{ctx}:{quote(s)}/versions",
                  {"schema": '"int"'})
        self.call("GET", "/contexts")
        self.call("DELETE", "/contexts/{context}", f"/contexts/{ctx}", expect=42211)
        self.call("DELETE", "/contexts/{context}", "/contexts/.empty", expect=204)

    def test_audit(self):
        s = self.sub("audit")
        self.call("POST", "/subjects/{subject}/versions", f"/subjects/{quote(s)}/versions", {"schema": '"int"'})
        self.call("POST", "/subjects/{subject}/versions", f"/subjects/{quote(s)}/versions", {"schema": "{"},
                  expect=42201)
        r = self.call("GET", "/audit", params={"subject": s, "limit": 10, "offset": 0, "action": "register",
                                               "since": "2020-01-01T00:00:00Z", "until": "2999-01-01T00:00:00Z"})
        # The refused row is written after its reply, so it may or may not be there yet.
        self.assertIn("ok", [row["outcome"] for row in r.body])
        self.call("GET", "/audit", params={"limit": "x"}, expect=400)
        self.call("GET", "/audit", params={"limit": 0}, expect=422)


if __name__ == "__main__":
    harness.main()

"""The route table against the list of Confluent's operations
(tests/integration/api_operations.json): a route added to or dropped from
server/routes.c without updating the list fails here, and so does an operation
the list calls implemented that the server answers as an unknown route. With
SR_CONFLUENT_SPEC naming Confluent's API description (schema-registry-api-spec.yaml
from core/generated/swagger-ui/ in github.com/confluentinc/schema-registry), the
list is also held against it: a new operation or query parameter there fails
here until the list says what this server does with it."""

import json
import os
import re
import unittest

import harness

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
STATUSES = {"implemented", "pending", "not implemented", "extension"}
ROUTED = {"implemented", "extension"}
METHODS = ("GET", "POST", "PUT", "DELETE")    # the order of ROUTE()'s handler columns
# Each method column is NO or ON(&handler, PERMISSION, SCOPE) (the permission it needs).
SLOT = r'\s*(NO|ON\([^)]*\))\s*'
ROUTE = re.compile(r'ROUTE\(\s*"([^"]+)"\s*,' + ",".join([SLOT] * 4) + r'\)')

# A value for every path parameter and query parameter the list names: what a
# client could send, so only the router could answer 404 error_code 404.
PATH_VALUES = {"subject": "s", "version": "1", "id": "1", "context": ".ctx",
               "guid": "0c1d6d4e-2b6e-8bd5-a6a4-b30e4b6ad1f1", "resourceId": "r",
               "resourceNamespace": "n", "resourceName": "r", "file": "index.html"}
QUERY_VALUES = {"deleted": "true", "deletedOnly": "false", "deletedAsNegative": "true",
                "offset": "0", "limit": "10", "subjectPrefix": "s", "aliases": "true",
                "latestOnly": "true", "ruleType": "DOMAIN", "resourceType": "topic",
                "associationType": "value", "lifecycle": "WEAK", "format": "",
                "referenceFormat": "qualified", "findTags": "*", "fetchMaxId": "true",
                "subject": "s", "normalize": "true", "verbose": "true", "permanent": "false",
                "force": "false", "defaultToGlobal": "true", "recursive": "false", "key": "k",
                "value": "v", "contextPrefix": ".", "context": ".", "dryRun": "true",
                "cascadeLifecycle": "false", "principal": "p", "action": "register",
                "since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z", "changes": "true", "from": "1",
                "mode": "delete", "includeSchemas": "true"}


def load_list():
    with open(os.path.join(HERE, "api_operations.json"), encoding="utf-8") as f:
        return json.load(f)["operations"]


def routes_c():
    """{(method, path)} of server/routes.c."""
    with open(os.path.join(ROOT, "server", "routes.c"), encoding="utf-8") as f:
        text = f.read()
    out = set()
    for m in ROUTE.finditer(text):
        for method, handler in zip(METHODS, m.groups()[1:]):
            if handler != "NO":
                out.add((method, m.group(1)))
    return out


def concrete(path):
    return re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES[m.group(1)], path)


class ListAndRoutes(unittest.TestCase):

    def test_list_is_well_formed(self):
        seen = set()
        for op in load_list():
            key = (op["method"], op["path"])
            with self.subTest(op=key):
                self.assertNotIn(key, seen, "listed twice")
                seen.add(key)
                self.assertIn(op["status"], STATUSES)
                self.assertTrue(op["source"])
                if op["status"] != "implemented":
                    self.assertTrue(op.get("reason"), "a status other than implemented says why")
                for name, note in dict(op["params"], **op.get("extra_params", {})).items():
                    self.assertIn(name, QUERY_VALUES, "the test needs a value for it")
                    self.assertTrue(note)

    def test_every_route_is_listed_and_every_listed_route_exists(self):
        routes = routes_c()
        self.assertGreater(len(routes), 30, "routes.c no longer parses as expected")
        listed = {(op["method"], op["path"]): op["status"] for op in load_list()}
        for key in sorted(routes):
            with self.subTest(route=key):
                self.assertTrue(key in listed, f"{key} of routes.c missing from api_operations.json")
                self.assertIn(listed[key], ROUTED,
                              f"routes.c has it: mark it implemented, not {listed[key]!r}")
        for key, status in sorted(listed.items()):
            if status in ROUTED:
                with self.subTest(listed=key):
                    self.assertTrue(key in routes, f"{key} listed as {status} but not in routes.c")

    @unittest.skipUnless(os.environ.get("SR_CONFLUENT_SPEC"), "SR_CONFLUENT_SPEC not set")
    def test_list_matches_confluent_spec(self):
        import yaml
        with open(os.environ["SR_CONFLUENT_SPEC"], encoding="utf-8") as f:
            spec = yaml.safe_load(f)
        in_spec = {}
        for path, ops in spec["paths"].items():
            for method, op in ops.items():
                if method.upper() in METHODS:
                    in_spec[(method.upper(), path)] = sorted(
                        p["name"] for p in op.get("parameters", []) if p.get("in") == "query")
        listed = {(op["method"], op["path"]): op for op in load_list() if op["status"] != "extension"}
        self.assertEqual(sorted(set(in_spec) - set(listed)), [], "in the spec, not in the list")
        self.assertEqual(sorted(set(listed) - set(in_spec)), [], "in the list, not in the spec")
        for key, params in in_spec.items():
            with self.subTest(op=key):
                self.assertEqual(sorted(listed[key]["params"]), params)


class AgainstTheServer(harness.RegistryTestCase):
    """Each routed operation answers with every listed parameter set, never as
    an unknown route (404 error_code 404) or with another method (405), nor 400;
    each other one is answered as an unknown route, as the community server
    answers a resource it does not register."""

    def request(self, op):
        params = {k: QUERY_VALUES[k] for k in dict(op["params"], **op.get("extra_params", {}))}
        body = {} if op["method"] in ("POST", "PUT") else None
        return self.http.request(op["method"], concrete(op["path"]), body=body, params=params)

    def test_routed_operations_answer(self):
        for op in load_list():
            if op["status"] not in ROUTED:
                continue
            with self.subTest(op=(op["method"], op["path"])):
                r = self.request(op)
                router_404 = r.status == 404 and isinstance(r.body, dict) and r.body.get("error_code") == 404
                self.assertFalse(router_404, r)
                self.assertNotIn(r.status, (400, 405), r)

    def test_other_operations_are_unknown_routes(self):
        for op in load_list():
            if op["status"] in ROUTED:
                continue
            with self.subTest(op=(op["method"], op["path"])):
                r = self.request(op)
                self.assertIn(r.status, (404, 405), r)
                self.assertEqual(r.body["error_code"], r.status, r)


if __name__ == "__main__":
    harness.main()

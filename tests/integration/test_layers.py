"""The floor plan, checked on the built objects and the sources
(docs/architecture.md, "Layers").

- Layers only include downwards: server -> registry -> store -> compat -> base,
  and the consumer's side: server (main.c's dispatch) -> cmd -> client ->
  compat -> base, where client and cmd never see server, registry or store;
  only server includes h2o, only store includes libpq, only client includes
  curl, base includes neither jansson nor any layer; an engine folder
  includes no other engine, and only compat/schema.c sees all three.
- No call circle between files (from the objects' symbol tables, nm) but the
  two recursive descents that are circles by nature: the JSON Schema loader
  (a $ref loads its target) and the JSON Schema diff (a subschema is diffed
  through the same entry point).
- No header include circle.
"""

import collections
import glob
import os
import re
import subprocess
import unittest

import harness

TOP = os.path.abspath(os.path.join(harness.HERE, "..", ".."))
LAYERS = ["server", "cmd", "client", "registry", "store", "compat", "base"]
# What each layer may include (itself included): not a line but a tree, since
# the consumer's client/ must not reach the registry's store.
BELOW = {
    "server": {"server", "cmd", "registry", "store", "compat", "base"},
    "cmd": {"cmd", "client", "compat", "base"},
    "client": {"client", "compat", "base"},
    "registry": {"registry", "store", "compat", "base"},
    "store": {"store", "compat", "base"},
    "compat": {"compat", "base"},
    "base": {"base"},
}
ALLOWED_CYCLES = [
    {"compat/jsonschema/jsonschema_load.c", "compat/jsonschema/jsonschema_load_modern.c",
     "compat/jsonschema/jsonschema_ref.c"},
    {"compat/jsonschema/jsonschema_diff.c", "compat/jsonschema/jsonschema_diff_array.c",
     "compat/jsonschema/jsonschema_diff_combined.c", "compat/jsonschema/jsonschema_diff_object.c",
     "compat/jsonschema/jsonschema_diff_scalar.c"},
]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def sources():
    for layer in LAYERS:
        for path in glob.glob(os.path.join(TOP, layer, "**", "*.[ch]"), recursive=True):
            yield os.path.relpath(path, TOP)


def includes(rel):
    with open(os.path.join(TOP, rel), errors="replace") as f:
        return INCLUDE.findall(f.read())


def sccs(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


class Layers(unittest.TestCase):

    def test_includes_point_down(self):
        bad = []
        for rel in sources():
            layer = rel.split("/")[0]
            below = BELOW[layer]
            for inc in includes(rel):
                top = inc.split("/")[0]
                if top in LAYERS and top not in below:
                    bad.append(f"{rel} includes {inc}")
                if inc.startswith("h2o") and layer != "server":
                    bad.append(f"{rel} includes h2o")
                if "libpq-fe" in inc and layer != "store":
                    bad.append(f"{rel} includes libpq")
                if inc.startswith("curl/") and layer != "client":
                    bad.append(f"{rel} includes curl")
                if layer == "base" and inc.startswith("jansson"):
                    bad.append(f"{rel} includes jansson")
        self.assertEqual(bad, [])

    def test_engines_are_apart(self):
        engines = ("avro", "protobuf", "jsonschema")
        bad, schema_sees = [], set()
        for rel in sources():
            parts = rel.split("/")
            for inc in includes(rel):
                m = re.match(r"compat/(avro|protobuf|jsonschema)/", inc)
                if not m:
                    continue
                if len(parts) > 2 and parts[1] in engines and parts[1] != m.group(1):
                    bad.append(f"{rel} includes {inc}")
                if len(parts) == 2 and parts[0] == "compat":
                    if rel != "compat/schema.c":
                        bad.append(f"{rel} includes {inc}")
                    else:
                        schema_sees.add(m.group(1))
                if parts[0] != "compat" and not inc.endswith(f"/{m.group(1)}.h"):
                    bad.append(f"{rel} includes an engine's internals: {inc}")
        self.assertEqual(bad, [])
        self.assertEqual(schema_sees, set(engines))

    def test_no_header_include_circle(self):
        graph = collections.defaultdict(set)
        for rel in sources():
            for inc in includes(rel):
                if os.path.exists(os.path.join(TOP, inc)):
                    graph[rel].add(inc)
        self.assertEqual([sorted(c) for c in sccs(graph)], [])

    def test_no_call_circle_but_the_recursive_descents(self):
        build = os.path.dirname(harness.server_binary())
        objects = glob.glob(os.path.join(build, "CMakeFiles", "*.dir", "**", "*.c.o"), recursive=True)
        defs, uses = {}, collections.defaultdict(set)
        for obj in objects:
            rel = obj.split(".dir/", 1)[1][:-2]
            if rel.split("/")[0] not in LAYERS or not os.path.exists(os.path.join(TOP, rel)):
                continue
            out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in "TDRB":
                    defs[f[2]] = rel
                elif len(f) == 2 and f[0] == "U":
                    uses[rel].add(f[1])
        self.assertGreater(len(uses), 50, f"too few objects found under {build}")
        graph = {f: {defs[s] for s in syms if s in defs and defs[s] != f} for f, syms in uses.items()}
        cycles = sccs(graph)
        self.assertEqual([sorted(c) for c in cycles if c not in ALLOWED_CYCLES], [])


if __name__ == "__main__":
    harness.main()

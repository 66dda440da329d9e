"""The curl examples of docs/api.md and README.md, run as written, in order,
each file on its own empty registry, with the real curl binary; every answer
must be the one the document shows. The documents can never drift from the
server again.

The example format (docs/api.md says it under its first ```sh block):
  - in a table: an inline code span that starts with `curl `, then ` -> ` and
    an inline code span holding the answer: `curl localhost:8081/` -> `{}`;
  - in a ```sh block: a line that starts with `curl` (continued over lines
    ending in a backslash), then the line `# -> ANSWER`;
  - NAME=... lines in ```sh blocks set shell variables every later command
    sees (H, the Content-Type header; G, a GUID computed as docs/api.md shows).
Every example must show its answer. An answer that is JSON is compared as JSON
(structurally: key order and spacing do not matter); the string "..." stands
for any value (used only where a value differs from run to run or is long
prose); "(no body" starts the answer of a reply without a body (a 204).
Anything else is compared as text. localhost:8081 is rewritten to the test
server's address.
"""

import json
import os
import re
import subprocess
import tempfile
import unittest

import harness

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ANY = "..."
NO_BODY = "(no body"
SPAN = re.compile(r"`(curl [^`]*)`(?:\s*->\s*`([^`]*)`)?")
ASSIGN = re.compile(r"^[A-Z][A-Z0-9_]*=")


def extract(path):
    """[(line number, command, expected or None)] and the shell preamble."""
    examples, preamble = [], []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
            i += 1
            continue
        if fence is None:
            for m in SPAN.finditer(line):
                examples.append((i + 1, m.group(1), m.group(2)))
            i += 1
            continue
        if fence == "sh":
            if ASSIGN.match(stripped):
                preamble.append(stripped)
            elif stripped.startswith("curl"):
                start = i
                cmd = [stripped]
                while cmd[-1].endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd.append(lines[i].strip())
                expected = None
                if i + 1 < len(lines) and lines[i + 1].strip().startswith("# -> "):
                    i += 1
                    expected = lines[i].strip()[len("# -> "):]
                examples.append((start + 1, "\n".join(cmd), expected))
        i += 1
    return examples, preamble


def matches(expected, actual):
    """expected (parsed JSON, "..." anywhere = any value) against actual."""
    if expected == ANY:
        return True
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and set(expected) == set(actual)
                and all(matches(expected[k], actual[k]) for k in expected))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(matches(e, a) for e, a in zip(expected, actual)))
    return type(expected) is type(actual) and expected == actual


def run_examples(case, path):
    """Runs every example; fails once, listing every example that answered
    otherwise (the later ones still run: they show what else drifted)."""
    examples, preamble = extract(path)
    case.assertGreater(len(examples), 0, path)
    name = os.path.relpath(path, ROOT)
    address = f"127.0.0.1:{case.server.port}"
    failures = []
    for line, cmd, expected in examples:
        where = f"{name}:{line}: {cmd}"
        if expected is None:
            failures.append(f"{where}\n  the example shows no answer")
            continue
        script = "\n".join(preamble + [cmd.replace("localhost:8081", address)])
        run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        actual = run.stdout
        if run.returncode != 0:
            failures.append(f"{where}\n  curl failed ({run.returncode}): {run.stderr}")
            continue
        if expected.startswith(NO_BODY):
            if actual != "":
                failures.append(f"{where}\n  doc:    {expected}\n  server: {actual}")
            continue
        try:
            want = json.loads(expected)
        except ValueError:
            if actual.strip() != expected.strip():
                failures.append(f"{where}\n  doc:    {expected}\n  server: {actual}")
            continue
        try:
            ok = matches(want, json.loads(actual))
        except ValueError:
            ok = False
        if not ok:
            failures.append(f"{where}\n  doc:    {expected}\n  server: {actual}")
    if failures:
        case.fail(f"{len(failures)} of {len(examples)} examples differ:\n" + "\n".join(failures))


class ApiDoc(harness.RegistryTestCase):

    def test_api_md_examples(self):
        run_examples(self, os.path.join(ROOT, "docs", "api.md"))


class Readme(harness.RegistryTestCase):

    def test_readme_examples(self):
        run_examples(self, os.path.join(ROOT, "README.md"))


class Format(unittest.TestCase):
    """The extractor itself, on the shapes the documents use."""

    def test_table_and_block_examples(self):
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("| a | `curl localhost:8081/` -> `{}` |\n"
                    "| b | `curl localhost:8081/x` |\n"
                    "```sh\nH='X: y'\ncurl -s \\\n  localhost:8081/a\n# -> [1]\ncurl b\n```\n")
        try:
            examples, preamble = extract(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(preamble, ["H='X: y'"])
        self.assertEqual([(c, e) for _, c, e in examples],
                         [("curl localhost:8081/", "{}"), ("curl localhost:8081/x", None),
                          ("curl -s \\\nlocalhost:8081/a", "[1]"), ("curl b", None)])

    def test_any_matches_any_value_only_where_written(self):
        self.assertTrue(matches({"a": ANY, "b": [1]}, {"a": {"x": 1}, "b": [1]}))
        self.assertFalse(matches({"a": ANY}, {"a": 1, "b": 2}))
        self.assertFalse(matches([1, 2], [2, 1]))
        self.assertFalse(matches(1, True))


if __name__ == "__main__":
    harness.main()

"""One config reference (docs/operations.md section 2): `schema-registry config
--print-defaults` prints every key of server/config.c's table (flag,
environment variable, default, meaning); docs/operations.md holds that output
verbatim; --help and the man page schema-registry(1) are printed from the same
table, and the man page passes groff's and mandoc's checks.

    python3 test_config_reference.py --update   rewrites the table in docs/operations.md
"""

import difflib
import os
import re
import subprocess
import sys

import harness

DOCS = os.path.join(harness.HERE, "..", "..", "docs", "operations.md")
BEGIN = re.compile(r"^<!-- config-table:.*-->\n", re.M)
END = "<!-- end config-table -->\n"


def run(*argv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
    return subprocess.run([harness.server_binary(), *argv], capture_output=True, text=True, env=env,
                          timeout=60, stdin=subprocess.DEVNULL)


def docs_table(text):
    """The docs' generated table and where it sits, (start, end) in text."""
    m = BEGIN.search(text)
    assert m, "docs/operations.md lost its <!-- config-table: ... --> marker"
    end = text.index(END, m.end())
    return text[m.end():end], (m.end(), end)


def printed_rows():
    """{key: (env, flag with metavar, default, meaning)} from config --print-defaults."""
    r = run("config", "--print-defaults")
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert lines[0] == "| Key | Environment variable | Flag | Default | Meaning |", lines[0]
    assert lines[1] == "| --- | --- | --- | --- | --- |"
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 5, line
        key = cells[0].strip("`")
        assert key not in rows, key
        rows[key] = tuple(c.strip("`") if i < 2 else c for i, c in enumerate(cells[1:]))
    return r.stdout, rows


class ConfigReference(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.markdown, cls.rows = printed_rows()

    def test_docs_hold_the_printed_table_verbatim(self):
        with open(DOCS, encoding="utf-8") as f:
            table, _ = docs_table(f.read())
        if table != self.markdown:
            diff = "".join(difflib.unified_diff(table.splitlines(True), self.markdown.splitlines(True),
                                                "docs/operations.md", "config --print-defaults"))
            self.fail("docs/operations.md section 2 differs from `schema-registry config --print-defaults`;"
                      " run `python3 tests/integration/test_config_reference.py --update`:\n" + diff)

    def test_every_row_is_complete_and_spelled_from_its_key(self):
        self.assertGreaterEqual(len(self.rows), 29)
        for key, (env, flag, default, meaning) in self.rows.items():
            self.assertRegex(key, r"^[a-z0-9]+(\.[a-z0-9]+)*$")
            self.assertTrue(meaning and default, key)
            if env == "(config file only)":
                self.assertEqual(flag, "(none)", key)
                continue
            self.assertEqual(env, "SCHEMA_REGISTRY_" + key.upper().replace(".", "_"))
            self.assertTrue(flag.startswith("--" + key.replace(".", "-") + " "), (key, flag))
        self.assertEqual(self.rows["auth.rule"][0], "(config file only)")
        self.assertEqual(self.rows["auth.group"][0], "(config file only)")
        # Defaults as the loader applies them (tests/unit/test_config.c checks the values loaded).
        self.assertEqual(self.rows["db.threads"][2], "`16`")
        self.assertEqual(self.rows["database.url"][2], "unset")
        self.assertEqual(self.rows["log.format"][2], "`text`")

    def test_every_key_is_accepted_by_the_loader_under_its_flag_and_variable(self):
        """What the reference names, the loader takes: each printed default, given back as a
        flag and as a variable, is accepted (and an unknown flag is not)."""
        argv, env = [], {}
        for key, (var, flag, default, _) in self.rows.items():
            if var == "(config file only)" or default == "unset":
                continue
            name = flag.split(" ")[0]
            value = default.strip("`")
            argv += [f"{name}={value}"]
            env[var] = value
        # `migrate` loads the whole configuration first; a bad database ends it after that (exit 1).
        bad_db = ["--database-url", "postgresql://127.0.0.1:1/none?connect_timeout=1"]
        base = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
        r = subprocess.run([harness.server_binary(), "migrate", *argv, *bad_db], capture_output=True,
                           text=True, env=base, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        r = subprocess.run([harness.server_binary(), "migrate", *bad_db], capture_output=True, text=True,
                           env=dict(base, **env), timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("unknown variable", r.stderr)

    def test_help_is_printed_from_the_table(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0, r)
        help_text = r.stdout
        for key, (env, flag, default, meaning) in self.rows.items():
            if env == "(config file only)":
                self.assertIn(f"  {key} = ", help_text)
                continue
            plain_default = "unset" if default == "unset" else default.strip("`")
            self.assertRegex(help_text, rf"\n  {re.escape(flag)}  \({env}, {re.escape(key)}\)\n"
                                        rf"(      .*\n)+      Default: {re.escape(plain_default)}\.\n")
        for words in ("Usage:", "config --print-defaults", "Exit status", "SIGHUP", "sudo"):
            self.assertIn(words, help_text)

    def test_config_command_takes_one_of_its_two_options(self):
        for argv in ((), ("--print-everything",), ("--print-man", "--print-defaults")):
            r = run("config", *argv)
            self.assertEqual(r.returncode, 2, (argv, r))
            self.assertIn("--print-defaults or --print-man", r.stderr)
            self.assertEqual(r.stdout, "")


class ManPage(harness.unittest.TestCase):
    """schema-registry(1): written at build time next to the binary (CMakeLists.txt)."""

    @classmethod
    def setUpClass(cls):
        cls.path = os.path.join(os.path.dirname(harness.server_binary()), "schema-registry.1")
        r = run("config", "--print-man")
        assert r.returncode == 0, r
        cls.roff = r.stdout
        _, cls.rows = printed_rows()

    def test_the_build_wrote_the_page_the_binary_prints(self):
        with open(self.path, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.roff)

    def test_groff_renders_it_without_a_warning(self):
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", self.path], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_mandoc_lint_finds_nothing(self):
        r = subprocess.run(["mandoc", "-T", "lint", "-W", "all", self.path], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))

    def test_man_shows_every_section_flag_variable_and_key(self):
        r = subprocess.run(["man", "-l", self.path], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8"))
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        page = r.stdout
        for section in ("NAME", "SYNOPSIS", "COMMANDS", "OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS",
                        "SIGNALS", "SEE ALSO"):
            self.assertRegex(page, rf"\n{section}\n", section)
        for key, (env, flag, default, _) in self.rows.items():
            self.assertIn(key, page)
            if env != "(config file only)":
                self.assertIn(env, page)
                self.assertIn(flag, page)
        for var in ("SCHEMA_REGISTRY_CONFIG", "NOTIFY_SOCKET", "PGCONNECT_TIMEOUT"):
            self.assertIn(var, page)


def update_docs():
    markdown, _ = printed_rows()
    with open(DOCS, encoding="utf-8") as f:
        text = f.read()
    _, (start, end) = docs_table(text)
    with open(DOCS, "w", encoding="utf-8") as f:
        f.write(text[:start] + markdown + text[end:])
    print("docs/operations.md: table rewritten from config --print-defaults")


if __name__ == "__main__":
    if "--update" in sys.argv:
        update_docs()
    else:
        harness.main()

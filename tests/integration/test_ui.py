"""The web page at /ui/ (docs/evolution.md, "Web page"), in a real browser:
Debian's headless Chromium loads the page from the real server, the page calls
the REST API from the browser, and the test reads the DOM Chromium dumps. The
page is this registry's own (Confluent's community registry serves none); its
404 for an unknown file is Confluent's body for an unknown URL
({"error_code":404,"message":"HTTP 404 Not Found"}, as Jersey's NotFoundException
is rendered by the RestExceptionMapper of Confluent's rest-utils).

The views are picked as a person does, by following the links the previous view
rendered: the subject's link on the subjects view, then the v1-v3 compare link
on the timeline. Set SR_UI_SCREENSHOTS to a folder (relative to the repository's
root; docs for the README's pictures) to keep a screenshot of each view there."""

import html.parser
import json
import os
import shutil
import subprocess
import unittest

import harness
from test_auth_basic import AuthCase
from urllib.parse import quote


def enc(name):
    """The page's encodeURIComponent, for the names used here."""
    return quote(name, safe="")

CHROMIUM = shutil.which("chromium")

V1 = json.dumps({"type": "record", "name": "Customer", "fields": [
    {"name": "id", "type": "int"}, {"name": "name", "type": "string"}]})
# v2: a column added (with a default, so old data still reads).
V2 = json.dumps({"type": "record", "name": "Customer", "fields": [
    {"name": "id", "type": "int"}, {"name": "name", "type": "string"},
    {"name": "city", "type": "string", "default": ""}]})
# v3: name renamed to full_name (an Avro alias) and id widened from int to long.
V3 = json.dumps({"type": "record", "name": "Customer", "fields": [
    {"name": "id", "type": "long"}, {"name": "full_name", "type": "string", "aliases": ["name"]},
    {"name": "city", "type": "string", "default": ""}]})


class Dom(html.parser.HTMLParser):
    """The parts of a dumped DOM the test reads: elements by id (their text),
    the links' hrefs and the change rows (attributes and cell texts)."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.links, self.rows, self.attrs = {}, [], [], {}
        self._open = []  # [tag, id, text parts] of the elements being read
        self._row = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.attrs = a
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "tr" and "change" in (a.get("class") or "").split():
            self._row = {"class": a["class"], "kind": a.get("data-kind"), "path": a.get("data-path"),
                         "cells": []}
        if tag == "td" and self._row is not None:
            self._row["cells"].append("")
        if tag in ("input", "link", "meta", "br", "img"):  # void: no end tag comes
            if a.get("id") is not None:
                self.ids[a["id"]] = ""
            return
        self._open.append([tag, a.get("id"), []])

    def handle_endtag(self, tag):
        while self._open:
            t, i, parts = self._open.pop()
            if i is not None:
                self.ids[i] = "".join(parts)
            if t == tag:
                break
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        for e in self._open:
            e[2].append(data)
        if self._row is not None and self._row["cells"]:
            self._row["cells"][-1] += data


def chromium(url, *flags):
    """Runs headless Chromium on url until the page's fetches are done (virtual time)."""
    profile = harness.make_temp_dir("ui-chromium")
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-extensions", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
            "--window-size=1100,760", *flags, url]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


@unittest.skipUnless(CHROMIUM, "Debian's chromium is not installed (scripts/install-deps.sh, test group)")
class WebPage(harness.RegistryTestCase):

    def view(self, fragment, shot=None):
        """The DOM of /ui/ at fragment, after checking the page finished that view."""
        url = f"http://127.0.0.1:{self.server.port}/ui/{fragment}"
        out = chromium(url, "--dump-dom")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        dom = Dom(out.stdout)
        self.assertNotIn("error", dom.ids, dom.ids.get("error"))
        self.assertEqual(dom.attrs.get("data-ready"), fragment or "#/", out.stdout[-2000:])
        folder = os.environ.get("SR_UI_SCREENSHOTS")
        if folder and shot:
            root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
            path = os.path.abspath(os.path.join(root, folder, f"ui-{shot}.png"))  # folder: from the repo's root
            s = chromium(url, f"--screenshot={path}")
            self.assertEqual(s.returncode, 0, s.stderr[-2000:])
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        return dom

    def test_pick_a_subject_and_compare_v1_with_v3(self):
        s = self.sub("customers")
        other = self.sub("orders")
        ids = [self.register_ok(s, v) for v in (V1, V2, V3)]
        self.register_ok(other, V1)

        subjects = self.view("", "subjects")
        self.assertIn(f"#/s/{enc(s)}", subjects.links)
        self.assertIn(f"#/s/{enc(other)}", subjects.links)
        self.assertIn("search", subjects.ids)
        self.assertEqual(subjects.ids["subjects"], s + other)

        # The search box keeps the subjects whose name holds its text, in any case.
        found = self.view("#/?q=ORDERS", "search")
        self.assertEqual(found.ids["subjects"], other)
        self.assertIn(f"#/s/{enc(other)}", found.links)
        self.assertNotIn(f"#/s/{enc(s)}", found.links)
        self.assertEqual(self.view("#/?q=nothing-like-it").ids["subjects"], "No subject matches.")

        timeline = self.view(f"#/s/{enc(s)}", "timeline")
        self.assertEqual(timeline.ids["level"], "Compatibility level: BACKWARD")
        compare = f"#/s/{enc(s)}/compare/1/3"
        self.assertIn(compare, timeline.links)

        dom = self.view(compare, "compare")
        self.assertEqual(dom.ids["level"], "Compatibility level: BACKWARD")
        self.assertEqual(dom.ids["summary"],
                         "v1 → v3: 1 column added, 1 renamed, 1 widened; backward compatible")
        rows = [(r["kind"], r["path"], r["class"], r["cells"]) for r in dom.rows]
        self.assertEqual(sorted(rows), sorted([
            ("FIELD_ADDED_WITH_DEFAULT", "city", "change ok",
             ["FIELD_ADDED_WITH_DEFAULT", "city", "", "string", "forward okbackward ok", ""]),
            ("FIELD_RENAMED", "full_name", "change bwd",
             ["FIELD_RENAMED", "full_name", "string", "string", "forward breaksbackward ok", "name"]),
            ("TYPE_WIDENED", "id", "change bwd",
             ["TYPE_WIDENED", "id", "int", "long", "forward breaksbackward ok", ""]),
        ]), rows)
        # The two sides carry each version's id, the level and the references (none here).
        self.assertEqual(dom.ids["ids-1"], f"id {ids[0]} · AVRO · level BACKWARD")
        self.assertEqual(dom.ids["ids-3"], f"id {ids[2]} · AVRO · level BACKWARD")
        self.assertEqual(dom.ids["refs-1"], "No references.")
        self.assertEqual(dom.ids["refs-3"], "No references.")

    def test_files_and_their_types(self):
        for path, media, start in (("/ui/", "text/html", "<!doctype html>"),
                                   ("/ui/index.html", "text/html", "<!doctype html>"),
                                   ("/ui/ui.css", "text/css", "/*"),
                                   ("/ui/ui.js", "application/javascript", "/*")):
            r = self.get(path, headers={"Accept": "*/*"})
            self.assertEqual(r.status, 200, path)
            self.assertEqual(r.headers["Content-Type"], media + "; charset=utf-8", path)
            self.assertTrue(r.text.startswith(start), path)
        for path in ("/ui/nothing.html", "/ui/ui.js.html", "/ui/x.js", "/ui/a/b"):
            r = self.get(path, headers={"Accept": "*/*"})
            self.assertEqual(r.status, 404, path)
            self.assertEqual(r.body, {"error_code": 404, "message": "HTTP 404 Not Found"}, path)


class WebPageBehindBasicAuth(AuthCase):
    """With HTTP Basic on, the page needs a principal as any request does, and the
    browser's credentials go with the API calls the page makes."""

    def test_needs_a_principal(self):
        for path in ("/ui/", "/ui/ui.js", "/ui/nothing.html"):
            r = self.http.get(path)
            self.assertEqual(r.status, 401, path)
        r = self.as_user("bob").get("/ui/", headers={"Accept": "text/html"})
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["Content-Type"], "text/html; charset=utf-8")

    @unittest.skipUnless(CHROMIUM, "Debian's chromium is not installed")
    def test_the_browser_s_credentials_reach_the_api(self):
        s = "auth-customers"
        r = self.as_user("bob").post(f"/subjects/{s}/versions", {"schema": V1})
        self.assertEqual(r.status, 200, r)
        out = chromium(f"http://bob:builder@127.0.0.1:{self.server.port}/ui/#/s/{s}", "--dump-dom")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        dom = Dom(out.stdout)
        self.assertNotIn("error", dom.ids, dom.ids.get("error"))
        self.assertEqual(dom.attrs.get("data-ready"), f"#/s/{s}")
        self.assertEqual(dom.ids["level"], "Compatibility level: BACKWARD")
        # The principal of the history is the browser's user.
        self.assertIn("bob", dom.ids["timeline"])


if __name__ == "__main__":
    unittest.main()

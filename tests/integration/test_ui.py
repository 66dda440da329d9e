"""The web page at /ui/ (docs/evolution.md, "Web page"), in a real browser:
Debian's headless Chromium loads the page from the real server, the page calls
the REST API from the browser, and the test reads the DOM Chromium dumps. The
page is this registry's own (Confluent's community registry serves none); its
404 for an unknown file is Confluent's body for an unknown URL
({"error_code":404,"message":"HTTP 404 Not Found"}, as Jersey's NotFoundException
is rendered by the RestExceptionMapper of Confluent's rest-utils).

The main test drives one page as a person does, over Chromium's DevTools
protocol on a pipe (--remote-debugging-pipe, so no port and no WebSocket
library): it types into the search box, clicks the subject's link, picks v1 and
v3 in the timeline's two selects, clicks Compare, and reads the labelled rows
the click rendered; clicks are mouse events at the element's place on the
screen, so they go through hit testing as a person's do. Set SR_UI_SCREENSHOTS
to a folder (relative to the repository's root; docs for the README's pictures)
to keep a screenshot of each view there, taken in that session."""

import base64
import fcntl
import html.parser
import json
import os
import shutil
import subprocess
import time
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
# v4: another column with a default, so the timeline's picker starts at v1 and v4 and
# comparing v1 with v3 takes a pick.
V4 = json.dumps({"type": "record", "name": "Customer", "fields": [
    {"name": "id", "type": "long"}, {"name": "full_name", "type": "string", "aliases": ["name"]},
    {"name": "city", "type": "string", "default": ""}, {"name": "tier", "type": "int", "default": 0}]})


class Dom(html.parser.HTMLParser):
    """The parts of a dumped DOM the test reads: elements by id (their text),
    the links' hrefs and the change rows (attributes, cell texts and the
    labels in them, each (class, text))."""

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
                         "cells": [], "labels": []}
        if tag == "td" and self._row is not None:
            self._row["cells"].append("")
        if tag == "span" and self._row is not None and "label" in (a.get("class") or "").split():
            self._row["labels"].append([a["class"], ""])
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
        if self._row is not None and self._open and self._open[-1][0] == "span" and self._row["labels"]:
            self._row["labels"][-1][1] += data


def chromium(url, *flags):
    """Runs headless Chromium on url until the page's fetches are done (virtual time)."""
    profile = harness.make_temp_dir("ui-chromium")
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-extensions", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
            "--window-size=1100,760", *flags, url]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


class Browser:
    """One headless Chromium page driven over the DevTools protocol on a pipe:
    Chromium reads JSON commands, each ended by a NUL byte, on its fd 3 and
    writes the answers and events on its fd 4."""

    def __init__(self, test, width=1100, height=760):
        self.test, self._id, self._buf = test, 0, b""
        profile = harness.make_temp_dir("ui-chromium")

        def high(fd):  # out of 3 and 4's way, and single-digit-free for the shell's redirections
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return moved

        to_r, self._to = map(high, os.pipe())
        self._from, from_w = map(high, os.pipe())
        argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-extensions", f"--user-data-dir={profile}", "--remote-debugging-pipe",
                f"--window-size={width},{height}", "about:blank"]
        # bash, not sh: dash takes no two-digit descriptor in a redirection.
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_r} 4>&{from_w} {to_r}<&- {from_w}>&-', *argv],
            pass_fds=(to_r, from_w), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_r)
        os.close(from_w)
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
        except Exception:
            self.close()  # no test holds it yet to close it
            raise

    def call(self, method, session=None, **params):
        """Sends one command and returns its result; events on the way are dropped."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._from, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium went away: " + self.proc.stderr.read().decode()[-2000:])
                self._buf += chunk
            line, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(line)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    def js(self, expression):
        """The value of a JS expression in the page (a promise is awaited)."""
        r = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def ready(self, fragment, timeout=20):
        """Waits until the page has finished the view of fragment (body's data-ready), or
        shows an error, and returns its DOM."""
        end = time.monotonic() + timeout
        while True:
            state = self.js("[document.body && document.body.getAttribute('data-ready'),"
                            " (document.getElementById('error') || {}).textContent || null]")
            if state[0] == fragment or state[1] or time.monotonic() > end:
                break
            time.sleep(0.05)
        dom = Dom(self.js("document.documentElement.outerHTML"))
        self.test.assertNotIn("error", dom.ids, dom.ids.get("error"))
        self.test.assertEqual(dom.attrs.get("data-ready"), fragment)
        return dom

    def open(self, url, fragment):
        self.page("Page.navigate", url=url)
        return self.ready(fragment)

    def click(self, element):
        """A left click at the middle of the element a JS expression names, as the mouse makes it."""
        x, y = self.js(f"(() => {{ const e = {element}; e.scrollIntoView({{block: 'center'}});"
                       " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        self.page("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type(self, element, text):
        """Focuses the element and types text into it, as the keyboard does (one input event)."""
        self.click(element)
        self.page("Input.insertText", text=text)

    def pick(self, select, label):
        """Chooses the option of a <select> by its label, as a person's choice does: the option
        selected, then input and change fired (what browser automation's selectOption does)."""
        ok = self.js(f"(() => {{ const s = {select}; const o = [...s.options].find((o) => o.text === {json.dumps(label)});"
                     " if (!o) return false; s.value = o.value;"
                     " s.dispatchEvent(new Event('input', {bubbles: true}));"
                     " s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()")
        self.test.assertTrue(ok, f"no option {label} in {select}")

    def screenshot(self, shot):
        """Keeps the page as it is now as docs' ui-{shot}.png when SR_UI_SCREENSHOTS names a folder."""
        folder = os.environ.get("SR_UI_SCREENSHOTS")
        if not folder:
            return
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        path = os.path.abspath(os.path.join(root, folder, f"ui-{shot}.png"))  # folder: from the repo's root
        png = base64.b64decode(self.page("Page.captureScreenshot", format="png")["data"])
        self.test.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        with open(path, "wb") as f:
            f.write(png)

    def close(self):
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()
        os.close(self._to)
        os.close(self._from)


def labelled(dom):
    """The change rows as the page shows them: kind and path, the row's colour, each label
    (kind, forward, backward) as (class, text), and the cells' texts."""
    return sorted((r["kind"], r["path"], r["class"], [tuple(x) for x in r["labels"]], r["cells"])
                  for r in dom.rows)


@unittest.skipUnless(CHROMIUM, "Debian's chromium is not installed (scripts/install-deps.sh, test group)")
class WebPage(harness.RegistryTestCase):

    def view(self, fragment):
        """The DOM of /ui/ at fragment as one Chromium run dumps it, after checking the page
        finished that view (the linked views: a fragment opens them without any click)."""
        url = f"http://127.0.0.1:{self.server.port}/ui/{fragment}"
        out = chromium(url, "--dump-dom")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        dom = Dom(out.stdout)
        self.assertNotIn("error", dom.ids, dom.ids.get("error"))
        self.assertEqual(dom.attrs.get("data-ready"), fragment or "#/", out.stdout[-2000:])
        return dom

    def browser(self):
        b = Browser(self)
        self.addCleanup(b.close)
        return b

    def test_pick_a_subject_and_compare_v1_with_v3(self):
        s = self.sub("customers")
        other = self.sub("orders")
        ids = [self.register_ok(s, v) for v in (V1, V2, V3, V4)]
        self.register_ok(other, V1)
        b = self.browser()

        # Load the page: the subjects, each a link.
        subjects = b.open(f"http://127.0.0.1:{self.server.port}/ui/", "#/")
        self.assertIn(f"#/s/{enc(s)}", subjects.links)
        self.assertIn(f"#/s/{enc(other)}", subjects.links)
        everything = self.get("/subjects").body  # this test's two, and any an earlier test made
        listed = "".join(everything)
        self.assertEqual(subjects.ids["subjects"], listed)
        b.screenshot("subjects")

        # Typing in the search box keeps the subjects whose name holds the text, in any case.
        b.type("document.getElementById('search')", "ORDERS")
        found = b.ready("#/")
        kept = [x for x in everything if "orders" in x.lower()]
        self.assertIn(other, kept)
        self.assertEqual(found.ids["subjects"], "".join(kept))
        self.assertEqual([l for l in found.links if l.startswith("#/s/")], [f"#/s/{enc(x)}" for x in kept])
        b.screenshot("search")
        b.js("(() => { const e = document.getElementById('search'); e.select(); })()")
        self.page_key(b, "Backspace")
        self.assertEqual(Dom(b.js("document.documentElement.outerHTML")).ids["subjects"], listed)

        # Pick the subject: its link, clicked.
        b.click(f"[...document.querySelectorAll('a.subject')].find((a) => a.textContent === {json.dumps(s)})")
        timeline = b.ready(f"#/s/{enc(s)}")
        self.assertEqual(timeline.ids["level"], "Compatibility level: BACKWARD")
        self.assertEqual(b.js("[document.getElementById('from').value, document.getElementById('to').value]"),
                         ["1", "4"])
        b.screenshot("timeline")

        # Pick v1 and v3, click Compare: the changes from v1 to v3, labelled.
        b.pick("document.getElementById('from')", "v1")
        b.pick("document.getElementById('to')", "v3")
        b.click("document.getElementById('compare')")
        dom = b.ready(f"#/s/{enc(s)}/compare/1/3")
        self.assertEqual(dom.ids["level"], "Compatibility level: BACKWARD")
        self.assertEqual(dom.ids["summary"],
                         "v1 → v3: 1 column added, 1 renamed, 1 widened; backward compatible")
        self.assertEqual(labelled(dom), sorted([
            ("FIELD_ADDED_WITH_DEFAULT", "city", "change ok",
             [("label kind", "FIELD_ADDED_WITH_DEFAULT"), ("label yes", "forward ok"),
              ("label yes", "backward ok")],
             ["FIELD_ADDED_WITH_DEFAULT", "city", "", "string", "forward okbackward ok", ""]),
            ("FIELD_RENAMED", "full_name", "change bwd",
             [("label kind", "FIELD_RENAMED"), ("label no", "forward breaks"), ("label yes", "backward ok")],
             ["FIELD_RENAMED", "full_name", "string", "string", "forward breaksbackward ok", "name"]),
            ("TYPE_WIDENED", "id", "change bwd",
             [("label kind", "TYPE_WIDENED"), ("label no", "forward breaks"), ("label yes", "backward ok")],
             ["TYPE_WIDENED", "id", "int", "long", "forward breaksbackward ok", ""]),
        ]))
        # The two sides carry each version's id, the level and the references (none here).
        self.assertEqual(dom.ids["ids-1"], f"id {ids[0]} · AVRO · level BACKWARD")
        self.assertEqual(dom.ids["ids-3"], f"id {ids[2]} · AVRO · level BACKWARD")
        self.assertEqual(dom.ids["refs-1"], "No references.")
        self.assertEqual(dom.ids["refs-3"], "No references.")
        b.screenshot("compare")

        # The compare view's own picker: v3 with v4, one column added that breaks no reader.
        b.pick("document.getElementById('from')", "v3")
        b.pick("document.getElementById('to')", "v4")
        b.click("document.getElementById('compare')")
        dom = b.ready(f"#/s/{enc(s)}/compare/3/4")
        self.assertEqual(dom.ids["summary"], "v3 → v4: 1 column added; fully compatible")
        self.assertEqual(labelled(dom), [
            ("FIELD_ADDED_WITH_DEFAULT", "tier", "change ok",
             [("label kind", "FIELD_ADDED_WITH_DEFAULT"), ("label yes", "forward ok"),
              ("label yes", "backward ok")],
             ["FIELD_ADDED_WITH_DEFAULT", "tier", "", "int", "forward okbackward ok", ""])])

    @staticmethod
    def page_key(b, key):
        """One key pressed and released, as the keyboard sends it."""
        for kind in ("keyDown", "keyUp"):
            b.page("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                   windowsVirtualKeyCode={"Backspace": 8}[key])

    def test_views_by_their_links(self):
        """A view's URL opens it without clicks: #/?q= filters the subjects, #/s/{s} is the
        timeline with a link to compare its first and each later version."""
        s = self.sub("customers")
        other = self.sub("orders")
        for v in (V1, V2, V3):
            self.register_ok(s, v)
        self.register_ok(other, V1)
        found = self.view(f"#/?q={enc(other.upper())}")
        self.assertEqual(found.ids["subjects"], other)
        self.assertIn(f"#/s/{enc(other)}", found.links)
        self.assertNotIn(f"#/s/{enc(s)}", found.links)
        self.assertEqual(self.view("#/?q=nothing-like-it").ids["subjects"], "No subject matches.")
        timeline = self.view(f"#/s/{enc(s)}")
        for v in (2, 3):
            self.assertIn(f"#/s/{enc(s)}/compare/1/{v}", timeline.links)
        dom = self.view(f"#/s/{enc(s)}/compare/1/3")
        self.assertEqual(dom.ids["summary"],
                         "v1 → v3: 1 column added, 1 renamed, 1 widened; backward compatible")

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

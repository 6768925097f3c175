"""A small Chrome DevTools Protocol client over --remote-debugging-pipe (python3 stdlib only).

Chromium started with --remote-debugging-pipe reads protocol messages from its fd 3 and writes
them to its fd 4, each a JSON object followed by a NUL byte (the transport chromedriver and
Puppeteer's `pipe: true` use). No port, no WebSocket, no package to install.
Protocol reference: the DevTools protocol's domains Target, Page, Runtime, Log, Input, Network,
Emulation (chromedevtools.github.io/devtools-protocol).
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, chromium, width=1280, height=900, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="gpusim-html-test-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [
            chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-ipc-flooding-protection", "--mute-audio", "--hide-scrollbars",
            "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height),
            "--remote-debugging-pipe", "about:blank",
        ]
        # the pipe ends become the child's fds 3 (it reads) and 4 (it writes)
        self.proc = subprocess.Popen(
            ["bash", "-c", 'exec "$@" 3<&%d 4>&%d' % (to_chrome_r, from_chrome_w), "chromium"] + args,
            pass_fds=(to_chrome_r, from_chrome_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False, wait=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("no answer from chromium within %.0fs" % self.timeout)
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise CDPError("chromium closed the pipe (exit status %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, m in enumerate(self.events):
            if m["method"] == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            if "method" in m:
                self.events.append(m)

    def open_page(self):
        """A new tab, attached (flat session), with the domains the tests listen to enabled."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")

    def navigate(self, url):
        """Load `url` afresh (through about:blank, so a URL differing only in its fragment loads too)."""
        for u in ("about:blank", url):
            self.events = [m for m in self.events if m["method"] != "Page.loadEventFired"]
            self.send("Page.navigate", {"url": u})
            self.wait_event("Page.loadEventFired")

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError("evaluate %r: %s" % (expr[:80], r["exceptionDetails"]))
        return r["result"].get("value")

    def problems(self):
        """Console errors, uncaught exceptions and requests that left the file, since the last call."""
        out, keep = [], []
        for m in self.events:
            meth, p = m["method"], m.get("params", {})
            if meth == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
            elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif meth == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
            elif meth == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not (url.startswith("file:") or url.startswith("data:") or url.startswith("about:")):
                    out.append("request: %s" % url)
            else:
                keep.append(m)
        self.events = keep
        return out

    # --- input as a person gives it -------------------------------------------------------
    def box(self, selector):
        """The centre and size of the element, scrolled into view (CSS pixels of the viewport)."""
        r = self.eval("(function(){var e=document.querySelector(%s); if(!e) return null; e.scrollIntoView({block:'center'});"
                      "var b=e.getBoundingClientRect(); return [b.left,b.top,b.width,b.height];})()" % json.dumps(selector))
        if r is None:
            raise CDPError("no element %s" % selector)
        return r

    def click(self, selector, fx=0.5):
        x, y, w, h = self.box(selector)
        cx, cy = x + w * fx, y + h / 2
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": cx, "y": cy})
        self.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": cx, "y": cy, "button": "left", "clickCount": 1})
        self.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": cx, "y": cy, "button": "left", "clickCount": 1})

    def key(self, key, code, vk):
        self.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk})

    def screenshot(self, path, max_height=8000):
        height = min(max_height, int(self.eval("Math.ceil(document.documentElement.scrollHeight)")))
        width = int(self.eval("Math.ceil(document.documentElement.scrollWidth)"))
        self.send("Emulation.setDeviceMetricsOverride", {"width": max(width, 1280), "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        self.send("Emulation.clearDeviceMetricsOverride")
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

#!/usr/bin/env python3
"""The sandbox's partner login page, run in a real browser engine (Chromium).

The end-to-end scenario answers the login page with a stand-in (`play_browser_login`),
which ignores Content-Security-Policy. Real browsers do not: Chrome, Edge and Safari
apply `form-action` to the redirect that follows the form's submission, so a policy of
`form-action 'self'` stopped every partner sign-in before it reached the app. Here a
real Chromium signs in through the page, as a data partner's user does:

1. with the CLI's loopback redirect (`http://127.0.0.1:PORT/callback`): the callback
   server on that port receives the code and the state;
2. with the app's private-use scheme (`com.flightdeck.desktop:/oauth/callback`): the
   page's own `securitypolicyviolation` events and the browser's console show no
   refusal once the sandbox has answered the form with its redirect.

Run by scripts/browser-login.sh, which starts the sandbox (FLIGHTDECK_SANDBOX_URL, its
log in FLIGHTDECK_SANDBOX_LOG) and chromedriver (FLIGHTDECK_CHROMEDRIVER_URL).
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import secrets
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e"))

from webdriver import Session, WaitTimeout  # noqa: E402

CLIENT_ID = "demo-partner"
USER = "partner"
APP_REDIRECT = "com.flightdeck.desktop:/oauth/callback"

# Collects the page's CSP refusals; the submitting page stays when a redirect is refused.
WATCH_CSP = """
window.__refused = [];
document.addEventListener('securitypolicyviolation', e => {
  window.__refused.push(e.effectiveDirective + ' refused ' + e.blockedURI);
});
"""


class Failed(AssertionError):
    pass


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise Failed(f"{name} is not set (run scripts/browser-login.sh)")
    return value


class Callback:
    """The CLI's loopback listener: records each request's path and query."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                hits.append(self.path)
                body = b"<!doctype html><title>Signed in</title><p>You can close this tab."
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()


def wait(what: str, check: Callable[[], object], timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def login_url(sandbox: str, redirect_uri: str, state: str) -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode(
        {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    return f"{sandbox}/v1/oauth2/login?{query}"


class Check:
    def __init__(self) -> None:
        self.sandbox = env("FLIGHTDECK_SANDBOX_URL").rstrip("/")
        self.log = Path(env("FLIGHTDECK_SANDBOX_LOG"))
        self.profile = tempfile.TemporaryDirectory(prefix="flightdeck-chromium-")
        self.s = Session.open(
            env("FLIGHTDECK_CHROMEDRIVER_URL"),
            {
                "browserName": "chrome",
                "goog:loggingPrefs": {"browser": "ALL"},
                "goog:chromeOptions": {
                    "binary": os.environ.get("FLIGHTDECK_CHROMIUM", "/usr/bin/chromium"),
                    # No sandbox as root; no background traffic on this closed network.
                    "args": [
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        f"--user-data-dir={self.profile.name}",
                    ],
                },
            },
        )

    def close(self) -> None:
        self.s.quit()
        self.profile.cleanup()

    def submitted(self) -> int:
        """How many login forms the sandbox has answered with its redirect."""
        text = self.log.read_text(errors="replace")
        return sum(1 for line in text.splitlines() if "/v1/oauth2/login" in line and "303" in line)

    def console_refusals(self) -> list[str]:
        entries = self.s.command("POST", "/se/log", {"type": "browser"}) or []
        return [str(e.get("message", "")) for e in entries if "Content Security Policy" in str(e.get("message", ""))]

    def sign_in(self, redirect_uri: str, state: str) -> None:
        s = self.s
        s.go(login_url(self.sandbox, redirect_uri, state))
        s.wait_for("#username", "the login form")
        s.find("#username").send_keys(USER)
        s.find("#password").send_keys(USER)
        s.execute(WATCH_CSP)
        s.find('button[type="submit"]').click()

    def step_loopback(self) -> None:
        """The CLI's loopback redirect receives the code and the state."""
        callback = Callback()
        try:
            state = secrets.token_urlsafe(16)
            self.sign_in(f"http://127.0.0.1:{callback.port}/callback", state)
            try:
                hit = wait("the browser to reach the loopback callback", lambda: callback.hits, timeout=20)
            except Failed as e:
                refused = self.s.execute("return window.__refused || null;")
                raise Failed(f"{e}; the page refused {refused}; console: {self.console_refusals()}") from None
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(hit[0]).query)  # type: ignore[index]
            if query.get("state") != [state] or not query.get("code"):
                raise Failed(f"the callback got {hit!r}, not a code with state {state!r}")
            print(f"    the callback on port {callback.port} received a code and the state")
        finally:
            callback.stop()

    def step_app_scheme(self) -> None:
        """The app's private-use scheme is not refused by the page's policy."""
        self.console_refusals()  # drops what the first sign-in logged
        before = self.submitted()
        self.sign_in(APP_REDIRECT, secrets.token_urlsafe(16))
        wait("the sandbox to answer the login form with its redirect", lambda: self.submitted() > before, timeout=20)
        # The browser handles the 303 as it arrives; a refusal is reported at once.
        time.sleep(1.0)
        refused = self.s.execute("return window.__refused || null;") if self.s.url.startswith(self.sandbox) else None
        console = self.console_refusals()
        if refused or console:
            raise Failed(f"the redirect to {APP_REDIRECT} was refused: {refused or console}")
        print(f"    the redirect to {APP_REDIRECT} was not refused (page at {self.s.url[:60]!r})")


def main() -> int:
    check = Check()
    steps = [
        ("a real browser signs in through the loopback redirect", check.step_loopback),
        ("a real browser's redirect to the app's scheme is not refused", check.step_app_scheme),
    ]
    passed = failed = 0
    try:
        for title, fn in steps:
            print(f"---- {title}")
            try:
                fn()
            except (Failed, WaitTimeout, AssertionError) as e:
                failed += 1
                print(f"FAIL {title}: {e}")
                continue
            except Exception as e:  # noqa: BLE001 - reported like a failed check
                failed += 1
                print(f"FAIL {title}: {type(e).__name__}: {e}")
                traceback.print_exc(limit=6)
                continue
            passed += 1
            print(f"PASS {title}")
    finally:
        check.close()
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

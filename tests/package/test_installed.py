#!/usr/bin/env python3
"""The installed Flightdeck package, checked as a buyer's machine would run it.

Run by scripts/check-package.sh (through scripts/e2e.sh, which provides Xvfb, a private
D-Bus session with a throwaway gnome-keyring, tauri-driver and a throwaway data
directory), after the .deb was installed with apt:

1. the installed app (/usr/bin/flightdeck-app) starts on the Local sandbox profile;
2. it finds an update on a loopback feed, shows what is new, and refuses it because
   the package does not match its signature; nothing is installed;
3. a data partner's sign-in comes back through `xdg-open com.flightdeck.desktop:/…`: the OS starts
   the app a second time, which hands the URL to the running one and exits;
4. a correctly signed update is found, downloaded, verified, installed through the
   package manager, and the app restarts;
5. removing the package leaves the user's workspaces and keyring entries.

Environment (scripts/check-package.sh sets it): FLIGHTDECK_PACKAGE_NAME,
FLIGHTDECK_PACKAGE_VERSION, FLIGHTDECK_UPDATE_VERSION, FLIGHTDECK_UPDATE_DIR (the signed
.deb, its .sig, and tampered.deb), FLIGHTDECK_UPDATE_FEED (where the app looks), and
those of scripts/e2e.sh.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
from pathlib import Path
from typing import Callable, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

from test_app import play_browser_login  # noqa: E402
from webdriver import Session, WaitTimeout  # noqa: E402

APP = "/usr/bin/flightdeck-app"
NOTES = "Faster bulk edits and a signed update path."


class Failed(AssertionError):
    pass


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise Failed(f"{name} is not set (run scripts/check-package.sh)")
    return value


class Feed:
    """The update server on loopback: latest.json for one of two packages, and the files."""

    def __init__(self, feed_url: str, updates: Path, version: str) -> None:
        parsed = urllib.parse.urlsplit(feed_url)
        self.port = parsed.port or 80
        self.updates = updates
        self.version = version
        self.mode = "tampered"
        self.requests: list[str] = []
        feed = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                feed.requests.append(self.path)
                if self.path.startswith("/latest.json"):
                    body = json.dumps(feed.latest()).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                elif self.path.startswith("/files/"):
                    path = feed.updates / Path(self.path[len("/files/") :]).name
                    if not path.is_file():
                        self.send_error(404)
                        return
                    body = path.read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.debian.binary-package")
                else:
                    self.send_error(404)
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def package(self) -> Path:
        return self.updates / f"Flightdeck_{self.version}_amd64.deb"

    def latest(self) -> dict[str, object]:
        signature = Path(str(self.package()) + ".sig").read_text().strip()
        served = "tampered.deb" if self.mode == "tampered" else self.package().name
        return {
            "version": self.version,
            "notes": NOTES,
            "pub_date": "2026-11-20T12:00:00Z",
            "platforms": {
                "linux-x86_64-deb": {
                    "signature": signature,
                    "url": f"http://127.0.0.1:{self.port}/files/{served}",
                }
            },
        }

    def downloaded(self, name: str) -> bool:
        return any(r.startswith(f"/files/{name}") for r in self.requests)

    def stop(self) -> None:
        self.server.shutdown()


def installed_version(package: str) -> Optional[str]:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def app_processes() -> list[int]:
    r = subprocess.run(["pgrep", "-x", "flightdeck-app"], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split()]


def wait(what: str, check: Callable[[], object], timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.3)


def root(*cmd: str) -> list[str]:
    return list(cmd) if os.geteuid() == 0 else ["sudo", *cmd]


class Check:
    def __init__(self) -> None:
        self.package = env("FLIGHTDECK_PACKAGE_NAME")
        self.version = env("FLIGHTDECK_PACKAGE_VERSION")
        self.next = env("FLIGHTDECK_UPDATE_VERSION")
        self.data = Path(env("FLIGHTDECK_DATA_DIR"))
        self.driver = env("FLIGHTDECK_WEBDRIVER_URL")
        self.feed = Feed(env("FLIGHTDECK_UPDATE_FEED"), Path(env("FLIGHTDECK_UPDATE_DIR")), self.next)
        self.s: Optional[Session] = None
        # What must never reach the log: filled in as the session makes them.
        self.secrets: dict[str, str] = {"the demo partner's client secret": "demo-partner-secret"}

    def session(self) -> Session:
        if self.s is None:
            self.s = Session.start(self.driver, APP)
        return self.s

    def end_session(self) -> None:
        """Quits the session's app and waits until its process is gone.

        Deleting the session returns before the app has exited. An app started while the
        old one is still alive finds it through the single-instance plugin, hands it its
        arguments and exits at once, so the driver loses its browser and the next
        `POST /session` fails with "connection lost" (one cold run in two, on a busy machine).
        """
        if self.s is not None:
            self.s.quit()
            self.s = None
            t0 = time.monotonic()
            alive = bool(app_processes())
            wait("the app to exit after its session ended", lambda: not app_processes(), timeout=30)
            if alive:
                print(f"    the app was still running when its session ended; it exited {time.monotonic() - t0:.2f} s later")

    def banner(self) -> None:
        s = self.session()
        el = s.wait_for(f'[data-update="available"][data-update-version="{self.next}"]', "the update banner", timeout=30)
        text = el.text
        if NOTES not in text:
            raise Failed(f"the banner does not show what is new: {text!r}")
        print(f"    banner: {' '.join(text.split())[:140]!r}")

    def step_start(self) -> None:
        """The installed app starts from its installed path on the Local sandbox profile."""
        s = self.session()
        select = s.wait_for("select#profile", "the sign-in screen", timeout=60)
        chosen = s.execute("const s = arguments[0]; return s.options[s.selectedIndex].text;", select.ref)
        if "Local sandbox" not in str(chosen):
            raise Failed(f"the profile on start is {chosen!r}, not the Local sandbox")
        url = s.wait_for("[data-profile-url]", "the sandbox address").attribute("data-profile-url") or ""
        if not url.startswith("http://127.0.0.1:"):
            raise Failed(f"the Local sandbox profile points at {url!r}")
        print(f"    profile: {chosen} at {url}")

    def step_tampered(self) -> None:
        """A tampered update is found, downloaded and refused: the signature does not match."""
        s = self.session()
        self.banner()
        s.wait_for('[data-action="install-update"]', "the install button").click()
        el = s.wait_for("[data-update-error]", "the update to fail", timeout=60)
        print(f"    refused: {el.text!r}")
        if "signature" not in el.text:
            raise Failed(f"the error does not say the signature failed: {el.text!r}")
        if not self.feed.downloaded("tampered.deb"):
            raise Failed("the app never downloaded the tampered package")
        now = installed_version(self.package)
        if now != self.version:
            raise Failed(f"dpkg shows {self.package} {now} after a refused update")
        s.find('[data-action="dismiss-update"]').click()

    def step_deep_link(self) -> None:
        """A partner sign-in comes back through xdg-open and reaches the running app."""
        s = self.session()
        s.wait_for('[data-tab="partner"]', "the partner tab").click()
        s.wait_for('[data-action="use-demo"]', "the demo button").click()
        s.wait_until(lambda: s.find('input[name="clientId"]').prop("value") == "demo-partner", "the demo client id", timeout=5)
        s.find('[data-action="partner-sign-in"]').click()
        link = s.wait_for("[data-authorize-url]", "the login page's address", timeout=20)
        url = (link.attribute("href") or link.attribute("data-authorize-url") or "").strip()
        location = play_browser_login(url, "partner", "partner")
        if not location.startswith("com.flightdeck.desktop:/oauth/callback"):
            raise Failed(f"the login redirected to {location!r}")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        self.secrets["the authorization code"] = query["code"][0]
        before = app_processes()
        # No desktop environment: xdg-open's generic mode reads the package's desktop entry.
        opened = subprocess.run(
            ["xdg-open", location], env={k: v for k, v in os.environ.items() if k != "XDG_CURRENT_DESKTOP"}, capture_output=True, text=True, timeout=60
        )
        if opened.returncode != 0:
            raise Failed(f"xdg-open failed ({opened.returncode}): {opened.stderr[-400:]}")
        s.wait_until(lambda: s.exists('[data-session-kind="partner"]'), "the partner signed in in the running window", timeout=30)
        # The account's first sign-in offers its download: Later, remembered, so the
        # restarted app after the update shows its banner with nothing over it.
        s.wait_for('[data-offer="download"]', "the offer to download the partner account after its first sign-in", timeout=30)
        s.find('[data-action="offer-later"]').click()
        s.wait_until(lambda: not s.exists('[data-offer="download"]'), "the offer to close on Later", timeout=10)
        after = wait("the second instance to exit", lambda: (p := app_processes()) and len(p) == 1 and p, timeout=20)
        if after != before:
            raise Failed(f"app processes were {before}, now {after}: the link did not reach the running instance")
        print(f"    signed in through xdg-open; one app process ({after[0]})")
        stored = subprocess.run(["secret-tool", "search", "--all", "service", "flightdeck-dev"], capture_output=True, text=True)
        for line in (stored.stdout + stored.stderr).splitlines():
            if line.startswith("secret = {"):
                tokens = json.loads(line[len("secret = ") :])
                for name in ("access_token", "refresh_token", "id_token", "accessToken", "refreshToken", "idToken"):
                    if isinstance(tokens.get(name), str) and len(tokens[name]) > 8:
                        self.secrets[f"the partner's {name}"] = tokens[name]

    def step_update(self) -> None:
        """A signed update is found, verified, installed, and the app restarts."""
        self.feed.mode = "good"
        self.end_session()
        s = self.session()
        first = app_processes()
        self.banner()
        s.find('[data-action="install-update"]').click()
        wait(f"dpkg to show {self.package} {self.next}", lambda: installed_version(self.package) == self.next, timeout=120)
        if not self.feed.downloaded(self.feed.package().name):
            raise Failed("the signed package was never downloaded")
        restarted = wait("the app to start again", lambda: [p for p in app_processes() if p not in first], timeout=60)
        print(f"    installed {self.next}; restarted as {restarted}")
        self.s = None  # the session's app is gone
        for pid in app_processes():
            subprocess.run(["kill", str(pid)], check=False)
        wait("the restarted app to close", lambda: not app_processes(), timeout=20)

    def step_remove(self) -> None:
        """Uninstalling removes the app and leaves workspaces and keyring entries."""
        r = subprocess.run(root("apt-get", "remove", "-y", "-q", self.package), capture_output=True, text=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if r.returncode != 0:
            raise Failed(f"apt-get remove failed: {r.stderr[-600:]}")
        if Path(APP).exists():
            raise Failed(f"{APP} is still there after removal")
        if installed_version(self.package) not in (None, ""):
            status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", self.package], capture_output=True, text=True).stdout
            if "not-installed" not in status and "config-files" not in status:
                raise Failed(f"{APP} or the package is still there after removal ({status!r})")
        workspaces = sorted((self.data / "workspaces").glob("*.db"))
        if not workspaces:
            raise Failed(f"no workspace is left in {self.data / 'workspaces'} after removal")
        keyring = subprocess.run(["secret-tool", "search", "--all", "service", "flightdeck-dev"], capture_output=True, text=True)
        entries = [line for line in keyring.stdout.splitlines() + keyring.stderr.splitlines() if line.startswith("attribute.username")]
        if not entries:
            raise Failed("the keyring holds no Flightdeck entry after removal")
        print(f"    kept: {len(workspaces)} workspace(s), {len(entries)} keyring entries")

    def step_logs(self) -> None:
        """The app wrote its log, and no secret of the session is in it."""
        logs = sorted((self.data / "logs").glob("flightdeck*.log"))
        if not logs:
            raise Failed(f"no log file in {self.data / 'logs'}")
        text = "".join(p.read_text(errors="replace") for p in logs)
        if len(self.secrets) < 3:
            raise Failed(f"too few secrets were captured to check the log against: {sorted(self.secrets)}")
        for what, secret in self.secrets.items():
            if secret in text:
                raise Failed(f"the log holds {what}")
        print(f"    {len(logs)} log file(s), {len(text.splitlines())} lines; none of {sorted(self.secrets)}")


def main() -> int:
    check = Check()
    steps: list[tuple[str, Callable[[], None]]] = [
        ("the installed app starts on the Local sandbox", check.step_start),
        ("a tampered update is refused", check.step_tampered),
        ("a sign-in redirect through xdg-open reaches the running app", check.step_deep_link),
        ("a signed update is installed and the app restarts", check.step_update),
        ("the log has no secret", check.step_logs),
        ("removal keeps workspaces and keyring entries", check.step_remove),
    ]
    failed = 0
    try:
        for title, fn in steps:
            print(f"---- {title}")
            t0 = time.monotonic()
            try:
                fn()
            except (Failed, WaitTimeout, AssertionError) as e:
                failed += 1
                print(f"FAIL {title}: {e}")
                break
            except Exception as e:  # noqa: BLE001 - reported like a failed check
                failed += 1
                print(f"FAIL {title}: {type(e).__name__}: {e}")
                traceback.print_exc(limit=6)
                break
            print(f"PASS {title} ({time.monotonic() - t0:.1f}s)")
    finally:
        try:
            check.end_session()
        except Failed as e:
            failed += 1
            print(f"FAIL closing the app: {e}")
        check.feed.stop()
    print(f"\npackage check: {len(steps) - failed if not failed else 'stopped'}; {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

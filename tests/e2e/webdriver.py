"""A small W3C WebDriver client over urllib (standard library only).

It talks to tauri-driver (which forwards to WebKitWebDriver on Linux) and covers what
the end-to-end scenario needs: a session on a Tauri app, finding elements by CSS,
clicking, typing, reading text/attributes/properties, running scripts, waiting, and
taking the session down again.

    with Session.start("http://127.0.0.1:4444", "/abs/path/to/app") as s:
        s.find('[data-action="sign-in"]').click()
        s.wait_until(lambda: s.find_all("[data-row]"), "rows in the table")

WebDriver screenshots are blank on WebKitGTK under Xvfb, so take pictures at X level
(`import -window root`), not through this client.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Iterator, Optional, TypeVar

__all__ = ["Element", "Session", "WebDriverError", "WaitTimeout", "ELEMENT_KEY"]

#: The key W3C WebDriver uses for element references in JSON.
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"

T = TypeVar("T")


class WebDriverError(RuntimeError):
    """An error answered by the driver (`error` is the W3C code, e.g. "no such element")."""

    def __init__(self, error: str, message: str, method: str, path: str) -> None:
        super().__init__(f"{method} {path}: {error}: {message}")
        self.error = error
        self.message = message


class WaitTimeout(AssertionError):
    """`wait_until` ran out of time; the message says what was awaited and what the page showed."""


class Element:
    """A reference to one element of the current page."""

    def __init__(self, session: "Session", element_id: str) -> None:
        self.session = session
        self.id = element_id

    def __repr__(self) -> str:
        return f"<Element {self.id}>"

    @property
    def ref(self) -> dict[str, str]:
        """The element as a script argument."""
        return {ELEMENT_KEY: self.id}

    def _url(self, suffix: str = "") -> str:
        return f"/element/{self.id}{suffix}"

    def find(self, css: str) -> "Element":
        """The first descendant matching `css` (raises `no such element`)."""
        value = self.session.command("POST", self._url("/element"), {"using": "css selector", "value": css})
        return Element(self.session, value[ELEMENT_KEY])

    def find_all(self, css: str) -> list["Element"]:
        """Every descendant matching `css`, in document order."""
        value = self.session.command("POST", self._url("/elements"), {"using": "css selector", "value": css})
        return [Element(self.session, v[ELEMENT_KEY]) for v in value]

    def click(self) -> None:
        """A real WebDriver click (scrolls into view, checks the element is not covered)."""
        self.session.command("POST", self._url("/click"), {})

    def clear(self) -> None:
        self.session.command("POST", self._url("/clear"), {})

    def send_keys(self, text: str) -> None:
        """Types `text` into the element (W3C "element send keys")."""
        self.session.command("POST", self._url("/value"), {"text": text})

    @property
    def text(self) -> str:
        """The rendered (visible) text."""
        return str(self.session.command("GET", self._url("/text")))

    def attribute(self, name: str) -> Optional[str]:
        value = self.session.command("GET", self._url(f"/attribute/{name}"))
        return None if value is None else str(value)

    def prop(self, name: str) -> Any:
        """A DOM property, e.g. `value` or `checked`."""
        return self.session.command("GET", self._url(f"/property/{name}"))

    @property
    def tag_name(self) -> str:
        return str(self.session.command("GET", self._url("/name")))

    def is_displayed(self) -> bool:
        return bool(self.session.command("GET", self._url("/displayed")))

    def is_enabled(self) -> bool:
        return bool(self.session.command("GET", self._url("/enabled")))


class Session:
    """One WebDriver session: the app is started when it is created and quits with it."""

    def __init__(self, base_url: str, session_id: str, capabilities: dict[str, Any], timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.id = session_id
        self.capabilities = capabilities
        self.timeout = timeout

    # -- lifecycle -----------------------------------------------------------------

    @classmethod
    def start(cls, base_url: str, application: str, args: Optional[list[str]] = None, timeout: float = 120.0) -> "Session":
        """Starts `application` (an absolute path) under the driver and opens a session on it."""
        options: dict[str, Any] = {"application": application}
        if args:
            options["args"] = args
        return cls.open(base_url, {"tauri:options": options}, timeout)

    @classmethod
    def open(cls, base_url: str, capabilities: dict[str, Any], timeout: float = 120.0) -> "Session":
        """Opens a session with `capabilities` (e.g. a browser's, for chromedriver)."""
        body = {"capabilities": {"alwaysMatch": capabilities}}
        value = _request(base_url.rstrip("/"), "POST", "/session", body, timeout)
        return cls(base_url, value["sessionId"], value.get("capabilities", {}))

    def quit(self) -> None:
        """Deletes the session (the driver then closes the app). Never raises."""
        try:
            _request(self.base_url, "DELETE", f"/session/{self.id}", None, 30.0)
        except Exception:  # noqa: BLE001 - best effort on the way out
            pass

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    # -- plumbing ------------------------------------------------------------------

    def command(self, method: str, path: str, body: Optional[dict[str, Any]] = None) -> Any:
        """Sends one session command (`path` relative to the session) and answers its `value`."""
        return _request(self.base_url, method, f"/session/{self.id}{path}", body, self.timeout)

    @contextlib.contextmanager
    def patience(self, seconds: float) -> Iterator[None]:
        """Commands inside the block give up after `seconds` (e.g. best-effort work after a failure)."""
        saved = self.timeout
        self.timeout = seconds
        try:
            yield
        finally:
            self.timeout = saved

    # -- finding -------------------------------------------------------------------

    def find(self, css: str) -> Element:
        """The first element matching `css` (raises WebDriverError `no such element`)."""
        value = self.command("POST", "/element", {"using": "css selector", "value": css})
        return Element(self, value[ELEMENT_KEY])

    def find_all(self, css: str) -> list[Element]:
        value = self.command("POST", "/elements", {"using": "css selector", "value": css})
        return [Element(self, v[ELEMENT_KEY]) for v in value]

    def first(self, css: str) -> Optional[Element]:
        """The first element matching `css`, or None."""
        found = self.find_all(css)
        return found[0] if found else None

    def exists(self, css: str) -> bool:
        return bool(self.find_all(css))

    # -- scripts -------------------------------------------------------------------

    def execute(self, script: str, *args: Any) -> Any:
        """Runs `script` as a function body (`arguments[i]` are `args`) and answers its return value."""
        return self.command("POST", "/execute/sync", {"script": script, "args": [_arg(a) for a in args]})

    def execute_async(self, script: str, *args: Any) -> Any:
        """Runs `script`; it finishes by calling `arguments[arguments.length - 1](result)`."""
        return self.command("POST", "/execute/async", {"script": script, "args": [_arg(a) for a in args]})

    # -- page ----------------------------------------------------------------------

    @property
    def title(self) -> str:
        return str(self.command("GET", "/title"))

    @property
    def url(self) -> str:
        return str(self.command("GET", "/url"))

    def go(self, url: str) -> None:
        """Navigates to `url` and waits for the page to load."""
        self.command("POST", "/url", {"url": url})

    def page_text(self, limit: int = 1200) -> str:
        """The page's visible text, whitespace squeezed, cut to `limit` characters."""
        try:
            with self.patience(5):
                text, asking = self.execute(
                    "return [document.body ? document.body.innerText : '',"
                    " [...document.querySelectorAll('[role=dialog], [role=alertdialog]')].map(d => d.innerText)];"
                )
        except Exception as e:  # noqa: BLE001 - used in failure messages; must not fail itself
            return f"(page text unavailable: {e})"

        def squeeze(t: str, n: int) -> str:
            s = " | ".join(line.strip() for line in str(t).splitlines() if line.strip())
            return s if len(s) <= n else s[:n] + " …"

        # An open dialog or question explains most waits that time out; the page's text
        # is cut before a side panel's, so each is named first.
        open_ = "".join(f"[dialog: {squeeze(d, 300)}] " for d in asking or [])
        return open_ + squeeze(text, limit)

    def double_click(self, element: Element) -> None:
        """A double click through the Actions API (a synthetic `dblclick` if the driver lacks it)."""
        origin = element.ref
        actions = {
            "actions": [
                {
                    "type": "pointer",
                    "id": "mouse",
                    "parameters": {"pointerType": "mouse"},
                    "actions": [
                        {"type": "pointerMove", "origin": origin, "x": 0, "y": 0, "duration": 0},
                        {"type": "pointerDown", "button": 0},
                        {"type": "pointerUp", "button": 0},
                        {"type": "pointerDown", "button": 0},
                        {"type": "pointerUp", "button": 0},
                    ],
                }
            ]
        }
        try:
            self.command("POST", "/actions", actions)
            self.command("DELETE", "/actions")
        except WebDriverError:
            self.execute(
                "arguments[0].scrollIntoView({block:'center'});"
                "arguments[0].dispatchEvent(new MouseEvent('dblclick', {bubbles: true, cancelable: true, detail: 2}));",
                element,
            )

    def move_pointer(self, x: int, y: int) -> None:
        """Moves the mouse to viewport point (x, y), e.g. away from something with a tooltip."""
        actions = {
            "actions": [
                {
                    "type": "pointer",
                    "id": "mouse",
                    "parameters": {"pointerType": "mouse"},
                    "actions": [{"type": "pointerMove", "origin": "viewport", "x": x, "y": y, "duration": 0}],
                }
            ]
        }
        self.command("POST", "/actions", actions)

    def next_frames(self, frames: int = 2) -> None:
        """Returns once the page has painted `frames` more animation frames."""
        self.execute_async(
            "const done = arguments[arguments.length - 1]; let n = arguments[0];"
            "const tick = () => (--n <= 0 ? done(true) : requestAnimationFrame(tick)); requestAnimationFrame(tick);",
            frames,
        )

    # -- waiting -------------------------------------------------------------------

    def wait_until(
        self,
        predicate: Callable[[], T],
        what: str,
        timeout: float = 20.0,
        interval: float = 0.2,
    ) -> T:
        """Polls `predicate` until it answers something truthy, and answers that.

        Driver errors raised by the predicate (an element that went stale, one not there
        yet) count as "not yet". On timeout, raises WaitTimeout naming `what`, the last
        error, and an excerpt of the page's visible text.
        """
        deadline = time.monotonic() + timeout
        last_error: Optional[BaseException] = None
        while True:
            try:
                result = predicate()
                if result:
                    return result
                last_error = None
            except WebDriverError as e:
                if e.error in ("driver timeout", "connection lost", "invalid session id"):
                    raise
                last_error = e
            except (LookupError, ValueError, AssertionError) as e:
                last_error = e
            if time.monotonic() >= deadline:
                break
            time.sleep(interval)
        detail = f"\n  last error: {last_error}" if last_error else ""
        raise WaitTimeout(f"timed out after {timeout:.0f}s waiting for {what}{detail}\n  page: {self.page_text()}")

    def wait_for(self, css: str, what: Optional[str] = None, timeout: float = 20.0) -> Element:
        """Waits until an element matching `css` exists, and answers it."""
        return self.wait_until(lambda: self.first(css), what or f"an element matching {css}", timeout)

    def wait_gone(self, css: str, what: Optional[str] = None, timeout: float = 20.0) -> None:
        """Waits until no element matches `css`."""
        self.wait_until(lambda: not self.exists(css), what or f"no element matching {css}", timeout)


def _arg(a: Any) -> Any:
    return a.ref if isinstance(a, Element) else a


def _request(base_url: str, method: str, path: str, body: Optional[dict[str, Any]], timeout: float) -> Any:
    """One driver command. A connection dropped before an answer is retried twice: tauri-driver
    proxies over keep-alive connections to WebKitWebDriver and now and then loses one as it
    sends (hyper "SendRequest ... connection reset"), before the command reached the browser."""
    for attempt in range(3):
        try:
            return _request_once(base_url, method, path, body, timeout)
        except TimeoutError as e:
            raise WebDriverError(
                "driver timeout", f"no answer within {timeout:.0f}s (is the page's JavaScript stuck?)", method, path
            ) from e
        except (http.client.RemoteDisconnected, ConnectionResetError, urllib.error.URLError) as e:
            lost = not isinstance(e, urllib.error.URLError) or isinstance(e.reason, ConnectionResetError)
            if not lost:
                raise
            if attempt == 2 or path == "/session":
                raise WebDriverError("connection lost", f"{type(e).__name__}: {e}", method, path) from e
            time.sleep(0.3)
    raise AssertionError("unreachable")


def _request_once(base_url: str, method: str, path: str, body: Optional[dict[str, Any]], timeout: float) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base_url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json; charset=utf-8")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            payload = resp.read()
    except urllib.error.HTTPError as e:
        payload = e.read()
        try:
            value = json.loads(payload).get("value", {})
        except (ValueError, AttributeError):
            raise WebDriverError("unknown error", f"HTTP {e.code}: {payload[:300]!r}", method, path) from None
        if isinstance(value, dict):
            raise WebDriverError(str(value.get("error", "unknown error")), str(value.get("message", "")), method, path) from None
        raise WebDriverError("unknown error", f"HTTP {e.code}: {value!r}", method, path) from None
    if not payload:
        return None
    return json.loads(payload).get("value")

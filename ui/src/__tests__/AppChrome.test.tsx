import { act, fireEvent, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { APP_INFO, commands, events, ok, SIGNED_IN } from "../test/fakeBindings";
import { App } from "../App";
import { ErrorBoundary } from "../app/ErrorBoundary";
import { clearToasts } from "../api/toast";

const SIGNED_OUT = { ...SIGNED_IN, session: null };

async function settle() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

function menu(command: Parameters<typeof events.menuAction.emit>[0]["command"]) {
  act(() => events.menuAction.emit({ command }));
}

const UPDATE = { version: "0.2.0", currentVersion: "0.1.0", notes: "Faster bulk edits.", date: "2026-11-20T12:00:00Z" };

describe("menus, settings and about", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    act(() => clearToasts());
  });

  it("File → Settings shows the directories and saves the log level and channel", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    const { container } = render(<App />);
    await settle();
    menu("settings");
    await settle();
    const form = container.querySelector('[data-form="settings"]')!;
    expect(form.querySelector('[data-setting="dataDir"]')?.textContent).toBe(APP_INFO.dataDir);
    expect(form.textContent).toContain(APP_INFO.logDir);
    fireEvent.change(form.querySelector('select[name="logLevel"]')!, { target: { value: "debug" } });
    fireEvent.change(form.querySelector('select[name="updateChannel"]')!, { target: { value: "beta" } });
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save-settings"]')!);
    });
    expect(commands.saveSettings).toHaveBeenCalledWith({ logLevel: "debug", updateChannel: "beta" });
    await settle();
    expect(container.querySelector('[data-form="settings"]')).toBeNull();
  });

  it("Help → About shows the version; Open logs folder asks the app", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    const { container } = render(<App />);
    await settle();
    menu("about");
    await settle();
    expect(container.querySelector("[data-about-version]")?.textContent).toBe("0.1.0");
    const open = [...container.querySelectorAll("[data-about] button")].find((b) => b.textContent === "Open logs folder")!;
    await act(async () => {
      fireEvent.click(open);
    });
    expect(commands.openLogsFolder).toHaveBeenCalledTimes(1);
  });

  it("Edit → Undo undoes the workspace's last step, and the field's own text outside it", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    const { container } = render(<App />);
    await settle();
    menu("undo");
    await settle();
    expect(commands.undo).toHaveBeenCalledTimes(1);
    // In a text field the field's undo runs instead of the workspace's.
    const input = container.querySelector<HTMLInputElement>("input")!;
    input.focus();
    const exec = vi.fn(() => true);
    document.execCommand = exec;
    menu("undo");
    await settle();
    expect(exec).toHaveBeenCalledWith("undo");
    expect(commands.undo).toHaveBeenCalledTimes(1);
  });

  it("View → a screen switches to it; menu items that need a session say so on the sign-in screen", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    const { container, unmount } = render(<App />);
    await settle();
    menu("showPending");
    await settle();
    expect(container.querySelector('[data-nav="pending"]')?.getAttribute("aria-current")).toBe("page");
    unmount();
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    const signedOut = render(<App />);
    await settle();
    menu("import");
    await settle();
    expect([...signedOut.container.querySelectorAll("[data-toast]")].map((t) => t.textContent).join(" ")).toContain("Open a table to import into.");
  });
});

describe("a sign-in the keyring could not give back", () => {
  beforeEach(() => vi.clearAllMocks());

  it("is explained on the sign-in screen", async () => {
    const notice = "The sign-in of demo could not be read back from the OS keyring (No OS keyring is available). Sign in again once the keyring works; pending changes are kept.";
    commands.appSnapshot.mockReturnValue(ok({ ...SIGNED_OUT, notice }));
    const { container } = render(<App />);
    await settle();
    expect(container.querySelector('[data-notice="sign-in"]')?.textContent).toBe(notice);
  });
});

describe("a partner's sign-in through the browser", () => {
  beforeEach(() => vi.clearAllMocks());

  it("shows a failure on the sign-in screen without signing anyone out", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    const { container } = render(<App />);
    await settle();
    act(() => events.partnerSignInFailed.emit({ message: "sign-in failed: the code was already used (invalid_grant)" }));
    expect(container.querySelector('.signin [role="alert"]')?.textContent).toContain("the code was already used");
    expect(container.querySelector('[data-action="partner-sign-in"], [data-action="sign-in"]')).not.toBeNull();
  });
});

describe("updates", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    act(() => clearToasts());
  });

  it("offers an update found at start with what is new, and shows why an install failed", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    commands.checkForUpdate.mockReturnValue(ok(UPDATE));
    commands.installUpdate.mockReturnValue(
      Promise.resolve({
        status: "error" as const,
        error: { code: "service" as const, message: "The update's signature does not match Flightdeck's signing key, so it was not installed.", fieldErrors: [] },
      }),
    );
    const { container } = render(<App />);
    await settle();
    const banner = container.querySelector('[data-update="available"]')!;
    expect(banner.getAttribute("data-update-version")).toBe("0.2.0");
    expect(banner.querySelector("[data-update-notes]")?.textContent).toBe("Faster bulk edits.");
    await act(async () => {
      fireEvent.click(banner.querySelector('[data-action="install-update"]')!);
    });
    await settle();
    expect(commands.installUpdate).toHaveBeenCalledTimes(1);
    expect(container.querySelector("[data-update-error]")?.textContent).toContain("signature does not match");
  });

  it("shows the download's progress", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    commands.checkForUpdate.mockReturnValue(ok(UPDATE));
    commands.installUpdate.mockReturnValue(new Promise(() => undefined));
    const { container } = render(<App />);
    await settle();
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="install-update"]')!);
    });
    act(() => events.updateProgress.emit({ downloaded: 500_000, total: 2_000_000 }));
    expect(container.querySelector("[data-update-progress]")?.textContent).toBe("Downloading… 25 %");
  });

  it("Help → Check for updates says when there is none", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    commands.checkForUpdate.mockReturnValue(ok(null));
    const { container } = render(<App />);
    await settle();
    expect(commands.checkForUpdate).toHaveBeenCalledTimes(1);
    menu("checkForUpdates");
    await settle();
    expect(commands.checkForUpdate).toHaveBeenCalledTimes(2);
    expect([...container.querySelectorAll("[data-toast]")].map((t) => t.textContent).join(" ")).toContain("Flightdeck is up to date.");
  });
});

describe("a crash in the UI", () => {
  const error = console.error;
  beforeEach(() => {
    console.error = () => undefined;
  });
  afterEach(() => {
    console.error = error;
  });

  it("shows a recovery screen whose details can be copied, not a blank window", async () => {
    function Broken(): never {
      throw new Error("table state went wrong");
    }
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { container } = render(
      <ErrorBoundary>
        <Broken />
      </ErrorBoundary>,
    );
    expect(container.textContent).toContain("Something went wrong in this window");
    expect(container.textContent).toContain("Your work is safe");
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="copy-details"]')!);
    });
    expect(writeText).toHaveBeenCalledTimes(1);
    const copied = String((writeText.mock.calls[0] as unknown[])[0]);
    expect(copied).toContain("Error: table state went wrong");
    expect(copied).toContain("Broken");
    expect(container.querySelector('[data-action="copy-details"]')?.textContent).toBe("Copied");
  });
});

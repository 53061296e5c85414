import { act, fireEvent, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { APP_INFO, commands, ok, previewOf, SIGNED_IN } from "../test/fakeBindings";
import { App } from "../App";
import { clearToasts } from "../api/toast";
import type { RowPreview } from "../bulk/types";
import { PreviewTable } from "../bulk/PreviewTable";
import { forgetEditFields } from "../bulk/fields";

const SIGNED_OUT = { ...SIGNED_IN, session: null };

async function settle() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

// jsdom has no PointerEvent: a mouse event with a pointer id stands in, as browsers send.
if (typeof window.PointerEvent === "undefined") {
  class FakePointerEvent extends MouseEvent {
    pointerId: number;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 1;
    }
  }
  Object.defineProperty(window, "PointerEvent", { configurable: true, value: FakePointerEvent });
}

function setViewport(width: number) {
  Object.defineProperty(window, "innerWidth", { configurable: true, value: width });
}

describe("the first sign-in to an account", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    act(() => clearToasts());
  });

  async function signIn() {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    const view = render(<App />);
    await settle();
    fireEvent.change(view.container.querySelector('input[name="username"]')!, { target: { value: "demo" } });
    fireEvent.change(view.container.querySelector('input[name="password"]')!, { target: { value: "demo-password" } });
    await act(async () => {
      fireEvent.click(view.container.querySelector('[data-action="sign-in"]')!);
    });
    await settle();
    await settle();
    return view;
  }

  it("offers to download the account with its size, and Download starts it once", async () => {
    commands.downloadOffer.mockReturnValue(ok({ account: "demo", advertisers: 12 }));
    const { container, getByRole } = await signIn();
    const dialog = getByRole("dialog", { name: "Download the account?" });
    expect(dialog.textContent).toContain("Download demo now?");
    expect(dialog.querySelector("[data-offer-size]")?.textContent).toContain("12 advertisers");
    await act(async () => {
      fireEvent.click(dialog.querySelector('[data-action="offer-download"]')!);
    });
    await settle();
    expect(commands.answerDownloadOffer).toHaveBeenCalledTimes(1);
    expect(commands.refresh).toHaveBeenCalledTimes(1);
    expect(container.querySelector('[data-offer="download"]')).toBeNull();
  });

  it("is not shown over a download the buyer started from the toolbar, nor after it", async () => {
    // The offer asks the service for the account's size: its answer comes late.
    type Answer = Awaited<ReturnType<typeof commands.downloadOffer>>;
    let answer: (v: Answer) => void = () => {};
    commands.downloadOffer.mockReturnValue(new Promise<Answer>((r) => (answer = r)));
    const { container } = await signIn();
    // Signed in from here on, as the app's snapshot after the download says.
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="download"]')!);
    });
    await settle();
    expect(commands.refresh).toHaveBeenCalledTimes(1);
    await act(async () => {
      answer({ status: "ok", data: { account: "demo", advertisers: 3 } });
    });
    await settle();
    await settle();
    expect(commands.downloadOffer).toHaveBeenCalledTimes(1);
    expect(container.querySelector('[data-table-root], [data-nav]')).not.toBeNull();
    expect(container.ownerDocument.querySelector('[data-offer="download"]')).toBeNull();
  });

  it("Later closes the offer without downloading, and the answer is remembered", async () => {
    commands.downloadOffer.mockReturnValue(ok({ account: "demo", advertisers: 3 }));
    const { container } = await signIn();
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="offer-later"]')!);
    });
    await settle();
    expect(commands.answerDownloadOffer).toHaveBeenCalledTimes(1);
    expect(commands.refresh).not.toHaveBeenCalled();
    expect(container.querySelector('[data-offer="download"]')).toBeNull();
  });

  it("says so when the service gives no size", async () => {
    commands.downloadOffer.mockReturnValue(ok({ account: "partner-7", advertisers: null }));
    const { container } = await signIn();
    expect(container.ownerDocument.querySelector("[data-offer-size]")?.textContent).toBe("The service does not say how large the account is before it downloads.");
    expect(container).toBeTruthy();
  });

  it("is not made once the account was downloaded or the offer answered", async () => {
    commands.downloadOffer.mockReturnValue(ok(null));
    const { queryByRole } = await signIn();
    expect(commands.downloadOffer).toHaveBeenCalled();
    expect(queryByRole("dialog")).toBeNull();
  });
});

describe("the edit panel's width", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    act(() => clearToasts());
    setViewport(1280);
  });
  afterEach(() => {
    commands.appInfo.mockImplementation(() => ok(APP_INFO));
  });

  async function openPanel(saved?: number) {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    commands.appInfo.mockImplementation(() => ok({ ...APP_INFO, settings: { ...APP_INFO.settings, panelWidth: saved } }));
    const view = render(<App />);
    await settle();
    await act(async () => {
      fireEvent.click(view.container.querySelector('[data-action="new"]')!);
    });
    await settle();
    const edge = view.getByRole("separator", { name: "Resize the edit panel" });
    const shell = view.container.querySelector<HTMLElement>(".shell")!;
    return { ...view, edge, panelWidth: () => shell.style.getPropertyValue("--panel-width") };
  }

  it("opens at the width remembered from the last run", async () => {
    const { edge, panelWidth } = await openPanel(420);
    expect(panelWidth()).toBe("420px");
    expect(edge.getAttribute("aria-valuenow")).toBe("420");
  });

  it("keeps the table its room at 1,280 px, however wide it was remembered", async () => {
    const { edge, panelWidth } = await openPanel(5000);
    // 1,280 less the sidebar (230) and the table's room (560).
    expect(panelWidth()).toBe("490px");
    expect(edge.getAttribute("aria-valuemax")).toBe("490");
  });

  it("follows a drag of its edge and remembers where it was let go", async () => {
    const { edge, panelWidth } = await openPanel(400);
    fireEvent.pointerDown(edge, { clientX: 880, pointerId: 1 });
    fireEvent.pointerMove(edge, { clientX: 820, pointerId: 1 });
    expect(panelWidth()).toBe("460px");
    expect(commands.rememberPanelWidth).not.toHaveBeenCalled();
    fireEvent.pointerUp(edge, { clientX: 810, pointerId: 1 });
    expect(panelWidth()).toBe("470px");
    expect(commands.rememberPanelWidth).toHaveBeenLastCalledWith(470);
  });

  it("is resized from the keyboard too, never narrower than its minimum", async () => {
    const { edge, panelWidth } = await openPanel(400);
    edge.focus();
    fireEvent.keyDown(edge, { key: "ArrowLeft" });
    expect(panelWidth()).toBe("416px");
    expect(commands.rememberPanelWidth).toHaveBeenLastCalledWith(416);
    fireEvent.keyDown(edge, { key: "Home" });
    fireEvent.keyDown(edge, { key: "ArrowRight" });
    expect(panelWidth()).toBe("360px");
    expect(commands.rememberPanelWidth).toHaveBeenLastCalledWith(360);
    fireEvent.keyDown(edge, { key: "End" });
    expect(panelWidth()).toBe("490px");
  });
});

describe("fields named in previews", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    forgetEditFields();
  });

  it("shows a change's and an error's field by its label, with the wire path in the tooltip", async () => {
    commands.editFields.mockImplementation((kind) =>
      Promise.resolve(kind === "campaign" ? [{ path: "flights[*].endDate", label: "Flight end", aliases: [], serviceSet: false }] : [{ path: "max_bid", label: "Max bid", aliases: [], serviceSet: false }]),
    );
    const rows: RowPreview[] = [
      { target: null, kind: "ad_order", label: "Spring display", line: 2, outcome: "update", diffs: [{ path: "max_bid", before: 2, after: 3.5 }], errors: [] },
      { target: null, kind: "campaign", label: "Spring sale", line: 3, outcome: "refused", diffs: [], errors: [{ field: "flights[1].endDate", code: "ORDER", message: "must be after the start" }] },
    ];
    const { container } = render(<PreviewTable preview={previewOf(rows)} />);
    await settle();
    const diff = container.querySelector('[data-diff="max_bid"] [data-wire-path]')!;
    expect(diff.textContent).toBe("Max bid");
    expect(diff.getAttribute("title")).toBe("max_bid");
    const error = container.querySelector('[data-error-field="flights[1].endDate"]')!;
    expect(error.textContent).toBe("Flight end #2 must be after the start");
    expect(error.querySelector("[title]")?.getAttribute("title")).toBe("flights[1].endDate");
  });
});

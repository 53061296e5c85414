import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
import { App } from "../App";

const SIGNED_OUT = {
  ...SIGNED_IN,
  session: null,
  demo: { username: "demo", password: "demo", partnerClientId: "demo-partner", partnerClientSecret: "demo-partner-secret", partnerLogin: "partner", partnerPassword: "partner" },
};

async function settle() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

describe("sign-in", () => {
  beforeEach(() => vi.clearAllMocks());

  it("fills the demo credentials and signs in", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    commands.signIn.mockReturnValue(ok(SIGNED_IN));
    const { container } = render(<App />);
    await settle();
    expect(container.textContent).toContain("Demo sign-in");
    fireEvent.click(container.querySelector('[data-action="use-demo"]')!);
    expect(container.querySelector<HTMLInputElement>('input[name="username"]')!.value).toBe("demo");
    expect(container.querySelector<HTMLInputElement>('input[name="password"]')!.value).toBe("demo");
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="sign-in"]')!);
    });
    expect(commands.signIn).toHaveBeenCalledWith("demo", "demo");
    await settle();
    expect(container.querySelector('[data-nav="advertisers"]')).not.toBeNull();
    expect(container.querySelector("[data-status]")?.getAttribute("data-status")).toBe("online");
  });

  it("shows a failed sign-in's message", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_OUT));
    commands.signIn.mockReturnValue(Promise.resolve({ status: "error" as const, error: { code: "signInRequired" as const, message: "Wrong user name or password.", fieldErrors: [] } }));
    const { container } = render(<App />);
    await settle();
    fireEvent.click(container.querySelector('[data-tab="partner"]')!);
    fireEvent.click(container.querySelector('[data-action="use-demo"]')!);
    expect(container.querySelector<HTMLInputElement>('input[name="clientId"]')!.value).toBe("demo-partner");
    fireEvent.click(container.querySelector('[data-tab="user"]')!);
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="sign-in"]')!);
    });
    expect(container.querySelector("[data-toast]")?.textContent).toContain("Wrong user name or password.");
  });
});

describe("main window", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    commands.appSnapshot.mockReturnValue(ok({ ...SIGNED_IN, pendingCount: 3 }));
  });

  it("navigates every screen and opens every new form", async () => {
    const { container } = render(<App />);
    await settle();
    expect(container.querySelector("[data-pending-count]")?.textContent).toBe("3");
    expect(container.querySelector('[data-action="post-all"]')?.textContent).toContain("Post 3 changes");
    const screens: [string, string | null][] = [
      ["advertisers", "advertiser"],
      ["campaigns", "campaign"],
      ["ad_orders", "ad_order"],
      ["creatives", "creative"],
      ["site_lists", "site_list"],
      ["audience_segments", "audience_segment"],
      ["pending", null],
    ];
    for (const [nav, form] of screens) {
      fireEvent.click(container.querySelector(`[data-nav="${nav}"]`)!);
      await settle();
      expect(container.querySelector("input[data-filter]")).not.toBeNull();
      if (form) {
        fireEvent.click(container.querySelector('[data-action="new"]')!);
        await settle();
        expect(container.querySelector(`form[data-form="${form}"]`)).not.toBeNull();
        fireEvent.click(container.querySelector(`form[data-form="${form}"] [data-action="cancel"]`)!);
        expect(container.querySelector(`form[data-form="${form}"]`)).toBeNull();
      }
    }
    expect(container.querySelector('table[data-table="pending"]')).not.toBeNull();
  });

  it("takes the pending count from a save's answer instead of reading the snapshot again", async () => {
    commands.save.mockReturnValue(ok({ target: { kind: "advertiser", key: { type: "local", value: "a1" } }, errors: [], pendingCount: 4, row: null }));
    const { container } = render(<App />);
    await settle();
    const snapshots = commands.appSnapshot.mock.calls.length;
    fireEvent.click(container.querySelector('[data-action="new"]')!);
    await settle();
    fireEvent.change(container.querySelector('form[data-form="advertiser"] input[name="name"]')!, { target: { value: "New Co" } });
    await act(async () => {
      fireEvent.click(container.querySelector('form[data-form="advertiser"] [data-action="save"]')!);
    });
    await settle();
    expect(commands.save).toHaveBeenCalledWith(null, null, { kind: "advertiser", value: expect.objectContaining({ name: "New Co" }) });
    expect(container.querySelector("[data-pending-count]")?.textContent).toBe("4");
    expect(commands.appSnapshot.mock.calls.length).toBe(snapshots);
  });

  it("adds and removes flights in the campaign form", async () => {
    const { container } = render(<App />);
    await settle();
    fireEvent.click(container.querySelector('[data-nav="campaigns"]')!);
    await settle();
    fireEvent.click(container.querySelector('[data-action="new"]')!);
    await settle();
    fireEvent.click(container.querySelector('[data-action="add-flight"]')!);
    fireEvent.click(container.querySelector('[data-action="add-flight"]')!);
    expect(container.querySelector('input[name="flights[1].startDate"]')).not.toBeNull();
    fireEvent.click(container.querySelectorAll('[data-action="remove-flight"]')[0]);
    expect(container.querySelector('input[name="flights[1].startDate"]')).toBeNull();
    expect(container.querySelector('input[name="flights[0].startDate"]')).not.toBeNull();
    expect(container.querySelector('select[name="parent.advertiser"]')).not.toBeNull();
  });

  it("opens the palette with Ctrl+K and jumps to a screen", async () => {
    const { container } = render(<App />);
    await settle();
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    const input = container.querySelector<HTMLInputElement>("input[data-palette-input]")!;
    expect(input).not.toBeNull();
    await act(async () => {
      fireEvent.change(input, { target: { value: "site lists" } });
    });
    fireEvent.keyDown(input, { key: "Enter" });
    await settle();
    expect(container.querySelector("[data-palette]")).toBeNull();
    expect(container.querySelector('[data-nav="site_lists"]')?.getAttribute("aria-current")).toBe("page");
  });
});

describe("start", () => {
  beforeEach(() => vi.clearAllMocks());

  it("shows the screen in the first render when the first snapshot came before it, and asks no second time", async () => {
    const { container } = render(<App initial={{ ok: true, data: { ...SIGNED_IN, pendingCount: 2 } }} />);
    expect(container.querySelector('[aria-label="Loading"]')).toBeNull();
    expect(container.querySelector('[data-nav="advertisers"]')).not.toBeNull();
    await settle();
    expect(container.querySelector("[data-pending-count]")?.textContent).toBe("2");
    expect(commands.appSnapshot).not.toHaveBeenCalled();
  });

  it("shows why a start failed, and Try again asks again", async () => {
    commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
    const { container } = render(<App initial={{ ok: false, error: { code: "storage", message: "The disk is full.", fieldErrors: [] } }} />);
    expect(container.querySelector("[data-toast]")?.textContent).toBe("The disk is full.");
    const retry = [...container.querySelectorAll("button")].find((b) => b.textContent === "Try again");
    fireEvent.click(retry!);
    await settle();
    expect(commands.appSnapshot).toHaveBeenCalledTimes(1);
    expect(container.querySelector('[data-nav="advertisers"]')).not.toBeNull();
  });
});

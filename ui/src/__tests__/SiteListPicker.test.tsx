import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrder, AdOrderRow, SiteListRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, events, lastSaved, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { AdOrderForm } from "../forms/AdOrderForm";
import { AppProvider } from "../state/app";

const campaign = { kind: "campaign" as const, key: { type: "id" as const, value: 10 } };

function siteList(id: number | null, name: string, local = "l1"): SiteListRow {
  return {
    target: { kind: "site_list", key: id === null ? { type: "local", value: local } : { type: "id", value: id } },
    parent: null,
    parentLabel: null,
    timezone: null,
    label: name,
    marker: null,
    pending: id === null,
    readOnly: null,
    value: { id, name, typeId: 5 },
  };
}

const LISTS = [siteList(55, "Premium sites"), siteList(56, "News domains"), siteList(57, "Sports apps"), siteList(null, "Draft blocklist")];

function orderRow(value: AdOrder): AdOrderRow {
  return { target: { kind: "ad_order", key: { type: "id", value: 77 } }, parent: campaign, parentLabel: "Spring sale", timezone: "ET", label: "Order", marker: null, pending: false, readOnly: null, value: { id: 77, name: "Order", ...value } };
}

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function setup(value: AdOrder) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <AdOrderForm row={orderRow(value)} />
    </AppProvider>,
  );
  await flush();
  const form = view.container.querySelector('form[data-form="ad_order"]')!;
  const picker = (path: string) => form.querySelector<HTMLElement>(`[data-picker="${path}"]`)!;
  const chips = (path: string) => [...picker(path).querySelectorAll(".entity-chips .chip-text")].map((c) => c.textContent);
  const search = (path: string) => picker(path).querySelector<HTMLInputElement>('input[role="combobox"]')!;
  const options = (path: string) => [...picker(path).querySelectorAll<HTMLElement>('[role="option"]')];
  const save = async () => {
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    const sent = lastSaved("ad_order");
    if (!sent) throw new Error("nothing was saved");
    return sent;
  };
  return { form, picker, chips, search, options, save };
}

const INCLUDE = "audiences[0].siteLists.include";
const EXCLUDE = "audiences[0].siteLists.exclude";

describe("site-list picker", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.querySiteLists.mockImplementation(tableOf(LISTS, (r) => String(r.value.id ?? "")));
  });

  it("shows picked site lists by name, and ids the workspace does not hold as such", async () => {
    const { chips, picker, save } = await setup({ audiences: [{ name: "A", siteLists: { include: [55, 999], exclude: [57] } }] });
    expect(chips(INCLUDE)).toEqual(["Premium sites", "id 999 (not in workspace)"]);
    expect(chips(EXCLUDE)).toEqual(["Sports apps"]);
    expect(picker(INCLUDE).querySelector('[data-id="999"]')?.getAttribute("data-state")).toBe("unknown");
    // Nothing touched: the ids go back as they were.
    expect((await save()).audiences?.[0]?.siteLists).toEqual({ include: [55, 999], exclude: [57] });
  });

  it("finds a site list by name and adds it as its id", async () => {
    const { chips, search, options, save } = await setup({ audiences: [{ name: "A", siteLists: { include: [55] } }] });
    const box = search(INCLUDE);
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "news" } });
    await flush();
    expect(options(INCLUDE).map((o) => o.textContent)).toEqual(["News domains #56"]);
    fireEvent.click(options(INCLUDE)[0]);
    await flush();
    expect(chips(INCLUDE)).toEqual(["Premium sites", "News domains"]);
    expect((await save()).audiences?.[0]?.siteLists?.include).toEqual([55, 56]);

    // The whole list, with what is picked marked and drafts (no id yet) not pickable.
    fireEvent.change(box, { target: { value: "" } });
    await flush();
    const all = options(INCLUDE);
    expect(all.filter((o) => o.getAttribute("aria-selected") === "true").map((o) => o.textContent).sort()).toEqual(["✓News domains #56", "✓Premium sites #55"]);
    const draft = all.find((o) => o.textContent?.startsWith("Draft blocklist"))!;
    expect(draft.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(draft);
    expect(chips(INCLUDE)).toHaveLength(2);
  });

  it("adds a typed id with Enter, even one the workspace does not hold, and removes chips", async () => {
    const { chips, search, picker, save, form } = await setup({ audiences: [{ name: "A" }] });
    const box = search(EXCLUDE);
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "1234" } });
    await flush();
    fireEvent.keyDown(box, { key: "Enter" });
    await flush();
    expect(box.value).toBe("");
    expect(chips(EXCLUDE)).toEqual(["id 1234 (not in workspace)"]);
    // Enter picked; it did not submit the form.
    expect(commands.save).not.toHaveBeenCalled();

    fireEvent.change(box, { target: { value: "56" } });
    await flush();
    fireEvent.keyDown(box, { key: "Enter" });
    await flush();
    expect(chips(EXCLUDE)).toEqual(["id 1234 (not in workspace)", "News domains"]);
    expect((await save()).audiences?.[0]?.siteLists?.exclude).toEqual([1234, 56]);

    fireEvent.click(picker(EXCLUDE).querySelector('button[aria-label="Remove id 1234"]')!);
    fireEvent.click(picker(EXCLUDE).querySelector('button[aria-label="Remove News domains"]')!);
    expect(chips(EXCLUDE)).toEqual([]);
    // It was absent when the form opened: emptied, it is not sent as a list.
    expect((await save()).audiences?.[0]?.siteLists?.exclude ?? null).toBeNull();
    expect(form.isConnected).toBe(true);
  });

  it("names an id again when the workspace changes its site lists", async () => {
    const { chips } = await setup({ audiences: [{ name: "A", siteLists: { include: [58] } }] });
    expect(chips(INCLUDE)).toEqual(["id 58 (not in workspace)"]);
    commands.querySiteLists.mockImplementation(tableOf([...LISTS, siteList(58, "Kids safe")], (r) => String(r.value.id ?? "")));
    await act(async () => {
      events.workspaceChanged.emit({ kinds: ["site_list"], ids: [], addedOrRemoved: false });
      await vi.advanceTimersByTimeAsync(50);
    });
    expect(chips(INCLUDE)).toEqual(["Kids safe"]);
  });
});

import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { TagPreview } from "../bindings";
import type { AdvertiserRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts } from "../api/toast";
import { commands, EMPTY_TAG_PREVIEW, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { App } from "../App";

const acme: AdvertiserRow = {
  target: { kind: "advertiser", key: { type: "id", value: 1 } },
  parent: null,
  parentLabel: null,
  timezone: "ET",
  label: "Acme Outdoor",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 1, name: "Acme Outdoor", timezoneName: "ET" },
};

const FIELDS: TagPreview["fields"] = [
  { field: "name", label: "Name", path: "name" },
  { field: "jsTag", label: "JavaScript tag", path: "htmlAsset" },
];

const DETECTED: TagPreview = {
  ...EMPTY_TAG_PREVIEW,
  preset: "Campaign Manager 360",
  headerRow: 6,
  headers: ["Placement ID", "Placement Name", "JavaScript Tag"],
  fields: FIELDS,
  presets: ["Campaign Manager 360", "Innovid"],
  total: 2,
  refused: 1,
  findings: 3,
  rows: [
    { row: 7, name: "Spring 300x250", size: "300x250", width: 300, height: 250, creativeType: "BANNER+TAG", findings: 3, warnings: 1, rules: ["tag.http-resource", "tag.weight"], errors: [], thumbnail: "tag" },
    {
      row: 8,
      name: "Spring 728x90",
      size: "728x90",
      width: 728,
      height: 90,
      creativeType: "BANNER+TAG",
      findings: 0,
      warnings: 0,
      rules: [],
      errors: [{ cell: "A8", field: "externalCreativeid", message: "the placement id is 27 characters; externalCreativeid takes at most 26" }],
      thumbnail: "none",
    },
  ],
};

async function settle() {
  for (let i = 0; i < 4; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

const click = async (el: Element | null) => {
  expect(el).not.toBeNull();
  await act(async () => {
    fireEvent.click(el!);
  });
  await settle();
};

beforeEach(() => {
  vi.clearAllMocks();
  clearToasts();
  commands.appSnapshot.mockReturnValue(ok(SIGNED_IN));
  commands.queryAdvertisers.mockImplementation(tableOf([acme]));
  commands.pickTagSheet.mockReturnValue(ok({ token: "t1", path: "/home/buyer/spring-tags.xlsx" }));
});

describe("Import tag sheet…", () => {
  it("previews the rows with their findings and cells to fix, then applies under the chosen parent", async () => {
    commands.previewTagSheet.mockReturnValue(ok(DETECTED));
    commands.applyTagSheet.mockReturnValue(ok({ made: 1, refused: 1, step: 9 }));
    const { container } = render(<App />);
    await settle();
    await click(container.querySelector('[data-action="import-tags"]'));

    expect(commands.previewTagSheet).toHaveBeenCalledWith("t1", { by: "detect" }, 0, 50);
    const table = document.querySelector('[data-table="tag-preview"]');
    expect(table?.querySelectorAll("[data-row]").length).toBe(2);
    const findings = document.querySelector('[data-row="7"] [data-findings="3"]');
    expect(findings?.textContent).toBe("3 (1 warning)");
    expect(findings?.getAttribute("title")).toBe("tag.http-resource, tag.weight");
    expect(document.querySelector('[data-row="8"] [data-cell="A8"]')?.textContent).toContain("27 characters");
    expect(document.querySelector("[data-tag-counts]")?.textContent).toContain("Campaign Manager 360");
    const apply = document.querySelector<HTMLButtonElement>('[data-action="apply-tags"]');
    expect(apply?.textContent).toBe("Make 1 draft creative");

    // Nothing is chosen yet (no tree selection): the buyer picks the advertiser.
    expect(apply?.hasAttribute("disabled")).toBe(true);
    await act(async () => {
      fireEvent.change(document.querySelector('select[name="parentKind"]')!, { target: { value: "advertiser" } });
    });
    await settle();
    await act(async () => {
      fireEvent.change(document.querySelector('select[name="parent"]')!, { target: { value: JSON.stringify(acme.target) } });
    });
    await click(apply);
    expect(commands.applyTagSheet).toHaveBeenCalledWith("t1", { by: "detect" }, acme.target);
    expect(screen.getByText("Made 1 draft creative; 1 row to fix left out.")).toBeTruthy();
    expect(document.querySelector('[data-form="tag-sheet"]')).toBeNull();
  });

  it("asks for the columns when no preset knows the sheet, previews with them and saves them as a preset", async () => {
    const unknown: TagPreview = { ...EMPTY_TAG_PREVIEW, headerRow: 3, headers: ["Creative", "Ad Code"], fields: FIELDS, presets: ["Innovid"] };
    commands.previewTagSheet.mockReturnValue(ok(unknown));
    commands.saveTagPreset.mockReturnValue(ok(["House", "Innovid"]));
    const { container } = render(<App />);
    await settle();
    await click(container.querySelector('[data-action="import-tags"]'));

    expect(document.querySelector('[data-action="apply-tags"]')?.hasAttribute("disabled")).toBe(true);
    const pick = (name: string, value: string) =>
      act(async () => {
        fireEvent.change(document.querySelector(`select[name="${name}"]`)!, { target: { value } });
      });
    await pick("column.name", "Creative");
    await pick("column.jsTag", "Ad Code");
    await click(document.querySelector('[data-action="map-columns"]'));
    const columns = [
      { field: "name", header: "Creative" },
      { field: "jsTag", header: "Ad Code" },
    ];
    expect(commands.previewTagSheet).toHaveBeenLastCalledWith("t1", { by: "columns", columns }, 0, 50);

    await act(async () => {
      fireEvent.change(document.querySelector('input[name="presetName"]')!, { target: { value: "House" } });
    });
    await click(document.querySelector('[data-action="save-preset"]'));
    expect(commands.saveTagPreset).toHaveBeenCalledWith("House", columns);
    expect(commands.previewTagSheet).toHaveBeenLastCalledWith("t1", { by: "preset", name: "House" }, 0, 50);
  });
});

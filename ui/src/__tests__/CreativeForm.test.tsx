import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CampaignRow, CreativeRow, MatrixCell } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { CreativeForm } from "../forms/CreativeForm";
import { EditPanel } from "../forms/EditPanel";
import { AppProvider } from "../state/app";

const BANNER = ["BANNER", "MRAID"];
const VIDEO = ["VAST", "VPAID", "VAST_WITH_VPAID"];
const cell = (creativeType: string, creativeSubtype: string, required: string[], mediaTypes: string[], optional = ["size"]): MatrixCell => ({ creativeType, creativeSubtype, required, optional, mediaTypes });

/** The model's matrix as `creative_matrix` answers it: `size` on every cell. */
const MATRIX: MatrixCell[] = [
  cell("BANNER", "TAG", ["size", "htmlAsset"], BANNER, []),
  cell("BANNER", "HOSTED", ["imageUrl", "landingPageUrl"], BANNER),
  cell("VIDEO", "VASTURL", ["video.vastUrl"], VIDEO),
  cell("VIDEO", "VASTXML", ["video.vastXml"], VIDEO),
  cell("VIDEO", "HOSTED", ["video.mediaUrls", "landingPageUrl"], VIDEO),
  cell("AUDIO", "VASTURL", ["audio.vastUrl"], ["AUDIO"]),
  cell("AUDIO", "VASTXML", ["audio.vastXml"], ["AUDIO"]),
  cell("AUDIO", "HOSTED", ["audio.mediaUrls", "landingPageUrl"], ["AUDIO"], ["size", "audio.daast"]),
  cell("NATIVE", "IMAGE", ["native.headline", "native.caption", "native.sponsoredBy", "native.imageUrl", "native.imageIcon", "landingPageUrl"], ["NATIVE"]),
  cell("NATIVE", "VASTURL", ["native.vastUrl", "landingPageUrl"], ["NATIVE"]),
  cell("NATIVE", "VASTXML", ["native.vastXml", "landingPageUrl"], ["NATIVE"]),
  cell("NATIVE", "HOSTED", ["native.mediaUrls", "landingPageUrl"], ["NATIVE"]),
  cell("DOOH", "IMAGE", ["dooh.imageUrl"], ["BANNER"]),
  cell("DOOH", "VIDEO", ["dooh.mediaUrls"], ["VAST"]),
];

const ALL_TYPE_SPECIFIC = ["htmlAsset", "imageUrl", "landingPageUrl", "video.vastUrl", "audio.mediaUrls", "audio.daast", "native.headline", "native.imageIcon", "size.width"];

const advertiser = { kind: "advertiser" as const, key: { type: "id" as const, value: 1 } };
const draftCampaign: CampaignRow = {
  target: { kind: "campaign", key: { type: "local", value: "c0ffee" } },
  parent: advertiser,
  parentLabel: "Acme",
  timezone: null,
  label: "Summer (not posted)",
  marker: "new",
  pending: true,
  readOnly: null,
  value: { name: "Summer (not posted)" },
};

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function setup(row?: CreativeRow) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <CreativeForm row={row} />
      <EditPanel />
    </AppProvider>,
  );
  await flush();
  const form = view.container.querySelector('form[data-form="creative"]')!;
  const select = (name: string) => form.querySelector<HTMLSelectElement>(`select[name="${name}"]`)!;
  const input = (name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]`)!;
  const has = (name: string) => form.querySelector(`[name="${name}"]`) !== null || form.querySelector(`[data-error-slot="${name}"]`) !== null;
  const shown = () => ALL_TYPE_SPECIFIC.filter(has);
  return { container: view.container, form, select, input, has, shown };
}

describe("creative form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.creativeMatrix.mockResolvedValue(MATRIX);
    commands.queryAdvertisers.mockImplementation(tableOf([{ target: advertiser, parent: null, parentLabel: null, timezone: null, label: "Acme", marker: null, pending: false, readOnly: null, value: { id: 1, name: "Acme" } }]));
    commands.queryCampaigns.mockImplementation(tableOf([draftCampaign]));
  });

  it("offers only pairs of the matrix and shows only the chosen cell's fields", async () => {
    const { select, shown, form } = await setup();
    const typeOptions = [...select("creativeType").options].map((o) => o.value).filter(Boolean);
    expect(typeOptions).toEqual(["BANNER", "VIDEO", "AUDIO", "NATIVE", "DOOH"]);
    expect(shown()).toEqual([]);

    fireEvent.change(select("creativeType"), { target: { value: "NATIVE" } });
    expect([...select("creativeSubtype").options].map((o) => o.value).filter(Boolean)).toEqual(["IMAGE", "VASTURL", "VASTXML", "HOSTED"]);
    expect(select("creativeSubtype").value).toBe("IMAGE");
    expect(shown()).toEqual(["landingPageUrl", "native.headline", "native.imageIcon", "size.width"]);
    expect(form.querySelector('[name="native.caption"]')).not.toBeNull();
    // Required cell fields are marked; the landing page is required on NATIVE, size is not.
    expect(form.querySelector('[name="native.headline"]')!.getAttribute("aria-required")).toBe("true");
    expect(form.querySelector('[name="landingPageUrl"]')!.getAttribute("aria-required")).toBe("true");
    expect(form.querySelector('[name="size.width"]')!.getAttribute("aria-required")).toBeNull();
    expect(select("type.mediaType").value).toBe("NATIVE");

    fireEvent.change(select("creativeType"), { target: { value: "BANNER" } });
    expect([...select("creativeSubtype").options].map((o) => o.value).filter(Boolean)).toEqual(["TAG", "HOSTED"]);
    fireEvent.change(select("creativeSubtype"), { target: { value: "HOSTED" } });
    expect(shown()).toEqual(["imageUrl", "landingPageUrl", "size.width"]);

    fireEvent.change(select("creativeSubtype"), { target: { value: "TAG" } });
    expect(shown()).toEqual(["htmlAsset", "size.width"]);
    expect(form.querySelector('[name="size.width"]')!.getAttribute("aria-required")).toBe("true");
    expect(select("type.mediaType").value).toBe("BANNER");

    fireEvent.change(select("creativeType"), { target: { value: "AUDIO" } });
    expect(select("creativeSubtype").value).toBe("VASTURL");
    fireEvent.change(select("creativeSubtype"), { target: { value: "HOSTED" } });
    expect(shown()).toEqual(["landingPageUrl", "audio.mediaUrls", "audio.daast", "size.width"]);
  });

  it("lets every one of the 14 cells set a size, and keeps it across cells", async () => {
    const { select, input, form } = await setup();
    fireEvent.change(select("creativeType"), { target: { value: "BANNER" } });
    fireEvent.change(select("creativeSubtype"), { target: { value: "HOSTED" } });
    fireEvent.change(input("size.width"), { target: { value: "300" } });
    fireEvent.change(input("size.height"), { target: { value: "250" } });
    for (const c of MATRIX) {
      fireEvent.change(select("creativeType"), { target: { value: c.creativeType } });
      fireEvent.change(select("creativeSubtype"), { target: { value: c.creativeSubtype } });
      expect(`${select("creativeType").value} ${select("creativeSubtype").value}`).toBe(`${c.creativeType} ${c.creativeSubtype}`);
      expect(input("size.width")?.value, `${c.creativeType} ${c.creativeSubtype}`).toBe("300");
      expect(input("size.height")?.value, `${c.creativeType} ${c.creativeSubtype}`).toBe("250");
      expect(form.querySelector('[data-error-slot="size"]')).not.toBeNull();
    }
    await flush(400);
    const last = commands.validate.mock.calls.at(-1)?.[2];
    expect(last?.kind === "creative" && last.value.size).toEqual({ width: 300, height: 250 });
  });

  it("drops the fields of the previous cell from the draft", async () => {
    const { select, form } = await setup();
    fireEvent.change(select("creativeType"), { target: { value: "NATIVE" } });
    fireEvent.change(form.querySelector('[name="native.headline"]')!, { target: { value: "Hello" } });
    fireEvent.change(select("creativeType"), { target: { value: "VIDEO" } });
    await flush(400);
    const last = commands.validate.mock.calls.at(-1)?.[2];
    expect(last?.kind).toBe("creative");
    if (last?.kind === "creative") {
      expect(last.value.creativeType).toBe("VIDEO");
      expect(last.value.creativeSubtype).toBe("VASTURL");
      expect(last.value.native ?? null).toBeNull();
      expect(last.value.type?.mediaType).toBe("VAST");
    }
  });

  it("saves under a draft campaign alone, with no advertiser", async () => {
    const { select, form } = await setup();
    expect(select("parent.advertiser").value).toBe("");
    const campaignOption = [...select("parent.campaign").options].find((o) => o.textContent?.includes("Summer"));
    expect(campaignOption?.textContent).toContain("(draft)");
    fireEvent.change(select("parent.campaign"), { target: { value: campaignOption!.value } });
    fireEvent.change(form.querySelector('[name="name"]')!, { target: { value: "Campaign only" } });
    await flush(400);
    expect(commands.validate).toHaveBeenLastCalledWith(null, draftCampaign.target, expect.objectContaining({ kind: "creative" }));
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(null, draftCampaign.target, { kind: "creative", value: expect.objectContaining({ name: "Campaign only", advertiserId: null, campaignId: null }) });
  });

  it("shows a posted creative read-only with the reason and opens a copy from Duplicate as new", async () => {
    const postedRow: CreativeRow = {
      target: { kind: "creative", key: { type: "id", value: 900 } },
      parent: advertiser,
      parentLabel: null,
      timezone: null,
      label: "Hero banner",
      marker: null,
      pending: false,
      readOnly: "Posted creatives cannot be changed: the service has no update for them.",
      value: { id: 900, name: "Hero banner", creativeType: "BANNER", creativeSubtype: "HOSTED", type: { mediaType: "BANNER" }, imageUrl: "https://cdn.test/a.png", landingPageUrl: "https://acme.test", advertiserId: 1, status: "APPROVED" },
    };
    const copyRow: CreativeRow = { ...postedRow, target: { kind: "creative", key: { type: "local", value: "beef" } }, label: "Hero banner", readOnly: null, marker: "new", pending: true, value: { ...postedRow.value, id: null, status: null } };
    commands.duplicateAsNew.mockReturnValue(ok({ kind: "creative" as const, row: copyRow }));
    const { form, container } = await setup(postedRow);

    expect(form.getAttribute("data-read-only")).toBe("true");
    expect(form.querySelector('[data-testid="read-only-reason"]')?.textContent).toContain("no update for them");
    expect(form.querySelector('[data-action="save"]')).toBeNull();
    expect(form.querySelector<HTMLInputElement>('input[name="name"]')!.readOnly).toBe(true);
    expect(form.querySelector<HTMLInputElement>('input[name="imageUrl"]')!.readOnly).toBe(true);
    expect(form.querySelector<HTMLInputElement>('input[name="size.width"]')!.readOnly).toBe(true);
    expect(form.querySelector<HTMLSelectElement>('select[name="creativeType"]')!.disabled).toBe(true);
    // Nothing to validate: no problem box arrives later to repeat the reason.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1000);
    });
    expect(commands.validate).not.toHaveBeenCalled();
    expect(form.querySelector("[data-form-errors]")).toBeNull();

    await act(async () => {
      fireEvent.click(form.querySelector('[data-testid="duplicate-as-new"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.duplicateAsNew).toHaveBeenCalledWith(postedRow.target);
    // The edit panel now holds the new draft, editable, with the copied fields.
    const panel = container.querySelector('aside.edit-panel form[data-form="creative"]')!;
    expect(panel).not.toBeNull();
    expect(panel.getAttribute("data-read-only")).toBeNull();
    expect(panel.querySelector('[data-action="save"]')).not.toBeNull();
    expect(panel.querySelector<HTMLInputElement>('input[name="imageUrl"]')!.value).toBe("https://cdn.test/a.png");
    expect(panel.querySelector<HTMLInputElement>('input[name="name"]')!.readOnly).toBe(false);
  });
});

import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CampaignRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, EMPTY_PREVIEW, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import type { FieldInfo } from "../bindings";
import { BulkEditDialog } from "../bulk/BulkEditDialog";
import { FindReplaceDialog } from "../bulk/FindReplaceDialog";
import { forgetEditFields } from "../bulk/fields";
import { CampaignForm } from "../forms/CampaignForm";
import { dayEnd } from "../forms/fields";
import { AppProvider } from "../state/app";
import { money } from "../util/format";

const field = (path: string, label: string, serviceSet = false, aliases: string[] = []): FieldInfo => ({ path, label, aliases, serviceSet });
const AD_ORDER_FIELDS = [field("id", "Id", true), field("name", "Name"), field("max_bid", "Max bid"), field("maxBidMultiplier", "Max bid multiplier")];
const CAMPAIGN_FIELDS = [field("name", "Name"), field("maxBudget", "Budget", false, ["Lifetime budget"]), field("hasFlights", "Has flights", true), field("flights[*].endDate", "Flight end")];

const advertiser = { kind: "advertiser" as const, key: { type: "id" as const, value: 1 } };
const campaignRow: CampaignRow = {
  target: { kind: "campaign", key: { type: "id", value: 10 } },
  parent: advertiser,
  parentLabel: "Acme",
  timezone: "ET",
  label: "Spring sale",
  marker: null,
  pending: false,
  readOnly: null,
  value: {
    id: 10,
    name: "Spring sale",
    domain: "acme.test",
    flights: [{ id: 100, startDate: Date.UTC(2030, 0, 1), endDate: Date.UTC(2030, 1, 1), maxBudget: 500 }],
  },
};

async function flush(ms = 400) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.clearAllMocks();
  forgetEditFields();
  commands.editFields.mockImplementation((kind) => Promise.resolve(kind === "ad_order" ? AD_ORDER_FIELDS : kind === "campaign" ? CAMPAIGN_FIELDS : []));
  commands.bulkEdit.mockReturnValue(ok(EMPTY_PREVIEW));
  commands.findReplace.mockReturnValue(ok(EMPTY_PREVIEW));
  commands.validate.mockReturnValue(ok([]));
  commands.queryAdvertisers.mockImplementation(
    tableOf([{ target: advertiser, parent: null, parentLabel: null, timezone: "ET", label: "Acme", marker: null, pending: false, readOnly: null, value: { id: 1, name: "Acme", timezoneName: "ET" } }]),
  );
});

describe("bulk edit by label", () => {
  it("offers the kind's fields by label, with the wire path beside each, when rows were only ticked", async () => {
    const ticked = { type: "ids" as const, value: [{ kind: "ad_order" as const, key: { type: "id" as const, value: 7 } }] };
    const { container } = render(<BulkEditDialog scope={ticked} count={1} kind="ad_order" onClose={() => {}} />);
    await flush();
    expect(commands.editFields).toHaveBeenCalledWith("ad_order");
    const offered = [...container.ownerDocument.querySelectorAll("datalist option")].map((o) => [o.getAttribute("value"), o.textContent]);
    expect(offered).toContainEqual(["Max bid", "max_bid"]);
    // The service's own fields are not offered.
    expect(offered.map((o) => o[0])).not.toContain("Id");

    const input = container.ownerDocument.querySelector<HTMLInputElement>('input[name="edits[0].field"]')!;
    fireEvent.change(input, { target: { value: "max bid" } });
    fireEvent.change(container.ownerDocument.querySelector('input[name="edits[0].value"]')!, { target: { value: "11.5" } });
    await flush();
    expect(container.ownerDocument.querySelector("[data-wire-path]")?.textContent).toBe("max_bid");
    fireEvent.click(container.ownerDocument.querySelector('[data-action="preview"]')!);
    await flush();
    // The name goes to the Rust side as typed; it resolves the label there.
    expect(commands.bulkEdit).toHaveBeenLastCalledWith(ticked, [{ field: "max bid", change: { type: "set", value: 11.5 } }], false);
  });

  it("find and replace adds a field picked by its label", async () => {
    const { container } = render(<FindReplaceDialog selection={null} count={0} kind="ad_order" kindLabel="ad orders" onClose={() => {}} />);
    await flush();
    const doc = container.ownerDocument;
    fireEvent.change(doc.querySelector('input[name="find"]')!, { target: { value: "Q3" } });
    fireEvent.change(doc.querySelector('input[name="addField"]')!, { target: { value: "Name" } });
    await flush();
    expect(doc.querySelector<HTMLInputElement>('input[name="fields"]')!.value).toBe("Name");
    expect(doc.querySelector("[data-fields-chosen]")?.textContent).toBe("name");
    fireEvent.click(doc.querySelector('[data-action="preview"]')!);
    await flush();
    expect(commands.findReplace).toHaveBeenLastCalledWith({ type: "kind", value: "ad_order" }, expect.objectContaining({ fields: ["Name"] }), false);
  });
});

describe("first-hour labels", () => {
  it("marks required only what the model's rules need: a campaign with flights needs no budget or dates", async () => {
    commands.requiredFields.mockImplementation((_draft, _create, paths) => Promise.resolve(paths.filter((p) => p === "name" || p === "domain")));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <CampaignForm row={campaignRow} />
      </AppProvider>,
    );
    await flush();
    await flush();
    expect(commands.requiredFields).toHaveBeenCalledWith(expect.objectContaining({ kind: "campaign" }), false, expect.arrayContaining(["maxBudget", "startDate", "endDate", "name"]));
    const form = container.querySelector('form[data-form="campaign"]')!;
    expect(form.querySelector('[name="name"]')!.getAttribute("aria-required")).toBe("true");
    for (const path of ["maxBudget", "startDate", "endDate"]) {
      expect(form.querySelector(`[name="${path}"]`)!.getAttribute("aria-required"), path).toBeNull();
    }
  });

  it("names errors by the field's label, the wire path in a tooltip", async () => {
    commands.validate.mockReturnValue(ok([{ field: "hasFlights", code: "X", message: "cannot be set by hand" }]));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <CampaignForm row={campaignRow} />
      </AppProvider>,
    );
    await flush();
    await flush();
    const shown = container.querySelector('[data-form-errors] [data-wire-path="hasFlights"]');
    expect(shown?.textContent).toBe("Has flights");
    expect(shown?.getAttribute("title")).toBe("hasFlights");
  });

  it("never shows a negative zero", () => {
    expect(money(-0)).toBe("$0.00");
    expect(money(-0.001)).toBe("$0.00");
    expect(money(-1.5)).toBe("-$1.50");
  });

  it("ends a flight picked as a day at its last minute", () => {
    expect(dayEnd("2027-03-31T00:00")).toBe("2027-03-31T23:59");
    expect(dayEnd("2027-03-31T18:30")).toBe("2027-03-31T18:30");
  });
});

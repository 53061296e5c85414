import { act, fireEvent, render, screen } from "@testing-library/react";
import { Toaster } from "../api/toast";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CampaignRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { CampaignForm } from "../forms/CampaignForm";
import { AdOrderForm } from "../forms/AdOrderForm";
import { AppProvider } from "../state/app";
import { routeErrors } from "../util/path";

const advertiser = { kind: "advertiser" as const, key: { type: "id" as const, value: 1 } };
const campaignRow: CampaignRow = {
  target: { kind: "campaign", key: { type: "id", value: 10 } },
  parent: advertiser,
  parentLabel: "Acme",
  timezone: "ET",
  label: "Spring sale",
  marker: "changed",
  pending: true,
  readOnly: null,
  value: {
    id: 10,
    name: "Spring sale",
    domain: "acme.test",
    maxBudget: 1000,
    flights: [
      { id: 100, startDate: Date.UTC(2030, 0, 1), endDate: Date.UTC(2030, 1, 1), maxBudget: 500 },
      { id: 101, startDate: Date.UTC(2030, 1, 1), endDate: Date.UTC(2030, 0, 15), maxBudget: 500 },
    ],
  },
};

async function flush() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(400);
  });
}

describe("field errors", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.queryAdvertisers.mockImplementation(
      tableOf([{ target: advertiser, parent: null, parentLabel: null, timezone: "ET", label: "Acme", marker: null, pending: false, readOnly: null, value: { id: 1, name: "Acme", timezoneName: "ET" } }]),
    );
  });

  it("land on the input named by their wire path; unknown paths go on top", async () => {
    commands.validate.mockReturnValue(
      ok([
        { field: "flights[1].endDate", code: "ORDER", message: "must be after the start" },
        { field: "name", code: "REQUIRED", message: "is required" },
        { field: "iabCategory", code: "REQUIRED", message: "pick at least one" },
        { field: "somethingElse", code: "X", message: "a rule about no field on screen" },
      ]),
    );
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <CampaignForm row={campaignRow} />
      </AppProvider>,
    );
    await flush();
    expect(commands.validate).toHaveBeenCalledWith(campaignRow.target, advertiser, expect.objectContaining({ kind: "campaign" }));

    const endInput = container.querySelector('form[data-form="campaign"] input[name="flights[1].endDate"]');
    expect(endInput).not.toBeNull();
    expect(endInput!.getAttribute("aria-invalid")).toBe("true");
    const endError = container.querySelector('[data-error-for="flights[1].endDate"]');
    expect(endError?.textContent).toContain("must be after the start");
    // The error sits in the same field as the input.
    expect(endError!.closest(".field")).toBe(endInput!.closest(".field"));
    expect(container.querySelector('[data-error-for="flights[0].endDate"]')).toBeNull();

    expect(container.querySelector('[data-error-for="name"]')?.textContent).toContain("is required");
    expect(container.querySelector('[data-error-for="iabCategory"]')?.textContent).toContain("pick at least one");

    const top = container.querySelector("[data-form-errors]");
    expect(top?.textContent).toContain("a rule about no field on screen");
    expect(top?.textContent).not.toContain("is required");
  });

  it("route nested audience paths and save errors from the command", async () => {
    commands.validate.mockReturnValue(ok([]));
    commands.save.mockReturnValue(
      Promise.resolve({
        status: "error" as const,
        error: { code: "invalid" as const, message: "The ad order is not valid", fieldErrors: [{ field: "audiences[0].exchanges.include", code: "BAD", message: "unknown exchange 99" }] },
      }),
    );
    const campaignRef = campaignRow.target;
    commands.queryCampaigns.mockImplementation(tableOf([campaignRow]));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <AdOrderForm parent={{ target: campaignRef, label: campaignRow.label, timezone: "ET", advertiser }} />
        <Toaster />
      </AppProvider>,
    );
    await flush();
    fireEvent.click(container.querySelector('[data-action="add-audience"]')!);
    const include = container.querySelector<HTMLInputElement>('input[name="audiences[0].exchanges.include"]')!;
    fireEvent.change(include, { target: { value: "99, 7" } });
    await act(async () => {
      fireEvent.click(container.querySelector('form[data-form="ad_order"] [data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(null, campaignRef, { kind: "ad_order", value: expect.objectContaining({ audiences: [expect.objectContaining({ exchanges: { include: [99, 7] } })] }) });
    expect(container.querySelector('[data-error-for="audiences[0].exchanges.include"]')?.textContent).toContain("unknown exchange 99");
    expect(screen.getAllByText("The ad order is not valid").length).toBeGreaterThan(0);
  });
});

describe("routeErrors", () => {
  it("picks the longest rendered path holding the error", () => {
    const routes = routeErrors(
      [
        { field: "flights[1].endDate" },
        { field: "flights[1]" },
        { field: "flights[10].endDate" },
        { field: "frequencyCap.limit" },
        { field: "nowhere" },
      ],
      ["flights", "flights[1]", "flights[1].endDate", "frequencyCap"],
    );
    expect(routes.get("flights[1].endDate")?.map((e) => e.field)).toEqual(["flights[1].endDate"]);
    expect(routes.get("flights[1]")?.map((e) => e.field)).toEqual(["flights[1]"]);
    expect(routes.get("flights")?.map((e) => e.field)).toEqual(["flights[10].endDate"]);
    expect(routes.get("frequencyCap")?.map((e) => e.field)).toEqual(["frequencyCap.limit"]);
    expect(routes.get("")?.map((e) => e.field)).toEqual(["nowhere"]);
  });
});

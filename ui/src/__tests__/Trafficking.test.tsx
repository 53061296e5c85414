import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdOrderRow, CampaignRow, CreativeRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
import { clearToasts, Toaster } from "../api/toast";
import { AdOrderForm } from "../forms/AdOrderForm";
import { CampaignForm } from "../forms/CampaignForm";
import { CreativeForm } from "../forms/CreativeForm";
import { AppProvider } from "../state/app";

const advertiser = { kind: "advertiser" as const, key: { type: "id" as const, value: 1 } };
const campaign = { kind: "campaign" as const, key: { type: "id" as const, value: 10 } };

function orderRow(id: number | null): AdOrderRow {
  const key = id === null ? { type: "local" as const, value: "d1" } : { type: "id" as const, value: id };
  return { target: { kind: "ad_order", key }, parent: campaign, parentLabel: "Spring", timezone: "ET", label: "Order", marker: null, pending: false, readOnly: null, value: { id, name: "Order" } };
}

const campaignRow: CampaignRow = { target: campaign, parent: advertiser, parentLabel: "Acme", timezone: "ET", label: "Spring", marker: null, pending: false, readOnly: null, value: { id: 10, name: "Spring", flights: [] } };

const creativeRow: CreativeRow = {
  target: { kind: "creative", key: { type: "id", value: 41 } },
  parent: campaign,
  parentLabel: "Spring",
  timezone: "ET",
  label: "Listed banner",
  marker: null,
  pending: false,
  readOnly: "Posted creatives cannot be changed.",
  value: { id: 41, name: "Listed banner", status: "APPROVED" },
};

async function show(node: React.ReactNode) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      {node}
      <Toaster />
    </AppProvider>,
  );
  await act(async () => {
    await vi.advanceTimersByTimeAsync(50);
  });
  return view.container;
}

describe("trafficking listings in forms", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    clearToasts();
  });

  it("lists a posted ad order's creatives with their status, and says when they are not fresh", async () => {
    commands.adOrderCreatives.mockReturnValue(
      ok({
        creatives: [
          { id: 5, name: "Spring video", status: "APPROVED" },
          { id: 6, name: "Spring banner", status: "PENDING" },
        ],
        fetchedAt: Date.UTC(2027, 2, 1, 12),
        stale: "Not fetched now: the ad platform cannot be reached.",
      }),
    );
    const c = await show(<AdOrderForm row={orderRow(77)} />);
    expect(commands.adOrderCreatives).toHaveBeenCalledWith(77);
    const rows = [...c.querySelectorAll('[data-testid="associated-creative"]')].map((r) => r.textContent);
    expect(rows).toEqual(["Spring video5APPROVED", "Spring banner6PENDING"]);
    expect(c.querySelector('[data-testid="creatives-stale"]')?.textContent).toContain("cannot be reached");
    expect(c.querySelector('[data-testid="creatives-stale"]')?.textContent).toContain("2027");
  });

  it("shows no creatives for a draft ad order, and asks nothing", async () => {
    const c = await show(<AdOrderForm row={orderRow(null)} />);
    expect(c.querySelector('[data-testid="ad-order-creatives"]')).toBeNull();
    expect(commands.adOrderCreatives).not.toHaveBeenCalled();
  });

  it("refreshes one campaign and says once what could not be listed", async () => {
    const notice = "Creatives could not be listed: the ad platform does not offer the creative listing (HTTP 405).";
    commands.refreshCampaign.mockReturnValue(ok({ added: 2, changed: 1, removed: 0, keptPending: 0, notices: [notice] }));
    const c = await show(<CampaignForm row={campaignRow} />);
    await act(async () => {
      fireEvent.click(c.querySelector('[data-action="refresh-campaign"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.refreshCampaign).toHaveBeenCalledWith(10);
    expect(c.querySelector('[data-toast="success"]')?.textContent).toContain("Campaign refreshed: 2 added, 1 changed");
    const infos = [...c.querySelectorAll('[data-toast="info"]')].map((t) => t.textContent);
    expect(infos.filter((t) => t?.includes("could not be listed"))).toHaveLength(1);
  });

  it("has no refresh for a campaign not posted yet", async () => {
    const draft: CampaignRow = { ...campaignRow, target: { kind: "campaign", key: { type: "local", value: "c1" } }, value: { name: "New", flights: [] } };
    const c = await show(<CampaignForm row={draft} />);
    expect(c.querySelector('[data-action="refresh-campaign"]')).toBeNull();
  });

  it("shows the Rust side's note on a creative downloaded from a listing", async () => {
    commands.creativeNote.mockReturnValue(ok("Downloaded from the ad platform's creative listing."));
    const c = await show(<CreativeForm row={creativeRow} />);
    expect(commands.creativeNote).toHaveBeenCalledWith(creativeRow.target);
    expect(c.querySelector('[data-testid="listing-note"]')?.textContent).toContain("creative listing");
  });

  it("shows no note when the Rust side has none", async () => {
    commands.creativeNote.mockReturnValue(ok(null));
    const c = await show(<CreativeForm row={creativeRow} />);
    expect(c.querySelector('[data-testid="listing-note"]')).toBeNull();
  });
});

import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangeView, CreativeRow, MatrixCell, TableQuery } from "../api/types";
import type { CreativeChecks, Finding } from "../bindings";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { clearToasts, Toaster } from "../api/toast";
import { commands, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { CreativeForm } from "../forms/CreativeForm";
import { PendingScreen } from "../screens/Pending";
import { EntityScreen } from "../screens/EntityScreen";
import { CREATIVES } from "../screens/entities";
import { AppProvider } from "../state/app";

const MATRIX: MatrixCell[] = [
  { creativeType: "BANNER", creativeSubtype: "TAG", required: ["size", "htmlAsset"], optional: [], mediaTypes: ["BANNER"] },
  { creativeType: "VIDEO", creativeSubtype: "VASTURL", required: ["video.vastUrl"], optional: ["size"], mediaTypes: ["VAST"] },
];

const httpScript: Finding = { rule: "tag.http-resource", level: "warning", path: "htmlAsset", line: 3, message: "loads http://ads.example.com/loader.js over http://" };
const weight: Finding = { rule: "tag.weight", level: "info", path: "htmlAsset", line: null, message: "the tag weighs 1 KB (120 bytes)" };

const tagRow: CreativeRow = {
  target: { kind: "creative", key: { type: "local", value: "t1" } },
  parent: { kind: "advertiser", key: { type: "id", value: 1 } },
  parentLabel: "Acme",
  timezone: null,
  label: "Http tag",
  marker: "new",
  pending: true,
  readOnly: null,
  value: { name: "Http tag", creativeType: "BANNER", creativeSubtype: "TAG", type: { mediaType: "BANNER" }, size: { width: 300, height: 250 }, htmlAsset: "<div>\n<a href='%%CLICK_URL_UNESC%%'>x</a>\n<script src='http://ads.example.com/loader.js'></script>\n</div>" },
};

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe("checks in the creative form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.creativeMatrix.mockResolvedValue(MATRIX);
  });

  it("shows warnings at their field and in the Checks section, and never blocks Save", async () => {
    const checks: CreativeChecks = { findings: [httpScript, weight], vast: [] };
    commands.draftChecks.mockReturnValue(ok(checks));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <CreativeForm row={tagRow} />
      </AppProvider>,
    );
    await flush(400);
    expect(commands.draftChecks).toHaveBeenCalled();
    expect(commands.draftChecks.mock.calls.at(-1)?.[0]).toMatchObject({ kind: "creative", value: { htmlAsset: tagRow.value.htmlAsset } });

    const atField = container.querySelector('[data-findings-for="htmlAsset"]')!;
    expect(atField).not.toBeNull();
    const warning = atField.querySelector('[data-rule="tag.http-resource"]')!;
    expect(warning.getAttribute("data-level")).toBe("warning");
    expect(warning.textContent).toContain("line 3");
    expect(atField.querySelector('[data-rule="tag.weight"]')?.getAttribute("data-level")).toBe("info");
    // A warning is not an error: nothing marks the input invalid, and Save stays.
    expect(container.querySelector('[data-error-for="htmlAsset"]')).toBeNull();
    const save = container.querySelector<HTMLButtonElement>('[data-action="save"]')!;
    expect(save.disabled).toBe(false);

    const section = container.querySelector('[data-section="checks"]')!;
    expect(section.textContent).toContain("1 warning · 1 info");
    expect(section.querySelector('[data-rule="tag.http-resource"]')?.textContent).toContain("htmlAsset:3");

    // Typing asks again, a moment later.
    const calls = commands.draftChecks.mock.calls.length;
    fireEvent.change(container.querySelector('textarea[name="htmlAsset"]')!, { target: { value: "<div></div>" } });
    await flush(400);
    expect(commands.draftChecks.mock.calls.length).toBe(calls + 1);
  });

  it("lists a VAST document's summary and fetches a VAST URL only when asked", async () => {
    const summary = {
      root: "VAST",
      version: "4.2",
      error: null,
      ads: [
        {
          id: "a1",
          line: 3,
          kind: "InLine" as const,
          adSystem: "Fixtures",
          adTitle: "Winter",
          wrapperUri: null,
          impressions: [{ event: null, url: "https://t.example.com/i", https: true, line: 7 }],
          errors: [],
          creatives: [
            {
              id: "c1",
              line: 9,
              companions: 0,
              nonLinears: 0,
              linear: {
                line: 11,
                duration: "00:00:06.000",
                durationMs: 6000,
                skipOffset: null,
                mediaFiles: [{ url: "http://cdn.example.com/a.mp4", mimeType: "video/mp4", delivery: "progressive", width: 1920, height: 1080, bitrate: 4500, https: false, line: 14 }],
                tracking: [{ event: "start", url: "https://t.example.com/s", https: true, line: 12 }],
                clickThrough: { event: null, url: "https://shop.example.com/", https: true, line: 17 },
                clickTracking: [],
              },
            },
          ],
        },
      ],
    };
    commands.draftChecks.mockReturnValue(ok({ findings: [], vast: [{ path: "video.vastXml", summary }] }));
    commands.fetchVast.mockReturnValue(
      ok([
        { url: "https://ads.example.com/w.xml", status: 200, problem: null, findings: [], summary },
        { url: "https://ads.example.com/gone.xml", status: 404, problem: "the server answered HTTP 404", findings: [], summary: null },
      ]),
    );
    const row: CreativeRow = { ...tagRow, value: { name: "Video", creativeType: "VIDEO", creativeSubtype: "VASTURL", type: { mediaType: "VAST" }, video: { vastUrl: "https://ads.example.com/w.xml" } } };
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <CreativeForm row={row} />
      </AppProvider>,
    );
    await flush(400);
    const inspected = container.querySelector('[data-vast-summary="video.vastXml"]')!;
    expect(inspected.textContent).toContain("VAST 4.2");
    expect(inspected.querySelector('[data-ad-kind="InLine"]')).not.toBeNull();
    expect(inspected.textContent).toContain("duration 00:00:06.000");
    expect(inspected.querySelector('[data-media-file="0"]')?.textContent).toContain("video/mp4");
    expect(inspected.querySelector('[data-media-file="0"]')?.textContent).toContain("4500 kbit/s");
    expect(inspected.querySelector('[data-media-file="0"]')?.textContent).toContain("http");
    expect(inspected.textContent).toContain("Trackers: start");
    expect(inspected.textContent).toContain("https://shop.example.com/");

    expect(commands.fetchVast).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(container.querySelector('[data-fetch-vast="video.vastUrl"] [data-action="fetch-vast"]')!);
    });
    await flush();
    expect(commands.fetchVast).toHaveBeenCalledWith("video.vastUrl", "https://ads.example.com/w.xml");
    const hops = container.querySelectorAll("[data-hop]");
    expect(hops.length).toBe(2);
    expect(hops[1].textContent).toContain("HTTP 404");
    expect(hops[1].textContent).toContain("Stopped: the server answered HTTP 404");
  });
});

const pendingTag: ChangeView = {
  seq: 4,
  target: tagRow.target,
  label: "Http tag",
  kindLabel: "creative",
  marker: "new",
  op: "create",
  status: "pending",
  diff: [],
  errors: [],
  messages: [],
  conflicts: [],
  findings: [httpScript],
};

async function settle() {
  for (let i = 0; i < 3; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

describe("checks in the pending changes", () => {
  beforeEach(() => {
    vi.useRealTimers();
    vi.clearAllMocks();
    clearToasts();
  });

  it("shows a creative's findings beside it and asks before posting with warnings", async () => {
    commands.queryPendingChanges.mockImplementation(tableOf([pendingTag]));
    commands.checkChanges.mockReturnValue(ok({ checked: 1, invalid: 0, withFindings: 1, warnings: 1, infos: 0 }));
    const { container } = render(
      <AppProvider initial={{ ...SIGNED_IN, pendingCount: 1 }}>
        <PendingScreen />
        <Toaster />
      </AppProvider>,
    );
    await settle();
    const row = container.querySelector('[data-row][data-label="Http tag"]')!;
    expect(row.textContent).toContain("1 warning");
    fireEvent.click(screen.getByLabelText("Details of Http tag"));
    expect(container.querySelector('.change-details [data-rule="tag.http-resource"]')?.textContent).toContain("htmlAsset:3");

    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-all"]')!);
    });
    await settle();
    expect(commands.checkChanges).toHaveBeenCalledTimes(1);
    expect(commands.postChanges).not.toHaveBeenCalled();
    const ask = container.querySelector('[data-confirm="post-warnings"]')!;
    expect(ask.textContent).toContain("1 warning");
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="cancel-post"]')!);
    });
    expect(commands.postChanges).not.toHaveBeenCalled();

    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-all"]')!);
    });
    await settle();
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-anyway"]')!);
    });
    await settle();
    expect(commands.postChanges).toHaveBeenCalledWith(null);

    // Without warnings, posting does not ask.
    commands.postChanges.mockClear();
    commands.checkChanges.mockReturnValue(ok({ checked: 1, invalid: 0, withFindings: 1, warnings: 0, infos: 2 }));
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="post-all"]')!);
    });
    await settle();
    expect(container.querySelector('[data-confirm="post-warnings"]')).toBeNull();
    expect(commands.postChanges).toHaveBeenCalledWith(null);
  });
});

describe("checks on the creatives table", () => {
  beforeEach(() => {
    vi.useRealTimers();
    vi.clearAllMocks();
  });

  it("filters by findings through the query and checks a selection", async () => {
    // As the Rust side answers: the filter words of the checks keep the tag with its warning.
    commands.queryCreatives.mockImplementation((q: TableQuery) => tableOf([tagRow])({ ...q, filter: q.filter.replace(/has:(findings|warnings)/g, "") }));
    commands.checkCreatives.mockReturnValue(
      ok({ checked: 1, withFindings: 1, warnings: 1, infos: 1, rules: [{ rule: "tag.http-resource", level: "warning", creatives: 1 }], creatives: [{ target: tagRow.target, label: "Http tag", findings: [httpScript] }] }),
    );
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <EntityScreen config={CREATIVES} />
      </AppProvider>,
    );
    await settle();
    fireEvent.change(container.querySelector('select[data-findings-filter]')!, { target: { value: "has:warnings" } });
    await settle();
    expect(commands.queryCreatives.mock.calls.at(-1)?.[0].filter).toBe("has:warnings");
    // The word is the query's, not the filter box's.
    expect(container.querySelector<HTMLInputElement>("input[data-filter]")!.value).toBe("");

    fireEvent.click(screen.getByLabelText("Select Http tag"));
    await act(async () => {
      fireEvent.click(container.querySelector('[data-action="check-creatives"]')!);
    });
    await settle();
    expect(commands.checkCreatives).toHaveBeenCalledWith({ type: "ids", value: [tagRow.target] });
    const result = container.querySelector("[data-check-result]")!;
    expect(result.querySelector('[data-field="with-findings"]')?.textContent).toBe("1");
    expect(result.querySelector('tr[data-rule="tag.http-resource"]')?.textContent).toContain("1 creative");
    expect(result.querySelector('li[data-rule="tag.http-resource"]')?.textContent).toContain("htmlAsset:3");
  });
});

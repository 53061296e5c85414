import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AdvertiserRow, SegmentRow, UploadView } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { AudienceSegmentForm } from "../forms/AudienceSegmentForm";
import { EditPanel } from "../forms/EditPanel";
import { AppProvider } from "../state/app";

const posted: SegmentRow = {
  target: { kind: "audience_segment", key: { type: "segment", value: "fpsegmab12" } },
  parent: null,
  parentLabel: null,
  timezone: null,
  label: "Loyal buyers",
  marker: null,
  pending: false,
  readOnly: "The service has no update for audience segments.",
  value: { name: "Loyal buyers", serviceSegmentId: "fpsegmab12", dataType: "email_sha256", status: "INACTIVE", accountId: 7, advertiserIds: [1], externalAudienceId: "loyal", dataCount: 0 },
};

function advertiser(id: number | null, name: string, local = "a1"): AdvertiserRow {
  return {
    target: { kind: "advertiser", key: id === null ? { type: "local", value: local } : { type: "id", value: id } },
    parent: null,
    parentLabel: null,
    timezone: null,
    label: name,
    marker: null,
    pending: id === null,
    readOnly: null,
    value: { id, name },
  };
}

const ADVERTISERS = [advertiser(1, "Acme Foods"), advertiser(2, "Globex Outdoor"), advertiser(3, "Initech Travel"), advertiser(null, "Draft brand")];

/** A segment not posted yet: every field can be edited. */
const draft: SegmentRow = {
  ...posted,
  target: { kind: "audience_segment", key: { type: "local", value: "seg1" } },
  label: "Lapsed buyers",
  pending: true,
  readOnly: null,
  value: { name: "Lapsed buyers", dataType: "email_sha256", accountId: 7, advertiserIds: [1, 999], externalAudienceId: "lapsed" },
};

const uploads: UploadView[] = [
  {
    seq: 41,
    status: "applied",
    values: 1200,
    countryCode: "US",
    // The form sends the whole file as one record: the service counts records.
    result: { message: "Audience data payload processed.", published: 1, failed_publishes: 0, bad_records: 0, bad_records_details: "" },
    message: null,
  },
  {
    seq: 42,
    status: "failed",
    values: 3,
    countryCode: "DE",
    result: { message: "invalid payload: 3 bad record(s)", published: 0, failed_publishes: 0, bad_records: 3, bad_records_details: "values[0]: not a SHA-256 hash" },
    message: null,
  },
  { seq: 43, status: "pending", values: 10, countryCode: "US", result: null, message: null },
];

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

function renderForm(row?: SegmentRow) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <AudienceSegmentForm row={row} />
      <EditPanel />
    </AppProvider>,
  );
  const c = view.container;
  const q = <E extends Element = HTMLElement>(css: string) => c.querySelector<E>(css);
  const picker = () => q('form[data-form="audience_segment"] [data-picker="advertiserIds"]')!;
  const chips = () => [...picker().querySelectorAll(".entity-chips .chip-text")].map((x) => x.textContent);
  const search = () => picker().querySelector<HTMLInputElement>('input[role="combobox"]');
  const options = () => [...picker().querySelectorAll<HTMLElement>('[role="option"]')];
  const save = async () => {
    await act(async () => {
      fireEvent.click(q('form[data-form="audience_segment"] [data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    const call = commands.save.mock.calls.at(-1);
    if (!call || call[2].kind !== "audience_segment") throw new Error("nothing was saved");
    return { target: call[0], value: call[2].value };
  };
  return { c, q, picker, chips, search, options, save };
}

describe("audience segment form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.audienceUploads.mockReturnValue(ok(uploads));
    commands.queryAdvertisers.mockImplementation(tableOf(ADVERTISERS, (r) => String(r.value.id ?? "")));
  });

  it("shows a posted segment's advertisers by name, read-only", async () => {
    const { picker, chips, search } = renderForm(posted);
    await flush();
    expect(chips()).toEqual(["Acme Foods"]);
    expect(picker().querySelector('[data-id="1"]')?.getAttribute("data-state")).toBe("known");
    // Nothing to search, add or remove.
    expect(search()).toBeNull();
    expect(picker().querySelector("button")).toBeNull();
  });

  it("opens a posted segment without a late problem box above the upload form", async () => {
    // The model refuses any update of a posted segment; asked, it would say so.
    commands.validate.mockReturnValue(ok([{ field: "", code: "no_update_endpoint", message: "the service has no update for this kind once it is posted" }]));
    const { q } = renderForm(posted);
    await flush(1000);
    // The reason shows once, as the read-only note; nothing arrives later to push the
    // upload form down while the buyer aims at it.
    expect(q('[data-testid="read-only-reason"]')).not.toBeNull();
    expect(commands.validate).not.toHaveBeenCalled();
    expect(q('form[data-form="audience_segment"] [data-form-errors]')).toBeNull();
    expect(q('form[data-form="audience_segment"] .form-count')).toBeNull();
  });

  it("validates a draft segment when it opens", async () => {
    commands.validate.mockReturnValue(ok([{ field: "name", code: "required", message: "is required" }]));
    const { q } = renderForm(draft);
    await flush(1000);
    expect(commands.validate).toHaveBeenCalled();
    expect(q('form[data-form="audience_segment"] [data-error-for="name"]')?.textContent).toContain("is required");
  });

  it("picks advertisers by name and sends their ids, keeping ids the workspace does not hold", async () => {
    const { picker, chips, search, options, save } = renderForm(draft);
    await flush();
    expect(chips()).toEqual(["Acme Foods", "id 999 (not in workspace)"]);
    expect(picker().querySelector('[data-id="999"]')?.getAttribute("data-state")).toBe("unknown");

    const box = search()!;
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "globex" } });
    await flush();
    expect(options().map((o) => o.textContent)).toEqual(["Globex Outdoor #2"]);
    fireEvent.click(options()[0]);
    await flush();
    expect(chips()).toEqual(["Acme Foods", "id 999 (not in workspace)", "Globex Outdoor"]);

    // A typed id the workspace does not hold is kept too.
    fireEvent.change(box, { target: { value: "4242" } });
    await flush();
    fireEvent.keyDown(box, { key: "Enter" });
    await flush();
    expect(chips()).toEqual(["Acme Foods", "id 999 (not in workspace)", "Globex Outdoor", "id 4242 (not in workspace)"]);
    // Enter picked; it did not submit the form.
    expect(commands.save).not.toHaveBeenCalled();

    const sent = await save();
    expect(sent.target).toEqual(draft.target);
    expect(sent.value).toEqual({ ...draft.value, advertiserIds: [1, 999, 2, 4242] });
  });

  it("sends a new segment's picked advertiser as a number array, and nothing once it is removed", async () => {
    const { chips, search, options, picker, save } = renderForm();
    await flush();
    expect(chips()).toEqual([]);
    const box = search()!;
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "initech" } });
    await flush();
    fireEvent.click(options()[0]);
    await flush();
    expect(chips()).toEqual(["Initech Travel"]);
    expect((await save()).value.advertiserIds).toEqual([3]);

    fireEvent.click(picker().querySelector('button[aria-label="Remove Initech Travel"]')!);
    expect(chips()).toEqual([]);
    // It was absent when the form opened: emptied, it is not sent as a list.
    expect((await save()).value.advertiserIds ?? null).toBeNull();
  });

  it("shows the advertisers' errors at the picker", async () => {
    commands.validate.mockReturnValue(ok([{ field: "advertiserIds[1]", code: "INVALID", message: "must be a positive id" }]));
    const value = { ...draft.value, advertiserIds: [1, -5] };
    const { picker, search } = renderForm({ ...draft, value });
    await flush(400);
    expect(commands.validate).toHaveBeenLastCalledWith(draft.target, null, { kind: "audience_segment", value });
    expect(picker().querySelector('[data-error-for="advertiserIds"]')?.textContent).toContain("must be a positive id");
    expect(search()?.getAttribute("aria-invalid")).toBe("true");
  });

  it("lists each upload with its status and published-record / bad-record counts", async () => {
    const { q, c } = renderForm(posted);
    await flush();
    expect(commands.audienceUploads).toHaveBeenCalledWith(posted.target);
    const rows = [...c.querySelectorAll('[data-testid="upload-list"] [data-testid="upload-row"]')];
    expect(rows.map((r) => r.getAttribute("data-status"))).toEqual(["applied", "failed", "pending"]);
    const cell = (i: number, col: string) => rows[i].querySelector(`[data-col="${col}"]`)?.textContent;
    expect(cell(0, "values")).toBe("1,200");
    expect(cell(0, "published")).toBe("1");
    expect(cell(0, "failed")).toBe("0");
    // The count is of records, not identifiers, and the heading says so.
    expect(q('[data-testid="upload-list"] th[data-col="published"]')?.textContent).toBe("Records published");
    expect(cell(0, "bad")).toBe("0");
    expect(cell(1, "published")).toBe("0");
    expect(cell(1, "bad")).toBe("3");
    expect(cell(1, "message")).toContain("invalid payload: 3 bad record(s)");
    expect(cell(1, "message")).toContain("not a SHA-256 hash");
    // Not answered yet: no counts to show.
    expect(cell(2, "published")).toBe("—");
    expect(q('[data-testid="upload-list"] h3')?.textContent).toBe("Uploads (3)");
  });

  it("keeps a posted segment read-only but still takes a file upload, with a column picker for a CSV", async () => {
    commands.readIdentifiers.mockImplementation((text: string, column: string | null) =>
      ok(
        column === "email"
          ? { values: ["a1", "b2", "c3"], columns: ["id", "email"], column: "email", problem: null }
          : { values: [], columns: ["id", "email"], column: null, problem: "the file has several identifier-like columns; choose the column: \"id\", \"email\"" },
      ),
    );
    commands.save.mockReturnValue(ok({ target: posted.target, errors: [], pendingCount: 1, row: null }));
    const { q } = renderForm(posted);
    await flush();

    // The segment's own fields are read-only, with the reason; no save.
    const segment = q('form[data-form="audience_segment"]')!;
    expect(q('[data-testid="read-only-reason"]')?.textContent).toContain("no update for audience segments");
    expect(q<HTMLInputElement>('form[data-form="audience_segment"] input[name="name"]')!.readOnly).toBe(true);
    expect(q<HTMLSelectElement>('form[data-form="audience_segment"] select[name="dataType"]')!.disabled).toBe(true);
    expect(segment.querySelector('[data-action="save"]')).toBeNull();
    expect(segment.querySelector('[data-testid="duplicate-as-new"]')).not.toBeNull();

    // The upload form is live.
    const country = q<HTMLInputElement>('form[data-form="audience_data"] input[name="countryCode"]')!;
    expect(country.value).toBe("US");
    expect(country.readOnly).toBe(false);
    const file = new File(["id,email\n1,a1\n2,b2\n3,c3\n"], "buyers.csv", { type: "text/csv" });
    await act(async () => {
      fireEvent.change(q('input[data-testid="upload-file"]')!, { target: { files: [file] } });
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.readIdentifiers).toHaveBeenLastCalledWith("id,email\n1,a1\n2,b2\n3,c3\n", null);
    expect(q('[data-testid="upload-problem"]')?.textContent).toContain("choose the column");
    const column = q<HTMLSelectElement>('select[data-testid="upload-column"]')!;
    expect([...column.options].map((o) => o.value)).toEqual(["", "id", "email"]);
    await act(async () => {
      fireEvent.change(column, { target: { value: "email" } });
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.readIdentifiers).toHaveBeenLastCalledWith("id,email\n1,a1\n2,b2\n3,c3\n", "email");
    expect(q('[data-testid="upload-summary"]')?.textContent).toContain("3 identifiers from buyers.csv (column email)");
    expect(q('[data-testid="upload-problem"]')).toBeNull();

    fireEvent.change(country, { target: { value: "CA" } });
    const upload = q<HTMLButtonElement>('form[data-form="audience_data"] [data-action="save"]')!;
    expect(upload.textContent).toBe("Upload 3 identifiers");
    await act(async () => {
      fireEvent.click(upload);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(null, posted.target, { kind: "audience_data", value: { countryCode: "CA", values: ["a1", "b2", "c3"] } });
  });

  it("shows the identifiers' errors at the upload's fields", async () => {
    commands.validate.mockReturnValue(ok([{ field: "values[1]", code: "INVALID", message: "is not a SHA-256 hash" }]));
    commands.readIdentifiers.mockReturnValue(ok({ values: ["x", "y"], columns: [], column: null, problem: null }));
    const { q } = renderForm(posted);
    await flush();
    await act(async () => {
      fireEvent.change(q('input[data-testid="upload-file"]')!, { target: { files: [new File(["x\ny\n"], "ids.txt")] } });
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.readIdentifiers).toHaveBeenLastCalledWith("x\ny\n", null);
    await flush(400);
    expect(commands.validate).toHaveBeenLastCalledWith(null, posted.target, { kind: "audience_data", value: { countryCode: "US", values: ["x", "y"] } });
    expect(q('[data-error-for="values"]')?.textContent).toContain("is not a SHA-256 hash");
  });
});

import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SegmentRow, UploadView } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok, SIGNED_IN } from "../test/fakeBindings";
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

function renderForm(row: SegmentRow) {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <AudienceSegmentForm row={row} />
      <EditPanel />
    </AppProvider>,
  );
  const c = view.container;
  return { c, q: <E extends Element = HTMLElement>(css: string) => c.querySelector<E>(css) };
}

describe("audience segment form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.audienceUploads.mockReturnValue(ok(uploads));
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
    commands.uploadAudienceData.mockReturnValue(ok({ target: posted.target, errors: [] }));
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
    expect(commands.uploadAudienceData).toHaveBeenCalledWith(posted.target, { countryCode: "CA", values: ["a1", "b2", "c3"] });
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
    expect(commands.validate).toHaveBeenLastCalledWith({ kind: "audience_data", value: { countryCode: "US", values: ["x", "y"] } }, posted.target, true);
    expect(q('[data-error-for="values"]')?.textContent).toContain("is not a SHA-256 hash");
  });
});

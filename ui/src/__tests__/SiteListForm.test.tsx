import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SiteListRow } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, SIGNED_IN, tableOf } from "../test/fakeBindings";
import { SiteListForm } from "../forms/SiteListForm";
import { App } from "../App";
import { AppProvider } from "../state/app";

const idList: SiteListRow = {
  target: { kind: "site_list", key: { type: "id", value: 55 } },
  parent: null,
  parentLabel: null,
  timezone: null,
  label: "Premium sites",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 55, name: "Premium sites", typeId: 5, siteIds: [101, 102, 103], insertedCount: 3 },
};
const ruleList: SiteListRow = {
  target: { kind: "site_list", key: { type: "id", value: 56 } },
  parent: null,
  parentLabel: null,
  timezone: null,
  label: "News domains",
  marker: null,
  pending: false,
  readOnly: null,
  value: { id: 56, name: "News domains", typeId: 1, strategy: "precise", rules: [{ name: "news.test", type: "web" }, { name: "com.news.app", type: "app" }] },
};

async function flush(ms = 50) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe("site lists", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
  });

  it("remove sites sends the name the service requires, with the ids", async () => {
    // The model's rules need a name on every site-list call.
    commands.requiredFields.mockImplementation((_draft, _create, paths) => Promise.resolve(paths.filter((p) => p === "name")));
    const { container } = render(
      <AppProvider initial={SIGNED_IN}>
        <SiteListForm row={idList} />
      </AppProvider>,
    );
    await flush();
    const form = container.querySelector('form[data-form="site_list"]')!;
    // What the list holds now is shown.
    expect(container.querySelector('[data-testid="site-list-current"] h3')?.textContent).toBe("Current site ids (3)");
    expect(container.querySelector('[data-testid="site-list-ids"]')?.textContent).toBe("101, 102, 103");

    fireEvent.change(form.querySelector('select[name="op"]')!, { target: { value: "remove" } });
    const name = form.querySelector<HTMLInputElement>('input[name="name"]')!;
    expect(name).not.toBeNull();
    expect(name.value).toBe("Premium sites");
    await flush(400);
    expect(name.getAttribute("aria-required")).toBe("true");
    fireEvent.change(name, { target: { value: "Premium sites (trimmed)" } });
    fireEvent.change(form.querySelector('textarea[name="siteIds"]')!, { target: { value: "102" } });
    await flush(400);
    expect(commands.validate).toHaveBeenLastCalledWith(idList.target, null, {
      kind: "site_list",
      op: "remove",
      value: expect.objectContaining({ name: "Premium sites (trimmed)", siteIds: [102] }),
    });
    await act(async () => {
      fireEvent.click(form.querySelector('[data-action="save"]')!);
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(commands.save).toHaveBeenCalledWith(idList.target, null, { kind: "site_list", op: "remove", value: expect.objectContaining({ id: 55, name: "Premium sites (trimmed)", siteIds: [102] }) });
  });

  it("shows each list's current sites or rules in the table", async () => {
    commands.querySiteLists.mockImplementation(tableOf([idList, ruleList]));
    const { container } = render(<App />);
    await flush();
    fireEvent.click(container.querySelector('[data-nav="site_lists"]')!);
    await flush();
    const row = (label: string) => [...container.querySelectorAll('[data-table="site_list"] [data-row]')].find((r) => r.textContent?.includes(label));
    const ids = row("Premium sites");
    const rules = row("News domains");
    expect(ids?.textContent).toContain("101, 102, 103");
    expect(rules?.textContent).toContain("news.test, com.news.app");
    const count = (r: Element | undefined) => r?.querySelector('[data-col="count"]')?.textContent;
    expect(count(ids)).toBe("3");
    expect(count(rules)).toBe("2");
  });
});

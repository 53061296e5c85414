import { act, fireEvent, render } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { type PaletteItem, PaletteView } from "../components/Palette";
import { fuzzyFilter, fuzzyScore } from "../util/fuzzy";

function items(run = vi.fn()): PaletteItem[] {
  return [
    { id: "go:advertisers", group: "Go to", label: "Advertisers", run },
    { id: "go:campaigns", group: "Go to", label: "Campaigns", run },
    { id: "go:pending", group: "Go to", label: "Pending changes", run },
    { id: "action:post", group: "Action", label: "Post 3 changes", run },
    { id: "action:download", group: "Action", label: "Download from the service", run },
    { id: "c1", group: "Campaign", label: "Spring sale 2030", run },
    { id: "c2", group: "Campaign", label: "Summer splash", run },
    { id: "a1", group: "Advertiser", label: "Acme Outdoor", run },
  ];
}

const labels = (c: HTMLElement) => [...c.querySelectorAll("[data-palette-item]")].map((li) => li.getAttribute("data-palette-item"));

describe("palette", () => {
  it("filters by fuzzy match across screens, actions and items", async () => {
    const { container } = render(<PaletteView items={items()} onClose={() => undefined} />);
    expect(container.querySelector("[data-palette]")).not.toBeNull();
    expect(labels(container).length).toBe(8);
    const input = container.querySelector<HTMLInputElement>("input[data-palette-input]")!;
    await act(async () => {
      fireEvent.change(input, { target: { value: "sprsal" } });
    });
    expect(labels(container)).toEqual(["Spring sale 2030"]);
    await act(async () => {
      fireEvent.change(input, { target: { value: "camp" } });
    });
    expect(labels(container)[0]).toBe("Campaigns");
    expect(labels(container)).toContain("Spring sale 2030");
    expect(labels(container)).not.toContain("Acme Outdoor");
  });

  it("runs the highlighted entry with Enter and closes", async () => {
    const run = vi.fn();
    const onClose = vi.fn();
    const { container } = render(<PaletteView items={items(run)} onClose={onClose} />);
    const input = container.querySelector<HTMLInputElement>("input[data-palette-input]")!;
    await act(async () => {
      fireEvent.change(input, { target: { value: "download" } });
    });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onClose).toHaveBeenCalled();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("closes on Escape", () => {
    const onClose = vi.fn();
    const { container } = render(<PaletteView items={items()} onClose={onClose} />);
    fireEvent.keyDown(container.querySelector("input[data-palette-input]")!, { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
  });
});

describe("fuzzy", () => {
  it("matches subsequences and ranks direct hits first", () => {
    expect(fuzzyScore("acm", "Acme Outdoor")).not.toBeNull();
    expect(fuzzyScore("xyz", "Acme Outdoor")).toBeNull();
    const ranked = fuzzyFilter(["Pending changes", "Post 3 changes", "Campaigns"], "post", (s) => s);
    expect(ranked[0]).toBe("Post 3 changes");
  });

  it("finds the exact entity among 100,000 names and caps the list", () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `Ad order ${i}`);
    const out = fuzzyFilter(names, "order 99999", (s) => s, 10);
    expect(out[0]).toBe("Ad order 99999");
    expect(out.length).toBeLessThanOrEqual(10);
  });
});

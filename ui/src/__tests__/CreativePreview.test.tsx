import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, ok } from "../test/fakeBindings";
import { CreativePreview } from "../preview/CreativePreview";
import type { Creative, Ok } from "../api/types";

type Preview = Ok<typeof commands.previewCreative>;

const TAG = '<script src="http://ads.example.com/tag.js"></script><img src="https://cdn.example.com/a.png"><b>Ad</b>';
const creative: Creative = { name: "Tag", creativeType: "BANNER", creativeSubtype: "TAG", size: { width: 728, height: 90 }, htmlAsset: TAG };
const DOCUMENT = `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'">${TAG}`;
const TAG_PREVIEW: Preview = {
  declared: { width: 728, height: 90 },
  frame: { width: 728, height: 90 },
  content: { kind: "html", document: DOCUMENT },
  resources: [
    { url: "http://ads.example.com/tag.js", element: "script", attribute: "src", transport: "http", line: 1 },
    { url: "https://cdn.example.com/a.png", element: "img", attribute: "src", transport: "https", line: 1 },
  ],
  live: true,
};

/** Every URL the component's own DOM would fetch (the frame's srcdoc aside). */
function fetchedUrls(root: HTMLElement): string[] {
  return [...root.querySelectorAll("[src], link[href], [srcset], [poster]")].flatMap((e) => ["src", "href", "srcset", "poster"].map((a) => e.getAttribute(a) ?? "").filter(Boolean));
}

async function shown(c: Creative = creative) {
  const view = render(<CreativePreview creative={c} />);
  await screen.findByText(/Declared|No size declared/);
  return view;
}

describe("CreativePreview", () => {
  beforeEach(() => {
    commands.previewCreative.mockImplementation(() => Promise.resolve(TAG_PREVIEW));
    commands.renderLive.mockImplementation(() => ok("fdpreview://localhost/abc123"));
  });

  it("shows a tag offline in a script-less frame, at its size, loading nothing remote", async () => {
    const { container } = await shown();
    expect(commands.previewCreative).toHaveBeenCalledWith(creative);
    const frame = container.querySelector("iframe[data-preview-frame]");
    expect(frame?.getAttribute("sandbox")).toBe("");
    expect(frame?.getAttribute("data-mode")).toBe("offline");
    expect(frame?.getAttribute("srcdoc")).toBe(DOCUMENT);
    expect(frame?.getAttribute("width")).toBe("728");
    expect(frame?.getAttribute("height")).toBe("90");
    expect(fetchedUrls(container)).toEqual([]);
    const http = container.querySelector('[data-preview-resources] tr[data-transport="http"]');
    expect(http?.textContent).toContain("http://ads.example.com/tag.js");
    expect(http?.textContent).toContain("<script src>");
    expect(container.querySelectorAll("[data-preview-resources] tr")).toHaveLength(2);
  });

  it("renders live only on a click, in a frame with scripts and nothing else", async () => {
    const { container } = await shown();
    expect(commands.renderLive).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Render live" }));
      await Promise.resolve();
    });
    expect(commands.renderLive).toHaveBeenCalledWith(creative);
    const frame = container.querySelector("iframe[data-preview-frame]");
    expect(frame?.getAttribute("data-mode")).toBe("live");
    expect(frame?.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame?.getAttribute("sandbox")).not.toMatch(/same-origin|popups|top-navigation/);
    expect(frame?.getAttribute("src")).toBe("fdpreview://localhost/abc123");
    expect(frame?.hasAttribute("srcdoc")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Back to offline" }));
    expect(container.querySelector("iframe[data-preview-frame]")?.getAttribute("sandbox")).toBe("");
  });

  it("shows what its own live frame posts, as text only, and ignores other windows", async () => {
    const { container } = await shown();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Render live" }));
      await Promise.resolve();
    });
    const frame = container.querySelector<HTMLIFrameElement>("iframe[data-preview-frame]");
    act(() => {
      window.dispatchEvent(new MessageEvent("message", { data: "<img src=x onerror=alert(1)>from elsewhere", source: window }));
      window.dispatchEvent(new MessageEvent("message", { data: { top: "blocked", html: "<b>x</b>" }, source: frame?.contentWindow ?? null }));
    });
    const report = container.querySelector("[data-preview-report]");
    expect(report?.textContent).toBe('{"top":"blocked","html":"<b>x</b>"}');
    expect(report?.querySelector("*")).toBeNull();
    expect(container.textContent).not.toContain("from elsewhere");
  });

  it("does not load a remote image offline, and compares an inline one's real size", async () => {
    commands.previewCreative.mockImplementation(() =>
      Promise.resolve({ ...TAG_PREVIEW, declared: { width: 300, height: 250 }, frame: { width: 300, height: 250 }, content: { kind: "image", url: "https://cdn.example.com/x.png", inline: false }, resources: [] }),
    );
    const remote = await shown({ imageUrl: "https://cdn.example.com/x.png" });
    expect(fetchedUrls(remote.container)).toEqual([]);
    expect(remote.container.textContent).toContain("loads only when rendered live");
    remote.unmount();

    const data = "data:image/png;base64,AA";
    commands.previewCreative.mockImplementation(() => Promise.resolve({ ...TAG_PREVIEW, declared: { width: 300, height: 250 }, frame: { width: 300, height: 250 }, content: { kind: "image", url: data, inline: true }, resources: [] }));
    const inline = await shown({ imageUrl: data });
    const img = inline.container.querySelector<HTMLImageElement>("img[data-preview-image]");
    expect(img?.getAttribute("src")).toBe(data);
    Object.defineProperty(img, "naturalWidth", { value: 320 });
    Object.defineProperty(img, "naturalHeight", { value: 50 });
    fireEvent.load(img as HTMLImageElement);
    const real = inline.container.querySelector("[data-real-size]");
    expect(real?.textContent).toContain("real 320 × 50");
    expect(real?.getAttribute("data-size-match")).toBe("false");
  });
});

describe("CreativePreview of a remote image", () => {
  it("takes the real size a live frame measured, and shows it beside the declared one", async () => {
    commands.previewCreative.mockImplementation(() =>
      Promise.resolve({ ...TAG_PREVIEW, declared: { width: 300, height: 250 }, frame: { width: 300, height: 250 }, content: { kind: "image", url: "https://cdn.example.com/x.png", inline: false }, resources: [] }),
    );
    commands.renderLive.mockImplementation(() => ok("fdpreview://localhost/img"));
    const { container } = await shown({ imageUrl: "https://cdn.example.com/x.png", size: { width: 300, height: 250 } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Render live" }));
      await Promise.resolve();
    });
    const frame = container.querySelector<HTMLIFrameElement>('iframe[data-mode="live"]');
    act(() => {
      window.dispatchEvent(new MessageEvent("message", { data: { flightdeckPreview: "image", width: 300, height: 250 }, source: frame?.contentWindow ?? null }));
    });
    const real = container.querySelector("[data-real-size]");
    expect(real?.textContent).toContain("real 300 × 250");
    expect(real?.getAttribute("data-size-match")).toBe("true");
    expect(container.querySelector("[data-preview-report]")?.textContent).toBe("");
  });
});

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

const tracker = (url: string, event: string | null = null) => ({ event, url, https: url.startsWith("https:"), line: 3 });
const media = (url: string, mimeType: string) => ({ url, mimeType, delivery: "progressive", width: 640, height: 360, bitrate: 800, https: url.startsWith("https:"), line: 9 });
const VAST_CREATIVE: Creative = { name: "Spot", creativeType: "VIDEO", creativeSubtype: "VASTXML", video: { vastXml: "<VAST version=\"4.2\">…</VAST>" } };
const VAST_PREVIEW: Preview = {
  declared: null,
  frame: { width: 300, height: 250 },
  content: {
    kind: "vast",
    path: "video.vastXml",
    element: "video",
    hint: null,
    summary: {
      root: "VAST",
      version: "4.2",
      error: null,
      ads: [
        {
          id: "a1",
          line: 2,
          kind: "InLine",
          adSystem: "S",
          adTitle: "T",
          wrapperUri: null,
          impressions: [tracker("https://t.example/imp")],
          errors: [tracker("https://t.example/err")],
          creatives: [
            {
              id: "c1",
              line: 5,
              companions: 0,
              nonLinears: 0,
              linear: {
                line: 5,
                duration: "00:00:15",
                durationMs: 15000,
                skipOffset: "00:00:05",
                mediaFiles: [media("https://cdn.example/a.mp4", "video/mp4"), media("https://cdn.example/b.webm", "video/webm"), media("http://cdn.example/c.mp4", "video/mp4")],
                tracking: [tracker("https://t.example/start", "start")],
                clickThrough: tracker("https://landing.example/"),
                clickTracking: [tracker("https://t.example/click")],
              },
            },
          ],
        },
      ],
    },
  },
  resources: [],
  live: true,
};

describe("CreativePreview of a VAST creative", () => {
  beforeEach(() => {
    commands.previewCreative.mockImplementation(() => Promise.resolve(VAST_PREVIEW));
    commands.renderMedia.mockReset();
    commands.renderMedia.mockImplementation((_c, url) => ok(`fdpreview://localhost/${url.endsWith("a.mp4") ? "aaa" : "bbb"}`));
    commands.renderLive.mockClear();
  });

  it("shows the core's tree: Ad, InLine, Creative, Linear, media files and trackers as text", async () => {
    const { container } = await shown(VAST_CREATIVE);
    const node = (n: string) => [...container.querySelectorAll(`[data-vast-node="${n}"]`)];
    expect(node("ad")).toHaveLength(1);
    expect(node("inline")).toHaveLength(1);
    expect(node("wrapper")).toHaveLength(0);
    expect(node("creative")).toHaveLength(1);
    expect(node("linear")[0]?.textContent).toContain("duration 00:00:15, skippable after 00:00:05");
    // Nested as the document is: each media file sits under its Linear, under its Ad.
    expect(container.querySelector('[data-vast-node="ad"] [data-vast-node="inline"] [data-vast-node="creative"] [data-vast-node="linear"] [data-vast-node="media-files"] [data-vast-node="media-file"]')).not.toBeNull();
    const files = node("media-file");
    expect(files.map((f) => f.getAttribute("data-https"))).toEqual(["true", "true", "false"]);
    expect(files[2]?.textContent).toContain("not played: http");
    expect(files[2]?.querySelector("button")).toBeNull();
    // Trackers of every kind, listed as text, inside the tree.
    const trackers = node("tracker").map((t) => t.textContent);
    for (const url of ["https://t.example/imp", "https://t.example/err", "https://t.example/start", "https://t.example/click"]) {
      expect(trackers.some((t) => t?.includes(url))).toBe(true);
    }
    expect(node("click-through")[0]?.textContent).toContain("https://landing.example/");
    // Nothing in the page fetches: no media element, no tracker pixel, no frame offline.
    expect(container.querySelector("video, audio, iframe, img")).toBeNull();
    expect(fetchedUrls(container)).toEqual([]);
    expect(commands.renderMedia).not.toHaveBeenCalled();
  });

  it("plays the chosen https media file only live, in the sandboxed frame, never in the page", async () => {
    const { container } = await shown(VAST_CREATIVE);
    const choose = () => container.querySelectorAll<HTMLButtonElement>('[data-vast-node="media-file"] button[data-action="choose-media"]');
    // Offline, a choice is only marked: nothing is asked for.
    expect(choose()[0]?.getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(choose()[1] as HTMLButtonElement);
    expect(choose()[1]?.getAttribute("aria-pressed")).toBe("true");
    expect(container.querySelector('[data-vast-node="media-file"][data-chosen="true"]')?.textContent).toContain("b.webm");
    expect(commands.renderMedia).not.toHaveBeenCalled();
    expect(container.querySelector("iframe")).toBeNull();

    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Render live" }));
      await Promise.resolve();
    });
    expect(commands.renderMedia).toHaveBeenCalledWith(VAST_CREATIVE, "https://cdn.example/b.webm");
    expect(commands.renderLive).not.toHaveBeenCalled();
    const frame = () => container.querySelector("iframe[data-preview-frame]");
    expect(frame()?.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame()?.getAttribute("src")).toBe("fdpreview://localhost/bbb");

    // Choosing another file while live plays it in a new frame document.
    await act(async () => {
      fireEvent.click(choose()[0] as HTMLButtonElement);
      await Promise.resolve();
    });
    expect(commands.renderMedia).toHaveBeenLastCalledWith(VAST_CREATIVE, "https://cdn.example/a.mp4");
    expect(frame()?.getAttribute("src")).toBe("fdpreview://localhost/aaa");
    // The page itself never holds the player, nor a tracker's URL as something to load.
    expect(container.querySelector("video, audio, img")).toBeNull();
    expect(fetchedUrls(container)).toEqual(["fdpreview://localhost/aaa"]);
  });

  it("shows an empty tree with the Fetch and check hint for a VAST URL without XML", async () => {
    const hint = 'A VAST URL: nothing is fetched for a preview. Use "Fetch and check" beside the VAST URL field in the creative form to read its documents.';
    commands.previewCreative.mockImplementation(() => Promise.resolve({ ...VAST_PREVIEW, content: { kind: "vast", path: "video.vastUrl", element: "video", summary: null, hint }, live: false }));
    const { container } = await shown({ video: { vastUrl: "https://ads.example/vast.xml" } });
    expect(container.querySelector("[data-vast-tree][data-vast-empty]")).not.toBeNull();
    expect(container.querySelectorAll("[data-vast-node]")).toHaveLength(0);
    expect(container.querySelector("[data-vast-hint]")?.textContent).toContain("Fetch and check");
    expect(screen.getByRole("button", { name: "Render live" })).toHaveProperty("disabled", true);
  });
});

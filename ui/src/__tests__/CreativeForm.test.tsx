import { act, fireEvent, render } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { MatrixCell } from "../api/types";

vi.mock("../bindings", async () => await import("../test/fakeBindings"));

import { commands, SIGNED_IN } from "../test/fakeBindings";
import { CreativeForm } from "../forms/CreativeForm";
import { AppProvider } from "../state/app";

const MATRIX: MatrixCell[] = [
  { creativeType: "BANNER", creativeSubtype: "TAG", required: ["size", "htmlAsset"], optional: [], mediaTypes: ["BANNER", "MRAID"] },
  { creativeType: "BANNER", creativeSubtype: "HOSTED", required: ["imageUrl", "landingPageUrl"], optional: [], mediaTypes: ["BANNER", "MRAID"] },
  { creativeType: "VIDEO", creativeSubtype: "VASTURL", required: ["video.vastUrl"], optional: [], mediaTypes: ["VAST", "VPAID"] },
  { creativeType: "AUDIO", creativeSubtype: "HOSTED", required: ["audio.mediaUrls", "landingPageUrl"], optional: ["audio.daast"], mediaTypes: ["AUDIO"] },
  {
    creativeType: "NATIVE",
    creativeSubtype: "IMAGE",
    required: ["native.headline", "native.caption", "native.sponsoredBy", "native.imageUrl", "native.imageIcon"],
    optional: [],
    mediaTypes: ["NATIVE"],
  },
];

const ALL_TYPE_SPECIFIC = ["htmlAsset", "imageUrl", "landingPageUrl", "video.vastUrl", "audio.mediaUrls", "audio.daast", "native.headline", "native.imageIcon", "size.width"];

async function setup() {
  const view = render(
    <AppProvider initial={SIGNED_IN}>
      <CreativeForm />
    </AppProvider>,
  );
  await act(async () => {
    await vi.advanceTimersByTimeAsync(50);
  });
  const form = view.container.querySelector('form[data-form="creative"]')!;
  const select = (name: string) => form.querySelector<HTMLSelectElement>(`select[name="${name}"]`)!;
  const has = (name: string) => form.querySelector(`[name="${name}"]`) !== null || form.querySelector(`[data-error-slot="${name}"]`) !== null;
  const shown = () => ALL_TYPE_SPECIFIC.filter(has);
  return { form, select, has, shown };
}

describe("creative form", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    commands.creativeMatrix.mockResolvedValue(MATRIX);
  });

  it("offers only pairs of the matrix and shows only the chosen cell's fields", async () => {
    const { select, shown, form } = await setup();
    const typeOptions = [...select("creativeType").options].map((o) => o.value).filter(Boolean);
    expect(typeOptions).toEqual(["BANNER", "VIDEO", "AUDIO", "NATIVE"]);
    expect(shown()).toEqual([]);

    fireEvent.change(select("creativeType"), { target: { value: "NATIVE" } });
    expect([...select("creativeSubtype").options].map((o) => o.value).filter(Boolean)).toEqual(["IMAGE"]);
    expect(select("creativeSubtype").value).toBe("IMAGE");
    expect(shown()).toEqual(["native.headline", "native.imageIcon"]);
    expect(form.querySelector('[name="native.caption"]')).not.toBeNull();
    // Required cell fields are marked.
    const headline = form.querySelector('[name="native.headline"]')!;
    expect(headline.getAttribute("aria-required")).toBe("true");
    expect(select("type.mediaType").value).toBe("NATIVE");

    fireEvent.change(select("creativeType"), { target: { value: "BANNER" } });
    expect([...select("creativeSubtype").options].map((o) => o.value).filter(Boolean)).toEqual(["TAG", "HOSTED"]);
    fireEvent.change(select("creativeSubtype"), { target: { value: "HOSTED" } });
    expect(shown()).toEqual(["imageUrl", "landingPageUrl"]);

    fireEvent.change(select("creativeSubtype"), { target: { value: "TAG" } });
    expect(shown()).toEqual(["htmlAsset", "size.width"]);
    expect(select("type.mediaType").value).toBe("BANNER");

    fireEvent.change(select("creativeType"), { target: { value: "AUDIO" } });
    expect(shown()).toEqual(["landingPageUrl", "audio.mediaUrls", "audio.daast"]);
  });

  it("drops the fields of the previous cell from the draft", async () => {
    const { select, form } = await setup();
    fireEvent.change(select("creativeType"), { target: { value: "NATIVE" } });
    fireEvent.change(form.querySelector('[name="native.headline"]')!, { target: { value: "Hello" } });
    fireEvent.change(select("creativeType"), { target: { value: "VIDEO" } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(400);
    });
    const last = commands.validate.mock.calls.at(-1)?.[0];
    expect(last?.kind).toBe("creative");
    if (last?.kind === "creative") {
      expect(last.value.creativeType).toBe("VIDEO");
      expect(last.value.creativeSubtype).toBe("VASTURL");
      expect(last.value.native ?? null).toBeNull();
      expect(last.value.type?.mediaType).toBe("VAST");
    }
  });
});

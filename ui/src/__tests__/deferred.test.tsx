import { Suspense } from "react";
import { act, render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { deferred, preloadDeferred } from "../util/deferred";

function Part({ text }: { text: string }) {
  return <p data-part="">{text}</p>;
}

describe("deferred parts", () => {
  it("shows the fallback until the module loads, then the part, and mounts it at once afterwards", async () => {
    let resolve: (c: typeof Part) => void = () => {};
    const Late = deferred(() => new Promise<typeof Part>((r) => (resolve = r)));
    const first = render(
      <Suspense fallback={<p data-loading="">loading</p>}>
        <Late text="hello" />
      </Suspense>,
    );
    expect(first.container.querySelector("[data-loading]")).not.toBeNull();
    expect(first.container.querySelector("[data-part]")).toBeNull();
    await act(async () => {
      resolve(Part);
      await preloadDeferred();
    });
    expect(first.container.querySelector("[data-part]")?.textContent).toBe("hello");
    first.unmount();

    const second = render(
      <Suspense fallback={<p data-loading="">loading</p>}>
        <Late text="again" />
      </Suspense>,
    );
    expect(second.container.querySelector("[data-loading]")).toBeNull();
    expect(second.container.querySelector("[data-part]")?.textContent).toBe("again");
  });
});

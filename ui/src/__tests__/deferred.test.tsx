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

  it("preloads the parts a deferred module declares in its turn, so they mount at once too", async () => {
    let Inner: ((props: { text: string }) => React.JSX.Element) | null = null;
    // A screen module that, once loaded, declares a deferred part of its own.
    deferred(() =>
      Promise.resolve().then(() => {
        Inner = deferred(() => Promise.resolve(Part));
        return Part;
      }),
    );
    await preloadDeferred();
    expect(Inner).not.toBeNull();
    const Nested = Inner as unknown as (props: { text: string }) => React.JSX.Element;
    const shown = render(
      <Suspense fallback={<p data-loading="">loading</p>}>
        <Nested text="nested" />
      </Suspense>,
    );
    expect(shown.container.querySelector("[data-loading]")).toBeNull();
    expect(shown.container.querySelector("[data-part]")?.textContent).toBe("nested");
  });
});

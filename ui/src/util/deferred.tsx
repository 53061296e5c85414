/**
 * Parts of the app loaded after the start: their modules are left out of the first
 * bundle, so a cold start evaluates and lays out less, and are fetched when first
 * rendered (or by `preloadDeferred`).
 *
 * Unlike a bare `React.lazy`, a part whose module has already loaded renders at once,
 * without suspending for a microtask: an instance keeps the component it started with,
 * so nothing mounts twice.
 */
import { type FunctionComponent, type JSX, createElement, lazy, useState } from "react";

const loaders: (() => Promise<unknown>)[] = [];

/**
 * Loads every deferred part now (tests, and idle time after the first frame), including
 * the parts a deferred module declares in its turn (the screens' own deferred parts): it
 * waits until loading adds no new one. Without that, a nested part was still fetched on
 * first render, and a test that settled for a fixed time could miss it.
 */
export async function preloadDeferred(): Promise<void> {
  let done = 0;
  while (done < loaders.length) {
    const batch = loaders.slice(done);
    done = loaders.length;
    await Promise.all(batch.map((l) => l()));
  }
}

/** A function component of a module loaded on first use. Render it under a `Suspense`. */
export function deferred<P extends object>(load: () => Promise<FunctionComponent<P>>): (props: P) => JSX.Element {
  let loaded: FunctionComponent<P> | null = null;
  let pending: Promise<FunctionComponent<P>> | null = null;
  const fetch = (): Promise<FunctionComponent<P>> => {
    pending ??= load().then((c) => (loaded = c));
    return pending;
  };
  loaders.push(fetch);
  // React types a lazy component's props through refs, which a plain function
  // component's props are not: it renders the loaded component with the same props.
  const Lazy = lazy(() => fetch().then((c) => ({ default: c }))) as unknown as FunctionComponent<P>;
  return function Deferred(props: P) {
    const [Part] = useState<FunctionComponent<P>>(() => loaded ?? Lazy);
    return createElement(Part, props);
  };
}

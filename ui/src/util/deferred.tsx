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

/** Loads every deferred part now (tests, and idle time after the first frame). */
export function preloadDeferred(): Promise<void> {
  return Promise.all(loaders.map((l) => l())).then(() => undefined);
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

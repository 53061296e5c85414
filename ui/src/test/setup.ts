// jsdom lays nothing out: give the table's scroll area a size so the table
// renders one screenful, as it does in the app.
Object.defineProperty(HTMLElement.prototype, "clientHeight", {
  configurable: true,
  get(this: HTMLElement) {
    return this.classList.contains("dt-scroll") ? 600 : 0;
  },
});
Object.defineProperty(HTMLElement.prototype, "clientWidth", {
  configurable: true,
  get(this: HTMLElement) {
    return this.classList.contains("dt-scroll") ? 1000 : 0;
  },
});
// A table with expandable rows measures each row's tbody (its offsetHeight): give every
// table row the height it has in the app, as jsdom would say 0 and the table would
// then take every row for visible.
Object.defineProperty(HTMLTableSectionElement.prototype, "offsetHeight", {
  configurable: true,
  get(this: HTMLTableSectionElement) {
    return this.closest(".dt-scroll") ? 26 * this.rows.length : 0;
  },
});

import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";
import { preloadDeferred } from "../util/deferred";

afterEach(() => cleanup());
// The parts the app loads after its first frame (util/deferred) are loaded before each
// file's tests, so those render them at once as the app does once they have loaded;
// deferred.test.tsx covers a part rendered before its module has loaded.
beforeAll(() => preloadDeferred());

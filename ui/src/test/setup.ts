// jsdom lays nothing out: give the table's scroll area a size so the virtualizer
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

import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());

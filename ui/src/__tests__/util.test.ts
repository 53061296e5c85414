import { describe, expect, it } from "vitest";
import { appendAt, getPath, parsePath, removeAt, setPath } from "../util/path";
import { fromLocalInput, toLocalInput } from "../util/time";
import { parseRef, refKey } from "../util/refs";

describe("wire paths", () => {
  it("parse, read and write nested paths", () => {
    expect(parsePath("audiences[0].exchanges.include")).toEqual(["audiences", 0, "exchanges", "include"]);
    expect(parsePath("[2].maxBudget")).toEqual([2, "maxBudget"]);
    const v = setPath({ name: "x" }, "flights[1].startDate", 5);
    expect(v).toEqual({ name: "x", flights: [null, { startDate: 5 }] });
    expect(getPath(v, "flights[1].startDate")).toBe(5);
    expect(removeAt({ flights: [1, 2, 3] }, "flights", 1)).toEqual({ flights: [1, 3] });
    expect(appendAt([{ a: 1 }], "", { a: 2 })).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it("leave the original untouched", () => {
    const orig = { frequencyCap: { limit: 1 } };
    const next = setPath(orig, "frequencyCap.duration", 2);
    expect(orig).toEqual({ frequencyCap: { limit: 1 } });
    expect(next).toEqual({ frequencyCap: { limit: 1, duration: 2 } });
  });
});

describe("dates in the advertiser's timezone", () => {
  it("show Unix ms as wall-clock time in the zone and read it back", () => {
    const ms = Date.UTC(2030, 0, 15, 17, 30); // 12:30 in New York (EST)
    expect(toLocalInput(ms, "America/New_York")).toBe("2030-01-15T12:30");
    expect(fromLocalInput("2030-01-15T12:30", "America/New_York")).toBe(ms);
    const summer = Date.UTC(2030, 6, 1, 7, 0); // 00:00 in Los Angeles (PDT)
    expect(toLocalInput(summer, "America/Los_Angeles")).toBe("2030-07-01T00:00");
    expect(fromLocalInput("2030-07-01T00:00", "America/Los_Angeles")).toBe(summer);
    expect(fromLocalInput("2030-07-01T00:00", "UTC")).toBe(Date.UTC(2030, 6, 1));
    expect(toLocalInput(null, "UTC")).toBe("");
  });
});

describe("entity refs", () => {
  it("round-trip through their canonical JSON", () => {
    const r = { kind: "campaign" as const, key: { type: "local" as const, value: "abc" } };
    expect(parseRef(refKey(r))).toEqual(r);
    expect(parseRef("")).toBeNull();
    expect(parseRef("{bad")).toBeNull();
  });
});

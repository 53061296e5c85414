import { describe, expect, it } from "vitest";
import { call } from "../api/call";

describe("call", () => {
  it("turns a command Tauri could not run (plain-text error) into a message, not a crash", async () => {
    const failed = Promise.resolve({ status: "error" as const, error: "invalid args `options` for command `duplicate_many`" });
    // The bindings type the error as AppError; Tauri's own argument errors arrive as text.
    const r = await call(failed as unknown as Promise<{ status: "error"; error: { code: "state"; message: string; fieldErrors: [] } }>, { quiet: true });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("client");
      expect(r.error.message).toContain("invalid args");
      expect(r.error.fieldErrors).toEqual([]);
    }
  });
});

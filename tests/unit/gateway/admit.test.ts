// Stage "admit": a no-op today with the final shape — async, a typed refusal, release once.
import { describe, expect, it } from "vitest";
import { createAdmission, releaseOnce } from "../../../main/gateway/pipeline/admit.js";
import { connection, provider } from "./fixtures.js";

describe("admit", () => {
  it("admits at once with a release handle", async () => {
    const admission = await createAdmission().admit({ provider: provider(), connection: connection(), model: "m", signal: new AbortController().signal });
    expect(admission.admitted).toBe(true);
    if (admission.admitted) expect(() => admission.release()).not.toThrow();
  });

  it("releaseOnce frees what was acquired exactly once, however often it is called", () => {
    let freed = 0;
    const release = releaseOnce(() => freed++);
    release();
    release();
    expect(freed).toBe(1);
  });
});

// Nested combos at save time (D11, API.md "Combos"): a target may name another combo; cycles,
// nesting deeper than 3 and names that are neither a combo nor provider/model are refused with a
// 400 invalid_request naming the field, by POST, PATCH and config import alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

describe("nested combos (D11)", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
    expect((await api.call("POST", "/api/providers", SIM_PROVIDER)).status).toBe(201);
    for (const [name, model] of [
      ["c3", "sim/m1"],
      ["c2", "c3"],
      ["c1", "c2"],
    ]) {
      expect((await api.call("POST", "/api/combos", { name, targets: [{ model }] })).status, name).toBe(201);
    }
  });
  afterAll(async () => {
    await api.close();
  });

  it("D11 a combo may name another combo up to 3 levels (c1 → c2 → c3 → sim/m1)", () => {
    expect(api.store.combos.get("c1")?.targets).toEqual([{ model: "c2" }]);
  });

  it("D11 a fourth level is refused with the target's field path", async () => {
    const res = await api.call("POST", "/api/combos", { name: "c0", targets: [{ model: "sim/m2" }, { model: "c1" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", path: "targets.1.model" });
    expect(res.body.error.message).toMatch(/3/);
    expect(api.store.combos.get("c0")).toBeNull();
  });

  it("D11 a PATCH that closes a cycle is refused and names the loop", async () => {
    const res = await api.call("PATCH", "/api/combos/c3", { targets: [{ model: "sim/m1" }, { model: "c1" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", path: "targets.1.model" });
    expect(res.body.error.message).toContain("c3 → c1 → c2 → c3");
    expect(api.store.combos.get("c3")?.targets).toEqual([{ model: "sim/m1" }]);
  });

  it("D11 a combo naming itself is a cycle", async () => {
    const res = await api.call("PATCH", "/api/combos/c2", { targets: [{ model: "c2" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", path: "targets.0.model" });
  });

  it("D11 a PATCH that would push a parent past 3 levels is refused too", async () => {
    expect((await api.call("POST", "/api/combos", { name: "leaf", targets: [{ model: "sim/m1" }] })).status).toBe(201);
    const res = await api.call("PATCH", "/api/combos/c3", { targets: [{ model: "leaf" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", path: "targets.0.model" });
  });

  it("D11 a name that is neither a combo nor provider/model is refused; a combo target cannot pin a connection", async () => {
    const unknown = await api.call("POST", "/api/combos", { name: "u1", targets: [{ model: "sim/m1" }, { model: "nosuchcombo" }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "invalid_request", path: "targets.1.model" });
    const pinned = await api.call("POST", "/api/combos", { name: "u2", targets: [{ model: "c3", connectionId: "x" }] });
    expect(pinned.status).toBe(400);
    expect(pinned.body.error).toMatchObject({ code: "invalid_request", path: "targets.0.connectionId" });
  });

  it("D11 config import checks nesting over the whole document, in any order, with the combo's path", async () => {
    const ok = await api.call("POST", "/api/config/import", {
      combos: [
        { name: "i1", targets: [{ model: "i2" }] },
        { name: "i2", targets: [{ model: "sim/m1" }] },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(api.store.combos.get("i1")?.targets).toEqual([{ model: "i2" }]);
    const cyclic = await api.call("POST", "/api/config/import", {
      combos: [
        { name: "j1", targets: [{ model: "j2" }] },
        { name: "j2", targets: [{ model: "j1" }] },
      ],
    });
    expect(cyclic.status).toBe(400);
    expect(cyclic.body.error).toMatchObject({ code: "invalid_request", path: "combos.0.targets.0.model" });
    expect(api.store.combos.get("j1")).toBeNull();
  });
});

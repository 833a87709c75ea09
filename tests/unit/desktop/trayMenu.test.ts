// R14.1: the tray icon follows provider health and the menu is built from pure state.
import { describe, expect, it } from "vitest";
import { breakersFromHealth, buildTrayMenuTemplate, TRAY_ICON_FILES, trayStateFromBreakers, trayStatusLine } from "../../../main/desktop/trayMenu.js";

describe("tray state", () => {
  it("R14.1 is healthy with no breakers or only CLOSED ones", () => {
    expect(trayStateFromBreakers({})).toEqual({ health: "healthy", openProviders: [], degradedProviders: [] });
    expect(trayStateFromBreakers({ a: "CLOSED", b: "CLOSED" }).health).toBe("healthy");
  });

  it("R14.1 is degraded when some breaker is DEGRADED and none is open", () => {
    expect(trayStateFromBreakers({ b: "DEGRADED", a: "CLOSED", c: "DEGRADED" })).toEqual({ health: "degraded", openProviders: [], degradedProviders: ["b", "c"] });
  });

  it("R14.1 shows 'open' when any provider is OPEN or HALF_OPEN, whatever the others are", () => {
    const state = trayStateFromBreakers({ z: "OPEN", a: "HALF_OPEN", d: "DEGRADED" });
    expect(state).toEqual({ health: "open", openProviders: ["a", "z"], degradedProviders: ["d"] });
    expect(trayStatusLine(state)).toBe("Circuit open: a, z");
  });

  it("R14.1 keeps the status line short with many providers", () => {
    const state = trayStateFromBreakers({ a: "OPEN", b: "OPEN", c: "OPEN", d: "OPEN", e: "OPEN" });
    expect(trayStatusLine(state)).toBe("Circuit open: a, b, c and 2 more");
  });

  it("R14.1 has one icon file per health state", () => {
    expect(Object.keys(TRAY_ICON_FILES).sort()).toEqual(["degraded", "healthy", "open"]);
  });
});

describe("buildTrayMenuTemplate", () => {
  it("R14.1 lists the status (disabled), Open dashboard and Quit", () => {
    const template = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "DEGRADED" }));
    expect(template).toEqual([
      { type: "normal", id: "status", label: "Degraded: sim", enabled: false },
      { type: "separator" },
      { type: "normal", id: "open-dashboard", label: "Open dashboard", enabled: true },
      { type: "separator" },
      { type: "normal", id: "quit", label: "Quit Switchyard", enabled: true },
    ]);
  });

  it("R14.1 reflects live state: the status line changes with the breakers", () => {
    const healthy = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "CLOSED" }));
    const open = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "OPEN" }));
    expect(healthy[0]).toMatchObject({ label: "All providers healthy" });
    expect(open[0]).toMatchObject({ label: "Circuit open: sim" });
  });
});

describe("breakersFromHealth", () => {
  it("R2.6 reads provider breaker states from monitoringHealth and ignores malformed entries", () => {
    const health = {
      ok: true,
      providerBreakers: [
        { provider: "a", state: "OPEN", failureCount: 2 },
        { provider: "b", state: "DEGRADED" },
        { provider: "c", state: "EXPLODED" },
        { state: "OPEN" },
        null,
      ],
    };
    expect(breakersFromHealth(health)).toEqual({ a: "OPEN", b: "DEGRADED" });
    expect(breakersFromHealth(null)).toEqual({});
    expect(breakersFromHealth({ providerBreakers: "nope" })).toEqual({});
  });
});

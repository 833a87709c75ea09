// Headless dashboard token handling (API.md), navigation and display rules of the renderer.
import { describe, expect, it, vi } from "vitest";
import { connectionStatus, formatRemaining } from "../../../renderer/src/format.js";
import { affectsProviders } from "../../../renderer/src/stores/liveEvents.js";
import { pageIdFromHash } from "../../../renderer/src/stores/navigation.js";
import { takeAdminToken, TOKEN_STORAGE_KEY, type TokenEnvironment } from "../../../renderer/src/token.js";

function env(hash: string, stored: string | null = null) {
  const storage = new Map<string, string>(stored === null ? [] : [[TOKEN_STORAGE_KEY, stored]]);
  const replaceState = vi.fn();
  const e: TokenEnvironment = {
    location: { hash, pathname: "/", search: "?lang=en" },
    storage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v), removeItem: (k) => void storage.delete(k) },
    history: { replaceState, state: null },
  };
  return { e, storage, replaceState };
}

describe("takeAdminToken", () => {
  it("API.md reads #token=, keeps it in sessionStorage and removes it from the address bar", () => {
    const { e, storage, replaceState } = env("#token=abc-123");
    expect(takeAdminToken(e)).toBe("abc-123");
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe("abc-123");
    expect(replaceState).toHaveBeenCalledWith(null, "", "/?lang=en");
  });

  it("API.md keeps other fragment parameters when removing the token", () => {
    const { e, replaceState } = env("#token=abc&view=1");
    expect(takeAdminToken(e)).toBe("abc");
    expect(replaceState).toHaveBeenCalledWith(null, "", "/?lang=en#view=1");
  });

  it("API.md later loads use the stored token; a new URL token replaces it", () => {
    expect(takeAdminToken(env("", "stored").e)).toBe("stored");
    expect(takeAdminToken(env("#/providers", "stored").e)).toBe("stored");
    const fresh = env("#token=new", "old");
    expect(takeAdminToken(fresh.e)).toBe("new");
    expect(fresh.storage.get(TOKEN_STORAGE_KEY)).toBe("new");
  });

  it("API.md without any token there is none (the page then asks for the Dashboard URL)", () => {
    const { e, replaceState } = env("");
    expect(takeAdminToken(e)).toBeNull();
    expect(replaceState).not.toHaveBeenCalled();
    expect(takeAdminToken(env("#token=").e)).toBeNull();
  });
});

describe("renderer rules", () => {
  it("R14.2 maps the fragment to a known page, else the default", () => {
    expect(pageIdFromHash("#/providers", ["providers", "combos"], "providers")).toBe("providers");
    expect(pageIdFromHash("#/combos/x", ["providers", "combos"], "providers")).toBe("combos");
    expect(pageIdFromHash("", ["providers"], "providers")).toBe("providers");
    expect(pageIdFromHash("#/nope", ["providers"], "providers")).toBe("providers");
  });

  it("R15.2 re-fetches providers on config, cooldown and breaker events only", () => {
    expect(affectsProviders({ type: "config", entity: "connection", id: "c", action: "created", at: 1 })).toBe(true);
    expect(affectsProviders({ type: "cooldown.set", connectionId: "c", provider: "p", until: 5, reason: "rate_limit", at: 1 })).toBe(true);
    expect(affectsProviders({ type: "cooldown.cleared", connectionId: "c", provider: "p", at: 1 })).toBe(true);
    expect(affectsProviders({ type: "breaker", provider: "p", from: "CLOSED", to: "OPEN", at: 1 })).toBe(true);
    expect(affectsProviders({ type: "settings", scope: "settings", at: 1 })).toBe(false);
  });

  it("R6 formats remaining cooldowns with at most two units, rounding up", () => {
    expect(formatRemaining(0)).toBe("0 s");
    expect(formatRemaining(400)).toBe("1 s");
    expect(formatRemaining(59_001)).toBe("1 min");
    expect(formatRemaining(200_000)).toBe("3 min 20 s");
    expect(formatRemaining(7_500_000)).toBe("2 h 5 min");
    expect(formatRemaining(3 * 86_400_000 + 4 * 3_600_000 + 5_000)).toBe("3 d 4 h");
  });

  it("R4.1 shows cooldown remaining only while rateLimitedUntil is in the future; terminal states win", () => {
    const base = { testStatus: "active" as const, rateLimitedUntil: null, active: true };
    expect(connectionStatus(base, 1_000)).toEqual({ label: "Active", tone: "ok", coolingMs: null });
    expect(connectionStatus({ ...base, rateLimitedUntil: 31_000 }, 1_000)).toEqual({ label: "Cooling down · 30 s left", tone: "warn", coolingMs: 30_000 });
    expect(connectionStatus({ ...base, rateLimitedUntil: 500 }, 1_000).tone).toBe("ok");
    expect(connectionStatus({ ...base, testStatus: "banned", rateLimitedUntil: 31_000 }, 1_000)).toMatchObject({ label: "Banned", tone: "bad" });
    expect(connectionStatus({ ...base, active: false }, 1_000)).toMatchObject({ label: "Active (disabled)", tone: "muted" });
  });
});

// R24.5: a login's account as the request path sees it takes the account row's own settings
// (active, priority, weight, budget, the usage-wall opt-ins with their organization) and everything
// else from its client-login connection; R24.1: only a vendor-shaped credential is read as a login.
import { describe, expect, it } from "vitest";
import { ACCOUNT_FIELDS, ACCOUNT_PROVIDER_DATA, accountView } from "../../../main/gateway/context/clientLogin.js";
import { optedIn } from "../../../main/gateway/features/usageWall/lane.js";
import { clientHalf } from "../../../main/gateway/formats/index.js";
import { readLogin } from "../../../main/gateway/formats/login.js";
import type { WireFormat } from "../../../shared/types.js";
import { connection } from "../engine/fixtures.js";

const template = connection({
  id: "max",
  credential: "client",
  priority: 0,
  weight: 1,
  active: true,
  maxConcurrent: 4,
  disableCooling: true,
  budget: { period: "month", maxCostUsd: 100 },
  providerSpecificData: { lowPriorityMode: true, organizationUUID: "org-template", egressIp: "127.0.0.2" },
});
const account = connection({
  id: "max~0123456789ab",
  name: "My Max · 012345",
  accountOf: "max",
  credential: "client",
  priority: 7,
  weight: 0,
  active: false,
  maxConcurrent: 1,
  disableCooling: false,
  budget: { period: "day", maxTokens: 10 },
  providerSpecificData: { autoLimitReset: true, organizationUUID: "org-account", egressIp: "127.0.0.9" },
});

describe("R24.5 accountView", () => {
  it("R24.5 the account's own settings act; the rest is its connection's", () => {
    const view = accountView(template, account);
    expect(view).toMatchObject({ id: account.id, name: account.name, accountOf: "max", active: false, priority: 7, weight: 0, budget: { period: "day", maxTokens: 10 } });
    expect(view).toMatchObject({ maxConcurrent: 4, disableCooling: true });
    expect(view.providerSpecificData).toEqual({ autoLimitReset: true, organizationUUID: "org-account", egressIp: "127.0.0.2" });
    expect(optedIn(view)).toEqual({ lane: false, reset: true });
  });

  it("R24.5 a connection switched off serves no login, whatever its accounts say", () => {
    expect(accountView({ ...template, active: false }, { ...account, active: true }).active).toBe(false);
    expect(accountView(template, { ...account, active: true }).active).toBe(true);
  });

  it("R24.5 the account fields are the per-account settings R24.5 names", () => {
    expect([...ACCOUNT_FIELDS].sort()).toEqual(["active", "budget", "priority", "providerSpecificData", "weight"]);
    expect([...ACCOUNT_PROVIDER_DATA].sort()).toEqual(["autoLimitReset", "lowPriorityMode", "organizationUUID"]);
  });
});

describe("R24.1 readLogin", () => {
  const read = (format: WireFormat, headers: Record<string, string>, query = "") => readLogin(clientHalf(format).login, headers, query, (v) => v.startsWith("sk-sy-"));
  const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";

  it("R24.1 a vendor-shaped credential is a login of its own format only", () => {
    expect(read("anthropic", { authorization: "Bearer sk-ant-oat01-abcdefghijklmnop" })?.subscription).toBe(true);
    expect(read("anthropic", { "x-api-key": "sk-ant-api03-abcdefghijklmnop" })?.subscription).toBe(false);
    expect(read("openai", { authorization: "Bearer sk-proj-abcdefghijklmnopqrstuvwxyz" })?.credential).toBe("sk-proj-abcdefghijklmnopqrstuvwxyz");
    expect(read("openai-responses", { authorization: `Bearer ${jwt}`, "chatgpt-account-id": "acct-1" })).toEqual({
      headers: { authorization: `Bearer ${jwt}`, "chatgpt-account-id": "acct-1" },
      credential: jwt,
      subscription: true,
    });
    expect(read("gemini", { "x-goog-api-key": "AIzaSyAbcdefghijklmnopqrstuvwxyz012345" })?.credential).toMatch(/^AIza/);
    expect(read("gemini", {}, "key=AIzaSyAbcdefghijklmnopqrstuvwxyz012345")?.headers).toEqual({ "x-goog-api-key": "AIzaSyAbcdefghijklmnopqrstuvwxyz012345" });
    expect(read("gemini", { authorization: "Bearer ya29.a0AfH6SMabcdefghij" })?.credential).toBe("ya29.a0AfH6SMabcdefghij");
  });

  it("R24.1 a placeholder, an empty value, a Switchyard key, a foreign or malformed credential is no login", () => {
    const values = ["switchyard", "dummy", "", "x", "sk-sy-0123456789abcdef0123456789", "not a key at all", "sk-ant-", "sk-short"];
    for (const value of values) {
      expect(read("anthropic", { authorization: `Bearer ${value}`, "x-api-key": value }), value).toBeNull();
      expect(read("openai", { authorization: `Bearer ${value}`, "chatgpt-account-id": "acct-1" }), value).toBeNull();
      expect(read("openai-responses", { authorization: `Bearer ${value}` }), value).toBeNull();
      expect(read("gemini", { authorization: `Bearer ${value}`, "x-goog-api-key": value }, `key=${value}`), value).toBeNull();
    }
    expect(read("openai", { authorization: "Bearer sk-ant-oat01-abcdefghijklmnopqrstuvwxyz" })).toBeNull();
    expect(read("openai-responses", { authorization: `Bearer ${jwt}` })).toBeNull();
    expect(read("anthropic", { authorization: "Bearer sk-proj-abcdefghijklmnopqrstuvwxyz" })).toBeNull();
    expect(read("gemini", { authorization: "Bearer AIzaSyAbcdefghijklmnopqrstuvwxyz012345" })).toBeNull();
    expect(read("gemini", { "x-goog-api-key": "ya29.a0AfH6SMabcdefghij" })).toBeNull();
  });
});

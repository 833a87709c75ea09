// API.md transport rules for /api: admin token, loopback Host, same-origin only, body cap,
// malformed bodies and unknown routes — all over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { isLoopbackHost } from "../../../main/api/index.js";
import { ADMIN_TOKEN, type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

describe("management API transport guards", () => {
  let api: ApiServer;
  let limit = 4096;

  beforeAll(async () => {
    api = await startApiServer({ bodyLimitBytes: () => limit });
  });
  afterAll(async () => {
    await api.close();
  });

  it("API.md every /api call without the admin token answers 401 unauthorized", async () => {
    const none = await request(`${api.url}/api/providers`);
    expect(none.statusCode).toBe(401);
    expect(await none.body.json()).toMatchObject({ error: { code: "unauthorized" } });

    const wrong = await api.call("GET", "/api/providers", undefined, { authorization: `Bearer ${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unauthorized");

    const notBearer = await api.call("GET", "/api/providers", undefined, { authorization: ADMIN_TOKEN });
    expect(notBearer.status).toBe(401);

    const unknownRoute = await request(`${api.url}/api/nowhere`);
    expect(unknownRoute.statusCode).toBe(401);
    await unknownRoute.body.dump();

    const ok = await api.call("GET", "/api/providers");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([]);
  });

  it("API.md a non-loopback Host header is refused with 403 before the body is read (DNS rebinding)", async () => {
    const res = await api.call("POST", "/api/providers", SIM_PROVIDER, { host: "evil.example" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden_host");
    expect(api.store.providers.list()).toEqual([]);

    const clientRoute = await api.call("GET", "/health", undefined, { host: `evil.example:${api.port}` });
    expect(clientRoute.status).toBe(403);

    for (const host of [`localhost:${api.port}`, `127.0.0.1:${api.port}`, `[::1]:${api.port}`, `app.localhost:${api.port}`]) {
      const allowed = await api.call("GET", "/api/settings", undefined, { host });
      expect(allowed.status, host).toBe(200);
    }
  });

  it("API.md Host check accepts only loopback names and addresses", () => {
    for (const ok of ["localhost", "localhost:8642", "127.0.0.1:1", "127.9.8.7", "[::1]:8642", "a.b.localhost", "LOCALHOST"]) {
      expect(isLoopbackHost(ok), ok).toBe(true);
    }
    for (const bad of [
      undefined,
      "",
      "evil.example",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "10.0.0.1",
      "[::2]",
      "127.0.0.1@evil.example",
      "evil.example#127.0.0.1",
      "0.0.0.0",
    ]) {
      expect(isLoopbackHost(bad), String(bad)).toBe(false);
    }
  });

  it("API.md cross-origin browser requests to /api are refused with 403 and no CORS header is ever sent", async () => {
    const cross = await api.call("GET", "/api/providers", undefined, { origin: "http://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe("forbidden_origin");
    expect(cross.headers["access-control-allow-origin"]).toBeUndefined();

    const otherLocalPort = await api.call("POST", "/api/providers", SIM_PROVIDER, { origin: "http://127.0.0.1:1" });
    expect(otherLocalPort.status).toBe(403);
    const nullOrigin = await api.call("GET", "/api/providers", undefined, { origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const preflight = await api.call("OPTIONS", "/api/providers", undefined, {
      origin: "http://evil.example",
      "access-control-request-method": "POST",
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect(api.store.providers.list()).toEqual([]);

    const same = await api.call("GET", "/api/providers", undefined, { origin: api.url });
    expect(same.status).toBe(200);
    expect(same.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("API.md a body over the limit answers 413 payload_too_large; the limit is read per request (R10.3)", async () => {
    const big = { ...SIM_PROVIDER, options: { padding: "x".repeat(8000) } };
    const tooBig = await api.call("POST", "/api/providers", big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("payload_too_large");
    expect(api.store.providers.list()).toEqual([]);

    limit = 64 * 1024;
    const fits = await api.call("POST", "/api/providers", big);
    expect(fits.status).toBe(201);
    expect((await api.call("DELETE", "/api/providers/sim")).status).toBe(200);
  });

  it("API.md malformed JSON, non-object bodies and non-JSON media types are 400/415 and save nothing", async () => {
    const malformed = await api.call("POST", "/api/providers", '{"id": "sim", ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_request");

    const array = await api.call("POST", "/api/providers", [SIM_PROVIDER]);
    expect(array.status).toBe(400);
    expect(array.body.error.code).toBe("invalid_request");

    const form = await api.call("POST", "/api/providers", "id=sim&format=openai", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe("unsupported_media_type");
    expect(api.store.providers.list()).toEqual([]);
  });

  it("API.md unknown /api paths answer a JSON 404, a known path with another verb 405", async () => {
    const missing = await api.call("GET", "/api/does-not-exist");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");

    const wrongVerb = await api.call("DELETE", "/api/providers");
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.allow).toContain("GET");
    expect(wrongVerb.body.error.code).toBe("method_not_allowed");

    // Routes the lead wires elsewhere (resilience, debug clock) are absent here: 404, not a crash.
    const absent = await api.call("GET", "/api/debug/clock");
    expect(absent.status).toBe(404);
  });

  it("API.md management responses are never cached", async () => {
    const res = await api.call("GET", "/api/settings");
    expect(res.headers["cache-control"]).toBe("no-store");
  });
});

// R0.1: the window's navigation rules and CSP; the CSP header equals the page's meta tag.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY, isAllowedPermission, isAppUrl, isExternalHttpUrl, withContentSecurityPolicy } from "../../../main/desktop/security.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("desktop security rules", () => {
  it("R0.1 the CSP sent by main is the one in renderer/index.html", () => {
    const html = readFileSync(`${root}/renderer/index.html`, "utf8");
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval/);
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("base-uri 'none'");
  });

  it("R0.1 grants the window only clipboard writing, and only for the app origin", () => {
    const origin = "http://127.0.0.1:8642";
    expect(isAllowedPermission("clipboard-sanitized-write", "http://127.0.0.1:8642/#/keys", origin)).toBe(true);
    expect(isAllowedPermission("clipboard-sanitized-write", origin, origin)).toBe(true);
    expect(isAllowedPermission("clipboard-sanitized-write", "https://evil.example/", origin)).toBe(false);
    for (const permission of ["clipboard-read", "notifications", "media", "geolocation", "openExternal", "fullscreen"]) {
      expect(isAllowedPermission(permission, origin, origin)).toBe(false);
    }
  });

  it("R0.1 allows navigation only within the app origin", () => {
    const origin = "http://127.0.0.1:8642";
    expect(isAppUrl("http://127.0.0.1:8642/#/providers", origin)).toBe(true);
    expect(isAppUrl("http://127.0.0.1:8642/other?x=1", origin)).toBe(true);
    for (const url of [
      "http://127.0.0.1:8643/",
      "https://127.0.0.1:8642/",
      "http://localhost:8642/",
      "https://example.com/",
      "file:///etc/hosts",
      "javascript:alert(1)",
      "data:text/html,hi",
      "garbage",
    ]) {
      expect(isAppUrl(url, origin)).toBe(false);
    }
  });

  it("R0.1 opens only http(s) links in the system browser", () => {
    expect(isExternalHttpUrl("https://docs.example.com/x")).toBe(true);
    expect(isExternalHttpUrl("http://example.com")).toBe(true);
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "smb://host/share", "ms-settings:", "nonsense"]) expect(isExternalHttpUrl(url)).toBe(false);
  });

  it("R0.1 replaces any CSP header the server sent, whatever its case", () => {
    const headers = withContentSecurityPolicy({ "content-security-policy": ["default-src *"], "Content-Type": ["text/html"] });
    expect(headers).toEqual({ "Content-Type": ["text/html"], "Content-Security-Policy": [CONTENT_SECURITY_POLICY] });
    expect(withContentSecurityPolicy(undefined)).toEqual({ "Content-Security-Policy": [CONTENT_SECURITY_POLICY] });
  });
});

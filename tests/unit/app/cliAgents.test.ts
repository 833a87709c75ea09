// The pure parts of `switchyard run` / `connect` (R23.2): which address an agent is pointed at,
// and the config edits (JSON with comments, dotenv, Codex's TOML provider block) that must keep
// everything of the user's they do not mean to change.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeInstanceFile } from "../../../main/app/instanceFile.js";
import { dotenvValue, parseJsonc, setDotenv, setTomlProvider } from "../../../main/cli/configText.js";
import { DEFAULT_URL, gatewayUrl, normaliseUrl } from "../../../main/cli/gateway.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the address run and connect use (API.md: CLI beside the server)", () => {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-cli-url-"));
  dirs.push(home);

  it("R23.2 --url, else SWITCHYARD_URL, else the home's running instance, else http://127.0.0.1:8642", () => {
    expect(gatewayUrl(undefined, home, {})).toBe(DEFAULT_URL);
    // A stale instance file (its process gone) is not a running instance.
    writeInstanceFile(home, { url: "http://127.0.0.1:9001", pid: 2 ** 22 + 12345, startedAt: 0, version: "x" });
    expect(gatewayUrl(undefined, home, {})).toBe(DEFAULT_URL);
    writeInstanceFile(home, { url: "http://127.0.0.1:9001", pid: process.pid, startedAt: 0, version: "x" });
    expect(gatewayUrl(undefined, home, {})).toBe("http://127.0.0.1:9001");
    expect(gatewayUrl(undefined, home, { SWITCHYARD_URL: "http://127.0.0.1:9002/" })).toBe("http://127.0.0.1:9002");
    expect(gatewayUrl("http://127.0.0.1:9003/v1", home, { SWITCHYARD_URL: "http://127.0.0.1:9002" })).toBe("http://127.0.0.1:9003");
  });

  it("R23.2 a URL is an http(s) origin (a path prefix is kept, a missing scheme is http); anything else is bad input", () => {
    expect(normaliseUrl("https://gw.example:8443/team/")).toBe("https://gw.example:8443/team");
    expect(normaliseUrl("localhost:8642")).toBe("http://localhost:8642");
    expect(() => normaliseUrl("ftp://gw.example")).toThrow("not an http(s) URL");
    expect(() => normaliseUrl("not a url")).toThrow("not a URL");
  });
});

describe("config edits", () => {
  it("R23.2 JSON with comments and trailing commas reads as JSON; comment markers inside strings stay", () => {
    expect(parseJsonc('{\n  // a comment\n  "a": "http://x/*y*/", /* b */ "b": [1, 2,],\n}\n', "f")).toEqual({ a: "http://x/*y*/", b: [1, 2] });
    expect(parseJsonc('{"s": "a,]"}', "f")).toEqual({ s: "a,]" });
    expect(() => parseJsonc("{ nope", "settings.json")).toThrow("settings.json is not valid JSON");
  });

  it("R23.2 dotenv: a variable's line is replaced where it is, others stay, new ones are appended", () => {
    const before = "# mine\r\nexport GEMINI_API_KEY=k1\r\nOTHER=1\r\n";
    expect(setDotenv(before, { GEMINI_API_KEY: "k2", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:8642" })).toBe(
      "# mine\r\nGEMINI_API_KEY=k2\r\nOTHER=1\r\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8642\r\n",
    );
    expect(setDotenv(null, { A: "has space" })).toBe('A="has space"\n');
    expect(dotenvValue('A="x y"\nB=2 # c\n', "A")).toBe("x y");
    expect(dotenvValue('A="x y"\nB=2 # c\n', "B")).toBe("2");
    expect(dotenvValue("A=1\n", "B")).toBeUndefined();
  });

  it("R23.2 Codex TOML: model_provider set at the top level, our table (and its sub-tables) replaced, the rest byte for byte", () => {
    const before = [
      "# top",
      'model = "m"',
      "",
      "[model_providers.switchyard]",
      'base_url = "old"',
      "",
      '[model_providers."switchyard".http_headers]',
      'X = "1"',
      "",
      "[profiles.p]",
      'model_provider = "other"',
      "",
    ].join("\n");
    expect(setTomlProvider(before, "switchyard", ['base_url = "new"'])).toBe(
      ['model_provider = "switchyard"', "# top", 'model = "m"', "", "[profiles.p]", 'model_provider = "other"', "", "[model_providers.switchyard]", 'base_url = "new"', ""].join(
        "\n",
      ),
    );
    expect(setTomlProvider('model_provider = "x" # mine\n', "switchyard", ["a = 1"])).toBe('model_provider = "switchyard"\n\n[model_providers.switchyard]\na = 1\n');
    expect(setTomlProvider(null, "switchyard", ["a = 1"])).toBe('model_provider = "switchyard"\n\n[model_providers.switchyard]\na = 1\n');
  });
});

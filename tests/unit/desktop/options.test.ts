// R0.1 / R0.3: desktop command-line options, with Chromium's own switches ignored.
import { describe, expect, it } from "vitest";
import { DEFAULT_PORT, parseDesktopArgs } from "../../../main/desktop/options.js";

describe("parseDesktopArgs", () => {
  it("R0.1 defaults to port 8642, no home, no demo", () => {
    expect(parseDesktopArgs([], {})).toEqual({ port: DEFAULT_PORT, home: undefined, config: undefined, demo: false, testClock: false, hidden: false });
    expect(DEFAULT_PORT).toBe(8642);
  });

  it("R0.1 reads --port in both spellings, over SWITCHYARD_PORT", () => {
    expect(parseDesktopArgs(["--port", "0"], { SWITCHYARD_PORT: "9000" }).port).toBe(0);
    expect(parseDesktopArgs(["--port=9100"], {}).port).toBe(9100);
    expect(parseDesktopArgs([], { SWITCHYARD_PORT: "9000" }).port).toBe(9000);
    expect(() => parseDesktopArgs(["--port", "70000"], {})).toThrow(/Invalid port/);
    expect(() => parseDesktopArgs(["--port"], {})).toThrow(/needs a value/);
  });

  it("R0.3 takes the data dir from --home, else SWITCHYARD_HOME, else leaves it to Electron", () => {
    expect(parseDesktopArgs(["--home", "/tmp/a"], { SWITCHYARD_HOME: "/tmp/b" }).home).toBe("/tmp/a");
    expect(parseDesktopArgs([], { SWITCHYARD_HOME: "/tmp/b" }).home).toBe("/tmp/b");
    expect(parseDesktopArgs([], { SWITCHYARD_HOME: "" }).home).toBeUndefined();
  });

  it("R0.5 reads --demo, --config, --test-clock and --hidden among Chromium switches and the script path", () => {
    const argv = [
      "--inspect=0",
      "--remote-debugging-port=0",
      "/app/dist/main/desktop/electron-main.js",
      "--demo",
      "--config",
      "cfg.yaml",
      "--test-clock",
      "--hidden",
      "--no-sandbox",
    ];
    expect(parseDesktopArgs(argv, {})).toEqual({ port: DEFAULT_PORT, home: undefined, config: "cfg.yaml", demo: true, testClock: true, hidden: true });
    expect(parseDesktopArgs([], { SWITCHYARD_TEST_CLOCK: "1" }).testClock).toBe(true);
  });
});

// R14.1 / R14.4: the icons the tray and the packager reference exist and are valid PNGs.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TRAY_ICON_FILES } from "../../../main/desktop/trayMenu.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(file: string): { width: number; height: number } {
  const data = readFileSync(`${root}/assets/${file}`);
  expect(data.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(data.toString("ascii", 12, 16)).toBe("IHDR");
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

describe("assets", () => {
  it("R14.1 every tray health state has a 32x32 PNG", () => {
    for (const file of Object.values(TRAY_ICON_FILES)) expect(pngSize(file)).toEqual({ width: 32, height: 32 });
  });

  it("R14.4 the app icon is large enough for every installer (>= 512 px) and is what electron-builder.yml names", () => {
    expect(pngSize("icon.png")).toEqual({ width: 512, height: 512 });
    const yml = readFileSync(`${root}/electron-builder.yml`, "utf8");
    expect(yml).toMatch(/^appId: dev\.switchyard\.app$/m);
    expect(yml.match(/icon: assets\/icon\.png/g)).toHaveLength(3);
    for (const target of ["AppImage", "deb", "dmg", "nsis"]) expect(yml).toContain(target);
    expect(yml).toMatch(/node_modules\/better-sqlite3/);
    expect(yml).toMatch(/^npmRebuild: true$/m);
  });
});

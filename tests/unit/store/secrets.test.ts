import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SecretDecryptError, createFileKeyCipher } from "../../../main/store/index.js";
import { makeTempHome } from "./storeFixture.js";

function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

/** Flips one byte of one base64 field of a `v1:iv:tag:ciphertext` blob. */
function tamper(blob: string, field: 1 | 2 | 3): string {
  const parts = blob.split(":");
  const bytes = Buffer.from(parts[field], "base64");
  bytes[0] = bytes[0] ^ 0xff;
  parts[field] = bytes.toString("base64");
  return parts.join(":");
}

describe("file-key secret cipher", () => {
  const homes: string[] = [];
  const tempHome = () => {
    const home = makeTempHome();
    homes.push(home);
    return home;
  };
  afterEach(() => {
    for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  });

  it("R0.3 round-trips a secret through AES-256-GCM with a fresh IV per value", () => {
    const cipher = createFileKeyCipher(tempHome());
    const plain = "sk-live-ünïcødé-🔑";
    const a = cipher.encrypt(plain);
    const b = cipher.encrypt(plain);
    expect(a).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(Buffer.from(a.split(":")[1], "base64")).toHaveLength(12);
    expect(a).not.toBe(b);
    expect(a).not.toContain(plain);
    expect(cipher.decrypt(a)).toBe(plain);
    expect(cipher.decrypt(b)).toBe(plain);
    expect(cipher.decrypt(cipher.encrypt(""))).toBe("");
  });

  it("R0.3 creates a missing home 0700 and a 32-byte key file 0600", () => {
    const home = path.join(tempHome(), "fresh", "home");
    createFileKeyCipher(home);
    const keyFile = path.join(home, "secret.key");
    expect(modeOf(home)).toBe(0o700);
    expect(modeOf(keyFile)).toBe(0o600);
    expect(fs.readFileSync(keyFile)).toHaveLength(32);
  });

  it("R0.3 tightens a key file left with a looser mode to 0600", () => {
    const home = tempHome();
    createFileKeyCipher(home);
    const keyFile = path.join(home, "secret.key");
    fs.chmodSync(keyFile, 0o644);
    createFileKeyCipher(home);
    expect(modeOf(keyFile)).toBe(0o600);
  });

  it("R0.3 reuses the key file, so secrets survive a restart", () => {
    const home = tempHome();
    const blob = createFileKeyCipher(home).encrypt("persisted");
    expect(createFileKeyCipher(home).decrypt(blob)).toBe("persisted");
  });

  it("R0.3 rejects tampered ciphertext, tag or IV", () => {
    const cipher = createFileKeyCipher(tempHome());
    const blob = cipher.encrypt("top secret value");
    for (const field of [1, 2, 3] as const) {
      expect(() => cipher.decrypt(tamper(blob, field))).toThrow(SecretDecryptError);
    }
  });

  it("R0.3 rejects malformed blobs and blobs sealed with another key", () => {
    const cipher = createFileKeyCipher(tempHome());
    const foreign = createFileKeyCipher(tempHome()).encrypt("not yours");
    expect(() => cipher.decrypt(foreign)).toThrow(/authentication failed/);
    expect(() => cipher.decrypt("plain-text-secret")).toThrow(SecretDecryptError);
    expect(() => cipher.decrypt("v2:a:b:c")).toThrow(SecretDecryptError);
    const blob = cipher.encrypt("x");
    expect(() => cipher.decrypt(blob.split(":").slice(0, 3).join(":"))).toThrow(SecretDecryptError);
  });

  it("R0.3 refuses a key file of the wrong length instead of using a weak key", () => {
    const home = tempHome();
    fs.writeFileSync(path.join(home, "secret.key"), Buffer.alloc(16), { mode: 0o600 });
    expect(() => createFileKeyCipher(home)).toThrow(/exactly 32 bytes/);
  });
});

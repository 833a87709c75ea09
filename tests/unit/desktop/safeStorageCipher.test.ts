// Secrets at rest in the desktop app go through the OS keychain (Electron safeStorage).
import { describe, expect, it } from "vitest";
import { SAFE_STORAGE_BLOB_PREFIX, safeStorageCipher, type SafeStorageLike } from "../../../main/desktop/safeStorageCipher.js";

/** A stand-in keychain: reversible but not identity, so a test can see the blob is sealed. */
function fakeSafeStorage(available = true): SafeStorageLike {
  const flip = (buf: Buffer) => Buffer.from(buf.map((b) => b ^ 0x5a));
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => flip(Buffer.from(plain, "utf8")),
    decryptString: (sealed) => {
      if (sealed.length === 0) throw new Error("Error while decrypting the ciphertext provided to safeStorage.decryptString.");
      return flip(sealed).toString("utf8");
    },
  };
}

describe("safeStorageCipher", () => {
  it("round-trips a secret as base64 of safeStorage.encryptString, never in clear", () => {
    const cipher = safeStorageCipher(fakeSafeStorage());
    const blob = cipher.encrypt("sk-live-Ünïcode");
    expect(blob.startsWith(SAFE_STORAGE_BLOB_PREFIX)).toBe(true);
    expect(blob).not.toContain("sk-live");
    expect(Buffer.from(blob.slice(SAFE_STORAGE_BLOB_PREFIX.length), "base64").length).toBeGreaterThan(0);
    expect(cipher.decrypt(blob)).toBe("sk-live-Ünïcode");
  });

  it("reports a blob it did not seal, or cannot open, as secret_unreadable", () => {
    const cipher = safeStorageCipher(fakeSafeStorage());
    expect(() => cipher.decrypt("v1:aaa:bbb:ccc")).toThrow(expect.objectContaining({ code: "secret_unreadable" }));
    expect(() => cipher.decrypt(SAFE_STORAGE_BLOB_PREFIX)).toThrow(expect.objectContaining({ code: "secret_unreadable" }));
  });

  it("refuses to store a secret when the OS keychain is unavailable", () => {
    expect(() => safeStorageCipher(fakeSafeStorage(false)).encrypt("x")).toThrow(/not available/);
  });
});

// Connection secrets at rest in the desktop app: sealed by the OS keychain through Electron's
// safeStorage instead of the headless key file. `safeStorage` is passed in (typed structurally)
// so this file never imports electron and is unit-tested under Node.
import type { SecretCipher } from "../store/secrets.js";
import { SecretDecryptError } from "../store/secrets.js";

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** Blobs carry a prefix so a blob sealed by another cipher is reported, not mis-decrypted. */
export const SAFE_STORAGE_BLOB_PREFIX = "ss1:";

export function safeStorageCipher(safeStorage: SafeStorageLike): SecretCipher {
  return {
    encrypt(plain) {
      if (!safeStorage.isEncryptionAvailable()) throw new Error("OS secret storage is not available");
      return SAFE_STORAGE_BLOB_PREFIX + safeStorage.encryptString(plain).toString("base64");
    },
    decrypt(blob) {
      if (!blob.startsWith(SAFE_STORAGE_BLOB_PREFIX)) throw new SecretDecryptError("not sealed by the OS secret storage");
      try {
        return safeStorage.decryptString(Buffer.from(blob.slice(SAFE_STORAGE_BLOB_PREFIX.length), "base64"));
      } catch (err) {
        throw new SecretDecryptError(err instanceof Error ? err.message : String(err));
      }
    },
  };
}

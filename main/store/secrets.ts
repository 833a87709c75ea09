// Secrets at rest: every connection secret is sealed before it reaches SQLite.
// The headless cipher keeps its key in a 0600 file under the data dir; the desktop
// build will swap in an Electron safeStorage cipher behind the same interface.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { errorCode } from "../../shared/records.js";

export interface SecretCipher {
  encrypt(plain: string): string;
  decrypt(blob: string): string;
}

export class SecretDecryptError extends Error {
  readonly code = "secret_unreadable";

  constructor(reason: string) {
    super(`stored secret cannot be decrypted: ${reason}`);
    this.name = "SecretDecryptError";
  }
}

const KEY_FILE = "secret.key";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BLOB_VERSION = "v1";
const ALGORITHM = "aes-256-gcm";
const KEY_FILE_MODE = 0o600;
const HOME_DIR_MODE = 0o700;

/** AES-256-GCM with a per-installation key file `<home>/secret.key`. */
export function createFileKeyCipher(home: string): SecretCipher {
  const key = loadOrCreateKey(home);
  return {
    encrypt(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [BLOB_VERSION, iv.toString("base64"), tag.toString("base64"), ciphertext.toString("base64")].join(":");
    },
    decrypt(blob) {
      const parts = blob.split(":");
      if (parts.length !== 4 || parts[0] !== BLOB_VERSION) {
        throw new SecretDecryptError("unrecognised format");
      }
      const iv = Buffer.from(parts[1], "base64");
      const tag = Buffer.from(parts[2], "base64");
      const ciphertext = Buffer.from(parts[3], "base64");
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new SecretDecryptError("malformed IV or tag");
      }
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
      } catch {
        // GCM authentication failed: the blob was altered or sealed with another key.
        throw new SecretDecryptError("authentication failed (tampered data or a different key)");
      }
    },
  };
}

function loadOrCreateKey(home: string): Buffer {
  if (!fs.existsSync(home)) fs.mkdirSync(home, { recursive: true, mode: HOME_DIR_MODE });
  const keyPath = path.join(home, KEY_FILE);
  try {
    // "wx" fails if the file exists, so two processes starting together never overwrite each other's key.
    fs.writeFileSync(keyPath, randomBytes(KEY_BYTES), { mode: KEY_FILE_MODE, flag: "wx" });
  } catch (err) {
    if (errorCode(err) !== "EEXIST") throw err;
  }
  tightenMode(keyPath);
  const key = fs.readFileSync(keyPath);
  if (key.length !== KEY_BYTES) {
    throw new Error(`${keyPath} must hold exactly ${KEY_BYTES} bytes (found ${key.length}); restore it from a backup`);
  }
  return key;
}

/** The umask or an earlier copy may have left the key readable by others. */
function tightenMode(keyPath: string): void {
  if (process.platform === "win32") return;
  const mode = fs.statSync(keyPath).mode & 0o777;
  if (mode !== KEY_FILE_MODE) fs.chmodSync(keyPath, KEY_FILE_MODE);
}

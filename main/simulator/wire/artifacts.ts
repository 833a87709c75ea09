// Reasoning artifacts bound to the account that issued them (R16.7). The real Responses API
// encrypts reasoning (and compaction summaries) per organisation and refuses a blob another one
// issued; the simulator signs what it issues with the request's API key, so a gateway that
// forwards one connection's blob to another meets the same refusal a real upstream gives.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { isRecord } from "../records.js";

/** OpenAI's blobs are Fernet tokens, whose version byte makes them start "gAAAAA"; ours look alike. */
const BLOB_VERSION = 0x80;
const BLOB_HEADER = 9;
const MAC_BYTES = 32;
const ID_NONCE_HEX = 16;
const ID_MAC_HEX = 32;
const BLOB_PREVIEW = 4;

function mac(key: string | null, data: string | Buffer): Buffer {
  return createHmac("sha256", `switchyard-simulator:${key ?? ""}`)
    .update(data)
    .digest();
}

/** An id with the real API's look (prefix and hex, 48 digits unless told) and nothing to verify. */
export function randomId(prefix: string, bytes = 24): string {
  return `${prefix}_${randomBytes(bytes).toString("hex")}`;
}

/** An id (`rs_…`, `cmp_…`) whose second half is a MAC of the first under the issuing key. */
export function boundId(key: string | null, prefix: string): string {
  const nonce = randomBytes(ID_NONCE_HEX / 2).toString("hex");
  return `${prefix}_${nonce}${mac(key, `${prefix}_${nonce}`).toString("hex").slice(0, ID_MAC_HEX)}`;
}

export function isBoundTo(key: string | null, id: string): boolean {
  const cut = id.indexOf("_");
  const tail = id.slice(cut + 1);
  if (cut <= 0 || tail.length !== ID_NONCE_HEX + ID_MAC_HEX) return false;
  const head = id.slice(0, cut + 1 + ID_NONCE_HEX);
  return mac(key, head).toString("hex").slice(0, ID_MAC_HEX) === tail.slice(ID_NONCE_HEX);
}

/** An opaque blob carrying the item's id and text, sealed with the issuing key; the key itself never appears. */
export function seal(key: string | null, itemId: string, text: string): string {
  const header = Buffer.alloc(BLOB_HEADER);
  header[0] = BLOB_VERSION;
  header.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000)), 1);
  const payload = Buffer.concat([header, Buffer.from(JSON.stringify({ id: itemId, text }), "utf8")]);
  return Buffer.concat([payload, mac(key, payload)]).toString("base64");
}

export function opens(key: string | null, blob: string): boolean {
  const raw = Buffer.from(blob, "base64");
  if (raw.length <= BLOB_HEADER + MAC_BYTES || raw[0] !== BLOB_VERSION) return false;
  const payload = raw.subarray(0, raw.length - MAC_BYTES);
  return timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), mac(key, payload));
}

export interface ArtifactRefusal {
  status: number;
  body: unknown;
}

function abbreviate(blob: string): string {
  return blob.length <= BLOB_PREVIEW * 2 ? blob : `${blob.slice(0, BLOB_PREVIEW)}...${blob.slice(-BLOB_PREVIEW)}`;
}

/** Items carrying a sealed blob: reasoning, and compaction (`compaction_summary` is Codex's older name). */
const SEALED_TYPES = new Set(["reasoning", "compaction", "compaction_summary"]);

/**
 * The real API's refusal of a request whose input carries an artifact this key did not issue,
 * or null: a blob that does not verify → 400 invalid_encrypted_content (text as OpenAI sends it,
 * e.g. openai/codex#8145 and later reports with "for item rs_…"); a bare `rs_…` reference without
 * its blob that this key never issued → 404, as for an item the account does not hold.
 */
export function artifactRefusal(body: unknown, key: string | null): ArtifactRefusal | null {
  if (!isRecord(body) || !Array.isArray(body.input)) return null;
  for (const item of body.input) {
    if (!isRecord(item) || typeof item.type !== "string" || !SEALED_TYPES.has(item.type)) continue;
    const id = typeof item.id === "string" && item.id ? item.id : null;
    const blob = item.encrypted_content;
    if (typeof blob === "string") {
      if (opens(key, blob)) continue;
      const subject = id ? `for item ${id}` : abbreviate(blob);
      const message = `The encrypted content ${subject} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`;
      return { status: 400, body: { error: { message, type: "invalid_request_error", param: null, code: "invalid_encrypted_content" } } };
    }
    if (item.type === "reasoning" && id && !isBoundTo(key, id)) {
      const hint = body.store === false ? " Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input." : "";
      return { status: 404, body: { error: { message: `Item with id '${id}' not found.${hint}`, type: "invalid_request_error", param: "input", code: null } } };
    }
  }
  return null;
}

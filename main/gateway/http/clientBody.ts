// The one reader of a client request's JSON body, for every client route (issue 26 item 12),
// without the generic body-parser stack: the generation routes are the hot path (issue 12). It
// keeps body-parser's observable rules: the limit answered only after the whole body was read off
// the socket, counted on the decoded bytes of a compressed body; an empty body as `{}`; a leading
// BOM ignored; gzip, deflate and br bodies inflated; a `utf-*` charset decoded, any other refused.
import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

export type BodyRead =
  /** `text`: what `value` was parsed from, when the body arrived as plain UTF-8 (null after decoding). */
  | { kind: "json"; value: unknown; text: string | null }
  | { kind: "invalid" }
  | { kind: "too_large" }
  /** The client went away mid-body: nobody is left to answer. */
  | { kind: "aborted" };

const INVALID: BodyRead = { kind: "invalid" };
const TOO_LARGE: BodyRead = { kind: "too_large" };
const ABORTED: BodyRead = { kind: "aborted" };

const CHARSET = /charset\s*=\s*"?([^";\s]+)"?/i;
const UTF8 = /^utf-?8$/;

/** The body's charset as body-parser names it: lower case, UTF-8 when the content type says none. */
function charsetOf(req: IncomingMessage): string {
  const type = req.headers["content-type"];
  const named = type === undefined ? undefined : CHARSET.exec(type)?.[1];
  return named === undefined ? "utf-8" : named.toLowerCase();
}

function contentEncodingOf(req: IncomingMessage): string {
  return (req.headers["content-encoding"] ?? "identity").toLowerCase();
}

/** A body read as it arrived, by the hot path's own loop (no stream, no decoder). */
function isPlain(encoding: string, charset: string): boolean {
  return encoding === "identity" && UTF8.test(charset);
}

function parse(text: string, keepText: boolean): BodyRead {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return { kind: "json", value: {}, text: keepText ? "{}" : null };
  try {
    return { kind: "json", value: JSON.parse(body) as unknown, text: keepText ? body : null };
  } catch {
    return INVALID;
  }
}

/** The body as JSON, read to at most `limitBytes` (decoded). */
export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<BodyRead> {
  const encoding = contentEncodingOf(req);
  const charset = charsetOf(req);
  return isPlain(encoding, charset) ? readPlain(req, limitBytes) : readDecoded(req, limitBytes, encoding, charset);
}

function readPlain(req: IncomingMessage, limitBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"]);
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limitBytes;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limitBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) return resolve(TOO_LARGE);
      resolve(parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString("utf8"), true));
    });
    req.on("error", () => resolve(ABORTED));
    req.on("aborted", () => resolve(ABORTED));
  });
}

/** What inflates a content encoding; undefined when body-parser would not (it refuses those bodies). */
function inflaterFor(encoding: string): Transform | null | undefined {
  if (encoding === "identity") return null;
  if (encoding === "gzip") return createGunzip();
  if (encoding === "deflate") return createInflate();
  if (encoding === "br") return createBrotliDecompress();
  return undefined;
}

/** RFC 7159 §8.1 as body-parser reads it: JSON is in a UTF charset; null for any other or an unknown one. */
function textOf(charset: string): ((bytes: Buffer) => string) | null {
  if (UTF8.test(charset)) return (bytes) => bytes.toString("utf8");
  if (!charset.startsWith("utf-")) return null;
  try {
    const decoder = new TextDecoder(charset);
    return (bytes) => decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A compressed body or one in another UTF charset (rare: no client measured sends one). A refusal
 * decided early (too large, not inflatable) still waits for the rest of the body to arrive.
 */
function readDecoded(req: IncomingMessage, limitBytes: number, encoding: string, charset: string): Promise<BodyRead> {
  return new Promise((resolve) => {
    const inflater = inflaterFor(encoding);
    const text = textOf(charset);
    const declared = Number(req.headers["content-length"]);
    let refusal: BodyRead | null = inflater === undefined || text === null ? INVALID : null;
    if (!inflater && Number.isFinite(declared) && declared > limitBytes) refusal ??= TOO_LARGE;
    let received = false;
    let size = 0;
    const chunks: Buffer[] = [];
    const refuse = (read: BodyRead) => {
      refusal ??= read;
      chunks.length = 0;
      inflater?.destroy();
      if (received) resolve(refusal);
    };
    const take = (chunk: Buffer) => {
      if (refusal) return;
      size += chunk.length;
      if (size > limitBytes) refuse(TOO_LARGE);
      else chunks.push(chunk);
    };
    const decided = () => resolve(refusal ?? parse(text!(Buffer.concat(chunks, size)), false));
    inflater
      ?.on("data", take)
      .on("error", () => refuse(INVALID))
      .on("end", decided);
    req.on("data", (chunk: Buffer) => {
      if (refusal) return;
      if (inflater) inflater.write(chunk);
      else take(chunk);
    });
    req.on("end", () => {
      received = true;
      if (refusal || !inflater) return decided();
      inflater.end();
    });
    req.on("error", () => resolve(ABORTED));
    req.on("aborted", () => resolve(ABORTED));
  });
}

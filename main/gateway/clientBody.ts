// One read of a client request's JSON body, without the generic body-parser stack: the generation
// routes are the hot path (issue 12). It keeps body-parser's observable rules: the `maxBodyMb`
// limit answered only after the whole body was read off the socket, an empty body as `{}`, a
// leading BOM ignored. Bodies it does not handle (a content-encoding, a charset other than UTF-8)
// are left to the express.json parser of clientJson.
import type { IncomingMessage } from "node:http";

export type BodyRead =
  | { kind: "json"; value: unknown; text: string }
  | { kind: "invalid" }
  | { kind: "too_large" }
  /** The client went away mid-body: nobody is left to answer. */
  | { kind: "aborted" };

const UTF8_CHARSET = /charset\s*=\s*"?utf-?8"?\s*(?:;|$)/i;

/** Whether this reader handles the body as body-parser would; otherwise the generic parser does. */
export function plainJsonBody(req: IncomingMessage): boolean {
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return false;
  const type = req.headers["content-type"];
  return type === undefined || !type.includes("charset") || UTF8_CHARSET.test(type);
}

function parse(text: string): BodyRead {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return { kind: "json", value: {}, text: "{}" };
  try {
    return { kind: "json", value: JSON.parse(body) as unknown, text: body };
  } catch {
    return { kind: "invalid" };
  }
}

export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<BodyRead> {
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
      if (tooLarge) return resolve({ kind: "too_large" });
      resolve(parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString("utf8")));
    });
    req.on("error", () => resolve({ kind: "aborted" }));
    req.on("aborted", () => resolve({ kind: "aborted" }));
  });
}

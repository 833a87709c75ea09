// R1.4, R1.8, R16.6: each warning reaches the client as its own X-Switchyard-Warning header line —
// background mode served synchronously and fields the upstream's format could not carry are two
// warnings, on a JSON answer, a stream and an error alike. Read from the raw header lines: fetch's
// Headers would join repeated lines with ", " and hide the difference.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { ClientResponse } from "../../../main/gateway/context/clientResponse.js";
import { BACKGROUND_WARNING } from "../../../main/gateway/features/responses/turn.js";
import { listen, ports } from "./fixtures.js";

const DROPPED_WARNING = "not sent to this upstream's format: web_search, file_search";

/** A ClientResponse on a real loopback response, and the warning header lines its client receives. */
async function warningsOf(stream: boolean, answer: (client: ClientResponse) => void): Promise<{ status: number; warnings: string[] }> {
  const p = ports();
  const srv = await listen((_req, res) => {
    const client = new ClientResponse(res, { format: "openai-responses", requestId: "req-w", model: "p/m", stream, clock: p.h.clock, log: p.log, emit: () => undefined });
    answer(client);
  });
  try {
    return await new Promise((resolve, reject) => {
      const req = request(srv.url, { method: "POST" }, (res) => {
        const warnings: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() === "x-switchyard-warning") warnings.push(res.rawHeaders[i + 1]);
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, warnings }));
      });
      req.on("error", reject);
      req.end("{}");
    });
  } finally {
    await srv.close();
  }
}

describe("X-Switchyard-Warning, one header line per warning (R1.4, R1.8, R16.6)", () => {
  it("R1.8 R16.6 a JSON answer carries the background warning and the dropped-fields warning as two lines", async () => {
    const r = await warningsOf(false, (client) => {
      client.addHeader("X-Switchyard-Warning", BACKGROUND_WARNING);
      client.answeredBy("c1", ["web_search", "file_search"]);
      client.sendJson({ id: "resp_1", status: "completed" });
    });
    expect(r.status).toBe(200);
    expect(r.warnings).toEqual([BACKGROUND_WARNING, DROPPED_WARNING]);
  });

  it("R1.8 R16.6 a stream carries both warnings as two lines: the dropped-fields warning does not replace the background one", async () => {
    const r = await warningsOf(true, (client) => {
      client.addHeader("X-Switchyard-Warning", BACKGROUND_WARNING);
      client.answeredBy("c1", ["web_search", "file_search"]);
      client.commitStream();
      client.write('event: response.completed\ndata: {"type":"response.completed"}\n\n');
      client.endStream();
    });
    expect(r.status).toBe(200);
    expect(r.warnings).toEqual([BACKGROUND_WARNING, DROPPED_WARNING]);
  });

  it("R1.4 two warnings added to one answer are two lines, the second does not overwrite the first; an error keeps them too", async () => {
    const r = await warningsOf(false, (client) => {
      client.addHeader("X-Switchyard-Warning", "first");
      client.addHeader("X-Switchyard-Warning", "second");
      client.fail({ status: 503, code: "all_targets_cooling_down", message: "wait", retryAfterMs: null, noRetry: false });
    });
    expect(r.status).toBe(503);
    expect(r.warnings).toEqual(["first", "second"]);
  });
});

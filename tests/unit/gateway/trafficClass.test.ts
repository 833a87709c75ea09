// R20.3: every request a real client sent (tests/fixtures/clients/trafficCaptures.json, written by
// scripts/capture-traffic.mjs) gets the traffic class its capture records — the capture script
// labels each call by what it is (turn, title or other side call, subagent, compaction, count),
// apart from the classifier, so a rule that drifts from a client's real traffic fails here.
import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { clientKindOf } from "../../../main/gateway/context/trace.js";
import { trafficClassOf } from "../../../main/gateway/features/trafficClass/rules.js";
import { TRAFFIC_CLASSES, type ClientKind, type TrafficClass, type WireFormat } from "../../../shared/types.js";

interface Capture {
  client: ClientKind;
  clientVersion: string;
  scenario: string;
  what: string;
  expected: TrafficClass;
  format: WireFormat;
  route: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const captures: Capture[] = JSON.parse(readFileSync(new URL("../../fixtures/clients/trafficCaptures.json", import.meta.url), "utf8")).captures;

/** "POST /v1/messages?beta=true" → "/v1/messages?beta=true": the classifier drops the query itself. */
const pathOf = (route: string) => route.slice(route.indexOf(" ") + 1);

describe("traffic classes of real client captures (R20.3)", () => {
  it.each(captures.map((c) => [`${c.client} ${c.clientVersion} ${c.scenario}: ${c.what} → ${c.expected}`, c] as const))("R20.3 %s", (_name, c) => {
    const clientKind = clientKindOf(c.headers);
    // The client's own rules apply only when its headers name it.
    expect(clientKind).toBe(c.client);
    expect(trafficClassOf({ format: c.format, path: pathOf(c.route), headers: c.headers, body: c.body, clientKind })).toBe(c.expected);
  });

  it("R20.3 the captures cover every traffic class and every client with rules of its own", () => {
    expect(new Set(captures.map((c) => c.expected))).toEqual(new Set(TRAFFIC_CLASSES));
    expect(new Set(captures.map((c) => c.client))).toEqual(new Set<ClientKind>(["claude-code", "codex-cli", "gemini-cli", "opencode", "qwen-code"]));
  });
});

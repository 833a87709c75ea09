// The coding-agent facts of a request (R20) in words, for the request log and its timeline: the
// traffic class, the share of the prompt read from the upstream's cache, a warm session moved to a
// cold connection, each wait-or-switch decision and the reasoning artifacts taken out. Pure, so
// the page and its tests read the same sentences; a row written before a fact was kept has none.
import type { CacheMove, ProvenanceRecord, RequestLogEntry, TrafficClass, WaitOrSwitchRecord } from "../../../../shared/types.js";
import { formatCount, formatPercent } from "../../../../shared/usageText.js";
import type { StatusTone } from "../../format.js";

export type Names = (connectionId: string | null) => string | null;

export interface AgentStep {
  kind: "class" | "cache" | "wait" | "switch" | "provenance";
  tone: StatusTone;
  text: string;
}

export const TRAFFIC_CLASS_MEANINGS: Record<TrafficClass, string> = {
  main: "the turn the user waits for",
  subagent: "a subagent's turn",
  background: "background work (a title, a suggestion, memory, the small-fast model)",
  compaction: "a compaction of the conversation",
  count: "a token count",
};

/** The turns a user waits on stand out in the list; the rest are quieter. */
export const TRAFFIC_CLASS_TONES: Record<TrafficClass, StatusTone> = { main: "ok", subagent: "ok", background: "muted", compaction: "muted", count: "muted" };

export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

const hint = (ms: number | null) => (ms === null ? "hint" : `hint ${seconds(ms)}`);

/** The gateway's reason codes (WaitOrSwitchRecord.reason) as the timeline says them; an unknown code is shown as it is. */
const DECISION_REASONS: Record<string, (r: WaitOrSwitchRecord) => string> = {
  hint_within_wait: (r) => `${hint(r.hintMs)} within the wait limit`,
  hint_too_long: (r) => `${hint(r.hintMs)} longer than the wait limit`,
  no_hint: () => "the upstream gave no retry hint",
  not_warm: () => "the connection held no warm cache for this session",
  disabled: () => "wait-or-switch is off",
  background: () => "background work does not wait for a warm cache",
};

export function decisionText(r: WaitOrSwitchRecord, name: Names): string {
  const who = name(r.connectionId) ?? r.connectionId;
  const why = DECISION_REASONS[r.reason]?.(r) ?? r.reason;
  return r.choice === "wait" ? `Waited ${seconds(r.waitedMs)} on ${who}: ${why}` : `Switched away from ${who} at its 429: ${why}`;
}

export function cacheMoveText(m: CacheMove, name: Names): string {
  const resent = m.resentTokens === null ? "re-sent tokens not reported" : `${formatCount(m.resentTokens)} prompt tokens re-sent`;
  return `Warm session moved to a cold connection: from ${name(m.fromConnectionId) ?? m.fromConnectionId} to ${name(m.toConnectionId) ?? m.toConnectionId}; ${resent}`;
}

export function provenanceText(p: ProvenanceRecord): string {
  return `${formatCount(p.removed)} reasoning artifact${p.removed === 1 ? "" : "s"} removed / ${formatCount(p.plain)} kept as plain text (issued by another connection)`;
}

export function cacheShareText(share: number): string {
  return `Cache-read share ${formatPercent(share)}: of the prompt, what the upstream read from its cache`;
}

/** What selection and sending did for a coding agent (after the attempts: each fact belongs to the request as a whole). */
export function agentSteps(e: RequestLogEntry, name: Names): AgentStep[] {
  const steps: AgentStep[] = [];
  for (const r of e.waitOrSwitch ?? []) steps.push({ kind: r.choice, tone: r.choice === "wait" ? "muted" : "warn", text: decisionText(r, name) });
  if (e.cacheMove) steps.push({ kind: "cache", tone: "warn", text: cacheMoveText(e.cacheMove, name) });
  if (e.provenance) steps.push({ kind: "provenance", tone: "muted", text: provenanceText(e.provenance) });
  return steps;
}

/** The class step, told right after the request was received; none for a row without a class. */
export function classStep(e: RequestLogEntry): AgentStep[] {
  if (!e.trafficClass) return [];
  return [{ kind: "class", tone: "muted", text: `Traffic class ${e.trafficClass}: ${TRAFFIC_CLASS_MEANINGS[e.trafficClass]}` }];
}

/** The cache-read share, told with the usage; none when the upstream did not say. */
export function cacheShareStep(e: RequestLogEntry): AgentStep[] {
  return typeof e.cacheReadShare === "number" ? [{ kind: "cache", tone: "muted", text: cacheShareText(e.cacheReadShare) }] : [];
}

// "Why did this request go there?": a log entry told as steps, in words. Pure, so the page and
// its tests read the same sentences.
import type { AttemptEnded, AttemptFault, AttemptRecord, RequestLogEntry, SkipRecord } from "../../../../shared/types.js";
import { formatCount, formatUsd } from "../../../../shared/usageText.js";
import { CLIENT_LABELS } from "../connect/snippets.js";
import { agentSteps, cacheShareStep, classStep, seconds, type AgentStep, type Names } from "./agentSteps.js";

export interface TimelineStep {
  kind: "received" | "skipped" | "wait" | "attempt" | "outcome" | "usage" | AgentStep["kind"];
  tone: "ok" | "warn" | "bad" | "muted";
  text: string;
}

const SKIP_REASONS: Record<string, string> = {
  unavailable: "cooling down",
  circuit_open: "provider breaker open",
  model_lockout: "model locked on this connection",
  provider_cooldown: "provider cooling down",
  terminal: "off for good (banned, expired or out of credits)",
  inactive: "no active connection",
  tool_limit: "over the upstream's tool limit",
  leased: "leased to another session",
  budget: "over its budget for the period",
  quota_cutoff: "low on its quota while a sibling has more (tried after it, if need be)",
};

const HINT_SOURCES: Record<string, string> = {
  "retry-after": "Retry-After",
  "retry-after-ms": "retry-after-ms",
  google_rpc_retry_info: "Gemini RetryInfo",
  "anthropic-ratelimit-reset": "anthropic-ratelimit-reset",
  "x-ratelimit-reset": "x-ratelimit-reset",
  body_text: "the error text",
};

function skipText(s: SkipRecord, name: Names): string {
  const who = s.connectionId ? `${s.provider} · ${name(s.connectionId) ?? s.connectionId}` : s.target;
  const left = s.remainingMs && s.remainingMs > 0 ? ` (${seconds(s.remainingMs)} left)` : "";
  return `Skipped ${who} before dispatch: ${SKIP_REASONS[s.reason] ?? s.reason}${left}`;
}

function cooldownText(a: AttemptRecord): string {
  if (!a.after) return "";
  const what = a.after.state === "model_lockout" ? "model locked" : a.after.state === "cooling_down" ? "cooldown" : a.after.state;
  const length = a.after.remainingMs ? ` ${seconds(a.after.remainingMs)}` : "";
  const from = a.retryHintSource ? ` from ${HINT_SOURCES[a.retryHintSource] ?? a.retryHintSource}` : "";
  return `; ${what}${length}${from}`;
}

/** R25.4: where the attempt ended, in words. */
const ENDED_WORDS: Record<AttemptEnded, string> = {
  connect: "ended before any answer",
  headers: "refused at the response head",
  before_content: "ended before any content",
  mid_stream: "broke mid-stream",
  no_terminal: "ended without its final event",
  complete: "complete",
};

/** R25.4: whose fault it was, in words. */
const FAULT_WORDS: Record<AttemptFault, string> = {
  none: "",
  transport: "the network's fault",
  provider: "the provider's fault",
  account: "the account's fault (its limits or credentials)",
  client: "the client's fault (nothing cooled)",
  context: "too long for the model's context (nothing cooled)",
  gateway: "Switchyard's own fault (nothing cooled)",
};

function faultText(a: AttemptRecord): string {
  if (!a.ended) return "";
  const fault = a.fault ? FAULT_WORDS[a.fault] : "";
  return ` — ${ENDED_WORDS[a.ended]}${fault ? `, ${fault}` : ""}`;
}

function attemptStep(a: AttemptRecord, n: number, name: Names): TimelineStep {
  const who = `${a.provider} · ${name(a.connectionId) ?? a.connectionId ?? "?"}`;
  const status = a.status === null ? "no status" : String(a.status);
  const bytes = a.bytes !== undefined ? `, ${a.bytes} B` : "";
  const ok = a.verdict === null && a.status !== null && a.status < 400;
  const verdict = a.verdict ? ` ${a.verdict}` : ok ? " ok" : "";
  return {
    kind: "attempt",
    tone: ok ? "ok" : a.verdict === "client_abort" ? "muted" : "warn",
    text: `Attempt ${n}: ${who} (${a.model}) → ${status}${verdict}, ${seconds(a.latencyMs)}${bytes}${cooldownText(a)}${faultText(a)}`,
  };
}

function outcomeStep(e: RequestLogEntry, name: Names): TimelineStep {
  const tries = `${e.attempts.length} attempt${e.attempts.length === 1 ? "" : "s"}`;
  const ttfb = e.ttfbMs !== null ? `, first byte ${seconds(e.ttfbMs)}` : "";
  if (e.status < 400 && !e.errorCode) {
    const by = e.provider ? ` by ${e.provider} · ${name(e.connectionId) ?? e.connectionId}` : "";
    return { kind: "outcome", tone: "ok", text: `Answered ${e.status}${by} after ${tries} in ${seconds(e.latencyMs)}${ttfb}` };
  }
  return {
    kind: "outcome",
    tone: e.status === 499 ? "muted" : "bad",
    text: `Ended ${e.status}${e.errorCode ? ` ${e.errorCode}` : ""} after ${tries} in ${seconds(e.latencyMs)}${ttfb}`,
  };
}

/** R18.1: the tokens of each kind and the cost; null when the upstream reported no usage. */
export function usageText(e: RequestLogEntry): string | null {
  if (e.inputTokens === null && e.outputTokens === null) return null;
  const cache = [e.cacheReadTokens ? `${formatCount(e.cacheReadTokens)} from cache` : "", e.cacheWriteTokens ? `${formatCount(e.cacheWriteTokens)} written to cache` : ""]
    .filter(Boolean)
    .join(", ");
  const prompt = `${formatCount(e.inputTokens ?? 0)} prompt tokens${cache ? ` (${cache})` : ""}`;
  const output = `${formatCount(e.outputTokens ?? 0)} output${e.reasoningTokens ? ` (${formatCount(e.reasoningTokens)} reasoning)` : ""}`;
  const source = e.costSource === "modelInfo" ? "model info price" : "catalogue price";
  const cost = e.costUsd === null || e.costUsd === undefined ? "no price known" : `${e.costNotional ? "notional " : ""}cost ${formatUsd(e.costUsd)} (${source})`;
  return `Used ${prompt}, ${output}; ${cost}`;
}

function comboNote(e: RequestLogEntry): string {
  if (!e.combo) return "";
  return e.combo === e.model ? " (a combo)" : ` (combo ${e.combo})`;
}

export function timelineOf(e: RequestLogEntry, name: Names): TimelineStep[] {
  const client = e.clientKind ? CLIENT_LABELS[e.clientKind] : "a client";
  const steps: TimelineStep[] = [
    { kind: "received", tone: "muted", text: `Received from ${client} (${e.clientFormat} format${e.stream ? ", streaming" : ""}) for ${e.model}${comboNote(e)}` },
    ...classStep(e),
    ...(e.skipped ?? []).map((s): TimelineStep => ({ kind: "skipped", tone: "warn", text: skipText(s, name) })),
  ];
  if (e.comboWaits) steps.push({ kind: "wait", tone: "muted", text: `Waited ${e.comboWaits.count}× (${seconds(e.comboWaits.waitedMs)}) for a target to recover` });
  e.attempts.forEach((a, i) => steps.push(attemptStep(a, i + 1, name)));
  steps.push(...agentSteps(e, name), outcomeStep(e, name));
  const used = usageText(e);
  if (used) steps.push({ kind: "usage", tone: "muted", text: used });
  steps.push(...cacheShareStep(e));
  return steps;
}

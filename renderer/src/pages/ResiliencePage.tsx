// Resilience settings (R10): the tunables of the engine, one card per mechanism. Each field shows
// its documented range and whether it still has the built-in default; the server clamps and the
// card reports what it changed. Cooldown and lockout rules live on their own pages.
import { useEffect } from "react";
import { SettingsCard } from "../components/SettingsCard.js";
import type { SettingField } from "../settingsForm.js";
import { EmergencyFallbackCard } from "./resilience/EmergencyFallbackCard.js";
import { resilienceSettings } from "../stores/resources.js";

const CATEGORY_LABELS = { oauth: "OAuth", apikey: "API key", local: "Local" } as const;

function breakerFields(category: keyof typeof CATEGORY_LABELS): SettingField[] {
  const p = `providerBreaker.${category}`;
  const c = CATEGORY_LABELS[category];
  return [
    { path: `${p}.degradationThreshold`, label: `${c}: degraded after`, kind: "nullableInt", help: "failures" },
    { path: `${p}.failureThreshold`, label: `${c}: open after`, kind: "int", help: "failures" },
    { path: `${p}.resetTimeoutMs`, label: `${c}: reset timeout`, kind: "ms" },
    { path: `${p}.escalateAfter`, label: `${c}: escalate after`, kind: "int", help: "open cycles" },
    { path: `${p}.maxBackoffMultiplier`, label: `${c}: max open multiplier`, kind: "int" },
  ];
}

const SECTIONS: ReadonlyArray<{ title: string; description: string; fields: SettingField[] }> = [
  {
    title: "Provider circuit breakers",
    description: "A provider whose server keeps failing (408, 5xx, transport errors) is opened and skipped, then probed again (R2).",
    fields: [...breakerFields("oauth"), ...breakerFields("apikey"), ...breakerFields("local")],
  },
  {
    title: "Connection cooldown",
    description: "How long one account or key rests after a rate limit: base × 2^level up to the step cap, unless the upstream says when (R4).",
    fields: [
      { path: "connectionCooldown.oauth.baseCooldownMs", label: "OAuth: base cooldown", kind: "ms" },
      { path: "connectionCooldown.oauth.maxBackoffSteps", label: "OAuth: max backoff steps", kind: "int" },
      { path: "connectionCooldown.oauth.useUpstreamRetryHints", label: "OAuth: use upstream retry hints", kind: "bool" },
      { path: "connectionCooldown.apikey.baseCooldownMs", label: "API key: base cooldown", kind: "ms" },
      { path: "connectionCooldown.apikey.maxBackoffSteps", label: "API key: max backoff steps", kind: "int" },
      { path: "connectionCooldown.apikey.useUpstreamRetryHints", label: "API key: use upstream retry hints", kind: "bool" },
    ],
  },
  {
    title: "Request queue",
    description: "How long and how many requests may wait in a local queue per connection before they are sent (R9).",
    fields: [
      { path: "requestQueue.maxWaitMs", label: "Max wait in queue", kind: "ms", help: "0 = no budget" },
      { path: "requestQueue.executionMaxWaitMs", label: "Max execution time", kind: "ms" },
      { path: "requestQueue.maxQueueDepth", label: "Max queue depth", kind: "int", help: "0 = unbounded" },
      { path: "requestQueue.autoEnableApiKeyProviders", label: "Protect every API-key connection", kind: "bool" },
    ],
  },
  {
    title: "Combo cooldown wait",
    description: "When every target of a combo is briefly cooling down, wait for the first to come back instead of failing (R11.4).",
    fields: [
      { path: "comboCooldownWait.enabled", label: "Wait for a cooling target", kind: "bool" },
      { path: "comboCooldownWait.maxWaitMs", label: "Longest single wait", kind: "ms" },
      { path: "comboCooldownWait.maxAttempts", label: "Max waits per request", kind: "int" },
      { path: "comboCooldownWait.budgetMs", label: "Total wait budget", kind: "ms" },
    ],
  },
  {
    title: "Stream recovery and watchdogs",
    description: "Fail over a stream that breaks before its first byte, and abort streams that stall or trickle (R13).",
    fields: [
      { path: "streamRecovery.enabled", label: "Recover before the first byte", kind: "bool" },
      { path: "streamRecovery.midstreamEnabled", label: "Continue mid-stream", kind: "bool" },
      { path: "streamRecovery.contentStallTimeoutMs", label: "Content stall timeout", kind: "ms" },
      { path: "streamRecovery.idleTimeoutMs", label: "Idle timeout", kind: "ms" },
      { path: "streamRecovery.attemptDeadlineMs", label: "Attempt deadline", kind: "ms" },
      { path: "streamRecovery.throughputWatchdog.enabled", label: "Throughput watchdog", kind: "bool" },
      { path: "streamRecovery.throughputWatchdog.warmupMs", label: "Watchdog warm-up", kind: "ms" },
      { path: "streamRecovery.throughputWatchdog.windowMs", label: "Watchdog window", kind: "ms" },
      { path: "streamRecovery.throughputWatchdog.minBytesPerSec", label: "Minimum bytes per second", kind: "number" },
      { path: "streamRecovery.throughputWatchdog.minBytes", label: "Minimum measurable bytes", kind: "int" },
    ],
  },
  {
    title: "Latency-aware balancing",
    description: "How much the p2c strategy prefers faster, less failing connections; 0 turns the signal off (R4.10).",
    fields: [{ path: "p2cLatency.weight", label: "p2c latency weight", kind: "number" }],
  },
  {
    title: "Coding agents",
    description:
      "For agents such as Claude Code: keep reasoning a connection cannot verify out of its requests, let background work yield to the turns a user waits for, and wait briefly on the connection holding a session's warm prompt cache instead of moving it to a cold one (R20).",
    fields: [
      { path: "reasoningProvenance.enabled", label: "Remove reasoning another connection issued", kind: "bool", help: "signatures, encrypted reasoning, reasoning ids" },
      { path: "trafficClasses.enabled", label: "Background work yields first under pressure", kind: "bool", help: "at 429s and full queues" },
      { path: "trafficClasses.mainHeadroom", label: "Slots kept for main turns", kind: "int", help: "concurrency slots per connection that background work may not take" },
      { path: "waitOrSwitch.enabled", label: "Wait on the warm connection at a short 429", kind: "bool" },
      { path: "waitOrSwitch.maxWaitMs", label: "Longest wait for the warm connection", kind: "ms", help: "a longer retry hint moves the session" },
    ],
  },
  {
    title: "Billing boundary",
    description:
      "When a subscription's usage window is used up, what each kind of request does before it goes to a metered (pay-per-token) account: cross (fail over, marked on the request and notified once), wait (for a reset within the wait-or-switch budget, else stay) or stay (answer 429 until the window resets) (R21.5).",
    fields: [
      { path: "billingBoundary.main", label: "Main turns", kind: "choice" },
      { path: "billingBoundary.subagent", label: "Subagent turns", kind: "choice" },
      { path: "billingBoundary.background", label: "Background work (titles, suggestions)", kind: "choice" },
      { path: "billingBoundary.compaction", label: "Compaction", kind: "choice" },
      { path: "billingBoundary.count", label: "Token counts", kind: "choice" },
    ],
  },
];

export function ResiliencePage() {
  useEffect(() => resilienceSettings.watch(), []);
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Resilience settings</h1>
          <p className="muted">
            Changes apply to the next request. Out-of-range values are clamped by the server, and the card says so. “custom” marks a value that differs from the built-in default;
            Reset returns it to the default (or to its environment variable, when one is set).
          </p>
        </div>
      </header>
      {SECTIONS.map((section) => (
        <SettingsCard key={section.title} title={section.title} description={section.description} fields={section.fields} />
      ))}
      <EmergencyFallbackCard />
    </div>
  );
}

// Display helpers shared by pages: durations and a connection's effective status.
import type { Connection, TestStatus } from "../../shared/types.js";
import { TERMINAL_TEST_STATUSES } from "../../shared/types.js";

/** "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h": two units at most, rounded up so 0.4 s shows as 1 s. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

export type StatusTone = "ok" | "warn" | "bad" | "muted";

export interface ConnectionStatusView {
  label: string;
  tone: StatusTone;
  /** Remaining cooldown in ms when the connection is cooling down, else null. */
  coolingMs: number | null;
}

const TEST_STATUS_LABELS: Record<TestStatus, string> = {
  active: "Active",
  unavailable: "Unavailable",
  banned: "Banned",
  expired: "Expired",
  credits_exhausted: "Credits exhausted",
};

export function connectionStatus(connection: Pick<Connection, "testStatus" | "rateLimitedUntil" | "active">, now: number): ConnectionStatusView {
  const coolingMs = connection.rateLimitedUntil !== null && connection.rateLimitedUntil > now ? connection.rateLimitedUntil - now : null;
  const base = TEST_STATUS_LABELS[connection.testStatus] ?? connection.testStatus;
  if (TERMINAL_TEST_STATUSES.includes(connection.testStatus)) return { label: base, tone: "bad", coolingMs };
  if (!connection.active) return { label: `${base} (disabled)`, tone: "muted", coolingMs };
  if (coolingMs !== null) return { label: `Cooling down · ${formatRemaining(coolingMs)} left`, tone: "warn", coolingMs };
  if (connection.testStatus === "unavailable") return { label: base, tone: "warn", coolingMs };
  return { label: base, tone: "ok", coolingMs };
}

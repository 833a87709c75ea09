// Display helpers shared by pages: durations and a connection's effective status.
import type { Connection, TestStatus } from "../../shared/types.js";
import { TERMINAL_TEST_STATUSES } from "../../shared/types.js";
import { formatRemaining } from "../../shared/usageText.js";

// The same wording as the tray menu, which cannot import the renderer.
export { formatRemaining };

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

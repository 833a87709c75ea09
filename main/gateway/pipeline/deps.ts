// What the attempt loop is built from (pipeline.ts, attemptRun.ts): the catalog, the engine, admission,
// the upstream call, the features, and the optional parts (routing, budgets, usage, quotas).
import type { SwitchyardEvent } from "../../../shared/types.js";
import type { ComboWaitSettings } from "../../engine/comboWait.js";
import type { Clock } from "../../engine/ports.js";
import type { RequestFeatures } from "../features/index.js";
import type { BudgetPort, CatalogPort, ConnectionsPort, ErrorLog, RequestLogSink } from "../context/ports.js";
import type { GatewayAdmission } from "./admit.js";
import type { EmergencyFallbackSetting } from "./fallback.js";
import type { RecordingEngine } from "./record.js";
import type { SelectionEngine } from "./select.js";
import type { UsageMeter } from "../context/requestRecord.js";
import type { ComboRouter } from "./routing/comboRouter.js";
import type { LearnedQuotas } from "./routing/learnedQuota.js";
import type { QuotaObserver } from "../context/usage/quotaHeaders.js";
import type { StreamBudgets } from "./streaming/relay.js";
import type { CallUpstream } from "../upstream/call.js";

export interface PipelineBudgets extends StreamBudgets {
  /** R13.2: fail over on a stream failure before any client-visible content. */
  recoveryEnabled: boolean;
  /** R13.3: continue a stream that broke after text on another connection (absent = off). */
  midstreamEnabled?: boolean;
  /** Keep-alive frames to a waiting streaming client (Anthropic `ping`, SSE comments for OpenAI). */
  heartbeatMs: number;
}

export interface PipelineDeps {
  catalog: CatalogPort;
  connections: ConnectionsPort;
  requestLog: RequestLogSink;
  engine: SelectionEngine & RecordingEngine;
  admission: GatewayAdmission;
  callUpstream: CallUpstream;
  clock: Clock;
  streamBudgets: () => PipelineBudgets;
  /** Live events for the dashboard (R15.2): one `request` event per finished request. */
  emit: (event: SwitchyardEvent) => void;
  /** The request features (features/index.ts), called at their hooks in their one order. */
  features: RequestFeatures;
  /** R11.6: the emergency fallback in force (absent = off). */
  emergencyFallback?: () => EmergencyFallbackSetting;
  /** Combo routing (R11.1, R11.4); absent, combos keep their stored order and never wait. */
  routing?: PipelineRouting;
  /** The promptLogging setting (absent = off): the request log keeps prompt text only when true. */
  promptLogging?: () => boolean;
  /** R18.4: key budgets, checked on arrival and after a wait (absent = none enforced). */
  budgets?: BudgetPort;
  /** R18.1, R18.4: prices each request's row and counts it against the budgets (absent = unpriced). */
  usageMeter?: UsageMeter;
  /** R18.3: hears every attempt's response headers, for the quota meters (absent = none kept). */
  quotas?: QuotaObserver;
  /**
   * R25.6: waitOrSwitch.maxWaitMs, the longest a request's waits may add up to; a wait longer than a
   * minute that fits is held rather than handed out as a Retry-After (absent: never held).
   */
  maxHeldWaitMs?: () => number;
  /** Failures inside Switchyard, logged with the request id (absent: not logged). */
  logger?: ErrorLog;
}

export interface PipelineRouting {
  router: ComboRouter;
  quotas: LearnedQuotas;
  comboWait: () => ComboWaitSettings;
  random: () => number;
}

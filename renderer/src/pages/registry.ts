// Every page of the window (R14.2) registers here; the sidebar and the router read this list,
// so a new page is one import and one entry.
import type { ComponentType } from "react";
import { ApiKeysPage } from "./ApiKeysPage.js";
import { CombosPage } from "./CombosPage.js";
import { ConfigPage } from "./config/ConfigPage.js";
import { ConnectPage } from "./connect/ConnectPage.js";
import { CooldownManagerPage } from "./cooldowns/CooldownManagerPage.js";
import { HealthPage } from "./health/HealthPage.js";
import { ModelCooldownsPage } from "./ModelCooldownsPage.js";
import { ProvidersPage } from "./ProvidersPage.js";
import { RequestLogPage } from "./RequestLogPage.js";
import { ResiliencePage } from "./ResiliencePage.js";
import { SessionsPage } from "./sessions/SessionsPage.js";
import { UsagePage } from "./usage/UsagePage.js";

export interface PageDefinition {
  id: string;
  title: string;
  Component: ComponentType;
}

export const PAGES: readonly PageDefinition[] = [
  { id: "providers", title: "Providers & connections", Component: ProvidersPage },
  { id: "connect", title: "Connect your tools", Component: ConnectPage },
  { id: "combos", title: "Combos", Component: CombosPage },
  { id: "keys", title: "API keys", Component: ApiKeysPage },
  { id: "cooldowns", title: "Cooldown Manager", Component: CooldownManagerPage },
  { id: "model-cooldowns", title: "Model Cooldowns", Component: ModelCooldownsPage },
  { id: "sessions", title: "Sessions & leases", Component: SessionsPage },
  { id: "resilience", title: "Resilience settings", Component: ResiliencePage },
  { id: "logs", title: "Request log", Component: RequestLogPage },
  { id: "health", title: "Health", Component: HealthPage },
  { id: "usage", title: "Usage", Component: UsagePage },
  { id: "config", title: "Import & export", Component: ConfigPage },
];

export const DEFAULT_PAGE_ID = "providers";

// The routing parts the pipeline needs (R11.1, R11.4), wired to the live resilience settings.
import type { ResilienceSettings } from "../../../../shared/resilienceSettings.js";
import { ComboRouter } from "./comboRouter.js";
import { LearnedQuotas } from "./learnedQuota.js";

export function createRouting(settings: () => Pick<ResilienceSettings, "p2cLatency" | "comboCooldownWait">) {
  const quotas = new LearnedQuotas();
  return {
    router: new ComboRouter(quotas, () => settings().p2cLatency.weight),
    quotas,
    comboWait: () => settings().comboCooldownWait,
    random: Math.random,
  };
}

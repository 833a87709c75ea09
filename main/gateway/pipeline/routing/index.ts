// The routing parts the pipeline needs (R11.1, R11.4), wired to the live resilience settings.
import type { ResilienceSettings } from "../../../../shared/resilienceSettings.js";
import { createPricer } from "../../context/usage/pricing.js";
import { ComboRouter } from "./comboRouter.js";
import { LearnedQuotas } from "./learnedQuota.js";

/** R25.1: the context strategies read each target's window as the gateway knows it (absent: modelInfo's). */
type Windows = ConstructorParameters<typeof ComboRouter>[3];

export function createRouting(settings: () => Pick<ResilienceSettings, "p2cLatency" | "comboCooldownWait">, windows: Windows = null) {
  const quotas = new LearnedQuotas();
  return {
    router: new ComboRouter(quotas, () => settings().p2cLatency.weight, createPricer(), windows),
    quotas,
    comboWait: () => settings().comboCooldownWait,
    random: Math.random,
  };
}

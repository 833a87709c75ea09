// The mark on a setting that is saved but that no code acts on yet (issue 8: nothing pretends).
// The visible words say it; the title says which feature will make it live.
import { inactiveReason, strategyInactiveReason } from "../inactiveSettings.js";

export function NotActiveYet({ reason }: { reason: string }) {
  return (
    <span className="badge badge-inactive" title={`Saved, but nothing acts on it yet. It becomes live with ${reason}.`}>
      not active yet
    </span>
  );
}

/** The mark for a setting of INACTIVE_SETTINGS, or nothing once its feature is live. */
export function NotActiveYetFor({ setting }: { setting: string }) {
  const reason = inactiveReason(setting);
  return reason === null ? null : <NotActiveYet reason={reason} />;
}

/** The mark for a combo strategy the gateway does not follow yet. */
export function StrategyNotActiveYet({ strategy }: { strategy: string }) {
  const reason = strategyInactiveReason(strategy);
  return reason === null ? null : <NotActiveYet reason={reason} />;
}

// What the page's last action did: announced politely when it worked, as an alert when it failed.
export interface ActionOutcome {
  ok: boolean;
  text: string;
}

export function ActionMessage({ outcome }: { outcome: ActionOutcome | null }) {
  if (!outcome) return null;
  return (
    <p role={outcome.ok ? "status" : "alert"} className={outcome.ok ? "notice-ok" : "error-banner"}>
      {outcome.text}
    </p>
  );
}

// A destructive action asks once more in place (no window.confirm: it blocks the window and is
// invisible to keyboard-only flows in some shells). The second button names what will happen.
import { useState } from "react";

export function ConfirmButton(props: {
  label: string;
  /** Longer accessible name when the visible label relies on its row for context ("Delete" → "Delete Key A"). */
  ariaLabel?: string;
  confirmLabel: string;
  onConfirm(): void | Promise<void>;
  disabled?: boolean;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  // Callers show their own failure (a page's error line); a click only needs the button restored after.
  async function confirm() {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  }
  if (!asking) {
    return (
      <button type="button" className={props.className ?? "secondary small"} aria-label={props.ariaLabel} disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span className="nowrap" role="group" aria-label={props.confirmLabel}>
      <button type="button" className="danger small" disabled={busy} onClick={() => void confirm()}>
        {props.confirmLabel}
      </button>{" "}
      <button type="button" className="secondary small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

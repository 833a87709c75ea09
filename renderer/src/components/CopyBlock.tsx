// A block of text to paste somewhere else, with a button that copies exactly that text.
import { useState } from "react";

export function CopyBlock({ label, text }: { label: string; text: string }) {
  const [note, setNote] = useState<string | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setNote("Copied.");
    } catch {
      setNote("The browser refused clipboard access: select the text and copy it by hand.");
    }
  }
  return (
    <div className="copy-block">
      <pre>
        <code>{text}</code>
      </pre>
      <div className="toolbar">
        <button type="button" className="secondary" onClick={() => void copy()} aria-label={`Copy ${label}`}>
          Copy
        </button>
        <span role="status" className="muted">
          {note}
        </span>
      </div>
    </div>
  );
}

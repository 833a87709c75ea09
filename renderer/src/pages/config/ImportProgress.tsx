// Where an import is: read the file, check it (the preview), apply it, done. A long document takes
// visible steps instead of a frozen button.
export type ImportStage = "idle" | "reading" | "checking" | "previewed" | "applying" | "done" | "failed";

const STEPS: Record<Exclude<ImportStage, "idle">, { value: number; text: string }> = {
  reading: { value: 1, text: "Step 1 of 4: reading the file…" },
  checking: { value: 2, text: "Step 2 of 4: checking the document and working out the changes…" },
  previewed: { value: 2, text: "Step 2 of 4: checked. Review the changes, then apply." },
  applying: { value: 3, text: "Step 3 of 4: applying everything in one transaction…" },
  done: { value: 4, text: "Step 4 of 4: done." },
  failed: { value: 0, text: "Stopped: nothing was changed." },
};

export function ImportProgress({ stage }: { stage: ImportStage }) {
  if (stage === "idle") return null;
  const step = STEPS[stage];
  return (
    <div className="import-progress">
      <progress max={4} value={step.value} aria-label="Import progress" />
      <p role="status">{step.text}</p>
    </div>
  );
}

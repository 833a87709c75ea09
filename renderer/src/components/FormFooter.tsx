// The end of every entity form: submit, cancel, and the error that belongs to no single field.
export function FormFooter({ submitLabel, saving, onCancel, error }: { submitLabel: string; saving: boolean; onCancel: () => void; error: string | null }) {
  return (
    <>
      <div className="form-actions">
        <button type="submit" disabled={saving}>
          {submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
    </>
  );
}

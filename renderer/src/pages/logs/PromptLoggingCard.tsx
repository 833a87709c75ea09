// The prompt-logging setting, next to the log it affects: off by default; on keeps each request's
// prompt text for a limited number of hours, then erases it from the row. Beside it the other
// place prompt text is kept: stored Responses API turns (R16.4), with their own retention.
import { useEffect, useState, type SubmitEvent } from "react";
import { APP_SETTINGS_LIMITS } from "../../../../shared/appSettings.js";
import { ActionMessage, type ActionOutcome } from "../../components/ActionMessage.js";
import { CheckboxField, TextField } from "../../components/Field.js";
import { errorText } from "../../stores/liveResource.js";
import { appSettings } from "../../stores/resources.js";
import { call } from "../../transport.js";

const RANGE = APP_SETTINGS_LIMITS.promptRetentionHours;
const TURNS_RANGE = APP_SETTINGS_LIMITS.responsesRetentionHours;

function turnsText(hours: number): string {
  return hours === 0 ? "No Responses API turn is stored." : `Responses API turns are kept ${hours} h.`;
}

export function PromptLoggingCard() {
  useEffect(() => appSettings.watch(), []);
  const settings = appSettings.use((s) => s.data);
  const [enabled, setEnabled] = useState(false);
  const [hours, setHours] = useState("24");
  const [turnHours, setTurnHours] = useState("24");
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  useEffect(() => {
    if (!settings) return;
    setEnabled(settings.promptLogging);
    setHours(String(settings.promptRetentionHours));
    setTurnHours(String(settings.responsesRetentionHours));
  }, [settings]);

  async function save(event: SubmitEvent) {
    event.preventDefault();
    const retention = Number(hours);
    if (!Number.isFinite(retention) || retention < RANGE.min || retention > RANGE.max) {
      setOutcome({ ok: false, text: `Retention must be ${RANGE.min} to ${RANGE.max} hours.` });
      return;
    }
    const turnRetention = Number(turnHours);
    if (!Number.isInteger(turnRetention) || turnRetention < TURNS_RANGE.min || turnRetention > TURNS_RANGE.max) {
      setOutcome({ ok: false, text: `Responses API turns are kept ${TURNS_RANGE.min} to ${TURNS_RANGE.max} whole hours.` });
      return;
    }
    try {
      const next = await call("patchSettings", { promptLogging: enabled, promptRetentionHours: retention, responsesRetentionHours: turnRetention });
      const prompts = next.promptLogging
        ? `Prompt logging is on: prompts are kept ${next.promptRetentionHours} h.`
        : "Prompt logging is off: no prompt is kept, and those logged before were erased.";
      setOutcome({ ok: true, text: `${prompts} ${turnsText(next.responsesRetentionHours)}` });
    } catch (err) {
      setOutcome({ ok: false, text: `Could not save: ${errorText(err)}` });
    }
  }

  return (
    <form className="card" onSubmit={(e) => void save(e)} aria-labelledby="prompt-logging-title">
      <h2 id="prompt-logging-title">Prompt logging</h2>
      <p className="muted">Off by default: the log keeps what happened to a request, never what it said. Secrets are never logged.</p>
      <p className="muted">
        Stored Responses API responses do hold prompt text: so that a client can continue with <code>previous_response_id</code>, each one (its input and output, never a key) is
        kept for <code>responsesRetentionHours</code> (default 24 h) unless the request says <code>store: false</code>; set it to 0 to store none.
      </p>
      <div className="form-grid">
        <CheckboxField label="Keep the prompt text of each request" checked={enabled} onChange={setEnabled} />
        <TextField label="Keep prompts for (hours)" inputMode="numeric" value={hours} onChange={setHours} hint={`${RANGE.min}–${RANGE.max} hours`} disabled={!enabled} />
        <TextField
          label="Keep Responses API turns for (hours)"
          inputMode="numeric"
          value={turnHours}
          onChange={setTurnHours}
          hint={`${TURNS_RANGE.min}–${TURNS_RANGE.max} hours; 0 stores none`}
        />
      </div>
      <div className="form-actions">
        <button type="submit">Save prompt retention</button>
      </div>
      <ActionMessage outcome={outcome} />
    </form>
  );
}

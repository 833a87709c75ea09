// The ordered targets of a combo. Order matters (priority, fill-first…), so it can be changed by
// dragging a row by its handle or, for keyboards and screen readers, with Move up / Move down
// buttons; focus stays on the moved row and a live region announces the new position.
import { useEffect, useRef, useState } from "react";
import type { Connection } from "../../../../shared/types.js";
import { Field, TextField } from "../../components/Field.js";
import { NotActiveYetFor } from "../../components/NotActiveYet.js";
import { moveItem, newTargetDraft, providerOf, type TargetDraft } from "./targets.js";

interface Props {
  targets: TargetDraft[];
  onChange(targets: TargetDraft[]): void;
  connections: Connection[];
  /** Per-target field errors from the server, keyed "0.model", "1.weight"… */
  errors: Record<string, string>;
}

export function TargetList({ targets, onChange, connections, errors }: Props) {
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const [focusAfterMove, setFocusAfterMove] = useState<{ key: string; direction: "up" | "down" } | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (!focusAfterMove || !listRef.current) return;
    const pick = (dir: string) => listRef.current!.querySelector<HTMLButtonElement>(`button[data-move="${focusAfterMove.key}-${dir}"]:not(:disabled)`);
    (pick(focusAfterMove.direction) ?? pick(focusAfterMove.direction === "up" ? "down" : "up"))?.focus();
    setFocusAfterMove(null);
  }, [focusAfterMove]);

  function move(from: number, to: number, viaKeyboard: "up" | "down" | null) {
    const moved = targets[from];
    if (!moved || to < 0 || to >= targets.length || from === to) return;
    onChange(moveItem(targets, from, to));
    setAnnouncement(`${moved.model || "Target"} moved to position ${to + 1} of ${targets.length}.`);
    if (viaKeyboard) setFocusAfterMove({ key: moved.key, direction: viaKeyboard });
  }

  const update = (index: number, change: Partial<TargetDraft>) => onChange(targets.map((t, i) => (i === index ? { ...t, ...change } : t)));

  return (
    <>
      <ol className="target-list" ref={listRef} aria-label="Targets, tried in this order">
        {targets.map((target, index) => {
          const name = target.model || `target ${index + 1}`;
          const provider = providerOf(target.model);
          const pinnable = connections.filter((c) => c.provider === provider);
          return (
            <li
              key={target.key}
              className={dragOver === index && dragFrom !== index ? "drag-over" : undefined}
              onDragOver={(e) => {
                if (dragFrom === null) return;
                e.preventDefault();
                setDragOver(index);
              }}
              onDragLeave={() => setDragOver((o) => (o === index ? null : o))}
              onDrop={(e) => {
                e.preventDefault();
                if (dragFrom !== null) move(dragFrom, index, null);
                setDragFrom(null);
                setDragOver(null);
              }}
            >
              <span
                className="drag-handle"
                draggable
                title="Drag to reorder"
                aria-hidden="true"
                data-testid={`drag-${index}`}
                onDragStart={(e) => {
                  setDragFrom(index);
                  e.dataTransfer.effectAllowed = "move";
                  e.dataTransfer.setData("text/plain", String(index));
                  const row = e.currentTarget.parentElement;
                  if (row) e.dataTransfer.setDragImage(row, 12, 12);
                }}
                onDragEnd={() => {
                  setDragFrom(null);
                  setDragOver(null);
                }}
              >
                ⠿ {index + 1}
              </span>
              <TextField
                label={`Target ${index + 1} model`}
                list="combo-models"
                value={target.model}
                onChange={(model) => update(index, { model })}
                hint="provider/model"
                error={errors[`${index}.model`]}
              />
              <Field label={`Target ${index + 1} connection`} error={errors[`${index}.connectionId`]}>
                {(a11y) => (
                  <select {...a11y} value={target.connectionId} onChange={(e) => update(index, { connectionId: e.target.value })}>
                    <option value="">Any connection</option>
                    {pinnable.map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <TextField
                label={`Target ${index + 1} weight`}
                inputMode="decimal"
                size={5}
                value={target.weight}
                onChange={(weight) => update(index, { weight })}
                hint={
                  <>
                    <NotActiveYetFor setting="combo.targets.weight" /> weighted only
                  </>
                }
                error={errors[`${index}.weight`]}
              />
              <span className="nowrap">
                <button type="button" className="secondary small" data-move={`${target.key}-up`} disabled={index === 0} onClick={() => move(index, index - 1, "up")}>
                  Move {name} up
                </button>{" "}
                <button
                  type="button"
                  className="secondary small"
                  data-move={`${target.key}-down`}
                  disabled={index === targets.length - 1}
                  onClick={() => move(index, index + 1, "down")}
                >
                  Move {name} down
                </button>{" "}
                <button type="button" className="secondary small" disabled={targets.length === 1} onClick={() => onChange(targets.filter((_, i) => i !== index))}>
                  Remove {name}
                </button>
              </span>
            </li>
          );
        })}
      </ol>
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      <button type="button" className="secondary small" onClick={() => onChange([...targets, newTargetDraft()])}>
        Add target
      </button>
    </>
  );
}

// Pure rules of the combo target editor: order changes (drag or buttons) and the body sent.
import type { ComboTarget } from "../../../../shared/types.js";

export interface TargetDraft {
  /** Stable React key; survives reordering, never sent. */
  key: string;
  model: string;
  connectionId: string;
  weight: string;
}

let nextKey = 0;
export function newTargetDraft(target?: ComboTarget): TargetDraft {
  nextKey += 1;
  return {
    key: `t${nextKey}`,
    model: target?.model ?? "",
    connectionId: target?.connectionId ?? "",
    weight: target?.weight === undefined ? "" : String(target.weight),
  };
}

/** Moves the item at `from` so that it ends up at index `to`; out-of-range moves change nothing. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

/** Drafts -> API targets; a typed non-number weight is sent as is so the server names the field. */
export function toTargets(drafts: readonly TargetDraft[]): ComboTarget[] {
  return drafts.map((d) => {
    const target: ComboTarget = { model: d.model.trim() };
    if (d.connectionId) target.connectionId = d.connectionId;
    if (d.weight.trim() !== "") target.weight = Number(d.weight.trim());
    return target;
  });
}

/** The provider part of "provider/model", for choosing which connections a target may pin. */
export function providerOf(model: string): string | null {
  const slash = model.indexOf("/");
  return slash > 0 ? model.slice(0, slash) : null;
}

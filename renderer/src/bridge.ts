// The object the Electron preload puts on `window.switchyard` (see preload/index.cts). Its
// absence is how the renderer knows it runs in a plain browser and must use HTTP instead.
import type { ContractMethod } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";

export interface SwitchyardBridge {
  /**
   * Resolves with the method's output; rejects with a `ContractError`-shaped plain object. Untyped
   * like fetch: the IPC transport is where an answer gets its method's type.
   */
  invoke(method: ContractMethod, input: object): Promise<unknown>;
  /** Registers a listener for pushed events; returns the function that removes it. */
  onEvent(listener: (event: SwitchyardEvent) => void): () => void;
}

declare global {
  interface Window {
    switchyard?: SwitchyardBridge;
  }
}

export function findBridge(): SwitchyardBridge | null {
  return typeof window !== "undefined" && window.switchyard ? window.switchyard : null;
}

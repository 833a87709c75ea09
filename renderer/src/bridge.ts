// The object the Electron preload puts on `window.switchyard` (see preload/index.cts). Its
// absence is how the renderer knows it runs in a plain browser and must use HTTP instead.
import type { ContractCallArgs, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";

export interface SwitchyardBridge {
  /**
   * Resolves with the method's output (main answered through the method's contract handler);
   * rejects with a `ContractError`-shaped plain object. An absent input is sent as `{}`.
   */
  invoke<M extends ContractMethod>(method: M, ...args: ContractCallArgs<M>): Promise<ContractOutput<M>>;
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

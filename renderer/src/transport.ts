// The renderer's only way to reach the backend (DESIGN: renderer -> transport). IPC when the
// Electron preload bridge exists, HTTP with the admin token otherwise; pages never know which.
import type { ContractCallArgs, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";
import { findBridge } from "./bridge.js";
import { ContractCallError } from "./callError.js";
import { createHttpTransport } from "./httpTransport.js";
import { createIpcTransport } from "./ipcTransport.js";
import { takeAdminToken } from "./token.js";
import type { EventStreamState, Transport } from "./transportTypes.js";

export type { EventStreamState, Transport } from "./transportTypes.js";
export type { ContractOutput, ContractRequest } from "../../shared/contract.js";
export { ContractCallError } from "./callError.js";

let active: Transport | null = null;

export type ConnectResult = { kind: "ipc" | "http"; transport: Transport } | { kind: "missing-token" };

/** Picks the transport for this page load; called once at start-up by the session store. */
export function connect(options: { onUnauthorized?: () => void } = {}): ConnectResult {
  const bridge = findBridge();
  if (bridge) {
    active = createIpcTransport(bridge);
    return { kind: "ipc", transport: active };
  }
  const token = takeAdminToken({ location: window.location, storage: window.sessionStorage, history: window.history });
  if (!token) {
    active = null;
    return { kind: "missing-token" };
  }
  active = createHttpTransport({ token, onUnauthorized: options.onUnauthorized });
  return { kind: "http", transport: active };
}

/** Drops the transport (the token was refused): further calls fail until a new token arrives. */
export function disconnect(): void {
  active = null;
}

export function call<M extends ContractMethod>(method: M, ...args: ContractCallArgs<M>): Promise<ContractOutput<M>> {
  if (!active) return Promise.reject(new ContractCallError("not_connected", "Not connected to Switchyard"));
  return active.call(method, ...args);
}

export function subscribeEvents(listener: (event: SwitchyardEvent) => void, onState?: (state: EventStreamState) => void): () => void {
  if (!active) {
    onState?.("closed");
    return () => undefined;
  }
  return active.subscribe(listener, onState);
}

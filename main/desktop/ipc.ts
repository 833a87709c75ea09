// The IPC adapter (R14.3): the renderer's contract calls arrive on one channel and are checked
// the way VS Code's ValidatedIpcMain does before any handler runs — who sent it (our window's
// main frame, our origin), what it asks for (a contract method) and with what (a plain object
// that passes the method's contract schema, the same one the HTTP adapter applies).
//
// `ipcMain` is typed structurally so this file never imports electron and runs under plain Node
// in unit tests; main/desktop/electron-main.ts passes the real one.
import { CONTRACT, IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type ContractError, type ContractHandlers, type ContractMethod } from "../../shared/contract.js";
import { isPlainRecord } from "../../shared/records.js";
import type { SwitchyardEvent } from "../../shared/types.js";
import { invokeContract, isAvailable } from "../api/index.js";

/** The parts of Electron's WebFrameMain the checks read. */
export interface SenderFrame {
  readonly url: string;
  readonly parent: SenderFrame | null;
  readonly processId: number;
  readonly routingId: number;
}

export interface InvokeEvent {
  readonly senderFrame: SenderFrame | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/**
 * What main sends back for every invoke. Electron reduces an error thrown in a handler to a
 * message string, so failures travel as data and the preload turns them into a rejection that
 * keeps the error `code`.
 */
export type IpcReply = { ok: true; value: unknown } | ({ ok: false } & ContractError);

export interface IpcPolicy {
  /** True only for the main frame of our window showing our app origin. */
  isTrustedSender(frame: SenderFrame): boolean;
  /** Receives unexpected handler errors (the renderer only gets `internal_error`). */
  onInternalError?(err: unknown, method: unknown): void;
}

/** A call refused by the adapter itself; shaped like ApiError so it renders the same way. */
export class IpcRejection extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "IpcRejection";
  }
}

export function isContractMethod(value: unknown): value is ContractMethod {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(CONTRACT, value);
}

/** Registers the invoke channel; returns the function that unregisters it. */
export function registerIpc(ipcMain: IpcMainLike, handlers: ContractHandlers, policy: IpcPolicy): () => void {
  ipcMain.handle(IPC_INVOKE_CHANNEL, async (event, method, input) => {
    try {
      const value = await dispatch(event, method, input, handlers, policy);
      return { ok: true, value } satisfies IpcReply;
    } catch (err) {
      const known = toContractErrorBody(err);
      if (!known) (policy.onInternalError ?? logInternalError)(err, method);
      return { ok: false, error: known ?? { code: "internal_error", message: "internal error" } } satisfies IpcReply;
    }
  });
  return () => ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
}

function logInternalError(err: unknown, method: unknown): void {
  console.error(`switchyard ipc: internal error in ${String(method)}`, err);
}

async function dispatch(event: InvokeEvent, method: unknown, input: unknown, handlers: ContractHandlers, policy: IpcPolicy): Promise<unknown> {
  const frame = event.senderFrame;
  // A null frame means it navigated away or was destroyed while the message was in flight.
  if (!frame) throw new IpcRejection(403, "ipc_forbidden", "IPC sender frame is gone");
  if (frame.parent !== null) throw new IpcRejection(403, "ipc_forbidden", "IPC from a sub-frame is not allowed");
  if (!policy.isTrustedSender(frame)) throw new IpcRejection(403, "ipc_forbidden", "IPC sender is not the Switchyard window");
  if (!isContractMethod(method)) throw new IpcRejection(404, "unknown_method", `Unknown method: ${String(method).slice(0, 80)}`);
  const body = input === undefined ? {} : input;
  if (!isPlainRecord(body)) throw new IpcRejection(400, "invalid_request", `Input of ${method} must be a plain object`);
  if (!isAvailable(handlers[method])) throw new IpcRejection(404, "not_found", `${method} is not available in this mode`);
  return await invokeContract(handlers, method, body);
}

/**
 * Renders a failure the way the HTTP adapter does (main/api/httpAdapter.ts): an ApiError-shaped
 * error (numeric `status`, string `code` and `message`, optional `path`) keeps its fields; any
 * other error is an internal one whose message may hold internals, so it is replaced.
 */
export function toContractErrorBody(err: unknown): ContractError["error"] | null {
  if (typeof err !== "object" || err === null) return null;
  const e = err as { status?: unknown; code?: unknown; message?: unknown; path?: unknown };
  if (typeof e.status !== "number" || typeof e.code !== "string" || typeof e.message !== "string") return null;
  return { code: e.code, message: e.message, ...(typeof e.path === "string" ? { path: e.path } : {}) };
}

/** The window's frame identity and origin, checked on every call (the frame may have navigated). */
export function createSenderPolicy(options: { appOrigin: string; mainFrame(): SenderFrame | null }): IpcPolicy {
  return {
    isTrustedSender(frame) {
      const main = options.mainFrame();
      if (!main || main.processId !== frame.processId || main.routingId !== frame.routingId) return false;
      return originOf(frame.url) === options.appOrigin;
    },
  };
}

export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? null : parsed.origin;
  } catch {
    return null;
  }
}

export interface EventTarget {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

/** Pushes every bus event to the window (R15.2) while it exists; returns the unsubscribe. */
export function forwardEvents(bus: { subscribe(listener: (event: SwitchyardEvent) => void): () => void }, target: () => EventTarget | null): () => void {
  return bus.subscribe((event) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event);
  });
}

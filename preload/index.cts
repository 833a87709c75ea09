// The only bridge between the sandboxed renderer and main (R0.1, R14.3). It exposes exactly
// `window.switchyard = { invoke, onEvent }`: no ipcRenderer, no channel names, no Node.
//
// A sandboxed preload can `require` nothing but "electron" (and a few built-ins), and it must be
// CommonJS; so shared/contract.ts is imported for TYPES only and the method list is written out
// here. The `Record<ContractMethod, true>` annotation makes the compiler reject this list as soon
// as it differs from the contract in either direction.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import type { ContractError, ContractMethod, IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from "../shared/contract.js";
import type { IpcReply } from "../main/desktop/ipc.js";

const INVOKE_CHANNEL: typeof IPC_INVOKE_CHANNEL = "switchyard:invoke";
const EVENT_CHANNEL: typeof IPC_EVENT_CHANNEL = "switchyard:event";

const CONTRACT_METHODS: Record<ContractMethod, true> = {
  listProviders: true,
  getProvider: true,
  createProvider: true,
  updateProvider: true,
  replaceProvider: true,
  deleteProvider: true,
  doctorProvider: true,
  listConnections: true,
  getConnection: true,
  createConnection: true,
  updateConnection: true,
  replaceConnection: true,
  deleteConnection: true,
  testConnection: true,
  listCombos: true,
  createCombo: true,
  updateCombo: true,
  deleteCombo: true,
  listKeys: true,
  createKey: true,
  updateKey: true,
  deleteKey: true,
  getUsage: true,
  getUsageCsv: true,
  listQuotas: true,
  getResilience: true,
  patchResilience: true,
  getResilienceSources: true,
  resetBreakers: true,
  listCooldowns: true,
  clearCooldowns: true,
  listModelCooldowns: true,
  clearModelCooldowns: true,
  monitoringHealth: true,
  requestStats: true,
  setRateLimitProtection: true,
  listSessionPins: true,
  unpinSession: true,
  listSessionLeases: true,
  releaseSessionLease: true,
  getSettings: true,
  patchSettings: true,
  listLogs: true,
  getLog: true,
  listClientActivity: true,
  exportConfig: true,
  importConfig: true,
  previewConfigImport: true,
  startDemo: true,
  getInstance: true,
  getClock: true,
  advanceClock: true,
};

function failure(code: string, message: string): ContractError {
  return { error: { code, message } };
}

/** shared/records.ts isPlainRecord, restated: a sandboxed preload can require nothing of ours. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The main process's reply, checked field by field: nothing that crossed IPC is taken on trust. */
function readReply(reply: unknown): IpcReply | null {
  if (!isPlainObject(reply)) return null;
  if (reply.ok === true) return { ok: true, value: reply.value };
  const error = reply.error;
  if (reply.ok !== false || !isPlainObject(error) || typeof error.code !== "string" || typeof error.message !== "string") return null;
  return { ok: false, error: { code: error.code, message: error.message, ...(typeof error.path === "string" ? { path: error.path } : {}) } };
}

const bridge = {
  /** Rejects with a plain `{error:{code,message}}`: contextBridge drops custom fields of Errors. */
  async invoke(method: unknown, input?: unknown): Promise<unknown> {
    if (typeof method !== "string" || !Object.prototype.hasOwnProperty.call(CONTRACT_METHODS, method)) {
      throw failure("unknown_method", `Unknown method: ${String(method).slice(0, 80)}`);
    }
    if (input !== undefined && !isPlainObject(input)) throw failure("invalid_request", `Input of ${method} must be a plain object`);
    const reply = readReply(await ipcRenderer.invoke(INVOKE_CHANNEL, method, input ?? {}));
    if (reply?.ok === true) return reply.value;
    if (reply?.ok === false) {
      const rejection: ContractError = { error: reply.error };
      throw rejection;
    }
    throw failure("ipc_error", "Malformed reply from the main process");
  },

  /** The listener gets the event payload only, never Electron's event object (it holds `sender`). */
  onEvent(listener: unknown): () => void {
    if (typeof listener !== "function") throw new TypeError("onEvent needs a function");
    const forward = (_event: IpcRendererEvent, payload: unknown) => {
      listener(payload);
    };
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld("switchyard", bridge);

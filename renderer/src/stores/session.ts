// Session concern: which transport this page uses, and whether it may talk to the backend.
import { create } from "zustand";
import { forgetAdminToken } from "../token.js";
import { connect, disconnect } from "../transport.js";

export type SessionStatus = "starting" | "ready" | "missing-token" | "unauthorized";

interface SessionState {
  status: SessionStatus;
  mode: "ipc" | "http" | null;
  start(): void;
  rejectToken(): void;
}

export const useSession = create<SessionState>()((set, get) => ({
  status: "starting",
  mode: null,
  start() {
    if (get().status !== "starting") return;
    const result = connect({ onUnauthorized: () => get().rejectToken() });
    if (result.kind === "missing-token") set({ status: "missing-token", mode: null });
    else set({ status: "ready", mode: result.kind });
  },
  rejectToken() {
    // A refused token will never start working (the server generated a new one): forget it so a
    // reload does not loop on it, and ask the user for the current Dashboard URL.
    forgetAdminToken(window.sessionStorage);
    disconnect();
    set({ status: "unauthorized" });
  },
}));

// Stage "admit": after a connection is selected and before its attempt is sent. The admission
// issue fills it with the concurrency gates (R8) and the Bottleneck queues (R9); today it admits
// at once. Its shape is final: it may wait, it may refuse with a typed error, and what it
// acquired is released exactly once, whatever the attempt did.
import type { Connection, Provider } from "../../../shared/types.js";
import type { FinalError } from "../outcome.js";

export interface AdmissionRequest {
  provider: Provider;
  connection: Connection;
  model: string;
  /** The client went away while waiting: give up the wait. */
  signal: AbortSignal;
}

export type Admission =
  | { admitted: true; release: () => void }
  /** The request ends with this error in the client's format (e.g. a queue that is full). */
  | { admitted: false; refusal: FinalError };

export interface AdmissionStage {
  admit(request: AdmissionRequest): Promise<Admission>;
}

/** Wraps a release so that calling it twice (a retry path, a finally) frees the slot only once. */
export function releaseOnce(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}

export function createAdmission(): AdmissionStage {
  return {
    async admit() {
      return { admitted: true, release: releaseOnce(() => undefined) };
    },
  };
}

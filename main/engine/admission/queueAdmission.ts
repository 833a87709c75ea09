// R9.3 / D9: whether one more request may join a provider+connection's local queue. Pure, and run
// before any translation work, so a full queue refuses at once and cheaply.
import { ERROR_CODES } from "../../../shared/errorCodes.js";

export interface QueueScope {
  provider: string;
  connectionId: string;
  model: string;
}

export type QueueAdmission = { admit: true } | { admit: false; status: 429; code: "RATE_LIMIT_QUEUE_FULL"; message: string };

/** `queued` counts every request waiting locally for this provider+connection, whichever gate holds it. */
export function checkQueueAdmission(queued: number, maxQueueDepth: number, scope: QueueScope): QueueAdmission {
  if (maxQueueDepth <= 0 || queued < maxQueueDepth) return { admit: true };
  return {
    admit: false,
    status: ERROR_CODES.RATE_LIMIT_QUEUE_FULL.status,
    code: "RATE_LIMIT_QUEUE_FULL",
    message:
      `The local request queue of ${scope.provider} connection ${scope.connectionId} (model ${scope.model}) is full: ` +
      `${queued} waiting, requestQueue.maxQueueDepth is ${maxQueueDepth}`,
  };
}

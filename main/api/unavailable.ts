// A method this process does not serve (the debug clock without --test-clock). The handler table
// stays complete, so forgetting a method still fails to compile, but saying "not here" is explicit:
// the HTTP adapter does not mount it (404, as for any unknown route) and IPC answers not_found.
import type { ContractHandler, ContractMethod } from "../../shared/contract.js";
import { ApiError } from "./errors.js";
import type { HandlersFor } from "./handlerTypes.js";

const UNAVAILABLE: unique symbol = Symbol("switchyard.unavailableHandler");

export function unavailable<M extends ContractMethod>(method: M): ContractHandler<M> {
  const handler = () => {
    throw new ApiError(404, "not_found", `${method} is not available in this mode`);
  };
  return Object.assign(handler, { [UNAVAILABLE]: true });
}

export function unavailableHandlers<M extends ContractMethod>(methods: readonly M[]): HandlersFor<M> {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- one entry per M; fromEntries cannot type keys
  return Object.fromEntries(methods.map((method) => [method, unavailable(method)])) as unknown as HandlersFor<M>;
}

export function isAvailable(handler: unknown): boolean {
  return typeof handler === "function" && !(UNAVAILABLE in handler);
}

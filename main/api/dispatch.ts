// Every way into a handler (HTTP, IPC, the tray) goes through here: the input is parsed once by
// the method's contract schema, and the handler receives the typed result.
import type { ContractHandlers, ContractInput, ContractMethod, ContractOutput } from "../../shared/contract.js";
import { CONTRACT_INPUTS } from "../../shared/contractInputs.js";
import { fromZodError } from "./errors.js";

/** Throws a 400 ApiError naming the first offending field. */
export function parseContractInput<M extends ContractMethod>(method: M, raw: unknown): ContractInput<M> {
  const result = CONTRACT_INPUTS[method].safeParse(raw);
  if (!result.success) throw fromZodError(result.error);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- ContractInput<M> is z.output of CONTRACT_INPUTS[M]; TS cannot index a generic M
  return result.data as ContractInput<M>;
}

export async function invokeContract<M extends ContractMethod>(handlers: ContractHandlers, method: M, raw: unknown): Promise<ContractOutput<M>> {
  const handler: ContractHandlers[M] = handlers[method];
  return await handler(parseContractInput(method, raw));
}

// A complete handler table for adapter tests: the given fakes, every other method explicitly not
// served (as the debug clock is without --test-clock). Fakes may answer any shape; the adapters
// under test only pass values through.
import { CONTRACT, type ContractHandlers, type ContractMethod } from "../../../shared/contract.js";
import { unavailableHandlers } from "../../../main/api/index.js";

export type FakeHandler = (input: Record<string, unknown>) => unknown;

export function fakeHandlers(fakes: Record<string, FakeHandler>): ContractHandlers {
  const none = unavailableHandlers(Object.keys(CONTRACT) as ContractMethod[]);
  return { ...none, ...fakes };
}

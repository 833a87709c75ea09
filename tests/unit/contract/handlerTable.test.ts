// R14.3: the contract is typed end to end. A handler table missing a method, a handler answering
// the wrong shape, a call with the wrong input and an input schema other than the one its entry
// names must all fail to compile. The `@ts-expect-error` lines below are checked by
// `npm run typecheck`; the vitest cases compile small programs with the TypeScript API, so the
// proof also runs (and can fail) under `npx vitest run`.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import type { ContractHandlers, ContractInput, ContractOutput } from "../../../shared/contract.js";
import { CONTRACT } from "../../../shared/contract.js";
import { CONTRACT_INPUTS } from "../../../shared/contractInputs.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

const PREAMBLE = `
import type { ContractHandlers, ContractCallArgs, ContractMethod, ContractOutput, ContractSchema } from "../../../shared/contract.js";
import { byIdSchema, noInputSchema } from "../../../shared/schemas/config.js";
declare const complete: ContractHandlers;
declare function call<M extends ContractMethod>(method: M, ...args: ContractCallArgs<M>): Promise<ContractOutput<M>>;
`;

/** Small programs, each compiled as a file of tests/unit/contract; one TypeScript program for all. */
const PROBES = {
  complete: "export const table: ContractHandlers = { ...complete };",
  missingMethod: "const { getClock: _gone, ...rest } = complete;\nexport const table: ContractHandlers = rest;",
  wrongOutput: "export const table: ContractHandlers = { ...complete, getClock: () => ({ time: 1 }) };",
  typedCall: 'export async function f() { const c = await call("advanceClock", { advanceMs: 5 }); const n: number = c.now; return n; }',
  wrongInput: 'export const p = call("advanceClock", { advanceMs: "soon" });',
  wrongRead: 'export async function f() { const c = await call("getClock"); return c.elapsed; }',
  rightSchema: 'export const s: ContractSchema<"getProvider"> = byIdSchema;',
  wrongSchema: 'export const s: ContractSchema<"getProvider"> = noInputSchema;',
};

function compileProbes(): Record<keyof typeof PROBES, string> {
  const dir = path.join(root, "tests", "unit", "contract");
  const files = new Map(Object.entries(PROBES).map(([name, body]) => [path.join(dir, `__probe_${name}.ts`), `${PREAMBLE}\n${body}\n`]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, version, onError, create) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, onError, create);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const out: Record<string, string> = {};
  for (const [file] of files) {
    const name = path.basename(file, ".ts").replace("__probe_", "");
    out[name] = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
      .join("\n");
  }
  return out;
}

describe("the typed contract", () => {
  let errors: Record<keyof typeof PROBES, string>;
  beforeAll(() => {
    errors = compileProbes();
  }, 120_000);

  it("R14.3 a complete handler table compiles, and one without a method does not", () => {
    expect(errors.complete).toBe("");
    expect(errors.missingMethod).toMatch(/getClock/);
  });

  it("R14.3 a handler answering another shape than its entry's output does not compile", () => {
    expect(errors.wrongOutput).toMatch(/time|now/);
  });

  it("R14.3 a call is typed by method: wrong input does not compile, the answer has the method's type", () => {
    expect(errors.typedCall).toBe("");
    expect(errors.wrongInput).toMatch(/string|number/);
    expect(errors.wrongRead).toMatch(/elapsed/);
  });

  it("R14.3 the input schema of a method is the one its entry names", () => {
    expect(errors.rightSchema).toBe("");
    expect(errors.wrongSchema).not.toBe("");
  });

  it("R14.3 every contract method has exactly one input schema at run time", () => {
    expect(Object.keys(CONTRACT_INPUTS).sort()).toEqual(Object.keys(CONTRACT).sort());
  });
});

// Checked by `tsc -p tsconfig.tests.json`: each line compiles only while the contract rejects it.
export function compileTimeProofs(complete: ContractHandlers): unknown[] {
  const { advanceClock: _gone, ...withoutOne } = complete;
  // @ts-expect-error a table without advanceClock is not a ContractHandlers
  const incomplete: ContractHandlers = withoutOne;
  // @ts-expect-error getProvider answers a Provider, not a string
  const wrongOutput: ContractOutput<"getProvider"> = "sim";
  // @ts-expect-error deleteProvider's handler receives the path parameter `id`, never a `name`
  const wrongInput: ContractInput<"deleteProvider"> = { name: "sim" };
  return [incomplete, wrongOutput, wrongInput];
}

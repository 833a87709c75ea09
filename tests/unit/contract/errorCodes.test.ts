// Issue 26 item 11: one catalogue of the error codes Switchyard sends (shared/errorCodes.ts), held
// against its repo-owned mirror (docs/api-notes.md "Error codes") and against the team contract
// (API.md's list in "Errors use the client's format"). CI runs on a clean clone without
// ../shared: the mirror check always runs, and the contract check then reads the contract codes
// from the mirror's API.md column, which the mirror check has just held equal to the catalogue;
// when API.md is there, the contract check reads API.md itself. Neither is ever skipped.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCodeEntry } from "../../../shared/errorCodes.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const API_MD = path.resolve(root, "../shared/spec/API.md");
const NOTES = path.join(root, "docs/api-notes.md");

type Statuses = Record<string, number | null>;

/** The "## Error codes" table of docs/api-notes.md: code → its entry. */
function mirrorTable(): Record<string, ErrorCodeEntry> {
  const text = readFileSync(NOTES, "utf8");
  const start = text.indexOf("\n## Error codes\n");
  expect(start, 'docs/api-notes.md has a section "## Error codes"').toBeGreaterThan(-1);
  const section = text.slice(start + 1).split(/\n## /)[0];
  const rows: Record<string, ErrorCodeEntry> = {};
  for (const line of section.split("\n")) {
    const cells = /^\| `([A-Za-z_]+)` \| ([^|]+) \| (yes|no) \| (.+) \|$/.exec(line);
    if (!cells) continue;
    const status = cells[2].trim();
    rows[cells[1]] = { status: status === "—" ? null : Number(status), contract: cells[3] === "yes", meaning: cells[4].trim() };
  }
  return rows;
}

/**
 * API.md's verdict codes with their statuses: after "Our verdict codes go in", each run of
 * backticked codes is followed by a parenthesis that gives their status ("(429, R18.4)") or none
 * ("(stream verdicts)").
 */
function contractCodes(apiMd: string): Statuses {
  const paragraph = apiMd.slice(apiMd.indexOf("Errors use the client's format")).split(/\n\s*\n/)[0];
  const list = paragraph.slice(paragraph.indexOf("Our verdict codes go in"));
  // The list is one sentence: it ends at the first parenthesis closed by a full stop (what follows,
  // such as the vendors' own context-refusal codes of R25.2, is not ours).
  const rest = list.slice(list.indexOf(":") + 1);
  const end = rest.search(/\)\.(\s|$)/);
  const tail = end === -1 ? rest : rest.slice(0, end + 1);
  const codes: Statuses = {};
  let pending: string[] = [];
  for (const match of tail.matchAll(/`([A-Za-z0-9_]+)`|\(([^)]*)\)/g)) {
    if (match[1] !== undefined) {
      pending.push(match[1]);
      continue;
    }
    const status = /^\s*(\d{3})\b/.exec(match[2]);
    for (const code of pending) codes[code] = status ? Number(status[1]) : null;
    pending = [];
  }
  expect(pending, "every code in API.md's list is followed by its parenthesis").toEqual([]);
  return codes;
}

const contractOf = (entries: Record<string, ErrorCodeEntry>): Statuses =>
  Object.fromEntries(
    Object.entries(entries)
      .filter(([, e]) => e.contract)
      .map(([code, e]) => [code, e.status]),
  );

describe("error code catalogue (issue 26 item 11)", () => {
  it("R1.5 docs/api-notes.md lists exactly the catalogue's codes, each with its status, API.md mark and meaning", () => {
    expect(mirrorTable()).toEqual(ERROR_CODES);
  });

  it("R1.5 the catalogue's API.md codes are exactly the contract's, with the contract's statuses", () => {
    const hasApiMd = existsSync(API_MD);
    // Without ../shared (CI's clean clone) the contract is the mirror's API.md column.
    const contract = hasApiMd ? contractCodes(readFileSync(API_MD, "utf8")) : contractOf(mirrorTable());
    expect(Object.keys(contract).length, hasApiMd ? "codes parsed from API.md" : "API.md codes in the mirror").toBeGreaterThanOrEqual(20);
    expect(contractOf(ERROR_CODES)).toEqual(contract);
  });

  it("R1.5 the contract parser reads runs of codes sharing one status, statuses with a note, and codes without a status", () => {
    const sample =
      "Errors use the client's format: `{error:{code}}`. Our verdict codes go in `error.code` in both formats:\n" +
      "`a_code` (503), `B_CODE` / `C_CODE` (400), `s1`, `s2` (stream verdicts), `d_code` (429, R18.4).\n\nNext paragraph `x` (1)";
    expect(contractCodes(sample)).toEqual({ a_code: 503, B_CODE: 400, C_CODE: 400, s1: null, s2: null, d_code: 429 });
  });

  it("R1.5 every catalogue code is sent from somewhere in main/ (no stale entry)", () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (file.endsWith(".ts") && !file.includes(`${path.sep}simulator${path.sep}`)) sources.push(readFileSync(file, "utf8"));
      }
    };
    walk(path.join(root, "main"));
    const text = sources.join("\n");
    const unused = Object.keys(ERROR_CODES).filter((code) => !text.includes(`"${code}"`));
    expect(unused).toEqual([]);
  });
});

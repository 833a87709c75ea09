// DESIGN.md "Gateway floors" (R22): main/gateway is six floors and imports only point down —
// http/ → pipeline/ → features/ → context/ → upstream/ → formats/. The gateway never imports the Redis adapter
// (main/group), the store, the management API or the composition root; the group adapter never
// imports the gateway. One module for the lint rule (eslint.config.js) and the test beside it.
import path from "node:path";

/** From the bottom up: a floor may import its own and those below it. */
export const GATEWAY_FLOORS = ["formats", "upstream", "context", "features", "pipeline", "http"];

const GATEWAY = "main/gateway/";
const NOT_FOR_GATEWAY = /^main\/(group|store|api|app|desktop)\//;
const NOT_FOR_GROUP = /^main\/(gateway|api|app|desktop)\//;

/** The floor of a repo-relative gateway file (-1: in the gateway but on no floor), or null outside the gateway. */
export function floorOf(file) {
  if (!file.startsWith(GATEWAY)) return null;
  const top = file.slice(GATEWAY.length).split("/")[0];
  return GATEWAY_FLOORS.indexOf(top);
}

/** Why importing `target` from `file` (both repo-relative, forward slashes) breaks the floors, or null. */
export function floorViolation(file, target) {
  const from = floorOf(file);
  if (from === -1) return `${file} is on no gateway floor (${GATEWAY_FLOORS.join(", ")})`;
  if (from !== null) {
    const to = floorOf(target);
    if (to !== null && to > from) return `gateway floors point down: ${GATEWAY_FLOORS[from]}/ may not import ${GATEWAY_FLOORS[to]}/ (${target})`;
    if (NOT_FOR_GATEWAY.test(target)) return `the gateway may not import ${target}`;
  }
  if (file.startsWith("main/group/") && NOT_FOR_GROUP.test(target)) return `the group adapter may not import ${target}`;
  return null;
}

/** A relative import of `file` as a repo-relative path with the source's extension (.js → .ts). */
export function importTarget(file, spec) {
  if (!spec.startsWith(".")) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts");
}

/** The ESLint rule: every import, export-from and dynamic import of a file under main/gateway or main/group. */
export const gatewayFloorsRule = {
  meta: { type: "problem", docs: { description: "gateway floors point down (DESIGN.md, R22)" }, schema: [] },
  create(context) {
    const root = context.cwd;
    const file = path.relative(root, context.filename).split(path.sep).join("/");
    if (!file.startsWith(GATEWAY) && !file.startsWith("main/group/")) return {};
    const check = (node, source) => {
      if (typeof source?.value !== "string") return;
      const target = importTarget(file, source.value);
      const problem = target && floorViolation(file, target);
      if (problem) context.report({ node, message: problem });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

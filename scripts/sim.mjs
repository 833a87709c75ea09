// `npm run sim -- --seed N --requests M`: the seeded mixed-use simulation (R24.6, docs/simulation.md).
// Runs the TypeScript sources as they are (Vite's module runner, as vitest does), so nothing is built
// per run: the real server in-process on 127.0.0.1 and the real simulators.
import { fileURLToPath } from "node:url";
import path from "node:path";
import { createServer, createServerModuleRunner } from "vite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const server = await createServer({
  configFile: false,
  root,
  logLevel: "error",
  appType: "custom",
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
let status = 1;
try {
  const cli = await runner.import("/tests/sim/cli.ts");
  status = await cli.main(process.argv.slice(2));
} finally {
  await runner.close();
  await server.close();
}
process.exit(status);

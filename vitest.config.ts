import { defineConfig } from "vitest/config";
import { CLIENT_MODULES, CLIENT_SDKS } from "./tests/clients/locate.js";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

export default defineConfig({
  resolve: {
    // The SDKs the tests drive are not the app's dependencies: they live in tests/clients (see locate.ts).
    alias: CLIENT_SDKS.map((name) => ({ find: new RegExp(`^${escape(name)}$`), replacement: `${CLIENT_MODULES}/${name}` })),
  },
  test: {
    include: ["tests/**/*.test.ts"],
    // Installs tests/clients when its package.json or lock changed (a no-op otherwise), so a suite run
    // with `npx vitest run …` finds the real clients as `npm test` does.
    globalSetup: ["tests/clients/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"],
  },
});

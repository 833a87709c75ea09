// vitest's global setup: install the test clients (tests/clients) when they are missing or stale,
// so `npx vitest run …` finds them as `npm test` does. A no-op when they are installed.
import { ensureTestClients } from "../../scripts/ensure.mjs";

export default async function setup(): Promise<void> {
  await ensureTestClients();
}

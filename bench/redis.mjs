// The `features redis` line (issue 25): the same Switchyard with SWITCHYARD_REDIS_URL, sharing its
// resilience state through a redis-server the bench starts on a free loopback port. R19.1 keeps
// Redis off the request path, so this line should serve about as fast as `features`.
import { createServer } from "node:net";
import { ensureRedisServer } from "../scripts/ensure.mjs";
import { startChild } from "./processes.mjs";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server as one of the bench's children (stopped by PID with them); null when there is none to run. */
export async function startRedis(children) {
  const bin = ensureRedisServer();
  if (!bin) return null;
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = startChild("redis-server", bin, args, { ready: /Ready to accept connections/ });
  children.push(child.handle);
  await child.started;
  return `redis://127.0.0.1:${port}`;
}

// The baseline: the least a Node proxy can do. A node:http server that forwards each
// request to one upstream over an undici keep-alive Agent and pipes the response back
// unchanged. No parsing, no routing, no logging — the floor Switchyard is measured against.
//
// Used by bench/run.mjs as a child process (its own event loop, like Switchyard's):
//   node bench/bareProxy.mjs <upstream origin>   -> prints "bare proxy listening on http://127.0.0.1:<port>"
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Agent, stream } from "undici";

// RFC 9110 §7.6.1 connection-specific fields, plus the ones Node/undici set themselves.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

function forwardable(headers) {
  const out = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) out[name] = headers[name];
  return out;
}

/** Starts the bare proxy on 127.0.0.1; resolves to {url, port, close()}. */
export async function startBareProxy({ upstream, port = 0, connections = 64 }) {
  const origin = new URL(upstream).origin;
  const agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 });

  const server = createServer({ noDelay: true }, (req, res) => {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    stream(
      origin + req.url,
      { method: req.method, headers: forwardable(req.headers), body: hasBody ? req : undefined, dispatcher: agent, headersTimeout: 60_000, bodyTimeout: 60_000 },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, forwardable(headers));
        return res;
      },
    ).catch((err) => {
      if (res.headersSent) return void res.destroy();
      const text = JSON.stringify({ error: { message: `bare proxy: ${err.message}` } });
      res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 30_000;

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    close: async () => {
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await agent.close();
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const upstream = process.argv[2];
  if (!upstream) {
    process.stderr.write("usage: node bench/bareProxy.mjs <upstream origin>\n");
    process.exit(2);
  }
  const proxy = await startBareProxy({ upstream });
  process.stdout.write(`bare proxy listening on ${proxy.url}\n`);
  // The process exits once the server has closed (or failed to): nothing is left to see the promise settle.
  const stop = () => void proxy.close().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

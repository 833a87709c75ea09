// The floor: the least a Node proxy can do, on node:http alone. Each request is piped to one
// upstream over a keep-alive http.Agent and the response is piped back unchanged: no parsing,
// no routing, no logging. Switchyard's ratios are taken against this process.
//
// Used by bench/run.mjs as a child process (its own event loop, like Switchyard's):
//   node bench/bareHttp.mjs <upstream origin>   -> prints "bare http listening on http://127.0.0.1:<port>"
import { Agent, createServer, request } from "node:http";
import { fileURLToPath } from "node:url";
import path from "node:path";

// RFC 9110 §7.6.1 connection-specific fields; node:http sets its own framing.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

function forwardable(headers) {
  const out = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) out[name] = headers[name];
  return out;
}

export async function startBareHttp({ upstream, port = 0 }) {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 512, scheduling: "lifo" });
  const server = createServer({ noDelay: true }, (req, res) => {
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwardable(req.headers), agent }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, forwardable(upRes.headers));
      upRes.pipe(res);
    });
    up.on("error", (err) => {
      if (res.headersSent) return void res.destroy();
      const text = JSON.stringify({ error: { message: `bare http: ${err.message}` } });
      res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const upstream = process.argv[2];
  if (!upstream) {
    process.stderr.write("usage: node bench/bareHttp.mjs <upstream origin>\n");
    process.exit(2);
  }
  const proxy = await startBareHttp({ upstream });
  process.stdout.write(`bare http listening on ${proxy.url}\n`);
  // The process exits once the server has closed (or failed to): nothing is left to see the promise settle.
  const stop = () => void proxy.close().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

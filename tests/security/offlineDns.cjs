// Preloaded (--require) into electronegativity: it looks its translations and Electron's release
// list up online. Every name but a loopback one fails to resolve here, so nothing leaves the machine.
const dns = require("node:dns");

const original = dns.lookup;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/;

dns.lookup = function offlineLookup(hostname, options, callback) {
  const done = typeof options === "function" ? options : callback;
  if (LOOPBACK.test(String(hostname))) return original.apply(dns, arguments);
  const err = Object.assign(new Error(`offline: ${hostname} is not looked up`), { code: "ENOTFOUND", hostname });
  process.nextTick(() => done(err));
  return {};
};

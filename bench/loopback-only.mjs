// Preloaded (`node --import`) into a comparison target that is not ours (Portkey's gateway), so
// that it stays on this machine whatever it would do by itself:
// - every server it starts listens on 127.0.0.1 (the gateway's own `serve` call names no host,
//   which would bind every interface);
// - a TCP connection to anything but a loopback address, and a name lookup of anything but
//   `localhost`, fail at once instead of reaching the network;
// - each refusal is written to stderr as one `loopback-only: refused ...` line, which the harness
//   counts and reports: a target that tried to reach out is seen, not silently measured.
// Plain JavaScript for the reason child-guard.mjs gives (no loader in the measured process).
import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1', 'localhost']);
const isLoopback = (host) => typeof host === 'string' && (LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host));

const refuse = (what) => {
  process.stderr.write(`loopback-only: refused ${what}\n`);
  const error = new Error(`loopback-only: ${what} refused (the benchmark keeps this process off the network)`);
  error.code = 'ECONNREFUSED';
  return error;
};

// Servers: an unnamed or wildcard host becomes 127.0.0.1.
const listen = net.Server.prototype.listen;
const WILDCARD = new Set([undefined, null, '', '0.0.0.0', '::']);
net.Server.prototype.listen = function loopbackListen(...args) {
  const first = args[0];
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
    if (first.path === undefined && WILDCARD.has(first.host)) args[0] = { ...first, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    const host = args[1];
    if (typeof host === 'function' || typeof host === 'number' || host === undefined) args.splice(1, 0, '127.0.0.1');
    else if (WILDCARD.has(host)) args[1] = '127.0.0.1';
  }
  return listen.apply(this, args);
};

// Outgoing TCP: loopback only (a unix socket path is local as well).
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function loopbackConnect(...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : first;
  let host;
  let path;
  if (options !== null && typeof options === 'object') {
    host = options.host ?? 'localhost';
    path = options.path;
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    host = typeof args[1] === 'string' ? args[1] : 'localhost';
  } else if (typeof first === 'string') {
    path = first;
  }
  if (path === undefined && !isLoopback(host)) {
    const error = refuse(`connect to ${host}`);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

// Name lookups: `localhost` only; anything else would ask a resolver on the network.
const lookup = dns.lookup;
dns.lookup = function loopbackLookup(hostname, ...rest) {
  if (isLoopback(hostname) || net.isIP(hostname) !== 0) return lookup.call(this, hostname, ...rest);
  const callback = rest.at(-1);
  const error = refuse(`lookup of ${hostname}`);
  if (typeof callback === 'function') process.nextTick(() => callback(error));
  return {};
};
const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function loopbackLookupPromise(hostname, ...rest) {
  if (isLoopback(hostname) || net.isIP(hostname) !== 0) return lookupPromise.call(this, hostname, ...rest);
  return Promise.reject(refuse(`lookup of ${hostname}`));
};
for (const name of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveSrv', 'resolveTxt']) {
  const original = dns[name];
  if (typeof original !== 'function') continue;
  dns[name] = function loopbackResolve(hostname, ...rest) {
    const callback = rest.at(-1);
    const error = refuse(`${name} of ${hostname}`);
    if (typeof callback === 'function') process.nextTick(() => callback(error));
  };
}

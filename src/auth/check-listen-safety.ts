/**
 * The start-up rule: svir without keys may listen on loopback only, unless the config says
 * `server.allowUnauthenticated: true`. Anyone who can reach a wider address could otherwise
 * spend the backends' keys and hardware.
 */
export type ListenSafety = { ok: true; warning?: string } | { ok: false; message: string };

/** Loopback as a host string: `localhost`, 127.0.0.0/8, ::1 (bracketed or not), and ::ffff:127.x. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  if (bare === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(bare)) return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  const octets = v4.split('.');
  return (
    octets.length === 4 &&
    octets[0] === '127' &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}

export function checkListenSafety(host: string, keys: readonly string[], allowUnauthenticated: boolean): ListenSafety {
  if (keys.length > 0 || isLoopbackHost(host)) return { ok: true };
  if (allowUnauthenticated) {
    return {
      ok: true,
      warning: `listening on ${host} without API keys (server.allowUnauthenticated is true): anyone who can reach it can use every backend`,
    };
  }
  return {
    ok: false,
    message:
      `refusing to listen on ${host} without API keys: set server.apiKeys or SVIR_API_KEYS, ` +
      'listen on 127.0.0.1, or set server.allowUnauthenticated: true',
  };
}

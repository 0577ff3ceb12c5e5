/**
 * The client rig of a test file: started before the file's tests and closed after them (vitest's
 * `beforeAll`/`afterAll`, registered where this is called), read through the handle inside the
 * tests and hooks that run after it started. Replaces the `let rig` / `beforeAll` / `afterAll`
 * lines every client test repeated.
 */
import { afterAll, beforeAll } from 'vitest';
import { startClientRig, type ClientRig, type ClientRigOptions } from './start-client-rig.js';

export function useClientRig(options: ClientRigOptions | (() => Promise<ClientRigOptions>) = {}): ClientRig {
  let started: ClientRig | undefined;
  beforeAll(async () => {
    started = await startClientRig(typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const rig = (): ClientRig => {
    if (started === undefined) throw new Error('the client rig is read before its beforeAll ran');
    return started;
  };
  return {
    get baseURL() {
      return rig().baseURL;
    },
    get apiKey() {
      return rig().apiKey;
    },
    get config() {
      return rig().config;
    },
    upstreamOf: (flavor) => rig().upstreamOf(flavor),
    script: (flavor, turn, renderOptions) => rig().script(flavor, turn, renderOptions),
    scriptTurns: (flavor, ...turns) => rig().scriptTurns(flavor, ...turns),
    chatRequestsTo: (flavor) => rig().chatRequestsTo(flavor),
    scriptRaw: (flavor, response) => rig().scriptRaw(flavor, response),
    received: () => rig().received(),
    close: () => rig().close(),
  };
}

/**
 * The auth hook and the live page: the page itself (GET / from a browser) and its script and
 * style pass without a key; `/` for an API client and the page's data do not.
 */
import { describe, expect, it } from 'vitest';
import { createAuthHook } from '../../src/auth/create-auth-hook.js';
import { SvirError } from '../../src/errors.js';

const hook = createAuthHook(['sk-page-key']);
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function refusal(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<string | undefined> {
  try {
    await hook({ method, url, headers });
    return undefined;
  } catch (err) {
    return err instanceof SvirError ? err.code : String(err);
  }
}

describe('the auth hook and the live page', () => {
  it('lets a browser load the page and its files without a key', async () => {
    expect(await refusal('/', { accept: BROWSER })).toBeUndefined();
    expect(await refusal('/?x=1', { accept: BROWSER })).toBeUndefined();
    expect(await refusal('/', { accept: BROWSER }, 'HEAD')).toBeUndefined();
    expect(await refusal('/svir/page/app.js')).toBeUndefined();
    expect(await refusal('/svir/page/app.css')).toBeUndefined();
  });

  it('asks for the key at / from any other client, and for the data whatever it accepts', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      expect(await refusal('/', accept === undefined ? {} : { accept })).toBe('invalid_api_key');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      expect(await refusal('/', { accept: BROWSER }, method), method).toBe('invalid_api_key');
    }
    for (const url of ['/svir/api/state', '/svir/api/events', '/svir/page/', '/svir/page/other.js', '/svir/page/app.js/']) {
      expect(await refusal(url, { accept: BROWSER }), url).toBe('invalid_api_key');
    }
    expect(await refusal('/svir/api/state', { accept: BROWSER, authorization: 'Bearer sk-page-key' })).toBeUndefined();
  });
});

/**
 * The live page in a real browser (the system's Chromium through playwright-core), against svir
 * in front of a fake server: without the key it shows nothing and its data answers 401; with
 * the key it shows the backend going down and coming back, a request the openai SDK makes
 * appearing with svir's note of what it changed, and a slow stream's token count rising.
 */
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, LIVE_MODEL, startLivePageRig, UPSTREAM_KEY, type LivePageRig } from '../monitor/harness/start-live-page-rig.js';
import { launchChromium, type Browser } from './launch-chromium.js';

const KEY = 'sk-svir-browser-tests';

let rig: LivePageRig;
let browser: Browser;

beforeAll(async () => {
  // A short refresh: the backend's state follows its fake within a fraction of a second.
  rig = await startLivePageRig({ apiKeys: [KEY], modelRefreshMs: 250 });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rig?.close();
});

/** The page, opened and given the key. */
async function openWithKey(): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${rig.origin}/`);
  await page.locator('#key-input').fill(KEY);
  await page.locator('#key-form button').click();
  await page.locator(`#backends tr[data-backend="${BACKEND}"]`).waitFor();
  return page;
}

describe('without the key', () => {
  it('shows nothing but the key form, and the data endpoints answer 401', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(`${rig.origin}/`);
    expect(response?.status()).toBe(200);
    await page.locator('#key-form').waitFor({ state: 'visible' });
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.locator('#backends tbody tr').count()).toBe(0);
    expect(await page.locator('#connection').textContent()).toBe('key needed');
    const statuses = await page.evaluate(async () => {
      const state = await fetch('/svir/api/state');
      const events = await fetch('/svir/api/events');
      return { state: state.status, events: events.status, code: ((await state.json()) as { error: { code: string } }).error.code };
    });
    expect(statuses).toEqual({ state: 401, events: 401, code: 'invalid_api_key' });

    // A wrong key is refused and shows nothing either; the right one shows the backend.
    await page.locator('#key-input').fill('sk-wrong');
    await page.locator('#key-form button').click();
    await page.locator('#key-error').waitFor({ state: 'visible' });
    expect(await page.locator('#app').isHidden()).toBe(true);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await page.locator(`#backends tr[data-backend="${BACKEND}"]`).waitFor();
    expect(page.url()).toBe(`${rig.origin}/`);
    await page.close();
  });
});

describe('with the key', () => {
  it('shows the backend: its type, URL and model, going down with the reason and coming back', async () => {
    const page = await openWithKey();
    const row = page.locator(`#backends tr[data-backend="${BACKEND}"]`);
    await expect.poll(() => row.getAttribute('data-state')).toBe('up');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('openai');
    expect(text).toContain(`${rig.upstream.url}/v1/`);
    expect(text).toContain(LIVE_MODEL);
    expect(await page.content()).not.toContain(UPSTREAM_KEY);

    rig.takeBackendDown();
    await page.locator(`#backends tr[data-backend="${BACKEND}"][data-state="down"]`).waitFor({ timeout: 10_000 });
    expect((await row.locator('.reason').textContent())?.length).toBeGreaterThan(0);

    rig.bringBackendUp();
    await page.locator(`#backends tr[data-backend="${BACKEND}"][data-state="up"]`).waitFor({ timeout: 10_000 });
    expect(await row.locator('.reason').count()).toBe(0);
    await page.close();
  });

  it("lists a request the openai SDK made within a second, with svir's note of what it changed", async () => {
    const page = await openWithKey();
    rig.streamAnswer(['Hello', ' there'], 0);
    const client = new OpenAI({ baseURL: `${rig.origin}/v1`, apiKey: KEY, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: LIVE_MODEL,
      messages: [{ role: 'user', content: 'A prompt the page must never show.' }],
      tool_choice: 'auto',
    });
    expect(completion.choices[0]?.message.content).toBe('Hello there');
    // Pushed to the page as the response closes, not found by polling.
    const row = page.locator('#recent tbody tr[data-route="chat"]').filter({ hasText: 'tool_choice dropped: no tools' });
    await row.first().waitFor({ timeout: 1_000 });
    const text = (await row.first().textContent()) ?? '';
    expect(text).toContain(LIVE_MODEL);
    expect(text).toContain(BACKEND);
    expect(text).toContain('200');
    expect(await page.content()).not.toContain('must never show');
    await page.close();
  });

  it("shows a stream's token count rising while it runs", async () => {
    const page = await openWithKey();
    rig.streamAnswer(
      Array.from({ length: 16 }, (_, i) => ` t${i}`),
      250,
    );
    const client = new OpenAI({ baseURL: `${rig.origin}/v1`, apiKey: KEY, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: LIVE_MODEL, messages: [{ role: 'user', content: 'slowly' }], stream: true });
    const reading = (async () => {
      for await (const chunk of stream) void chunk;
    })();
    const tokens = page.locator('#open tbody tr[data-route="chat"] td.tokens');
    await tokens.waitFor();
    const first = Number(await tokens.textContent());
    await expect.poll(async () => Number(await tokens.textContent()), { timeout: 10_000 }).toBeGreaterThan(first);
    await reading;
    await page.locator('#open-empty').waitFor({ state: 'visible' });
    await page.close();
  });
});

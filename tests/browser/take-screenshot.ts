/**
 * The README's screenshot of the live page (docs/live-page.png), taken against fakes:
 * `node --import tsx tests/browser/take-screenshot.ts [docs/live-page.png]`. Two fake servers
 * (one streaming slowly, so a stream is in flight) and a backend nothing listens on; a few
 * requests through the openai SDK, some of which svir changes, one for an unknown model.
 */
import OpenAI from 'openai';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { shutdownServer } from '../../src/lifecycle/shutdown-server.js';
import { startScriptedUpstream } from '../fakes/scripted-upstream.js';
import { answerPieces } from '../monitor/harness/start-live-page-rig.js';
import { launchChromium } from './launch-chromium.js';
import { closedPort } from '../helpers/closed-port.js';

const out = process.argv[2] ?? 'docs/live-page.png';

const studio = await startScriptedUpstream();
studio.models(['qwen3.8-27b', 'gemma-4-12b']);
const llama = await startScriptedUpstream();
llama.models(['glm-4.7-flash']);
const config = configSchema.parse({
  server: { host: '127.0.0.1', port: 0, logLevel: 'silent', keepaliveMs: 0 },
  backends: [
    { name: 'lmstudio', type: 'lmstudio', url: `${studio.url}/v1`, maxConcurrent: 4, maxQueue: 16 },
    { name: 'llamacpp', type: 'llamacpp', url: llama.url, maxConcurrent: 2, maxQueue: 8 },
    { name: 'vllm', type: 'vllm', url: `http://127.0.0.1:${await closedPort()}/v1` },
  ],
});
const app = await buildServer(config);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
const origin = `http://127.0.0.1:${address.port}`;
await app.svir.registry.refresh();

const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'unused', maxRetries: 0 });
const words = (n: number): string[] => Array.from({ length: n }, (_, i) => ` word${i}`);
const ask = async (model: string, extra: Record<string, unknown> = {}): Promise<void> => {
  const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], stream: true, ...extra });
  for await (const chunk of stream) void chunk;
};

for (let round = 0; round < 3; round += 1) {
  studio.chat({ kind: 'sse', pieces: answerPieces(words(40), 25) });
  await ask('qwen3.8-27b', { tool_choice: 'auto' });
  llama.chat({ kind: 'sse', pieces: answerPieces(words(30), 40) });
  await ask('glm-4.7-flash');
}
await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined);
studio.chat({ kind: 'sse', pieces: answerPieces(words(400), 60) });
const inFlight = ask('gemma-4-12b').catch(() => undefined);

const browser = await launchChromium();
const page = await browser.context.newPage();
await page.goto(`${origin}/`);
await page.locator('#open tbody tr').waitFor();
// A few live updates: the stream's tokens and rate.
await new Promise((resolve) => setTimeout(resolve, 3_500));
await page.screenshot({ path: out, fullPage: true });
await browser.close();
console.log(`wrote ${out}`);
await studio.close();
await llama.close();
await shutdownServer(app, 0);
await inFlight;

import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import type { RequestDraft, RequestRewrite } from '../../src/adapters/request/request-draft.js';
import { applyRewrites } from '../../src/adapters/request/apply-rewrites.js';
import { azureCall, azureResourceUrl } from '../../src/adapters/request/azure-call.js';
import { bearerCall } from '../../src/adapters/request/bearer-call.js';
import { dropNullFields } from '../../src/adapters/request/drop-null-fields.js';
import { dropOrphanToolChoice } from '../../src/adapters/request/drop-orphan-tool-choice.js';
import { dropUnreadToolChoice } from '../../src/adapters/request/drop-unread-tool-choice.js';
import { effortToTemplateKwargs } from '../../src/adapters/request/effort-to-template-kwargs.js';
import { ensureJsonWord, JSON_NOTE } from '../../src/adapters/request/ensure-json-word.js';
import { flattenTextOnlyContent } from '../../src/adapters/request/flatten-text-only-content.js';
import { inlineTextFiles } from '../../src/adapters/request/inline-text-files.js';
import { jsonObjectToJsonSchema } from '../../src/adapters/request/json-object-to-json-schema.js';
import { layoutImageContent } from '../../src/adapters/request/layout-image-content.js';
import { maxCompletionTokensToMaxTokens } from '../../src/adapters/request/max-completion-tokens-to-max-tokens.js';
import { namedToolChoiceOffersOnly } from '../../src/adapters/request/named-tool-choice-offers-only.js';
import { namedToolChoiceToRequired } from '../../src/adapters/request/named-tool-choice-to-required.js';
import { noteUnconstrainedOutput } from '../../src/adapters/request/note-unconstrained-output.js';
import { parseDataUrl } from '../../src/adapters/request/parse-data-url.js';
import { rejectImagesUnless } from '../../src/adapters/request/reject-images-unless.js';
import { sendBackReasoning } from '../../src/adapters/request/send-back-reasoning.js';
import { serializeToolResults } from '../../src/adapters/request/serialize-tool-results.js';
import { noteUnkeptRequired } from '../../src/adapters/request/note-unkept-required.js';
import { streamWithUsage } from '../../src/adapters/request/stream-with-usage.js';
import { structuredOutputReasoningOff } from '../../src/adapters/request/structured-output-reasoning-off.js';
import { toolChoiceNoneDropsTools } from '../../src/adapters/request/tool-choice-none-drops-tools.js';
import { chat, lockerTool, PNG_DATA_URL, weatherTool } from './chat.js';
import { makeBackend } from './make-backend.js';

const backend = makeBackend('openai');

function draftOf(fields: Record<string, unknown>): RequestDraft {
  return { body: chat(fields), changes: [] };
}

function run(rewrite: RequestRewrite, fields: Record<string, unknown>, on = backend): RequestDraft {
  const result = rewrite(draftOf(fields), on);
  if (result instanceof SvirError) throw result;
  return result;
}

function refused(rewrite: RequestRewrite, fields: Record<string, unknown>, on = backend): SvirError {
  const result = rewrite(draftOf(fields), on);
  if (!(result instanceof SvirError)) throw new Error(`expected a refusal, got ${JSON.stringify(result.body)}`);
  return result;
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('content rewrites', () => {
  it('sends text-only array content as one string, parts joined by a newline', () => {
    const out = run(flattenTextOnlyContent, {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
        { role: 'user', content: 'already a string' },
      ],
    });
    expect(out.body.messages.map((m) => m.content)).toEqual(['Be brief.', 'one\ntwo', 'already a string']);
    expect(out.changes).toEqual(['text-only array content sent as a string']);
  });

  it('leaves arrays with images to the image layout and records nothing when nothing changed', () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }];
    const out = run(flattenTextOnlyContent, { messages });
    expect(out.body.messages).toEqual(messages);
    expect(out.changes).toEqual([]);
  });

  it('lays out images as one text part first, then images, with no empty text part', () => {
    const out = run(layoutImageContent, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: PNG_DATA_URL },
            { type: 'text', text: 'What is' },
            { type: 'text', text: '' },
            { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'low' } },
            { type: 'text', text: 'in these?' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: '' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] },
      ],
    });
    expect(out.body.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is\nin these?' },
      { type: 'image_url', image_url: { url: PNG_DATA_URL } },
      { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'low' } },
    ]);
    // Only images: no empty text part at all.
    expect(out.body.messages[1]?.content).toEqual([{ type: 'image_url', image_url: { url: PNG_DATA_URL } }]);
    expect(out.changes).toEqual(['image content laid out as one text part then the images']);
  });

  it('records no change for image content already laid out', () => {
    const content = [{ type: 'text', text: 'Describe.' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }];
    const out = run(layoutImageContent, { messages: [{ role: 'user', content }] });
    expect(out.body.messages[0]?.content).toEqual(content);
    expect(out.changes).toEqual([]);
  });

  it('sends a text file inline as <file name> text, and refuses a file that is not text', () => {
    const out = run(inlineTextFiles, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Summarise:' },
            { type: 'file', file: { filename: 'notes "v2".md', file_data: `data:text/markdown;base64,${base64('# Notes\nübung')}` } },
          ],
        },
      ],
    });
    expect(out.body.messages[0]?.content).toEqual([
      { type: 'text', text: 'Summarise:' },
      { type: 'text', text: '<file name="notes &quot;v2&quot;.md">\n# Notes\nübung\n</file>' },
    ]);
    expect(out.changes).toEqual(['text files sent inline as <file> text']);

    const pdf = refused(inlineTextFiles, {
      messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${base64('%PDF')}` } }] }],
    });
    expect(pdf.code).toBe('unsupported_content');
    expect(pdf.message).toContain('a.pdf');
    expect(refused(inlineTextFiles, { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] }).code).toBe(
      'unsupported_content',
    );
  });

  it('reads data URLs, base64 or percent-encoded', () => {
    expect(parseDataUrl('data:text/plain;charset=utf-8;base64,aGk=')).toEqual({ mediaType: 'text/plain', bytes: new Uint8Array([104, 105]) });
    expect(parseDataUrl('data:,a%20b')?.mediaType).toBe('text/plain');
    expect(new TextDecoder().decode(parseDataUrl('data:,a%20b')?.bytes)).toBe('a b');
    expect(parseDataUrl('https://example.com/a.png')).toBeUndefined();
  });

  it('refuses images for a backend that cannot take them, naming the backend, before sending', () => {
    const noVision = rejectImagesUnless((b) => b.vision !== false, 'no projector');
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }];
    const error = refused(noVision, { messages }, makeBackend('llamacpp', { name: 'gguf' }, { vision: false }));
    expect(error.code).toBe('unsupported_content');
    expect(error.status).toBe(400);
    expect(error.message).toContain('"gguf"');
    expect(error.message).toContain('no projector');
    // Unknown vision: sent; text only: sent.
    expect(run(noVision, { messages }, makeBackend('llamacpp')).body.messages).toEqual(messages);
    expect(run(noVision, {}, makeBackend('llamacpp', {}, { vision: false })).changes).toEqual([]);
  });
});

describe('tool turns', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'open_locker', arguments: '{"number":4}' } };

  it('serializes a structured tool result into the string', () => {
    const out = run(serializeToolResults, {
      messages: [
        { role: 'user', content: 'Open locker 4' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: { opened: true, number: 4 } },
      ],
    });
    expect(out.body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '{"opened":true,"number":4}' });
    expect(out.changes).toEqual(['structured tool results sent as JSON strings']);
  });

  it('leaves assistant tool calls and string tool results as they are', () => {
    const messages = [
      { role: 'user', content: 'Open locker 4' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: 'opened' },
    ];
    expect(run(serializeToolResults, { messages }).body.messages).toEqual(messages);
    expect(run(flattenTextOnlyContent, { messages }).body.messages).toEqual(messages);
    expect(run(sendBackReasoning('reasoning'), { messages }).body.messages).toEqual(messages);
  });
});

describe('reasoning sent back', () => {
  const history = {
    messages: [
      { role: 'user', content: 'Count.' },
      { role: 'assistant', content: 'One.', reasoning_content: 'Counting.' },
      { role: 'user', content: 'Again.' },
    ],
  };

  it('goes under the key the backend reads', () => {
    const out = run(sendBackReasoning('reasoning'), history);
    expect(out.body.messages[1]).toEqual({ role: 'assistant', content: 'One.', reasoning: 'Counting.' });
    expect(out.changes).toEqual(['reasoning sent back as reasoning']);
    const same = run(sendBackReasoning('reasoning_content'), history);
    expect(same.body.messages[1]).toEqual({ role: 'assistant', content: 'One.', reasoning_content: 'Counting.' });
    expect(same.changes).toEqual([]);
  });

  it('is read from the configured reasoning.field too', () => {
    const out = run(
      sendBackReasoning('reasoning_content'),
      { messages: [{ role: 'assistant', content: 'Hi.', thinking: 'Greeting.' }, { role: 'user', content: 'x' }] },
      makeBackend('lmstudio', {}, { reasoningField: 'thinking' }),
    );
    expect(out.body.messages[0]).toEqual({ role: 'assistant', content: 'Hi.', reasoning_content: 'Greeting.' });
  });

  it('is sent once when the client repeats it under both keys', () => {
    const out = run(sendBackReasoning('reasoning'), {
      messages: [{ role: 'assistant', content: 'A', reasoning_content: 'R', reasoning: 'R' }, { role: 'user', content: 'x' }],
    });
    expect(out.body.messages[0]).toEqual({ role: 'assistant', content: 'A', reasoning: 'R' });
  });

  it('is not sent to a backend whose reasoning arrives in think tags, nor to one that takes none', () => {
    const tags = run(sendBackReasoning('reasoning'), history, makeBackend('vllm', { reasoningTags: 'open' }));
    expect(tags.body.messages[1]).toEqual({ role: 'assistant', content: 'One.' });
    expect(tags.changes).toEqual(['reasoning in assistant turns not sent (its reasoning arrives in think tags)']);
    const none = run(sendBackReasoning(null, 'Azure OpenAI takes none'), history, makeBackend('azure'));
    expect(none.body.messages[1]).toEqual({ role: 'assistant', content: 'One.' });
    expect(none.changes).toEqual(['reasoning in assistant turns not sent (Azure OpenAI takes none)']);
  });

  it('leaves user messages alone even when they carry such a key', () => {
    const messages = [{ role: 'user', content: 'x', reasoning: 'not a reasoning turn' }];
    expect(run(sendBackReasoning('reasoning_content'), { messages }).body.messages).toEqual(messages);
  });
});

describe('tool_choice rewrites', () => {
  const named = { tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } };

  it('drops tool_choice without tools, and an empty tools list', () => {
    const out = run(dropOrphanToolChoice, { tool_choice: 'required' });
    expect(out.body).not.toHaveProperty('tool_choice');
    expect(out.changes).toEqual(['tool_choice dropped: no tools']);
    const empty = run(dropOrphanToolChoice, { tools: [], tool_choice: 'auto' });
    expect(empty.body).not.toHaveProperty('tools');
    expect(empty.body).not.toHaveProperty('tool_choice');
    expect(empty.changes).toEqual(['empty tools dropped', 'tool_choice dropped: no tools']);
    const kept = run(dropOrphanToolChoice, { tools: [lockerTool], tool_choice: 'auto' });
    expect(kept.body.tool_choice).toBe('auto');
    expect(kept.changes).toEqual([]);
  });

  it('hands on a request with nothing to drop as it is, uncopied', () => {
    for (const fields of [{}, { tools: [lockerTool] }, { tools: [lockerTool], tool_choice: 'auto' }, { tool_choice: null }]) {
      const draft = draftOf(fields);
      expect(dropOrphanToolChoice(draft, backend)).toBe(draft);
    }
  });

  it('turns a named function into required with only that tool', () => {
    const out = run(namedToolChoiceToRequired, named);
    expect(out.body.tool_choice).toBe('required');
    expect(out.body.tools).toEqual([lockerTool]);
    expect(out.changes).toEqual(['tool_choice function "open_locker" sent as "required" with only that tool']);
    expect(run(namedToolChoiceToRequired, { tools: [lockerTool], tool_choice: 'auto' }).changes).toEqual([]);
  });

  it('offers only the named tool where a call cannot be forced, without the unread field', () => {
    const out = run(namedToolChoiceOffersOnly, named);
    expect(out.body.tools).toEqual([lockerTool]);
    expect(out.body).not.toHaveProperty('tool_choice');
    expect(out.changes).toEqual(['tool_choice function "open_locker": only that tool offered (a call is not forced)']);
  });

  it('refuses a named function the request does not declare', () => {
    for (const rewrite of [namedToolChoiceToRequired, namedToolChoiceOffersOnly]) {
      const error = refused(rewrite, { tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
      expect(error.code).toBe('invalid_request');
      expect(error.param).toBe('tool_choice');
    }
  });

  it('sends no tools under none', () => {
    const out = run(toolChoiceNoneDropsTools, { tools: [lockerTool], tool_choice: 'none' });
    expect(out.body).not.toHaveProperty('tools');
    expect(out.body).not.toHaveProperty('tool_choice');
    expect(out.changes).toEqual(['tool_choice "none": tools not sent']);
    expect(run(toolChoiceNoneDropsTools, { tools: [lockerTool], tool_choice: 'auto' }).body.tools).toEqual([lockerTool]);
  });

  it('says when a server accepts required without keeping it', () => {
    expect(run(noteUnkeptRequired('LM Studio'), { tools: [lockerTool], tool_choice: 'required' }).changes).toEqual([
      'tool_choice "required" may not be kept: LM Studio does not enforce it',
    ]);
    expect(run(noteUnkeptRequired('LM Studio'), { tools: [lockerTool], tool_choice: 'auto' }).changes).toEqual([]);
  });

  it('drops a tool_choice the server does not read, saying when required cannot be kept', () => {
    const required = run(dropUnreadToolChoice('mlx-lm'), { tools: [lockerTool], tool_choice: 'required' });
    expect(required.body).not.toHaveProperty('tool_choice');
    expect(required.changes).toEqual(['tool_choice "required" not enforced: mlx-lm reads no tool_choice']);
    const auto = run(dropUnreadToolChoice('mlx-lm'), { tools: [lockerTool], tool_choice: 'auto' });
    expect(auto.body).not.toHaveProperty('tool_choice');
    expect(auto.changes).toEqual([]);
  });
});

describe('response_format rewrites', () => {
  it('turns json_object into a json_schema of any object', () => {
    const out = run(jsonObjectToJsonSchema, { response_format: { type: 'json_object' } });
    expect(out.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } });
    expect(out.changes).toEqual(['response_format json_object sent as a json_schema of any object']);
  });

  it('asks structured output with reasoning off, saying what the client asked', () => {
    const format = { type: 'json_schema', json_schema: { name: 'locker', schema: { type: 'object' } } };
    expect(run(structuredOutputReasoningOff, { response_format: format }).body.reasoning_effort).toBe('none');
    const asked = run(structuredOutputReasoningOff, { response_format: format, reasoning_effort: 'low' });
    expect(asked.body.reasoning_effort).toBe('none');
    expect(asked.changes).toEqual(['reasoning_effort "low" sent as "none" for structured output']);
    expect(run(structuredOutputReasoningOff, { reasoning_effort: 'low' }).body.reasoning_effort).toBe('low');
    expect(run(structuredOutputReasoningOff, { response_format: { type: 'text' } }).changes).toEqual([]);
  });

  it('adds a JSON note for json_object only when no message says JSON', () => {
    const out = run(ensureJsonWord, { response_format: { type: 'json_object' } });
    expect(out.body.messages[0]).toEqual({ role: 'system', content: JSON_NOTE });
    expect(out.body.messages[1]).toEqual({ role: 'user', content: 'Say hello.' });
    expect(out.changes).toEqual(['system note asking for JSON added (json_object needs the word)']);
    const said = run(ensureJsonWord, {
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply in json please' }] }],
    });
    expect(said.body.messages).toHaveLength(1);
    expect(said.changes).toEqual([]);
  });

  it('says when a server cannot constrain output', () => {
    const out = run(noteUnconstrainedOutput('mlx-lm'), { response_format: { type: 'json_object' } });
    expect(out.body.response_format).toEqual({ type: 'json_object' });
    expect(out.changes).toEqual(['response_format not enforced: mlx-lm cannot constrain output']);
    expect(run(noteUnconstrainedOutput('mlx-lm'), { response_format: { type: 'text' } }).changes).toEqual([]);
  });
});

describe('reasoning_effort to chat_template_kwargs', () => {
  it('switches enable_thinking: none → false, any effort → true', () => {
    const off = run(effortToTemplateKwargs('enable_thinking'), { reasoning_effort: 'none' });
    expect(off.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(off.body).not.toHaveProperty('reasoning_effort');
    expect(off.changes).toEqual(['reasoning_effort "none" sent as chat_template_kwargs.enable_thinking=false']);
    expect(run(effortToTemplateKwargs('enable_thinking'), { reasoning_effort: 'low' }).body.chat_template_kwargs).toEqual({
      enable_thinking: true,
    });
  });

  it('gives another configured key the effort itself, keeping the client kwargs', () => {
    const out = run(
      effortToTemplateKwargs(),
      { reasoning_effort: 'high', chat_template_kwargs: { keep: 1 } },
      makeBackend('llamacpp', { effortTemplateKey: 'reasoning_strength' }),
    );
    expect(out.body.chat_template_kwargs).toEqual({ keep: 1, reasoning_strength: 'high' });
    expect(out.changes).toEqual(['reasoning_effort "high" sent as chat_template_kwargs.reasoning_strength="high"']);
  });

  it('passes the effort as it is without a key, and does nothing without an effort', () => {
    expect(run(effortToTemplateKwargs(), { reasoning_effort: 'high' }).body.reasoning_effort).toBe('high');
    expect(run(effortToTemplateKwargs('enable_thinking'), {}).body).not.toHaveProperty('chat_template_kwargs');
  });
});

describe('fields', () => {
  it('sends max_completion_tokens as max_tokens', () => {
    const out = run(maxCompletionTokensToMaxTokens, { max_completion_tokens: 64, max_tokens: 10 });
    expect(out.body.max_tokens).toBe(64);
    expect(out.body).not.toHaveProperty('max_completion_tokens');
    expect(out.changes).toEqual(['max_completion_tokens sent as max_tokens']);
  });

  it('always streams with usage upstream, keeping other stream options', () => {
    const out = run(streamWithUsage, { stream: false, stream_options: { include_usage: false, other: 1 } });
    expect(out.body.stream).toBe(true);
    expect(out.body.stream_options).toEqual({ include_usage: true, other: 1 });
    expect(out.changes).toEqual([]);
  });

  it('drops top-level nulls silently', () => {
    const out = run(dropNullFields, { tools: null, temperature: null, top_p: 0.5 });
    expect(out.body).not.toHaveProperty('tools');
    expect(out.body).not.toHaveProperty('temperature');
    expect(out.body.top_p).toBe(0.5);
  });

  it('stops at the first rewrite that refuses', () => {
    const refuse: RequestRewrite = () => new SvirError('unsupported_content');
    let ran = false;
    const after: RequestRewrite = (d) => {
      ran = true;
      return d;
    };
    const result = applyRewrites(draftOf({}), backend, [refuse, after]);
    expect(result.ok).toBe(false);
    expect(ran).toBe(false);
  });
});

describe('calls', () => {
  it('posts to {base}/v1/chat/completions with a bearer key only when configured', () => {
    const keyed = bearerCall(draftOf({}), makeBackend('vllm', { url: 'http://127.0.0.1:8000', apiKey: 'k-1' }));
    expect(keyed.url).toBe('http://127.0.0.1:8000/v1/chat/completions');
    expect(keyed.headers).toEqual({ authorization: 'Bearer k-1' });
    expect(bearerCall(draftOf({}), makeBackend('lmstudio', { url: 'http://127.0.0.1:1234/v1/' })).headers).toEqual({});
  });

  it("makes a backend's chat endpoint from its URL and key as they are at each call, headers of each call's own", () => {
    const info = makeBackend('vllm', { url: 'http://127.0.0.1:8000', apiKey: 'k-1' });
    const first = bearerCall(draftOf({}), info);
    const second = bearerCall(draftOf({}), info);
    expect(second.url).toBe(first.url);
    expect(second.headers).toEqual({ authorization: 'Bearer k-1' });
    expect(second.headers).not.toBe(first.headers);
    const rekeyed = { ...info, config: { ...info.config, apiKey: 'k-2' } };
    expect(bearerCall(draftOf({}), rekeyed).headers).toEqual({ authorization: 'Bearer k-2' });
    info.baseUrl = 'http://127.0.0.1:9000/v1';
    expect(bearerCall(draftOf({}), info).url).toBe('http://127.0.0.1:9000/v1/chat/completions');
    expect(first.headers).toEqual({ authorization: 'Bearer k-1' });
  });

  it('builds both Azure routes with the api-key header and never Authorization', () => {
    const draft = { body: chat({ model: 'my-deployment' }), changes: [] };
    const v1 = azureCall(draft, makeBackend('azure', { url: 'https://res.openai.azure.com/', apiKey: 'az' }));
    expect(v1.url).toBe('https://res.openai.azure.com/openai/v1/chat/completions');
    expect(v1.headers).toEqual({ 'api-key': 'az' });
    const deployments = azureCall(draft, makeBackend('azure', { url: 'https://res.openai.azure.com/openai', apiKey: 'az', apiVersion: '2024-10-21' }));
    expect(deployments.url).toBe('https://res.openai.azure.com/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21');
    expect(deployments.headers).not.toHaveProperty('authorization');
  });

  it('reads the Azure resource URL however it is written', () => {
    for (const url of ['https://r.openai.azure.com', 'https://r.openai.azure.com/', 'https://r.openai.azure.com/openai/v1/', 'https://r.openai.azure.com/openai']) {
      expect(azureResourceUrl(url)).toBe('https://r.openai.azure.com');
    }
  });
});

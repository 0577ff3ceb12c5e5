/**
 * The requests whose real answers are kept as golden fixtures (tests/fixtures/llamacpp/
 * llamacpp-v0.5.0-*.sse, and tests/fixtures/llamacpp-http/ for answers that are not a stream).
 * Each is a client's request; what reaches the server is what svir's llama.cpp adapter makes of
 * it (`upstreamCall`), so the recorded bytes are the ones svir receives in that case.
 * scripts/real-llama/record-fixtures.ts records them; tests/real/recorded.real.ts checks that a
 * live server still answers each one as recorded.
 */
import type { UpstreamCall } from '../../src/adapters/adapter.js';
import type { StreamContext } from '../../src/normalize/stream-context.js';
import { llamacppAdapter } from '../../src/adapters/llamacpp.js';
import { chatRequestSchema } from '../../src/requests/chat-request.js';
import { backendSchema, configSchema } from '../../src/config/schema.js';
import { normalizeBaseUrl } from '../../src/config/normalize-base-url.js';
import { buildStreamContext } from '../../src/routes/build-stream-context.js';
import { REAL_FORMATS, type RealFormat } from './formats.js';
import { formatModel, MODELS } from './llama-server.js';

/** The llama.cpp release the fixtures come from (as node-llama-cpp@3.22.1 bundles it). */
export const LLAMACPP_VERSION = 'v0.5.0';
export const FIXTURE_PREFIX = `llamacpp-${LLAMACPP_VERSION}-`;

/**
 * Which server answers: the default Qwen3 model, the tool-aware one, or think tags left in
 * content; or a chat format's model (tests/real/formats.ts), as it is (`<format>`) or with
 * `--reasoning-format none` (`<format>-raw`).
 */
export type ServerVariant = string;

const formatServers = Object.fromEntries(
  REAL_FORMATS.flatMap((format) => [
    [format.name, { model: formatModel(format.name), args: ['-c', '4096'] }],
    [`${format.name}-raw`, { model: formatModel(format.name), args: ['-c', '4096', '--reasoning-format', 'none'] }],
  ]),
);

/** Each variant's model file and extra llama-server arguments. */
export const SERVER_ARGS: Record<ServerVariant, { model: string; args: string[] }> = {
  plain: { model: MODELS.plain, args: [] },
  toolAware: { model: MODELS.toolAware, args: [] },
  thinkInContent: { model: MODELS.plain, args: ['--reasoning-format', 'none'] },
  ...formatServers,
};

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Berlin'] }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city', 'unit'],
    },
  },
};

export const timeTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Get the current time',
    parameters: { type: 'object', properties: { tz: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['tz'] },
  },
};

export const verdictFormat = {
  type: 'json_schema',
  json_schema: {
    name: 'verdict',
    strict: true,
    schema: {
      type: 'object',
      properties: { answer: { type: 'string', enum: ['yes', 'no'] }, score: { type: 'integer', minimum: 0, maximum: 9 } },
      required: ['answer', 'score'],
      additionalProperties: false,
    },
  },
};

export const sayHi = [{ role: 'user', content: 'Say hi.' }];
export const askWeather = [{ role: 'user', content: 'What is the weather in Paris?' }];
/**
 * Asks for two calls in one turn: "Paris and Berlin" is one token of the chat-format models that
 * take two calls (scripts/real-llama/tiny_formats.py, TWO_CALLS), and it makes them write a
 * second call after the first.
 */
export const askTwoCities = [{ role: 'user', content: 'What is the weather in Paris and Berlin?' }];
/** ~800 tokens: more than the 512-token context. */
export const overflowing = [{ role: 'user', content: 'lorem ipsum dolor sit amet '.repeat(160) }];
/** A 1x1 PNG. */
export const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The model the tiny server answers every chat with (DESIGN of the model: scripts/real-llama/). */
export const TINY_REASONING = 'Okay, let me reply briefly';
export const TINY_ANSWER = 'Hello! I am a tiny test model for svir.';

export interface RecordedCase {
  /** File name after the prefix. */
  name: string;
  description: string;
  server: ServerVariant;
  /** The client's request (the model name is svir's). */
  request: Record<string, unknown>;
  /** Backend config keys beyond name/type/url (e.g. effortTemplateKey). */
  backend?: Record<string, unknown>;
}

export const CLIENT_MODEL = 'tiny';

const base = { model: CLIENT_MODEL, seed: 42, stream: true };

/** The Qwen3 model's streams. */
const QWEN3_CASES: readonly RecordedCase[] = [
  {
    name: 'plain',
    description: 'a plain streamed answer: reasoning_content one token per chunk, then content, timings on the finish chunk',
    server: 'plain',
    request: { ...base, messages: sayHi, max_tokens: 60 },
  },
  {
    name: 'usage',
    description: 'a streamed answer with usage asked: the usage chunk (with timings) after the finish chunk',
    server: 'plain',
    request: { ...base, messages: sayHi, max_tokens: 60, stream_options: { include_usage: true } },
  },
  {
    name: 'max-tokens-5',
    description: 'max_tokens 5 cuts the reasoning: finish length, no content',
    server: 'plain',
    request: { ...base, messages: sayHi, max_tokens: 5, stream_options: { include_usage: true } },
  },
  {
    name: 'effort-none',
    description: 'reasoning_effort none sent as chat_template_kwargs.enable_thinking=false: the answer alone',
    server: 'plain',
    request: { ...base, messages: sayHi, max_tokens: 60, reasoning_effort: 'none' },
    backend: { effortTemplateKey: 'enable_thinking' },
  },
  {
    name: 'required',
    description: 'tool_choice required: its grammar lets the answer come first, then one call with a 32-character id',
    server: 'plain',
    request: { ...base, messages: askWeather, tools: [weatherTool, timeTool], tool_choice: 'required', max_tokens: 200 },
  },
  {
    name: 'named',
    description: 'a named tool_choice, sent as required with only that tool: a call of it after the answer',
    server: 'plain',
    request: {
      ...base,
      messages: askWeather,
      tools: [weatherTool, timeTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_tokens: 200,
    },
  },
  {
    name: 'required-cut',
    description: 'max_tokens cuts a required call inside its arguments: finish length, the call as far as it came',
    server: 'plain',
    request: { ...base, messages: askWeather, tools: [weatherTool, timeTool], tool_choice: 'required', max_tokens: 47 },
  },
  {
    name: 'json-schema',
    description: 'json_schema: reasoning, then compact JSON that matches the schema as content',
    server: 'plain',
    request: { ...base, messages: [{ role: 'user', content: 'Say hi in one word.' }], response_format: verdictFormat, max_tokens: 60 },
  },
  {
    name: 'toolaware-auto',
    description: 'the tool-aware model with tool_choice auto: a call straight after the reasoning',
    server: 'toolAware',
    request: { ...base, messages: askWeather, tools: [weatherTool, timeTool], max_tokens: 200 },
  },
  {
    name: 'toolaware-after-result',
    description: 'the tool-aware model after a tool result: an ordinary answer',
    server: 'toolAware',
    request: {
      ...base,
      messages: [
        ...askWeather,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
      ],
      tools: [weatherTool, timeTool],
      max_tokens: 200,
    },
  },
  {
    name: 'think-in-content',
    description: '--reasoning-format none: the <think> tags stay in content, split out by svir',
    server: 'thinkInContent',
    request: { ...base, messages: sayHi, max_tokens: 60, stream_options: { include_usage: true } },
  },
  {
    name: 'think-in-content-required',
    description: '--reasoning-format none with tool_choice required: think tags in content, then the call',
    server: 'thinkInContent',
    request: { ...base, messages: askWeather, tools: [weatherTool, timeTool], tool_choice: 'required', max_tokens: 200 },
  },
];

const afterResult = [
  ...askWeather,
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
];

/** Each chat format's streams (docs/llamacpp-real.md, "Chat formats"). */
function formatCases(format: RealFormat): RecordedCase[] {
  const tools = [weatherTool, timeTool];
  const f = format.name;
  const cases: RecordedCase[] = [
    { name: `${f}-plain`, description: `${f}: a plain streamed answer`, server: f, request: { ...base, messages: sayHi, max_tokens: 60 } },
    {
      name: `${f}-auto`,
      description: `${f}: tool_choice auto, ${format.callsOnItsOwn ? 'a call in its syntax' : 'an answer (the template shows no tools)'}`,
      server: f,
      request: { ...base, messages: askWeather, tools, max_tokens: 200 },
    },
    {
      name: `${f}-required`,
      description: `${f}: tool_choice required, one whole call`,
      server: f,
      request: { ...base, messages: askWeather, tools, tool_choice: 'required', max_tokens: 200 },
    },
    {
      name: `${f}-required-cut`,
      description: `${f}: max_tokens ${format.cutCallAt} ends inside a required call: finish length`,
      server: f,
      request: { ...base, messages: askWeather, tools, tool_choice: 'required', max_tokens: format.cutCallAt },
    },
    {
      name: `${f}-after-result`,
      description: `${f}: a tool result sent back, then an answer`,
      server: f,
      request: { ...base, messages: afterResult, tools, max_tokens: 200 },
    },
  ];
  if (format.twoCalls !== 'never') {
    cases.push({
      name: `${f}-two-calls`,
      description: `${f}: two calls in one turn (tool_choice ${format.twoCalls}), each with its own index and id`,
      server: f,
      request: { ...base, messages: askTwoCities, tools, max_tokens: 200, ...(format.twoCalls === 'required' ? { tool_choice: 'required' } : {}) },
    });
  }
  if (format.name === 'glm-4.6' || format.name === 'deepseek-v3.1') {
    cases.push({
      name: `${f}-effort-none`,
      description: `${f}: reasoning_effort none, which the server turns into enable_thinking false: its template closes the think block in the prompt, the answer alone`,
      server: f,
      request: { ...base, messages: sayHi, max_tokens: 60, reasoning_effort: 'none' },
    });
  }
  if (format.name === 'llama-3.3') {
    cases.push({
      name: `${f}-unknown-tool`,
      description: `${f}: offered get_time alone, the model calls get_weather: the parser fails the stream`,
      server: f,
      request: { ...base, messages: askWeather, tools: [timeTool], max_tokens: 60 },
    });
  }
  if (format.reasons) {
    cases.push(
      {
        name: `${f}-raw-plain`,
        description: `${f} with --reasoning-format none: its reasoning markers in content, split by svir`,
        server: `${f}-raw`,
        request: { ...base, messages: sayHi, max_tokens: 60 },
      },
      {
        name: `${f}-raw-required`,
        description: `${f} with --reasoning-format none and tool_choice required: the markers in content, then the call`,
        server: `${f}-raw`,
        request: { ...base, messages: askWeather, tools, tool_choice: 'required', max_tokens: 200 },
      },
    );
    if (format.twoCalls !== 'never') {
      cases.push({
        name: `${f}-raw-two-calls`,
        description: `${f} with --reasoning-format none and two calls asked: the markers in content, then the two calls`,
        server: `${f}-raw`,
        request: { ...base, messages: askTwoCities, tools, max_tokens: 200, ...(format.twoCalls === 'required' ? { tool_choice: 'required' } : {}) },
      });
    }
  }
  if (format.name === 'glm-4.6') {
    // enable_thinking false: the template closes an empty think block in the prompt, and the
    // parser, told to leave reasoning in content, puts it back there with the "\n" after it.
    cases.push(
      {
        name: `${f}-raw-effort-none`,
        description: `${f} with --reasoning-format none and reasoning_effort none: an empty think block and "\n" in one content chunk, then the answer`,
        server: `${f}-raw`,
        request: { ...base, messages: sayHi, max_tokens: 60, reasoning_effort: 'none' },
      },
      {
        name: `${f}-raw-effort-none-auto`,
        description: `${f} with --reasoning-format none, reasoning_effort none and tools: an empty think block and "\n" in one content chunk, then the call`,
        server: `${f}-raw`,
        request: { ...base, messages: askWeather, tools, max_tokens: 200, reasoning_effort: 'none' },
      },
    );
  }
  return cases;
}

/** The streams of every chat format's model. */
export const FORMAT_CASES: readonly RecordedCase[] = REAL_FORMATS.flatMap(formatCases);

/** Every recorded stream. */
export const RECORDED_CASES: readonly RecordedCase[] = [...QWEN3_CASES, ...FORMAT_CASES];

/** Answers that are not a stream: kept as status, headers and body. */
export const RECORDED_HTTP_CASES: readonly RecordedCase[] = [
  {
    name: 'overflow',
    description: 'a prompt over the 512-token context: 400 exceed_context_size_error with n_prompt_tokens and n_ctx, also for a stream',
    server: 'plain',
    request: { ...base, messages: overflowing },
  },
  {
    name: 'image',
    description: 'an image without a projector (mmproj)',
    server: 'plain',
    request: { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }] },
  },
  {
    name: 'ministral-3-two-users',
    description: "two user messages in a row (Codex CLI's environment, then its prompt): Ministral 3's template raises, a 500 with the Jinja exception",
    server: 'ministral-3',
    request: { ...base, messages: [{ role: 'user', content: 'Here is some context.' }, ...sayHi] },
  },
];

/** What svir sends upstream for a case, and the stream context it reads the answer in. */
export function upstreamCall(recorded: RecordedCase, baseUrl = 'http://127.0.0.1:9/v1'): { call: UpstreamCall; ctx: StreamContext } {
  const request = chatRequestSchema.parse(recorded.request);
  const config = backendSchema.parse({ name: 'real-llama', type: 'llamacpp', url: baseUrl, ...recorded.backend });
  const backend = { config, baseUrl: normalizeBaseUrl(config.url), vision: undefined };
  const result = llamacppAdapter.toUpstream(request, backend, CLIENT_MODEL);
  if (!result.ok) throw new Error(`case ${recorded.name}: svir refuses it: ${result.error.message}`);
  const ctx = buildStreamContext(request, result.call.body, backend, CLIENT_MODEL, llamacppAdapter, configSchema.parse({ backends: [config] }), []);
  return { call: result.call, ctx: { ...ctx, includeUsage: recorded.request['stream_options'] !== undefined } };
}

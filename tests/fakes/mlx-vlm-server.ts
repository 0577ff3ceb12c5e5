/**
 * A fake mlx-vlm server (docs/wire-protocol.md#messages, #tools, #optional-fields, #chunks,
 * #reasoning, #http-errors): takes images; keeps `tool_choice` through the prompt (`none` leaves
 * the tools out, `required` or a named function makes the model call one, a named one offering only
 * that tool) and refuses a value outside the protocol with a `detail` 400; a body it cannot read is
 * a 422 with a `detail` list; reasons only when `reasoning_effort` asks (and not for `none`); sends
 * every key of its message type, null when unused, reasoning twice under two keys, `logprobs:
 * null`, `usage: null` and `timings`; with a context limit (`MAX_KV_SIZE`) counts `max_tokens` into
 * it and refuses in its own wordings.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { fakeChatHandler, startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { fakeEmbeddingHandler } from './fake-legacy.js';
import {
  JSON_ANSWER,
  lastUserText,
  modelAnswer,
  namedChoice,
  pieces,
  promptText,
  sseData,
  toolNames,
  wantsUsage,
  writeEventStream,
  writeJson,
  type FakeChatBody,
} from './fake-model.js';

export interface MlxVlmOptions {
  modelPath?: string;
  /** `MAX_KV_SIZE`, in characters; undefined: no limit. */
  maxKvSize?: number;
  /** `--max-tokens`, counted in for a request that sets none. */
  defaultMaxTokens?: number;
}

function answer(body: FakeChatBody, res: ServerResponse, options: MlxVlmOptions & { modelPath: string }): void {
  const choice = body.tool_choice;
  const named = namedChoice(choice);
  if (choice !== undefined && named === undefined && choice !== 'none' && choice !== 'auto' && choice !== 'required') {
    writeJson(res, 400, { detail: "Invalid tool_choice. Expected 'none', 'auto', 'required', or a specific function." });
    return;
  }
  if (options.maxKvSize !== undefined) {
    const reserve = body.max_tokens ?? body.max_completion_tokens ?? options.defaultMaxTokens ?? 512;
    if (reserve >= options.maxKvSize) {
      writeJson(res, 400, { detail: 'Output reservation leaves no room for compacted context.' });
      return;
    }
    if (lastUserText(body).length + reserve > options.maxKvSize) {
      writeJson(res, 400, { detail: 'Protected conversation exceeds the available context budget.' });
      return;
    }
  }
  const tools = choice === 'none' ? [] : named !== undefined ? [named] : toolNames(body);
  const said = modelAnswer(body, named !== undefined ? { tools, mustCall: named } : choice === 'required' ? { tools, mustCall: true } : { tools });
  const structured = body.response_format !== undefined && body.response_format.type !== 'text';
  const reasons = body.reasoning_effort !== undefined && body.reasoning_effort !== 'none';
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseData({
      id: 'chatcmpl-vlm9',
      object: 'chat.completion.chunk',
      created: 1_760_000_200,
      model: options.modelPath,
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: null, reasoning_content: null, reasoning: null, tool_calls: null, tool_call_id: null, name: null, ...delta },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage: null,
      timings: { prompt_tps: 211.4, generation_tps: 28.7 },
    });
  const events: string[] = [];
  if (reasons) for (const piece of pieces(said.reasoning)) events.push(chunk({ reasoning_content: piece, reasoning: piece }));
  let finish = 'stop';
  if (said.call !== undefined) {
    events.push(chunk({ tool_calls: [{ index: 0, id: 'call_vlm_1', type: 'function', function: { name: said.call.name, arguments: said.call.arguments } }] }));
    finish = 'tool_calls';
  } else {
    for (const piece of pieces(structured ? JSON_ANSWER : said.text)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({}, finish));
  if (wantsUsage(body)) {
    const total = promptText(body).length;
    events.push(
      sseData({
        id: 'chatcmpl-vlm9',
        object: 'chat.completion.chunk',
        created: 1_760_000_200,
        model: options.modelPath,
        choices: [],
        usage: { prompt_tokens: total, completion_tokens: 14, total_tokens: total + 14, prompt_tokens_details: { cached_tokens: 0 } },
        timings: { prompt_tps: 211.4, generation_tps: 28.7, peak_memory_gb: 17.9 },
      }),
    );
  }
  events.push(sseData('[DONE]'));
  writeEventStream(res, events);
}

export async function startMlxVlmServer(options: MlxVlmOptions = {}): Promise<ScriptedUpstream> {
  const settings = { ...options, modelPath: options.modelPath ?? '/Users/me/models/Qwen3.8-27B-4bit' };
  const upstream = await startScriptedUpstream();
  upstream.route('GET', '/v1/models', {
    kind: 'body',
    status: 200,
    body: { object: 'list', data: [{ id: 'unsloth/Qwen-Image-2.1', object: 'model' }, { id: settings.modelPath, object: 'model' }] },
  });
  upstream.chat(
    fakeChatHandler(
      (res, recorded) => {
        const messages = z.looseObject({ messages: z.unknown() }).safeParse(recorded.body);
        writeJson(res, 422, {
          detail: [{ type: 'list_type', loc: ['body', 'messages'], msg: 'Input should be a valid list', input: messages.success ? messages.data.messages : null }],
        });
      },
      (body, res) => answer(body, res, settings),
    ),
  );
  // No /v1/completions: FastAPI's 404.
  upstream.route('POST', '/v1/completions', { kind: 'body', status: 404, body: { detail: 'Not Found' } });
  upstream.route(
    'POST',
    '/v1/embeddings',
    // EmbeddingsRequest takes encoding_format and never reads it: floats.
    fakeEmbeddingHandler({
      base64: false,
      model: (body) => body.model ?? settings.modelPath,
      refuse: (res) => writeJson(res, 422, { detail: [{ type: 'missing', loc: ['body', 'input'], msg: 'Field required', input: null }] }),
    }),
  );
  return upstream;
}

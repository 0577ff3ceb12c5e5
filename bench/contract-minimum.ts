/**
 * `contract-minimum`: a small hand-written proxy that does, per streamed chat request to an
 * `openai` backend, the least any program honouring the contract (docs/contract.md) has to do, and
 * nothing of svir's. Its point is the bound: how far above the fastify pass-through the
 * contract's own work puts any implementation, so that the rest of svir's cost can be told
 * apart as svir's own. Written plainly: neither tuned past what a careful first version would
 * do nor slowed down.
 *
 * Per request: a fastify 5 route, the body read by fastify's default JSON parser; the fields the
 * contract checks (model, messages, `n`, `tool_choice`, `response_format`, stream flags), the
 * request rewrites every adapter does (text-only array content sent as a string, `tool_choice`
 * without tools dropped and named in `x-svir-changes`), the body serialized again and sent with
 * one undici request over a keep-alive pool, always `stream: true`. The answer: headers wait for
 * the upstream's first read; the SSE stream is decoded line by line; each event's JSON is parsed
 * and a clean chunk built (one choice, `index: 0`, the stream's one `id` and `created`, the
 * client's `model`, delta keys `role`/`content`/`reasoning_content`/`tool_calls`/`refusal` only
 * and never null, role in the first chunk alone, one kind of payload per delta), encoded, and
 * the read's chunks written at once; the finish chunk is held to the end, usage follows it
 * only when asked, `data: [DONE]` ends it. One pino line per request to stdout (asynchronous, as
 * svir's CLI writes), one prom-client counter per request by status.
 *
 * What it leaves out because the bench's request and stream never need it (and a program for
 * real traffic would need): the tool-call holding rules (a call held until its name is whole,
 * calls never interleaved), `<think>` tags, the other backends' quirks, timeouts and deadlines,
 * retries and failover, the queue, and `stream: false` (refused here with a 400). Errors:
 * any upstream failure is a 502 before the headers, an error event after them.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino, type DestinationStream } from 'pino';
import { Counter, Registry } from 'prom-client';
import { Pool } from 'undici';

export const CONTRACT_MINIMUM_BACKEND = 'mock';

export interface ContractMinimumOptions {
  /** The upstream's origin, e.g. `http://127.0.0.1:1234` (its API under `/v1/`). */
  upstream: string;
  /** The one model this backend serves. */
  model: string;
  /** Where the log lines go: stdout by default. */
  logDestination?: DestinationStream;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** The contract's error shape (section 3). */
function errorBody(message: string, code: string, param: string | null = null): string {
  const type = code === 'upstream_error' ? 'upstream_error' : 'invalid_request_error';
  return JSON.stringify({ error: { message, type, param, code } });
}

const TOOL_CHOICES = new Set(['none', 'auto', 'required']);
const RESPONSE_FORMATS = new Set(['text', 'json_object', 'json_schema']);

/** The checks the contract names, and the rewrites every adapter does; returns the upstream body and the changes. */
export function checkAndRewrite(body: unknown, model: string): { model: string; upstream: Json; changes: string[]; includeUsage: boolean } {
  if (!isObject(body)) throw new RequestError(400, 'invalid_request', 'The request body must be a JSON object.');
  if (!nonEmptyString(body.model)) throw new RequestError(400, 'invalid_request', '`model` is required.', 'model');
  if (body.model !== model) throw new RequestError(404, 'model_not_found', `The model \`${body.model}\` does not exist.`, 'model');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new RequestError(400, 'invalid_request', '`messages` must be a non-empty array.', 'messages');
  if (body.n !== undefined && body.n !== 1) throw new RequestError(400, 'invalid_request', 'Only `n: 1` is supported.', 'n');
  if (body.stream !== true) throw new RequestError(400, 'invalid_request', 'This benchmark target answers streamed requests only.', 'stream');
  if (body.stream_options !== undefined && !isObject(body.stream_options)) {
    throw new RequestError(400, 'invalid_request', '`stream_options` must be an object.', 'stream_options');
  }
  const toolChoice = body.tool_choice;
  if (
    toolChoice !== undefined &&
    !(typeof toolChoice === 'string' && TOOL_CHOICES.has(toolChoice)) &&
    !(isObject(toolChoice) && toolChoice.type === 'function' && isObject(toolChoice.function) && nonEmptyString(toolChoice.function.name))
  ) {
    throw new RequestError(400, 'invalid_request', '`tool_choice` is not one the protocol allows.', 'tool_choice');
  }
  const format = body.response_format;
  if (format !== undefined && !(isObject(format) && typeof format.type === 'string' && RESPONSE_FORMATS.has(format.type))) {
    throw new RequestError(400, 'invalid_request', '`response_format` is not one the protocol allows.', 'response_format');
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) throw new RequestError(400, 'invalid_request', '`tools` must be an array.', 'tools');

  const changes: string[] = [];
  let rewritten: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isObject(message) || typeof message.role !== 'string') {
      throw new RequestError(400, 'invalid_request', `\`messages[${i}]\` must be an object with a role.`, `messages[${i}]`);
    }
    const content = message.content;
    if (!Array.isArray(content)) continue;
    // Text-only array content goes as a string (some servers take no parts).
    let text = '';
    let textOnly = true;
    for (const part of content) {
      if (isObject(part) && part.type === 'text' && typeof part.text === 'string') text += part.text;
      else textOnly = false;
    }
    if (!textOnly) continue;
    rewritten ??= [...messages];
    rewritten[i] = { ...message, content: text };
  }
  const upstream: Json = { ...body, stream: true };
  if (rewritten !== undefined) {
    upstream.messages = rewritten;
    changes.push('text-only content sent as a string');
  }
  if (toolChoice !== undefined && (!Array.isArray(body.tools) || body.tools.length === 0)) {
    delete upstream.tool_choice;
    changes.push('tool_choice dropped: no tools');
  }
  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  return { model: body.model, upstream, changes, includeUsage };
}

const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter']);

/**
 * One upstream SSE stream to clean chunks: `push` takes each read's text and returns the bytes
 * to write for it (maybe none), `end` the bytes that close the stream.
 */
export class CleanStream {
  private rest = '';
  private data: string | undefined;
  private id = '';
  private created = 0;
  private roleSent = false;
  private sentCalls = false;
  private finish: string | undefined;
  private usage: Json | undefined;
  /** `[DONE]` seen, or the stream failed: nothing more is read. */
  done = false;
  failed = false;
  chunks = 0;

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {}

  push(text: string): string {
    if (this.done) return '';
    let out = '';
    const buffer = this.rest + text;
    let start = 0;
    for (let nl = buffer.indexOf('\n', start); nl !== -1; nl = buffer.indexOf('\n', start)) {
      const line = buffer.charCodeAt(nl - 1) === 13 ? buffer.slice(start, nl - 1) : buffer.slice(start, nl);
      start = nl + 1;
      if (line === '') {
        if (this.data !== undefined) out += this.event(this.data);
        this.data = undefined;
        if (this.done) return out;
        continue;
      }
      // Comments (`: ping`, keepalives) are not forwarded; only `data` matters here.
      if (line.charCodeAt(0) === 58) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      if (field !== 'data') continue;
      const value = colon === -1 ? '' : line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    }
    this.rest = buffer.slice(start);
    return out;
  }

  /** The finish chunk, usage when asked, `[DONE]`; or an error event when the upstream stopped short. */
  end(): string {
    if (this.failed) return '';
    if (!this.done || this.finish === undefined) return this.fail('The upstream stream ended before its answer did.');
    let out = this.chunk(this.roleSent ? {} : { role: 'assistant' }, this.finish);
    if (this.includeUsage && this.usage !== undefined) out += this.usageChunk(this.usage);
    return `${out}data: [DONE]\n\n`;
  }

  fail(message: string): string {
    this.done = true;
    this.failed = true;
    return `data: ${errorBody(message, 'upstream_error')}\n\n`;
  }

  private event(data: string): string {
    if (data === '[DONE]') {
      this.done = true;
      return '';
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return this.fail('The upstream sent an event that is not JSON.');
    }
    if (!isObject(parsed)) return this.fail('The upstream sent an event that is not a chunk.');
    if (parsed.error !== undefined) return this.fail('The upstream failed during the answer.');
    if (this.id === '') {
      this.id = nonEmptyString(parsed.id) ? parsed.id : `chatcmpl-${randomUUID()}`;
      this.created = typeof parsed.created === 'number' ? parsed.created : Math.floor(Date.now() / 1000);
    }
    const choices = parsed.choices;
    if (!Array.isArray(choices) || choices.length === 0) {
      if (isObject(parsed.usage)) this.usage = parsed.usage;
      return '';
    }
    const choice: unknown = choices[0];
    if (!isObject(choice)) return '';
    let out = '';
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = nonEmptyString(delta.reasoning_content) ? delta.reasoning_content : delta.reasoning;
    if (nonEmptyString(reasoning)) out += this.payload({ reasoning_content: reasoning });
    if (nonEmptyString(delta.content)) out += this.payload({ content: delta.content });
    if (nonEmptyString(delta.refusal)) out += this.payload({ refusal: delta.refusal });
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
      this.sentCalls = true;
      out += this.payload({ tool_calls: delta.tool_calls.map(cleanCall) });
    }
    if (typeof choice.finish_reason === 'string') {
      const reason = choice.finish_reason;
      if (reason === 'abort' || reason === 'error') return out + this.fail(`The upstream cut the answer (finish_reason ${reason}).`);
      this.finish = FINISH_REASONS.has(reason) ? reason : 'stop';
      if (this.sentCalls && this.finish !== 'length' && this.finish !== 'content_filter') this.finish = 'tool_calls';
    }
    if (isObject(parsed.usage)) this.usage = parsed.usage;
    // The first chunk carries the role even when the server's first delta had nothing else.
    if (!this.roleSent && typeof delta.role === 'string') out += this.payload({});
    return out;
  }

  /** One delta with one kind of payload; the role goes in the first chunk only. */
  private payload(delta: Json): string {
    if (!this.roleSent) {
      this.roleSent = true;
      return this.chunk({ role: 'assistant', ...delta }, null);
    }
    if (Object.keys(delta).length === 0) return '';
    return this.chunk(delta, null);
  }

  private chunk(delta: Json, finish: string | null): string {
    this.chunks++;
    const chunk = { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta, finish_reason: finish }] };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  private usageChunk(usage: Json): string {
    const clean: Json = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens };
    const completion = usage.completion_tokens_details;
    if (isObject(completion) && typeof completion.reasoning_tokens === 'number') clean.completion_tokens_details = { reasoning_tokens: completion.reasoning_tokens };
    const prompt = usage.prompt_tokens_details;
    if (isObject(prompt) && typeof prompt.cached_tokens === 'number') clean.prompt_tokens_details = { cached_tokens: prompt.cached_tokens };
    const chunk = { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: clean };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

/** A tool-call piece as received, with the keys the clean dialect has. */
function cleanCall(call: unknown): Json {
  if (!isObject(call)) return {};
  const out: Json = { index: call.index };
  if (nonEmptyString(call.id)) out.id = call.id;
  if (typeof call.type === 'string') out.type = call.type;
  const fn = call.function;
  if (isObject(fn)) {
    const cleanFn: Json = {};
    if (typeof fn.name === 'string') cleanFn.name = fn.name;
    if (typeof fn.arguments === 'string') cleanFn.arguments = fn.arguments;
    out.function = cleanFn;
  }
  return out;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

export interface ContractMinimum {
  app: FastifyInstance;
  /** Requests answered, by status (the counter behind `/metrics`). */
  registry: Registry;
  close(): Promise<void>;
}

export function createContractMinimum(options: ContractMinimumOptions): ContractMinimum {
  const log = pino({ level: 'info' }, options.logDestination ?? pino.destination({ dest: 1, sync: false }));
  const registry = new Registry();
  const requests = new Counter({ name: 'contract_minimum_requests_total', help: 'Requests answered, by status.', labelNames: ['status'], registers: [registry] });
  const pool = new Pool(options.upstream);
  const models = JSON.stringify({ object: 'list', data: [{ id: options.model, object: 'model', owned_by: CONTRACT_MINIMUM_BACKEND }] });
  const app = Fastify({ logger: false });

  app.addHook('onRequest', (request, reply, done) => {
    const start = performance.now();
    reply.header('x-request-id', request.id);
    reply.raw.once('close', () => {
      const status = reply.raw.statusCode;
      requests.inc({ status });
      log.info({ reqId: request.id, method: request.method, path: request.url, status, ms: Math.round((performance.now() - start) * 1000) / 1000 }, 'request');
    });
    done();
  });

  app.setErrorHandler((err, _request, reply) => {
    if (err instanceof RequestError) {
      void reply.code(err.status).type('application/json').send(errorBody(err.message, err.code, err.param));
      return;
    }
    // Fastify's own: its JSON parser's 400 (malformed body) and the like keep their status.
    const status = isObject(err) && typeof err.statusCode === 'number' && err.statusCode < 500 ? err.statusCode : 500;
    const code = isObject(err) && err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'invalid_json' : 'invalid_request';
    void reply.code(status).type('application/json').send(errorBody(err instanceof Error ? err.message : 'The request failed.', code));
  });

  app.get('/v1/models', (_request, reply) => {
    void reply.type('application/json').send(models);
  });
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));

  app.post('/v1/chat/completions', async (request, reply) => {
    const { model, upstream, changes, includeUsage } = checkAndRewrite(request.body, options.model);
    const headers: Record<string, string> = { ...SSE_HEADERS, 'x-request-id': request.id, 'x-svir-backend': CONTRACT_MINIMUM_BACKEND };
    if (changes.length > 0) headers['x-svir-changes'] = changes.join(', ');
    const upstreamFailed = (message: string): void => {
      void reply.code(502).type('application/json').send(errorBody(`Backend ${CONTRACT_MINIMUM_BACKEND}: ${message}`, 'upstream_error'));
    };
    let res;
    try {
      res = await pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(upstream),
      });
    } catch (err) {
      upstreamFailed(`unreachable (${err instanceof Error ? err.message : String(err)}).`);
      return reply;
    }
    const type = res.headers['content-type'];
    if (res.statusCode !== 200 || typeof type !== 'string' || !type.startsWith('text/event-stream')) {
      await res.body.dump();
      upstreamFailed(`answered ${res.statusCode} ${typeof type === 'string' ? type : ''}`.trim() + '.');
      return reply;
    }
    const clean = new CleanStream(model, includeUsage);
    const raw = reply.raw;
    const body = res.body;
    reply.hijack();
    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      // The headers go out with the upstream's first read, so a failure before it is a status.
      raw.writeHead(200, headers);
    };
    body.setEncoding('utf8');
    body.on('data', (text: string) => {
      const out = clean.push(text);
      start();
      // One write per upstream read; backpressure: stop reading upstream until the client drains.
      if (out !== '' && !raw.write(out)) {
        body.pause();
        raw.once('drain', () => body.resume());
      }
      if (clean.done && clean.failed) {
        raw.end();
        body.destroy();
      }
    });
    body.once('end', () => {
      start();
      raw.end(clean.end());
    });
    body.once('error', (err) => {
      if (raw.writableEnded) return;
      if (!started) {
        raw.writeHead(502, { 'content-type': 'application/json', 'x-request-id': request.id });
        raw.end(errorBody(`Backend ${CONTRACT_MINIMUM_BACKEND}: ${err.message}`, 'upstream_error'));
        return;
      }
      raw.end(clean.fail(`Backend ${CONTRACT_MINIMUM_BACKEND}: the stream was cut (${err.message}).`));
    });
    // The client went away: stop reading the upstream (its connection is closed with it).
    raw.once('close', () => {
      if (!raw.writableFinished) body.destroy();
    });
    return reply;
  });

  return {
    app,
    registry,
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await pool.close();
      log.flush();
    },
  };
}

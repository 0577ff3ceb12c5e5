/**
 * The config file's schema: the contract's keys (docs/contract.md#configuration) plus svir's own
 * (timeouts, concurrency, aliases, vision). Every default lives here.
 */
import { z } from 'zod';

export const BACKEND_TYPES = ['lmstudio', 'llamacpp', 'vllm', 'mlx-lm', 'mlx-vlm', 'ollama', 'azure', 'openai'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

const backendUrl = z
  .string()
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must use http or https' });
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not carry userinfo (put the key in apiKey)' });
    }
    if (url.search !== '' || value.includes('?')) ctx.addIssue({ code: 'custom', message: 'must not carry a query' });
    if (url.hash !== '' || value.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not carry a fragment' });
  });

export const timeoutsSchema = z.strictObject({
  /** TCP connect. */
  connectMs: z.number().int().positive().default(5_000),
  /** From sending the request to the first chunk: long prompts take minutes on a workstation. */
  firstTokenMs: z.number().int().positive().default(600_000),
  /** Between two chunks once the stream runs. */
  idleMs: z.number().int().positive().default(120_000),
});

export const backendSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"'),
  type: z.enum(BACKEND_TYPES),
  url: backendUrl,
  /** An empty value (`apiKey: ${LMS_KEY}` with the variable set to "") means no key. */
  apiKey: z
    .string()
    .optional()
    .transform((key) => (key === '' ? undefined : key)),
  /** Served models; otherwise discovered from GET /v1/models. Required for azure (deployments). */
  models: z.array(z.string().min(1)).min(1).optional(),
  /** How `<think>` tags in content are read; unset: `off` for azure, `auto` for the other types. */
  reasoningTags: z.enum(['auto', 'open', 'off']).optional(),
  /** Whether the backend takes images; undefined: the adapter's default or what /v1/models says. */
  vision: z.boolean().optional(),
  /** Where reasoning_effort goes for a template that reads another variable (mlx-lm, llama.cpp). */
  effortTemplateKey: z.string().min(1).optional(),
  /**
   * The context the server gives a request, in tokens (Ollama: OLLAMA_CONTEXT_LENGTH or the
   * model's num_ctx). Ollama shortens a longer prompt without an error; svir notes a request that
   * may not fit in x-svir-changes. Default for ollama: 4096, the smallest it picks by itself.
   */
  contextLength: z.number().int().positive().optional(),
  maxConcurrent: z.number().int().positive().default(4),
  maxQueue: z.number().int().nonnegative().default(64),
  queueTimeoutMs: z.number().int().positive().default(300_000),
  timeouts: timeoutsSchema.prefault({}),
  /** Azure only: use the deployments route with this api-version instead of /openai/v1. */
  apiVersion: z.string().min(1).optional(),
});

/** The other keys of a clean delta (docs/contract.md#clean-dialect). */
const DELTA_KEYS: readonly string[] = ['role', 'content', 'tool_calls', 'refusal'];

export const configSchema = z
  .strictObject({
    server: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65_535).default(4000),
        apiKeys: z.array(z.string().min(1)).default([]),
        /** Listening beyond loopback without keys is refused unless this is set. */
        allowUnauthenticated: z.boolean().default(false),
        bodyLimitBytes: z.number().int().positive().default(100 * 1024 * 1024),
        shutdownGraceMs: z.number().int().nonnegative().default(10_000),
        /** How long a client may take to send its request headers: a client trickling them is cut (408). */
        headersTimeoutMs: z.number().int().positive().default(10_000),
        /** How long a whole request (headers and body) may take to arrive; 0: no limit. Big images over a slow link take minutes. */
        requestTimeoutMs: z.number().int().nonnegative().default(300_000),
        /** How long an idle keep-alive connection stays open between two requests. */
        keepAliveTimeoutMs: z.number().int().positive().default(72_000),
        /** Send `: keepalive` while waiting this long for the first token (0: never). */
        keepaliveMs: z.number().int().nonnegative().default(60_000),
        /** Reload the config file when it changes, as on SIGHUP. */
        watchConfig: z.boolean().default(false),
        logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      })
      .prefault({}),
    reasoning: z
      .strictObject({
        field: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          // Reasoning is never content (docs/contract.md#clean-dialect): a key the delta already
          // uses would merge the two.
          .refine((key) => !DELTA_KEYS.includes(key), `must not be a key the delta already uses (${DELTA_KEYS.join(', ')})`)
          .default('reasoning_content'),
      })
      .prefault({}),
    /** `POST /v1/responses`: the in-memory store behind previous_response_id and GET/DELETE. */
    responses: z
      .strictObject({
        store: z
          .strictObject({
            /** Responses kept at most (0: keep none); the least recently used goes first. */
            maxResponses: z.number().int().nonnegative().default(1_000),
            /** Bytes kept at most (the JSON size of input and output). */
            maxBytes: z.number().int().nonnegative().default(64 * 1024 * 1024),
          })
          .prefault({}),
      })
      .prefault({}),
    /**
     * Several replicas sharing one Redis or Valkey (README "Several replicas"): the Responses store
     * and each backend's maxConcurrent. Without `redis` (or with it empty), one process, as before.
     */
    cluster: z
      .strictObject({
        /** `redis://` or `rediss://`; `${SVIR_REDIS_URL}` takes it from the environment. */
        redis: z
          .string()
          .refine((url) => url === '' || (/^rediss?:\/\//.test(url) && URL.canParse(url)), 'must be a redis:// or rediss:// URL')
          .optional(),
        /** Every key svir writes starts with it (several svir clusters may share one Redis). */
        keyPrefix: z.string().min(1).default('svir:'),
        connectTimeoutMs: z.number().int().positive().default(2_000),
        /** The longest one Redis command may hold a request; past it Redis counts as down until a probe answers. */
        commandTimeoutMs: z.number().int().positive().default(500),
        /** How often Redis is pinged (its state and latency, and the way back up). */
        probeMs: z.number().int().positive().default(1_000),
        /** A shared slot's lease: a replica that dies frees its slots within it. */
        leaseMs: z.number().int().min(300).default(10_000),
        /** Replicas assumed, for each one's share of a limit, while Redis has never counted them. */
        replicas: z.number().int().positive().default(2),
        /** How long a stored response lives unread (each read extends it). */
        responseTtlSeconds: z.number().int().positive().default(30 * 24 * 3600),
        /** A response larger than this (with its conversation) is not kept. */
        maxResponseBytes: z.number().int().positive().default(8 * 1024 * 1024),
      })
      .prefault({}),
    /** Model aliases: `fast: lms/qwen3.8-27b` (backend/model) or `fast: qwen3.8-27b`. */
    aliases: z.record(z.string().min(1), z.string().min(1)).default({}),
    /** How often discovered model lists are refreshed. */
    modelRefreshMs: z.number().int().positive().default(30_000),
    backends: z.array(backendSchema).min(1),
  })
  .superRefine((config, ctx) => {
    const { headersTimeoutMs, requestTimeoutMs } = config.server;
    if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs) {
      // Node refuses a header timeout longer than the whole request's.
      ctx.addIssue({ code: 'custom', path: ['server', 'headersTimeoutMs'], message: 'must not be longer than server.requestTimeoutMs' });
    }
    const seen = new Set<string>();
    config.backends.forEach((backend, i) => {
      if (seen.has(backend.name)) {
        ctx.addIssue({ code: 'custom', path: ['backends', i, 'name'], message: `duplicate backend name "${backend.name}"` });
      }
      seen.add(backend.name);
      if (backend.type === 'azure' && backend.models === undefined) {
        ctx.addIssue({ code: 'custom', path: ['backends', i, 'models'], message: 'required for azure (deployment names)' });
      }
    });
  });

export type Config = z.infer<typeof configSchema>;
export type BackendConfig = Config['backends'][number];
export type ConfigInput = z.input<typeof configSchema>;

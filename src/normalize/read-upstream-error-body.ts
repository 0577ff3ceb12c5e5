/**
 * Reads an upstream error body of any form into neutral facts. Servers agree on no shape
 * (docs/wire-protocol.md#http-errors): `{"error":{...}}` with a string or numeric code,
 * `{"error":"..."}` (mlx-lm, LM Studio), `{"detail":"..."}` and `{"detail":[{"msg":...}]}`
 * (mlx-vlm), `{"error":{...},"message":"..."}` (LM Studio's `event: error`), a top-level
 * `{"object":"error","message":...}` (older vLLM), no body, HTML, or text. Never throws.
 */
import { z } from 'zod';
import { httpStatusText } from './http-status-text.js';

export interface UpstreamErrorInfo {
  /** The status the body came with (0 or 200 for an error inside a stream). */
  status: number;
  /** Non-empty: the server's own message, or a status text when it gave none. */
  message: string;
  /** Whether `message` is the server's words (false: svir's status text). */
  messageFromServer: boolean;
  type: string | null;
  /** A string code only; a numeric one (an HTTP status copy) is in `numericCode`. */
  code: string | null;
  numericCode: number | null;
  param: string | null;
  /** llama.cpp's token counts next to a context overflow. */
  nPromptTokens: number | null;
  nCtx: number | null;
}

// Each field falls back to undefined on a wrong type, so one odd field never hides the others.
const optString = z.string().optional().catch(undefined);
const optNumber = z.number().optional().catch(undefined);
const optCode = z.union([z.string(), z.number()]).optional().catch(undefined);

const errorObjectSchema = z.object({
  message: optString,
  type: optString,
  code: optCode,
  param: optString,
  n_prompt_tokens: optNumber,
  n_ctx: optNumber,
});

const detailItemSchema = z.object({
  msg: optString,
  loc: z.array(z.union([z.string(), z.number()])).optional().catch(undefined),
});

// Some servers put the error object's fields at the top level, beside `error` or `detail`.
const bodySchema = errorObjectSchema.extend({
  error: z.union([z.string(), errorObjectSchema]).optional().catch(undefined),
  detail: z.union([z.string(), z.array(z.unknown())]).optional().catch(undefined),
});

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

function unreadable(status: number): UpstreamErrorInfo {
  return {
    status,
    message: httpStatusText(status),
    messageFromServer: false,
    type: null,
    code: null,
    numericCode: null,
    param: null,
    nPromptTokens: null,
    nCtx: null,
  };
}

export function readUpstreamErrorBody(status: number, body: string): UpstreamErrorInfo {
  const json = body.trim().length > 0 ? parseJson(body) : { ok: false as const };
  if (!json.ok) return unreadable(status);
  const parsed = bodySchema.safeParse(json.value);
  if (!parsed.success) return unreadable(status);
  const top = parsed.data;

  const errorObject = typeof top.error === 'object' ? top.error : undefined;
  const errorString = typeof top.error === 'string' ? top.error : undefined;

  // mlx-vlm's validation list: the first error's msg, and its location as the param.
  let detailMessage: string | undefined;
  let detailParam: string | undefined;
  if (typeof top.detail === 'string') detailMessage = top.detail;
  else if (Array.isArray(top.detail)) {
    const first = detailItemSchema.safeParse(top.detail[0]);
    if (first.success) {
      detailMessage = first.data.msg;
      const loc = (first.data.loc ?? []).filter((piece) => piece !== 'body').map(String);
      detailParam = loc.length > 0 ? loc.join('.') : undefined;
    }
  }

  const serverMessage =
    nonEmpty(errorObject?.message) ?? nonEmpty(errorString) ?? nonEmpty(detailMessage) ?? nonEmpty(top.message);
  const rawCode = errorObject?.code ?? top.code;

  return {
    status,
    message: serverMessage ?? httpStatusText(status),
    messageFromServer: serverMessage !== undefined,
    type: nonEmpty(errorObject?.type) ?? nonEmpty(top.type) ?? null,
    code: typeof rawCode === 'string' ? (nonEmpty(rawCode) ?? null) : null,
    numericCode: typeof rawCode === 'number' ? rawCode : null,
    param: nonEmpty(errorObject?.param) ?? nonEmpty(top.param) ?? nonEmpty(detailParam) ?? null,
    nPromptTokens: errorObject?.n_prompt_tokens ?? top.n_prompt_tokens ?? null,
    nCtx: errorObject?.n_ctx ?? top.n_ctx ?? null,
  };
}

/**
 * Type-only: every Responses event svir sends fits the `openai` package's `ResponseStreamEvent`
 * member of its `type`, and the response object those events carry fits the SDK's `Response`.
 * Checked by `npm run typecheck` (tsc reads tests/); the `it` bodies only name the checks.
 *
 * Left out of the response's check, on purpose:
 * - `output_text`: the SDK computes it on the client; no server sends it.
 * - the request's fields a response repeats (`ResponseEcho`: tools, tool_choice, text, reasoning,
 *   ...): svir echoes them as the client sent them, read by zod only as far as svir needs.
 * - `error.code`: svir's own catalogue (src/errors.ts: `context_length_exceeded`, which Codex
 *   reads, and the rest), wider than the SDK's list.
 */
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type { ResponseEcho, ResponseObject } from '../../src/responses/response-object.js';
import type { ResponsesEvent } from '../../src/responses/responses-event.js';

/** The SDK's members of svir's event's `type`. */
type SdkEventOf<E extends { type: string }> = Extract<ResponseStreamEvent, { type: E['type'] }>;

/**
 * The `type`s of svir's events that have no SDK member, or do not fit it (the response they
 * carry is checked below, apart).
 */
type Misfits<E extends ResponsesEvent> = E extends unknown
  ? [SdkEventOf<E>] extends [never]
    ? E['type']
    : Omit<E, 'response'> extends Omit<SdkEventOf<E>, 'response'>
      ? never
      : E['type']
  : never;

type CheckedResponse = Omit<ResponseObject, keyof ResponseEcho | 'error'>;
type SdkResponse = Omit<Response, keyof ResponseEcho | 'error' | 'output_text'>;

describe('svir Responses events, typed as the openai package types them', () => {
  it('every event type fits the SDK member of its type', () => {
    expectTypeOf<Misfits<ResponsesEvent>>().toEqualTypeOf<never>();
  });

  it('the response object those events carry fits the SDK Response', () => {
    expectTypeOf<CheckedResponse>().toExtend<SdkResponse>();
  });
});

import { describe, expect, it } from 'vitest';
import { firstRetryPlan } from '../../src/adapters/retry/first-retry-plan.js';
import { nearestEffort } from '../../src/adapters/retry/nearest-effort.js';
import { planEffortRetry } from '../../src/adapters/retry/plan-effort-retry.js';
import { planMaxTokensRetry } from '../../src/adapters/retry/plan-max-tokens-retry.js';
import { planOptionalFieldRetry } from '../../src/adapters/retry/plan-optional-field-retry.js';

const VLLM_HIGH = JSON.stringify({
  error: {
    message: 'Unexpected reasoning effort high. Supported types are xhigh (default), medium, and low.',
    type: 'BadRequestError',
    param: null,
    code: 400,
  },
});

const sent = { model: 'm', messages: [], stream: true, stream_options: { include_usage: true }, reasoning_effort: 'high' };

describe('planOptionalFieldRetry', () => {
  it('drops the optional field a 400 or 422 names, once', () => {
    const plan = planOptionalFieldRetry(422, '{"detail":[{"loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}', sent);
    expect(plan?.body).not.toHaveProperty('stream_options');
    expect(plan?.body.reasoning_effort).toBe('high');
    expect(plan?.change).toBe('retried without stream_options (the backend refused it)');
    const both = planOptionalFieldRetry(400, '{"error":"unknown fields: stream_options, reasoning_effort"}', sent);
    expect(both?.body).not.toHaveProperty('stream_options');
    expect(both?.body).not.toHaveProperty('reasoning_effort');
    expect(both?.change).toBe('retried without stream_options and reasoning_effort (the backend refused it)');
  });

  it('names the fields it drops, so each is retried at most once', () => {
    expect(planOptionalFieldRetry(422, 'stream_options', sent)?.fields).toEqual(['stream_options']);
    expect(planOptionalFieldRetry(400, 'stream_options, reasoning_effort', sent)?.fields).toEqual(['stream_options', 'reasoning_effort']);
    expect(planEffortRetry(400, VLLM_HIGH, sent)?.fields).toEqual(['reasoning_effort']);
  });

  it('drops the other optional fields a server may refuse, each named as a whole identifier', () => {
    const all = { model: 'm', parallel_tool_calls: false, chat_template_kwargs: { enable_thinking: false }, service_tier: 'auto' };
    for (const field of ['parallel_tool_calls', 'chat_template_kwargs', 'service_tier']) {
      const plan = planOptionalFieldRetry(400, `{"error":{"message":"Unrecognized request argument supplied: ${field}"}}`, all);
      expect(plan?.body, field).not.toHaveProperty(field);
      expect(plan?.fields).toEqual([field]);
    }
    // Inside a longer identifier it is not the field.
    expect(planOptionalFieldRetry(400, 'unknown field x_service_tier_v2', all)).toBeNull();
    expect(planOptionalFieldRetry(400, 'unknown field service_tiers', all)).toBeNull();
  });

  it('has no plan for other statuses, other fields, or a field that was not sent', () => {
    expect(planOptionalFieldRetry(500, 'stream_options', sent)).toBeNull();
    expect(planOptionalFieldRetry(400, '{"error":"bad temperature"}', sent)).toBeNull();
    expect(planOptionalFieldRetry(400, 'reasoning_effort unknown', { model: 'm' })).toBeNull();
  });
});

describe('planEffortRetry (vLLM template refusing an effort)', () => {
  it('retries with the nearest supported effort, the higher on a tie', () => {
    const plan = planEffortRetry(400, VLLM_HIGH, sent);
    expect(plan?.body.reasoning_effort).toBe('xhigh');
    expect(plan?.change).toBe('reasoning_effort "high" refused by the template: retried with "xhigh"');
  });

  it('retries without the field when no supported value is known', () => {
    const plan = planEffortRetry(400, 'Unexpected reasoning effort high. Supported types are fast and slow.', sent);
    expect(plan?.body).not.toHaveProperty('reasoning_effort');
    expect(plan?.change).toBe('reasoning_effort "high" refused by the template: retried without it');
  });

  it('has no plan for other errors', () => {
    expect(planEffortRetry(400, '{"error":{"message":"bad"}}', sent)).toBeNull();
    expect(planEffortRetry(400, VLLM_HIGH, { model: 'm' })).toBeNull();
    expect(planEffortRetry(500, VLLM_HIGH, sent)).toBeNull();
  });

  it('picks the nearest effort by order', () => {
    expect(nearestEffort('high', ['xhigh', 'medium', 'low'])).toBe('xhigh');
    expect(nearestEffort('minimal', ['xhigh', 'medium', 'low'])).toBe('low');
    expect(nearestEffort('none', ['medium', 'low'])).toBe('low');
    expect(nearestEffort('xhigh', ['medium', 'low'])).toBe('medium');
    expect(nearestEffort('high', ['fast'])).toBeUndefined();
  });
});

describe('planMaxTokensRetry (OpenAI and Azure reasoning models)', () => {
  const body = JSON.stringify({
    error: {
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  });

  it('sends the limit again under max_completion_tokens', () => {
    const plan = planMaxTokensRetry(400, body, { model: 'm', max_tokens: 50 });
    expect(plan?.body).toEqual({ model: 'm', max_completion_tokens: 50 });
    expect(plan?.change).toBe('retried with max_tokens sent as max_completion_tokens');
    expect(planMaxTokensRetry(400, body, { model: 'm' })).toBeNull();
  });
});

describe('firstRetryPlan', () => {
  it('takes the first planner with a plan', () => {
    const planner = firstRetryPlan([planEffortRetry, planOptionalFieldRetry]);
    expect(planner(400, VLLM_HIGH, sent)?.body.reasoning_effort).toBe('xhigh');
    expect(planner(400, 'reasoning_effort is not allowed', sent)?.body).not.toHaveProperty('reasoning_effort');
    expect(planner(400, 'nothing', sent)).toBeNull();
  });
});

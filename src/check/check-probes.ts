/**
 * The tiny requests `svir check` sends each backend, one per feature a client may rely on. Each
 * is a client's request (what an OpenAI client would send svir), so it goes through the
 * backend's adapter exactly as a real one would: the check reports what svir does, not what
 * the raw server does.
 */

export const CHECK_FEATURES = ['stream', 'stream_options', 'reasoning_effort', 'tools', 'json_schema', 'images'] as const;
export type CheckFeature = (typeof CHECK_FEATURES)[number];

/** A 1x1 red PNG: the smallest image a vision model will take. */
const PIXEL_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** Enough tokens to see a stream start and end; the answer itself is not looked at. */
const MAX_TOKENS = 16;

const ASK = { role: 'user', content: 'Reply with the word OK.' };

export interface CheckProbe {
  feature: CheckFeature;
  /** The client request, for `model`. */
  request(model: string): Record<string, unknown>;
}

export const CHECK_PROBES: readonly CheckProbe[] = [
  { feature: 'stream', request: (model) => ({ model, messages: [ASK], stream: true, max_tokens: MAX_TOKENS }) },
  {
    feature: 'stream_options',
    request: (model) => ({ model, messages: [ASK], stream: true, stream_options: { include_usage: true }, max_tokens: MAX_TOKENS }),
  },
  {
    feature: 'reasoning_effort',
    request: (model) => ({ model, messages: [ASK], stream: true, reasoning_effort: 'low', max_tokens: MAX_TOKENS }),
  },
  {
    feature: 'tools',
    request: (model) => ({
      model,
      messages: [ASK],
      stream: true,
      max_tokens: MAX_TOKENS,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_time',
            description: 'The current time.',
            parameters: { type: 'object', properties: {}, additionalProperties: false },
          },
        },
      ],
      tool_choice: 'auto',
    }),
  },
  {
    feature: 'json_schema',
    request: (model) => ({
      model,
      messages: [ASK],
      stream: true,
      max_tokens: MAX_TOKENS,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          strict: true,
          schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
        },
      },
    }),
  },
  {
    feature: 'images',
    request: (model) => ({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour is this pixel? One word.' },
            { type: 'image_url', image_url: { url: PIXEL_PNG } },
          ],
        },
      ],
      stream: true,
      max_tokens: MAX_TOKENS,
    }),
  },
];

/**
 * A server's embeddings answer → the one the client asked for: OpenAI's list shape, `model` the
 * client's string, each vector in the `encoding_format` the client named. The openai SDKs ask for
 * `base64` by default and decode it as little-endian float32; LM Studio and mlx-vlm ignore the
 * field and send floats, which those SDKs cannot read, so svir encodes them; a vector that came
 * as base64 to a client that asked for floats is decoded. Extra keys a server adds are left out.
 */
import { z } from 'zod';
import { SvirError } from '../errors.js';

const count = z.number().int().nonnegative();

const answerSchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  usage: z.object({ prompt_tokens: count, total_tokens: count.nullish() }).nullish().catch(undefined),
});

export interface EmbeddingsAnswer {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage?: { prompt_tokens: number; total_tokens: number };
}

export interface FitEmbeddingsOptions {
  /** The client's string. */
  model: string;
  format: 'float' | 'base64';
  backend: string;
}

export function encodeFloat32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function decodeFloat32Base64(text: string): number[] | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return undefined;
  const vector: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 4) vector.push(bytes.readFloatLE(offset));
  return vector;
}

function unreadable(backend: string, what: string): SvirError {
  return new SvirError('upstream_error', {
    source: 'upstream',
    backend,
    message: `backend "${backend}" sent an unreadable embeddings answer: ${what}.`,
  });
}

export function fitEmbeddings(answer: unknown, options: FitEmbeddingsOptions): EmbeddingsAnswer | SvirError {
  const parsed = answerSchema.safeParse(answer);
  if (!parsed.success) return unreadable(options.backend, 'not a list of embeddings');
  const data: EmbeddingsAnswer['data'] = [];
  for (const [position, item] of parsed.data.data.entries()) {
    let embedding: number[] | string = item.embedding;
    if (options.format === 'base64' && Array.isArray(embedding)) embedding = encodeFloat32Base64(embedding);
    if (options.format === 'float' && typeof embedding === 'string') {
      const decoded = decodeFloat32Base64(embedding);
      if (decoded === undefined) return unreadable(options.backend, 'a base64 vector that is not float32');
      embedding = decoded;
    }
    data.push({ object: 'embedding', index: item.index ?? position, embedding });
  }
  const out: EmbeddingsAnswer = { object: 'list', data, model: options.model };
  const usage = parsed.data.usage;
  if (usage !== undefined && usage !== null) {
    out.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens ?? usage.prompt_tokens };
  }
  return out;
}

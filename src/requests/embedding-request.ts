/**
 * The client's Embeddings request (`POST /v1/embeddings`): zod reads the fields svir acts on and
 * lets every other field (`dimensions`, `user`, a server's own) through untouched.
 */
import { z } from 'zod';

export const embeddingRequestSchema = z.looseObject({
  model: z.string().min(1).max(512),
  input: z.union([z.string(), z.array(z.unknown()).min(1)]),
  encoding_format: z.enum(['float', 'base64']).nullable().optional(),
});

export type EmbeddingRequest = z.infer<typeof embeddingRequestSchema>;

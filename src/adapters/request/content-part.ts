/**
 * The message content parts svir reads. Only the fields acted on are checked; everything else
 * in a part passes through untouched.
 */
import { z } from 'zod';

export const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

/** `image_url` as an object (the protocol) or a bare string (some clients send that). */
export const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.union([z.string().min(1), z.looseObject({ url: z.string().min(1) })]),
});

/** OpenAI's file part: `file_data` is a data URL, `filename` its name. */
export const filePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({ filename: z.string().optional(), file_data: z.string().optional() }),
});

const contentArraySchema = z.array(z.unknown());

/**
 * The parts of a message's content when it is an array; undefined for a string, null or no
 * content. Most content is a string, and every rewrite asks this of every message: the
 * question costs nothing then, instead of a refused parse.
 */
export function contentParts(content: unknown): unknown[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const parts = contentArraySchema.safeParse(content);
  return parts.success ? parts.data : undefined;
}

/**
 * llama.cpp's `GET /props` → the context one request gets: `default_generation_settings.n_ctx`
 * (the context of one slot: with `--parallel N` the server's `n_ctx` is shared by N slots), else
 * the top-level `n_ctx` some releases put there. Anything else: undefined (nothing learned).
 */
import { z } from 'zod';

const positive = z.number().int().positive();

const propsSchema = z.looseObject({
  default_generation_settings: z.looseObject({ n_ctx: positive.optional().catch(undefined) }).optional().catch(undefined),
  n_ctx: positive.optional().catch(undefined),
});

export function readPropsContext(json: unknown): number | undefined {
  const parsed = propsSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.default_generation_settings?.n_ctx ?? parsed.data.n_ctx;
}

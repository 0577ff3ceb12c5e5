/**
 * Whether a backend takes images, as its `GET /v1/models` answer says
 * (docs/wire-protocol.md#model-listing): llama.cpp lists its one model with
 * `architecture.input_modalities` (`["text","image"]` with the image projector loaded), and the
 * same model again in a `models` array whose `capabilities` name `multimodal`. Undefined when the
 * list says nothing either way (most servers), so the adapter keeps its default. Meant for the
 * registry: `BackendInfo.vision = config.vision ?? readListedVision(body)`.
 */
import { z } from 'zod';

const strings = z.array(z.string()).optional().catch(undefined);

const listSchema = z.looseObject({
  data: z
    .array(z.looseObject({ architecture: z.looseObject({ input_modalities: strings }).optional().catch(undefined) }))
    .optional()
    .catch(undefined),
  models: z.array(z.looseObject({ capabilities: strings })).optional().catch(undefined),
});

export function readListedVision(body: unknown): boolean | undefined {
  const list = listSchema.safeParse(body);
  if (!list.success) return undefined;
  const modalities = (list.data.data ?? []).flatMap((entry) => (entry.architecture?.input_modalities === undefined ? [] : [entry.architecture.input_modalities]));
  if (modalities.length > 0) return modalities.some((listed) => listed.includes('image'));
  const capabilities = (list.data.models ?? []).flatMap((entry) => (entry.capabilities === undefined ? [] : [entry.capabilities]));
  if (capabilities.length > 0) return capabilities.some((listed) => listed.includes('multimodal') || listed.includes('vision'));
  return undefined;
}

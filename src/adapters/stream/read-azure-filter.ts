/**
 * What Azure's content filter says in a stream chunk (docs/wire-protocol.md#content-filtering),
 * apart from the answer:
 * - the prompt-filter chunk (empty `choices`, with `prompt_filter_results`, or
 *   `prompt_annotations` in earlier API versions) carries nothing of the answer;
 * - a `filtered: true` verdict in a choice's `content_filter_results`, on an ordinary chunk or
 *   on an annotation (a choice with `content_filter_offsets` and no delta), blocked the answer,
 *   also when it comes after the model's `stop`, with no finish reason of its own.
 */
import { z } from 'zod';
import { hasFilteredVerdict } from './has-filtered-verdict.js';

const chunkSchema = z.looseObject({
  choices: z.array(z.looseObject({ content_filter_results: z.unknown().optional() })).optional().catch(undefined),
  prompt_filter_results: z.unknown().optional(),
  prompt_annotations: z.unknown().optional(),
});

export interface AzureFilterReading {
  /** The chunk is the prompt filter's report: nothing of it reaches the answer. */
  promptReport: boolean;
  /** A verdict in it blocked the answer (or the prompt). */
  filtered: boolean;
}

export function readAzureFilter(data: string): AzureFilterReading {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { promptReport: false, filtered: false };
  }
  const parsed = chunkSchema.safeParse(value);
  if (!parsed.success) return { promptReport: false, filtered: false };
  const chunk = parsed.data;
  const promptResults = chunk.prompt_filter_results ?? chunk.prompt_annotations;
  const choices = chunk.choices ?? [];
  const promptReport = promptResults !== undefined && choices.length === 0;
  const filtered =
    hasFilteredVerdict(promptResults) || choices.some((choice) => hasFilteredVerdict(choice.content_filter_results));
  return { promptReport, filtered };
}

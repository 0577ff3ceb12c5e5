/**
 * `GET /v1/models` (and `/v1/models/:model`): the models svir can route, in OpenAI's list
 * shape, each `owned_by` the backend that serves it. A backend that is down is left out; it
 * never fails the list.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvirError } from '../errors.js';
import type { ListedModel, ModelRegistry } from '../router/create-model-registry.js';

const wildcardParams = z.object({ '*': z.string() });

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** Anthropic's model object (`GET /v1/models` with `anthropic-version`, Claude Code's gateway model discovery). */
export interface AnthropicModelObject {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

function toAnthropicModel(model: ListedModel): AnthropicModelObject {
  return { type: 'model', id: model.id, display_name: model.id, created_at: new Date(model.created * 1000).toISOString() };
}

/** A client of Anthropic's API says so with this header; it gets Anthropic's list shape (docs/messages.md). */
function speaksAnthropic(headers: Record<string, unknown>): boolean {
  return headers['anthropic-version'] !== undefined;
}

function toModelObject(model: ListedModel): ModelObject {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.backend };
}

export function registerModelsRoutes(app: FastifyInstance, deps: { registry: ModelRegistry }): void {
  app.get('/v1/models', async (request) => {
    const models = await deps.registry.list();
    if (speaksAnthropic(request.headers)) {
      const data = models.map(toAnthropicModel);
      return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
    }
    return { object: 'list', data: models.map(toModelObject) };
  });

  // Model ids contain slashes (`org/name`, file paths): the wildcard takes the whole rest.
  app.get('/v1/models/*', async (request) => {
    const params = wildcardParams.safeParse(request.params);
    const id = params.success ? params.data['*'] : '';
    const found = (await deps.registry.list()).find((model) => model.id === id);
    if (found === undefined) {
      throw new SvirError('model_not_found', { param: 'model', message: `The model "${id}" is not served by any backend of svir.` });
    }
    return speaksAnthropic(request.headers) ? toAnthropicModel(found) : toModelObject(found);
  });
}

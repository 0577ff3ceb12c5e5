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

function toModelObject(model: ListedModel): ModelObject {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.backend };
}

export function registerModelsRoutes(app: FastifyInstance, deps: { registry: ModelRegistry }): void {
  app.get('/v1/models', async () => {
    const models = await deps.registry.list();
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
    return toModelObject(found);
  });
}

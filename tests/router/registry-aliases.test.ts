import { describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../src/adapters/adapter.js';
import { configSchema, type ConfigInput } from '../../src/config/schema.js';
import { SvirError } from '../../src/errors.js';
import { createModelRegistry } from '../../src/router/create-model-registry.js';

function registry(input: Partial<ConfigInput> & Pick<ConfigInput, 'backends'>, lists: Record<string, string[] | 'down'>) {
  const asked: string[] = [];
  const config = configSchema.parse(input);
  const models = createModelRegistry(config, {
    now: () => 0,
    async listModels(backend: BackendInfo) {
      asked.push(backend.config.name);
      const list = lists[backend.config.name];
      if (list === undefined || list === 'down') throw new SvirError('backend_unavailable', { message: 'down' });
      return list.map((id) => ({ id }));
    },
  });
  return { models, asked };
}

const names = (candidates: { backend: BackendInfo; upstreamModel: string }[]) =>
  candidates.map((c) => `${c.backend.config.name}:${c.upstreamModel}`);

describe('model registry: aliases, chat-model filter, reports', () => {
  const two = [
    { name: 'lms', type: 'lmstudio', url: 'http://127.0.0.1:1' },
    { name: 'mlx', type: 'mlx-lm', url: 'http://127.0.0.1:2' },
  ] as const;

  it('pins a backend only when the prefix names one; otherwise the whole target is a model id', async () => {
    const { models } = registry(
      { backends: [...two], aliases: { pinned: 'mlx/shared', org: 'Qwen/Qwen3.8-27B', any: 'shared' } },
      { lms: ['shared', 'Qwen/Qwen3.8-27B'], mlx: ['shared'] },
    );
    expect(names(await models.resolve('pinned'))).toEqual(['mlx:shared']);
    expect(names(await models.resolve('org'))).toEqual(['lms:Qwen/Qwen3.8-27B']);
    expect(names(await models.resolve('any'))).toEqual(['lms:shared', 'mlx:shared']);
  });

  it('lets an alias win over a model of the same name', async () => {
    const { models } = registry({ backends: [...two], aliases: { shared: 'lms/other' } }, { lms: ['other', 'shared'], mlx: ['shared'] });
    expect(names(await models.resolve('shared'))).toEqual(['lms:other']);
  });

  it('says which alias target is missing in the 404', async () => {
    const { models } = registry({ backends: [...two], aliases: { fast: 'mlx/not-here' } }, { lms: ['x'], mlx: ['y'] });
    const error = await models.resolve('fast').catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'model_not_found', message: expect.stringContaining('mlx/not-here') });
  });

  it('lists discovered chat models only, configured ones as written, and the served aliases', async () => {
    const { models } = registry(
      {
        backends: [...two, { name: 'az', type: 'azure', url: 'https://x.openai.azure.com/openai/v1/', models: ['text-embedding-3-small'] }],
        aliases: { fast: 'lms/chat', gone: 'mlx/chat', embed: 'az/text-embedding-3-small' },
      },
      { lms: ['chat', 'nomic-embed-text', 'kokoro-tts'], mlx: 'down' },
    );
    const listed = await models.list();
    expect(listed.map((m) => `${m.id}@${m.backend}${m.aliasOf === undefined ? '' : `=${m.aliasOf}`}`)).toEqual([
      'chat@lms',
      'text-embedding-3-small@az',
      'fast@lms=lms/chat',
      'embed@az=az/text-embedding-3-small',
    ]);
  });

  it('asks a never-asked backend before answering, so a model on several backends has every candidate', async () => {
    const { models, asked } = registry(
      { backends: [{ ...two[0], models: ['m'] }, two[1]] },
      { mlx: ['m'] },
    );
    expect(names(await models.resolve('m'))).toEqual(['lms:m', 'mlx:m']);
    expect(asked).toEqual(['mlx']);
    await models.resolve('m');
    expect(asked).toEqual(['mlx']);
  });

  it('takes reports from requests: a backend found down goes last until it answers', async () => {
    const { models } = registry({ backends: [...two] }, { lms: ['m'], mlx: ['m'] });
    expect(names(await models.resolve('m'))).toEqual(['lms:m', 'mlx:m']);
    models.report('lms', false, 'backend "lms" is unreachable (ECONNREFUSED).');
    expect(names(await models.resolve('m'))).toEqual(['mlx:m', 'lms:m']);
    expect(models.status().find((s) => s.name === 'lms')).toMatchObject({ state: 'down', reason: expect.stringContaining('ECONNREFUSED') });
    models.report('lms', true);
    expect(models.status().find((s) => s.name === 'lms')?.state).toBe('up');
    models.report('nobody', false);
  });
});

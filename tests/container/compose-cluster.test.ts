/**
 * compose.cluster.yaml, deploy/nginx/svir.conf.template and config/cluster.yaml read and held to what the
 * README ("Several replicas") says of them: two svir replicas of the one image sharing one
 * Valkey or Redis through SVIR_REDIS_URL, the config mounted as a folder, nginx choosing the
 * least busy replica with timeouts longer than anything svir stays silent for on a stream, and
 * a shutdown grace inside the stop timeout, and finding the replicas by name while it runs.
 * (Running the compose is `npm run test:container`'s cluster part; this reads the files.)
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseConfig } from '../../src/config/load-config.js';
import { configSchema } from '../../src/config/schema.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');

const serviceSchema = z.looseObject({
  image: z.string().optional(),
  build: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  ports: z.array(z.string()).optional(),
  stop_grace_period: z.string().optional(),
});
const compose = z.looseObject({ services: z.record(z.string(), serviceSchema) }).parse(parseYaml(read('compose.cluster.yaml'), { merge: true }));
const services = Object.entries(compose.services);
const replicas = services.filter(([, service]) => service.build === '.');
const store = services.find(([, service]) => /^(valkey\/valkey|redis):/.test(service.image ?? ''));
const nginx = read('deploy/nginx/svir.conf.template');

function seconds(text: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(text.trim());
  if (match === null) throw new Error(`not a duration: ${text}`);
  const value = Number(match[1]);
  return match[2] === 'ms' ? value / 1000 : match[2] === 'm' ? value * 60 : value;
}

describe('compose.cluster.yaml', () => {
  it('runs two svir replicas of the one image, sharing one Valkey or Redis through SVIR_REDIS_URL', () => {
    expect(replicas).toHaveLength(2);
    expect(store).toBeDefined();
    for (const [, service] of replicas) {
      expect(service.environment?.['SVIR_REDIS_URL']).toBe(`redis://${store?.[0]}:6379/0`);
      expect(service.environment?.['SVIR_API_KEYS']).toMatch(/^\$\{SVIR_API_KEYS:\?/);
      expect(service.environment?.['SVIR_CONFIG']).toBe('/etc/svir/cluster.yaml');
      // A folder, never a file: an editor's save replaces the file.
      expect(service.volumes).toContain('./config:/etc/svir:ro');
      // The replicas are reached through nginx only.
      expect(service.ports).toBeUndefined();
    }
    // The store evicts by itself past its memory (the in-memory LRU's role).
    expect(store?.[1].command?.join(' ')).toMatch(/--maxmemory \S+ --maxmemory-policy allkeys-lru/);
  });

  it('the replicas\' config parses, names the Redis, and gives streams less grace than the stop timeout', () => {
    const config = parseConfig(read('config/cluster.yaml'), { SVIR_REDIS_URL: 'redis://valkey:6379/0' }, 'config/cluster.yaml');
    expect(config.cluster.redis).toBe('redis://valkey:6379/0');
    for (const [, service] of replicas) expect(config.server.shutdownGraceMs / 1000).toBeLessThan(seconds(service.stop_grace_period ?? '10s'));
  });

  it('nginx: least_conn over both replicas, unbuffered, timeouts longer than svir\'s silences on a stream', () => {
    expect(nginx).toMatch(/^\s*least_conn;/m);
    for (const [name] of replicas) expect(nginx).toContain(`server ${name}:4000`);
    expect(nginx).toMatch(/^\s*proxy_buffering off;/m);
    const defaults = configSchema.parse({ backends: [{ name: 'b', type: 'openai', url: 'http://127.0.0.1:1/v1' }] });
    const longestSilence = Math.max(defaults.server.keepaliveMs, defaults.backends[0]?.timeouts.idleMs ?? 0) / 1000;
    for (const directive of ['proxy_read_timeout', 'proxy_send_timeout']) {
      const value = new RegExp(`^\\s*${directive} (\\S+);`, 'm').exec(nginx)?.[1];
      expect(value, directive).toBeDefined();
      expect(seconds(value ?? '0'), directive).toBeGreaterThan(longestSilence);
    }
    const published = services.find(([, service]) => service.image?.startsWith('nginx:') === true)?.[1];
    expect(published?.ports).toEqual(['127.0.0.1:4000:4000']);
  });

  it('nginx looks the replicas up again while it runs (a recreated replica has a new address)', () => {
    const published = services.find(([, service]) => service.image?.startsWith('nginx:') === true)?.[1];
    // The image's entrypoint fills the template in, after sourcing the resolver script.
    expect(published?.volumes).toContain('./deploy/nginx:/etc/nginx/templates:ro');
    expect(published?.volumes).toContain('./deploy/nginx/svir-resolver.envsh:/docker-entrypoint.d/16-svir-resolver.envsh:ro');
    // The entrypoint sources only executable *.envsh files.
    expect(statSync(`${root}deploy/nginx/svir-resolver.envsh`).mode & 0o111).toBe(0o111);
    expect(read('deploy/nginx/svir-resolver.envsh')).toMatch(/^export SVIR_NGINX_RESOLVER$/m);
    expect(nginx).toMatch(/^resolver \$\{SVIR_NGINX_RESOLVER\} valid=\d+s/m);
    expect(nginx).toMatch(/^\s*zone svir \d+k;/m);
    for (const [name] of replicas) expect(nginx).toMatch(new RegExp(`^\\s*server ${name}:4000 resolve\\b`, 'm'));
    // A stopped replica is left out after a failed connection, not tried on every other request.
    expect(nginx).not.toContain('max_fails=0');
  });
});

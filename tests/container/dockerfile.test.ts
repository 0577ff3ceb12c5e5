/**
 * The container files read and held to what the README promises (the image itself is built and
 * run by `npm run test:container`): an LTS slim base, a final stage without dev dependencies
 * running as a non-root user, a healthcheck on /healthz, svir as the entrypoint (so `docker run
 * IMAGE check` reaches it), a shutdown grace clearly inside the engine's stop timeout, the port
 * and the config path agreeing across Dockerfile, compose.yaml, config/docker.yaml and the
 * README, the config mounted as a folder, and the key in a `.env` file that git and the build
 * leave out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { checkListenSafety } from '../../src/auth/check-listen-safety.js';
import { resolveApiKeys } from '../../src/auth/resolve-api-keys.js';
import { parseConfig } from '../../src/config/load-config.js';
import { commandWords, parseDockerfile, type DockerInstruction, type DockerStage } from './parse-dockerfile.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');
const ENTRYPOINT_SCRIPT = 'scripts/docker-entrypoint.sh';

const dockerfile = parseDockerfile(read('Dockerfile'));
const finalStage: DockerStage | undefined = dockerfile.stages.at(-1);

function finalInstructions(keyword: string): DockerInstruction[] {
  return (finalStage?.instructions ?? []).filter((instruction) => instruction.keyword === keyword);
}

/** ENV in both forms: `ENV A=b C=d` and the legacy `ENV A b`. */
function envOf(stage: DockerStage | undefined): Map<string, string> {
  const env = new Map<string, string>();
  for (const instruction of stage?.instructions ?? []) {
    if (instruction.keyword !== 'ENV') continue;
    if (/^\S+=/.test(instruction.args)) {
      for (const match of instruction.args.matchAll(/(\S+?)=("[^"]*"|\S*)/g)) {
        env.set(match[1] ?? '', (match[2] ?? '').replace(/^"|"$/g, ''));
      }
    } else {
      const [name, ...rest] = instruction.args.split(/\s+/);
      if (name !== undefined) env.set(name, rest.join(' '));
    }
  }
  return env;
}

/**
 * Node's LTS lines: the even majors up to 26; from 27 on every major becomes LTS (the release
 * schedule changed in 2026).
 */
function isLtsMajor(major: number): boolean {
  return major >= 27 || major % 2 === 0;
}

const packageJson = z
  .object({ engines: z.object({ node: z.string() }), bin: z.record(z.string(), z.string()) })
  .parse(JSON.parse(read('package.json')));
const minimumMajor = Number(/(\d+)/.exec(packageJson.engines.node)?.[1]);

const composeSchema = z.object({
  services: z.record(
    z.string(),
    z.looseObject({
      build: z.union([z.string(), z.looseObject({ context: z.string() })]).optional(),
      environment: z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional(),
      volumes: z.array(z.string()).optional(),
      ports: z.array(z.string()).optional(),
      extra_hosts: z.union([z.array(z.string()), z.record(z.string(), z.string())]).optional(),
      stop_grace_period: z.string().optional(),
    }),
  ),
});
const compose = composeSchema.parse(parseYaml(read('compose.yaml')));
const svirService = Object.values(compose.services).find((service) => service.build !== undefined);

function composeEnvironment(): Map<string, string> {
  const env = new Map<string, string>();
  const raw = svirService?.environment;
  if (Array.isArray(raw)) {
    for (const entry of raw) {
      const at = entry.indexOf('=');
      if (at > 0) env.set(entry.slice(0, at), entry.slice(at + 1));
    }
  } else if (raw !== undefined) for (const [key, value] of Object.entries(raw)) env.set(key, value);
  return env;
}

describe('Dockerfile', () => {
  it('is multi-stage, every stage on a Node LTS slim image no older than package.json allows', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    expect(minimumMajor).toBeGreaterThan(0);
    for (const stage of dockerfile.stages) {
      const match = /^(?:docker\.io\/(?:library\/)?)?node:(\d+)(?:\.\d+){0,2}-(?:[a-z]+-)?slim$/.exec(stage.image);
      expect(match, `base image ${stage.image} is not node:<major>-slim`).not.toBeNull();
      const major = Number(match?.[1]);
      expect(isLtsMajor(major), `node ${major} is not an LTS line`).toBe(true);
      expect(major).toBeGreaterThanOrEqual(minimumMajor);
    }
  });

  it('builds with the dev dependencies in an earlier stage: npm ci, then npm run build', () => {
    const build = dockerfile.stages.slice(0, -1).find((stage) => stage.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args)));
    expect(build, 'no earlier stage runs npm run build').toBeDefined();
    const runs = (build?.instructions ?? []).filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const ciAt = runs.findIndex((args) => /\bnpm ci\b/.test(args));
    const buildAt = runs.findIndex((args) => /\bnpm run build\b/.test(args));
    expect(ciAt).toBeGreaterThanOrEqual(0);
    expect(ciAt).toBeLessThan(buildAt);
    // The build stage needs the dev dependencies (TypeScript): no --omit=dev there.
    expect(runs[ciAt]).not.toMatch(/--omit=dev|--production/);
    // Every file the build reads is copied in and exists.
    const copied = (build?.instructions ?? [])
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.build.json', 'src']) {
      expect(copied, `build stage does not copy ${path}`).toContain(path);
      expect(existsSync(`${root}${path}`), `${path} does not exist`).toBe(true);
    }
  });

  it('installs no dev dependencies in the final stage', () => {
    const installs = finalInstructions('RUN').filter((i) => /\bnpm (ci|install|i)\b/.test(i.args));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) {
      expect(install.args, `line ${install.line}`).toMatch(/--omit=dev/);
      // `prepare` would build, which needs the dev dependencies.
      expect(install.args, `line ${install.line}`).toMatch(/--ignore-scripts/);
    }
    // Nothing copied from the build stage but the compiled program: its node_modules holds the
    // dev dependencies.
    for (const copy of finalInstructions('COPY').filter((i) => i.args.includes('--from'))) {
      const sources = copy.args.split(/\s+/).filter((word) => !word.startsWith('--')).slice(0, -1);
      expect(sources, `line ${copy.line}`).toEqual(['/app/dist']);
    }
    for (const copy of finalInstructions('COPY')) {
      const sources = copy.args.split(/\s+/).filter((word) => !word.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        expect(['src', 'tests', 'node_modules', '.'], `line ${copy.line} copies ${source}`).not.toContain(source.replace(/^\.\/|\/$/g, '') || '.');
      }
    }
    expect(envOf(finalStage).get('NODE_ENV')).toBe('production');
  });

  it("carries the live page's files next to the program, where it reads them (docs/live-page.md)", () => {
    const workdir = finalInstructions('WORKDIR').at(-1)?.args.trim();
    const copy = finalInstructions('COPY').find((i) => /^web\/?\s/.test(i.args));
    expect(copy, 'the final stage does not copy web/').toBeDefined();
    const target = copy?.args.split(/\s+/).at(-1) ?? '';
    expect(target.replace(/\/$/, '')).toBe(target.startsWith('/') ? `${workdir}/web` : './web');
    expect(finalInstructions('COPY').some((i) => i.args.includes('--from') && /\s\.\/dist\/?$/.test(i.args))).toBe(true);
    for (const file of ['index.html', 'app.js', 'app.css']) expect(existsSync(`${root}web/${file}`), `web/${file}`).toBe(true);
  });

  it('runs as a non-root user', () => {
    const users = finalInstructions('USER');
    const user = users.at(-1)?.args.trim() ?? '';
    expect(user, 'the final stage sets no USER').not.toBe('');
    const name = user.split(':')[0] ?? '';
    expect(['root', '0']).not.toContain(name);
    // Nothing after the USER line switches back.
    expect(users.every((u) => !['root', '0'].includes(u.args.trim().split(':')[0] ?? ''))).toBe(true);
  });

  it('checks its health on /healthz with node (slim images have no curl)', () => {
    const healthchecks = finalInstructions('HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    const args = healthchecks[0]?.args ?? '';
    const cmdAt = args.search(/\bCMD\b/);
    expect(cmdAt).toBeGreaterThanOrEqual(0);
    const words = commandWords(args.slice(cmdAt + 3));
    expect(words[0]).toBe('node');
    expect(words.join(' ')).toMatch(/\/healthz\b/);
    expect(words.join(' ')).not.toMatch(/\b(curl|wget)\b/);
    // The probe exits 0 only on a 2xx answer.
    expect(words.join(' ')).toMatch(/process\.exit\(r\.ok \? 0 : 1\)/);
  });

  it('exposes the port that the image config and compose use, and runs the built cli', () => {
    const exposed = finalInstructions('EXPOSE').flatMap((i) => i.args.split(/\s+/)).map((port) => port.replace(/\/tcp$/, ''));
    expect(exposed).toEqual(['4000']);
    const healthcheck = finalInstructions('HEALTHCHECK')[0]?.args ?? '';
    expect(healthcheck).toContain(`:${exposed[0]}/healthz`);
    // svir's own entrypoint script (not the base image's, which hands every argument to node),
    // copied from scripts/docker-entrypoint.sh, which the build context keeps.
    const entrypoint = commandWords(finalInstructions('ENTRYPOINT').at(-1)?.args ?? '');
    expect(entrypoint).toHaveLength(1);
    const copy = finalInstructions('COPY').find((i) => i.args.split(/\s+/).at(-1)?.endsWith(`/${entrypoint[0] ?? ''}`));
    expect(copy?.args.split(/\s+/)[0]).toBe(ENTRYPOINT_SCRIPT);
    expect(read(ENTRYPOINT_SCRIPT)).toContain(`set -- node ${packageJson.bin['svir']} "$@"`);
    expect(read('.dockerignore')).toContain(`!${ENTRYPOINT_SCRIPT}`);
    const cmd = finalInstructions('CMD').at(-1);
    if (cmd !== undefined) expect(commandWords(cmd.args)).toEqual([]);
  });
});


describe('the entrypoint script', () => {
  /** Runs the script with sh in a folder where dist/cli.js only prints the arguments it got. */
  function entrypoint(args: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'svir-entrypoint-'));
    try {
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'cli.js'), 'console.log(JSON.stringify(["svir", ...process.argv.slice(2)]));\n');
      return execFileSync('sh', [`${root}${ENTRYPOINT_SCRIPT}`, ...args], { cwd: dir, encoding: 'utf8' }).trim();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('gives `docker run IMAGE` and its arguments to svir: none, a subcommand, options', () => {
    expect(entrypoint([])).toBe('["svir"]');
    expect(entrypoint(['check', '--timeout', '5'])).toBe('["svir","check","--timeout","5"]');
    expect(entrypoint(['--version'])).toBe('["svir","--version"]');
    expect(entrypoint(['--port', '4100'])).toBe('["svir","--port","4100"]');
  });

  it('runs a command the image has as given (node dist/cli.js ..., a shell)', () => {
    expect(entrypoint(['node', 'dist/cli.js', '--help'])).toBe('["svir","--help"]');
    expect(entrypoint(['sh', '-c', 'echo shell'])).toBe('shell');
  });
});

/** `10s`, `1m30s`, `500ms` (compose durations) in ms. */
function durationMs(text: string): number {
  let total = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    const unit = match[2] === 'h' ? 3_600_000 : match[2] === 'm' ? 60_000 : match[2] === 's' ? 1_000 : 1;
    total += Number(match[1]) * unit;
  }
  return total;
}

/** docker stop's and podman stop's default: SIGKILL 10 s after SIGTERM. */
const ENGINE_STOP_TIMEOUT_MS = 10_000;

describe('stopping the container', () => {
  const grace = parseConfig(read('config/docker.yaml'), {}, 'config/docker.yaml').server.shutdownGraceMs;

  it("gives open streams a grace clearly shorter than the engine's stop timeout", () => {
    // svir also needs a moment after the grace (error events flushed, exit): 2 s of margin.
    expect(grace).toBeLessThanOrEqual(ENGINE_STOP_TIMEOUT_MS - 2_000);
    expect(grace).toBeGreaterThan(0);
  });

  it("sets compose's stop_grace_period above svir's grace, with the same margin", () => {
    const period = svirService?.stop_grace_period;
    expect(period, 'compose.yaml sets no stop_grace_period').toBeDefined();
    expect(durationMs(period ?? '')).toBeGreaterThanOrEqual(grace + 2_000);
  });
});

describe('the config path and the default config', () => {
  const svirConfig = envOf(finalStage).get('SVIR_CONFIG');

  it('is set in the image and copied there', () => {
    expect(svirConfig).toBe('/etc/svir/config.yaml');
    const copies = finalInstructions('COPY').filter((i) => !i.args.includes('--from'));
    expect(copies.some((i) => i.args.split(/\s+/).at(-1) === svirConfig && i.args.includes('config/docker.yaml'))).toBe(true);
  });

  it("compose mounts the config folder, not the file (a replacing edit must reach the container), and names config/docker.yaml in it", () => {
    const composeConfig = composeEnvironment().get('SVIR_CONFIG') ?? '';
    const folder = composeConfig.slice(0, composeConfig.lastIndexOf('/'));
    const file = composeConfig.slice(composeConfig.lastIndexOf('/') + 1);
    const mounts = (svirService?.volumes ?? []).map((volume) => volume.split(':'));
    const mount = mounts.find(([, target]) => target === folder);
    expect(mount, `compose.yaml mounts nothing at ${folder}`).toBeDefined();
    expect(mount?.[0]).toBe('./config');
    expect(`./config/${file}`).toBe('./config/docker.yaml');
    expect(existsSync(`${root}config/${file}`)).toBe(true);
    // No single-file mount of a config.
    expect(mounts.some(([source]) => /\.ya?ml$/.test(source ?? ''))).toBe(false);
  });

  it('is the path the README documents, and the README mounts the folder too', () => {
    const readme = read('README.md');
    expect(readme).toContain(svirConfig);
    expect(readme).toContain('-v "$PWD/config:/etc/svir:ro" -e SVIR_CONFIG=/etc/svir/docker.yaml');
    expect(readme).not.toContain('config/docker.yaml:/etc/svir/config.yaml');
  });

  it('config/docker.yaml is valid, listens on every interface, and refuses to start without a key', () => {
    // Loaded as svir loads it, in an environment without SVIR_API_KEYS.
    const config = parseConfig(read('config/docker.yaml'), {}, 'config/docker.yaml');
    const server = config.server;
    expect(server.host).toBe('0.0.0.0');
    expect(server.port).toBe(4000);
    // The safe default: beyond loopback, never allowUnauthenticated and no key written in the
    // file; the key comes from SVIR_API_KEYS, and without it svir does not start.
    expect(server.allowUnauthenticated).toBe(false);
    expect(server.apiKeys).toEqual([]);
    const withoutKey = checkListenSafety(server.host, resolveApiKeys(server.apiKeys, {}), server.allowUnauthenticated);
    expect(withoutKey.ok).toBe(false);
    const withKey = checkListenSafety(server.host, resolveApiKeys(server.apiKeys, { SVIR_API_KEYS: 'k1' }), server.allowUnauthenticated);
    expect(withKey).toEqual({ ok: true });
    const types = config.backends.map((backend) => backend.type);
    expect(types).toEqual(expect.arrayContaining(['lmstudio', 'llamacpp']));
    for (const backend of config.backends) expect(new URL(backend.url).hostname).toBe('host.docker.internal');
  });
});

describe('compose.yaml', () => {
  it('builds this directory and reaches the host through host.docker.internal', () => {
    expect(svirService).toBeDefined();
    const build = svirService?.build;
    expect(typeof build === 'string' ? build : build?.context).toBe('.');
    const extraHosts = svirService?.extra_hosts;
    const hosts = Array.isArray(extraHosts)
      ? extraHosts
      : Object.entries(extraHosts ?? {}).map(([name, address]) => `${name}:${address}`);
    expect(hosts).toContain('host.docker.internal:host-gateway');
  });

  it('publishes the exposed port on the host loopback and refuses to start without SVIR_API_KEYS', () => {
    expect(svirService?.ports).toEqual(['127.0.0.1:4000:4000']);
    expect(composeEnvironment().get('SVIR_API_KEYS')).toMatch(/^\$\{SVIR_API_KEYS:\?.*\.env.*\}$/);
  });

  it('takes the key from a .env file that git and the build leave out, with an example beside it', () => {
    expect(read('compose.yaml')).toMatch(/> \.env/);
    const lines = (path: string): string[] =>
      read(path)
        .split(/\r?\n/)
        .map((line) => line.trim());
    expect(lines('.gitignore')).toContain('.env');
    expect(lines('.dockerignore')).toContain('.env');
    // The example names the variable and holds no key: copied as it is, svir refuses to start.
    expect(lines('.env.example')).toContain('SVIR_API_KEYS=');
  });
});

describe('.dockerignore', () => {
  it('keeps the host node_modules, build output and git history out of the build context', () => {
    const entries = read('.dockerignore')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(entries).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    // Nothing the build copies is ignored.
    for (const needed of ['src', 'config', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
      expect(entries).not.toContain(needed);
    }
  });
});

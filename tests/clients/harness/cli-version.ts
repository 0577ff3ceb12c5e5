/**
 * `<cli> --version`, run before a CLI's tests: its output, or an error saying why the CLI cannot
 * run here, so that the tests fail with the reason instead of being skipped (CI runs on the
 * same kind of machine).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export async function cliVersion(file: string, args: string[], env: Record<string, string>, why: string): Promise<string> {
  const child = spawn(file, [...args, '--version'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', ...env } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${why}: exit ${String(code)}\n${out}`);
  return out.trim();
}

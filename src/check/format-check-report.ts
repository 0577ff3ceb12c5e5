/**
 * `svir check`'s output: one table row per backend (state, models, and what each feature probe
 * found), then per backend what is not plain "yes" and what svir rewrites for it, then one
 * verdict line. Plain text, aligned with spaces, so it reads in any terminal and in a log.
 */
import { CHECK_FEATURES } from './check-probes.js';
import type { BackendCheck, ProbeResult } from './probe-backend.js';

export interface CheckedBackend extends BackendCheck {
  /** From plannedRewrites: what svir changes for this backend in typical requests. */
  rewrites: string[];
}

export interface CheckReport {
  /** Where the config came from: a file path, or the built-in default. */
  configSource: string;
  backends: CheckedBackend[];
}

function cell(result: ProbeResult | undefined): string {
  if (result === undefined) return '-';
  if (result.feature === 'stream_options' && result.outcome === 'works' && !result.usage) return 'no usage';
  if (result.outcome === 'works') return result.changes.length > 0 ? 'yes*' : 'yes';
  return result.outcome;
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((value, i) => (widths[i] = Math.max(widths[i] ?? 0, value.length)));
  return rows.map((row) => row.map((value, i) => (i === row.length - 1 ? value : value.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

function stateOf(backend: BackendCheck): string {
  if (backend.state === 'auth-failed') return 'auth failed';
  return backend.state;
}

export function formatCheckReport(report: CheckReport): string {
  const lines: string[] = [`svir check: config ${report.configSource} is valid, ${report.backends.length} backend(s)`, ''];
  const header = ['backend', 'type', 'state', 'models', ...CHECK_FEATURES];
  const rows = report.backends.map((backend) => [
    backend.name,
    backend.type,
    stateOf(backend),
    backend.state === 'up' || backend.models.length > 0 ? String(backend.models.length) : '-',
    ...CHECK_FEATURES.map((feature) => cell(backend.probes.find((probe) => probe.feature === feature))),
  ]);
  lines.push(...table([header, ...rows]));
  lines.push("yes: works as sent; yes*: works with svir's changes (below); retried: svir's one retry without a field the server refused;");
  lines.push('refused: svir answers 400 before sending; rejected: the server answered with an error; failed: the stream broke or timed out', '');

  for (const backend of report.backends) {
    const source = backend.modelsFrom === 'config' ? 'from the config' : 'from GET /v1/models';
    const probed = backend.probeModel === undefined ? '' : `, probed with ${backend.probeModel}`;
    lines.push(`${backend.name} (${backend.type}) at ${backend.baseUrl}: ${backend.models.length} model(s) ${source}${probed}`);
    if (backend.reason !== undefined) lines.push(`  ${backend.usable ? 'note' : 'unusable'}: ${backend.reason}`);
    for (const probe of backend.probes) {
      if (probe.outcome !== 'works') lines.push(`  ${probe.feature}: ${probe.outcome}: ${probe.detail ?? ''}`.trimEnd());
      else if (probe.feature === 'stream_options' && !probe.usage) lines.push('  stream_options: taken, but no usage chunk came back');
      else if (probe.changes.length > 0) lines.push(`  ${probe.feature}: works with: ${probe.changes.join('; ')}`);
    }
    if (backend.rewrites.length > 0) {
      lines.push('  svir rewrites for it:');
      for (const rewrite of backend.rewrites) lines.push(`    - ${rewrite}`);
    }
    lines.push('');
  }

  const unusable = report.backends.filter((backend) => !backend.usable);
  if (unusable.length === 0) lines.push(`All ${report.backends.length} backend(s) usable.`);
  else {
    lines.push(
      `${unusable.length} of ${report.backends.length} backend(s) unusable: ${unusable.map((backend) => backend.name).join(', ')}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

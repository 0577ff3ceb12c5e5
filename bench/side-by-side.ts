/**
 * A candidate build against the current one, both under load at the same time: each gets the
 * same load of its own (`connections` clients each) in the same seconds, so whatever else the
 * machine does in those seconds touches both alike. Taking turns cannot give that on a shared
 * machine: CPU time per request follows how busy the machine is (the mock's own CPU per
 * request, the same work for every target, moved by tens of percent from one run to the next),
 * and two runs of an identical build a few seconds apart read up to half again apart.
 *
 * The harness measures (run.ts); this module holds what it reports and how it is printed.
 */
export interface SideBySideRound {
  /** Per target: CPU time of its process over the round, and requests completed. */
  cpuUs: Record<string, number>;
  completed: Record<string, number>;
  durationS: number;
}

export interface SideBySideResult {
  /** The build compared with (`svir-openai`) and the candidate. */
  base: string;
  candidate: string;
  connectionsEach: number;
  rounds: SideBySideRound[];
  /** CPU time per completed request over every round, per target. */
  cpuUsPerRequest: Record<string, number>;
  /** Median over the rounds, per target. */
  requestsPerSec: Record<string, number>;
  /** candidate ÷ base: CPU per request, and the median over rounds of each round's requests/s ratio. */
  cpuRatio: number;
  requestsPerSecRatio: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function summarizeSideBySide(base: string, candidate: string, connectionsEach: number, rounds: SideBySideRound[]): SideBySideResult {
  const sum = (name: string, pick: (r: SideBySideRound) => Record<string, number>): number =>
    rounds.reduce((total, r) => total + (pick(r)[name] ?? 0), 0);
  const perRequest = (name: string): number => {
    const completed = sum(name, (r) => r.completed);
    return completed === 0 ? Number.NaN : sum(name, (r) => r.cpuUs) / completed;
  };
  const rate = (r: SideBySideRound, name: string): number => (r.completed[name] ?? 0) / r.durationS;
  const cpuUsPerRequest = { [base]: perRequest(base), [candidate]: perRequest(candidate) };
  return {
    base,
    candidate,
    connectionsEach,
    rounds,
    cpuUsPerRequest,
    requestsPerSec: {
      [base]: median(rounds.map((r) => rate(r, base))),
      [candidate]: median(rounds.map((r) => rate(r, candidate))),
    },
    cpuRatio: (cpuUsPerRequest[candidate] ?? Number.NaN) / (cpuUsPerRequest[base] ?? Number.NaN),
    requestsPerSecRatio: median(rounds.map((r) => rate(r, candidate) / rate(r, base))),
  };
}

export function formatSideBySide(s: SideBySideResult): string[] {
  const perRound = s.rounds.map((r) => {
    const cpu = (name: string): number => (r.cpuUs[name] ?? 0) / Math.max(1, r.completed[name] ?? 0);
    return (cpu(s.candidate) / cpu(s.base)).toFixed(3);
  });
  return [
    `${s.candidate} beside ${s.base}: both under load at the same time (${s.connectionsEach} connections each, ${s.rounds.length} rounds)`,
    `  CPU µs/req   ${s.base} ${(s.cpuUsPerRequest[s.base] ?? Number.NaN).toFixed(0)}, ${s.candidate} ${(s.cpuUsPerRequest[s.candidate] ?? Number.NaN).toFixed(0)}: ` +
      `${s.candidate} ÷ ${s.base} ${s.cpuRatio.toFixed(3)} (rounds: ${perRound.join(', ')})`,
    `  req/s        ${s.base} ${(s.requestsPerSec[s.base] ?? Number.NaN).toFixed(0)}, ${s.candidate} ${(s.requestsPerSec[s.candidate] ?? Number.NaN).toFixed(0)}: ` +
      `${s.candidate} ÷ ${s.base} ${s.requestsPerSecRatio.toFixed(3)}`,
  ];
}

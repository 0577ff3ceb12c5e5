import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CHAT_ROUTE } from '../../bench/routes.js';
import { cpuPerRequest, runSequential } from '../../bench/sequential.js';
import { loopbackPeers } from '../helpers/loopback-peers.js';

const peers = loopbackPeers();

/** A target that answers every chat request with one text event and [DONE], counting them. */
async function target(): Promise<{ port: number; served: () => number }> {
  let served = 0;
  const { port } = await peers.listen(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        served++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n');
      });
    }),
  );
  return { port, served: () => served };
}

describe('sequential CPU per request', () => {
  it('reads every target’s CPU before and after each block of turns, the last block holding what is left', async () => {
    const a = await target();
    const b = await target();
    // A process's CPU clock as the bench reads it: here 100 µs per request served so far, and a
    // burst of 5,000 µs that `b` spends in the background once, while `a` takes its turn.
    let burst = 0;
    const reads: string[] = [];
    const results = await runSequential(
      [
        { name: 'a', port: a.port, route: CHAT_ROUTE },
        { name: 'b', port: b.port, route: CHAT_ROUTE },
      ],
      {
        samples: 25,
        warmup: 2,
        blockTurns: 10,
        readCpuUs: async (name) => {
          reads.push(name);
          if (name === 'b' && a.served() >= 15 && burst === 0) burst = 5_000;
          return name === 'a' ? a.served() * 100 : b.served() * 100 + burst;
        },
      },
    );
    // Before the first block, and after each of the three (10, 10 and the 5 left).
    expect(reads).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
    expect(results.get('a')?.cpuBlocks).toEqual([
      { cpuUs: 1_000, turns: 10 },
      { cpuUs: 1_000, turns: 10 },
      { cpuUs: 500, turns: 5 },
    ]);
    expect(results.get('b')?.cpuBlocks).toEqual([
      { cpuUs: 1_000, turns: 10 },
      { cpuUs: 6_000, turns: 10 },
      { cpuUs: 500, turns: 5 },
    ]);
    expect(results.get('a')?.samples).toBe(25);
    expect(results.get('b')?.failures).toBe(0);
  });

  it('takes the median over blocks, so that one burst of background work moves it not', () => {
    const r = cpuPerRequest(
      [
        { cpuUs: 1_000, turns: 10 },
        { cpuUs: 6_000, turns: 10 },
        { cpuUs: 500, turns: 5 },
      ],
      1,
    );
    expect(r.cpuUsPerRequest).toBe(100);
    expect(r.cpuUsPerRequestMean).toBe(7_500 / 25);
    expect(r.cpuUsPerRequestBlocks).toEqual([100, 600, 100]);
  });

  it('divides by every request the process served in a turn (the mock serves each target’s)', () => {
    const r = cpuPerRequest([{ cpuUs: 3_000, turns: 10 }], 3);
    expect(r.cpuUsPerRequest).toBe(100);
    expect(r.cpuUsPerRequestMean).toBe(100);
  });

  it('reads no CPU and keeps no blocks when not asked to', async () => {
    const a = await target();
    const results = await runSequential([{ name: 'a', port: a.port, route: CHAT_ROUTE }], { samples: 3, warmup: 0 });
    expect(results.get('a')?.cpuBlocks).toBeUndefined();
    expect(results.get('a')?.samples).toBe(3);
    expect(a.served()).toBe(3);
  });
});

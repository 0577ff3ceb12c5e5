/**
 * What the harness and a server's child process say to each other: the spec a mock or
 * pass-through child starts from, and the stats every child (svir included, through
 * child-guard.mjs) reports about itself over the IPC channel.
 */
import { z } from 'zod';

const mockSpec = z.object({
  role: z.literal('mock'),
  port: z.number().int().positive(),
  delayMs: z.number().nonnegative(),
  chunks: z.number().int().positive(),
  reasoning: z.enum(['off', 'field', 'tags']),
  toolCalls: z.boolean(),
  usage: z.boolean(),
});

/**
 * `pass-through`: the fastify + @fastify/http-proxy floor; `bare-node`: plain node:http + undici;
 * `contract-minimum`: the least the contract asks of any proxy (contract-minimum.ts).
 */
const passThroughSpec = z.object({
  role: z.enum(['pass-through', 'bare-node', 'contract-minimum']),
  port: z.number().int().positive(),
  /** The upstream's origin, e.g. `http://127.0.0.1:1234`. */
  upstream: z.string(),
});

export const serveSpecSchema = z.union([mockSpec, passThroughSpec]);
export type ServeSpec = z.infer<typeof serveSpecSchema>;

export const processStatsSchema = z.object({
  /** process.cpuUsage(), microseconds since start. */
  userUs: z.number(),
  systemUs: z.number(),
  rssBytes: z.number(),
  heapUsedBytes: z.number(),
  /** process.resourceUsage().maxRSS in bytes: the peak since start. */
  maxRssBytes: z.number(),
});
export type ProcessStats = z.infer<typeof processStatsSchema>;

export const statsMessageSchema = z.object({ type: z.literal('stats'), id: z.number(), stats: processStatsSchema });

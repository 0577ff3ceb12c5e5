/**
 * The svir headers of a routed answer: `x-svir-backend` (the backend now serving) and
 * `x-svir-changes` (what svir changed for it, omitted when nothing), set again when a later
 * attempt serves the request.
 */
import type { FastifyReply } from 'fastify';
import { changesHeader } from './changes-header.js';

/** What the headers are set on, and whether an earlier attempt set `x-svir-changes`. */
export interface SvirHeaderScope {
  reply: FastifyReply;
  changesHeader: boolean;
}

/**
 * Sets the svir headers of the backend now serving, dropping the changes an earlier call set
 * (`scope.changesHeader`): the first attempt of a request that changes nothing, nearly every
 * request, sets one header and removes none.
 */
export function setSvirHeaders(scope: SvirHeaderScope, backend: string, changes: readonly string[]): void {
  const { reply } = scope;
  if (scope.changesHeader) reply.removeHeader('x-svir-changes');
  reply.header('x-svir-backend', backend);
  // Omitted when svir changed nothing.
  scope.changesHeader = changes.length > 0;
  if (scope.changesHeader) reply.header('x-svir-changes', changesHeader(changes));
}

/** Whether two attempts changed the same things (the headers need not be set again). */
export function sameChanges(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((change, i) => change === b[i]);
}

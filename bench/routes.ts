/**
 * The routes a benchmark sends its requests to, with what marks their answer as whole: the chat
 * route (`data: [DONE]` last) and the Responses route (`response.completed` last), both asking
 * the mock for the same streamed answer. Every section takes one, so the Responses route is
 * measured exactly as the chat route is.
 */
import { chatRequestBody, messagesRequestBody, responsesRequestBody } from './request-body.js';

export interface BenchRoute {
  name: 'chat' | 'responses' | 'messages';
  path: string;
  body: string;
  /** Headers sent with every request besides content-type and accept (Portkey's routing headers). */
  headers?: Readonly<Record<string, string>>;
  /** The first bytes of answer text in the response body (after any role-only first event). */
  firstText: RegExp;
  /** Whether the response body ends as a whole answer of this route does. */
  complete(body: string): boolean;
}

export const CHAT_ROUTE: BenchRoute = {
  name: 'chat',
  path: '/v1/chat/completions',
  body: chatRequestBody(),
  firstText: /"content":"[^"]/,
  complete: (body) => body.endsWith('data: [DONE]\n\n'),
};

export const RESPONSES_ROUTE: BenchRoute = {
  name: 'responses',
  path: '/v1/responses',
  body: responsesRequestBody(),
  firstText: /"delta":"[^"]/,
  // The last event of a whole answer; its data line is long, so only the event line is looked for.
  complete: (body) => /event: response\.completed\ndata: \{[^\n]*\}\n\n$/.test(body),
};

export const MESSAGES_ROUTE: BenchRoute = {
  name: 'messages',
  path: '/v1/messages',
  body: messagesRequestBody(),
  // A text delta with something in it (a block's start carries an empty text).
  firstText: /"text":"[^"]/,
  complete: (body) => body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'),
};

import type { ChatRequest } from '../../requests/chat-request.js';

/** Whether the request asks for JSON (`json_object` or `json_schema`). */
export function isStructuredOutput(body: Pick<ChatRequest, 'response_format'>): boolean {
  const type = body.response_format?.type;
  return type === 'json_object' || type === 'json_schema';
}

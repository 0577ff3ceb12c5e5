import { describe, expect, it } from 'vitest';
import { chatRequestSchema, responseFormatSchema } from '../../src/requests/chat-request.js';

/** Issue 3: a `json_schema` name is checked (ASCII letters, digits, `_`, `-`, at most 64). */
const withName = (name: unknown): unknown => ({ type: 'json_schema', json_schema: { name, schema: { type: 'object' } } });

describe('responseFormatSchema: the json_schema name', () => {
  it.each(['locker', 'Locker_2', 'a-b_c', 'x', 'a'.repeat(64), 'ABCxyz0123456789_-'])('takes %s', (name) => {
    const parsed = responseFormatSchema.safeParse(withName(name));
    expect(parsed.success).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['65 characters', 'a'.repeat(65)],
    ['a space', 'my schema'],
    ['a dot', 'my.schema'],
    ['a slash', 'a/b'],
    ['a non-ASCII letter', 'schéma'],
    ['a line break', 'a\nb'],
  ])('refuses a name with %s, saying what a name may hold', (_what, name) => {
    const parsed = responseFormatSchema.safeParse(withName(name));
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const issue = parsed.error.issues[0];
    expect(issue?.path).toEqual(['json_schema', 'name']);
    expect(issue?.message).toBe('must be 1 to 64 ASCII letters, digits, "_" or "-"');
  });

  it('refuses a name that is not a string, or missing', () => {
    expect(responseFormatSchema.safeParse(withName(7)).success).toBe(false);
    expect(responseFormatSchema.safeParse({ type: 'json_schema', json_schema: { schema: {} } }).success).toBe(false);
  });

  it('reports the bad name under response_format in a whole request', () => {
    const parsed = chatRequestSchema.safeParse({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: withName('no spaces please'),
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(parsed.error.issues.map((issue) => issue.path.join('.'))).toEqual(['response_format.json_schema.name']);
  });
});

import { describe, expect, it } from 'vitest';
import { withFields } from '../../src/adapters/request/with-fields.js';

/** Own keys in order, with their values: what JSON.stringify (and the upstream) would see. */
function entries(value: object): [string, unknown][] {
  return Object.entries(value);
}

describe('withFields', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['adds new keys after the base keys', { model: 'm', messages: [] }, { stream: true, stream_options: { include_usage: true } }],
    ['replaces a key in its place', { model: 'm', stream: false, temperature: 0.7 }, { stream: true }],
    ['replaces and adds', { stream: false, model: 'm' }, { model: 'x', max_tokens: 5 }],
    ['an empty base', {}, { include_usage: true }],
    ['nothing to add', { a: 1 }, {}],
  ];
  for (const [name, base, fields] of cases) {
    it(`${name}: the keys, order and values of { ...base, ...fields }`, () => {
      const before = JSON.stringify(base);
      const made = withFields(base, fields);
      expect(entries(made)).toEqual(entries({ ...base, ...fields }));
      expect(JSON.stringify(made)).toBe(JSON.stringify({ ...base, ...fields }));
      expect(made).not.toBe(base);
      expect(JSON.stringify(base)).toBe(before);
      expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    });
  }

  it('an own __proto__ key stays an own key, as with the spread: the prototype is never set', () => {
    const base: Record<string, unknown> = JSON.parse('{"model":"m","__proto__":{"tools":["injected"]}}');
    const made = withFields(base, { stream: true });
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.hasOwn(made, '__proto__')).toBe(true);
    expect('tools' in made).toBe(false);
    expect(JSON.stringify(made)).toBe(JSON.stringify({ ...base, stream: true }));
  });

  it('an own __proto__ key in the fields is defined, not set as the prototype', () => {
    const fields: Record<string, unknown> = JSON.parse('{"__proto__":{"polluted":true},"stream":true}');
    const made = withFields({ model: 'm' }, fields);
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect('polluted' in made).toBe(false);
    expect(JSON.stringify(made)).toBe(JSON.stringify({ model: 'm', ...fields }));
  });
});

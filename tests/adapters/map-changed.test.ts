import { describe, expect, it } from 'vitest';
import { mapChanged } from '../../src/adapters/request/map-changed.js';

describe('mapChanged', () => {
  const items = [{ n: 1 }, { n: 2 }, { n: 3 }];

  it('answers undefined when every item came back as it was', () => {
    expect(mapChanged(items, (item) => item)).toBeUndefined();
    expect(mapChanged([], (item: { n: number }) => ({ n: item.n + 1 }))).toBeUndefined();
  });

  for (const changedAt of [0, 1, 2]) {
    it(`is items.map(f) once an item changed (item ${changedAt}), the others kept as they are`, () => {
      const f = (item: { n: number }): { n: number } => (item === items[changedAt] ? { n: item.n * 10 } : item);
      const out = mapChanged(items, f);
      expect(out).toEqual(items.map(f));
      items.forEach((item, i) => {
        if (i !== changedAt) expect(out?.[i]).toBe(item);
      });
      expect(items.map((item) => item.n)).toEqual([1, 2, 3]);
    });
  }
});

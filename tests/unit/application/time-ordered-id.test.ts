/** Time-ordered ids (UUID version 7): well-formed, unique, and sorting in the order they were made. */
import { timeOrderedId } from '../../../application/time-ordered-id';

const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  it('are version 7 UUIDs whose first 48 bits are the milliseconds they were made at', () => {
    const at = Date.UTC(2026, 10, 22, 3, 0, 0);
    const id = timeOrderedId(at + 10_000);
    expect(id).toMatch(SHAPE);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at + 10_000);
  });

  it('sort in the order they were made, thousands within one millisecond included', () => {
    const at = Date.UTC(2026, 10, 22, 4, 0, 0);
    // 10,000 ids in one millisecond overflow the 12-bit counter twice: order and uniqueness still hold.
    const ids = Array.from({ length: 10_000 }, () => timeOrderedId(at));
    ids.push(timeOrderedId(at + 1), timeOrderedId(at + 50));
    expect(ids.every((id) => SHAPE.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keep their order when the clock steps back', () => {
    const at = Date.UTC(2026, 10, 22, 5, 0, 0);
    const ids = [timeOrderedId(at), timeOrderedId(at - 5_000), timeOrderedId(at - 1)];
    expect([...ids].sort()).toEqual(ids);
  });

  it('differ in their random bits', () => {
    const a = timeOrderedId(Date.UTC(2026, 10, 22, 6, 0, 0));
    const b = timeOrderedId(Date.UTC(2026, 10, 22, 6, 0, 0));
    expect(a.slice(19)).not.toEqual(b.slice(19));
  });
});

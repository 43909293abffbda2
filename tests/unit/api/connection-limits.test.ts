/**
 * The counts behind the connection caps: a place is given back once, however many times its release
 * is called (a socket's `close` and an explicit release may both call it), and the unauthenticated
 * sockets are refused for their address (429) before the process (503).
 */
import { ConnectionCounts, UnauthenticatedSockets } from '../../../api/http/connection-limits';
import { tokenBuckets } from '../../../api/http/rate-limit';

describe('places per key', () => {
  it('holds at most the cap per key, and a release given twice frees one place', () => {
    const counts = new ConnectionCounts(2);
    const first = counts.take('org-1')!;
    expect(counts.take('org-1')).not.toBeNull();
    expect(counts.take('org-1')).toBeNull();
    expect(counts.take('org-2')).not.toBeNull();
    first();
    first();
    expect(counts.count('org-1')).toBe(1);
    expect(counts.take('org-1')).not.toBeNull();
    expect(counts.take('org-1')).toBeNull();
  });
});

describe('sockets not yet authenticated', () => {
  it('refuses an address past its share with 429 and anyone past the process cap with 503', () => {
    const gate = new UnauthenticatedSockets({ max: 3, perAddress: 2 });
    const a1 = gate.enter('10.0.0.1');
    gate.enter('10.0.0.1');
    expect(gate.enter('10.0.0.1')).toMatchObject({ status: 429 });
    gate.enter('10.0.0.2');
    expect(gate.enter('10.0.0.3')).toMatchObject({ status: 503 });
    // The refused entries held nothing: one release lets one more in.
    expect(gate.count).toBe(3);
    (a1 as () => void)();
    expect(typeof gate.enter('10.0.0.3')).toBe('function');
  });
});

describe('token buckets', () => {
  it('answers 0 while tokens last, then the seconds until one is back', () => {
    let now = 0;
    const buckets = tokenBuckets({ perSecond: 0.5, burst: 2 }, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 2]);
    expect(buckets.take('b')).toBe(0);
    now = 2000;
    expect(buckets.take('a')).toBe(0);
  });
});

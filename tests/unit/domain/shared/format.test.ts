import { isIsoDate } from '../../../../domain/shared/format';

/** The rule as first written: a `YYYY-MM-DD` that `Date.UTC` reads back as the same day. */
function byDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

describe('isIsoDate', () => {
  it('answers as reading the date back would, for every month and day of years around each rule', () => {
    const years = [0, 1, 99, 100, 101, 1582, 1600, 1700, 1900, 1999, 2000, 2024, 2026, 2100, 2400, 9999];
    let checked = 0;
    for (const year of years)
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++) {
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          expect([text, isIsoDate(text)]).toEqual([text, byDate(text)]);
          checked += 1;
        }
    expect(checked).toBe(years.length * 14 * 33);
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2026-02-29')).toBe(false);
  });

  it('refuses what is not written YYYY-MM-DD', () => {
    for (const text of [
      '',
      '2026-1-01',
      '2026-01-1',
      ' 2026-01-01',
      '2026-01-01 ',
      '2026-01-01\n',
      '2026/01/01',
      '+2026-01-01',
      '20260-01-01',
      '2026-01-0a',
      '2026-0/-01',
      '２０２６-01-01',
      '2026-01-01T00:00:00Z',
    ]) {
      expect([text, isIsoDate(text)]).toEqual([text, false]);
      expect(byDate(text)).toBe(false);
    }
  });
});

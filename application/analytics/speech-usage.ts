/**
 * An organization's speech usage (docs/analytics.md): requests, characters spoken and seconds of audio,
 * in total and per UTC day, voice and language, from the speech usage read model. A request falls in a
 * time range by when it started; the range is parsed as `/logs` parses it.
 */
import type { SpeechUsageDocument } from '../../projections/analytics/speech-usage';
import { toQuery } from '../logs/log-service';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import { groupBy } from './call-figures';

export type SpeechFigures = { requests: number; characters: number; audio_seconds: number };
export type SpeechUsage = SpeechFigures & {
  by_day: (SpeechFigures & { date: string })[];
  by_voice: (SpeechFigures & { voice_id: string })[];
  by_language: (SpeechFigures & { language: string })[];
};

export class SpeechUsageReport {
  constructor(private readonly usage: ReadCollection<SpeechUsageDocument>) {}

  async usageOf(ctx: RequestContext, range: { start_time?: string; end_time?: string }): Promise<SpeechUsage> {
    const { where, range: between } = toQuery(ctx, { ...range, page: 1 });
    const requests = await this.usage.find({ where, ...(between && { range: between }) });
    const per = <K extends string>(name: K, key: (r: SpeechUsageDocument) => string) =>
      groupBy(requests, key).map(
        ([value, group]) => ({ [name]: value, ...figures(group) }) as SpeechFigures & Record<K, string>,
      );
    return {
      ...figures(requests),
      by_day: per('date', (r) => r.date),
      by_voice: per('voice_id', (r) => r.voice_id),
      by_language: per('language', (r) => r.language),
    };
  }
}

function figures(requests: readonly SpeechUsageDocument[]): SpeechFigures {
  const audioMs = requests.reduce((sum, r) => sum + r.audio_ms, 0);
  return {
    requests: requests.length,
    characters: requests.reduce((sum, r) => sum + r.characters, 0),
    // Milliseconds summed first, so the rounding happens once.
    audio_seconds: Math.round(audioMs) / 1000,
  };
}

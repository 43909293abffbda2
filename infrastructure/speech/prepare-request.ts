/**
 * Checks a synthesis request and turns it into the segments the workers synthesize, each with the
 * count of characters spoken once it is heard. Everything here is pure, so one request always gives
 * the same segments, hence the same audio.
 */
import { SpeechRequestError, type SynthesisRequest } from '../../application/ports/speech-engine';
import { espeakVoice } from './espeak-voice';
import { isLanguageCode } from './languages';
import { pauseMs } from './text/pause';
import { segmentText, type Segment, type SegmentLimits } from './text/segment';
import { isSpeakable } from './text/speakable';
import { escapeSsml } from './text/ssml';
import { findVoice } from './voices';
import type { SegmentJob } from './worker/protocol';

export type PreparedSegment = {
  job: Omit<SegmentJob, 'job' | 'skipSamples' | 'mayYield' | 'timeWords'>;
  /** Characters of the request's text spoken once this segment has been heard. */
  spokenAfter: number;
  /** Where the text eSpeak is given comes from in the request's text (the segment without its surrounding spaces). */
  source: { start: number; end: number };
};

const sampleRates: readonly number[] = [8000, 16000, 24000];

const trimmedRange = (segment: Segment) => {
  const start = segment.start + (segment.text.length - segment.text.trimStart().length);
  return { start, end: Math.max(start, segment.start + segment.text.trimEnd().length) };
};

export function prepareRequest(request: SynthesisRequest, limits: SegmentLimits): PreparedSegment[] {
  const voice = findVoice(request.voiceId);
  if (!voice) throw new SpeechRequestError('invalid_voice', `Unknown voice_id "${request.voiceId}"`);
  if (!isLanguageCode(request.language))
    throw new SpeechRequestError('invalid_language', `Unsupported language "${request.language}"`);
  if (!sampleRates.includes(request.sampleRate))
    throw new SpeechRequestError('invalid_request', 'sample_rate must be 8000, 16000 or 24000');
  if (!(request.speed >= 0.5 && request.speed <= 2))
    throw new SpeechRequestError('invalid_request', 'speed must be between 0.5 and 2.0');
  if (typeof request.text !== 'string' || !isSpeakable(request.text))
    throw new SpeechRequestError('invalid_request', 'text has nothing to speak');

  const settings = espeakVoice(request.language, voice.timbre);
  const segments = segmentText(request.text, limits);
  return segments.map((segment, i) => ({
    job: {
      // A segment cut inside a clause ends on a comma: a continuing tune rather than a final fall.
      text: escapeSsml(segment.text.trim()) + (segment.cut ? ',' : ''),
      voice: settings,
      speed: request.speed,
      sampleRate: request.sampleRate,
      pauseMs: i === segments.length - 1 ? 0 : pauseMs(segment.pause, voice.timbre.wordsPerMinute),
    },
    spokenAfter: segment.end,
    source: trimmedRange(segment),
  }));
}

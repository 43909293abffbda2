/**
 * Plays PCM as it streams: each chunk becomes an AudioBuffer scheduled right after the one before, so
 * the pieces join without a gap; when the network falls behind, the next one starts a little after now.
 * It remembers where each piece of the request's audio sits on the context's clock, so `position()`
 * says which moment of the audio is heard now even after such a pause (the words are highlighted by it).
 */

/** Time given to the first chunk (and after a stall) so it is not scheduled in the past. */
const LEAD_SECONDS = 0.05;

type Piece = { audioMs: number; startsAt: number; seconds: number };

export type PcmPlayer = {
  /** Schedules the next piece of the request's audio. */
  play: (samples: Float32Array<ArrayBuffer>, sampleRate: number) => void;
  /** The millisecond of the request's audio heard now; -1 before the first piece starts. */
  position: () => number;
  /** The end of the audio scheduled so far, in milliseconds of audio. */
  scheduledMs: () => number;
  stop: () => void;
};

export function pcmPlayer(context: AudioContext): PcmPlayer {
  const pieces: Piece[] = [];
  const sources: AudioBufferSourceNode[] = [];
  let nextAt = 0;
  let audioMs = 0;
  return {
    play(samples, sampleRate) {
      if (samples.length === 0) return;
      const buffer = context.createBuffer(1, samples.length, sampleRate);
      buffer.copyToChannel(samples, 0);
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      const startsAt = Math.max(nextAt, context.currentTime + LEAD_SECONDS);
      source.start(startsAt);
      sources.push(source);
      source.onended = () => sources.splice(sources.indexOf(source), 1);
      pieces.push({ audioMs, startsAt, seconds: buffer.duration });
      nextAt = startsAt + buffer.duration;
      audioMs += buffer.duration * 1000;
    },
    position() {
      const now = context.currentTime;
      let piece: Piece | undefined;
      for (let i = pieces.length - 1; i >= 0 && !piece; i--) if (pieces[i]!.startsAt <= now) piece = pieces[i];
      if (!piece) return -1;
      return piece.audioMs + Math.min(now - piece.startsAt, piece.seconds) * 1000;
    },
    scheduledMs: () => audioMs,
    stop() {
      for (const source of sources.splice(0)) source.stop();
      pieces.length = 0;
    },
  };
}

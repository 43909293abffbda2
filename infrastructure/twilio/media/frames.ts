/**
 * Cuts the agent's audio into the frames Media Streams plays: 20 ms of μ-law at 8,000 Hz, 160 bytes.
 * The engine's chunks are of any length; what does not fill a frame waits for the next chunk, and
 * the end of a line pads its last frame with silence, so every frame is whole.
 */
import { encodeMulaw, MULAW_SILENCE } from './mulaw';

export const FRAME_BYTES = 160;

export class MulawFrames {
  private pending = Buffer.alloc(FRAME_BYTES);
  private filled = 0;

  /** The whole frames that `pcm` completes, in order. */
  push(pcm: Int16Array): Buffer[] {
    const frames: Buffer[] = [];
    let from = 0;
    while (from < pcm.length) {
      const take = Math.min(FRAME_BYTES - this.filled, pcm.length - from);
      encodeMulaw(pcm.subarray(from, from + take), this.pending, this.filled);
      this.filled += take;
      from += take;
      if (this.filled === FRAME_BYTES) {
        frames.push(this.pending);
        this.pending = Buffer.alloc(FRAME_BYTES);
        this.filled = 0;
      }
    }
    return frames;
  }

  /** The last, partial frame padded with silence; null when nothing is pending. */
  end(): Buffer | null {
    if (this.filled === 0) return null;
    const last = this.pending.fill(MULAW_SILENCE, this.filled);
    this.pending = Buffer.alloc(FRAME_BYTES);
    this.filled = 0;
    return last;
  }
}

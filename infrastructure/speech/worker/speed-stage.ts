/**
 * Changes speed without changing pitch, with Sonic (pitch-synchronous overlap-add). A fresh Sonic
 * stream per segment: Sonic has no reset, and a stream carried over would make a segment's audio
 * depend on the one before it.
 */
import type { SonicModule } from '@echogarden/sonic-wasm';
import type { Sink, Stage } from './stage';

const BLOCK = 8192;

export type SpeedChanger = (speed: number, sampleRate: number, next: Sink) => Stage;

export async function loadSpeedChanger(): Promise<SpeedChanger> {
  const sonic: SonicModule = await (await import('@echogarden/sonic-wasm')).default();
  const input = sonic._malloc(BLOCK * 2);
  const output = sonic._malloc(BLOCK * 2);

  return (speed, sampleRate, next) => {
    const stream = sonic._sonicCreateStream(sampleRate, 1);
    sonic._sonicSetSpeed(stream, speed);
    const drain = () => {
      for (
        let n = sonic._sonicReadShortFromStream(stream, output, BLOCK);
        n > 0;
        n = sonic._sonicReadShortFromStream(stream, output, BLOCK)
      ) {
        next(sonic.HEAP16.subarray(output >> 1, (output >> 1) + n));
      }
    };
    return {
      write(samples) {
        for (let offset = 0; offset < samples.length; offset += BLOCK) {
          const block = samples.subarray(offset, offset + BLOCK);
          sonic.HEAP16.set(block, input >> 1);
          sonic._sonicWriteShortToStream(stream, input, block.length);
          drain();
        }
      },
      end() {
        sonic._sonicFlushStream(stream);
        drain();
        sonic._sonicDestroyStream(stream);
      },
    };
  };
}

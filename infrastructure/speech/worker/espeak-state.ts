/**
 * eSpeak NG keeps a little state from one synthesis to the next: a random generator (seeded from the
 * clock at start-up) that adds breath noise, and two small blocks of wave-generator state. Left alone,
 * the same text gives slightly different samples each time, and the REST body of a request would not
 * equal its WebSocket chunks. Putting these words back to fixed values before each segment makes
 * every synthesis start from the same state, whatever ran before on that worker.
 *
 * The addresses are specific to one build of the package: they were found by restoring ever smaller
 * parts of a memory snapshot until the output repeated exactly. On any other version nothing is
 * written (writing blindly could corrupt memory); the worker's start-up check then reports that
 * output is not repeatable.
 */
export const PINNED_ESPEAK_VERSION = '0.3.5';

/** Int32 word index in the module's memory, and the value a fresh synthesis should find there. */
const wordsToReset: readonly { index: number; value: number }[] = [
  { index: 35269, value: 1 }, // random generator state
  ...[56796, 56797, 56798, 56799, 57972, 57973, 57974, 57975].map((index) => ({ index, value: 0 })),
];

export type StateReset = () => void;

export function espeakStateReset(heap: () => Int32Array, version: string): StateReset {
  if (version !== PINNED_ESPEAK_VERSION) return () => {};
  return () => {
    const words = heap(); // the view changes whenever the memory grows
    for (const { index, value } of wordsToReset) words[index] = value;
  };
}

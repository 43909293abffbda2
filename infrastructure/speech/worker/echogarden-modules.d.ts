/**
 * The parts of the Emscripten builds of eSpeak NG and Sonic that the worker
 * uses. The packages ship JavaScript only; these shapes were read from their sources.
 */
declare module '@echogarden/espeak-ng-emscripten' {
  export type ESpeakNGWorker = {
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): number;
    set_pitch(pitch: number): number;
    set_range(range: number): number;
    /**
     * Raw binding: the callback is a function-table pointer from `addFunction`, called with (samples
     * pointer, sample count, pointer to the block's `espeak_EVENT` array ending with type 0).
     */
    synth_(text: string, callback: number): void;
    /** Bytes of one `espeak_EVENT` in this build (36: pointers are 32-bit). */
    getSizeOfEventStruct_(): number;
  };
  export type ESpeakModule = {
    eSpeakNGWorker: new () => ESpeakNGWorker;
    /** Registers a JavaScript function in the module's function table; `signature` as Emscripten writes it. */
    addFunction(fn: (...args: number[]) => number, signature: string): number;
    HEAP16: Int16Array;
    HEAP32: Int32Array;
  };
  const factory: () => Promise<ESpeakModule>;
  export default factory;
}

declare module '@echogarden/sonic-wasm' {
  export type SonicModule = {
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _sonicCreateStream(sampleRate: number, channels: number): number;
    _sonicDestroyStream(stream: number): void;
    _sonicSetSpeed(stream: number, speed: number): void;
    _sonicWriteShortToStream(stream: number, samples: number, count: number): number;
    _sonicReadShortFromStream(stream: number, samples: number, maxCount: number): number;
    _sonicFlushStream(stream: number): number;
    HEAP16: Int16Array;
  };
  const factory: () => Promise<SonicModule>;
  export default factory;
}

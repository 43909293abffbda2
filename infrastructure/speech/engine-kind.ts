/**
 * Which eSpeak NG build the engine runs, from the `SPEECH_ENGINE` setting: `native` needs Debian's
 * `libespeak-ng1` (about five times less CPU per request), `js` is the build in the npm package, and
 * `auto` takes the native one when its library loads and is a build whose output repeats exactly
 * (espeak-native-state.ts), else the JavaScript one.
 */
import { loadNativeLibrary, NATIVE_LIBRARY } from './worker/espeak-native';
import { pinnedLibrary } from './worker/espeak-native-state';
import type { EngineKind } from './worker/protocol';

export type EngineSetting = EngineKind | 'auto';

export type EngineChoice = { kind: EngineKind; reason: string };

/** What the native library is here: missing (with the loader's error), loaded, or loaded and repeatable. */
export type NativeLibraryState = { error: string } | { error?: undefined; repeatable: boolean };

const probeLibrary = (): NativeLibraryState => {
  try {
    loadNativeLibrary(); // dlopen only: eSpeak itself is initialized in the worker that uses it
    return { repeatable: pinnedLibrary(NATIVE_LIBRARY) !== null };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
};

export function chooseEngine(setting: EngineSetting, probe: () => NativeLibraryState = probeLibrary): EngineChoice {
  if (setting === 'js') return { kind: 'js', reason: 'SPEECH_ENGINE=js' };
  const library = probe();
  const { error } = library;
  if (setting === 'native') {
    if (error)
      throw new Error(
        `SPEECH_ENGINE=native but ${NATIVE_LIBRARY} cannot be loaded (${error}); install it with "apt-get install libespeak-ng1", or set SPEECH_ENGINE=js or auto`,
      );
    return { kind: 'native', reason: 'SPEECH_ENGINE=native' };
  }
  if (library.error !== undefined)
    return {
      kind: 'js',
      reason: `${NATIVE_LIBRARY} not available (${library.error}); apt-get install libespeak-ng1 for the native engine`,
    };
  return library.repeatable
    ? { kind: 'native', reason: `${NATIVE_LIBRARY} found` }
    : {
        kind: 'js',
        reason: `${NATIVE_LIBRARY} found, but not the build whose output repeats exactly (Debian 12's 1.51+dfsg-10+deb12u2); SPEECH_ENGINE=native uses it anyway`,
      };
}

/** Why the native engine cannot run in this process, or undefined when it can. */
export function nativeEngineMissing(): string | undefined {
  try {
    chooseEngine('native');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

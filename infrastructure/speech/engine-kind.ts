/**
 * Which eSpeak NG build the engine runs, from the `SPEECH_ENGINE` setting: `native` needs Debian's
 * `libespeak-ng1` (about five times less CPU per request), `js` is the build in the npm package, and
 * `auto` takes the native one when its library loads.
 */
import { loadNativeLibrary, NATIVE_LIBRARY } from './worker/espeak-native';
import type { EngineKind } from './worker/protocol';

export type EngineSetting = EngineKind | 'auto';

export type EngineChoice = { kind: EngineKind; reason: string };

const loadError = (): string | undefined => {
  try {
    loadNativeLibrary(); // dlopen only: eSpeak itself is initialized in the worker that uses it
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

export function chooseEngine(setting: EngineSetting, tryLoad: () => string | undefined = loadError): EngineChoice {
  if (setting === 'js') return { kind: 'js', reason: 'SPEECH_ENGINE=js' };
  const error = tryLoad();
  if (setting === 'native') {
    if (error)
      throw new Error(
        `SPEECH_ENGINE=native but ${NATIVE_LIBRARY} cannot be loaded (${error}); install it with "apt-get install libespeak-ng1", or set SPEECH_ENGINE=js or auto`,
      );
    return { kind: 'native', reason: 'SPEECH_ENGINE=native' };
  }
  return error
    ? {
        kind: 'js',
        reason: `${NATIVE_LIBRARY} not available (${error}); apt-get install libespeak-ng1 for the native engine`,
      }
    : { kind: 'native', reason: `${NATIVE_LIBRARY} found` };
}

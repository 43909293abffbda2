/**
 * Speech: the voices and text to speech over REST (here) and over the WebSocket (attached by the
 * composition root once the server exists, see api/speech/socket.ts). The engine is the composition
 * root's: it warms it at start (readiness waits for it) and closes it last. /asyncapi.json describes
 * the WebSocket protocol.
 */
import { SpeechService } from '../../application/speech/speech-service';
import type { ModuleDefinition } from '../module';
import { asyncApiRoutes } from './asyncapi';
import { speechRestRoutes } from './rest-router';

export const speechModule: ModuleDefinition = {
  name: 'speech',
  projections: [],
  reads: [],
  build({ engine, commands, env, config, logger, provided }) {
    if (!engine) return {};
    const speech = new SpeechService(engine, commands, env, config.maxSpeechChars, config.speechLeaseMs);
    provided.provide('speech', speech);
    // Speech reads no read model, so it is answered without waiting for them.
    return {
      routes: [
        { prefix: '/api/v1', security: 'organization', readsNothing: true, routes: speechRestRoutes(speech, logger) },
        // The WebSocket protocol's description, public as /openapi.json is.
        { prefix: '', security: 'public', routes: asyncApiRoutes() },
      ],
    };
  },
};

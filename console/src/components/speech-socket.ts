/**
 * The speech WebSocket (`/api/v1/get_speech`, described at /asyncapi.json) as a browser opens it: the
 * token is offered as the subprotocol after `bearer` (a browser cannot set the Authorization header on
 * a WebSocket, and a token never goes in a URL), and the service answers `bearer`.
 */
import { storedSession } from '../client/session';

export type WordTime = { word: string; start_ms: number; end_ms: number };

/** What the service sends (docs/speech.md, "WebSocket protocol"). */
export type ServerMessage =
  | { type: 'connected'; connection_id: string; message: string }
  | { type: 'audio_chunk'; request_id: string; chunk_index: number; data: string }
  | { type: 'word_timestamps'; request_id: string; words: WordTime[] }
  | {
      type: 'complete';
      request_id: string;
      total_chunks: number;
      characters: number;
      audio_duration_ms: number;
      cancelled?: true;
    }
  | { type: 'error'; request_id?: string; error: string; message: string }
  | { type: 'pong' };

export type SpeechRequest = {
  request_id: string;
  text: string;
  voice_id: string;
  language: string;
  sample_rate: number;
  speed: number;
  add_wav_header: false;
  word_timestamps: boolean;
};

export type SpeechSocket = {
  speak: (request: SpeechRequest) => void;
  cancel: (requestId: string) => void;
  close: () => void;
};

/** Why a socket closed, in words (the service's own close codes: docs/speech.md). */
function closeReason(event: CloseEvent): string {
  if (event.code === 4001) return 'The token expired: sign in again with a new one.';
  if (event.code === 1001) return 'The service is restarting: speak again in a moment.';
  return event.reason ? `The connection closed: ${event.reason}` : 'The connection closed.';
}

/** Opens a socket; resolves once the service said `connected`, rejects if it refused the handshake. */
export function openSpeechSocket(
  onMessage: (message: ServerMessage) => void,
  onClose: (reason: string) => void,
): Promise<SpeechSocket> {
  const token = storedSession()?.token ?? '';
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${window.location.host}/api/v1/get_speech`, ['bearer', token]);
  const socket: SpeechSocket = {
    speak: (request) => ws.send(JSON.stringify({ type: 'speech', ...request })),
    cancel: (requestId) => ws.send(JSON.stringify({ type: 'cancel', request_id: requestId })),
    close: () => ws.close(1000, 'closed by the console'),
  };
  return new Promise((resolve, reject) => {
    let connected = false;
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as ServerMessage;
      if (message.type === 'connected' && !connected) {
        connected = true;
        resolve(socket);
      }
      onMessage(message);
    };
    ws.onclose = (event) => {
      // A handshake the service refused closes with 1006 before opening: the browser does not say why.
      if (!connected) reject(new Error('The speech service refused the connection (is the token allowed to speak?).'));
      else onClose(closeReason(event));
    };
  });
}

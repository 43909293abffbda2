/**
 * The messages of the speech WebSocket, as schemas: what a client sends (the speech request is the
 * schema of spec 2.2 the REST route takes too) and what the service sends back. The socket handler's
 * messages are typed by them and /asyncapi.json is written from them, so the description and the
 * protocol cannot drift apart.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { WordTimestamp } from '../../application/ports/speech-engine';
import { SPEECH_STATUS } from './errors';
import { SpeechRequestSchema } from './request';

const RequestId = Type.String({ description: "The request's id: the client's `request_id`, or one generated" });

export const WordTimestampSchema = Type.Object({
  word: Type.String({ description: 'The word as written in the text, without the punctuation around it' }),
  start_ms: Type.Integer({ minimum: 0, description: "From the start of the request's audio, at its speed" }),
  end_ms: Type.Integer({ minimum: 0, description: "Where the next word starts, or the segment's speech ends" }),
});

/** Word timestamps as the API writes them. */
export const wordsJson = (words: readonly WordTimestamp[]): Static<typeof WordTimestampSchema>[] =>
  words.map((w) => ({ word: w.word, start_ms: w.startMs, end_ms: w.endMs }));

// What clients send.

export const SpeechMessage = Type.Object(
  { ...SpeechRequestSchema.properties, type: Type.Literal('speech') },
  { description: 'Speak a text (spec 2.2); several requests may run at once on a connection' },
);

export const CancelMessage = Type.Object(
  { type: Type.Literal('cancel'), request_id: Type.String() },
  { description: 'Stop a running request: it ends with `complete` and `cancelled: true`' },
);

export const PingMessage = Type.Object({ type: Type.Literal('ping') }, { description: 'Answered `pong`' });

// What the service sends.

export const ConnectedMessage = Type.Object(
  { type: Type.Literal('connected'), connection_id: Type.String(), message: Type.String() },
  { description: 'The first message of every connection' },
);

export const AudioChunkMessage = Type.Object(
  {
    type: Type.Literal('audio_chunk'),
    request_id: RequestId,
    chunk_index: Type.Integer({ minimum: 0, description: 'Zero-based, per request' }),
    data: Type.String({
      contentEncoding: 'base64',
      description:
        '16-bit mono PCM, at most about 100 ms; the first chunk starts with the 44-byte WAV header unless add_wav_header is false',
    }),
  },
  { description: "A piece of a request's audio" },
);

export const WordTimestampsMessage = Type.Object(
  { type: Type.Literal('word_timestamps'), request_id: RequestId, words: Type.Array(WordTimestampSchema) },
  {
    description:
      'With word_timestamps: true, the words of the next segment of the text, sent before its first audio_chunk',
  },
);

export const CompleteMessage = Type.Object(
  {
    type: Type.Literal('complete'),
    request_id: RequestId,
    total_chunks: Type.Integer({ minimum: 0 }),
    characters: Type.Integer({ minimum: 0, description: 'Characters spoken, and charged' }),
    audio_duration_ms: Type.Integer({ minimum: 0 }),
    cancelled: Type.Optional(Type.Literal(true)),
  },
  { description: 'The end of a request' },
);

export const ErrorMessage = Type.Object(
  {
    type: Type.Literal('error'),
    request_id: Type.Optional(RequestId),
    error: Type.Union(
      Object.keys(SPEECH_STATUS).map((code) => Type.Literal(code)),
      { description: 'The code of spec 7.3' },
    ),
    message: Type.String(),
  },
  { description: 'A request refused or failed, or a malformed message (the connection stays open)' },
);

export const PongMessage = Type.Object({ type: Type.Literal('pong') }, { description: 'The answer to `ping`' });

/** Each message by name, with who sends it. */
export const socketMessages: Readonly<Record<string, { schema: TSchema; from: 'client' | 'server' }>> = {
  speech: { schema: SpeechMessage, from: 'client' },
  cancel: { schema: CancelMessage, from: 'client' },
  ping: { schema: PingMessage, from: 'client' },
  connected: { schema: ConnectedMessage, from: 'server' },
  audio_chunk: { schema: AudioChunkMessage, from: 'server' },
  word_timestamps: { schema: WordTimestampsMessage, from: 'server' },
  complete: { schema: CompleteMessage, from: 'server' },
  error: { schema: ErrorMessage, from: 'server' },
  pong: { schema: PongMessage, from: 'server' },
};

export type ServerMessage =
  | Static<typeof ConnectedMessage>
  | Static<typeof AudioChunkMessage>
  | Static<typeof WordTimestampsMessage>
  | Static<typeof CompleteMessage>
  | Static<typeof ErrorMessage>
  | Static<typeof PongMessage>;

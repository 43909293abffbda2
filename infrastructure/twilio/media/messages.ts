/**
 * The Media Streams messages (Twilio's WebSocket protocol of `<Connect><Stream>`): those Twilio sends
 * that the stream reads, as schemas (each checked before it is read; fields Twilio adds later pass),
 * and those the service sends back. Twilio sends `connected`, `start`, then `media` (the caller's
 * audio, which nothing here listens to), `dtmf`, `mark` (one of ours, played) and `stop`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

type ValueModule = typeof import('@sinclair/typebox/value');
let value: ValueModule['Value'] | undefined;
/** TypeBox's checker, loaded with the first message: a process that never takes a media stream skips its 47 files. */
function check<T extends TSchema>(schema: T, message: unknown): message is Static<T> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  value ??= (require('@sinclair/typebox/value') as ValueModule).Value;
  return value.Check(schema, message);
}

export const StartMessage = Type.Object({
  event: Type.Literal('start'),
  streamSid: Type.String({ minLength: 1 }),
  start: Type.Object({
    accountSid: Type.String({ minLength: 1 }),
    callSid: Type.String(),
    /** The `<Parameter>`s of the TwiML's `<Stream>`: ours name the call (`callId`). */
    customParameters: Type.Optional(Type.Record(Type.String(), Type.String())),
    mediaFormat: Type.Optional(
      Type.Object({ encoding: Type.String(), sampleRate: Type.Number(), channels: Type.Number() }),
    ),
  }),
});
export type StartMessage = Static<typeof StartMessage>;

export const MarkMessage = Type.Object({
  event: Type.Literal('mark'),
  mark: Type.Object({ name: Type.String() }),
});

export const StopMessage = Type.Object({ event: Type.Literal('stop') });

/** What the stream acts on; anything else Twilio sends (`connected`, `media`, `dtmf`, unknown events) is `other`. */
export type Received =
  | { event: 'start'; start: StartMessage }
  | { event: 'mark'; name: string }
  | { event: 'stop' }
  | { event: 'other' }
  | { event: 'invalid'; reason: string };

export function parseReceived(text: string): Received {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { event: 'invalid', reason: 'not JSON' };
  }
  const event = (message as { event?: unknown } | null)?.event;
  if (event === 'start')
    return check(StartMessage, message)
      ? { event: 'start', start: message }
      : { event: 'invalid', reason: 'malformed start' };
  if (event === 'mark')
    return check(MarkMessage, message)
      ? { event: 'mark', name: message.mark.name }
      : { event: 'invalid', reason: 'malformed mark' };
  if (event === 'stop') return check(StopMessage, message) ? { event: 'stop' } : { event: 'other' };
  return { event: 'other' };
}

export const mediaMessage = (streamSid: string, mulaw: Buffer) =>
  JSON.stringify({ event: 'media', streamSid, media: { payload: mulaw.toString('base64') } });

export const markMessage = (streamSid: string, name: string) =>
  JSON.stringify({ event: 'mark', streamSid, mark: { name } });

export const clearMessage = (streamSid: string) => JSON.stringify({ event: 'clear', streamSid });

/**
 * The TwiML the service answers Twilio with: connect the call to the media stream that plays the
 * agent's speech into it (the `/carrier/v1/twilio/media` WebSocket, told which call it is by the
 * `callId` stream parameter), first starting its recording when asked to, refuse a call, or say
 * nothing more.
 */
export const TWILIO_MEDIA_PATH = '/carrier/v1/twilio/media';
export const TWIML_CONTENT_TYPE = 'text/xml';

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The media stream's address: PUBLIC_URL's host and path, over wss when PUBLIC_URL is https (ws otherwise). */
export const mediaStreamUrl = (publicUrl: string): string =>
  `${publicUrl.replace(/^http(s?):/, 'ws$1:')}${TWILIO_MEDIA_PATH}`;

/**
 * Records the call from here on and goes on to the next instruction; Twilio posts the recording's
 * status to `statusCallback` once it is complete, as it does for a call created with Record=true.
 */
const startRecording = (statusCallback: string): string =>
  `<Start><Recording recordingStatusCallback="${escapeXml(statusCallback)}"` +
  ' recordingStatusCallbackMethod="POST" recordingStatusCallbackEvent="completed"/></Start>';

/**
 * Connects the call to the media stream. With `recordingStatusCallback` the call is recorded first:
 * an incoming call has no REST request to ask for its recording (`Record=true`), its TwiML does.
 */
export const streamTwiml = (
  publicUrl: string,
  callId: string,
  options: { recordingStatusCallback?: string } = {},
): string =>
  '<?xml version="1.0" encoding="UTF-8"?><Response>' +
  (options.recordingStatusCallback ? startRecording(options.recordingStatusCallback) : '') +
  `<Connect><Stream url="${escapeXml(mediaStreamUrl(publicUrl))}">` +
  `<Parameter name="callId" value="${escapeXml(callId)}"/>` +
  '</Stream></Connect></Response>';

export const rejectTwiml = (): string =>
  '<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="rejected"/></Response>';

/** An acknowledgement that asks nothing of the call (the answer to a status callback). */
export const emptyTwiml = (): string => '<?xml version="1.0" encoding="UTF-8"?><Response/>';

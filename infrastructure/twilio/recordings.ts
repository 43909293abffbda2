/**
 * A Twilio recording kept in the blob store. Its id comes from Twilio's RecordingSid, so a recording
 * callback Twilio sends again names the same recording, which is fetched and stored once.
 */
import { RECORDING_CONTENT_TYPE } from '../../application/calls/render-conversation';
import { recordingBlobKey } from '../../application/calls/recording-key';
import type { BlobStore } from '../../application/ports/blob-store';
import type { TwilioAccount } from '../../application/ports/provider-accounts';
import { TwilioRefusedError, type TwilioRestClient } from './rest-client';

const RECORDING_SID = /^RE[0-9A-Za-z]{1,64}$/;

export const twilioRecordingIdOf = (recordingSid: string): string => `twilio-${recordingSid}`;

/** Fetches the recording (unless it is stored already) and stores it; answers its recording id. */
export async function storeTwilioRecording(
  deps: { client: TwilioRestClient; blobs: BlobStore },
  account: TwilioAccount,
  recording: { recordingSid: string; recordingUrl: string },
): Promise<string> {
  if (!RECORDING_SID.test(recording.recordingSid))
    throw new TwilioRefusedError(400, null, `Not a recording SID: ${recording.recordingSid.slice(0, 80)}`, null);
  const recordingId = twilioRecordingIdOf(recording.recordingSid);
  const key = recordingBlobKey(recordingId);
  if (await deps.blobs.stat(key)) return recordingId;
  const wav = await deps.client.fetchRecording(account, recording.recordingUrl);
  await deps.blobs.put(key, wav, RECORDING_CONTENT_TYPE);
  return recordingId;
}

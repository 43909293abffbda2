/** Where a call's recording is kept in the blob store: the one place the carrier and the API agree on. */
export const recordingBlobKey = (recordingId: string): string => `recording-${recordingId}`;

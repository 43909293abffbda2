import { recordingBlobKey } from '../calls/recording-key';
import type { BlobStore } from '../ports/blob-store';

/** Deletes the recordings' audio; answers how many were there to delete (none, when done before). */
export async function deleteRecordings(blobs: BlobStore, recordingIds: readonly string[]): Promise<number> {
  let deleted = 0;
  for (const id of recordingIds) {
    const key = recordingBlobKey(id);
    if (!(await blobs.stat(key))) continue;
    await blobs.delete(key);
    deleted++;
  }
  return deleted;
}

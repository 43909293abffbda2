/**
 * The media of ended calls as the agent interface reads them (spec 4.6, 4.7): a transcript's entries,
 * and a recording's size, type and bytes. Both belong to the organization that placed the call; ids are
 * global, so another organization's id answers 403 and an unknown one 404.
 */
import type { TranscriptTurn } from '../../domain/calls/call';
import { notFound } from '../../domain/shared/errors';
import type { RecordingDocument } from '../../projections/recordings/recordings';
import type { TranscriptDocument } from '../../projections/transcripts/transcripts';
import { ownedDocument } from '../ownership';
import {
  BlobNotFoundError,
  InvalidBlobKeyError,
  isValidBlobKey,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from '../ports/blob-store';
import type { ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import type { Readable } from 'node:stream';
import { recordingBlobKey } from './recording-key';

export const TRANSCRIPT_NOT_FOUND = 'Transcript data not found';
export const TRANSCRIPT_FORBIDDEN = 'Access denied - Transcript belongs to another organization';
export const RECORDING_NOT_FOUND = 'Recording not found';
export const RECORDING_FORBIDDEN = 'Access denied - Recording belongs to another organization';

export type CallMediaSources = {
  transcripts: ReadCollection<TranscriptDocument>;
  recordings: ReadCollection<RecordingDocument>;
  blobs: BlobStore;
};

/** A recording the caller may hear: what it is, and a way to read all or part of it. */
export type RecordingAudio = BlobInfo & { read: (range?: ByteRange) => Promise<Readable> };

export class CallMediaQueries {
  constructor(private readonly sources: CallMediaSources) {}

  async transcript(ctx: RequestContext, transcriptId: string): Promise<TranscriptTurn[]> {
    const doc = await ownedDocument(this.sources.transcripts, transcriptId, ctx.organizationId, {
      notFound: TRANSCRIPT_NOT_FOUND,
      forbidden: TRANSCRIPT_FORBIDDEN,
    });
    return doc.entries;
  }

  async recording(ctx: RequestContext, recordingId: string): Promise<RecordingAudio> {
    await ownedDocument(this.sources.recordings, recordingId, ctx.organizationId, {
      notFound: RECORDING_NOT_FOUND,
      forbidden: RECORDING_FORBIDDEN,
    });
    const key = recordingBlobKey(recordingId);
    // A recording the read model knows but the store lacks (a memory store after a restart, say) is not there to hear.
    const info = isValidBlobKey(key) ? await this.sources.blobs.stat(key) : null;
    if (!info) throw notFound(RECORDING_NOT_FOUND);
    return {
      ...info,
      read: async (range) => {
        try {
          return await this.sources.blobs.read(key, range);
        } catch (error) {
          if (error instanceof BlobNotFoundError || error instanceof InvalidBlobKeyError)
            throw notFound(RECORDING_NOT_FOUND);
          throw error;
        }
      },
    };
  }
}

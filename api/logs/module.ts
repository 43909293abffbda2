/** The logs of calls and chats (one read model), a call's and a chat's detail, transcripts and recordings. */
import { LogService } from '../../application/logs/log-service';
import { callLogsProjection } from '../../projections/logs/call-logs';
import { chatLogsProjection } from '../../projections/logs/chat-logs';
import { recordingsProjection, type RecordingDocument } from '../../projections/recordings/recordings';
import { transcriptsProjection, type TranscriptDocument } from '../../projections/transcripts/transcripts';
import { mediaRoutes } from '../media/router';
import type { ModuleDefinition } from '../module';
import { logRoutes } from './router';

export const logsModule: ModuleDefinition = {
  name: 'logs and media',
  projections: [callLogsProjection, transcriptsProjection, recordingsProjection],
  // Call and chat entries share the `logs` collection.
  reads: [callLogsProjection, chatLogsProjection, transcriptsProjection, recordingsProjection],
  async build({ reads, provided }) {
    const logs = new LogService(await reads.collection(callLogsProjection.collection));
    const media = {
      transcripts: await reads.collection<TranscriptDocument>(transcriptsProjection.collection),
      recordings: await reads.collection<RecordingDocument>(recordingsProjection.collection),
      blobs: provided.use('recordings'),
    };
    return {
      routes: [{ prefix: '/api/v1', security: 'organization', routes: [...logRoutes(logs), ...mediaRoutes(media)] }],
    };
  },
};

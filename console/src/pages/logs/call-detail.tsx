/** One call: its outcome, its transcript beside the player of its recording, and what the agent extracted. */
import { api } from '../../client/api';
import { BackLink, PendingPage } from '../../components/pending-page';
import { ErrorNote, Loading, Page } from '../../components/ui';
import { useLoad } from '../../components/use-load';
import { keyOf, seconds, statusClass, when, type LogEntry, type TranscriptEntry } from './model';
import { Fact } from './fact';
import { RecordingPlayer } from './recording-player';

const BACK = <BackLink href="/">← All logs</BackLink>;

export function CallDetail(props: { id: string }) {
  const call = useLoad(
    () => api<{ data: LogEntry }>('GET', `/communication/call/${encodeURIComponent(props.id)}`),
    [props.id],
  );
  if (!call.data) return <PendingPage title="Call" back={BACK} loaded={call} what="the call" />;
  const c = call.data.data;
  return (
    <Page title={`Call with ${c.name || c.to}`}>
      {BACK}
      <dl class="log-facts">
        <Fact label="Status">
          <span class={statusClass(c.status)}>{c.status}</span>
        </Fact>
        <Fact label="Disposition">{c.disposition ?? 'None'}</Fact>
        <Fact label="Customer">
          {c.name} {keyOf(c) && <code>{keyOf(c)}</code>}
        </Fact>
        <Fact label="To">{c.to}</Fact>
        <Fact label="From">{c.from ?? ''}</Fact>
        <Fact label="Campaign">{c.campaign_name}</Fact>
        <Fact label="Started">{when(c.start_time)}</Fact>
        <Fact label="Ended">{when(c.end_time)}</Fact>
        <Fact label="Talked">{seconds(c.duration)}</Fact>
      </dl>
      {c.summary && (
        <p class="summary">
          <strong>Summary:</strong> {c.summary}
        </p>
      )}
      <div class="call-media">
        <section aria-labelledby="transcript-title">
          <h2 id="transcript-title">Transcript</h2>
          {c.transcript_id ? <Transcript id={c.transcript_id} /> : <p class="empty">This call has no transcript.</p>}
        </section>
        <section aria-labelledby="recording-title">
          <h2 id="recording-title">Recording</h2>
          {c.recording_id ? (
            <RecordingPlayer recordingId={c.recording_id} label={`Recording of the call with ${c.name || c.to}`} />
          ) : (
            <p class="empty">
              This call has no recording (calls are recorded when the service runs its speech engine).
            </p>
          )}
          {c.extracted_data && Object.keys(c.extracted_data).length > 0 && (
            <>
              <h2>Extracted data</h2>
              <dl class="extracted">
                {Object.entries(c.extracted_data).map(([name, value]) => (
                  <Fact key={name} label={name.replace(/_/g, ' ')}>
                    {value === null ? '—' : String(value)}
                  </Fact>
                ))}
              </dl>
            </>
          )}
        </section>
      </div>
    </Page>
  );
}

function Transcript(props: { id: string }) {
  const transcript = useLoad(
    () => api<{ data: TranscriptEntry[] }>('GET', `/transcript/${encodeURIComponent(props.id)}`),
    [props.id],
  );
  if (transcript.error) return <ErrorNote error={transcript.error} />;
  if (!transcript.data) return <Loading what="the transcript" />;
  if (transcript.data.data.length === 0) return <p class="empty">Nobody spoke on this call.</p>;
  return (
    <ol class="transcript">
      {transcript.data.data.map((turn, i) => (
        <li key={i} class={turn.speaker === 'BOT' ? 'turn turn-agent' : 'turn turn-customer'}>
          <span class="speaker">{turn.speaker === 'BOT' ? 'Agent' : 'Customer'}</span>
          <span class="said">{turn.message}</span>
        </li>
      ))}
    </ol>
  );
}

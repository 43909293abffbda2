/**
 * A call's recording in an audio player. The recording is fetched with the token in the Authorization
 * header (never in a URL) and played from an object URL of the whole file, so the player can seek in
 * it; the URL is revoked when the player goes.
 */
import { useEffect, useState } from 'preact/hooks';
import { apiBlob } from '../../client/api';
import { ErrorNote, Loading } from '../../components/ui';

export function RecordingPlayer(props: { recordingId: string; label: string }) {
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    let current = true;
    let made: string | undefined;
    setUrl(undefined);
    setError(undefined);
    apiBlob(`/recording/${encodeURIComponent(props.recordingId)}`).then(
      (blob) => {
        if (!current) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      (e: unknown) => current && setError(e instanceof Error ? e : new Error(String(e))),
    );
    return () => {
      current = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [props.recordingId]);
  if (error) return <ErrorNote error={error} />;
  if (!url) return <Loading what="the recording" />;
  return (
    <div class="player">
      <audio controls preload="metadata" src={url} aria-label={props.label} />
      <a href={url} download={`recording-${props.recordingId}.wav`}>
        Download the recording
      </a>
    </div>
  );
}

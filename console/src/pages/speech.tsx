/**
 * Speech playground: a text spoken by one of the voices over the speech WebSocket, played as it streams
 * (each PCM chunk scheduled after the one before with the Web Audio API), with the time to the first
 * audio, the words highlighted as they are heard when the service sends their times, and the audio
 * received kept to save as a WAV file.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../client/api';
import { pcmPlayer, type PcmPlayer } from '../components/pcm-player';
import { bytesOfBase64, floatsOf, levelDbfs, pcmReader, wavBlob } from '../components/pcm';
import {
  openSpeechSocket,
  type ServerMessage,
  type SpeechRequest,
  type SpeechSocket,
  type WordTime,
} from '../components/speech-socket';
import { ErrorNote, Field, Form, Loading, Page } from '../components/ui';
import { useAction, useLoad } from '../components/use-load';
import './speech.css';

type Voice = { id: string; name: string; description: string; languages: string[]; gender: string };

/** The twelve languages every voice speaks (docs/speech-engine.md, "Languages"). */
const LANGUAGES: readonly [string, string][] = [
  ['en', 'English'],
  ['hi', 'Hindi'],
  ['mr', 'Marathi'],
  ['ta', 'Tamil'],
  ['te', 'Telugu'],
  ['gu', 'Gujarati'],
  ['kn', 'Kannada'],
  ['ml', 'Malayalam'],
  ['bn', 'Bengali'],
  ['pa', 'Punjabi'],
  ['od', 'Odia'],
  ['as', 'Assamese'],
];
const SAMPLE_RATES = [8000, 16000, 24000] as const;
const EXAMPLE =
  'Namaste Mr. Sharma, your EMI of 4,500 rupees is due on the fifth of March. Please pay on time, thank you!';

type Run = {
  requestId: string;
  sampleRate: number;
  state: 'streaming' | 'complete' | 'cancelled' | 'failed';
  firstAudioMs?: number;
  samples: number;
  words: WordTime[];
  audioMs?: number;
  /** The loudness of the audio received (RMS, dB below full scale), once complete. */
  levelDb?: number;
  message?: string;
  text: string;
};

/** Which words are heard at `ms`: those already said, and the one being said (-1: none). */
function wordsAt(words: readonly WordTime[], ms: number): { said: number; current: number } {
  let said = 0;
  let current = -1;
  words.forEach((w, i) => {
    if (w.end_ms <= ms) said = i + 1;
    else if (w.start_ms <= ms) current = i;
  });
  return { said, current };
}

export default function SpeechPage() {
  const voices = useLoad(() => api<Voice[]>('GET', '/get_voices'), []);
  const [text, setText] = useState(EXAMPLE);
  const [voice, setVoice] = useState('');
  const [language, setLanguage] = useState('en');
  const [speed, setSpeed] = useState(1);
  const [sampleRate, setSampleRate] = useState<number>(24000);
  const [timestamps, setTimestamps] = useState(true);
  const [run, setRun] = useState<Run | undefined>(undefined);
  const [heard, setHeard] = useState({ said: 0, current: -1 });
  const [wavUrl, setWavUrl] = useState<string | undefined>(undefined);
  const [closed, setClosed] = useState<string | undefined>(undefined);

  // What the socket's messages change, outside of rendering: the request streaming, its audio, its player.
  const socket = useRef<SpeechSocket | undefined>(undefined);
  const context = useRef<AudioContext | undefined>(undefined);
  const player = useRef<PcmPlayer | undefined>(undefined);
  const current = useRef<{ requestId: string; sentAt: number; sampleRate: number } | undefined>(undefined);
  const chunks = useRef<Int16Array[]>([]);
  const read = useRef(pcmReader());

  const chosenVoice = voice || voices.data?.[0]?.id || '';

  const onMessage = (message: ServerMessage) => {
    const request = current.current;
    if (!request || !('request_id' in message) || message.request_id !== request.requestId) return;
    switch (message.type) {
      case 'audio_chunk': {
        const samples = read.current(bytesOfBase64(message.data));
        chunks.current.push(samples);
        player.current?.play(floatsOf(samples), request.sampleRate);
        const elapsed = Math.round(performance.now() - request.sentAt);
        setRun((r) => r && { ...r, samples: r.samples + samples.length, firstAudioMs: r.firstAudioMs ?? elapsed });
        return;
      }
      case 'word_timestamps':
        return setRun((r) => r && { ...r, words: [...r.words, ...message.words] });
      case 'complete': {
        setWavUrl(URL.createObjectURL(wavBlob(chunks.current, request.sampleRate)));
        const state = message.cancelled ? 'cancelled' : 'complete';
        const levelDb = levelDbfs(chunks.current);
        return setRun((r) => r && { ...r, state, audioMs: message.audio_duration_ms, levelDb });
      }
      case 'error':
        return setRun((r) => r && { ...r, state: 'failed', message: message.message });
    }
  };

  const stop = () => {
    player.current?.stop();
    const request = current.current;
    if (request && run?.state === 'streaming') socket.current?.cancel(request.requestId);
  };

  const speak = useAction(async () => {
    stop();
    context.current ??= new AudioContext();
    await context.current.resume();
    socket.current ??= await openSpeechSocket(
      (m) => onMessage(m),
      (reason) => {
        socket.current = undefined;
        setClosed(reason);
        setRun((r) => (r?.state === 'streaming' ? { ...r, state: 'failed', message: reason } : r));
      },
    );
    setClosed(undefined);
    const request: SpeechRequest = {
      request_id: crypto.randomUUID(),
      text,
      voice_id: chosenVoice,
      language,
      sample_rate: sampleRate,
      speed,
      add_wav_header: false,
      word_timestamps: timestamps,
    };
    player.current = pcmPlayer(context.current);
    chunks.current = [];
    read.current = pcmReader();
    if (wavUrl) URL.revokeObjectURL(wavUrl);
    setWavUrl(undefined);
    setHeard({ said: 0, current: -1 });
    setRun({ requestId: request.request_id, sampleRate, state: 'streaming', samples: 0, words: [], text });
    current.current = { requestId: request.request_id, sentAt: performance.now(), sampleRate };
    socket.current.speak(request);
  });

  // While audio plays, which word is heard, from the player's clock.
  const words = run?.words;
  useEffect(() => {
    if (!words?.length) return;
    let frame = 0;
    const follow = () => {
      const at = wordsAt(words, player.current?.position() ?? -1);
      setHeard((h) => (h.said === at.said && h.current === at.current ? h : at));
      if (at.said < words.length) frame = requestAnimationFrame(follow);
    };
    frame = requestAnimationFrame(follow);
    return () => cancelAnimationFrame(frame);
  }, [words]);

  useEffect(
    () => () => {
      socket.current?.close();
      void context.current?.close();
    },
    [],
  );
  useEffect(() => () => wavUrl && URL.revokeObjectURL(wavUrl), [wavUrl]);

  if (voices.error) return <ErrorNote error={voices.error} />;
  if (!voices.data) return <Loading what="the voices" />;
  return (
    <Page title="Speech">
      <Form label="Speak a text" onSubmit={() => void speak.run()} class="form speech-form">
        <Field label="Text" hint={`${text.length} characters (each costs a credit)`}>
          <textarea name="text" rows={4} required value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </Field>
        <Field label="Voice">
          <select name="voice_id" value={chosenVoice} onChange={(e) => setVoice(e.currentTarget.value)}>
            {voices.data.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name} ({v.gender})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Language">
          <select name="language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            {LANGUAGES.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={`Speed: ${speed.toFixed(1)}×`}>
          <input
            type="range"
            name="speed"
            min={0.5}
            max={2}
            step={0.1}
            value={speed}
            onInput={(e) => setSpeed(Number(e.currentTarget.value))}
          />
        </Field>
        <Field label="Sample rate">
          <select name="sample_rate" value={sampleRate} onChange={(e) => setSampleRate(Number(e.currentTarget.value))}>
            {SAMPLE_RATES.map((rate) => (
              <option key={rate} value={rate}>
                {rate.toLocaleString()} Hz
              </option>
            ))}
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.currentTarget.checked)} />{' '}
          Highlight the words (word timestamps)
        </label>
        <div class="speech-buttons">
          <button type="submit" disabled={speak.busy}>
            Speak
          </button>
          <button type="button" class="secondary" disabled={run?.state !== 'streaming'} onClick={stop}>
            Stop
          </button>
        </div>
      </Form>
      <ErrorNote error={speak.error} />
      {closed && <p class="notice">{closed}</p>}
      {run && <Result run={run} heard={heard} wavUrl={wavUrl} />}
    </Page>
  );
}

const STATES: Record<Run['state'], string> = {
  streaming: 'Streaming…',
  complete: 'Complete',
  cancelled: 'Stopped',
  failed: 'Failed',
};

function Result(props: { run: Run; heard: { said: number; current: number }; wavUrl?: string }) {
  const { run, heard } = props;
  const seconds = run.samples / run.sampleRate;
  return (
    <section class="card speech-result" aria-labelledby="result-title">
      <h2 id="result-title">Result</h2>
      {run.state === 'failed' && <ErrorNote error={new Error(run.message ?? 'The request failed')} />}
      <dl class="speech-facts">
        <div>
          <dt>Status</dt>
          <dd role="status">{STATES[run.state]}</dd>
        </div>
        <div>
          <dt>Time to first audio</dt>
          <dd class="first-audio">
            {run.firstAudioMs === undefined ? '—' : <data value={run.firstAudioMs}>{run.firstAudioMs} ms</data>}
          </dd>
        </div>
        <div>
          <dt>Audio received</dt>
          <dd class="samples">
            <data value={run.samples}>{run.samples.toLocaleString()} samples</data> ({seconds.toFixed(2)} s at{' '}
            {run.sampleRate.toLocaleString()} Hz)
          </dd>
        </div>
        {run.levelDb !== undefined && (
          <div>
            <dt>Level</dt>
            <dd>{Number.isFinite(run.levelDb) ? `${run.levelDb.toFixed(1)} dBFS` : 'silence'}</dd>
          </div>
        )}
      </dl>
      {run.words.length > 0 ? (
        <p class="spoken-words" aria-label="The words as they are heard">
          {run.words.map((w, i) => {
            const word = i === heard.current ? <mark>{w.word}</mark> : w.word;
            return (
              <span key={i} class={i < heard.said ? 'word said' : 'word'}>
                {word}{' '}
              </span>
            );
          })}
        </p>
      ) : (
        <p class="spoken-text">{run.text}</p>
      )}
      {props.wavUrl && (
        <p>
          <a href={props.wavUrl} download="speech.wav">
            Save the audio (WAV)
          </a>
        </p>
      )}
    </section>
  );
}

/** The speech adapter's WAV framing is the application's (application/audio/wav.ts). */
export { WAV_HEADER_BYTES, STREAMING_DATA_BYTES, wavHeader, pcmBytes } from '../../../application/audio/wav';

/**
 * Progress of a long admin command on stderr: on a terminal one line redrawn in place (ten times a
 * second at most), otherwise a line every few seconds, so logs stay readable. Shows events done of
 * the total, events per second and the time left; the total is estimated from positions (on
 * EventStoreDB they are byte offsets, not counts), so it firms up as the work goes.
 */
export type Progress = {
  label: string;
  events: number;
  /** Position of the last event done, and of the last event to do. */
  position: number;
  head: number;
};

const WIDTH = 24;

export function progressBar(stream: NodeJS.WriteStream = process.stderr, everyMs = stream.isTTY ? 100 : 5000) {
  const started = Date.now();
  let shown = 0;
  let drawn = false;
  const line = (p: Progress) => {
    const seconds = (Date.now() - started) / 1000;
    const fraction = p.head < 0 ? 1 : Math.min(1, Math.max(0, (p.position + 1) / (p.head + 1)));
    const total = fraction > 0 ? Math.max(p.events, Math.round(p.events / fraction)) : p.events;
    const rate = seconds > 0 ? p.events / seconds : 0;
    const left = rate > 0 ? (total - p.events) / rate : NaN;
    const filled = Math.round(fraction * WIDTH);
    return (
      `${p.label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ` +
      `${p.events.toLocaleString('en')}/${total.toLocaleString('en')} events  ` +
      `${Math.round(rate).toLocaleString('en')} events/s  ${Number.isFinite(left) ? `${duration(left)} left` : ''}`
    );
  };
  return {
    update(progress: Progress, force = false): void {
      const now = Date.now();
      if (!force && now - shown < everyMs) return;
      shown = now;
      if (stream.isTTY) {
        stream.write(`\r${line(progress)}\x1b[K`);
        drawn = true;
      } else stream.write(`${line(progress)}\n`);
    },
    /** Ends the redrawn line, so what is written next starts on a line of its own. */
    done(): void {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * A WebSocket client at the level of frames, for the speech suites: it sends what a well-behaved client
 * library never would (bad bits, bad opcodes, bytes that are not UTF-8) and reads the server's frames,
 * which are never masked nor compressed (this client offers no extension).
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

export type Frame = { opcode: number; payload: Buffer };

export const OPCODE = { text: 0x1, close: 0x8 } as const;

/** One masked client frame, FIN set; `rsv1` and any opcode as given, valid or not. */
export function clientFrame(
  opcode: number,
  payload: Buffer | string,
  options: { rsv1?: boolean; masked?: boolean } = {},
): Buffer {
  const data = Buffer.from(payload);
  const masked = options.masked ?? true;
  const maskBit = masked ? 0x80 : 0;
  const length =
    data.length < 126
      ? Buffer.from([maskBit | data.length])
      : Buffer.from([maskBit | 126, data.length >> 8, data.length & 0xff]);
  const mask = masked ? randomBytes(4) : Buffer.alloc(0);
  const body = masked ? data.map((byte, i) => byte ^ mask[i % 4]!) : data;
  return Buffer.concat([Buffer.from([0x80 | (options.rsv1 ? 0x40 : 0) | opcode]), length, mask, body]);
}

/** A close frame whose body is `code` (a two-byte status), valid or not. */
export const closeFrame = (code: number) => clientFrame(OPCODE.close, Buffer.from([code >> 8, code & 0xff]));

export class RawSocket {
  private received = Buffer.alloc(0);
  /** Resolves when the server has closed the TCP connection. */
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (data: Buffer) => (this.received = Buffer.concat([this.received, data])));
    socket.on('error', () => undefined); // the server may reset the connection; `closed` says it ended
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** Completes the handshake of the speech socket with `token`. */
  static open(url: string, token: string): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const headers = {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        authorization: `Bearer ${token}`,
      };
      const handshake = request(`${url}/api/v1/get_speech`, { headers });
      handshake.once('upgrade', (_res, socket, head) => {
        const raw = new RawSocket(socket);
        if (head.length > 0) socket.emit('data', head);
        resolve(raw);
      });
      handshake.once('response', (res) => reject(new Error(`handshake answered ${res.statusCode}`)));
      handshake.once('error', reject);
      handshake.end();
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The complete frames received so far. */
  frames(): Frame[] {
    const frames: Frame[] = [];
    for (let at = 0; at + 2 <= this.received.length;) {
      let length = this.received[at + 1]! & 0x7f;
      let start = at + 2;
      if (length === 126) [length, start] = [this.received.readUInt16BE(at + 2), at + 4];
      else if (length === 127) [length, start] = [Number(this.received.readBigUInt64BE(at + 2)), at + 10];
      if (start + length > this.received.length) break;
      frames.push({ opcode: this.received[at]! & 0x0f, payload: this.received.subarray(start, start + length) });
      at = start + length;
    }
    return frames;
  }

  /** The text of the JSON messages received so far. */
  messages(): { type: string; [key: string]: unknown }[] {
    return this.frames()
      .filter((f) => f.opcode === OPCODE.text)
      .map((f) => JSON.parse(f.payload.toString('utf8')));
  }

  /** The status code and reason of the server's close frame, once one came. */
  closing(): { code: number; reason: string } | undefined {
    const close = this.frames().find((f) => f.opcode === OPCODE.close);
    return close && { code: close.payload.readUInt16BE(0), reason: close.payload.subarray(2).toString('utf8') };
  }

  /** Waits until `ready` holds of what was received. */
  async until(ready: () => boolean, timeoutMs = 20_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; !ready(); await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > deadline)
        throw new Error(`nothing matching in ${timeoutMs} ms; received ${this.frames().length} frames`);
    }
  }
}

/**
 * A minimal HTTP/1.1 client over one raw keep-alive socket that understands ONLY Content-Length
 * framing, like the Rust and C++ SDK clients: a chunked or unframed response fails loudly.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawHttp {
  private readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private ended = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.wake?.();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  static open(port: number): Promise<RawHttp> {
    return new Promise((ok, fail) => {
      const s = connect(port, '127.0.0.1', () => ok(new RawHttp(s)));
      s.once('error', fail);
    });
  }

  async post(path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    const bytes = Buffer.from(body, 'utf8');
    const head = Object.entries({ Host: `127.0.0.1:${this.socket.remotePort}`, 'Content-Type': 'application/json', ...headers, 'Content-Length': String(bytes.length) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    this.socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${head}\r\n`), bytes]));
    const end = await this.until(() => this.buffer.indexOf('\r\n\r\n'));
    const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headersIn: Record<string, string> = {};
    for (const l of lines.slice(1)) headersIn[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    if (headersIn['transfer-encoding']) throw new Error(`Transfer-Encoding: ${headersIn['transfer-encoding']} (only Content-Length is understood)`);
    const length = status === 204 || status === 304 ? 0 : Number(headersIn['content-length']);
    if (!Number.isInteger(length)) throw new Error(`HTTP ${status} without Content-Length`);
    await this.until(() => (this.buffer.length >= end + 4 + length ? 0 : -1));
    const payload = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status, headers: headersIn, body: payload };
  }

  close(): void {
    this.socket.destroy();
  }

  private async until(probe: () => number): Promise<number> {
    for (;;) {
      const at = probe();
      if (at >= 0) return at;
      if (this.ended) throw new Error('connection closed mid-response');
      await new Promise<void>((ok) => (this.wake = ok));
    }
  }
}

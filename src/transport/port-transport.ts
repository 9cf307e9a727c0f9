import type { Transport } from './transport.ts';

/** The part of MessagePort this transport uses (a Worker or window endpoint also fits). */
export interface PortLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message' | 'close', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message' | 'close', listener: (event: MessageEvent) => void): void;
  start?(): void;
  close?(): void;
}

/**
 * Frames over a MessagePort as strings (never structured-clone objects), so a recorded session
 * replays byte-identically over stdio or HTTP. One port = one RCP session.
 */
export class PortTransport implements Transport {
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  private readonly port: PortLike;

  constructor(port: PortLike) {
    this.port = port;
  }

  private readonly listener = (event: MessageEvent): void => {
    if (typeof event.data === 'string') this.onmessage?.(event.data);
    else this.onerror?.(new TypeError('PortTransport: dropped a non-string frame'));
  };

  /** The other end went away (Chromium fires `close` on an entangled port): end the session. */
  private readonly closedListener = (): void => this.close();

  start(): void {
    this.port.addEventListener('message', this.listener);
    this.port.addEventListener('close', this.closedListener);
    this.port.start?.();
  }

  send(frame: string): void {
    if (!this.closed) this.port.postMessage(frame);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.removeEventListener('message', this.listener);
    this.port.removeEventListener('close', this.closedListener);
    this.port.close?.();
    this.onclose?.();
  }
}

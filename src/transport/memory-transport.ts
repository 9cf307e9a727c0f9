import type { Transport } from './transport.ts';

class MemoryEnd implements Transport {
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  peer?: MemoryEnd;
  closed = false;

  start(): void {}

  send(frame: string): void {
    const peer = this.peer;
    if (this.closed || !peer) return;
    queueMicrotask(() => {
      if (!peer.closed) peer.onmessage?.(frame);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    this.peer?.close();
  }
}

/** A linked in-memory pair for tests: what one side sends, the other receives (asynchronously). */
export function createLinkedPair(): [Transport, Transport] {
  const a = new MemoryEnd();
  const b = new MemoryEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

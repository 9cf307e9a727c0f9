/**
 * The page the stdio/HTTP bridges drive (bridge.html): it boots the worker and relays raw RCP
 * frames between session ports and the bridge process (via Playwright's exposed `__rcpFrame`).
 * It never parses or rewrites a frame.
 */
import { bootWorker } from '../src/client/boot.ts';
import type { RcpBridge } from '../src/protocol/control.ts';

declare global {
  interface Window {
    __rcpFrame?(sid: number, frame: string): void;
    rcpBridge: RcpBridge;
  }
}

const worker = bootWorker();
const ports = new Map<number, MessagePort>();
let nextSid = 1;

window.rcpBridge = {
  async open() {
    const sid = nextSid++;
    const port = await worker.openPort();
    port.onmessage = (e: MessageEvent) => window.__rcpFrame?.(sid, e.data as string);
    ports.set(sid, port);
    return sid;
  },
  send(sid, frame) {
    ports.get(sid)?.postMessage(frame);
  },
  close(sid) {
    ports.get(sid)?.close();
    ports.delete(sid);
  },
};

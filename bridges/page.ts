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
// Tests on a slow device (software WebGPU) may lengthen one method's deadline: bridge.html?deadline.embed=300000.
const deadlines = Object.fromEntries(
  [...new URLSearchParams(location.search)].flatMap(([k, v]) => (k.startsWith('deadline.') && Number(v) > 0 ? [[k.slice('deadline.'.length), Number(v)]] : [])),
);
// The bridges' --federate flags (bridges/federate-args.ts): the worker becomes an aggregator.
const search = new URLSearchParams(location.search);
const urls = search.getAll('federate');
const identity = search.get('identity') ?? undefined;
const federation = urls.length
  ? { engines: urls.map((url) => ({ id: new URL(url).host, url })), federateByDefault: search.get('federateDefault') === '1', ...(identity ? { identity } : {}) }
  : undefined;
// bridge.html?bundle=/docs/search/ serves a static index bundle (src/bundle) instead of the IndexedDB index.
const bundle = search.get('bundle');
// The bridges' --model NAME|auto (bridges/model-arg.ts): the profile remembers it, so a later run without the flag keeps it.
const model = search.get('model');
const config = {
  ...(Object.keys(deadlines).length ? { deadlines } : {}),
  ...(model ? { model, rememberModel: true } : {}),
  ...(federation ? { federation } : {}),
  ...(bundle ? { bundle: new URL(bundle, location.href).href } : {}),
};
const configured = Object.keys(config).length ? worker.control.configure(config) : Promise.resolve();
const ports = new Map<number, MessagePort>();
let nextSid = 1;

window.rcpBridge = {
  async indexLoss() {
    await configured; // never start the engine before its settings arrived
    return worker.control.indexLoss();
  },
  async indexWarning() {
    await configured;
    return worker.control.indexWarning();
  },
  async open() {
    const sid = nextSid++;
    await configured;
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

/**
 * The page the stdio/HTTP bridges drive (bridge.html): it boots the worker and relays raw RCP
 * frames between session ports and the bridge process (via Playwright's exposed `__rcpFrame`).
 * It never parses or rewrites a frame.
 */
import { bootWorker } from '../src/client/boot.ts';
import type { FederatedEngineConfig, RcpBridge } from '../src/protocol/control.ts';
import type { FederatedFusion } from '../src/client/federation/fuse-hits.ts';

/** The `engines` parameter: `[{ id, url, endpoint }]` as federateQuery wrote it; anything else is none. */
function relayedEngines(raw: string | null): FederatedEngineConfig[] {
  if (!raw) return [];
  try {
    const list: unknown = JSON.parse(raw);
    return Array.isArray(list) ? (list as FederatedEngineConfig[]).filter((e) => typeof e?.id === 'string' && typeof e?.url === 'string') : [];
  } catch {
    return [];
  }
}

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
// The bridges' --federate flags (bridges/federate-args.ts): the worker becomes an aggregator that
// reaches each engine at its relay address under this origin (bridges/engine-relay.ts).
const search = new URLSearchParams(location.search);
const identity = search.get('identity') ?? undefined;
const fusion = search.get('fusion') ?? undefined;
const engines = relayedEngines(search.get('engines'));
const federation = engines.length
  ? { engines, federateByDefault: search.get('federateDefault') === '1', ...(identity ? { identity } : {}), ...(fusion ? { fusion: fusion as FederatedFusion } : {}) }
  : undefined;
// bridge.html?bundle=/docs/search/ serves a static index bundle (src/bundle) instead of the IndexedDB index.
const bundle = search.get('bundle');
// The bridges' --model NAME|auto (bridges/model-arg.ts): the profile remembers it, so a later run without the flag keeps it.
const model = search.get('model');
const config = {
  // The bridges' --no-models: sparse retrieval only, no model loaded and nothing embedded.
  ...(search.get('models') === '0' ? { models: false } : {}),
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

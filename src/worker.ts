/**
 * The engine worker: hosts one RCP/1 server, one session per MessagePort. Composition root only —
 * storage, engine and protocol handlers are built here and wired together; comlink carries the
 * control plane (connect / status), never RCP frames.
 */
import * as Comlink from 'comlink';
import { Engine } from './engine/engine.ts';
import { serve } from './server/serve.ts';
import { createEngineBackend } from './server/engine-backend.ts';
import { mapStorageError, openIndexedDbStore } from './storage/index.ts';
import { lazyStore } from './storage/lazy-store.ts';
import type { ControlApi, WorkerStatus } from './transport/control.ts';
import { PortTransport } from './transport/port-transport.ts';
import { LOG_LEVELS } from './server/log-levels.ts';
import { SERVER_INFO } from './server/server-info.ts';

const engine = new Engine({ store: lazyStore(openIndexedDbStore('rcp-engine')) });
const opened = engine.open().then(() => engine);
let openError: string | undefined;
opened.catch((e: unknown) => {
  openError = e instanceof Error ? e.message : String(e);
});

const backend = createEngineBackend({
  serverInfo: SERVER_INFO,
  engine: opened,
  // Progress and logs are served by the session layer for every method (§9, §17.1).
  capabilities: { ...engine.capabilities(), streaming: {}, log: { levels: [...LOG_LEVELS] } },
  mapError: (e) => (e instanceof Error && e.name !== 'Error' ? mapStorageError(e) : undefined),
});

let sessions = 0;

const control: ControlApi = {
  async connect() {
    const { port1, port2 } = new MessageChannel();
    sessions++;
    const transport = new PortTransport(port1);
    serve(transport, backend);
    return Comlink.transfer(port2, [port2]);
  },
  async status(): Promise<WorkerStatus> {
    const ready = openError === undefined && (await Promise.race([opened.then(() => true), Promise.resolve(false)]).catch(() => false));
    const stats = ready ? engine.stats() : { documents: 0, chunks: 0, indexVersion: undefined };
    return { ready, error: openError, sessions, ...stats };
  },
};

Comlink.expose(control);

/**
 * The engine worker's script: it only loads the engine (worker.ts) as a chunk of its own. Chunks
 * that the engine loads later import the modules they share with it from that chunk, never from
 * this file: WebKit evaluates a worker's script a second time when a chunk imports it (seen in
 * WebKitGTK 2.50: a second `Comlink.expose`, a second engine started with the defaults, and the
 * chunks seeing other copies of every shared module's state and classes). The build fails if a
 * chunk imports this file again (tools/vite/worker-chunks.ts). Messages that arrive while the
 * engine loads are held and replayed to it in order.
 */
const early: MessageEvent[] = [];
const hold = (e: MessageEvent) => void early.push(e);
addEventListener('message', hold);
await import('./worker.ts');
// The engine's listener is attached now; no message event can run between its load and this line.
removeEventListener('message', hold);
for (const e of early) dispatchEvent(new MessageEvent('message', { data: e.data, ports: [...e.ports] }));

export {};

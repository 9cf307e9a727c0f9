/**
 * A real engine (memory store, toy embedder and reranker) behind the real server, with the
 * worker's capability parts, on one end of a linked in-memory pair: what the conformance tests
 * and the in-process checks drive as "our engine" without a browser.
 */
import { Engine } from '../../src/engine/engine.ts';
import { advertisedCapabilities, modelCapabilities, SESSION_CAPABILITIES } from '../../src/server/capabilities.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createGraphFeedbackHandlers } from '../../src/server/graph-feedback-handlers.ts';
import { createModelHandlers, type ModelEncoder } from '../../src/server/model-handlers.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import type { Transport } from '../../src/transport/transport.ts';
import { CountReranker, HashEmbedder } from './engine.ts';

/** Opens the engine and returns the client end of a fresh session (each call: a new session on the same engine). */
export async function engineServer(): Promise<{ connect(): Transport; engine: Engine }> {
  const embedder = new HashEmbedder();
  const reranker = new CountReranker();
  const engine = new Engine({ store: new MemoryStore(), embedder, reranker });
  await engine.open();
  const encoder: ModelEncoder = { dimension: embedder.dimension, embed: (texts) => embedder.embed(texts), tokenVectors: async () => [] };
  const capabilities = advertisedCapabilities({
    engine: engine.capabilities(),
    models: modelCapabilities({ embedder, rerankers: [reranker] }),
    session: SESSION_CAPABILITIES,
  });
  const backend = createEngineBackend({
    serverInfo: { name: 'engine-test', version: '0' },
    engine: Promise.resolve(engine),
    capabilities,
    rerankers: [reranker],
    extraHandlers: { ...createModelHandlers(async () => encoder, [reranker]), ...createGraphFeedbackHandlers({ engine: Promise.resolve(engine) }) },
  });
  return {
    engine,
    connect() {
      const [client, server] = createLinkedPair();
      serve(server, backend);
      return client;
    },
  };
}

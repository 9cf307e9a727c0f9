/** The library's `models` option (issue 45): what it asks the worker for, and an unknown name's refusal reaching the caller. */
import * as Comlink from 'comlink';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createInPageEngine } from '../../src/client/in-page-engine.ts';
import { unknownModelMessage } from '../../src/models/built-models.ts';
import type { EngineConfig } from '../../src/protocol/control.ts';

/** A stand-in worker whose control plane records `configure` and refuses what the real worker refuses. */
function fakeWorker() {
  const configured: EngineConfig[] = [];
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(
    {
      async configure(config: EngineConfig) {
        configured.push(config);
        if (config.model !== undefined && !['auto', 'multilingual-e5-small'].includes(config.model)) throw new Error(unknownModelMessage(config.model, ['minilm-l6-v2', 'multilingual-e5-small']));
      },
      async connect() {
        throw new Error('no engine in this test');
      },
    },
    port2 as unknown as Comlink.Endpoint,
  );
  let terminated = false;
  const worker = Object.assign(port1, { terminate: () => ((terminated = true), port1.close()) }) as unknown as Worker;
  return { worker, configured, terminated: () => terminated };
}

describe('createInPageEngine models option', () => {
  it('a model name and auto are passed as the model to run; false runs sparse only', async () => {
    for (const [models, expected] of [
      ['multilingual-e5-small', { model: 'multilingual-e5-small' }],
      ['auto', { model: 'auto' }],
      [false, { models: false }],
      [true, {}],
    ] as const) {
      const w = fakeWorker();
      await expect(createInPageEngine({ worker: w.worker, models })).rejects.toThrow('no engine in this test');
      expect(w.configured).toEqual([expected]);
    }
  });

  it('an unknown name rejects with the built models listed, and the worker is stopped', async () => {
    const w = fakeWorker();
    await expect(createInPageEngine({ worker: w.worker, models: 'multilingual-e6' })).rejects.toThrow(
      "model 'multilingual-e6' is not built here; built models: minilm-l6-v2, multilingual-e5-small",
    );
    expect(w.terminated()).toBe(true);
  });
});

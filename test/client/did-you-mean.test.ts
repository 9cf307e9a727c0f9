import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/client/did-you-mean.ts';
import { RcpClient } from '../../src/client/rcp-client.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { Backend } from '../../src/server/backend.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { fakeBackend } from '../support/rcp-harness.ts';

async function client(backend: Backend): Promise<RcpClient> {
  const [c, s] = createLinkedPair();
  serve(s, backend);
  const rcp = new RcpClient(c);
  await rcp.connect();
  return rcp;
}

describe('didYouMean (query/transform rewrite through RcpClient)', () => {
  it('suggests the corrected query and its corrections, nothing for a query the index knows', async () => {
    const engine = new Engine({ store: new MemoryStore() });
    await engine.open();
    await engine.add([{ id: 'a', text: 'The white whale and the sea.' }]);
    const rcp = await client(createEngineBackend({ serverInfo: { name: 't', version: '0' }, engine: Promise.resolve(engine), capabilities: engine.capabilities() }));
    expect(await didYouMean(rcp, 'wite whael')).toEqual({ query: 'white whale', corrections: [{ from: 'wite', to: 'white' }, { from: 'whael', to: 'whale' }] });
    expect(await didYouMean(rcp, 'white whale')).toBeUndefined();
  });

  it('is undefined, without a request, when the server does not advertise transform', async () => {
    const rcp = await client(fakeBackend());
    expect(await didYouMean(rcp, 'wite whael')).toBeUndefined();
  });
});

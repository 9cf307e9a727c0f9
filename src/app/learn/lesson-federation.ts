/**
 * The tour's federation step (§16), offline: this page's engine and a second engine behind RCP in
 * the page (MiniSearch over the lesson documents), searched as one by the library's `Federation`.
 */
import { Federation } from '../../client/federation/federation.ts';
import type { RcpClient } from '../../client/rcp-client.ts';
import { peerClient } from '../../eval/engines.ts';
import { LESSON_DOCS } from './lessons.ts';

export function lessonFederation(local: RcpClient): (query: string, k: number) => Promise<unknown> {
  let federation: Promise<Federation> | undefined;
  const open = async () => {
    const peer = await peerClient('minisearch');
    await peer.request('index/add', { documents: LESSON_DOCS });
    return new Federation([{ id: 'this page', client: local, local: true }, { id: 'lesson peer (MiniSearch)', client: peer }], { deadlineMs: 10_000, identity: 'learn-rcp-tour' });
  };
  return async (query, k) => (await (federation ??= open())).retrieve({ query, k });
}

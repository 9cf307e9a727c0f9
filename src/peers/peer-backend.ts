/**
 * A peer engine (MiniSearch, Orama) behind the real RCP server: `retrieve`, `index/add` and
 * `index/delete`, validated by the same validators as our engine, so the quality harness drives
 * every engine with the same frames. Advertises only what the peer does: its modes, a writable
 * index, nothing else (no filter, no citations; scores are the peer's own).
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import { contentText } from '../protocol/content.ts';
import { validateIndexAdd, validateIndexDelete, validateRetrieve } from '../protocol/validate.ts';
import type { Capabilities, IndexAddResult, RetrieveResult } from '../protocol/types.ts';
import type { Backend } from '../server/backend.ts';
import type { EmbedTexts, PeerIndex, PeerMode } from './peer-index.ts';

/** Largest k a peer answers (its own limit would be "all"). */
const MAX_K = 1000;
/** Texts embedded per call while adding. */
const EMBED_BATCH = 32;

export function peerBackend(index: PeerIndex, embed?: EmbedTexts): Backend {
  if (index.needsVectors && !embed) throw new Error(`${index.name} needs vectors: give it an embedder`);
  const caps: Capabilities = {
    retrieve: { maxK: MAX_K, modes: [...index.modes], defaultMode: index.modes.includes('hybrid') ? 'hybrid' : index.modes[0] },
    index: { writable: true },
  };
  let minted = 0;
  return {
    serverInfo: { name: index.name, version: index.version },
    capabilities: () => caps,
    handlers: {
      async retrieve(raw, ctx): Promise<RetrieveResult> {
        const { params, notes } = validateRetrieve(raw, ctx.caps);
        const t0 = performance.now();
        const mode = (params.mode ?? caps.retrieve!.defaultMode) as PeerMode;
        const text = contentText(params.query);
        const k = Math.min(params.k ?? 10, MAX_K);
        const vector = mode === 'sparse' || !embed ? undefined : (await embed([text], 'query'))[0];
        const hits = (await index.search(text, k, mode, vector)).filter((h) => params.minScore === undefined || h.score >= params.minScore);
        const result: RetrieveResult = { hits: hits.map((h) => ({ id: h.id, score: h.score })), usage: { candidates: hits.length, latencyMs: Math.round((performance.now() - t0) * 100) / 100 } };
        if (notes.length) result.usage!.notes = notes;
        return result;
      },
      async 'index/add'(raw, ctx): Promise<IndexAddResult> {
        const params = validateIndexAdd(raw, ctx.caps);
        const docs = params.documents.map((d) => ({ id: d.id ?? `peer-doc-${++minted}`, text: d.text, title: typeof d.meta?.title === 'string' ? d.meta.title : '' }));
        let vectors: Float32Array[] | undefined;
        if (index.needsVectors) {
          vectors = [];
          for (let i = 0; i < docs.length; i += EMBED_BATCH) {
            if (ctx.signal.aborted) throw new RcpError(ErrorCode.Cancelled, 'cancelled');
            // Title and text, as our engine embeds a passage with its context (`contextual: true`).
            vectors.push(...(await embed!(docs.slice(i, i + EMBED_BATCH).map((d) => (d.title ? `${d.title}\n${d.text}` : d.text)), 'document')));
            ctx.progress({ progress: Math.min(1, (i + EMBED_BATCH) / docs.length), stage: 'index', message: `embedded ${Math.min(docs.length, i + EMBED_BATCH)}/${docs.length}` });
          }
        }
        await index.add(docs, vectors);
        return { ids: docs.map((d) => d.id) };
      },
      async 'index/delete'(raw) {
        return { deleted: await index.remove(validateIndexDelete(raw).ids) };
      },
    },
  };
}

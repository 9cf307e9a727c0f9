/**
 * The worker as an aggregator (§7.13, §16): remote RCP engines configured in the worker are fanned
 * out with the client's `Federation` when a `retrieve` asks for it (`_meta.federate: true`, a
 * configured default, or a federated request another aggregator forwards with
 * `_meta.federation`), and fused with this engine's own answer; `catalog/list` lists them.
 *
 * This engine takes part as the `local` member, over an in-memory session of the plain backend, so
 * its answer is exactly what a direct `retrieve` gives. §16.2 loop detection is the Federation's:
 * each forwarded request carries the hop budget and the path with this aggregator's identity, a
 * request that comes back (its identity already in the path) or whose budget is spent is answered
 * from the local index only, and a remote that is down, slow or loops never breaks the local answer.
 */
import { RcpClient } from '../client/rcp-client.ts';
import { Federation } from '../client/federation/federation.ts';
import type { EngineSpec } from '../client/federation/engines.ts';
import type { FederatedFusion } from '../client/federation/fuse-hits.ts';
import { isObject } from '../protocol/json.ts';
import type { CatalogEngine, CatalogListResult, Meta, RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { paramsObject } from '../protocol/validate-kit.ts';
import { validateRetrieve } from '../protocol/validate.ts';
import { createLinkedPair } from '../transport/memory-transport.ts';
import type { Backend, HandlerContext } from './backend.ts';
import { serve } from './rcp-session.ts';

export interface AggregatorConfig {
  /** This aggregator's identity in `_meta.federation.path` (§16.2); unique among aggregators that may reach each other. */
  identity: string;
  /** The remote engines (HTTP URLs in the worker; any RcpClient in tests). */
  engines: (Omit<EngineSpec, 'local'> & { endpoint?: CatalogEngine['endpoint'] })[];
  /** Federate every `retrieve` that does not say `_meta.federate: false` (default: only those asking). */
  federateByDefault?: boolean;
  /** Client deadline of one federated query (default the Federation's, 5 s). */
  deadlineMs?: number;
  /** The fusion method (default the Federation's `auto`). */
  fusion?: FederatedFusion;
}

/** `_meta` flag asking a `retrieve` to be federated (or, `false`, not). */
export const FEDERATE_FIELD = 'federate';

/** The local member's id in fused hits' `meta.engine`. */
export const LOCAL_ENGINE_ID = 'local';

const meta = (raw: unknown): Meta | undefined => {
  const m = isObject(raw) ? raw._meta : undefined;
  return isObject(m) ? (m as Meta) : undefined;
};

/** `local` with `retrieve` federated as configured and `catalog/list` served; capabilities gain `catalog`. */
export function withFederation(local: Backend, config: AggregatorConfig): Backend {
  // The local member: a session of the plain backend over an in-memory pair.
  const [clientEnd, serverEnd] = createLinkedPair();
  serve(serverEnd, local);
  const self = new RcpClient(clientEnd, { clientInfo: { name: `${config.identity} (aggregator)`, version: '1' } });
  const federation = new Federation(
    [{ id: LOCAL_ENGINE_ID, client: self, local: true }, ...config.engines.map((e) => ({ ...e, local: false }))],
    { identity: config.identity, deadlineMs: config.deadlineMs, fusion: config.fusion, clientInfo: { name: config.identity, version: '1' } },
  );
  const plainRetrieve = local.handlers.retrieve;

  const federated = (raw: unknown): boolean => {
    const m = meta(raw);
    if (m?.[FEDERATE_FIELD] === false) return false;
    return m?.[FEDERATE_FIELD] === true || m?.federation !== undefined || config.federateByDefault === true;
  };

  return {
    ...local,
    capabilities: () => ({ ...local.capabilities(), catalog: { engines: config.engines.length } }),
    handlers: {
      ...local.handlers,
      async retrieve(raw: unknown, ctx: HandlerContext): Promise<RetrieveResult> {
        if (!plainRetrieve) throw new Error('the local backend serves no retrieve');
        if (!federated(raw)) return plainRetrieve(raw, ctx);
        // The same checks as a direct retrieve, before anything is sent anywhere (-32602, -32005).
        validateRetrieve(raw, ctx.caps);
        const params = paramsObject(raw) as unknown as RetrieveParams;
        const { [FEDERATE_FIELD]: _flag, ...rest } = params._meta ?? {};
        // A request from a client (no `_meta.federation`) starts at the full hop budget, so this
        // aggregator's identity enters the path before anything is forwarded (§16.2).
        const fwd: RetrieveParams = { ...params, _meta: { ...rest, federation: rest.federation ?? { depth: 3, path: [] } } };
        // Engines are asked for progress only when our caller asked for it (§9); each gets its own token.
        const wantsProgress = isObject(params._meta) && params._meta.progressToken !== undefined;
        const out = await federation.retrieve(fwd, { signal: ctx.signal, ...(wantsProgress ? { onProgress: (u) => ctx.progress(u) } : {}) });
        const { engines, fusion, ...result } = out;
        return { ...result, _meta: { ...out._meta, engines, fusion } } as RetrieveResult;
      },
      async 'catalog/list'(raw: unknown, ctx: HandlerContext): Promise<CatalogListResult> {
        paramsObject(raw);
        const described = await federation.describe({ signal: ctx.signal });
        const endpoints = new Map(config.engines.map((e) => [e.id, e.endpoint]));
        const engines = described.flatMap((d) => {
          if (d.local || !d.server || !d.capabilities) return [];
          // A relayed engine is named by its own endpoint, not the relay's address.
          const endpoint = endpoints.get(d.id) ?? (d.url ? { transport: 'http' as const, url: d.url } : undefined);
          return [{ id: d.id, server: d.server, capabilities: d.capabilities, ...(endpoint ? { endpoint } : {}) }];
        });
        const down = described.filter((d) => !d.local && d.error).map((d) => ({ id: d.id, error: d.error }));
        return { engines, ...(down.length ? { _meta: { unreachable: down } } : {}) } as CatalogListResult;
      },
    },
  };
}

/**
 * The engines of a federation (§16.1): what a caller declares (an `RcpClient` it already has, or
 * the URL of an RCP server over HTTP), validated once, and the §16.1 `rcp.json` registry shape.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError } from '../../protocol/errors.ts';
import { isObject } from '../../protocol/json.ts';
import type { RcpClient } from '../rcp-client.ts';

export interface EngineSpec {
  /** Client-local label; tags fused hits as `meta.engine` (§16.1). Unique within a federation. */
  id: string;
  /** An RCP client for the engine (e.g. `await createInPageEngine()`), connected or not. */
  client?: RcpClient;
  /** Or: the base URL of an RCP server over HTTP (§5.2), e.g. `http://127.0.0.1:8787/rcp`. */
  url?: string;
  /** Scales the engine's contribution during fusion (default 1, finite, ≥ 0). */
  weight?: number;
  /** A failure of this engine fails the whole federated query (default false). */
  required?: boolean;
  /**
   * This engine is the aggregator's own index (e.g. the in-page engine): it is still asked when
   * the hop budget is spent (§16.2 "answers from its own index only").
   */
  local?: boolean;
  /** Extra HTTP headers for a `url` engine (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /**
   * Why this engine cannot be reached at all (e.g. a registry's stdio engine in a browser): every
   * query records it as failed with -32010 (and fails if the engine is `required`).
   */
  unreachable?: string;
}

/** An engine after validation: defaults applied. */
export interface EngineEntry extends EngineSpec {
  weight: number;
  required: boolean;
  local: boolean;
}

const invalid = (message: string, field: string): RcpError => new RcpError(ErrorCode.InvalidParams, message, { field });

/** Validates engine specs; throws a typed -32602 naming the offending field. */
export function validateEngines(specs: readonly EngineSpec[]): EngineEntry[] {
  if (!Array.isArray(specs)) throw invalid('engines must be an array', 'engines');
  const ids = new Set<string>();
  return specs.map((s, i) => {
    const at = `engines[${i}]`;
    if (!isObject(s as unknown)) throw invalid(`${at} must be an object`, at);
    if (typeof s.id !== 'string' || s.id === '') throw invalid(`${at}.id must be a non-empty string`, `${at}.id`);
    if (ids.has(s.id)) throw invalid(`${at}.id '${s.id}' is used twice`, `${at}.id`);
    ids.add(s.id);
    const ways = [s.client !== undefined, s.url !== undefined, s.unreachable !== undefined].filter(Boolean).length;
    if (ways !== 1) throw invalid(`${at} needs exactly one of client, url`, at);
    if (s.url !== undefined && !isHttpUrl(s.url)) throw invalid(`${at}.url must be an http(s) URL`, `${at}.url`);
    const weight = s.weight ?? 1;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) throw invalid(`${at}.weight must be a finite number ≥ 0`, `${at}.weight`);
    if (s.required !== undefined && typeof s.required !== 'boolean') throw invalid(`${at}.required must be a boolean`, `${at}.required`);
    if (s.local !== undefined && typeof s.local !== 'boolean') throw invalid(`${at}.local must be a boolean`, `${at}.local`);
    return { ...s, weight, required: s.required ?? false, local: s.local ?? false };
  });
}

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Engine specs from a §16.1 registry (`{ "engines": [{ "id", "transport", "url" | "command",
 * "weight", "required" }] }`). HTTP engines become `url` engines; a browser cannot start a stdio
 * process, so stdio engines are kept as `unreachable` (a required one then fails every query, as
 * §16.2 demands) and explained in `notes`. `clients` supplies engines by id that the page already
 * holds (e.g. `{ local: inPageEngine }`), overriding their registry transport.
 */
export function enginesFromRegistry(registry: unknown, clients: Readonly<Record<string, RcpClient>> = {}): { engines: EngineSpec[]; notes: string[] } {
  if (!isObject(registry) || !Array.isArray(registry.engines)) throw invalid('registry must be an object with an engines array', 'engines');
  const notes: string[] = [];
  const engines = registry.engines.map((raw: unknown, i: number): EngineSpec => {
    const at = `engines[${i}]`;
    if (!isObject(raw)) throw invalid(`${at} must be an object`, at);
    const { id, transport, url, weight, required } = raw;
    if (typeof id !== 'string' || id === '') throw invalid(`${at}.id must be a non-empty string`, `${at}.id`);
    const base: EngineSpec = { id };
    if (weight !== undefined) base.weight = weight as number;
    if (required !== undefined) base.required = required as boolean;
    if (clients[id]) return { ...base, client: clients[id] };
    if (transport === 'http') {
      if (typeof url !== 'string') throw invalid(`${at}.url is required for transport http`, `${at}.url`);
      return { ...base, url };
    }
    if (transport === 'stdio') {
      notes.push(`engine '${id}' uses stdio, which a browser page cannot start`);
      return { ...base, unreachable: 'stdio engines cannot be started from a browser page' };
    }
    throw invalid(`${at}.transport must be 'http' or 'stdio'`, `${at}.transport`);
  });
  return { engines, notes };
}

/** The conformance checker's vocabulary: checks, their verdicts and the report. Types only. */
import type { Capabilities, ConformanceLevel, InitializeResult } from '../protocol/types.ts';

export type Level = ConformanceLevel;
export type Status = 'pass' | 'fail' | 'skip';

/** One frame (or a note) behind a verdict, in the order it happened. */
export interface Evidence {
  dir: 'out' | 'in' | 'note';
  text: string;
}

export interface Verdict {
  status: Status;
  detail: string;
}

/** A check as written: the spec sentence it checks and how. */
export interface CheckDef<S = unknown> {
  /** Stable, kebab-case: the same id in the page, the CLI and CI. */
  id: string;
  level: Level;
  /** The spec section, e.g. "7.15". */
  section: string;
  /** The sentence of the spec this check observes, quoted. */
  sentence: string;
  /** A SHOULD: reported like the others, but certification counts MUSTs only (§14.5). */
  should?: true;
  /** Judges what the run already saw, without sending anything: runs even after the endpoint went away. */
  offline?: true;
  run(probe: S): Promise<Verdict>;
}

export interface CheckResult {
  id: string;
  level: Level;
  status: Status;
  section: string;
  detail: string;
  sentence: string;
  should: boolean;
  /** The frames that decided it (texts cut to a few KB each). */
  frames: Evidence[];
  ms: number;
}

export interface Report {
  /** The highest level whose MUST checks all passed (with every lower level) and whose surface is advertised. */
  certifiedLevel: Level | null;
  /** What the server declared in `_meta.conformance`. */
  declaredLevel?: string;
  endpoint: string;
  transport: 'stdio' | 'port' | 'http';
  checks: CheckResult[];
  /** The session's capabilities, once `initialize` succeeded. */
  capabilities?: Capabilities;
  server?: InitializeResult['server'];
  ms: number;
}

/** `--json`: exactly these keys (the contract for CI). */
export interface JsonReport {
  certifiedLevel: Level | null;
  checks: { id: string; level: Level; status: Status; section: string; detail: string }[];
}

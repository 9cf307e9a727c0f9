/**
 * Runs every check, in order, over one wire and certifies a level (§14.5): a level is certified
 * when every MUST check at it and below passed (skips do not count) and the capabilities reach it
 * by §14.2/§14.3; a declaration above the certified level fails `declared-level-honest`. Bounded
 * in time: once the endpoint is unreachable, closed or silent twice, the checks that need it are
 * skipped as "not run", and each exchange has its own time limit.
 */
import { conformanceOf } from '../protocol/conformance.ts';
import { beforeInitialize, closing, handshake } from './checks/lifecycle.ts';
import { batches, cancellation, notifications, session } from './checks/base.ts';
import { filterChecks, retrieveChecks, retrieveL2Checks } from './checks/retrieve.ts';
import { addProbeDocuments, removeProbeDocuments, writeChecks } from './checks/writes.ts';
import { methodChecks } from './checks/methods.ts';
import { authFirst, framingChecks } from './checks/transport.ts';
import { globalChecks, surfaceChecks } from './checks/global.ts';
import { newRunState, Probe, type ProbeOptions, type RunState } from './probe.ts';
import type { CheckDef, CheckResult, Level, Report } from './types.ts';
import type { Wire } from './wire.ts';

/** Every check, in the order it runs. */
export const CHECKS: readonly CheckDef<Probe>[] = [
  ...authFirst,
  ...beforeInitialize.slice(0, 3),
  ...notifications,
  ...beforeInitialize.slice(3),
  ...handshake,
  ...session,
  ...batches,
  ...cancellation,
  ...framingChecks,
  ...addProbeDocuments,
  ...retrieveChecks,
  ...filterChecks,
  ...retrieveL2Checks,
  ...methodChecks,
  ...writeChecks,
  ...closing,
  ...globalChecks,
  ...surfaceChecks,
];

export const HONESTY_CHECK = {
  id: 'declared-level-honest',
  level: 'L0' as Level,
  section: '14.5',
  sentence: 'A server that **overclaims** (says `L2`, behaves `L1`) fails certification even if no individual check failed.',
};

export interface RunOptions extends Partial<ProbeOptions> {
  /** Called after each check (the page shows progress). */
  onResult?(result: CheckResult, done: number, total: number): void;
  signal?: AbortSignal;
}

const LEVELS: readonly Level[] = ['L0', 'L1', 'L2'];

/** §14.5 with the spec's level definitions: MUST checks only; each level also needs its surface advertised. */
export function certify(results: readonly CheckResult[], caps: Report['capabilities']): Level | null {
  if (!caps) return null;
  const reach = conformanceOf(caps);
  let best: Level | null = null;
  for (const level of LEVELS) {
    if (results.some((r) => r.level === level && r.status === 'fail' && !r.should)) break;
    if (reach === undefined || LEVELS.indexOf(level) > LEVELS.indexOf(reach)) break;
    best = level;
  }
  return best;
}

export async function runConformance(wire: Wire, options: RunOptions = {}): Promise<Report> {
  const started = performance.now();
  const state: RunState = newRunState(wire, {
    timeoutMs: options.timeoutMs ?? 30_000,
    startupMs: options.startupMs ?? 60_000,
    write: options.write ?? true,
    unavailableRetryMs: options.unavailableRetryMs ?? 30_000,
  });
  const results: CheckResult[] = [];
  const total = CHECKS.length + 1;
  for (const def of CHECKS) {
    if (options.signal?.aborted) break;
    if (def === closing[0]) await cleanup(state, results);
    const probe = new Probe(state, def.id);
    const t0 = performance.now();
    let verdict;
    if (state.faults.fatal && !def.offline) verdict = { status: 'skip' as const, detail: `not run: ${state.faults.fatal}` };
    else {
      try {
        verdict = await def.run(probe);
      } catch (e) {
        // A check that throws is a checker bug: reported, never hidden as a pass.
        verdict = { status: 'fail' as const, detail: `the check itself failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    const result: CheckResult = { id: def.id, level: def.level, status: verdict.status, section: def.section, detail: verdict.detail, sentence: def.sentence, should: def.should === true, frames: probe.evidence, ms: performance.now() - t0 };
    results.push(result);
    options.onResult?.(result, results.length, total);
  }
  const certifiedLevel = certify(results, state.caps);
  const declared = state.init?._meta?.conformance;
  const honest = declared === undefined || (certifiedLevel !== null && LEVELS.indexOf(declared) <= LEVELS.indexOf(certifiedLevel));
  const honesty: CheckResult = {
    ...HONESTY_CHECK,
    status: declared === undefined ? 'skip' : honest ? 'pass' : 'fail',
    detail: declared === undefined ? 'no level declared' : honest ? `declared ${declared}, certified ${certifiedLevel}` : `declared ${declared} but certified ${certifiedLevel ?? 'none'}`,
    should: false,
    frames: [],
    ms: 0,
  };
  results.push(honesty);
  options.onResult?.(honesty, results.length, total);
  await wire.close();
  return {
    certifiedLevel,
    declaredLevel: declared,
    endpoint: wire.label,
    transport: wire.transport,
    checks: results,
    capabilities: state.caps,
    server: state.init?.server,
    ms: performance.now() - started,
  };
}

/** Deletes the probe documents before the session ends; a failure is noted on the last write check. */
async function cleanup(state: RunState, results: CheckResult[]): Promise<void> {
  if (!state.written.length || state.faults.fatal) return;
  const probe = new Probe(state, 'cleanup');
  const note = await removeProbeDocuments(probe);
  const last = [...results].reverse().find((r) => r.id.startsWith('index-'));
  if (note && last) last.frames.push({ dir: 'note', text: note }, ...probe.evidence);
}

/** The report as CI reads it (`--json`) and as a person reads it (text). */
import type { CheckResult, JsonReport, Report } from './types.ts';

/** Exactly the issue's keys: `{certifiedLevel, checks: [{id, level, status, section, detail}]}`. */
export function toJsonReport(report: Report): JsonReport {
  return {
    certifiedLevel: report.certifiedLevel,
    checks: report.checks.map((c) => ({ id: c.id, level: c.level, status: c.status, section: `§${c.section}`, detail: c.detail })),
  };
}

export const failed = (report: Report): CheckResult[] => report.checks.filter((c) => c.status === 'fail');

export function counts(report: Report): { pass: number; fail: number; skip: number } {
  const n = { pass: 0, fail: 0, skip: 0 };
  for (const c of report.checks) n[c.status]++;
  return n;
}

/** One line per check; with `frames`, the frames behind every failure (or every check, with 'all'). */
export function formatText(report: Report, frames: 'none' | 'failures' | 'all' = 'failures'): string {
  const mark = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;
  const lines = [`RCP/1 conformance: ${report.endpoint} (${report.transport})${report.server ? ` — ${report.server.name} ${report.server.version}` : ''}`, ''];
  for (const c of report.checks) {
    lines.push(`  [${c.level}] ${mark[c.status]}  ${c.id}  §${c.section}${c.should ? ' (SHOULD)' : ''}${c.detail ? `  — ${c.detail}` : ''}`);
    if (frames === 'all' || (frames === 'failures' && c.status === 'fail')) {
      lines.push(`         ${c.sentence}`);
      for (const f of c.frames) lines.push(`         ${f.dir === 'out' ? '→' : f.dir === 'in' ? '←' : '·'} ${f.text.replace(/\n/g, ' ')}`);
    }
  }
  const n = counts(report);
  lines.push('', `${n.pass} passed, ${n.fail} failed, ${n.skip} skipped in ${(report.ms / 1000).toFixed(1)} s`);
  lines.push(`CERTIFIED LEVEL: ${report.certifiedLevel ?? 'none'}${report.declaredLevel ? ` (declared ${report.declaredLevel})` : ''}`);
  return lines.join('\n');
}

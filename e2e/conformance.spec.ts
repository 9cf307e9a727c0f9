/**
 * Our own conformance checker (`npm run conformance`) against our bridges into the real browser:
 * stdio, and HTTP with a bearer token at a session base and at the stateless plain base. Every
 * check must pass or be skipped for a stated reason, and the certified level must be the L2 the
 * server declares.
 */
import { expect, test } from '@playwright/test';
import type { JsonReport } from '../src/conformance/types.ts';
import { startHttp } from '../tools/lib/bridge-process.ts';
import { runScript } from './support/node-script.ts';

const PORT = Number(process.env.E2E_PORT ?? 4173) + 10_030;
const TOKEN = 'e2e-conformance-7c1d';

/** Runs the CLI with `args`; resolves with its exit code and parsed --json report. */
async function conformance(args: string[]): Promise<{ code: number | null; report: JsonReport; stderr: string }> {
  const { code, stdout, stderr } = await runScript(['scripts/conformance.ts', '--json', '--timeout', '30000', ...args]);
  try {
    return { code, report: JSON.parse(stdout) as JsonReport, stderr };
  } catch {
    throw new Error(`no JSON report (exit ${code}): ${stdout.slice(0, 500)} ${stderr.slice(-1500)}`);
  }
}

const failures = (r: JsonReport) => r.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.detail}`);
const statusOf = (r: JsonReport, id: string) => r.checks.find((c) => c.id === id)?.status;

test('stdio bridge: every check passes or is skipped for a reason; certified L2', async () => {
  test.setTimeout(300_000);
  const { code, report } = await conformance(['--stdio', 'node', '--import', 'tsx', 'bridges/rcp-stdio.ts']);
  expect(failures(report)).toEqual([]);
  expect(code).toBe(0);
  expect(report.certifiedLevel).toBe('L2');
  for (const id of ['stdio-blank-lines', 'stdio-split-frames', 'stdio-stdout-protocol-only', 'exit-after-shutdown', 'index-add-upsert', 'cancel-exactly-one-response']) expect(statusOf(report, id), id).toBe('pass');
});

test('HTTP bridge with a token: a session base passes everything, the plain base skips only what a stateless endpoint cannot show', async () => {
  test.setTimeout(300_000);
  const bridge = await startHttp(PORT, [], { RCP_HTTP_TOKEN: TOKEN });
  try {
    const session = await conformance(['--token', TOKEN, '--http', `http://127.0.0.1:${PORT}/rcp/session/e2e-conformance`]);
    expect(failures(session.report)).toEqual([]);
    expect(session.code).toBe(0);
    expect(session.report.certifiedLevel).toBe('L2');
    for (const id of ['http-auth-before-initialize', 'gated-before-initialize', 'second-initialize-rejected', 'http-method-path-mismatch', 'http-errors-are-200', 'http-sse']) expect(statusOf(session.report, id), id).toBe('pass');

    const plain = await conformance(['--token', TOKEN, '--http', `http://127.0.0.1:${PORT}/rcp`]);
    expect(failures(plain.report)).toEqual([]);
    expect(plain.report.certifiedLevel).toBe('L2');
    expect(statusOf(plain.report, 'gated-before-initialize')).toBe('skip');
    expect(plain.report.checks.find((c) => c.id === 'gated-before-initialize')!.detail).toContain('stateless HTTP endpoint');

    // Without the token nothing passes the door: the run fails, quickly, and says why.
    const refused = await conformance(['--http', `http://127.0.0.1:${PORT}/rcp/session/e2e-no-token`]);
    expect(refused.code).toBe(1);
    expect(refused.report.certifiedLevel).toBeNull();
    expect(refused.report.checks.find((c) => c.id === 'info-before-initialize')!.detail).toContain('HTTP 401');
  } finally {
    await bridge.stop();
  }
});

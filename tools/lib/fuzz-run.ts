/**
 * Runs the seeded fuzzer over a stdio bridge: initialize, every frame pipelined, a final
 * shutdown, then every answer checked (fuzz.ts). Shared by the bounded e2e test and the soak.
 */
import { loadRcpSchema } from './rcp-schema.ts';
import { spawnStdio } from './bridge-process.ts';
import { checkAnswers, frames, type Frame, type FuzzReport } from './fuzz.ts';

export async function fuzzStdio(seed: number, count: number, log: (line: string) => void = () => {}): Promise<FuzzReport & { exitCode: number | null; seconds: number }> {
  const schema = loadRcpSchema();
  const t0 = performance.now();
  const bridge = spawnStdio();
  bridge.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, capabilities: { log: {}, streaming: {} }, _meta: { logLevel: 'debug' } } });
  await bridge.response('init');
  const sent: Frame[] = [];
  let written = 0;
  for (const f of frames(seed, count)) {
    sent.push(f);
    // Respect the pipe: wait for stdin to drain now and then so memory stays flat on long runs.
    if (!bridge.child.stdin!.write(`${f.text}\n`)) await new Promise((ok) => bridge.child.stdin!.once('drain', ok));
    if (++written % 5000 === 0) log(`${written} frames sent, ${bridge.lines.length} lines back`);
  }
  bridge.send({ jsonrpc: '2.0', id: 'end', method: 'shutdown', params: {} });
  const exitCode = await bridge.exited;
  const lines = bridge.lines.filter((l) => {
    const m = JSON.parse(l);
    return !(m && (m.id === 'init' || m.id === 'end'));
  });
  const report = checkAnswers(sent, lines, (t) => schema.frame(t));
  if (!bridge.lines.some((l) => l.includes('"id":"end","result"'))) report.missing.push('the final shutdown');
  return { ...report, exitCode, seconds: (performance.now() - t0) / 1000 };
}

/**
 * `npm run --silent rcp:stdio [-- --profile DIR] [--headed] [--verbose]`: the RCP/1 server of the
 * real browser's worker, spoken over stdin/stdout as NDJSON (§5.1). stdout carries frames only;
 * diagnostics go to stderr; EOF on stdin is an implicit shutdown (in-flight requests are answered
 * first, then the process exits).
 */
import { LineBuffer, toLine } from '../src/transport/ndjson.ts';
import { diag, parseArgs } from '../scripts/lib/args.ts';
import { launchHost } from './browser-host.ts';
import { ensureBuilt } from './ensure-built.ts';
import { RequestTracker } from './request-tracker.ts';

const { flags, values } = parseArgs(process.argv.slice(2));
const verbose = flags.has('verbose');
const started = Date.now();

await ensureBuilt(diag);
const host = await launchHost({ profile: values.get('profile'), headed: flags.has('headed'), log: verbose ? diag : undefined });
const tracker = new RequestTracker();
let exiting = false;

const session = await host.openSession((frame) => {
  tracker.answered(frame);
  process.stdout.write(toLine(frame));
  if (tracker.shutdownAnswered) void exit(0);
});
diag(`ready in ${Date.now() - started} ms`);

const lines = new LineBuffer();
let queue = Promise.resolve();
const forward = (line: string) => {
  tracker.sent(line);
  queue = queue.then(() => session.send(line)).catch((e: Error) => diag(`send failed: ${e.message}`));
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => lines.push(chunk).forEach(forward));
process.stdin.on('end', async () => {
  lines.flush().forEach(forward);
  await queue;
  await tracker.drained(30_000); // §5.1: finish in-flight requests and flush their responses
  await exit(0);
});

async function exit(code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  await session.close();
  await host.close();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void exit(0));

/**
 * `npm run --silent rcp:stdio [-- --profile DIR] [--model NAME|auto] [--headed] [--verbose]`: the RCP/1 server of the
 * real browser's worker, spoken over stdin/stdout as NDJSON (§5.1). stdout carries frames only;
 * diagnostics go to stderr. The process ends on EOF (an implicit shutdown) or once a `shutdown`
 * has been answered SUCCESSFULLY (a rejected one ends nothing); either way every request already
 * received is answered first, and nothing received after the shutdown answer is forwarded (§13.1).
 */
import { LineBuffer, toLine } from '../src/transport/ndjson.ts';
import { BRIDGE_USAGE, bridgeArgs, diag } from './cli.ts';
import { launchHost } from './browser-host.ts';
import { reportIndexLoss } from './index-loss.ts';
import { idbChoice } from './profile-storage.ts';
import { describeFederation } from './federate-args.ts';
import { EngineRelay } from './engine-relay.ts';
import { modelArg } from './model-arg.ts';
import { ensureBuilt } from './ensure-built.ts';
import { RequestTracker } from './request-tracker.ts';

const { values: args, federate, model: modelName } = bridgeArgs(`npm run --silent rcp:stdio -- ${BRIDGE_USAGE}`, {});
const verbose = args.verbose === true;
const started = Date.now();

await ensureBuilt(diag);
const model = await modelArg(modelName).catch((e: Error) => {
  diag(e.message);
  process.exit(2);
});
// Engines named on the command line are reached from here, never from the page (engine-relay.ts).
const relay = federate.engines.length ? new EngineRelay(federate.engines, { identity: federate.identity, diag }) : undefined;
const host = await launchHost({
  model,
  profile: args.profile,
  idb: 'profile',
  newProfileIdb: idbChoice(args.idb),
  headed: args.headed === true,
  log: verbose ? diag : undefined,
  federate,
  relay,
  models: args['no-models'] !== true,
});
if (relay) diag(describeFederation(federate));
const tracker = new RequestTracker();
let exiting = false;
/** A successful shutdown was answered: forward nothing more, answer what is in flight, exit. */
let stopping = false;

const session = await host.openSession((frame) => {
  tracker.answered(frame);
  process.stdout.write(toLine(frame));
  if (tracker.shutdownAnswered && !stopping) {
    stopping = true;
    void stop();
  }
});
diag(`ready in ${Date.now() - started} ms`);
reportIndexLoss(host, diag);

const lines = new LineBuffer();
let queue = Promise.resolve();
const forward = (line: string) => {
  queue = queue
    .then(() => {
      if (stopping) return; // §13.1: never begin a request received after the shutdown answer
      tracker.sent(line);
      return session.send(line);
    })
    .catch((e: Error) => diag(`send failed: ${e.message}`));
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => lines.push(chunk).forEach(forward));
process.stdin.on('end', () => {
  lines.flush().forEach(forward);
  void stop();
});

async function stop(): Promise<void> {
  process.stdin.pause();
  await queue; // on EOF every line received is forwarded; after a shutdown answer, none
  stopping = true;
  await tracker.drained(30_000); // §5.1: finish in-flight requests and flush their responses
  await exit(0);
}

async function exit(code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  await session.close();
  await relay?.close(); // shutdown to each stdio engine, bounded
  await host.close();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void exit(0));

/** What the two bridge programs share on the command line: their diagnostics and one parse of every flag. */
import type { ParseArgsConfig } from 'node:util';
import { cliArgs } from '../tools/lib/args.ts';
import { federateArgs } from './federate-args.ts';
import { modelFlag } from './model-arg.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Diagnostics go to stderr only: stdout is protocol-only (§5.1). */
export const diag = (line: string): void => {
  process.stderr.write(`[rcp-bridge] ${line}\n`);
};

/**
 * The flags both bridges take: the browser host's (`--profile DIR`, `--idb sqlite|leveldb`, a new
 * profile's IndexedDB backend (bridges/profile-storage.ts), `--model NAME|auto` (bridges/model-arg.ts),
 * `--no-models`, `--headed`, `--verbose`) and the aggregator's (bridges/federate-args.ts).
 */
const BRIDGE_OPTIONS = {
  profile: { type: 'string' },
  idb: { type: 'string' },
  model: { type: 'string' },
  'no-models': { type: 'boolean' },
  headed: { type: 'boolean' },
  verbose: { type: 'boolean' },
  federate: { type: 'string', multiple: true },
  'federate-token': { type: 'string', multiple: true },
  'federate-stdio': { type: 'string', multiple: true },
  'federate-default': { type: 'boolean' },
  'federate-fusion': { type: 'string' },
  identity: { type: 'string' },
} as const satisfies Options;

/** The usage of the flags above, for a bridge's own usage line. */
export const BRIDGE_USAGE =
  '[--profile DIR] [--idb sqlite|leveldb] [--model NAME|auto] [--no-models] [--headed] [--verbose] ' +
  '[--federate URL [--federate-token T]]… [--federate-stdio "CMD …"]… [--federate-default] [--federate-fusion rrf|convex|score|global-bm25|auto] [--identity NAME]';

/**
 * Parses argv once, with the shared flags plus the bridge's own (`--name value`, `--name=value`,
 * `--flag`). An unknown flag or a string flag without its value prints the usage and exits 2, as
 * every dev tool does (tools/lib/args.ts); a bad `--federate…` or an empty `--model=` is told on
 * stderr and exits 2 too, before anything starts. Whether the model is built is checked later
 * (modelArg), once the app is.
 */
export function bridgeArgs<const O extends Options>(usage: string, options: O, argv: readonly string[] = process.argv.slice(2)) {
  const { values, tokens } = cliArgs({ usage, options: { ...BRIDGE_OPTIONS, ...options }, argv });
  try {
    return { values, federate: federateArgs(tokens), model: modelFlag((values as { model?: string }).model) };
  } catch (e) {
    diag((e as Error).message);
    process.exit(2);
  }
}

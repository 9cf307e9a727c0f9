/** What the two bridge programs share on the command line: their diagnostics and the browser host's flags. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Diagnostics go to stderr only: stdout is protocol-only (§5.1). */
export const diag = (line: string): void => {
  process.stderr.write(`[rcp-bridge] ${line}\n`);
};

/**
 * The browser host's flags, which both bridges take: `--profile DIR`, `--idb sqlite|leveldb` (a new
 * profile's IndexedDB backend, bridges/profile-storage.ts), `--model NAME|auto` (bridges/model-arg.ts), `--headed`, `--verbose`. A string flag
 * must be declared: undeclared, `--idb leveldb` would parse as a bare flag and the value be lost.
 */
const HOST_OPTIONS = {
  profile: { type: 'string' },
  idb: { type: 'string' },
  model: { type: 'string' },
  headed: { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` with the host's flags plus the bridge's own (`--name value`, `--name=value`,
 * `--flag`); an unknown flag is ignored rather than refused, as a harness may pass its own.
 */
export function bridgeArgs<const O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  return parseArgs({ args: argv, options: { ...HOST_OPTIONS, ...options }, strict: false, allowPositionals: true }).values;
}

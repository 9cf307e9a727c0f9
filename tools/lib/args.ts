/**
 * The dev tools' one command-line parser: node:util's `parseArgs`, strict (an unknown flag or a
 * string flag without its value is an error, not silently dropped), with `--help`. Each tool
 * declares its flags; `--name value` and `--name=value` both work.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CliSpec<O extends Options> {
  /** Printed for `--help` (exit 0) and after a parse error (exit 2). */
  usage: string;
  options: O;
  /** Positional arguments allowed (default false). */
  positionals?: boolean;
  /** Defaults to process.argv after the script's path. */
  argv?: readonly string[];
}

export function cliArgs<const O extends Options>(spec: CliSpec<O>) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...(spec.argv ?? process.argv.slice(2))],
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: spec.positionals ?? false,
      tokens: true, // the flags in command-line order, for a tool whose flags pair up (bridges/federate-args.ts)
    });
  } catch (e) {
    console.error(`${(e as Error).message}\nusage: ${spec.usage}`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(`usage: ${spec.usage}`);
    process.exit(0);
  }
  return parsed;
}

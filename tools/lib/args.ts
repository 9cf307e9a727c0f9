/** Tiny flag parser for the scripts and the bench: `--name value`, `--name=value`, `--flag`. */
export function parseArgs(argv: string[]): { flags: Set<string>; values: Map<string, string> } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const [name, inline] = a.slice(2).split('=', 2);
    if (inline !== undefined) values.set(name, inline);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) values.set(name, argv[++i]);
    else flags.add(name);
  }
  return { flags, values };
}

/**
 * RCP/1 conformance checker from the command line, the same checks the playground runs:
 *
 *   npm run conformance -- --http URL [--token T] [--json] [--timeout MS] [--startup-timeout MS] [--no-write] [--frames all|none]
 *   npm run conformance -- [--json] [--timeout MS] [--no-write] --stdio CMD ARGS…
 *
 * `--stdio` starts CMD as the server and speaks NDJSON over its stdin/stdout (everything after
 * `--stdio` is the command). `--json` prints exactly `{"certifiedLevel", "checks": [{id, level,
 * status, section, detail}]}`; otherwise a report (with the frames behind each failure). The token
 * may also come from RCP_CONFORMANCE_TOKEN. Each exchange may take --timeout ms (30 s), the first
 * --startup-timeout ms (60 s: a bridge boots a browser). Exit status 1 when a check fails, 2 on bad usage.
 * `--no-write` skips the checks that add (and then delete) probe documents; `--list` prints every
 * check (id, level, section, the sentence it checks) as a Markdown table.
 */
import { HttpWire } from '../src/conformance/http-wire.ts';
import { StreamWire } from '../src/conformance/stream-wire.ts';
import { CHECKS, HONESTY_CHECK, runConformance } from '../src/conformance/run.ts';
import { formatText, toJsonReport } from '../src/conformance/report.ts';
import type { Wire } from '../src/conformance/wire.ts';
import { StdioTransport } from '../tools/lib/stdio-transport.ts';
import { cliArgs } from '../tools/lib/args.ts';

const USAGE = 'usage: npm run conformance -- --http URL [--token T] [--json] [--timeout MS] [--startup-timeout MS] [--no-write] [--frames none|failures|all] | [options] --stdio CMD ARGS… | --list';

function parse(argv: string[]): { wire: Wire; json: boolean; timeoutMs: number; startupMs: number; write: boolean; frames: 'none' | 'failures' | 'all' } {
  const stdioAt = argv.indexOf('--stdio');
  // Everything after --stdio is the server's command line, not ours.
  const { values } = cliArgs({
    usage: USAGE.slice('usage: '.length),
    argv: stdioAt >= 0 ? argv.slice(0, stdioAt) : argv,
    options: {
      http: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      'startup-timeout': { type: 'string' },
      frames: { type: 'string' },
      'no-write': { type: 'boolean' },
    },
  });
  const json = values.json === true;
  const timeoutMs = Number(values.timeout ?? 30_000);
  const startupMs = Number(values['startup-timeout'] ?? 60_000);
  const frames = (values.frames ?? 'failures') as 'none' | 'failures' | 'all';
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || !(startupMs > 0) || !['none', 'failures', 'all'].includes(frames)) throw new Error(USAGE);
  const url = values.http;
  let wire: Wire;
  if (stdioAt >= 0) {
    const [cmd, ...args] = argv.slice(stdioAt + 1);
    if (!cmd || url) throw new Error(USAGE);
    const t = new StdioTransport(cmd, args);
    wire = new StreamWire({ transport: t, kind: 'stdio', label: [cmd, ...args].join(' '), writeRaw: (c) => t.writeRaw(c), stderr: () => t.stderr() });
  } else if (url) {
    if (!/^https?:\/\//.test(url)) throw new Error(`--http needs an http(s) URL, got ${url}`);
    wire = new HttpWire(url, { token: values.token ?? process.env.RCP_CONFORMANCE_TOKEN });
  } else throw new Error(USAGE);
  return { wire, json, timeoutMs, startupMs, write: !values['no-write'], frames };
}

if (process.argv[2] === '--list') {
  // The checks as a Markdown table (docs/conformance.md carries it).
  console.log('| check | level | section | sentence checked |\n|---|---|---|---|');
  for (const c of [...CHECKS, HONESTY_CHECK as (typeof CHECKS)[number]]) console.log(`| \`${c.id}\` | ${c.level}${c.should ? ' (SHOULD)' : ''} | §${c.section} | ${c.sentence.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  process.exit(0);
}

let args: ReturnType<typeof parse>;
try {
  args = parse(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const report = await runConformance(args.wire, {
  timeoutMs: args.timeoutMs,
  startupMs: args.startupMs,
  write: args.write,
  onResult: args.json || !process.stderr.isTTY ? undefined : (r, done, total) => process.stderr.write(`\r${done}/${total} ${r.id}`.padEnd(60)),
});
if (!args.json && process.stderr.isTTY) process.stderr.write('\r'.padEnd(61) + '\r');
process.stdout.write(args.json ? `${JSON.stringify(toJsonReport(report), null, 2)}\n` : `${formatText(report, args.frames)}\n`);
process.exit(report.checks.some((c) => c.status === 'fail') ? 1 : 0);

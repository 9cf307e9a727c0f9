/** bridges/cli.ts bridgeArgs: the bridges' one parse of the host, aggregator and their own flags. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bridgeArgs } from '../../bridges/cli.ts';
import { captureExit } from '../support/exit-capture.ts';

const HTTP = { port: { type: 'string', default: '8787' }, token: { type: 'string' }, 'allow-origin': { type: 'string', multiple: true } } as const;

/** Runs bridgeArgs with process.exit, the console and stderr captured; `out` joined. */
function run(argv: string[], env: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const r = captureExit(() => bridgeArgs('bridge [flags]', HTTP, argv));
  return { ...r, out: r.out.join('\n') };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('bridgeArgs', () => {
  it('reads the host flags, the bridge\'s own, in both spellings, with the defaults', () => {
    const { parsed } = run(['--profile', 'p', '--idb=leveldb', '--model', 'auto', '--no-models', '--verbose', '--allow-origin', 'a', '--allow-origin=b']);
    expect(parsed?.values).toMatchObject({ profile: 'p', idb: 'leveldb', 'no-models': true, verbose: true, port: '8787', 'allow-origin': ['a', 'b'] });
    expect(parsed?.values.headed).toBeUndefined();
    expect(parsed?.model).toBe('auto');
    expect(run(['--model=minilm-l6-v2']).parsed?.model).toBe('minilm-l6-v2');
    expect(run([]).parsed).toMatchObject({ model: undefined, federate: { engines: [], byDefault: false } });
  });

  it('pairs each --federate-token with the --federate before it; the env token fills the others', () => {
    const argv = ['--federate', 'http://a:1/rcp', '--federate-token', 'ta', '--federate=http://b:2', '--federate-stdio', `node 'my engine.ts' --x`];
    const { parsed } = run([...argv, '--federate-default', '--identity', 'agg', '--federate-fusion', 'rrf', '--token', 'mine'], { RCP_FEDERATE_TOKEN: 'env' });
    expect(parsed?.federate).toEqual({
      engines: [
        { id: 'a:1', transport: 'http', url: 'http://a:1/rcp', token: 'ta' },
        { id: 'b:2', transport: 'http', url: 'http://b:2', token: 'env' },
        { id: 'stdio:my engine', transport: 'stdio', command: ['node', 'my engine.ts', '--x'] },
      ],
      byDefault: true,
      identity: 'agg',
      fusion: 'rrf',
    });
    expect(run(['--federate', 'http://a:1', '--federate', 'http://a:1']).parsed?.federate.engines.map((e) => e.id)).toEqual(['a:1', 'a:1-2']);
  });

  it('refuses an unknown flag, a positional and a string flag without its value with the usage (exit 2)', () => {
    for (const argv of [['--prot', '1'], ['extra'], ['--model'], ['--model', '--verbose'], ['--profile'], ['--headed=yes']]) {
      const r = run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out).toContain('usage: bridge [flags]');
    }
    expect(run(['--help'])).toMatchObject({ code: 0, out: 'usage: bridge [flags]' });
  });

  it('tells a bad aggregator flag or an empty --model= on stderr (exit 2)', () => {
    const cases: [string[], string][] = [
      [['--federate', 'ftp://x'], '--federate needs an http(s) URL of an RCP server, got "ftp://x"'],
      [['--federate='], '--federate needs a value'],
      [['--federate-token', 't'], '--federate-token must follow the --federate URL it is for'],
      [['--federate-stdio', 'node x.ts', '--federate-token', 't'], '--federate-token must follow the --federate URL it is for'],
      [['--federate-stdio', '  '], '--federate-stdio needs a command'],
      [['--federate-fusion', 'max'], '--federate-fusion must be one of auto, rrf, convex, score, global-bm25, got "max"'],
      [['--identity='], '--identity needs a value'],
      [['--model='], '--model needs a model name (a folder built by `npm run models`) or auto'],
    ];
    for (const [argv, message] of cases) expect(run(argv), argv.join(' ')).toMatchObject({ code: 2, out: `[rcp-bridge] ${message}\n` });
  });
});

#!/usr/bin/env node
/**
 * The `rcp-in-page` command (the package's `bin`):
 *
 *   rcp-in-page index <folder> --out <folder> [--base-url URL] [--models DIR] [--model NAME|auto|none] [--dtype q8|fp32]
 *
 * builds a static index bundle of a site or content folder (build-index.ts). Exit status: 0 built
 * or up to date, 1 failed, 2 bad usage. Files that could not be indexed are named on stderr and do
 * not fail the build.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildIndex, type BuildOptions } from './build-index.ts';
import { MissingDependencyError } from './node-deps.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import { AUTO_MODEL, builtModelNames, unknownModelMessage } from '../src/models/built-models.ts';
import { isValidFolderName } from '../src/models/model-folder.ts';

const USAGE = `usage: rcp-in-page index <folder> --out <folder> [options]

  --out DIR        where the bundle goes (rcp-bundle.json and its files)
  --base-url URL   URL prefix of the pages (default: root-relative, "/guide/intro.html")
  --models DIR     models folder built by \`npm run models\` (default: ./public/models)
  --model NAME     model folder under --models (default, or auto: its config.json's embedder);
                   "none": a sparse-only bundle, no model needed
  --dtype q8|fp32  weights to use (default: the models config's, else q8)`;

const fail = (message: string, code = 1): never => {
  process.stderr.write(`rcp-in-page: ${message}\n`);
  process.exit(code);
};

/** The model named by the options, loaded through the project's embedder (onnxruntime-node). */
async function modelOption(modelsDir: string, name: string | undefined, dtype: string | undefined): Promise<BuildOptions['model']> {
  if (name === 'none') return undefined;
  const base = resolve(modelsDir) + '/';
  if (!existsSync(base)) fail(`no models folder at ${modelsDir} (build one with \`npm run models\`, point --models at one, or pass --model none for a sparse-only bundle)`);
  let models: typeof import('../src/models/index.ts');
  try {
    models = await import('../src/models/index.ts');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND') throw new MissingDependencyError(`embedding needs '@huggingface/transformers' (with onnxruntime-node): npm install --save-dev @huggingface/transformers, or pass --model none`);
    throw e;
  }
  const { config } = await models.readModelConfig(base, true);
  const model = name === undefined || name === AUTO_MODEL ? config.embedder : name;
  // Refused before anything is read or written: the message lists what is built.
  if (!isValidFolderName(model) || !existsSync(join(base, model))) fail(`--model: ${unknownModelMessage(model, await builtModelNames(base, true))} (or none for a sparse-only bundle)`, 2);
  const d = (dtype ?? config.dtype ?? 'q8') as 'q8' | 'fp32';
  if (d !== 'q8' && d !== 'fp32') fail(`--dtype must be q8 or fp32, not ${dtype}`, 2);
  return { name: model, folder: join(base, model), dtype: d, load: () => models.loadEmbedder({ modelBase: base, model, dtype: d }) };
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        'base-url': { type: 'string' },
        models: { type: 'string' },
        model: { type: 'string' },
        dtype: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, input, ...rest] = positionals;
  if (command !== 'index' || !input || rest.length > 0 || !values.out) return fail(USAGE, 2);
  const model = await modelOption(values.models ?? 'public/models', values.model, values.dtype);
  const report = await buildIndex({
    input,
    out: values.out,
    baseUrl: values['base-url'] ?? '',
    model,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(`${report.upToDate ? 'unchanged' : 'built'} in ${(report.ms / 1000).toFixed(1)} s${report.problems.length ? `; ${report.problems.length} files not indexed (named above)` : ''}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));

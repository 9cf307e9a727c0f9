/**
 * The bridges' `--model NAME|auto`: which dense model the worker runs. The profile remembers it
 * (the worker stores it as the browser's model choice), so a later run without the flag keeps
 * it; `auto` forgets the choice (the default decision again). A change re-embeds the index in the
 * background, as the playground's picker does. A name that is not built is refused here, with the
 * list of built models, before the browser starts: nothing is indexed.
 */
import { join } from 'node:path';
import { checkModelName } from '../src/models/built-models.ts';

/** The models folder of the built app the bridges serve (vite copies public/models/ into dist/). */
export const DIST_MODELS = join(import.meta.dirname, '..', 'dist', 'models') + '/';

/** `--model NAME` / `--model=NAME` from argv, or undefined when not given. A bare `--model` is refused. */
export function modelFlag(argv: readonly string[]): string | undefined {
  let name: string | undefined;
  argv.forEach((a, i) => {
    if (a === '--model') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new Error('--model needs a model name (a folder built by `npm run models`) or auto');
      name = next;
    } else if (a.startsWith('--model=')) name = a.slice('--model='.length);
  });
  if (name === '') throw new Error('--model needs a model name (a folder built by `npm run models`) or auto');
  return name;
}

/** The `--model` value, checked against the built models under `base` (default: dist/models/); throws the refusal. */
export async function modelArg(argv: readonly string[], base = DIST_MODELS): Promise<string | undefined> {
  const name = modelFlag(argv);
  if (name === undefined) return undefined;
  const refused = await checkModelName(name, base, true);
  if (refused) throw new Error(`--model: ${refused}`);
  return name;
}

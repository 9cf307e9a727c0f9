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

const NEEDS_NAME = '--model needs a model name (a folder built by `npm run models`) or auto';

/** The parsed `--model` value, or undefined when not given; an empty one (`--model=`) is refused. */
export function modelFlag(value: string | undefined): string | undefined {
  if (value === '') throw new Error(NEEDS_NAME);
  return value;
}

/** The `--model` name, checked against the built models under `base` (default: dist/models/); throws the refusal. */
export async function modelArg(name: string | undefined, base = DIST_MODELS): Promise<string | undefined> {
  if (name === undefined) return undefined;
  const refused = await checkModelName(name, base, true);
  if (refused) throw new Error(`--model: ${refused}`);
  return name;
}

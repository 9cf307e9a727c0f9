/**
 * Which dense models a models folder holds, for every way in that names one by its folder: the
 * bridges' `--model`, the library's `models` option, `rcp-in-page index --model`. A name that is
 * not built is refused with the list of those that are, before anything is indexed.
 */
import { MODEL_CATALOG } from './catalog.ts';
import { readManifest } from './manifest.ts';

/** `--model auto` / `models: 'auto'`: no choice, the default decision (config.json's embedder). */
export const AUTO_MODEL = 'auto';

/**
 * The catalog's dense models that `npm run models` built under `base` (a folder with its
 * manifest.json), in catalog order. `base` ends in '/': a URL path in the browser, a filesystem
 * path in Node.
 */
export async function builtModelNames(base: string, node: boolean): Promise<string[]> {
  const found = await Promise.all(MODEL_CATALOG.map((m) => readManifest(base, m.name, node).then(() => m.name, () => undefined)));
  return found.filter((n): n is string => n !== undefined);
}

/** The sentence an unknown model name is refused with. */
export function unknownModelMessage(name: string, built: readonly string[]): string {
  const list = built.length ? `built models: ${built.join(', ')}` : 'no model is built (run `npm run models`)';
  return `model '${name}' is not built here; ${list}, or '${AUTO_MODEL}' for the default`;
}

/** Undefined when `name` may run (a built model, or `auto`), else the refusal. */
export async function checkModelName(name: string, base: string, node: boolean): Promise<string | undefined> {
  if (name === AUTO_MODEL) return undefined;
  const built = await builtModelNames(base, node);
  return built.includes(name) ? undefined : unknownModelMessage(name, built);
}

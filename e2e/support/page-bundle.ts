import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * An entry module bundled (vite, library mode) into one IIFE script for `page.addScriptTag`, so a
 * spec can run engine code inside Chromium without the app; `name` is the IIFE's global.
 */
export async function pageBundle(entry: URL, name: string): Promise<string> {
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry: fileURLToPath(entry), formats: ['iife'], name, fileName: name } },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as { output: { type: string; code?: string }[] }[];
  return outputs.flatMap((o) => o.output).find((f) => f.type === 'chunk')!.code!;
}

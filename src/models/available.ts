/**
 * The built-in models this app serves (catalog.ts entries whose folder has a manifest), with what
 * the picker shows: dimension, license, download size of the ONNX file for the dtype, measured
 * quality.
 */
import type { AvailableModel } from '../protocol/control.ts';
import { MODEL_CATALOG } from './catalog.ts';
import type { ModelManifest } from './manifest.ts';
import { ONNX_FILE, type EmbedDtype } from './settings.ts';

export type { AvailableModel } from '../protocol/control.ts';

export async function availableModels(base: string, dtype: EmbedDtype): Promise<AvailableModel[]> {
  const found = await Promise.all(
    MODEL_CATALOG.map(async (entry): Promise<AvailableModel | undefined> => {
      try {
        const res = await fetch(`${base}${entry.name}/manifest.json`, { cache: 'no-cache' });
        if (!res.ok || /text\/html/i.test(res.headers.get('content-type') ?? '')) return undefined;
        const m = (await res.json()) as ModelManifest;
        const file = m.files[ONNX_FILE[dtype]] ? ONNX_FILE[dtype] : ONNX_FILE[dtype === 'q8' ? 'fp32' : 'q8'];
        const head = await fetch(`${base}${entry.name}/${file}`, { method: 'HEAD' });
        const length = Number(head.headers.get('content-length'));
        return { ...entry, dimension: m.dimension, license: m.license, bytes: length > 0 ? length : undefined, dtype };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((m): m is AvailableModel => m !== undefined);
}

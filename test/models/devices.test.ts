/**
 * Device choice under `auto`: WebGPU first when a real adapter exists, then WASM; a software
 * (fallback) adapter is passed over with a note; a failed WebGPU try falls back with its reason.
 */
import { describe, expect, it } from 'vitest';
import { loadOnFirstDevice } from '../../src/models/devices.ts';
import type { EmbedDevice, ModelLoadEvent } from '../../src/models/progress.ts';
import { deviceCandidates, type EmbedderSettings } from '../../src/models/settings.ts';

const settings = (over: Partial<EmbedderSettings> = {}): EmbedderSettings =>
  ({ model: 'm', modelBase: '/models/', device: 'auto', dtype: 'q8', wasmPaths: '/ort/', batchSize: 8, ...over }) as EmbedderSettings;
const browser = { node: false, webgpu: true };

describe('device choice', () => {
  it('auto tries a hardware WebGPU adapter first, skips a software one, and keeps a forced device', () => {
    expect(deviceCandidates(settings(), browser)).toEqual(['webgpu', 'wasm']);
    expect(deviceCandidates(settings(), { ...browser, webgpuSoftware: true })).toEqual(['wasm']);
    expect(deviceCandidates(settings(), { node: false, webgpu: false })).toEqual(['wasm']);
    expect(deviceCandidates(settings({ device: 'webgpu' }), { ...browser, webgpuSoftware: true })).toEqual(['webgpu']);
    expect(deviceCandidates(settings(), { node: true, webgpu: false })).toEqual(['cpu']);
  });

  it('falls back from a failed WebGPU try to WASM and says why', async () => {
    const events: ModelLoadEvent[] = [];
    const tried: EmbedDevice[] = [];
    const { device } = await loadOnFirstDevice('m', settings({ failDevices: ['webgpu'] }), browser, (e) => events.push(e), async (d) => void tried.push(d));
    expect(device).toBe('wasm');
    expect(tried).toEqual(['wasm']); // the simulated failure happens before the attempt
    expect(events).toEqual([{ status: 'device', name: 'm', device: 'wasm', fallbackFrom: 'webgpu', reason: expect.stringMatching(/simulated webgpu failure/) }]);
  });

  it('notes a software adapter passed over', async () => {
    const events: ModelLoadEvent[] = [];
    await loadOnFirstDevice('m', settings(), { ...browser, webgpuSoftware: true }, (e) => events.push(e), async () => undefined);
    expect(events).toEqual([{ status: 'device', name: 'm', device: 'wasm', skippedSoftwareGpu: true }]);
  });
});

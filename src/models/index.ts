export { TransformersEmbedder, loadEmbedder } from './embedder.ts';
export { modelIdentity, readManifest, type ModelManifest } from './manifest.ts';
export type { DeviceChosenInfo, EmbedDevice, ModelLoadEvent, ModelLoadListener } from './progress.ts';
export * from './settings.ts';
export { detectModelSupport, type ModelRuntimeSupport } from './support.ts';
export { maxSim, toNestedArrays, toTokenMatrices, type TokenMatrix } from './token-vectors.ts';

export { CrossEncoderReranker } from './cross-encoder.ts';
export { TransformersEmbedder, loadEmbedder } from './embedder.ts';
export { modelIdentity, readManifest, type ModelManifest } from './manifest.ts';
export { DEFAULT_MODEL_CONFIG, MODEL_CONFIG_FILE, parseModelConfig, readModelConfig, type ModelConfig } from './model-config.ts';
export { configDimension, isValidFolderName, resolveModelFolder, sha256Hex, type ModelFolder } from './model-folder.ts';
export type { DeviceChosenInfo, EmbedDevice, ModelLoadEvent, ModelLoadListener } from './progress.ts';
export * from './settings.ts';
export { detectModelSupport, type ModelRuntimeSupport } from './support.ts';
export { maxSim, toNestedArrays, toTokenMatrices, type TokenMatrix } from './token-vectors.ts';

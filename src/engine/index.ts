export {
  Engine, type AddOptions, type AddResult, type DeleteResult, type DocumentDetail, type DocumentPage, type DocumentSummary, type EngineCapabilities, type EngineOptions,
} from './engine.ts';
export { MemoryStore } from './memory-store.ts';
export { createAnalyzer, type Analyzer, type AnalyzerOptions } from './analyzer.ts';
export { DEFAULT_FIELDS, DEFAULT_LIMITS, type EngineLimits } from './config.ts';
export type { AddDocument } from './prepare.ts';
export type { RetrieveContext } from './retrieve.ts';
export type * from './contracts.ts';

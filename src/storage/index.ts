export { openIndexedDbStore, type IdbStoreOptions, type StoreFaults } from './idb-store.ts';
export { StorageUnavailableError } from './errors.ts';
export { estimateBytes, type StorageEstimateBytes } from './estimate.ts';
export { SCHEMA_VERSION, type RcpDB } from './schema.ts';

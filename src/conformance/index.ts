export { runConformance, certify, CHECKS } from './run.ts';
export { HttpWire } from './http-wire.ts';
export { StreamWire } from './stream-wire.ts';
export { toJsonReport, formatText, counts, failed } from './report.ts';
export type { Wire, Reply, Expect } from './wire.ts';
export type { Report, CheckResult, JsonReport, Level, Status, Evidence } from './types.ts';

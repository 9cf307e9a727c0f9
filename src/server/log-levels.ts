import type { LogLevel } from '../protocol/types.ts';

/** §17.1 severities, least to most severe; the index is the comparison key. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(['debug', 'info', 'notice', 'warning', 'error']);

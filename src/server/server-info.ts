import type { PeerInfo } from '../protocol/types.ts';

/** The identity this server reports in `initialize` / `info`. */
export const SERVER_INFO: Readonly<PeerInfo> = Object.freeze({ name: 'rcp-in-page', version: '0.1.0' });

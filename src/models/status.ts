/** The models' state as the page and status displays see it (no runtime imports: it travels in the package's types). */
export interface ModelStatus {
  name: string;
  identity: string;
  state: 'loading' | 'ready' | 'failed';
  device?: string;
  /** 0..1 while files load. */
  progress?: number;
  error?: string;
  /** Load time of the embedder (files + session + warm-up inference), once ready. */
  loadMs?: number;
  /** The cross-encoder, when one is configured and loaded. */
  crossEncoder?: { name: string; identity: string; device: string; loadMs: number };
}


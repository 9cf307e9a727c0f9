/** What the engines people would pick instead must do to stand behind the RCP surface (peer-backend.ts). */

export type PeerMode = 'sparse' | 'dense' | 'hybrid';

export interface PeerDocument {
  id: string;
  text: string;
  title: string;
}

export interface PeerHit {
  id: string;
  score: number;
}

/** Embeds texts with the model the comparison uses (ours): unit vectors, one per text. */
export type EmbedTexts = (texts: string[], kind: 'query' | 'document') => Promise<Float32Array[]>;

export interface PeerIndex {
  readonly name: string;
  readonly version: string;
  /** The modes it answers; dense and hybrid need vectors, given with every add and query. */
  readonly modes: readonly PeerMode[];
  /** Whether adds and queries need vectors (the harness embeds them with our model). */
  readonly needsVectors: boolean;
  /** Upserts by id. */
  add(docs: PeerDocument[], vectors?: Float32Array[]): Promise<void>;
  /** Deletes by id; returns how many existed. */
  remove(ids: string[]): Promise<number>;
  search(query: string, k: number, mode: PeerMode, vector?: Float32Array): Promise<PeerHit[]>;
}

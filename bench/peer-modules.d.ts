/**
 * The parts of the peer vector stores' APIs the bench uses (bench/peers.ts), so the project
 * type-checks whether or not they are installed (the bench build resolves them, bench/vite.config.ts).
 */
declare module 'edgevec' {
  export default function init(): Promise<unknown>;
  export class EdgeVecConfig {
    constructor(dimensions: number);
    metric: string;
    m: number;
    m0: number;
    ef_construction: number;
    ef_search: number;
  }
  export class EdgeVec {
    constructor(config: EdgeVecConfig);
    insertBatchFlat(vectors: Float32Array, count: number): Uint32Array;
    search(query: Float32Array, k: number): { id: number; score: number }[];
  }
}

declare module '@babycommando/entity-db' {
  export class EntityDB {
    constructor(o: { vectorPath: string; model?: string });
    insertManualVectors(data: Record<string, unknown>): Promise<number>;
    queryManualVectors(vector: Float32Array, o?: { limit?: number }): Promise<Record<string, unknown>[]>;
  }
}

/**
 * Stands in for a peer vector store that is neither a dependency nor found under BENCH_PEERS
 * (bench/vite.config.ts): its stage fails with this message and the report notes it.
 */
const missing = (): never => {
  throw new Error('not installed: add it to devDependencies or point BENCH_PEERS at a node_modules that has it');
};
export default missing;
export class EdgeVecConfig {
  constructor() {
    missing();
  }
}
export class EdgeVec {
  constructor() {
    missing();
  }
}
export class EntityDB {
  constructor() {
    missing();
  }
}

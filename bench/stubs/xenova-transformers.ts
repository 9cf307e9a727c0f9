/**
 * Stands in for `@xenova/transformers` in the bench build. EntityDB imports it and starts loading
 * a model from the Hugging Face Hub when its module loads; the bench gives EntityDB its vectors
 * (`insertManualVectors` / `queryManualVectors`) and makes no network request, so the pipeline
 * never resolves and nothing is fetched.
 */
export const env: Record<string, unknown> = { backends: { onnx: { wasm: {} } } };
export const pipeline = (): Promise<never> => new Promise<never>(() => undefined);

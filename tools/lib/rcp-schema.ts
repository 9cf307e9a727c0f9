import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The normative schema lives beside the repository, in ../shared (never copied into the repo). */
export const SCHEMA_PATH = join(import.meta.dirname, '..', '..', '..', 'shared', 'rcp', 'schema', 'rcp-1.0.json');

export interface FrameValidator {
  /** Errors for one frame text (any message or batch); empty when valid. */
  frame(text: string): string[];
  /** Errors for a result checked against its method's result shape (`$defs/ResultFor`). */
  result(method: string, result: unknown): string[];
}

/**
 * Compiles the normative RCP/1 schema (draft 2020-12). Throws — loudly, never a silent pass —
 * when the schema file is missing.
 */
export function loadRcpSchema(): FrameValidator {
  if (!existsSync(SCHEMA_PATH)) {
    throw new Error(`RCP schema NOT FOUND at ${SCHEMA_PATH}: frames cannot be validated. Put shared/ beside the repository.`);
  }
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
  const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as { default?: typeof addFormats }).default?.(ajv) ?? addFormats(ajv);
  ajv.addSchema(schema);
  const id: string = schema.$id;
  const root = ajv.getSchema(id)!;
  const resultFor = ajv.getSchema(`${id}#/$defs/ResultFor`)!;
  const fmt = (errs: typeof root.errors) => (errs ?? []).map((e) => `${e.instancePath} ${e.message}`);
  return {
    frame(text) {
      return root(JSON.parse(text)) ? [] : fmt(root.errors);
    },
    result(method, result) {
      return resultFor({ method, result }) ? [] : fmt(resultFor.errors);
    },
  };
}

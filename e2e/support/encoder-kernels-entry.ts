/** Bundled by e2e/encoder-kernels.spec.ts into the page: each GEMM variant against the JS reference in Chromium's V8. */
import { gemmDisagreement } from '../../test/support/gemm-agreement.ts';
import type { DotKind } from '../../src/models/encoder-runtime/kernels/gemm.ts';

(window as unknown as { gemmDisagreement: unknown }).gemmDisagreement = (dot: DotKind) => gemmDisagreement(dot) ?? null;

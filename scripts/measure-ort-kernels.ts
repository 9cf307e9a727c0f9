/**
 * Where the WASM/native encoder gap goes (figures, not a test). Both runtimes run in this Node
 * process on ONE thread and are timed in CPU time (process.cpuUsage), which a shared machine's
 * load barely moves, unlike wall time:
 *   - kernels: single-op ONNX graphs at all-MiniLM-L6-v2's shapes for a batch of 8×256 tokens
 *     (the FFN GEMM in float32 and in dynamic int8, the attention core, GELU, LayerNorm);
 *   - model: the built encoder (fp32 and q8) on the same padded, length-sorted batches of 8
 *     ≈1,000-character sample passages that the worker embeds (tokenization excluded);
 * onnxruntime-web runs the app's own binary (ort-wasm-simd-threaded.asyncify.wasm, WASM SIMD128
 * without relaxed SIMD), onnxruntime-node the native CPU build (AVX2/AVX-512/VNNI where the CPU
 * has them). The per-thread ratio bounds the browser's ratio at equal thread counts.
 * `--wasm plain` runs the CPU-only build (ort-wasm-simd-threaded.wasm) instead: same kernels, half
 * the size; in isolated single-op graphs the app's build ran float32 MatMul ≈3× slower than it,
 * a difference the whole model does not show (docs/models.md "Encoder speed on WASM").
 *
 * Our own kernels (src/models/encoder-runtime/) run beside them at the same shapes, each kernel
 * timed alone, and the whole encoder on the same passages (unpadded: our runtime concatenates a
 * batch's texts instead of padding them, so it does less work per batch, which is the point): the
 * fixed-width SIMD variant always, the relaxed-SIMD one when Node validates it —
 * `--experimental-wasm-relaxed-simd`, and `--no-liftoff`, because Node 20's baseline compiler
 * computes `i32x4.relaxed_dot_i8x16_i7x16_add_s` wrongly (the optimising one is right).
 *
 * Usage: node [--experimental-wasm-relaxed-simd --no-liftoff] --import tsx scripts/measure-ort-kernels.ts [--passages 96] [--only kernels|model] [--wasm app|plain]
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { GraphBuilder, T } from './models/onnx-builder.ts';
import { valueInfo } from './models/onnx-graph.ts';
import { quantizeColumns } from './models/bert-onnx.ts';
import { ORT_WASM_FILES } from '../src/models/settings.ts';
import { compileModule, instantiate } from '../src/util/wasm-compile.ts';
import { encoderModuleBytes, encoderKernels } from '../src/models/encoder-runtime/kernel-module.ts';
import { columnSums, gemmName, packWeights, type DotKind } from '../src/models/encoder-runtime/kernels/gemm.ts';
import { GELU, layerNormName, quantizeName } from '../src/models/encoder-runtime/kernels/rows.ts';
import { attend, placeAttentionScratch } from '../src/models/encoder-runtime/kernels/attention.ts';
import { bertWeights } from '../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights, WEIGHTS_FILE } from '../src/models/encoder-runtime/weights-file.ts';
import { WasmBertEncoder } from '../src/models/encoder-runtime/wasm-encoder.ts';
import { encodeTruncated } from '../src/models/truncate.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values: flags } = cliArgs({
  usage: 'node [--experimental-wasm-relaxed-simd --no-liftoff] --import tsx scripts/measure-ort-kernels.ts [--passages 96] [--only kernels|model] [--wasm app|plain]',
  options: { passages: { type: 'string' }, only: { type: 'string' }, wasm: { type: 'string' } },
});
const ROOT = join(import.meta.dirname, '..');
const PASSAGES = Number(flags.passages ?? '96');
const ONLY = flags.only ?? '';

type Ort = typeof ortNode;
const dist = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');
ortWeb.env.wasm.numThreads = 1;
env.allowRemoteModels = false;
env.localModelPath = join(ROOT, 'public', 'models') + '/';
/** `--wasm plain` runs onnxruntime-web's CPU-only build instead of the app's (which also carries WebGPU). */
const WASM = flags.wasm ?? 'app';
const [mjs, wasm] = WASM === 'plain' ? ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'] : ORT_WASM_FILES;
ortWeb.env.wasm.wasmPaths = { mjs: join(dist, mjs), wasm: join(dist, wasm) };
const RUNTIMES: [string, Ort, Record<string, unknown>][] = [
  ['node', ortNode, { intraOpNumThreads: 1 }],
  ['web', ortWeb as unknown as Ort, {}],
];

/** CPU milliseconds per call of `run`, after one warm-up call. */
async function cpuMs(run: () => Promise<unknown>, reps: number): Promise<number> {
  await run();
  const c0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) await run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / reps;
}

/** Deterministic pseudo-random values in [-s, s]. */
function values(n: number, s: number): Float32Array {
  const a = new Float32Array(n);
  let x = 1;
  for (let i = 0; i < n; i++) (x = (x * 16807) % 2147483647), (a[i] = ((x / 2147483647) * 2 - 1) * s);
  return a;
}

const B = 8, S = 256, H = 384, NH = 12, HD = 32, I = 1536;
const SHAPE = { layers: 6, hidden: H, heads: NH, intermediate: I, maxPositions: 512, typeVocab: 2, vocab: 30522, layerNormEps: 1e-12 };
/** Our kernel variants that run here: fixed-width SIMD always, relaxed SIMD when validated (see the usage note). */
const OURS: DotKind[] = ['simd', ...(compileModule(encoderModuleBytes(SHAPE, 'relaxed')) ? (['relaxed', 'relaxed16'] as const) : [])];

/** Our module over one memory with a bump allocator, for timing single kernels. */
function ourInstance(dot: DotKind) {
  const memory = new WebAssembly.Memory({ initial: 2048 });
  const module = compileModule(encoderModuleBytes(SHAPE, dot))!;
  const k = instantiate<Record<string, (...a: number[]) => void>>(module, memory);
  let at = 64;
  const put = (data: ArrayBufferView) => {
    const p = at;
    new Uint8Array(memory.buffer, p, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    at = Math.ceil((p + data.byteLength + 4096) / 64) * 64;
    return p;
  };
  return { k, put };
}
type Ours = ReturnType<typeof ourInstance>;
interface Kernel { name: string; flop?: number; inputs: [string, number[]][]; build(g: GraphBuilder): string; ours?: (o: Ours) => () => void }
const KERNELS: Kernel[] = [
  { name: 'FFN GEMM fp32 (2048×384·384×1536)', flop: 2 * B * S * H * I, inputs: [['x', [B, S, H]]], build: (g) => g.op('MatMul', ['x', g.float('w', [H, I], values(H * I, 0.05))]) },
  {
    name: 'FFN GEMM int8 dynamic (same)', flop: 2 * B * S * H * I, inputs: [['x', [B, S, H]]],
    build: (g) => {
      const { q, scales } = quantizeColumns(values(H * I, 0.05), H, I);
      const [xq, xs, xz] = g.ops('DynamicQuantizeLinear', ['x'], 3);
      const acc = g.op('MatMulInteger', [xq, g.int8('wq', [H, I], q), xz]);
      return g.op('Mul', [g.op('Cast', [acc], { to: T.FLOAT }), g.op('Mul', [xs, g.float('ws', [I], scales)])]);
    },
    // Ours: per-row 7-bit quantisation of x, then the int8 GEMM with its dequantising epilogue.
    ours: ({ k, put }) => {
      const M = B * S;
      const { q, scales } = quantizeColumns(values(H * I, 0.05), H, I);
      const x = put(values(M * H, 1)), ones = put(new Float32Array(H).fill(1)), codes = put(new Uint8Array(M * H)), rs = put(new Float32Array(M)), rz = put(new Int32Array(M));
      const w = put(packWeights(q, H, I)), cs = put(columnSums(q, H, I)), csc = put(scales), bias = put(new Float32Array(I)), out = put(new Float32Array(M * I));
      return () => {
        k[quantizeName(H)](x, M, ones, codes, rs, rz);
        k[gemmName(H)](codes, M, w, I, out, rs, rz, cs, csc, bias);
      };
    },
  },
  {
    name: 'attention core (QKᵀ/√d + mask, softmax, ·V)', inputs: [['q', [B, NH, S, HD]], ['k', [B, NH, S, HD]], ['v', [B, NH, S, HD]], ['mask', [B, 1, 1, S]]],
    build: (g) => g.op('MatMul', [g.op('Softmax', [g.op('Add', [g.op('Div', [g.op('MatMul', ['q', g.op('Transpose', ['k'], { perm: [0, 1, 3, 2] })]), g.scalar('d', Math.sqrt(HD))]), 'mask'])], { axis: -1 }), 'v']),
    // Ours: per sequence over its [Q|K|V] rows, every head (int8 scores, float32 softmax and P·V).
    ours: ({ k, put }) => {
      const qkv = put(values((B * S + 8) * 3 * H, 1)), out = put(new Float32Array((B * S + 8) * H));
      const scratch = placeAttentionScratch(H, NH, S + 8, (bytes) => put(new Uint8Array(bytes)));
      return () => {
        for (let b = 0; b < B; b++) attend(k, H, NH, qkv + b * S * 3 * H * 4, S, out + b * S * H * 4, scratch);
      };
    },
  },
  {
    name: 'erf GELU (2048×1536)', inputs: [['x', [B, S, I]]], build: (g) => g.op('Mul', [g.op('Mul', ['x', g.op('Add', [g.op('Erf', [g.op('Div', ['x', g.scalar('r2', Math.SQRT2)])]), g.scalar('one', 1)])]), g.scalar('half', 0.5)]),
    ours: ({ k, put }) => {
      const x = put(values(B * S * I, 3));
      return () => k[GELU](x, B * S * I);
    },
  },
  {
    name: 'residual Add + LayerNorm (2048×384)', inputs: [['x', [B, S, H]], ['r', [B, S, H]]], build: (g) => g.op('LayerNormalization', [g.op('Add', ['x', 'r']), g.float('gamma', [H], values(H, 1)), g.float('beta', [H], values(H, 0.1))], { axis: -1, epsilon: { f: 1e-12 } }),
    ours: ({ k, put }) => {
      const x = put(values(B * S * H, 1)), r = put(values(B * S * H, 1)), g = put(values(H, 1)), b = put(values(H, 0.1));
      return () => k[layerNormName(H)](x, r, g, b, B * S, 1e-12);
    },
  },
];

async function kernels(): Promise<void> {
  const oursHeader = OURS.map((d) => ` ours ${d} CPU ms |`).join('');
  console.log(`| kernel (1 thread) | node CPU ms | web CPU ms | web/node |${oursHeader}${OURS.map((d) => ` ours ${d}/web |`).join('')}\n|---|---|---|---|${OURS.map(() => '---|---|').join('')}`);
  for (const k of KERNELS) {
    const g = new GraphBuilder();
    const y = k.build(g);
    g.op('Identity', [y], {}, ['y']);
    const rank = k.inputs[0][1].length;
    const bytes = g.encode({ name: 'kernel', doc: k.name, inputs: k.inputs.map(([n, d]) => valueInfo(n, T.FLOAT, d)), outputs: [valueInfo('y', T.FLOAT, Array.from({ length: rank }, (_, i) => `d${i}`))], opset: 17, producer: 'measure-ort-kernels' });
    const ms: number[] = [];
    for (const [, ort, options] of RUNTIMES) {
      const session = await ort.InferenceSession.create(bytes, options);
      const feeds = Object.fromEntries(k.inputs.map(([n, d]) => [n, new ort.Tensor('float32', values(d.reduce((a, b) => a * b, 1), 1), d)]));
      ms.push(await cpuMs(() => session.run(feeds), 8));
      await session.release();
    }
    const ours = OURS.map((d) => {
      if (!k.ours) return undefined;
      const run = k.ours(ourInstance(d));
      return cpuMs(async () => run(), 8);
    });
    const oursMs = await Promise.all(ours);
    const gflops = k.flop ? ` (${[...ms, ...oursMs.filter((m): m is number => m !== undefined)].map((m) => ((k.flop! / m) * 1e-6).toFixed(0)).join(' / ')} GFLOP/s)` : '';
    const cells = oursMs.map((m) => ` ${m?.toFixed(1) ?? '—'} |`).join('') + oursMs.map((m) => ` ${m ? `${(m / ms[1]).toFixed(2)}×` : '—'} |`).join('');
    console.log(`| ${k.name}${gflops} | ${ms[0].toFixed(1)} | ${ms[1].toFixed(1)} | ${(ms[1] / ms[0]).toFixed(1)}× |${cells}`);
  }
}

/** The passages' token ids, length-sorted, truncated as the runtimes do. */
async function passageIds(): Promise<number[][]> {
  const tokenizer = await AutoTokenizer.from_pretrained('minilm-l6-v2');
  return sortedPassages().map((t) => encodeTruncated(tokenizer, t, 256).input_ids);
}

function sortedPassages(): string[] {
  const corpus = JSON.parse(readFileSync(join(ROOT, 'public', 'sample', 'corpus.json'), 'utf8')) as { documents: { text: string }[] };
  const texts: string[] = [];
  for (const d of corpus.documents) for (let i = 0; i + 1000 <= d.text.length && texts.length < PASSAGES; i += 850) texts.push(d.text.slice(i, i + 1000));
  return texts.sort((a, b) => a.length - b.length);
}

/** Length-sorted padded batches of 8 passages, as the worker embeds them (src/models/embedder.ts). */
async function batches(): Promise<{ n: number; w: number; ids: BigInt64Array; mask: BigInt64Array }[]> {
  const texts = sortedPassages();
  const tokenizer = await AutoTokenizer.from_pretrained('minilm-l6-v2');
  const out = [];
  for (let at = 0; at < texts.length; at += 8) {
    const enc = texts.slice(at, at + 8).map((t) => (tokenizer(t, { return_tensor: false }) as unknown as { input_ids: number[] }).input_ids.slice(0, 256));
    const w = Math.max(...enc.map((e) => e.length));
    const ids = new BigInt64Array(enc.length * w), mask = new BigInt64Array(enc.length * w);
    enc.forEach((e, r) => e.forEach((id, j) => ((ids[r * w + j] = BigInt(id)), (mask[r * w + j] = 1n))));
    out.push({ n: enc.length, w, ids, mask });
  }
  return out;
}

/** Our whole encoder on the same passages' token ids, in batches of 8 texts, unpadded: passages per CPU-second. */
async function ourModel(dot: DotKind, ids: number[][]): Promise<number> {
  const file = readFileSync(join(ROOT, 'public', 'models', 'minilm-l6-v2', WEIGHTS_FILE.q8));
  const weights = bertWeights(decodeWeights(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer));
  const encoder = new WasmBertEncoder(weights, (await encoderKernels(weights.shape, dot))!);
  const inputs = ids.map((s) => ({ ids: s }));
  const ms = await cpuMs(async () => {
    for (let at = 0; at < inputs.length; at += 8) encoder.hidden(inputs.slice(at, at + 8));
  }, 1);
  return ids.length / (ms / 1000);
}

async function model(): Promise<void> {
  const data = await batches();
  const tokens = data.reduce((a, b) => a + b.n * b.w, 0);
  console.log(`\n${PASSAGES} passages, ${data.length} batches, ${tokens} padded tokens\n| model (1 thread) | node passages/CPU-s | web passages/CPU-s | web/node |\n|---|---|---|---|`);
  for (const file of ['model.onnx', 'model_quantized.onnx']) {
    const path = join(ROOT, 'public', 'models', 'minilm-l6-v2', 'onnx', file);
    const rates: number[] = [];
    for (const [, ort, options] of RUNTIMES) {
      const session = await ort.InferenceSession.create(path, options);
      const feeds = (b: (typeof data)[number]) => ({
        input_ids: new ort.Tensor('int64', b.ids, [b.n, b.w]),
        attention_mask: new ort.Tensor('int64', b.mask, [b.n, b.w]),
        token_type_ids: new ort.Tensor('int64', new BigInt64Array(b.n * b.w), [b.n, b.w]),
      });
      const ms = await cpuMs(async () => {
        for (const b of data) await session.run(feeds(b));
      }, 1);
      rates.push(PASSAGES / (ms / 1000));
      await session.release();
    }
    console.log(`| ${file} | ${rates[0].toFixed(1)} | ${rates[1].toFixed(1)} | ${((rates[1] / rates[0]) * 100).toFixed(0)}% |`);
  }
  const ids = await passageIds();
  const real = ids.reduce((a, s) => a + s.length, 0);
  for (const dot of OURS) {
    const rate = await ourModel(dot, ids);
    console.log(`| ours, int8 weight file, ${dot} (${real} real tokens, no padding) | — | ${rate.toFixed(1)} | — |`);
  }
}

console.log(`# onnxruntime-node ${ortNode.env.versions.node ?? ''} vs onnxruntime-web ${ortWeb.env.versions.web ?? ''} (${wasm}), 1 thread each; ${cpus().length} cores; load average ${loadavg()[0].toFixed(2)}`);
if (ONLY !== 'model') await kernels();
if (ONLY !== 'kernels') await model();
console.log(`# load average ${loadavg()[0].toFixed(2)} at end`);

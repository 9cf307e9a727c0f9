/** Runs a repository script with Node (tsx) and collects what it printed, for specs that compare against a CLI. */
import { spawn } from 'node:child_process';
import { ROOT } from '../../tools/lib/bridge-process.ts';

export function runScript(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('node', ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((ok) => child.on('exit', (code) => ok({ code, stdout, stderr })));
}

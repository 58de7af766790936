// Page tests of the synthetic workload models: the Lublin–Feitelson generator chosen as the
// workload source runs every policy in the worker and gives exactly the CLI's numbers for the
// same scenario (the generator's bytes are the same natively and in wasm), and a 1,000,000-job
// link runs in the page (release build in dist/ and target/release/gridscope first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { waitResults, repoRoot, assertSameNumbers, pageSuite, assertCleanPages } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const { open, pages } = pageSuite();
const POLICIES = ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'];

/** The CLI's metrics for a scenario, by label. */
function cli(scenario) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-models-'));
  const file = path.join(dir, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  const report = JSON.parse(execFileSync(CLI, ['run', file, '--json'], { maxBuffer: 64 << 20 }).toString());
  fs.rmSync(dir, { recursive: true });
  return Object.fromEntries(report.runs.map((r) => [r.label, r.metrics]));
}

test('the Lublin–Feitelson source runs every policy with the CLI\'s numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=workload-source]', 'lublin');
  await page.fill('#f-lublin-jobs', '3000');
  await page.press('#f-lublin-jobs', 'Tab');
  await page.fill('#f-lublin-nodes', '64');
  await page.press('#f-lublin-nodes', 'Tab');
  await page.click('[data-testid=lublin-types]');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('3,000 jobs; platform: one site of 64'), null, { timeout: 60_000 });
  const got = await waitResults(page, 5);
  const want = cli({
    version: 1, seed: 1,
    platform: { kind: 'from_trace', procs: 64 },
    workload: { kind: 'lublin', jobs: 3000, nodes: 64, job_types: true },
    algorithms: POLICIES.map((local) => ({ local })),
  });
  assertSameNumbers(got, want);
  assert.equal(got.easy.jobs_finished, 3000);
});

test('a link with a 1,000,000-job Lublin workload runs in the page', async () => {
  const scenario = {
    version: 1, name: 'a million jobs', seed: 1,
    platform: { kind: 'from_trace', procs: 128 },
    workload: { kind: 'lublin', jobs: 1_000_000 },
    algorithms: [{ local: 'easy' }],
  };
  const hash = `#s1=${zlib.deflateRawSync(Buffer.from(JSON.stringify({ scenario, files: [] })), { level: 9 }).toString('base64url')}`;
  const page = await open(hash);
  const got = await waitResults(page, 1, 300_000);
  assert.equal(got.easy.jobs_finished, 1_000_000);
  assertSameNumbers(got, cli(scenario));
});

test('no page left 127.0.0.1 or logged an error', () => assertCleanPages(pages, 2));

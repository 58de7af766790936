// Several trace files dropped together run as several sites, one per file (issue #30): the
// page's numbers equal the CLI's for the same scenario (a `swf_sites` workload on explicit
// sites, each sized as the CLI sizes the trace's one site). Needs `trunk build --release
// --offline` and `cargo build --release`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, traces, pageSuite, assertCleanPages, assertSameNumbers, waitResults, dropFiles } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const TRACES = ['NASA-iPSC-1993-3.1-cln.swf.gz', 'KTH-SP2-1996-2.1-cln.swf.gz'];
const POLICIES = ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'];
const { open, pages } = pageSuite();

function cliJson(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  return JSON.parse(execFileSync(CLI, [...args, '--json'], { maxBuffer: 256 << 20 }).toString());
}

test('two traces dropped together run as two sites, one per file, to the CLI numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await dropFiles(page, TRACES.map((name) => ({ name, bytes: fs.readFileSync(path.join(traces, name)) })));
  await page.waitForFunction(() => /2 files as 2 sites/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 60_000 });
  assert.doesNotMatch(await page.textContent('body'), /several files as several sites come later/);
  assert.match(await page.textContent('[data-testid=workload-detail]'), /each shifted to start at t = 0/);
  const t0 = Date.now();
  const rows = await waitResults(page, 5, 300_000);
  const pageMs = Date.now() - t0;
  // The same experiment through the CLI: each trace's one site as `simulate` sizes it, the
  // traces beside the scenario file (links, nothing copied).
  const sites = TRACES.map((t) => cliJson(['simulate', path.join(traces, t), '--policy', 'fcfs']).platform.sites[0]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-sites-'));
  for (const t of TRACES) fs.symlinkSync(path.join(traces, t), path.join(dir, t));
  const scenario = {
    version: 2, name: 'two traces', seed: 1,
    platform: { kind: 'sites', name: '2 dropped traces', sites },
    workload: { kind: 'swf_sites', files: TRACES, align: 'zero' },
    algorithms: POLICIES.map((local) => ({ local })),
  };
  fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(scenario));
  const t1 = Date.now();
  const cli = cliJson(['run', path.join(dir, 'scenario.json')]);
  console.log(`# two dropped traces as two sites (${TRACES.join(', ')}): page ${pageMs} ms, CLI ${Date.now() - t1} ms`);
  assert.deepEqual(cli.platform.sites.map((s) => s.name), ['NASA-iPSC-1993-3.1-cln', 'KTH-SP2-1996-2.1-cln']);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])), POLICIES);
  // The page's platform is the same two sites, as its results say.
  const info = await page.textContent('[data-testid=run-info]');
  assert.match(info, /^2 traces, one site each/);
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 1);
});

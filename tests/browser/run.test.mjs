// Page tests of run control: a long run in the worker pauses, resumes and cancels between
// slices, in the same worker (release build in dist/: `trunk build --release --offline`,
// `cargo build --release` first):   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import zlib from 'node:zlib';
import { waitResults, repoRoot, assertSameNumbers, pageSuite, assertCleanPages } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const suite = pageSuite();
const { newPage, pages } = suite;

function demo() {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  const report = JSON.parse(execFileSync(CLI, ['run', '--preset', 'demo', '--json'], { maxBuffer: 64 << 20 }).toString());
  return Object.fromEntries(report.runs.map((r) => [r.label, r.metrics]));
}

const progress = (page) => page.$eval('[data-testid=progress]', (p) => Number(p.value));
const status = (page) => page.textContent('[data-testid=status]');

test('a long run pauses, resumes and cancels without restarting the worker', async () => {
  const page = await newPage();
  // Count the workers the page starts.
  await page.addInitScript(() => {
    const Base = window.Worker;
    window.__workers = 0;
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        window.__workers += 1;
      }
    };
  });
  await page.goto(suite.server.url);
  await waitResults(page, 5);
  assert.equal(await page.evaluate(() => window.__workers), 1);
  assert.equal(await page.isDisabled('[data-testid=pause]'), true);

  await page.fill('#f-jobs', '1000000');
  await page.press('#f-jobs', 'Tab');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running')
    && Number(document.querySelector('[data-testid=progress]').value) > 0, null, { timeout: 60_000 });

  // Pause: the status says so and nothing moves (after the slice that was going on).
  await page.click('[data-testid=pause]');
  assert.equal(await page.textContent('[data-testid=pause]'), 'Resume');
  assert.match(await status(page), /^paused at \d(–\d)? of 5/);
  await page.waitForTimeout(300);
  const held = await progress(page);
  const rows = await page.$$eval('[data-testid=results] tbody tr', (r) => r.length);
  await page.waitForTimeout(1500);
  assert.equal(await progress(page), held, 'progress moved while paused');
  assert.equal(await page.$$eval('[data-testid=results] tbody tr', (r) => r.length), rows);
  console.log(`# paused at ${(held * 100).toFixed(1)} % of the run: ${await status(page)}`);

  // Resume: it goes on from where it was.
  await page.click('[data-testid=pause]');
  assert.equal(await page.textContent('[data-testid=pause]'), 'Pause');
  await page.waitForFunction((held) => Number(document.querySelector('[data-testid=progress]').value) > held, held, { timeout: 30_000 });
  assert.ok((await status(page)).startsWith('running'));

  // Cancel: at once, and the same worker runs the next scenario.
  const t0 = Date.now();
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('cancelled'));
  assert.equal(await page.isDisabled('[data-testid=cancel]'), true);
  assert.equal(await page.isDisabled('[data-testid=pause]'), true);
  await page.fill('#f-jobs', '2000');
  await page.press('#f-jobs', 'Tab');
  await page.click('[data-testid=run]');
  assertSameNumbers(await waitResults(page, 5), demo());
  console.log(`# cancel of a 1,000,000-job run to the next run's results: ${Date.now() - t0} ms`);
  assert.equal(await page.evaluate(() => window.__workers), 1, 'the worker was restarted');
});

test('a big run spread over a pool of workers gives the one-worker report byte for byte, and the CLI numbers', async () => {
  // 30,000 jobs × 5 policies is above the pool's threshold: with more than one core the
  // runs go to a pool of workers; with one (hardwareConcurrency forced to 1) they run in
  // the page's worker one after the other.
  const scenario = {
    version: 1, name: 'pool', seed: 3,
    platform: { kind: 'from_trace', procs: 128 },
    workload: { kind: 'lublin', jobs: 30_000, nodes: 128 },
    algorithms: ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'].map((local) => ({ local })),
  };
  const hash = `#s1=${zlib.deflateRawSync(Buffer.from(JSON.stringify({ scenario, files: [] })), { level: 9 }).toString('base64url')}`;
  const run = async (cores) => {
    const page = await newPage();
    await page.addInitScript((cores) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => cores }), cores);
    await page.goto(suite.server.url + hash);
    const got = await waitResults(page, 5, 180_000);
    const json = await page.textContent('[data-testid=report-json]');
    const took = await status(page);
    await page.close();
    return { got, json, took };
  };
  const one = await run(1);
  const pool = await run(4);
  assert.equal(pool.json, one.json, 'the pooled report differs from the one-worker report');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-pool-'));
  fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(scenario));
  const report = JSON.parse(execFileSync(CLI, ['run', path.join(dir, 'scenario.json'), '--json'], { maxBuffer: 64 << 20 }).toString());
  assertSameNumbers(pool.got, Object.fromEntries(report.runs.map((r) => [r.label, r.metrics])));
  console.log(`# 30,000 Lublin jobs × 5 policies: one worker ${one.took}, pool of 4 workers ${pool.took}`);
});

test('no request left 127.0.0.1 and nothing was logged as an error (run control)', () => {
  assertCleanPages(pages, 1);
});

// Page tests of issue #29 on the release build in dist/ (and the CLI built by
// `cargo build --release`, which the page is held to): traces of every format dropped on
// the page run, with the import report saying the format; and the per-job A/B of two runs —
// scatter, top gainers and losers linked to "why did it wait?", and the Wilcoxon test — gives
// the CLI's `compare` numbers for the same runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pageSuite, assertCleanPages, waitResults, dropFiles, canvasInk, repoRoot, readResults } from './harness.mjs';

const { open, pages } = pageSuite();
const CLI = path.join(repoRoot, 'target', 'release', 'gridscope');
const FIXTURES = path.join(repoRoot, 'tests', 'fixtures', 'formats');

for (const [name, format, jobs] of [['small.gwf', 'gwf', 6], ['small_batsim.json', 'batsim-json', 5], ['small.sacct', 'sacct', 4]]) {
  test(`a dropped ${format} trace runs, and its numbers are the CLI's`, async () => {
    const page = await open();
    await waitResults(page, 5);
    await dropFiles(page, [{ name, bytes: fs.readFileSync(path.join(FIXTURES, name)) }]);
    await page.waitForFunction((name) => (document.querySelector('[data-testid=run-info]')?.textContent ?? '').includes(name), name, { timeout: 60_000 });
    const got = await waitResults(page, 5);
    assert.match(await page.textContent('[data-testid=files]'), new RegExp(name.replace('.', '\\.')));
    const cli = JSON.parse(execFileSync(CLI, ['simulate', path.join(FIXTURES, name), '--policy', 'all', '--json']));
    for (const run of cli.runs) {
      assert.equal(got[run.label].jobs_finished, run.metrics.jobs_finished, `${name} ${run.label}`);
      assert.equal(got[run.label].avg_wait_s, run.metrics.avg_wait_s, `${name} ${run.label}`);
    }
    assert.equal(cli.import.format, format);
    assert.equal(cli.import.jobs, jobs);
  });
}

test('per-job A/B of FCFS and EASY on the demo: the CLI compare numbers, a drawn scatter, and a gainer explained', async () => {
  const page = await open();
  await waitResults(page, 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-ab-'));
  execFileSync(CLI, ['run', '--preset', 'demo', '--jobs', path.join(dir, 'd.csv')]);
  const want = JSON.parse(execFileSync(CLI, ['compare', path.join(dir, 'd.fcfs.csv'), path.join(dir, 'd.easy.csv'), '--json']));
  fs.rmSync(dir, { recursive: true });
  await page.locator('[data-testid=ab]').scrollIntoViewIfNeeded();
  await page.selectOption('[data-testid=ab] label:has-text("A") select', '0');
  await page.selectOption('[data-testid=ab] label:has-text("B") select', '1');
  await page.click('[data-testid=ab-compare]');
  await page.waitForSelector('[data-testid=ab-summary]', { timeout: 60_000 });
  const summary = await page.textContent('[data-testid=ab-summary]');
  const grouped = (n) => n.toLocaleString('en-US');
  assert.match(summary, new RegExp(`^${grouped(want.jobs_paired)} jobs paired`));
  assert.match(summary, new RegExp(`${grouped(want.gained)} jobs waited less under easy, ${grouped(want.lost)} more, ${grouped(want.unchanged)} the same`));
  // Durations read as the results table writes them; the exact seconds are the CLI's.
  assert.equal(Number(await page.getAttribute('[data-testid=ab-summary]', 'data-mean-diff-s')), want.mean_diff_s);
  assert.equal(Number(await page.getAttribute('[data-testid=ab-summary]', 'data-median-diff-s')), want.median_diff_s);
  assert.doesNotMatch(summary, /\d{4,}\.\d s/, 'no raw seconds in the summary');
  const t = await page.textContent('[data-testid=ab-test]');
  assert.match(t, /^Wilcoxon signed-rank/);
  assert.match(t, new RegExp(`n = ${grouped(want.per_job.n_nonzero)} jobs with a difference, W\\+ = ${want.per_job.w_plus}, z = ${want.per_job.z.toFixed(3)}`));
  await page.waitForTimeout(200);
  assert.ok((await canvasInk(page, 'chart-ab')) > 0.01, 'the scatter is drawn');
  // Every paired job is drawn (binned) over axes that reach the longest wait, and the listed
  // gainers and losers are marked on it one by one (issue #38).
  const attr = (k) => page.getAttribute('[data-testid=chart-ab]', k);
  assert.equal(Number(await attr('data-binned')), want.jobs_paired);
  const marked = (await attr('data-marked')).split(',').map(Number);
  const listed = [...want.top_gainers, ...want.top_losers];
  for (const j of listed) assert.ok(marked.includes(j.job_id), `job ${j.job_id} marked`);
  const longest = Math.max(...listed.map((j) => Math.max(j.wait_a_s, j.wait_b_s)));
  assert.ok(Number(await attr('data-span-s')) >= longest, 'the axes reach the longest wait listed');
  // The top gainer is the CLI's, and "under B" explains it under EASY.
  const first = page.locator('[data-testid=ab-gainers] tbody tr').first();
  assert.equal(Number(await first.locator('td').first().textContent()), want.top_gainers[0].job_id);
  await first.locator('button', { hasText: 'under B' }).click();
  const job = String(want.top_gainers[0].job_id);
  await page.waitForSelector(`[data-testid=steps-explanation][data-job="${job}"]`, { timeout: 60_000 });
  assert.match(await page.textContent('[data-testid=steps-explanation]'), new RegExp(`Job ${job} under easy`));
  assertCleanPages(pages, 4);
});

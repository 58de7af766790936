// The page sets every run against the log's real waits (issue #42, docs/slurm.md "Against
// the log"): a dropped trace that records its jobs' waits (KTH-SP2, SWF field 3) shows the
// "Against the log" table, its users with the most jobs and both moving averages, with the CLI's `--vs-log` numbers to
// the bit (the page's report JSON against `simulate --vs-log --json`); the demo, whose
// generated jobs have no logged wait, shows none. Needs `trunk build --release --offline`
// and `cargo build --release`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, traces, pageSuite, assertCleanPages, waitResults, dropFiles, canvasInk } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const KTH = path.join(traces, 'KTH-SP2-1996-2.1-cln.swf.gz');
const { open, pages } = pageSuite();

test('a trace with logged waits: each run against the log, as the CLI\'s --vs-log, with the moving averages drawn', async () => {
  assert.ok(fs.existsSync(KTH), `${KTH} is missing: the tests read ../shared/traces`);
  const page = await open();
  await waitResults(page, 5);
  assert.equal(await page.$('[data-testid=vs-log-results]'), null, 'the demo has no logged waits');
  await dropFiles(page, [{ name: path.basename(KTH), bytes: fs.readFileSync(KTH) }]);
  await page.waitForFunction(() => /KTH-SP2/.test(document.querySelector('[data-testid=run-info]')?.textContent ?? ''), null, { timeout: 60_000 });
  const rows = await waitResults(page, 5, 120_000);
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=vs-log-table] tbody tr').length === n,
    Object.keys(rows).length,
    { timeout: 60_000 },
  );
  const labels = await page.$$eval('[data-testid=vs-log-table] tbody tr', (trs) => trs.map((tr) => tr.dataset.label));
  assert.deepEqual(labels.sort(), Object.keys(rows).sort());
  const page_report = JSON.parse(await page.textContent('[data-testid=report-json]'));
  const cli = JSON.parse(execFileSync(CLI, ['simulate', KTH, '--policy', page_report.runs.map((r) => r.algorithm).join(','), '--vs-log', '--json'], { maxBuffer: 64 << 20 }).toString());
  assert.equal(page_report.runs.length, cli.runs.length);
  for (const [i, r] of page_report.runs.entries()) {
    assert.ok(r.vs_log, `${r.label} has no vs_log`);
    assert.deepEqual(r.vs_log, cli.runs[i].vs_log, `${r.label}: the page's numbers against the log are the CLI's`);
  }
  assert.equal(page_report.runs[0].vs_log.jobs, 28467);
  assert.match(await page.textContent('[data-testid=vs-log-results]'), /28467 jobs compared \(0 without a logged wait, 0 not run here\)/);
  // The chart: the log's line and one per run, over the year's windows (sampled).
  await page.waitForSelector('[data-testid=chart-moving-wait][data-windows]');
  assert.equal(Number(await page.getAttribute('[data-testid=chart-moving-wait]', 'data-windows')), cli.runs[0].vs_log.curve.length);
  assert.ok(await canvasInk(page, 'chart-moving-wait') > 0.01, 'the moving-average chart is blank');
  // KTH-SP2's users: the 30 with the most jobs, each run's mean wait beside the log's.
  const users = cli.runs[0].vs_log.by_user;
  assert.ok(users.length > 30, `${users.length} users`);
  const shown = await page.$$eval('[data-testid=vs-log-users] tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.group)));
  const most = [...users].sort((a, b) => b.jobs - a.jobs || a.user - b.user).slice(0, 30).map((u) => u.user);
  assert.deepEqual(shown, most);
  assert.match(await page.textContent('[data-testid=vs-log-users] summary'), new RegExp(`the 30 with the most jobs of ${users.length}`));
  // Every column says its formula.
  const titles = await page.$$eval('[data-testid=vs-log-table] th[data-key]', (ths) => ths.map((th) => th.title));
  assert.ok(titles.length >= 4 && titles.every((t) => t.length > 20), JSON.stringify(titles));
  assertCleanPages(pages, 1);
});

// Page tests of the SCJG (advance reservations) panel on the release build in dist/: a trace
// picked from ../shared/traces runs each preset in the page's worker to the CLI's JSON
// numbers for the same flags exactly; the sweep, timeline, Gantt and Fig. 2 charts draw;
// a link fills the fields and runs once its trace file is chosen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { canvasInk, repoRoot, traces, pageSuite, assertCleanPages, assertOnView, waitResults, dropFiles } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const TRACE = path.join(traces, 'SDSC-SP2-1998-4.2-cln.swf.gz');
const { open, pages } = pageSuite();

function cliJson(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release --bin gridscope\` first`);
  const t0 = Date.now();
  const out = JSON.parse(execFileSync(CLI, [...args, '--traces', traces, '--json'], { maxBuffer: 64 << 20 }).toString());
  out.native_ms = Date.now() - t0;
  return out;
}

async function set(page, sel, v) {
  await page.fill(sel, v);
  await page.press(sel, 'Tab');
}

async function assertInk(page, ids) {
  await page.waitForTimeout(300);
  for (const id of ids) {
    const ink = await canvasInk(page, id);
    assert.ok(ink > 0.01, `${id} looks blank (${ink})`);
  }
}

function readTable(page, testid, attrs) {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (rows, attrs) => rows.map((r) => [
    ...attrs.map((a) => r.dataset[a]),
    [...r.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)),
  ]), attrs);
}

async function runAndWait(page, table) {
  const t0 = Date.now();
  await page.click('[data-testid=scjg-run]');
  await page.waitForSelector(`[data-testid=${table}]`, { timeout: 120_000 });
  await page.waitForFunction(() => /done in/.test(document.querySelector('[data-testid=scjg-status]').textContent));
  return Date.now() - t0;
}

test('the SCJG panel runs the presets on a picked trace to the CLI numbers and draws its charts', async () => {
  assert.ok(fs.existsSync(TRACE), `${TRACE} is missing: the tests read ../shared/traces`);
  const page = await open('#/scjg');
  await page.waitForSelector('[data-testid=scjg-preset]');
  // Without a trace the panel says what to choose.
  await page.click('[data-testid=scjg-run]');
  assert.match(await page.textContent('[data-testid=scjg-error]'), /Choose a trace file/);
  await page.setInputFiles('[data-testid=scjg-trace]', TRACE);

  // scjg-fraction with 2 seeds at 0 and 5 %: every number as the CLI's.
  await set(page, '#scjg-seeds', '2');
  await set(page, '#scjg-percents', '0,5');
  let ms = await runAndWait(page, 'scjg-table');
  let cli = cliJson(['run', '--preset', 'scjg-fraction', '--seeds', '2', '--x', '0,5']);
  console.log(`# scjg-fraction 2 seeds × 2 shares: page ${ms} ms from click to table, CLI ${cli.native_ms} ms`);
  const rows = await readTable(page, 'scjg-table', ['policy', 'metric']);
  assert.deepEqual(rows, cli.series.map((s) => [s.policy, s.metric, s.median]));
  await assertInk(page, ['chart-scjg-utilization', 'chart-scjg-metajob_queue_s', 'chart-scjg-gantt', 'chart-scjg-query']);
  const q = await page.$$eval('[data-testid=scjg-query] tbody tr', (rs) => rs.map((r) => [r.dataset.site, r.dataset.yes]));
  assert.equal(q[0][0], 'site1');

  // The livelock runs: same medians as the CLI, the timeline and both sites' Gantt charts.
  await page.selectOption('[data-testid=scjg-preset]', { label: 'scjg-livelock' });
  ms = await runAndWait(page, 'scjg-runs');
  cli = cliJson(['run', '--preset', 'scjg-livelock', '--seeds', '2']);
  console.log(`# scjg-livelock 2 seeds: page ${ms} ms, CLI ${cli.native_ms} ms`);
  const runs = await readTable(page, 'scjg-runs', ['run']);
  assert.deepEqual(runs.map((r) => r[0]), cli.runs.map((r) => r.label));
  for (const [i, r] of cli.runs.entries()) {
    const m = r.metrics;
    assert.deepEqual(runs[i][1], [m.utilization, m.retries, m.max_retries_seen, m.metajobs_failed, m.metajob_queue_s, m.lock_wait_s]);
  }
  await assertInk(page, ['chart-scjg-timeline', 'chart-scjg-gantt']);
  await page.selectOption('[data-testid=scjg-gantt-site]', { label: 'site2' });
  await assertInk(page, ['chart-scjg-gantt']);

  // A link fills the fields and runs when its trace is chosen.
  await page.click('[data-testid=scjg-share]');
  const link = await page.textContent('[data-testid=scjg-share-url]');
  assert.match(link, /#f2=[A-Za-z0-9_-]+$/);
  const again = await open(link);
  await again.waitForSelector('[data-testid=scjg-notice]');
  // The banner at the top says what was shared and which trace file it still needs.
  await again.waitForSelector('[data-testid=link-banner]');
  assert.match(await again.textContent('[data-testid=link-banner]'), /shares the SCJG preset scjg-livelock \(2 seeds\)\. It runs in the SCJG reservations view once you pick the trace file SDSC-SP2-1998-4\.2-cln\.swf\.gz there/);
  await assertOnView(again, 'scjg');
  assert.match(await again.textContent('[data-testid=scjg-notice]'), /scjg-livelock on SDSC-SP2/);
  assert.equal(await again.inputValue('#scjg-seeds'), '2');
  await again.setInputFiles('[data-testid=scjg-trace]', TRACE);
  await again.waitForSelector('[data-testid=scjg-runs]', { timeout: 120_000 });
  assertCleanPages(pages, 2);
});

test('a trace dropped on the Scheduling view serves the SCJG view: Run takes it and says so', async () => {
  const page = await open('#/scheduling');
  await waitResults(page, 5);
  await dropFiles(page, [{ name: path.basename(TRACE), bytes: fs.readFileSync(TRACE) }]);
  await page.waitForSelector('[data-testid=import-report]');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('SDSC'), null, { timeout: 60_000 });
  await waitResults(page, 5, 120_000);
  await page.evaluate(() => { location.hash = '#/scjg'; });
  await assertOnView(page, 'scjg');
  await set(page, '#scjg-seeds', '1');
  await set(page, '#scjg-percents', '0');
  await runAndWait(page, 'scjg-table');
  assert.match(await page.textContent('[data-testid=scjg-notice]'), /Running on SDSC-SP2-1998-4\.2-cln\.swf\.gz, the trace loaded on the Scheduling view/);
  const cli = cliJson(['run', '--preset', 'scjg-fraction', '--seeds', '1', '--x', '0']);
  assert.deepEqual(await readTable(page, 'scjg-table', ['policy', 'metric']), cli.series.map((s) => [s.policy, s.metric, s.median]));
  assertCleanPages(pages, 3);
});

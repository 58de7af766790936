// Page tests of the grid schemes (SOB), the scenario presets and the workload allocation
// panel (SF) on the release build in dist/ (`trunk build --release --offline`, `cargo build
// --release` first):   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { waitResults, canvasInk, repoRoot, assertSameNumbers, pageSuite, assertCleanPages, assertOnView } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const SCHEMES = ['local', 'sender', 'receiver', 'symmetric', 'central', 'ideal'];
const REAL_TRACES = ['SDSC-BLUE-2000-4.2-cln.swf.gz', 'Sandia-Ross-2001-1.1-cln.swf.gz', 'HPC2N-2002-2.2-cln.swf.gz'];

const { open, pages } = pageSuite();

function cliJson(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  const t0 = Date.now();
  const out = JSON.parse(execFileSync(CLI, [...args, '--json'], { maxBuffer: 64 << 20 }).toString());
  out.native_ms = Date.now() - t0;
  return out;
}


/** The SOB figure's table: { run: { key: number } } (raw values; JSON null → NaN). */
function readSobFigure(page) {
  return page.$$eval('[data-testid=sob-figure] td[data-run]', (cells) => {
    const out = {};
    for (const td of cells) (out[td.dataset.run] ??= {})[td.dataset.key] = td.dataset.value === 'null' ? NaN : Number(td.dataset.value);
    return out;
  });
}


test('receiver and symmetric runs may hold waiting jobs in their home queue, to the CLI numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
  // Rows 2 and 3 are receiver and symmetric; only they offer the choice.
  assert.equal(await page.$('[data-testid=hold-at-home-1]'), null);
  for (const row of [2, 3]) {
    assert.equal(await page.isChecked(`[data-testid=hold-at-home-${row}]`), false);
    await page.click(`[data-testid=hold-at-home-${row}]`);
    await page.waitForFunction((r) => document.querySelector(`[data-testid=hold-at-home-${r}]`).checked, row);
  }
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'));
  const rows = await waitResults(page, 6, 120_000);
  const cli = cliJson(['run', '--preset', 'sob-synthetic-light', '--hold-at-home']);
  const want = Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics]));
  assertSameNumbers(rows, want, SCHEMES);
  const plain = Object.fromEntries(cliJson(['run', '--preset', 'sob-synthetic-light']).runs.map((r) => [r.label, r.metrics]));
  assert.notEqual(rows.receiver.avg_wait_s, plain.receiver.avg_wait_s);
});

test('the sob-synthetic-light preset runs all six grid schemes to the CLI numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  // The real-trace presets ask for their three logs by name.
  await page.selectOption('[data-testid=scenario-preset]', 'sob-real-3site');
  await page.waitForSelector('[data-testid=needed-files]');
  const needed = await page.textContent('[data-testid=needed-files]');
  for (const name of REAL_TRACES) assert.ok(needed.includes(name), `${name} not asked for`);

  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
  assert.match(await page.textContent('[data-testid=preset-description]'), /SOB Table 6's light/);
  assert.equal(await page.$('[data-testid=needed-files]'), null);
  assert.equal(await page.inputValue('[data-testid=grid-1]'), 'sender');
  const t0 = Date.now();
  await page.click('[data-testid=run]');
  // Progress shows while the six schemes run.
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'));
  const rows = await waitResults(page, 6, 120_000);
  const pageMs = Date.now() - t0;
  const cli = cliJson(['run', '--preset', 'sob-synthetic-light']);
  console.log(`# sob-synthetic-light: page ${pageMs} ms from Run to results, CLI ${cli.native_ms} ms`);
  const labels = await page.$$eval('[data-testid=results] tbody tr', (t) => t.map((r) => r.dataset.label));
  assert.deepEqual(labels, SCHEMES);
  const want = Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics]));
  assertSameNumbers(rows, want, SCHEMES);
  for (const l of SCHEMES) {
    assert.ok('grid_efficiency' in rows[l] && 'fraction_transferred' in rows[l], 'new metric columns');
  }
  assert.equal(rows.local.fraction_transferred, 0);
  assert.ok(rows.sender.fraction_transferred > 0);
  // SOB Fig. 3/4: the five metrics per scheme, wait and response normalized to local.
  const fig = await readSobFigure(page);
  console.log(`# sob-synthetic-light, SOB figure: ${JSON.stringify(fig)}`);
  assert.equal(await page.getAttribute('[data-testid=sob-figure]', 'data-baseline'), 'local');
  assert.deepEqual(Object.keys(fig), SCHEMES);
  assert.equal(fig.local.avg_wait_norm, 1);
  assert.equal(fig.local.avg_response_norm, 1);
  for (const l of SCHEMES) {
    assert.equal(fig[l].avg_wait_norm, rows[l].avg_wait_s / rows.local.avg_wait_s, `${l} wait`);
    assert.equal(fig[l].avg_response_norm, rows[l].avg_response_s / rows.local.avg_response_s, `${l} response`);
    for (const k of ['wait_stddev_s', 'grid_efficiency', 'fraction_transferred']) assert.equal(fig[l][k], rows[l][k], `${l} ${k}`);
  }
  assert.match(await page.textContent('[data-testid=sob-figure-help]'), /SOB §3\.2, Fig\. 3\/4/);
  // Six sites: the per-site utilization chart is drawn.
  await page.waitForTimeout(300);
  const ink = await canvasInk(page, 'chart-sites');
  assert.ok(ink > 0.02, `chart-sites looks blank (${ink})`);
  // Mean wait per job-width class and run: drawn, and the CLI's numbers (in hours).
  assert.ok(await canvasInk(page, 'chart-widths') > 0.02, 'chart-widths looks blank');
  const hours = JSON.parse(await page.getAttribute('[data-testid=chart-widths]', 'data-hours'));
  const classes = cli.runs[0].metrics.wait_by_width.map((_, k) => k)
    .filter((k) => cli.runs.some((r) => r.metrics.wait_by_width[k].jobs > 0));
  assert.deepEqual(hours, classes.map((k) => cli.runs.map((r) => r.metrics.wait_by_width[k].avg_wait_s / 3600)));
  const sobInk = await canvasInk(page, 'chart-sob');
  assert.ok(sobInk > 0.02, `chart-sob looks blank (${sobInk})`);
  const sob = page.locator('[data-testid=chart-sob]');
  const sobBox = await sob.boundingBox();
  await sob.hover({ position: { x: sobBox.width * 0.1, y: sobBox.height * 0.5 } });
  await page.waitForFunction(() => /^avg wait ÷ local: local 1\.000, sender 0\.\d{3}/.test(document.querySelector('[data-testid=chart-sob-hover]').textContent));
  if (process.env.SCREENSHOT_DIR) {
    await page.locator('.sob-figure').screenshot({ path: path.join(process.env.SCREENSHOT_DIR, 'sob-figure.png') });
  }
  // The transfer matrix of the sender-initiated run equals the CLI's.
  const want_t = cli.runs[1].metrics.transfers;
  assert.equal(cli.runs[1].label, 'sender');
  assert.ok(want_t.length === 6, 'a 6×6 transfer matrix');
  const runs_t = await page.$$eval('[data-testid=transfers-run] option', (o) => o.map((x) => x.textContent));
  assert.ok(runs_t.includes('sender') && !runs_t.includes('ideal'), `transfer runs ${runs_t}`);
  await page.selectOption('[data-testid=transfers-run]', { label: 'sender' });
  await page.waitForSelector('[data-testid=transfers][data-label=sender]');
  const matrix = await page.$$eval('[data-testid=transfers] tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
  assert.deepEqual(matrix, want_t);
});

test('a share URL with grid schemes and parameters restores them and re-runs to the same numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
  // Keep two runs: the first becomes receiver-initiated with δ = 0.5, the second stays sender.
  for (let i = 0; i < 4; i++) await page.click('[data-testid=algorithm-rows] tr[data-row="2"] button');
  await page.selectOption('[data-testid=grid-0]', 'receiver');
  await page.fill('[data-testid="param-0-δ"]', '0.5');
  await page.press('[data-testid="param-0-δ"]', 'Tab');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'));
  const rows = await waitResults(page, 2, 120_000);
  assert.deepEqual(Object.keys(rows).sort(), ['receiver', 'sender']);
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  assert.match(url, /#s1=[A-Za-z0-9_-]+$/);
  const again = await open(url);
  assertSameNumbers(await waitResults(again, 2, 120_000), rows);
  assert.equal(await again.inputValue('[data-testid=grid-0]'), 'receiver');
  assert.equal(await again.inputValue('[data-testid=grid-1]'), 'sender');
  assert.equal(await again.inputValue('[data-testid="param-0-δ"]'), '0.5');
  assert.equal(await again.inputValue('[data-testid="param-1-δ"]'), '0.7');
  // No run is labelled local: the SOB figure normalizes to the first run and says so.
  const fig = await readSobFigure(again);
  assert.equal(await again.getAttribute('[data-testid=sob-figure]', 'data-baseline'), 'receiver');
  assert.match(await again.textContent('[data-testid=sob-figure] caption'), /no run is labelled local/);
  assert.equal(fig.receiver.avg_wait_norm, 1);
  assert.equal(fig.sender.avg_response_norm, rows.sender.avg_response_s / rows.receiver.avg_response_s);
  // An invalid parameter is refused with the engine's message.
  await again.fill('[data-testid="param-0-δ"]', '2');
  await again.press('[data-testid="param-0-δ"]', 'Tab');
  await again.waitForSelector('[data-testid=error]');
  assert.match(await again.textContent('[data-testid=error]'), /δ must be in \[0, 1\]/);
});

test('the allocation calculator gives the OWA and WW fractions and refuses bad input', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  const set = async (sel, v) => { await page.fill(sel, v); await page.press(sel, 'Tab'); };
  await set('#alloc-rates', '1,1,1,1,1,1,1,1,1,16');
  await set('#alloc-lambda', '0.1');
  await set('#alloc-k', '10');
  await page.waitForFunction(() => /OWA 0\.888/.test(document.querySelector('[data-testid=alloc-fastest]')?.textContent));
  assert.match(await page.textContent('[data-testid=alloc-fastest]'), /WW 0\.640/);
  const cli = cliJson(['allocate', '--policy', 'owa', '--rates', '1,1,1,1,1,1,1,1,1,16', '--lambda', '0.1', '--batch-size', '10']);
  const owa = await page.$$eval('[data-testid=alloc-table] td[data-key=owa]', (t) => t.map((x) => Number(x.dataset.value)));
  assert.deepEqual(owa, cli.fractions);
  assert.match(await page.textContent('[data-testid=alloc-response]'), new RegExp(`OWA ${cli.predicted_mean_response_s.toFixed(4)} s`));
  await page.waitForTimeout(200);
  assert.ok(await canvasInk(page, 'chart-alloc') > 0.02, 'chart-alloc looks blank');
  await set('#alloc-rates', '1,-2');
  await page.waitForSelector('[data-testid=alloc-error]');
  assert.match(await page.textContent('[data-testid=alloc-error]'), /every rate must be a positive number/);
  await set('#alloc-rates', '0.5,0.5');
  await page.waitForFunction(() => /saturated/.test(document.querySelector('[data-testid=alloc-error]')?.textContent));
});

test('an SF sweep runs in the worker, draws its chart and gives the CLI medians exactly', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-heterogeneity' });
  assert.match(await page.textContent('[data-testid=sf-paper]'), /41 %/);
  await page.fill('#sf-seeds', '2');
  await page.press('#sf-seeds', 'Tab');
  await page.fill('#sf-batches', '1000');
  await page.press('#sf-batches', 'Tab');
  const t0 = Date.now();
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  const pageMs = Date.now() - t0;
  const cli = cliJson(['run', '--preset', 'sf-heterogeneity', '--seeds', '2', '--batches', '1000']);
  console.log(`# sf-heterogeneity 2 seeds × 1,000 batches: page ${pageMs} ms from click to table (worker ${await page.textContent('[data-testid=sf-status]')}), CLI ${cli.native_ms} ms`);
  const table = await page.$$eval('[data-testid=sf-table] tbody tr', (rows) => rows.map((r) => [r.dataset.policy, [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))]));
  const want = [...cli.series.map((s) => [s.policy, s.median]), ['gap', cli.gap]];
  assert.deepEqual(table, want);
  await page.waitForTimeout(300);
  const ink = await canvasInk(page, 'chart-sweep');
  assert.ok(ink > 0.02, `chart-sweep looks blank (${ink})`);

  // A long sweep (9·10⁸ jobs, under the sweep limit of 10⁹) shows progress and can be cancelled.
  await page.fill('#sf-seeds', '50');
  await page.press('#sf-seeds', 'Tab');
  await page.fill('#sf-batches', '30000');
  await page.press('#sf-batches', 'Tab');
  await page.click('[data-testid=sf-run]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=sf-progress]').value) > 0, null, { timeout: 30_000 });
  assert.equal(await page.isEnabled('[data-testid=sf-cancel]'), true);
  await page.click('[data-testid=sf-cancel]');
  await page.waitForSelector('[data-testid=sf-notice]');
  assert.match(await page.textContent('[data-testid=sf-notice]'), /cancelled/);
  assert.equal(await page.isDisabled('[data-testid=sf-cancel]'), true);
});

test('every sweep parameter can be changed in the page; the result equals the CLI with the same flags', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  const set = async (sel, v) => { await page.fill(sel, v); await page.press(sel, 'Tab'); };
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-cv' });
  assert.equal(await page.inputValue('#sf-x'), '1,1.25,1.5,1.75,2,2.25,2.5,2.75,3');
  assert.equal(await page.inputValue('#sf-arrival-kind'), 'load');
  assert.equal(await page.$('[data-testid=sf-changed]'), null);
  // The CV experiment at load 0.3 on three points, rounded dispatch, OWA against DLL.
  await set('#sf-x', '1,2,3');
  await set('#sf-arrivals', '0.3');
  await set('#sf-policies', 'owa,dll');
  await page.selectOption('#sf-dispatch', 'rounded');
  await page.waitForSelector('[data-testid=sf-changed]');
  await set('#sf-seeds', '2');
  await set('#sf-batches', '600');
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  const cli = cliJson(['run', '--preset', 'sf-cv', '--x', '1,2,3', '--load', '0.3', '--policies', 'owa,dll',
    '--dispatch', 'rounded', '--seeds', '2', '--batches', '600']);
  assert.equal(cli.preset, 'custom');
  const table = await page.$$eval('[data-testid=sf-table] tbody tr', (rows) => rows.map((r) => [r.dataset.policy, [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))]));
  assert.deepEqual(table, [...cli.series.map((s) => [s.policy, s.median]), ['gap', cli.gap]]);
  assert.match(await page.textContent('[data-testid=sf-result-description]'), /^custom: .*load λk\/Σμ = 0\.3.*rounded dispatch/);

  // The sweep's link re-runs it, every parameter included, to the same numbers.
  await page.click('[data-testid=sf-share]');
  const link = await page.textContent('[data-testid=sf-share-url]');
  assert.match(link, /#w1=[A-Za-z0-9_-]+$/);
  const again = await open(link);
  await again.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  assert.equal(await again.inputValue('#sf-x'), '1,2,3');
  assert.equal(await again.inputValue('#sf-dispatch'), 'rounded');
  // It lands on the SF view, with a banner at the top that says what was shared.
  assert.match(await again.textContent('[data-testid=link-banner]'), /This link shares an SF allocation sweep \(\d+ seeds × [\d]+ batches\)\. It runs in the SF allocation view\./);
  await assertOnView(again, 'sf');
  const table2 = await again.$$eval('[data-testid=sf-table] tbody tr', (rows) => rows.map((r) => [r.dataset.policy, [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))]));
  assert.deepEqual(table2, table);
  await waitResults(again, 5); // the main app ignores the sweep link and runs its demo

  // A bad field is named before anything runs; Reset brings the preset back.
  await set('#sf-x', '1,0.5');
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-error]');
  assert.match(await page.textContent('[data-testid=sf-error]'), /at x = 0\.5: the arrival CV must be at least 1/);
  await page.selectOption('#sf-arrival-kind', 'lambda');
  await set('#sf-arrivals', '0.1');
  await set('#sf-k', '400');
  await set('#sf-x', '1');
  await page.click('[data-testid=sf-run]');
  await page.waitForFunction(() => /saturated/.test(document.querySelector('[data-testid=sf-error]')?.textContent));
  await page.click('[data-testid=sf-reset]');
  assert.equal(await page.inputValue('#sf-k'), '10');
  assert.equal(await page.inputValue('#sf-arrival-kind'), 'load');
  assert.equal(await page.$('[data-testid=sf-changed]'), null);

  // The hybrid preset also draws the hybrid's share of the degraded resource over one run.
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-hybrid' });
  await set('#sf-seeds', '1');
  await set('#sf-batches', '2000');
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=chart-history]', { timeout: 60_000 });
  const h = cliJson(['run', '--preset', 'sf-hybrid', '--seeds', '1', '--batches', '2000']).history;
  const attrs = await page.$eval('[data-testid=chart-history]', (c) => ({ ...c.dataset }));
  assert.equal(Number(attrs.static), h.static_owa);
  assert.equal(Number(attrs.after), h.owa_after);
  assert.equal(Number(attrs.last), h.hybrid.at(-1));
  // The hybrid ends near the share that is optimal for the degraded rates.
  assert.ok(Math.abs(h.hybrid.at(-1) - h.owa_after) < 0.05, `${h.hybrid.at(-1)} vs ${h.owa_after}`);
  await page.waitForTimeout(300);
  assert.ok(await canvasInk(page, 'chart-history') > 0.01, 'chart-history looks blank');
});

test('no request left 127.0.0.1 and nothing was logged as an error (grid and SF pages)', () => {
  assertCleanPages(pages, 5);
});

// Energy in the page (issue #40): a power model picked in the form places the demo's site on
// nodes that draw Batsim's cluster_energy_128 watts, idle timeouts run each algorithm again
// with idle nodes switched off, every run reports the energy the CLI reports for the same
// scenario (read back from the page's share link, scenario version 5), the page draws
// energy against wait, power over time and nodes by power state, and the link opens again
// to the same joules; a carbon intensity (a CSV or the synthetic daily curve) with slacks
// adds each run's emissions, the carbon curve and the finding, equal to the CLI's (scenario
// version 6); a power cap runs each algorithm again under it, every capped run's peak power
// under the cap. Needs `trunk build --release --offline` and `cargo build --release`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { repoRoot, pageSuite, assertCleanPages, assertSameNumbers, waitResults, canvasInk } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const { open, pages } = pageSuite();

/** The page's report JSON (the CLI's `--json` shape). */
async function reportJson(page) {
  return JSON.parse(await page.textContent('[data-testid=report-json]'));
}

/** Clicks Share: the link and the scenario it holds. */
async function shareLink(page) {
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  const shared = JSON.parse(zlib.inflateRawSync(Buffer.from(url.split('#s1=')[1], 'base64url')));
  return { url, shared };
}

/** `gridscope run --json` on `scenario` gives the page's metrics (`rows`) and every run's
 * energy in the page's report JSON (`json`), bit for bit. */
function assertCliAgrees(scenario, rows, json) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-energy-'));
  fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(scenario));
  const cli = JSON.parse(execFileSync(CLI, ['run', path.join(dir, 'scenario.json'), '--json'], { maxBuffer: 64 << 20 }).toString());
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual(json.runs.map((r) => [r.label, r.energy]), cli.runs.map((r) => [r.label, r.energy]));
}

/** Waits for the energy table to hold `n` runs. */
async function waitEnergy(page, n) {
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=energy-table] tbody tr').length === n,
    n,
    { timeout: 120_000 },
  );
}

/** Runs the form's scenario and waits for `n` runs in the energy and results tables: the
 *  results' rows, the report and its runs by label. */
async function runAll(page, n) {
  await page.click('[data-testid=run]');
  await waitEnergy(page, n);
  const rows = await waitResults(page, n, 120_000);
  const json = await reportJson(page);
  return { rows, json, byLabel: Object.fromEntries(json.runs.map((r) => [r.label, r])) };
}

test('a power model and idle timeouts in the form: energy per run equals the CLI, the charts draw it, the link re-runs it', async () => {
  const page = await open();
  await waitResults(page, 5);
  // Without a power model there is no energy, and no timeout can be set.
  assert.equal(await page.locator('[data-testid=energy-results]').count(), 0);
  await page.fill('[data-testid=idle-off]', '600');
  await page.press('[data-testid=idle-off]', 'Tab');
  await page.waitForSelector('text=choose a power model first');

  await page.selectOption('[data-testid=power-model]', 'batsim-cluster-energy-128');
  await page.fill('[data-testid=idle-off]', 'never, 600');
  await page.press('[data-testid=idle-off]', 'Tab');
  assert.equal(await page.inputValue('[data-testid=idle-off]'), 'never, 600');
  const { rows, json, byLabel } = await runAll(page, 10);
  for (const base of ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit']) {
    const on = byLabel[base];
    const off = byLabel[`${base}, off after 600 s`];
    assert.ok(on && off, `missing ${base} runs: ${Object.keys(byLabel)}`);
    assert.ok(on.energy.total_j > 0 && !on.energy.idle_off, JSON.stringify(on.energy));
    assert.ok(off.energy.idle_off.switch_offs > 0, JSON.stringify(off.energy.idle_off));
    // Idle nodes asleep at 9.75 W instead of 95 W: the policy saves energy on this load.
    assert.ok(off.energy.total_j < on.energy.total_j, `${base}: ${off.energy.total_j} >= ${on.energy.total_j}`);
  }
  assert.match(await page.textContent('[data-testid=energy-finding]'), /used the least energy.* Switching idle nodes off after 600 s saved 1\d\.\d % of \w+'s energy always on \([\d,.]+ kWh\); its mean wait went from/);
  const chart = page.locator('[data-testid=chart-energy-wait]');
  assert.equal(await chart.getAttribute('data-points'), '10');
  assert.ok(await canvasInk(page, 'chart-energy-wait') > 0.005, 'the energy-wait chart is blank');
  // The timeline of the selected run: power and node states.
  await page.waitForSelector('[data-testid=chart-power]');
  assert.ok(await canvasInk(page, 'chart-power') > 0.005, 'the power chart is blank');
  assert.ok(await canvasInk(page, 'chart-node-states') > 0.005, 'the node-state chart is blank');

  // The share link holds scenario version 5: the power model and the timeouts.
  const { url, shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 5);
  assert.equal(shared.scenario.platform.sites[0].node_types[0].power.idle_w, 95);
  assert.deepEqual(shared.scenario.algorithms.map((a) => a.power_off_after_s ?? null), [null, 600, null, 600, null, 600, null, 600, null, 600]);

  // The CLI on the same scenario: the same metrics and the same joules, bit for bit.
  assertCliAgrees(shared.scenario, rows, json);

  // The link opens again and re-runs to the same energy.
  const again = await open(url);
  await waitEnergy(again, 10);
  await waitResults(again, 10, 120_000);
  assert.deepEqual((await reportJson(again)).runs.map((r) => r.energy), json.runs.map((r) => r.energy));
  assert.equal(await again.inputValue('[data-testid=power-model]'), 'batsim-cluster-energy-128');
  assert.equal(await again.inputValue('[data-testid=idle-off]'), 'never, 600');
  // No power model again: the timeouts go with it.
  await again.selectOption('[data-testid=power-model]', '');
  assert.equal(await again.inputValue('[data-testid=idle-off]'), '');
});

test('the energy-demo preset runs nine runs with energy and says what switching off saved', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'energy-demo');
  await page.click('[data-testid=run]');
  await waitEnergy(page, 9);
  assert.equal(await page.inputValue('[data-testid=power-model]'), 'batsim-cluster-energy-128');
  assert.equal(await page.inputValue('[data-testid=idle-off]'), 'never, 600, 60');
  assert.match(await page.textContent('[data-testid=energy-finding]'), /Switching idle nodes off after 60 s saved/);
});

test('a carbon intensity and slacks in the form: emissions per run equal the CLI, the curve is drawn, the link re-runs it', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=power-model]', 'batsim-cluster-energy-128');
  // A slack needs a series; a CSV with a gap is refused with its file and line.
  await page.fill('[data-testid=carbon-slack]', '21600');
  await page.press('[data-testid=carbon-slack]', 'Tab');
  await page.waitForSelector('text=choose the grid\'s carbon intensity first');
  await page.setInputFiles('[data-testid=carbon-file]', {
    name: 'gap.csv', mimeType: 'text/csv',
    buffer: Buffer.from('start_s,end_s,g_per_kwh\n0,3600,400\n7200,10800,100\n'),
  });
  await page.waitForSelector('text=gap.csv line 3');
  // A good CSV goes into the scenario; then the synthetic daily curve replaces it.
  await page.setInputFiles('[data-testid=carbon-file]', {
    name: 'flat.csv', mimeType: 'text/csv',
    buffer: Buffer.from('start_s,end_s,g_per_kwh\n0,100000000,250\n'),
  });
  await page.waitForFunction(() => document.querySelector('[data-testid=carbon-source]').value === 'csv');
  await page.selectOption('[data-testid=carbon-source]', 'daily');
  await page.fill('[data-testid=carbon-slack]', 'never, 21600');
  await page.press('[data-testid=carbon-slack]', 'Tab');
  const { rows, json, byLabel } = await runAll(page, 10);
  for (const base of ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit']) {
    const now = byLabel[base];
    const held = byLabel[`${base}, carbon slack 21600 s`];
    assert.ok(now && held, `missing ${base} runs: ${Object.keys(byLabel)}`);
    assert.ok(now.energy.emissions_g > 0 && held.energy.carbon_delay.jobs_held > 0, JSON.stringify(held.energy));
    assert.ok(held.energy.work_emissions_g < now.energy.work_emissions_g, `${base}: the slack did not cut the work's emissions`);
  }
  assert.match(await page.textContent('[data-testid=carbon-finding]'), /Holding jobs up to 21,600 s for cleaner hours \(.+\) cut the emissions of the jobs' work by \d+\.\d % .* the mean wait went from [\d,]+ s to [\d,]+ s\./);
  assert.equal(await page.locator('[data-testid=energy-table] th[data-key=emissions_g]').count(), 1);
  await page.waitForSelector('[data-testid=chart-carbon]');
  assert.ok(await canvasInk(page, 'chart-carbon') > 0.005, 'the carbon curve is blank');
  const mean = Number(await page.getAttribute('[data-testid=chart-carbon]', 'data-mean-g-per-kwh'));
  assert.ok(mean > 150 && mean < 500, `mean intensity ${mean}`);

  // The link holds scenario version 6 with the curve; the CLI gives the same emissions.
  const { url, shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 6);
  assert.equal(shared.scenario.carbon.kind, 'daily');
  assertCliAgrees(shared.scenario, rows, json);

  const again = await open(url);
  await waitEnergy(again, 10);
  assert.equal(await again.inputValue('[data-testid=carbon-source]'), 'daily');
  assert.equal(await again.inputValue('[data-testid=carbon-slack]'), 'never, 21600');
  // No series again: the slacks go with it.
  await again.selectOption('[data-testid=carbon-source]', '');
  assert.equal(await again.inputValue('[data-testid=carbon-slack]'), '');
});

test('a power cap in the form: each capped run stays under it, equals the CLI, and with idle timeouts too', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.fill('[data-testid=power-cap]', '22000');
  await page.press('[data-testid=power-cap]', 'Tab');
  await page.waitForSelector('text=choose a power model first (Power per node): a cap');
  await page.selectOption('[data-testid=power-model]', 'batsim-cluster-energy-128');
  await page.fill('[data-testid=power-cap]', 'never, 22000');
  await page.press('[data-testid=power-cap]', 'Tab');
  const { rows, json, byLabel } = await runAll(page, 10);
  for (const base of ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit']) {
    const free = byLabel[base];
    const capped = byLabel[`${base}, cap 22000 W`];
    assert.ok(free && capped, `missing ${base} runs: ${Object.keys(byLabel)}`);
    assert.ok(capped.energy.peak_w <= 22000 && free.energy.peak_w > 22000, `${base}: ${capped.energy.peak_w} / ${free.energy.peak_w}`);
    assert.ok(capped.metrics.avg_wait_s >= free.metrics.avg_wait_s, base);
  }
  assert.equal(await page.getAttribute('[data-testid=chart-energy-wait]', 'data-points'), '10');
  const { shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 6);
  assertCliAgrees(shared.scenario, rows, json);
  // Idle timeouts under the cap: each policy four ways; the capped runs that switch nodes
  // off stay under the cap too (their bound counts the switch-offs and boots).
  await page.fill('[data-testid=idle-off]', 'never, 600');
  await page.press('[data-testid=idle-off]', 'Tab');
  const { byLabel: both } = await runAll(page, 20);
  for (const base of ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit']) {
    const r = both[`${base}, off after 600 s, cap 22000 W`];
    assert.ok(r, `missing ${base}: ${Object.keys(both)}`);
    assert.ok(r.energy.peak_w <= 22000 && r.energy.idle_off.switch_offs > 0, `${base}: ${JSON.stringify(r.energy)}`);
  }
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 6);
});

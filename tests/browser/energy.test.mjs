// Energy in the page (issue #40): a power model picked in the form places the demo's site on
// nodes that draw Batsim's cluster_energy_128 watts, idle timeouts run each algorithm again
// with idle nodes switched off, every run reports the energy the CLI reports for the same
// scenario (read back from the page's share link, scenario version 5), the page draws
// energy against wait, power over time and nodes by power state, and the link opens again
// to the same joules. Needs `trunk build --release --offline` and `cargo build --release`.
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

/** Waits for the energy table to hold `n` runs. */
async function waitEnergy(page, n) {
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=energy-table] tbody tr').length === n,
    n,
    { timeout: 120_000 },
  );
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
  await page.click('[data-testid=run]');
  await waitEnergy(page, 10);
  const rows = await waitResults(page, 10, 120_000);
  const json = await reportJson(page);
  const byLabel = Object.fromEntries(json.runs.map((r) => [r.label, r]));
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
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  const shared = JSON.parse(zlib.inflateRawSync(Buffer.from(url.split('#s1=')[1], 'base64url')));
  assert.equal(shared.scenario.version, 5);
  assert.equal(shared.scenario.platform.sites[0].node_types[0].power.idle_w, 95);
  assert.deepEqual(shared.scenario.algorithms.map((a) => a.power_off_after_s ?? null), [null, 600, null, 600, null, 600, null, 600, null, 600]);

  // The CLI on the same scenario: the same metrics and the same joules, bit for bit.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-energy-'));
  fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(shared.scenario));
  const cli = JSON.parse(execFileSync(CLI, ['run', path.join(dir, 'scenario.json'), '--json'], { maxBuffer: 64 << 20 }).toString());
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual(json.runs.map((r) => [r.label, r.energy]), cli.runs.map((r) => [r.label, r.energy]));

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

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 3);
});

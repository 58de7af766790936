// Page tests of the SES (node-group selection) and KKOR (centralized vs decentralized) panels
// on the release build in dist/ (`trunk build --release --offline`, `cargo build --release
// --bin gridscope` first): each preset runs in the page's worker with few seeds and must show
// the CLI's JSON numbers for the same flags exactly; its charts draw; its link re-runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { canvasInk, repoRoot, pageSuite, assertCleanPages, assertOnView } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const { open, pages } = pageSuite();

function cliJson(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release --bin gridscope\` first`);
  const t0 = Date.now();
  const out = JSON.parse(execFileSync(CLI, [...args, '--json'], { maxBuffer: 64 << 20 }).toString());
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
    assert.ok(ink > 0.02, `${id} looks blank (${ink})`);
  }
}

/** Hovers the middle of a chart and waits for its tooltip to match `re`. */
async function hoverMatches(page, id, re, at = { x: 0.5, y: 0.5 }) {
  const c = await page.$(`[data-testid=${id}]`);
  const b = await c.boundingBox();
  await c.hover({ position: { x: b.width * at.x, y: b.height * at.y } });
  await page.waitForFunction(([id, re]) => new RegExp(re).test(document.querySelector(`[data-testid=${id}-hover]`).textContent), [id, re.source]);
}

/** A shared link's page shows the banner (matching `re`) and its view `id`; after going
 *  to another tab, the banner's link leads back to it. */
async function assertLandsOn(page, id, re) {
  await page.waitForSelector('[data-testid=link-banner]');
  assert.match(await page.textContent('[data-testid=link-banner]'), re);
  await assertOnView(page, id);
  assert.equal(await page.$('[data-testid=link-banner-go]'), null, 'no "Go to it" while there');
  await page.click('[data-testid=tab-scheduling]');
  await assertOnView(page, 'scheduling');
  await page.click('[data-testid=link-banner-go]');
  await assertOnView(page, id);
}

/** Rows of a table as [row attributes…, numbers of its data-value cells]. */
function readTable(page, testid, attrs) {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (rows, attrs) => rows.map((r) => [
    ...attrs.map((a) => r.dataset[a]),
    [...r.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)),
  ]), attrs);
}

test('the SES panel runs both presets in the worker to the CLI numbers, draws its charts and shares a link', async () => {
  const page = await open('#/ses');
  await page.waitForSelector('[data-testid=ses-preset]');
  assert.match(await page.textContent('[data-testid=ses-description]'), /SES Figs\. 1–3/);
  await set(page, '#ses-seeds', '2');
  let t0 = Date.now();
  await page.click('[data-testid=ses-run]');
  await page.waitForSelector('[data-testid=ses-table]', { timeout: 60_000 });
  const selMs = Date.now() - t0;
  const cli = cliJson(['run', '--preset', 'ses-selection', '--seeds', '2']);
  console.log(`# ses-selection 2 seeds: page ${selMs} ms from click to table (${await page.textContent('[data-testid=ses-status]')}), CLI ${cli.native_ms} ms`);
  const rows = await readTable(page, 'ses-table', ['run', 'group']);
  const want = cli.runs.flatMap((r) => [
    ...r.metrics.groups.map((g) => [r.label, g.name, [g.utilization, g.avg_queue_delay_s, g.jobs]]),
    [r.label, 'all', [r.metrics.utilization, r.metrics.avg_wait_s, r.metrics.avg_response_s]],
  ]);
  assert.deepEqual(rows, want);
  assert.deepEqual(cli.runs.map((r) => r.label), ['random', 'mna', 'random-restricted', 'mna-restricted']);
  await assertInk(page, ['chart-ses-groups', 'chart-ses-util', 'chart-ses-delay', 'chart-ses-queue-random', 'chart-ses-queue-mna-restricted']);
  await hoverMatches(page, 'chart-ses-queue-mna-restricted', /^day [\d.]+: waiting A [\d.]+, B/);
  await hoverMatches(page, 'chart-ses-util', /^group [A-D]: .*random [\d.]+ \(band/);
  await hoverMatches(page, 'chart-ses-groups', /^random, group A \(36 nodes × 4 CPUs\): median utilization/, { x: 0.15, y: 0.32 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=chart-ses-groups-png]')]);
  assert.equal(download.suggestedFilename(), 'gridscope-ses-groups.png');

  // One FCFS queue for the whole site: the CLI's --site-queue, to the same numbers.
  await page.check('[data-testid=ses-site-queue]');
  await page.click('[data-testid=ses-run]');
  const sq = cliJson(['run', '--preset', 'ses-selection', '--seeds', '2', '--site-queue']);
  assert.equal(sq.site_queue, true);
  const sqWait = sq.runs.find((r) => r.label === 'random-restricted').metrics.avg_wait_s;
  await page.waitForFunction((want) => {
    const td = document.querySelector('[data-testid=ses-table] tr[data-run=random-restricted][data-group=all] td[data-key=avg_wait_s]');
    return td && Number(td.dataset.value) === want;
  }, sqWait, { timeout: 60_000 });
  const sqRows = await readTable(page, 'ses-table', ['run', 'group']);
  assert.deepEqual(sqRows, sq.runs.flatMap((r) => [
    ...r.metrics.groups.map((g) => [r.label, g.name, [g.utilization, g.avg_queue_delay_s, g.jobs]]),
    [r.label, 'all', [r.metrics.utilization, r.metrics.avg_wait_s, r.metrics.avg_response_s]],
  ]));
  await page.uncheck('[data-testid=ses-site-queue]');

  // The crossover with its own shares and a load factor: the CLI's --x and --load.
  await page.selectOption('[data-testid=ses-preset]', { label: 'ses-restriction-crossover' });
  await set(page, '#ses-shares', '0.2,0.6');
  await set(page, '#ses-load', '1.5');
  t0 = Date.now();
  await page.click('[data-testid=ses-run]');
  await page.waitForSelector('[data-testid=ses-crossover-table]', { timeout: 60_000 });
  const xMs = Date.now() - t0;
  const cx = cliJson(['run', '--preset', 'ses-restriction-crossover', '--seeds', '2', '--x', '0.2,0.6', '--load', '1.5']);
  console.log(`# ses-restriction-crossover 2 seeds × 2 shares, load 1.5: page ${xMs} ms, CLI ${cx.native_ms} ms`);
  const table = await readTable(page, 'ses-crossover-table', ['policy']);
  assert.deepEqual(table, cx.series.map((s) => [s.policy, s.median]));
  await assertInk(page, ['chart-ses-crossover']);
  await hoverMatches(page, 'chart-ses-crossover', /= 0\.[26]: random [\d.,]+ s \(band/);

  // The link re-runs the crossover with the same parameters to the same numbers.
  await page.click('[data-testid=ses-share]');
  const link = await page.textContent('[data-testid=ses-share-url]');
  assert.match(link, /#f2=[A-Za-z0-9_-]+$/);
  const again = await open(link);
  await again.waitForSelector('[data-testid=ses-crossover-table]', { timeout: 60_000 });
  assert.equal(await again.inputValue('#ses-shares'), '0.2,0.6');
  // It lands on its panel, with a banner at the top that says what was shared.
  await assertLandsOn(again, 'ses', /This link shares the SES preset ses-restriction-crossover \(2 seeds\)\. It runs in the SES node groups view\./);
  assert.deepEqual(await readTable(again, 'ses-crossover-table', ['policy']), table);
  // A link written before the family registry (`#f1=`, one request per family) opens the
  // same run to the same numbers.
  const f1 = { family: 'ses', preset: 'ses-restriction-crossover', seeds: 2, load_factor: 1.5, shares: [0.2, 0.6], site_queue: false };
  const old = await open(`#f1=${zlib.deflateRawSync(Buffer.from(JSON.stringify(f1)), { level: 9 }).toString('base64url')}`);
  await old.waitForSelector('[data-testid=ses-crossover-table]', { timeout: 60_000 });
  await assertLandsOn(old, 'ses', /This link shares the SES preset ses-restriction-crossover \(2 seeds\)\./);
  assert.deepEqual(await readTable(old, 'ses-crossover-table', ['policy']), table);
  // A bad field is named before anything runs.
  await set(page, '#ses-shares', '0.2,1.5');
  await page.click('[data-testid=ses-run]');
  await page.waitForSelector('[data-testid=ses-error]');
  assert.match(await page.textContent('[data-testid=ses-error]'), /shares: 1\.5 is not in \[0, 1\]/);
});

test('the KKOR panel runs kkor-load and kkor-fairness in the worker to the CLI numbers and draws them', async () => {
  const page = await open('#/kkor');
  await page.waitForSelector('[data-testid=kkor-preset]');
  await set(page, '#kkor-seeds', '2');
  let t0 = Date.now();
  await page.click('[data-testid=kkor-run]');
  await page.waitForSelector('[data-testid=kkor-table]', { timeout: 60_000 });
  const loadMs = Date.now() - t0;
  const cli = cliJson(['run', '--preset', 'kkor-load', '--seeds', '2']);
  console.log(`# kkor-load 2 seeds: page ${loadMs} ms from click to table (${await page.textContent('[data-testid=kkor-status]')}), CLI ${cli.native_ms} ms`);
  assert.deepEqual(await readTable(page, 'kkor-table', ['policy', 'metric']), cli.series.map((s) => [s.policy, s.metric, s.median]));
  const charts = ['mean_flow_time', 'mean_tardiness', 'late_jobs', 'utilization'].map((m) => `chart-kkor-${m}`);
  await assertInk(page, charts);
  await hoverMatches(page, 'chart-kkor-mean_flow_time', /^ρ = [\d.]+: centralized [\d.,]+ \(band/);

  await page.selectOption('[data-testid=kkor-preset]', { label: 'kkor-fairness' });
  assert.match(await page.textContent('[data-testid=kkor-description]'), /KKOR Fig\. 4/);
  t0 = Date.now();
  await page.click('[data-testid=kkor-run]');
  await page.waitForSelector('[data-testid=kkor-orgs-table]', { timeout: 60_000 });
  const fairMs = Date.now() - t0;
  const fair = cliJson(['run', '--preset', 'kkor-fairness', '--seeds', '2']);
  console.log(`# kkor-fairness 2 seeds: page ${fairMs} ms, CLI ${fair.native_ms} ms`);
  const orgs = await readTable(page, 'kkor-orgs-table', ['run']);
  assert.deepEqual(orgs, fair.runs.map((r) => [r.label, [r.metrics.mean_flow_time, ...r.metrics.organizations.map((o) => o.mean_flow_time)]]));
  const rel = await page.$$eval('[data-testid=kkor-orgs-table] td[data-org]', (tds) => tds.map((td) => td.dataset.relative === 'null' ? null : Number(td.dataset.relative)));
  assert.deepEqual(rel, fair.runs.flatMap((r) => r.metrics.organizations.map((o) => o.relative_to_local?.mean_flow_time ?? null)));
  await assertInk(page, ['chart-kkor-orgs']);
  await hoverMatches(page, 'chart-kkor-orgs', /^O\d: centralized [\d.,]+ \(×[\d.,]+ of local\)/);
  // The migration matrix of a chosen run equals the CLI's.
  await page.selectOption('[data-testid=kkor-migration-run]', { label: 'distr3' });
  await page.waitForSelector('[data-testid=kkor-migrations][data-label=distr3]');
  const matrix = await page.$$eval('[data-testid=kkor-migrations] tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
  assert.deepEqual(matrix, fair.runs.find((r) => r.label === 'distr3').migrations);
  await assertInk(page, ['chart-kkor-gantt-o1', 'chart-kkor-gantt-o3']);
  await hoverMatches(page, 'chart-kkor-gantt-o3', /^(job \d+ of O\d|[\d.]+ time units, processor)/, { x: 0.3, y: 0.3 });

  await page.click('[data-testid=kkor-share]');
  const link = await page.textContent('[data-testid=kkor-share-url]');
  // Copy puts the link on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('[data-testid=kkor-share-copy]');
  await page.waitForFunction(() => /copied/.test(document.querySelector('[data-testid=kkor-share-copy]').nextSibling?.textContent ?? ''));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  const again = await open(link);
  await again.waitForSelector('[data-testid=kkor-orgs-table]', { timeout: 60_000 });
  assert.deepEqual(await readTable(again, 'kkor-orgs-table', ['run']), orgs);
  assert.equal(await again.$('[data-testid=ses-table]'), null, 'a KKOR link does not run SES');

  // The load sweep's own loads (the CLI's --x), c_k sliders, S and L; the link keeps them.
  // A link no longer what the fields say goes: another preset hides it.
  await page.selectOption('[data-testid=kkor-preset]', { label: 'kkor-load' });
  await page.waitForFunction(() => !document.querySelector('[data-testid=kkor-share-url]'));
  await set(page, '#kkor-loads', '0.5,0.9');
  await page.click('[data-testid=kkor-run]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=kkor-table] thead th').length === 4, null, { timeout: 60_000 });
  const custom = cliJson(['run', '--preset', 'kkor-load', '--seeds', '2', '--x', '0.5,0.9']);
  assert.deepEqual(await readTable(page, 'kkor-table', ['policy', 'metric']), custom.series.map((s) => [s.policy, s.metric, s.median]));
  await page.$eval('[data-testid=kkor-c3]', (el) => { el.value = '0.5'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  await set(page, '#kkor-s', '10');
  await set(page, '#kkor-l', '5');
  await page.click('[data-testid=kkor-share]');
  await page.waitForFunction((old) => document.querySelector('[data-testid=kkor-share-url]')?.textContent !== old, link);
  const link2 = await page.textContent('[data-testid=kkor-share-url]');
  const third = await open(link2);
  await third.waitForSelector('[data-testid=kkor-table]', { timeout: 60_000 });
  assert.equal(await third.inputValue('#kkor-loads'), '0.5,0.9');
  assert.equal(await third.inputValue('#kkor-s'), '10');
  assert.equal(await third.inputValue('#kkor-l'), '5');
  assert.equal(await third.inputValue('[data-testid=kkor-c3]'), '0.5');
  // A bad coefficient set is named before anything runs.
  await set(page, '#kkor-s', '0');
  await page.click('[data-testid=kkor-run]');
  await page.waitForSelector('[data-testid=kkor-error]');
  assert.match(await page.textContent('[data-testid=kkor-error]'), /S: 0 is not a whole number/);
});

test('no request left 127.0.0.1 and nothing was logged as an error (SES and KKOR pages)', () => {
  assertCleanPages(pages, 4);
});

// Failures in the page (issue #41): a failure model picked in the form places the demo's
// site on nodes, every run reports what failed exactly as the CLI does for the same
// scenario (read back from the page's share link, scenario version 4), the page draws nodes
// up over time, the work lost per run and the down nodes and killed runs in the Gantt chart,
// and the link opens again to the same numbers. Then jobs on nodes (issue #37): the
// gpu-cluster preset's resources, and a run placed by best fit. Needs `trunk build
// --release --offline` and `cargo build --release`.
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

/** Clicks Share and reads the page's link: its address and what it holds (`scenario`). */
async function shareLink(page) {
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  return { url, shared: JSON.parse(zlib.inflateRawSync(Buffer.from(url.split('#s1=')[1], 'base64url'))) };
}

/** The CLI's report (`gridscope run FILE --json`) on `scenario`, written to a fresh folder
 * that is removed afterwards. */
function cliRun(scenario) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-failures-'));
  try {
    fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(scenario));
    return JSON.parse(execFileSync(CLI, ['run', path.join(dir, 'scenario.json'), '--json'], { maxBuffer: 64 << 20 }).toString());
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

/** The page's report JSON (the CLI's `--json` shape). */
async function reportJson(page) {
  return JSON.parse(await page.textContent('[data-testid=report-json]'));
}

test('a failure model in the form: runs on nodes, the failures table equals the CLI, the charts draw them, the link re-runs them', async () => {
  const page = await open();
  await waitResults(page, 5);
  assert.match(await page.textContent('[data-testid=failures]'), /failures need sites placed on nodes/);
  await page.selectOption('[data-testid=failure-model]', 'lanl05-exp');
  // The demo's 128 processors became 128 one-core nodes (a custom site); every one of the
  // five algorithms places on nodes (conservative's reservations hold particular nodes).
  assert.doesNotMatch(await page.textContent('[data-testid=failures]'), /failures need sites placed on nodes/);
  // The sites table edits the nodes it placed: 96 nodes instead of 128.
  await page.fill('table.sites input[aria-label=nodes]', '96');
  await page.press('table.sites input[aria-label=nodes]', 'Tab');
  await page.fill('#f-failure-seed', '3');
  await page.press('#f-failure-seed', 'Tab');
  await page.selectOption('[data-testid=checkpoint]', 'young');
  // The failures table appears with the run's results: its five rows say they ended.
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=failure-table] tbody tr').length === 5,
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 5, 120_000);
  assert.deepEqual(Object.keys(rows).sort(), ['conservative', 'easy', 'fcfs', 'firstfit', 'sjf']);
  const json = await reportJson(page);
  for (const r of json.runs) {
    assert.ok(r.failures, `${r.label} has no failures`);
    assert.ok(r.failures.downtimes > 0 && r.failures.runs_killed > 0, `${r.label}: ${JSON.stringify(r.failures)}`);
    assert.ok(r.failures.checkpoint.checkpoints > 0, `${r.label} wrote no checkpoint`);
  }
  assert.equal(await page.locator('[data-testid=failure-table] tbody tr').count(), 5);
  // The finding names the run of highest goodput (the first of them) and its numbers.
  const best = json.runs.reduce((a, r) => (r.failures.goodput > a.failures.goodput ? r : a));
  const finding = await page.textContent('[data-testid=failure-finding]');
  assert.match(finding, /^Nodes were up [\d.]+ % of the time\. /);
  assert.ok(finding.includes(`${best.label} lost least to failures (goodput ${(best.failures.goodput * 100).toFixed(2)} %`), finding);
  assert.ok(finding.includes(`${best.failures.jobs_lost} jobs lost)`), finding);
  assert.ok(await canvasInk(page, 'chart-work-lost') > 0.01, 'the work-lost bars are blank');
  assert.ok(await canvasInk(page, 'chart-nodes-up') > 0.01, 'the nodes-up chart is blank');
  // The Gantt chart of the first run draws the engine's placements, the nodes down and the
  // runs the failures killed.
  await page.waitForSelector('[data-testid=chart-gantt][data-down]');
  const gantt = await page.evaluate(() => ({ ...document.querySelector('[data-testid=chart-gantt]').dataset }));
  assert.ok(Number(gantt.down) > 0 && Number(gantt.killed) > 0 && Number(gantt.rects) > 0, JSON.stringify(gantt));

  // The share link holds scenario version 4: the nodes and the failures.
  const { url, shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 4);
  assert.deepEqual(shared.scenario.platform.sites[0].node_types, [{ count: 96, cores: 1, mem_kb: 0, gpus: 0 }]);
  assert.equal(shared.scenario.platform.sites[0].nodes, 96);
  assert.equal(shared.scenario.failures.model, 'lanl05-exp');
  assert.equal(shared.scenario.failures.seed, 3);
  assert.equal(shared.scenario.failures.checkpoint.interval, 'young');

  // The CLI on the same scenario: the same metrics and failures, run for run.
  const cli = cliRun(shared.scenario);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual(json.runs.map((r) => [r.label, r.failures]), cli.runs.map((r) => [r.label, r.failures]));
  // Cores held and stranded per run (issue #37; one-core nodes strand nothing), as the CLI
  // gives them, in a table and a chart.
  assert.deepEqual(json.runs.map((r) => [r.label, r.resources]), cli.runs.map((r) => [r.label, r.resources]));
  assert.ok(json.runs.every((r) => r.resources.cores.utilization > 0 && r.resources.cores.stranded === 0), JSON.stringify(json.runs[0].resources));
  assert.equal(await page.locator('[data-testid=resource-table] tbody tr').count(), 5);
  assert.ok(await canvasInk(page, 'chart-resources') > 0.01, 'the resources bars are blank');

  // The link opens again and re-runs to the same failures.
  const again = await open(url);
  await again.waitForFunction(
    () => document.querySelectorAll('[data-testid=failure-table] tbody tr').length === 5,
    null,
    { timeout: 120_000 },
  );
  assertSameNumbers(await waitResults(again, 5, 120_000), rows);
  assert.deepEqual((await reportJson(again)).runs.map((r) => r.failures), json.runs.map((r) => r.failures));
  assert.equal(await again.inputValue('[data-testid=failure-model]'), 'lanl05-exp');
  assert.equal(await again.inputValue('[data-testid=checkpoint]'), 'young');
  // Failures off again: the model goes, the nodes stay.
  await again.selectOption('[data-testid=failure-model]', '');
  assert.equal(await again.locator('#f-failure-seed').count(), 0);
});

test('checkpointing per job and within the limit, killed jobs offered to the grid again: the link is version 12 and the page equals the CLI', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=failure-model]', 'lanl05-exp');
  await page.selectOption('[data-testid=checkpoint]', 'young');
  await page.check('[data-testid=checkpoint-per-job]');
  await page.check('[data-testid=checkpoint-within-limit]');
  await page.selectOption('[data-testid=requeue-at]', 'grid');
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=failure-table] tbody tr').length === 5,
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 5, 120_000);
  const json = await reportJson(page);
  for (const r of json.runs) {
    const c = r.failures.checkpoint;
    assert.ok(Number.isInteger(c.cut_at_limit) && c.work_unfinished_core_h >= 0, `${r.label}: ${JSON.stringify(c)}`);
    assert.ok(c.interval_range_s[0] <= c.interval_range_s[1], JSON.stringify(c));
  }
  assert.ok(await page.locator('[data-testid=failure-table] th[data-key=cut_at_limit]').count() === 1);
  // One site: the requeues offered to the grid all ran there again.
  assert.ok(await page.locator('[data-testid=failure-table] th[data-key=requeued_elsewhere]').count() === 1);
  assert.ok(json.runs.every((r) => r.failures.requeued_elsewhere === 0), JSON.stringify(json.runs.map((r) => r.failures)));
  assert.match(await page.textContent('[data-testid=failure-finding]'), /offered to the grid again: 0 of its \d+ requeues ran next on another site\./);
  const { url, shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 12);
  assert.equal(shared.scenario.failures.requeue_at, 'grid');
  assert.ok(json.runs.every((r) => r.failures.requeue_at === 'grid'), JSON.stringify(json.runs.map((r) => r.failures.requeue_at)));
  assert.equal(shared.scenario.failures.checkpoint.per_job, true);
  assert.equal(shared.scenario.failures.checkpoint.within_limit, true);
  const cli = cliRun(shared.scenario);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual(json.runs.map((r) => [r.label, r.failures]), cli.runs.map((r) => [r.label, r.failures]));
  // The link opens again with both boxes ticked.
  const again = await open(url);
  await waitResults(again, 5, 120_000);
  assert.ok(await again.isChecked('[data-testid=checkpoint-per-job]'));
  assert.ok(await again.isChecked('[data-testid=checkpoint-within-limit]'));
  assert.equal(await again.inputValue('[data-testid=requeue-at]'), 'grid');
});

test('an outage file picked in the page: its report, the runs see it as the CLI does, the link carries it, a bad line is named', async () => {
  const page = await open();
  await waitResults(page, 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-outages-'));
  const bad = path.join(dir, 'bad.csv');
  fs.writeFileSync(bad, 'node,start,end,kind\n0,100,50,failure\n');
  await page.setInputFiles('[data-testid=outage-file]', bad);
  await page.waitForSelector('[data-testid=error]');
  assert.match(await page.textContent('[data-testid=error]'), /bad\.csv:2:/);
  assert.equal(await page.locator('[data-testid=failures-outages]').count(), 0);
  const good = path.join(dir, 'outages.csv');
  fs.writeFileSync(good, 'node,start,end,kind\n# two nodes down early on\n0,100,20000,failure\n1,200.5,30000,maintenance\n');
  await page.setInputFiles('[data-testid=outage-file]', good);
  await page.waitForSelector('[data-testid=outage-file-report]');
  assert.match(await page.textContent('[data-testid=outage-file-report]'), /outages\.csv: 2 outages \(1 failure, 1 maintenance\)/);
  assert.match(await page.textContent('[data-testid=failures-outages]'), /lists 2 known outages/);
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=failure-table] tbody tr').length === 5,
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 5, 120_000);
  const json = await reportJson(page);
  for (const r of json.runs) assert.equal(r.failures.downtimes, 2, `${r.label}: ${JSON.stringify(r.failures)}`);
  const { shared } = await shareLink(page);
  assert.deepEqual(shared.scenario.failures.outages, [
    { node: 0, start_s: 100, end_s: 20000, kind: 'failure' },
    { node: 1, start_s: 200, end_s: 30000, kind: 'maintenance' },
  ]);
  const cli = cliRun(shared.scenario);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual(json.runs.map((r) => [r.label, r.failures]), cli.runs.map((r) => [r.label, r.failures]));
  // Edited one by one: one added in the table's last row, the first dropped, and the link
  // carries what is left; an outage ending before it starts is refused by name.
  await page.fill('[data-testid=outage-node]', '1');
  await page.fill('[data-testid=outage-start]', '40000');
  await page.fill('[data-testid=outage-end]', '41000');
  await page.selectOption('[data-testid=outage-kind]', 'maintenance');
  await page.click('[data-testid=add-outage]');
  await page.waitForFunction(() => /lists 3 known outages/.test(document.querySelector('[data-testid=failures-outages]').textContent));
  await page.click('[data-testid=drop-outage-0]');
  await page.waitForFunction(() => /lists 2 known outages/.test(document.querySelector('[data-testid=failures-outages]').textContent));
  const { shared: edited } = await shareLink(page);
  assert.deepEqual(edited.scenario.failures.outages, [
    { node: 1, start_s: 200, end_s: 30000, kind: 'maintenance' },
    { node: 1, start_s: 40000, end_s: 41000, kind: 'maintenance' },
  ]);
  await page.fill('[data-testid=outage-end]', '100');
  await page.click('[data-testid=add-outage]');
  await page.waitForSelector('[data-testid=error]');
  assert.match(await page.textContent('[data-testid=error]'), /ends at 100 s, not after its start at 40000 s/);
  // Dropped again: no failures left (no model was chosen).
  await page.click('[data-testid=clear-outages]');
  assert.equal(await page.locator('[data-testid=failures-outages]').count(), 0);
});

test('the gpu-cluster preset: GPU jobs on nodes, cores, memory and GPUs held and stranded equal the CLI', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'gpu-cluster');
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid=resource-table] tbody tr').length === 5,
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 5, 120_000);
  const cli = JSON.parse(execFileSync(CLI, ['run', '--preset', 'gpu-cluster', '--json'], { maxBuffer: 64 << 20 }).toString());
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  const json = await reportJson(page);
  assert.deepEqual(json.runs.map((r) => [r.label, r.resources]), cli.runs.map((r) => [r.label, r.resources]));
  assert.ok(json.runs.every((r) => r.resources.gpus.utilization > 0.5), JSON.stringify(json.runs[0].resources));
  const head = await page.textContent('[data-testid=resource-table] thead');
  assert.match(head, /GPUs held/);
  assert.match(head, /GPUs stranded/);
  assert.ok(await canvasInk(page, 'chart-resources') > 0.01, 'the resources bars are blank');
  // GPUs and memory held over time: lines per site beside utilization and the queue.
  assert.ok(await canvasInk(page, 'chart-gpus') > 0.01, 'the GPUs-held chart is blank');
  assert.equal(await page.locator('[data-testid=chart-memory]').count(), 1);
  assert.ok(await canvasInk(page, 'chart-stranded') > 0.01, 'the stranded-cores chart is blank');
  // Free memory and GPUs on full nodes over time, one chart each.
  assert.equal(await page.locator('[data-testid=chart-memory-stranded]').count(), 1);
  assert.equal(await page.locator('[data-testid=chart-gpus-stranded]').count(), 1);

  // The generator's demands are page inputs: a quarter of the jobs ask 2 GPUs and a fifth
  // 4 GB per processor; the share link carries them (scenario version 7) and the CLI on it
  // gives the same resources.
  assert.equal(await page.inputValue('#f-lublin-gpu-share'), '0.5');
  // The table before the edit, read before the run starts: read after the click, a fast
  // run could already have changed it, and the wait below would never see a change.
  const before = JSON.stringify(await page.$$eval('[data-testid=resource-table] tbody td', (cs) => cs.map((c) => c.textContent)));
  await page.fill('#f-lublin-gpu-share', '0.25');
  await page.fill('#f-lublin-gpus', '2');
  await page.fill('#f-lublin-mem-share', '0.2');
  await page.fill('#f-lublin-mem', String(4 << 20));
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    (before) => JSON.stringify([...document.querySelectorAll('[data-testid=resource-table] tbody td')].map((c) => c.textContent)) !== before,
    before,
    { timeout: 120_000 },
  );
  const edited = await waitResults(page, 5, 120_000);
  const { shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 7);
  const { gpu_share, gpus_per_job, mem_share, mem_kb_per_proc } = shared.scenario.workload;
  assert.deepEqual([gpu_share, gpus_per_job, mem_share, mem_kb_per_proc], [0.25, 2, 0.2, 4 << 20]);
  const again = cliRun(shared.scenario);
  assertSameNumbers(edited, Object.fromEntries(again.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual((await reportJson(page)).runs.map((r) => r.resources), again.runs.map((r) => r.resources));
  assert.ok(again.runs.every((r) => r.resources.memory_kb.utilization > 0), JSON.stringify(again.runs[0].resources));
});

test('a run placed by best fit: the runs table sets it, the results name it, the link (version 8) gives the CLI\'s numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'memory-cluster');
  await page.selectOption('[data-testid=placement-1]', 'best-fit');
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid=results] tbody tr[data-label="easy, best-fit"]'),
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 5, 120_000);
  assert.deepEqual(Object.keys(rows), ['fcfs', 'easy, best-fit', 'conservative', 'sjf', 'firstfit']);
  const { shared } = await shareLink(page);
  assert.equal(shared.scenario.version, 8);
  assert.deepEqual(shared.scenario.algorithms.map((a) => a.placement ?? 'first_fit'),
    ['first_fit', 'best_fit', 'first_fit', 'first_fit', 'first_fit']);
  const cli = cliRun(shared.scenario);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual((await reportJson(page)).runs.map((r) => r.resources), cli.runs.map((r) => r.resources));
});

test('the sites table edits node types: a second type of fat nodes runs, shared then exclusive, the link carries both, the CLI gives the same numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'memory-cluster');
  await waitResults(page, 5, 120_000);
  // One type (16 × 32 cores × 64 GB) listed under the site; add a second, 4 nodes of 64
  // cores and 256 GB with 2 GPUs.
  assert.equal(await page.locator('[data-testid=node-types-0] tbody tr').count(), 1);
  assert.equal(await page.inputValue('[data-testid=node-type-0-0] input[aria-label="memory per node (GB)"]'), '64');
  await page.click('[data-testid=node-type-add-0]');
  const row = '[data-testid=node-type-0-1]';
  await page.waitForSelector(row);
  for (const [label, value] of [['node type name', 'fat'], ['node count', '4'], ['cores per node', '64'], ['memory per node (GB)', '256'], ['GPUs per node', '2']]) {
    await page.fill(`${row} input[aria-label="${label}"]`, value);
    await page.press(`${row} input[aria-label="${label}"]`, 'Tab');
  }
  // The site is the types' sum: 20 nodes, mixed cores.
  assert.match(await page.textContent('[data-testid=node-types-0] caption'), /20 nodes, 768 cores/);
  assert.match(await page.textContent('table.sites'), /mixed/);
  await page.click('[data-testid=run]');
  // The report of this run names the new type in its platform.
  await page.waitForFunction(() => /"fat"/.test(document.querySelector('[data-testid=report-json]')?.textContent ?? ''), null, { timeout: 120_000 });
  const rows = await waitResults(page, 5, 120_000);
  const { shared } = await shareLink(page);
  const site = shared.scenario.platform.sites[0];
  assert.equal(site.nodes, 20);
  assert.deepEqual(site.node_types.map((t) => [t.name ?? '', t.count, t.cores, t.mem_kb, t.gpus]),
    [['n', 16, 32, 64 << 20, 0], ['fat', 4, 64, 256 << 20, 2]]);
  const cli = cliRun(shared.scenario);
  assert.equal(cli.platform.sites[0].node_types.length, 2);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual((await reportJson(page)).runs.map((r) => r.resources), cli.runs.map((r) => r.resources));
  // The fat type made exclusive (the site still shares the others): version 11, one job
  // per fat node, the CLI's numbers again.
  const box = '[data-testid=node-type-exclusive-0-1]';
  assert.equal(await page.isChecked(box), false);
  await page.check(box);
  assert.match(await page.textContent('[data-testid=node-types-0] caption'), /types marked exclusive run one job each/);
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => /"exclusive": ?true/.test(document.querySelector('[data-testid=report-json]')?.textContent ?? ''), null, { timeout: 120_000 });
  const exclusiveRows = await waitResults(page, 5, 120_000);
  const { shared: exclusiveLink } = await shareLink(page);
  assert.equal(exclusiveLink.scenario.version, 11);
  assert.deepEqual(exclusiveLink.scenario.platform.sites[0].node_types.map((t) => t.exclusive ?? false), [false, true]);
  const exclusiveCli = cliRun(exclusiveLink.scenario);
  assertSameNumbers(exclusiveRows, Object.fromEntries(exclusiveCli.runs.map((r) => [r.label, r.metrics])));
  assert.notDeepEqual(exclusiveRows, rows, 'exclusivity changed nothing');
  // Removing both types gives the site back its processors.
  await page.click(`${row} button:has-text("remove")`);
  await page.click('[data-testid=node-type-0-0] button:has-text("remove")');
  assert.equal(await page.locator('[data-testid=node-types-0]').count(), 0);
  assert.equal(await page.locator('[data-testid=node-types-add-0]').count(), 1);
});

test('node-exclusive node types: the sites table sets allocation node, each job holds whole nodes, the link carries it, the CLI gives the same numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=scenario-preset]', 'memory-cluster');
  const shared = await waitResults(page, 5, 120_000);
  await page.selectOption('table.sites select[aria-label="allocation"]', 'node');
  // The node types stay: the typed site is now node-exclusive, and its caption says so.
  assert.equal(await page.locator('[data-testid=node-types-0] tbody tr').count(), 1);
  assert.match(await page.textContent('[data-testid=node-types-0] caption'), /node-exclusive: each node runs one job/);
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => /"allocation": ?"node"/.test(document.querySelector('[data-testid=report-json]')?.textContent ?? ''), null, { timeout: 120_000 });
  const rows = await waitResults(page, 5, 120_000);
  const { shared: link } = await shareLink(page);
  assert.equal(link.scenario.version, 10);
  const site = link.scenario.platform.sites[0];
  assert.equal(site.allocation, 'node');
  assert.equal(site.node_types.length, 1);
  const cli = cliRun(link.scenario);
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  assert.deepEqual((await reportJson(page)).runs.map((r) => r.resources), cli.runs.map((r) => r.resources));
  // Whole nodes held: the small Lublin jobs each take a 32-core node, so FCFS waits far
  // longer than on the shared nodes, and the cores held (utilization) far outrun the
  // cores used (grid efficiency).
  assert.ok(rows.fcfs.avg_wait_s > 10 * shared.fcfs.avg_wait_s, `${rows.fcfs.avg_wait_s} against ${shared.fcfs.avg_wait_s}`);
  assert.ok(rows.fcfs.utilization > 2 * rows.fcfs.grid_efficiency, JSON.stringify(rows.fcfs));
  assert.equal(cli.runs[0].resources.cores.stranded, 0);
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 4);
});

// Slurm's own policy in the page (issue #42, docs/slurm.md): the runs table offers `slurm`,
// a slurm run shows its configuration (a preset, every weight and backfill knob, two flags,
// a pasted slurm.conf read as `--slurm-conf` reads it, with the keys it does not model
// listed, a pasted QOS dump read as `--slurm-qos` reads it, a pasted association dump kept
// for the run's start), and the share link carries the configuration to the CLI, which gives the page's
// numbers. Needs `trunk build --release --offline` and `cargo build --release`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { repoRoot, pageSuite, assertCleanPages, assertSameNumbers, waitResults } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const { open, pages } = pageSuite();

test('a slurm run: its knobs and a pasted slurm.conf set its configuration, the link gives the CLI\'s numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.check('[data-testid=alg-slurm]');
  const knob = (name) => `[data-testid="slurm-5-${name}"]`;
  await page.waitForSelector(knob('PriorityWeightAge'));
  // Slurm's defaults until told otherwise: every weight 0, bf_window 1440 minutes.
  assert.equal(await page.inputValue(knob('PriorityWeightAge')), '0');
  assert.equal(await page.inputValue(knob('bf_window')), '1440');
  // A knob typed in.
  await page.fill(knob('TRES-CPU'), '250');
  await page.press(knob('TRES-CPU'), 'Tab');
  await page.waitForFunction((sel) => document.querySelector(sel)?.value === '250', knob('TRES-CPU'));
  // A slurm.conf pasted: its numbers replace the run's, its unmodelled keys are listed.
  await page.click('details.slurm-conf summary');
  await page.fill('[data-testid=slurm-5-conf]', [
    'ClusterName=demo',
    'PriorityWeightAge=1000',
    'PriorityWeightJobSize=500',
    'PriorityMaxAge=1-0',
    'SchedulerParameters=bf_window=60,bf_interval=30,bf_continue',
    'PartitionName=batch Nodes=n[1-4] PriorityTier=2 MaxTime=2-0',
    'NodeName=n[1-4] CPUs=8 RealMemory=1000',
  ].join('\n'));
  await page.click('[data-testid=slurm-5-read]');
  await page.waitForFunction((sel) => document.querySelector(sel)?.value === '500', knob('PriorityWeightJobSize'));
  const notes = await page.textContent('[data-testid=slurm-5-conf-notes]');
  assert.match(notes, /ClusterName \(line 1\)/);
  assert.match(notes, /SchedulerParameters:bf_continue \(line 5\)/);
  assert.match(notes, /Nodes= name node types/);
  assert.equal(await page.inputValue(knob('bf_interval')), '30');
  // Slurm's backfill reserves whole nodes: their size from the NodeName lines.
  assert.equal(await page.inputValue(knob('node-CPUs')), '8');
  assert.match(notes, /whole nodes of 8 CPUs/);
  assert.match(notes, /NodeName:RealMemory \(line 7\)/);
  assert.equal(await page.inputValue(knob('TRES-CPU')), '0', 'the file replaced the typed knob');
  // A bad value names its line and changes nothing.
  await page.fill('[data-testid=slurm-5-conf]', 'PriorityWeightAge=1\nPriorityWeightAge=lots');
  await page.click('[data-testid=slurm-5-read]');
  await page.waitForFunction(() => /line 2/.test(document.querySelector('[data-testid=slurm-5-conf-notes]')?.textContent ?? ''));
  assert.equal(await page.inputValue(knob('PriorityWeightAge')), '1000');
  // A QOS dump pasted (sacctmgr show qos -P): the run's QOS, listed under the knobs; its
  // unmodelled columns are named.
  await page.click('details:has([data-testid=slurm-5-qos]) summary');
  await page.fill('[data-testid=slurm-5-qos]', 'Name|Priority|MaxJobsPU|GrpTRES|MaxWall|GraceTime\nnormal|0|2|||\nhigh|10||cpu=64|01:00:00|60');
  await page.click('[data-testid=slurm-5-read-qos]');
  await page.waitForSelector('[data-testid=slurm-5-qos-summary]');
  assert.equal(
    await page.textContent('[data-testid=slurm-5-qos-summary]'),
    'QOS: normal: Priority 0, MaxJobsPU 2; high: Priority 10, GrpTRES cpu=64, MaxWall 3600 s',
  );
  assert.match(await page.textContent('[data-testid=slurm-5-qos-notes]'), /GraceTime \(set for QOS high\) is not modelled/);
  // An association dump pasted (sacctmgr show assoc -P): kept as the site printed it, it
  // meets the log's users (by number here: a generated log) at the run's start.
  await page.click('details:has([data-testid=slurm-5-assoc]) summary');
  await page.fill('[data-testid=slurm-5-assoc]', 'Cluster|Account|User|Share\nc|root||1\nc|root|1|many');
  await page.click('[data-testid=slurm-5-read-assoc]');
  await page.waitForFunction(() => /line 3/.test(document.querySelector('[data-testid=slurm-5-assoc-notes]')?.textContent ?? ''));
  const dump = 'Cluster|Account|User|Share|ParentName\nc|root||1|\nc|a||3|root\nc|a|1|2|\nc|b||1|root\nc|b|2|1|\nc|b|1|1|';
  await page.fill('[data-testid=slurm-5-assoc]', dump);
  await page.click('[data-testid=slurm-5-read-assoc]');
  await page.waitForSelector('[data-testid=slurm-5-assoc-summary]');
  assert.match(await page.textContent('[data-testid=slurm-5-assoc-notes]'), /user 1 is in accounts a and b/);
  assert.match(await page.textContent('[data-testid=slurm-5-assoc-summary]'), /7 lines/);
  await page.fill(knob('PriorityWeightFairshare'), '2000');
  await page.press(knob('PriorityWeightFairshare'), 'Tab');
  await page.waitForFunction((sel) => document.querySelector(sel)?.value === '2000', knob('PriorityWeightFairshare'));
  await page.fill(knob('PriorityWeightQOS'), '100');
  await page.press(knob('PriorityWeightQOS'), 'Tab');
  await page.waitForFunction((sel) => document.querySelector(sel)?.value === '100', knob('PriorityWeightQOS'));
  // Every knob says what it weighs or bounds.
  const titles = await page.$$eval('tr.slurm-params label.param[title]', (ls) => ls.map((l) => l.title));
  assert.ok(titles.length >= 17 && titles.every((t) => t.length > 30), JSON.stringify(titles));
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid=results] tbody tr[data-label="slurm"]'),
    null,
    { timeout: 120_000 },
  );
  const rows = await waitResults(page, 6, 120_000);
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  const shared = JSON.parse(zlib.inflateRawSync(Buffer.from(url.split('#s1=')[1], 'base64url')));
  const slurm = shared.scenario.algorithms.find((a) => a.local === 'slurm');
  assert.equal(slurm.slurm.weight_age, 1000);
  assert.equal(slurm.slurm.weight_job_size, 500);
  assert.equal(slurm.slurm.bf_interval_s, 30);
  assert.equal(slurm.slurm.bf_node_cpus, 8);
  assert.equal(slurm.slurm.weight_qos, 100);
  assert.equal(slurm.slurm.assoc_dump, dump);
  assert.deepEqual(slurm.slurm.qos, [
    { name: 'normal', priority: 0, max_jobs_per_user: 2 },
    { name: 'high', priority: 10, grp_cpus: 64, max_wall_s: 3600 },
  ]);
  assert.deepEqual(slurm.slurm.partitions, [{ name: 'batch', priority_job_factor: 1, priority_tier: 2, max_time_s: 172800, nodes: ['n[1-4]'] }]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-slurm-page-'));
  fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify(shared.scenario));
  const cli = JSON.parse(execFileSync(CLI, ['run', path.join(dir, 'scenario.json'), '--json'], { maxBuffer: 64 << 20 }).toString());
  fs.rmSync(dir, { recursive: true });
  assertSameNumbers(rows, Object.fromEntries(cli.runs.map((r) => [r.label, r.metrics])));
  // The link opens again to the slurm run and its configuration.
  const again = await open(url.slice(url.indexOf('#')));
  await waitResults(again, 6, 120_000);
  assert.equal(await again.inputValue(knob('PriorityWeightJobSize')), '500');
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 2);
});

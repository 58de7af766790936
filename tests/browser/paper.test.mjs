// Page test of the "Paper vs Gridscope" view (issue #28) on the release build in dist/: the
// report card runs in the page's worker and shows, claim for claim, the values and verdicts
// `gridscope reproduce --json` prints for the same runs (here without trace files, so the
// rows that read real logs say "not run" in both and name the file); its link re-opens it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, pageSuite, assertCleanPages, assertOnView } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', 'gridscope');
const { open, pages } = pageSuite();

function cliCard(paper, ...extra) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release --bin gridscope\` first`);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-no-traces-'));
  const t0 = Date.now();
  const card = JSON.parse(execFileSync(CLI, ['reproduce', paper, '--json', '--threads', '1', '--traces', empty, ...extra], { maxBuffer: 64 << 20 }).toString());
  card.native_ms = Date.now() - t0;
  return card;
}

/** The table's rows: id, ours, its verdict, the reading and its verdict (empty when none). */
function readCard(page) {
  return page.$$eval('[data-testid=paper-table] tbody tr[data-id]', (rows) => rows.map((r) => {
    const cell = (k) => r.querySelector(`td[data-key=${k}]`);
    const num = (k) => (cell(k)?.dataset.value ? Number(cell(k).dataset.value) : null);
    return [r.dataset.id, num('ours'), cell('ours-verdict')?.textContent ?? '', num('reading'), cell('reading-verdict')?.textContent ?? ''];
  }));
}


test('the report card runs in the page to the CLI\'s values and verdicts, filters the gaps and shares a link', async () => {
  const page = await open('#/paper');
  await assertOnView(page, 'paper');
  const t0 = Date.now();
  await page.click('[data-testid=paper-run]');
  await page.waitForSelector('[data-testid=paper-table]', { timeout: 180_000 });
  const pageMs = Date.now() - t0;
  const cli = cliCard('all');
  console.log(`# report card, all papers without traces: page ${pageMs} ms from click to table (${await page.textContent('[data-testid=paper-status]')}), CLI one thread ${cli.native_ms} ms`);
  const rows = await readCard(page);
  const want = cli.rows.map((r) => [
    `${r.paper}.${r.id}`, r.default.ours ?? null, r.default.verdict_text,
    r.reading ? (r.reading.ours ?? null) : null, r.reading ? r.reading.verdict_text : '',
  ]);
  assert.deepEqual(rows, want);
  assert.ok(rows.length >= 50, `${rows.length} claims`);
  // Without traces the SCJG rows say which file they need, in the page as in the CLI.
  const title = await page.getAttribute('[data-testid=paper-table] tr[data-id="scjg.utilization-falls"] td[data-key=ours]', 'title');
  assert.match(title, /needs the trace SDSC-SP2-1998-4\.2-cln\.swf\.gz/);
  // The KKOR gap and its documented reading: the same direction but ×2.8 the paper's at the
  // defaults (issue #38: said with its size, never a mere "trend"), reproduced under it.
  const kkor = rows.find((r) => r[0] === 'kkor.dec-slightly-worse');
  assert.match(kkor[2], /^same direction, larger by ×\d+\.\d\d$/);
  assert.equal(kkor[4], 'reproduced');
  assert.ok(rows.every((r) => r[2] !== 'trend' && r[4] !== 'trend'), 'no verdict is called a trend');
  const summary = await page.textContent('[data-testid=paper-summary]');
  assert.match(summary, new RegExp(`reproduced: ${cli.summary.reproduced.at_defaults} → ${cli.summary.reproduced.best}`));

  // "Not reproduced" shows exactly the rows not reproduced at the defaults (issue #38: it
  // listed every row short of reproduced, not run included).
  await page.selectOption('[data-testid=paper-filter]', '1');
  const gaps = await readCard(page);
  const notReproduced = cli.rows.filter((r) => r.default.verdict === 'not_reproduced').map((r) => `${r.paper}.${r.id}`);
  assert.deepEqual(gaps.map((r) => r[0]), notReproduced);
  assert.ok(gaps.every((r) => r[2] === 'not reproduced'), JSON.stringify(gaps));
  assert.match(await page.textContent('[data-testid=paper-shown]'), new RegExp(`^${gaps.length} of ${rows.length} claims shown`));
  await page.selectOption('[data-testid=paper-filter]', '0');
  // Each row links to the paragraph of its family's doc.
  const href = await page.getAttribute('[data-testid=paper-table] [data-testid=claim-line][data-id^="kkor."] a', 'href');
  assert.match(href, /^docs\/kkor\.html#[a-z0-9-]+$/);

  // One paper, shared: the link opens the view with that paper chosen.
  await page.selectOption('[data-testid=paper-select]', { label: 'ses' });
  await page.click('[data-testid=paper-share]');
  const link = await page.textContent('[data-testid=paper-share-url]');
  assert.match(link, /#f2=/);
  const other = await open(link.slice(link.indexOf('#')));
  await assertOnView(other, 'paper');
  assert.equal(await other.$eval('[data-testid=paper-select]', (s) => s.selectedOptions[0].textContent), 'ses');
  await other.click('[data-testid=paper-run]');
  await other.waitForSelector('[data-testid=paper-table]', { timeout: 60_000 });
  const ses = await readCard(other);
  assert.deepEqual(ses.map((r) => r[0]), cliCard('ses').rows.map((r) => `ses.${r.id}`));
  assertCleanPages(pages, 2);
});

test('the sensitivity sweeps run in the page to the CLI\'s tornado', async () => {
  const page = await open('#/paper');
  await assertOnView(page, 'paper');
  await page.selectOption('[data-testid=paper-select]', { label: 'kkor' });
  await page.check('[data-testid=paper-sensitivity]');
  await page.click('[data-testid=paper-run]');
  await page.waitForSelector('[data-testid=paper-tornado]', { timeout: 120_000 });
  const rows = await page.$$eval('[data-testid=paper-tornado] tbody tr', (trs) => trs.map((r) => [
    r.dataset.id, r.dataset.parameter, Number(r.dataset.low), Number(r.dataset.high), r.querySelectorAll('svg rect.bar').length,
  ]));
  const cli = cliCard('kkor', '--sensitivity');
  assert.deepEqual(rows, cli.sensitivity.map((t) => [`${t.paper}.${t.claim}`, t.parameter, t.low, t.high, 1]));
  assertCleanPages(pages, 3);
});

// Page tests of the "Step through" view on the release build in dist/ (and the CLI built by
// `cargo build --release`, which the explanations are held to): one site of a run, instant
// by instant, as a picture and in words, forward and back; the first backfill in a few
// actions on the demo and on a window of a real trace; and "why did this job wait?",
// asked by a click on a job or by its id, computed in the page's engine worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pageSuite, assertCleanPages, waitResults, dropFiles, canvasInk, repoRoot, traces } from './harness.mjs';

const { open, pages } = pageSuite();
const CLI = path.join(repoRoot, 'target', 'release', 'gridscope');
const KTH = path.join(traces, 'KTH-SP2-1996-2.1-cln.swf.gz');

test('the step view reaches the first backfill in two actions on the demo, draws it, and walks forward and back', async () => {
  const page = await open();
  await waitResults(page, 5);
  // Open at first, the run that backfills (EASY) chosen: Step through, then next backfill.
  assert.equal(await page.inputValue('[data-testid=steps-alg]'), '1');
  await page.click('[data-testid=steps-run]');
  await page.waitForSelector('[data-testid=steps-frame]', { timeout: 60_000 });
  assert.match(await page.textContent('[data-testid=steps-events]'), /started: head of the queue/);
  await page.click('[data-testid=steps-next-backfill]');
  assert.match(await page.textContent('[data-testid=steps-events]'), /backfilled — (ends \(by its estimate\)|runs past the head's shadow time)/);
  assert.match(await page.textContent('[data-testid=steps-head]'), /Head: job \d+ waits for its shadow time/);
  // The picture of that instant: drawn, and the backfilled job is in it.
  await page.waitForTimeout(200);
  assert.ok((await canvasInk(page, 'chart-step')) > 0.05, 'the step picture is drawn');
  // Every instant keeps the site within its units (the slider, inside the page).
  const bad = await page.evaluate(async () => {
    const range = document.querySelector('[data-testid=steps] input[type=range]');
    for (let i = 0; i <= Number(range.max); i++) {
      range.value = String(i);
      range.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 0));
      const [, free, cap] = document.querySelector('[data-testid=steps-frame] p').textContent.match(/(\d+) of (\d+) units free/);
      if (Number(free) > Number(cap)) return document.querySelector('[data-testid=steps-frame]').textContent;
    }
    return null;
  });
  assert.equal(bad, null);
  // Forward and back: the previous instant is earlier.
  await page.evaluate(() => { const r = document.querySelector('[data-testid=steps] input[type=range]'); r.value = '5'; r.dispatchEvent(new Event('input', { bubbles: true })); });
  const t = Number(await page.getAttribute('[data-testid=steps-frame]', 'data-time'));
  await page.click('[data-testid=steps-prev]');
  assert.ok(Number(await page.getAttribute('[data-testid=steps-frame]', 'data-time')) < t);
  await page.click('[data-testid=steps-next-decision]');
  assert.match(await page.textContent('[data-testid=steps-events]'), /started/);
  // A window start that is no time is refused, and the old frames go with it.
  await page.fill('[data-testid=steps-from]', '-5');
  await page.press('[data-testid=steps-from]', 'Tab');
  await page.click('[data-testid=steps-run]');
  await page.waitForSelector('[data-testid=steps-error]');
  assert.match(await page.textContent('[data-testid=steps-error]'), /window's start/);
  assert.equal(await page.$('[data-testid=steps-frame]'), null, 'no frames of an earlier request left');
});

test('a window of KTH-SP2 (28,467 jobs) steps to its first backfill in three actions, and a job\'s wait is explained as the CLI explains it', async () => {
  assert.ok(fs.existsSync(KTH), `${KTH} is missing: the tests read ../shared/traces`);
  const page = await open();
  await waitResults(page, 5);
  await dropFiles(page, [{ name: path.basename(KTH), bytes: fs.readFileSync(KTH) }]);
  await page.waitForFunction(() => /KTH-SP2/.test(document.querySelector('[data-testid=run-info]')?.textContent ?? ''), null, { timeout: 60_000 });
  await waitResults(page, 5);
  // 1: where to look; 2: step; 3: the next backfill.
  await page.fill('[data-testid=steps-from]', '5000000');
  await page.press('[data-testid=steps-from]', 'Tab');
  await page.click('[data-testid=steps-run]');
  await page.waitForSelector('[data-testid=steps-frame]', { timeout: 60_000 });
  assert.ok(Number(await page.getAttribute('[data-testid=steps-frame]', 'data-time')) >= 5_000_000, 'the window starts where asked');
  await page.click('[data-testid=steps-next-backfill]');
  assert.match(await page.textContent('[data-testid=steps-events]'), /backfilled/);

  // Why did job 4034 (the longest wait under EASY) wait? The page and the CLI agree.
  await page.fill('[data-testid=steps-job]', '4034');
  await page.press('[data-testid=steps-job]', 'Tab');
  await page.click('[data-testid=steps-why]');
  await page.waitForSelector('[data-testid=steps-explanation][data-job="4034"]', { timeout: 60_000 });
  const cli = JSON.parse(execFileSync(CLI, ['explain', KTH, '--policy', 'easy', '--job', '4034', '--json'], { encoding: 'utf8' }));
  const kinds = await page.$$eval('[data-testid=steps-explanation] li', (lis) => lis.map((li) => li.dataset.kind));
  assert.deepEqual(kinds, cli.spans.map((s) => s.reason.kind));
  // Durations read as the results table writes them; the exact seconds are the CLI's.
  assert.equal(Number(await page.getAttribute('[data-testid=steps-outcome]', 'data-start-s')), cli.start_s);
  assert.match(await page.textContent('[data-testid=steps-outcome]'), /^started at .+ after a wait of .+ on /);
  assert.doesNotMatch(await page.textContent('[data-testid=steps-explanation]'), /\d{6,} s/, 'no raw seconds in the explanation');
});

test('clicking a job in the Gantt chart explains its wait in the run the chart shows', async () => {
  const page = await open();
  await waitResults(page, 5);
  const gantt = page.locator('[data-testid=chart-gantt]');
  await gantt.scrollIntoViewIfNeeded();
  const box = await gantt.boundingBox();
  // Somewhere busy in the middle of the chart: try a few points until one is a job.
  for (const [fx, fy] of [[0.3, 0.3], [0.5, 0.4], [0.4, 0.6], [0.6, 0.5], [0.2, 0.5]]) {
    await gantt.click({ position: { x: box.width * fx, y: box.height * fy } });
    if (await page.$('[data-testid=steps-explanation]')) break;
    await page.waitForTimeout(300);
  }
  await page.waitForSelector('[data-testid=steps-explanation]', { timeout: 30_000 });
  const job = await page.getAttribute('[data-testid=steps-explanation]', 'data-job');
  assert.equal(await page.inputValue('[data-testid=steps-job]'), job);
  assert.match(await page.textContent('[data-testid=steps-explanation]'), new RegExp(`Job ${job} under easy`));
  assert.match(await page.textContent('[data-testid=steps-outcome]'), /^(started at|rejected)/);
  assertCleanPages(pages, 3);
});
